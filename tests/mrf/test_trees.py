"""Forward-backward block kernel and grid-shaped block choosers (ergmfit.mrf._models)."""
import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ergmfit.mrf import BoltzmannMachine, GridCRF, IsingModel, exact
from ergmfit.mrf._models import ForwardBackward, GridShapeBlocks, grid_placements, shape_orientations
from ergmfit.sampling._blocks import BlockGibbsSampler, Enumeration, bcd_loop
from ergmfit.utils.validation import seed_words


def _grid_model(h, w, coding, seed):
    return IsingModel(nx.grid_2d_graph(h, w), coding=coding, tied=False)


def _enum_cond(bm, block, theta):
    return Enumeration(len(block)).conditional(bm, block, theta)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), coding=st.sampled_from(["pm1", "01"]),
       shape=st.sampled_from(["-", "L", "T", "+", "H", "|", "."]))
def test_grid_shapes_match_enumeration(seed, coding, shape):
    rng = np.random.default_rng(seed)
    m = _grid_model(4, 5, coding, seed)
    bm = m.compiled()
    bm.set_state(rng.integers(0, 2, m.n_vars))
    x0 = bm.state().copy()
    theta = rng.normal(0, 1.5, m.n_stats)
    fb = ForwardBackward.for_model(bm)
    blocks = grid_placements(4, 5, [shape])
    block = blocks[rng.integers(len(blocks))]
    block = rng.permutation(block)                 # any order of the block's variables
    lp, e = fb.conditional(bm, block, theta)
    lp0, e0 = _enum_cond(bm, block, theta)
    assert np.allclose(lp, lp0, atol=1e-10)
    assert np.allclose(e, e0, atol=1e-10)
    assert np.array_equal(bm.state(), x0)          # state untouched


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 12), extra=st.integers(0, 4))
def test_random_trees_and_forests(seed, n, extra):
    """Random forests (a random tree cut into pieces) inside a graph with extra
    edges outside the block; free fields and couplings; 0/1 coding."""
    rng = np.random.default_rng(seed)
    T = nx.random_labeled_tree(n, seed=int(seed)) if n > 1 else nx.empty_graph(1)
    G = nx.Graph(T)
    # remove a few tree edges (forest) and add extra nodes connected to the block
    edges = list(G.edges())
    for idx in rng.permutation(len(edges))[: int(rng.integers(0, 3))]:
        G.remove_edge(*edges[idx])
    N = n + extra
    G.add_nodes_from(range(n, N))
    for v in range(n, N):
        for u in rng.choice(n, size=min(n, 3), replace=False):
            G.add_edge(int(u), v)
    m = IsingModel(G, coding="01", tied=False)
    bm = m.compiled()
    bm.set_state(rng.integers(0, 2, N))
    theta = rng.normal(0, 1.0, m.n_stats)
    block = rng.permutation(n)
    fb = ForwardBackward.for_model(m)
    lp, e = fb.conditional(bm, block, theta)
    lp0, e0 = _enum_cond(bm, block, theta)
    assert np.allclose(lp, lp0, atol=1e-10) and np.allclose(e, e0, atol=1e-10)


def test_higher_order_potentials_off_block():
    """A VBM with triple potentials: a block holding at most two variables of
    each triple is pairwise given the rest (the triples become edges)."""
    rng = np.random.default_rng(3)
    vbm = BoltzmannMachine(6, higher_order=[(0, 1, 2), (3, 4, 5)], edges=[(0, 3), (1, 4)])
    bm = vbm.compiled()
    fb = ForwardBackward.for_model(vbm)
    for _ in range(20):
        bm.set_state(rng.integers(0, 2, 6))
        theta = rng.normal(0, 1.0, vbm.n_stats)
        for block in ([0, 1, 4], [1, 2, 5, 4], [0, 3], [2, 0, 3, 5]):
            lp, e = fb.conditional(bm, block, theta)
            lp0, e0 = _enum_cond(bm, block, theta)
            assert np.allclose(lp, lp0) and np.allclose(e, e0)
    with pytest.raises(ValueError, match="cycle"):
        fb.conditional(bm, [0, 1, 2], np.zeros(vbm.n_stats))


def test_crf_chain_blocks():
    """The grid CRF (feature-weighted potentials) on a whole image row."""
    rng = np.random.default_rng(5)
    crf = GridCRF((4, 6))
    y = rng.normal(size=24)
    bm = crf.conditional(y)
    bm.set_state(rng.integers(0, 2, 24))
    theta = rng.normal(0, 1, 4)
    fb = ForwardBackward.for_model(bm)
    for block in (np.arange(6, 12), np.arange(2, 24, 6), [0, 1, 2, 8, 14, 13, 12]):
        lp, e = fb.conditional(bm, block, theta)
        lp0, e0 = _enum_cond(bm, block, theta)
        assert np.allclose(lp, lp0) and np.allclose(e, e0)


def test_cycle_is_rejected():
    m = _grid_model(3, 3, "pm1", 0)
    bm = m.compiled()
    fb = ForwardBackward.for_model(bm)
    with pytest.raises(ValueError, match="cycle"):
        fb.conditional(bm, [0, 1, 3, 4], np.ones(m.n_stats))
    with pytest.raises(ValueError, match="cycle"):
        fb.forest([0, 1, 4, 3])
    order, parent = fb.forest([0, 1, 2, 5])
    assert sorted(order.tolist()) == [0, 1, 2, 3] and (parent == -1).sum() == 1


def test_draws_follow_the_conditional():
    """Empirical distribution of forward-backward draws of a 5-pixel "+" block
    equals the exact conditional (and the returned delta is g(x') - g(x))."""
    rng = np.random.default_rng(11)
    m = _grid_model(3, 3, "pm1", 0)
    bm = m.compiled()
    x0 = rng.integers(0, 2, 9)
    theta = rng.normal(0, 0.7, m.n_stats)
    block = np.array([1, 3, 4, 5, 7])
    fb = ForwardBackward.for_model(bm)
    bm.set_state(x0)
    D = Enumeration(5).differences(bm, block)
    w = D @ theta
    p = np.exp(w - w.max())
    p /= p.sum()
    n = 6000
    counts = np.zeros(32)
    g0 = m.statistics(x0[None])[0]
    for t in range(n):
        bm.set_state(x0)
        d = fb.draw(bm, block, theta, seed=t)
        x = bm.state()
        assert np.allclose(d, m.statistics(x[None])[0] - g0)
        assert np.array_equal(np.delete(x, block), np.delete(x0, block))
        mask = sum(1 << r for r in range(5) if x[block[r]] != x0[block[r]])
        counts[mask] += 1
    # chi-square over the 32 cells
    chi2 = np.sum((counts - n * p) ** 2 / (n * p))
    assert chi2 < 70, chi2                          # 31 d.o.f.: P(chi2 > 70) ~ 1e-4
    assert chi2 > 5                                 # not suspiciously perfect


def test_blocked_gibbs_with_grid_shapes_is_stationary():
    """Random-scan blocked Gibbs with H / + / T blocks and the forward-backward
    kernel leaves p(x | theta) invariant: long-run mean statistics = exact."""
    m = _grid_model(3, 4, "pm1", 0)
    rng = np.random.default_rng(2)
    theta = rng.normal(0, 0.4, m.n_stats)
    bm = m.compiled()
    ch = GridShapeBlocks(3, 4, ("H", "+", "T", "L", "-"))
    s = BlockGibbsSampler(bm, ch, ForwardBackward.for_model(bm), seed_words(1))
    g0 = bm.statistics()
    S = s.sample(theta, 20000, 200, 2) + g0
    mu = exact.mean_statistics(bm, theta)
    se = S.std(0) / np.sqrt(len(S) / 10)           # autocorrelation allowance
    assert np.all(np.abs(S.mean(0) - mu) < 5 * se + 1e-3)


def test_bcd_loop_with_forward_backward_equals_enumeration_rb():
    """Rao-Blackwellised Bn-CD1 with a fixed list of chain blocks: the
    expected gradient is the same whichever exact kernel is used."""
    m = _grid_model(3, 3, "pm1", 0)
    bm = m.compiled()
    rng = np.random.default_rng(0)
    bm.set_state(rng.integers(0, 2, 9))
    ch = GridShapeBlocks(3, 3, ("-",))
    rates = np.full(50, 0.01)
    r1 = bcd_loop(bm, ch, ForwardBackward.for_model(bm), np.zeros(m.n_stats) + 0.1, rates,
                  rao_blackwell=True, seed=seed_words(4))
    r2 = bcd_loop(bm, ch, Enumeration(3), np.zeros(m.n_stats) + 0.1, rates,
                  rao_blackwell=True, seed=seed_words(4))
    assert np.allclose(r1["theta"], r2["theta"], atol=1e-12)


def test_shapes_and_placements():
    assert len(shape_orientations("-")) == 2
    assert len(shape_orientations("L")) == 4
    assert len(shape_orientations("T")) == 4
    assert len(shape_orientations("+")) == 1
    assert len(shape_orientations("H")) == 2
    sizes = {"-": 3, "L": 3, "T": 4, "+": 5, "H": 7}
    for sh, k in sizes.items():
        ch = GridShapeBlocks(5, 6, sh)
        assert ch.max_size == k
        for b in ch.blocks():
            assert len(b) == k and len(set(b.tolist())) == k
            rows, cols = np.divmod(b, 6)
            G = nx.Graph()
            G.add_nodes_from(range(k))
            for i, j in itertools.combinations(range(k), 2):
                if abs(rows[i] - rows[j]) + abs(cols[i] - cols[j]) == 1:
                    G.add_edge(i, j)
            assert nx.is_tree(G)                    # connected, acyclic in the grid
    # placements: "-" in 5x6: horizontal 5*4 + vertical 3*6
    assert GridShapeBlocks(5, 6, "-").n_blocks == 5 * 4 + 3 * 6
    assert GridShapeBlocks(5, 6, "+").n_blocks == 3 * 4
    drawn = GridShapeBlocks(5, 6, ("L", "-")).draw(200, random_state=0)
    assert all(len(b) == 3 for b in drawn)
    assert len({tuple(b) for b in drawn}) > 40
    with pytest.raises(ValueError):
        GridShapeBlocks(2, 2, "H")
