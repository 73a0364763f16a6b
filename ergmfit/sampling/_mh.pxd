# cython: language_level=3
from libc.stdint cimport int64_t
cimport numpy as cnp
from ergmfit.core._model cimport BinaryModel
from libc.math cimport log
from ergmfit.core._random cimport RNG, rng_uniform_pos
from ergmfit.sampling._proposals cimport Proposal


cdef inline double _taylor4(double y) noexcept nogil:
    # 1 + y + y^2/2 + y^3/6 + y^4/24, which lies below e^y for y >= 0: so
    # u * _taylor4(-lr) > 1 means u > e^lr, a certain rejection decided with
    # a few multiplications instead of a log (most rejections)
    return 1.0 + y * (1.0 + y * (0.5 + y * (1.0 / 6.0 + y * (1.0 / 24.0))))


cdef inline bint mh_accept(RNG* rng, double lr) noexcept nogil:
    """Metropolis-Hastings acceptance at log-ratio lr: no draw when lr >= 0, else
    the same decision as log(u) < lr for a uniform u (the bound has a margin for
    rounding), with the log only when u is below the bound."""
    cdef double u
    if lr >= 0.0:
        return True
    u = rng_uniform_pos(rng)
    return u * _taylor4(-lr) <= 1.0 + 1e-9 and log(u) < lr


cdef inline void add_row(double* delta, const double* row, int p, bint on) noexcept nogil:
    """delta += the change row of a toggle that removed a tie (on) or added one."""
    cdef int c
    if on:
        for c in range(p):
            delta[c] -= row[c]
    else:
        for c in range(p):
            delta[c] += row[c]


cdef inline void acc_row(const double* row, int p, bint on, double* add_acc,
                         double* del_acc) noexcept nogil:
    """The change row of an accepted toggle into the sums of accepted deletes (on) or
    adds (either NULL: not kept)."""
    cdef double* acc = del_acc if on else add_acc
    cdef int c
    if acc != NULL:
        for c in range(p):
            acc[c] += row[c]


cdef class MHSampler:
    cdef readonly BinaryModel model
    cdef readonly Proposal proposal
    cdef RNG rng
    cdef readonly int64_t n_proposed
    cdef readonly int64_t n_accepted
    cdef double* buf
    cdef int64_t since_check         # proposals since the last look for a signal
    cdef public int64_t max_ties     # runaway guard: more ties than this stops the chain (0: off)
    cdef public int64_t max_rss_kb   # runaway guard: peak memory (kB) that stops it (0: off)
    cdef readonly int64_t start_ties # ties when the sampler was made
    cdef readonly int64_t reference_ties   # the tie count the ceiling is a multiple of
    cdef readonly object guard_settings    # factor, min_ties, memory in force
    cdef public object description   # the model, named in the runaway message
    cdef public cnp.ndarray delta    # g(x_t) - g(x_0)

    cdef int _steps(self, const double* theta, int64_t steps, double* delta) noexcept nogil
    cdef int _batch(self, const double* theta, int64_t steps, double* delta,
                    double* add_acc, double* del_acc, bint apply,
                    int64_t* journal, int64_t* n_journal) noexcept nogil
    cdef int _revert(self, const int64_t* journal, int64_t n_journal) noexcept nogil
    cdef int _tick(self, int64_t n) except -1 nogil
    cdef int _runaway(self) except -1
    cdef int _run_checked(self, const double* theta, int64_t steps, double* delta) except -1 nogil
