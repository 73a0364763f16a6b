"""Two-path counts on demand by marks (issue #35): a kernel marks the list of the end its counts
share (``NetworkState.mark_out`` / ``mark_in``, kept for one state version) and each count scans
the other list against the marks; single counts mark the shorter list in scratch marks, or probe
the tie map where one list is more than ``MARK_RATIO`` times the other.  Every path must give the
held counts' change statistics exactly, also right after a toggle changed a marked list."""
import numpy as np

from ergmfit import ERGM
from ergmfit.network import Network, NetworkState
from ergmfit.terms._ergm import ERGMModel

FORMULA = ("AltKTrianglesT + AltKTrianglesC + AltKTrianglesD + AltKTrianglesU + AltTwoPathsT"
           " + AltTwoPathsD + AltTwoPathsU + AltTwoPathsTD + Reciprocity")
N = 400


def hub_arcs(seed):
    """Arcs on N nodes: 6 hubs sending and receiving 60-250 arcs, the rest of degree 1-12, so
    that one list is often more (and often less) than 16 times the other."""
    rng = np.random.default_rng(seed)
    hubs = rng.choice(N, 6, replace=False)
    parts = []
    for h in hubs:
        k = rng.integers(60, 250)
        parts.append(np.column_stack([np.full(k, h), rng.integers(0, N, k)]))
        k = rng.integers(60, 250)
        parts.append(np.column_stack([rng.integers(0, N, k), np.full(k, h)]))
    parts.append(rng.integers(0, N, (1500, 2)))
    arcs = np.concatenate(parts)
    arcs = arcs[arcs[:, 0] != arcs[:, 1]]
    return np.unique(arcs, axis=0), hubs


def models(seed):
    arcs, hubs = hub_arcs(seed)
    kernels = ERGM(Network(N, arcs, directed=True), FORMULA).kernels
    held = ERGMModel(NetworkState(N, True, arcs, dense=False, cache_memory=2 ** 30), kernels)
    marks = ERGMModel(NetworkState(N, True, arcs, dense=False, cache_memory=0), kernels)
    assert held.state.cached == held.state.caches != 0
    assert marks.state.cached == 0 and not marks.state.dense
    return held, marks, hubs


def test_marked_counts_equal_held_counts_around_hubs_and_after_toggles():
    for seed in (1, 2):
        held, marks, hubs = models(seed)
        rng = np.random.default_rng(seed)
        for step in range(400):
            # the same tail (or head) several times running, hubs often: marks are reused
            # while the state is unchanged and must be renewed after any toggle
            i = int(hubs[rng.integers(6)]) if step % 3 else int(rng.integers(N))
            for _ in range(3):
                j = int(rng.integers(N)) if rng.random() < 0.7 else int(hubs[rng.integers(6)])
                if j == i:
                    continue
                a, b = (i, j) if step % 2 else (j, i)
                np.testing.assert_array_equal(marks.dyad_change_stats(a, b),
                                              held.dyad_change_stats(a, b))
            k = int(rng.integers(N))
            if k != i:                        # a toggle at the marked node (its list changes)
                a, b = (i, k) if rng.random() < 0.5 else (k, i)
                held.toggle(a, b)
                marks.toggle(a, b)


def test_marked_counts_accumulate_the_held_statistics_from_the_empty_graph():
    arcs, _ = hub_arcs(3)
    kernels = ERGM(Network(N, arcs, directed=True), FORMULA).kernels
    totals = [ERGMModel(NetworkState(N, True, dense=False, cache_memory=cm), kernels)
              .add_ties_accumulate(arcs) for cm in (2 ** 30, 0)]
    np.testing.assert_array_equal(totals[0], totals[1])
