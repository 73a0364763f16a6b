"""Junction-tree inference (ergmfit.mrf.junction) against enumeration, an
independent brute force, and closed-form transfer matrices on long chains."""
import itertools

import networkx as nx
import numpy as np
import pytest
from scipy.special import logsumexp

from ergmfit.mrf import BoltzmannMachine, GridCRF, IsingModel, exact, junction
from ergmfit.mrf._models import MonomialModel


def brute(model, theta):
    """log Z, node marginals, E[g], Cov(g) by listing every state (numpy only)."""
    n = model.n_vars
    Y = np.array(list(itertools.product([0, 1], repeat=n)), dtype=np.uint8)
    G = model.statistics(Y)
    w = G @ theta
    lz = logsumexp(w)
    P = np.exp(w - lz)
    Eg = P @ G
    return lz, P @ Y, Eg, (G * P[:, None]).T @ G - np.outer(Eg, Eg), Y, G


def check_against_enumeration(model, theta, **kw):
    jt = junction.JunctionTree(model, **kw)
    lz, marg, Eg, C, Y, G = brute(model, theta)
    bm = model.compiled()
    assert np.isclose(exact.log_partition(bm, theta), lz, rtol=1e-12)     # the two references agree
    assert np.isclose(jt.log_partition(theta), lz, rtol=1e-12, atol=1e-10)
    assert np.allclose(jt.marginals(theta), marg, atol=1e-11)
    assert np.allclose(jt.mean_statistics(theta), Eg, atol=1e-10)
    lz2, Eg2, C2 = jt.covariance(theta)
    assert np.isclose(lz2, lz, atol=1e-10) and np.allclose(Eg2, Eg, atol=1e-10)
    assert np.allclose(C2, C, atol=1e-10)
    rng = np.random.default_rng(1)
    X = Y[rng.integers(0, len(Y), 7)]
    wts = rng.uniform(0.5, 2.0, 7)
    ref = float(wts @ (model.statistics(X) @ theta) - wts.sum() * lz)
    assert np.isclose(junction.loglik(model, theta, X, weights=wts), ref, rtol=1e-10)
    # the compiled model gives the same numbers
    assert np.isclose(junction.log_partition(bm, theta), lz, rtol=1e-12)
    return jt


@pytest.mark.parametrize("coding", ["pm1", "01"])
@pytest.mark.parametrize("seed", [0, 1])
def test_ising_cycle_and_grid(coding, seed):
    rng = np.random.default_rng(seed)
    for graph in (nx.cycle_graph(9), nx.grid_2d_graph(3, 4)):
        for tied in (True, False):
            m = IsingModel(graph, coding=coding, tied=tied)
            check_against_enumeration(m, rng.normal(0, 0.8, m.n_stats))


@pytest.mark.parametrize("coding", ["pm1", "01"])
def test_boltzmann_machine_higher_order(coding):
    rng = np.random.default_rng(2)
    # sparse pairs plus higher-order potentials (a 4-variable clique, a triple)
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (0, 7), (2, 6)]
    m = BoltzmannMachine(8, higher_order=[(0, 1, 2, 3), (4, 5, 6), (1, 5, 7)], edges=edges,
                         coding=coding)
    check_against_enumeration(m, rng.normal(0, 0.7, m.n_stats))
    full = BoltzmannMachine(6, higher_order=[tuple(range(6)), (0, 2, 4)], coding=coding)
    check_against_enumeration(full, rng.normal(0, 0.5, full.n_stats), order="min_degree")


def test_monomial_model_with_coefficients_and_forest():
    # a compiled model straight from monomials: random coefficients, repeated
    # scopes on different statistics, disconnected parts and a free variable
    rng = np.random.default_rng(3)
    mons = [[0], [1], [0, 1], [1, 2], [0, 1], [3, 4, 5], [4], [5, 6], [3, 6]]
    stat = [0, 0, 1, 1, 2, 2, 0, 1, 2]
    coef = rng.normal(0, 1, len(mons))
    for pm1 in (True, False):
        bm = MonomialModel(8, 3, mons, stat, coef, pm1)
        theta = rng.normal(0, 1, 3)
        G = exact.all_statistics(bm)
        jt = junction.JunctionTree(bm)
        assert np.isclose(jt.log_partition(theta), exact.log_partition(G, theta), rtol=1e-12)
        assert np.allclose(jt.marginals(theta), exact.marginals(G, theta, 8), atol=1e-12)
        assert np.allclose(jt.mean_statistics(theta), exact.mean_statistics(G, theta), atol=1e-11)
        assert np.isclose(jt.marginals(theta)[7], 0.5)                 # the free variable
        P = exact.probabilities(G, theta)
        S = exact.state_matrix(8).astype(float)
        S = 2 * S - 1 if pm1 else S
        mono = np.array([P @ np.prod(S[:, m], axis=1) for m in mons])
        assert np.allclose(jt.monomial_expectations(theta), mono, atol=1e-12)


def test_crf_conditional_and_errors():
    rng = np.random.default_rng(4)
    crf = GridCRF((3, 4))
    bm = crf.conditional(rng.normal(0, 1, 12))
    theta = rng.normal(0, 0.5, 4)
    assert np.isclose(junction.log_partition(bm, theta), exact.log_partition(bm, theta))
    with pytest.raises(ValueError, match="conditional"):
        junction.JunctionTree(crf)
    jt = junction.JunctionTree(bm)
    with pytest.raises(ValueError, match="4 values"):
        jt.log_partition([0.1, 0.2])
    with pytest.raises(ValueError, match="finite"):
        jt.log_partition([np.nan, 0, 0, 0])
    with pytest.raises(ValueError, match="permutation"):
        junction.JunctionTree(bm, order=[0, 1, 2])
    # any valid order gives the same answer
    order = rng.permutation(12)
    assert np.isclose(junction.log_partition(bm, theta, order=order),
                      exact.log_partition(bm, theta), rtol=1e-12)


def test_treewidth_limit():
    with pytest.raises(ValueError, match="treewidth"):
        junction.JunctionTree(IsingModel(nx.grid_2d_graph(32, 32)))
    with pytest.raises(ValueError, match="clique of"):
        junction.JunctionTree(IsingModel(nx.grid_2d_graph(3, 4)), max_clique_log2=3)
    jt = junction.JunctionTree(IsingModel(nx.grid_2d_graph(4, 40)))
    assert jt.max_clique_size <= 6
    assert junction.JunctionTree(IsingModel(nx.grid_2d_graph(6, 30))).max_clique_size <= 9


def test_no_overflow_at_extreme_theta():
    m = IsingModel(nx.grid_2d_graph(3, 4), coding="01")
    for theta in ([300.0, 500.0], [-400.0, 250.0], [40.0, -900.0]):
        lz, marg, Eg, C, _, _ = brute(m, np.array(theta))
        jt = junction.JunctionTree(m)
        lz2, Eg2, C2 = jt.covariance(theta)
        assert np.isfinite(lz2) and np.isclose(lz2, lz, rtol=1e-13)
        assert np.allclose(Eg2, Eg, atol=1e-8) and np.all(np.isfinite(C2))
        assert np.allclose(jt.marginals(theta), marg, atol=1e-10)


def transfer_chain(h, J, pm1):
    """log Z and node marginals of a chain with fields h_i and couplings
    J_i (between i and i+1) by scaled transfer matrices (forward/backward)."""
    n = len(h)
    s = np.array([-1.0, 1.0]) if pm1 else np.array([0.0, 1.0])
    fwd = np.zeros((n, 2))
    logc = 0.0
    a = np.exp(h[0] * s)
    for i in range(n):
        if i:
            T = np.exp(J[i - 1] * np.outer(s, s))
            a = (a @ T) * np.exp(h[i] * s)
        c = a.sum()
        logc += np.log(c)
        a = a / c
        fwd[i] = a
    bwd = np.ones((n, 2)) / 2
    for i in range(n - 2, -1, -1):
        T = np.exp(J[i] * np.outer(s, s))
        b = T @ (np.exp(h[i + 1] * s) * bwd[i + 1])
        bwd[i] = b / b.sum()
    marg = fwd * bwd
    marg /= marg.sum(axis=1, keepdims=True)
    return logc, marg[:, 1]


@pytest.mark.parametrize("coding", ["pm1", "01"])
def test_long_chain_vs_transfer_matrix(coding):
    n = 3000
    rng = np.random.default_rng(5)
    m = IsingModel(nx.path_graph(n), coding=coding, tied=False)
    h, J = rng.normal(0, 1, n), rng.normal(0, 1.5, n - 1)
    theta = np.concatenate([h, J])
    lz_ref, marg_ref = transfer_chain(h, J, coding == "pm1")
    jt = junction.JunctionTree(m)
    assert jt.max_clique_size == 2
    assert np.isclose(jt.log_partition(theta), lz_ref, rtol=1e-11)
    assert np.allclose(jt.marginals(theta), marg_ref, atol=1e-10)
    # E[field_i] = E[s(x_i)] from the transfer-matrix marginals
    Es = 2 * marg_ref - 1 if coding == "pm1" else marg_ref
    assert np.allclose(jt.mean_statistics(theta)[:n], Es, atol=1e-10)


def test_tied_chain_mean_and_covariance_vs_finite_differences():
    n = 2000
    m = IsingModel(nx.path_graph(n), coding="pm1")
    theta = np.array([0.15, 0.6])

    def lz(th):
        return transfer_chain(np.full(n, th[0]), np.full(n - 1, th[1]), True)[0]
    eps = 1e-4
    E = [(lz(theta + eps * e) - lz(theta - eps * e)) / (2 * eps) for e in np.eye(2)]
    H = np.array([[(lz(theta + eps * (a + b)) - lz(theta + eps * (a - b))
                    - lz(theta - eps * (a - b)) + lz(theta - eps * (a + b))) / (4 * eps ** 2)
                   for b in np.eye(2)] for a in np.eye(2)])
    logz, mean, cov = junction.JunctionTree(m).covariance(theta, block=1)
    assert np.isclose(logz, lz(theta), rtol=1e-12)
    assert np.allclose(mean, E, rtol=1e-6)
    assert np.allclose(cov, H, rtol=1e-3)


def test_junction_exact_fit_equals_enumeration_mle():
    rng = np.random.default_rng(6)
    m = BoltzmannMachine(7, higher_order=[(0, 1, 2), (2, 3, 4, 5)],
                         edges=[(i, i + 1) for i in range(6)], coding="01")
    theta0 = rng.normal(0, 0.5, m.n_stats)
    X = m.sample(400, theta=theta0, random_state=7)
    r = exact.ExactLikelihood(algorithm="junction").fit(m, X)
    ref = exact.ExactLikelihood(algorithm="enumeration").fit(m, X)
    assert r.converged and ref.converged
    assert np.allclose(r.params, ref.params, atol=1e-7)
    assert np.isclose(r.loglik, ref.loglik, rtol=1e-10)
    assert np.allclose(r.info["fisher"], ref.info["fisher"], rtol=1e-6, atol=1e-8)
    # weights: a weighted fit equals the fit on the repeated rows
    U, c = np.unique(X, axis=0, return_counts=True)
    rw = exact.ExactLikelihood(algorithm="junction").fit(m, U, sample_weight=c)
    assert np.allclose(rw.params, r.params, atol=1e-7)


def test_junction_exact_fit_thin_grid():
    # 4 x 12 grid (48 spins: no enumeration): at the MLE E[g] = mean g(X) (the
    # data's statistics from the model's own numpy code), and PL is close
    m = IsingModel(nx.grid_2d_graph(4, 12))
    X = m.sample(400, theta=[0.1, 0.3], random_state=8, burnin=200, thin=3)
    r = exact.ExactLikelihood().fit(m, X)           # 48 variables: the junction tree
    assert r.converged and "fisher" in r.info
    gbar = m.statistics(X).mean(axis=0)
    assert np.allclose(junction.mean_statistics(m, r.params), gbar, atol=1e-8)
    pl = m.fit(X, method="pl").coef_
    assert np.allclose(r.params, pl, atol=0.05)


@pytest.mark.parametrize("coding", ["pm1", "01"])
def test_broadcast_path_and_parameter_blocks(coding, monkeypatch):
    # force every clique onto the broadcasting path (used for big cliques) and
    # compute the covariance one parameter block at a time
    monkeypatch.setattr(junction, "_SPARSE_LIMIT", 0)
    rng = np.random.default_rng(9)
    m = BoltzmannMachine(7, higher_order=[(0, 1, 2, 3), (3, 4, 5, 6)],
                         edges=[(i, i + 1) for i in range(6)] + [(0, 6)], coding=coding)
    theta = rng.normal(0, 0.7, m.n_stats)
    jt = check_against_enumeration(m, theta)
    assert jt._B.nnz == 0 and jt._bcast
    lz, marg, Eg, C, _, _ = brute(m, theta)
    for block in (1, 3):
        _, _, C2 = jt.covariance(theta, block=block)
        assert np.allclose(C2, C, atol=1e-10)


def test_models_use_the_junction_tree_beyond_enumeration():
    # a 40-node chain is too big to enumerate: LinearMRF's exact methods go
    # through the junction tree (checked against the transfer matrix)
    n = 40
    m = IsingModel(nx.path_graph(n), coding="pm1", tied=False)
    rng = np.random.default_rng(9)
    h, J = rng.normal(0, 0.5, n), rng.normal(0, 0.8, n - 1)
    theta = np.concatenate([h, J])
    lz_ref, marg_ref = transfer_chain(h, J, True)
    assert np.isclose(m.log_partition(theta), lz_ref, rtol=1e-11)
    assert np.allclose(m.marginals(theta), marg_ref, atol=1e-10)
    tied = IsingModel(nx.path_graph(n), coding="pm1")
    X = tied.sample(400, theta=[0.2, 0.5], random_state=3)
    tied.fit(X, method="exact")
    assert tied.converged_
    # the exact MLE solves E_theta[g] = mean g(X)
    Eg = junction.mean_statistics(tied, tied.coef_)
    assert np.allclose(Eg, tied.statistics(X).mean(axis=0), atol=1e-7)
