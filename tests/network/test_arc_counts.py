"""Per-arc two-path counts (issue #35): ``CACHE_AOTP`` holds M(a, b) = #{w: a->w->b} for each
arc a->b only, beside the tie list (4 bytes an arc), updated on every toggle.  AltKTrianglesT
reads nothing else (besides the toggled pair's own count), so the state holds them instead of
every pair's counts where those are not held; the counts, the change statistics and the chains
are the same integers and doubles as with held or on-demand pair counts."""
import numpy as np
import pytest

from ergmfit import ERGM
from ergmfit.network import Network, NetworkState
from ergmfit.network._state import CACHE_FLAGS
from ergmfit.terms._ergm import ERGMModel

AOTP, OTP = CACHE_FLAGS["aotp"], CACHE_FLAGS["otp"]
N = 300


def hub_arcs(seed):
    """Arcs on N nodes, 5 hubs of 40-200 out- and in-arcs, the rest of low degree: every way
    of intersecting two lists (compared, marked, probed, either list the longer) is taken."""
    rng = np.random.default_rng(seed)
    hubs = rng.choice(N, 5, replace=False)
    parts = [rng.integers(0, N, (1200, 2))]
    for h in hubs:
        k = rng.integers(40, 200)
        parts.append(np.column_stack([np.full(k, h), rng.integers(0, N, k)]))
        k = rng.integers(40, 200)
        parts.append(np.column_stack([rng.integers(0, N, k), np.full(k, h)]))
    arcs = np.concatenate(parts)
    return np.unique(arcs[arcs[:, 0] != arcs[:, 1]], axis=0), hubs


def check_arc_counts(state, A):
    M = A @ A
    for a, b in zip(*np.nonzero(A)):
        assert state.cache_count("aotp", int(a), int(b)) == M[a, b]


def test_arc_counts_follow_toggles_around_hubs_and_survive_copies():
    for seed in (1, 2):
        arcs, hubs = hub_arcs(seed)
        A = np.zeros((N, N), dtype=np.int64)
        A[arcs[:, 0], arcs[:, 1]] = 1
        first = NetworkState(N, True, caches=AOTP, dense=False)       # held from the empty graph
        for a, b in arcs:
            first.toggle_tie(int(a), int(b))
        later = NetworkState(N, True, arcs, dense=False)               # built from the ties
        later.enable_caches(AOTP)
        rng = np.random.default_rng(seed)
        for step in range(1500):
            a = int(hubs[rng.integers(5)]) if step % 2 else int(rng.integers(N))
            b = int(rng.integers(N)) if rng.random() < 0.6 else int(hubs[rng.integers(5)])
            if a == b:
                continue
            a, b = (a, b) if step % 3 else (b, a)
            for s in (first, later):
                s.toggle_tie(a, b)
            A[a, b] ^= 1
        for s in (first, later, later.copy()):
            assert s.cached == AOTP and not s.dense                 # per-arc counts, no pairs'
            check_arc_counts(s, A)
        assert first.two_path_bytes[0] < 8 * 4 * A.sum()            # 4 bytes an arc (capacity)


def test_arc_counts_built_from_ties_grouped_by_tail_or_not():
    # a tie array grouped by tail (each tail's arcs in one run: read in the tie list's
    # order, no tie-map probe per arc) and the same arcs shuffled (probed): the same counts;
    # then toggles keep them right in both
    arcs, hubs = hub_arcs(3)
    A = np.zeros((N, N), dtype=np.int64)
    A[arcs[:, 0], arcs[:, 1]] = 1
    rng = np.random.default_rng(3)
    runs = [arcs[arcs[:, 0] == a] for a in rng.permutation(np.unique(arcs[:, 0]))]
    grouped = np.concatenate([r[rng.permutation(len(r))] for r in runs])   # unsorted runs
    shuffled = arcs[rng.permutation(len(arcs))]
    assert np.count_nonzero(np.diff(shuffled[:, 0])) + 1 > len(runs)       # not grouped
    states = [NetworkState(N, True, t, dense=False) for t in (arcs, grouped, shuffled)]
    for s in states:
        s.enable_caches(AOTP)
        assert s.cached == AOTP
        check_arc_counts(s, A)
    for a, b in [(int(hubs[0]), 7), (3, int(hubs[1])), (int(arcs[0, 0]), int(arcs[0, 1]))]:
        if a != b:
            for s in states:
                s.toggle_tie(a, b)
            A[a, b] ^= 1
    for s in states:
        check_arc_counts(s, A)


def test_altktrianglest_on_arc_counts_equals_held_and_on_demand_pair_counts():
    arcs, hubs = hub_arcs(3)
    kernels = ERGM(Network(N, arcs, directed=True), "AltKTrianglesT + AltTwoPathsT").kernels
    akt = kernels[:1]
    arc = ERGMModel(NetworkState(N, True, arcs, dense=False), akt)
    held = ERGMModel(NetworkState(N, True, arcs, dense=False, cache_memory=2 ** 30), kernels)
    demand = ERGMModel(NetworkState(N, True, arcs, dense=False, cache_memory=0), akt)
    assert arc.state.cached == AOTP
    assert held.state.cached & OTP and demand.state.cached == 0
    rng = np.random.default_rng(3)
    for step in range(600):
        i = int(hubs[rng.integers(5)]) if step % 3 else int(rng.integers(N))
        for _ in range(3):
            j = int(rng.integers(N)) if rng.random() < 0.7 else int(hubs[rng.integers(5)])
            if j == i:
                continue
            a, b = (i, j) if step % 2 else (j, i)
            want = demand.dyad_change_stats(a, b)[0]
            assert arc.dyad_change_stats(a, b)[0] == want == held.dyad_change_stats(a, b)[0]
        k = int(rng.integers(N))
        if k != i:
            a, b = (i, k) if rng.random() < 0.5 else (k, i)
            for m in (arc, held, demand):
                m.toggle(a, b)
    # from the empty graph, tie by tie: the same statistic
    totals = [ERGMModel(NetworkState(N, True, dense=False, cache_memory=cm), akt)
              .add_ties_accumulate(arcs) for cm in (None, 0)]
    np.testing.assert_array_equal(totals[0], totals[1])


def test_budget_rule_chooses_by_the_terms_and_the_memory_setting():
    arcs, _ = hub_arcs(4)
    net = Network(N, arcs, directed=True)

    def state(formula, **kw):
        return ERGMModel(NetworkState(N, True, arcs, dense=False, **kw),
                         ERGM(net, formula).kernels).state

    # arcs' counts only: per-arc counts, never every pair's
    assert state("Arc + AltKTrianglesT").cached == AOTP
    # a term that reads any pair's count: every pair's counts held where they fit, and
    # AltKTrianglesT reads its arcs' counts from them
    six = "Arc + Reciprocity + AltInStars + AltOutStars + AltKTrianglesT + AltTwoPathsT"
    both = state(six)
    assert both.cached & OTP and both.cached & AOTP
    # pairs' counts that do not fit: counted on demand, the arcs' still held
    arcs_bytes = state("AltKTrianglesT").two_path_bytes[0]
    tight = state(six, cache_memory=2 * arcs_bytes)
    assert tight.cached == AOTP and tight.two_path_bytes[1] > 2 * arcs_bytes
    # nothing fits: everything on demand
    assert state(six, cache_memory=0).cached == 0
    assert state("AltKTrianglesT", cache_memory=arcs_bytes // 2).cached == 0


def test_require_held_names_the_bytes_of_the_arc_counts():
    # per-arc counts that do not fit the setting: a clear error with require_held, on demand
    # without it; no node-count limit (they are indexed by arc, not by pair)
    arcs, _ = hub_arcs(5)
    tight = NetworkState(N, True, arcs, dense=False, cache_memory=1024)
    with pytest.raises(MemoryError, match=r"may need [0-9,]+ bytes = 0\.0[0-9] MiB, above the "
                                          r"cache_memory setting \(1,024 bytes\)"):
        tight.enable_caches(AOTP, require_held=True)
    tight.enable_caches(AOTP)
    assert tight.cached == 0
    roomy = NetworkState(N, True, arcs, dense=False)
    roomy.enable_caches(AOTP, require_held=True)
    assert roomy.cached == AOTP


def test_arc_counts_follow_toggles_made_right_after_their_change_statistics():
    # as in an MH or EE step: the change statistic of a pair (whose kernel marks a hub's
    # list), then the toggle of that very pair, whose count update reads those marks
    for seed in (6, 7):
        arcs, hubs = hub_arcs(seed)
        A = np.zeros((N, N), dtype=np.int64)
        A[arcs[:, 0], arcs[:, 1]] = 1
        akt = ERGM(Network(N, arcs, directed=True), "AltKTrianglesT").kernels
        arc = ERGMModel(NetworkState(N, True, arcs, dense=False), akt)
        demand = ERGMModel(NetworkState(N, True, arcs, dense=False, cache_memory=0), akt)
        assert arc.state.cached == AOTP
        rng = np.random.default_rng(seed)
        for step in range(2000):
            h = int(hubs[rng.integers(5)])
            k = int(rng.integers(N))
            if h == k:
                continue
            a, b = (h, k) if step % 2 else (k, h)
            assert arc.dyad_change_stats(a, b)[0] == demand.dyad_change_stats(a, b)[0]
            arc.toggle(a, b)
            demand.toggle(a, b)
            A[a, b] ^= 1
        check_arc_counts(arc.state, A)
