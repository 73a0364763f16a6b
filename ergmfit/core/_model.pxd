# cython: language_level=3
from libc.stdint cimport int64_t, uint64_t
from ergmfit.core._random cimport RNG

cdef class CompiledModel:
    """What every compiled model is: sufficient statistics g in R^n_stats of
    variables 0 .. n_vars-1, some of them "on" (a tie, a nonzero count).  The
    families' interfaces (``BinaryModel`` here, ``CountModel`` in
    ``_countmodel.pxd``) add what a variable's value and a move are.

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
