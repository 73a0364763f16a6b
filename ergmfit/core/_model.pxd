# cython: language_level=3
from libc.stdint cimport int64_t, uint64_t
from ergmfit.core._random cimport RNG

cdef class CompiledModel:
    """What every compiled model is: sufficient statistics g in R^n_stats of
    variables 0 .. n_vars-1, some of them "on" (a tie, a nonzero count).  The
    families' interfaces (``BinaryModel`` here, ``CountModel``
    below) add what a variable's value and a move are.

    n_on()/on_var(k) the variables currently on (k in 0..n_on()-1), for
                    tie/no-tie style proposals.
    random_var(rng) a uniformly drawn variable (a model may do this faster
                    than decoding an index, e.g. an ERGM draws a dyad).
    """
    cdef readonly int n_stats
    cdef readonly int64_t n_vars

    cdef int64_t n_on(self) noexcept nogil
    cdef int64_t on_var(self, int64_t k) noexcept nogil
    cdef int64_t random_var(self, RNG* rng) noexcept nogil


cdef class BinaryModel(CompiledModel):
    """The one interface samplers and estimators know for binary variables.

    A model over binary variables x_0 .. x_{n_vars-1} with sufficient
    statistics g(x) in R^n_stats.  ERGMs (variables = dyads) and the MRF
    models (variables = nodes/units) both implement it.

    change(v, out)  writes g(x with x_v = 1) - g(x with x_v = 0) into
                    out[0:n_stats] (overwriting), whatever the current x_v.
    get(v)          current value of x_v.
    flip(v)         x_v <- 1 - x_v; returns -1 if memory ran out.
    n_on()/on_var(k), random_var(rng): see ``CompiledModel`` (on: equal to 1).

    Look-ahead (memory latency; never changes a result): a proposal that
    knows its next draws asks the model to prefetch what the next proposal
    will read, so that its cache misses overlap the present proposal's work.
    lookahead()        whether that pays (a state larger than the caches);
    prefetch_on(k, deep) what on_var(k) reads: the k-th "on" variable's
                    entry (deep False), or, read from that entry, the
                    variable's own data (deep True; the entry was
                    prefetched a proposal earlier);
    prefetch_word(r) what random_var reads when its draw is the word r.
    The defaults do nothing.
    """
    cdef void change(self, int64_t v, double* out) noexcept nogil
    cdef bint get(self, int64_t v) noexcept nogil
    cdef int flip(self, int64_t v) noexcept nogil
    cdef bint lookahead(self) noexcept nogil
    cdef void prefetch_on(self, int64_t k, bint deep) noexcept nogil
    cdef void prefetch_word(self, uint64_t r) noexcept nogil


# count-valued models (_countmodel.pxi)
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
    n_groups()/group_vars(g, out)/max_group_size()
                    groups of variables that a proposal may move together (a count
                    ERGM's: each node's out-row and in-column, undirected each node's
                    dyads): group_vars writes group g's variables into out and their
                    values into ``values`` (room for max_group_size() each) and returns
                    how many; the groups do not depend on the state.  The default: no
                    groups.
    free_vars / n_free
                    the variables that may vary (the model's sample space: a two-mode
                    network's dyads between its modes), sorted; NULL: every variable.
                    ``random_var`` draws among them, ``free_count()`` counts them, a
                    group holds only them and the count MPLE's design enumerates them
                    (``restrict`` sets them from Python).  The variables outside hold
                    0 and never move.
    """
    cdef readonly ReferenceMeasure reference
    cdef int64_t* free_vars
    cdef int64_t n_free
    cdef object _free_array

    cdef inline int64_t free_count(self) noexcept nogil:
        return self.n_vars if self.free_vars == NULL else self.n_free

    cdef bint is_free(self, int64_t v) noexcept nogil

    cdef void change(self, int64_t v, int64_t y, double* out) noexcept nogil
    cdef int64_t get(self, int64_t v) noexcept nogil
    cdef int set(self, int64_t v, int64_t y) noexcept nogil
    cdef int64_t total(self) noexcept nogil
    cdef void change_support(self, int64_t v, int64_t y_first, int64_t m,
                             double* out) noexcept nogil
    cdef int64_t n_groups(self) noexcept nogil
    cdef int64_t group_vars(self, int64_t g, int64_t* out, int64_t* values) noexcept nogil
    cdef int64_t max_group_size(self) noexcept nogil
