# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernel of statnet's ``Project(formula, mode)`` (``Proj1``/``Proj2``): valued terms of the
one-mode projection of a two-mode network.

The projection onto mode m is the undirected valued network of the mode-m nodes in which
y_pq = the number of partners p and q share in the other mode.  Every valued term here is a
sum over the projected dyads p < q of w_pq h(y_pq): h a transform of the value (``sum``: y^pow;
``nonzero``, ``atleast``, ``atmost``, ``greaterthan``, ``smallerthan``, ``equalto``,
``ininterval``: indicators; ``CMP``: log(y!); the ``form="nonzero"`` covariate terms: y != 0) and w_pq 1 or the
change statistic of a dyad-independent binary term on the dyad (p, q) (``absdiff``,
``nodecov``, ``nodematch``, ``nodemix``, ``nodefactor``, ``edgecov``: statnet's "Σ x_ij y_ij,
x_ij the term's covariate"), a vector for terms with several statistics.

On a two-mode network a dyad is (i, j), i < n1 <= j.  Toggling it changes y by one for the
pairs (own, w), ``own`` the end in the projected mode and w every other neighbour of the
other end ``mid``: the change is Σ_w w_{own,w} (h(y + 1) − h(y)), y = sp(own, w) without the
dyad, O(deg(mid)) shared-partner counts (held by the state, or counted on demand).
"""
from libc.math cimport pow, fabs, sqrt, lgamma
from libc.stdlib cimport malloc, free

import numpy as np

from ergmfit.network._state cimport NetworkState, CACHE_SP
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms._operators cimport CompoundKernel

from ergmfit.terms._valuetransform cimport (H_POW, H_NONZERO, H_ATLEAST, H_ATMOST, H_GREATER,
                                             H_SMALLER, H_EQUAL, H_INTERVAL, H_LFACT,
                                             H_LFACT_REST, H_CMB, transform)

TRANSFORMS = {"pow": H_POW, "nonzero": H_NONZERO, "atleast": H_ATLEAST, "atmost": H_ATMOST,
              "greaterthan": H_GREATER, "smallerthan": H_SMALLER, "equalto": H_EQUAL,
              "ininterval": H_INTERVAL, "lfactorial": H_LFACT,
              "lfactorial_rest": H_LFACT_REST, "cmb": H_CMB}


def projected_values(NetworkState state, int n1, int side):
    """The projection of ``state`` (two-mode, n1 nodes in mode 1) onto mode ``side``:
    y_pq = the partners p and q share, for p != q, as a sparse COO matrix over that
    mode's nodes (the diagonal, a node's degree, left out).  The kernels' ``bind``."""
    from scipy import sparse
    t = np.asarray(state.ties(), dtype=np.int64).reshape(-1, 2)
    lo, hi = np.minimum(t[:, 0], t[:, 1]), np.maximum(t[:, 0], t[:, 1])
    B = sparse.csr_matrix((np.ones(len(t)), (lo, hi - n1)), shape=(n1, state.n - n1))
    Y = (B @ B.T if side == 1 else B.T @ B).tocoo()
    off = Y.row != Y.col
    return sparse.coo_matrix((Y.data[off], (Y.row[off], Y.col[off])), shape=Y.shape)


def transform_value(str kind, params, double y):
    """h(y) of a transform (Python side: the empty-network values and the tests)."""
    cdef double a[4]
    cdef int t
    p = list(params) + [0.0] * (4 - len(params))
    for t in range(4):
        a[t] = p[t]
    return transform(TRANSFORMS[kind], a, y)


cdef class ProjectionKernel(CompoundKernel):
    """The valued items of one ``Project()`` term (see the module docstring).

    ``items``: one (transform, params, kernel index or -1) per item, in statistic order;
    ``kernels``: the dyad-independent binary kernels giving the weights w_pq, built on the
    projected one-mode network (n_m nodes); an item with a kernel has its statistics,
    else one.  ``side`` 1 projects onto mode 1 (nodes 0..n1-1), 2 onto mode 2.
    """
    cdef int side
    cdef int n1
    cdef int n_items
    cdef int* htype
    cdef double* hpar
    cdef int* kidx
    cdef int* soff
    cdef NetworkState aux

    def __cinit__(self, *args, **kwargs):
        self.htype = NULL
        self.hpar = NULL
        self.kidx = NULL
        self.soff = NULL

    def __dealloc__(self):
        free(self.htype)
        free(self.hpar)
        free(self.kidx)
        free(self.soff)

    def __init__(self, int side, int n1, int n_m, list items, list kernels,
                 bint on_demand=False):
        cdef int t, o = 0, a
        self._args = (side, n1, n_m, items, kernels, on_demand)
        self._set_inner(list(kernels))
        self.side = side
        self.n1 = n1
        self.n_items = len(items)
        m = max(1, self.n_items)
        self.htype = <int*>malloc(m * sizeof(int))
        self.hpar = <double*>malloc(4 * m * sizeof(double))
        self.kidx = <int*>malloc(m * sizeof(int))
        self.soff = <int*>malloc(m * sizeof(int))
        if self.htype == NULL or self.hpar == NULL or self.kidx == NULL or self.soff == NULL:
            raise MemoryError()
        for t, (kind, params, k) in enumerate(items):
            self.htype[t] = TRANSFORMS[kind]
            p = list(params) + [0.0] * (4 - len(params))
            for a in range(4):
                self.hpar[4 * t + a] = float(p[a])
            self.kidx[t] = int(k)
            self.soff[t] = o
            o += 1 if k < 0 else (<TermKernel>kernels[k]).n_stats
        self.n_stats = o
        # the weight kernels are dyad-independent: they read nothing of the state they
        # are given, so one empty state of the projected nodes serves every call
        self.aux = NetworkState(max(n_m, 1), False, dense=False)
        self.caches = CACHE_SP
        self.counts_on_demand = on_demand

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int x = 1 if s.has_tie(i, j) else 0
        cdef int own = i if self.side == 1 else j      # the node whose projected ties change
        cdef int mid = j if self.side == 1 else i      # the partner they gain or lose
        cdef int base = 0 if self.side == 1 else self.n1
        cdef int t, u, k, w, p, q, kk, nk, deg = s.odeg(mid)
        cdef int* nb = s.onb(mid)
        cdef double y, d
        for t in range(self.n_stats):
            out[t] = 0.0
        for u in range(deg):
            w = nb[u]
            if w == own:
                continue
            y = <double>(s.n_sp(own, w) - x)
            for t in range(self.n_items):
                d = (transform(self.htype[t], self.hpar + 4 * t, y + 1.0)
                     - transform(self.htype[t], self.hpar + 4 * t, y))
                if d == 0.0:
                    continue
                kk = self.kidx[t]
                if kk < 0:
                    out[self.soff[t]] += d
                    continue
                p = own - base
                q = w - base
                if p > q:
                    p, q = q, p
                (<TermKernel>self.k[kk]).change(self.aux, p, q, self.buf + self.off[kk])
                nk = (<TermKernel>self.k[kk]).n_stats
                for k in range(nk):
                    out[self.soff[t] + k] += d * self.buf[self.off[kk] + k]


cdef enum:
    W_MIN = 0          # twopath / affect: the minimum of the two values
    W_GEOMEAN = 1      # ... their geometric mean
    W_MAX = 0          # combine: the maximum of the two-path strengths
    W_SUM = 1          # ... their sum

WEIGHT_RULES = {"min": W_MIN, "geomean": W_GEOMEAN}
COMBINE_RULES = {"max": W_MAX, "sum": W_SUM}


cdef inline double _pair(int rule, double a, double b) noexcept nogil:
    if rule == W_MIN:
        return a if a < b else b
    return sqrt(a * b)


cdef class ProjectedWeightsKernel(TermKernel):
    """statnet's valued ``transitiveweights(twopath, combine, affect)`` on the projection (on
    an undirected network ``cyclicalweights`` is the same statistic): Σ_{u<v} affect(y_uv,
    combine_{k ≠ u, v} twopath(y_uk, y_kv)) (Krivitsky 2012, eq. 13).

    It keeps the projected values as a dense n_m x n_m matrix (``stateful``: ``bind`` builds
    it from the state, ``toggled`` updates it in O(deg)).  Toggling (own, mid) changes y on
    the pairs (own, w), w a neighbour of mid; only dyads with an end in S = {own} ∪ those w
    change, and only where y_uv > 0 before or after (affect is 0 at y_uv = 0): the change
    is O(|S| n_m^2) at worst, O(|S| n_m) rows scanned for their non-zero values.
    """
    cdef int side
    cdef int n1
    cdef int nm
    cdef int tp, comb, aff
    cdef int[:, ::1] Y
    cdef int[::1] mark          # mark[v] = position of v in S + 1, 0 outside
    cdef int[::1] order         # S, in projected indices
    cdef readonly bint bound

    def __init__(self, int side, int n1, int n_m, str twopath, str combine, str affect):
        self.side = side
        self.n1 = n1
        self.nm = n_m
        self.tp = WEIGHT_RULES[twopath]
        self.comb = COMBINE_RULES[combine]
        self.aff = WEIGHT_RULES[affect]
        self.n_stats = 1
        self.stateful = True
        self.Y = np.zeros((max(n_m, 1), max(n_m, 1)), dtype=np.intc)
        self.mark = np.zeros(max(n_m, 1), dtype=np.intc)
        self.order = np.zeros(max(n_m, 1), dtype=np.intc)
        self.bound = False
        self._args = (side, n1, n_m, twopath, combine, affect)

    cdef object _args

    def bind(self, NetworkState state):
        new = ProjectedWeightsKernel(*self._args)
        Y = projected_values(state, self.n1, self.side).toarray()
        (<ProjectedWeightsKernel>new).Y = np.ascontiguousarray(Y, dtype=np.intc)
        (<ProjectedWeightsKernel>new).bound = True
        return new

    cdef inline double _y(self, int u, int v, int p, double shift) noexcept nogil:
        # y_uv with the pairs (p, w ∈ S) moved by ``shift``
        cdef double y = self.Y[u, v]
        if (u == p and self.mark[v] > 1) or (v == p and self.mark[u] > 1):
            y += shift
        return y

    cdef inline double _combine(self, double c, double a, double b) noexcept nogil:
        # the combined strength c with the two-path of values a, b added
        cdef double t
        if a <= 0.0 or b <= 0.0:
            return c
        t = _pair(self.tp, a, b)
        if self.comb == W_SUM:
            return c + t
        return t if t > c else c

    cdef double _dyad(self, int u, int v, int p, double x) noexcept nogil:
        # the dyad's contribution with the tie minus without it, in one pass over k:
        # y_uk, y_kv differ between the two only on the changed pairs (p, w ∈ S)
        cdef double y0 = self._y(u, v, p, -x), y1 = self._y(u, v, p, 1.0 - x)
        cdef double c0 = 0.0, c1 = 0.0, a0, a1, b0, b1, r0 = 0.0, r1 = 0.0
        cdef int k
        cdef bint cu, cv
        for k in range(self.nm):
            if k == u or k == v:
                continue
            a1 = self.Y[u, k]
            if a1 == 0.0 and u != p and k != p:
                continue              # 0 with and without the tie (only pairs of p change)
            b1 = self.Y[k, v]
            if b1 == 0.0 and k != p and v != p:
                continue
            cu = (u == p and self.mark[k] > 1) or (k == p and self.mark[u] > 1)
            cv = (k == p and self.mark[v] > 1) or (v == p and self.mark[k] > 1)
            a0 = a1 - x if cu else a1
            a1 = a1 + 1.0 - x if cu else a1
            b0 = b1 - x if cv else b1
            b1 = b1 + 1.0 - x if cv else b1
            c0 = self._combine(c0, a0, b0)
            c1 = self._combine(c1, a1, b1)
        if y0 > 0.0:
            r0 = _pair(self.aff, y0, c0)
        if y1 > 0.0:
            r1 = _pair(self.aff, y1, c1)
        return r1 - r0

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int own = i if self.side == 1 else j
        cdef int mid = j if self.side == 1 else i
        cdef int base = 0 if self.side == 1 else self.n1
        cdef int p = own - base, ns = 1, t, u, v, w
        cdef int deg = s.odeg(mid)
        cdef int* nb = s.onb(mid)
        cdef double x = 1.0 if s.has_tie(i, j) else 0.0
        cdef double total = 0.0, lo, hi
        # S = {p} ∪ the other neighbours of mid (projected indices); mark[v] = place + 1
        self.order[0] = p
        self.mark[p] = 1
        for t in range(deg):
            w = nb[t]
            if w == own:
                continue
            w -= base
            self.order[ns] = w
            ns += 1
            self.mark[w] = ns
        # the values without the tie: Y - x on the changed pairs; with it: + (1 - x)
        for t in range(ns):
            u = self.order[t]
            for v in range(self.nm):
                if v == u or (self.mark[v] and self.mark[v] <= t + 1):
                    continue          # each dyad once: a v of S earlier in S was done
                lo = self._y(u, v, p, -x)
                hi = self._y(u, v, p, 1.0 - x)
                if lo <= 0.0 and hi <= 0.0:
                    continue
                total += self._dyad(u, v, p, x)
        for t in range(ns):
            self.mark[self.order[t]] = 0
        out[0] = total

    cdef void toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        cdef int own = i if self.side == 1 else j
        cdef int mid = j if self.side == 1 else i
        cdef int base = 0 if self.side == 1 else self.n1
        cdef int p = own - base, t, w
        cdef int d = 1 if added else -1
        for t in range(s.odeg(mid)):
            w = s.onb(mid)[t]
            if w == own:
                continue
            w -= base
            self.Y[p, w] += d
            self.Y[w, p] += d

    def values(self):
        """The projected values (tests)."""
        return np.asarray(self.Y).copy()


cdef inline double _f(bint root, double y) noexcept nogil:
    return sqrt(y) if root else y


cdef class ProjectedNodeCovarKernel(TermKernel):
    """statnet's valued ``nodecovar(center, transform)`` on the projection: Σ_i Σ_{j<k}
    z_ij z_ik / (n_m − 2) over the projected nodes, z = f(y) (f the identity or, with
    ``transform="sqrt"``, the square root), centred by the mean of f(y) over all projected
    dyads when ``center`` (statnet's help; non-local).

    With A_i = Σ_j f(y_ij), SA = Σ_i A_i and SB = Σ_i Σ_j f(y_ij)², the statistic is
    (Σ_i A_i² − SB) / (2(n_m − 2)), minus SA² / (2 n_m (n_m − 1)) when centred.  The kernel
    keeps A (``stateful``: ``bind`` computes it from the state, ``toggled`` updates it) and SA.
    Toggling (own, mid) moves y by one on the pairs (own, w), w the other neighbours of mid:
    only A_own, those A_w, SA and SB change, so the change is O(deg(mid)) shared-partner
    counts, as for the dyadic items.
    """
    cdef int side
    cdef int n1
    cdef int nm
    cdef bint root
    cdef bint center
    cdef double[::1] A
    cdef double SA
    cdef object _args

    def __init__(self, int side, int n1, int n_m, bint center, bint root, bint on_demand=False):
        self._args = (side, n1, n_m, center, root, on_demand)
        self.side = side
        self.n1 = n1
        self.nm = n_m
        self.center = center
        self.root = root
        self.n_stats = 1
        self.stateful = True
        self.A = np.zeros(max(n_m, 1))
        self.SA = 0.0
        self.caches = CACHE_SP
        self.counts_on_demand = on_demand

    def bind(self, NetworkState state):
        new = ProjectedNodeCovarKernel(*self._args)
        Y = projected_values(state, self.n1, self.side)
        v = np.sqrt(Y.data) if self.root else Y.data
        A = np.bincount(Y.row, weights=v, minlength=max(self.nm, 1))
        (<ProjectedNodeCovarKernel>new).A = np.ascontiguousarray(A, dtype=np.float64)
        (<ProjectedNodeCovarKernel>new).SA = float(A.sum())
        return new

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int own = i if self.side == 1 else j
        cdef int mid = j if self.side == 1 else i
        cdef int base = 0 if self.side == 1 else self.n1
        cdef int u, w, deg = s.odeg(mid)
        cdef int* nb = s.onb(mid)
        cdef double x = 1.0 if s.has_tie(i, j) else 0.0
        cdef double y0, f0, f1, d, a0, tot = 0.0, dsa2 = 0.0, dsb = 0.0, sa0
        cdef double n = self.nm
        for u in range(deg):
            w = nb[u]
            if w == own:
                continue
            y0 = <double>s.n_sp(own, w) - x           # without the tie
            f0 = _f(self.root, y0)
            f1 = _f(self.root, y0 + 1.0)
            d = f1 - f0
            tot += d
            a0 = self.A[w - base] - x * d
            dsa2 += 2.0 * a0 * d + d * d
            dsb += 2.0 * (f1 * f1 - f0 * f0)
        a0 = self.A[own - base] - x * tot
        dsa2 += 2.0 * a0 * tot + tot * tot
        out[0] = (dsa2 - dsb) / (2.0 * (n - 2.0))
        if self.center:
            sa0 = self.SA - 2.0 * x * tot
            out[0] -= (4.0 * sa0 * tot + 4.0 * tot * tot) / (2.0 * n * (n - 1.0))

    cdef void toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        # after the toggle: the counts are the new ones
        cdef int own = i if self.side == 1 else j
        cdef int mid = j if self.side == 1 else i
        cdef int base = 0 if self.side == 1 else self.n1
        cdef int u, w
        cdef double y1, d, sgn = 1.0 if added else -1.0
        for u in range(s.odeg(mid)):
            w = s.onb(mid)[u]
            if w == own:
                continue
            y1 = <double>s.n_sp(own, w)
            d = _f(self.root, y1) - _f(self.root, y1 - sgn)
            self.A[w - base] += d
            self.A[own - base] += d
            self.SA += 2.0 * d

    def node_sums(self):
        """A_i = Σ_j f(y_ij) of the projected nodes (tests)."""
        return np.asarray(self.A).copy()
