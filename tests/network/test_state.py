"""The compiled network state: ties, neighbour arrays, two-path caches, dyad indexing."""
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ergmfit as ef
from ergmfit.network import NetworkState

FLAGS = {"sp": 1, "otp": 2, "osp": 4, "isp": 8}


def _check_state(s, A, directed):
    n = A.shape[0]
    assert s.num_ties == (A.sum() if directed else A.sum() // 2)
    for i in range(n):
        assert sorted(s.out_neighbors(i)) == list(np.flatnonzero(A[i]))
        assert sorted(s.in_neighbors(i)) == list(np.flatnonzero(A[:, i]))
    ties = s.ties()
    assert len({tuple(t) for t in ties}) == len(ties)
    for i, j in ties:
        assert A[i, j] and (directed or i < j)
    off = ~np.eye(n, dtype=bool)
    if directed:
        want = {"otp": A @ A, "osp": A.T @ A, "isp": A @ A.T}
    else:
        want = {"sp": A @ A}
    for kind, M in want.items():
        if s.caches & FLAGS[kind]:
            got = np.array([[s.cache_count(kind, i, j) if i != j else 0 for j in range(n)]
                            for i in range(n)])
            assert (got[off] == M[off]).all(), kind


@settings(max_examples=60, deadline=None)
@given(directed=st.booleans(), n=st.integers(2, 9),
       toggles=st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=150),
       cache_first=st.booleans(), dense=st.booleans(), cache_degree=st.sampled_from([0, 1, 3, 32]))
def test_random_toggles_keep_everything_consistent(directed, n, toggles, cache_first, dense,
                                                   cache_degree):
    # both storages: dense (bitmap + n x n counts, small networks) and hash maps;
    # either holds the counts only above cache_degree (so low values make the
    # chain take them up and drop them as the density moves)
    flags = 14 if directed else 1
    s = NetworkState(n, directed, caches=flags if cache_first else 0, dense=dense,
                     cache_degree=cache_degree)
    assert s.dense == dense
    A = np.zeros((n, n), dtype=np.int64)
    for i, j in toggles:
        i, j = i % n, j % n
        if i == j:
            continue
        s.toggle_tie(i, j)
        A[i, j] ^= 1
        if not directed:
            A[j, i] = A[i, j]
    if not cache_first:
        s.enable_caches(flags)   # built from existing ties
    _check_state(s, A, directed)
    c = s.copy()
    assert c.dense == dense
    _check_state(c, A, directed)
    if s.caches:
        assert s.cache_sizes() == NetworkState(n, directed, s.ties(), s.caches,
                                               dense=not dense).cache_sizes()
    mean_degree = 2 * s.num_ties / n
    if mean_degree >= cache_degree:
        assert s.cached == s.caches
    elif mean_degree < cache_degree / 2:
        assert s.cached == 0


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("directed", [False, True])
def test_counts_are_taken_up_and_dropped_with_the_density(directed, dense):
    n, flags = 12, 14 if directed else 1
    rng = np.random.default_rng(3)
    s = NetworkState(n, directed, caches=flags, dense=dense, cache_degree=4)
    A = np.zeros((n, n), dtype=np.int64)
    held = []
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j and (directed or i < j)]
    for k in list(rng.permutation(len(pairs))) * 2:   # fill up, then empty again
        i, j = pairs[k]
        s.toggle_tie(i, j)
        A[i, j] ^= 1
        if not directed:
            A[j, i] = A[i, j]
        held.append(s.cached)
        if len(held) % 7 == 0:
            _check_state(s, A, directed)
    assert held[0] == 0 and held[len(pairs) - 1] == flags and held[-1] == 0
    # taken up once on the way up and dropped once on the way down
    assert sum(a != b for a, b in zip(held, held[1:])) == 2
    held_now = NetworkState(n, directed, [(0, 1)], flags, dense=dense, cache_degree=0)
    not_held = NetworkState(n, directed, [(0, 1)], flags, dense=dense)
    assert held_now.cached == flags and not_held.cached == 0
    assert held_now.memory_bytes() >= not_held.memory_bytes() + (2 * n * n if dense else 128)
    with pytest.raises(ValueError, match="cache_degree"):
        NetworkState(n, directed, cache_degree=-1)


@pytest.mark.parametrize("dense", [True, False])
def test_toggle_twice_restores(dense):
    rng = np.random.default_rng(1)
    s = NetworkState(30, True, caches=14, dense=dense)
    for _ in range(300):
        i, j = rng.choice(30, 2, replace=False)
        s.toggle_tie(i, j)
    before = sorted(map(tuple, s.ties()))
    sizes = s.cache_sizes()
    for _ in range(200):
        i, j = rng.choice(30, 2, replace=False)
        s.toggle_tie(i, j)
        s.toggle_tie(i, j)
    assert sorted(map(tuple, s.ties())) == before
    assert s.cache_sizes() == sizes


def test_bad_dyads_raise():
    s = NetworkState(4, False)
    with pytest.raises(ValueError, match="self-loop"):
        s.toggle_tie(1, 1)
    with pytest.raises(IndexError):
        s.has(0, 7)
    with pytest.raises(ValueError, match="duplicate"):
        NetworkState(4, False, [(0, 1), (1, 0)])


@pytest.mark.parametrize("directed", [False, True])
def test_dyad_variable_indexing_is_a_bijection(directed):
    n = 9
    g = nx.gnp_random_graph(n, 0.3, seed=2, directed=directed)
    m = ef.ERGM(g, "edges").compiled()
    D = n * (n - 1) if directed else n * (n - 1) // 2
    assert m.n_vars == D
    seen = set()
    for v in range(D):
        i, j = m.dyad_of(v)
        assert i != j and (directed or i < j)
        assert m.var_of(i, j) == v
        seen.add((i, j))
    assert len(seen) == D
    on = set(m.on_vars().tolist())
    assert on == {m.var_of(i, j) for i, j in g.edges()}


def test_large_undirected_indexing_round_trips():
    n = 75879
    m = ef.ERGM(ef.Network(n, [(0, 1)], directed=False), "edges").compiled()
    D = n * (n - 1) // 2
    for v in [0, 1, n - 2, n - 1, D // 3, D - 2, D - 1]:
        i, j = m.dyad_of(v)
        assert m.var_of(i, j) == v


def test_state_memory_is_sparse():
    # above the dense limit, 10,000 nodes and a few ties must not cost n^2
    from ergmfit.network._state import DENSE_MAX_NODES
    s = NetworkState(10_000, True, [(0, 1), (1, 2)], caches=14)
    assert not s.dense and DENSE_MAX_NODES < 10_000
    assert s.memory_bytes() < 2_000_000
    # below it, the dense bitmap is used; the n x n counts only once held
    d = NetworkState(1000, True, [(0, 1), (1, 2)], caches=14)
    assert d.dense and d.cached == 0
    assert 1000 * 1000 / 8 < d.memory_bytes() < 2_000_000
    d = NetworkState(1000, True, [(0, 1), (1, 2)], caches=14, cache_degree=0)
    assert d.cached == 14
    assert d.memory_bytes() > 3 * 1000 * 1000 * 2
    with pytest.raises(ValueError, match="65535"):
        NetworkState(70_000, True, dense=True)


@pytest.mark.parametrize("directed", [False, True])
def test_dense_and_hash_states_give_the_same_chain(directed):
    # same seed, same model, either storage: the same draws, bit for bit
    # (the directed triangle counts two-paths on demand: bitmap look-ups on
    # dense storage, short neighbour lists compared directly on hash storage)
    from ergmfit.sampling import MHSampler, TriadicTNT
    from ergmfit.terms._ergm import ERGMModel
    from ergmfit.utils.validation import seed_words
    g = ef.datasets.load_network("samplike" if directed else "faux.mesa.high")
    f = ("edges + mutual + gwesp(0.5, fixed=True) + triangle" if directed
         else "edges + nodematch('Grade') + gwesp(0.25, fixed=True) + triangle")
    m = ef.ERGM(g, f)
    theta = np.asarray(m.fit(method="mple", verbose=False).params)
    draws = []
    for dense in (True, False):
        cm = ERGMModel(NetworkState(g.n, g.directed, g.ties, dense=dense), m.kernels)
        s = MHSampler(cm, TriadicTNT(), seed_words(3))
        draws.append(s.sample(theta, 200, 1000, 100))
    assert np.array_equal(draws[0], draws[1])
    assert draws[0].std(axis=0).min() > 0
