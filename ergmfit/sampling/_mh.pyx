# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The Metropolis-Hastings engine: one loop for every model and proposal."""
import numpy as np
cimport numpy as cnp
from libc.math cimport log
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, free
from ergmfit.core._model cimport BinaryModel
from ergmfit.core._random cimport RNG, rng_seed, rng_uniform_pos
from ergmfit.sampling._proposals cimport Proposal

cnp.import_array()


cdef class MHSampler:
    """Metropolis-Hastings on a BinaryModel with a pluggable proposal.

    The sampler tracks g(x_t) - g(x_0), the change of the statistics since
    the start, from the change statistics of accepted flips (so no full
    statistic is ever recomputed).  The model's state is advanced in place.

    Parameters
    ----------
    model : BinaryModel
    proposal : Proposal
    seed : array of 4 uint64 (see ``ergmfit.utils.validation.seed_words``)
    """
    cdef readonly BinaryModel model
    cdef readonly Proposal proposal
    cdef RNG rng
    cdef readonly int64_t n_proposed
    cdef readonly int64_t n_accepted
    cdef double* buf
    cdef public cnp.ndarray delta    # g(x_t) - g(x_0)

    def __cinit__(self, BinaryModel model, Proposal proposal, cnp.uint64_t[:] seed):
        self.model = model
        self.proposal = proposal
        rng_seed(&self.rng, seed[0], seed[1], seed[2], seed[3])
        self.buf = <double*>malloc(max(1, model.n_stats) * sizeof(double))
        if self.buf == NULL:
            raise MemoryError()
        self.delta = np.zeros(model.n_stats)
        proposal.start(model)

    def __dealloc__(self):
        free(self.buf)

    cdef int _steps(self, const double* theta, int64_t steps, double* delta) noexcept nogil:
        cdef int64_t t, v
        cdef int k, p = self.model.n_stats
        cdef double lq, dot, lr
        cdef bint on
        cdef double* buf = self.buf
        for t in range(steps):
            v = self.proposal.propose(self.model, &self.rng, &lq)
            self.n_proposed += 1
            if v < 0:
                continue
            self.model.change(v, buf)
            on = self.model.get(v)
            dot = self.proposal.aux_theta()
            for k in range(p):
                dot += theta[k] * buf[k]
            lr = (-dot if on else dot) + lq
            if lr >= 0.0 or log(rng_uniform_pos(&self.rng)) < lr:
                if self.model.flip(v) != 0:
                    return -1
                self.n_accepted += 1
                if on:
                    for k in range(p):
                        delta[k] -= buf[k]
                else:
                    for k in range(p):
                        delta[k] += buf[k]
                self.proposal.accepted(self.model, v, not on)
        return 0

    def _theta(self, theta):
        th = np.ascontiguousarray(theta, dtype=float)
        if th.shape != (self.model.n_stats,):
            raise ValueError(f"theta must have {self.model.n_stats} values, got {th.shape}")
        return th

    def run(self, theta, int64_t steps):
        """Advance the chain by ``steps`` proposals; returns the accepted count."""
        cdef cnp.ndarray[double, ndim=1] th = self._theta(theta)
        cdef cnp.ndarray[double, ndim=1] d = self.delta
        cdef int64_t before = self.n_accepted
        cdef int rc
        cdef double dummy = 0
        with nogil:
            rc = self._steps(&th[0] if th.shape[0] else &dummy, steps,
                             &d[0] if d.shape[0] else &dummy)
        if rc != 0:
            raise MemoryError("out of memory during sampling")
        return self.n_accepted - before

    def sample(self, theta, int64_t n, int64_t burnin, int64_t interval):
        """Statistics g(x_t) - g(x_0) after ``burnin`` steps and then every
        ``interval`` steps, as an (n, n_stats) array."""
        cdef cnp.ndarray[double, ndim=1] th = self._theta(theta)
        cdef cnp.ndarray[double, ndim=1] d = self.delta
        cdef cnp.ndarray[double, ndim=2] out = np.zeros((n, self.model.n_stats))
        cdef int64_t s
        cdef int k, rc = 0
        cdef double dummy = 0
        if n < 0 or burnin < 0 or interval < 1:
            raise ValueError("need n >= 0, burnin >= 0 and interval >= 1")
        if self.model.n_stats == 0:
            return out
        with nogil:
            rc = self._steps(&th[0], burnin, &d[0])
            s = 0
            while rc == 0 and s < n:
                rc = self._steps(&th[0], interval, &d[0])
                for k in range(self.model.n_stats):
                    out[s, k] = d[k]
                s += 1
        if rc != 0:
            raise MemoryError("out of memory during sampling")
        return out

    @property
    def acceptance_rate(self):
        return (<double>self.n_accepted) / self.n_proposed if self.n_proposed else float("nan")
