"""Whole-network counts of statistics whose tie-by-tie count is slow at large n (issue #35).

:meth:`ergmfit.ERGM.statistics_vector` counts a network's statistics by adding its ties one by
one to an empty state and summing the kernels' change statistics.  For EstimNet's directed
alternating k-triangles and two-paths every toggle reads two-path counts, held in hash maps or
counted on demand: at Pokec's size (1.6 M nodes, 30.6 M arcs, 8.4 x 10^9 two-paths) that count
takes hours.  Their statistics are sums of f(c) = lambda (1 - q^c), q = 1 - 1/lambda, over the
two-path counts c of pairs or of arcs, and one pass over the two-paths gives them all
(:func:`ergmfit.terms._wholecount.two_path_sums`, compiled: a dense scratch array of n
counters per source node, O(two-paths)):

==================  ===========================================================
AltKTrianglesT      sum over arcs a->b of f(M(a, b)),  M(a, b) = #{w: a->w->b}
AltKTrianglesC      sum over arcs b->a of f(M(a, b))
AltKTrianglesD      sum over arcs a->b of f(O(a, b)),  O(a, b) = #{w: w->a, w->b}
AltKTrianglesU      sum over arcs a->b of f(I(a, b)),  I(a, b) = #{w: a->w, b->w}
AltTwoPathsT        sum over ordered pairs of f(M)
AltTwoPathsD / U    half the sum over ordered pairs of f(O) / f(I)
AltTwoPathsTD       half AltTwoPathsT plus half AltTwoPathsD
==================  ===========================================================

The model counts these terms this way on networks of at least :data:`WHOLE_COUNT_NODES` nodes
(below it the tie-by-tie count is fast and keeps the values bit for bit); the other terms of
the formula are still counted tie by tie, without two-path caches.  Both counts give the same
statistics up to rounding (``tests/terms/test_wholecount.py``: 1e-12).

Terms whose change statistics read only the degrees of the tie's ends, and ``mutual``, are
counted here as well (:data:`DEGREE_COUNTED`), from one counter per node instead of a second
network state (on Epinions that state was the largest allocation of the observed statistics,
31 MB):

==================  ===========================================================
Arc / edges         the number of arcs
Reciprocity/mutual  the number of mutual dyads (:func:`~ergmfit.terms._wholecount.mutual_count`)
AltInStars          sum over arcs, in order, of lambda (1 - q^d), d the head's in-degree so far
AltOutStars         the same with the tail's out-degree
==================  ===========================================================

in the order and with the floating-point operations of the tie-by-tie count (the same doubles,
:func:`ergmfit.terms._wholecount.degree_sums`).  When every term of a formula is counted here, no
network state is built for the observed statistics at all.
"""
import numpy as np

from ._coreterms import (
    MODE_IN, MODE_OUT, AltStarKernel, EdgesKernel, MutualKernel, AltKTrianglesCKernel, AltKTrianglesDKernel, AltKTrianglesTKernel, AltKTrianglesUKernel,
    AltTwoPathsDKernel, AltTwoPathsTDKernel, AltTwoPathsTKernel, AltTwoPathsUKernel,
)
from ..network.rows import neighbour_rows
from ._wholecount import degree_sums, mutual_count, two_path_sums

#: networks with at least this many nodes count the terms of :data:`WHOLE_COUNTS` by
#: :func:`whole_counts` (the Pokec benchmark's network, Epinions, ...)
WHOLE_COUNT_NODES = 1 << 12

_PAIRS, _OUT, _IN = 0, 1, 2
#: kernel class -> its statistic as [(two-path kind, which sum, factor), ...]; the kinds are
#: "M" (out then out), "O" (in then out), "I" (out then in)
WHOLE_COUNTS = {
    AltKTrianglesTKernel: [("M", _OUT, 1.0)],
    AltKTrianglesCKernel: [("M", _IN, 1.0)],
    AltKTrianglesDKernel: [("O", _OUT, 1.0)],
    AltKTrianglesUKernel: [("I", _OUT, 1.0)],
    AltTwoPathsTKernel: [("M", _PAIRS, 1.0)],
    AltTwoPathsDKernel: [("O", _PAIRS, 0.5)],
    AltTwoPathsUKernel: [("I", _PAIRS, 0.5)],
    AltTwoPathsTDKernel: [("M", _PAIRS, 0.5), ("O", _PAIRS, 0.25)],
}


#: kernel classes counted from the degrees (directed networks): edges, mutual, and AltInStars /
#: AltOutStars (:class:`AltStarKernel` of mode in or out)
DEGREE_COUNTED = (EdgesKernel, MutualKernel, AltStarKernel)


def _degree_column(kernel):
    """The tie column whose running degree ``kernel`` reads (1 heads, 0 tails), None for
    edges, "mutual" for mutual, -1 if it is not counted here."""
    if type(kernel) is EdgesKernel:
        return None
    if type(kernel) is MutualKernel:
        return "mutual"
    if type(kernel) is AltStarKernel and kernel.mode in (MODE_IN, MODE_OUT):
        return 1 if kernel.mode == MODE_IN else 0
    return -1


def countable(kernel) -> bool:
    """Whether :func:`whole_counts` counts the statistic of ``kernel``."""
    return type(kernel) in WHOLE_COUNTS or _degree_column(kernel) != -1


def whole_counts(n, ties, kernels):
    """The statistics of the directed network ``ties`` ((m, 2) int array, no repeated arcs or
    self-loops) for each kernel of ``kernels`` (each :func:`countable`), as a float array in
    their order.  One compiled pass over the two-paths per kind (M, O, I) the kernels need.

    Examples
    --------
    >>> import numpy as np
    >>> from ergmfit.terms._coreterms import AltKTrianglesTKernel, AltTwoPathsTKernel
    >>> ties = np.array([[0, 1], [1, 2], [0, 2]])        # a transitive triad
    >>> whole_counts(3, ties, [AltKTrianglesTKernel(2.0), AltTwoPathsTKernel(2.0)])
    array([1., 1.])
    """
    ties = np.asarray(ties).reshape(-1, 2)
    if ties.dtype != np.int64:
        ties = ties.astype(np.int64)
    bad = [type(k).__name__ for k in kernels if not countable(k)]
    if bad:
        raise ValueError(f"whole_counts cannot count {bad}")
    _check_ties(n, ties)
    result = np.zeros(len(kernels))
    for pos, k in enumerate(kernels):
        if type(k) in WHOLE_COUNTS:
            continue
        col = _degree_column(k)
        if col is None:
            result[pos] = float(len(ties))
        elif col == "mutual":
            result[pos] = float(mutual_count(n, ties[:, 0], ties[:, 1]))
        else:
            result[pos] = degree_sums(n, ties[:, col], k.lam)
    if not any(type(k) in WHOLE_COUNTS for k in kernels):
        return result
    out_rows = neighbour_rows(n, ties[:, 0], ties[:, 1], np.int32)
    in_rows = neighbour_rows(n, ties[:, 1], ties[:, 0], np.int32)
    first = {"M": out_rows, "O": in_rows, "I": out_rows}
    second = {"M": out_rows, "O": out_rows, "I": in_rows}
    kinds = {}
    for pos, k in enumerate(kernels):
        for kind, which, factor in WHOLE_COUNTS.get(type(k), ()):
            kinds.setdefault(kind, []).append((pos, float(k.lam), which, factor))
    width = int(max(np.diff(out_rows[0]).max(initial=0), np.diff(in_rows[0]).max(initial=0))) + 1
    c = np.arange(width, dtype=float)
    for kind, parts in kinds.items():
        lams = sorted({lam for _, lam, _, _ in parts})
        # the kernels' weight: lambda (1 - q^c), with q^c as pow() gives it
        ftab = np.array([lam * (1.0 - np.power(1.0 - 1.0 / lam, c)) for lam in lams])
        sums = two_path_sums(n, *first[kind], *second[kind], *out_rows, *in_rows, ftab,
                             pairs=any(which == _PAIRS for _, _, which, _ in parts))
        for pos, lam, which, factor in parts:
            result[pos] += factor * sums[lams.index(lam), which]
    return result


def _check_ties(n, ties):
    """The errors the tie-by-tie count gives for a tie outside the nodes or a self-loop."""
    if not len(ties):
        return
    lo, hi = int(ties.min()), int(ties.max())
    if lo < 0 or hi >= n:
        k = int(np.flatnonzero(((ties < 0) | (ties >= n)).any(axis=1))[0])
        raise IndexError(f"dyad ({ties[k, 0]}, {ties[k, 1]}) outside 0..{n - 1}")
    if (ties[:, 0] == ties[:, 1]).any():
        raise ValueError("self-loops are not allowed")


def whole_counted(network, kernels) -> list:
    """Positions of the kernels whose statistics :meth:`ergmfit.ERGM.statistics_vector` counts
    by :func:`whole_counts` on ``network``: the :func:`countable` ones of a directed network
    of at least :data:`WHOLE_COUNT_NODES` nodes (none otherwise)."""
    if not network.directed or network.n < WHOLE_COUNT_NODES:
        return []
    return [p for p, k in enumerate(kernels) if countable(k)]
