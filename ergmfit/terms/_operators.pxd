# cython: language_level=3
from cpython.ref cimport PyObject
from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel


cdef class CompoundKernel(TermKernel):
    """A kernel holding the kernels of an inner formula (operator terms)."""
    cdef list inner
    cdef PyObject** k
    cdef int* off
    cdef int n_k
    cdef int n_in
    cdef double* buf
    cdef object _args
    cdef _set_inner(self, list kernels)
    cdef void inner_change(self, NetworkState s, int i, int j, double* out) noexcept nogil
    cdef void inner_toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil
