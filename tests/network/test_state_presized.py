"""Held two-path count maps sized once for their distinct pairs (issue #35 item 2, EE memory):
built from existing ties or reserved before ties are added one by one (the statistics
accumulated from the empty network), no map grows, so the old and new slots of a growing map
are never held at once; the counts are the same as counted on demand."""
import numpy as np
import pytest

from ergmfit import ERGM
from ergmfit.network import Network, NetworkState
from ergmfit.network._state import CACHE_FLAGS

N = 5000        # above the dense storage's 4,096 nodes: hash maps
DIRECTED_FLAGS = CACHE_FLAGS["otp"] | CACHE_FLAGS["osp"] | CACHE_FLAGS["isp"]


def map_bytes(pairs):
    """Bytes of a count map sized for ``pairs`` distinct pairs and an eighth more."""
    expected = pairs + pairs // 8 + 16
    cap = 16
    while cap * 3 < 4 * expected + 4:
        cap *= 2
    return 8 * cap


def layered_arcs(a=40, w=40, b=40, seed=0):
    """Every node of A -> every node of W -> every node of B, plus a few random arcs: many
    two-paths (a x w x b) over few distinct pairs (a x b)."""
    A, W, B = np.arange(a), a + np.arange(w), a + w + np.arange(b)
    arcs = [(i, j) for i in A for j in W] + [(i, j) for i in W for j in B]
    rng = np.random.default_rng(seed)
    extra = rng.integers(0, N, (300, 2))
    arcs = np.unique(np.concatenate([np.array(arcs), extra[extra[:, 0] != extra[:, 1]]]), axis=0)
    return arcs


@pytest.mark.parametrize("seed", [0, 1])
def test_maps_built_from_ties_are_sized_for_their_distinct_pairs(seed):
    arcs = layered_arcs(seed=seed)
    held = NetworkState(N, True, arcs)
    held.enable_caches(DIRECTED_FLAGS, require_held=True)
    sizes = held.cache_sizes()
    # 40 x 40 (a, b) pairs through 40 middles each: the old sizing (4 pairs a tie) held
    # 32,768 slots for the otp map, where its 2,100-odd pairs need 4,096
    assert sizes["otp"] < 2500
    assert held.two_path_bytes[0] == sum(map_bytes(sizes[k]) for k in ("otp", "osp", "isp"))


@pytest.mark.parametrize("seed", [0, 1])
def test_reserved_maps_never_grow_while_ties_are_added(seed):
    arcs = layered_arcs(seed=seed)
    arcs = arcs[np.random.default_rng(seed).permutation(len(arcs))]
    state = NetworkState(N, True, cache_degree=0.0)
    state.enable_caches(DIRECTED_FLAGS, require_held=True)
    state.reserve_two_paths(arcs)
    reserved = state.two_path_bytes[0]
    for i, j in arcs:
        state.toggle_tie(int(i), int(j))
        assert state.two_path_bytes[0] == reserved
    sizes = state.cache_sizes()
    assert reserved == sum(map_bytes(sizes[k]) for k in ("otp", "osp", "isp"))
    full = NetworkState(N, True, arcs, cache_memory=0)        # counted on demand
    full.enable_caches(DIRECTED_FLAGS)
    rng = np.random.default_rng(seed)
    pairs = np.concatenate([arcs[:200], rng.integers(0, 120, (200, 2))])
    for kind in ("otp", "osp", "isp"):
        for i, j in pairs:
            if i != j:
                assert state.cache_count(kind, int(i), int(j)) == \
                    full.cache_count(kind, int(i), int(j))


def test_reserve_ignores_states_it_does_not_concern():
    arcs = layered_arcs()
    on_demand = NetworkState(N, True)          # nothing held: nothing to size
    on_demand.enable_caches(DIRECTED_FLAGS)
    on_demand.reserve_two_paths(arcs)
    assert on_demand.two_path_bytes[0] == 0
    held = NetworkState(N, True, arcs[:10], cache_degree=0.0)      # not empty: unchanged
    held.enable_caches(DIRECTED_FLAGS, require_held=True)
    before = held.two_path_bytes[0]
    held.reserve_two_paths(arcs)
    assert held.two_path_bytes[0] == before


def test_undirected_shared_partner_map_and_statistics():
    rng = np.random.default_rng(3)
    edges = np.unique(np.sort(rng.integers(0, 200, (3000, 2)), axis=1), axis=0)
    edges = edges[edges[:, 0] != edges[:, 1]]
    state = NetworkState(N, False, edges, cache_degree=0.0)
    state.enable_caches(CACHE_FLAGS["sp"], require_held=True)
    assert state.two_path_bytes[0] == map_bytes(state.cache_sizes()["sp"])
    net = Network(N, edges, directed=False)
    held = ERGM(net, "edges + gwesp(0.5, fixed=TRUE) + gwdsp(0.5, fixed=TRUE)")
    from ergmfit.network._state import set_cache_memory
    old = set_cache_memory(0)
    try:
        on_demand = ERGM(net, "edges + gwesp(0.5, fixed=TRUE) + gwdsp(0.5, fixed=TRUE)")
        expected = on_demand.statistics_vector()
    finally:
        set_cache_memory(old)
    np.testing.assert_allclose(held.statistics_vector(), expected, rtol=1e-12)
