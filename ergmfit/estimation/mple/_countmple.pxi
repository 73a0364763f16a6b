# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compressed design of the count pseudo-likelihood (see :mod:`.count`).

For every dyad v (or the dyads asked for), the change statistics
D_v[k] = g(y with y_v = lo + 1 + k) - g(y with y_v = lo), k = 0 .. hi - lo - 1,
are computed with one ``change_support`` call of the compiled model per dyad (every
value of the support at once, the rest of the network at its present values), and the
row (D_v, observed y_v) goes into a hash table of distinct rows with its weight: a sparse
network's zero dyads with the same neighbourhood make one row.  The loop runs in C; no Python per dyad.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, realloc, free, calloc, qsort
from libc.string cimport memcmp, memcpy
from ergmfit.core._model cimport CountModel

cnp.import_array()


cdef struct CountRowTable:
    int64_t width          # doubles per row
    int64_t n_rows         # distinct rows stored
    int64_t cap_rows
    double* rows           # n_rows x width
    int64_t* y_obs         # the observed value of each distinct row
    double* weight         # total weight of each distinct row
    int64_t* slots         # hash slots: row index + 1 (0: empty)
    int64_t n_slots        # a power of two


cdef inline uint64_t _hash(const double* row, int64_t width, int64_t y) noexcept nogil:
    # a multiplicative hash of the first (at most 16) words of the row and the observed
    # value: rows are compared in full (memcmp), so a partial hash is only a bucket
    cdef uint64_t h = 1469598103934665603ULL ^ <uint64_t>y
    cdef const uint64_t* w = <const uint64_t*>row
    cdef int64_t k, m = width if width < 16 else 16
    for k in range(m):
        h = (h ^ w[k]) * 0x9E3779B97F4A7C15ULL
        h ^= h >> 29
    return h


cdef int _grow_slots(CountRowTable* t) noexcept nogil:
    cdef int64_t n = t.n_slots * 2, r, s
    cdef int64_t* slots = <int64_t*>calloc(n, sizeof(int64_t))
    if slots == NULL:
        return -1
    for r in range(t.n_rows):
        s = <int64_t>(_hash(t.rows + r * t.width, t.width, t.y_obs[r]) & <uint64_t>(n - 1))
        while slots[s] != 0:
            s = (s + 1) & (n - 1)
        slots[s] = r + 1
    free(t.slots)
    t.slots = slots
    t.n_slots = n
    return 0


cdef int _add(CountRowTable* t, const double* row, int64_t y, double w,
              int64_t* last) noexcept nogil:
    # ``last``: the row the previous dyad went to (runs of equal rows skip the hash)
    if last[0] >= 0 and t.y_obs[last[0]] == y and memcmp(t.rows + last[0] * t.width, row,
                                                         t.width * sizeof(double)) == 0:
        t.weight[last[0]] += w
        return 0
    cdef uint64_t h = _hash(row, t.width, y)
    cdef int64_t s = <int64_t>(h & <uint64_t>(t.n_slots - 1)), r
    cdef double* rows
    cdef int64_t* ys
    cdef double* ws
    while t.slots[s] != 0:
        r = t.slots[s] - 1
        if t.y_obs[r] == y and memcmp(t.rows + r * t.width, row,
                                      t.width * sizeof(double)) == 0:
            t.weight[r] += w
            last[0] = r
            return 0
        s = (s + 1) & (t.n_slots - 1)
    if t.n_rows == t.cap_rows:
        rows = <double*>realloc(t.rows, 2 * t.cap_rows * t.width * sizeof(double) + 8)
        if rows == NULL:
            return -1
        t.rows = rows
        ys = <int64_t*>realloc(t.y_obs, 2 * t.cap_rows * sizeof(int64_t))
        if ys == NULL:
            return -1
        t.y_obs = ys
        ws = <double*>realloc(t.weight, 2 * t.cap_rows * sizeof(double))
        if ws == NULL:
            return -1
        t.weight = ws
        t.cap_rows *= 2
    r = t.n_rows
    memcpy(t.rows + r * t.width, row, t.width * sizeof(double))
    t.y_obs[r] = y
    t.weight[r] = w
    t.slots[s] = r + 1
    t.n_rows = r + 1
    last[0] = r
    if 2 * t.n_rows > t.n_slots:
        return _grow_slots(t)
    return 0


cdef inline void _changes(CountModel cm, int64_t v, int64_t lo, int64_t K, int64_t p,
                          double* values, double* buf, int64_t* cols,
                          int64_t width) noexcept nogil:
    # the change statistics of y_v = lo + 1 .. lo + K from y_v = lo, statistic j of value k
    # into buf[k * width + cols[j]] (cols NULL: j); ``values`` ((K + 1) * p scratch) gets
    # the changes of lo .. lo + K from the present value, in one whole-support call
    cdef int64_t k, j
    if cm.get(v) == lo:
        for j in range(p):
            values[j] = 0.0
        cm.change_support(v, lo + 1, K, values + p)
    else:
        cm.change_support(v, lo, K + 1, values)
    for k in range(K):
        for j in range(p):
            # relative to y_v = lo; + 0.0 makes -0.0 hash as 0.0
            buf[k * width + (cols[j] if cols != NULL else j)] = \
                (values[(k + 1) * p + j] - values[j]) + 0.0


def count_design(CountModel cm, int64_t lo, int64_t hi, variables=None, weights=None,
                 columns=None, fixed=None, fixed_columns=None, fixed_index=None):
    """The distinct rows of the count pseudo-likelihood's design.

    Parameters
    ----------
    cm : CountModel
        A compiled count-valued model at the network whose full conditionals are wanted.
    lo, hi : int
        The values each dyad may take (the reference's support, truncated at ``hi``).
    variables, weights : arrays, optional
        Only these variables (int64), with these weights (float64); default every free
        variable (``cm.restrict``) with weight 1.
    columns, fixed, fixed_columns, fixed_index : arrays, optional
        Rows that ``cm`` computes only in part: ``cm``'s statistic j goes to column
        ``columns[j]`` of the row, and the columns ``fixed_columns`` are copied from
        ``fixed[fixed_index[r]]`` ((F, hi - lo, len(fixed_columns)) change statistics
        computed elsewhere) for the r-th variable.

    Returns
    -------
    dict with ``D`` (U, hi - lo, p): the change statistics of the values lo + 1 .. hi
    from lo; ``y`` (U,) the observed values; ``w`` (U,) the weights; ``n_vars``.
    """
    cdef int64_t K = hi - lo, p_cm = cm.n_stats, p = cm.n_stats, width
    cdef int64_t n, idx, v, k, j, y_cur, p_fix = 0
    cdef double* buf
    cdef double* values
    cdef double w = 1.0
    cdef CountRowTable t
    cdef cnp.int64_t[::1] vs
    cdef double[::1] ws
    cdef cnp.int64_t[::1] cols_v, fcols_v, fidx_v
    cdef double[:, :, ::1] fixed_v
    cdef int64_t* cols = NULL
    cdef bint all_vars = variables is None, split = columns is not None
    cdef int err = 0
    cdef int64_t last = -1
    if K < 1:
        raise ValueError("the support needs at least two values")
    if split:
        cols_v = np.ascontiguousarray(columns, dtype=np.int64)
        fcols_v = np.ascontiguousarray(fixed_columns, dtype=np.int64)
        fidx_v = np.ascontiguousarray(fixed_index, dtype=np.int64)
        fixed_v = np.ascontiguousarray(fixed, dtype=np.float64)
        p_fix = fcols_v.shape[0]
        p = p_cm + p_fix
        if cols_v.shape[0] != p_cm or fixed_v.shape[1] != K or fixed_v.shape[2] != p_fix:
            raise ValueError("columns / fixed do not match the model and the support")
        if p_cm:
            cols = &cols_v[0]
    width = K * p
    if all_vars:
        if split:
            raise ValueError("fixed columns need the variables")
        n = cm.free_count()         # the variables that may vary (the sample space's)
    else:
        vs = np.ascontiguousarray(variables, dtype=np.int64)
        ws = np.ascontiguousarray(weights, dtype=np.float64)
        n = vs.shape[0]
        if split and fidx_v.shape[0] != n:
            raise ValueError("fixed_index needs one row per variable")
    t.width = width
    t.n_rows = 0
    t.cap_rows = 64
    t.n_slots = 256
    t.rows = <double*>malloc(t.cap_rows * width * sizeof(double) + 8)
    t.y_obs = <int64_t*>malloc(t.cap_rows * sizeof(int64_t))
    t.weight = <double*>malloc(t.cap_rows * sizeof(double))
    t.slots = <int64_t*>calloc(t.n_slots, sizeof(int64_t))
    buf = <double*>malloc((width + (K + 1) * p_cm + 1) * sizeof(double))
    values = buf + width
    if t.rows == NULL or t.y_obs == NULL or t.weight == NULL or t.slots == NULL or buf == NULL:
        err = -1
    try:
        if err == 0:
            with nogil:
                for idx in range(n):
                    if all_vars:
                        v = idx if cm.free_vars == NULL else cm.free_vars[idx]
                    else:
                        v = vs[idx]
                        w = ws[idx]
                    y_cur = cm.get(v)
                    _changes(cm, v, lo, K, p_cm, values, buf, cols, p)
                    if split:
                        for k in range(K):
                            for j in range(p_fix):
                                buf[k * p + fcols_v[j]] = fixed_v[fidx_v[idx], k, j] + 0.0
                    if _add(&t, buf, y_cur, w, &last) != 0:
                        err = -1
                        break
        if err != 0:
            raise MemoryError("out of memory while building the count pseudo-likelihood design")
        D = np.empty((t.n_rows, K, p), dtype=np.float64)
        y = np.empty(t.n_rows, dtype=np.int64)
        wt = np.empty(t.n_rows, dtype=np.float64)
        if t.n_rows:
            memcpy(<void*>cnp.PyArray_DATA(D), t.rows, t.n_rows * width * sizeof(double))
            memcpy(<void*>cnp.PyArray_DATA(y), t.y_obs, t.n_rows * sizeof(int64_t))
            memcpy(<void*>cnp.PyArray_DATA(wt), t.weight, t.n_rows * sizeof(double))
        return {"D": D, "y": y, "w": wt, "n_vars": n}
    finally:
        free(t.rows)
        free(t.y_obs)
        free(t.weight)
        free(t.slots)
        free(buf)


def change_rows(CountModel cm, int64_t lo, int64_t hi, variables):
    """The change statistics of each variable's values lo + 1 .. hi from lo, one row per
    variable (not merged): an (m, hi - lo, n_stats) array."""
    cdef int64_t K = hi - lo, p = cm.n_stats, idx
    cdef cnp.int64_t[::1] vs = np.ascontiguousarray(variables, dtype=np.int64)
    if K < 1:
        raise ValueError("the support needs at least two values")
    out = np.zeros((vs.shape[0], K, p), dtype=np.float64)
    cdef double[:, :, ::1] o = out
    cdef double* scratch = <double*>malloc(((K + 1) * p + 1) * sizeof(double))
    if scratch == NULL:
        raise MemoryError()
    try:
        if p:
            with nogil:
                for idx in range(vs.shape[0]):
                    _changes(cm, vs[idx], lo, K, p, scratch, &o[idx, 0, 0], NULL, p)
        return out
    finally:
        free(scratch)


def nonzero_variables(CountModel cm):
    """The variables whose value is not 0 (int64, in the model's order)."""
    cdef int64_t k, m = cm.n_on()
    out = np.empty(m, dtype=np.int64)
    cdef cnp.int64_t[::1] o = out
    for k in range(m):
        o[k] = cm.on_var(k)
    return out


cdef inline bint _sorted_has(const int64_t* keys, int64_t m, int64_t key) noexcept nogil:
    # binary search of ``key`` in the increasing keys[0:m]
    cdef int64_t lo = 0, hi = m, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo < m and keys[lo] == key


def plain_representatives(members, starts, pair_a, pair_b, excluded, int n, bint directed):
    """One node pair of each class pair that is not excluded.

    Parameters
    ----------
    members : int64 array
        The nodes, grouped by class (class c is members[starts[c]:starts[c + 1]]).
    starts : int64 array
        The class offsets (K + 1).
    pair_a, pair_b : int64 arrays
        The class pairs wanted (undirected: pair_a <= pair_b); each must hold at least one
        node pair (i != j) whose key is not in ``excluded``.
    excluded : int64 array
        The increasing keys of the excluded node pairs (i * n + j; undirected with i < j).
    n : int
        The number of nodes.
    directed : bool
        Ordered pairs (else unordered, returned as i < j).

    Returns
    -------
    (m, 2) int64 array: the first pair of each class pair (in the order of its members)
    that is not excluded.  The search visits at most one more pair than the class pair
    has excluded pairs, so the whole costs O(class pairs + excluded pairs) probes.
    """
    cdef cnp.int64_t[::1] mem = np.ascontiguousarray(members, dtype=np.int64)
    cdef cnp.int64_t[::1] st = np.ascontiguousarray(starts, dtype=np.int64)
    cdef cnp.int64_t[::1] pa = np.ascontiguousarray(pair_a, dtype=np.int64)
    cdef cnp.int64_t[::1] pb = np.ascontiguousarray(pair_b, dtype=np.int64)
    cdef cnp.int64_t[::1] ex = np.ascontiguousarray(excluded, dtype=np.int64)
    cdef int64_t m = pa.shape[0], n_ex = ex.shape[0], r, p, q, p0, p1, q0, q1, u, w, key
    cdef int64_t* exp = NULL
    cdef bint found
    if n_ex:
        exp = &ex[0]
    out = np.empty((m, 2), dtype=np.int64)
    cdef cnp.int64_t[:, ::1] o = out
    with nogil:
        for r in range(m):
            p0, p1 = st[pa[r]], st[pa[r] + 1]
            q0, q1 = st[pb[r]], st[pb[r] + 1]
            found = False
            for p in range(p0, p1):
                for q in range(q0, q1):
                    u, w = mem[p], mem[q]
                    if u == w or (not directed and pa[r] == pb[r] and q <= p):
                        continue
                    if not directed and u > w:
                        u, w = w, u
                    key = u * n + w
                    if n_ex == 0 or not _sorted_has(exp, n_ex, key):
                        found = True
                        break
                if found:
                    break
            if not found:
                u = -1
                w = -1
            o[r, 0] = u
            o[r, 1] = w
    if m and np.any(out[:, 0] < 0):
        raise ValueError("a class pair has no pair outside the excluded ones")
    return out


cdef int _cmp_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


cdef struct KeyBuffer:
    int64_t* keys
    int64_t m          # keys stored
    int64_t cap


cdef inline int _push_key(KeyBuffer* buf, int64_t key) noexcept nogil:
    # append ``key``, doubling the buffer when full; -1 when memory runs out
    cdef int64_t* grown
    if buf.m == buf.cap:
        grown = <int64_t*>realloc(buf.keys, 2 * buf.cap * sizeof(int64_t))
        if grown == NULL:
            return -1
        buf.keys = grown
        buf.cap *= 2
    buf.keys[buf.m] = key
    buf.m += 1
    return 0


def near_pairs(indptr, neighbours, int n, bint two_hop, bint one_hop, bint directed):
    """The node pairs (u, w) within two steps of each other on a graph, as increasing keys
    u * n + w (undirected: u < w only; directed: both orders).

    Parameters
    ----------
    indptr, neighbours : int64 arrays
        The graph's neighbour lists (CSR: node u's are neighbours[indptr[u]:indptr[u + 1]],
        each neighbour once, symmetric).
    n : int
        The number of nodes.
    two_hop : bool
        Pairs with a common neighbour.
    one_hop : bool
        Pairs of neighbours.
    directed : bool
        Ordered pairs.

    Each pair is emitted once (a per-node stamp), each node's pairs sorted: O(Σ_k deg(k)²)
    work and no global sort.
    """
    cdef cnp.int64_t[::1] ip = np.ascontiguousarray(indptr, dtype=np.int64)
    cdef cnp.int64_t[::1] nb = np.ascontiguousarray(neighbours, dtype=np.int64)
    cdef int64_t u, r, w, a, b, start
    cdef int64_t* stamp = <int64_t*>malloc(max(n, 1) * sizeof(int64_t))
    cdef KeyBuffer out
    cdef int err = 0
    out.m, out.cap = 0, 1024
    out.keys = <int64_t*>malloc(out.cap * sizeof(int64_t))
    if stamp == NULL or out.keys == NULL:
        free(stamp)
        free(out.keys)
        raise MemoryError()
    try:
        with nogil:
            for u in range(n):
                stamp[u] = -1
            for u in range(n):
                start = out.m
                stamp[u] = u                       # never pair u with itself
                for a in range(ip[u], ip[u + 1]):
                    r = nb[a]
                    if one_hop and stamp[r] != u and (directed or r > u):
                        stamp[r] = u
                        err = _push_key(&out, u * n + r)
                        if err:
                            break
                    if not two_hop:
                        continue
                    for b in range(ip[r], ip[r + 1]):
                        w = nb[b]
                        if stamp[w] == u or (not directed and w < u):
                            continue
                        stamp[w] = u
                        err = _push_key(&out, u * n + w)
                        if err:
                            break
                    if err:
                        break
                if err:
                    break
                qsort(out.keys + start, out.m - start, sizeof(int64_t), _cmp_int64)
        if err:
            raise MemoryError("out of memory while listing the near node pairs")
        keys = np.empty(out.m, dtype=np.int64)
        if out.m:
            memcpy(<void*>cnp.PyArray_DATA(keys), out.keys, out.m * sizeof(int64_t))
        return keys
    finally:
        free(stamp)
        free(out.keys)
