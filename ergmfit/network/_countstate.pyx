# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""CountState: the sparse count-valued network state (see ``_countstate.pxd``)."""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.stdint cimport int32_t
from libc.math cimport sqrt
from ergmfit.core._hashmap cimport tiemap_init, tiemap_free, tiemap_put, tiemap_del_slot

cnp.import_array()

#: networks of at most this many nodes keep a dense matrix of their values too
#: (8 MB at 1024 nodes)
DENSE_MAX_NODES = 1024

#: the level two-path counts of a state may take at most this many bytes (else they are
#: not kept and the valued triad terms walk the neighbour lists)
LEVEL_TWOPATH_MEMORY = 256 * 2 ** 20


cdef inline double _root(int64_t y) noexcept nogil:
    return sqrt(<double>y) if y > 0 else 0.0


cdef int _push(int** lists, int* deg, int* cap, int i, int j) noexcept nogil:
    # append j to node i's list
    cdef int* grown
    cdef int c
    if deg[i] == cap[i]:
        c = 4 if cap[i] == 0 else 2 * cap[i]
        grown = <int*>realloc(lists[i], c * sizeof(int))
        if grown == NULL:
            return -1
        lists[i] = grown
        cap[i] = c
    lists[i][deg[i]] = j
    deg[i] += 1
    return 0


cdef void _drop(int** lists, int* deg, int i, int j) noexcept nogil:
    # remove j from node i's list (O(degree); the last entry takes its place)
    cdef int k, d = deg[i]
    cdef int* l = lists[i]
    for k in range(d):
        if l[k] == j:
            l[k] = l[d - 1]
            deg[i] = d - 1
            return


cdef class CountState:
    """``CountState(n, directed, dyads=None, values=None)``: ``dyads`` an (m, 2)
    array of node pairs (no pair twice; i != j), ``values`` their m integer
    values (zeros are skipped).

    Examples
    --------
    >>> import numpy as np
    >>> s = CountState(3, True, np.array([[0, 1], [2, 0]]), np.array([2, 5]))
    >>> s.get(0, 1), s.get(1, 0), s.nonzero_count, s.total
    (2, 0, 2, 7)
    """

    def __cinit__(self, int n, bint directed, dyads=None, values=None):
        cdef cnp.ndarray[cnp.int64_t, ndim=2] d
        cdef cnp.ndarray[cnp.int64_t, ndim=1] y
        cdef Py_ssize_t k, m
        if n < 1:
            raise ValueError("a network needs at least one node")
        self.n = n
        self.directed = directed
        self.n_nonzero = 0
        self.total = 0
        self.cap = 0
        self.total_sq = 0
        self.total_sqrt = 0.0
        self.ends = NULL
        self.vals = NULL
        self.dense = NULL
        self.levels = 0
        self.level_overflow = 0
        self.level_twopaths = NULL
        if n <= DENSE_MAX_NODES:
            self.dense = <int64_t*>calloc(<size_t>n * n, sizeof(int64_t))
            if self.dense == NULL:
                raise MemoryError()
        self.nb_out = <int**>calloc(n, sizeof(int*))
        self.deg_out = <int*>calloc(n, sizeof(int))
        self.cap_out = <int*>calloc(n, sizeof(int))
        if self.nb_out == NULL or self.deg_out == NULL or self.cap_out == NULL:
            raise MemoryError()
        self.nb_in = NULL
        self.deg_in = NULL
        self.cap_in = NULL
        self.sum_out = <double*>calloc(n, sizeof(double))
        self.root_out = <double*>calloc(n, sizeof(double))
        self.sum_in = NULL
        self.root_in = NULL
        if self.sum_out == NULL or self.root_out == NULL:
            raise MemoryError()
        if directed:
            self.sum_in = <double*>calloc(n, sizeof(double))
            self.root_in = <double*>calloc(n, sizeof(double))
            if self.sum_in == NULL or self.root_in == NULL:
                raise MemoryError()
            self.nb_in = <int**>calloc(n, sizeof(int*))
            self.deg_in = <int*>calloc(n, sizeof(int))
            self.cap_in = <int*>calloc(n, sizeof(int))
            if self.nb_in == NULL or self.deg_in == NULL or self.cap_in == NULL:
                raise MemoryError()
        d = np.zeros((0, 2), dtype=np.int64) if dyads is None else \
            np.ascontiguousarray(dyads, dtype=np.int64).reshape(-1, 2)
        y = np.zeros(0, dtype=np.int64) if values is None else \
            np.ascontiguousarray(values, dtype=np.int64).reshape(-1)
        m = d.shape[0]
        if y.shape[0] != m:
            raise ValueError(f"{m} dyads but {y.shape[0]} values")
        if m and (d.min() < 0 or d.max() >= n or np.any(d[:, 0] == d[:, 1])):
            raise ValueError(f"dyads must be pairs of distinct nodes in 0..{n - 1}")
        if tiemap_init(&self.index, max(16, m), <int64_t>n * n) != 0 or self._reserve(max(16, m)) != 0:
            raise MemoryError()
        for k in range(m):
            if self.value(<int>d[k, 0], <int>d[k, 1]) != 0:
                raise ValueError(f"the dyad ({d[k, 0]}, {d[k, 1]}) is given twice")
            if self.set_value(<int>d[k, 0], <int>d[k, 1], y[k]) != 0:
                raise MemoryError()

    def __dealloc__(self):
        cdef int i
        free(self.ends)
        free(self.vals)
        free(self.dense)
        free(self.level_twopaths)
        free(self.sum_out)
        free(self.sum_in)
        free(self.root_out)
        free(self.root_in)
        if self.nb_out != NULL:
            for i in range(self.n):
                free(self.nb_out[i])
        if self.nb_in != NULL:
            for i in range(self.n):
                free(self.nb_in[i])
        free(self.nb_out)
        free(self.deg_out)
        free(self.cap_out)
        free(self.nb_in)
        free(self.deg_in)
        free(self.cap_in)
        tiemap_free(&self.index)

    cdef int _reserve(self, int64_t cap) noexcept nogil:
        cdef int* e
        cdef int64_t* v
        if cap <= self.cap:
            return 0
        e = <int*>realloc(self.ends, 2 * cap * sizeof(int))
        if e == NULL:
            return -1
        self.ends = e
        v = <int64_t*>realloc(self.vals, cap * sizeof(int64_t))
        if v == NULL:
            return -1
        self.vals = v
        self.cap = cap
        return 0

    cdef int _link(self, int i, int j) noexcept nogil:
        # j joins i's out-list and i joins j's in-list (undirected: each other's list)
        if _push(self.nb_out, self.deg_out, self.cap_out, i, j) != 0:
            return -1
        if self.directed:
            return _push(self.nb_in, self.deg_in, self.cap_in, j, i)
        return _push(self.nb_out, self.deg_out, self.cap_out, j, i)

    cdef void _unlink(self, int i, int j) noexcept nogil:
        _drop(self.nb_out, self.deg_out, i, j)
        if self.directed:
            _drop(self.nb_in, self.deg_in, j, i)
        else:
            _drop(self.nb_out, self.deg_out, j, i)

    cdef void _dense_set(self, int i, int j, int64_t y) noexcept nogil:
        if self.dense != NULL:
            self.dense[<int64_t>i * self.n + j] = y
            if not self.directed:
                self.dense[<int64_t>j * self.n + i] = y

    cdef void _move_rows(self, int i, int j, double dy, double droot) noexcept nogil:
        self.sum_out[i] += dy
        self.root_out[i] += droot
        if self.directed:
            self.sum_in[j] += dy
            self.root_in[j] += droot
        else:
            self.sum_out[j] += dy
            self.root_out[j] += droot

    cdef void _move_level_twopaths(self, int i, int j, int64_t y_old,
                                   int64_t y_new) noexcept nogil:
        # the level two-path counts when y_ij moves from y_old to y_new (i < j when
        # undirected): the two-paths i -> j -> b and a -> i -> j gain (lose) the levels
        # min(y_old, y_new) + 1 .. min(max(y_old, y_new), other leg, levels)
        cdef int L = self.levels, t, b, a, d
        cdef int64_t n = self.n, lo, hi, m, v
        cdef int32_t sgn = 1 if y_new > y_old else -1
        cdef int32_t* N = self.level_twopaths
        cdef const int64_t* D = self.dense
        cdef int* l
        self.level_overflow += (y_new > L) - (y_old > L)
        lo = y_old if y_old < y_new else y_new
        hi = y_old if y_old > y_new else y_new
        if lo < 0:                     # (levels count values >= 1 only)
            lo = 0
        if hi > L:
            hi = L
        if hi <= lo:
            return
        d = self.deg_out[j]
        l = self.nb_out[j]
        for t in range(d):
            b = l[t]
            if b == i:
                continue
            m = D[j * n + b]
            if m > hi:
                m = hi
            for v in range(lo, m):
                N[(i * n + b) * L + v] += sgn
                if not self.directed:
                    N[(b * n + i) * L + v] += sgn
        d = self.ideg(i)
        l = self.inb(i)
        for t in range(d):
            a = l[t]
            if a == j:
                continue
            m = D[a * n + i]
            if m > hi:
                m = hi
            for v in range(lo, m):
                N[(a * n + j) * L + v] += sgn
                if not self.directed:
                    N[(j * n + a) * L + v] += sgn

    cdef int set_value(self, int i, int j, int64_t y) noexcept nogil:
        # the dyad's value <- y; returns -1 when memory runs out
        cdef int64_t key = self.dyad_key(i, j)
        cdef TieSlot* s = tiemap_find(&self.index, key)
        cdef int64_t e, last, y_old
        if not self.directed and i > j:
            i, j = j, i
        y_old = 0 if s == NULL else self.vals[s.val]
        if y_old != y:
            self._move_rows(i, j, <double>(y - y_old), _root(y) - _root(y_old))
        if self.levels > 0:
            self._move_level_twopaths(i, j, y_old, y)
        if s != NULL:
            e = s.val
            self.total += y - self.vals[e]
            self.total_sq += y * y - self.vals[e] * self.vals[e]
            self.total_sqrt += _root(y) - _root(self.vals[e])
            self._dense_set(i, j, y)
            if y != 0:
                self.vals[e] = y
                return 0
            tiemap_del_slot(&self.index, s)
            self._unlink(i, j)
            last = self.n_nonzero - 1
            if e != last:
                self.ends[2 * e] = self.ends[2 * last]
                self.ends[2 * e + 1] = self.ends[2 * last + 1]
                self.vals[e] = self.vals[last]
                tiemap_find(&self.index, self.dyad_key(self.ends[2 * e],
                                                       self.ends[2 * e + 1])).val = e
            self.n_nonzero = last
            return 0
        if y == 0:
            return 0
        if self.n_nonzero == self.cap and self._reserve(2 * self.cap) != 0:
            return -1
        e = self.n_nonzero
        if tiemap_put(&self.index, key, e) != 0:
            return -1
        if self._link(i, j) != 0:
            return -1
        self.ends[2 * e] = i
        self.ends[2 * e + 1] = j
        self.vals[e] = y
        self.n_nonzero = e + 1
        self._dense_set(i, j, y)
        self.total += y
        self.total_sq += y * y
        self.total_sqrt += _root(y)
        return 0

    # Python access ---------------------------------------------------------
    @property
    def nonzero_count(self):
        """The number of nonzero dyads."""
        return self.n_nonzero

    def _check(self, int i, int j):
        if not (0 <= i < self.n and 0 <= j < self.n) or i == j:
            raise IndexError(f"({i}, {j}) is not a dyad of a {self.n}-node network")

    def get(self, int i, int j):
        """The value of the dyad (i, j)."""
        self._check(i, j)
        return self.value(i, j)

    def set(self, int i, int j, int64_t y):
        """Set the value of the dyad (i, j) to y."""
        self._check(i, j)
        if self.set_value(i, j, y) != 0:
            raise MemoryError()

    def neighbours(self, int i, bint out=True):
        """The nonzero out-neighbours (``out=False``: in-neighbours) of node i, sorted
        (undirected: all its nonzero neighbours)."""
        cdef int d, k
        cdef int* l
        if not 0 <= i < self.n:
            raise IndexError(f"node {i} is not in a {self.n}-node network")
        d = self.odeg(i) if out else self.ideg(i)
        l = self.onb(i) if out else self.inb(i)
        return sorted([l[k] for k in range(d)])

    def nonzero(self):
        """The nonzero dyads and their values: an (m, 2) int64 array (i < j when
        undirected) and an (m,) int64 array, in storage order."""
        cdef Py_ssize_t k, m = self.n_nonzero
        d = np.empty((m, 2), dtype=np.int64)
        y = np.empty(m, dtype=np.int64)
        for k in range(m):
            d[k, 0] = self.ends[2 * k]
            d[k, 1] = self.ends[2 * k + 1]
            y[k] = self.vals[k]
        return d, y

    def to_dense(self):
        """The n x n matrix of values (symmetric when undirected)."""
        d, y = self.nonzero()
        a = np.zeros((self.n, self.n), dtype=np.int64)
        a[d[:, 0], d[:, 1]] = y
        if not self.directed:
            a[d[:, 1], d[:, 0]] = y
        return a

    def keep_level_twopaths(self, int levels):
        """Keep the level two-path counts N_v(a, b) = #{k : y_ak >= v and y_kb >= v},
        v = 1..``levels``, from now on (0: stop keeping them); built in
        O(Σ_k deg(k)^2 levels), then updated on every change.  Kept only on a state with
        the dense value matrix and within ``LEVEL_TWOPATH_MEMORY``; returns whether they
        are kept.

        Examples
        --------
        >>> import numpy as np
        >>> s = CountState(3, True, np.array([[0, 1], [1, 2]]), np.array([2, 3]))
        >>> s.keep_level_twopaths(3)
        True
        >>> s.level_twopath_counts()[0, 2].tolist()     # 0 -> 1 -> 2 at levels 1 and 2
        [1, 1, 0]
        """
        cdef int a, k, b, t, u, v
        cdef int64_t n = self.n, m, e
        if levels < 0:
            raise ValueError(f"levels must be >= 0, not {levels}")
        free(self.level_twopaths)
        self.level_twopaths = NULL
        self.levels = 0
        self.level_overflow = 0
        if levels == 0 or self.dense == NULL or \
                n * n * levels * sizeof(int32_t) > LEVEL_TWOPATH_MEMORY:
            return levels == 0
        self.level_twopaths = <int32_t*>calloc(<size_t>(n * n * levels), sizeof(int32_t))
        if self.level_twopaths == NULL:
            raise MemoryError()
        self.levels = levels
        for a in range(self.n):
            for t in range(self.deg_out[a]):
                k = self.nb_out[a][t]
                for u in range(self.deg_out[k]):
                    b = self.nb_out[k][u]
                    if b == a:
                        continue
                    m = min(self.dense[a * n + k], self.dense[k * n + b], <int64_t>levels)
                    for v in range(m):
                        self.level_twopaths[(a * n + b) * levels + v] += 1
        for e in range(self.n_nonzero):
            self.level_overflow += self.vals[e] > levels
        return True

    def level_twopath_counts(self):
        """The level two-path counts as an (n, n, levels) int array (entry [a, b, v - 1]
        is N_v(a, b)); None when they are not kept."""
        cdef int64_t k, size
        if self.levels == 0:
            return None
        size = <int64_t>self.n * self.n * self.levels
        out = np.empty(size, dtype=np.int32)
        for k in range(size):
            out[k] = self.level_twopaths[k]
        return out.reshape(self.n, self.n, self.levels)

    def copy(self):
        d, y = self.nonzero()
        c = CountState(self.n, self.directed, d, y)
        if self.levels:
            c.keep_level_twopaths(self.levels)
        return c
