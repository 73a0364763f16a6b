# cython: language_level=3
from libc.stdint cimport int64_t
from ergmfit.sampling._blocks cimport Enumeration
from ergmfit.terms._ergm cimport ERGMModel


cdef class DegreeBounded(Enumeration):
    """Enumeration restricted to the configurations that keep every degree
    within per-node bounds (``bd``): the others get probability 0."""
    cdef int n_nodes
    cdef bint directed
    cdef int* lo            # 2 n: out-bounds, then in-bounds (undirected: degree bounds twice)
    cdef int* hi
    cdef unsigned char* ok  # 2^k feasibility of the configurations
    cdef int cap_ok
    cdef int* scratch       # 9 * max_size ints
    cdef int mask(self, ERGMModel m, const int64_t* block, int k) noexcept nogil
    cdef int _bad(self, int v, int dout, int din) noexcept nogil
