# cython: language_level=3
cimport cython
from cpython.ref cimport PyObject
from libc.stdint cimport int64_t
from ergmfit.core._countmodel cimport CountModel
from ergmfit.network._countstate cimport CountState

@cython.final
cdef class CountERGMModel(CountModel):
    """A count-valued network state and the kernels of a valued formula, as a
    CountModel (variables numbered as ``ERGMModel``'s dyads)."""
    cdef readonly CountState state
    cdef list _kernel_list
    cdef PyObject** _kernels
    cdef int* _offsets
    cdef int _n_terms
    # the last decoded variable (the proposal and the sampler ask for the same v)
    cdef int64_t _last_v
    cdef int _last_i, _last_j
    cdef void dyad(self, int64_t v, int* i, int* j) noexcept nogil
