# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ERGMModel: the network state plus term kernels behind BinaryModel."""
import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from libc.stdlib cimport malloc, free
from libc.stdint cimport uint64_t, uint32_t
from ergmfit.core._random cimport RNG, rng_next
from ergmfit.network._dyadindex cimport dyad_var, var_dyad
from ergmfit.terms._kerneltable cimport kernel_table

cnp.import_array()

# the state size from which tie/no-tie prefetches the next proposals (see lookahead)
cdef double LOOKAHEAD_BYTES = 8.0 * 2 ** 20


cdef class ERGMModel(BinaryModel):

    def __cinit__(self, NetworkState state, list kernels):
        cdef int t
        self.state = state
        if not all(isinstance(k, TermKernel) for k in kernels):
            raise TypeError("kernels must be TermKernel instances")
        # stateful kernels (operator terms) get their own copy, set up for this state
        self._kernel_list = [k.bind(state) if (<TermKernel>k).stateful else k for k in kernels]
        self._n_terms = len(kernels)
        self.n_stats = kernel_table(self._kernel_list,
                                    [(<TermKernel>k).n_stats for k in self._kernel_list],
                                    &self._kernels, &self._offsets)
        self._stateful = <PyObject**>malloc(max(1, self._n_terms) * sizeof(PyObject*))
        if self._stateful == NULL:
            raise MemoryError()
        self._n_stateful = 0
        caches = 0
        on_demand = True
        for t in range(self._n_terms):
            k = self._kernel_list[t]
            if (<TermKernel>k).stateful:
                self._stateful[self._n_stateful] = <PyObject*>k
                self._n_stateful += 1
            caches |= (<TermKernel>k).caches
            if (<TermKernel>k).caches and not (<TermKernel>k).counts_on_demand:
                on_demand = False
        n = state.n
        self.n_vars = n * (n - 1) if state.directed else n * (n - 1) // 2
        if caches:
            if not on_demand:
                state.cache_degree = 0.0     # some term reads counts per neighbour: hold them
            state.enable_caches(caches)
        self._last_v = -1
        self._on_v = -1

    def __dealloc__(self):
        free(self._kernels)
        free(self._offsets)
        free(self._stateful)

    @property
    def kernels(self):
        return list(self._kernel_list)

    cdef void dyad(self, int64_t v, int* i, int* j) noexcept nogil:
        if v == self._last_v:
            i[0] = self._last_i
            j[0] = self._last_j
            return
        var_dyad(self.state.n, self.state.directed, v, i, j)
        self.state.prefetch_dyad(i[0], j[0])     # a new dyad: its records and hash slots
        self._last_v = v
        self._last_i = i[0]
        self._last_j = j[0]

    cdef int64_t var(self, int i, int j) noexcept nogil:
        return dyad_var(self.state.n, self.state.directed, i, j)

    cdef void dyad_change(self, int i, int j, double* out) noexcept nogil:
        cdef int t
        for t in range(self._n_terms):
            (<TermKernel>self._kernels[t]).change(self.state, i, j, out + self._offsets[t])

    cdef void _toggled(self, int i, int j, bint added) noexcept nogil:
        cdef int t
        for t in range(self._n_stateful):
            (<TermKernel>self._stateful[t]).toggled(self.state, i, j, added)

    cdef void change(self, int64_t v, double* out) noexcept nogil:
        cdef int i, j
        self.dyad(v, &i, &j)
        self.dyad_change(i, j, out)

    cdef bint get(self, int64_t v) noexcept nogil:
        # a proposal and the sampler both ask for v, then maybe flip it: one lookup
        cdef int i, j
        if v == self._on_v and self._on_version == self.state.version:
            return self._on_val
        self.dyad(v, &i, &j)
        self._on_val = self.state.has_tie(i, j)
        self._on_v = v
        self._on_version = self.state.version
        return self._on_val

    cdef int flip(self, int64_t v) noexcept nogil:
        cdef int i, j, rc
        cdef bint on = self.get(v)
        self.dyad(v, &i, &j)
        rc = self.state.remove_tie(i, j) if on else self.state.add_tie(i, j)
        if self._n_stateful and rc == 0:
            self._toggled(i, j, not on)
        self._on_v = v
        self._on_val = not on
        self._on_version = self.state.version
        return rc

    cdef int64_t n_on(self) noexcept nogil:
        return self.state.n_ties

    cdef int64_t on_var(self, int64_t k) noexcept nogil:
        cdef int i = self.state.ends[2 * k], j = self.state.ends[2 * k + 1]
        cdef int64_t last = self.state.n_ties - 1
        self.state.prefetch_dyad(i, j)
        # removing the tie moves the last one into its place: its hash slot too
        self.state.prefetch_tie(self.state.ends[2 * last], self.state.ends[2 * last + 1])
        self._last_v = self.var(i, j)
        self._last_i = i
        self._last_j = j
        self._on_v = self._last_v
        self._on_val = True
        self._on_version = self.state.version
        return self._last_v

    cdef int64_t random_var(self, RNG* rng) noexcept nogil:
        # draw the dyad directly: no index decoding
        cdef int i, j
        self.state.word_dyad(rng_next(rng), &i, &j)
        return self.proposed_var(i, j)

    # look-ahead (BinaryModel): on hash storage larger than LOOKAHEAD_BYTES (records,
    # hash slots and tie list); a smaller state stays in the caches, and the
    # look-ahead's own work would cost more than it saves (G(n, 10/n), quiet:
    # n = 4,097 (1.7 MB) 7.3 -> 6.3 M/CPU s; 10^4 (3.7 MB) 6.4 -> 6.1; 10^5 2.6 -> 4.2)
    cdef bint lookahead(self) noexcept nogil:
        cdef double nbytes
        if self.state.adj != NULL:
            return 0
        nbytes = ((<double>self.state.n) * self.state.rec_bytes * (2 if self.state.directed else 1)
                  + 16.0 * (self.state.tie_map.mask + 1) + 8.0 * self.state.tie_cap)
        return nbytes > LOOKAHEAD_BYTES

    cdef void prefetch_on(self, int64_t k, bint deep) noexcept nogil:
        self.state.prefetch_kth(k, deep)

    cdef void prefetch_word(self, uint64_t r) noexcept nogil:
        self.state.prefetch_word(r)

    cdef int64_t proposed_var(self, int i, int j) noexcept nogil:
        # the variable of (i, j), kept as the last decoded one: a proposal that
        # picked the dyad returns it, and the sampler's get/change/flip of it
        # then need no index decoding
        self.state.prefetch_dyad(i, j)
        self._last_v = self.var(i, j)
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

    def dyads_of(self, cnp.int64_t[:] variables):
        """(i, j) of many variables as an (len, 2) int64 array."""
        cdef Py_ssize_t r, m = variables.shape[0]
        cdef int i, j
        cdef cnp.ndarray[cnp.int64_t, ndim=2] out = np.empty((m, 2), dtype=np.int64)
        self._check_vars(variables)
        for r in range(m):
            self.dyad(variables[r], &i, &j)
            out[r, 0] = i
            out[r, 1] = j
        return out

    def var_of(self, int i, int j):
        """Variable index of dyad (i, j)."""
        self.state._check(i, j)
        return self.var(i, j)

    def dyad_change_stats(self, int i, int j):
        """Change statistics of the dyad (i, j)."""
        self.state._check(i, j)
        cdef cnp.ndarray[double, ndim=1] out = np.zeros(self.n_stats)
        if self.n_stats:
            if not self.state.directed and i > j:
                i, j = j, i
            self.dyad_change(i, j, &out[0])
        return out

    def toggle(self, int i, int j):
        """Toggle the dyad (i, j) as a sampler does (stateful kernels follow)."""
        self.state._check(i, j)
        if not self.state.directed and i > j:
            i, j = j, i
        if self.flip(self.var(i, j)) != 0:
            raise MemoryError("out of memory while toggling a tie")

    def add_ties_accumulate(self, ties_in):
        """Add the given (absent) ties one by one; return the summed change statistics.

        Started from the empty graph this gives the observed statistics
        minus their empty-graph values, exactly as the kernels define them.
        A tie already in the state, or given twice (an undirected one in either
        order), is refused with a ValueError naming it and its rows; the state is
        then as before the call.  ``ties_in``: an (m, 2) integer array (a Network's
        int32 ``ties`` too; int64 is read without a copy).
        """
        cdef cnp.int64_t[:, :] ties = (ties_in if isinstance(ties_in, np.ndarray)
                                       and ties_in.dtype == np.int64
                                       else np.asarray(ties_in, dtype=np.int64))
        cdef Py_ssize_t r, k, m = ties.shape[0]
        cdef int i, j, t
        cdef cnp.ndarray[double, ndim=1] total = np.zeros(self.n_stats)
        # kernels of nonlinear statistics give their exact value at the end (see
        # terms/_nonlinear.pxi): their terms declare 0 on the empty graph
        exact = [(self._offsets[t], kk, None if self.state.n_ties == 0 else kk.values())
                 for t, kk in enumerate(self._kernel_list) if getattr(kk, "exact_total", False)]
        cdef cnp.ndarray[double, ndim=1] buf = np.zeros(max(1, self.n_stats))
        cdef Py_ssize_t bad = -1
        arr = np.asarray(ties)
        if ties.shape[1] != 2:
            raise ValueError(f"ties must be an (m, 2) array of node pairs, got shape "
                             f"{arr.shape}")
        if m:
            wrong = np.flatnonzero((arr < 0).any(axis=1) | (arr >= self.state.n).any(axis=1)
                                   | (arr[:, 0] == arr[:, 1]))
            if len(wrong):
                self.state._check(int(arr[wrong[0], 0]), int(arr[wrong[0], 1]))
        with nogil:
            for r in range(m):
                if (r & 0xFFFF) == 0xFFFF:
                    with gil:                   # Ctrl-C ends a long count (Pokec: minutes)
                        PyErr_CheckSignals()
                i = <int>ties[r, 0]; j = <int>ties[r, 1]
                if not self.state.directed and i > j:
                    t = i; i = j; j = t
                # present already (in the state, or an earlier row): the change statistic of
                # adding it again is not its count's, and the state would hold it twice
                if self.state.has_tie(i, j):
                    bad = r
                    break
                if self.n_stats:
                    self.dyad_change(i, j, &buf[0])
                    for k in range(self.n_stats):
                        total[k] += buf[k]
                if self.state.add_tie(i, j) != 0:
                    with gil:
                        raise MemoryError("out of memory while adding ties")
                if self._n_stateful:
                    self._toggled(i, j, True)
        if bad >= 0:
            for r in range(bad - 1, -1, -1):    # the state as it was: last added first out
                self.toggle(<int>ties[r, 0], <int>ties[r, 1])
            raise ValueError(_duplicate_message(arr, bad, self.state.directed))
        for off, kk, start in exact:
            v = kk.values()
            total[off:off + len(v)] = v if start is None else v - start
        return total


def _duplicate_message(arr, Py_ssize_t bad, bint directed):
    """The error of row ``bad`` of the tie array ``arr``, a tie present already: an earlier
    row's (named with both rows) or the state's."""
    a, b = np.asarray(arr[:bad + 1, 0]), np.asarray(arr[:bad + 1, 1])
    if not directed:
        a, b = np.minimum(a, b), np.maximum(a, b)
    i, j = int(arr[bad, 0]), int(arr[bad, 1])
    same = np.flatnonzero((a[:bad] == a[bad]) & (b[:bad] == b[bad]))
    if len(same):
        kind = "directed" if directed else "undirected, in either order"
        return (f"duplicate tie ({i}, {j}) in ties: rows {int(same[0])} and {bad} are the same "
                f"tie ({kind}); each tie may appear once")
    return f"duplicate tie ({i}, {j}) in ties: row {bad} is a tie of the network already"
