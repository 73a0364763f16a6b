"""The missing-data MCMC-MLE of a curved model (#18): the Handcock-Gile
observed-data likelihood in θ through η(θ) (estimation/missing.py), with the
complete-data MCMC-MLE's curved step (curved.curved_step)."""
import itertools
import warnings

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mcmle import missing as M
from ergmfit.exceptions import DegenerateModelError

from support import constraints_reference as cr

CURVED = "edges + gwesp(fixed=FALSE) + nodematch('practice')"


def _quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **kw)


def _lazega_na10():
    e = {"dataset": "lazega.na10", "directed": False}
    return cr.network(e), cr.missing(e)


# --- exact: 6 nodes, 15 dyads (3 missing), every graph enumerated ---------------

N6 = 6
PAIRS6 = list(itertools.combinations(range(N6), 2))
TIES6 = [(2, 3), (0, 5), (1, 2), (0, 1), (0, 4), (2, 5), (1, 5), (0, 2), (1, 3), (0, 3)]
MISSING6 = [(3, 5), (4, 5), (2, 3)]


def _all_graph_stats(K):
    """edges, esp#1..esp#K of all 2^15 graphs on 6 nodes, and their dyad values."""
    bits = ((np.arange(2 ** len(PAIRS6))[:, None] >> np.arange(len(PAIRS6))) & 1)
    A = np.zeros((len(bits), N6, N6), np.int16)
    for k, (i, j) in enumerate(PAIRS6):
        A[:, i, j] = A[:, j, i] = bits[:, k]
    SP = np.einsum("gij,gjk->gik", A, A)
    cols = [bits.sum(1)] + [((SP == k) & (A == 1)).sum((1, 2)) // 2 for k in range(1, K + 1)]
    return np.stack(cols, 1).astype(float), bits


def _moments(S, eta, J):
    e = S @ eta
    w = np.exp(e - e.max())
    w /= w.sum()
    X = S @ J
    mu = w @ X
    return mu, (X - mu).T @ ((X - mu) * w[:, None])


def test_curved_missing_data_mle_equals_the_exact_one():
    # the observed-data MLE of edges + gwesp(fixed=FALSE) by enumeration: the
    # conditional and unconditional means agree in the parameters' directions
    # (J'(E[g | observed] - E[g]) = 0), solved by Newton.  MCMC-MLE (seeds 1-4:
    # within 0.025 exact s.e.) lands within 0.1 s.e., its s.e. (J'(Cov[g] -
    # Cov[g | observed])J, statnet's) within 10 % of the exact ones.
    from scipy import optimize
    g = nx.Graph()
    g.add_nodes_from(range(N6))
    g.add_edges_from(TIES6)
    m = ef.ERGM(g, "edges + gwesp(fixed=FALSE)", missing=MISSING6)
    par = m.parameterisation
    S, bits = _all_graph_stats(len(m.stat_labels) - 1)
    y = np.array([int(p in TIES6) for p in PAIRS6])
    mi = np.array([p in MISSING6 for p in PAIRS6])
    compat = np.all(bits[:, ~mi] == y[~mi], axis=1)
    assert compat.sum() == 8 and m.sample_space.n_missing == 3

    def score(th):
        J = par.jacobian(th)
        return (_moments(S[compat], par.eta(th), J)[0] - _moments(S, par.eta(th), J)[0])

    exact = optimize.fsolve(score, [-1.2, 0.7, 0.9], xtol=1e-12)
    J = par.jacobian(exact)
    info = _moments(S, par.eta(exact), J)[1] - _moments(S[compat], par.eta(exact), J)[1]
    se = np.sqrt(np.diag(np.linalg.inv(info)))
    np.testing.assert_allclose(exact, [-1.1916, 0.6865, 0.9326], atol=1e-3)
    for seed in (1, 2):
        fit = _quiet(m.fit, method="mcmle", random_state=seed, verbose=False)
        assert fit.converged and fit.info["missing_data"].startswith("observed-data")
        z = np.abs(np.asarray(fit.params) - exact) / se
        ratio = np.sqrt(np.diag(fit.cov)) / se
        assert np.all(z < 0.1), (seed, z)
        assert np.all(np.abs(ratio - 1) < 0.1), (seed, ratio)


def test_without_missing_dyads_it_is_the_plain_curved_fit():
    # the same Lazega model through the missing-data MCMC-MLE with no missing
    # dyads (the conditional "chain" is the observed network) and through the
    # complete-data one: their paths differ (the latter has a pilot sample,
    # backtracking, MCMC s.e.), so the estimates agree within Monte Carlo error
    # (seeds 1-3: within 0.06 s.e.; log-likelihoods within 0.45)
    m = ef.ERGM("lazega", CURVED)
    assert m.sample_space.n_missing == 0
    a = _quiet(M.MissingDataMCMLE(random_state=1).fit, m)
    b = _quiet(m.fit, method="mcmle", random_state=1, verbose=False)
    se = np.sqrt(np.diag(b.cov))
    assert a.converged and b.converged
    assert np.all(np.abs(np.asarray(a.params) - np.asarray(b.params)) / se < 0.15)
    assert np.all(np.abs(np.sqrt(np.diag(a.cov)) / se - 1) < 0.15)
    assert abs(a.loglik - b.loglik) < 1.0


@pytest.fixture(scope="module")
def lazega_na10_fit():
    net, miss = _lazega_na10()
    m = ef.ERGM(net, CURVED, missing=miss)
    return net, miss, _quiet(m.fit, method="mcmle", random_state=1, verbose=False)


def test_curved_missing_data_fit_at_its_decay_is_the_fixed_decay_fit(lazega_na10_fit):
    # lazega.na10 (63 of 630 dyads missing): the decay is estimated (seeds 1, 3, 4:
    # 0.81-0.83); the fixed-decay missing-data fit at that decay (the linear path,
    # or offset(gwesp(fixed=FALSE), 2), which equals it to 1e-12) has the other
    # coefficients within 0.08 of its s.e. (seeds 1-4 x 1-2): the profile of the
    # observed-data likelihood peaks where the curved fit is
    net, miss, fit = lazega_na10_fit
    th = np.asarray(fit.params, dtype=float)
    assert fit.converged and fit.labels[2] == "gwesp.decay" and 0.6 < th[2] < 1.1
    assert fit.info["n_missing"] == 63 and fit.loglik_kind == "bridge"
    ref = _quiet(ef.ERGM(net, CURVED.replace("gwesp(fixed=FALSE)", "offset(gwesp(fixed=FALSE), 2)"),
                         missing=miss).fit, method="mcmle", random_state=2, verbose=False,
                 offset_coef=[float(th[2])])
    rse = np.sqrt(np.diag(ref.cov))[[0, 1, 3]]
    z = np.abs(th[[0, 1, 3]] - np.asarray(ref.params)[[0, 1, 3]]) / rse
    assert np.all(z < 0.2), z


@pytest.mark.slow
def test_curved_missing_data_fit_agrees_with_ee(lazega_na10_fit):
    # EE with missing dyads (its own conditional chain, estimation/_ee_missing.py):
    # seeds 1-2 (-3.92, 0.92, 0.82, 0.58) and (-3.97, 0.91, 0.83, 0.62); the
    # MCMC-MLE (seeds 1, 3, 4: decay 0.81-0.83, nodematch 0.58-0.60) is within
    # 0.1 of its s.e. of them
    net, miss, fit = lazega_na10_fit
    ee = _quiet(ef.ERGM(net, CURVED, missing=miss).fit, method="ee", random_state=1,
                verbose=False)
    se = np.sqrt(np.diag(fit.cov))
    z = np.abs(np.asarray(fit.params) - np.asarray(ee.params)) / se
    assert np.all(z < 0.25), z


def test_no_headway_is_detected_and_the_fit_restarts_from_ee(monkeypatch):
    # a curved fit stuck in the other phase of a near-degenerate model (faux.mesa.high.na10
    # gwesp(fixed=FALSE) from its MPLE: 10-20 sd above the conditional sample for 30
    # iterations) is stopped as a stall (curved.check_runoff: the one MCMC-MLE loop's guard,
    # with missing dyads too) and redone: from the fixed-decay MPLE at decay 0.5
    from ergmfit.estimation.common.curved import STALL_ITERS, check_runoff
    import ergmfit.estimation.mcmle.estimator as mc
    m = ef.ERGM("lazega", "edges + gwesp(fixed=FALSE)")
    far = [{"iteration": k, "gamma": 0.01, "t_mean": [9.0, -1.0, 0.0],
            "theta": [-3.0, 1.0, 1.2]} for k in range(1, STALL_ITERS)]
    theta = np.array([-3.0, 1.0, 1.2])
    check_runoff(m, far, theta)                            # not yet
    with pytest.raises(DegenerateModelError, match="stalled") as info:
        check_runoff(m, far + [{"iteration": STALL_ITERS, "gamma": 0.01,
                                "t_mean": [6.0, 0.0, 0.0], "theta": [-3.0, 1.0, 1.2]}], theta)
    assert info.value.decay_start == [1.2]
    check_runoff(m, far + [{"iteration": STALL_ITERS, "gamma": 1.0, "t_mean": [6.0, 0.0, 0.0],
                            "theta": [-3.0, 1.0, 1.2]}], theta)
    calls = []
    real = mc.MCMLE._run

    def run(self, model):
        calls.append(self.init)
        if len(calls) == 1:
            raise info.value
        return real(self, model)

    monkeypatch.setattr(mc.MCMLE, "_run", run)
    res = _quiet(M.MissingDataMCMLE(random_state=1, samplesize=256, eval_loglik=False).fit, m)
    assert calls[0] is None and calls[1][2] == 0.5
    assert "gwesp.decay 0.5" in res.info["fallback"]
    # a start the user gave is kept: the failure is raised
    calls.clear()
    with pytest.raises(DegenerateModelError, match="stalled"):
        M.MissingDataMCMLE(init=[0, 0, 0.5]).fit(m)


def test_ee_start_whose_decay_ran_off_is_not_used(monkeypatch):
    # samplike.na10 edges + mutual + gwesp(fixed=FALSE): EE's decay runs to ~290;
    # as a fall-back start it is refused (None), as any run-off decay
    import ergmfit.estimation.mcmle.fallback as fb
    m = ef.ERGM("lazega", "edges + gwesp(fixed=FALSE)")

    class Fit:
        params = np.array([-2.0, 0.1, 290.0])
    monkeypatch.setattr(ef.ERGM, "fit", lambda self, **kw: Fit())
    assert fb._ee_start(m, 1) is None
    Fit.params = np.array([-2.0, 0.1, 1.5])
    assert list(fb._ee_start(m, 1)) == [-2.0, 0.1, 1.5]


@pytest.mark.slow
def test_a_stalled_curved_chain_does_not_lengthen_its_interval(monkeypatch):
    # samplike.na10 gwesp(fixed=FALSE), seed 3, from its MPLE: the chain falls into the
    # near-empty phase and the step stalls; the interval, adapted to the stuck chain's
    # tiny effective size, grew 2048 -> 16384 -> 131072 before the stall was called
    # (13 of the fit's 14 CPU s).  A stalled iteration now keeps its interval.
    e = {"dataset": "samplike.na10", "directed": True}
    m = ef.ERGM(cr.network(e), "edges + mutual + gwesp(fixed=FALSE)", missing=cr.missing(e))
    seen = []
    import ergmfit.estimation.mcmle.estimator as mc
    real = mc.run_chains

    def spy(model, theta, size, burnin, interval, *a, **kw):
        seen.append(interval)
        return real(model, theta, size, burnin, interval, *a, **kw)
    monkeypatch.setattr(mc, "run_chains", spy)
    # (the one MCMC-MLE loop: its curved guard names the near-empty chain, 4 iterations)
    with pytest.raises(DegenerateModelError, match="stalled|did not vary"):
        _quiet(M.MissingDataMCMLE(random_state=3, eval_loglik=False)._run, m)
    assert max(seen) <= 4096, seen
