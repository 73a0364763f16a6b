"""Stochastic composite likelihood (Dillon & Lebanon 2009): the objective and
its gradient against brute-force conditionals, special cases (PL, full
likelihood), reproducibility, and the asymptotic variance against
independent enumeration (including enumeration of the selection variables)
and a small Monte-Carlo experiment."""
import itertools

import numpy as np
import pytest
from scipy import special

from ergmfit.mrf import scl
from ergmfit.mrf.models import BoltzmannMachine, IsingModel


# ---------------------------------------------------------------------------
# independent reference code (numpy only)
# ---------------------------------------------------------------------------
def ref_stats(X, n, higher, coding):
    """Statistics of BoltzmannMachine(n, higher): biases, all pairs, higher terms."""
    X = np.atleast_2d(X)
    S = 2.0 * X - 1.0 if coding == "pm1" else X.astype(float)
    cols = [S[:, i] for i in range(n)]
    cols += [S[:, i] * S[:, j] for i in range(n) for j in range(i + 1, n)]
    cols += [np.prod(S[:, list(h)], axis=1) for h in higher]
    return np.stack(cols, axis=1)


def all_states(n):
    return np.array(list(itertools.product([0, 1], repeat=n)), dtype=np.uint8)


def log_cond(x, A, theta, stats):
    """log p(x_A | x_-A) by listing the 2^|A| configurations of A."""
    cfg = np.array(list(itertools.product([0, 1], repeat=len(A))), dtype=np.uint8)
    Y = np.repeat(x[None], len(cfg), 0)
    Y[:, list(A)] = cfg
    return stats(x[None])[0] @ theta - special.logsumexp(stats(Y) @ theta)


def grad_cond(x, A, theta, stats):
    cfg = np.array(list(itertools.product([0, 1], repeat=len(A))), dtype=np.uint8)
    Y = np.repeat(x[None], len(cfg), 0)
    Y[:, list(A)] = cfg
    GY = stats(Y)
    w = GY @ theta
    P = np.exp(w - special.logsumexp(w))
    return stats(x[None])[0] - P @ GY


def brute_objective(X, selected, stats):
    """f(theta) = sum over (i, A, c) in ``selected`` of c log p(x_i,A | x_i,-A), by
    listing the configurations of each block (precomputed once)."""
    by = {}
    for i, A, c in selected:
        cfg = np.array(list(itertools.product([0, 1], repeat=len(A))), dtype=np.uint8)
        Y = np.repeat(X[i][None], len(cfg), 0)
        Y[:, list(A)] = cfg
        by.setdefault(len(A), []).append((c, stats(X[i][None])[0], stats(Y)))
    terms = [(np.array([a for a, _, _ in v]), np.array([b for _, b, _ in v]),
              np.array([d for _, _, d in v])) for v in by.values()]

    def f(t):
        return sum(float(c @ (gx @ t - special.logsumexp(GY @ t, axis=1)))
                   for c, gx, GY in terms)
    return f


def num_grad(f, th, h=1e-6):
    g = np.zeros_like(th)
    for q in range(len(th)):
        e = np.zeros_like(th)
        e[q] = h
        g[q] = (f(th + e) - f(th - e)) / (2 * h)
    return g


N, HIGHER = 4, [(0, 1, 2)]


@pytest.fixture(scope="module")
def bm_setup():
    m = BoltzmannMachine(N, higher_order=HIGHER, coding="pm1")
    theta = np.random.default_rng(7).normal(0, 0.4, m.n_stats)
    X = m.sample(300, theta=theta, random_state=3)
    stats = lambda Y: ref_stats(Y, N, HIGHER, "pm1")  # noqa: E731
    return m, theta, X, stats


# ---------------------------------------------------------------------------
# objective and gradient
# ---------------------------------------------------------------------------
def test_lambda_one_pl_equals_pseudo_likelihood(bm_setup):
    m, theta, X, stats = bm_setup
    obj = scl.likelihood_objects([("pl", 1, 1.0, 1.0)], N)
    Z = scl.draw_selection(len(X), obj, random_state=0)
    assert Z.all()
    des = scl.scl_design(m._instances(X), obj, Z)
    pl = brute_objective(X, [(i, (v,), 1.0) for i in range(len(X)) for v in range(N)], stats)
    assert np.isclose(des.loglik(theta), pl(theta), rtol=1e-11)
    assert np.allclose(des.score(theta), num_grad(pl, theta), atol=1e-5)
    # the estimate and the maximised objective equal method="pl"
    a = m.fit(X, method="scl", components=[("pl", 1, 1.0, 1.0)], random_state=1)
    th_scl, ll_scl = a.coef_.copy(), a.loglik_
    b = m.fit(X, method="pl")
    assert np.allclose(th_scl, b.coef_, atol=1e-6)
    assert np.isclose(ll_scl, pl(th_scl), rtol=1e-10)
    assert np.isclose(ll_scl, b.loglik_, rtol=1e-8)


@pytest.mark.parametrize("selection", ["object", "component"])
def test_mixture_objective_and_gradient_vs_brute_force(bm_setup, selection):
    m, theta, X, stats = bm_setup
    comps = [("pl", 1, 0.6, 1.0), ("pl", 2, 0.3, 2.5), ("full", 0.2, 0.7),
             ("blocks", [[0, 3], [1, 2, 3]], 0.5, 1.5)]
    X = X[:120].copy()
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(X))
    X[5] = X[0]                                       # a repeated row with its own Z
    res = scl.StochasticCompositeLikelihood(components=comps, selection=selection,
                                            random_state=11).fit(m, X, sample_weight=w)
    r = {"theta": np.asarray(res.params), "loglik": res.loglik, "cov": res.cov}
    Z = res.info["selection"]
    # the objects in the order of likelihood_objects: singletons, pairs, full, blocks
    objs = [((v,), 1.0) for v in range(N)] + \
        [(A, 2.5) for A in itertools.combinations(range(N), 2)] + \
        [(tuple(range(N)), 0.7), ((0, 3), 1.5), ((1, 2, 3), 1.5)]
    assert Z.shape == (len(X), len(objs))
    assert 0 < Z.mean() < 1
    if selection == "component":                      # all objects of a component together
        assert np.all(Z[:, :N] == Z[:, [0]]) and np.all(Z[:, N:N + 6] == Z[:, [N]])

    brute = brute_objective(X, [(i, A, w[i] * b) for i in range(len(X))
                                for j, (A, b) in enumerate(objs) if Z[i, j]], stats)

    obj = scl.likelihood_objects(comps, N)
    des = scl.scl_design([(m.compiled(), X, w)], obj, Z)
    assert np.isclose(des.loglik(theta), brute(theta), rtol=1e-11)
    assert np.allclose(des.score(theta), num_grad(brute, theta), atol=1e-5)
    # at the estimate: the maximised objective and a zero brute-force gradient
    assert np.isclose(r["loglik"], brute(r["theta"]), rtol=1e-10)
    assert np.max(np.abs(num_grad(brute, r["theta"]))) < 1e-4
    # the sandwich covariance with the empirical J of the selected scores
    U = np.array([w[i] * sum((b * grad_cond(X[i], A, r["theta"], stats)
                              for j, (A, b) in enumerate(objs) if Z[i, j]), np.zeros(len(theta)))
                  for i in range(len(X))])
    Hinv = np.linalg.inv(res.info["hessian"])
    assert np.allclose(r["cov"], Hinv @ (U.T @ U) @ Hinv, rtol=1e-6, atol=1e-10)


def test_order_n_objects_equal_full_likelihood(bm_setup):
    m, theta, X, stats = bm_setup
    S = all_states(N)
    lz = special.logsumexp(stats(S) @ theta)
    full = float(np.sum(stats(X) @ theta) - len(X) * lz)
    for comps in ([("pl", N, 1.0, 1.0)], [("full", 1.0, 1.0)]):
        obj = scl.likelihood_objects(comps, N)
        des = scl.scl_design(m._instances(X), obj, np.ones((len(X), 1), bool))
        assert np.isclose(des.loglik(theta), full, rtol=1e-11)
    a = m.fit(X, method="scl", components=[("pl", N)], random_state=0).coef_.copy()
    b = m.fit(X, method="exact").coef_
    assert np.allclose(a, b, atol=1e-6)


def test_reproducible_with_random_state(bm_setup):
    m, _, X, _ = bm_setup
    comps = [("pl", 1, 0.7), ("pl", 2, 0.4)]
    a = m.fit(X, method="scl", components=comps, random_state=5)
    ta, Za = a.coef_.copy(), a.selection_.copy()
    b = m.fit(X, method="scl", components=comps, random_state=5)
    assert np.array_equal(Za, b.selection_) and np.array_equal(ta, b.coef_)
    c = m.fit(X, method="scl", components=comps, random_state=6)
    assert not np.array_equal(Za, c.selection_)
    assert a.components_ == [("pl", 1, 0.7, 1.0), ("pl", 2, 0.4, 1.0)]
    # the selection frequency matches lambda
    Z = scl.draw_selection(4000, scl.likelihood_objects(comps, N), random_state=0)
    assert abs(Z[:, :N].mean() - 0.7) < 0.02 and abs(Z[:, N:].mean() - 0.4) < 0.02


# ---------------------------------------------------------------------------
# asymptotic variance
# ---------------------------------------------------------------------------
def brute_sandwich(stats, n, theta, objs, zprob):
    """H^-1 J H^-1 by enumerating the states AND the selection vectors:
    objs = [(A, beta, unit)], zprob = selection probability of each unit."""
    S = all_states(n)
    G = stats(S)
    w = G @ theta
    P = np.exp(w - special.logsumexp(w))
    p = G.shape[1]
    V = np.array([[grad_cond(x, A, theta, stats) for (A, _, _) in objs] for x in S])
    H = np.zeros((p, p))
    for k, (A, b, u) in enumerate(objs):
        for s, x in enumerate(S):           # E of the conditional covariance
            cfg = np.array(list(itertools.product([0, 1], repeat=len(A))), dtype=np.uint8)
            Y = np.repeat(x[None], len(cfg), 0)
            Y[:, list(A)] = cfg
            GY = stats(Y)
            q = np.exp(GY @ theta - special.logsumexp(GY @ theta))
            E = q @ GY
            H += P[s] * b * zprob[u] * ((GY * q[:, None]).T @ GY - np.outer(E, E))
    J = np.zeros((p, p))
    for z in itertools.product([0, 1], repeat=len(zprob)):
        pz = np.prod([l if zi else 1 - l for zi, l in zip(z, zprob)])
        if pz == 0:
            continue
        u = sum(b * z[un] * V[:, k] for k, (_, b, un) in enumerate(objs))
        J += pz * (u * P[:, None]).T @ u
    Hi = np.linalg.inv(H)
    return Hi @ J @ Hi, np.linalg.inv((G * P[:, None]).T @ G - np.outer(P @ G, P @ G))


@pytest.fixture(scope="module")
def small():
    n = 3
    m = IsingModel((n, [(0, 1), (1, 2), (0, 2)]), coding="01", tied=False, fields=True)
    theta = np.array([0.3, -0.5, 0.2, 1.0, -1.0, 0.5])

    def stats(Y):
        Y = np.atleast_2d(Y).astype(float)
        return np.column_stack([Y[:, 0], Y[:, 1], Y[:, 2], Y[:, 0] * Y[:, 1],
                                Y[:, 0] * Y[:, 2], Y[:, 1] * Y[:, 2]])
    assert m.labels == ["field0", "field1", "field2", "coupling0.1", "coupling0.2",
                        "coupling1.2"]
    return m, theta, stats


def test_variance_pl1_equals_godambe_and_full_equals_inverse_fisher(small):
    m, theta, stats = small
    objs = [((v,), 1.0, 0) for v in range(3)]
    ref, inv_fisher = brute_sandwich(stats, 3, theta, objs, [1.0])
    v = scl.scl_asymptotic_variance(m, theta, [("pl", 1, 1.0, 1.0)])
    assert np.allclose(v["cov"], ref, rtol=1e-9)
    assert np.allclose(v["cov_ml"], inv_fisher, rtol=1e-9)
    assert np.isclose(v["trace_ratio"], np.trace(ref) / np.trace(inv_fisher))
    for comps in ([("full", 1.0)], [("pl", 3, 1.0, 2.0)]):
        v = scl.scl_asymptotic_variance(m, theta, comps)
        assert np.allclose(v["cov"], inv_fisher, rtol=1e-9)
        assert np.isclose(v["trace_ratio"], 1.0) and np.isclose(v["det_ratio"], 1.0)
    # the ML is efficient: PL1 is not better (Loewner order)
    v = scl.scl_asymptotic_variance(m, theta, [("pl", 1)])
    assert np.linalg.eigvalsh(v["cov"] - v["cov_ml"]).min() > -1e-10
    # deterministic weighted mixture (lambda = 1): a weighted composite sandwich
    objs = [((v,), 1.0, 0) for v in range(3)] + \
        [(A, 3.0, 0) for A in itertools.combinations(range(3), 2)]
    ref, _ = brute_sandwich(stats, 3, theta, objs, [1.0])
    v = scl.scl_asymptotic_variance(m, theta, [("pl", 1, 1.0, 1.0), ("pl", 2, 1.0, 3.0)])
    assert np.allclose(v["cov"], ref, rtol=1e-9)


@pytest.mark.parametrize("selection", ["object", "component"])
def test_variance_with_selection_vs_enumeration_of_z(small, selection):
    m, theta, stats = small
    comps = [("pl", 1, 0.6, 1.0), ("pl", 2, 0.3, 2.0), ("full", 0.25, 0.5)]
    A1 = [(v,) for v in range(3)]
    A2 = list(itertools.combinations(range(3), 2))
    if selection == "object":
        objs = [(A, 1.0, k) for k, A in enumerate(A1)] + \
            [(A, 2.0, 3 + k) for k, A in enumerate(A2)] + [((0, 1, 2), 0.5, 6)]
        zprob = [0.6] * 3 + [0.3] * 3 + [0.25]
    else:
        objs = [(A, 1.0, 0) for A in A1] + [(A, 2.0, 1) for A in A2] + [((0, 1, 2), 0.5, 2)]
        zprob = [0.6, 0.3, 0.25]
    ref, _ = brute_sandwich(stats, 3, theta, objs, zprob)
    v = scl.scl_asymptotic_variance(m, theta, comps, selection=selection)
    assert np.allclose(v["cov"], ref, rtol=1e-9)
    assert np.isclose(v["cost"], 0.6 * 3 * 2 + 0.3 * 3 * 4 + 0.25 * 8)
    # the paper's eq. (14) leaves out the selection variance: smaller
    vp = scl.scl_asymptotic_variance(m, theta, comps, selection=selection, formula="paper")
    assert np.linalg.eigvalsh(v["cov"] - vp["cov"]).min() > 1e-8


def test_variance_monte_carlo(small):
    """One component selected per observation with probability 0.4: the
    asymptotic covariance is the PL1 one / 0.4 (the paper's eq. 14 would give
    the PL1 one); a small simulation agrees with the former."""
    m, theta, _ = small
    lam, n, R = 0.4, 1000, 120
    comps = [("pl", 1, lam)]
    v = scl.scl_asymptotic_variance(m, theta, comps, selection="component")
    v1 = scl.scl_asymptotic_variance(m, theta, [("pl", 1)])
    assert np.allclose(v["cov"], v1["cov"] / lam, rtol=1e-10)
    rng = np.random.default_rng(2009)
    est = []
    for _ in range(R):
        X = m.sample(n, theta=theta, random_state=rng)
        r = scl.StochasticCompositeLikelihood(components=comps, selection="component",
                                              random_state=rng, cov="none").fit(m, X)
        est.append(np.asarray(r.params))
    emp = n * np.cov(np.array(est).T)
    ratio = np.trace(emp) / np.trace(v["cov"])
    assert 0.75 < ratio < 1.3, ratio
    assert np.trace(emp) / np.trace(v1["cov"]) > 1.8


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("comps", [
    [("pl", 1, 0.0)], [("pl", 1, 1.5)], [("pl", 1, -0.2)], [("pl", 1, 0.5, 0.0)],
    [("pl", 1, 0.5, -1.0)], [("foo", 1, 0.5)], [("pl", 0)], [("pl", 9)], [("pl", 1.5)],
    [], [("blocks", [[0, 0]])], [("blocks", [[0, 7]])], [("full", 0.5, 1.0, 2.0)],
    [("pl", 1, "a")]])
def test_bad_components_raise(bm_setup, comps):
    m, _, X, _ = bm_setup
    with pytest.raises(ValueError):
        m.fit(X, method="scl", components=comps)
    with pytest.raises(ValueError):
        scl.scl_asymptotic_variance(m, np.zeros(m.n_stats), comps)


def test_bad_options_raise(bm_setup):
    m, _, X, _ = bm_setup
    with pytest.raises(ValueError):
        m.fit(X, method="scl", selection="observation")
    with pytest.raises(ValueError):
        m.fit(X, method="scl", optimizer="nelder-mead")
    with pytest.raises(ValueError):
        scl.scl_asymptotic_variance(m, np.zeros(m.n_stats), [("pl", 1)], formula="x")
    with pytest.raises(ValueError):
        scl.scl_asymptotic_variance(m, np.zeros(3), [("pl", 1)])
    with pytest.raises(ValueError):
        scl.pl_mixture(1.2, 1, 2)
