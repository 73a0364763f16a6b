# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled network state: see ``_state.pxd``."""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t, uint16_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset
from ergmfit.core._hashmap cimport (
    TieMap, TieSlot, CountMap, mix64, tiemap_init, tiemap_free, tiemap_find, tiemap_put,
    tiemap_del_slot, countmap_init, countmap_free, countmap_add,
)

cdef extern from "stdlib.h" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)
    int __builtin_clzll(unsigned long long x)

cnp.import_array()

CACHE_FLAGS = {"sp": CACHE_SP, "otp": CACHE_OTP, "osp": CACHE_OSP, "isp": CACHE_ISP,
               "aotp": CACHE_AOTP}
cdef enum:
    MAX_HELD_NODES = 1048576   # held counts are packed in 20 bits (above: always on demand)
MAX_CACHE_NODES = MAX_HELD_NODES
# Bytes the held two-path counts of one state may take by default (above them the
# counts are counted on demand): "auto", CACHE_MEMORY_FACTOR times the state's own bytes
# (the network's adjacency: records, tie list, tie map), at least CACHE_MEMORY_FLOOR (1 GiB:
# every dense n x n count array, n <= DENSE_MAX_NODES, and Epinions' 256 MiB are held).  See
# the NetworkState docstring, set_cache_memory and docs/guide/large_networks.md.
DEFAULT_CACHE_MEMORY = "auto"
CACHE_MEMORY_FACTOR = 4
CACHE_MEMORY_FLOOR = 2 ** 30
cdef int64_t _cache_memory = -1         # -1: "auto"


def set_cache_memory(nbytes):
    """Set the bytes that the held two-path counts of a network state built from now on may
    take; returns the previous setting.

    Parameters
    ----------
    nbytes : int or "auto"
        Bytes (>= 0; 0 counts every two-path on demand), or ``"auto"`` (the default):
        ``CACHE_MEMORY_FACTOR`` (4) times the state's own memory, at least
        ``CACHE_MEMORY_FLOOR`` (1 GiB); see :func:`cache_budget`.  Counts that would need
        more are counted on demand: the same statistics, less memory, slower change
        statistics at high degree.

    Examples
    --------
    >>> from ergmfit.network import set_cache_memory
    >>> old = set_cache_memory(2 ** 28)
    >>> set_cache_memory(old) == 2 ** 28
    True
    """
    global _cache_memory
    from ergmfit.exceptions import SettingsError
    old = "auto" if _cache_memory < 0 else _cache_memory
    if isinstance(nbytes, str) and nbytes == "auto":
        _cache_memory = -1
        return old
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)) or nbytes < 0:
        raise SettingsError(f"cache memory must be a non-negative number of bytes or 'auto', "
                            f"not {nbytes!r}")
    _cache_memory = min(int(nbytes), 2 ** 62)
    return old


def state_bytes(int64_t n, int64_t n_ties, bint directed):
    """About the bytes a network state of ``n`` nodes and ``n_ties`` ties holds without
    two-path counts: node records and their mirrors, the tie list, the tie map and the
    neighbour lists (an estimate from the sizes, not a measurement).

    Examples
    --------
    >>> state_bytes(75879, 508837, True) // 2 ** 20      # Epinions
    26
    """
    cdef double mean_deg = n_ties / max(n, 1) * (1.0 if directed else 2.0)
    cdef int64_t rec = 64 if mean_deg <= REC_LINE_DEGREE else (128 if mean_deg <= REC_WIDE_DEGREE
                                                              else 16)
    cdef int64_t sides = 2 if directed else 1
    return int(sides * n * (rec + sizeof(int*) + sizeof(int))    # records, nb and deg mirrors
               + 2 * n_ties * sizeof(int)                      # the tie list (both ends)
               + 2 * n_ties * sizeof(TieSlot)                   # the tie map (half full or more;
                                                               # 8-byte slots)
               + 2 * n_ties * sizeof(int))                     # neighbour lists, both ends


def cache_budget(int64_t n, int64_t n_ties, bint directed):
    """The bytes the held two-path counts of a state of ``n`` nodes and ``n_ties`` ties may
    take under the current :func:`set_cache_memory` setting: the setting itself, or for
    ``"auto"`` ``max(CACHE_MEMORY_FLOOR, CACHE_MEMORY_FACTOR * state_bytes(...))``, so that
    a large state with its counts stays within about five times the state alone, and a
    small one may take up to 1 GiB of counts.

    Examples
    --------
    >>> cache_budget(75879, 508837, True) // 2 ** 20      # Epinions: its 256 MiB of counts fit
    1024
    >>> cache_budget(1632803, 30622564, True) // 2 ** 30  # Pokec's size: 4 times its state
    5
    >>> cache_budget(1000, 5000, True) == CACHE_MEMORY_FLOOR
    True
    """
    if _cache_memory >= 0:
        return int(_cache_memory)
    return int(max(CACHE_MEMORY_FLOOR, CACHE_MEMORY_FACTOR * state_bytes(n, n_ties, directed)))


ctypedef fused _row_index:
    cnp.int32_t
    cnp.int64_t


cdef void _scatter_heads(const cnp.int64_t[:] t, const cnp.int64_t[:] h, cnp.int64_t[::1] p,
                         _row_index[::1] out) noexcept nogil:
    # counting_rows' scatter: each head h[r] to its tail's cursor p[t[r]] (advanced); one
    # loop for both index widths (the int32 one when every head is below 2^31)
    cdef Py_ssize_t r
    cdef int64_t v
    for r in range(t.shape[0]):
        v = t[r]
        out[p[v]] = <_row_index>h[r]
        p[v] += 1


def counting_rows(int64_t n, tails, heads, bint small=False):
    """``(indptr, indices)``: the heads of each tail as compressed rows, by a counting sort
    (O(n + m), stable: each row in the ties' order), what
    :func:`ergmfit.network.rows.neighbour_rows` gives; ``indices`` int32 if ``small`` (every
    head below 2^31), else int64.  A tail outside 0..n-1 is a ValueError.

    Examples
    --------
    >>> indptr, indices = counting_rows(3, np.array([2, 0, 2]), np.array([0, 1, 1]))
    >>> indptr.tolist(), indices.tolist()
    ([0, 1, 1, 3], [1, 0, 1])
    """
    cdef const cnp.int64_t[:] t = np.asarray(tails, dtype=np.int64)
    cdef const cnp.int64_t[:] h = np.asarray(heads, dtype=np.int64)
    cdef Py_ssize_t r, m = t.shape[0]
    cdef int64_t v, c
    if h.shape[0] != m:
        raise ValueError("tails and heads must be equally long")
    if m and (np.min(t) < 0 or np.max(t) >= n):
        raise ValueError(f"a tail outside 0..{n - 1}")
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(m, dtype=np.int32 if small else np.int64)
    cdef cnp.int64_t[::1] p = indptr
    with nogil:
        for r in range(m):
            p[t[r] + 1] += 1
        for v in range(n):
            p[v + 1] += p[v]
    # p[v] is now where v's row starts: each head goes to its tail's cursor, the cursors
    # end where the next rows start, and are set back (p[v + 1] = p[v]'s end) from the top
    cdef cnp.int32_t[::1] i32
    cdef cnp.int64_t[::1] i64
    if small:
        i32 = indices
        with nogil:
            _scatter_heads(t, h, p, i32)
    else:
        i64 = indices
        with nogil:
            _scatter_heads(t, h, p, i64)
    with nogil:
        c = 0
        for v in range(n + 1):          # p[v] = end of v's row = start of v + 1's
            c, p[v] = p[v], c
    return indptr, indices


cdef inline int64_t _map_bytes(int64_t pairs) noexcept nogil:
    # bytes of a count map sized for ``pairs`` keys (as countmap_init sizes it)
    cdef uint64_t need = <uint64_t>(4 * pairs + 4 + 2) // 3
    if need <= 16:
        return 16 * 8
    return <int64_t>8 << (64 - __builtin_clzll(need - 1))
# Up to this many nodes the adjacency is also kept as an n x n bitmap (2 MiB):
# a lookup is then one load instead of a hash probe (about 1.5x faster
# sampling on faux.magnolia.high), and the two-path counts, when held, are
# n x n uint16 arrays (32 MiB each).  Larger networks use the hash maps only.
DENSE_MAX_NODES = 4096
# Dense storage holds the two-path counts while the mean degree is at least
# this (and drops them below half of it).  Measured on faux.magnolia.high
# (1,461 nodes, gwesp, tie/no-tie), proposals per CPU s held / counted on
# demand: mean degree 0.85: 6.4 / 7.6 M; 7.5: 3.9 / 6.9 M; 25: 2.3 / 2.9 M;
# 46: 1.9 / 0.9 M; 140: 0.41 / 0.04 M.
CACHE_DEGREE = 32.0
# Node records (see the NetworkState docstring): 64 bytes (12 neighbours inline)
# up to this mean degree per direction, 128 bytes (28 inline) up to REC_WIDE_DEGREE,
# above it 16 bytes (the neighbours always in a heap block).
REC_LINE_DEGREE = 8.0
REC_WIDE_DEGREE = 20.0
# ... and 32 bytes (4 inline) below REC_LINE_DEGREE where at least this share of the
# neighbour lists (out and in) have at most 4 entries: a heavy-tailed network, whose many
# short lists fit in half a line and whose few long ones are heap blocks anyway (Epinions:
# 80 % of out-lists and 83 % of in-lists; records 9.3 -> 4.6 MiB, neighbour blocks 3.2 ->
# 3.8 MiB, the EE loop as fast; a Poisson degree of mean 6.7 has 20 %: 64 bytes).
REC_HALF_SHARE = 0.75

cdef enum:
    ADD_AHEAD = 8       # _add_many prefetches the tie this many ahead
    HOLD_AHEAD = 4      # _hold_arcs prefetches the list this many entries ahead


def _short_lists(arr, int64_t n, bint directed):
    # at least REC_HALF_SHARE of the neighbour lists of the ties ``arr`` (m x 2) have at
    # most 4 entries (False without ties: an empty state's lists grow as they will)
    if arr is None or n == 0 or arr.shape[0] == 0:
        return False
    if arr.min() < 0 or arr.max() >= n:
        return False                     # _add_many names the bad tie
    if directed:
        short = (np.count_nonzero(np.bincount(arr[:, 0], minlength=n) <= 4)
                 + np.count_nonzero(np.bincount(arr[:, 1], minlength=n) <= 4))
        return short >= REC_HALF_SHARE * 2 * n
    return np.count_nonzero(np.bincount(arr.ravel(), minlength=n) <= 4) >= REC_HALF_SHARE * n


cdef inline int _cache_add(NetworkState s, uint16_t* dense, CountMap* sparse, bint symmetric,
                           int a, int b, int delta) noexcept nogil:
    # add ``delta`` to the two-path count of (a, b) in one cache
    cdef int64_t n = s.n
    cdef int64_t key = s.sym_key(a, b) if symmetric else a * n + b
    if dense != NULL:
        dense[key] = <uint16_t>(dense[key] + delta)
        return 0
    return countmap_add(sparse, key, delta)



cdef enum:
    UPDATE_CHUNK = 16   # held counts updated per chunk: the chunk's hash slots prefetched first


cdef inline int _cache_add_list(NetworkState s, uint16_t* dense, CountMap* sparse, bint symmetric,
                                const int* nb, int d, int skip, int fixed, bint fixed_first,
                                int delta) noexcept nogil:
    # add ``delta`` to the count of (fixed, w) (fixed_first) or (w, fixed) for every
    # w != skip of nb[0:d], in that order; on hash maps the slots of each chunk are
    # prefetched before it is updated, so that the misses at a hub overlap
    cdef int base, m, t, w
    cdef int64_t n = s.n
    cdef int64_t key
    base = 0
    while base < d:
        m = min(<int>UPDATE_CHUNK, d - base)
        if dense == NULL:
            for t in range(base, base + m):
                w = nb[t]
                if symmetric:
                    key = s.sym_key(fixed, w)
                else:
                    key = fixed * n + w if fixed_first else w * n + fixed
                __builtin_prefetch(&sparse.slots[mix64(<uint64_t>(key + 1)) & sparse.mask])
        for t in range(base, base + m):
            w = nb[t]
            if w != skip:
                if _cache_add(s, dense, sparse, symmetric, fixed if fixed_first else w,
                              w if fixed_first else fixed, delta) != 0:
                    return -1
        base += m
    return 0


cdef int64_t _distinct_pairs(NetworkState s, int flag, int* mark) noexcept nogil:
    # The number of pairs with a non-zero two-path count in the cache ``flag`` of the
    # current ties (the size its held map needs): the ends reached from each node a in two
    # steps, each counted once by a stamp mark[b] = a (``mark``: n ints), in O(two-paths)
    # time.  Symmetric caches count each unordered pair at its smaller end.
    cdef int a, w, b, x, y
    cdef int64_t total = 0
    cdef int** first_nb = s.out_nb if (flag == CACHE_OTP or flag == CACHE_ISP
                                       or flag == CACHE_SP) else s.in_nb
    cdef int* first_deg = s.out_deg if (flag == CACHE_OTP or flag == CACHE_ISP
                                        or flag == CACHE_SP) else s.in_deg
    cdef int** second_nb = s.in_nb if flag == CACHE_ISP else s.out_nb
    cdef int* second_deg = s.in_deg if flag == CACHE_ISP else s.out_deg
    cdef bint symmetric = flag != CACHE_OTP
    for a in range(s.n):
        mark[a] = -1
    for a in range(s.n):
        for x in range(first_deg[a]):
            w = first_nb[a][x]
            for y in range(second_deg[w]):
                b = second_nb[w][y]
                if b != a and mark[b] != a and (b > a or not symmetric):
                    mark[b] = a
                    total += 1
    return total


cdef int _init_count_map(NetworkState s, CountMap* m, int flag, int* mark) noexcept nogil:
    # a held map of cache ``flag`` sized once for the current ties' distinct pairs and an
    # eighth more (no growth while they are counted, and room for a chain's moves)
    cdef int64_t pairs = _distinct_pairs(s, flag, mark)
    return countmap_init(m, pairs + pairs // 8 + 16)


cdef inline void _marks_init(Marks* m) noexcept nogil:
    m.bits = NULL
    m.list = NULL
    m.n_list = 0
    m.node = -1
    m.version = -1


cdef inline void _marks_free(Marks* m) noexcept nogil:
    free(m.bits)
    free(m.list)
    _marks_init(m)


cdef inline bint _marks_alloc(Marks* m, int n) noexcept nogil:
    m.bits = <uint64_t*>calloc((<size_t>max(1, n) + 63) // 64, sizeof(uint64_t))
    m.list = <int*>malloc(<size_t>max(1, n) * sizeof(int))
    return m.bits != NULL and m.list != NULL


cdef inline void _marks_set(Marks* m, const int* nb, int d) noexcept nogil:
    # mark nb[0:d] (a neighbour list: no entry twice), the previous marks cleared
    cdef int t, w
    for t in range(m.n_list):
        m.bits[m.list[t] >> 6] = 0
    for t in range(d):
        w = nb[t]
        m.bits[w >> 6] |= (<uint64_t>1) << (w & 63)
        m.list[t] = w
    m.n_list = d


cdef inline int _count_marked(const int* nb, int d, const uint64_t* bits) noexcept nogil:
    # how many of nb[0:d] are marked in ``bits`` (a two-path count on demand, see _mark)
    cdef int t, w, c = 0
    for t in range(d):
        w = nb[t]
        c += (bits[w >> 6] >> (w & 63)) & 1
    return c


cdef inline int64_t _grown(int64_t cap) noexcept nogil:
    # the capacity an array of ``cap`` entries grows to when full: by an eighth (at least 4),
    # not twice: a state is built with each list and the tie list exactly full, and an EE
    # run adds to most of them about as often as it removes, so doubling would leave them
    # half empty (Epinions: 2.6 MB of resident memory over the run); still O(1) amortised
    return cap + max(4, cap >> 3)


# the node indices of a tie array: a Network's own (int32, Network.ties) or any other (int64)
ctypedef fused tie_index:
    cnp.int32_t
    cnp.int64_t


cdef inline int* _inline(NodeRec* r) noexcept nogil:
    # the neighbours kept in the record itself, after its head
    return <int*>(<char*>r + sizeof(NodeRec))


cdef class NetworkState:

    def __cinit__(self, int n, bint directed, ties=None, int caches=0, dense=None,
                  double cache_degree=CACHE_DEGREE, cache_memory=None):
        cdef int64_t i
        cdef double mean_deg = 0.0
        if n < 0:
            raise ValueError("number of nodes must be non-negative")
        self.n = n
        self.directed = directed
        self.adj = NULL
        self.d_sp = self.d_otp = self.d_osp = self.d_isp = NULL
        self.out_rec = self.in_rec = NULL
        _marks_init(&self.mo)
        _marks_init(&self.mi)
        _marks_init(&self.mx)
        self.cand = NULL
        self.arc_m = NULL
        if dense is None:
            dense = n <= DENSE_MAX_NODES
        elif dense and n > 65535:
            raise ValueError("dense storage supports at most 65535 nodes")
        if dense:
            self.adj = <uint64_t*>calloc(max(1, (<int64_t>n * n + 63) // 64), sizeof(uint64_t))
            if self.adj == NULL:
                raise MemoryError("cannot allocate the adjacency bitmap")
        self.n_ties = 0
        self.tie_cap = 16
        self.caches = 0
        self.cached = 0
        if not cache_degree >= 0:
            raise ValueError("cache_degree must be >= 0")
        self.cache_degree = cache_degree
        self.tp_mid = self.tp_out = self.tp_in = 0
        arr = None
        if ties is not None:
            arr = np.asarray(ties)
            # a Network's int32 ties are read as they are (no int64 copy: 8 bytes a tie
            # during the build, Epinions' 7.8 MiB, issue #35); anything else as int64
            if arr.dtype != np.int32 or arr.ndim != 2:
                arr = np.asarray(ties, dtype=np.int64)
            arr = arr.reshape(-1, 2)
            if n:
                mean_deg = arr.shape[0] / n * (1.0 if directed else 2.0)
        if cache_memory is None:
            cache_memory = cache_budget(n, 0 if arr is None else arr.shape[0], directed)
        if not cache_memory >= 0:
            raise ValueError("cache_memory must be >= 0 bytes")
        self.cache_memory = min(cache_memory, 2 ** 62)
        # record size from the mean degree: most nodes' neighbours inline
        if mean_deg <= REC_LINE_DEGREE:
            self.rec_bytes = 32 if _short_lists(arr, n, directed) else 64
        elif mean_deg <= REC_WIDE_DEGREE:
            self.rec_bytes = 128
        else:
            self.rec_bytes = 16
        self.rec_inline = (self.rec_bytes - <int>sizeof(NodeRec)) // <int>sizeof(int)
        nn = max(n, 1)
        self.out_rec = self._new_records(nn)
        self.out_nb = <int**>calloc(nn, sizeof(int*))
        self.out_deg = <int*>calloc(nn, sizeof(int))
        if directed:
            self.in_rec = self._new_records(nn)
            self.in_nb = <int**>calloc(nn, sizeof(int*))
            self.in_deg = <int*>calloc(nn, sizeof(int))
        else:
            self.in_rec = self.out_rec
            self.in_nb = self.out_nb
            self.in_deg = self.out_deg
        self.ends = <int*>malloc(self.tie_cap * 2 * sizeof(int))
        if (self.out_rec == NULL or self.out_nb == NULL or self.out_deg == NULL
                or self.in_rec == NULL or self.in_nb == NULL or self.in_deg == NULL
                or self.ends == NULL):
            raise MemoryError("cannot allocate the network state")
        self._init_records(self.out_rec, self.out_nb, nn)
        if directed:
            self._init_records(self.in_rec, self.in_nb, nn)
        if tiemap_init(&self.tie_map, 16, <int64_t>n * n) != 0:
            raise MemoryError("cannot allocate the network state")
        if arr is not None:
            self._add_many(arr)
        if caches:
            self.enable_caches(caches)

    cdef char* _new_records(self, int64_t nn):
        cdef void* p = NULL
        if posix_memalign(&p, 64, <size_t>nn * <size_t>self.rec_bytes) != 0:
            return NULL
        return <char*>p

    cdef void _init_records(self, char* recs, int** mirror, int64_t nn):
        cdef int64_t v
        cdef NodeRec* r
        for v in range(nn):
            r = <NodeRec*>(recs + <size_t>v * <size_t>self.rec_bytes)
            r.deg = 0
            r.cap = self.rec_inline
            r.nb = _inline(r) if self.rec_inline else NULL
            mirror[v] = r.nb

    def __dealloc__(self):
        cdef int i
        cdef NodeRec* r
        if self.out_rec != NULL:
            for i in range(self.n):
                r = self.orec(i)
                if r.nb != _inline(r):
                    free(r.nb)
        if self.directed and self.in_rec != NULL:
            for i in range(self.n):
                r = self.irec(i)
                if r.nb != _inline(r):
                    free(r.nb)
            free(self.in_rec); free(self.in_nb); free(self.in_deg)
        free(self.out_rec); free(self.out_nb); free(self.out_deg)
        free(self.ends)
        tiemap_free(&self.tie_map)
        countmap_free(&self.sp); countmap_free(&self.otp)
        countmap_free(&self.osp); countmap_free(&self.isp)
        free(self.adj)
        free(self.d_sp); free(self.d_otp); free(self.d_osp); free(self.d_isp)
        _marks_free(&self.mo); _marks_free(&self.mi); _marks_free(&self.mx)
        free(self.cand)
        free(self.arc_m)
        free(self.tp_buf)

    def _add_many(self, const tie_index[:, :] arr):
        cdef Py_ssize_t k
        cdef int i, j
        cdef int64_t m = arr.shape[0]
        if m and self._presize(np.asarray(arr), m) != 0:
            raise MemoryError("out of memory while adding ties")
        for k in range(arr.shape[0]):
            if k + ADD_AHEAD < m:
                # the records and hash slot of a tie to come: their cache misses overlap
                # (Epinions' state built in about half the time)
                i = <int>arr[k + ADD_AHEAD, 0]; j = <int>arr[k + ADD_AHEAD, 1]
                if 0 <= i < self.n and 0 <= j < self.n:
                    self.prefetch_ahead(i, j, False)
            i = <int>arr[k, 0]; j = <int>arr[k, 1]
            if i < 0 or j < 0 or i >= self.n or j >= self.n:
                raise ValueError(f"tie ({i}, {j}) refers to a node outside 0..{self.n - 1}")
            if i == j:
                raise ValueError(f"self-loop at node {i}: ERGMs here have no loops")
            if self.has_tie(i, j):
                raise ValueError(f"duplicate tie ({i}, {j})")
            if self.add_tie(i, j) != 0:
                raise MemoryError("out of memory while adding ties")

    def _presize(self, arr, int64_t m):
        # room for m more ties everywhere at once: set-up linear in the ties,
        # without rehashing or reallocating as they arrive one by one
        cdef cnp.int64_t[::1] want_out, want_in
        cdef int64_t total = self.n_ties + m
        cdef int v, c, rc = 0
        if arr.min() < 0 or arr.max() >= self.n:
            return 0                     # _add_many names the bad tie
        if self.tie_map.size == 0 and <uint64_t>(5 * total // 3 + 2) > self.tie_map.mask + 1:
            # sized for a load of at most 0.6 (the table grows at 0.75): 8 M slots,
            # 134 MB, for the 5 M ties of G(10^6, 10 / n) instead of 268 MB at 1/2
            tiemap_free(&self.tie_map)
            if tiemap_init(&self.tie_map, 5 * total // 6, <int64_t>self.n * self.n) != 0:
                return -1
        if total > self.tie_cap and self._reserve_ties(total) != 0:
            return -1
        if self.directed:
            want_out = np.bincount(arr[:, 0], minlength=self.n).astype(np.int64)
            want_in = np.bincount(arr[:, 1], minlength=self.n).astype(np.int64)
        else:
            want_out = np.bincount(arr.ravel(), minlength=self.n).astype(np.int64)
            want_in = want_out
        with nogil:
            for v in range(self.n):
                c = self.orec(v).deg + <int>want_out[v]
                if c > self.orec(v).cap and self._reserve(self.orec(v), self.out_nb, v, c) != 0:
                    rc = -1
                    break
                c = self.irec(v).deg + <int>want_in[v]
                if (self.directed and c > self.irec(v).cap
                        and self._reserve(self.irec(v), self.in_nb, v, c) != 0):
                    rc = -1
                    break
        return rc

    # ------------------------------------------------------------------
    # compiled operations
    # ------------------------------------------------------------------
    cdef int _reserve_ties(self, int64_t cap) noexcept nogil:
        # room for cap ties in the flat tie list
        cdef int* p
        if self.arc_m != NULL:
            p = <int*>realloc(self.arc_m, cap * sizeof(int))
            if p == NULL: return -1
            self.arc_m = p
        p = <int*>realloc(self.ends, cap * 2 * sizeof(int))
        if p == NULL: return -1
        self.ends = p
        self.tie_cap = cap
        return 0

    cdef int _reserve(self, NodeRec* r, int** nb_mirror, int v, int newcap) noexcept nogil:
        # grow v's neighbour array to newcap (out of the record into a heap block)
        cdef int* p
        if r.nb == _inline(r) or r.nb == NULL:
            p = <int*>malloc(<size_t>newcap * sizeof(int))
            if p == NULL:
                return -1
            if r.deg:
                memcpy(p, r.nb, r.deg * sizeof(int))
        else:
            p = <int*>realloc(r.nb, <size_t>newcap * sizeof(int))
            if p == NULL:
                return -1
        r.nb = p
        r.cap = newcap
        nb_mirror[v] = p
        return 0

    cdef int _push(self, NodeRec* r, int** nb_mirror, int* deg_mirror, int v, int w) noexcept nogil:
        # append neighbour w to v's array; -1 if out of memory
        if r.deg == r.cap:
            if self._reserve(r, nb_mirror, v, _grown(r.cap)) != 0:
                return -1
        r.nb[r.deg] = w
        r.deg += 1
        deg_mirror[v] = r.deg
        return 0

    cdef void _drop(self, NodeRec* r, int* deg_mirror, int v, int w) noexcept nogil:
        # remove neighbour w (present) from v's array: the last one moves into its place
        cdef int* nb = r.nb
        cdef int p = 0, last = r.deg - 1
        while nb[p] != w:
            p += 1
        nb[p] = nb[last]
        r.deg = last
        deg_mirror[v] = last

    cdef void _set_adj(self, int i, int j, bint on) noexcept nogil:
        cdef uint64_t k = <uint64_t>i * <uint64_t>self.n + <uint64_t>j
        cdef uint64_t k2 = <uint64_t>j * <uint64_t>self.n + <uint64_t>i
        if on:
            self.adj[k >> 6] |= (<uint64_t>1) << (k & 63)
            if not self.directed:
                self.adj[k2 >> 6] |= (<uint64_t>1) << (k2 & 63)
        else:
            self.adj[k >> 6] &= ~((<uint64_t>1) << (k & 63))
            if not self.directed:
                self.adj[k2 >> 6] &= ~((<uint64_t>1) << (k2 & 63))

    cdef int add_tie(self, int i, int j) noexcept nogil:
        """Add tie i->j (i--j), which must be absent; -1 if out of memory."""
        cdef int e, t
        if not self.directed and i > j:
            t = i; i = j; j = t
        # the version moves on just before the neighbour arrays change: until then the
        # marks of this version (mark_out / mark_in) still describe the lists, and the
        # per-arc counts' update (_arc_side) and the new arc's own count may read them
        if self.cached:
            if self._update_caches(i, j, 1) != 0:
                self.version += 1
                return -1
        if self.n_ties == self.tie_cap and self._reserve_ties(_grown(self.tie_cap)) != 0:
            self.version += 1
            return -1
        e = <int>self.n_ties
        self.ends[2 * e] = i
        self.ends[2 * e + 1] = j
        if self.arc_m != NULL:
            self.arc_m[e] = self.count_otp(i, j)     # the new arc's own count
        self.version += 1
        self.tp_out += self.orec(i).deg
        self.tp_in += self.irec(j).deg
        self.tp_mid += self.irec(i).deg + self.orec(j).deg
        if (self._push(self.orec(i), self.out_nb, self.out_deg, i, j) != 0
                or self._push(self.irec(j), self.in_nb, self.in_deg, j, i) != 0):
            return -1
        if self.adj != NULL:
            self._set_adj(i, j, 1)
        if tiemap_put(&self.tie_map, self.dyad_key(i, j), e) != 0:
            return -1
        self.n_ties += 1
        if self.cached & CACHE_PAIRS and self._held_bytes() > self.cache_memory:
            self._drop_counts()          # outgrew its memory: counted on demand from now on
        elif self.caches & CACHE_PAIRS & ~self.cached and self._hold_wanted():
            return self._hold_counts(self.caches & CACHE_PAIRS & ~self.cached)
        return 0

    cdef int remove_tie(self, int i, int j) noexcept nogil:
        """Remove tie i->j (i--j) if present."""
        cdef int e, t, last, a, b
        cdef TieSlot* slot
        if not self.directed and i > j:
            t = i; i = j; j = t
        slot = tiemap_find(&self.tie_map, self.dyad_key(i, j))
        if slot == NULL:
            return 0
        e = <int>slot.val
        if self.cached:                 # (the version moves on after: see add_tie)
            if self._update_caches(i, j, -1) != 0:
                self.version += 1
                return -1
        self.version += 1
        self._drop(self.orec(i), self.out_deg, i, j)
        self._drop(self.irec(j), self.in_deg, j, i)
        self.tp_out -= self.orec(i).deg
        self.tp_in -= self.irec(j).deg
        self.tp_mid -= self.irec(i).deg + self.orec(j).deg
        if self.adj != NULL:
            self._set_adj(i, j, 0)
        tiemap_del_slot(&self.tie_map, slot)
        # flat tie list: move the last tie into slot e
        last = <int>self.n_ties - 1
        if e != last:
            a = self.ends[2 * e] = self.ends[2 * last]
            b = self.ends[2 * e + 1] = self.ends[2 * last + 1]
            tiemap_find(&self.tie_map, self.dyad_key(a, b)).val = e
            if self.arc_m != NULL:
                self.arc_m[e] = self.arc_m[last]
        self.n_ties -= 1
        if self.cached & CACHE_PAIRS and 4.0 * self.n_ties < self.cache_degree * self.n:
            self._drop_counts()
        return 0

    cdef int toggle(self, int i, int j) noexcept nogil:
        if self.has_tie(i, j):
            return self.remove_tie(i, j)
        return self.add_tie(i, j)

    cdef int _update_caches(self, int i, int j, int delta) noexcept nogil:
        # Called before the neighbour arrays change; the toggled pair itself
        # is excluded, so the same code serves additions and removals.
        if not self.directed:
            if self.cached & CACHE_SP:
                if (_cache_add_list(self, self.d_sp, &self.sp, 1, self.onb(j), self.odeg(j),
                                    i, i, 1, delta) != 0
                        or _cache_add_list(self, self.d_sp, &self.sp, 1, self.onb(i),
                                           self.odeg(i), j, j, 1, delta) != 0):
                    return -1
            return 0
        if self.arc_m != NULL:
            self._update_arcs(i, j, delta)
        if self.cached & CACHE_OTP:
            # i->j->w, then w->i->j
            if (_cache_add_list(self, self.d_otp, &self.otp, 0, self.onb(j), self.odeg(j),
                                i, i, 1, delta) != 0
                    or _cache_add_list(self, self.d_otp, &self.otp, 0, self.inb(i), self.ideg(i),
                                       j, j, 0, delta) != 0):
                return -1
        if self.cached & CACHE_OSP:               # i becomes a common in-neighbour of j and w
            if _cache_add_list(self, self.d_osp, &self.osp, 1, self.onb(i), self.odeg(i),
                               j, j, 1, delta) != 0:
                return -1
        if self.cached & CACHE_ISP:               # j becomes a common out-neighbour of i and w
            if _cache_add_list(self, self.d_isp, &self.isp, 1, self.inb(j), self.ideg(j),
                               i, i, 1, delta) != 0:
                return -1
        return 0

    cdef void _update_arcs(self, int i, int j, int delta) noexcept nogil:
        # the per-arc counts a toggle of i->j changes (called before the neighbour arrays
        # change): the two-path i->j->w counts in M(i, w) for the arcs i->w, w in out(j),
        # and w->i->j in M(w, j) for the arcs w->j, w in in(i)
        self._arc_side(self.onb(i), self.odeg(i), self.onb(j), self.odeg(j), i, 1, j, delta)
        self._arc_side(self.inb(j), self.ideg(j), self.inb(i), self.ideg(i), j, 0, i, delta)

    cdef void _arc_side(self, const int* fl, int fd, const int* ol, int od, int fixed,
                        bint fixed_tail, int other, int delta) noexcept nogil:
        # add delta to the count of the arc fixed->w (fixed_tail) or w->fixed for every w
        # in both fixed's list fl (out(fixed) or in(fixed)) and other's list ol: the
        # shorter list scanned, the other side found by a tie-map probe (which gives the
        # arc's index when ol is scanned) or by scratch marks of ol
        cdef int t, w
        cdef TieSlot* slot
        cdef int64_t n = self.n
        cdef Marks* fm = &self.mo if fixed_tail else &self.mi
        if od <= fd:
            if fm.node == fixed and fm.version == self.version:
                # fixed's list marked by the change statistic of this toggle (the kernels'
                # mark_out / mark_in, this version): only the members are probed
                for t in range(od):
                    w = ol[t]
                    if is_marked(fm, w):
                        slot = tiemap_find(&self.tie_map, fixed * n + w if fixed_tail
                                           else w * n + fixed)
                        self.arc_m[slot.val] += delta
                return
            for t in range(od):
                w = ol[t]
                slot = tiemap_find(&self.tie_map, fixed * n + w if fixed_tail else w * n + fixed)
                if slot != NULL:
                    self.arc_m[slot.val] += delta
            return
        if od <= MARK_RATIO * fd and self._scratch(ol, od):
            for t in range(fd):
                w = fl[t]
                if self.scratch_marked(w):
                    slot = tiemap_find(&self.tie_map, fixed * n + w if fixed_tail else w * n + fixed)
                    self.arc_m[slot.val] += delta
            return
        for t in range(fd):
            w = fl[t]
            if self.has_tie(other, w) if fixed_tail else self.has_tie(w, other):
                slot = tiemap_find(&self.tie_map, fixed * n + w if fixed_tail else w * n + fixed)
                self.arc_m[slot.val] += delta

    cdef bint _arcs_wanted(self) noexcept nogil:
        # hold per-arc counts where a term asks for them (CACHE_AOTP), the counts of every
        # pair (OTP) are not held, and their 4 bytes an arc fit in what cache_memory leaves
        return (self.directed and self.caches & CACHE_AOTP and self.arc_m == NULL
                and not (self.cached & CACHE_OTP)
                and <int64_t>sizeof(int) * max(self.tie_cap, self.n_ties)
                + self._held_bytes() <= self.cache_memory)

    cdef int _hold_arcs(self) noexcept nogil:
        # count M(a, b) of every arc a->b: for each tail a, the two-paths a->w->b counted
        # into a dense array of n counters (cnt[b]), read at a's out-neighbours and reset;
        # O(sum_w in(w) out(w)) in all.  The list HOLD_AHEAD entries on is prefetched (10 %
        # faster on Epinions; stamping a's out-neighbours and counting only at them, one walk
        # instead of two, was 15 % slower)
        cdef int a, x
        cdef int64_t e, n = self.n
        cdef int* cnt
        cdef int* nb
        cdef TieSlot* slot
        if self.arc_m == NULL:
            self.arc_m = <int*>malloc(<size_t>max(1, self.tie_cap) * sizeof(int))
            if self.arc_m == NULL:
                return -1
        cnt = <int*>calloc(<size_t>max(1, self.n), sizeof(int))
        if cnt == NULL:
            free(self.arc_m)
            self.arc_m = NULL
            return -1
        # where the tie list holds each tail's arcs in one run (ties added tail by tail, as
        # a state built from a tie array grouped by tail: Epinions' SNAP file), the counts
        # are read at each arc of the run, in the tie list's order, without a tie-map probe
        # per arc (a cache miss each on a large map); else at a's out-neighbours, probed
        if _tails_grouped(self.ends, self.n_ties, self.out_deg):
            e = 0
            while e < self.n_ties:
                a = self.ends[2 * e]
                _count_two_paths(self, a, cnt, 1)
                for x in range(self.out_deg[a]):
                    self.arc_m[e + x] = cnt[self.ends[2 * (e + x) + 1]]
                _count_two_paths(self, a, cnt, 0)
                e += self.out_deg[a]
        else:
            for a in range(self.n):
                nb = self.out_nb[a]
                _count_two_paths(self, a, cnt, 1)
                for x in range(self.out_deg[a]):
                    slot = tiemap_find(&self.tie_map, a * n + nb[x])
                    self.arc_m[slot.val] = cnt[nb[x]]
                _count_two_paths(self, a, cnt, 0)
        free(cnt)
        self.cached |= CACHE_AOTP
        return 0

    cdef void _served(self) noexcept nogil:
        # the CACHE_AOTP bit of ``cached``: arcs' counts served from memory, by the
        # per-arc counts or by the held counts of every pair
        if self.caches & CACHE_AOTP and (self.arc_m != NULL or self.cached & CACHE_OTP):
            self.cached |= CACHE_AOTP
        else:
            self.cached &= ~CACHE_AOTP

    # ------------------------------------------------------------------
    # Python API
    # ------------------------------------------------------------------
    @property
    def dense(self):
        """True if the adjacency (and any two-path cache) is held as dense n x n arrays."""
        return self.adj != NULL

    def enable_caches(self, int flags, bint require_held=False):
        """Provide the two-path counts named by ``flags`` from now on: held in memory
        (built from the current ties) when the mean degree and ``cache_memory`` allow
        (see the class docstring), else counted on demand.

        Parameters
        ----------
        flags : int
            Bit flags of the counts (``CACHE_FLAGS``: ``sp``, ``otp``, ``osp``, ``isp``).
        require_held : bool
            Hold the counts whatever the mean degree, and raise ``MemoryError`` naming the
            bytes they need where they cannot be held (more than 2^20 nodes, or more than
            ``cache_memory``) instead of counting them on demand.
        """
        cdef int new = flags & ~self.caches
        cdef int rc = 0
        cdef int64_t need
        if not new:
            return
        if not self.directed and (new & (CACHE_OTP | CACHE_OSP | CACHE_ISP | CACHE_AOTP)):
            raise ValueError("directed two-path caches on an undirected network")
        if self.directed and (new & CACHE_SP):
            raise ValueError("the undirected shared-partner cache on a directed network")
        if require_held:
            need = self._estimated_bytes(self.caches | new)
            if ((self.caches | new) & CACHE_AOTP and not ((self.caches | new) & CACHE_OTP)
                    and self.adj == NULL):
                need += sizeof(int) * max(self.tie_cap, self.n_ties)    # per-arc counts
            if self.n > MAX_HELD_NODES and (self.caches | new) & CACHE_PAIRS:
                raise MemoryError(f"held two-path counts support at most {MAX_HELD_NODES} nodes, "
                                  f"this network has {self.n}: count them on demand")
            if need > self.cache_memory:
                raise MemoryError(f"held two-path counts of this network may need {need:,} bytes = "
                                  f"{need / 2**20:,.2f} MiB, above the cache_memory setting "
                                  f"({self.cache_memory:,} bytes): raise it (set_cache_memory) or "
                                  "count them on demand")
            self.cache_degree = 0.0
        if new & CACHE_AOTP and self.adj != NULL:
            # dense storage: the n x n counts of every pair (one load each) where they are held
            new |= CACHE_OTP & ~self.caches
        self.caches |= new
        if new & CACHE_PAIRS and (self.cached & CACHE_PAIRS or self._hold_wanted()):
            with nogil:
                rc = self._hold_counts(new & CACHE_PAIRS)
        if rc == 0 and self._arcs_wanted():
            with nogil:
                rc = self._hold_arcs()
        self._served()
        if rc != 0:
            raise MemoryError("out of memory while building the two-path caches")

    cdef bint _hold_wanted(self) noexcept nogil:
        # hold the counts from a mean degree of cache_degree on, while they fit in
        # cache_memory (see the class docstring)
        return (self.n <= MAX_HELD_NODES and 2.0 * self.n_ties >= self.cache_degree * self.n
                and self._estimated_bytes(self.caches) <= self.cache_memory)

    cdef int64_t _estimated_bytes(self, int flags) noexcept nogil:
        # an upper bound on the bytes of the held counts of ``flags`` (dense: n x n
        # uint16 each; hash maps: sized for every two-path being a distinct pair)
        cdef int64_t total = 0
        cdef int64_t dense_bytes = <int64_t>self.n * self.n * <int64_t>sizeof(uint16_t)
        if flags & CACHE_SP:
            total += dense_bytes if self.adj != NULL else _map_bytes(self.tp_out + self.tp_in)
        if flags & CACHE_OTP:
            total += dense_bytes if self.adj != NULL else _map_bytes(self.tp_mid)
        if flags & CACHE_OSP:
            total += dense_bytes if self.adj != NULL else _map_bytes(self.tp_out)
        if flags & CACHE_ISP:
            total += dense_bytes if self.adj != NULL else _map_bytes(self.tp_in)
        return total

    cdef int64_t _held_bytes(self) noexcept nogil:
        # bytes of the held count maps now (dense counts never grow)
        if self.adj != NULL:
            return 0
        return <int64_t>8 * <int64_t>((self.sp.mask + 1 if self.sp.slots != NULL else 0)
                                      + (self.otp.mask + 1 if self.otp.slots != NULL else 0)
                                      + (self.osp.mask + 1 if self.osp.slots != NULL else 0)
                                      + (self.isp.mask + 1 if self.isp.slots != NULL else 0))

    @property
    def two_path_bytes(self):
        """(bytes held by the two-path counts now, upper bound on the bytes holding all the
        enabled ones would take): for diagnostics and the memory reports of benchmarks/.
        Per-arc counts (CACHE_AOTP) count 4 bytes an arc of the tie list's capacity."""
        held = self._held_bytes()
        if self.adj != NULL:
            held = sum(self.n * self.n * 2 for f in (CACHE_SP, CACHE_OTP, CACHE_OSP, CACHE_ISP)
                       if self.cached & f)
        arcs = self.tie_cap * sizeof(int)
        return (held + (arcs if self.arc_m != NULL else 0),
                self._estimated_bytes(self.caches) + (arcs if self.caches & CACHE_AOTP else 0))

    def reserve_two_paths(self, ties):
        """Size this empty state (its adjacency and held two-path count maps) for the network
        of ``ties``.

        Adding those ties one by one (the statistics accumulated from the empty network,
        ``ERGM.statistics_vector``) then never grows a map: a growing map holds its old and
        new slots at once (1.5 x its final size), while a map sized up front holds only its
        own.  The counts, hence every statistic, are the same either way.  Nothing happens
        unless the state is empty and holds hash-map counts (``two_path_bytes``).
        If the counts of that network would exceed ``cache_memory`` (the rule
        :meth:`enable_caches` applies), they are dropped here and counted on demand throughout.

        Parameters
        ----------
        ties : array-like of shape (m, 2)
            The ties that will be added (node ids; each unordered pair once if undirected).
        """
        cdef NetworkState full
        cdef int* mark
        cdef int rc = 0
        if self.n_ties != 0:
            return
        try:
            arr = np.ascontiguousarray(ties, dtype=np.int64).reshape(-1, 2)
        except (ValueError, TypeError, OverflowError):
            return      # bad ties: adding them reports what is wrong
        # the adjacency too: tie list, tie map and neighbour lists sized once (no doubling)
        if len(arr) and self._presize(arr, len(arr)) != 0:
            raise MemoryError("out of memory while sizing the network state")
        if self.adj != NULL or not (self.cached & CACHE_PAIRS):
            return
        try:
            need = self._estimated_bytes_of(ties)
        except (ValueError, TypeError, OverflowError):
            return      # bad ties: adding them reports what is wrong
        if need > self.cache_memory:
            # the network of ``ties`` would not hold its counts (the rule enable_caches
            # applies to it): counted on demand from the start, never held and then dropped
            self._drop_counts()
            self.cache_memory = 0
            return
        try:
            full = NetworkState(self.n, self.directed, ties, cache_memory=0)
        except (ValueError, TypeError, OverflowError):
            return
        mark = <int*>malloc(max(1, self.n) * sizeof(int))
        if mark == NULL:
            raise MemoryError("cannot size the two-path caches")
        with nogil:
            if self.cached & CACHE_SP:
                countmap_free(&self.sp)
                rc = _init_count_map(full, &self.sp, CACHE_SP, mark) if rc == 0 else rc
            if self.cached & CACHE_OTP:
                countmap_free(&self.otp)
                rc = _init_count_map(full, &self.otp, CACHE_OTP, mark) if rc == 0 else rc
            if self.cached & CACHE_OSP:
                countmap_free(&self.osp)
                rc = _init_count_map(full, &self.osp, CACHE_OSP, mark) if rc == 0 else rc
            if self.cached & CACHE_ISP:
                countmap_free(&self.isp)
                rc = _init_count_map(full, &self.isp, CACHE_ISP, mark) if rc == 0 else rc
        free(mark)
        if rc != 0:
            self._drop_counts()
            raise MemoryError("out of memory while sizing the two-path caches")

    def _estimated_bytes_of(self, ties):
        # _estimated_bytes(cached) of the hash-map state holding ``ties``, from the degrees
        # (what add_tie's two-path counters would reach: sum of C(out-degree, 2), of
        # C(in-degree, 2), of in-degree x out-degree), without building that state
        cdef int64_t total = 0
        arr = np.asarray(ties, dtype=np.int64).reshape(-1, 2)
        if arr.size and (arr.min() < 0 or arr.max() >= self.n):
            raise ValueError("a tie refers to a node outside the network")
        if not self.directed:
            deg = np.bincount(arr.ravel(), minlength=self.n)
            if self.cached & CACHE_SP:
                total += _map_bytes(int((deg * (deg - 1) // 2).sum()))
            return total
        dout = np.bincount(arr[:, 0], minlength=self.n)
        din = np.bincount(arr[:, 1], minlength=self.n)
        if self.cached & CACHE_OTP:
            total += _map_bytes(int((din * dout).sum()))
        if self.cached & CACHE_OSP:
            total += _map_bytes(int((dout * (dout - 1) // 2).sum()))
        if self.cached & CACHE_ISP:
            total += _map_bytes(int((din * (din - 1) // 2).sum()))
        return total

    cdef int _hold_counts(self, int flags) noexcept nogil:
        # allocate the counts of ``flags`` (dense n x n or hash maps sized for the distinct
        # pairs of the current ties: no map grows, so no old and new copy at once, while
        # they are counted) and count them
        cdef int64_t nn = max(1, <int64_t>self.n * self.n)
        cdef bint failed
        cdef int* mark
        if self.adj == NULL:
            mark = <int*>malloc(max(1, self.n) * sizeof(int))
            failed = (mark == NULL
                      or (flags & CACHE_SP and _init_count_map(self, &self.sp, CACHE_SP, mark) != 0)
                      or (flags & CACHE_OTP
                          and _init_count_map(self, &self.otp, CACHE_OTP, mark) != 0)
                      or (flags & CACHE_OSP
                          and _init_count_map(self, &self.osp, CACHE_OSP, mark) != 0)
                      or (flags & CACHE_ISP
                          and _init_count_map(self, &self.isp, CACHE_ISP, mark) != 0))
            free(mark)
        else:
            # dense storage: at most n - 2 per pair, so uint16 suffices below 65537 nodes
            if flags & CACHE_SP:
                self.d_sp = <uint16_t*>calloc(nn, sizeof(uint16_t))
            if flags & CACHE_OTP:
                self.d_otp = <uint16_t*>calloc(nn, sizeof(uint16_t))
            if flags & CACHE_OSP:
                self.d_osp = <uint16_t*>calloc(nn, sizeof(uint16_t))
            if flags & CACHE_ISP:
                self.d_isp = <uint16_t*>calloc(nn, sizeof(uint16_t))
            failed = ((flags & CACHE_SP and self.d_sp == NULL)
                      or (flags & CACHE_OTP and self.d_otp == NULL)
                      or (flags & CACHE_OSP and self.d_osp == NULL)
                      or (flags & CACHE_ISP and self.d_isp == NULL))
        if failed or self._build_caches(flags) != 0:
            self._drop_counts()
            return -1
        self.cached |= flags
        self._served()
        return 0

    cdef void _drop_counts(self) noexcept nogil:
        free(self.d_sp); free(self.d_otp); free(self.d_osp); free(self.d_isp)
        self.d_sp = self.d_otp = self.d_osp = self.d_isp = NULL
        countmap_free(&self.sp); countmap_free(&self.otp)
        countmap_free(&self.osp); countmap_free(&self.isp)
        self.cached = 0                     # per-arc counts stay (4 bytes an arc) ...
        if self._arcs_wanted():
            self._hold_arcs()               # ... or are taken up where OTP held them
        self._served()

    # two-path counts on demand: scan the shorter neighbour list, look up the other side
    cdef bint _alloc_marks(self) noexcept nogil:
        # the marks and the candidate buffer, at the first mark
        if self.cand != NULL:
            return 1
        self.cand = <int*>malloc(<size_t>max(1, self.n) * sizeof(int))
        if (self.cand == NULL or not _marks_alloc(&self.mo, self.n)
                or not _marks_alloc(&self.mi, self.n) or not _marks_alloc(&self.mx, self.n)):
            _marks_free(&self.mo); _marks_free(&self.mi); _marks_free(&self.mx)
            free(self.cand)
            self.cand = NULL
            return 0
        return 1

    cdef bint _mark(self, int v, bint incoming) noexcept nogil:
        # mark v's in-list (incoming) or out-list in its slot
        cdef NodeRec* r = self.irec(v) if incoming else self.orec(v)
        cdef Marks* m = &self.mi if incoming else &self.mo
        if not self._alloc_marks():
            return 0
        _marks_set(m, r.nb, r.deg)
        m.node = v
        m.version = self.version
        return 1

    cdef bint _scratch(self, const int* nb, int d) noexcept nogil:
        # mark nb[0:d] in the scratch marks (one count or intersection at a time);
        # False if out of memory
        if not self._alloc_marks():
            return 0
        _marks_set(&self.mx, nb, d)
        return 1

    cdef int count_common(self, int a, int b, bint incoming) noexcept nogil:
        # #{w: w -> a, w -> b} (incoming) or #{w: a -> w, b -> w};
        # undirected: the common neighbours of a and b
        cdef int t, w, c = 0
        cdef NodeRec* ra = self.irec(a) if incoming else self.orec(a)
        cdef NodeRec* rb = self.irec(b) if incoming else self.orec(b)
        cdef int da = ra.deg, db = rb.deg
        cdef int* la = ra.nb
        cdef int* lb = rb.nb
        cdef Marks* m = &self.mi if incoming else &self.mo
        if m.node >= 0 and m.version == self.version:
            # one of the lists marked (mark_in / mark_out): scan the other against the marks
            if m.node == a and db <= MARK_RATIO * da:
                return _count_marked(lb, db, m.bits)
            if m.node == b and da <= MARK_RATIO * db:
                return _count_marked(la, da, m.bits)
        if da > db:
            a, b, da, db, la, lb = b, a, db, da, lb, la
        if self.scan_cheaper(da, db):
            # hash storage, two short lists: compare them instead of hashing
            for t in range(da):
                c += in_list(lb, db, la[t])
            return c
        if self.adj == NULL and db < MARK_RATIO * da:
            # hash storage: the shorter list marked, the longer scanned, cheaper than probing
            if self._scratch(la, da):
                return _count_marked(lb, db, self.mx.bits)
        for t in range(da):
            w = la[t]
            if (self.has_tie(w, b) if incoming else self.has_tie(b, w)):
                c += 1
        return c

    cdef int count_otp(self, int a, int b) noexcept nogil:
        # #{w: a -> w -> b}
        cdef int t, c = 0
        cdef NodeRec* ra = self.orec(a)
        cdef NodeRec* rb = self.irec(b)
        cdef int da = ra.deg, db = rb.deg
        # out(a) or in(b) marked (mark_out / mark_in): scan the other list against the marks
        if self.mo.node == a and self.mo.version == self.version and db <= MARK_RATIO * da:
            return _count_marked(rb.nb, db, self.mo.bits)
        if self.mi.node == b and self.mi.version == self.version and da <= MARK_RATIO * db:
            return _count_marked(ra.nb, da, self.mi.bits)
        if self.adj == NULL and da < MARK_RATIO * db and db < MARK_RATIO * da:
            # hash storage: the shorter list marked, the longer scanned, cheaper than probing
            if da <= db:
                if self._scratch(ra.nb, da):
                    return _count_marked(rb.nb, db, self.mx.bits)
            elif self._scratch(rb.nb, db):
                return _count_marked(ra.nb, da, self.mx.bits)
        if da <= db:
            for t in range(da):
                if self.has_tie(ra.nb[t], b):
                    c += 1
        else:
            for t in range(db):
                if self.has_tie(a, rb.nb[t]):
                    c += 1
        return c

    cdef int _build_caches(self, int new) noexcept nogil:
        # Count every two-path once, centred at its middle node w: the pairs of one
        # end a with w's other neighbours go through _cache_add_list, which prefetches
        # each chunk's hash slots before updating them (on Epinions' 20.5 M OTP pairs
        # the misses then overlap instead of queueing one after another)
        cdef int w, x, a, d
        cdef int* nb
        for w in range(self.n):
            if new & CACHE_SP:
                nb = self.out_nb[w]
                d = self.out_deg[w]
                for x in range(d - 1):
                    if _cache_add_list(self, self.d_sp, &self.sp, 1, nb + x + 1, d - x - 1,
                                       -1, nb[x], 1, 1) != 0:
                        return -1
            if new & CACHE_OTP:       # a -> w -> b, a != b
                for x in range(self.in_deg[w]):
                    a = self.in_nb[w][x]
                    if _cache_add_list(self, self.d_otp, &self.otp, 0, self.out_nb[w],
                                       self.out_deg[w], a, a, 1, 1) != 0:
                        return -1
            if new & CACHE_OSP:       # w -> a and w -> b
                nb = self.out_nb[w]
                d = self.out_deg[w]
                for x in range(d - 1):
                    if _cache_add_list(self, self.d_osp, &self.osp, 1, nb + x + 1, d - x - 1,
                                       -1, nb[x], 1, 1) != 0:
                        return -1
            if new & CACHE_ISP:       # a -> w and b -> w
                nb = self.in_nb[w]
                d = self.in_deg[w]
                for x in range(d - 1):
                    if _cache_add_list(self, self.d_isp, &self.isp, 1, nb + x + 1, d - x - 1,
                                       -1, nb[x], 1, 1) != 0:
                        return -1
        return 0

    def cache_count(self, str kind, int i, int j):
        """Cached two-path count of a pair (for tests and diagnostics)."""
        flag = CACHE_FLAGS[kind]
        if not (self.caches & flag):
            raise ValueError(f"cache {kind!r} is not enabled")
        self._check(i, j)
        if flag == CACHE_SP:
            return self.n_sp(i, j)
        if flag == CACHE_OTP:
            return self.n_otp(i, j)
        if flag == CACHE_AOTP:
            return self.n_arc_otp(i, j) if self.has_tie(i, j) else self.n_otp(i, j)
        if flag == CACHE_OSP:
            return self.n_osp(i, j)
        return self.n_isp(i, j)

    def cache_sizes(self):
        """Number of pairs with a non-zero count in each enabled cache (O(n^2) unless held in
        hash maps: for tests)."""
        out = {}
        for kind, flag, sparse in (("sp", CACHE_SP, self.sp.size), ("otp", CACHE_OTP, self.otp.size),
                                   ("osp", CACHE_OSP, self.osp.size), ("isp", CACHE_ISP, self.isp.size)):
            if self.caches & flag:
                out[kind] = sparse if self.cached & CACHE_PAIRS and self.adj == NULL else self._count_nonzero(flag)
        return out

    def _count_nonzero(self, int flag):
        # pairs (unordered for the symmetric caches) with a non-zero count
        cdef int64_t i, j, c, count = 0
        for i in range(self.n):
            for j in range(self.n):
                if i == j or (flag != CACHE_OTP and i > j):
                    continue
                c = (self.n_sp(i, j) if flag == CACHE_SP else self.n_otp(i, j) if flag == CACHE_OTP
                     else self.n_osp(i, j) if flag == CACHE_OSP else self.n_isp(i, j))
                if c:
                    count += 1
        return count

    @property
    def num_ties(self):
        return self.n_ties

    def has(self, int i, int j):
        """True if the tie i->j (i--j) is present."""
        self._check(i, j)
        return self.has_tie(i, j)

    def toggle_tie(self, int i, int j):
        """Toggle the dyad (i, j)."""
        self._check(i, j)
        if self.toggle(i, j) != 0:
            raise MemoryError("out of memory while toggling a tie")

    def _check(self, int i, int j):
        if i < 0 or j < 0 or i >= self.n or j >= self.n:
            raise IndexError(f"dyad ({i}, {j}) outside 0..{self.n - 1}")
        if i == j:
            raise ValueError("self-loops are not allowed")

    def ties(self):
        """Present ties as an (m, 2) int64 array (tail, head; tail < head if undirected)."""
        cdef cnp.ndarray[cnp.int64_t, ndim=2] out = np.empty((self.n_ties, 2), dtype=np.int64)
        cdef int64_t e
        for e in range(self.n_ties):
            out[e, 0] = self.ends[2 * e]
            out[e, 1] = self.ends[2 * e + 1]
        return out

    def out_neighbors(self, int i):
        return np.array([self.out_nb[i][k] for k in range(self.out_deg[i])], dtype=np.int64)

    def in_neighbors(self, int i):
        return np.array([self.in_nb[i][k] for k in range(self.in_deg[i])], dtype=np.int64)

    def out_degrees(self):
        return np.array([self.out_deg[i] for i in range(self.n)], dtype=np.int64)

    def in_degrees(self):
        return np.array([self.in_deg[i] for i in range(self.n)], dtype=np.int64)

    def copy(self):
        """An independent copy with the same ties, caches and storage."""
        return NetworkState(self.n, self.directed, self.ties(), self.caches, self.adj != NULL,
                            self.cache_degree, self.cache_memory)

    def memory_bytes(self):
        """Bytes of compiled memory held (node records and their mirrors, neighbour
        blocks, tie list, hash maps, caches, and the scratch buffers of the two-path
        counts on demand: marks, candidates, the two-path row buffer)."""
        cdef int64_t total = 0
        cdef int i
        cdef NodeRec* r
        for i in range(self.n):
            r = self.orec(i)
            if r.nb != _inline(r):
                total += r.cap * sizeof(int)
            if self.directed:
                r = self.irec(i)
                if r.nb != _inline(r):
                    total += r.cap * sizeof(int)
        total += self.n * (self.rec_bytes + sizeof(int*) + sizeof(int)) * (2 if self.directed else 1)
        total += self.tie_cap * 2 * sizeof(int)
        total += (self.tie_map.mask + 1) * sizeof(TieSlot)
        if self.arc_m != NULL:
            total += self.tie_cap * sizeof(int)
        # two-path counts on demand: the candidate buffer and three marks (bitmap and
        # list copy), allocated at the first mark, and otp_row's zeroed count buffer
        if self.cand != NULL:
            total += max(1, self.n) * sizeof(int)
            total += 3 * (((max(1, self.n) + 63) // 64) * sizeof(uint64_t)
                          + max(1, self.n) * sizeof(int))
        if self.tp_buf != NULL:
            total += max(1, self.n) * sizeof(int)
        for cm in (self.sp.mask, self.otp.mask, self.osp.mask, self.isp.mask):
            if cm:
                total += (cm + 1) * 8
        if self.adj != NULL:
            total += ((<int64_t>self.n * self.n + 63) // 64) * 8
            for flag in (CACHE_SP, CACHE_OTP, CACHE_OSP, CACHE_ISP):
                if self.cached & flag:
                    total += <int64_t>self.n * self.n * sizeof(uint16_t)
        return total

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        return f"<NetworkState: {kind}, {self.n} nodes, {self.n_ties} ties>"

    # ------------------------------------------------------------------------------
    # Two-path counts on demand for a row of pairs with one fixed end (AltTwoPathsT;
    # issue #35).  The change of A2P-T for i->j needs M(i, v) for every v in out(j) and
    # M(v, j) for every v in in(i).  These are the arcs between two node sets, found from
    # either side: M(i, v) = |out(i) & in(v)| scans each v's in-list (against out(i)'s
    # marks), or the same arcs w->v, w in out(i), are found from each w's out-list
    # (against out(j)'s marks) and counted per v in a zeroed node-indexed buffer.  Each
    # side's cost is known from the degrees (an entry scanned, or a tie-map probe for
    # each entry of the other list at about MARK_RATIO entries): the cheaper is taken.
    # Hubs make the difference: a hub j has a long out(j) whose members have long
    # in-lists, while out(i) may be short.  Same integers either way.
    # ------------------------------------------------------------------------------
    cdef bint _tp_alloc(self) noexcept nogil:
        # the zeroed count buffer (n ints) and the marks, at the first use
        if self.tp_buf == NULL:
            self.tp_buf = <int*>calloc(<size_t>max(1, self.n), sizeof(int))
        return self.tp_buf != NULL and self._alloc_marks()

    cdef int* otp_row(self, int i, int j, bint forward, int p) noexcept nogil:
        # forward: c[t] = M(i, v) - p for v = out(j)[t]; else c[t] = M(v, j) - p for
        # v = in(i)[t] (p = x_ij: the two-path through the arc i->j left out); c[t] is
        # not set where v is i (forward) or j.  Returns c (the state's candidate buffer,
        # valid until the next call) or NULL when out of memory.  On hash storage with the
        # counts on demand only (marks_wanted(CACHE_OTP)).
        cdef int t, u, w, x, nv, nf, dw, lim, fixed, skip
        cdef int64_t cost_a = 0, cost_b = 0
        cdef const int* vl
        cdef const int* fl
        cdef const int* wl
        cdef int* c
        cdef int* buf
        cdef int* deg_v
        cdef int* deg_w
        cdef Marks* m
        if not self._tp_alloc():
            return NULL
        c = self.cand
        buf = self.tp_buf
        if forward:
            fixed, skip = i, j              # M(i, v): w in out(i), w != j
            vl, nv = self.onb(j), self.odeg(j)
            fl, nf = self.onb(i), self.odeg(i)
            deg_v, deg_w = self.in_deg, self.out_deg
        else:
            fixed, skip = j, i              # M(v, j): w in in(j), w != i
            vl, nv = self.inb(i), self.ideg(i)
            fl, nf = self.inb(j), self.ideg(j)
            deg_v, deg_w = self.out_deg, self.in_deg
        # side A: each v's own list against the marks of the fixed end's list (or a probe
        # per entry of that list, whichever is less); side B: each w's list against the
        # marks of vl (or a probe per entry of vl)
        lim = MARK_RATIO * nf
        for t in range(nv):
            cost_a += min(deg_v[vl[t]], lim)
        if not ((self.mo.node == i and self.mo.version == self.version) if forward
                else (self.mi.node == j and self.mi.version == self.version)):
            cost_a += nf
        lim = MARK_RATIO * nv
        cost_b = nv
        for t in range(nf):
            cost_b += min(deg_w[fl[t]], lim)
            if cost_b >= cost_a:
                break
        self.tp_side = cost_b < cost_a
        if cost_b >= cost_a:
            # side A: the kernels' count_otp against the marks, as before
            # (each v's record, then its list, prefetched TP_AHEAD entries ahead)
            if forward:
                self.want_out_marks(i, CACHE_OTP, nv)
            else:
                self.want_in_marks(j, CACHE_OTP, nv)
            for t in range(nv):
                self._tp_ahead(vl, nv, t, forward)
                u = vl[t]
                if u != (i if forward else j):
                    c[t] = (self.count_otp(i, u) if forward else self.count_otp(u, j)) - p
            return c
        # side B: the arcs w->v (forward) or v->w found from each w
        if forward:
            if not self.mark_out(j):
                return NULL
            m = &self.mo
        else:
            if not self.mark_in(i):
                return NULL
            m = &self.mi
        for t in range(nf):
            self._tp_ahead(fl, nf, t, not forward)
            w = fl[t]
            if w == skip:
                continue
            dw = deg_w[w]
            if dw <= lim:
                wl = self.onb(w) if forward else self.inb(w)
                for x in range(dw):
                    u = wl[x]
                    if is_marked(m, u):
                        buf[u] += 1
            else:
                for x in range(nv):
                    u = vl[x]
                    if (self.has_tie(w, u) if forward else self.has_tie(u, w)):
                        buf[u] += 1
        for t in range(nv):
            u = vl[t]
            c[t] = buf[u]
            buf[u] = 0
        return c

    def two_path_row(self, int i, int j, bint forward):
        """The counts an AltTwoPathsT change on demand reads (for tests and diagnostics):
        ``M(i, v) - x_ij`` for each v of out(j) (``forward``) or ``M(v, j) - x_ij`` for each v
        of in(i), in the list's order (-1 where v is i, resp. j), and which side counted them:
        ``"lists"`` (each v's list against the fixed end's marks) or ``"arcs"`` (each w of the
        fixed end's list against v's list's marks).  Hash storage with the counts on demand."""
        cdef int t, nv
        cdef int* c
        self._check(i, j)
        if not self.directed or self.adj != NULL or self.cached & CACHE_OTP:
            raise ValueError("two_path_row needs a directed state on hash storage with "
                             "M counted on demand")
        c = self.otp_row(i, j, forward, 1 if self.has_tie(i, j) else 0)
        if c == NULL:
            raise MemoryError()
        nv = self.odeg(j) if forward else self.ideg(i)
        skip = i if forward else j
        vl = [(self.onb(j) if forward else self.inb(i))[t] for t in range(nv)]
        return (np.array([c[t] if vl[t] != skip else -1 for t in range(nv)], dtype=np.int64),
                "arcs" if self.tp_side else "lists")


cdef inline void _count_two_paths(NetworkState s, int a, int* cnt, bint add) noexcept nogil:
    # _hold_arcs: cnt[b] += #{w: a->w->b} over a's out-neighbours w (add), or those
    # counters back to 0; the list HOLD_AHEAD entries on is prefetched
    cdef int x, y, w
    cdef int* nb = s.out_nb[a]
    for x in range(s.out_deg[a]):
        if add and x + HOLD_AHEAD < s.out_deg[a]:
            __builtin_prefetch(s.out_nb[nb[x + HOLD_AHEAD]])
        w = nb[x]
        if add:
            for y in range(s.out_deg[w]):
                cnt[s.out_nb[w][y]] += 1
        else:
            for y in range(s.out_deg[w]):
                cnt[s.out_nb[w][y]] = 0


cdef bint _tails_grouped(const int* ends, int64_t m, const int* out_deg) noexcept nogil:
    # whether the tie list holds each tail's out-arcs as one run of out_deg[tail] ties
    cdef int64_t e = 0
    cdef int a, x
    while e < m:
        a = ends[2 * e]
        if out_deg[a] <= 0 or e + out_deg[a] > m:
            return 0
        for x in range(1, out_deg[a]):
            if ends[2 * (e + x)] != a:
                return 0
        e += out_deg[a]
    return 1
