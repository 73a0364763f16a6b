"""Kernels of the directed triad and shared-partner terms (statnet ``ergm`` 4.4 definitions).

Shared-partner counts of an ordered pair (a, b), k ranging over nodes other than a, b
(statnet's names; the state's cache names differ for OSP / ISP):

* OTP(a, b) = #{k: a->k->b}            state cache CACHE_OTP, ``s.n_otp(a, b)``
* ITP(a, b) = #{k: b->k->a} = OTP(b, a)
* RTP(a, b) = #{k: a<->k<->b}          no cache: O(degree) scan
* OSP(a, b) = #{k: a->k, b->k}         shared OUT-neighbour: state's CACHE_ISP, ``s.n_isp``
* ISP(a, b) = #{k: k->a, k->b}         shared IN-neighbour: state's CACHE_OSP, ``s.n_osp``

Every change statistic is Delta = g(x + ij) - g(x - ij), computed from the state
whether or not i->j is present now.  The shared-partner count of the pair (i, j)
itself never involves the tie i->j (k != i, j), but the tie i->j is a leg of the
partner configurations of neighbouring pairs; when i->j is present the caches
include it, so those counts are lowered by p = x_ij.  The reverse tie j->i is
never toggled, so it needs no correction (for RTP it decides whether i->j
changes any mutual dyad at all).

With r = 1 - e^-decay and w(c) = e^decay (1 - r^c), a pair gaining one partner
(c -> c + 1) changes its weight by w(c + 1) - w(c) = r^c.
"""
from libc.math cimport exp, pow
from libc.stdlib cimport malloc, free
from ergmfit.network._state cimport NetworkState, CACHE_OTP, CACHE_OSP, CACHE_ISP
from ergmfit.terms._kernel cimport TermKernel

# shared-partner types (Python side: SP_TYPES)
cdef enum:
    T_OTP = 0
    T_ITP = 1
    T_RTP = 2
    T_OSP = 3
    T_ISP = 4

SP_TYPES = {"OTP": T_OTP, "ITP": T_ITP, "RTP": T_RTP, "OSP": T_OSP, "ISP": T_ISP}

# triad statistics
cdef enum:
    M_TTRIPLE = 0
    M_CTRIPLE = 1
    M_TRIANGLE = 2
    M_TWOPATH = 3
    M_TRANSTIES = 4
    M_CYCTIES = 5

TRIAD_MODES = {"ttriple": M_TTRIPLE, "ctriple": M_CTRIPLE, "triangle": M_TRIANGLE,
               "twopath": M_TWOPATH, "transitiveties": M_TRANSTIES, "cyclicalties": M_CYCTIES}


# ---------------------------------------------------------------------------
# neighbourhood intersections, O(min degree) with O(1) tie look-ups (two-path
# counts come from the state: NetworkState.count_otp / count_common)
# ---------------------------------------------------------------------------

cdef inline int n_rtp(NetworkState s, int a, int b) noexcept nogil:
    """RTP(a, b) = #{k: a<->k<->b}, k != a, b (symmetric in a, b)."""
    cdef int t, k, c = 0
    cdef int u = a, v = b
    if s.out_deg[b] < s.out_deg[a]:
        u = b
        v = a
    for t in range(s.out_deg[u]):
        k = s.out_nb[u][t]
        if k != v and s.has_tie(k, u) and s.has_tie(v, k) and s.has_tie(k, v):
            c += 1
    return c


# ---------------------------------------------------------------------------
# triad counts
# ---------------------------------------------------------------------------

cdef class DTriadKernel(TermKernel):
    """Directed triad statistics, one per instance (``mode``).

    ttriple   sum_{a,b,c distinct} x_ab x_bc x_ac
              Delta = OTP(i,j) + OSP(i,j) + ISP(i,j)   (i->j as a->c, a->b, b->c)
    ctriple   (1/3) sum x_ab x_bc x_ca;  Delta = OTP(j,i)
    triangle  ttriple + ctriple
    twopath   sum_{a != c} #{b: a->b->c};  Delta = outdeg(j) + indeg(i) - 2 x_ji
    transitiveties  #{ties a->b: OTP(a,b) >= 1}
    cyclicalties    #{ties a->b: OTP(b,a) >= 1}   (ITP(a,b) >= 1)
    """

    cdef readonly int mode

    def __cinit__(self, int mode):
        if mode < M_TTRIPLE or mode > M_CYCTIES:
            raise ValueError(f"unknown directed triad mode {mode}")
        self.n_stats = 1
        self.mode = mode
        if mode == M_TRANSTIES or mode == M_CYCTIES:
            self.caches = CACHE_OTP

    def __reduce__(self):
        return (type(self), (self.mode,))

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int m = self.mode
        cdef int t, k, p
        cdef double d = 0.0
        if m == M_TTRIPLE:
            d = s.count_otp(i, j) + s.count_common(i, j, False) + s.count_common(i, j, True)
        elif m == M_CTRIPLE:
            d = s.count_otp(j, i)
        elif m == M_TRIANGLE:
            d = (s.count_otp(i, j) + s.count_common(i, j, False) + s.count_common(i, j, True)
                 + s.count_otp(j, i))
        elif m == M_TWOPATH:
            d = s.out_deg[j] + s.in_deg[i] - (2 if s.has_tie(j, i) else 0)
        elif m == M_TRANSTIES:
            p = 1 if s.has_tie(i, j) else 0
            # the tie i->j itself
            if s.n_otp(i, j) > 0:
                d += 1.0
            # ties i->k with j->k gain the two-path i->j->k
            if s.out_deg[i] <= s.out_deg[j]:
                for t in range(s.out_deg[i]):
                    k = s.out_nb[i][t]
                    if k != j and s.has_tie(j, k) and s.n_otp(i, k) - p == 0:
                        d += 1.0
            else:
                for t in range(s.out_deg[j]):
                    k = s.out_nb[j][t]
                    if k != i and s.has_tie(i, k) and s.n_otp(i, k) - p == 0:
                        d += 1.0
            # ties k->j with k->i gain the two-path k->i->j
            if s.in_deg[i] <= s.in_deg[j]:
                for t in range(s.in_deg[i]):
                    k = s.in_nb[i][t]
                    if k != j and s.has_tie(k, j) and s.n_otp(k, j) - p == 0:
                        d += 1.0
            else:
                for t in range(s.in_deg[j]):
                    k = s.in_nb[j][t]
                    if k != i and s.has_tie(k, i) and s.n_otp(k, j) - p == 0:
                        d += 1.0
        else:   # M_CYCTIES
            p = 1 if s.has_tie(i, j) else 0
            if s.n_otp(j, i) > 0:
                d += 1.0
            # k with j->k->i: the tie k->i gains i->j->k, the tie j->k gains k->i->j
            if s.out_deg[j] <= s.in_deg[i]:
                for t in range(s.out_deg[j]):
                    k = s.out_nb[j][t]
                    if k != i and s.has_tie(k, i):
                        if s.n_otp(i, k) - p == 0:
                            d += 1.0
                        if s.n_otp(k, j) - p == 0:
                            d += 1.0
            else:
                for t in range(s.in_deg[i]):
                    k = s.in_nb[i][t]
                    if k != j and s.has_tie(j, k):
                        if s.n_otp(i, k) - p == 0:
                            d += 1.0
                        if s.n_otp(k, j) - p == 0:
                            d += 1.0
        out[0] = d


# ---------------------------------------------------------------------------
# shared partners: gwesp / gwdsp (fixed decay) and esp / dsp counts
# ---------------------------------------------------------------------------

# over which pairs a statistic sums
cdef enum:
    K_EDGE = 0      # ties a->b                    (esp, gwesp)
    K_DYAD = 1      # ordered pairs a != b         (dsp, gwdsp)
    K_NONEDGE = 2   # ordered pairs without a->b   (nsp, gwnsp) = dyad - edge

SP_KINDS = {"edge": K_EDGE, "dyad": K_DYAD, "nonedge": K_NONEDGE}


cdef class DSPKernel(TermKernel):
    """Directed edgewise / dyadwise / non-edgewise shared partners of one type.

    edge: over ties a->b, the count SP(a, b); dyad: over ordered pairs a != b
    (statnet counts the symmetric OSP / ISP / RTP pairs twice, once per order);
    nonedge: over ordered pairs a != b without the tie a->b (= dyad - edge).

    gw (``d`` is None):  e^decay sum (1 - r^SP),  r = 1 - e^-decay   (one statistic)
    counts:              #{ties / pairs with SP = d_m}, one statistic per d_m.
    """

    cdef readonly int sptype
    cdef readonly int kind
    cdef readonly bint gw
    cdef readonly double decay
    cdef readonly int n
    cdef double expa
    cdef double* rtab       # r^c, c = 0..n+1
    cdef int* didx          # d -> statistic index, or -1; d = 0..dmax
    cdef int dmax
    cdef object _dlist

    def __cinit__(self, int sptype, int kind, int n, double decay=0.0, d=None):
        cdef int c, m
        if sptype < T_OTP or sptype > T_ISP:
            raise ValueError(f"unknown shared-partner type {sptype}")
        if kind < K_EDGE or kind > K_NONEDGE:
            raise ValueError(f"unknown shared-partner kind {kind}")
        if n < 1:
            raise ValueError("n must be positive")
        self.sptype = sptype
        self.kind = kind
        self.n = n
        self.decay = decay
        self.rtab = NULL
        self.didx = NULL
        self._dlist = None if d is None else [int(v) for v in d]
        if sptype == T_OTP or sptype == T_ITP:
            self.caches = CACHE_OTP
        elif sptype == T_OSP:
            self.caches = CACHE_ISP       # state's ISP = shared out-neighbour = statnet OSP
        elif sptype == T_ISP:
            self.caches = CACHE_OSP       # state's OSP = shared in-neighbour = statnet ISP
        else:
            self.caches = 0
        if d is None:
            self.gw = True
            self.n_stats = 1
            self.expa = exp(decay)
            self.rtab = <double*>malloc((n + 2) * sizeof(double))
            if self.rtab == NULL:
                raise MemoryError()
            for c in range(n + 2):
                self.rtab[c] = pow(1.0 - exp(-decay), c)
        else:
            self.gw = False
            dl = self._dlist
            if not dl or min(dl) < 0 or len(set(dl)) != len(dl):
                raise ValueError("d must be distinct non-negative integers")
            self.n_stats = len(dl)
            self.dmax = max(dl)
            self.didx = <int*>malloc((self.dmax + 1) * sizeof(int))
            if self.didx == NULL:
                raise MemoryError()
            for c in range(self.dmax + 1):
                self.didx[c] = -1
            for m in range(len(dl)):
                self.didx[dl[m]] = m

    def __dealloc__(self):
        free(self.rtab)
        free(self.didx)

    def __reduce__(self):
        return (type(self), (self.sptype, self.kind, self.n, self.decay, self._dlist))

    cdef inline void _own(self, int c, double sign, double* out) noexcept nogil:
        # the pair (i, j), with SP(i, j) = c, enters the sum over ties
        if self.gw:
            out[0] += sign * self.expa * (1.0 - self.rtab[c])
        elif c <= self.dmax and self.didx[c] >= 0:
            out[self.didx[c]] += sign

    cdef inline void _hit(self, int c, double mult, double* out) noexcept nogil:
        # `mult` ties or ordered pairs (signed) whose count goes c -> c + 1
        if self.gw:
            out[0] += mult * self.rtab[c]
        else:
            if c <= self.dmax and self.didx[c] >= 0:
                out[self.didx[c]] -= mult
            if c + 1 <= self.dmax and self.didx[c + 1] >= 0:
                out[self.didx[c + 1]] += mult

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int t
        cdef int p = 1 if s.has_tie(i, j) else 0
        for t in range(self.n_stats):
            out[t] = 0.0
        if self.kind == K_EDGE:
            self._edge_pass(s, i, j, p, 1.0, out)
        elif self.kind == K_DYAD:
            self._dyad_pass(s, i, j, p, 1.0, out)
        else:
            self._dyad_pass(s, i, j, p, 1.0, out)
            self._edge_pass(s, i, j, p, -1.0, out)

    cdef void _dyad_pass(self, NetworkState s, int i, int j, int p, double sg,
                         double* out) noexcept nogil:
        """Ordered pairs whose count changes when i->j is added; the pair (i, j) itself does not."""
        cdef int t, k
        cdef int tp = self.sptype
        if tp == T_OTP or tp == T_ITP:    # over all ordered pairs ITP(a, b) = OTP(b, a)
            for t in range(s.out_deg[j]):           # pairs (i, k), j->k: partner j
                k = s.out_nb[j][t]
                if k != i:
                    self._hit(s.n_otp(i, k) - p, sg, out)
            for t in range(s.in_deg[i]):            # pairs (k, j), k->i: partner i
                k = s.in_nb[i][t]
                if k != j:
                    self._hit(s.n_otp(k, j) - p, sg, out)
        elif tp == T_OSP:                           # pairs {i, k}, k->j: shared out-neighbour j
            for t in range(s.in_deg[j]):
                k = s.in_nb[j][t]
                if k != i:
                    self._hit(s.n_isp(i, k) - p, 2.0 * sg, out)
        elif tp == T_ISP:                           # pairs {j, k}, i->k: shared in-neighbour i
            for t in range(s.out_deg[i]):
                k = s.out_nb[i][t]
                if k != j:
                    self._hit(s.n_osp(j, k) - p, 2.0 * sg, out)
        elif s.has_tie(j, i):                       # RTP: i->j makes / breaks the mutual dyad
            for t in range(s.out_deg[j]):           # pairs {i, k}, j<->k: partner j
                k = s.out_nb[j][t]
                if k != i and s.has_tie(k, j):
                    self._hit(n_rtp(s, i, k) - p, 2.0 * sg, out)
            for t in range(s.out_deg[i]):           # pairs {j, k}, i<->k: partner i
                k = s.out_nb[i][t]
                if k != j and s.has_tie(k, i):
                    self._hit(n_rtp(s, j, k) - p, 2.0 * sg, out)

    cdef void _edge_pass(self, NetworkState s, int i, int j, int p, double sg,
                         double* out) noexcept nogil:
        """The tie i->j itself, and the other ties whose count changes when i->j is added."""
        cdef int t, k, m
        cdef int tp = self.sptype
        if tp == T_OTP:
            self._own(s.n_otp(i, j), sg, out)
            # ties i->k with j->k: pair (i, k) gains partner j (i->j->k)
            if s.out_deg[i] <= s.out_deg[j]:
                for t in range(s.out_deg[i]):
                    k = s.out_nb[i][t]
                    if k != j and s.has_tie(j, k):
                        self._hit(s.n_otp(i, k) - p, sg, out)
            else:
                for t in range(s.out_deg[j]):
                    k = s.out_nb[j][t]
                    if k != i and s.has_tie(i, k):
                        self._hit(s.n_otp(i, k) - p, sg, out)
            # ties k->j with k->i: pair (k, j) gains partner i (k->i->j)
            if s.in_deg[i] <= s.in_deg[j]:
                for t in range(s.in_deg[i]):
                    k = s.in_nb[i][t]
                    if k != j and s.has_tie(k, j):
                        self._hit(s.n_otp(k, j) - p, sg, out)
            else:
                for t in range(s.in_deg[j]):
                    k = s.in_nb[j][t]
                    if k != i and s.has_tie(k, i):
                        self._hit(s.n_otp(k, j) - p, sg, out)

        elif tp == T_ITP:
            self._own(s.n_otp(j, i), sg, out)
            # k with j->k->i: tie k->i gains partner j (ITP(k, i) = OTP(i, k), i->j->k),
            # tie j->k gains partner i (ITP(j, k) = OTP(k, j), k->i->j)
            if s.out_deg[j] <= s.in_deg[i]:
                for t in range(s.out_deg[j]):
                    k = s.out_nb[j][t]
                    if k != i and s.has_tie(k, i):
                        self._hit(s.n_otp(i, k) - p, sg, out)
                        self._hit(s.n_otp(k, j) - p, sg, out)
            else:
                for t in range(s.in_deg[i]):
                    k = s.in_nb[i][t]
                    if k != j and s.has_tie(j, k):
                        self._hit(s.n_otp(i, k) - p, sg, out)
                        self._hit(s.n_otp(k, j) - p, sg, out)

        elif tp == T_OSP:
            # pairs {i, k} with k->j gain the shared out-neighbour j
            self._own(s.n_isp(i, j), sg, out)
            # tie i->k: k in out(i) & in(j)
            if s.out_deg[i] <= s.in_deg[j]:
                for t in range(s.out_deg[i]):
                    k = s.out_nb[i][t]
                    if k != j and s.has_tie(k, j):
                        self._hit(s.n_isp(i, k) - p, sg, out)
            else:
                for t in range(s.in_deg[j]):
                    k = s.in_nb[j][t]
                    if k != i and s.has_tie(i, k):
                        self._hit(s.n_isp(i, k) - p, sg, out)
            # tie k->i: k in in(i) & in(j)
            if s.in_deg[i] <= s.in_deg[j]:
                for t in range(s.in_deg[i]):
                    k = s.in_nb[i][t]
                    if k != j and s.has_tie(k, j):
                        self._hit(s.n_isp(i, k) - p, sg, out)
            else:
                for t in range(s.in_deg[j]):
                    k = s.in_nb[j][t]
                    if k != i and s.has_tie(k, i):
                        self._hit(s.n_isp(i, k) - p, sg, out)

        elif tp == T_ISP:
            # pairs {j, k} with i->k gain the shared in-neighbour i
            self._own(s.n_osp(i, j), sg, out)
            # tie j->k: k in out(i) & out(j)
            if s.out_deg[i] <= s.out_deg[j]:
                for t in range(s.out_deg[i]):
                    k = s.out_nb[i][t]
                    if k != j and s.has_tie(j, k):
                        self._hit(s.n_osp(j, k) - p, sg, out)
            else:
                for t in range(s.out_deg[j]):
                    k = s.out_nb[j][t]
                    if k != i and s.has_tie(i, k):
                        self._hit(s.n_osp(j, k) - p, sg, out)
            # tie k->j: k in out(i) & in(j)
            if s.out_deg[i] <= s.in_deg[j]:
                for t in range(s.out_deg[i]):
                    k = s.out_nb[i][t]
                    if k != j and s.has_tie(k, j):
                        self._hit(s.n_osp(j, k) - p, sg, out)
            else:
                for t in range(s.in_deg[j]):
                    k = s.in_nb[j][t]
                    if k != i and s.has_tie(i, k):
                        self._hit(s.n_osp(j, k) - p, sg, out)

        else:   # T_RTP
            self._own(n_rtp(s, i, j), sg, out)
            if s.has_tie(j, i):
                # i->j makes / breaks the mutual dyad i<->j: pairs {i, k} with j<->k gain
                # partner j, pairs {j, k} with i<->k gain partner i; their ties both ways count
                for t in range(s.out_deg[j]):
                    k = s.out_nb[j][t]
                    if k != i and s.has_tie(k, j):
                        m = s.has_tie(i, k) + s.has_tie(k, i)
                        if m:
                            self._hit(n_rtp(s, i, k) - p, m * sg, out)
                for t in range(s.out_deg[i]):
                    k = s.out_nb[i][t]
                    if k != j and s.has_tie(k, i):
                        m = s.has_tie(j, k) + s.has_tie(k, j)
                        if m:
                            self._hit(n_rtp(s, j, k) - p, m * sg, out)
