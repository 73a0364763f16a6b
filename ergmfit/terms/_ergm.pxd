# cython: language_level=3
cimport cython
from cpython.ref cimport PyObject
from libc.stdint cimport int64_t
from ergmfit.core._model cimport BinaryModel
from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel

@cython.final
cdef class ERGMModel(BinaryModel):
    """A network state and the kernels of a formula, as a BinaryModel.

    Variables are dyads: for a directed network v = i*(n-1) + j - [j > i],
    for an undirected one the row-major index of (i, j), i < j.
    """
    cdef readonly NetworkState state
    cdef list _kernel_list
    cdef PyObject** _kernels
    cdef int* _offsets
    cdef int _n_terms
    # kernels that follow the toggles (operator terms): called after every change
    cdef PyObject** _stateful
    cdef int _n_stateful
    # the last decoded variable: a proposal asks get/change/flip of the same v
    cdef int64_t _last_v
    cdef int _last_i, _last_j
    # ... and whether it is on, valid while the state's version is _on_version
    cdef int64_t _on_v, _on_version
    cdef bint _on_val

    cdef void dyad(self, int64_t v, int* i, int* j) noexcept nogil
    cdef int64_t var(self, int i, int j) noexcept nogil
    cdef int64_t proposed_var(self, int i, int j) noexcept nogil
    cdef void dyad_change(self, int i, int j, double* out) noexcept nogil
    cdef void _toggled(self, int i, int j, bint added) noexcept nogil
