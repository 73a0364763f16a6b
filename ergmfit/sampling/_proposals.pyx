# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Proposals for the Metropolis-Hastings engine."""
from libc.math cimport log
from libc.stdint cimport int64_t, uint64_t
from ergmfit.core._random cimport rng_below, rng_uniform, rng_next, word_uniform
from ergmfit.network._state cimport NetworkState
from ergmfit.terms._ergm cimport ERGMModel


cdef class ProposalBase:
    cdef double aux_theta(self) noexcept nogil:
        return 0.0

    cdef void end_batch(self) noexcept nogil:
        pass


cdef class Proposal(ProposalBase):
    cdef void start(self, BinaryModel m) noexcept nogil:
        pass

    cdef int64_t propose(self, BinaryModel m, RNG* rng, double* log_q_ratio) noexcept nogil:
        log_q_ratio[0] = 0.0
        return -1

    cdef void accepted(self, BinaryModel m, int64_t v, bint now_on) noexcept nogil:
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

    def __cinit__(self):
        cdef int k
        for k in range(64):
            self.lq_key[k] = -1
        self.last_kind = -1
        self.uses_u[0] = self.uses_u[1] = 1      # unsure: both starts prefetched

    cdef void start(self, BinaryModel m) noexcept nogil:
        self.ahead = m.lookahead()

    @property
    def uniform_guess(self):
        """The look-ahead's counters (after a drawn tie, after a drawn dyad) of
        whether the sampler draws a uniform: 0-3, 0 and 3 sure (no / yes)."""
        return (self.uses_u[0], self.uses_u[1])

    cdef int64_t propose(self, BinaryModel m, RNG* rng, double* log_q_ratio) noexcept nogil:
        cdef int64_t L = m.n_on()
        cdef double D = <double>m.n_vars
        cdef int64_t v, L_next
        cdef int slot = <int>(L & 63)
        cdef int kind
        cdef unsigned char c
        if m.n_vars <= 0:
            log_q_ratio[0] = 0.0
            return -1
        if self.ahead and self.last_kind >= 0:
            # did the sampler draw a uniform after the last proposal?
            c = self.uses_u[self.last_kind]
            if rng.s1 != self.after:
                self.uses_u[self.last_kind] = c + 1 if c < 3 else 3
            else:
                self.uses_u[self.last_kind] = c - 1 if c > 0 else 0
        # L_next: the tie count once this proposal is accepted (a drawn tie is
        # removed; a drawn dyad is almost always absent on a sparse network)
        if L > 0 and rng_uniform(rng) < 0.5:
            v = m.on_var(rng_below(rng, L))
            L_next = L - 1
            kind = 0
        else:
            v = m.random_var(rng)
            L_next = L + 1
            kind = 1
        if self.ahead and L > 1:
            self.after = rng.s1
            self.last_kind = kind
            self._look_ahead(m, rng, L_next, kind)
        tnt_lq_slot(self.lq_key, self.lq_del, self.lq_add, L, D)
        log_q_ratio[0] = self.lq_del[slot] if m.get(v) else self.lq_add[slot]
        return v

    cdef void _look_ahead(self, BinaryModel m, const RNG* rng, int64_t L, int kind) noexcept nogil:
        # Prefetch what the next two proposals will read, from a copy of the
        # generator (the stream is not touched: the same draws, the same chain).
        # A proposal takes two words (the coin, then the tie's index or the
        # dyad) and the sampler a third when it needs a uniform to decide, so
        # the next proposal starts 0 or 1 words on, the one after 2 to 4.
        # Which, is predicted per kind of proposal (uses_u, a 2-bit counter of
        # what the sampler did after the last ones): tie/no-tie near its
        # equilibrium accepts a removal without a uniform while the tie count
        # is above the equilibrium and an addition only with one, the other way
        # round below it, and the count stays on one side for long stretches.
        # A sure counter (0 or 3) names the one start; an unsure one gives both.
        # A drawn tie is prefetched in two stages (its tie-list entry two
        # proposals ahead, then its records and hash slot), a drawn dyad's
        # records and hash slot one proposal ahead (prefetches that stall when
        # too many misses are in flight: the look-ahead's prefetches in vain
        # (one of two, two of three starts) were most of them).
        # L is the tie count once the present proposal is accepted: a drawn
        # tie's index is u * L (a rejection leaves it one off: a neighbouring
        # tie-list entry, mostly in the same cache line).
        cdef RNG c = rng[0]
        cdef uint64_t w[6]
        cdef int t, s, t_lo, t_hi, s_lo, s_hi
        cdef unsigned char p
        cdef int64_t k, top = m.n_on() - 1
        for t in range(6):
            w[t] = rng_next(&c)
        p = self.uses_u[kind]
        t_lo = 1 if p == 3 else 0
        t_hi = 0 if p == 0 else 1
        for t in range(t_lo, t_hi + 1):
            if word_uniform(w[t]) < 0.5:
                k = <int64_t>(word_uniform(w[t + 1]) * L)
                m.prefetch_on(k if k < top else top, True)
                p = self.uses_u[0]
            else:
                m.prefetch_word(w[t + 1])
                p = self.uses_u[1]
            s_lo = t + 2 + (1 if p == 3 else 0)
            s_hi = t + 2 + (0 if p == 0 else 1)
            for s in range(s_lo, s_hi + 1):
                if (s > t_hi + 2 or t == t_lo) and word_uniform(w[s]) < 0.5:
                    k = <int64_t>(word_uniform(w[s + 1]) * L)
                    m.prefetch_on(k if k < top else top, False)


cdef inline int64_t uniform_off_var(BinaryModel m, RNG* rng) noexcept nogil:
    """A uniform variable that is off (a non-tie), by redrawing uniform variables; -1 after
    10^6 draws that were all on."""
    cdef int64_t v, tries = 0
    while True:
        v = rng_below(rng, m.n_vars)
        if not m.get(v):
            return v
        tries += 1
        if tries > 1000000:
            return -1


cdef class IFD(Proposal):
    """Improved Fixed Density proposal (Byshkin et al. 2016), as EstimNetDirected's
    ``ifdSampler``.

    Add and delete moves alternate: a delete (a uniformly chosen "on"
    variable, i.e. a present tie) is proposed until one is accepted, then an
    add (a uniformly chosen "off" variable, drawn by rejection) until one is
    accepted, and so on -- the flag flips only on acceptance, so the number
    of "on" variables never moves more than one away from where it started.
    The log acceptance ratio is θ·Δ + V for an add and −θ·Δ − V for a delete,
    with no Hastings term: the auxiliary parameter V takes the place of the
    density parameter, which the caller leaves at 0 in θ.

    After each batch of proposals (``end_batch``) V moves towards balancing
    the numbers of add and delete *proposals* of the batch:
    step = K ((Ndel − Nadd) / (Ndel + Nadd))², V −= step if Ndel > Nadd,
    V += step if Ndel < Nadd.  The density parameter is then recovered as
    θ_density = V − log((D − L) / (L + 1)) with D = ``n_vars`` and L the
    observed number of "on" variables (:func:`ifd_correction`).

    Needs only ``n_on``/``on_var``/``n_vars``/``get`` of the model, so it
    works for any BinaryModel whose "on" count is a model statistic.

    Parameters
    ----------
    V : float
        Starting auxiliary parameter.
    K : float
        Step multiplier (EstimNet's ``ifd_K``, 0.1).
    adapt : bool
        Update V after each batch (False keeps V fixed).
    start_delete : bool
        Whether the first proposal is a delete (EstimNet starts with an add).
    """

    def __init__(self, double V=0.0, double K=0.1, bint adapt=True, bint start_delete=False):
        self.V = V
        self.K = K
        self.adapt = adapt
        self.is_delete = start_delete
        self.n_add = self.n_del = self.last_add = self.last_del = 0
        self.n_unbalanced = 0

    cdef int64_t propose(self, BinaryModel m, RNG* rng, double* log_q_ratio) noexcept nogil:
        cdef int64_t L = m.n_on()
        log_q_ratio[0] = 0.0
        if m.n_vars <= 0:
            return -1
        if self.is_delete and L == 0:
            self.is_delete = 0
        elif not self.is_delete and L >= m.n_vars:
            self.is_delete = 1
        if self.is_delete:
            self.n_del += 1
            return m.on_var(rng_below(rng, L))
        self.n_add += 1
        return uniform_off_var(m, rng)

    cdef void accepted(self, BinaryModel m, int64_t v, bint now_on) noexcept nogil:
        self.is_delete = not self.is_delete

    cdef double aux_theta(self) noexcept nogil:
        return self.V

    cdef void end_batch(self) noexcept nogil:
        cdef double tot = <double>(self.n_del + self.n_add)
        cdef double r, step
        if tot > 0:
            r = (self.n_del - self.n_add) / tot
            if r > 0.8 or r < -0.8:
                self.n_unbalanced += 1
            if self.adapt:
                step = self.K * r * r
                if self.n_del > self.n_add:
                    self.V -= step
                elif self.n_del < self.n_add:
                    self.V += step
        self.last_add = self.n_add
        self.last_del = self.n_del
        self.n_add = 0
        self.n_del = 0


def ifd_correction(n_vars, n_on):
    """log((D − L) / (L + 1)): θ_density = V − this (D variables, L of them on)."""
    from math import log as _log
    D, L = float(n_vars), float(n_on)
    if L >= D:
        raise ValueError("the IFD proposal needs at least one variable off (a non-tie)")
    return _log((D - L) / (L + 1.0))


cdef class ReciprocalIFD(IFD):
    """The IFD proposal with a reciprocating component, for directed ERGMs.

    An add is, with probability ``p``, the reverse of a uniformly chosen
    asymmetric arc (a uniform arc, redrawn while its reverse exists), and
    otherwise a uniform non-arc as in :class:`IFD`; deletes, the alternation
    and V's adaptation are IFD's.  At a low density a uniform non-arc is almost
    never the reverse of an arc, so plain IFD cannot rebuild the mutual dyads
    its deletes break; this component can.

    The Hastings term keeps IFD's stationary distribution, exp(θ·g(x)) on the
    layers of L and L + 1 arcs with the layer L + 1 weighted by
    e^V (L + 1) / (D − L), so θ_density = V − log((D − L) / (L + 1)) as for IFD
    (``docs/guide/estimators/ee_algorithm.md``, "IFD's reciprocating component",
    derives it).  From x (L arcs, M mutual
    dyads, A = L − 2M asymmetric arcs, N₀ = D − L non-arcs) an add of y proposes
    it with probability q(x → x + y) = p / A + (1 − p) / N₀ if the reverse of y
    is an arc, (1 − p) / N₀ otherwise (p taken as 0 when A = 0); the log
    acceptance ratio is θ·Δ + V − log(N₀ q(x → x + y)) for the add and, for
    the delete of y from x + y, −θ·Δ − V + log(N₀ q(x → x + y)) with x the
    state after the delete.

    M is counted from the network state in ``start`` and then kept by the
    accepted toggles (a toggle not made by this proposal, seen as a change of
    the state's version, makes it count again).  ``p = 0`` is IFD's chain.

    Parameters
    ----------
    model : ERGMModel
        The compiled directed ERGM it proposes on.
    p : float
        Probability in [0, 1) that an add is a reciprocating one.
    V, K, adapt, start_delete
        As for :class:`IFD`.
    """
    cdef ERGMModel em
    cdef NetworkState st
    cdef readonly double p
    cdef readonly int64_t n_mutual       # M, valid at state version ``ver``
    cdef int64_t ver
    cdef double log_1mp
    cdef public long long n_recip        # reciprocating add proposals made

    def __init__(self, model, double p, double V=0.0, double K=0.1, bint adapt=True,
                 bint start_delete=False):
        IFD.__init__(self, V, K, adapt, start_delete)
        if not isinstance(model, ERGMModel) or not (<ERGMModel>model).state.directed:
            raise ValueError("the reciprocating IFD proposal needs a compiled directed ERGM")
        if not 0.0 <= p < 1.0:
            raise ValueError(f"the reciprocation probability must be in [0, 1), got {p}")
        self.em = <ERGMModel>model
        self.st = self.em.state
        self.p = p
        self.log_1mp = log(1.0 - p)
        self.n_recip = 0
        self._count()

    cdef void _count(self) noexcept nogil:
        cdef int64_t k, twice = 0
        for k in range(self.st.n_ties):
            if self.st.has_tie(self.st.ends[2 * k + 1], self.st.ends[2 * k]):
                twice += 1
        self.n_mutual = twice // 2
        self.ver = self.st.version

    cdef void start(self, BinaryModel m) noexcept nogil:
        self._count()

    cdef double _log_nq(self, int64_t N0, int64_t A, bint recip) noexcept nogil:
        # log(N0 q(x -> x + y)) in the state x without y
        if A <= 0:
            return 0.0
        if recip:
            return log((1.0 - self.p) + self.p * (<double>N0) / (<double>A))
        return self.log_1mp

    cdef int64_t propose(self, BinaryModel m, RNG* rng, double* log_q_ratio) noexcept nogil:
        cdef int64_t L = self.st.n_ties, D = m.n_vars
        cdef int64_t v, k, A, tries
        cdef int i, j
        log_q_ratio[0] = 0.0
        if D <= 0:
            return -1
        if self.st.version != self.ver:
            self._count()
        if self.is_delete and L == 0:
            self.is_delete = 0
        elif not self.is_delete and L >= D:
            self.is_delete = 1
        A = L - 2 * self.n_mutual
        if self.is_delete:
            self.n_del += 1
            k = rng_below(rng, L)
            i = self.st.ends[2 * k]
            j = self.st.ends[2 * k + 1]
            v = m.on_var(k)
            # the state x after the delete: L - 1 arcs; its A
            if self.st.has_tie(j, i):
                log_q_ratio[0] = self._log_nq(D - L + 1, A + 1, True)
            else:
                log_q_ratio[0] = self._log_nq(D - L + 1, A - 1, False)
            return v
        self.n_add += 1
        if A > 0 and self.p > 0.0 and rng_uniform(rng) < self.p:
            self.n_recip += 1
            tries = 0
            while True:
                k = rng_below(rng, L)
                i = self.st.ends[2 * k]
                j = self.st.ends[2 * k + 1]
                if not self.st.has_tie(j, i):
                    break
                tries += 1
                if tries > 1000000:
                    return -1
            log_q_ratio[0] = -self._log_nq(D - L, A, True)
            return self.em.proposed_var(j, i)
        v = uniform_off_var(m, rng)
        if v < 0:
            return -1
        if A > 0:
            self.em.dyad(v, &i, &j)
            log_q_ratio[0] = -self._log_nq(D - L, A, self.st.has_tie(j, i))
        return v

    cdef void accepted(self, BinaryModel m, int64_t v, bint now_on) noexcept nogil:
        cdef int i, j
        self.is_delete = not self.is_delete
        if self.st.version != self.ver + 1:
            return          # scored, not applied (Algorithm S), or the state moved otherwise
        self.em.dyad(v, &i, &j)
        if self.st.has_tie(j, i):
            self.n_mutual += 1 if now_on else -1
        self.ver = self.st.version


# tie / no-tie proposals with a triadic-closure component (TriadicTNT, LiftedTriadicTNT)
include "_triadic.pxi"


# proposals for count-valued models (CountRandom, CountTNT, CountZeroInflated, CountGibbs,
# CountStrength, CountRowResample)
include "_countproposals.pxi"
