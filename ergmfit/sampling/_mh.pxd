# cython: language_level=3
from libc.stdint cimport int64_t
cimport numpy as cnp
from ergmfit.core._model cimport BinaryModel
from ergmfit.core._random cimport RNG
from ergmfit.sampling._proposals cimport Proposal


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
