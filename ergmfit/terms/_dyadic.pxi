"""Kernels of dyad-independent terms: edges, mutual, nodal and dyadic covariates.

Every kernel here is O(1) per call (apart from zeroing its n_stats outputs;
the sparse edge covariate does a binary search in one row).  Parameters
live in typed memoryviews owned by the kernel.
"""
from libc.math cimport fabs, pow as cpow
from libc.stdint cimport int64_t
from libc.string cimport memset

import numpy as np

from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel

# which end(s) of a tie a nodal kernel reads
MODE_BOTH = 0   # tail and head (undirected: both ends)
MODE_HEAD = 1   # head only ("in": nodeicov, nodeifactor, receiver)
MODE_TAIL = 2   # tail only ("out": nodeocov, nodeofactor, sender)


cdef class EdgesKernel(TermKernel):
    """edges: number of ties."""

    def __cinit__(self):
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        out[0] = 1.0


cdef class MutualKernel(TermKernel):
    """mutual (directed): number of dyads with i->j and j->i."""

    def __cinit__(self):
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        out[0] = 1.0 if s.has_tie(j, i) else 0.0


cdef class NodeCovKernel(TermKernel):
    """Sum over ties of x[tail] + x[head] (mode 0), x[head] (1) or x[tail] (2)."""
    cdef double[::1] x
    cdef readonly int mode

    def __cinit__(self, x, int mode=0):
        self.x = np.ascontiguousarray(x, dtype=np.float64)
        self.mode = mode
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        if self.mode == 0:
            out[0] = self.x[i] + self.x[j]
        elif self.mode == 1:
            out[0] = self.x[j]
        else:
            out[0] = self.x[i]


cdef class AbsDiffKernel(TermKernel):
    """Sum over ties of |x_i - x_j| ** p."""
    cdef double[::1] x
    cdef readonly double p

    def __cinit__(self, x, double p=1.0):
        self.x = np.ascontiguousarray(x, dtype=np.float64)
        self.p = p
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef double d = fabs(self.x[i] - self.x[j])
        if self.p == 1.0:
            out[0] = d
        else:
            out[0] = cpow(d, self.p)


cdef class FactorKernel(TermKernel):
    """One count per code: code[tail] and/or code[head] (codes < 0 count nowhere).

    nodefactor (mode 0), nodeifactor (1), nodeofactor (2); with the node
    index as its code also sociality (0), receiver (1) and sender (2).
    """
    cdef int[::1] code
    cdef readonly int mode

    def __cinit__(self, code, int n_stats, int mode=0):
        self.code = np.ascontiguousarray(code, dtype=np.intc)
        self.mode = mode
        self.n_stats = n_stats

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int c
        memset(out, 0, self.n_stats * sizeof(double))
        if self.mode != 1:
            c = self.code[i]
            if c >= 0:
                out[c] += 1.0
        if self.mode != 2:
            c = self.code[j]
            if c >= 0:
                out[c] += 1.0


cdef class MatchKernel(TermKernel):
    """nodematch: 1 if code[i] == code[j] >= 0, in one statistic or in statistic code."""
    cdef int[::1] code
    cdef readonly bint diff

    def __cinit__(self, code, int n_stats, bint diff=False):
        self.code = np.ascontiguousarray(code, dtype=np.intc)
        self.diff = diff
        self.n_stats = n_stats

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int a = self.code[i]
        memset(out, 0, self.n_stats * sizeof(double))
        if a >= 0 and a == self.code[j]:
            out[a if self.diff else 0] = 1.0


cdef class MixKernel(TermKernel):
    """nodemix: the tie counts in cell[code[tail] * k + code[head]] (>= 0).

    For undirected networks the two codes are ordered (smaller first).
    """
    cdef int[::1] code
    cdef int[::1] cell
    cdef readonly int k

    def __cinit__(self, code, cell, int k, int n_stats):
        self.code = np.ascontiguousarray(code, dtype=np.intc)
        self.cell = np.ascontiguousarray(cell, dtype=np.intc).reshape(-1)
        self.k = k
        self.n_stats = n_stats

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int a = self.code[i]
        cdef int b = self.code[j]
        cdef int t, c
        memset(out, 0, self.n_stats * sizeof(double))
        if a < 0 or b < 0:
            return
        if not s.directed and a > b:
            t = a; a = b; b = t
        c = self.cell[a * self.k + b]
        if c >= 0:
            out[c] = 1.0


cdef class AbsDiffCatKernel(TermKernel):
    """absdiffcat: the tie counts for the statistic of its value |x_i - x_j| (> 0).

    ``values`` are the sorted distinct nonzero differences, ``stat[k]`` the
    statistic of values[k] (-1 if dropped); binary search, exact equality.
    """
    cdef double[::1] x
    cdef double[::1] values
    cdef int[::1] stat

    def __cinit__(self, x, values, stat, int n_stats):
        self.x = np.ascontiguousarray(x, dtype=np.float64)
        self.values = np.ascontiguousarray(values, dtype=np.float64)
        self.stat = np.ascontiguousarray(stat, dtype=np.intc)
        self.n_stats = n_stats

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef double d = fabs(self.x[i] - self.x[j])
        cdef Py_ssize_t lo = 0, hi = self.values.shape[0], mid
        memset(out, 0, self.n_stats * sizeof(double))
        if d == 0.0:
            return
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.values[mid] < d:
                lo = mid + 1
            else:
                hi = mid
        if lo < self.values.shape[0] and self.values[lo] == d and self.stat[lo] >= 0:
            out[self.stat[lo]] = 1.0


cdef class DenseEdgeCovKernel(TermKernel):
    """edgecov from a dense n x n matrix: x[i, j] (undirected: i < j)."""
    cdef double[:, ::1] x

    def __cinit__(self, x):
        self.x = np.ascontiguousarray(x, dtype=np.float64)
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        out[0] = self.x[i, j]


cdef class SparseEdgeCovKernel(TermKernel):
    """edgecov from a CSR matrix with sorted column indices: x[i, j], 0 if absent."""
    cdef int64_t[::1] indptr
    cdef int[::1] indices
    cdef double[::1] data

    def __cinit__(self, indptr, indices, data):
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(indices, dtype=np.intc)
        self.data = np.ascontiguousarray(data, dtype=np.float64)
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int64_t lo = self.indptr[i], hi = self.indptr[i + 1], mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.indices[mid] < j:
                lo = mid + 1
            else:
                hi = mid
        if lo < self.indptr[i + 1] and self.indices[lo] == j:
            out[0] = self.data[lo]
        else:
            out[0] = 0.0
