# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Tie / no-tie proposals with a triadic-closure component, for ERGMs.

Models with triangle-type terms (gwesp, triangle, AltKTriangles...) mix
slowly under plain TNT on sparse networks: a uniformly drawn dyad almost
never closes a two-path.  This proposal mixes three moves:

* with probability 1/2: turn off a uniformly chosen present tie;
* with probability (1 - alpha)/2: toggle a uniformly chosen dyad;
* with probability alpha/2: pick a present tie i->j uniformly, then a
  uniform out-neighbour k != i of j (any neighbour, undirected), and toggle
  the dyad (i, k) -- it closes (or opens) the two-path i->j->k.

The Hastings ratio is exact: the triadic probability of a dyad (a, b) is
S(a, b) / L with S(a, b) = sum over two-path middles w (a->w->b; undirected:
common neighbours, both orientations) of 1 / (out-degree of w minus the
tie back to the start).  Toggling (a, b) changes neither S nor those
degrees, only L, so the ratio costs one O(degree) sum.  This is statnet's
idea of a ``.triadic`` proposal component, written from its description.
"""
from libc.math cimport log
from libc.stdint cimport int64_t
from ergmfit.core._model cimport BinaryModel
from ergmfit.core._random cimport RNG, rng_below, rng_uniform
from ergmfit.network._state cimport NetworkState, CACHE_SP, CACHE_OTP, in_list
# Proposal: declared in _proposals.pxd (this file is included by _proposals.pyx)
from ergmfit.terms._ergm cimport ERGMModel


cdef double _triadic_sum(NetworkState s, int a, int b) noexcept nogil:
    """S(a, b): sum over middles w of 1 / (number of choices of k at w)."""
    cdef int x, w, d
    cdef double tot = 0.0
    # no two-path under (a, b): one held count instead of a neighbour scan
    # (most dyads of a sparse graph; held for gwesp-type terms on dense storage
    # above the state's cache_degree, and always on hash storage)
    if s.directed:
        if (s.cached & CACHE_OTP) and s.n_otp(a, b) == 0:
            return 0.0
    elif (s.cached & CACHE_SP) and s.n_sp(a, b) == 0:
        return 0.0
    if s.directed:
        # a -> w -> b ; at w, k is drawn from out(w) minus a (if w -> a)
        if s.out_deg[a] <= s.in_deg[b]:
            for x in range(s.out_deg[a]):
                w = s.out_nb[a][x]
                if w != b and s.has_tie(w, b):
                    d = s.out_deg[w] - (1 if s.has_tie(w, a) else 0)
                    tot += 1.0 / d
        else:
            for x in range(s.in_deg[b]):
                w = s.in_nb[b][x]
                if w != a and s.has_tie(a, w):
                    d = s.out_deg[w] - (1 if s.has_tie(w, a) else 0)
                    tot += 1.0 / d
        return tot
    # undirected: both orientations (a, w, b) and (b, w, a), each with prob 1/2;
    # the shorter neighbour list is scanned, each entry looked up in the other list
    # (hash storage, short lists: no hash probe) or by has_tie (the same w, in the
    # same order: the same sum)
    if s.out_deg[a] > s.out_deg[b]:
        x = a; a = b; b = x
    d = s.out_deg[b]
    if s.scan_cheaper(s.out_deg[a], d):
        for x in range(s.out_deg[a]):
            w = s.out_nb[a][x]
            if in_list(s.out_nb[b], d, w):
                tot += 1.0 / (s.out_deg[w] - 1)
        return tot
    for x in range(s.out_deg[a]):
        w = s.out_nb[a][x]
        if w != b and s.has_tie(w, b):
            tot += 1.0 / (s.out_deg[w] - 1)
    return tot


cdef bint _triadic_pick(NetworkState s, RNG* rng, int* pi, int* pj) noexcept nogil:
    """A dyad (i, k) closing a random two-path i -> j -> k: a uniform tie i -> j
    (a random orientation when undirected), then a uniform out-neighbour k != i
    of j.  False when j has no such neighbour (no move).  Needs a tie."""
    cdef int64_t e = rng_below(rng, s.n_ties)
    cdef int i = s.ends[2 * e], j = s.ends[2 * e + 1], k, t
    if not s.directed and rng_uniform(rng) < 0.5:
        t = i; i = j; j = t
    if s.out_deg[j] - (1 if s.has_tie(j, i) else 0) <= 0:
        return False
    while True:
        k = s.out_nb[j][rng_below(rng, s.out_deg[j])]
        if k != i:
            break
    pi[0] = i
    pj[0] = k
    return True


cdef class TriadicTNT(Proposal):
    """TNT plus triadic closure (see the module docstring).

    Parameters
    ----------
    alpha : float
        Share of the "no tie" half given to triadic moves (default 0.5).
    """
    cdef public double alpha

    def __init__(self, double alpha=0.5):
        if not 0.0 <= alpha <= 1.0:
            raise ValueError("alpha must lie in [0, 1]")
        self.alpha = alpha

    cdef double _q(self, NetworkState s, bint present, int64_t L, double D, double S) noexcept nogil:
        # probability of proposing this dyad in a state with L ties
        if L == 0:
            return 1.0 / D
        return (0.5 / L if present else 0.0) + 0.5 * (1.0 - self.alpha) / D \
            + 0.5 * self.alpha * S / L

    cdef int64_t propose(self, BinaryModel m, RNG* rng, double* log_q_ratio) noexcept nogil:
        return self._propose(<ERGMModel>m, (<ERGMModel>m).state, rng, log_q_ratio)

    cdef int64_t _propose(self, ERGMModel m, NetworkState s, RNG* rng,
                          double* log_q_ratio) noexcept nogil:
        cdef int64_t L = s.n_ties
        cdef double D = <double>m.n_vars
        cdef double u, S, q_fwd, q_rev
        cdef int64_t e, v
        cdef int i, j, t
        cdef bint present
        log_q_ratio[0] = 0.0
        if m.n_vars <= 0:
            return -1
        u = rng_uniform(rng)
        if L > 0 and u < 0.5:
            e = rng_below(rng, L)
            i = s.ends[2 * e]; j = s.ends[2 * e + 1]
        elif L > 0 and u < 0.5 + 0.5 * self.alpha:
            if not _triadic_pick(s, rng, &i, &j):
                return -1           # no two-path to close: no move (a valid MH step)
        else:
            v = m.random_var(rng)
            m.dyad(v, &i, &j)
        if not s.directed and i > j:
            t = i; i = j; j = t
        present = s.has_tie(i, j)
        S = _triadic_sum(s, i, j) if self.alpha > 0 else 0.0
        q_fwd = self._q(s, present, L, D, S)
        q_rev = self._q(s, not present, L - 1 if present else L + 1, D, S)
        log_q_ratio[0] = log(q_rev / q_fwd)
        return m.proposed_var(i, j)


cdef class LiftedTriadicTNT(TriadicTNT):
    """A *lifted* (non-reversible) version of :class:`TriadicTNT`.

    The proposal carries a direction.  Going "up" it proposes to add a tie
    -- a uniform dyad with probability 1 - alpha, else a dyad closing a
    random two-path as in :class:`TriadicTNT` -- and going "down" it removes
    a uniformly chosen tie.  The direction is kept while proposals are
    accepted and reversed after a rejection (or a proposal that would not
    change the state: an "add" that hits a present tie, a "remove" on the
    empty graph).  With the acceptance ratio
    π(y) q_down(y→x) / (π(x) q_up(x→y)) this leaves π invariant (the
    "guided walk" construction: skew-detailed balance on the lifted space),
    and the tie count moves in runs instead of by a diffusive ±1 walk.

    Parameters
    ----------
    alpha : float
        Share of triadic moves among the "add" proposals (default 0.3;
        0 gives a lifted tie/no-tie proposal).  Below 1: with only triadic
        adds, a tie without a two-path under it could never come back.
    """
    cdef public int direction       # +1 add, -1 remove
    cdef bint last_accepted
    # log q-ratios of dyads with no two-path under them (S = 0) depend on L
    # only: a direct-mapped table keyed by L spares most logs (L moves by +-1)
    cdef int64_t lq_key[64]
    cdef double lq_add0[64]
    cdef double lq_del0[64]

    def __init__(self, double alpha=0.3):
        if not 0.0 <= alpha < 1.0:
            raise ValueError("alpha must lie in [0, 1)")
        self.alpha = alpha
        self.direction = 1
        self.last_accepted = 1
        cdef int k
        for k in range(64):
            self.lq_key[k] = -1

    cdef inline double _q_up(self, int64_t L, double D, double S) noexcept nogil:
        # probability that an "add" proposal in a state with L ties picks this dyad
        if L == 0:
            return 1.0 / D
        return (1.0 - self.alpha) / D + self.alpha * S / L

    cdef void accepted(self, BinaryModel m, int64_t v, bint now_on) noexcept nogil:
        self.last_accepted = 1

    cdef inline int _slot(self, int64_t L, double D) noexcept nogil:
        cdef int slot = <int>(L & 63)
        if self.lq_key[slot] != L:
            self.lq_add0[slot] = -log(self._q_up(L, D, 0.0) * (L + 1))
            self.lq_del0[slot] = log(self._q_up(L - 1, D, 0.0) * L) if L > 0 else 0.0
            self.lq_key[slot] = L
        return slot

    cdef int64_t _propose(self, ERGMModel m, NetworkState s, RNG* rng,
                          double* log_q_ratio) noexcept nogil:
        # (TriadicTNT.propose dispatches here)
        cdef int64_t L = s.n_ties
        cdef double D = <double>m.n_vars
        cdef double S
        cdef int64_t e, v
        cdef int i, j, t
        log_q_ratio[0] = 0.0
        if not self.last_accepted:
            self.direction = -self.direction
        self.last_accepted = 0
        if m.n_vars <= 0:
            return -1
        if self.direction < 0:
            if L == 0:
                return -1
            e = rng_below(rng, L)
            i = s.ends[2 * e]; j = s.ends[2 * e + 1]
            if not s.directed and i > j:
                t = i; i = j; j = t
            S = _triadic_sum(s, i, j) if self.alpha > 0 else 0.0
            if S == 0.0:
                log_q_ratio[0] = self.lq_del0[self._slot(L, D)]
            else:
                log_q_ratio[0] = log(self._q_up(L - 1, D, S) * L)
            return m.on_var(e)
        if L > 0 and rng_uniform(rng) < self.alpha:
            if not _triadic_pick(s, rng, &i, &j):
                return -1
        else:
            v = m.random_var(rng)
            m.dyad(v, &i, &j)
        if not s.directed and i > j:
            t = i; i = j; j = t
        if s.has_tie(i, j):
            return -1
        S = _triadic_sum(s, i, j) if self.alpha > 0 else 0.0
        if S == 0.0:
            log_q_ratio[0] = self.lq_add0[self._slot(L, D)]
        else:
            log_q_ratio[0] = -log(self._q_up(L, D, S) * (L + 1))
        return m.proposed_var(i, j)
