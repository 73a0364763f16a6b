# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Proposals for the Metropolis-Hastings engine."""
from libc.math cimport log
from ergmfit.core._random cimport rng_below, rng_uniform


cdef class Proposal:
    cdef void start(self, BinaryModel m) noexcept nogil:
        pass

    cdef int64_t propose(self, BinaryModel m, RNG* rng, double* log_q_ratio) noexcept nogil:
        log_q_ratio[0] = 0.0
        return -1

    cdef void accepted(self, BinaryModel m, int64_t v, bint now_on) noexcept nogil:
        pass

    cdef double aux_theta(self) noexcept nogil:
        return 0.0

    cdef void end_batch(self) noexcept nogil:
        pass


cdef class RandomToggle(Proposal):
    """Flip a uniformly chosen variable (statnet's ``MH_RandomToggle``). Symmetric."""

    cdef int64_t propose(self, BinaryModel m, RNG* rng, double* log_q_ratio) noexcept nogil:
        log_q_ratio[0] = 0.0
        if m.n_vars <= 0:
            return -1
        return rng_below(rng, m.n_vars)


cdef class TieNoTie(Proposal):
    """Tie / no-tie: with probability 1/2 turn off a uniformly chosen "on"
    variable (a present tie), else flip a uniformly chosen variable.

    The Hastings ratio is exact for this mixture at any density (statnet's
    ``MH_TNT`` uses the same mixture).  With no tie present every
    proposal is a uniform flip.
    """

    cdef int64_t propose(self, BinaryModel m, RNG* rng, double* log_q_ratio) noexcept nogil:
        cdef int64_t L = m.n_on()
        cdef double D = <double>m.n_vars
        cdef int64_t v
        cdef double q_fwd, q_rev
        if m.n_vars <= 0:
            log_q_ratio[0] = 0.0
            return -1
        if L > 0 and rng_uniform(rng) < 0.5:
            v = m.on_var(rng_below(rng, L))
        else:
            v = rng_below(rng, m.n_vars)
        if m.get(v):
            # removing v: the state goes from L to L - 1 ties
            q_fwd = 0.5 / L + 0.5 / D
            q_rev = (0.5 / D) if L > 1 else (1.0 / D)
        else:
            q_fwd = (0.5 / D) if L > 0 else (1.0 / D)
            q_rev = 0.5 / (L + 1) + 0.5 / D
        log_q_ratio[0] = log(q_rev / q_fwd)
        return v
