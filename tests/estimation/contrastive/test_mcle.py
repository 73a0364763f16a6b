"""Maximum composite likelihood: the composite likelihood of order k and its
gradient against brute force (numpy statistics, every configuration of every
block) on graphs of at most 6 nodes; order = number of dyads is the exact
likelihood and its MLE; order 1 is the MPLE; the Godambe covariance."""
import itertools
import math

import networkx as nx
import numpy as np
import pytest
from scipy import optimize, special

import ergmfit as ef
from ergmfit.estimation import methods
from ergmfit.estimation.contrastive.mcle import (MCLE, composite_design, exact_variability,
                                     separation_direction)
from ergmfit.exceptions import DegenerateModelError

FORMULA = "edges + kstar(2) + triangle"


def ref_stats(A):
    A = np.asarray(A, dtype=float)
    deg = A.sum(axis=1)
    return np.array([A.sum() / 2, np.sum(deg * (deg - 1) / 2), np.trace(A @ A @ A) / 6])


def all_states(n):
    dyads = list(itertools.combinations(range(n), 2))
    out = []
    for bits in itertools.product((0, 1), repeat=len(dyads)):
        A = np.zeros((n, n))
        for (i, j), b in zip(dyads, bits):
            A[i, j] = A[j, i] = b
        out.append(ref_stats(A))
    return np.array(out)


def brute_composite(g, k, theta):
    """CL of order k over every k-subset of dyads, and its gradient, from numpy statistics."""
    n = g.number_of_nodes()
    A = nx.to_numpy_array(g, nodelist=range(n))
    dyads = list(itertools.combinations(range(n), 2))
    g0 = ref_stats(A)
    ll, grad = 0.0, np.zeros(3)
    for block in itertools.combinations(range(len(dyads)), k):
        G = []
        for vals in itertools.product((0, 1), repeat=k):
            B = A.copy()
            for d, x in zip(block, vals):
                i, j = dyads[d]
                B[i, j] = B[j, i] = x
            G.append(ref_stats(B))
        G = np.array(G)
        w = G @ theta
        lse = special.logsumexp(w)
        ll += theta @ g0 - lse
        grad += g0 - np.exp(w - lse) @ G
    return ll, grad


G8 = nx.gnp_random_graph(5, 0.5, seed=8)          # a 5-node graph whose MLE is finite


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_composite_likelihood_and_gradient_equal_brute_force(k, seed):
    g = nx.gnp_random_graph(5, 0.45, seed=seed + 20)
    m = ef.ERGM(g, FORMULA)
    theta = np.random.default_rng(seed).normal(0, 0.5, size=3)
    des = composite_design(m.compiled(), "all", k)
    ll, grad = brute_composite(g, k, theta)
    assert des.n_blocks == math.comb(10, k)
    assert des.loglik(theta) == pytest.approx(ll, abs=1e-9)
    assert np.allclose(des.score(theta), grad, atol=1e-9)
    # the Hessian is minus the derivative of the score
    ll2, sc2, H = des.loglik_score_hessian(theta)
    eps = 1e-6
    num = np.array([(des.score(theta + eps * e) - des.score(theta - eps * e)) / (2 * eps)
                    for e in np.eye(3)])
    assert np.allclose(-num, H, atol=1e-5)


def test_six_node_graph_order_two_equals_brute_force():
    g = nx.gnp_random_graph(6, 0.4, seed=5)
    m = ef.ERGM(g, FORMULA)
    theta = np.array([-0.4, 0.1, 0.3])
    des = composite_design(m.compiled(), "all", 2)
    ll, grad = brute_composite(g, 2, theta)
    assert des.loglik(theta) == pytest.approx(ll, abs=1e-9)
    assert np.allclose(des.score(theta), grad, atol=1e-9)
    assert des.n_unique < des.n_blocks               # equal blocks were merged


def test_order_equal_to_number_of_dyads_is_the_likelihood_and_the_mle():
    m = ef.ERGM(G8, FORMULA)
    G = all_states(5)
    g0 = ref_stats(nx.to_numpy_array(G8, nodelist=range(5)))

    def nll(th):
        lse = special.logsumexp(G @ th)
        return -(th @ g0 - lse), -(g0 - np.exp(G @ th - lse) @ G)

    mle = optimize.minimize(nll, np.zeros(3), jac=True, method="BFGS",
                            options={"gtol": 1e-12}).x
    theta = np.array([0.3, -0.2, 0.1])
    des = composite_design(m.compiled(), "all", 10)
    assert des.loglik(theta) == pytest.approx(-nll(theta)[0], abs=1e-9)
    fit = m.fit(method="mcle", block_size=10, cov="exact")
    assert np.allclose(fit.params, mle, atol=1e-6)
    assert fit.loglik == pytest.approx(-nll(mle)[0], abs=1e-8)
    assert fit.loglik_kind == "exact"
    # Godambe with the exact variability is the inverse Fisher information
    w = np.exp(G @ mle - special.logsumexp(G @ mle))
    I = (G * w[:, None]).T @ G - np.outer(w @ G, w @ G)
    assert np.allclose(fit.cov, np.linalg.inv(I), rtol=1e-5)
    assert fit.summary().header == "Maximum Composite Likelihood Results:"


def test_order_one_is_the_mple():
    g = nx.gnp_random_graph(12, 0.3, seed=2)
    m = ef.ERGM(g, FORMULA)
    mple = m.fit(method="mple")
    fit = m.fit(method="mcle", block_size=1, cov="naive")
    assert np.allclose(fit.params, mple.params, atol=1e-7)
    assert fit.loglik == pytest.approx(mple.loglik, abs=1e-8)
    assert fit.loglik_kind == "pseudo"
    assert np.allclose(fit.cov, mple.cov, rtol=1e-5)


def test_godambe_simulated_close_to_exact():
    m = ef.ERGM(G8, FORMULA)
    ex = m.fit(method="mcle", block_size=2, cov="exact")
    sim = m.fit(method="mcle", block_size=2, cov="godambe", n_sim=1500, burnin=2000,
                interval=50, random_state=3)
    assert np.allclose(ex.params, sim.params)
    ratio = np.asarray(sim.bse) / np.asarray(ex.bse)
    assert np.all(np.abs(ratio - 1) < 0.15), ratio
    # the exact score has mean zero under the model
    assert np.allclose(ex.info["godambe"]["mean_score"], 0, atol=1e-8)
    # naive standard errors are smaller than the sandwich for a composite likelihood
    nv = m.fit(method="mcle", block_size=2, cov="naive")
    assert np.all(np.asarray(nv.bse) < np.asarray(ex.bse))
    assert any("naive" in w for w in nv.warnings)


def test_exact_variability_restores_state():
    m = ef.ERGM(G8, FORMULA)
    bm = m.compiled()
    des = composite_design(bm, "all", 1)
    before = sorted(map(tuple, bm.state.ties().tolist()))
    exact_variability(bm, des, np.zeros(3))
    assert sorted(map(tuple, bm.state.ties().tolist())) == before


def test_block_lists_dyads_and_variables_agree():
    g = nx.gnp_random_graph(6, 0.5, seed=1)
    m = ef.ERGM(g, FORMULA)
    bm = m.compiled()
    # every node triple's three dyads, plus blocks of other sizes
    dy = [[(i, j), (j, l), (i, l)] for i, j, l in itertools.combinations(range(6), 3)]
    dy += [[(3, 4), (4, 5)], [(2, 5)]]
    var = [[bm.var_of(i, j) for i, j in b] for b in dy]
    a = m.fit(method="mcle", blocks=dy, cov="naive")
    b = m.fit(method="mcle", blocks=var, cov="naive")
    assert np.allclose(a.params, b.params, atol=1e-9)
    assert a.info["n_blocks"] == 22 and a.info["blocks"] == "list"
    theta = np.array([-0.5, 0.05, 0.4])
    des = composite_design(bm, dy)
    ll = 0.0
    for blk in dy:      # brute force, block by block
        A = nx.to_numpy_array(g, nodelist=range(6))
        G = []
        for vals in itertools.product((0, 1), repeat=len(blk)):
            B = A.copy()
            for (i, j), x in zip(blk, vals):
                B[i, j] = B[j, i] = x
            G.append(ref_stats(B))
        ll += theta @ ref_stats(A) - special.logsumexp(np.array(G) @ theta)
    assert des.loglik(theta) == pytest.approx(ll, abs=1e-9)


def test_random_blocks_and_limits():
    g = nx.gnp_random_graph(10, 0.3, seed=4)
    m = ef.ERGM(g, FORMULA)
    a = m.fit(method="mcle", block_size=3, blocks="triple", n_blocks=300, cov="naive",
              random_state=1)
    b = m.fit(method="mcle", block_size=3, blocks="triple", n_blocks=300, cov="naive",
              random_state=1)
    assert np.array_equal(a.params, b.params) and a.info["n_blocks"] == 300
    with pytest.raises(ValueError, match="n_blocks"):
        MCLE(block_size=3, blocks="uniform")
    with pytest.raises(ValueError, match="max_blocks"):
        m.fit(method="mcle", block_size=5, max_blocks=1000)
    assert "mcle" in methods() and "bcd" in methods()


def test_no_maximum_is_an_error():
    g = nx.star_graph(5)                      # no triangles: the triangle term runs to -Inf
    m = ef.ERGM(g, "edges + triangle")
    with pytest.raises(DegenerateModelError, match="triangle"):
        m.fit(method="mcle", block_size=2, cov="naive")
    des = composite_design(ef.ERGM(G8, FORMULA).compiled(), "all", 2)
    assert separation_direction(des) is None


def test_generic_kernel_path_equals_the_difference_path():
    """A BlockKernel passed as ``kernel=`` (here enumeration itself, as forward-backward
    would be for an MRF) gives the same estimate and sandwich as the precomputed path."""
    from ergmfit.sampling._blocks import Enumeration
    m = ef.ERGM(G8, FORMULA)
    a = m.fit(method="mcle", block_size=2, cov="exact")
    b = m.fit(method="mcle", block_size=2, cov="exact", kernel=Enumeration(2))
    assert np.allclose(a.params, b.params, atol=1e-7)
    assert np.allclose(a.cov, b.cov, rtol=1e-4)
    assert b.info["composite_loglik"] == pytest.approx(a.info["composite_loglik"], abs=1e-9)
