# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernels of dyad-independent terms: edges, mutual, nodal and dyadic covariates."""
from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel


cdef class EdgesKernel(TermKernel):
    """edges: number of ties."""

    def __cinit__(self):
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        out[0] = 1.0
