# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""CountERGMModel: the count-valued network state plus valued term kernels behind CountModel."""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport free, malloc
from ergmfit.core._random cimport RNG, rng_next
from ergmfit.core._model cimport ReferenceMeasure
from ergmfit.network._dyadindex cimport dyad_var, var_dyad
# CountKernel: declared in _valued.pxd, defined in _countkernel.pxi (both in this module)
from ergmfit.terms._kerneltable cimport kernel_table

cnp.import_array()


cdef class CountERGMModel(CountModel):
    """``CountERGMModel(state, kernels, reference)``: a :class:`CountState`, a list
    of ``CountKernel`` and the :class:`ReferenceMeasure` of the dyad values."""

    def __cinit__(self, CountState state, list kernels, ReferenceMeasure reference):
        self.state = state
        self.reference = reference
        if not all(isinstance(k, CountKernel) for k in kernels):
            raise TypeError("kernels must be CountKernel instances (valued terms)")
        # stateful kernels (B()) get their own copy, set up for this state
        self._kernel_list = [k.bind(state) if (<CountKernel>k).stateful else k
                             for k in kernels]
        self._n_terms = len(kernels)
        self.n_stats = kernel_table(self._kernel_list,
                                    [(<CountKernel>k).n_stats for k in self._kernel_list],
                                    &self._kernels, &self._offsets)
        self._stateful = <PyObject**>malloc(max(1, self._n_terms) * sizeof(PyObject*))
        if self._stateful == NULL:
            raise MemoryError()
        self._n_stateful = 0
        for k in self._kernel_list:
            if (<CountKernel>k).stateful:
                self._stateful[self._n_stateful] = <PyObject*>k
                self._n_stateful += 1
        n = state.n
        self.n_vars = n * (n - 1) if state.directed else n * (n - 1) // 2
        self._last_v = -1
        for k in self._kernel_list:
            k.prepare_state(state, reference)

    def __dealloc__(self):
        free(self._kernels)
        free(self._offsets)
        free(self._stateful)

    @property
    def kernels(self):
        return list(self._kernel_list)

    cdef void dyad(self, int64_t v, int* i, int* j) noexcept nogil:
        if v != self._last_v:
            var_dyad(self.state.n, self.state.directed, v, &self._last_i, &self._last_j)
            self._last_v = v
        i[0] = self._last_i
        j[0] = self._last_j

    cdef void change(self, int64_t v, int64_t y, double* out) noexcept nogil:
        cdef int i, j, t
        cdef int64_t y_old
        self.dyad(v, &i, &j)
        y_old = self.state.value(i, j)
        for t in range(self._n_terms):
            (<CountKernel>self._kernels[t]).change(self.state, i, j, y_old, y,
                                                   out + self._offsets[t])

    cdef void change_support(self, int64_t v, int64_t y_first, int64_t m,
                             double* out) noexcept nogil:
        cdef int i, j, t
        cdef int64_t y_old
        self.dyad(v, &i, &j)
        y_old = self.state.value(i, j)
        for t in range(self._n_terms):
            (<CountKernel>self._kernels[t]).change_support(self.state, i, j, y_old, y_first, m,
                                                           out + self._offsets[t],
                                                           self.n_stats)

    cdef int64_t get(self, int64_t v) noexcept nogil:
        cdef int i, j
        self.dyad(v, &i, &j)
        return self.state.value(i, j)

    cdef int set(self, int64_t v, int64_t y) noexcept nogil:
        cdef int i, j, t, rc
        cdef int64_t y_old
        self.dyad(v, &i, &j)
        if not self._n_stateful:
            return self.state.set_value(i, j, y)
        y_old = self.state.value(i, j)
        rc = self.state.set_value(i, j, y)
        if rc == 0 and y_old != y:
            for t in range(self._n_stateful):
                (<CountKernel>self._stateful[t]).changed(self.state, i, j, y_old, y)
        return rc

    cdef int64_t n_on(self) noexcept nogil:
        return self.state.n_nonzero

    cdef int64_t total(self) noexcept nogil:
        return self.state.total

    cdef int64_t n_groups(self) noexcept nogil:
        # directed: the out-rows 0..n-1 and the in-columns n..2n-1; undirected: the nodes
        return 2 * self.state.n if self.state.directed else self.state.n

    cdef int64_t group_vars(self, int64_t g, int64_t* out, int64_t* values) noexcept nogil:
        cdef int n = self.state.n, u, j, c = 0
        cdef bint directed = self.state.directed, column = directed and g >= n
        u = <int>(g - n) if column else <int>g
        cdef int64_t v
        for j in range(n):
            if j == u:
                continue
            v = dyad_var(n, directed, j, u) if column else dyad_var(n, directed, u, j)
            if self.free_vars != NULL and not self.is_free(v):
                continue            # outside the sample space (within a mode of a two-mode network)
            out[c] = v
            values[c] = self.state.value(j, u) if column else self.state.value(u, j)
            c += 1
        return c

    cdef int64_t max_group_size(self) noexcept nogil:
        return self.state.n - 1

    cdef int64_t on_var(self, int64_t k) noexcept nogil:
        cdef int i = self.state.ends[2 * k], j = self.state.ends[2 * k + 1]
        self._last_v = dyad_var(self.state.n, self.state.directed, i, j)
        self._last_i = i
        self._last_j = j
        return self._last_v

    # Python access ---------------------------------------------------------
    def dyad_of(self, int64_t v):
        """(i, j) of variable v."""
        self._check_var(v)
        cdef int i, j
        self.dyad(v, &i, &j)
        return i, j

    def var_of(self, int i, int j):
        """The variable of the dyad (i, j)."""
        return dyad_var(self.state.n, self.state.directed, i, j)

    def accumulate(self, cnp.int64_t[:, :] dyads, cnp.int64_t[:] values):
        """Set the dyads to the values one after another, from the present state,
        and return the summed change statistics (the statistics of the result
        minus those of the start: from the empty network, its statistics)."""
        cdef Py_ssize_t r, k, m = dyads.shape[0]
        cdef cnp.ndarray[double, ndim=1] total = np.zeros(self.n_stats)
        cdef cnp.ndarray[double, ndim=1] buf = np.zeros(max(1, self.n_stats))
        cdef int64_t v
        for r in range(m):
            v = dyad_var(self.state.n, self.state.directed, <int>dyads[r, 0], <int>dyads[r, 1])
            self.change(v, values[r], &buf[0])
            for k in range(self.n_stats):
                total[k] += buf[k]
            if self.set(v, values[r]) != 0:
                raise MemoryError("out of memory while setting values")
        return total
