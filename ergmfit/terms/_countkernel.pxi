# cython: language_level=3
"""Base class of the valued (count) term kernels; see ``_valued.pxd``."""


cdef class CountKernel:
    def prepare_state(self, CountState state, reference):
        """Ask ``state`` to keep what this kernel's change statistic reads (called once
        when a compiled model is built on the state; ``reference`` its
        ``ReferenceMeasure``).  The default asks for nothing."""
        pass

    cdef void change(self, CountState s, int i, int j, int64_t y_old, int64_t y_new,
                     double* out) noexcept nogil:
        pass

    cdef void change_support(self, CountState s, int i, int j, int64_t y_old,
                             int64_t y_first, int64_t m, double* out,
                             int64_t stride) noexcept nogil:
        cdef int64_t k
        for k in range(m):
            self.change(s, i, j, y_old, y_first + k, out + k * stride)

    cdef void changed(self, CountState s, int i, int j, int64_t y_old,
                      int64_t y_new) noexcept nogil:
        pass

    def bind(self, state):
        """This kernel, ready for ``state`` (stateful kernels return a new copy)."""
        return self
