# cython: language_level=3
cimport cython
from libc.stdint cimport int32_t, int64_t
from ergmfit.core._hashmap cimport TieMap, TieSlot, tiemap_find


@cython.final
cdef class CountState:
    """A count-valued (di)graph in compiled memory: dyad -> nonnegative integer.

    Only the nonzero dyads are stored: a hash map from the dyad's key to its
    index in flat arrays of ends and values (O(1) lookup, O(1) update; a value
    set to 0 removes the dyad, the last entry moving into its place), so that
    a uniformly drawn nonzero dyad is one index.  Undirected dyads are kept
    as i < j.  ``total`` is the sum of the values, ``total_sq`` of their squares,
    ``total_sqrt`` of their square roots (the valued terms' global moments).

    Each node's row sums of y and √y (out and, when directed, in) are kept on every
    change in O(1) (``row_sum``; the nodecovar terms read them).

    Each node also has the list of its nonzero out-neighbours (``onb``, ``odeg``)
    and, when directed, in-neighbours (``inb``, ``ideg``; undirected: the same list
    as out), kept in O(degree) per change, so that triad terms read the two-paths
    through a dyad in O(degree).

    Networks of at most ``DENSE_MAX_NODES`` nodes also keep every value in an n x n
    matrix (``dense``; both (i, j) and (j, i) when undirected), so that ``value`` is one
    memory read instead of a hash probe (the valued triad terms read O(degree) values
    per proposal).

    A state with the dense matrix may also keep its *level two-path counts*
    (:meth:`keep_level_twopaths`; the valued triad terms with twopath "min" ask for them
    when the reference bounds the values): for every ordered pair (a, b) and level
    v = 1..``levels``, N_v(a, b) = #{k : y_ak >= v and y_kb >= v} (undirected: the common
    neighbours at level v, stored for both orders), updated in O(degree) per level a
    change crosses (docs/valued_terms.md, "Level two-path counts").  ``level_overflow``
    counts the dyads whose value is above ``levels`` (the counts are then incomplete
    and their readers fall back).
    """
    cdef readonly int n
    cdef readonly bint directed
    cdef int64_t n_nonzero
    cdef int64_t cap
    cdef int* ends            # nonzero dyad e is ends[2e] -> ends[2e + 1]
    cdef int64_t* vals        # its value (> 0 ... or any nonzero value)
    cdef TieMap index         # dyad key -> e
    cdef readonly int64_t total
    cdef readonly int64_t total_sq
    cdef readonly double total_sqrt
    cdef int** nb_out           # nb_out[i][0:deg_out[i]]: nonzero out-neighbours of i
    cdef int* deg_out
    cdef int* cap_out
    cdef int** nb_in            # directed only: nonzero in-neighbours (else NULL)
    cdef int* deg_in
    cdef int* cap_in
    cdef int64_t* dense         # n <= DENSE_MAX_NODES: dense[i * n + j] = y_ij (else NULL)
    # row sums of each node's nonzero values y and of their square roots, kept on every
    # change (O(1)): out-rows (undirected: all its dyads) and, when directed, in-rows
    cdef double* sum_out
    cdef double* sum_in
    cdef double* root_out
    cdef double* root_in
    cdef readonly int levels            # 0: no level two-path counts kept
    cdef readonly int64_t level_overflow  # dyads with a value above ``levels``
    cdef int32_t* level_twopaths  # [(a * n + b) * levels + v - 1] = N_v(a, b)

    cdef inline int odeg(self, int i) noexcept nogil:
        return self.deg_out[i]

    cdef inline int* onb(self, int i) noexcept nogil:
        return self.nb_out[i]

    cdef inline int ideg(self, int i) noexcept nogil:
        return self.deg_in[i] if self.directed else self.deg_out[i]

    cdef inline int* inb(self, int i) noexcept nogil:
        return self.nb_in[i] if self.directed else self.nb_out[i]

    cdef inline int64_t dyad_key(self, int i, int j) noexcept nogil:
        if not self.directed and i > j:
            return <int64_t>j * self.n + i
        return <int64_t>i * self.n + j

    cdef inline int64_t value(self, int i, int j) noexcept nogil:
        cdef TieSlot* s
        if self.dense != NULL:
            return self.dense[<int64_t>i * self.n + j]
        s = tiemap_find(&self.index, self.dyad_key(i, j))
        return 0 if s == NULL else self.vals[s.val]

    cdef inline double row_sum(self, int u, bint outward, bint root) noexcept nogil:
        # Σ_j y_uj (outward; else Σ_j y_ju), or Σ √y with ``root``; undirected: Σ over
        # all of u's dyads
        if outward or not self.directed:
            return self.root_out[u] if root else self.sum_out[u]
        return self.root_in[u] if root else self.sum_in[u]

    cdef inline bint levels_cover(self, int64_t y) noexcept nogil:
        # the level two-path counts are complete now and stay so when a dyad moves to y
        return self.levels > 0 and self.level_overflow == 0 and y <= self.levels

    cdef int set_value(self, int i, int j, int64_t y) noexcept nogil
    cdef void _move_rows(self, int i, int j, double dy, double droot) noexcept nogil
    cdef void _move_level_twopaths(self, int i, int j, int64_t y_old, int64_t y_new) noexcept nogil
    cdef void _dense_set(self, int i, int j, int64_t y) noexcept nogil
    cdef int _reserve(self, int64_t cap) noexcept nogil
    cdef int _link(self, int i, int j) noexcept nogil
    cdef void _unlink(self, int i, int j) noexcept nogil
