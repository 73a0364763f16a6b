# cython: language_level=3
cdef class TermKernel:
    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        pass

    cdef void toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        pass

    def bind(self, state):
        """This kernel, ready for ``state`` (stateful kernels return a new copy)."""
        return self
