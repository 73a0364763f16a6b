# cython: language_level=3
from libc.stdint cimport int64_t
from ergmfit.sampling._blocks cimport Enumeration
from ergmfit.terms._ergm cimport ERGMModel


cdef class DegreeBounded(Enumeration):
    """Enumeration restricted to the configurations that keep every degree
    within per-node bounds (``bd``): the others get probability 0."""
    cdef int n_nodes
    cdef int K              # classes of bd(attribs=) (0: none)
    cdef unsigned char* att # n x K: node v is an alter of class c
    cdef bint directed
    cdef int* lo            # 2 n (1 + K): degree out/in bounds, then class out/in bounds (n x K)
    cdef int* hi
    cdef unsigned char* ok  # 2^k feasibility of the configurations
    cdef int cap_ok
    cdef int* scratch       # (9 + 4 K) max_size ints
    cdef int mask(self, ERGMModel m, const int64_t* block, int k) noexcept nogil
    cdef int count(self, ERGMModel m, int a, int c, bint inward) noexcept nogil
    cdef int _bad(self, int v, int dout, int din, const int* co, const int* ci) noexcept nogil
