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

