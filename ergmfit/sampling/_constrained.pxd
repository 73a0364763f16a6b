# cython: language_level=3
from libc.stdint cimport int64_t
cimport numpy as cnp
from ergmfit.core._random cimport RNG
from ergmfit.terms._ergm cimport ERGMModel
from ergmfit.sampling._proposals cimport Proposal
from ergmfit.sampling._mh cimport MHSampler

# the most toggles one constrained move makes (a directed 3-cycle reversal)
cdef enum:
    MAX_TOGGLES = 6


cdef class ConstrainedProposal(Proposal):
    """Moves that never leave a constrained sample space; see _constrained.pyx."""
    cdef ERGMModel em
    cdef readonly int mode
    cdef readonly bint all_free
    cdef readonly int64_t n_free
    cdef int64_t* fv                 # free variables (sorted), n_free of them
    cdef int* fi                     # ... and their dyads (i, j), to skip index decoding
    cdef int* fj
    cdef int64_t* onl                # positions (into fv) of the free ties, n_free_on of them
    cdef int64_t* onpos              # position of each free variable in onl, or -1
    cdef readonly int64_t n_free_on
    cdef int64_t seen_version
    cdef bint has_bounds
    cdef int* lo_out
    cdef int* hi_out
    cdef int* lo_in
    cdef int* hi_in
    cdef object _keep                # numpy arrays behind the pointers

    cdef int propose_k(self, RNG* rng, int64_t* out, double* lq) noexcept nogil
    cdef void toggled(self, int64_t v, bint now_on) noexcept nogil
    cdef void sync(self) noexcept nogil
    cdef bint is_free(self, int64_t v) noexcept nogil
    cdef int64_t find(self, int64_t v) noexcept nogil
    cdef int64_t free_tie(self, RNG* rng) noexcept nogil
    cdef int64_t free_dyad(self, RNG* rng) noexcept nogil
    cdef bint bounds_ok(self, const int64_t* out, int k) noexcept nogil


cdef class ConstrainedSampler(MHSampler):
    cdef ConstrainedProposal cprop
    cdef double* tbuf                # change statistics of each toggle of a move
    # the toggles of journalled moves (the engine's journal holds one entry
    # per move: its offset here), so that _revert undoes whole moves
    cdef int64_t* mlog
    cdef int64_t mlog_n, mlog_cap
    cdef int log_move(self, const int64_t* tog, int k, int64_t* journal,
                      int64_t* n_journal) noexcept nogil
