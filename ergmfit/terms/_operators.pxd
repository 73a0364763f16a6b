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
    # exact mode (a nonlinear kernel, or an operator over one): ``run`` holds the inner
    # statistics of the bound state, exactly (an exact inner kernel's segment is its own
    # exact value, refreshed on every toggle); values() gives the exact statistics
    cdef readonly bint exact_total
    cdef double[::1] run
    cdef double[::1] run_empty
    cdef int[::1] exact_idx
    cdef _track(self, empty)
    cdef void track(self, NetworkState s, int i, int j, bint added) noexcept nogil
    cdef void exact_values(self, double* out) noexcept nogil
    cdef _set_inner(self, list kernels)
    cdef NetworkState bind_inner_on_aux(self, CompoundKernel new, int n, bint directed)
    cdef void inner_change(self, NetworkState s, int i, int j, double* out) noexcept nogil
    cdef void inner_toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil
