"""Blocked Gibbs updates: exact block conditionals, draws and expectations
against brute-force enumeration with independent (numpy) statistics on
graphs of at most 6 nodes; block choosers; the random-scan blocked Gibbs
sampler against exact model expectations."""
import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import special, stats

import ergmfit as ef
from ergmfit.sampling._blocks import (BlockGibbsSampler, Enumeration, ListBlocks,
                                      NodeTripleBlocks, StarBlocks, UniformBlocks,
                                      block_differences, kernel_composite)
from ergmfit.utils.validation import seed_words


# ---------------------------------------------------------------------------
# independent reference statistics from an adjacency matrix
# ---------------------------------------------------------------------------
def ref_undirected(A):
    """edges, kstar2, triangle, gwesp(0.5, fixed) of a symmetric 0/1 matrix."""
    A = np.asarray(A, dtype=float)
    deg = A.sum(axis=1)
    edges = A.sum() / 2
    kstar2 = float(np.sum(deg * (deg - 1) / 2))
    A2 = A @ A
    tri = float(np.trace(A2 @ A) / 6)
    alpha = 0.5
    esp = A2[np.triu(A, 1) > 0]
    gw = float(np.exp(alpha) * np.sum(1 - (1 - np.exp(-alpha)) ** esp))
    return np.array([edges, kstar2, tri, gw])


FORMULA_U = "edges + kstar(2) + triangle + gwesp(0.5, fixed=TRUE)"


def ref_directed(A):
    """edges, mutual, ttriple of a 0/1 matrix with zero diagonal."""
    A = np.asarray(A, dtype=float)
    edges = A.sum()
    mutual = float(np.sum(np.triu(A * A.T, 1)))
    ttriple = float(np.sum((A @ A) * A))
    return np.array([edges, mutual, ttriple])


FORMULA_D = "edges + mutual + ttriple"


def adjacency(bm, n, directed):
    A = np.zeros((n, n))
    for v in range(bm.n_vars):
        if bm.value(v):
            i, j = bm.dyad_of(v)
            A[i, j] = 1
            if not directed:
                A[j, i] = 1
    return A


def random_model(n, p, seed, directed=False):
    rng = np.random.default_rng(seed)
    g = nx.gnp_random_graph(n, p, seed=int(rng.integers(1 << 30)), directed=directed)
    m = ef.ERGM(g, FORMULA_D if directed else FORMULA_U)
    return m, m.compiled()


def brute_force_block(bm, n, directed, block):
    """(D, configs): D[s] = ref(x with block bits s flipped) - ref(x), from numpy statistics."""
    ref = ref_directed if directed else ref_undirected
    A = adjacency(bm, n, directed)
    g0 = ref(A)
    D = []
    for s in range(1 << len(block)):
        B = A.copy()
        for b, v in enumerate(block):
            if s >> b & 1:
                i, j = bm.dyad_of(v)
                B[i, j] = 1 - B[i, j]
                if not directed:
                    B[j, i] = B[i, j]
        D.append(ref(B) - g0)
    return np.array(D)


# ---------------------------------------------------------------------------
# exact block conditionals
# ---------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(3, 6), p=st.floats(0.1, 0.9),
       k=st.integers(1, 6), directed=st.booleans())
def test_differences_equal_brute_force(seed, n, p, k, directed):
    m, bm = random_model(n, p, seed, directed)
    rng = np.random.default_rng(seed + 1)
    k = min(k, bm.n_vars)
    block = rng.choice(bm.n_vars, size=k, replace=False)
    before = adjacency(bm, n, directed)
    D = Enumeration(12).differences(bm, block)
    assert np.allclose(D, brute_force_block(bm, n, directed, block), atol=1e-9)
    assert np.array_equal(adjacency(bm, n, directed), before)        # state restored


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(3, 6), p=st.floats(0.1, 0.9),
       k=st.integers(1, 5), directed=st.booleans())
def test_conditional_logp_and_expectation(seed, n, p, k, directed):
    m, bm = random_model(n, p, seed, directed)
    rng = np.random.default_rng(seed + 2)
    k = min(k, bm.n_vars)
    block = rng.choice(bm.n_vars, size=k, replace=False)
    theta = rng.normal(0, 0.7, size=bm.n_stats)
    D = brute_force_block(bm, n, directed, block)
    w = D @ theta
    pr = np.exp(w - special.logsumexp(w))
    lp, e = Enumeration(12).conditional(bm, block, theta)
    assert lp == pytest.approx(np.log(pr[0]), abs=1e-10)
    assert np.allclose(e, pr @ D, atol=1e-9)


def test_block_of_all_variables_is_the_likelihood():
    g = nx.gnp_random_graph(5, 0.5, seed=8)
    m = ef.ERGM(g, FORMULA_U)
    bm = m.compiled()
    theta = np.array([-0.4, 0.2, -0.3, 0.5])
    dyads = list(itertools.combinations(range(5), 2))
    G = []
    for bits in itertools.product((0, 1), repeat=10):
        A = np.zeros((5, 5))
        for (i, j), b in zip(dyads, bits):
            A[i, j] = A[j, i] = b
        G.append(ref_undirected(A))
    G = np.array(G)
    loglik = theta @ ref_undirected(nx.to_numpy_array(g)) - special.logsumexp(G @ theta)
    lp, e = Enumeration(12).conditional(bm, np.arange(10), theta)
    assert lp == pytest.approx(loglik, abs=1e-10)
    pr = np.exp(G @ theta - special.logsumexp(G @ theta))
    assert np.allclose(e, pr @ G - ref_undirected(nx.to_numpy_array(g)), atol=1e-9)


def test_draws_follow_the_conditional():
    """Repeated updates of one fixed block are iid draws from p(x_A | x_-A)."""
    m, bm = random_model(6, 0.4, 3)
    block = np.array([0, 4, 9, 13])
    theta = np.array([-0.3, 0.15, 0.4, 0.3])
    D = brute_force_block(bm, 6, False, block)
    w = D @ theta
    pr = np.exp(w - special.logsumexp(w))
    x0 = np.array([bm.value(v) for v in block])
    s = BlockGibbsSampler(bm, ListBlocks([block], bm.n_vars), Enumeration(4), seed_words(5))
    counts = np.zeros(16)
    n = 20000
    for _ in range(n):
        s.run(theta, 1)
        x = np.array([bm.value(v) for v in block])
        counts[int(np.sum((x != x0) << np.arange(4)))] += 1
    chi2 = np.sum((counts - n * pr) ** 2 / (n * pr))
    assert stats.chi2.sf(chi2, 15) > 1e-4, (counts, n * pr)
    # the tracked change of the statistics equals the recomputed one
    assert np.allclose(s.delta, ref_undirected(adjacency(bm, 6, False))
                       - ref_undirected(nx.to_numpy_array(m.network.to_networkx())), atol=1e-8)


def test_sampled_delta_averages_to_the_expectation():
    m, bm = random_model(6, 0.5, 11)
    block = np.array([1, 2, 7])
    theta = np.array([-0.2, 0.1, 0.3, -0.2])
    _, e = Enumeration(3).conditional(bm, block, theta)
    s = BlockGibbsSampler(bm, ListBlocks([block], bm.n_vars), Enumeration(3), seed_words(1))
    D = brute_force_block(bm, 6, False, block)
    w = D @ theta
    pr = np.exp(w - special.logsumexp(w))
    sd = np.sqrt(pr @ (D - pr @ D) ** 2)
    out = s.sample(theta, 20000, 0, 1)
    # successive states differ from x0 by independent draws: mean of g(x_t) - g(x0)
    assert np.all(np.abs(out.mean(axis=0) - e) < 5 * sd / np.sqrt(20000) + 1e-12)


def test_kernel_composite_matches_enumeration_sum():
    m, bm = random_model(5, 0.5, 2)
    blocks = [np.array([0, 1]), np.array([2, 5, 7]), np.array([9])]
    theta = np.array([-0.5, 0.1, 0.2, 0.3])
    flat = np.concatenate(blocks)
    off = np.cumsum([0] + [len(b) for b in blocks]).astype(np.int64)
    ll, grad = kernel_composite(bm, Enumeration(4), flat, off, theta)
    ll2, g2 = 0.0, np.zeros(4)
    for b in blocks:
        D = brute_force_block(bm, 5, False, b)
        w = D @ theta
        ll2 -= special.logsumexp(w)
        g2 -= np.exp(w - special.logsumexp(w)) @ D
    assert ll == pytest.approx(ll2, abs=1e-10)
    assert np.allclose(grad, g2, atol=1e-10)


def test_block_differences_batch_and_errors():
    m, bm = random_model(6, 0.3, 4)
    rows = np.array([[0, 1, 2], [3, 8, 14], [2, 5, 11]], dtype=np.int64)
    D = block_differences(bm, rows)
    for r, b in enumerate(rows):
        assert np.allclose(D[r], brute_force_block(bm, 6, False, b), atol=1e-9)
    with pytest.raises(ValueError, match="distinct"):
        block_differences(bm, np.array([[1, 1]], dtype=np.int64))
    with pytest.raises(IndexError):
        block_differences(bm, np.array([[0, 99]], dtype=np.int64))
    with pytest.raises(ValueError, match="max_size"):
        Enumeration(2).conditional(bm, [0, 1, 2], np.zeros(4))
    with pytest.raises(ValueError, match="theta"):
        Enumeration(2).conditional(bm, [0, 1], np.zeros(3))
    with pytest.raises(ValueError):
        Enumeration(25)


# ---------------------------------------------------------------------------
# block choosers
# ---------------------------------------------------------------------------
def test_uniform_blocks_are_uniform_subsets():
    for M, k in ((10, 3), (1000, 4)):
        ch = UniformBlocks(M, k)
        blocks = ch.draw(6000, 1)
        assert all(len(b) == k and len(set(b.tolist())) == k for b in blocks)
        counts = np.bincount(np.concatenate(blocks), minlength=M)
        if M == 10:
            exp = 6000 * k / M
            assert stats.chisquare(counts).pvalue > 1e-4 and abs(counts.mean() - exp) < 1e-9
    with pytest.raises(ValueError):
        UniformBlocks(5, 6)


def test_node_triple_and_star_blocks_share_nodes():
    g = nx.gnp_random_graph(12, 0.3, seed=1)
    bm = ef.ERGM(g, "edges + triangle").compiled()
    for b in NodeTripleBlocks(bm, 3).draw(200, 2):
        nodes = {x for v in b for x in bm.dyad_of(int(v))}
        assert len(b) == 3 and len(nodes) == 3            # the three dyads of a triple
    for b in NodeTripleBlocks(bm, 5).draw(200, 3):
        pairs = [set(bm.dyad_of(int(v))) for v in b]
        assert len(set(b.tolist())) == 5
        assert set.intersection(pairs[0], pairs[2], *pairs[3:])  # all share the first node
    for b in NodeTripleBlocks(bm, 2).draw(50, 3):
        assert set(bm.dyad_of(int(b[0]))) & set(bm.dyad_of(int(b[1])))
    for b in StarBlocks(bm, 4).draw(200, 4):
        pairs = [set(bm.dyad_of(int(v))) for v in b]
        assert len(set.intersection(*pairs)) == 1 and len(set(b.tolist())) == 4
    gd = nx.gnp_random_graph(8, 0.3, seed=1, directed=True)
    bmd = ef.ERGM(gd, "edges + mutual").compiled()
    for b in NodeTripleBlocks(bmd, 6).draw(50, 5):
        nodes = {x for v in b for x in bmd.dyad_of(int(v))}
        assert len(set(b.tolist())) == 6 and len(nodes) == 3
    with pytest.raises(ValueError):
        NodeTripleBlocks(ef.ERGM(nx.empty_graph(2), "edges").compiled(), 1)
    with pytest.raises(ValueError):
        StarBlocks(bm, 12)


def test_list_blocks_validation():
    with pytest.raises(ValueError, match="distinct"):
        ListBlocks([[0, 0]], 5)
    with pytest.raises(IndexError):
        ListBlocks([[0, 7]], 5)
    with pytest.raises(ValueError, match="empty"):
        ListBlocks([], 5)
    ch = ListBlocks([[0, 1], [2], [3, 4, 0]], 5)
    seen = {tuple(b.tolist()) for b in ch.draw(300, 1)}
    assert seen == {(0, 1), (2,), (3, 4, 0)}


# ---------------------------------------------------------------------------
# the random-scan blocked Gibbs sampler leaves p(x | theta) invariant
# ---------------------------------------------------------------------------
def exact_moments(n, theta):
    dyads = list(itertools.combinations(range(n), 2))
    G = []
    for bits in itertools.product((0, 1), repeat=len(dyads)):
        A = np.zeros((n, n))
        for (i, j), b in zip(dyads, bits):
            A[i, j] = A[j, i] = b
        G.append(ref_undirected(A))
    G = np.array(G)
    w = np.exp(G @ theta - special.logsumexp(G @ theta))
    mean = w @ G
    return mean, np.sqrt(w @ (G - mean) ** 2)


@pytest.mark.parametrize("kind,k", [("uniform", 1), ("uniform", 3), ("triple", 3), ("star", 2)])
def test_blocked_gibbs_matches_exact_moments(kind, k):
    g = nx.gnp_random_graph(5, 0.5, seed=3)
    m = ef.ERGM(g, FORMULA_U)
    bm = m.compiled()
    theta = np.array([-0.5, 0.1, 0.3, 0.2])
    mean, sd = exact_moments(5, theta)
    ch = {"uniform": lambda: UniformBlocks(bm.n_vars, k), "triple": lambda: NodeTripleBlocks(bm, k),
          "star": lambda: StarBlocks(bm, k)}[kind]()
    s = BlockGibbsSampler(bm, ch, None, seed_words(7))
    n = 6000
    S = ref_undirected(nx.to_numpy_array(g)) + s.sample(theta, n, 500, 10)
    se = sd / np.sqrt(n / 4)
    assert np.all(np.abs(S.mean(axis=0) - mean) < 5 * se), (S.mean(axis=0), mean, se)
    assert s.n_steps == 500 + 10 * n


def test_sampler_reproducible_and_checks():
    m, bm = random_model(6, 0.4, 1)
    theta = np.array([-0.3, 0.1, 0.2, 0.1])
    outs = []
    for seed in (3, 3, 4):
        bm = m.compiled()
        s = BlockGibbsSampler(bm, UniformBlocks(bm.n_vars, 2), None, seed_words(seed))
        outs.append(s.sample(theta, 50, 10, 3))
    assert np.array_equal(outs[0], outs[1]) and not np.array_equal(outs[0], outs[2])
    with pytest.raises(ValueError, match="max_size"):
        BlockGibbsSampler(bm, UniformBlocks(bm.n_vars, 4), Enumeration(2), seed_words(1))
    with pytest.raises(ValueError, match="different number"):
        BlockGibbsSampler(bm, UniformBlocks(3, 1), None, seed_words(1))
