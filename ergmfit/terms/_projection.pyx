# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernel of statnet's ``Project(formula, mode)`` (``Proj1``/``Proj2``): valued terms of the
one-mode projection of a two-mode network.

The projection onto mode m is the undirected valued network of the mode-m nodes in which
y_pq = the number of partners p and q share in the other mode.  Every valued term here is a
sum over the projected dyads p < q of w_pq h(y_pq): h a transform of the value (``sum``: y^pow;
``nonzero``, ``atleast``, ``atmost``, ``greaterthan``, ``smallerthan``, ``equalto``,
``ininterval``: indicators; the ``form="nonzero"`` covariate terms: y != 0) and w_pq 1 or the
change statistic of a dyad-independent binary term on the dyad (p, q) (``absdiff``,
``nodecov``, ``nodematch``, ``nodemix``, ``nodefactor``, ``edgecov``: statnet's "Σ x_ij y_ij,
x_ij the term's covariate"), a vector for terms with several statistics.

On a two-mode network a dyad is (i, j), i < n1 <= j.  Toggling it changes y by one for the
pairs (own, w), ``own`` the end in the projected mode and w every other neighbour of the
other end ``mid``: the change is Σ_w w_{own,w} (h(y + 1) − h(y)), y = sp(own, w) without the
dyad, O(deg(mid)) shared-partner counts (held by the state, or counted on demand).
"""
from libc.math cimport pow, fabs
from libc.stdlib cimport malloc, free

import numpy as np

from ergmfit.network._state cimport NetworkState, CACHE_SP
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms._operators cimport CompoundKernel

cdef enum:
    H_POW = 0          # y^p (p = 1: y)
    H_NONZERO = 1      # y != 0
    H_ATLEAST = 2      # y >= a
    H_ATMOST = 3       # y <= a
    H_GREATER = 4      # y > a
    H_SMALLER = 5      # y < a
    H_EQUAL = 6        # |y - a| <= b
    H_INTERVAL = 7     # a <(=) y <(=) b; c: lower open, d: upper open

TRANSFORMS = {"pow": H_POW, "nonzero": H_NONZERO, "atleast": H_ATLEAST, "atmost": H_ATMOST,
              "greaterthan": H_GREATER, "smallerthan": H_SMALLER, "equalto": H_EQUAL,
              "ininterval": H_INTERVAL}


cdef inline double transform(int h, const double* a, double y) noexcept nogil:
    if h == H_POW:
        if a[0] == 1.0:
            return y
        return pow(y, a[0])
    if h == H_NONZERO:
        return 1.0 if y != 0.0 else 0.0
    if h == H_ATLEAST:
        return 1.0 if y >= a[0] else 0.0
    if h == H_ATMOST:
        return 1.0 if y <= a[0] else 0.0
    if h == H_GREATER:
        return 1.0 if y > a[0] else 0.0
    if h == H_SMALLER:
        return 1.0 if y < a[0] else 0.0
    if h == H_EQUAL:
        return 1.0 if fabs(y - a[0]) <= a[1] else 0.0
    # H_INTERVAL
    if (y <= a[0]) if a[2] != 0.0 else (y < a[0]):
        return 0.0
    if (y >= a[1]) if a[3] != 0.0 else (y > a[1]):
        return 0.0
    return 1.0


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
