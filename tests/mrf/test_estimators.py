"""Estimators on i.i.d. MRF data: objectives and gradients vs brute force,
Yasuda et al.'s bound, and recovery of simulated parameters."""
import itertools
import math

import numpy as np
import pytest
from scipy import special

from ergmfit.mrf import estimation as est
from ergmfit.mrf.models import BoltzmannMachine, GridCRF, IsingModel, RBM
from ergmfit.mrf import data


def ref_stats(X, n, higher, coding):
    S = 2.0 * X - 1.0 if coding == "pm1" else X.astype(float)
    cols = [S[:, i] for i in range(n)]
    cols += [S[:, i] * S[:, j] for i in range(n) for j in range(i + 1, n)]
    cols += [np.prod(S[:, list(h)], axis=1) for h in higher]
    return np.stack(cols, axis=1)


def brute_cl(X, theta, k, n, higher, coding):
    """sum over rows and k-subsets of log p(x_c | x_-c), by brute force."""
    total = 0.0
    configs = np.array(list(itertools.product([0, 1], repeat=k)), dtype=np.uint8)
    for x in X:
        lp_x = ref_stats(x[None], n, higher, coding)[0] @ theta
        for c in itertools.combinations(range(n), k):
            Y = np.repeat(x[None], len(configs), 0)
            Y[:, list(c)] = configs
            total += lp_x - special.logsumexp(ref_stats(Y, n, higher, coding) @ theta)
    return total


def num_grad(f, th, h=1e-6):
    g = np.zeros_like(th)
    for q in range(len(th)):
        e = np.zeros_like(th); e[q] = h
        g[q] = (f(th + e) - f(th - e)) / (2 * h)
    return g


SETUP = dict(n=5, higher=[(0, 1, 2), (1, 3, 4)])


@pytest.mark.parametrize("coding", ["pm1", "01"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_composite_objective_and_gradient_vs_brute_force(coding, k):
    n, higher = SETUP["n"], SETUP["higher"]
    m = BoltzmannMachine(n, higher_order=higher, coding=coding)
    rng = np.random.default_rng(k)
    X = rng.integers(0, 2, (12, n)).astype(np.uint8)
    X[3] = X[0]                       # a repeated observation (weights)
    theta = rng.normal(0, 0.5, m.n_stats)
    des = est.composite_design_multi(m._instances(X), block_size=k)
    ref = brute_cl(X, theta, k, n, higher, coding)
    assert np.isclose(des.loglik(theta), ref, rtol=1e-10)
    g = num_grad(lambda t: brute_cl(X, t, k, n, higher, coding), theta)
    assert np.allclose(des.score(theta), g, atol=1e-5)
    if k == 1:                        # PL design of the MPLE code = CL of order 1
        pd = est.pseudo_design_multi(m._instances(X))
        assert np.isclose(pd.loglik(theta), ref, rtol=1e-10)
        assert np.allclose(pd.score(theta), g, atol=1e-5)


def test_yasuda_bound_and_order_n_is_loglik():
    n, higher = 6, [(0, 2, 4)]
    m = BoltzmannMachine(n, higher_order=higher, coding="pm1")
    rng = np.random.default_rng(11)
    for trial in range(3):
        theta = rng.normal(0, 0.7, m.n_stats)
        X = m.sample(40, theta, random_state=trial)
        other = rng.normal(0, 0.7, m.n_stats)      # the bound holds at any theta
        for th in (theta, other):
            cl = [est.composite_loglik(m._instances(X), th, k) for k in range(1, n + 1)]
            assert all(cl[k] <= cl[k - 1] + 1e-10 for k in range(1, n)), cl
            assert np.isclose(cl[-1], m.score(X, theta=th), rtol=1e-10)
            assert cl[0] > cl[-1]


@pytest.fixture(scope="module")
def simulated():
    # free Ising model on a 5-cycle plus a chord, +-1 coding
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4), (1, 3)]
    m = IsingModel((5, edges), tied=False)
    true = np.array([0.3, -0.2, 0.1, 0.0, -0.3, 0.4, 0.5, -0.3, 0.2, 0.6, 0.3])
    X = m.sample(4000, true, random_state=123)
    mle = IsingModel((5, edges), tied=False).fit(X, method="exact")
    return m, true, X, mle


def test_mle_recovers_truth(simulated):
    m, true, X, mle = simulated
    assert mle.converged_
    se = np.sqrt(np.diag(mle.cov_))
    assert np.all(np.abs(mle.coef_ - true) < 4 * se), (mle.coef_, true, se)
    # the score vanishes at the MLE
    G = m._G()
    from ergmfit.mrf import exact
    ll, sc, _ = exact.loglik_score_fisher(G, mle.coef_, np.bincount(exact.state_index(X), minlength=32).astype(float))
    assert np.max(np.abs(sc)) < 1e-6 * len(X)


@pytest.mark.parametrize("method,kw,tol", [
    ("pl", {}, 0.02),
    ("cl", {"block_size": 2}, 0.02),
    ("cl", {"block_size": 5}, 1e-6),           # order n: the MLE itself
    ("cd", {"n_steps": 1, "block_size": 5, "n_iter": 250, "learning_rate": 0.1,
            "batch_size": 300}, 0.04),        # Bn-CD1 with n = all variables
    ("cd", {"n_steps": 10, "n_iter": 250, "learning_rate": 0.1, "batch_size": 300}, 0.05),
    ("pcd", {"n_steps": 2, "n_iter": 250, "learning_rate": 0.1, "batch_size": 200}, 0.1),
])
def test_estimators_close_to_mle(simulated, method, kw, tol):
    m, true, X, mle = simulated
    fit = IsingModel((5, m.edges), tied=False, random_state=5).fit(X, method=method, **kw)
    assert np.max(np.abs(fit.coef_ - mle.coef_)) < tol, (method, fit.coef_ - mle.coef_)


def test_cd_reproducible_by_seed(simulated):
    m, true, X, mle = simulated
    kw = dict(method="cd", n_steps=2, n_iter=30, batch_size=50, sampler="mh")
    a = IsingModel((5, m.edges), tied=False, random_state=9).fit(X, **kw).coef_
    b = IsingModel((5, m.edges), tied=False, random_state=9).fit(X, **kw).coef_
    c = IsingModel((5, m.edges), tied=False, random_state=10).fit(X, **kw).coef_
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_partial_fit_moves_towards_mle(simulated):
    m, true, X, mle = simulated
    f = IsingModel((5, m.edges), tied=False, random_state=1)
    f.fit(X[:200], method="cd", n_steps=5, n_iter=5, batch_size=200)
    d0 = np.abs(f.coef_ - mle.coef_).max()
    for _ in range(10):
        f.partial_fit(X, n_iter=10, n_steps=5, batch_size=300, learning_rate=0.1)
    assert np.abs(f.coef_ - mle.coef_).max() < d0


def test_rbm_composite_bound_gradient_and_fit():
    gen = RBM(4, 3)
    rng = np.random.default_rng(2)
    true = rng.normal(0, 0.4, gen.n_params)
    V = gen.sample(60, true, random_state=3)
    th = rng.normal(0, 0.4, gen.n_params)
    cl = [gen.composite_loglik(V, th, k) for k in range(1, 5)]
    assert all(cl[k] <= cl[k - 1] + 1e-12 for k in range(1, 4))
    assert np.isclose(cl[-1], gen.loglik(V, th))
    val, g = gen.composite_loglik(V, th, 2, grad=True)
    assert np.allclose(g, num_grad(lambda t: gen.composite_loglik(V, t, 2), th), atol=1e-6)
    ml = RBM(4, 2, random_state=0).fit(V, method="exact")
    c2 = RBM(4, 2, random_state=0).fit(V, method="cl", block_size=2)
    assert ml.loglik(V) >= c2.loglik(V) - 1e-6
    assert ml.loglik(V) - c2.loglik(V) < 0.1


def test_crf_fit_and_denoise():
    Y, X = data.chessboard_pairs(6, size=12, squares=2, sigma=1.0, random_state=0)
    # clean chessboard labels make the PL separable (every pixel agrees with at
    # least half its neighbours): flip 5% of the training labels
    X = np.where(np.random.default_rng(4).random(X.shape) < 0.05, -X, X)
    crf = GridCRF((12, 12)).fit(Y, X, method="pl")
    node, node_y, edge, edge_c = crf.coef_
    assert node_y > 0 and edge + edge_c > 0
    Yt, Xt = data.chessboard_pairs(3, size=12, squares=2, sigma=1.0, random_state=1)
    pred = crf.predict(Yt)                      # in the labels' coding: -1/+1
    assert set(np.unique(pred)) <= {-1, 1}
    assert np.array_equal(crf.predict(Yt, coding="01"), (pred > 0).astype(np.uint8))
    assert np.mean(pred != Xt) < np.mean(np.sign(Yt) != Xt)
    # the multi-instance PL design = the sum of per-image designs
    th = np.array([0.1, 0.8, 0.3, 0.2])
    insts = [(crf.conditional(y), x[None], None) for y, x in zip(Y, X)]
    tot = sum(est.pseudo_design_multi([i]).loglik(th) for i in insts)
    assert np.isclose(est.pseudo_design_multi(insts).loglik(th), tot)


def test_cd_refuses_sample_weights_and_the_potts_sampler():
    # a weight would have to weight a chain: refused, not ignored (before: ignored silently)
    m = IsingModel((4, [(0, 1), (1, 2), (2, 3)]))
    X = m.sample(50, theta=[0.1, 0.3], random_state=0)
    for method in ("cd", "pcd"):
        with pytest.raises(ValueError, match="sample_weight is not supported"):
            m.fit(X, method=method, n_iter=5, sample_weight=np.ones(len(X)))
    from ergmfit.mrf import PottsModel
    pm = PottsModel((3, [(0, 1), (1, 2)]), q=3)
    S = pm.sample(30, theta=[0.1, 0.1, 0.5], random_state=0)
    with pytest.raises(ValueError, match="'sampler' cannot be chosen"):
        pm.fit(S, method="cd", sampler="mh", n_iter=5)


def test_the_estimator_object_leaves_the_model_alone():
    m = IsingModel((4, [(0, 1), (1, 2), (2, 3)]))
    X = m.sample(100, theta=[0.1, 0.3], random_state=0)
    res = est.CompositeLikelihood(block_size=2).fit(m, X)
    assert not hasattr(m, "coef_")
    assert np.array_equal(m.fit(X, method="cl", block_size=2).coef_, res.params)
    assert np.array_equal(m.results_.params, res.params) and m.design_ is not None
