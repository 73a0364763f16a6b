# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled kernels of the valued (count) terms: ``sum``, ``nonzero``, ``mutual(form="min")``."""
from libc.math cimport pow as c_pow
from libc.stdint cimport int64_t
from ergmfit.network._countstate cimport CountState
from ergmfit.terms._countkernel cimport CountKernel


cdef class SumKernel(CountKernel):
    """sum(pow=p): the sum of the dyad values to the power p."""
    cdef readonly double power

    def __cinit__(self, double power=1.0):
        self.n_stats = 1
        self.power = power

    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil:
        if self.power == 1.0:
            out[0] = <double>(y_new - y_old)
        else:
            out[0] = c_pow(<double>y_new, self.power) - c_pow(<double>y_old, self.power)


cdef class NonzeroKernel(CountKernel):
    """nonzero: the number of dyads with a nonzero value."""

    def __cinit__(self):
        self.n_stats = 1

    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil:
        out[0] = <double>((y_new != 0) - (y_old != 0))


cdef inline int64_t _min(int64_t a, int64_t b) noexcept nogil:
    return a if a < b else b


cdef class MutualMinKernel(CountKernel):
    """mutual(form="min") on a directed network: sum over i < j of min(y_ij, y_ji)."""

    def __cinit__(self):
        self.n_stats = 1

    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil:
        cdef int64_t back = s.value(j, i)
        out[0] = <double>(_min(y_new, back) - _min(y_old, back))
