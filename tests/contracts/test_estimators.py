"""The contract every registered estimator keeps, checked over ``ergmfit.estimation.methods()``
(as scikit-learn's ``check_estimator`` runs over ``all_estimators()``).

* its settings table is its constructor's signature; ``get_params``/``set_params`` round trip;
* a bad value of every typed setting (one with a check) is refused with a SettingsError
  naming the setting, when built and by ``set_params``; an unknown setting names the valid ones;
* the same seed gives the same result (a tiny model, small settings);
* Ctrl-C during a fit returns the work done so far, marked interrupted (slow: a real SIGINT);
* with ``checkpoint=``: the checkpoint is the only file written, a finished run's checkpoint
  resumes, another model's or a damaged checkpoint is refused naming the file;
* a feature the estimator does not fit (curved terms, constraints, missing dyads) is refused
  with an error naming the method and the feature; one it fits runs.

A new estimator gets every check by being registered; the tables below (small and long
settings) must name it, which ``test_the_tables_cover_every_estimator`` enforces.
"""
import json
import os
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation import estimator_class, make_estimator, methods
from ergmfit.exceptions import CheckpointError, ErgmfitError
from support import estimator_contract as contract
from support.interrupts import sigint_soon

#: settings of a fit of flomarriage ``edges + triangle`` in well under a second
SMALL = contract.SMALL

#: settings of a fit that runs for minutes unless interrupted; None: the estimator makes no
#: promise about Ctrl-C (MPLE is one optimisation of a few seconds at most)
LONG = {
    "mple": None,
    "mcmle": dict(maxit=60, samplesize=8192, interval=8192, burnin=2048),
    "cd": dict(maxit=10**5, nsteps=50, conv_pval=1.0),          # pval > 1 never: no stop
    "bcd": dict(n_iter=10**6, steps=20),     # about 40 s (steps=1: 2 s)
    "mcle": dict(block_size=4, n_blocks=10**6, cov="naive"),   # about 30 s (3-blocks: 2 s)
    "ee": dict(ee_steps=10**6),
    "bayes": dict(main_iters=10**5),
    "bayes-pl": dict(main_iters=10**6, mcmle=dict(maxit=2, samplesize=256)),
    "sa": dict(phase2_min=10**6),           # 10^6 Robbins-Monro steps in the first subphase
    "egmme": dict(steps=10**7),
}

#: estimators of a dynamic model of one cross-section: the contract's models are written
#: with tergm's operators (Form(~f): the same statistics, targets the formation formula)
DYNAMIC = {"egmme"}


def _model_for(method, model):
    if method not in DYNAMIC:
        return model
    return ef.ERGM(model.network, f"Form(~{model.formula})")

#: (method, setting) pairs whose check accepts a bad value today (strict xfail: fixing one
#: makes its test pass, and then it must leave this list)
KNOWN_LOOSE = {}

#: settings whose default does not pass their own check today (so that
#: ``cls(**cls().get_params())``, scikit-learn's clone, fails)
KNOWN_BAD_DEFAULTS = {}

#: estimators whose interrupted result carries no warning saying so (info["interrupted"] only)
KNOWN_SILENT_INTERRUPT = {}

#: the checkpoint's file name where the estimator asks for a suffix
CHECKPOINT_NAME = {"bayes": "state.npz"}

METHODS = methods()


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")


def _quiet_fit(method, model, **settings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make_estimator(method, **settings).fit(_model_for(method, model))


def _typed_settings():
    out = []
    for method in METHODS:
        for s in estimator_class(method).settings_table():
            if s.check is not None:
                marks = ()
                if (method, s.name) in KNOWN_LOOSE:
                    marks = pytest.mark.xfail(strict=True, reason=KNOWN_LOOSE[(method, s.name)])
                out.append(pytest.param(method, s.name, marks=marks, id=f"{method}-{s.name}"))
    return out


def test_the_tables_cover_every_estimator():
    assert set(SMALL) == set(METHODS) and set(LONG) == set(METHODS)
    for method in METHODS:
        assert isinstance(estimator_class(method), type), f"{method}: a function, not an Estimator"


# ---------------------------------------------------------------------------
# settings
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("method", METHODS)
def test_settings_table_is_the_constructor_signature(method):
    cls = estimator_class(method)
    contract.check_settings_table_is_the_signature(cls)
    assert cls.method == method and make_estimator(method).method == method


def _defaults():
    out = []
    for method in METHODS:
        for s in estimator_class(method).settings_table():
            marks = ()
            if (method, s.name) in KNOWN_BAD_DEFAULTS:
                marks = pytest.mark.xfail(strict=True, reason=KNOWN_BAD_DEFAULTS[(method, s.name)])
            out.append(pytest.param(method, s.name, marks=marks, id=f"{method}-{s.name}"))
    return out


@pytest.mark.parametrize("method, name", _defaults())
def test_every_default_passes_its_own_check(method, name):
    contract.check_default_passes_its_own_check(estimator_class(method), name)


def _round_trip_params():
    bad = {m for m, _ in KNOWN_BAD_DEFAULTS}
    return [pytest.param(m, marks=pytest.mark.xfail(strict=True, reason="a default fails its "
                                                    "check (KNOWN_BAD_DEFAULTS)"))
            if m in bad else m for m in METHODS]


@pytest.mark.parametrize("method", _round_trip_params())
def test_get_params_set_params_round_trip(method):
    contract.check_get_params_set_params_round_trip(estimator_class(method), SMALL[method])


@pytest.mark.parametrize("method, name", _typed_settings())
def test_a_bad_value_of_a_typed_setting_is_refused(method, name):
    contract.check_a_bad_value_is_refused(estimator_class(method), name)


@pytest.mark.parametrize("method", METHODS)
def test_an_unknown_setting_names_the_valid_ones(method):
    contract.check_an_unknown_setting_names_the_valid_ones(
        lambda **settings: make_estimator(method, **settings), estimator_class(method))


# ---------------------------------------------------------------------------
# fits
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("method", METHODS)
def test_the_same_seed_gives_the_same_result(method, flo):
    a = _quiet_fit(method, flo, random_state=3, **SMALL[method])
    b = _quiet_fit(method, flo, random_state=3, **SMALL[method])
    assert np.asarray(a.params).shape == (len(flo.labels),)
    assert np.all(np.isfinite(np.asarray(a.params, dtype=float)))
    np.testing.assert_array_equal(np.asarray(a.params), np.asarray(b.params))
    np.testing.assert_array_equal(np.asarray(a.bse), np.asarray(b.bse))
    if hasattr(a, "draws"):
        np.testing.assert_array_equal(a.draws, b.draws)
    # a Generator seeds the run as its integer does
    c = _quiet_fit(method, flo, random_state=np.random.default_rng(3), **SMALL[method])
    d = _quiet_fit(method, flo, random_state=np.random.default_rng(3), **SMALL[method])
    np.testing.assert_array_equal(np.asarray(c.params), np.asarray(d.params))


@pytest.mark.slow
@pytest.mark.parametrize("method", [m for m in METHODS if LONG[m] is not None])
def test_ctrl_c_returns_the_work_done_marked_interrupted(method, flo, default_sigint):
    _quiet_fit(method, flo, random_state=1, **SMALL[method])   # imports done before the signal
    est = make_estimator(method, random_state=1, **LONG[method])
    timer = sigint_soon(2.0)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = est.fit(_model_for(method, flo))
    finally:
        timer.cancel()
        timer.join()
    assert res.info["interrupted"] is True
    assert not res.converged
    assert np.all(np.isfinite(np.asarray(res.params, dtype=float)))
    warned = (any("interrupt" in str(w.message).lower() for w in caught)
              or any("interrupt" in w.lower() for w in getattr(res, "warnings", [])))
    if method in KNOWN_SILENT_INTERRUPT:
        assert not warned, f"{method} now says it was interrupted: take it off KNOWN_SILENT_INTERRUPT"
        pytest.xfail(KNOWN_SILENT_INTERRUPT[method])
    assert warned, "an interrupted fit says so (a warning, and in its warnings)"


def _checkpoint_methods():
    return [m for m in METHODS if "checkpoint" in estimator_class(m).setting_names()]


def _resume_settings(method):
    # EE continues with the checkpoint's own settings and refuses others; MCMC-MLE's maxit
    # counts the checkpoint's iterations too (the fit's total), so going on asks for one more
    if method == "ee":
        return {}
    if method == "mcmle":
        return {**SMALL[method], "maxit": SMALL[method]["maxit"] + 1}
    return SMALL[method]


@pytest.mark.parametrize("method", _checkpoint_methods())
def test_checkpoint_round_trip(method, flo, tmp_path):
    name = CHECKPOINT_NAME.get(method, "state")
    ck = tmp_path / name
    first = _quiet_fit(method, flo, random_state=2, checkpoint=str(ck), **SMALL[method])
    assert os.listdir(tmp_path) == [name]                  # nothing else, no lock left
    again = _quiet_fit(method, flo, resume=str(ck), **_resume_settings(method))
    assert list(np.asarray(again.params).shape) == [len(flo.labels)]
    assert np.all(np.isfinite(np.asarray(again.params, dtype=float)))
    assert np.all(np.isfinite(np.asarray(first.params, dtype=float)))
    other = ef.ERGM(ef.datasets.load("flomarriage"), "edges + kstar(2)")
    with pytest.raises(CheckpointError, match=name):
        _quiet_fit(method, other, resume=str(ck), **_resume_settings(method))
    # a damaged checkpoint: one error naming the file, never a raw traceback
    target = ck / "meta.json" if ck.is_dir() else ck
    target.write_bytes(target.read_bytes()[: max(1, target.stat().st_size // 3)])
    with pytest.raises(CheckpointError, match=target.name):
        _quiet_fit(method, flo, resume=str(ck), **_resume_settings(method))


def _feature_model(feature, method=None):
    g = ef.datasets.load("flomarriage")
    wrap = (lambda f: f"Form(~{f})") if method in DYNAMIC else (lambda f: f)
    if feature == "curved":
        return ef.ERGM(g, wrap("edges + gwesp(fixed=FALSE)"))
    if feature == "constraints":
        return ef.ERGM(g, wrap("edges + triangle"), constraints="~ bd(maxout=7)")
    nodes = list(g.nodes)
    # (a dynamic model's missing dyads belong to its NetSeries: the static model here)
    return ef.ERGM(g, "edges + triangle", missing=[(nodes[0], nodes[5]), (nodes[2], nodes[8])])


def _fits(method, feature):
    # the estimator says what it fits (its ``supports`` declaration); the tests
    # check that the declaration is honest both ways
    return bool(estimator_class(method).supports.get(feature, False))


FEATURE_WORDS = {"curved": "curved", "constraints": "constraint", "missing": "missing"}


@pytest.mark.parametrize("feature", ["curved", "constraints", "missing"])
@pytest.mark.parametrize("method", METHODS)
def test_an_unsupported_feature_is_refused_by_name(method, feature):
    model = _feature_model(feature, method)
    if _fits(method, feature):
        pytest.skip(f"{method} fits {feature} models (run in test_a_supported_feature_fits)")
    with pytest.raises(ErgmfitError) as err:
        model.fit(method=method, random_state=1, **SMALL[method])
    text = str(err.value)
    assert method in text and FEATURE_WORDS[feature] in text, text


@pytest.mark.parametrize("feature", ["curved", "constraints", "missing"])
@pytest.mark.parametrize("method", METHODS)
def test_a_supported_feature_fits(method, feature):
    if not _fits(method, feature):
        pytest.skip(f"{method} does not fit {feature} models")
    model = _feature_model(feature, method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = model.fit(method=method, random_state=1, **SMALL[method])
    assert np.asarray(res.params).shape == (len(model.labels),)
    assert np.all(np.isfinite(np.asarray(res.params, dtype=float)))


# ---------------------------------------------------------------------------
# typed diagnostics (fit.diagnostics)
# ---------------------------------------------------------------------------
#: settings that make an estimator report its optional diagnostics (standard
#: errors by simulation, averaged iterates, ...), beyond SMALL's
OPTIONAL_REPORTS = {
    "mple": [dict(cov="godambe", n_sim=10), dict(bootstrap=4)],
    "bcd": [dict(n_iter=100, cov="godambe", n_sim=10, average=0.5)],
    "mcle": [dict(blocks="random", n_blocks=200, cov="godambe", n_sim=10),
             dict(cov="exact")],         # on a 5-node network (2^10 states)
}


def _report_cases():
    out = []
    for method in METHODS:
        out.append(pytest.param(method, "plain", {}, id=f"{method}-plain"))
        for feature in ("curved", "constraints", "missing"):
            if _fits(method, feature):
                out.append(pytest.param(method, feature, {}, id=f"{method}-{feature}"))
        for k, extra in enumerate(OPTIONAL_REPORTS.get(method, ())):
            kind = "tiny" if extra.get("cov") == "exact" else "plain"
            out.append(pytest.param(method, kind, extra, id=f"{method}-settings{k}"))
    out.append(pytest.param("mcmle", "dyad-independent", {}, id="mcmle-exact-mle"))
    out.append(pytest.param("mcmle", "offset", {}, id="mcmle-offset"))
    return out


def test_every_estimator_has_its_diagnostics_class():
    from ergmfit.results import Diagnostics, diagnostics_class
    for method in METHODS:
        cls = diagnostics_class(method)
        assert cls is not Diagnostics and method in cls.methods, method


@pytest.mark.parametrize("method, feature, extra", _report_cases())
def test_every_reported_diagnostic_is_a_declared_field(method, feature, extra, tmp_path):
    """What an estimator reports becomes its method's typed diagnostics: a key no
    field declares (``diagnostics.extra``) fails here, so none slips in untyped;
    the typed object survives a save and a load."""
    from ergmfit.results import ERGMResults, diagnostics_class
    if feature == "dyad-independent":
        model = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    elif feature == "offset":
        model = ef.ERGM(ef.datasets.load("flomarriage"), "edges + offset(triangle)")
        extra = dict(offset_coef=[0.1])
    elif feature == "plain":
        model = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    elif feature == "tiny":
        net = ef.Network(5, np.array([[0, 1], [1, 2], [2, 0], [2, 3]]), False)
        model = ef.ERGM(net, "edges + triangle")
    else:
        model = _feature_model(feature, method)
    if feature in ("plain", "tiny"):
        model = _model_for(method, model)
    settings = extra if feature == "tiny" else dict(SMALL[method], **extra)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = model.fit(method=method, random_state=1, **settings)
    d = res.diagnostics
    assert type(d) is diagnostics_class(res.method)
    assert d.extra == {}, f"{method} reports undeclared keys {sorted(d.extra)}: declare them " \
                          f"in {type(d).__name__}"
    assert set(res.info) <= set(d.field_names()) and len(res.info) > 0
    for key in res.info:
        assert res.info[key] is getattr(d, key)
    for ext in (".json", ".npz"):
        res.save(tmp_path / f"fit{ext}")
        back = ERGMResults.load(tmp_path / f"fit{ext}")
        assert type(back) is type(res) and type(back.diagnostics) is type(d)
        assert back.diagnostics == type(d).from_info(
            json.loads(json.dumps(res.to_dict()["info"]))), ext
