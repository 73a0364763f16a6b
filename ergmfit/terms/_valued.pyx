# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled kernels of the valued (count) terms (ergm.count's definitions; see
``ergmfit/terms/valued.py`` and docs/valued_terms.md).

* ``ValueKernel``: sums over the dyads of transforms h(y_ij) of the value alone (``sum``,
  ``nonzero``, ``CMP``, ``atleast``, ``atmost``, ``greaterthan``, ``smallerthan``,
  ``equalto``, ``ininterval``), the transforms ``Project()`` uses; O(1) per change.
* ``DyadicFormKernel``: statnet's ``form="sum"`` / ``form="nonzero"`` of a dyad-independent
  binary term: Σ x_ij y_ij or Σ x_ij [y_ij != 0], x_ij the binary term's change statistic
  (its kernel reads no state: one empty binary state serves every call); O(1).
* ``BinaryViewKernel``: statnet's ``B(formula, form)``: a DyadicFormKernel whose binary
  network (the dyads with a nonzero value, or passing a 0/1 value criterion) is kept
  beside the count state, so that any binary term, dyad-dependent too, reads it; O(1) per
  change plus the binary kernels' own cost.
* ``MutualKernel``: Σ_{i<j} m(y_ij, y_ji); O(1).
* ``WeightsKernel``: ``transitiveweights`` / ``cyclicalweights``; O(degree) per affected
  dyad, see the class.
* ``NodeCovarKernel``: ``nodecovar`` / ``nodeocovar`` / ``nodeicovar`` (``center``,
  ``transform="sqrt"``); O(1) (the state keeps the row sums and global moments).
"""
cimport cython
from libc.math cimport sqrt, fabs, INFINITY
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport malloc, free
from ergmfit.network._countstate cimport CountState
from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms._ergm cimport ERGMModel
from ergmfit.terms._valuetransform cimport transform, H_POW

from ergmfit.terms._coreterms import TRANSFORMS

include "_countkernel.pxi"
include "_countergm.pxi"


cdef class ValueKernel(CountKernel):
    """``ValueKernel(items)``: one statistic Σ_ij h(y_ij) per item (kind, params), kind one
    of ``_coreterms.TRANSFORMS`` (``_projection.pxi``) (``"pow"``, ``"nonzero"``, ``"atleast"``, ...)."""
    cdef int* htype
    cdef double* hpar
    cdef readonly list items

    def __cinit__(self, list items):
        cdef int t, a
        self.n_stats = len(items)
        self.items = list(items)
        self.htype = <int*>malloc(max(1, self.n_stats) * sizeof(int))
        self.hpar = <double*>malloc(4 * max(1, self.n_stats) * sizeof(double))
        if self.htype == NULL or self.hpar == NULL:
            raise MemoryError()
        for t, (kind, params) in enumerate(items):
            self.htype[t] = TRANSFORMS[kind]
            p = list(params) + [0.0] * (4 - len(params))
            for a in range(4):
                self.hpar[4 * t + a] = float(p[a])

    def __dealloc__(self):
        free(self.htype)
        free(self.hpar)

    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil:
        cdef int t
        for t in range(self.n_stats):
            out[t] = (transform(self.htype[t], self.hpar + 4 * t, <double>y_new)
                      - transform(self.htype[t], self.hpar + 4 * t, <double>y_old))


cdef class DyadicFormKernel(CountKernel):
    """``DyadicFormKernel(kernel, kind, params, n, directed)``: the valued form of the
    dyad-independent binary ``kernel`` (a TermKernel on n nodes): its change statistic
    x_ij times the change of h(y_ij), h the value transform (kind, params) of
    ``_coreterms.TRANSFORMS``: ``("pow", [1.0])`` for statnet's ``form="sum"`` (Σ x_ij y_ij),
    ``("nonzero", [])`` for ``form="nonzero"``, an indicator (``"atleast"``, ...) for a
    ``B(f, form=~atleast(2))``."""
    cdef TermKernel binary
    cdef NetworkState aux
    cdef ERGMModel view         # B()'s kept binary network (BinaryViewKernel), else None
    cdef int htype
    cdef double hpar[4]
    cdef double* buf
    cdef readonly tuple item

    def __cinit__(self, TermKernel kernel, str kind, params, int n, bint directed):
        cdef int a
        self.binary = kernel
        self.item = (kind, tuple(float(v) for v in params))
        self.htype = TRANSFORMS[kind]
        p = list(self.item[1]) + [0.0] * (4 - len(self.item[1]))
        for a in range(4):
            self.hpar[a] = p[a]
        self.n_stats = kernel.n_stats
        # the binary kernel is dyad-independent: it reads nothing of the state it is given
        self.aux = NetworkState(max(n, 1), directed, dense=False)
        self.buf = <double*>malloc(max(1, self.n_stats) * sizeof(double))
        if self.buf == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.buf)

    cdef inline double h(self, int64_t y) noexcept nogil:
        return transform(self.htype, self.hpar, <double>y)

    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil:
        # called for every proposal: form="sum" (the identity) without the general
        # transform, and the binary kernel called directly (no method dispatch)
        cdef int t
        cdef double d
        if self.htype == H_POW and self.hpar[0] == 1.0:
            d = <double>(y_new - y_old)
        else:
            d = (transform(self.htype, self.hpar, <double>y_new)
                 - transform(self.htype, self.hpar, <double>y_old))
        if d == 0.0:
            for t in range(self.n_stats):
                out[t] = 0.0
            return
        if self.view is None:
            self.binary.change(self.aux, i, j, self.buf)
        else:
            self.view.dyad_change(i, j, self.buf)
        for t in range(self.n_stats):
            out[t] = d * self.buf[t]


cdef class BinaryViewKernel(DyadicFormKernel):
    """``BinaryViewKernel(kernel, kind, params, n, directed)``: statnet's ``B(formula,
    form)`` over any binary ``kernel`` (dyad-dependent or stateful: operator terms, several
    terms stacked): the DyadicFormKernel whose binary network is kept -- the dyads with
    h(y_ij) != 0 (form "nonzero" or a 0/1 value criterion), a binary ``ERGMModel`` bound to
    each count model (:meth:`bind`) and told of every change that moves a dyad in or out
    (:meth:`changed`, O(1) plus the binary kernel's own update).  The change of y_ij is
    (h(y_new) - h(y_old)) times the binary change statistic of (i, j) on that network.
    ``follow=False`` (dyad-independent terms: their change reads no network) keeps the
    binary network empty."""
    cdef public bint follow

    def bind(self, CountState state):
        cdef Py_ssize_t k
        new = BinaryViewKernel(self.binary, self.item[0], self.item[1], state.n,
                               state.directed)
        new.follow = self.follow
        d, y = state.nonzero()
        keep = np.zeros(len(y), dtype=bool)
        if self.follow:
            for k in range(len(y)):
                keep[k] = self.h(y[k]) != 0.0
        aux = NetworkState(state.n, state.directed, np.ascontiguousarray(d[keep]))
        (<BinaryViewKernel>new).view = ERGMModel(aux, [self.binary])
        return new

    cdef void changed(self, CountState s, int i, int j, int64_t y_old,
                      int64_t y_new) noexcept nogil:
        if self.follow and (self.h(y_old) != 0.0) != (self.h(y_new) != 0.0):
            self.view.flip(self.view.var(i, j))

    def __cinit__(self, *args, **kwargs):
        self.stateful = True
        self.follow = True


cdef enum:
    M_MIN = 0
    M_NABSDIFF = 1
    M_THRESHOLD = 2
    M_PRODUCT = 3
    M_GEOMETRIC = 4

MUTUAL_FORMS = {"min": M_MIN, "nabsdiff": M_NABSDIFF, "threshold": M_THRESHOLD,
                "product": M_PRODUCT, "geometric": M_GEOMETRIC}


cdef inline double _mutual(int form, double thr, double a, double b) noexcept nogil:
    if form == M_MIN:
        return a if a < b else b
    if form == M_NABSDIFF:
        return -fabs(a - b)
    if form == M_THRESHOLD:
        return 1.0 if (a > thr and b > thr) else 0.0
    if form == M_PRODUCT:
        return a * b
    return sqrt(a * b)


cdef class MutualKernel(CountKernel):
    """``MutualKernel(form, threshold)`` on a directed network: Σ_{i<j} m(y_ij, y_ji), m
    by ``form`` ("min", "nabsdiff": -|a - b|, "threshold": [a > t and b > t],
    "product", "geometric": √(ab))."""
    cdef int form
    cdef double threshold

    def __cinit__(self, str form="min", double threshold=0.0):
        self.n_stats = 1
        self.form = MUTUAL_FORMS[form]
        self.threshold = threshold

    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil:
        cdef double back = <double>s.value(j, i)
        out[0] = (_mutual(self.form, self.threshold, <double>y_new, back)
                  - _mutual(self.form, self.threshold, <double>y_old, back))


# transitiveweights / cyclicalweights: how two values combine ("min" or "geomean") and how
# the two-path strengths combine ("max" or "sum")
cdef enum:
    W_MIN = 0
    W_GEOMEAN = 1
    W_MAX = 0
    W_SUM = 1


cdef inline double _pair(int rule, double a, double b) noexcept nogil:
    if rule == W_MIN:
        return a if a < b else b
    return sqrt(a * b)


cdef inline double _comb(int rule, double c, double p) noexcept nogil:
    if rule == W_MAX:
        return c if c > p else p
    return c + p


cdef inline int64_t _imin(int64_t a, int64_t b) noexcept nogil:
    return a if a < b else b


cdef inline int64_t _imax(int64_t a, int64_t b) noexcept nogil:
    return a if a > b else b


#: the most strength levels a state keeps two-path counts for (a reference with more values,
#: or unbounded, walks the neighbour lists instead)
MAX_LEVELS = 64


cdef inline int64_t _strength_dense(const int64_t* D, int64_t n, CountState s, int a, int b,
                                    int skip, int64_t cap) noexcept nogil:
    # WeightsKernel._strength for twopath "min", combine "max" on the dense matrix D:
    # max over k != b, skip of min(y_ak, y_kb), or a partial value >= cap; a partner whose
    # leg from the shorter list is not above the maximum so far cannot raise it
    cdef int t, k, d1 = s.odeg(a), d2 = s.ideg(b)
    cdef int* l
    cdef int64_t c = 0, v
    if d1 <= d2:
        l = s.onb(a)
        for t in range(d1):
            k = l[t]
            if k == b or k == skip:
                continue
            v = D[k * n + b]
            if v > c:
                v = _imin(D[a * n + k], v)
                if v > c:
                    c = v
                    if c >= cap:
                        return c
    else:
        l = s.inb(b)
        for t in range(d2):
            k = l[t]
            if k == a or k == skip:
                continue
            v = D[a * n + k]
            if v > c:
                v = _imin(v, D[k * n + b])
                if v > c:
                    c = v
                    if c >= cap:
                        return c
    return c


@cython.final
cdef class WeightsKernel(CountKernel):
    """``WeightsKernel(cyclical, twopath, combine, affect)``: statnet's
    ``transitiveweights`` (Krivitsky 2012, eq. 13) and ``cyclicalweights``.

    With C_ab = combine over k of twopath(y_ak, y_kb) (the strength of the two-paths
    a -> k -> b; combine "max" or "sum", twopath "min" or "geomean", 0 without one),
    transitiveweights = Σ_{a != b} affect(y_ab, C_ab) and cyclicalweights =
    Σ_{a != b} affect(y_ba, C_ab) (affect "min" or "geomean"); on an undirected network
    the sum is over a < b and both are the same statistic.

    A change of y_ij touches the focus dyad and the dyads whose two-paths go through
    (i, j): (i, b) for b an out-neighbour of j and (a, j) for a an in-neighbour of i
    (cyclical: (b, i) and (j, a)), of which only those with a nonzero value count
    (affect(0, c) = 0).  Each needs its C without the two-path through (i, j): a walk
    over the smaller of two neighbour lists, which stops as soon as the rest cannot
    change the difference (combine "max": the other two-paths reach the moved one;
    affect "min": they reach the focus value).  Cost: O(d) for the focus dyad plus O(d)
    per affected dyad whose two-path strength changes (twopath "min" skips those
    whose other leg is at most min(y_old, y_new)), d a degree: O(d^2) at worst, O(d)
    when the ends share few partners or, with the defaults, when the strengths of
    dense small counts reach their caps after a few partners.

    statnet's default rules ("min", "max", "min") on a network that keeps its dense value
    matrix (``CountState.dense``) take a specialised path (:meth:`_change_min_max_min`):
    integer arithmetic on the matrix, and a two-path whose second leg is not above the
    strength found so far is skipped without reading its first leg.  Its numbers are
    those of the general path exactly (integers throughout).

    With twopath "min" and a reference whose values are 0..hi (Binomial, DiscUnif; hi at
    most ``MAX_LEVELS``), the kernel asks the state to keep its level two-path counts
    N_v(a, b) = #{k : min(y_ak, y_kb) >= v} (:meth:`prepare_state`).  Then C_ab without one
    two-path is read from the hi counts of (a, b) in O(hi) instead of a neighbour walk
    (combine "max": the top level with a count; "sum": the sum of the counts), and the
    default rules need no C at all: min(y_ab, C_ab) = Σ_v [y_ab >= v][N_v(a, b) > 0], so
    a change that crosses the levels lo+1..hi changes the statistic by the pairs whose
    count at such a level leaves or reaches 0: O(degree) per change with O(1) per
    neighbour and level (:meth:`_change_levels`; derived in docs/valued_terms.md, "Level
    two-path counts").
    """
    cdef bint cyclical
    cdef int tp, cb, af
    cdef bint min_max_min

    def __cinit__(self, bint cyclical, str twopath="min", str combine="max",
                  str affect="min"):
        self.n_stats = 1
        self.cyclical = cyclical
        self.tp = W_MIN if twopath == "min" else W_GEOMEAN
        self.cb = W_MAX if combine == "max" else W_SUM
        self.af = W_MIN if affect == "min" else W_GEOMEAN
        self.min_max_min = self.tp == W_MIN and self.cb == W_MAX and self.af == W_MIN

    def prepare_state(self, CountState state, reference):
        """Ask ``state`` for its level two-path counts when they apply (twopath "min",
        values 0..hi with 1 <= hi <= ``MAX_LEVELS``)."""
        if self.tp != W_MIN or reference.unbounded or reference.lo < 0 or \
                not 1 <= reference.hi <= MAX_LEVELS or state.levels == reference.hi:
            return
        state.keep_level_twopaths(reference.hi)

    cdef inline double _strength_levels(self, CountState s, int a, int b,
                                        int64_t p_skip) noexcept nogil:
        # C_ab without one two-path of strength p_skip (twopath "min"), from the level counts
        cdef int L = s.levels, v
        cdef const int32_t* N = s.level_twopaths + (<int64_t>a * s.n + b) * L
        cdef int64_t c = 0
        if self.cb == W_MAX:
            for v in range(L, 0, -1):
                if N[v - 1] - (v <= p_skip) > 0:
                    return <double>v
            return 0.0
        for v in range(L):
            c += N[v]
        return <double>(c - p_skip)

    cdef inline double _strength_any(self, CountState s, bint levels, int a, int b, int skip,
                                     double p_skip, double cap) noexcept nogil:
        # C_ab without the two-path through ``skip`` (of strength p_skip; -1: none): from
        # the level counts when they cover the state, else by a neighbour walk
        if levels:
            return self._strength_levels(s, a, b, <int64_t>p_skip)
        return self._strength(s, a, b, skip, cap)

    cdef void _change_levels(self, CountState s, int i, int j, int64_t y_old,
                             int64_t y_new, double* out) noexcept nogil:
        # the rules ("min", "max", "min") from the level counts: at each level v in
        # lo+1..hi the thresholded dyad (i, j) toggles; a pair whose value reaches v and
        # whose count at v moves between 0 and 1 changes the statistic by one
        cdef const int64_t* D = s.dense
        cdef const int32_t* N = s.level_twopaths
        cdef int64_t n = s.n, L = s.levels, hi = _imax(y_old, y_new), lo = _imin(y_old, y_new)
        cdef int64_t total = 0, m, v, base
        cdef int32_t gone = 0 if y_new > y_old else 1    # the count that changes the pair
        cdef int t, b, a, d
        cdef int* l
        cdef bint backward = self.cyclical and s.directed   # the affected value reversed
        if lo < 0:
            lo = 0
        base = ((<int64_t>j * n + i) if backward else (<int64_t>i * n + j)) * L
        for v in range(lo, hi):
            total += N[base + v] > 0
        # (i, j) as the first leg: the two-paths i -> j -> b, pairs (i, b)
        d = s.odeg(j)
        l = s.onb(j)
        for t in range(d):
            b = l[t]
            if b == i:
                continue
            m = _imin(_imin(D[b * n + i] if backward else D[i * n + b], D[j * n + b]), hi)
            base = (<int64_t>i * n + b) * L
            for v in range(lo, m):
                total += N[base + v] == gone
        # (i, j) as the second leg: the two-paths a -> i -> j, pairs (a, j)
        d = s.ideg(i)
        l = s.inb(i)
        for t in range(d):
            a = l[t]
            if a == j:
                continue
            m = _imin(_imin(D[j * n + a] if backward else D[a * n + j], D[a * n + i]), hi)
            base = (<int64_t>a * n + j) * L
            for v in range(lo, m):
                total += N[base + v] == gone
        out[0] = <double>(total if y_new > y_old else -total)

    cdef inline double _strength(self, CountState s, int a, int b, int skip,
                                 double cap) noexcept nogil:
        # C_ab without the two-path through ``skip``, or a partial value >= cap (the
        # two-path strengths are >= 0, so it only grows: the caller needs no more)
        cdef int t, k, d1 = s.odeg(a), d2 = s.ideg(b)
        cdef int* l
        cdef double c = 0.0, ya, yb
        if d1 <= d2:
            l = s.onb(a)
            for t in range(d1):
                k = l[t]
                if k == b or k == skip:
                    continue
                yb = <double>s.value(k, b)
                if yb != 0.0:
                    c = _comb(self.cb, c, _pair(self.tp, <double>s.value(a, k), yb))
                    if c >= cap:
                        return c
        else:
            l = s.inb(b)
            for t in range(d2):
                k = l[t]
                if k == a or k == skip:
                    continue
                ya = <double>s.value(a, k)
                if ya != 0.0:
                    c = _comb(self.cb, c, _pair(self.tp, ya, <double>s.value(k, b)))
                    if c >= cap:
                        return c
        return c

    cdef inline double _touched(self, CountState s, bint levels, double w, int a, int b,
                                int skip, double p_old, double p_new) noexcept nogil:
        # affect(w, C) after minus before, C = C_ab whose two-path via skip moves
        # from p_old to p_new.  Once the other two-paths reach max(p_old, p_new) (combine
        # "max") or w (affect "min"), the difference is 0: the walk stops there.
        cdef double r, cap = INFINITY
        if p_old == p_new:
            return 0.0
        if self.cb == W_MAX:
            cap = p_old if p_old > p_new else p_new
        if self.af == W_MIN and w < cap:
            cap = w
        r = self._strength_any(s, levels, a, b, skip, p_old, cap)
        return (_pair(self.af, w, _comb(self.cb, r, p_new))
                - _pair(self.af, w, _comb(self.cb, r, p_old)))

    cdef void _change_min_max_min(self, CountState s, int i, int j, int64_t y_old,
                                  int64_t y_new, double* out) noexcept nogil:
        # the rules ("min", "max", "min") on the dense matrix: as the general path below
        cdef const int64_t* D = s.dense
        cdef int64_t n = s.n, hi = _imax(y_old, y_new), lo = _imin(y_old, y_new)
        cdef int64_t total, c, w, leg, p_old, p_new, r
        cdef int t, b, a, d
        cdef int* l
        cdef bint backward = self.cyclical and s.directed   # the affected value reversed
        c = _strength_dense(D, n, s, j, i, -1, hi) if backward else \
            _strength_dense(D, n, s, i, j, -1, hi)
        total = _imin(y_new, c) - _imin(y_old, c)
        # (i, j) as the first leg: the two-paths i -> j -> b
        d = s.odeg(j)
        l = s.onb(j)
        for t in range(d):
            b = l[t]
            if b == i:
                continue
            w = D[b * n + i] if backward else D[i * n + b]
            leg = D[j * n + b]
            if w == 0 or leg <= lo:          # (leg <= lo: the two-path's strength stays)
                continue
            p_old = _imin(y_old, leg)
            p_new = _imin(y_new, leg)
            r = _strength_dense(D, n, s, i, b, j, _imin(_imax(p_old, p_new), w))
            total += _imin(w, _imax(r, p_new)) - _imin(w, _imax(r, p_old))
        # (i, j) as the second leg: the two-paths a -> i -> j
        d = s.ideg(i)
        l = s.inb(i)
        for t in range(d):
            a = l[t]
            if a == j:
                continue
            w = D[j * n + a] if backward else D[a * n + j]
            leg = D[a * n + i]
            if w == 0 or leg <= lo:
                continue
            p_old = _imin(leg, y_old)
            p_new = _imin(leg, y_new)
            r = _strength_dense(D, n, s, a, j, i, _imin(_imax(p_old, p_new), w))
            total += _imin(w, _imax(r, p_new)) - _imin(w, _imax(r, p_old))
        out[0] = <double>total

    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil:
        cdef double yo = <double>y_old, yn = <double>y_new, total = 0.0, c, w, leg
        cdef double cap = INFINITY
        cdef int t, b, a, d
        cdef int* l
        cdef bint backward = self.cyclical and s.directed   # the affected value reversed
        cdef bint levels = self.tp == W_MIN and s.levels_cover(y_new)
        if y_old == y_new:
            out[0] = 0.0
            return
        if self.min_max_min and levels:
            self._change_levels(s, i, j, y_old, y_new, out)
            return
        if self.min_max_min and s.dense != NULL:
            self._change_min_max_min(s, i, j, y_old, y_new, out)
            return
        # the focus dyad (affect "min": two-paths beyond max(y_old, y_new) change nothing)
        if self.af == W_MIN:
            cap = yo if yo > yn else yn
        c = self._strength_any(s, levels, j, i, -1, 0.0, cap) if backward else \
            self._strength_any(s, levels, i, j, -1, 0.0, cap)
        total += _pair(self.af, yn, c) - _pair(self.af, yo, c)
        # (i, j) as the first leg: the two-paths i -> j -> b
        d = s.odeg(j)
        l = s.onb(j)
        for t in range(d):
            b = l[t]
            if b == i:
                continue
            w = <double>(s.value(b, i) if backward else s.value(i, b))
            if w == 0.0:
                continue
            leg = <double>s.value(j, b)
            total += self._touched(s, levels, w, i, b, j, _pair(self.tp, yo, leg),
                                   _pair(self.tp, yn, leg))
        # (i, j) as the second leg: the two-paths a -> i -> j
        d = s.ideg(i)
        l = s.inb(i)
        for t in range(d):
            a = l[t]
            if a == j:
                continue
            w = <double>(s.value(j, a) if backward else s.value(a, j))
            if w == 0.0:
                continue
            leg = <double>s.value(a, i)
            total += self._touched(s, levels, w, a, j, i, _pair(self.tp, leg, yo),
                                   _pair(self.tp, leg, yn))
        out[0] = total

    cdef inline void _touched_support(self, CountState s, double w, int a, int b, int skip,
                                      double leg, bint first_leg, double yo, int64_t y_first,
                                      int64_t m, double* out, int64_t stride) noexcept nogil:
        # out[k * stride] += what ``_touched`` gives when the two-path via ``skip`` (its
        # other leg ``leg``) moves with y_ij from yo to y_first + k, for every k: C_ab
        # without that two-path is walked once, capped for the largest of the new strengths
        # (they grow with the value), which changes no difference (class docstring)
        cdef double p_old, p_lo, p_hi, p_new, r, cap = INFINITY
        cdef int64_t k
        p_old = _pair(self.tp, yo, leg) if first_leg else _pair(self.tp, leg, yo)
        p_lo = _pair(self.tp, <double>y_first, leg) if first_leg else \
            _pair(self.tp, leg, <double>y_first)
        p_hi = _pair(self.tp, <double>(y_first + m - 1), leg) if first_leg else \
            _pair(self.tp, leg, <double>(y_first + m - 1))
        if p_lo == p_old and p_hi == p_old:
            return                      # the strength stays for every value: 0 throughout
        if self.cb == W_MAX:
            cap = p_old if p_old > p_hi else p_hi
        if self.af == W_MIN and w < cap:
            cap = w
        r = self._strength(s, a, b, skip, cap)
        for k in range(m):
            p_new = _pair(self.tp, <double>(y_first + k), leg) if first_leg else \
                _pair(self.tp, leg, <double>(y_first + k))
            if p_new != p_old:
                out[k * stride] += (_pair(self.af, w, _comb(self.cb, r, p_new))
                                    - _pair(self.af, w, _comb(self.cb, r, p_old)))

    cdef void change_support(self, CountState s, int i, int j, int64_t y_old,
                             int64_t y_first, int64_t m, double* out,
                             int64_t stride) noexcept nogil:
        # the general path of ``change`` for every value y_first .. y_first + m - 1 at once:
        # the strengths it walks (the focus dyad's C, each affected dyad's C without the
        # moved two-path) do not depend on the new value, so each is walked once, and each
        # value's sum is accumulated in ``change``'s order (the same numbers exactly: the
        # values are counts, >= 0, so a strength only grows along its walk).  The level-count
        # and dense ("min", "max", "min") paths take one ``change`` per value.
        cdef double yo = <double>y_old, y_top = <double>(y_first + m - 1), c, w
        cdef double cap = INFINITY
        cdef int64_t k
        cdef int t, b, a, d
        cdef int* l
        cdef bint backward = self.cyclical and s.directed   # the affected value reversed
        if m < 2 or s.levels > 0 or (self.min_max_min and s.dense != NULL):
            CountKernel.change_support(self, s, i, j, y_old, y_first, m, out, stride)
            return
        # the focus dyad (affect "min": two-paths beyond the largest value change nothing)
        if self.af == W_MIN:
            cap = yo if yo > y_top else y_top
        c = self._strength(s, j, i, -1, cap) if backward else \
            self._strength(s, i, j, -1, cap)
        for k in range(m):
            out[k * stride] = 0.0
            out[k * stride] += (_pair(self.af, <double>(y_first + k), c)
                                - _pair(self.af, yo, c))
        # (i, j) as the first leg: the two-paths i -> j -> b
        d = s.odeg(j)
        l = s.onb(j)
        for t in range(d):
            b = l[t]
            if b == i:
                continue
            w = <double>(s.value(b, i) if backward else s.value(i, b))
            if w == 0.0:
                continue
            self._touched_support(s, w, i, b, j, <double>s.value(j, b), True, yo, y_first, m,
                                  out, stride)
        # (i, j) as the second leg: the two-paths a -> i -> j
        d = s.ideg(i)
        l = s.inb(i)
        for t in range(d):
            a = l[t]
            if a == j:
                continue
            w = <double>(s.value(j, a) if backward else s.value(a, j))
            if w == 0.0:
                continue
            self._touched_support(s, w, a, j, i, <double>s.value(a, i), False, yo, y_first, m,
                                  out, stride)
        if y_first <= y_old < y_first + m:
            out[(y_old - y_first) * stride] = 0.0


cdef enum:
    ROWS_BOTH = 0      # undirected: each dyad in the rows of both its ends
    ROWS_OUT = 1       # directed: y_ij in row i
    ROWS_IN = 2        # directed: y_ij in row j


cdef class NodeCovarKernel(CountKernel):
    """``NodeCovarKernel(rows, center, root)``: statnet's ``nodecovar`` (rows 0: undirected,
    Σ_i Σ_{j<k} z_ij z_ik / (n-2)), ``nodeocovar`` (rows 1: Σ_i Σ_{j != k} z_ij z_ik /
    (n-2)) and ``nodeicovar`` (rows 2: Σ_i Σ_{j != k} z_ji z_ki / (n-2)); z = f(y) (f the
    identity, or √ when ``root``) minus, when ``center``, the mean of f(y) over all dyads
    (the current network's: non-local, as statnet's help says).

    Per row u with R_u = Σ f and P_u = Σ f², Σ_u Σ_{j != k} z_uj z_uk = Σ_u R_u² − r B −
    (n − 2) r A² / N (A = Σ f, B = Σ f² over the N dyads, r rows per dyad; without
    centring the last term is absent): a change reads the row sums of its ends, which the
    state keeps (``CountState.row_sum``) with A and B: O(1).
    """
    cdef int rows
    cdef bint center, root

    def __cinit__(self, int rows, bint center, bint root):
        self.n_stats = 1
        self.rows = rows
        self.center = center
        self.root = root

    cdef inline double _f(self, int64_t y) noexcept nogil:
        return sqrt(<double>y) if self.root else <double>y

    cdef inline double _row(self, CountState s, int u, bint outward) noexcept nogil:
        return s.row_sum(u, outward, self.root)

    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil:
        cdef double fo = self._f(y_old), fn = self._f(y_new), delta = fn - fo
        cdef double n = <double>s.n, r_rows = 2.0 if self.rows == ROWS_BOTH else 1.0
        cdef double N = n * (n - 1.0) / r_rows, A, A2, Ri, Rj, total
        if delta == 0.0:
            out[0] = 0.0
            return
        if self.rows == ROWS_IN:
            Rj = self._row(s, j, False)
            total = 2.0 * Rj * delta + delta * delta
        else:
            Ri = self._row(s, i, True)
            total = 2.0 * Ri * delta + delta * delta
            if self.rows == ROWS_BOTH:
                Rj = self._row(s, j, True)
                total += 2.0 * Rj * delta + delta * delta
        total -= r_rows * (fn * fn - fo * fo)
        if self.center:
            A = s.total_sqrt if self.root else <double>s.total
            A2 = A + delta
            total -= (n - 2.0) * r_rows * (A2 * A2 - A * A) / N
        out[0] = total / (n - 2.0) / r_rows
