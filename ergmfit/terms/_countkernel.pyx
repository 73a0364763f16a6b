# cython: language_level=3
"""Base class of the valued (count) term kernels; see ``_countkernel.pxd``."""


cdef class CountKernel:
    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil:
        pass
