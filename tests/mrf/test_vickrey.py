"""The objectives of vignettes/vickrey_chain.py against brute force and the
package's own per-example implementations (pseudo_likelihood_objective, ccg)."""
import importlib.util
import itertools

import numpy as np
import pytest
from scipy.special import logsumexp

from ergmfit.exceptions import DegenerateModelError
from ergmfit.mrf import exact
from ergmfit.mrf.contrastive import ccg, pseudo_likelihood_objective
from support.paths import VIGNETTES

PATH = VIGNETTES / "vickrey_chain.py"


@pytest.fixture(scope="module")
def vc():
    spec = importlib.util.spec_from_file_location("vickrey_chain", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def paper_score(Y, l0, l1):
    """The paper's log-score lambda0 #{y_i = 1} + lambda1 #{y_i = y_{i+1}}."""
    Y = np.asarray(Y)
    return l0 * Y.sum(axis=1) + l1 * (Y[:, 1:] == Y[:, :-1]).sum(axis=1)


def _data(vc, l1, n, seed, n_nodes=10):
    m = vc.VickreyChain(n_nodes)
    G = exact.all_statistics(m.compiled())
    return m, exact_rows(G, [vc.LAMBDA0, l1], n, n_nodes, seed)


def exact_rows(G, theta, n, n_nodes, seed):
    from ergmfit.mrf import data
    return data.exact_sample(G, theta, n, n_nodes, random_state=seed)


def test_parameterisation_is_the_papers(vc):
    m = vc.VickreyChain(6)
    Y = np.array(list(itertools.product([0, 1], repeat=6)), dtype=np.uint8)
    for l0, l1 in [(0.139, 2.0), (-0.7, 0.3)]:
        ours = m.statistics(Y) @ [l0, l1]
        ref = paper_score(Y, l0, l1)
        assert np.allclose(ours - ref, ours[0] - ref[0])          # equal up to a constant
        P = exact.probabilities(exact.all_statistics(m.compiled()), [l0, l1])
        idx = exact.state_index(Y)
        assert np.allclose(P[idx], np.exp(ref - logsumexp(ref)))


def _pl_brute(X, l0, l1):
    tot = 0.0
    for x in X:
        for i in range(len(x)):
            y = x.copy()
            y[i] ^= 1
            a, b = paper_score(np.array([x, y]), l0, l1)
            tot += a - np.logaddexp(a, b)
    return tot


def test_weighted_objectives_vs_brute_force(vc):
    m, X = _data(vc, 1.5, 60, 3, n_nodes=6)
    U, c = vc.distinct(X)
    ends = np.array([np.zeros(6, np.uint8), np.ones(6, np.uint8)])
    rng = np.random.default_rng(0)
    for _ in range(3):
        l0, l1 = rng.normal(0, 1, 2)
        th = np.array([l0, l1])
        pl = _pl_brute(X, l0, l1)
        assert np.isclose(vc.pl_objective(m, U, c).value_and_grad(th)[0], pl)
        assert np.isclose(pseudo_likelihood_objective(m, X).value_and_grad(th)[0], pl)
        sc = pl + sum(paper_score(x[None], l0, l1)[0] - logsumexp(paper_score(ends, l0, l1))
                      for x in X if np.all(x == x[0]))
        assert np.isclose(vc.simple_contrastive(m, U, c).value_and_grad(th)[0], sc)
        co = pl + sum(paper_score(x[None], l0, l1)[0] - logsumexp(paper_score(U, l0, l1))
                      for x in X)
        assert np.isclose(vc.contrastive(m, U, c).value_and_grad(th)[0], co)
    # gradients against central differences of the brute-force values
    th = np.array([0.3, 0.8])
    v, g = vc.contrastive(m, U, c).value_and_grad(th)
    eps = 1e-6
    num = [(vc.contrastive(m, U, c).value_and_grad(th + eps * e)[0]
            - vc.contrastive(m, U, c).value_and_grad(th - eps * e)[0]) / (2 * eps)
           for e in np.eye(2)]
    assert np.allclose(g, num, atol=1e-4)


@pytest.mark.parametrize("l1", [0.5, 3.0])
def test_weighted_ccg_equals_package_ccg(vc, l1):
    m, X = _data(vc, l1, 150, 7)
    U, c = vc.distinct(X)
    th_w, rounds, conv, _ = vc.ccg_weighted(m, U, c)
    r = ccg(m, X, map_method="max_product")
    assert conv and r["converged"]
    assert np.allclose(th_w, r["theta"], atol=1e-5)


def test_pl_limit_and_simple_contrastive_without_walls(vc):
    # data with only the two constant states: Simple Contrastive gives
    # lambda0 = log(n1/n0) / n; PL's lambda0 heads to log(n1/n0) / 2
    n = 10
    X = np.vstack([np.zeros((200, n), np.uint8), np.ones((800, n), np.uint8)])
    m = vc.VickreyChain(n)
    U, c = vc.distinct(X)
    assert np.isclose(vc.pl_limit(np.log(4) / n, n), np.log(4) / 2)
    # PL has no finite maximiser here (lambda1 -> +Inf): the library says so instead of
    # returning where L-BFGS stopped, and the vignette reports it instead of a number
    with pytest.raises(DegenerateModelError, match=r"no finite maximiser.*lambda1 -> \+Inf"):
        vc.pl_objective(m, U, c).maximize(labels=m.labels)
    th, ok = vc.maximize(vc.pl_objective(m, U, c), m)
    assert not ok and np.isnan(th[0]) and th[1] == np.inf          # lambda0 not identified
    th, ok = vc.maximize(vc.simple_contrastive(m, U, c), m)
    assert not ok and th[1] == np.inf and abs(th[0] - np.log(4) / n) < 1e-6
    G = exact.all_statistics(m.compiled())
    assert not vc.ml_exists(G, U, c)
    # with domain walls observed every estimate is finite
    m2, X2 = _data(vc, 1.0, 300, 4)
    U2, c2 = vc.distinct(X2)
    assert vc.ml_exists(exact.all_statistics(m2.compiled()), U2, c2)
    th, ok = vc.maximize(vc.pl_objective(m2, U2, c2), m2)
    assert ok and np.all(np.isfinite(th))
    out, _, walls, exists = vc.estimate_all(m2, exact.all_statistics(m2.compiled()), 1.0, 4)
    assert walls and exists.all() and np.all(np.isfinite(out))
