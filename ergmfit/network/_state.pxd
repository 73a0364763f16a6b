# cython: language_level=3
cimport cython
from libc.stdint cimport int64_t, uint64_t, uint32_t, uint16_t
from ergmfit.core._hashmap cimport (
    TieMap, TieSlot, CountMap, tiemap_find, tiemap_home, countmap_get, mix64,
)

cdef extern from *:
    """
    /* A prefetch that the compiler keeps: GCC deems a function whose only
       effect is __builtin_prefetch pure and deletes calls to it (the kernels'
       prefetch helpers were compiled to nothing); the empty volatile asm is
       an effect it must keep. */
    static inline void ergmfit_prefetch(const void* p) {
        __builtin_prefetch(p);
    #if defined(__GNUC__)
        __asm__ __volatile__("" : : "r"(p));
    #endif
    }
    """
    void __builtin_prefetch "ergmfit_prefetch"(const void* addr) noexcept nogil

# Two-path caches a term may ask for (bit flags).
cdef enum:
    CACHE_SP = 1    # undirected: common neighbours of {a, b}
    CACHE_OTP = 2   # directed: #{w: a->w->b}, ordered pair (a, b)
    CACHE_OSP = 4   # directed: #{w: w->a, w->b}, unordered
    CACHE_ISP = 8   # directed: #{w: a->w, b->w}, unordered
    # directed: #{w: a->w->b} of the arcs a->b only (one counter per arc, beside the
    # tie list: 4 bytes an arc), for kernels that read the two-path counts of arcs and
    # of the toggled pair only (AltKTrianglesT); see NetworkState.n_arc_otp
    CACHE_AOTP = 16
    CACHE_PAIRS = 15   # the counts of every pair (SP, OTP, OSP, ISP)

    SCAN_WORK = 1024   # neighbour-list pairs compared directly rather than hashed (scan_cheaper)
    # Two-path counts on demand on hash storage scan one neighbour list against marks
    # (stamps) of the other instead of probing the tie map for each entry (see mark_out):
    # a probe costs about MARK_RATIO entries scanned (Epinions: about 25 against 1.2 ns)
    MARK_RATIO = 16
    TP_AHEAD = 4       # otp_row: lists prefetched this many entries ahead (records twice)


cdef struct Marks:
    # One neighbour list marked for two-path counts on demand (see NetworkState.mark_out):
    # a bitmap of the nodes (n bits: 9.5 kB for Epinions, in the L1 cache) with the
    # list's entries set, and a copy of those entries (to clear them at the next marking)
    uint64_t* bits
    int* list
    int n_list
    int node            # whose list (-1: none or scratch) ...
    int64_t version     # ... as of this state version


cdef inline bint is_marked(const Marks* m, int w) noexcept nogil:
    return (m.bits[w >> 6] >> (w & 63)) & 1


cdef struct NodeRec:
    # The head of a node's record (one or two cache lines; see NetworkState):
    # its degree, the capacity of its neighbour array and where the array is:
    # the record's own inline area (the ints after this head) while it fits,
    # else a heap block.
    int deg
    int cap
    int* nb


cdef inline bint in_list(const int* nb, int d, int w) noexcept nogil:
    """w among the d entries of nb (a neighbour list; no entry twice).

    Beyond 8 entries the matches are counted without an early exit: the
    compiler turns that loop into vector compares, several entries at a
    time (most scans find nothing, so an exit saves little); up to 8 the
    plain loop is faster (G(n, 10/n) gwesp: n = 4,097 7.3 -> 8.6 M/CPU s
    with the count; n = 1,000, whose scans are of at most 8, 3% slower)."""
    cdef int t, hit = 0
    if d <= 8:
        for t in range(d):
            if nb[t] == w:
                return 1
        return 0
    for t in range(d):
        hit += nb[t] == w
    return hit != 0


@cython.final
cdef class NetworkState:
    """A binary (di)graph in compiled memory.

    Ties are kept three ways: a hash map from each tie to its index in a flat
    tie list (O(1) lookup; on dense storage an n x n bitmap answers lookups),
    per-node out/in neighbour arrays (iteration in O(degree)) and the flat tie
    list (uniform draws of a present tie).  For undirected graphs the
    in-arrays are the out-arrays.

    Node records: each node has one record of ``rec_bytes`` (16, 32, 64 or
    128 bytes, chosen from the degrees when the state is built: 32 where the
    mean degree is low and three quarters of the lists have at most 4 entries,
    a heavy-tailed network; aligned to the cache line) holding its degree, the
    capacity and address of its neighbour array, and the neighbours themselves
    while they fit in the record (``rec_inline`` of them: 0, 4, 12 or 28); a
    node with more has a heap block.  A proposal on a network of 10^5 nodes thus reads one record
    per node (one or two adjacent cache lines) and one hash slot (the tie
    and its index together), instead of a degree, a pointer, a block and a
    second block of tie indices in four places.  ``orec(v)``/``odeg(v)``/
    ``onb(v)`` (and ``irec``/``ideg``/``inb``) read the records; the arrays
    ``out_deg``, ``out_nb``, ``in_deg``, ``in_nb`` mirror them (kept in step
    on every change) for code that indexes them directly.  Neighbour order
    is the order of arrival, a removal moving the last neighbour into the
    hole (as the tie list does): the same seed gives the same chain.

    The two-path counts the model's terms read (``caches``) are either held
    in memory and updated on every toggle in O(degree), or counted on demand
    by intersecting neighbour lists.  A term that reads the counts of arcs
    only (``CACHE_AOTP``: AltKTrianglesT) gets one count per arc, ``arc_m``
    beside the tie list (4 bytes an arc, within ``cache_memory``), where the
    counts of every pair (``CACHE_OTP``) are not held; ``cached`` then has
    the ``CACHE_AOTP`` bit (also when every pair's counts serve the arcs).

    ``NetworkState(n, directed, ties, caches, dense, cache_degree)``: with
    ``dense`` (default: n <= 4,096) the adjacency is also kept as an n x n
    bitmap (one memory load per lookup); larger networks use the hash map.
    On either storage the two-path counts are held (n x n uint16 arrays when
    dense, hash maps of the non-zero counts otherwise) only while the mean
    degree is at least ``cache_degree`` (32 by default; dropped again below
    half of it): on a sparse network counting on demand is faster than
    keeping megabytes of counts that miss the CPU cache (faux.magnolia.high;
    G(n, 10/n) at n = 10^5: 0.27 -> 1.05 M tie/no-tie proposals per CPU s
    for gwesp).  An ERGM whose terms read counts for every neighbour (gwdsp,
    dsp, directed terms: ``TermKernel.counts_on_demand`` False) sets
    ``cache_degree`` to 0.

    Held counts are also bounded in memory: ``cache_memory`` bytes (default
    ``DEFAULT_CACHE_MEMORY``, "auto": 4 times the state's own bytes, at least
    1 GiB, see :func:`cache_budget`; :func:`set_cache_memory` changes it for
    states built later).  Their size is bounded from the numbers of two-paths,
    kept on every toggle in O(1); counts that would not fit, or that outgrow
    the bound while held, are counted on demand instead (the same numbers,
    slower per change statistic, no memory).  Above 2^20 nodes counts are
    always counted on demand (held counts pack a pair and its count in 64
    bits).  ``enable_caches(flags, require_held=True)`` raises a clear error
    where held counts would not fit.
    """
    cdef readonly int n
    cdef readonly bint directed
    cdef int64_t n_ties
    cdef int64_t version     # +1 on every tie added or removed (validates callers' caches)
    cdef int64_t tie_cap
    # node records (see the class docstring): rec_bytes each, in one aligned block
    cdef char* out_rec
    cdef char* in_rec
    cdef readonly int rec_bytes
    cdef readonly int rec_inline
    # mirrors of the records: out_nb[v][0:out_deg[v]] are v's out-neighbours
    cdef int** out_nb
    cdef int* out_deg
    cdef int** in_nb
    cdef int* in_deg
    # flat tie list, interleaved: tie e is ends[2e] -> ends[2e + 1] (tail < head if
    # undirected), both ends in one cache line (a drawn tie is one miss, not two)
    cdef int* ends
    cdef TieMap tie_map       # dyad key -> index in the tie list (both storages)
    # two-path counts: the kinds asked for, and those held in memory now
    cdef readonly int caches
    cdef readonly int cached
    cdef readonly double cache_degree
    # bytes the held counts may take (above: counted on demand; see _held_bytes)
    cdef readonly int64_t cache_memory
    # two-path totals, kept on every toggle (O(1)), bounding the pairs a held count map
    # needs: sum_w in(w) out(w) (OTP), sum_w C(out(w), 2) (OSP; plus the next for the
    # undirected SP), sum_w C(in(w), 2) (ISP)
    cdef int64_t tp_mid
    cdef int64_t tp_out
    cdef int64_t tp_in
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
    # Marks for two-path counts on demand (mark_out, mark_in, _scratch): mo the
    # out-list of mo.node, mi the in-list of mi.node, each valid while its version is
    # the state's; mx scratch marks of one list for a single count or intersection;
    # cand: a buffer for kernels' candidate lists (n ints).  Allocated at the first mark.
    cdef Marks mo
    cdef Marks mi
    cdef Marks mx
    cdef int* cand
    # per-arc two-path counts (CACHE_AOTP held): arc_m[e] = M(a, b) of the tie e = a->b of
    # the tie list (same index, moved with it), updated on every toggle in O(degree)
    cdef int* arc_m
    # two-path helpers (otp_row): a zeroed count buffer of n ints, allocated at first use
    cdef int* tp_buf
    cdef bint tp_side       # the side otp_row took last (diagnostics: two_path_row)

    cdef inline NodeRec* orec(self, int v) noexcept nogil:
        return <NodeRec*>(self.out_rec + <size_t>v * <size_t>self.rec_bytes)
    cdef inline NodeRec* irec(self, int v) noexcept nogil:
        return <NodeRec*>(self.in_rec + <size_t>v * <size_t>self.rec_bytes)
    cdef inline int odeg(self, int v) noexcept nogil:
        return self.orec(v).deg
    cdef inline int* onb(self, int v) noexcept nogil:
        return self.orec(v).nb
    cdef inline int ideg(self, int v) noexcept nogil:
        return self.irec(v).deg
    cdef inline int* inb(self, int v) noexcept nogil:
        return self.irec(v).nb

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
        return tiemap_find(&self.tie_map, self.dyad_key(i, j)) != NULL

    # Prefetches of the hash slot a has_tie / n_otp will read: kernels that look up
    # many pairs (alternating k-triangles at hubs) issue them all first, so that
    # the cache misses overlap instead of queueing one after another.
    cdef inline void prefetch_tie(self, int i, int j) noexcept nogil:
        if self.adj == NULL:
            __builtin_prefetch(&self.tie_map.slots[tiemap_home(&self.tie_map,
                                                               self.dyad_key(i, j))])
    cdef inline void prefetch_otp(self, int i, int j) noexcept nogil:
        if self.d_otp == NULL and self.cached & CACHE_OTP:
            __builtin_prefetch(&self.otp.slots[mix64(<uint64_t>(<int64_t>i * self.n + j + 1))
                                               & self.otp.mask])
    # ... and of everything a proposal on the dyad (i, j) reads first: the two
    # nodes' records (both lines of a two-line record) and the dyad's hash slot,
    # so that these misses overlap (called when the dyad is drawn)
    cdef inline void prefetch_dyad(self, int i, int j) noexcept nogil:
        cdef char* r = <char*>self.orec(i)
        __builtin_prefetch(r)
        if self.rec_bytes > 64:
            __builtin_prefetch(r + 64)
        r = <char*>self.irec(j)
        __builtin_prefetch(r)
        if self.rec_bytes > 64:
            __builtin_prefetch(r + 64)
        if self.directed:
            __builtin_prefetch(self.irec(i))
            __builtin_prefetch(self.orec(j))
        self.prefetch_tie(i, j)
        self.prefetch_otp(i, j)

    # The dyad a uniform draw of the word r names (i != j; i < j when
    # undirected): ERGMModel.random_var draws it, and a look-ahead prefetches it
    cdef inline void word_dyad(self, uint64_t r, int* i, int* j) noexcept nogil:
        cdef int a = <int>(((r >> 32) * <uint64_t>self.n) >> 32)
        cdef int b = <int>(((<uint64_t><uint32_t>r) * <uint64_t>(self.n - 1)) >> 32)
        if b >= a:
            b += 1
        if not self.directed and a > b:
            a, b = b, a
        i[0] = a
        j[0] = b
    # Look-ahead of a proposal to come (see BinaryModel.lookahead), with fewer
    # lines than prefetch_dyad (the misses in flight are limited, and most
    # candidates are not drawn): the first line of each record (the head and
    # the first neighbours) and the dyad's hash slot; for a removal also the
    # slots after it (the backward shift reads on) and the slot of the tie that
    # will be last once the present proposal has removed one.
    cdef inline void prefetch_ahead(self, int i, int j, bint removal) noexcept nogil:
        cdef char* slot
        __builtin_prefetch(self.orec(i))
        __builtin_prefetch(self.irec(j))
        if self.directed:
            __builtin_prefetch(self.irec(i))
            __builtin_prefetch(self.orec(j))
        slot = <char*>&self.tie_map.slots[tiemap_home(&self.tie_map, self.dyad_key(i, j))]
        __builtin_prefetch(slot)
        if removal:
            __builtin_prefetch(slot + 48)
        self.prefetch_otp(i, j)
        # the degree mirrors a toggle writes
        __builtin_prefetch(&self.out_deg[i])
        __builtin_prefetch(&self.in_deg[j])
    # the k-th tie's tie-list entries (deep False), or, read from them, what its
    # removal reads (deep True; k < n_ties; the entries were prefetched before)
    cdef inline void prefetch_kth(self, int64_t k, bint deep) noexcept nogil:
        if deep:
            self.prefetch_ahead(self.ends[2 * k], self.ends[2 * k + 1], True)
            if self.n_ties >= 2:
                self.prefetch_tie(self.ends[2 * self.n_ties - 4], self.ends[2 * self.n_ties - 3])
        else:
            __builtin_prefetch(&self.ends[2 * k])
    cdef inline void prefetch_word(self, uint64_t r) noexcept nogil:
        cdef int i, j
        self.word_dyad(r, &i, &j)
        self.prefetch_ahead(i, j, False)

    # ... and of the first line of v's record(s) only (streams of many nodes)
    cdef inline void prefetch_node(self, int v) noexcept nogil:
        __builtin_prefetch(self.orec(v))
        if self.directed:
            __builtin_prefetch(self.irec(v))
    # ... and of the rest of a record read before (prefetched earlier) when its
    # neighbours run past the first line
    cdef inline void prefetch_rest(self, int v) noexcept nogil:
        cdef NodeRec* r = self.orec(v)
        if r.deg > (64 - <int>sizeof(NodeRec)) // <int>sizeof(int):
            __builtin_prefetch(<char*>r.nb + 64 if r.nb == <int*>(r + 1) else <char*>r.nb)

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
    # M(a, b) = #{w: a->w->b} of a present arc a->b: from the held counts of every pair
    # if held, else from the per-arc counts (CACHE_AOTP) if held, else counted on demand
    cdef inline bint arcs_counted(self) noexcept nogil:
        return self.arc_m != NULL and not (self.cached & CACHE_OTP)
    cdef inline int n_arc_otp(self, int a, int b) noexcept nogil:
        cdef TieSlot* slot
        if self.arcs_counted():
            slot = tiemap_find(&self.tie_map, <int64_t>a * self.n + b)
            if slot != NULL:
                return self.arc_m[slot.val]
        return self.n_otp(a, b)
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
    # Marks: a kernel that needs many counts on demand with one fixed end, M(a, .) or
    # M(., b) (or shared-partner counts of one node), marks that node's list once per
    # proposal; count_otp and count_common then scan the other list against the marks
    # instead of probing the tie map for each of its entries.  The same numbers either
    # way.  marks_wanted(flag): the counts ``flag`` are counted on demand on hash storage
    # (on the dense bitmap a probe is one load: no marks).  mark_out(a) marks out(a),
    # mark_in(b) in(b) (no-ops when marked at this version); False if out of memory.
    cdef inline bint marks_wanted(self, int flag) noexcept nogil:
        return self.adj == NULL and not (self.cached & flag)
    cdef inline bint mark_out(self, int a) noexcept nogil:
        if self.mo.node == a and self.mo.version == self.version:
            return 1
        return self._mark(a, 0)
    cdef inline bint mark_in(self, int b) noexcept nogil:
        if self.mi.node == b and self.mi.version == self.version:
            return 1
        return self._mark(b, 1)
    # is w in the marked out-list (in-list) of mark_out(a) (mark_in(b)), or in the
    # scratch marks of _scratch
    cdef inline bint out_marked(self, int w) noexcept nogil:
        return is_marked(&self.mo, w)
    cdef inline bint in_marked(self, int w) noexcept nogil:
        return is_marked(&self.mi, w)
    cdef inline bint scratch_marked(self, int w) noexcept nogil:
        return is_marked(&self.mx, w)
    # mark out(a) (in(b)) for nq counts with that fixed end where the counts ``flag`` are
    # on demand and its list is at most MARK_RATIO * nq long (each count would probe at
    # least once; writing a mark costs about a scanned entry)
    cdef inline void want_out_marks(self, int a, int flag, int nq) noexcept nogil:
        if self.marks_wanted(flag) and nq > 0 and self.orec(a).deg <= MARK_RATIO * nq:
            self.mark_out(a)
    cdef inline void want_in_marks(self, int b, int flag, int nq) noexcept nogil:
        if self.marks_wanted(flag) and nq > 0 and self.irec(b).deg <= MARK_RATIO * nq:
            self.mark_in(b)
    cdef bint _alloc_marks(self) noexcept nogil
    cdef bint _mark(self, int v, bint incoming) noexcept nogil
    cdef bint _scratch(self, const int* nb, int d) noexcept nogil
    cdef int count_common(self, int a, int b, bint incoming) noexcept nogil
    cdef int count_otp(self, int a, int b) noexcept nogil

    cdef int add_tie(self, int i, int j) noexcept nogil
    cdef int remove_tie(self, int i, int j) noexcept nogil
    cdef int toggle(self, int i, int j) noexcept nogil
    cdef int _update_caches(self, int i, int j, int delta) noexcept nogil
    cdef void _update_arcs(self, int i, int j, int delta) noexcept nogil
    cdef void _arc_side(self, const int* fl, int fd, const int* ol, int od, int fixed,
                        bint fixed_tail, int other, int delta) noexcept nogil
    cdef bint _arcs_wanted(self) noexcept nogil
    cdef int _hold_arcs(self) noexcept nogil
    cdef void _served(self) noexcept nogil
    cdef void _set_adj(self, int i, int j, bint on) noexcept nogil
    cdef int _build_caches(self, int new) noexcept nogil
    cdef bint _hold_wanted(self) noexcept nogil
    cdef int64_t _estimated_bytes(self, int flags) noexcept nogil
    cdef int64_t _held_bytes(self) noexcept nogil
    cdef int _hold_counts(self, int flags) noexcept nogil
    cdef void _drop_counts(self) noexcept nogil
    cdef int _push(self, NodeRec* r, int** nb_mirror, int* deg_mirror, int v, int w) noexcept nogil
    cdef int _reserve_ties(self, int64_t cap) noexcept nogil
    cdef int _reserve(self, NodeRec* r, int** nb_mirror, int v, int newcap) noexcept nogil
    cdef void _drop(self, NodeRec* r, int* deg_mirror, int v, int w) noexcept nogil
    cdef char* _new_records(self, int64_t nn)
    cdef void _init_records(self, char* recs, int** mirror, int64_t nn)
    # two-path helpers (AltTwoPathsT on demand; see otp_row)
    cdef bint _tp_alloc(self) noexcept nogil
    cdef int* otp_row(self, int i, int j, bint forward, int p) noexcept nogil
    cdef inline void _tp_ahead(self, const int* l, int nl, int t, bint incoming) noexcept nogil:
        # while l[t]'s list is scanned: prefetch the record of l[t + 2 TP_AHEAD] (its in-
        # record if incoming) and the list of l[t + TP_AHEAD] (its record is in by then)
        cdef NodeRec* r
        if t + 2 * TP_AHEAD < nl:
            __builtin_prefetch(self.irec(l[t + 2 * TP_AHEAD]) if incoming
                               else self.orec(l[t + 2 * TP_AHEAD]))
        if t + TP_AHEAD < nl:
            r = self.irec(l[t + TP_AHEAD]) if incoming else self.orec(l[t + TP_AHEAD])
            __builtin_prefetch(r.nb)
