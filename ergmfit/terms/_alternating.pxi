"""Kernels of EstimNetDirected's directed alternating statistics.

Notation (counts of the current state, w ranging over nodes other than a, b):

* M(a, b) = #{w: a->w->b}          (state cache CACHE_OTP, ``s.n_otp(a, b)``)
* O(a, b) = #{w: w->a, w->b}       (CACHE_OSP, ``s.n_osp``, symmetric)
* I(a, b) = #{w: a->w, b->w}       (CACHE_ISP, ``s.n_isp``, symmetric)

q = 1 - 1/lambda.  Every kernel computes the change for adding i->j to the
graph *without* i->j: when i->j is present now, the cached counts that
contain a two-path through the arc i->j itself are lowered by p = x_ij
(see each kernel).  The arc j->i is never part of such a correction: it is
unaffected by the toggle, and pairs (a, a) are never counted.

Each call is O(degree): one pass over a (smaller, where there is a choice)
neighbour list with O(1) tie look-ups and O(1) cache look-ups.  Where the
counts are counted on demand (large networks, or ``set_cache_memory(0)``),
each kernel first marks the list of the end its counts share (``out(i)`` for
M(i, .), ``in(j)`` for M(., j); ``NetworkState.mark_out`` / ``mark_in``), so
that each count scans one list against the marks instead of probing the tie
map once per entry: the same integers, in the same order.  The full
definitions and their statnet equivalents are in :mod:`.alternating`.
"""
from libc.math cimport pow
from libc.stdlib cimport malloc, free
from ergmfit.network._state cimport (
    NetworkState, CACHE_OTP, CACHE_OSP, CACHE_ISP, CACHE_AOTP, MARK_RATIO, in_list,
)
from ergmfit.core._hashmap cimport TieSlot, tiemap_find
from ergmfit.terms._kernel cimport TermKernel

cdef enum:
    QTAB = 2048     # q^k tabulated for k < QTAB, pow() beyond


cdef inline double qpow(const double* tab, double q, int k) noexcept nogil:
    if k < QTAB:
        return tab[k]
    return pow(q, k)


cdef class AltKernel(TermKernel):
    """Common part: lambda, q = 1 - 1/lambda and a table of q^k."""

    cdef readonly double lam
    cdef readonly double q
    cdef double* tab

    def __cinit__(self, double lam):
        cdef int k
        if not (lam > 1.0):
            raise ValueError(f"lambda must be greater than 1, got {lam!r}")
        self.n_stats = 1
        self.lam = lam
        self.q = 1.0 - 1.0 / lam
        self.tab = <double*>malloc(QTAB * sizeof(double))
        if self.tab == NULL:
            raise MemoryError()
        for k in range(QTAB):
            self.tab[k] = pow(self.q, k)

    def __dealloc__(self):
        free(self.tab)

    def __reduce__(self):
        return (type(self), (self.lam,))


# ---------------------------------------------------------------------------
# alternating k-triangles
# ---------------------------------------------------------------------------

cdef class AltKTrianglesTKernel(AltKernel):
    """AKT-T: lambda * sum_{arcs a->b} (1 - q^M(a,b)).

    delta(i->j) = lambda (1 - q^M(i,j))
                + sum_{v: i->v, j->v} q^{M(i,v) - p}     (new path i->j->v)
                + sum_{v: v->i, v->j} q^{M(v,j) - p}     (new path v->i->j)
    M(i, j) does not involve the arc i->j.

    Only arcs' counts are read (i->v, v->j) besides the pair's own M(i, j): the state
    holds one count per arc (CACHE_AOTP, 4 bytes an arc) where it does not hold the
    counts of every pair, so that each term of the sums is a tie-map probe, not a
    two-path count on demand (see _otp_arcs).
    """

    def __cinit__(self, double lam):
        self.caches = CACHE_AOTP

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int p = 1 if s.has_tie(i, j) else 0
        cdef double d_out, d_in
        cdef int di = s.odeg(i), dj = s.odeg(j)
        if s.arcs_counted():
            # the same sums in the same order as below, each M an arc's held count
            if di <= dj:
                d_out = _otp_arcs(self, s, s.onb(i), di, s.onb(j), dj, j, j, 1, i, 1, 0, p)
            else:
                d_out = _otp_arcs(self, s, s.onb(j), dj, s.onb(i), di, i, i, 1, i, 1, 1, p)
            di = s.ideg(i)
            dj = s.ideg(j)
            if di <= dj:
                d_in = _otp_arcs(self, s, s.inb(i), di, s.inb(j), dj, j, j, 0, j, 0, 1, p)
            else:
                d_in = _otp_arcs(self, s, s.inb(j), dj, s.inb(i), di, i, i, 0, j, 0, 0, p)
            out[0] = (self.lam * (1.0 - qpow(self.tab, self.q,
                                             s.n_arc_otp(i, j) if p else s.count_otp(i, j)))
                      + d_out + d_in)
            return
        # v in out(i) & out(j): M(i, v)
        if di <= dj:
            d_out = _otp_common(self, s, s.onb(i), di, s.onb(j), dj, j, j, 1, i, 1, 0, p)
        else:
            d_out = _otp_common(self, s, s.onb(j), dj, s.onb(i), di, i, i, 1, i, 1, 1, p)
        # v in in(i) & in(j): M(v, j)
        di = s.ideg(i)
        dj = s.ideg(j)
        if di <= dj:
            d_in = _otp_common(self, s, s.inb(i), di, s.inb(j), dj, j, j, 0, j, 0, 1, p)
        else:
            d_in = _otp_common(self, s, s.inb(j), dj, s.inb(i), di, i, i, 0, j, 0, 0, p)
        # M(i, j) last (out(i) or in(j) may be marked by now), summed in the order above
        out[0] = self.lam * (1.0 - qpow(self.tab, self.q, s.n_otp(i, j))) + d_out + d_in


cdef enum:
    CHUNK = 64      # _otp_common: candidates whose hash slots are prefetched together


cdef inline double _otp_common(AltKernel K, NetworkState s, const int* la, int da,
                               const int* lb, int db, int skip, int other, bint other_tail,
                               int fixed, bint fixed_tail, bint lb_fixed, int p) noexcept nogil:
    """Sum over v in la (in its order; da <= db), v != skip, v in lb, of q^(M - p)
    with M = n_otp(fixed, v) if fixed_tail else n_otp(v, fixed); lb_fixed: lb is
    fixed's list (out(fixed) if fixed_tail, else in(fixed)), else la is.

    Membership in lb is a direct scan when cheaper (scan_cheaper), else the tie
    (other, v) (other_tail) or (v, other); the hash slots of each chunk of
    candidates are prefetched before they are read, and the sum keeps la's order.
    Where M is counted on demand, fixed's list is marked instead (when it is at
    most MARK_RATIO times la): see _otp_common_marked.
    """
    cdef int base, m, t, v, cn
    cdef int cand[CHUNK]
    cdef bint scan = s.scan_cheaper(da, db)
    cdef double d = 0.0
    if (s.marks_wanted(CACHE_OTP) and (db if lb_fixed else da) <= MARK_RATIO * da
            and (s.mark_out(fixed) if fixed_tail else s.mark_in(fixed))):
        return _otp_common_marked(K, s, la, da, lb, db, skip, other, other_tail, fixed,
                                  fixed_tail, lb_fixed, p)
    base = 0
    while base < da:
        m = min(<int>CHUNK, da - base)
        base += m
        cn = 0
        if scan:
            for t in range(m):
                v = la[base - m + t]
                if v != skip and in_list(lb, db, v):
                    cand[cn] = v
                    cn += 1
        else:
            for t in range(m):
                v = la[base - m + t]
                if other_tail:
                    s.prefetch_tie(other, v)
                else:
                    s.prefetch_tie(v, other)
            for t in range(m):
                v = la[base - m + t]
                if v != skip and (s.has_tie(other, v) if other_tail else s.has_tie(v, other)):
                    cand[cn] = v
                    cn += 1
        for t in range(cn):
            if fixed_tail:
                s.prefetch_otp(fixed, cand[t])
            else:
                s.prefetch_otp(cand[t], fixed)
        for t in range(cn):
            d += qpow(K.tab, K.q, (s.n_otp(fixed, cand[t]) if fixed_tail
                                   else s.n_otp(cand[t], fixed)) - p)
    return d


cdef double _otp_arcs(AltKernel K, NetworkState s, const int* la, int da,
                      const int* lb, int db, int skip, int other, bint other_tail,
                      int fixed, bint fixed_tail, bint lb_fixed, int p) noexcept nogil:
    # _otp_common where the state holds per-arc counts (s.arcs_counted()): each v of la
    # (in its order), v != skip, in lb adds q^(M - p), M the count of the arc fixed->v
    # (fixed_tail) or v->fixed, read at the arc's index in the tie list.  Membership in
    # lb: two short lists compared (scan_cheaper), else lb's marks (fixed's own marks,
    # mark_out / mark_in, kept for the pair's count M(i, j); or scratch marks) where
    # marking costs less than probing, else a tie-map probe per entry (of the arc itself
    # when lb is fixed's list: the probe then also finds its count); the arcs of the
    # members are then probed for their counts, a chunk of slots prefetched at a time.
    cdef int base, m, t, v, cn
    cdef int cand[CHUNK]
    cdef int64_t n = s.n
    cdef TieSlot* slot
    cdef const int* arc_m = s.arc_m
    cdef int how = 0      # 0 probes, 1 short lists compared, 2 fixed's marks, 3 scratch marks
    cdef double d = 0.0
    if s.scan_cheaper(da, db):
        how = 1
    elif lb_fixed:
        if db <= MARK_RATIO * da and (s.mark_out(fixed) if fixed_tail else s.mark_in(fixed)):
            how = 2
    elif db < MARK_RATIO * da and s._scratch(lb, db):
        how = 3
    base = 0
    while base < da:
        m = min(<int>CHUNK, da - base)
        base += m
        cn = 0
        if how == 0:
            for t in range(m):
                v = la[base - m + t]
                if lb_fixed:
                    if fixed_tail:
                        s.prefetch_tie(fixed, v)
                    else:
                        s.prefetch_tie(v, fixed)
                elif other_tail:
                    s.prefetch_tie(other, v)
                else:
                    s.prefetch_tie(v, other)
            if lb_fixed:
                for t in range(m):
                    v = la[base - m + t]
                    if v != skip:
                        slot = tiemap_find(&s.tie_map, fixed * n + v if fixed_tail
                                           else v * n + fixed)
                        if slot != NULL:
                            d += qpow(K.tab, K.q, arc_m[slot.val] - p)
                continue
            for t in range(m):
                v = la[base - m + t]
                if v != skip and (s.has_tie(other, v) if other_tail else s.has_tie(v, other)):
                    cand[cn] = v
                    cn += 1
        elif how == 1:
            for t in range(m):
                v = la[base - m + t]
                if v != skip and in_list(lb, db, v):
                    cand[cn] = v
                    cn += 1
        elif how == 2:
            for t in range(m):
                v = la[base - m + t]
                if v != skip and (s.out_marked(v) if fixed_tail else s.in_marked(v)):
                    cand[cn] = v
                    cn += 1
        else:
            for t in range(m):
                v = la[base - m + t]
                if v != skip and s.scratch_marked(v):
                    cand[cn] = v
                    cn += 1
        for t in range(cn):
            v = cand[t]
            if fixed_tail:
                s.prefetch_tie(fixed, v)
            else:
                s.prefetch_tie(v, fixed)
        for t in range(cn):
            v = cand[t]
            slot = tiemap_find(&s.tie_map, fixed * n + v if fixed_tail else v * n + fixed)
            d += qpow(K.tab, K.q, arc_m[slot.val] - p)
    return d


cdef double _otp_common_marked(AltKernel K, NetworkState s, const int* la, int da,
                               const int* lb, int db, int skip, int other, bint other_tail,
                               int fixed, bint fixed_tail, bint lb_fixed, int p) noexcept nogil:
    # _otp_common with fixed's list marked (mark_out / mark_in) and M counted on demand:
    # the candidates v of la (in its order) found in lb by fixed's marks (lb_fixed), by
    # scratch marks of lb (cheaper than da probes) or by probes, collected first (the
    # counts may use the scratch marks), then each M counted against fixed's marks
    cdef int t, v, cn = 0
    cdef int* cand = s.cand
    cdef double d = 0.0
    if lb_fixed:
        for t in range(da):
            v = la[t]
            if v != skip and (s.out_marked(v) if fixed_tail else s.in_marked(v)):
                cand[cn] = v
                cn += 1
    elif db < MARK_RATIO * da and s._scratch(lb, db):
        for t in range(da):
            v = la[t]
            if v != skip and s.scratch_marked(v):
                cand[cn] = v
                cn += 1
    else:
        for t in range(da):
            v = la[t]
            if v != skip and (s.has_tie(other, v) if other_tail else s.has_tie(v, other)):
                cand[cn] = v
                cn += 1
    for t in range(cn):
        d += qpow(K.tab, K.q, (s.n_otp(fixed, cand[t]) if fixed_tail
                               else s.n_otp(cand[t], fixed)) - p)
    return d


cdef class AltKTrianglesCKernel(AltKernel):
    """AKT-C: lambda * sum_{arcs a->b} (1 - q^M(b,a)).

    delta(i->j) = lambda (1 - q^M(j,i))
                + sum_{v: v->i, j->v} [q^{M(i,v) - p} + q^{M(v,j) - p}]
    (the new arc closes the cycle i->j->v->i; it is a leg of the two-paths
    i->j->v, base arc v->i, and v->i->j, base arc j->v).
    """

    def __cinit__(self, double lam):
        self.caches = CACHE_OTP

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int k, v
        cdef int p = 1 if s.has_tie(i, j) else 0
        cdef double d = self.lam * (1.0 - qpow(self.tab, self.q, s.n_otp(j, i)))
        if s.ideg(i) <= s.odeg(j):
            for k in range(s.ideg(i)):
                v = s.inb(i)[k]
                if v != j and s.has_tie(j, v):
                    d += (qpow(self.tab, self.q, s.n_otp(i, v) - p)
                          + qpow(self.tab, self.q, s.n_otp(v, j) - p))
        else:
            for k in range(s.odeg(j)):
                v = s.onb(j)[k]
                if v != i and s.has_tie(v, i):
                    d += (qpow(self.tab, self.q, s.n_otp(i, v) - p)
                          + qpow(self.tab, self.q, s.n_otp(v, j) - p))
        out[0] = d


cdef class AltKTrianglesDKernel(AltKernel):
    """AKT-D: lambda * sum_{arcs a->b} (1 - q^O(a,b)).

    delta(i->j) = lambda (1 - q^O(i,j))
                + sum_{v: i->v} (x_jv + x_vj) q^{O(j,v) - p}
    (i becomes a common in-neighbour of j and every other out-neighbour v).
    """

    def __cinit__(self, double lam):
        self.caches = CACHE_OSP

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int k, v, t
        cdef int p = 1 if s.has_tie(i, j) else 0
        cdef double d = self.lam * (1.0 - qpow(self.tab, self.q, s.n_osp(i, j)))
        if s.odeg(i) <= s.odeg(j) + s.ideg(j):
            for k in range(s.odeg(i)):
                v = s.onb(i)[k]
                if v == j:
                    continue
                t = (1 if s.has_tie(j, v) else 0) + (1 if s.has_tie(v, j) else 0)
                if t:
                    d += t * qpow(self.tab, self.q, s.n_osp(j, v) - p)
        else:
            for k in range(s.odeg(j)):
                v = s.onb(j)[k]
                if v != i and s.has_tie(i, v):
                    d += qpow(self.tab, self.q, s.n_osp(j, v) - p)
            for k in range(s.ideg(j)):
                v = s.inb(j)[k]
                if v != i and s.has_tie(i, v):
                    d += qpow(self.tab, self.q, s.n_osp(j, v) - p)
        out[0] = d


cdef class AltKTrianglesUKernel(AltKernel):
    """AKT-U: lambda * sum_{arcs a->b} (1 - q^I(a,b)).

    delta(i->j) = lambda (1 - q^I(i,j))
                + sum_{v: v->j} (x_iv + x_vi) q^{I(i,v) - p}
    (j becomes a common out-neighbour of i and every other in-neighbour v).
    """

    def __cinit__(self, double lam):
        self.caches = CACHE_ISP

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int k, v, t
        cdef int p = 1 if s.has_tie(i, j) else 0
        cdef double d = self.lam * (1.0 - qpow(self.tab, self.q, s.n_isp(i, j)))
        if s.ideg(j) <= s.odeg(i) + s.ideg(i):
            for k in range(s.ideg(j)):
                v = s.inb(j)[k]
                if v == i:
                    continue
                t = (1 if s.has_tie(i, v) else 0) + (1 if s.has_tie(v, i) else 0)
                if t:
                    d += t * qpow(self.tab, self.q, s.n_isp(i, v) - p)
        else:
            for k in range(s.odeg(i)):
                v = s.onb(i)[k]
                if v != j and s.has_tie(v, j):
                    d += qpow(self.tab, self.q, s.n_isp(i, v) - p)
            for k in range(s.ideg(i)):
                v = s.inb(i)[k]
                if v != j and s.has_tie(v, j):
                    d += qpow(self.tab, self.q, s.n_isp(i, v) - p)
        out[0] = d


# ---------------------------------------------------------------------------
# alternating two-paths
# ---------------------------------------------------------------------------

cdef inline double a2p_t(AltKernel K, NetworkState s, int i, int j, int p) noexcept nogil:
    # sum_{v: j->v, v != i} q^{M(i,v) - p} + sum_{v: v->i, v != j} q^{M(v,j) - p}
    # (on demand: out(i), then in(j), marked for these counts, see want_out_marks)
    cdef int k, v
    cdef double d = 0.0
    cdef int* c
    if s.marks_wanted(CACHE_OTP):
        # on demand on hash storage: each row of counts from the cheaper side (otp_row)
        c = s.otp_row(i, j, 1, p)
        if c != NULL:
            for k in range(s.odeg(j)):
                if s.onb(j)[k] != i:
                    d += qpow(K.tab, K.q, c[k])
            c = s.otp_row(i, j, 0, p)
            if c != NULL:
                for k in range(s.ideg(i)):
                    if s.inb(i)[k] != j:
                        d += qpow(K.tab, K.q, c[k])
                return d
        d = 0.0
    s.want_out_marks(i, CACHE_OTP, s.odeg(j))
    for k in range(s.odeg(j)):
        v = s.onb(j)[k]
        if v != i:
            d += qpow(K.tab, K.q, s.n_otp(i, v) - p)
    s.want_in_marks(j, CACHE_OTP, s.ideg(i))
    for k in range(s.ideg(i)):
        v = s.inb(i)[k]
        if v != j:
            d += qpow(K.tab, K.q, s.n_otp(v, j) - p)
    return d


cdef inline double a2p_d(AltKernel K, NetworkState s, int i, int j, int p) noexcept nogil:
    # sum_{v: i->v, v != j} q^{O(j,v) - p}  (on demand: in(j) marked)
    cdef int k, v
    cdef double d = 0.0
    s.want_in_marks(j, CACHE_OSP, s.odeg(i))
    for k in range(s.odeg(i)):
        v = s.onb(i)[k]
        if v != j:
            d += qpow(K.tab, K.q, s.n_osp(j, v) - p)
    return d


cdef class AltTwoPathsTKernel(AltKernel):
    """A2P-T: lambda * sum_{ordered pairs a != b} (1 - q^M(a,b))."""

    def __cinit__(self, double lam):
        self.caches = CACHE_OTP

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        out[0] = a2p_t(self, s, i, j, 1 if s.has_tie(i, j) else 0)


cdef class AltTwoPathsDKernel(AltKernel):
    """A2P-D: lambda * sum_{unordered pairs {a, b}} (1 - q^O(a,b))."""

    def __cinit__(self, double lam):
        self.caches = CACHE_OSP

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        out[0] = a2p_d(self, s, i, j, 1 if s.has_tie(i, j) else 0)


cdef class AltTwoPathsUKernel(AltKernel):
    """A2P-U: lambda * sum_{unordered pairs {a, b}} (1 - q^I(a,b)).

    delta(i->j) = sum_{v: v->j, v != i} q^{I(i,v) - p}.
    """

    def __cinit__(self, double lam):
        self.caches = CACHE_ISP

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int k, v
        cdef int p = 1 if s.has_tie(i, j) else 0
        cdef double d = 0.0
        s.want_out_marks(i, CACHE_ISP, s.ideg(j))      # on demand: out(i) marked
        for k in range(s.ideg(j)):
            v = s.inb(j)[k]
            if v != i:
                d += qpow(self.tab, self.q, s.n_isp(i, v) - p)
        out[0] = d


cdef class AltTwoPathsTDKernel(AltKernel):
    """A2P-TD: (A2P-T + A2P-D) / 2."""

    def __cinit__(self, double lam):
        self.caches = CACHE_OTP | CACHE_OSP

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int p = 1 if s.has_tie(i, j) else 0
        out[0] = 0.5 * (a2p_t(self, s, i, j, p) + a2p_d(self, s, i, j, p))
