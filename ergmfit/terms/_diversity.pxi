"""Neighbour diversity (statnet 4.6+): the range of a numeric attribute over each node's
neighbours (``nodecovrange`` and its out/in/two-mode forms) and the number of distinct
levels of a categorical one among them (``nodefactordistinct`` and its forms), summed
over the nodes.

Adding the tie a→b (a–b) adds b to a's neighbours (``tail`` set: out-neighbours, or every
neighbour when ``both``) and a to b's (``head`` set: in-neighbours, or every neighbour).
Each side's change is read from the node's other neighbours: O(degree).
"""
from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel

import numpy as np

cdef enum:
    _COVRANGE = 0
    _FACTORDISTINCT = 1


cdef class DiversityKernel(TermKernel):
    cdef int kind               # _COVRANGE or _FACTORDISTINCT
    cdef bint tail, head        # count the tail's / head's statistic
    cdef bint both              # directed: neighbours are out- and in-neighbours
    cdef double[::1] x          # _COVRANGE: the values
    cdef int[::1] code          # _FACTORDISTINCT: the level (-1: not counted)

    def __init__(self, str kind, values, bint tail, bint head, bint both):
        self.n_stats = 1
        self.kind = _COVRANGE if kind == "range" else _FACTORDISTINCT
        self.tail, self.head, self.both = tail, head, both
        if self.kind == _COVRANGE:
            self.x = np.ascontiguousarray(values, dtype=np.float64)
            self.code = np.zeros(1, dtype=np.intc)
        else:
            self.code = np.ascontiguousarray(values, dtype=np.intc)
            self.x = np.zeros(1)

    cdef double side(self, NetworkState s, int v, int u, bint out) noexcept nogil:
        """Change of v's statistic when u joins its neighbours (out: v's out-neighbours,
        else in-neighbours; with ``both`` both sets, and u staying a neighbour through the
        other direction changes nothing)."""
        cdef int t, w, deg, pas, n_other = 0
        cdef int* nb
        cdef double lo = 0.0, hi = 0.0, xu
        cdef bint seen = False
        if self.both and s.directed and (s.has_tie(u, v) if out else s.has_tie(v, u)):
            return 0.0
        if self.kind == _FACTORDISTINCT and self.code[u] < 0:
            return 0.0
        for pas in range(2 if (self.both and s.directed) else 1):
            if (pas == 0) == out:
                nb, deg = s.out_nb[v], s.out_deg[v]
            else:
                nb, deg = s.in_nb[v], s.in_deg[v]
            for t in range(deg):
                w = nb[t]
                if w == u:
                    continue
                if self.kind == _FACTORDISTINCT:
                    if self.code[w] == self.code[u]:
                        return 0.0
                else:
                    if n_other == 0 or self.x[w] < lo:
                        lo = self.x[w]
                    if n_other == 0 or self.x[w] > hi:
                        hi = self.x[w]
                    n_other += 1
        if self.kind == _FACTORDISTINCT:
            return 1.0
        if n_other == 0:
            return 0.0
        xu = self.x[u]
        return (hi if hi > xu else xu) - (lo if lo < xu else xu) - (hi - lo)

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef double v = 0.0
        if self.tail:
            v += self.side(s, i, j, True)
        if self.head:
            v += self.side(s, j, i, not s.directed)
        out[0] = v
