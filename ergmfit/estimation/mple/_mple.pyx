# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled helpers of the (maximum) pseudo-likelihood estimator.

The pseudo-likelihood of a binary model is a logistic regression of every
variable x_v on its change statistics Delta_v = g(x, x_v=1) - g(x, x_v=0)
(Besag 1974; Strauss & Ikeda 1990 for ERGMs).  Its design has one row per
variable -- 10^6 for a 1,461-node network -- but only a few distinct rows,
so, as statnet does, we never store it: each row goes straight into a hash
table of distinct rows that keeps, per row, the total weight and the weight
of the rows whose variable is 1 (a binomial "cases / trials" pair).  Memory
is O(distinct rows x p), whatever the number of variables.

Everything here works on the ``BinaryModel`` interface (``change``, ``get``,
``n_on``/``on_var``), so the MRF models reuse it.  An ``ERGMModel`` takes a
faster path that walks the dyads (i, j) in order instead of decoding each
variable index, and reads the response from a marked neighbour row.

Functions
---------
build_design(model, sample_size=-1, seed=None) -> dict
    The compressed design over all variables, or a case-control sample:
    every variable equal to 1 (weight 1) plus ``sample_size`` distinct
    variables equal to 0 drawn uniformly (weight (#zeros)/sample_size).
restricted_rows(model, vars, weights=None) -> (X, n, s, n_on)
    The compressed design of the variables ``vars`` only (a restricted sample
    space's free, observed dyads), rows in ``np.unique(X, axis=0)``'s order.
group_rows(X, y, weights=None) -> (X, n, s)
    The same grouping of given rows.
pseudo_score(model, theta) -> (score, loglik)
    sum_v (x_v - p_v(theta)) Delta_v over all variables, without a table
    (used for the Godambe variability matrix on simulated states).
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log1p, fabs
from libc.stdint cimport int64_t, uint64_t, uint32_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcmp, memcpy, memset

from ergmfit.core._model cimport BinaryModel
from ergmfit.core._hashmap cimport (
    TieMap, tiemap_init, tiemap_free, tiemap_find, tiemap_put, tiemap_home, mix64,
)
from ergmfit.core._random cimport RNG, rng_seed, rng_below
from ergmfit.network._state cimport NetworkState, __builtin_prefetch
from cpython.ref cimport PyObject
from ergmfit.terms._ergm cimport ERGMModel
from ergmfit.terms._kernel cimport TermKernel

cnp.import_array()


cdef extern from "stdlib.h" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)


# ---------------------------------------------------------------------------
# The sampled zeros: an exact set of variable indices in 4 bytes a key
# ---------------------------------------------------------------------------
cdef enum:
    SEEN_SLOTS = 16         # 4-byte slots per 64-byte bucket
    SEEN_REM_BITS = 24      # at most this many key bits besides the bucket's
    SEEN_MAX_DISP = 127     # buckets a key may lie past its own (7 bits)
    SEEN_COMPACT_MIN = 1048576   # smaller samples use a plain hash set (TieMap)

cdef struct SeenSet:
    # Compact form: keys v < 2^L are mixed by a bijection of L bits; the top
    # bits pick a bucket of 16 slots (one cache line), the remaining r <= 24
    # bits are stored with the distance d from the key's bucket to the bucket
    # it lies in (linear probing by bucket): slot = d << 25 | rem << 1 | 1,
    # 0 = empty.  (bucket, rem) determines v, so the set is exact, in 4 bytes
    # per slot instead of 16.  Otherwise (small samples, or keys too long) a TieMap
    # (its values unused).
    bint compact
    uint32_t* slots
    uint64_t bmask          # buckets - 1
    int L
    int rbits
    uint64_t kmask
    TieMap plain


cdef inline uint64_t _seen_mix(const SeenSet* st, uint64_t x) noexcept nogil:
    # a bijection of [0, 2^L): odd multiplications and xor-shifts modulo 2^L
    x = (x * <uint64_t>0x9E3779B97F4A7C15) & st.kmask
    x ^= x >> ((st.L + 1) // 2)
    x = (x * <uint64_t>0xBF58476D1CE4E5B9) & st.kmask
    x ^= x >> ((st.L + 1) // 2)
    return x


cdef int seen_init(SeenSet* st, int64_t expected, int64_t n_vars) noexcept nogil:
    cdef uint64_t nb = 1
    cdef int bbits = 0
    cdef void* p = NULL
    st.compact = False
    st.slots = NULL
    st.L = 1
    while st.L < 63 and (<uint64_t>1 << st.L) < <uint64_t>n_vars:
        st.L += 1
    # buckets for a load of at most 0.6
    while <double>nb * SEEN_SLOTS * 0.6 < <double>expected:
        nb <<= 1
        bbits += 1
    st.rbits = st.L - bbits
    if expected >= SEEN_COMPACT_MIN and 0 <= st.rbits <= SEEN_REM_BITS:
        if posix_memalign(&p, 64, nb * SEEN_SLOTS * sizeof(uint32_t)) != 0:
            return -1
        memset(p, 0, nb * SEEN_SLOTS * sizeof(uint32_t))
        st.slots = <uint32_t*>p
        st.compact = True
        st.bmask = nb - 1
        st.kmask = (<uint64_t>1 << st.L) - 1
        return 0
    return tiemap_init(&st.plain, expected * 2 // 3 + 1, n_vars)    # final load at most 3/4


cdef void seen_free(SeenSet* st) noexcept nogil:
    if st.compact:
        free(st.slots)
        st.slots = NULL
    else:
        tiemap_free(&st.plain)


cdef inline void seen_prefetch(const SeenSet* st, int64_t v) noexcept nogil:
    if st.compact:
        __builtin_prefetch(&st.slots[(_seen_mix(st, <uint64_t>v) >> st.rbits) * SEEN_SLOTS])
    else:
        __builtin_prefetch(&st.plain.slots[tiemap_home(&st.plain, v)])


cdef inline int seen_add(SeenSet* st, int64_t v) noexcept nogil:
    """Add v: 1 if it was there already, 0 if added, -1 when out of memory or room."""
    cdef uint64_t x, b, d
    cdef uint32_t rem, want, e
    cdef uint32_t* bucket
    cdef int k
    if not st.compact:
        if tiemap_find(&st.plain, v) != NULL:
            return 1
        return tiemap_put(&st.plain, v, 0)
    x = _seen_mix(st, <uint64_t>v)
    b = x >> st.rbits
    rem = <uint32_t>(x & ((<uint64_t>1 << st.rbits) - 1))
    for d in range(SEEN_MAX_DISP + 1):
        bucket = &st.slots[((b + d) & st.bmask) * SEEN_SLOTS]
        want = (<uint32_t>d << 25) | (rem << 1) | 1
        for k in range(SEEN_SLOTS):
            e = bucket[k]
            if e == want:
                return 1
            if e == 0:
                bucket[k] = want
                return 0
    return -1


# ---------------------------------------------------------------------------
# Table of distinct rows
# ---------------------------------------------------------------------------
cdef struct RowTable:
    int p
    int64_t n_rows
    int64_t cap_rows
    double* rows        # n_rows x p, row-major
    double* w_all       # total weight of each distinct row
    double* w_on        # weight of its variables equal to 1
    uint64_t* hashes    # hash of each row (speeds up probing and growth)
    int64_t* slots      # open addressing: row index or -1
    uint64_t mask
    int64_t last        # row matched by the previous insertion (runs of equal rows)
    int64_t last2       # the row matched before it (rows often alternate)


cdef int table_init(RowTable* t, int p) noexcept nogil:
    cdef uint64_t cap = 1024, k
    t.p = p
    t.n_rows = 0
    t.cap_rows = 256
    t.last = -1
    t.last2 = -1
    t.rows = <double*>malloc(t.cap_rows * max(1, p) * sizeof(double))
    t.w_all = <double*>malloc(t.cap_rows * sizeof(double))
    t.w_on = <double*>malloc(t.cap_rows * sizeof(double))
    t.hashes = <uint64_t*>malloc(t.cap_rows * sizeof(uint64_t))
    t.slots = <int64_t*>malloc(cap * sizeof(int64_t))
    if t.rows == NULL or t.w_all == NULL or t.w_on == NULL or t.hashes == NULL or t.slots == NULL:
        return -1
    for k in range(cap):
        t.slots[k] = -1
    t.mask = cap - 1
    return 0


cdef void table_free(RowTable* t) noexcept nogil:
    free(t.rows); free(t.w_all); free(t.w_on); free(t.hashes); free(t.slots)
    t.rows = NULL; t.w_all = NULL; t.w_on = NULL; t.hashes = NULL; t.slots = NULL


cdef inline uint64_t row_hash(const double* x, int p) noexcept nogil:
    cdef uint64_t h = <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t bits
    cdef double v
    cdef int k
    for k in range(p):
        v = x[k] + 0.0             # -0.0 -> +0.0: equal values get equal bits
        memcpy(&bits, &v, sizeof(uint64_t))
        h = (h ^ bits) * <uint64_t>0x100000001B3
        h ^= h >> 29
    return mix64(h)


cdef inline bint row_eq(const double* a, const double* b, int p) noexcept nogil:
    cdef int k
    for k in range(p):
        if a[k] != b[k]:
            return 0
    return 1


cdef int _table_grow_slots(RowTable* t) noexcept nogil:
    cdef uint64_t cap = (t.mask + 1) * 2, k, i
    cdef int64_t r
    cdef int64_t* slots = <int64_t*>malloc(cap * sizeof(int64_t))
    if slots == NULL:
        return -1
    for k in range(cap):
        slots[k] = -1
    for r in range(t.n_rows):
        i = t.hashes[r] & (cap - 1)
        while slots[i] != -1:
            i = (i + 1) & (cap - 1)
        slots[i] = r
    free(t.slots)
    t.slots = slots
    t.mask = cap - 1
    return 0


cdef int _table_grow_rows(RowTable* t) noexcept nogil:
    cdef int64_t cap = t.cap_rows * 2
    cdef void* a = realloc(t.rows, cap * max(1, t.p) * sizeof(double))
    if a == NULL:
        return -1
    t.rows = <double*>a
    a = realloc(t.w_all, cap * sizeof(double))
    if a == NULL:
        return -1
    t.w_all = <double*>a
    a = realloc(t.w_on, cap * sizeof(double))
    if a == NULL:
        return -1
    t.w_on = <double*>a
    a = realloc(t.hashes, cap * sizeof(uint64_t))
    if a == NULL:
        return -1
    t.hashes = <uint64_t*>a
    t.cap_rows = cap
    return 0


cdef inline int table_add(RowTable* t, const double* x, bint y, double w) noexcept nogil:
    """Add the row x (response y, weight w); returns -1 when memory runs out."""
    cdef int p = t.p
    cdef uint64_t h, i
    cdef int64_t r = t.last
    if r >= 0 and row_eq(t.rows + r * p, x, p):
        t.w_all[r] += w
        if y:
            t.w_on[r] += w
        return 0
    r = t.last2
    if r >= 0 and row_eq(t.rows + r * p, x, p):
        t.w_all[r] += w
        if y:
            t.w_on[r] += w
        t.last2 = t.last
        t.last = r
        return 0
    return _table_add_slow(t, x, y, w)


cdef int _table_add_slow(RowTable* t, const double* x, bint y, double w) noexcept nogil:
    cdef int p = t.p
    cdef uint64_t h, i
    cdef int64_t r
    h = row_hash(x, p)
    i = h & t.mask
    while True:
        r = t.slots[i]
        if r == -1:
            break
        if t.hashes[r] == h and row_eq(t.rows + r * p, x, p):
            t.w_all[r] += w
            if y:
                t.w_on[r] += w
            t.last2 = t.last
            t.last = r
            return 0
        i = (i + 1) & t.mask
    # a new distinct row
    if t.n_rows == t.cap_rows:
        if _table_grow_rows(t) != 0:
            return -1
    r = t.n_rows
    memcpy(t.rows + r * p, x, p * sizeof(double))
    t.w_all[r] = w
    t.w_on[r] = w if y else 0.0
    t.hashes[r] = h
    t.slots[i] = r
    t.n_rows += 1
    t.last2 = t.last
    t.last = r
    if <uint64_t>(2 * t.n_rows) > t.mask + 1:
        if _table_grow_slots(t) != 0:
            return -1
    return 0


cdef object table_to_numpy(RowTable* t):
    cdef int64_t u = t.n_rows
    cdef int p = t.p
    X = np.empty((u, p), dtype=np.float64)
    n = np.empty(u, dtype=np.float64)
    s = np.empty(u, dtype=np.float64)
    cdef double[:, ::1] Xv = X
    cdef double[::1] nv = n, sv = s
    cdef int64_t r
    cdef int k
    for r in range(u):
        for k in range(p):
            Xv[r, k] = t.rows[r * p + k]
        nv[r] = t.w_all[r]
        sv[r] = t.w_on[r]
    return X, n, s


# ---------------------------------------------------------------------------
# Walking all variables
# ---------------------------------------------------------------------------
cdef inline void _dyad_change(NetworkState s, PyObject** kern, int* off, int nt,
                              int i, int j, double* out) noexcept nogil:
    # ERGMModel.dyad_change without the method call (the kernels in a row)
    cdef int t
    for t in range(nt):
        (<TermKernel>kern[t]).change(s, i, j, out + off[t])


cdef int _all_ergm(ERGMModel m, NetworkState s, RowTable* t, double* buf,
                   int* mark) noexcept nogil:
    """Every dyad (i, j) of an ERGMModel (state ``s``), in order, without index decoding."""
    cdef int n = s.n, i, j, k, deg
    cdef int* nb
    cdef PyObject** kern = m._kernels
    cdef int* off = m._offsets
    cdef int nt = m._n_terms
    for i in range(n):
        nb = s.out_nb[i]
        deg = s.out_deg[i]
        for k in range(deg):
            mark[nb[k]] = 1
        if s.directed:
            for j in range(n):
                if j == i:
                    continue
                _dyad_change(s, kern, off, nt, i, j, buf)
                if table_add(t, buf, mark[j], 1.0) != 0:
                    return -1
        else:
            for j in range(i + 1, n):
                _dyad_change(s, kern, off, nt, i, j, buf)
                if table_add(t, buf, mark[j], 1.0) != 0:
                    return -1
        for k in range(deg):
            mark[nb[k]] = 0
    return 0


cdef int _all_generic(BinaryModel m, RowTable* t, double* buf) noexcept nogil:
    cdef int64_t v
    for v in range(m.n_vars):
        m.change(v, buf)
        if table_add(t, buf, m.get(v), 1.0) != 0:
            return -1
    return 0


cdef int _case_control(BinaryModel m, RowTable* t, double* buf, int64_t size,
                       RNG* rng, bint is_ergm) noexcept nogil:
    """All variables equal to 1 (weight 1) and ``size`` distinct variables
    equal to 0 drawn uniformly without replacement (weight n_zero / size)."""
    cdef int64_t k, v, drawn = 0
    cdef int64_t n_one = m.n_on()
    cdef int64_t n_zero = m.n_vars - n_one
    cdef double w0
    cdef SeenSet seen
    if is_ergm:
        if _ones_ergm(<ERGMModel>m, (<ERGMModel>m).state, t, buf) != 0:
            return -1
    else:
        for k in range(n_one):
            v = m.on_var(k)
            m.change(v, buf)
            if table_add(t, buf, 1, 1.0) != 0:
                return -1
    if size <= 0 or n_zero <= 0:
        return 0
    w0 = <double>n_zero / <double>size
    if seen_init(&seen, size, m.n_vars) != 0:
        return -1
    if is_ergm:
        k = _case_control_ergm(<ERGMModel>m, (<ERGMModel>m).state, t, buf, size, w0, &seen, rng)
        seen_free(&seen)
        return k
    while drawn < size:
        v = rng_below(rng, m.n_vars)
        if m.get(v):
            continue
        k = seen_add(&seen, v)
        if k == 1:
            continue
        if k != 0:
            seen_free(&seen)
            return -1
        m.change(v, buf)
        if table_add(t, buf, 0, w0) != 0:
            seen_free(&seen)
            return -1
        drawn += 1
    seen_free(&seen)
    return 0


cdef enum:
    AHEAD = 16      # case-control on an ERGM: candidates drawn this far ahead of their use


cdef inline void _draw_ahead(ERGMModel m, NetworkState s, RNG* rng, SeenSet* seen,
                             int64_t* rv, int* ri, int* rj, int q) noexcept nogil:
    # draw the next candidate into ring slot q and prefetch what testing it will read
    cdef int i, j
    cdef int64_t v = rng_below(rng, m.n_vars)
    m.dyad(v, &i, &j)
    rv[q] = v
    ri[q] = i
    rj[q] = j
    s.prefetch_tie(i, j)
    seen_prefetch(seen, v)
    s.prefetch_node(i)
    s.prefetch_node(j)


cdef int _ones_ergm(ERGMModel m, NetworkState s, RowTable* t, double* buf) noexcept nogil:
    """The ones of _case_control for an ERGMModel, in the same order, with the
    records of the tie AHEAD further on prefetched (their misses overlap)."""
    cdef int64_t k, n_one = s.n_ties
    for k in range(n_one):
        if k + AHEAD < n_one:
            s.prefetch_node(s.ends[2 * (k + AHEAD)])
            s.prefetch_node(s.ends[2 * (k + AHEAD) + 1])
        m.change(m.on_var(k), buf)
        if table_add(t, buf, 1, 1.0) != 0:
            return -1
    return 0


cdef int _case_control_ergm(ERGMModel m, NetworkState s, RowTable* t, double* buf,
                            int64_t size, double w0, SeenSet* seen, RNG* rng) noexcept nogil:
    """The zeros of _case_control for an ERGMModel: the same draws, tests and order,
    but each candidate is drawn AHEAD steps before it is tested, with its hash slots
    and (half-way) the rest of their neighbours prefetched, so that the cache misses of
    successive candidates overlap.  The spare draws at the end are discarded (the
    generator is this sample's own)."""
    cdef int64_t rv[AHEAD]
    cdef int ri[AHEAD]
    cdef int rj[AHEAD]
    cdef int64_t v, drawn = 0
    cdef int q, q2, i, j
    cdef PyObject** kern = m._kernels
    cdef int* off = m._offsets
    cdef int nt = m._n_terms
    for q in range(AHEAD):
        _draw_ahead(m, s, rng, seen, rv, ri, rj, q)
    q = 0
    while drawn < size:
        v = rv[q]
        i = ri[q]
        j = rj[q]
        _draw_ahead(m, s, rng, seen, rv, ri, rj, q)
        q2 = (q + AHEAD // 2) % AHEAD
        s.prefetch_rest(ri[q2])
        s.prefetch_rest(rj[q2])
        q = (q + 1) % AHEAD
        if s.has_tie(i, j):
            continue
        q2 = seen_add(seen, v)
        if q2 == 1:
            continue
        if q2 != 0:
            return -1
        _dyad_change(s, kern, off, nt, i, j, buf)
        if table_add(t, buf, 0, w0) != 0:
            return -1
        drawn += 1
    return 0


def build_design(BinaryModel model, int64_t sample_size=-1, seed=None, bint fast=True):
    """The compressed pseudo-likelihood design of ``model`` at its current state.

    Parameters
    ----------
    model : BinaryModel
    sample_size : int
        -1: every variable.  Otherwise a case-control sample: every variable
        equal to 1 plus ``sample_size`` distinct variables equal to 0
        (clipped to the number of zeros), weighted to stand for all zeros.
    seed : array of 4 uint64, required when sampling
    fast : bool
        Use the dyad walk of an ERGMModel (False: the generic BinaryModel
        loop, for testing that both agree).

    Returns
    -------
    dict with ``X`` (distinct rows, (u, p)), ``n`` (weight of each row),
    ``s`` (weight of its variables equal to 1), ``n_vars``, ``n_on``,
    ``sampled`` (bool) and ``n_sampled`` (zeros drawn).
    """
    cdef RowTable t
    cdef int p = model.n_stats
    cdef int rc = 0
    cdef double* buf = <double*>calloc(max(1, p), sizeof(double))
    cdef int* mark = NULL
    cdef RNG rng
    cdef ERGMModel em
    cdef NetworkState st
    cdef int64_t n_zero = model.n_vars - model.n_on()
    cdef bint sampled = sample_size >= 0
    cdef bint is_ergm = isinstance(model, ERGMModel) and fast
    memset(&t, 0, sizeof(RowTable))
    if buf == NULL or table_init(&t, p) != 0:
        free(buf)
        table_free(&t)
        raise MemoryError("out of memory building the pseudo-likelihood design")
    if sampled:
        if sample_size > n_zero:
            sample_size = n_zero
        if seed is None:
            raise ValueError("a seed is needed to sample variables")
        sw = np.asarray(seed, dtype=np.uint64)
        rng_seed(&rng, sw[0], sw[1], sw[2], sw[3])
    try:
        if sampled:
            with nogil:
                rc = _case_control(model, &t, buf, sample_size, &rng, is_ergm)
        elif fast and isinstance(model, ERGMModel):
            em = <ERGMModel>model
            st = em.state
            mark = <int*>calloc(max(1, st.n), sizeof(int))
            if mark == NULL:
                raise MemoryError("out of memory building the pseudo-likelihood design")
            with nogil:
                rc = _all_ergm(em, st, &t, buf, mark)
        else:
            with nogil:
                rc = _all_generic(model, &t, buf)
        if rc != 0:
            raise MemoryError("out of memory building the pseudo-likelihood design")
        X, n, s = table_to_numpy(&t)
    finally:
        free(buf)
        free(mark)
        table_free(&t)
    return {"X": X, "n": n, "s": s, "n_vars": int(model.n_vars), "n_on": int(model.n_on()),
            "sampled": bool(sampled), "n_sampled": int(sample_size) if sampled else 0}


# ---------------------------------------------------------------------------
# The variables of a restricted space (or given rows), grouped without a 2-D sort
# ---------------------------------------------------------------------------
cdef object _sorted_table(RowTable* t):
    """The table's distinct rows, their weights and tie weights, in the lexicographic
    order of the rows (first column first, by value): the order ``np.unique(X, axis=0)``
    gives, so a design grouped here is the one grouped by ``np.unique``, row for row."""
    X, n, s = table_to_numpy(t)
    X += 0.0                     # -0.0 -> +0.0 (the table keeps a row's first bits)
    if X.shape[1] and len(X) > 1:
        order = np.lexsort(X.T[::-1])
        X, n, s = X[order], n[order], s[order]
    return X, n, s


cdef int _vars_rows(BinaryModel m, int64_t* vv, int64_t nv, double* w,
                    RowTable* t, double* buf, int64_t* n_on) noexcept nogil:
    """Add the change-statistic row of each variable vv[r] (weight w[r], or 1) to ``t``."""
    cdef int64_t r
    cdef bint y
    for r in range(nv):
        m.change(vv[r], buf)
        y = m.get(vv[r])
        n_on[0] += y
        if table_add(t, buf, y, 1.0 if w == NULL else w[r]) != 0:
            return -1
    return 0


cdef int _array_rows(double* X, signed char* y, int64_t m, int p,
                     double* w, RowTable* t) noexcept nogil:
    cdef int64_t r
    for r in range(m):
        if table_add(t, X + r * p, y[r] != 0, 1.0 if w == NULL else w[r]) != 0:
            return -1
    return 0


def _one_weight_each(weights, int64_t m, what):
    """``weights`` as a contiguous float64 array, checked to hold one weight for each of
    the ``m`` ``what`` (variables, rows)."""
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] != m:
        raise ValueError(f"{m} {what} but {w.size} weights")
    return w


def restricted_rows(BinaryModel model, vars, weights=None):
    """The compressed design of the variables ``vars`` only (a sample space's free,
    observed dyads, or a case-control sample of them), each row computed and added to
    a table of distinct rows, so the (len(vars), p) matrix of rows never exists.

    Parameters
    ----------
    model : BinaryModel
        A compiled model at its current state.
    vars : int array
        The variables (any order; a variable given twice counts twice).
    weights : float array, optional
        One weight per variable (a case-control sample's); None: 1 each.

    Returns
    -------
    (X, n, s, n_on): the distinct rows in lexicographic order (as ``np.unique(rows,
    axis=0)`` orders them), the sum of the weights of each row's variables, the sum over
    those equal to 1, and the number of variables equal to 1 (unweighted).  Sums are taken
    in the order of ``vars``, as ``np.bincount`` takes them.
    """
    cdef cnp.int64_t[::1] vv = np.ascontiguousarray(vars, dtype=np.int64)
    cdef int64_t m = vv.shape[0]
    cdef int p = model.n_stats
    cdef cnp.float64_t[::1] wv
    cdef double* wp = NULL
    cdef int64_t n_on = 0
    cdef int rc = 0
    cdef RowTable t
    cdef double* buf
    if m and (np.min(vv) < 0 or np.max(vv) >= model.n_vars):
        raise ValueError("variable out of range")
    if weights is not None:
        wv = _one_weight_each(weights, m, "variables")
        if m:
            wp = &wv[0]
    buf = <double*>calloc(max(1, p), sizeof(double))
    memset(&t, 0, sizeof(RowTable))
    if buf == NULL or table_init(&t, p) != 0:
        free(buf)
        table_free(&t)
        raise MemoryError("out of memory building the pseudo-likelihood design")
    try:
        if m:
            with nogil:
                rc = _vars_rows(model, &vv[0], m, wp, &t, buf, &n_on)
        if rc != 0:
            raise MemoryError("out of memory building the pseudo-likelihood design")
        X, n, s = _sorted_table(&t)
    finally:
        free(buf)
        table_free(&t)
    return X, n, s, int(n_on)


def group_rows(X, y, weights=None):
    """Group the rows of ``X`` ((m, p) float) as :func:`restricted_rows` groups the rows it
    computes: (distinct rows in lexicographic order, sum of ``weights`` (default 1) of each,
    sum of those with ``y`` != 0).  For tests and for rows computed elsewhere."""
    cdef cnp.float64_t[:, ::1] Xv = np.ascontiguousarray(X, dtype=np.float64)
    cdef cnp.int8_t[::1] yv = np.ascontiguousarray(np.asarray(y) != 0, dtype=np.int8)
    cdef int64_t m = Xv.shape[0]
    cdef int p = Xv.shape[1]
    cdef cnp.float64_t[::1] wv
    cdef double* wp = NULL
    cdef int rc = 0
    cdef RowTable t
    if yv.shape[0] != m:
        raise ValueError(f"{m} rows but {yv.shape[0]} responses")
    if weights is not None:
        wv = _one_weight_each(weights, m, "rows")
        if m:
            wp = &wv[0]
    memset(&t, 0, sizeof(RowTable))
    if table_init(&t, p) != 0:
        table_free(&t)
        raise MemoryError("out of memory grouping rows")
    try:
        if m:
            with nogil:
                rc = _array_rows(&Xv[0, 0], <signed char*>&yv[0], m, p, wp, &t)
        if rc != 0:
            raise MemoryError("out of memory grouping rows")
        return _sorted_table(&t)
    finally:
        table_free(&t)


# ---------------------------------------------------------------------------
# Pseudo-score over all variables, no table
# ---------------------------------------------------------------------------
cdef inline void _acc_score(const double* theta, const double* d, int p, bint y,
                            double* score, double* ll) noexcept nogil:
    cdef double eta = 0.0, mu, e
    cdef int k
    for k in range(p):
        eta += theta[k] * d[k]
    if eta >= 0:
        e = exp(-eta)
        mu = 1.0 / (1.0 + e)
        ll[0] += (eta if y else 0.0) - eta - log1p(e)
    else:
        e = exp(eta)
        mu = e / (1.0 + e)
        ll[0] += (eta if y else 0.0) - log1p(e)
    mu = (1.0 if y else 0.0) - mu
    for k in range(p):
        score[k] += mu * d[k]


def pseudo_score(BinaryModel model, theta):
    """(score, loglik): the gradient sum_v (x_v - p_v) Delta_v and the value
    of the log-pseudo-likelihood at ``theta``, over every variable."""
    cdef int p = model.n_stats
    cdef cnp.ndarray[double, ndim=1] th = np.ascontiguousarray(theta, dtype=np.float64)
    if th.shape[0] != p:
        raise ValueError(f"theta must have {p} values, got {th.shape[0]}")
    cdef cnp.ndarray[double, ndim=1] score = np.zeros(max(1, p))
    cdef double ll = 0.0
    cdef double* buf = <double*>calloc(max(1, p), sizeof(double))
    cdef double dummy = 0.0
    cdef const double* tp = &th[0] if p else &dummy
    cdef int* mark = NULL
    cdef int64_t v
    cdef int i, j, k, deg, n
    cdef int* nb
    cdef NetworkState s
    cdef ERGMModel em
    cdef PyObject** kern
    cdef int* off
    cdef int nt
    if buf == NULL:
        raise MemoryError()
    try:
        if isinstance(model, ERGMModel):
            em = <ERGMModel>model
            s = em.state
            n = s.n
            kern = em._kernels
            off = em._offsets
            nt = em._n_terms
            mark = <int*>calloc(max(1, n), sizeof(int))
            if mark == NULL:
                raise MemoryError()
            with nogil:
                for i in range(n):
                    nb = s.out_nb[i]
                    deg = s.out_deg[i]
                    for k in range(deg):
                        mark[nb[k]] = 1
                    for j in range(0 if s.directed else i + 1, n):
                        if j == i:
                            continue
                        _dyad_change(s, kern, off, nt, i, j, buf)
                        _acc_score(tp, buf, p, mark[j], &score[0], &ll)
                    for k in range(deg):
                        mark[nb[k]] = 0
        else:
            with nogil:
                for v in range(model.n_vars):
                    model.change(v, buf)
                    _acc_score(tp, buf, p, model.get(v), &score[0], &ll)
    finally:
        free(buf)
        free(mark)
    return score[:p].copy(), ll


def count_on(BinaryModel model):
    """Number of variables equal to 1 (ties of an ERGM)."""
    return int(model.n_on())


def _seen_flags(cnp.int64_t[::1] keys, int64_t n_vars, int64_t expected):
    """For tests: add ``keys`` in order to the sampled-zero set sized for ``expected``
    keys of ``n_vars``; returns (compact, flags) with flags[k] = 1 where keys[k] was
    there already."""
    cdef SeenSet st
    cdef Py_ssize_t k
    cdef int r
    out = np.zeros(keys.shape[0], dtype=np.int8)
    cdef signed char[::1] o = out
    if seen_init(&st, expected, n_vars) != 0:
        raise MemoryError()
    compact = bool(st.compact)
    try:
        for k in range(keys.shape[0]):
            r = seen_add(&st, keys[k])
            if r < 0:
                raise MemoryError("sampled-zero set full")
            o[k] = r
    finally:
        seen_free(&st)
    return compact, out


# the compressed design of the count pseudo-likelihood (count_design, change_rows, ...)
include "_countmple.pxi"
