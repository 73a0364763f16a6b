# cython: language_level=3
cdef class TermKernel:
    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        pass
