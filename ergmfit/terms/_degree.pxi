"""Kernels of degree and star terms.

Every kernel here looks only at the degrees of the dyad's endpoints, so a
call is O(1) (times the number of statistics): the degrees are read from
the state and corrected for the tie (i, j) itself, ``d - x_ij``, so the
change is the same whether or not (i, j) is present.

``mode`` says which degrees a kernel reads:

* ``MODE_UND`` (undirected): the degrees of both endpoints i and j;
* ``MODE_IN`` (directed): the in-degree of the head j;
* ``MODE_OUT`` (directed): the out-degree of the tail i.
"""
from libc.math cimport pow, exp

import numpy as np

from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms._combin cimport choose

cdef enum:
    _UND = 0
    _IN = 1
    _OUT = 2

MODE_UND = _UND
MODE_IN = _IN
MODE_OUT = _OUT




cdef inline int endpoint_degrees(NetworkState s, int mode, int i, int j, int* d) noexcept nogil:
    """Degrees (without the tie i-j) of the endpoints ``mode`` looks at; returns their number."""
    cdef int x = 1 if s.has_tie(i, j) else 0
    if mode == _UND:
        d[0] = s.out_deg[i] - x
        d[1] = s.out_deg[j] - x
        return 2
    if mode == _IN:
        d[0] = s.in_deg[j] - x
        return 1
    d[0] = s.out_deg[i] - x
    return 1


cdef class StarKernel(TermKernel):
    """kstar / istar / ostar: sum over nodes of C(deg, k), one statistic per k.

    Adding the tie raises an endpoint's degree from d to d + 1, which adds
    C(d + 1, k) - C(d, k) = C(d, k - 1) stars centred there.
    """
    cdef int mode
    cdef int[::1] ks

    def __cinit__(self, ks, int mode):
        self.ks = np.ascontiguousarray(ks, dtype=np.intc)
        self.n_stats = <int>self.ks.shape[0]
        self.mode = mode

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int d[2]
        cdef int m = endpoint_degrees(s, self.mode, i, j, d)
        cdef int t, e
        cdef double v
        for t in range(self.n_stats):
            v = 0.0
            for e in range(m):
                v += choose(d[e], self.ks[t] - 1)
            out[t] = v


cdef class DegreeKernel(TermKernel):
    """degree / idegree / odegree: number of nodes with degree exactly d, one statistic per d."""
    cdef int mode
    cdef int[::1] ds

    def __cinit__(self, ds, int mode):
        self.ds = np.ascontiguousarray(ds, dtype=np.intc)
        self.n_stats = <int>self.ds.shape[0]
        self.mode = mode

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int d[2]
        cdef int m = endpoint_degrees(s, self.mode, i, j, d)
        cdef int t, e, k
        cdef double v
        for t in range(self.n_stats):
            k = self.ds[t]
            v = 0.0
            for e in range(m):
                if d[e] == k:
                    v -= 1.0
                elif d[e] + 1 == k:
                    v += 1.0
            out[t] = v


cdef class GWDegreeKernel(TermKernel):
    """gwdegree / gwidegree / gwodegree with fixed decay alpha.

    Statistic e^a sum_i {1 - (1 - e^-a)^d_i}; raising d to d + 1 adds
    e^a (1 - e^-a)^d e^-a = (1 - e^-a)^d.
    """
    cdef int mode
    cdef double r     # 1 - e^-alpha

    def __cinit__(self, double decay, int mode):
        self.n_stats = 1
        self.mode = mode
        self.r = 1.0 - exp(-decay)

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int d[2]
        cdef int m = endpoint_degrees(s, self.mode, i, j, d)
        cdef int e
        cdef double v = 0.0
        for e in range(m):
            v += pow(self.r, d[e])
        out[0] = v


cdef enum:
    STAR_QTAB = 512     # AltStarKernel: q^d tabulated below this degree


cdef class AltStarKernel(TermKernel):
    """altkstar / AltInStars / AltOutStars with parameter lambda.

    Statistic lambda^2 sum_i [q^d_i - 1 + d_i / lambda], q = 1 - 1/lambda;
    raising d to d + 1 adds lambda (1 - q^d).
    """
    cdef readonly int mode          # read by ergmfit.terms.wholecount (degree_sums)
    cdef readonly double lam
    cdef double q
    cdef double[STAR_QTAB] tab      # q^d as pow() gives it, for d < STAR_QTAB (EE calls it
                                    # at every proposal: a load instead of a pow)

    def __cinit__(self, double lam, int mode):
        cdef int k
        self.n_stats = 1
        self.mode = mode
        self.lam = lam
        self.q = 1.0 - 1.0 / lam
        for k in range(STAR_QTAB):
            self.tab[k] = pow(self.q, k)

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int d[2]
        cdef int m = endpoint_degrees(s, self.mode, i, j, d)
        cdef int e
        cdef double v = 0.0
        for e in range(m):
            v += self.lam * (1.0 - (self.tab[d[e]] if d[e] < STAR_QTAB else pow(self.q, d[e])))
        out[0] = v


cdef class IsolatesKernel(TermKernel):
    """isolates: number of nodes with no tie at all (in + out degree 0 when directed)."""

    def __cinit__(self):
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int x = 1 if s.has_tie(i, j) else 0
        cdef int di, dj
        if s.directed:
            di = s.out_deg[i] + s.in_deg[i] - x
            dj = s.out_deg[j] + s.in_deg[j] - x
        else:
            di = s.out_deg[i] - x
            dj = s.out_deg[j] - x
        out[0] = -<double>((di == 0) + (dj == 0))
