# cython: language_level=3, boundscheck=False, wraparound=False
"""The base classes of the compiled models (every model; binary models); see ``_model.pxd``."""
import numpy as np
cimport numpy as cnp
from ergmfit.core._random cimport rng_below

cnp.import_array()


cdef class CompiledModel:

    cdef int64_t n_on(self) noexcept nogil:
        return 0

    cdef int64_t on_var(self, int64_t k) noexcept nogil:
        return -1

    cdef int64_t random_var(self, RNG* rng) noexcept nogil:
        return rng_below(rng, self.n_vars)

    def n_on_vars(self):
        """The number of variables that are on (``len(on_vars())`` without the array)."""
        return self.n_on()

    def on_vars(self):
        """Indices of the variables that are on (equal to 1; nonzero)."""
        cdef int64_t k, m = self.n_on()
        out = np.empty(m, dtype=np.int64)
        for k in range(m):
            out[k] = self.on_var(k)
        return out

    def _check_vars(self, variables):
        arr = np.asarray(variables)
        if arr.size and (arr.min() < 0 or arr.max() >= self.n_vars):
            raise IndexError(f"variables must lie in 0..{self.n_vars - 1}")

    def _check_var(self, int64_t v):
        if v < 0 or v >= self.n_vars:
            raise IndexError(f"variable {v} outside 0..{self.n_vars - 1}")


cdef class BinaryModel(CompiledModel):

    cdef void change(self, int64_t v, double* out) noexcept nogil:
        pass

    cdef bint get(self, int64_t v) noexcept nogil:
        return 0

    cdef int flip(self, int64_t v) noexcept nogil:
        return 0

    cdef bint lookahead(self) noexcept nogil:
        return 0

    cdef void prefetch_on(self, int64_t k, bint deep) noexcept nogil:
        pass

    cdef void prefetch_word(self, uint64_t r) noexcept nogil:
        pass

    # Python-level access, for tests and pure-Python estimators -----------
    def change_stats(self, int64_t v):
        """g(x with x_v=1) - g(x with x_v=0) as a float array."""
        self._check_var(v)
        cdef cnp.ndarray[double, ndim=1] out = np.zeros(self.n_stats)
        self.change(v, &out[0] if self.n_stats else NULL)
        return out

    def value(self, int64_t v):
        self._check_var(v)
        return bool(self.get(v))

    def values(self, cnp.int64_t[:] variables):
        """The values of many variables (``value`` of each) as a bool array: a compiled
        lookup per variable, no Python in between."""
        cdef Py_ssize_t r, m = variables.shape[0]
        cdef cnp.ndarray[cnp.uint8_t, ndim=1] out = np.zeros(m, dtype=np.uint8)
        self._check_vars(variables)
        with nogil:
            for r in range(m):
                out[r] = self.get(variables[r])
        return out.view(bool)

    def flip_var(self, int64_t v):
        self._check_var(v)
        if self.flip(v) != 0:
            raise MemoryError("out of memory while flipping a variable")

    def change_matrix(self, cnp.int64_t[:] variables):
        """Change statistics of many variables as an (len, n_stats) array."""
        cdef Py_ssize_t r, m = variables.shape[0]
        cdef cnp.ndarray[double, ndim=2] out = np.zeros((m, self.n_stats))
        self._check_vars(variables)
        if self.n_stats:
            with nogil:
                for r in range(m):
                    self.change(variables[r], &out[r, 0])
        return out

    def change_and_flip(self, cnp.int64_t[:] variables, bint flip_back=True):
        """For each variable: its change statistics, then a flip (and, with
        ``flip_back``, a second flip restoring the state).

        Returns the summed change statistics of the visits.  Used by the
        benchmarks and the tests to drive the compiled loop without Python
        in between.
        """
        cdef Py_ssize_t r, k, m = variables.shape[0]
        cdef cnp.ndarray[double, ndim=1] total = np.zeros(self.n_stats)
        cdef cnp.ndarray[double, ndim=1] buf = np.zeros(max(1, self.n_stats))
        cdef int bad = 0
        self._check_vars(variables)
        with nogil:
            for r in range(m):
                self.change(variables[r], &buf[0])
                for k in range(self.n_stats):
                    total[k] += buf[k]
                if self.flip(variables[r]) != 0:
                    bad = 1
                    break
                if flip_back and self.flip(variables[r]) != 0:
                    bad = 1
                    break
        if bad:
            raise MemoryError("out of memory while flipping variables")
        return total


# compiled reference measures and the base class of count-valued models
include "_countmodel.pxi"
