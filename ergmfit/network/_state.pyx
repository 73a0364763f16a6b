# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled network state: see ``_state.pxd``."""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t, uint16_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memmove
from ergmfit.core._hashmap cimport (
    I64Set, CountMap, i64set_init, i64set_free, i64set_add, i64set_del,
    countmap_init, countmap_free, countmap_add,
)

cnp.import_array()

CACHE_FLAGS = {"sp": CACHE_SP, "otp": CACHE_OTP, "osp": CACHE_OSP, "isp": CACHE_ISP}
cdef enum:
    MAX_HELD_NODES = 1048576   # held counts are packed in 20 bits (above: always on demand)
MAX_CACHE_NODES = MAX_HELD_NODES
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


cdef inline int _cache_add(NetworkState s, uint16_t* dense, CountMap* sparse, bint symmetric,
                           int a, int b, int delta) noexcept nogil:
    # add ``delta`` to the two-path count of (a, b) in one cache
    cdef int64_t n = s.n
    cdef int64_t key = s.sym_key(a, b) if symmetric else a * n + b
    if dense != NULL:
        dense[key] = <uint16_t>(dense[key] + delta)
        return 0
    return countmap_add(sparse, key, delta)


cdef class NetworkState:

    def __cinit__(self, int n, bint directed, ties=None, int caches=0, dense=None,
                  double cache_degree=CACHE_DEGREE):
        cdef int64_t i
        if n < 0:
            raise ValueError("number of nodes must be non-negative")
        self.n = n
        self.directed = directed
        self.adj = NULL
        self.d_sp = self.d_otp = self.d_osp = self.d_isp = NULL
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
        nn = max(n, 1)
        self.out_nb = <int**>calloc(nn, sizeof(int*))
        self.out_deg = <int*>calloc(nn, sizeof(int))
        self.out_cap = <int*>calloc(nn, sizeof(int))
        if directed:
            self.in_nb = <int**>calloc(nn, sizeof(int*))
            self.in_deg = <int*>calloc(nn, sizeof(int))
            self.in_cap = <int*>calloc(nn, sizeof(int))
        else:
            self.in_nb = self.out_nb
            self.in_deg = self.out_deg
            self.in_cap = self.out_cap
        self.tail = <int*>malloc(self.tie_cap * sizeof(int))
        self.head = <int*>malloc(self.tie_cap * sizeof(int))
        self.pos_out = <int*>malloc(self.tie_cap * sizeof(int))
        self.pos_in = <int*>malloc(self.tie_cap * sizeof(int))
        if (self.out_nb == NULL or self.out_deg == NULL or self.out_cap == NULL
                or self.in_nb == NULL or self.in_deg == NULL or self.in_cap == NULL
                or self.tail == NULL or self.head == NULL or self.pos_out == NULL
                or self.pos_in == NULL):
            raise MemoryError("cannot allocate the network state")
        if self.adj == NULL and i64set_init(&self.tie_set, 16) != 0:
            raise MemoryError("cannot allocate the network state")
        if ties is not None:
            arr = np.asarray(ties, dtype=np.int64).reshape(-1, 2)
            self._add_many(arr)
        if caches:
            self.enable_caches(caches)

    def __dealloc__(self):
        cdef int i
        if self.out_nb != NULL:
            for i in range(self.n):
                free(self.out_nb[i])
        if self.directed and self.in_nb != NULL:
            for i in range(self.n):
                free(self.in_nb[i])
            free(self.in_nb); free(self.in_deg); free(self.in_cap)
        free(self.out_nb); free(self.out_deg); free(self.out_cap)
        free(self.tail); free(self.head); free(self.pos_out); free(self.pos_in)
        i64set_free(&self.tie_set)
        countmap_free(&self.sp); countmap_free(&self.otp)
        countmap_free(&self.osp); countmap_free(&self.isp)
        free(self.adj)
        free(self.d_sp); free(self.d_otp); free(self.d_osp); free(self.d_isp)

    def _add_many(self, const cnp.int64_t[:, :] arr):
        cdef Py_ssize_t k
        cdef int i, j
        cdef int64_t m = arr.shape[0]
        if m and self._presize(np.asarray(arr), m) != 0:
            raise MemoryError("out of memory while adding ties")
        for k in range(arr.shape[0]):
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
        if self.adj == NULL and self.tie_set.size == 0 and <uint64_t>(2 * total + 2) > self.tie_set.mask + 1:
            i64set_free(&self.tie_set)
            if i64set_init(&self.tie_set, total) != 0:
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
                c = self.out_deg[v] + <int>want_out[v]
                if c > self.out_cap[v] and self._reserve(self.out_nb, self.out_cap, v, c) != 0:
                    rc = -1
                    break
                c = self.in_deg[v] + <int>want_in[v]
                if (self.directed and c > self.in_cap[v]
                        and self._reserve(self.in_nb, self.in_cap, v, c) != 0):
                    rc = -1
                    break
        return rc

    # ------------------------------------------------------------------
    # compiled operations
    # ------------------------------------------------------------------
    cdef int _reserve_ties(self, int64_t cap) noexcept nogil:
        # room for cap ties in the flat tie list
        cdef int* p
        p = <int*>realloc(self.tail, cap * sizeof(int))
        if p == NULL: return -1
        self.tail = p
        p = <int*>realloc(self.head, cap * sizeof(int))
        if p == NULL: return -1
        self.head = p
        p = <int*>realloc(self.pos_out, cap * sizeof(int))
        if p == NULL: return -1
        self.pos_out = p
        p = <int*>realloc(self.pos_in, cap * sizeof(int))
        if p == NULL: return -1
        self.pos_in = p
        self.tie_cap = cap
        return 0

    cdef int _reserve(self, int** nb, int* cap, int v, int newcap) noexcept nogil:
        # grow v's block to newcap neighbours and tie indices (the indices move up)
        cdef int* p = <int*>realloc(nb[v], 2 * <size_t>newcap * sizeof(int))
        if p == NULL:
            return -1
        if cap[v]:
            memmove(p + newcap, p + cap[v], cap[v] * sizeof(int))
        nb[v] = p
        cap[v] = newcap
        return 0

    cdef int _push(self, int** nb, int* deg, int* cap, int v, int w, int e) noexcept nogil:
        # append neighbour w (tie e) to v's block; returns its position, -1 if out of memory
        if deg[v] == cap[v]:
            if self._reserve(nb, cap, v, 4 if cap[v] == 0 else 2 * cap[v]) != 0:
                return -1
        nb[v][deg[v]] = w
        nb[v][cap[v] + deg[v]] = e
        deg[v] += 1
        return deg[v] - 1

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
        self.version += 1
        if self.cached:
            if self._update_caches(i, j, 1) != 0:
                return -1
        if self.n_ties == self.tie_cap and self._reserve_ties(2 * self.tie_cap) != 0:
            return -1
        e = <int>self.n_ties
        self.tail[e] = i
        self.head[e] = j
        self.pos_out[e] = self._push(self.out_nb, self.out_deg, self.out_cap, i, j, e)
        self.pos_in[e] = self._push(self.in_nb, self.in_deg, self.in_cap, j, i, e)
        if self.pos_out[e] < 0 or self.pos_in[e] < 0:
            return -1
        if self.adj != NULL:
            self._set_adj(i, j, 1)
        elif i64set_add(&self.tie_set, self.dyad_key(i, j)) != 0:
            return -1
        self.n_ties += 1
        if self.caches != self.cached and self._hold_wanted():
            return self._hold_counts(self.caches & ~self.cached)
        return 0

    cdef int _find_tie(self, int i, int j) noexcept nogil:
        # index of the tie i->j (i < j if undirected) in the flat list, -1 if absent:
        # a scan of the shorter of the two blocks
        cdef int t
        cdef int* nb
        if self.out_deg[i] <= self.in_deg[j]:
            nb = self.out_nb[i]
            for t in range(self.out_deg[i]):
                if nb[t] == j:
                    return nb[self.out_cap[i] + t]
        else:
            nb = self.in_nb[j]
            for t in range(self.in_deg[j]):
                if nb[t] == i:
                    return nb[self.in_cap[j] + t]
        return -1

    cdef void _drop_entry(self, int** nb, int* deg, int* cap, int v, int p, bint out) noexcept nogil:
        # remove position p of v's block: the last entry moves there, and its tie records it
        cdef int last = deg[v] - 1
        cdef int* blk = nb[v]
        cdef int w, e
        deg[v] = last
        if p == last:
            return
        w = blk[last]
        e = blk[cap[v] + last]
        blk[p] = w
        blk[cap[v] + p] = e
        if out if self.directed else v < w:     # v is the tail of tie e
            self.pos_out[e] = p
        else:
            self.pos_in[e] = p

    cdef int remove_tie(self, int i, int j) noexcept nogil:
        """Remove tie i->j (i--j) if present."""
        cdef int e, t, last, a, b
        if not self.directed and i > j:
            t = i; i = j; j = t
        e = self._find_tie(i, j)
        if e < 0:
            return 0
        self.version += 1
        if self.cached:
            if self._update_caches(i, j, -1) != 0:
                return -1
        self._drop_entry(self.out_nb, self.out_deg, self.out_cap, i, self.pos_out[e], 1)
        self._drop_entry(self.in_nb, self.in_deg, self.in_cap, j, self.pos_in[e], 0)
        if self.adj != NULL:
            self._set_adj(i, j, 0)
        else:
            i64set_del(&self.tie_set, self.dyad_key(i, j))
        # flat tie list: move the last tie into slot e
        last = <int>self.n_ties - 1
        if e != last:
            a = self.tail[e] = self.tail[last]
            b = self.head[e] = self.head[last]
            self.pos_out[e] = self.pos_out[last]
            self.pos_in[e] = self.pos_in[last]
            self.out_nb[a][self.out_cap[a] + self.pos_out[e]] = e
            self.in_nb[b][self.in_cap[b] + self.pos_in[e]] = e
        self.n_ties -= 1
        if self.cached and 4.0 * self.n_ties < self.cache_degree * self.n:
            self._drop_counts()
        return 0

    cdef int toggle(self, int i, int j) noexcept nogil:
        if self.has_tie(i, j):
            return self.remove_tie(i, j)
        return self.add_tie(i, j)

    cdef int _update_caches(self, int i, int j, int delta) noexcept nogil:
        # Called before the neighbour arrays change; the toggled pair itself
        # is excluded, so the same code serves additions and removals.
        cdef int k, w
        if not self.directed:
            if self.cached & CACHE_SP:
                for k in range(self.out_deg[j]):
                    w = self.out_nb[j][k]
                    if w != i and _cache_add(self, self.d_sp, &self.sp, 1, i, w, delta) != 0:
                        return -1
                for k in range(self.out_deg[i]):
                    w = self.out_nb[i][k]
                    if w != j and _cache_add(self, self.d_sp, &self.sp, 1, j, w, delta) != 0:
                        return -1
            return 0
        if self.cached & CACHE_OTP:
            for k in range(self.out_deg[j]):      # i->j->w
                w = self.out_nb[j][k]
                if w != i and _cache_add(self, self.d_otp, &self.otp, 0, i, w, delta) != 0:
                    return -1
            for k in range(self.in_deg[i]):       # w->i->j
                w = self.in_nb[i][k]
                if w != j and _cache_add(self, self.d_otp, &self.otp, 0, w, j, delta) != 0:
                    return -1
        if self.cached & CACHE_OSP:               # i becomes a common in-neighbour of j and w
            for k in range(self.out_deg[i]):
                w = self.out_nb[i][k]
                if w != j and _cache_add(self, self.d_osp, &self.osp, 1, j, w, delta) != 0:
                    return -1
        if self.cached & CACHE_ISP:               # j becomes a common out-neighbour of i and w
            for k in range(self.in_deg[j]):
                w = self.in_nb[j][k]
                if w != i and _cache_add(self, self.d_isp, &self.isp, 1, i, w, delta) != 0:
                    return -1
        return 0

    # ------------------------------------------------------------------
    # Python API
    # ------------------------------------------------------------------
    @property
    def dense(self):
        """True if the adjacency (and any two-path cache) is held as dense n x n arrays."""
        return self.adj != NULL

    def enable_caches(self, int flags):
        """Provide the two-path counts named by ``flags`` from now on (built from
        the current ties when held in memory)."""
        cdef int new = flags & ~self.caches
        cdef int rc = 0
        if not new:
            return
        if not self.directed and (new & (CACHE_OTP | CACHE_OSP | CACHE_ISP)):
            raise ValueError("directed two-path caches on an undirected network")
        if self.directed and (new & CACHE_SP):
            raise ValueError("the undirected shared-partner cache on a directed network")
        if self.n > MAX_CACHE_NODES and self.cache_degree == 0:
            raise ValueError(f"held two-path counts support at most {MAX_CACHE_NODES} nodes")
        self.caches |= new
        if self.cached or self._hold_wanted():
            with nogil:
                rc = self._hold_counts(new)
        if rc != 0:
            raise MemoryError("out of memory while building the two-path caches")

    cdef bint _hold_wanted(self) noexcept nogil:
        # hold the counts from a mean degree of cache_degree on (see the class docstring)
        return self.n <= MAX_HELD_NODES and 2.0 * self.n_ties >= self.cache_degree * self.n

    cdef int _hold_counts(self, int flags) noexcept nogil:
        # allocate the counts of ``flags`` (dense n x n or hash maps) and count them
        cdef int64_t nn = max(1, <int64_t>self.n * self.n)
        cdef int64_t expect = self.n_ties * 4 + 16
        cdef bint failed
        if self.adj == NULL:
            failed = ((flags & CACHE_SP and countmap_init(&self.sp, expect) != 0)
                      or (flags & CACHE_OTP and countmap_init(&self.otp, expect) != 0)
                      or (flags & CACHE_OSP and countmap_init(&self.osp, expect) != 0)
                      or (flags & CACHE_ISP and countmap_init(&self.isp, expect) != 0))
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
        return 0

    cdef void _drop_counts(self) noexcept nogil:
        free(self.d_sp); free(self.d_otp); free(self.d_osp); free(self.d_isp)
        self.d_sp = self.d_otp = self.d_osp = self.d_isp = NULL
        countmap_free(&self.sp); countmap_free(&self.otp)
        countmap_free(&self.osp); countmap_free(&self.isp)
        self.cached = 0

    # two-path counts on demand: scan the shorter neighbour list, look up the other side
    cdef int count_common(self, int a, int b, bint incoming) noexcept nogil:
        # #{w: w -> a, w -> b} (incoming) or #{w: a -> w, b -> w};
        # undirected: the common neighbours of a and b
        cdef int t, u, w, c = 0
        cdef int* deg = self.in_deg if incoming else self.out_deg
        cdef int** nb = self.in_nb if incoming else self.out_nb
        if deg[a] > deg[b]:
            a, b = b, a
        if self.scan_cheaper(deg[a], deg[b]):
            # hash storage, two short lists: compare them instead of hashing
            for t in range(deg[a]):
                for u in range(deg[b]):
                    if nb[a][t] == nb[b][u]:
                        c += 1
                        break
            return c
        for t in range(deg[a]):
            w = nb[a][t]
            if (self.has_tie(w, b) if incoming else self.has_tie(b, w)):
                c += 1
        return c

    cdef int count_otp(self, int a, int b) noexcept nogil:
        # #{w: a -> w -> b}
        cdef int t, c = 0
        if self.out_deg[a] <= self.in_deg[b]:
            for t in range(self.out_deg[a]):
                if self.has_tie(self.out_nb[a][t], b):
                    c += 1
        else:
            for t in range(self.in_deg[b]):
                if self.has_tie(a, self.in_nb[b][t]):
                    c += 1
        return c

    cdef int _build_caches(self, int new) noexcept nogil:
        # Count every two-path once, centred at its middle node w.
        cdef int w, x, y, a, b
        for w in range(self.n):
            if new & CACHE_SP:
                for x in range(self.out_deg[w]):
                    a = self.out_nb[w][x]
                    for y in range(x + 1, self.out_deg[w]):
                        if _cache_add(self, self.d_sp, &self.sp, 1, a, self.out_nb[w][y], 1) != 0:
                            return -1
            if new & CACHE_OTP:
                for x in range(self.in_deg[w]):
                    a = self.in_nb[w][x]
                    for y in range(self.out_deg[w]):
                        b = self.out_nb[w][y]
                        if a != b and _cache_add(self, self.d_otp, &self.otp, 0, a, b, 1) != 0:
                            return -1
            if new & CACHE_OSP:       # w -> a and w -> b
                for x in range(self.out_deg[w]):
                    a = self.out_nb[w][x]
                    for y in range(x + 1, self.out_deg[w]):
                        if _cache_add(self, self.d_osp, &self.osp, 1, a, self.out_nb[w][y], 1) != 0:
                            return -1
            if new & CACHE_ISP:       # a -> w and b -> w
                for x in range(self.in_deg[w]):
                    a = self.in_nb[w][x]
                    for y in range(x + 1, self.in_deg[w]):
                        if _cache_add(self, self.d_isp, &self.isp, 1, a, self.in_nb[w][y], 1) != 0:
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
                out[kind] = sparse if self.cached and self.adj == NULL else self._count_nonzero(flag)
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
            out[e, 0] = self.tail[e]
            out[e, 1] = self.head[e]
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
                            self.cache_degree)

    def memory_bytes(self):
        """Bytes of compiled memory held (neighbour arrays, tie list, hash maps, caches)."""
        cdef int64_t total = 0
        cdef int i
        for i in range(self.n):
            total += 2 * self.out_cap[i] * sizeof(int)
            if self.directed:
                total += 2 * self.in_cap[i] * sizeof(int)
        total += self.n * (sizeof(int*) + 2 * sizeof(int)) * (2 if self.directed else 1)
        total += self.tie_cap * 4 * sizeof(int)
        if self.adj == NULL:
            total += (self.tie_set.mask + 1) * sizeof(int64_t)
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
