# cython: language_level=3
cimport cython
from libc.stdint cimport int64_t, uint64_t, uint16_t
from ergmfit.core._hashmap cimport I64Set, CountMap, i64set_has, countmap_get, mix64

cdef extern from *:
    void __builtin_prefetch(const void* addr) noexcept nogil

# Two-path caches a term may ask for (bit flags).
cdef enum:
    CACHE_SP = 1    # undirected: common neighbours of {a, b}
    CACHE_OTP = 2   # directed: #{w: a->w->b}, ordered pair (a, b)
    CACHE_OSP = 4   # directed: #{w: w->a, w->b}, unordered
    CACHE_ISP = 8   # directed: #{w: a->w, b->w}, unordered

    SCAN_WORK = 1024   # neighbour-list pairs compared directly rather than hashed (scan_cheaper)


cdef inline bint in_list(const int* nb, int d, int w) noexcept nogil:
    """w among the d entries of nb (a neighbour list)."""
    cdef int t
    for t in range(d):
        if nb[t] == w:
            return 1
    return 0


@cython.final
cdef class NetworkState:
    """A binary (di)graph in compiled memory.

    Ties are kept three ways: a hash set of the dyads (O(1) lookup; a
    bitmap instead on dense storage), per-node out/in neighbour arrays
    (iteration in O(degree)) and a flat tie list (uniform draws of a present
    tie).  For undirected graphs the in-arrays are the out-arrays.  Each
    node's neighbour array is one block of 2 x capacity ints: the neighbours,
    then the index of each one's tie in the flat list, so that removing a
    tie touches the two blocks and the tie list but no hash map beyond the
    dyad's own slot.  The two-path counts the model's terms
    read (``caches``) are either held in memory and updated on every toggle
    in O(degree), or counted on demand by intersecting neighbour lists.

    ``NetworkState(n, directed, ties, caches, dense, cache_degree)``: with
    ``dense`` (default: n <= 4,096) the adjacency is also kept as an n x n
    bitmap (one memory load per lookup); larger networks use the hash set.
    On either storage the two-path counts are held (n x n uint16 arrays when
    dense, hash maps of the non-zero counts otherwise) only while the mean
    degree is at least ``cache_degree`` (32 by default; dropped again below
    half of it): on a sparse network counting on demand is faster than
    keeping megabytes of counts that miss the CPU cache (faux.magnolia.high;
    G(n, 10/n) at n = 10^5: 0.27 -> 1.05 M tie/no-tie proposals per CPU s
    for gwesp).  An ERGM whose terms read counts for every neighbour (gwdsp,
    dsp, directed terms: ``TermKernel.counts_on_demand`` False) sets
    ``cache_degree`` to 0.  Above 2^20 nodes counts are never held.
    """
    cdef readonly int n
    cdef readonly bint directed
    cdef int64_t n_ties
    cdef int64_t version     # +1 on every tie added or removed (validates callers' caches)
    cdef int64_t tie_cap
    # neighbour arrays: out_nb[v][0:out_deg[v]] neighbours, out_nb[v][out_cap[v] + k]
    # the tie index of neighbour k
    cdef int** out_nb
    cdef int* out_deg
    cdef int* out_cap
    cdef int** in_nb
    cdef int* in_deg
    cdef int* in_cap
    # flat tie list; pos_out[e] = position of head in out_nb[tail],
    # pos_in[e] = position of tail in in_nb[head]
    cdef int* tail
    cdef int* head
    cdef int* pos_out
    cdef int* pos_in
    cdef I64Set tie_set       # dyad keys, hash storage only (dense: the bitmap)
    # two-path counts: the kinds asked for, and those held in memory now
    cdef readonly int caches
    cdef readonly int cached
    cdef readonly double cache_degree
    cdef CountMap sp
    cdef CountMap otp
    cdef CountMap osp
    cdef CountMap isp
    # Dense forms for small networks (NULL when not used): a bitmap of the
    # n x n adjacency (both orientations set when undirected) and n x n
    # uint16 two-path counts (symmetric ones in the upper triangle only: one
    # write per update), so that the hot lookups are one load, not a hash probe.
    cdef uint64_t* adj
    cdef uint16_t* d_sp
    cdef uint16_t* d_otp
    cdef uint16_t* d_osp
    cdef uint16_t* d_isp

    cdef inline int64_t dyad_key(self, int i, int j) noexcept nogil:
        if not self.directed and i > j:
            return <int64_t>j * self.n + i
        return <int64_t>i * self.n + j

    cdef inline int64_t sym_key(self, int i, int j) noexcept nogil:
        if i > j:
            return <int64_t>j * self.n + i
        return <int64_t>i * self.n + j

    cdef inline bint scan_cheaper(self, int da, int db) noexcept nogil:
        # hash storage: comparing two neighbour lists of da and db entries costs
        # fewer cache misses than da hash probes (da <= db; at most SCAN_WORK pairs)
        return self.adj == NULL and db <= SCAN_WORK and da * db <= SCAN_WORK

    cdef inline bint has_tie(self, int i, int j) noexcept nogil:
        cdef uint64_t k
        if self.adj != NULL:
            k = <uint64_t>i * <uint64_t>self.n + <uint64_t>j
            return (self.adj[k >> 6] >> (k & 63)) & 1
        return i64set_has(&self.tie_set, self.dyad_key(i, j))

    # Prefetches of the hash slot a has_tie / n_otp will read: kernels that look up
    # many pairs (alternating k-triangles at hubs) issue them all first, so that
    # the cache misses overlap instead of queueing one after another.
    cdef inline void prefetch_tie(self, int i, int j) noexcept nogil:
        if self.adj == NULL:
            __builtin_prefetch(&self.tie_set.keys[mix64(<uint64_t>self.dyad_key(i, j))
                                                  & self.tie_set.mask])
    cdef inline void prefetch_otp(self, int i, int j) noexcept nogil:
        if self.d_otp == NULL and self.cached & CACHE_OTP:
            __builtin_prefetch(&self.otp.slots[mix64(<uint64_t>(<int64_t>i * self.n + j + 1))
                                               & self.otp.mask])

    # two-path counts: held in memory or counted on demand (any pair a != b)
    cdef inline int n_sp(self, int i, int j) noexcept nogil:
        if self.d_sp != NULL:
            return self.d_sp[self.sym_key(i, j)]
        if self.cached & CACHE_SP:
            return <int>countmap_get(&self.sp, self.sym_key(i, j))
        return self.count_common(i, j, False)
    cdef inline int n_otp(self, int i, int j) noexcept nogil:
        if self.d_otp != NULL:
            return self.d_otp[<int64_t>i * self.n + j]
        if self.cached & CACHE_OTP:
            return <int>countmap_get(&self.otp, <int64_t>i * self.n + j)
        return self.count_otp(i, j)
    cdef inline int n_osp(self, int i, int j) noexcept nogil:
        if self.d_osp != NULL:
            return self.d_osp[self.sym_key(i, j)]
        if self.cached & CACHE_OSP:
            return <int>countmap_get(&self.osp, self.sym_key(i, j))
        return self.count_common(i, j, True)
    cdef inline int n_isp(self, int i, int j) noexcept nogil:
        if self.d_isp != NULL:
            return self.d_isp[self.sym_key(i, j)]
        if self.cached & CACHE_ISP:
            return <int>countmap_get(&self.isp, self.sym_key(i, j))
        return self.count_common(i, j, False)
    cdef int count_common(self, int a, int b, bint incoming) noexcept nogil
    cdef int count_otp(self, int a, int b) noexcept nogil

    cdef int add_tie(self, int i, int j) noexcept nogil
    cdef int remove_tie(self, int i, int j) noexcept nogil
    cdef int toggle(self, int i, int j) noexcept nogil
    cdef int _update_caches(self, int i, int j, int delta) noexcept nogil
    cdef void _set_adj(self, int i, int j, bint on) noexcept nogil
    cdef int _build_caches(self, int new) noexcept nogil
    cdef bint _hold_wanted(self) noexcept nogil
    cdef int _hold_counts(self, int flags) noexcept nogil
    cdef void _drop_counts(self) noexcept nogil
    cdef int _push(self, int** nb, int* deg, int* cap, int v, int w, int e) noexcept nogil
    cdef int _reserve_ties(self, int64_t cap) noexcept nogil
    cdef int _reserve(self, int** nb, int* cap, int v, int newcap) noexcept nogil
    cdef int _find_tie(self, int i, int j) noexcept nogil
    cdef void _drop_entry(self, int** nb, int* deg, int* cap, int v, int p, bint out) noexcept nogil
