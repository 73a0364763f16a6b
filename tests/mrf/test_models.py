"""Compiled MRF models: statistics and change statistics against independent references."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ergmfit.mrf._models import MonomialModel
from ergmfit.mrf.models import BoltzmannMachine, GridCRF, IsingModel, RBM


# --- independent references (plain numpy, from the model definitions) ------
def ref_ising(x01, n, edges, coding, tied):
    s = 2.0 * x01 - 1.0 if coding == "pm1" else x01.astype(float)
    f = s.copy()
    c = np.array([s[i] * s[j] for i, j in edges])
    if tied:
        return np.array([f.sum()] + ([c.sum()] if edges else []))
    return np.concatenate([f, c])


def ref_bm(x01, n, higher, coding):
    s = 2.0 * x01 - 1.0 if coding == "pm1" else x01.astype(float)
    pairs = [s[i] * s[j] for i in range(n) for j in range(i + 1, n)]
    hi = [np.prod(s[list(S)]) for S in higher]
    return np.concatenate([s, pairs, hi])


def random_graph(rng, n, p):
    return [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < p]


def check_change(bm, ref, n, rng, n_states=8):
    for _ in range(n_states):
        x = rng.integers(0, 2, n).astype(np.uint8)
        bm.set_state(x)
        assert np.array_equal(bm.state(), x)
        assert np.allclose(bm.statistics(), ref(x))
        assert sorted(bm.on_vars().tolist()) == np.flatnonzero(x).tolist()
        for v in range(n):
            x1, x0 = x.copy(), x.copy()
            x1[v], x0[v] = 1, 0
            assert np.allclose(bm.change_stats(v), ref(x1) - ref(x0)), (x, v)
            bm.flip_var(v)
            bm.flip_var(v)
            assert np.array_equal(bm.state(), x)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 9), dens=st.floats(0.1, 1.0),
       coding=st.sampled_from(["pm1", "01"]), tied=st.booleans())
def test_ising_change_stats(seed, n, dens, coding, tied):
    rng = np.random.default_rng(seed)
    edges = random_graph(rng, n, dens)
    m = IsingModel((n, edges), coding=coding, tied=tied)
    bm = m.compiled()
    ref = lambda x: ref_ising(x, n, edges, coding, tied)
    check_change(bm, ref, n, rng)
    X = rng.integers(0, 2, (5, n))
    assert np.allclose(m.statistics(X), np.array([ref(x) for x in X]))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(3, 8), coding=st.sampled_from(["pm1", "01"]))
def test_boltzmann_higher_order_change_stats(seed, n, coding):
    rng = np.random.default_rng(seed)
    higher = [tuple(sorted(rng.choice(n, size=rng.integers(3, n + 1), replace=False)))
              for _ in range(3)]
    m = BoltzmannMachine(n, higher_order=higher, coding=coding)
    assert m.n_stats == n + n * (n - 1) // 2 + 3
    check_change(m.compiled(), lambda x: ref_bm(x, n, higher, coding), n, rng)


def test_crf_statistics_and_change():
    rng = np.random.default_rng(3)
    shape = (3, 4)
    crf = GridCRF(shape)
    y = rng.standard_normal(12)
    bm = crf.conditional(y)
    c = crf.edge_features_of(y)
    E = crf.edges

    def ref(x01):
        s = 2.0 * x01 - 1.0
        pe = np.array([s[i] * s[j] for i, j in E])
        return np.array([s.sum(), y @ s, pe.sum(), c @ pe])
    check_change(bm, ref, 12, rng)
    # grid edges: horizontal and vertical neighbours only
    assert len(E) == 3 * 3 + 2 * 4
    assert all(abs(i - j) in (1, 4) for i, j in E)


def test_set_state_accepts_spins_and_rejects_garbage():
    bm = IsingModel((3, [(0, 1), (1, 2)])).compiled()
    bm.set_state([-1, 1, -1])
    assert bm.state().tolist() == [0, 1, 0]
    bm.set_state([True, False, True])
    assert bm.state().tolist() == [1, 0, 1]
    with pytest.raises(ValueError):
        bm.set_state([0, 2, 1])
    with pytest.raises(ValueError):
        bm.set_state([0, 1])


def test_constructor_validation():
    with pytest.raises(ValueError):
        MonomialModel(3, 1, [[0, 0]], [0], [1.0])
    with pytest.raises(IndexError):
        MonomialModel(3, 1, [[0, 5]], [0], [1.0])
    with pytest.raises(ValueError):
        IsingModel((3, [(1, 1)]))
    with pytest.raises(ValueError):
        BoltzmannMachine(3, higher_order=[(0, 4)])
    with pytest.raises(ValueError):
        IsingModel((3, []), coding="spin")


def test_engine_samplers_track_statistics():
    """MHSampler and BlockGibbsSampler run unchanged on the MRF and their
    tracked g(x_t) - g(x_0) matches the statistics recomputed from scratch."""
    from ergmfit.sampling._blocks import BlockGibbsSampler, Enumeration, UniformBlocks
    from ergmfit.sampling._mh import MHSampler
    from ergmfit.sampling._proposals import RandomToggle
    from ergmfit.utils.validation import seed_words
    m = BoltzmannMachine(6, higher_order=[(0, 1, 2), (2, 3, 4, 5)], coding="pm1")
    theta = np.linspace(-0.5, 0.5, m.n_stats)
    for make in (lambda bm: MHSampler(bm, RandomToggle(), seed_words(1)),
                 lambda bm: BlockGibbsSampler(bm, UniformBlocks(6, 3), Enumeration(3), seed_words(1))):
        bm = m.compiled()
        g0 = bm.statistics()
        s = make(bm)
        s.run(theta, 500)
        assert np.allclose(s.delta, bm.statistics() - g0)
        assert np.allclose(m.statistics(bm.state()[None])[0], bm.statistics())


def test_rbm_gradient_matches_finite_differences():
    rbm = RBM(4, 3)
    rng = np.random.default_rng(0)
    th = rng.normal(0, 0.5, rbm.n_params)
    V = rng.choice([-1.0, 1.0], size=(5, 4))
    g = rbm.grad_log_unnorm(V, th).sum(0)
    num = np.zeros_like(th)
    for q in range(len(th)):
        e = np.zeros_like(th); e[q] = 1e-6
        num[q] = (rbm.log_unnorm(V, th + e).sum() - rbm.log_unnorm(V, th - e).sum()) / 2e-6
    assert np.allclose(g, num, atol=1e-6)


def test_a_one_pixel_grid_crf_is_refused_by_name():
    # a 1x1 grid has no neighbouring pair: it used to fail later, inside the edge features,
    # with numpy's IndexError
    with pytest.raises(ValueError, match="single pixel"):
        GridCRF((1, 1))
    GridCRF((1, 2))  # two pixels, one pair: a valid CRF
