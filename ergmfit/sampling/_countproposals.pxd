# cython: language_level=3
from libc.stdint cimport int64_t
from ergmfit.core._countmodel cimport CountModel, ReferenceMeasure
from ergmfit.core._random cimport RNG
from ergmfit.sampling._proposals cimport ProposalBase


cdef class CountProposal(ProposalBase):
    """A Metropolis-Hastings proposal over the variables of a CountModel (the
    count twin of ``Proposal``; ``ProposalBase`` has what both share).

    propose() returns the variable to change (or -1 for "no move"), writes its
    proposed value into y_new and log q(y' -> y) - log q(y -> y') into
    log_q_ratio; it never proposes a value outside the reference's support
    nor the current value.  accepted() is called after an accepted change.
    use_theta() is called by the sampler before each batch of proposals with the
    batch's parameter (valid during the batch): a proposal that draws from the
    model's own conditional (``CountGibbs``) reads it; the others ignore it.
    """
    cdef void use_theta(self, const double* theta) noexcept nogil
    cdef void start(self, CountModel m) noexcept nogil
    cdef int64_t propose(self, CountModel m, RNG* rng, int64_t* y_new,
                         double* log_q_ratio) noexcept nogil
    cdef void accepted(self, CountModel m, int64_t v, int64_t y_new) noexcept nogil


cdef class CountRandom(CountProposal):
    pass


cdef class CountTNT(CountProposal):
    pass


cdef class CountZeroInflated(CountProposal):
    cdef readonly double p0       # the probability of a jump to 0 from a nonzero value
    cdef readonly bint p0_given
    cdef double _log_q(self, ReferenceMeasure ref, int64_t a, int64_t b) noexcept nogil


cdef class CountGibbs(CountProposal):
    cdef const double* theta      # the batch's parameter (use_theta), NULL before
    cdef double* change_buf       # n_stats
    cdef double* log_w            # log weights over the support, grown as needed
    cdef int64_t n_stats
    cdef int64_t capacity
    cdef bint _reserve(self, int64_t n) noexcept nogil
