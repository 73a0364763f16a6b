# cython: language_level=3
from libc.stdint cimport int64_t
from ergmfit.core._random cimport RNG
from ergmfit.core._model cimport CompiledModel

# the reference measures h(y) of a count-valued model (ergm.count's names)
cdef enum:
    REF_POISSON = 0      # h(y) = 1 / y!, y = 0, 1, 2, ...
    REF_GEOMETRIC = 1    # h(y) = 1, y = 0, 1, 2, ...
    REF_BINOMIAL = 2     # h(y) = C(trials, y), y = 0..trials
    REF_DISCUNIF = 3     # h(y) = 1, y = a..b

    LOG_H_TABLE = 1024   # log h(y) tabulated for y below this


cdef class ReferenceMeasure:
    """The reference measure h(y) of one dyad value and its support lo..hi
    (``unbounded``: lo..infinity).  ``log_h(y)`` is log h(y) (tabulated for
    small y); ``log_ratio(a, b)`` = log h(b) - log h(a), the term the
    Metropolis-Hastings ratio adds for a move of a dyad from a to b."""
    cdef readonly int kind
    cdef readonly int64_t lo
    cdef readonly int64_t hi
    cdef readonly bint unbounded
    cdef readonly int64_t trials
    cdef double table[LOG_H_TABLE]
    cdef double log_h(self, int64_t y) noexcept nogil
    cdef double _log_h_direct(self, int64_t y) noexcept nogil

    cdef inline double log_ratio(self, int64_t a, int64_t b) noexcept nogil:
        if self.kind == REF_GEOMETRIC or self.kind == REF_DISCUNIF:
            return 0.0
        return self.log_h(b) - self.log_h(a)

    cdef inline bint in_support(self, int64_t y) noexcept nogil:
        return y >= self.lo and (self.unbounded or y <= self.hi)


cdef class CountModel(CompiledModel):
    """The interface samplers know for count-valued models (the count twin of
    ``BinaryModel``; ``CompiledModel`` has what both share).

    A model over integer variables y_0 .. y_{n_vars-1} (dyad values) with
    sufficient statistics g(y) in R^n_stats and a reference measure h.

    change(v, y, out) writes g(y with y_v = y) - g(y) into out[0:n_stats]
                    (overwriting), from the current value of y_v.
    change_support(v, y_first, m, out)
                    the change statistics of the m values y_first .. y_first + m - 1
                    of y_v at once: value y_first + k into out[k * n_stats:(k + 1) *
                    n_stats] (the count MPLE's full conditionals; the default calls
                    ``change`` once per value, a model may share work between them).
    get(v)          current value of y_v.
    set(v, y)       y_v <- y; returns -1 if memory ran out.
    n_on()/on_var(k), random_var(rng): see ``CompiledModel`` (on: nonzero).
    total()         the sum of the values (the runaway guard reads it every
                    2^16 proposals; the default sums the nonzero values).
    """
    cdef readonly ReferenceMeasure reference

    cdef void change(self, int64_t v, int64_t y, double* out) noexcept nogil
    cdef int64_t get(self, int64_t v) noexcept nogil
    cdef int set(self, int64_t v, int64_t y) noexcept nogil
    cdef int64_t total(self) noexcept nogil
    cdef void change_support(self, int64_t v, int64_t y_first, int64_t m,
                             double* out) noexcept nogil
