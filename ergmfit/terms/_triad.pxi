"""Kernels of the undirected triad and shared-partner terms.

triangle, twopath, esp / dsp / nsp counts, gwesp / gwdsp / gwnsp (fixed decay)
and cycle(k).  Notation: for the toggled pair (i, j), ``x`` = x_ij,
``sp(a, b)`` = number of common neighbours of a and b in the current state
(the state's CACHE_SP), and ``sp-(a, b)`` the same count in the graph
WITHOUT the tie (i, j).  Toggling (i, j) changes the shared-partner count
of exactly the pairs (i, w), w in N(j) - {i}, and (j, w), w in N(i) - {j},
each by one, and for those pairs sp-(i, w) = sp(i, w) - x (j is a common
neighbour of i and w only through the tie (i, j)).  The pair (i, j) keeps
its own count sp(i, j) = |N(i) & N(j)|.
"""
from libc.math cimport exp, expm1, log1p
from libc.stdlib cimport malloc, free
from ergmfit.network._state cimport NetworkState, CACHE_SP, in_list
from ergmfit.terms._kernel cimport TermKernel

cdef extern from *:
    """
    /* Common neighbours of a and b by comparing a's list with b's, b's list
       of at most 16 entries (db <= 16) held in four vector registers: one
       compare of each of a's neighbours against all of b's at once.  nbb
       must be readable for 16 ints (its capacity is at least 16: b's record
       itself).  Lanes past db are set to -1, which no neighbour equals.
       Finds the same neighbours in the same order (a's) as the scalar scan;
       x is set to 1 if b is among a's neighbours. */
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #define ERGMFIT_SIMD_COMMON 1
    static inline int ergmfit_common16(const int* nba, int da, const int* nbb, int db,
                                       int b, int* x, int* out) {
        __m128i dv = _mm_set1_epi32(db);
        __m128i ones = _mm_set1_epi32(-1);
        __m128i v0 = _mm_or_si128(_mm_loadu_si128((const __m128i*)nbb),
                                  _mm_andnot_si128(_mm_cmpgt_epi32(dv, _mm_setr_epi32(0, 1, 2, 3)), ones));
        __m128i v1 = _mm_or_si128(_mm_loadu_si128((const __m128i*)(nbb + 4)),
                                  _mm_andnot_si128(_mm_cmpgt_epi32(dv, _mm_setr_epi32(4, 5, 6, 7)), ones));
        __m128i v2 = _mm_or_si128(_mm_loadu_si128((const __m128i*)(nbb + 8)),
                                  _mm_andnot_si128(_mm_cmpgt_epi32(dv, _mm_setr_epi32(8, 9, 10, 11)), ones));
        /* entries 12-15 only when there are more than 12 (in a 128-byte record
           they are on its second cache line, which is not read otherwise) */
        __m128i v3 = _mm_or_si128(_mm_loadu_si128((const __m128i*)(nbb + (db > 12 ? 12 : 8))),
                                  _mm_andnot_si128(_mm_cmpgt_epi32(dv, _mm_setr_epi32(12, 13, 14, 15)), ones));
        int t, k, cn = 0;
        for (t = 0; t < da; t++) {
            k = nba[t];
            __m128i kk = _mm_set1_epi32(k);
            __m128i c = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi32(v0, kk), _mm_cmpeq_epi32(v1, kk)),
                                     _mm_or_si128(_mm_cmpeq_epi32(v2, kk), _mm_cmpeq_epi32(v3, kk)));
            *x |= (k == b);
            out[cn] = k;
            cn += _mm_movemask_epi8(c) != 0;
        }
        return cn;
    }
    #else
    #define ERGMFIT_SIMD_COMMON 0
    static inline int ergmfit_common16(const int* nba, int da, const int* nbb, int db,
                                       int b, int* x, int* out) { return -1; }
    #endif
    """
    bint SIMD_COMMON "ERGMFIT_SIMD_COMMON"
    int common16 "ergmfit_common16"(const int* nba, int da, const int* nbb, int db,
                                    int b, int* x, int* out) noexcept nogil


cdef enum:
    TABLE_CAP = 4096    # length of the weight tables (larger counts are computed directly)
    SCAN_MAX = 8        # neighbour lists up to this length are scanned instead of hashed
    CN_MAX = 32         # common neighbours found by a scan (dense: SCAN_MAX; hash: scan_cheaper)
    PATH_STACK = 32     # cycle(k): paths up to this length live on the stack


# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------
cdef inline bint adjacent(NetworkState s, int b, int k) noexcept nogil:
    """x_bk: a linear scan of b's neighbours when b has few, else the bitmap or hash set."""
    cdef int t, d = s.odeg(b)
    cdef int* nb
    if d <= SCAN_MAX or s.scan_cheaper(d, d):
        nb = s.onb(b)
        for t in range(d):
            if nb[t] == k:
                return 1
        return 0
    return s.has_tie(b, k)


cdef inline bint tied(NetworkState s, int i, int j) noexcept nogil:
    """x_ij, scanning the shorter neighbour list when it is short."""
    if s.odeg(i) <= s.odeg(j):
        return adjacent(s, i, j)
    return adjacent(s, j, i)


cdef inline int scan_common(NetworkState s, int b, const int* nba, int da, int db, int* x,
                            int* cnbuf) noexcept nogil:
    """The common neighbours of a and b (into cnbuf, in the order of a's list nba
    of da entries; b has db >= da), found by comparing the two lists; x = 1 when
    b is among a's neighbours.  b's list of up to 16 is compared in vector
    registers (common16): n = 4,097 and 10^4, G(n, 10/n) gwesp, 8.5 -> 9.4 and
    8.0 -> 8.9 M tie/no-tie proposals per CPU s (interleaved A/B, load 2)."""
    cdef int t, k, cn = 0
    cdef const int* nbb = s.onb(b)
    if SIMD_COMMON and db <= 16 and s.orec(b).cap >= 16:
        return common16(nba, da, nbb, db, b, x, cnbuf)
    for t in range(da):
        k = nba[t]
        if k == b:
            x[0] = 1
        if in_list(nbb, db, k):
            cnbuf[cn] = k
            cn += 1
    return cn


cdef struct GW:
    double* rpow      # rpow[k] = r^k,                 k < L
    double* w         # w[k] = e^a (1 - r^k),          k < L
    int L
    double ea         # e^alpha
    double l1r        # log(r) = log1p(-e^-alpha)  (-inf when alpha = 0)


cdef inline double gw_r(const GW* g, int k) noexcept nogil:
    if k < g.L:
        return g.rpow[k]
    return exp(k * g.l1r)


cdef inline double gw_w(const GW* g, int k) noexcept nogil:
    if k < g.L:
        return g.w[k]
    return -g.ea * expm1(k * g.l1r)


cdef int gw_init(GW* g, double alpha, int n, int cap) except -1:
    """Tables of r^k and e^a (1 - r^k), r = 1 - e^-alpha, computed without cancellation."""
    cdef int k
    g.L = max(1, min(n + 2, cap))
    g.rpow = <double*>malloc(g.L * sizeof(double))
    g.w = <double*>malloc(g.L * sizeof(double))
    if g.rpow == NULL or g.w == NULL:
        raise MemoryError()
    g.ea = exp(alpha)
    g.l1r = log1p(-exp(-alpha))
    g.rpow[0] = 1.0
    g.w[0] = 0.0
    for k in range(1, g.L):
        if alpha == 0.0:
            g.rpow[k] = 0.0
            g.w[k] = 1.0
        else:
            g.rpow[k] = exp(k * g.l1r)
            g.w[k] = -g.ea * expm1(k * g.l1r)
    return 0


cdef inline double gwesp_delta(NetworkState s, int i, int j, const GW* g) noexcept nogil:
    """Change of e^a sum_k (1 - r^k) EP_k: w(sp(i,j)) + sum_{k in N(i)&N(j)} r^sp-(i,k) + r^sp-(j,k)."""
    cdef int a = i, b = j, t, k, cn = 0, x = -1, da, db
    cdef int* nba
    cdef int cnbuf[CN_MAX]
    cdef double acc = 0.0
    if s.odeg(a) > s.odeg(b):
        a = j; b = i
    da = s.odeg(a)
    if da == 0:
        return 0.0
    db = s.odeg(b)
    nba = s.onb(a)
    if db <= SCAN_MAX or s.scan_cheaper(da, db):
        # short lists: intersect by scanning (no hashing); b never matches
        # (no loops), and meeting b in N(a) tells x = 1
        x = 0
        cn = scan_common(s, b, nba, da, db, &x, cnbuf)
        for t in range(cn):
            k = cnbuf[t]
            acc += gw_r(g, s.n_sp(a, k) - x) + gw_r(g, s.n_sp(b, k) - x)
    else:
        for t in range(da):
            k = nba[t]
            if k != b and s.has_tie(b, k):
                cn += 1
                if x < 0:
                    x = adjacent(s, a, b)
                acc += gw_r(g, s.n_sp(a, k) - x) + gw_r(g, s.n_sp(b, k) - x)
    return acc + gw_w(g, cn)


cdef inline double gwdsp_delta(NetworkState s, int i, int j, const GW* g) noexcept nogil:
    """Change of e^a sum_k (1 - r^k) DP_k: sum over the pairs whose count rises of r^sp-."""
    cdef int t, w
    cdef int x = tied(s, i, j)
    cdef int* nb
    cdef double acc = 0.0
    nb = s.onb(j)
    for t in range(s.odeg(j)):
        w = nb[t]
        if w != i:
            acc += gw_r(g, s.n_sp(i, w) - x)
    nb = s.onb(i)
    for t in range(s.odeg(i)):
        w = nb[t]
        if w != j:
            acc += gw_r(g, s.n_sp(j, w) - x)
    return acc


cdef inline void zero(double* out, int m) noexcept nogil:
    cdef int t
    for t in range(m):
        out[t] = 0.0


# A count histogram over selected values d: pos[v] = output index of d = v, or -1.
cdef inline void hist_move(const int* pos, int T, int v, double sign, double* out) noexcept nogil:
    """A pair's count moves from v to v + 1."""
    if v + 1 < T and pos[v + 1] >= 0:
        out[pos[v + 1]] += sign
    if v < T and pos[v] >= 0:
        out[pos[v]] -= sign


cdef inline void esp_hist_delta(NetworkState s, int i, int j, const int* pos, int T,
                                double sign, double* out) noexcept nogil:
    # same intersection as gwesp_delta
    cdef int a = i, b = j, t, k, cn = 0, x = -1, da, db
    cdef int* nba
    cdef int cnbuf[CN_MAX]
    if s.odeg(a) > s.odeg(b):
        a = j; b = i
    da = s.odeg(a)
    db = s.odeg(b)
    nba = s.onb(a)
    if db <= SCAN_MAX or s.scan_cheaper(da, db):
        x = 0
        cn = scan_common(s, b, nba, da, db, &x, cnbuf)
        for t in range(cn):
            k = cnbuf[t]
            hist_move(pos, T, s.n_sp(a, k) - x, sign, out)
            hist_move(pos, T, s.n_sp(b, k) - x, sign, out)
    else:
        for t in range(da):
            k = nba[t]
            if k != b and s.has_tie(b, k):
                cn += 1
                if x < 0:
                    x = adjacent(s, a, b)
                hist_move(pos, T, s.n_sp(a, k) - x, sign, out)
                hist_move(pos, T, s.n_sp(b, k) - x, sign, out)
    if cn < T and pos[cn] >= 0:     # the edge (i, j) itself
        out[pos[cn]] += sign


cdef inline void dsp_hist_delta(NetworkState s, int i, int j, const int* pos, int T,
                                double sign, double* out) noexcept nogil:
    cdef int t, w
    cdef int x = tied(s, i, j)
    cdef int* nb
    nb = s.onb(j)
    for t in range(s.odeg(j)):
        w = nb[t]
        if w != i:
            hist_move(pos, T, s.n_sp(i, w) - x, sign, out)
    nb = s.onb(i)
    for t in range(s.odeg(i)):
        w = nb[t]
        if w != j:
            hist_move(pos, T, s.n_sp(j, w) - x, sign, out)


# ---------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------
cdef class TriangleKernel(TermKernel):
    """triangle: Δ = sp(i, j) (uses the shared-partner cache only if another term enabled it)."""

    def __cinit__(self):
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        out[0] = s.n_sp(i, j)


cdef class TwopathKernel(TermKernel):
    """twopath (undirected = kstar2): Δ = (d_i - x) + (d_j - x)."""

    def __cinit__(self):
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int x = s.has_tie(i, j)
        out[0] = s.odeg(i) + s.odeg(j) - 2 * x


cdef class _HistKernel(TermKernel):
    """Base of the esp / dsp / nsp counts: the selected values d and their positions."""
    cdef int* pos
    cdef int T

    def __cinit__(self, ds, int n):
        cdef int t, d
        self.n_stats = len(ds)
        self.caches = CACHE_SP
        top = max([v for v in ds if v <= n] + [0])
        self.T = top + 2
        self.pos = <int*>malloc(self.T * sizeof(int))
        if self.pos == NULL:
            raise MemoryError()
        for t in range(self.T):
            self.pos[t] = -1
        for t, d in enumerate(ds):
            if d < 0:
                raise ValueError("shared-partner counts are non-negative")
            if d < self.T:
                self.pos[d] = t

    def __dealloc__(self):
        free(self.pos)


cdef class EspKernel(_HistKernel):
    """esp(d): edges with exactly d shared partners."""

    def __cinit__(self, *args):
        self.counts_on_demand = True     # counts of the shared partners only

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        zero(out, self.n_stats)
        esp_hist_delta(s, i, j, self.pos, self.T, 1.0, out)


cdef class DspKernel(_HistKernel):
    """dsp(d): dyads (edge or not) with exactly d shared partners."""

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        zero(out, self.n_stats)
        dsp_hist_delta(s, i, j, self.pos, self.T, 1.0, out)


cdef class NspKernel(_HistKernel):
    """nsp(d) = dsp(d) - esp(d): non-edge dyads with exactly d shared partners."""

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        zero(out, self.n_stats)
        dsp_hist_delta(s, i, j, self.pos, self.T, 1.0, out)
        esp_hist_delta(s, i, j, self.pos, self.T, -1.0, out)


cdef class _GWKernel(TermKernel):
    cdef GW g
    cdef readonly double decay

    def __cinit__(self, double decay, int n, int table_size=TABLE_CAP):
        # table_size: length of the weight tables (tests shrink it to reach the direct formula)
        if not decay >= 0.0:
            raise ValueError("decay must be non-negative")
        self.n_stats = 1
        self.caches = CACHE_SP
        self.decay = decay
        gw_init(&self.g, decay, n, table_size)

    def __dealloc__(self):
        free(self.g.rpow)
        free(self.g.w)

    def weight(self, int k):
        """e^a (1 - (1 - e^-a)^k), the weight of a count k (for tests)."""
        return gw_w(&self.g, k)


cdef class GwespKernel(_GWKernel):
    """gwesp(decay, fixed=TRUE)."""

    def __cinit__(self, *args, **kwargs):
        self.counts_on_demand = True     # counts of the shared partners only

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        out[0] = gwesp_delta(s, i, j, &self.g)


cdef class GwdspKernel(_GWKernel):
    """gwdsp(decay, fixed=TRUE)."""

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        out[0] = gwdsp_delta(s, i, j, &self.g)


cdef class GwnspKernel(_GWKernel):
    """gwnsp(decay, fixed=TRUE) = gwdsp - gwesp."""

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        out[0] = gwdsp_delta(s, i, j, &self.g) - gwesp_delta(s, i, j, &self.g)


cdef class CycleKernel(TermKernel):
    """cycle(k): number of k-cycles (as subgraphs), k >= 3.

    Adding (a, b) creates one k-cycle per simple path a = v0, v1, ..., v_{k-1} = b
    of length k-1 in the graph without the tie.  The paths are enumerated by
    depth-first search from the endpoint of smaller degree up to v_{k-3}; the
    last two steps are counted from the shared-partner cache:

        #{w not on the path, w ~ v_m, w ~ b} = sp(v_m, b) - x [v_m ~ a]
                                            - sum_{0 < t < m} [v_t ~ v_m][v_t ~ b]

    (m = k - 3 >= 1; for k = 3 it is sp(a, b)).  Cost per call is the number
    of simple paths of length k - 3 from the start, i.e. O(d^(k-3)).
    """
    cdef int M           # deepest path length enumerated = max(k) - 3
    cdef int* want       # want[m] = output index of k = m + 3, or -1

    def __cinit__(self, ks):
        cdef int t, k
        self.n_stats = len(ks)
        self.M = max(ks) - 3
        self.caches = CACHE_SP if self.M >= 1 else 0
        self.want = <int*>malloc((self.M + 1) * sizeof(int))
        if self.want == NULL:
            raise MemoryError()
        for t in range(self.M + 1):
            self.want[t] = -1
        for t, k in enumerate(ks):
            if k < 3:
                raise ValueError("undirected cycles have length at least 3")
            self.want[k - 3] = t

    def __dealloc__(self):
        free(self.want)

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        # path[t] = v_t, hb[t] = [v_t ~ b]; on the stack unless k is very long,
        # so that the kernel stays re-entrant
        cdef int stack_path[PATH_STACK]
        cdef int stack_hb[PATH_STACK]
        cdef int* path = stack_path
        cdef int* hb = stack_hb
        cdef int t, a = i, b = j
        for t in range(self.n_stats):
            out[t] = 0.0
        if s.odeg(a) > s.odeg(b):
            a = j; b = i
        if self.want[0] >= 0:
            out[self.want[0]] = s.n_sp(a, b)
        if self.M < 1:
            return
        if self.M + 1 > PATH_STACK:
            path = <int*>malloc(2 * (self.M + 1) * sizeof(int))
            if path == NULL:
                return
            hb = path + self.M + 1
        path[0] = a
        hb[0] = s.has_tie(a, b)
        self._extend(s, path, hb, 0, b, out)
        if path != stack_path:
            free(path)

    cdef void _extend(self, NetworkState s, int* path, int* hb, int d, int b,
                      double* out) noexcept nogil:
        cdef int v = path[d]
        cdef int m = d + 1
        cdef int t, q, u, slot
        cdef int* nb = s.onb(v)
        cdef long c
        slot = self.want[m]
        for t in range(s.odeg(v)):
            u = nb[t]
            if u == b:
                continue
            for q in range(d):          # path[d] = v is a neighbour, never u
                if path[q] == u:
                    break
            else:
                path[m] = u
                if slot >= 0:
                    # partners w of u and b, off the path; path[m-1] is a neighbour of u
                    c = s.n_sp(u, b) - hb[m - 1]
                    if m >= 2 and hb[0] and s.has_tie(path[0], u):
                        c -= 1
                    for q in range(1, m - 1):
                        if hb[q] and s.has_tie(path[q], u):
                            c -= 1
                    out[slot] += c
                if m < self.M:
                    hb[m] = s.has_tie(u, b)
                    self._extend(s, path, hb, m, b, out)
