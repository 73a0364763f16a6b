# cython: language_level=3
cimport cython
from libc.stdint cimport int64_t, uint64_t, uint8_t
cimport numpy as cnp
from ergmfit.core._random cimport RNG
from ergmfit.terms._ergm cimport ERGMModel
from ergmfit.network._state cimport NetworkState
from ergmfit.sampling._proposals cimport Proposal

# MAX_TOGGLES: the most toggles one fixed-size move makes (see _gwpass.pxd)
from ergmfit.sampling._gwpass cimport MAX_TOGGLES


@cython.final
cdef class ConstrainedProposal(Proposal):
    """Moves that never leave a constrained sample space; see _constrained.pyx."""
    cdef ERGMModel em
    cdef NetworkState st
    cdef readonly int mode
    cdef readonly bint all_free
    cdef readonly int64_t n_free
    cdef readonly int max_toggles
    cdef public bint delayed          # score multi-toggle moves by delayed acceptance
    cdef readonly bint relabel        # the last move exchanged two nodes' neighbourhoods
    cdef readonly bint swap           # the last move was an undirected double-edge swap
    cdef int n1                      # two-mode networks: the size of the first mode
    cdef int* fij                    # the free dyads (i, j) in pairs, i < j when undirected
    # open-addressing table: [dyad key i*n + j, its position among the free dyads] pairs
    cdef int64_t* hkv
    cdef int64_t hmask
    cdef int64_t* onl                # positions of the free ties, n_free_on of them
    cdef int64_t* onpos              # position of each free dyad in onl, or -1
    cdef readonly int64_t n_free_on
    cdef int64_t seen_version
    # Hastings log-ratios of tie/no-tie by free-tie count (a small direct-mapped table)
    cdef int64_t lq_key[64]
    cdef double lq_del[64]
    cdef double lq_add[64]
    cdef bint has_bounds
    cdef int* lo_out
    cdef int* hi_out
    cdef int* lo_in
    cdef int* hi_in
    # bd(attribs=): K classes, attribs[i*K + k], bounds per (node, class)
    cdef int K
    cdef bint attr_either            # directed: count arcs to and from a class together
    cdef uint8_t* attribs
    cdef int* alo_out
    cdef int* ahi_out
    cdef int* alo_in
    cdef int* ahi_in
    # scratch of bounds_ok (zero between calls)
    cdef int* d_out
    cdef int* d_in
    cdef int* c_out
    cdef int* c_in
    cdef int* touched
    cdef object _keep                # numpy arrays behind the pointers

    cdef int propose_k(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp,
                       double* lq) noexcept nogil
    cdef void toggled(self, int64_t k, bint now_on) noexcept nogil
    cdef void sync(self) noexcept nogil
    cdef int64_t find(self, int i, int j) noexcept nogil
    cdef bint free_at(self, int i, int j, int64_t* pos) noexcept nogil
    cdef void free_tie(self, RNG* rng, int* i, int* j, int64_t* pos) noexcept nogil
    cdef void free_tie_w(self, uint64_t w, int* i, int* j, int64_t* pos) noexcept nogil
    cdef void free_dyad(self, RNG* rng, int* i, int* j, int64_t* pos) noexcept nogil
    cdef bint bounds_ok(self, const int* ti, const int* tj, const bint* ton, int k) noexcept nogil
    cdef int flip(self, int i, int j, bint on, int64_t pos) noexcept nogil
    cdef int swap_moves(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp) noexcept nogil
    cdef int neighbour_swap(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp) noexcept nogil
