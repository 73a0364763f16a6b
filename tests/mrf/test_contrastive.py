"""Non-local contrastive objectives (ergmfit.mrf.contrastive) against brute force."""
import networkx as nx
import numpy as np
import pytest
from scipy.special import logsumexp

from ergmfit.mrf import IsingModel, exact
from ergmfit.mrf.contrastive import (ContrastiveObjective, ccg, icm, max_product,
                                     pseudo_likelihood_objective)


def _pl_brute(model, X, theta):
    tot = 0.0
    for x in X:
        for i in range(model.n_vars):
            y = x.copy()
            y[i] = 1 - y[i]
            a, b = model.statistics(np.array([x, y])) @ theta
            tot += a - np.logaddexp(a, b)
    return tot


@pytest.mark.parametrize("coding", ["pm1", "01"])
def test_pl_is_the_special_case(coding):
    rng = np.random.default_rng(0)
    m = IsingModel(nx.cycle_graph(6), coding=coding, tied=False)
    X = rng.integers(0, 2, (15, 6))
    obj = pseudo_likelihood_objective(m, X)
    for _ in range(3):
        th = rng.normal(0, 0.5, m.n_stats)
        v, g = obj.value_and_grad(th)
        assert np.isclose(v, _pl_brute(m, X, th))
        eps = 1e-6
        num = [(_pl_brute(m, X, th + eps * e) - _pl_brute(m, X, th - eps * e)) / (2 * eps)
               for e in np.eye(m.n_stats)]
        assert np.allclose(g, num, atol=1e-5)
    mt = IsingModel(nx.cycle_graph(6), coding=coding)
    Xt = mt.sample(300, theta=[0.2, 0.3], random_state=1)
    th, _, _ = pseudo_likelihood_objective(mt, Xt).maximize()
    assert np.allclose(th, mt.fit(Xt, method="pl").coef_, atol=1e-5)


def test_objective_and_gradient_vs_brute_force():
    rng = np.random.default_rng(1)
    m = IsingModel(nx.path_graph(5), coding="01", tied=False)
    obj = ContrastiveObjective(m.n_stats)
    cases = []
    for k in range(6):
        x = rng.integers(0, 2, 5)
        S = rng.integers(0, 2, (int(rng.integers(1, 6)), 5))
        S = np.vstack([S, x])                      # x itself and duplicates are ignored
        w = float(rng.uniform(0.5, 2))
        obj.add_instantiations(m, x, S, weight=w)
        cases.append((x, np.unique(np.vstack([S, x]), axis=0), w))

    def brute(th):
        return sum(w * (m.statistics(x[None])[0] @ th - logsumexp(m.statistics(S) @ th))
                   for x, S, w in cases)
    for _ in range(3):
        th = rng.normal(0, 1, m.n_stats)
        v, g = obj.value_and_grad(th)
        assert np.isclose(v, brute(th))
        num = [(brute(th + 1e-6 * e) - brute(th - 1e-6 * e)) / 2e-6 for e in np.eye(m.n_stats)]
        assert np.allclose(g, num, atol=1e-5)


def test_full_set_is_the_likelihood():
    rng = np.random.default_rng(2)
    m = IsingModel(nx.cycle_graph(5), coding="pm1")
    X = m.sample(50, theta=[0.1, 0.4], random_state=3)
    allx = exact.state_matrix(5)
    obj = ContrastiveObjective(m.n_stats)
    for x in X:
        obj.add_instantiations(m, x, allx)
    th = rng.normal(0, 0.5, 2)
    assert np.isclose(obj.value_and_grad(th)[0], m.score_samples(X, theta=th).sum())
    th_c, _, _ = obj.maximize()
    assert np.allclose(th_c, m.fit(X, method="exact").coef_, atol=1e-5)


def test_map_inference():
    rng = np.random.default_rng(4)
    allx = exact.state_matrix(9)
    for trial in range(8):
        T = nx.random_labeled_tree(9, seed=trial)
        m = IsingModel(T, coding="pm1" if trial % 2 else "01", tied=False)
        th = rng.normal(0, 1, m.n_stats)
        best = allx[np.argmax(m.statistics(allx) @ th)]
        x = max_product(m, th)
        assert np.isclose(m.statistics(x[None])[0] @ th, m.statistics(best[None])[0] @ th)
        y = icm(m, th, random_state=trial)
        sy = m.statistics(y[None])[0] @ th
        for i in range(9):                         # a local maximum
            z = y.copy()
            z[i] = 1 - z[i]
            assert m.statistics(z[None])[0] @ th <= sy + 1e-12
    with pytest.raises(ValueError):
        max_product(IsingModel(nx.cycle_graph(4)), [0.1, 0.1])


@pytest.mark.parametrize("how", ["icm", "max_product"])
def test_ccg(how):
    m = IsingModel(nx.path_graph(8), coding="pm1")
    X = m.sample(200, theta=[0.07, 1.0], random_state=5)
    r = ccg(m, X, map_method=how, random_state=0, max_rounds=30)
    assert r["converged"]
    for x, S in zip(m._instances(X)[0][1], r["sets"]):
        assert all(not np.array_equal(s, x) for s in S)
    # the final theta maximises the final objective, which is PL + the sets, by brute force
    obj = r["objective_obj"]
    v, g = obj.value_and_grad(r["theta"])
    assert np.abs(g).max() < 1e-4 * len(X)
    Xb = m._instances(X)[0][1]
    th = r["theta"]
    brute = sum(m.statistics(x[None])[0] @ th
                - logsumexp(m.statistics(np.vstack([x[None]] + [s[None] for s in S])) @ th)
                for x, S in zip(Xb, r["sets"]) if S)
    pl = pseudo_likelihood_objective(m, Xb).value_and_grad(th)[0]
    assert np.isclose(v, pl + brute)
    if how == "max_product":                       # every set holds the exact MAP
        best = max_product(m, th)
        assert all(np.array_equal(x, best) or any(np.array_equal(s, best) for s in S)
                   for x, S in zip(Xb, r["sets"]))
