# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The Metropolis-Hastings engine: one loop for every model and proposal.

Besides plain sampling (``run``, ``sample``) the loop serves the estimators:

* ``run_batch(theta, m, apply=...)`` makes m proposals and returns the sums of
  the change statistics of the accepted 0->1 flips ("adds") and of the
  accepted 1->0 flips ("deletes"), both as Δ⁺ = g(x_v=1) − g(x_v=0), then
  calls the proposal's ``end_batch`` hook (IFD adapts its auxiliary
  parameter there).  With ``apply=False`` every proposal is scored against
  the current state and never applied (EstimNetDirected's
  ``performMove = FALSE``, used by Algorithm S).
* ``cd_sample(theta, n, nsteps)``: n runs of nsteps proposals, each started
  from the current state and undone afterwards (contrastive divergence).

The attributes are declared in ``_mh.pxd`` so that compiled estimators
(``ergmfit.estimation.ee._ee``) can drive ``_batch`` without Python in between.

Ctrl-C: long runs are cut into chunks, and after every ``CHECK_EVERY``
(2^16) proposals the loop takes the GIL for a moment and asks Python for a
pending signal (``PyErr_CheckSignals``); a ``KeyboardInterrupt`` then ends
the call within milliseconds, with the chain's state and ``delta`` consistent
(the proposals before it are applied).  Nothing of this is in the
per-proposal path.

Runaway guard: at the same moments (every 2^16 proposals, never per
proposal) the loop compares the tie count with a ceiling and the process's
peak memory with a bound, and stops with :class:`DegenerateModelError` when
either is passed -- a degenerate (or nearly degenerate) model whose chain
fills the network would otherwise run for minutes and take gigabytes.  The
ceiling is ``max(min_ties, factor x reference ties)`` (the reference is the
observed network's tie count when the model made the sampler, else the
ties at the start) and the bound ``memory`` bytes above the peak at the
start; the defaults are in :data:`RUNAWAY_GUARD` and changed with
:func:`ergmfit.sampling.chains.runaway_guard`.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, free
from cpython.exc cimport PyErr_CheckSignals
from ergmfit.exceptions import DegenerateModelError
from ergmfit.core._model cimport BinaryModel
from ergmfit.core._random cimport RNG, rng_seed
from ergmfit.sampling._proposals cimport Proposal

cnp.import_array()

# proposals between two looks for a pending signal (Ctrl-C): ~5 ms at 12 M/s
cdef enum:
    CHECK_EVERY = 65536

cdef extern from *:
    """
    #if defined(_WIN32)
    static long long ergmfit_peak_rss_kb(void) { return 0; }
    #else
    #include <sys/resource.h>
    static long long ergmfit_peak_rss_kb(void) {
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    #if defined(__APPLE__)
        return (long long)ru.ru_maxrss / 1024;      /* bytes there */
    #else
        return (long long)ru.ru_maxrss;             /* kB on Linux and the BSDs */
    #endif
    }
    #endif
    """
    long long ergmfit_peak_rss_kb() noexcept nogil

# The runaway guard's defaults (see the module docstring):
# * factor: the tie ceiling is factor x the reference tie count (None: no ceiling);
#   a fitted model's networks stay near the observed count, and 4x is far outside it;
# * min_ties: ... but never below this many ties (small networks may fill up
#   harmlessly: 10^6 ties take some 100 MB);
# * memory: bytes of peak-memory growth during one chain (None: no bound).
RUNAWAY_GUARD = {"factor": 4.0, "min_ties": 1_000_000, "memory": 4 * 2**30}


def peak_memory_kb():
    """Peak resident memory of this process in kB (0 where unknown)."""
    return int(ergmfit_peak_rss_kb())


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

    def __cinit__(self, BinaryModel model, Proposal proposal, cnp.uint64_t[:] seed):
        self.model = model
        self.proposal = proposal
        rng_seed(&self.rng, seed[0], seed[1], seed[2], seed[3])
        self.buf = <double*>malloc(max(1, model.n_stats) * sizeof(double))
        if self.buf == NULL:
            raise MemoryError()
        self.delta = np.zeros(model.n_stats)
        self.start_ties = model.n_on()
        self.description = None
        self.set_guard()
        proposal.start(model)

    def __dealloc__(self):
        free(self.buf)

    def set_guard(self, reference_ties=None, factor="default", min_ties="default",
                  memory="default"):
        """Set the runaway guard: stop when the tie count passes
        ``max(min_ties, factor * reference_ties)`` (``reference_ties``:
        default the ties at the start) or the peak memory grows by ``memory``
        bytes from now.  Unset arguments take :data:`RUNAWAY_GUARD`'s values;
        None switches that part off."""
        g = RUNAWAY_GUARD
        factor = g["factor"] if factor == "default" else factor
        min_ties = g["min_ties"] if min_ties == "default" else min_ties
        memory = g["memory"] if memory == "default" else memory
        ref = self.start_ties if reference_ties is None else int(reference_ties)
        self.reference_ties = ref
        if factor is None or not np.isfinite(float(factor)):
            self.max_ties = 0
        else:
            ceiling = max(float(min_ties or 0), float(factor) * ref)
            self.max_ties = 0 if ceiling >= self.model.n_vars else max(1, int(ceiling))
        peak = ergmfit_peak_rss_kb()
        self.max_rss_kb = 0 if memory is None or peak <= 0 else peak + int(memory) // 1024
        self.guard_settings = {"factor": factor, "min_ties": min_ties, "memory": memory}

    cdef int _runaway(self) except -1:
        # the message of a chain that passed the guard (called with the GIL)
        cdef int64_t now = self.model.n_on()
        what = f" of {self.description}" if self.description else ""
        g = self.guard_settings
        if self.max_ties > 0 and now > self.max_ties:
            cause = (f"the number of ties grew from {self.start_ties:,} to {now:,}, past the "
                     f"ceiling of {self.max_ties:,} (max(min_ties={g['min_ties']:,}, "
                     f"factor={g['factor']:g} x the {self.reference_ties:,} ties of the "
                     f"reference network))")
            limit = "the tie ceiling"
        else:
            cause = (f"the process's memory grew by more than {g['memory'] / 2**30:.3g} GiB "
                     f"while the number of ties went from {self.start_ties:,} to {now:,}")
            limit = "the memory bound"
        exc = DegenerateModelError(
            f"the Markov chain{what} ran away after {self.n_proposed:,} proposals: {cause}. "
            "The model is degenerate (or nearly so) at these parameters: it puts its mass on "
            "networks far denser than the observed one, and the chain would keep filling the "
            "network (time and memory without bound). Try the estimate at full precision "
            "(rounded coefficients of a near-degenerate model can be degenerate), a fit by "
            "method='mcmle' or 'ee' from a better start, or geometrically weighted terms "
            "(gwesp, gwdsp, gwdegree) instead of triangle or k-star terms. If networks this "
            f"dense are intended, raise {limit} with "
            "ergmfit.sampling.chains.runaway_guard(factor=..., min_ties=..., memory=...)")
        exc.retryable = True          # MCMC-MLE restarts from a safer start
        exc.runaway = True
        raise exc

    cdef int _steps(self, const double* theta, int64_t steps, double* delta) noexcept nogil:
        return self._batch(theta, steps, delta, NULL, NULL, 1, NULL, NULL)

    cdef int _batch(self, const double* theta, int64_t steps, double* delta,
                    double* add_acc, double* del_acc, bint apply,
                    int64_t* journal, int64_t* n_journal) noexcept nogil:
        # ``steps`` proposals at ``theta``.  Accepted flips are applied when
        # ``apply`` (then ``delta`` tracks the change of g and ``journal``, if
        # given, records the flipped variables, n_journal[0] counting them);
        # the change statistics of accepted adds / deletes are summed into
        # add_acc / del_acc when given.  Returns -1 if memory ran out, else 0.
        cdef int64_t t, v
        cdef int k, p = self.model.n_stats
        cdef double lq, dot, lr
        cdef bint on
        cdef double* buf = self.buf
        # constant within a batch (IFD moves its parameter in end_batch only)
        cdef double aux = self.proposal.aux_theta()
        for t in range(steps):
            v = self.proposal.propose(self.model, &self.rng, &lq)
            self.n_proposed += 1
            if v < 0:
                continue
            self.model.change(v, buf)
            on = self.model.get(v)
            dot = aux
            for k in range(p):
                dot += theta[k] * buf[k]
            lr = (-dot if on else dot) + lq
            if mh_accept(&self.rng, lr):
                self.n_accepted += 1
                acc_row(buf, p, on, add_acc, del_acc)
                if apply:
                    if self.model.flip(v) != 0:
                        return -1
                    if journal != NULL:
                        journal[n_journal[0]] = v
                        n_journal[0] += 1
                    add_row(delta, buf, p, on)
                self.proposal.accepted(self.model, v, not on)
        return 0

    cdef int _revert(self, const int64_t* journal, int64_t n_journal) noexcept nogil:
        # undo the flips of a journal, last first
        cdef int64_t r
        for r in range(n_journal - 1, -1, -1):
            if self.model.flip(journal[r]) != 0:
                return -1
        return 0

    cdef int _tick(self, int64_t n) except -1 nogil:
        # count n proposals; every CHECK_EVERY of them, run Python's signal
        # handlers (Ctrl-C raises KeyboardInterrupt here)
        # and compare the tie count and the peak memory with the runaway guard
        self.since_check += n
        if self.since_check >= CHECK_EVERY:
            self.since_check = 0
            with gil:
                PyErr_CheckSignals()
            if ((self.max_ties > 0 and self.model.n_on() > self.max_ties)
                    or (self.max_rss_kb > 0 and ergmfit_peak_rss_kb() > self.max_rss_kb)):
                with gil:
                    self._runaway()
        return 0

    cdef int _run_checked(self, const double* theta, int64_t steps, double* delta) except -1 nogil:
        # _steps in chunks that end where a look for a signal is due
        cdef int64_t chunk
        while steps > 0:
            chunk = CHECK_EVERY - self.since_check
            if chunk > steps:
                chunk = steps
            if self._steps(theta, chunk, delta) != 0:
                with gil:
                    raise MemoryError("out of memory during sampling")
            steps -= chunk
            self._tick(chunk)
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
        cdef double dummy = 0
        with nogil:
            self._run_checked(&th[0] if th.shape[0] else &dummy, steps,
                              &d[0] if d.shape[0] else &dummy)
        return self.n_accepted - before

    def sample(self, theta, int64_t n, int64_t burnin, int64_t interval):
        """Statistics g(x_t) - g(x_0) after ``burnin`` steps and then every
        ``interval`` steps, as an (n, n_stats) array."""
        cdef cnp.ndarray[double, ndim=1] th = self._theta(theta)
        cdef cnp.ndarray[double, ndim=1] d = self.delta
        cdef cnp.ndarray[double, ndim=2] out = np.zeros((n, self.model.n_stats))
        cdef int64_t s
        cdef int k
        if n < 0 or burnin < 0 or interval < 1:
            raise ValueError("need n >= 0, burnin >= 0 and interval >= 1")
        if self.model.n_stats == 0:
            return out
        with nogil:
            self._run_checked(&th[0], burnin, &d[0])
            for s in range(n):
                self._run_checked(&th[0], interval, &d[0])
                for k in range(self.model.n_stats):
                    out[s, k] = d[k]
        return out

    def run_batch(self, theta, int64_t steps, bint apply=True, bint end_batch=True):
        """``steps`` proposals; returns (add, delete): the summed change
        statistics Δ⁺ of the accepted 0->1 and of the accepted 1->0 flips.

        With ``apply=False`` nothing is flipped: every proposal is scored
        against the current state.  With ``end_batch`` the proposal's
        ``end_batch`` hook runs afterwards (IFD updates its auxiliary
        parameter there).
        """
        cdef cnp.ndarray[double, ndim=1] th = self._theta(theta)
        cdef cnp.ndarray[double, ndim=1] d = self.delta
        cdef int p = self.model.n_stats
        cdef cnp.ndarray[double, ndim=1] add = np.zeros(max(1, p))
        cdef cnp.ndarray[double, ndim=1] dele = np.zeros(max(1, p))
        cdef cnp.ndarray[double, ndim=1] dummy = np.zeros(1)
        cdef int rc
        if steps < 0:
            raise ValueError("steps must be >= 0")
        with nogil:
            rc = self._batch(&th[0] if p else &dummy[0], steps, &d[0] if p else &dummy[0],
                             &add[0], &dele[0], apply, NULL, NULL)
            if end_batch:
                self.proposal.end_batch()
        if rc != 0:
            raise MemoryError("out of memory during sampling")
        return add[:p].copy(), dele[:p].copy()

    def end_batch(self):
        """Run the proposal's ``end_batch`` hook."""
        self.proposal.end_batch()

    def cd_sample(self, theta, int64_t n, int64_t nsteps):
        """Contrastive-divergence draws: ``n`` runs of ``nsteps`` proposals,
        each started from the current state and undone afterwards.

        Returns an (n, n_stats) array of g(x_nsteps) - g(x_start).  The
        state and ``delta`` are the same at the end as at the start.
        """
        cdef cnp.ndarray[double, ndim=1] th = self._theta(theta)
        cdef int p = self.model.n_stats
        cdef cnp.ndarray[double, ndim=2] out = np.zeros((n, p))
        cdef cnp.ndarray[double, ndim=1] d = np.zeros(max(1, p))
        cdef cnp.ndarray[cnp.int64_t, ndim=1] journal = np.zeros(max(1, nsteps), dtype=np.int64)
        cdef int64_t s, nj = 0
        cdef int k, rc = 0
        if n < 0 or nsteps < 0:
            raise ValueError("need n >= 0 and nsteps >= 0")
        if p == 0:
            return out
        with nogil:
            for s in range(n):
                for k in range(p):
                    d[k] = 0.0
                nj = 0
                rc = self._batch(&th[0], nsteps, &d[0], NULL, NULL, 1,
                                 <int64_t*>&journal[0], &nj)
                if rc == 0:
                    rc = self._revert(<int64_t*>&journal[0], nj)
                if rc != 0:
                    break
                for k in range(p):
                    out[s, k] = d[k]
                self._tick(nsteps)      # between runs: the state is the start again
        if rc != 0:
            raise MemoryError("out of memory during sampling")
        return out

    @property
    def acceptance_rate(self):
        return (<double>self.n_accepted) / self.n_proposed if self.n_proposed else float("nan")
