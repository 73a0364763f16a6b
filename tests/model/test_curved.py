"""Curved terms (statnet's fixed=FALSE): statistics, the map θ -> η, MPLE and MCMC-MLE (#17)."""
import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ergmfit as ef
from ergmfit.estimation.mple.pseudolikelihood import pseudo_design
from ergmfit.exceptions import SettingsError, TermError
from ergmfit.terms.curved import AlternatingStars, CutoffWarning, GeometricWeights
from support import curved_reference as statnet_curved

SUMMARIES = [e for e in statnet_curved.entries() if e["kind"] == "summary"]


@pytest.mark.parametrize("entry", SUMMARIES, ids=[e["id"] for e in SUMMARIES])
def test_curved_statistics_equal_statnets_summary(entry):
    if entry.get("status") == "error":
        # gwdegree(fixed=FALSE, attr=): statnet 4.4 has no count vector either, it
        # refuses ("Using 'fixed=FALSE' with an attribute is not implemented at this
        # time. Use 'fixed=TRUE'."); so do we, with the same advice
        assert "fixed=FALSE" in entry["error"] and "fixed=TRUE" in entry["error"]
        with pytest.raises(TermError, match="fixed=TRUE"):
            ef.ERGM(entry["dataset"], statnet_curved.formula(entry))
        return
    with warnings.catch_warnings():
        # statnet's summaries of a cutoff below the network's largest count are truncated
        # sums: our CutoffWarning says so (its own tests: tests/terms/test_cutoff_warning.py)
        warnings.simplefilter("ignore", CutoffWarning)
        stats = ef.ERGM(entry["dataset"], statnet_curved.formula(entry)).statistics()
    assert list(stats) == list(entry["stats"])
    assert list(stats.values()) == [float(v) for v in entry["stats"].values()]


@pytest.mark.parametrize("curve, theta", [(GeometricWeights(12), (0.7, 0.4)),
                                          (GeometricWeights(5), (-1.2, 0.0)),
                                          (AlternatingStars(9), (0.3, 2.5)),
                                          (AlternatingStars(4), (1.1, 0.6))])
def test_jacobian_is_the_derivative_of_eta(curve, theta):
    th = np.array(theta, dtype=float)
    J = curve.jacobian(th)
    h = 1e-6
    for k in range(2):
        e = np.zeros(2)
        e[k] = h
        fd = (curve.eta(th + e) - curve.eta(th - e)) / (2 * h)
        np.testing.assert_allclose(J[:, k], fd, rtol=1e-6, atol=1e-8)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.floats(0.05, 2.5))
def test_eta_dot_counts_is_the_fixed_statistic(seed, decay):
    # η(1, α)·g equals gwesp(α, fixed=TRUE) etc. when the cutoff keeps every count
    g = nx.gnp_random_graph(12, 0.35, seed=seed)
    for curved, fixed in [("gwesp(fixed=FALSE, cutoff=30)", f"gwesp({decay!r}, fixed=TRUE)"),
                          ("gwdsp(fixed=FALSE, cutoff=30)", f"gwdsp({decay!r}, fixed=TRUE)"),
                          ("gwnsp(fixed=FALSE, cutoff=30)", f"gwnsp({decay!r}, fixed=TRUE)"),
                          ("gwdegree(fixed=FALSE, cutoff=30)",
                           f"gwdegree({decay!r}, fixed=TRUE)"),
                          ("altkstar(fixed=FALSE)", f"altkstar({1 + decay!r}, fixed=TRUE)")]:
        mc = ef.ERGM(g, curved)
        par = 1 + decay if curved.startswith("altkstar") else decay
        value = mc.eta([1.0, par]) @ mc.statistics_vector()
        want = ef.ERGM(g, fixed).statistics_vector()[0]
        assert value == pytest.approx(want, rel=1e-9, abs=1e-9), curved


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_change_statistics_of_the_counts(seed, directed):
    rng = np.random.default_rng(seed)
    n = 9
    g = nx.gnp_random_graph(n, 0.3, seed=seed, directed=directed)
    formula = ("edges + dgwesp(fixed=FALSE, type='OSP') + gwidegree(fixed=FALSE) + gwdsp"
               if directed else "edges + gwesp + gwdsp + gwnsp + gwdegree + altkstar")
    m = ef.ERGM(g, formula)
    assert m.curved
    cm = m.compiled()
    for _ in range(8):
        i, j = rng.choice(n, size=2, replace=False).tolist()
        before = m.statistics_vector(cm.state.ties())
        d = cm.dyad_change_stats(i, j) * (-1.0 if cm.state.has(i, j) else 1.0)
        v = cm.var_of(i, j)
        cm.flip_var(v)
        after = m.statistics_vector(cm.state.ties())
        np.testing.assert_allclose(after - before, d, atol=1e-9)
        cm.flip_var(v)
        cm.flip_var(v)           # leave it toggled: the next step starts elsewhere


def test_labels_and_defaults():
    m = ef.ERGM("flomarriage", "edges + gwesp + gwdegree(0.3, fixed=FALSE) + altkstar")
    assert m.curved
    assert m.labels == ["edges", "gwesp", "gwesp.decay", "gwdegree", "gwdegree.decay",
                        "altkstar", "altkstar.lambda"]
    assert m.stat_labels[:3] == ["edges", "esp#1", "esp#2"]
    assert len(m.stat_labels) == 1 + 14 + 15 + 15          # n - 2, n - 1, n - 1
    assert [t.init_decay for t in m.terms] == [None, None, 0.3, None]
    # the fixed forms are unchanged
    assert ef.ERGM("flomarriage", "gwesp(0.5, fixed=TRUE)").stat_labels == ["gwesp.fixed.0.5"]
    assert not ef.ERGM("flomarriage", "gwesp(0.5, fixed=TRUE)").curved


MPLE_FITS = [e for e in statnet_curved.entries() if e["kind"] == "fit" and e["estimate"] == "MPLE"
             and e["status"] == "ok"]


@pytest.mark.parametrize("entry", MPLE_FITS, ids=[e["id"] for e in MPLE_FITS])
def test_curved_mple_against_statnet(entry):
    m = ef.ERGM(entry["dataset"], statnet_curved.formula(entry))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = m.fit(method="mple", init=statnet_curved.init(entry))
    ridge = any("ran off" in str(w.message) for w in caught)
    if ridge:
        # no finite maximum in the decay: say so, and statnet's own s.e. is huge too
        assert any(entry["se"][lab] > 1e3 for lab in m.labels) or \
            max(fit.params[lab] for lab in m.labels if lab.endswith(".decay")) > 8
        assert any("ran off" in w for w in fit.warnings)
        return
    des = pseudo_design(m.compiled())
    theirs = np.array([entry["coef"][lab] for lab in m.labels])
    ll_ours = des.loglik(m.eta(np.asarray(fit.params)))
    ll_theirs = des.loglik(m.eta(theirs))
    assert ll_ours >= ll_theirs - 1e-6            # never a worse pseudo-likelihood
    if ll_ours > ll_theirs + 1e-3:
        # statnet stopped short of the maximum (a start at decay ~0, a ridge): ours is higher
        return
    for lab in m.labels:
        se = entry["se"][lab]
        if se > 1e3:
            continue                 # a flat ridge: the decay is not identified
        assert abs(fit.params[lab] - entry["coef"][lab]) <= 0.25 * se, lab
        assert fit.bse[lab] == pytest.approx(se, rel=0.2), lab


def test_curved_mcmle_lazega_matches_statnet():
    refs = [e for e in statnet_curved.entries() if e["kind"] == "fit" and e["estimate"] == "MLE"
            and e["status"] == "ok" and e["dataset"] == "lazega"]
    assert len(refs) == 3
    m = ef.ERGM("lazega", statnet_curved.formula(refs[0]))
    fit = m.fit(method="mcmle", init=statnet_curved.init(refs[0]), random_state=1)
    assert fit.converged
    for lab in m.labels:
        mean = np.mean([r["coef"][lab] for r in refs])
        se = np.mean([r["se"][lab] for r in refs])
        assert abs(fit.params[lab] - mean) <= 0.25 * se, lab
        assert fit.bse[lab] == pytest.approx(se, rel=0.2), lab


def test_simulate_gof_save_load_with_curved_parameters(tmp_path):
    m = ef.ERGM("flomarriage", "edges + gwesp")
    fit = m.fit(method="mple")
    S = m.simulate(fit.params, n=5, output="stats", random_state=1)
    assert S.shape == (5, len(m.stat_labels))
    gof = fit.gof(n_sim=5, random_state=2)
    assert gof.blocks["model"].labels == m.stat_labels[:len(gof.blocks["model"].labels)]
    path = tmp_path / "fit.json"
    fit.save(path)
    back = type(fit).load(path)
    assert back.labels == m.labels
    np.testing.assert_allclose(np.asarray(back.params), np.asarray(fit.params))
    assert back.rebuild_model().stat_labels == m.stat_labels


def test_estimators_without_curved_support_say_so():
    m = ef.ERGM("flomarriage", "edges + gwesp")
    with pytest.raises(SettingsError, match="does not fit curved terms.*'mcmle'.*fixed=TRUE"):
        m.fit(method="bayes-pl")


def test_guarded_step_rules():
    from ergmfit.estimation.mcmle.estimator import _overshoot
    assert _overshoot(np.array([4.0, 1.0]), np.array([-5.0, 0.0]))       # crossed, farther
    assert not _overshoot(np.array([4.0, 1.0]), np.array([-2.0, 0.0]))   # came back near
    assert not _overshoot(np.array([-0.6, 0.0]), np.array([-5.6, 0.0]))  # same side
    assert not _overshoot(np.array([8.0, 0.0]), np.array([-5.0, 0.0]))   # crossed but nearer


def test_curved_oscillation_needs_a_swing_back():
    from ergmfit.estimation.mcmle.estimator import _check_oscillation
    from ergmfit.exceptions import DegenerateModelError
    m = ef.ERGM("flomarriage", "edges + gwesp")
    p = len(m.labels)
    Z = np.zeros((10, p))

    def hist(ts):
        return [{"t_mean": [t] * p} for t in ts]
    # approach from far above, one crossing: not degenerate for a curved model
    _check_oscillation(m, hist([8, 7, 4, -5, -6]), Z, np.zeros(p), counts=False)
    with pytest.raises(DegenerateModelError, match="near-degenerate"):
        _check_oscillation(m, hist([8, -7, 6, -5]), Z, np.zeros(p), counts=False)


def test_cd_fits_a_curved_model_near_the_mle():
    m = ef.ERGM("lazega", "edges + gwesp + nodecov('seniority') + nodecov('practice') + "
                          "nodematch('practice') + nodematch('gender') + nodematch('office')")
    fit = m.fit(method="cd", random_state=1)
    assert fit.converged and fit.method == "cd"
    # statnet's MCMC-MLE (mean of 3 runs): gwesp 0.90, gwesp.decay 0.78 (s.e. 0.30, 0.22)
    assert abs(fit.params["gwesp"] - 0.90) < 0.5 and abs(fit.params["gwesp.decay"] - 0.78) < 0.5
