"""An estimator object's own ``fit(model)`` fits what ``model.fit(method=...)`` fits.

``ERGM.fit`` and every :class:`~ergmfit.estimation.Estimator` subclass's ``fit`` (through
``estimation.base._checked_fit``, which hands an outermost fit to the model's
``_estimate``) go through one path, ``ERGM._estimate``: the configured model is checked,
then fitted on the face of an MLE at infinity (#36), from a network with the target
statistics (as statnet), on the free view of a model with offset terms, and the results
keep the model's ``saved_spec``.  For every registered estimator and every case it
supports, ``E(random_state=s, **settings).fit(m)`` gives the same bits (params, standard
errors, log-likelihood) as ``m.fit(method=E.method, random_state=s, **settings)``.
Before, a direct fit skipped all of it: it estimated the offset coefficients as free
parameters (MCMLE on flomarriage's ``edges + offset(triangle)`` at 0.5 gave 0.141 for the
offset), started the chains at the observed network, and fitted no boundary face.  The
cases come from the registry: a new estimator is covered by being registered.
"""
import warnings

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation import estimator_class, methods, supports
from ergmfit.exceptions import ErgmfitError
from support import estimator_contract as contract

FLO = ef.datasets.load("flomarriage")
#: estimators of a dynamic model of one cross-section (tergm's operators)
DYNAMIC = {"egmme"}


def _groups():
    # every within-group dyad of group 'a' is a tie: nodematch.g.a at its maximum (#36)
    g = nx.Graph()
    for k, gr in enumerate(["a"] * 4 + ["b"] * 5 + ["c"] * 5):
        g.add_node(k, g=gr)
    g.add_edges_from((i, j) for i in range(4) for j in range(i + 1, 4))
    g.add_edges_from([(4, 5), (5, 6), (9, 10), (4, 11), (6, 12), (0, 7), (5, 9)])
    return g


def _model(case, method):
    """(model, what ERGM.fit is given besides the settings) of ``case``."""
    if method in DYNAMIC:
        m = ef.ERGM(FLO, "Form(~edges) + Persist(~offset(edges))")
        return m, {"offset_coef": [np.log(9)]}
    if case == "plain":
        return ef.ERGM(FLO, "edges + triangle"), {}
    if case == "offset":
        return ef.ERGM(FLO, "edges + offset(triangle)"), {"offset_coef": [0.5]}
    if case == "target_stats":
        return ef.ERGM(FLO, "edges + triangle"), {"target_stats": [22.0, 4.0]}
    if case == "boundary":
        return ef.ERGM(_groups(), "edges + nodematch('g', diff=TRUE) + triangle"), {}
    raise AssertionError(case)


def _applies(case, method):
    s = supports(method)
    if method in DYNAMIC:
        return case == "offset"
    if case == "target_stats":
        return bool(s.get("target_stats"))
    if case == "boundary":
        return bool(s.get("infinite_estimates"))
    return True


CASES = ("plain", "offset", "target_stats", "boundary")


def _cases():
    return [pytest.param(method, case, id=f"{method}-{case}")
            for method in methods() for case in CASES if _applies(case, method)]


def _run(call):
    """(results, None) or (None, the error) of ``call()``, warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except ErgmfitError as err:
            return None, err


def _same(a, b):
    if a is None or b is None:
        assert a is None and b is None
        return
    np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))


def _assert_same_fit(through, direct):
    (r1, e1), (r2, e2) = through, direct
    if e1 is not None or e2 is not None:       # refused: the same refusal
        assert type(e1) is type(e2) and str(e1) == str(e2)
        return
    assert list(r1.labels) == list(r2.labels)
    _same(r1.params, r2.params)
    _same(r1.bse, r2.bse)
    _same(r1.loglik, r2.loglik)
    assert r1.diagnostics.sample_space == r2.diagnostics.sample_space


@pytest.mark.parametrize("method, case", _cases())
def test_direct_fit_is_the_model_fit(method, case):
    model, config = _model(case, method)
    settings = contract.SMALL[method]
    through = _run(lambda: model.fit(method=method, random_state=1, **config, **settings))
    configured = model.configured(**config)
    direct = _run(lambda: estimator_class(method)(random_state=1, **settings).fit(configured))
    _assert_same_fit(through, direct)
    if case == "offset" and through[0] is not None:
        # the offset holds its coefficient (the bug: a direct fit estimated it)
        assert through[0].params[-1] == config["offset_coef"][-1]


def test_the_user_estimator_is_not_modified():
    # the target-statistics start draws from the estimator's random stream: a copy
    # carries it, the user's object keeps its seed
    from ergmfit.estimation import MCMLE
    est = MCMLE(random_state=3, **contract.SMALL["mcmle"])
    m = ef.ERGM(FLO, "edges + triangle").configured(target_stats=[22.0, 4.0])
    first = _run(lambda: est.fit(m))
    assert est.random_state == 3 and est.get_params() == MCMLE(
        random_state=3, **contract.SMALL["mcmle"]).get_params()
    _assert_same_fit(first, _run(lambda: est.fit(m)))


def test_an_offset_init_of_every_coefficient_is_cut_to_the_free_ones():
    # init over every coefficient (offsets too), given to the estimator object
    from ergmfit.estimation import MCMLE
    m = ef.ERGM(FLO, "edges + offset(triangle)")
    settings = dict(contract.SMALL["mcmle"], init=[-1.5, 0.5])
    through = _run(lambda: m.fit(method="mcmle", random_state=2, offset_coef=[0.5], **settings))
    direct = _run(lambda: MCMLE(random_state=2, **settings).fit(
        m.configured(offset_coef=[0.5])))
    assert through[1] is None
    _assert_same_fit(through, direct)


def test_a_helper_fit_is_not_prepared_again(monkeypatch):
    # MCMC-MLE's MPLE start runs inside the prepared fit: it gets the free view (no
    # offset terms), not the model again
    import ergmfit.model as model_module
    seen = []
    real = model_module.ERGM._estimate

    def counting(self, estimator, **config):
        seen.append(estimator.method)
        return real(self, estimator, **config)

    monkeypatch.setattr(model_module.ERGM, "_estimate", counting)
    from ergmfit.estimation import MCMLE
    m = ef.ERGM(FLO, "edges + offset(triangle)").configured(offset_coef=[0.5])
    _run(lambda: MCMLE(random_state=1, **contract.SMALL["mcmle"]).fit(m))
    assert seen == ["mcmle"]


def test_a_temporal_direct_fit_checks_the_panel():
    # TemporalERGM's preparation: Persist() with no ties in any previous wave
    from ergmfit.estimation import MPLE
    waves = [nx.empty_graph(5), nx.path_graph(5)]
    m = ef.ERGM(ef.NetSeries(waves), "Form(~edges) + Persist(~edges)")
    through, direct = _run(lambda: m.fit(method="mple")), _run(lambda: MPLE().fit(m))
    assert through[1] is not None
    _assert_same_fit(through, direct)


def test_btergm_direct_fit_models_every_wave_as_fit_does():
    from ergmfit.estimation.btergm import BTERGM
    waves = [nx.path_graph(6), nx.cycle_graph(6), nx.star_graph(5)]
    m = ef.ERGM(ef.NetSeries(waves), "edges + kstar(2)")      # no term looks back
    through = _run(lambda: m.fit(method="btergm", R=20, random_state=1))
    direct = _run(lambda: BTERGM(R=20, random_state=1).fit(m))
    assert through[1] is None
    _assert_same_fit(through, direct)
    np.testing.assert_array_equal(through[0].boot, direct[0].boot)
    assert direct[0].info["btergm"]["times"] == [0, 1, 2]       # wave 0 too, as btergm


def test_btergm_direct_fit_holds_the_offsets_as_fit_does():
    # the pooled MPLE and every bootstrap replicate hold the offset at offset_coef, whether
    # the coefficient is given to fit(), configured on the model, or the model is handed to
    # the estimator object (which models every wave, wave 0 too, as fit() does)
    from ergmfit.estimation.btergm import BTERGM
    waves = [nx.path_graph(6), nx.cycle_graph(6), nx.star_graph(5)]
    m = ef.ERGM(ef.NetSeries(waves), "edges + offset(kstar(2))")
    through = _run(lambda: m.fit(method="btergm", R=20, random_state=1, offset_coef=[0.2]))
    configured = m.configured(offset_coef=[0.2])
    direct = _run(lambda: BTERGM(R=20, random_state=1).fit(configured))
    again = _run(lambda: configured.fit(method="btergm", R=20, random_state=1))
    assert through[1] is None
    for other in (direct, again):
        _assert_same_fit(through, other)
        np.testing.assert_array_equal(through[0].boot, other[0].boot)
        assert other[0].info["btergm"]["times"] == [0, 1, 2]
    fit = through[0]
    assert list(fit.labels) == ["edges", "offset(kstar2)"]
    assert fit.params["offset(kstar2)"] == 0.2 and fit.bse["offset(kstar2)"] == 0.0
    assert np.all(fit.boot[:, 1] == 0.2)
    assert np.asarray(fit.conf_int())[1].tolist() == [0.2, 0.2]


def test_a_cross_section_refuses_btergm_directly():
    from ergmfit.estimation.btergm import BTERGM
    m = ef.ERGM(FLO, "Form(~edges) + Persist(~offset(edges))")
    through, direct = (_run(lambda: m.fit(method="btergm", R=10)),
                       _run(lambda: BTERGM(R=10).fit(m)))
    assert "cross-section" in str(through[1])
    _assert_same_fit(through, direct)


def test_an_egocentric_direct_fit_is_the_ego_fit():
    from ergmfit.estimation import MPLE
    ego = ef.EgoData.from_network(ef.datasets.load("faux.mesa.high"))
    m = ef.ERGM(ego, "edges + nodematch('Sex')", popsize=205)
    through, direct = _run(lambda: m.fit(method="mple")), _run(lambda: MPLE().fit(m))
    _assert_same_fit(through, direct)
    assert through[0].labels[0] == "offset(netsize.adj)"
