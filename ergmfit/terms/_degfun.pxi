"""One kernel for every statistic that is a sum over nodes of a function of the degree:
Σ_v [class(v) = c_t] f_t(d_v), one statistic t per (class, function) pair.

Covers degree ranges (``degrange``, ``concurrent``, ``mindegree``, ``degree(by=)``), powers
(``degree1.5``), binomials (``kstar(attr=)``, ``b1star``), geometric weights (``gwdegree(attr=)``,
``gwb1degree``) and the ties beyond the first (``concurrentties``), on undirected, directed and
two-mode networks.

``ends`` says whose degree a tie (i, j) changes: both endpoints (undirected), the head j's
in-degree, the tail i's out-degree, or, on a two-mode network (mode 1 first, so i < j is the
mode-1 end), the mode-1 node i or the mode-2 node j only.  With ``homophily`` the degree
counts only neighbours of the node's own class, and a tie between classes changes nothing:
the homophilous degree is counted in O(degree), as statnet does; every other change is O(1)
per statistic.
"""
from libc.math cimport pow

import numpy as np

from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms._combin cimport choose

cdef enum:
    _BOTH = 0
    _HEAD = 1      # in-degree of j (directed)
    _TAIL = 2      # out-degree of i (directed)
    _B1 = 3        # undirected, node i only (two-mode: the mode-1 end)
    _B2 = 4        # undirected, node j only (two-mode: the mode-2 end)

cdef enum:
    _RANGE = 0     # 1 if a <= d < b
    _POW = 1       # d ** a
    _GW = 2        # e^alpha (1 - r^d), a = r = 1 - e^-alpha
    _CHOOSE = 3    # C(d, a)
    _EXCESS = 4    # max(d - 1, 0)

ENDS = {"both": _BOTH, "head": _HEAD, "tail": _TAIL, "b1": _B1, "b2": _B2}
FUNCS = {"range": _RANGE, "pow": _POW, "gw": _GW, "choose": _CHOOSE, "excess": _EXCESS}




cdef class DegreeFunctionKernel(TermKernel):
    """Σ_v [class(v) = cls_t] f_t(d_v) for each statistic t (cls_t < 0: every node)."""
    cdef int ends
    cdef bint homophily
    cdef int[::1] code
    cdef int[::1] cls
    cdef int[::1] ftype
    cdef double[::1] a
    cdef double[::1] b

    def __cinit__(self, code, cls, ftype, a, b, int ends, bint homophily=False):
        self.code = np.ascontiguousarray(code, dtype=np.intc)
        self.cls = np.ascontiguousarray(cls, dtype=np.intc)
        self.ftype = np.ascontiguousarray(ftype, dtype=np.intc)
        self.a = np.ascontiguousarray(a, dtype=np.float64)
        self.b = np.ascontiguousarray(b, dtype=np.float64)
        self.n_stats = <int>self.cls.shape[0]
        self.ends = ends
        self.homophily = homophily

    cdef int same_degree(self, NetworkState s, int v, int other, bint incoming) noexcept nogil:
        """Neighbours of v of v's class, other than ``other``."""
        cdef int k, w, c = self.code[v], cnt = 0
        cdef int deg = s.in_deg[v] if incoming else s.out_deg[v]
        cdef int* nb = s.in_nb[v] if incoming else s.out_nb[v]
        for k in range(deg):
            w = nb[k]
            if w != other and self.code[w] == c:
                cnt += 1
        return cnt

    cdef inline double delta(self, int t, int d) noexcept nogil:
        """f_t(d + 1) - f_t(d)."""
        cdef int f = self.ftype[t]
        cdef double a = self.a[t]
        if f == _RANGE:
            return <double>((d + 1 >= a and d + 1 < self.b[t]) - (d >= a and d < self.b[t]))
        if f == _POW:
            return pow(d + 1.0, a) - pow(<double>d, a)
        if f == _GW:
            return pow(a, d)
        if f == _CHOOSE:
            return choose(d, <int>a - 1)
        return 1.0 if d >= 1 else 0.0

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int v[2]
        cdef int d[2]
        cdef int m = 0, e, t, c
        cdef int x = 1 if s.has_tie(i, j) else 0
        cdef bint incoming = self.ends == _HEAD
        for t in range(self.n_stats):
            out[t] = 0.0
        if self.homophily and self.code[i] != self.code[j]:
            return
        if self.ends == _BOTH or self.ends == _B1 or self.ends == _TAIL:
            v[m] = i
            m += 1
        if self.ends == _BOTH or self.ends == _B2 or self.ends == _HEAD:
            v[m] = j
            m += 1
        for e in range(m):
            if self.homophily:
                d[e] = self.same_degree(s, v[e], j if v[e] == i else i, incoming)
            elif incoming:
                d[e] = s.in_deg[v[e]] - x
            else:
                d[e] = s.out_deg[v[e]] - x
        for t in range(self.n_stats):
            c = self.cls[t]
            for e in range(m):
                if c < 0 or self.code[v[e]] == c:
                    out[t] += self.delta(t, d[e])
