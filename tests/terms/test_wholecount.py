"""Whole-network counts of the directed alternating statistics (issue #35; ergmfit.terms.wholecount):
equal to the kernels' tie-by-tie count and to an independent numpy count, and used by
ERGM.statistics_vector on large networks."""
import numpy as np
import pytest

import ergmfit as ef
import ergmfit.terms.wholecount as wc
from ergmfit.terms._wholecount import mutual_count, two_path_sums

ALL = ("AltKTrianglesT + AltKTrianglesC + AltKTrianglesD + AltKTrianglesU + AltTwoPathsT + "
       "AltTwoPathsD + AltTwoPathsU + AltTwoPathsTD + AltKTrianglesT(3.5) + AltTwoPathsT(1.25) + "
       "AltKTrianglesC(5)")


def _arcs(n, m, seed, hub=True):
    """Random directed arcs with many mutual pairs and (``hub``) a node tied to half the rest."""
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, n * n, m)
    pairs = np.stack([keys // n, keys % n], axis=1)
    pairs = np.concatenate([pairs, pairs[: m // 3, ::-1]])          # mutual dyads
    if hub:
        others = rng.choice(np.arange(1, n), n // 2, replace=False)
        pairs = np.concatenate([pairs, np.stack([np.zeros_like(others), others], 1),
                                np.stack([others[::2], np.zeros_like(others[::2])], 1)])
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    return np.unique(pairs, axis=0)


def numpy_counts(n, arcs, lam):
    """The eight statistics at ``lam`` from dense matrix products (an independent count)."""
    A = np.zeros((n, n))
    A[arcs[:, 0], arcs[:, 1]] = 1.0
    f = lambda c: lam * (1.0 - (1.0 - 1.0 / lam) ** c)    # noqa: E731
    off = ~np.eye(n, dtype=bool)
    M, O, I = A @ A, A.T @ A, A @ A.T       # a->w->b, w->a & w->b, a->w & b->w
    akt_t, akt_c = np.sum(A * f(M)), np.sum(A.T * f(M))
    akt_d, akt_u = np.sum(A * f(O)), np.sum(A * f(I))
    a2p_t, a2p_d, a2p_u = (np.sum(f(X)[off]) for X in (M, O, I))
    return np.array([akt_t, akt_c, akt_d, akt_u, a2p_t, a2p_d / 2, a2p_u / 2,
                     a2p_t / 2 + a2p_d / 4])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_counts_equal_the_kernels_and_a_numpy_count(seed):
    n = 90
    arcs = _arcs(n, 700, seed)
    model = ef.ERGM(ef.Network(n, arcs, True), ALL)
    assert n < wc.WHOLE_COUNT_NODES             # the kernels' tie-by-tie count below
    kernels_count = model.statistics_vector()
    whole = wc.whole_counts(n, model.network.ties, model.kernels)
    np.testing.assert_allclose(whole, kernels_count, rtol=1e-12)
    expected = numpy_counts(n, arcs, 2.0)
    np.testing.assert_allclose(whole[:8], expected, rtol=1e-12)
    np.testing.assert_allclose(whole[8], numpy_counts(n, arcs, 3.5)[0], rtol=1e-12)
    np.testing.assert_allclose(whole[9], numpy_counts(n, arcs, 1.25)[4], rtol=1e-12)
    np.testing.assert_allclose(whole[10], numpy_counts(n, arcs, 5.0)[1], rtol=1e-12)


def test_the_checks_see_a_count_that_includes_the_pairs_of_a_node_with_itself():
    # a variant that forgot b != a (a->w->a through a mutual dyad; a's own in-neighbours for O)
    # or mixed up the two steps is far off these checks, not within rounding
    n = 90
    arcs = _arcs(n, 700, 1)
    A = np.zeros((n, n))
    A[arcs[:, 0], arcs[:, 1]] = 1.0
    whole = wc.whole_counts(n, arcs, ef.ERGM(ef.Network(n, arcs, True), ALL).kernels)
    f = lambda c: 2.0 * (1.0 - 0.5 ** c)          # noqa: E731
    with_diagonal = np.sum(f(A @ A))
    assert abs(with_diagonal - whole[4]) > 1e-3 * whole[4]
    swapped = np.sum(A * f(A.T @ A))              # O for M
    assert abs(swapped - whole[0]) > 1e-3 * whole[0]


def test_statistics_vector_counts_the_alternating_terms_whole_at_large_n(monkeypatch):
    n = 120
    arcs = _arcs(n, 1500, 4)
    net = ef.Network(n, arcs, True)
    formula = "edges + mutual + istar(2:3) + AltKTrianglesT + AltTwoPathsT(3) + ostar(2) + " \
              "AltTwoPathsU"
    by_ties = ef.ERGM(net, formula).statistics_vector()
    calls = []
    original = wc.whole_counts

    def counting(*args):
        calls.append(args[2])
        return original(*args)
    import ergmfit.model
    monkeypatch.setattr(ergmfit.model, "whole_counts", counting)
    monkeypatch.setattr(wc, "WHOLE_COUNT_NODES", n)
    whole = ef.ERGM(net, formula).statistics_vector()
    assert [type(k).__name__ for k in calls[0]] == ["EdgesKernel", "MutualKernel",
                                                    "AltKTrianglesTKernel", "AltTwoPathsTKernel",
                                                    "AltTwoPathsUKernel"]
    np.testing.assert_allclose(whole, by_ties, rtol=1e-12)
    # of other ties (a sample's) as well
    other = _arcs(n, 1200, 5, hub=False)
    np.testing.assert_allclose(ef.ERGM(net, formula).statistics_vector(other),
                               numpy_like := ef.ERGM(ef.Network(n, other, True),
                                                     formula).statistics_vector(), rtol=1e-12)
    assert len(calls) == 3 and numpy_like[0] == len(other)
    # only the alternating terms: nothing left to count tie by tie
    only = ef.ERGM(net, "AltKTrianglesD + AltTwoPathsTD").statistics_vector()
    np.testing.assert_allclose(only, numpy_counts(n, arcs, 2.0)[[2, 7]], rtol=1e-12)
    # a network below the size keeps the kernels' count
    monkeypatch.setattr(wc, "WHOLE_COUNT_NODES", n + 1)
    ef.ERGM(net, formula).statistics_vector()
    assert len(calls) == 4


def test_two_path_sums_checks_its_arrays():
    ptr, idx = np.array([0, 1, 2, 2], np.int64), np.array([1, 2], np.int32)
    ok = dict(ftab=np.array([[0.0, 1.0, 2.0]]))
    args = (3, ptr, idx, ptr, idx, ptr, idx, ptr, idx)
    np.testing.assert_array_equal(two_path_sums(*args, **ok), [[1.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="n \\+ 1"):
        two_path_sums(4, *args[1:], **ok)
    with pytest.raises(ValueError, match="outside"):
        two_path_sums(3, ptr, np.array([1, 5], np.int32), *args[3:], **ok)
    with pytest.raises(ValueError, match="columns"):
        two_path_sums(*args, ftab=np.array([[0.0]]))
    with pytest.raises(ValueError, match="cannot count"):
        wc.whole_counts(3, np.array([[0, 1]]), [object()])


@pytest.mark.parametrize("seed", [1, 2])
def test_arc_sums_without_the_pairs_equal_the_full_pass(seed):
    # pairs=False (stamped counters, no list of the pairs reached): the same sums over arcs,
    # bit for bit, for each kind of two-path; the sum over pairs is left at 0
    from ergmfit.network.rows import neighbour_rows
    n = 300
    arcs = _arcs(n, 2500, seed)
    out = neighbour_rows(n, arcs[:, 0], arcs[:, 1], np.int32)
    inn = neighbour_rows(n, arcs[:, 1], arcs[:, 0], np.int32)
    ftab = np.array([lam * (1 - (1 - 1 / lam) ** np.arange(n)) for lam in (2.0, 3.5)])
    ftab[:, 0] = 0.0
    for first, second in ((out, out), (inn, out), (out, inn)):
        full = two_path_sums(n, *first, *second, *out, *inn, ftab)
        arcs_only = two_path_sums(n, *first, *second, *out, *inn, ftab, pairs=False)
        assert full[:, 0].min() > 0 and (arcs_only[:, 0] == 0).all()
        np.testing.assert_array_equal(arcs_only[:, 1:], full[:, 1:])


def test_edges_and_alternating_stars_are_counted_from_degrees_bit_for_bit(monkeypatch):
    # EstimNet's Epinions model: every term counted whole, no network state for the observed
    # statistics (it was the statistics phase's largest allocation); the degree-counted
    # terms give the very doubles of the tie-by-tie count (same sums in the same order)
    import ergmfit.model
    n = 150
    arcs = _arcs(n, 1800, 6)
    arcs = arcs[np.random.default_rng(7).permutation(len(arcs))]     # not sorted by tail
    net = ef.Network(n, arcs, True)
    formula = ("Arc + AltInStars + AltOutStars(3.5) + AltKTrianglesT + AltInStars(1.25) + "
               "Reciprocity")
    by_ties = ef.ERGM(net, formula).statistics_vector()
    monkeypatch.setattr(wc, "WHOLE_COUNT_NODES", n)

    def no_state(*args):
        raise AssertionError("a network state was built for the observed statistics")
    monkeypatch.setattr(ergmfit.model.ERGM, "_accumulate_by_ties", no_state)
    whole = ef.ERGM(net, formula).statistics_vector()
    assert whole[[0, 1, 2, 4, 5]].tobytes() == by_ties[[0, 1, 2, 4, 5]].tobytes()
    A = np.zeros((n, n), dtype=int)
    A[arcs[:, 0], arcs[:, 1]] = 1
    assert whole[5] == np.sum(A * A.T) // 2 > 0               # mutual dyads, counted apart
    np.testing.assert_allclose(whole[3], by_ties[3], rtol=1e-12)
    # a tie outside the nodes or a self-loop: the errors of the tie-by-tie count
    with pytest.raises(IndexError, match="outside 0..149"):
        ef.ERGM(net, formula).statistics_vector([[0, 1], [3, 150]])
    with pytest.raises(ValueError, match="self-loops"):
        ef.ERGM(net, formula).statistics_vector([[0, 1], [3, 3]])
    # terms that read more than degrees stay tie by tie (altkstar on an undirected network
    # is not counted here: whole counts are for directed networks)
    assert not wc.countable(ef.ERGM(net, "istar(2)").kernels[0])
    assert wc.countable(ef.ERGM(net, "AltOutStars").kernels[0])


def test_mutual_count_equals_a_matrix_count_and_checks_its_arcs():
    for seed, n in [(1, 90), (2, 7), (3, 300)]:
        arcs = _arcs(n, 4 * n, seed)
        A = np.zeros((n, n), dtype=int)
        A[arcs[:, 0], arcs[:, 1]] = 1
        assert mutual_count(n, arcs[:, 0], arcs[:, 1]) == np.sum(A * A.T) // 2
    empty = np.zeros(0, np.int64)
    assert mutual_count(5, empty, empty) == 0
    with pytest.raises(ValueError, match="outside 0..4"):
        mutual_count(5, np.array([0, 1]), np.array([1, 5]))
