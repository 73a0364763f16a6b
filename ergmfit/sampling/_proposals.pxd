# cython: language_level=3
from libc.stdint cimport int64_t, uint64_t
from libc.math cimport log
from ergmfit.core._model cimport BinaryModel
from ergmfit.core._model cimport CountModel, ReferenceMeasure
from ergmfit.core._random cimport RNG

cdef inline int tnt_lq_slot(int64_t* key, double* ldel, double* ladd, int64_t L,
                            double D) noexcept nogil:
    """Tie/no-tie's Hastings log-ratios with L ties among D dyads (removing a tie:
    L -> L - 1, into ldel; adding one: L -> L + 1, into ladd), kept in a 64-slot
    direct-mapped table keyed by L (L moves by +-1); returns L's slot."""
    cdef int slot = <int>(L & 63)
    if key[slot] != L:
        ldel[slot] = (log(((0.5 / D) if L > 1 else (1.0 / D)) / (0.5 / L + 0.5 / D))
                      if L > 0 else 0.0)
        ladd[slot] = log((0.5 / (L + 1) + 0.5 / D) / ((0.5 / D) if L > 0 else (1.0 / D)))
        key[slot] = L
    return slot


cdef class ProposalBase:
    """What every Metropolis-Hastings proposal has, whatever its model family
    (``Proposal`` for a BinaryModel, ``CountProposal`` for a CountModel):

    aux_theta()   a term added to the log acceptance ratio (0 here; IFD's
                  auxiliary parameter, see ``Proposal``), read once per batch
                  of proposals, so it may change only in end_batch();
    end_batch()   a hook run after each batch of proposals (nothing here).
    """
    cdef double aux_theta(self) noexcept nogil
    cdef void end_batch(self) noexcept nogil


cdef class Proposal(ProposalBase):
    """A Metropolis-Hastings proposal over the variables of a BinaryModel.

    propose() returns the variable to flip (or -1 for "no move") and
    writes log q(x' -> x) - log q(x -> x') into log_q_ratio.  accepted()
    is called after an accepted flip (for proposals with memory, e.g. IFD);
    aux_theta() is added to the log acceptance ratio as +a for 0->1 flips
    and -a for 1->0 flips (IFD's auxiliary parameter; 0 otherwise); it is
    read once per batch of proposals, so it may change only in end_batch().
    """
    cdef void start(self, BinaryModel m) noexcept nogil
    cdef int64_t propose(self, BinaryModel m, RNG* rng, double* log_q_ratio) noexcept nogil
    cdef void accepted(self, BinaryModel m, int64_t v, bint now_on) noexcept nogil


cdef class RandomToggle(Proposal):
    pass


cdef class TieNoTie(Proposal):
    # Hastings log-ratios depend only on the tie count L: a small direct-mapped
    # table keyed by L spares the two logs per proposal (L moves by +-1)
    cdef int64_t lq_key[64]
    cdef double lq_del[64]
    cdef double lq_add[64]
    cdef public bint ahead   # prefetch the next proposals' memory (set from model.lookahead())
    # whether the sampler draws a uniform after a proposal (then the next proposal
    # starts one word later), learnt per kind (0: a drawn tie, 1: a drawn dyad) as
    # a 2-bit counter: the look-ahead prefetches only the predicted start once the
    # counter is sure of it (see _look_ahead)
    cdef uint64_t after      # a word of the generator's state just after the last proposal's
                             # draws (one word: a copy of the whole state, read as vectors,
                             # waited for the generator's stores: 8% of the time at n = 10^5)
    cdef int last_kind       # that proposal's kind, -1 before the first
    cdef unsigned char uses_u[2]
    cdef void _look_ahead(self, BinaryModel m, const RNG* rng, int64_t L, int kind) noexcept nogil


cdef class IFD(Proposal):
    """Improved Fixed Density proposal (Byshkin et al. 2016); see _proposals.pyx."""
    cdef public double V            # auxiliary parameter
    cdef public double K            # step multiplier of V (EstimNet's ifd_K)
    cdef public bint is_delete      # the next proposal is a delete
    cdef public bint adapt          # update V in end_batch
    cdef public long long n_add     # add / delete proposals in the current batch
    cdef public long long n_del
    cdef public long long last_add  # the same for the last finished batch
    cdef public long long last_del
    cdef public long long n_unbalanced   # batches with |Ndel - Nadd| > 0.8 (Ndel + Nadd)


# the proposals of count-valued models (_countproposals.pxi)
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
    A proposal may instead move several variables at once: propose() then returns
    MULTI_MOVE with the moves in n_moves / move_vars / move_vals (each value in the
    support and != the variable's value when its turn comes) and log_q_ratio their
    joint Hastings log-ratio (``CountStrength``); the sampler scores them in order
    and applies all or none.
    """
    # a move of several variables (propose() returned MULTI_MOVE): n_moves variables
    # move_vars[r] to the values move_vals[r], in that order (the sampler keeps their old
    # values in move_olds); the proposal owns the arrays
    cdef int64_t n_moves
    cdef int64_t* move_vars
    cdef int64_t* move_vals
    cdef int64_t* move_olds
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


cdef enum:
    MULTI_MOVE = -2      # CountProposal.propose: a move of several variables


cdef class CountStrength(CountProposal):
    cdef readonly CountProposal base  # the proposal of the other moves
    cdef readonly double share        # the probability of a group move
    cdef readonly int size            # the dyads a group move shifts together
    cdef int64_t* group               # a group's variables (max_group_size)
    cdef int64_t* values              # their values
    cdef int64_t* cand                # the candidates' positions in the group
    cdef int64_t group_cap


cdef class CountRowResample(CountProposal):
    cdef readonly CountProposal base  # the proposal of the other moves
    cdef readonly double share        # the probability of a group resample
    cdef readonly double tilt         # the tilt lambda is uniform on [-tilt, tilt]
    cdef const double* theta          # the batch's parameter (use_theta)
    cdef int64_t* group               # a group's variables (max_group_size)
    cdef int64_t* values              # their values
    cdef int64_t* drawn               # the drawn values
    cdef double* change_buf           # the change rows of one dyad's support
    cdef int64_t group_cap
    cdef int64_t n_stats
    cdef double _log_cond(self, CountModel m, int64_t v, int64_t y, int64_t z, double lam,
                          RNG* rng, int64_t* draw) noexcept nogil


cdef class CountGibbs(CountProposal):
    cdef const double* theta      # the batch's parameter (use_theta), NULL before
    cdef double* change_buf       # n_stats
    cdef double* log_w            # log weights over the support, grown as needed
    cdef int64_t n_stats
    cdef int64_t capacity
    cdef bint _reserve(self, int64_t n) noexcept nogil
