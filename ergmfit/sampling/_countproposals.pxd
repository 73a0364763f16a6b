# cython: language_level=3
from libc.stdint cimport int64_t
from ergmfit.core._countmodel cimport CountModel
from ergmfit.core._random cimport RNG


cdef class CountProposal:
    """A Metropolis-Hastings proposal over the variables of a CountModel (the
    count twin of ``Proposal``).

    propose() returns the variable to change (or -1 for "no move"), writes its
    proposed value into y_new and log q(y' -> y) - log q(y -> y') into
    log_q_ratio; it never proposes a value outside the reference's support
    nor the current value.  accepted() is called after an accepted change;
    aux_theta() is added to the log acceptance ratio (0 here; the hook keeps
    the interface of the binary proposals).
    """
    cdef void start(self, CountModel m) noexcept nogil
    cdef int64_t propose(self, CountModel m, RNG* rng, int64_t* y_new,
                         double* log_q_ratio) noexcept nogil
    cdef void accepted(self, CountModel m, int64_t v, int64_t y_new) noexcept nogil
    cdef double aux_theta(self) noexcept nogil
    cdef void end_batch(self) noexcept nogil


cdef class CountRandom(CountProposal):
    pass


cdef class CountTNT(CountProposal):
    pass
