# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled reference measures and the base class of count-valued models (see
``_model.pxd``)."""
import numpy as np
cimport numpy as cnp
from libc.math cimport lgamma, INFINITY

cnp.import_array()

KINDS = {"Poisson": REF_POISSON, "Geometric": REF_GEOMETRIC, "Binomial": REF_BINOMIAL,
         "DiscUnif": REF_DISCUNIF}


cdef class ReferenceMeasure:
    """``ReferenceMeasure(name, lo=0, hi=None, trials=0)``: ``name`` one of
    ``KINDS``; the Python side (:mod:`ergmfit.families.reference`) checks the
    arguments and builds it.

    Examples
    --------
    >>> r = ReferenceMeasure("Binomial", 0, 3, 3)
    >>> round(r.py_log_h(1), 12) == round(float(np.log(3)), 12)
    True
    """

    def __cinit__(self, str name, int64_t lo=0, hi=None, int64_t trials=0):
        cdef int64_t y
        self.kind = KINDS[name]
        self.lo = lo
        self.unbounded = hi is None
        self.hi = -1 if hi is None else int(hi)
        self.trials = trials
        for y in range(LOG_H_TABLE):
            self.table[y] = self._log_h_direct(y)

    cdef double _log_h_direct(self, int64_t y) noexcept nogil:
        if not self.in_support(y):
            return -INFINITY
        if self.kind == REF_POISSON:
            return -lgamma(y + 1.0)
        if self.kind == REF_BINOMIAL:
            return lgamma(self.trials + 1.0) - lgamma(y + 1.0) - lgamma(self.trials - y + 1.0)
        return 0.0

    cdef double log_h(self, int64_t y) noexcept nogil:
        if 0 <= y < LOG_H_TABLE:
            return self.table[y]
        return self._log_h_direct(y)

    def py_log_h(self, int64_t y):
        """log h(y) (-inf outside the support)."""
        return self.log_h(y)

    def py_log_ratio(self, int64_t a, int64_t b):
        """log h(b) - log h(a)."""
        return self.log_ratio(a, b)


cdef class CountModel(CompiledModel):

    cdef void change(self, int64_t v, int64_t y, double* out) noexcept nogil:
        pass

    cdef int64_t random_var(self, RNG* rng) noexcept nogil:
        if self.free_vars != NULL:
            return self.free_vars[rng_below(rng, self.n_free)]
        return rng_below(rng, self.n_vars)

    cdef bint is_free(self, int64_t v) noexcept nogil:
        # binary search in the sorted free variables
        cdef int64_t a = 0, b = self.n_free, mid
        if self.free_vars == NULL:
            return True
        while a < b:
            mid = (a + b) >> 1
            if self.free_vars[mid] < v:
                a = mid + 1
            else:
                b = mid
        return a < self.n_free and self.free_vars[a] == v

    def restrict(self, free):
        """Let only the variables ``free`` (increasing, distinct, in 0..n_vars-1) vary:
        the model's sample space (a two-mode network's dyads between its modes); None:
        every variable.  Every nonzero variable must be among them."""
        cdef cnp.int64_t[::1] view
        if free is None:
            self.free_vars, self.n_free, self._free_array = NULL, 0, None
            return
        arr = np.ascontiguousarray(free, dtype=np.int64).reshape(-1)
        if len(arr) and (arr.min() < 0 or arr.max() >= self.n_vars or np.any(np.diff(arr) <= 0)):
            raise ValueError(f"free variables must be increasing and distinct in "
                             f"0..{self.n_vars - 1}")
        self._free_array = arr
        self.n_free = len(arr)
        if self.n_free:
            view = arr
            self.free_vars = &view[0]
        else:
            # no free variable: a one-element dummy so that the pointer is not NULL
            self._free_array = np.full(1, -1, dtype=np.int64)
            view = self._free_array
            self.free_vars = &view[0]
        on = self.on_vars()
        if len(on):
            outside = on[~np.isin(on, arr)]
            if len(outside):
                self.restrict(None)
                raise ValueError(f"the nonzero variable {int(outside[0])} is not among the "
                                 f"free variables")

    def free_variables(self):
        """The variables that may vary (:meth:`restrict`), sorted; None: every one."""
        return None if self.free_vars == NULL else self._free_array[:self.n_free].copy()

    def n_free_vars(self):
        """How many variables may vary (``n_vars`` without a restriction)."""
        return self.free_count()

    cdef void change_support(self, int64_t v, int64_t y_first, int64_t m,
                             double* out) noexcept nogil:
        cdef int64_t k
        for k in range(m):
            self.change(v, y_first + k, out + k * self.n_stats)

    cdef int64_t get(self, int64_t v) noexcept nogil:
        return 0

    cdef int set(self, int64_t v, int64_t y) noexcept nogil:
        return 0

    cdef int64_t total(self) noexcept nogil:
        cdef int64_t k, out = 0
        for k in range(self.n_on()):
            out += self.get(self.on_var(k))
        return out

    cdef int64_t n_groups(self) noexcept nogil:
        return 0

    cdef int64_t group_vars(self, int64_t g, int64_t* out, int64_t* values) noexcept nogil:
        return 0

    cdef int64_t max_group_size(self) noexcept nogil:
        return 0

    # Python-level access, for tests -------------------------------------
    def change_stats(self, int64_t v, int64_t y):
        """g(y with y_v = y) - g(y) as a float array."""
        self._check_var(v)
        cdef cnp.ndarray[double, ndim=1] out = np.zeros(max(1, self.n_stats))
        self.change(v, y, &out[0])
        return out[:self.n_stats].copy()

    def change_support_stats(self, int64_t v, int64_t y_first, int64_t m):
        """The change statistics of y_v = y_first .. y_first + m - 1 from its present value,
        in one ``change_support`` call: an (m, n_stats) float array."""
        self._check_var(v)
        if m < 1:
            raise ValueError(f"m must be at least 1, not {m}")
        cdef cnp.ndarray[double, ndim=1] out = np.zeros(max(1, m * self.n_stats))
        self.change_support(v, y_first, m, &out[0])
        return out[:m * self.n_stats].reshape(m, self.n_stats).copy()

    def value(self, int64_t v):
        self._check_var(v)
        return self.get(v)

    def set_value(self, int64_t v, int64_t y):
        self._check_var(v)
        if self.set(v, y) != 0:
            raise MemoryError("out of memory while setting a value")

