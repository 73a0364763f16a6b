# cython: language_level=3
from libc.stdint cimport int64_t
from ergmfit.network._countstate cimport CountState

cdef class CountKernel:
    """Compiled side of a valued (count) term: its change statistic.

    change(s, i, j, y_old, y_new, out) writes into out[0:n_stats]
    (overwriting) g(y with y_ij = y_new) - g(y with y_ij = y_old), where the
    state ``s`` holds y_ij = y_old now (the count twin of ``TermKernel.change``:
    a binary toggle is the move 0 -> 1).  For undirected networks i < j.
    """
    cdef readonly int n_stats
    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil
