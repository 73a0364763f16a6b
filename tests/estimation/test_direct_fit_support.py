"""An estimator object's own ``fit`` refuses what ``ERGM.fit(method=...)`` refuses.

``ERGM.fit`` and every :class:`~ergmfit.estimation.Estimator` subclass's ``fit`` (through
``estimation.base._checked_fit``) run one check,
:func:`~ergmfit.estimation.registry.check_supports`, of the model against the estimator's
``supports`` declaration: the family, constraints, missing dyads, target statistics (and
both together), curved terms and parallel tempering.  For every registered estimator and
every feature it does not declare, a model that needs the feature, given to
``Estimator().fit(model)`` directly, raises the same error, with the same message, as
``model.fit(method=...)`` (before: BCD, MCLE and SA fitted a model with missing dyads,
ignoring them).  The cases come from the registry: a new estimator is covered by being
registered.
"""
import warnings

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation import estimator_class, methods, supports
from ergmfit.exceptions import ErgmfitError
from support import estimator_contract as contract

#: estimators of a dynamic model of one cross-section (tergm's operators, as the contract
#: tests write their models)
DYNAMIC = {"egmme"}

FLO = ef.datasets.load("flomarriage")
NODES = list(FLO.nodes)
MISSING = [(NODES[0], NODES[5]), (NODES[2], NODES[8])]


def _counts():
    g = nx.DiGraph()
    g.add_nodes_from(range(5))
    for k, (i, j) in enumerate([(0, 1), (1, 2), (2, 3), (3, 0), (1, 4), (4, 2)]):
        g.add_edge(i, j, w=1 + k % 3)
    return g


def _model(feature, method):
    """A model that needs ``feature`` of an estimator (a tiny one, as the contract's)."""
    wrap = (lambda f: f"Form(~{f})") if method in DYNAMIC else (lambda f: f)
    plain = wrap("edges + triangle")
    if feature == "curved":
        return ef.ERGM(FLO, wrap("edges + gwesp(fixed=FALSE)"))
    if feature == "constraints":
        return ef.ERGM(FLO, plain, constraints="~ bd(maxout=7)")
    if feature == "missing":       # a dynamic model's missing dyads belong to its NetSeries
        return ef.ERGM(FLO, "edges + triangle", missing=MISSING)
    if feature == "target_stats":
        return ef.ERGM(FLO, plain).configured(target_stats=[18.0, 2.0])
    if feature == "missing+target_stats":
        return ef.ERGM(FLO, "edges + triangle", missing=MISSING).configured(
            target_stats=[18.0, 2.0])
    if feature == "tempering":
        return ef.ERGM(FLO, plain).configured(tempering=True)
    if feature == "families":
        return ef.ERGM(_counts(), "sum + nonzero", response="w", reference="Poisson")
    raise AssertionError(feature)


FEATURES = ("families", "constraints", "missing", "target_stats", "missing+target_stats",
            "curved", "tempering")


def _declares(method, feature):
    s = supports(method)
    if feature == "families":
        return "count" in s.get("families", ())
    return bool(s.get(feature, False))


def _unsupported():
    return [pytest.param(method, feature, id=f"{method}-{feature}")
            for method in methods() for feature in FEATURES if not _declares(method, feature)]


def _refusal(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ErgmfitError) as err:
            call()
    return err.value


@pytest.mark.parametrize("method, feature", _unsupported())
def test_direct_fit_refuses_as_ergm_fit(method, feature):
    model = _model(feature, method)
    through = _refusal(lambda: model.fit(method=method, random_state=1,
                                         **contract.SMALL[method]))
    est = estimator_class(method)(random_state=1, **contract.SMALL[method])
    direct = _refusal(lambda: est.fit(model))
    assert type(direct) is type(through)
    assert str(direct) == str(through)


def test_every_estimator_has_a_refusal_case():
    # every registered estimator but one that fits every feature is in the table above
    cases = {p.values[0] for p in _unsupported()}
    assert cases == {m for m in methods() if not all(_declares(m, f) for f in FEATURES)}
    assert {"bcd", "mcle", "sa"} <= cases


@pytest.mark.parametrize("method", methods())
def test_a_declared_feature_passes_the_check(method):
    # the check itself (no fit): what the estimator declares is not refused
    from ergmfit.estimation.registry import check_supports
    for feature in FEATURES:
        if _declares(method, feature):
            check_supports(supports(method), method, _model(feature, method))


def test_the_check_runs_once_on_the_ergm_fit_path(monkeypatch):
    # ERGM.fit checks the model; the estimator's own fit, called by it, does not again
    # (the whole check, the one that asks the family: a helper fit checks curved terms only)
    m = ef.ERGM(FLO, "edges")
    calls = []
    real = type(m.family).check_fit

    def counting(family, model):
        calls.append(model)
        return real(family, model)

    monkeypatch.setattr(type(m.family), "check_fit", counting)
    m.fit(method="mple")
    assert len(calls) == 1
    estimator_class("mple")().fit(m)
    assert len(calls) == 2
    m.fit(method="mcmle", random_state=1, **contract.SMALL["mcmle"])   # MPLE start inside
    assert len(calls) == 3


def test_a_model_without_the_interface_is_not_checked():
    # an MRF declares no fit features: its methods check their variables themselves
    from ergmfit.mrf import IsingModel, PseudoLikelihood
    X = np.random.default_rng(0).integers(0, 2, size=(50, 4))
    res = PseudoLikelihood().fit(IsingModel(nx.path_graph(4)), X)
    assert np.all(np.isfinite(np.asarray(res.params, dtype=float)))


def test_btergm_fits_a_panel_with_missing_dyads():
    # BTERGM declares missing dyads: its pooled MPLE and each wave's bootstrap rows leave
    # them out (as btergm drops NA dyads); TemporalERGM.fit ran it unchecked before, with
    # this estimate, and its own check must not refuse it now
    waves = [nx.path_graph(6), nx.cycle_graph(6), nx.star_graph(5)]
    m = ef.ERGM(ef.NetSeries(waves, missing=[None, [(0, 3)], None]), "edges + memory()")
    fit = m.fit(method="btergm", R=20, random_state=1)
    mple = m.fit(method="mple")
    np.testing.assert_allclose(np.asarray(fit.params), np.asarray(mple.params), rtol=1e-6)
    assert fit.nobs == mple.nobs == 29          # 2 transitions x 15 dyads, 1 missing
