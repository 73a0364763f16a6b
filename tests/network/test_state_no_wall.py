"""Two-path counts at any node count (issue #35 item 1): above 2^20 nodes and above the
``cache_memory`` bound they are counted on demand, with the same statistics and change
statistics as held counts; ``require_held`` names what would not fit."""
import numpy as np
import pytest

from ergmfit import ERGM
from ergmfit.exceptions import SettingsError
from ergmfit.network import Network, NetworkState
from ergmfit.network._state import CACHE_FLAGS, MAX_CACHE_NODES, cache_budget, set_cache_memory
from ergmfit.terms._ergm import ERGMModel

from support.clustered_arcs import clustered_arcs

FORMULA = "Arc + Reciprocity + AltInStars + AltOutStars + AltKTrianglesT + AltTwoPathsT"
DIRECTED_FLAGS = CACHE_FLAGS["otp"] | CACHE_FLAGS["osp"] | CACHE_FLAGS["isp"]


def test_statistics_above_two_to_the_twenty_nodes_equal_the_held_answer():
    arcs = clustered_arcs(0)
    n_big = MAX_CACHE_NODES + 5
    # the same arcs, half of the nodes relabelled to the top of 0..n_big-1
    labels = np.arange(300)
    labels[150:] = n_big - 150 + np.arange(150)
    big = ERGM(Network(n_big, labels[arcs], directed=True), FORMULA)
    small = ERGM(Network(300, arcs, directed=True), FORMULA)
    held = small.compiled().state
    assert held.caches and held.cached == held.caches           # the small one holds them
    np.testing.assert_array_equal(big.statistics_vector(), small.statistics_vector())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_counts_on_demand_give_identical_statistics_and_change_statistics(seed):
    arcs = clustered_arcs(seed)
    kernels = ERGM(Network(300, arcs, directed=True), FORMULA).kernels
    held = ERGMModel(NetworkState(300, True, arcs, dense=False), kernels)
    on_demand = ERGMModel(NetworkState(300, True, arcs, dense=False, cache_memory=0), kernels)
    assert held.state.caches and held.state.cached == held.state.caches
    assert on_demand.state.caches == held.state.caches and on_demand.state.cached == 0
    rng = np.random.default_rng(seed)
    for _ in range(300):
        i, j = (int(v) for v in rng.integers(0, 300, 2))
        if i == j:
            continue
        np.testing.assert_array_equal(held.dyad_change_stats(i, j),
                                      on_demand.dyad_change_stats(i, j))
        held.toggle(i, j)
        on_demand.toggle(i, j)
    # from the empty graph, tie by tie
    empty = [ERGMModel(NetworkState(300, True, dense=False, cache_memory=cm), kernels)
             for cm in (None, 0)]
    ties = held.state.ties()
    totals = [m.add_ties_accumulate(ties) for m in empty]
    np.testing.assert_array_equal(totals[0], totals[1])


def test_held_counts_that_outgrow_cache_memory_are_then_counted_on_demand():
    arcs = clustered_arcs(4)
    reference = NetworkState(300, True, arcs, caches=DIRECTED_FLAGS, cache_degree=0, dense=False)
    bounded = NetworkState(300, True, caches=DIRECTED_FLAGS, cache_degree=0, dense=False,
                           cache_memory=64 * 1024)
    assert bounded.cached == DIRECTED_FLAGS                       # empty: held
    for i, j in arcs:
        bounded.toggle_tie(int(i), int(j))
    assert bounded.cached == 0                                    # outgrew 64 KiB
    assert bounded.two_path_bytes[0] == 0
    assert reference.two_path_bytes[0] > 64 * 1024
    rng = np.random.default_rng(4)
    for kind in ("otp", "osp", "isp"):
        for a, b in rng.integers(0, 300, (200, 2)):
            if a != b:
                assert bounded.cache_count(kind, int(a), int(b)) == \
                    reference.cache_count(kind, int(a), int(b))


def test_require_held_names_what_does_not_fit():
    arcs = clustered_arcs(5)
    state = NetworkState(300, True, arcs, dense=False, cache_memory=1024)
    with pytest.raises(MemoryError, match="MiB, above the cache_memory setting"):
        state.enable_caches(DIRECTED_FLAGS, require_held=True)
    big = NetworkState(MAX_CACHE_NODES + 1, True, [(0, 1), (1, 2)])
    with pytest.raises(MemoryError, match="at most 1048576 nodes"):
        big.enable_caches(DIRECTED_FLAGS, require_held=True)
    big.enable_caches(DIRECTED_FLAGS)                             # on demand: fine
    assert big.cached == 0 and big.cache_count("otp", 0, 2) == 1
    roomy = NetworkState(300, True, arcs, dense=False)
    roomy.enable_caches(DIRECTED_FLAGS, require_held=True)        # fits: held at any degree
    assert roomy.cached == DIRECTED_FLAGS


def test_cache_memory_setting_is_checked_and_restorable():
    for bad in (-1, 1.5, "1G", True):
        with pytest.raises(SettingsError, match="cache memory"):
            set_cache_memory(bad)
    old = set_cache_memory(0)
    try:
        assert NetworkState(10, True).cache_memory == 0
    finally:
        set_cache_memory(old)
    # the default ("auto") is relative to the state's size: see test_cache_budget.py
    assert NetworkState(10, True).cache_memory == (old if old != "auto" else
                                                   cache_budget(10, 0, True))
