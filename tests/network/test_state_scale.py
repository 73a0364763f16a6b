"""The network state on both sides of the dense/hash storage switch (issue #21):
two-path counts on demand equal held ones, set-up is presized, and tie removal keeps
the neighbour blocks' tie indices right."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ergmfit.network import NetworkState
from ergmfit.network._state import DENSE_MAX_NODES

KINDS = {False: ("sp",), True: ("otp", "osp", "isp")}


@settings(max_examples=25, deadline=None)
@given(directed=st.booleans(), extra=st.integers(-3, 3), seed=st.integers(0, 2**31 - 1),
       n_toggles=st.integers(0, 400))
def test_counts_on_demand_equal_held_counts_across_the_storage_switch(directed, extra, seed,
                                                                      n_toggles):
    n = DENSE_MAX_NODES + extra
    rng = np.random.default_rng(seed)
    hub = 40                    # ties among few nodes, so that pairs share partners
    flags = 14 if directed else 1
    states = [NetworkState(n, directed, caches=flags, cache_degree=cd, dense=dense)
              for dense in (None, False) for cd in (0, 32)]
    assert [s.cached for s in states] == [flags, 0, flags, 0]
    for _ in range(n_toggles):
        i, j = rng.integers(0, hub, 2)
        if rng.random() < 0.1:
            j = rng.integers(0, n)
        if i != j:
            for s in states:
                s.toggle_tie(int(i), int(j))
    ties = sorted(map(tuple, states[0].ties()))
    for s in states[1:]:
        assert sorted(map(tuple, s.ties())) == ties
    pairs = [(int(a), int(b)) for a, b in rng.integers(0, hub, (60, 2)) if a != b]
    for kind in KINDS[directed]:
        for a, b in pairs:
            counts = {s.cache_count(kind, a, b) for s in states}
            assert len(counts) == 1, (kind, a, b, counts)


def test_setup_is_presized_and_removal_keeps_tie_indices():
    rng = np.random.default_rng(5)
    n = 20_000
    ties = np.unique(np.sort(rng.integers(0, n, (50_000, 2)), axis=1), axis=0)
    ties = ties[ties[:, 0] != ties[:, 1]]
    built = NetworkState(n, False, ties)
    grown = NetworkState(n, False)
    for i, j in ties:
        grown.toggle_tie(int(i), int(j))
    assert not built.dense
    # from an array: room for exactly these ties (no growth): the grown state has at least
    # its tie list's slack (grown by an eighth past the ties; 8 bytes a tie) more (its tie
    # map, grown by doubling since the 8-byte slots, may be as large as the presized one)
    cap = 16
    while cap < len(ties):
        cap += max(4, cap >> 3)
    slack = 8 * (cap - len(ties))
    assert slack > 0
    assert grown.memory_bytes() - built.memory_bytes() >= slack
    # remove half in random order: tie list and neighbour blocks stay consistent
    for k in rng.permutation(len(ties))[: len(ties) // 2]:
        built.toggle_tie(int(ties[k, 1]), int(ties[k, 0]))
        assert not built.has(int(ties[k, 0]), int(ties[k, 1]))
    left = built.ties()
    assert len(left) == len(ties) - len(ties) // 2
    deg = np.bincount(left.ravel(), minlength=n)
    assert np.array_equal(built.out_degrees(), deg)
    for v in rng.integers(0, n, 200):
        want = np.concatenate([left[left[:, 0] == v, 1], left[left[:, 1] == v, 0]])
        assert sorted(built.out_neighbors(int(v))) == sorted(want)
    for i, j in left[:500]:
        built.toggle_tie(int(i), int(j))      # each removal finds its tie index
    assert built.num_ties == len(left) - 500


def test_hash_storage_scans_mid_length_lists_as_the_bitmap_counts():
    # degrees 9..40 take the direct list comparison on hash storage (scan_cheaper)
    # and the bitmap on dense storage: the change statistics must agree exactly
    import networkx as nx
    import ergmfit as ef
    from ergmfit.terms._ergm import ERGMModel
    g = nx.gnp_random_graph(120, 0.18, seed=4)
    net = ef.Network(120, list(g.edges()), directed=False)
    m = ef.ERGM(net, "edges + gwesp(0.5, fixed=TRUE) + esp(0:3) + triangle")
    rng = np.random.default_rng(2)
    v = rng.integers(0, 120 * 119 // 2, 3000).astype(np.int64)
    got = [ERGMModel(NetworkState(120, False, net.ties, dense=dense), m.kernels).change_matrix(v)
           for dense in (True, False)]
    degs = np.bincount(net.ties.ravel())
    assert degs.min() > 8 and degs.max() <= 40
    assert np.array_equal(got[0], got[1])
    assert got[0][:, 1].std() > 0


def test_alternating_k_triangles_on_hash_storage_equal_dense():
    # mid-length lists take the direct scan, hub lists (> 64 entries) the chunked,
    # prefetched hash probes: both must give the bitmap's change statistics
    import networkx as nx
    import ergmfit as ef
    from ergmfit.terms._ergm import ERGMModel
    n = 300
    g = nx.gnp_random_graph(n, 0.05, seed=6, directed=True)
    g.add_edges_from((0, v) for v in range(1, 250))
    g.add_edges_from((v, 1) for v in range(2, 200))
    net = ef.Network(n, list(g.edges()), directed=True)
    from ergmfit.terms._coreterms import AltKTrianglesTKernel
    rng = np.random.default_rng(3)
    on = ERGMModel(NetworkState(n, True, net.ties), [AltKTrianglesTKernel(2.0)]).on_vars()
    v = np.concatenate([rng.integers(0, n * (n - 1), 2000), on[rng.integers(0, len(on), 2000)],
                        np.arange(0, n - 1), np.arange(n - 1, 2 * (n - 1))]).astype(np.int64)
    got = [ERGMModel(NetworkState(n, True, net.ties, dense=dense),
                     [AltKTrianglesTKernel(2.0)]).change_matrix(v) for dense in (True, False)]
    assert np.array_equal(got[0], got[1])
    assert got[0].std() > 0
