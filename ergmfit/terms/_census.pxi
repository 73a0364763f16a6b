"""Triad census kernel: the statistics are counts of triads by type (``triadcensus``,
``balance``, ``simmelian``, ``nearsimmelian``, ``intransitive``).

A tie (i, j) changes the type of the n - 2 triads {i, j, k}; the kernel reads the other
five dyads of each and looks both types up in a 64-entry table (the code of a triad is
x_ij + 2 x_ji + 4 x_ik + 8 x_ki + 16 x_jk + 32 x_kj, Batagelj & Mrvar).  O(n) per change,
as statnet's triad census.
"""
import numpy as np

from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel


cdef class TriadCensusKernel(TermKernel):
    """out[stat[type(code)]] += 1 for the triad's type with the tie, -= 1 without."""
    cdef int[::1] stat_of_code      # 64 entries: statistic of a code (< 0: none)

    def __cinit__(self, stat_of_code, int n_stats):
        self.stat_of_code = np.ascontiguousarray(stat_of_code, dtype=np.intc)
        self.n_stats = n_stats

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int k, code, a, b, t
        cdef int base = 2 if (s.directed and s.has_tie(j, i)) else 0
        for t in range(self.n_stats):
            out[t] = 0.0
        for k in range(s.n):
            if k == i or k == j:
                continue
            code = base
            if s.has_tie(i, k):
                code += 4
            if s.directed and s.has_tie(k, i):
                code += 8
            if s.has_tie(j, k):
                code += 16
            if s.directed and s.has_tie(k, j):
                code += 32
            a = self.stat_of_code[code]
            b = self.stat_of_code[code + 1]
            if a >= 0:
                out[a] -= 1.0
            if b >= 0:
                out[b] += 1.0
