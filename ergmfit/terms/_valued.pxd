# cython: language_level=3
"""Declarations of ``_valued``: the valued (count) term kernels' base class ``CountKernel``
(``_countkernel.pxi``) and the compiled count model ``CountERGMModel`` (``_countergm.pxi``)."""
cimport cython
from cpython.ref cimport PyObject
from libc.stdint cimport int64_t
from ergmfit.core._model cimport CountModel
from ergmfit.network._countstate cimport CountState

cdef class CountKernel:
    """Compiled side of a valued (count) term: its change statistic.

    change(s, i, j, y_old, y_new, out) writes into out[0:n_stats]
    (overwriting) g(y with y_ij = y_new) - g(y with y_ij = y_old), where the
    state ``s`` holds y_ij = y_old now (the count twin of ``TermKernel.change``:
    a binary toggle is the move 0 -> 1).  For undirected networks i < j.

    change_support(s, i, j, y_old, y_first, m, out, stride) writes the change
    statistics of the m values y_first .. y_first + m - 1 from y_old at once: value
    y_first + k into out[k * stride:k * stride + n_stats].  The default calls
    ``change`` once per value; a kernel whose change reads the network in a way that
    does not depend on the new value (``WeightsKernel``'s two-path strengths) reads it
    once for every value.

    A ``stateful`` kernel (``B()``'s view of the binary network of a valued one) keeps
    memory of the network: ``bind(state)`` (Python) returns a copy set up for ``state`` as
    it is now, and the model calls ``changed(s, i, j, y_old, y_new)`` after every change
    of a dyad's value (the state holds y_new then), so the copy follows -- the count twin
    of ``TermKernel.bind`` / ``toggled``.  Stateless kernels ignore both.
    """
    cdef readonly int n_stats
    cdef readonly bint stateful
    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil
    cdef void change_support(self, CountState s, int i, int j, int64_t y_old,
                             int64_t y_first, int64_t m, double* out,
                             int64_t stride) noexcept nogil
    cdef void changed(self, CountState s, int i, int j, int64_t y_old,
                      int64_t y_new) noexcept nogil


@cython.final
cdef class CountERGMModel(CountModel):
    """A count-valued network state and the kernels of a valued formula, as a
    CountModel (variables numbered as ``ERGMModel``'s dyads)."""
    cdef readonly CountState state
    cdef list _kernel_list
    cdef PyObject** _kernels
    cdef int* _offsets
    cdef int _n_terms
    # kernels that follow the changes (``B()``): called after every change of a value
    cdef PyObject** _stateful
    cdef int _n_stateful
    # the last decoded variable (the proposal and the sampler ask for the same v)
    cdef int64_t _last_v
    cdef int _last_i, _last_j
    cdef void dyad(self, int64_t v, int* i, int* j) noexcept nogil
