# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Whole-network counts of two-path sums (the directed alternating statistics at large n).

The change-statistic kernels count a statistic tie by tie, each toggle looking up two-path
counts; at Pokec's size (8.4 x 10^9 two-paths, counts on demand) that is hours.  Here each
source node a is visited once: the two-path counts c(a, b) of every b it reaches are
accumulated in a dense scratch array of n counters (no hash map), visited, and reset.  The
work is O(number of two-paths) plus O(arcs).

:func:`two_path_sums` takes the graph as compressed rows (``indptr``, ``indices``) of the
first step X and of the second step Y, and, for each weight function row of ``ftab``
(``ftab[l, c]`` the weight of a count c, ``ftab[l, 0] = 0``), returns three sums:

* over the ordered pairs a != b:            sum f(c(a, b));
* over the arcs a -> b (rows ``out``):      sum f(c(a, b));
* over the arcs b -> a (rows ``inn``):      sum f(c(a, b)).

With X = out, Y = out, c(a, b) = #{w: a->w->b} (the mixed two-paths M); X = in, Y = out gives
O(a, b) = #{w: w->a, w->b}; X = out, Y = in gives I(a, b) = #{w: a->w, b->w}.  The mapping of
EstimNet's terms onto these sums is in :mod:`ergmfit.terms.wholecount`.
"""
import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport pow
from libc.stdlib cimport calloc, malloc, free

cnp.import_array()

ctypedef cnp.int64_t i64
ctypedef cnp.int32_t i32

cdef enum:
    SIGNAL_WORK = 1 << 26       # two-paths between checks for Ctrl-C (a fraction of a second)
    SUMS_AHEAD = 4              # _sums prefetches the list this many entries ahead


cdef extern from *:
    void __builtin_prefetch(const void* addr) noexcept nogil


cdef int _check_signals() except -1 with gil:
    return PyErr_CheckSignals()


cdef inline void _side_part(Py_ssize_t a, const i64* ptr, const i32* idx, const i32* cnt,
                            const double* ftab, Py_ssize_t n_f, Py_ssize_t width,
                            double* part, Py_ssize_t slot) noexcept nogil:
    # source a's sum over one side's arcs (its list idx[ptr[a]:ptr[a + 1]]) of
    # ftab[l, cnt[b]], b != a, into part[3 l + slot]
    cdef Py_ssize_t r, l
    cdef i32 b, c
    for r in range(ptr[a], ptr[a + 1]):
        b = idx[r]
        c = cnt[b]
        if b != a and c:
            for l in range(n_f):
                part[3 * l + slot] += ftab[l * width + c]


cdef inline void _arc_part(Py_ssize_t a, const i64* op, const i32* oi, const i64* ip,
                           const i32* ii, const i32* cnt, const double* ftab, Py_ssize_t n_f,
                           Py_ssize_t width, double* part) noexcept nogil:
    # source a's sums over its out-arcs (a, b) and in-arcs (b, a) of ftab[l, cnt[b]], b != a,
    # into part[3 l + 1] and part[3 l + 2]
    _side_part(a, op, oi, cnt, ftab, n_f, width, part, 1)
    _side_part(a, ip, ii, cnt, ftab, n_f, width, part, 2)


cdef int _sums(Py_ssize_t n, const i64* xp, const i32* xi, const i64* yp, const i32* yi,
               const i64* op, const i32* oi, const i64* ip, const i32* ii,
               const double* ftab, Py_ssize_t n_f, Py_ssize_t width, double* out,
               i32* cnt, i32* touched, bint pairs) except -1 nogil:
    # each source a counts its two-paths into cnt[b]; with pairs, the pairs reached are
    # listed in touched (b != a) for the sum over pairs and the reset; without (out[3 l]
    # stays 0: Epinions' AltKTrianglesT), nothing is listed and the two-paths are walked again
    # to reset (measured faster than the list, or than stamped counters, on Epinions)
    cdef Py_ssize_t a, r, s, t, l, nt
    cdef i64 work = 0
    cdef i32 w, b
    cdef double* part = <double*>malloc(3 * n_f * sizeof(double))
    if part == NULL:
        with gil:
            raise MemoryError()
    try:
        for a in range(n):
            nt = 0
            for r in range(xp[a], xp[a + 1]):
                if r + SUMS_AHEAD < xp[a + 1]:
                    # the Y list SUMS_AHEAD entries on: its miss overlaps this list's counting
                    __builtin_prefetch(&yi[yp[xi[r + SUMS_AHEAD]]])
                w = xi[r]
                work += yp[w + 1] - yp[w]
                for s in range(yp[w], yp[w + 1]):
                    b = yi[s]
                    if not pairs:
                        cnt[b] += 1
                    elif b != a:
                        if cnt[b] == 0:
                            touched[nt] = b
                            nt += 1
                        cnt[b] += 1
            # sums of this source first, then into the totals (less rounding at 10^9 terms)
            for l in range(3 * n_f):
                part[l] = 0.0
            for t in range(nt):
                for l in range(n_f):
                    part[3 * l] += ftab[l * width + cnt[touched[t]]]
            _arc_part(a, op, oi, ip, ii, cnt, ftab, n_f, width, part)
            for l in range(3 * n_f):
                out[l] += part[l]
            if pairs:
                for t in range(nt):
                    cnt[touched[t]] = 0
            else:
                for r in range(xp[a], xp[a + 1]):
                    w = xi[r]
                    for s in range(yp[w], yp[w + 1]):
                        cnt[yi[s]] = 0
            if work >= SIGNAL_WORK:
                work = 0
                _check_signals()
    finally:
        free(part)
    return 0


def two_path_sums(Py_ssize_t n, x_indptr, x_indices, y_indptr, y_indices,
                  out_indptr, out_indices, in_indptr, in_indices, ftab, bint pairs=True):
    """(len(ftab), 3) array: per weight row, the sums over ordered pairs, out-arcs and in-arcs
    of ``ftab[l, c(a, b)]`` with c(a, b) = #{w: w in X(a), b in Y(w)}, b != a (see the module
    docstring).  Index arrays int64 (``indptr``) and int32 (``indices``), n + 1 and nnz long;
    ``ftab[:, 0]`` must be 0 and its width larger than every count (the largest row of X).
    ``pairs=False``: the sums over arcs only (the first column 0), in less time (no list of
    the pairs reached; Epinions' AltKTrianglesT).

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx = np.array([0, 1, 2, 2], np.int64), np.array([1, 2], np.int32)  # 0->1->2
    >>> two_path_sums(3, ptr, idx, ptr, idx, ptr, idx, ptr, idx, np.array([[0.0, 1.0]]))
    array([[1., 0., 0.]])
    >>> out = np.array([0, 2, 3, 3], np.int64), np.array([1, 2, 2], np.int32)  # and 0->2
    >>> inn = np.array([0, 0, 1, 3], np.int64), np.array([0, 0, 1], np.int32)
    >>> two_path_sums(3, *out, *out, *out, *inn, np.array([[0.0, 1.0, 1.0]]), pairs=False)
    array([[0., 1., 0.]])
    """
    cdef const i64[::1] xp = np.ascontiguousarray(x_indptr, dtype=np.int64)
    cdef const i32[::1] xi = np.ascontiguousarray(x_indices, dtype=np.int32)
    cdef const i64[::1] yp = np.ascontiguousarray(y_indptr, dtype=np.int64)
    cdef const i32[::1] yi = np.ascontiguousarray(y_indices, dtype=np.int32)
    cdef const i64[::1] op = np.ascontiguousarray(out_indptr, dtype=np.int64)
    cdef const i32[::1] oi = np.ascontiguousarray(out_indices, dtype=np.int32)
    cdef const i64[::1] ip = np.ascontiguousarray(in_indptr, dtype=np.int64)
    cdef const i32[::1] ii = np.ascontiguousarray(in_indices, dtype=np.int32)
    f = np.ascontiguousarray(ftab, dtype=float)
    if f.ndim != 2 or f.shape[1] < 1:
        raise ValueError("ftab must be a 2-d array (weight rows x counts)")
    cdef const double[:, ::1] fv = f
    cdef Py_ssize_t n_f = f.shape[0], width = f.shape[1]
    for arr, name in ((xp, "x_indptr"), (yp, "y_indptr"), (op, "out_indptr"),
                      (ip, "in_indptr")):
        if arr.shape[0] != n + 1:
            raise ValueError(f"{name} must have n + 1 = {n + 1} entries")
    for ptr, idx, name in ((xp, xi, "x"), (yp, yi, "y"), (op, oi, "out"), (ip, ii, "in")):
        p = np.asarray(ptr)
        if p[0] != 0 or p[-1] != idx.shape[0] or (n and np.any(np.diff(p) < 0)):
            raise ValueError(f"{name}_indptr does not describe {name}_indices")
        if idx.shape[0] and (np.min(idx) < 0 or np.max(idx) >= n):
            raise ValueError(f"{name}_indices has a node outside 0..{n - 1}")
    if n and int(np.diff(np.asarray(xp)).max()) >= width:
        raise ValueError(f"ftab has {width} columns: counts up to the largest row of X "
                         f"({int(np.diff(np.asarray(xp)).max())}) need more")
    result = np.zeros((n_f, 3))
    cdef double[:, ::1] res = result
    if n == 0 or n_f == 0:
        return result
    cdef i32* cnt = <i32*>calloc(n, sizeof(i32))
    cdef i32* touched = <i32*>malloc(n * sizeof(i32)) if pairs else NULL
    if cnt == NULL or (pairs and touched == NULL):
        free(cnt)
        free(touched)
        raise MemoryError(f"two_path_sums: scratch arrays of {n:,} nodes")
    try:
        with nogil:
            _sums(n, &xp[0], &xi[0] if xi.shape[0] else NULL, &yp[0],
                  &yi[0] if yi.shape[0] else NULL, &op[0], &oi[0] if oi.shape[0] else NULL,
                  &ip[0], &ii[0] if ii.shape[0] else NULL, &fv[0, 0], n_f, width, &res[0, 0],
                  cnt, touched, pairs)
    finally:
        free(cnt)
        free(touched)
    return result


cdef enum:
    DEG_QTAB = 512      # q^d tabulated below this degree (pow() beyond), as AltStarKernel


def degree_sums(Py_ssize_t n, const i64[:] ends, double lam):
    """The sum, over the ties in their order, of ``lam * (1 - q^d)`` (q = 1 - 1/lam), d the
    number of earlier ties with the same end ``ends[r]``: ``AltInStars(lam)`` when ``ends``
    are the heads, ``AltOutStars(lam)`` when they are the tails -- the change statistics that
    adding the ties one by one to the empty graph sums, in the same order and the same
    floating-point operations (the same doubles), from a counter per node instead of a
    network state (:mod:`ergmfit.terms.wholecount`).  ``ends`` may be a strided column.

    Examples
    --------
    >>> import numpy as np
    >>> heads = np.array([[0, 2], [1, 2], [0, 1]])[:, 1]       # in-degrees 0, 1, 2
    >>> float(degree_sums(3, heads, 2.0))                       # 2 (1 - 1) + 2 (1 - 1/2) + 2 (1 - 1)
    1.0
    """
    cdef Py_ssize_t r, m = ends.shape[0]
    cdef i64 e
    cdef int d
    cdef double q = 1.0 - 1.0 / lam, total = 0.0
    cdef double tab[DEG_QTAB]
    if not (lam > 1.0):
        raise ValueError(f"lambda must be greater than 1, got {lam!r}")
    if m and (np.min(ends) < 0 or np.max(ends) >= n):
        raise ValueError(f"ends has a node outside 0..{n - 1}")
    cdef int* deg = <int*>calloc(n if n else 1, sizeof(int))
    if deg == NULL:
        raise MemoryError(f"degree_sums: a counter for each of {n:,} nodes")
    try:
        with nogil:
            for d in range(DEG_QTAB):
                tab[d] = pow(q, d)
            for r in range(m):
                e = ends[r]
                d = deg[e]
                total += lam * (1.0 - (tab[d] if d < DEG_QTAB else pow(q, d)))
                deg[e] = d + 1
    finally:
        free(deg)
    return total


def mutual_count(Py_ssize_t n, const i64[:] tails, const i64[:] heads):
    """The number of mutual dyads {a, b} (a -> b and b -> a both among the arcs ``tails[r] ->
    heads[r]``; no arc repeated): ``mutual``/``Reciprocity``'s statistic, counted in O(n + m)
    from the out- and in-lists (counting sorts) and one stamp per node, without sorting
    or hashing the arcs.

    Examples
    --------
    >>> import numpy as np
    >>> arcs = np.array([[0, 1], [1, 0], [1, 2], [2, 0], [0, 2]])
    >>> mutual_count(3, arcs[:, 0], arcs[:, 1])
    2
    """
    cdef Py_ssize_t m = tails.shape[0], r, a, k
    cdef i64 t, h, found = 0
    if heads.shape[0] != m:
        raise ValueError("tails and heads must be equally long")
    if m and (min(np.min(tails), np.min(heads)) < 0 or max(np.max(tails), np.max(heads)) >= n):
        raise ValueError(f"an arc has a node outside 0..{n - 1}")
    if m == 0:
        return 0
    cdef i64* optr = <i64*>calloc(n + 1, sizeof(i64))
    cdef i64* iptr = <i64*>calloc(n + 1, sizeof(i64))
    cdef i32* oidx = <i32*>malloc(m * sizeof(i32))
    cdef i32* iidx = <i32*>malloc(m * sizeof(i32))
    cdef i32* stamp = <i32*>malloc(n * sizeof(i32))
    try:
        if optr == NULL or iptr == NULL or oidx == NULL or iidx == NULL or stamp == NULL:
            raise MemoryError(f"mutual_count: lists of {m:,} arcs")
        with nogil:
            for r in range(m):
                optr[tails[r] + 1] += 1
                iptr[heads[r] + 1] += 1
            for a in range(n):
                optr[a + 1] += optr[a]
                iptr[a + 1] += iptr[a]
                stamp[a] = -1
            for r in range(m):              # the lists, filled from their ends backwards
                t = tails[r]
                h = heads[r]
                optr[t + 1] -= 1
                oidx[optr[t + 1]] = <i32>h
                iptr[h + 1] -= 1
                iidx[iptr[h + 1]] = <i32>t
            # now optr[a + 1] is where a's list starts (= the old optr[a]); the lists end at
            # optr[a + 2] (the next one's start), a's at optr[a + 2] for a < n - 1, m for n - 1
            for a in range(n):
                for k in range(optr[a + 1], optr[a + 2] if a + 1 < n else m):
                    stamp[oidx[k]] = <i32>a
                for k in range(iptr[a + 1], iptr[a + 2] if a + 1 < n else m):
                    if stamp[iidx[k]] == a:
                        found += 1
    finally:
        free(optr); free(iptr); free(oidx); free(iidx); free(stamp)
    return int(found // 2)
