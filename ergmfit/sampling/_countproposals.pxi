# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Proposals for count-valued models (the compiled table of the count family).

Both pick a dyad and then jump its value, as ergm.count's proposals do:

* the value jump, given the current value y and the reference's support:
  on an unbounded support (Poisson, Geometric) y' ~ Poisson(y + 1/2)
  conditioned on y' != y (ergm.count's "random" proposal for the Poisson
  reference; from y = 400 on a step of +-1 instead, the Poisson draw by
  inversion costing O(y)); on a bounded support lo..hi (Binomial(trials), DiscUnif(a, b))
  y' uniform on the support without y (symmetric);
* ``CountRandom`` ("random"): a uniformly drawn dyad, then the jump;
* ``CountTNT`` ("tnt"): with probability 1/2 a uniformly drawn nonzero dyad
  (when there is one), else a uniformly drawn dyad, then the jump -- the
  tie/no-tie idea for sparse (zero-inflated) counts;
* ``CountZeroInflated`` ("0inflated", ergm.count's proposal of that name): a
  uniformly drawn dyad; from a nonzero value, with probability p0 a jump to 0,
  else the jump -- for counts with more zeros than the reference gives.  p0
  defaults to the surplus of zeros of the network the sampler starts from
  relative to a Poisson law of its mean value, max(0, f0 - exp(-mean)), at
  most 0.9 (ergm.count's default rule as its help words it);
* ``CountGibbs`` ("gibbs"): a uniformly drawn dyad, then a value drawn from its full
  conditional given the rest of the network at the sampler's parameter (a heat-bath
  step; the Hastings log-ratio cancels the model's, so every move is accepted).  On an
  unbounded support the conditional is summed from the support's lower end until the
  log weights fall 40 below their maximum and keep falling (a rule that depends on
  the rest of the network only, so the step stays reversible), at most GIBBS_MAX_VALUES
  values; a dyad whose current value is past that end is not moved.  Contrastive
  divergence draws with it: its estimating equation on a dyad-independent model is
  then the likelihood's (the pseudo-likelihood's in general), whatever the reference.
* ``CountStrength`` ("strength") and ``CountRowResample`` ("row"): tie/no-tie mixed with
  moves of a whole group of dyads (a node's row or column): +1 or -1 on several of its
  dyads at once, or the group redrawn from its tilted full conditionals (the sampler
  scores such a move all-or-none: ``MULTI_MOVE``; while it keeps a journal of its moves,
  in contrastive divergence and Bayes' exchange chains, such a move is no move).

The Hastings log-ratio of each is exact: the jump's reverse over forward
probability, times (for "tnt") the dyad's probability of being drawn after
the move over before it (which depends on the number of nonzero dyads).
The reference measure's own ratio h(y')/h(y) is added by the sampler.
"""
from libc.math cimport log, exp, lgamma, INFINITY
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, realloc, free
from ergmfit.core._model cimport ReferenceMeasure
from ergmfit.core._random cimport rng_below, rng_uniform


cdef inline double _log_pois(int64_t k, double mu) noexcept nogil:
    return k * log(mu) - mu - lgamma(k + 1.0)


cdef enum:
    # from this value on, an unbounded support's jump is a step of +-1 (probability 1/2
    # each): a Poisson(y + 1/2) draw by inversion costs O(y) and exp(-y) underflows
    STEP_FROM = 400
    # the most values of an unbounded support a Gibbs step weighs
    GIBBS_MAX_VALUES = 4096
    # a Gibbs step over an unbounded support stops once the log weights have fallen
    # this far below their maximum and keep falling (e^-40 of the mass is left out)
    GIBBS_LOG_DROP = 40


cdef inline int64_t _draw_pois(RNG* rng, double mu) noexcept nogil:
    # inversion (sequential search; mu < STEP_FROM + 1)
    cdef double u = rng_uniform(rng)
    cdef double p = exp(-mu)
    cdef double c = p
    cdef int64_t k = 0
    while u >= c and p > 0.0:
        k += 1
        p *= mu / k
        c += p
    return k


cdef inline double _log_jump(ReferenceMeasure ref, int64_t a, int64_t b) noexcept nogil:
    # log of the probability that the value jump moves a to b (b != a; -inf: never)
    cdef double mu
    if ref.unbounded:
        if a >= STEP_FROM:
            return log(0.5) if b == a + 1 or b == a - 1 else -INFINITY
        mu = a + 0.5
        return _log_pois(b, mu) - log(1.0 - exp(_log_pois(a, mu)))
    return -log(<double>(ref.hi - ref.lo))


cdef inline int64_t _jump(ReferenceMeasure ref, RNG* rng, int64_t y) noexcept nogil:
    # a value != y in the support (-1: none, a one-point support)
    cdef int64_t z, tries = 0
    if ref.unbounded:
        if y >= STEP_FROM:
            return y + 1 if rng_uniform(rng) < 0.5 else y - 1
        while True:
            z = _draw_pois(rng, y + 0.5)
            if z != y:
                return z
            tries += 1
            if tries > 1000000:
                return -1
    if ref.hi <= ref.lo:
        return -1
    z = ref.lo + rng_below(rng, ref.hi - ref.lo)
    return z + 1 if z >= y else z


cdef inline double _lq_jump(ReferenceMeasure ref, int64_t y, int64_t z) noexcept nogil:
    # log q(z -> y) - log q(y -> z) of the value jump
    if not ref.unbounded:
        return 0.0
    return _log_jump(ref, z, y) - _log_jump(ref, y, z)


cdef inline bint _jump_value(CountModel m, RNG* rng, int64_t v, int64_t* y, int64_t* y_new,
                             double* log_q_ratio) noexcept nogil:
    # the value jump of the drawn variable v: its value into y, the proposed one into
    # y_new, the jump's Hastings log-ratio into log_q_ratio; False: no move
    y[0] = m.get(v)
    y_new[0] = _jump(m.reference, rng, y[0])
    if y_new[0] < 0:
        return False
    log_q_ratio[0] = _lq_jump(m.reference, y[0], y_new[0])
    return True


cdef class CountProposal(ProposalBase):
    cdef void use_theta(self, const double* theta) noexcept nogil:
        pass

    cdef void start(self, CountModel m) noexcept nogil:
        pass

    cdef int64_t propose(self, CountModel m, RNG* rng, int64_t* y_new,
                         double* log_q_ratio) noexcept nogil:
        log_q_ratio[0] = 0.0
        return -1

    cdef void accepted(self, CountModel m, int64_t v, int64_t y_new) noexcept nogil:
        pass


cdef class CountRandom(CountProposal):
    """A uniformly drawn dyad and a jump of its value (see the module docstring)."""

    cdef int64_t propose(self, CountModel m, RNG* rng, int64_t* y_new,
                         double* log_q_ratio) noexcept nogil:
        cdef int64_t v, y
        log_q_ratio[0] = 0.0
        if m.free_count() <= 0:
            return -1
        v = m.random_var(rng)
        return v if _jump_value(m, rng, v, &y, y_new, log_q_ratio) else -1


cdef class CountTNT(CountProposal):
    """With probability 1/2 a uniformly drawn nonzero dyad, else a uniformly
    drawn dyad; then a jump of its value (see the module docstring)."""

    cdef int64_t propose(self, CountModel m, RNG* rng, int64_t* y_new,
                         double* log_q_ratio) noexcept nogil:
        cdef int64_t v, y, z, L = m.n_on(), L2
        cdef double D = <double>m.free_count(), fwd, bwd
        log_q_ratio[0] = 0.0
        if m.free_count() <= 0:
            return -1
        if L > 0 and rng_uniform(rng) < 0.5:
            v = m.on_var(rng_below(rng, L))
        else:
            v = m.random_var(rng)
        if not _jump_value(m, rng, v, &y, &z, log_q_ratio):
            return -1
        y_new[0] = z
        # times the dyad's probability of being drawn after the move over before it
        fwd = (0.5 / L + 0.5 / D if y != 0 else 0.5 / D) if L > 0 else 1.0 / D
        L2 = L + (z != 0) - (y != 0)
        bwd = (0.5 / L2 + 0.5 / D if z != 0 else 0.5 / D) if L2 > 0 else 1.0 / D
        log_q_ratio[0] += log(bwd / fwd)
        return v


cdef class CountZeroInflated(CountProposal):
    """A uniformly drawn dyad; from a nonzero value, with probability ``p0`` a jump to 0,
    else the value jump (see the module docstring).  ``CountZeroInflated(p0=None)``: None
    takes the surplus of zeros of the starting network."""

    def __cinit__(self, p0=None):
        self.p0_given = p0 is not None
        self.p0 = 0.0 if p0 is None else float(p0)
        if self.p0_given and not 0.0 <= self.p0 < 1.0:
            raise ValueError(f"p0 must be in [0, 1), got {p0!r}")

    cdef void start(self, CountModel m) noexcept nogil:
        cdef double f0, mean
        if self.p0_given or m.free_count() <= 0:
            return
        f0 = 1.0 - <double>m.n_on() / <double>m.free_count()
        mean = <double>m.total() / <double>m.free_count()
        self.p0 = f0 - exp(-mean)
        if self.p0 < 0.0:
            self.p0 = 0.0
        if self.p0 > 0.9:
            self.p0 = 0.9

    cdef double _log_q(self, ReferenceMeasure ref, int64_t a, int64_t b) noexcept nogil:
        # log q(a -> b), b != a, of the mixture
        cdef double p = self.p0 if (a != 0 and ref.lo == 0) else 0.0
        cdef double j = exp(_log_jump(ref, a, b))
        if b == 0:
            return log(p + (1.0 - p) * j)
        return log((1.0 - p) * j)

    cdef int64_t propose(self, CountModel m, RNG* rng, int64_t* y_new,
                         double* log_q_ratio) noexcept nogil:
        cdef int64_t v, y, z
        log_q_ratio[0] = 0.0
        if m.free_count() <= 0:
            return -1
        v = m.random_var(rng)
        y = m.get(v)
        if y != 0 and m.reference.lo == 0 and rng_uniform(rng) < self.p0:
            z = 0
        else:
            z = _jump(m.reference, rng, y)
            if z < 0:
                return -1
        y_new[0] = z
        log_q_ratio[0] = self._log_q(m.reference, z, y) - self._log_q(m.reference, y, z)
        return v


cdef class CountGibbs(CountProposal):
    """A uniformly drawn dyad and a value drawn from its full conditional given the rest
    of the network at the sampler's parameter (see the module docstring).

    Examples
    --------
    >>> from ergmfit.sampling._proposals import CountGibbs
    >>> type(CountGibbs()).__name__
    'CountGibbs'
    """

    def __cinit__(self):
        self.theta = NULL
        self.change_buf = NULL
        self.log_w = NULL
        self.n_stats = 0
        self.capacity = 0

    def __dealloc__(self):
        free(self.change_buf)
        free(self.log_w)

    cdef void use_theta(self, const double* theta) noexcept nogil:
        self.theta = theta

    cdef void start(self, CountModel m) noexcept nogil:
        free(self.change_buf)
        self.n_stats = m.n_stats
        self.change_buf = <double*>malloc(max(1, m.n_stats) * sizeof(double))

    cdef bint _reserve(self, int64_t n) noexcept nogil:
        # room for n log weights; False: out of memory
        cdef int64_t cap = self.capacity
        cdef double* grown
        if n <= cap:
            return True
        cap = max(n, 2 * cap, 16)
        grown = <double*>realloc(self.log_w, cap * sizeof(double))
        if grown == NULL:
            return False
        self.log_w = grown
        self.capacity = cap
        return True

    cdef int64_t propose(self, CountModel m, RNG* rng, int64_t* y_new,
                         double* log_q_ratio) noexcept nogil:
        cdef int64_t v, y, z, k, n_values, lo = m.reference.lo
        cdef int64_t j
        cdef double lw, top = -INFINITY, total, u
        cdef bint unbounded = m.reference.unbounded
        log_q_ratio[0] = 0.0
        if m.free_count() <= 0 or self.theta == NULL or self.change_buf == NULL:
            return -1
        v = m.random_var(rng)
        y = m.get(v)
        # log weights log p(z | rest) - log p(y | rest) over the support
        n_values = m.reference.hi - lo + 1 if not unbounded else GIBBS_MAX_VALUES
        k = 0
        while k < n_values:
            z = lo + k
            if not self._reserve(k + 1):
                return -1
            lw = 0.0
            if z != y:
                m.change(v, z, self.change_buf)
                for j in range(self.n_stats):
                    lw += self.theta[j] * self.change_buf[j]
                lw += m.reference.log_ratio(y, z)
            self.log_w[k] = lw
            if lw > top:
                top = lw
            k += 1
            if (unbounded and k > 1 and lw < top - GIBBS_LOG_DROP
                    and lw < self.log_w[k - 2]):
                break
        n_values = k
        if y - lo >= n_values or top == INFINITY or top != top:
            return -1
        total = 0.0
        for k in range(n_values):
            total += exp(self.log_w[k] - top)
        u = rng_uniform(rng) * total
        k = 0
        while k < n_values - 1:
            u -= exp(self.log_w[k] - top)
            if u < 0.0:
                break
            k += 1
        z = lo + k
        if z == y:
            return -1
        y_new[0] = z
        # q(y -> z) = p(z | rest), q(z -> y) = p(y | rest): cancels the model's ratio
        log_q_ratio[0] = -self.log_w[k]
        return v


cdef inline double _log_choose(int64_t c, int64_t k) noexcept nogil:
    # log C(c, k) without the log k! both directions share
    return lgamma(c + 1.0) - lgamma(c - k + 1.0)


cdef class CountStrength(CountProposal):
    """``CountStrength(share=0.1, size=4, base=None)``: a node-strength move mixed with
    ``base`` (default :class:`CountTNT`).  With probability ``share`` a group of the
    model's variables (a count ERGM's: a node's out-row or in-column; undirected, a
    node's dyads) drawn uniformly, a direction d = +1 or -1 (1/2 each), and ``size``
    distinct dyads of the group drawn uniformly among those whose value can move by d
    (below the support's top for +1, above its bottom for -1); each moves by d, all
    together or none.  Otherwise ``base``'s move.

    The slow direction of a near-critical ``nodeicovar``/``nodeocovar`` model is a
    node's whole strength (docs/valued_terms.md, "the issue-554 model"): one-dyad moves
    shift it by one value at a time; a group move shifts ``size`` values at once.

    Hastings: the reverse of the move (+d on S from y) is (-d on S from y'), drawn from
    the same group and with the same size, so q(y' -> y) / q(y -> y') = C(c, k) /
    C(c', k), c the candidates for d in y, c' those for -d in y' (those for -d in y plus
    the dyads of S that were at the bound -d could not pass).  Both parts of the mixture
    are reversible, and ``share`` does not depend on the state, so the mixture is too.
    A model without groups gets ``base``'s moves only; a group with fewer than ``size``
    candidates is no move.  By name: ``proposal="strength"`` (the defaults).  On the
    issue-554 model it mixed no faster per CPU second than tie/no-tie
    (docs/valued_terms.md, "node-level bistability").

    Examples
    --------
    >>> from ergmfit.sampling._proposals import CountStrength
    >>> p = CountStrength(share=0.3, size=8)
    >>> (p.share, p.size, type(p.base).__name__)
    (0.3, 8, 'CountTNT')
    """

    def __cinit__(self, double share=0.1, int size=4, CountProposal base=None):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"share must be in [0, 1], got {share!r}")
        if size < 1:
            raise ValueError(f"size must be >= 1, got {size!r}")
        self.share = share
        self.size = size
        self.base = CountTNT() if base is None else base
        self.move_vars = <int64_t*>malloc(size * sizeof(int64_t))
        self.move_vals = <int64_t*>malloc(size * sizeof(int64_t))
        self.move_olds = <int64_t*>malloc(size * sizeof(int64_t))
        if self.move_vars == NULL or self.move_vals == NULL or self.move_olds == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.move_vars)
        free(self.move_vals)
        free(self.move_olds)
        free(self.group)
        free(self.values)
        free(self.cand)

    cdef void use_theta(self, const double* theta) noexcept nogil:
        self.base.use_theta(theta)

    cdef void end_batch(self) noexcept nogil:
        self.base.end_batch()

    cdef void start(self, CountModel m) noexcept nogil:
        cdef int64_t cap = m.max_group_size()
        self.base.start(m)
        if cap > self.group_cap:
            free(self.group)
            free(self.values)
            free(self.cand)
            self.group = <int64_t*>malloc(cap * sizeof(int64_t))
            self.values = <int64_t*>malloc(cap * sizeof(int64_t))
            self.cand = <int64_t*>malloc(cap * sizeof(int64_t))
            self.group_cap = cap
            if self.group == NULL or self.values == NULL or self.cand == NULL:
                self.group_cap = 0

    cdef void accepted(self, CountModel m, int64_t v, int64_t y_new) noexcept nogil:
        self.base.accepted(m, v, y_new)

    cdef int64_t propose(self, CountModel m, RNG* rng, int64_t* y_new,
                         double* log_q_ratio) noexcept nogil:
        cdef int64_t G = m.n_groups(), g, s, r, t, u, c = 0, a = 0, b = 0, k = self.size
        cdef int64_t y, back, lo = m.reference.lo, hi = m.reference.hi, d
        cdef bint unbounded = m.reference.unbounded, up, down
        if G <= 0 or self.group_cap <= 0 or rng_uniform(rng) >= self.share:
            return self.base.propose(m, rng, y_new, log_q_ratio)
        log_q_ratio[0] = 0.0
        g = rng_below(rng, G)
        d = 1 if rng_uniform(rng) < 0.5 else -1
        s = m.group_vars(g, self.group, self.values)
        for r in range(s):
            y = self.values[r]
            up = unbounded or y < hi
            down = y > lo
            a += up
            b += down
            if (up if d > 0 else down):
                self.cand[c] = r
                c += 1
        if c < k:
            return -1
        # ``back``: the candidates of the reverse move (-d) after this one
        back = b if d > 0 else a
        for t in range(k):
            u = t + rng_below(rng, c - t)
            r = self.cand[u]
            self.cand[u] = self.cand[t]
            self.cand[t] = r
            y = self.values[r]
            if d > 0 and y == lo:
                back += 1
            elif d < 0 and not unbounded and y == hi:
                back += 1
            self.move_vars[t] = self.group[r]
            self.move_vals[t] = y + d
        self.n_moves = k
        log_q_ratio[0] = _log_choose(c, k) - _log_choose(back, k)
        return MULTI_MOVE


cdef class CountRowResample(CountProposal):
    """``CountRowResample(share=0.001, tilt=3.0, base=None)``: a whole group resampled,
    mixed with ``base`` (default :class:`CountTNT`).  With probability ``share`` a group
    of the model's variables (a node's out-row or in-column; undirected, its dyads) drawn
    uniformly and a tilt λ uniform on [-tilt, tilt]; every dyad of the group gets a new
    value drawn, independently, from its full conditional given the present network at
    the sampler's parameter, tilted by e^(λ z); the moves are scored together (all or
    none).  Bounded references only (an unbounded one gets ``base``'s moves).

    A node whose strength is bistable under ``nodeocovar``/``nodeicovar`` (a low state
    near the data and a saturated one: docs/valued_terms.md, "node-level bistability")
    crosses between its states in one move, when λ matches the field between them,
    instead of diffusing across the barrier one value at a time.

    Hastings: the reverse move draws the old values from the conditionals at the new
    network tilted by -λ (λ's law is symmetric), so q(y' -> y) / q(y -> y') is the
    product over the group of p'(y_r) / p(y'_r), both computed exactly.  By name:
    ``proposal="row"`` (the defaults).  On the issue-554 model it crossed between the
    states less often per CPU second than tie/no-tie (docs/valued_terms.md, "node-level
    bistability").

    Examples
    --------
    >>> from ergmfit.sampling._proposals import CountRowResample
    >>> p = CountRowResample(share=0.01, tilt=2.0)
    >>> (p.share, p.tilt, type(p.base).__name__)
    (0.01, 2.0, 'CountTNT')
    """

    def __cinit__(self, double share=0.001, double tilt=3.0, CountProposal base=None):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"share must be in [0, 1], got {share!r}")
        if not tilt >= 0.0:
            raise ValueError(f"tilt must be >= 0, got {tilt!r}")
        self.share = share
        self.tilt = tilt
        self.base = CountTNT() if base is None else base

    def __dealloc__(self):
        free(self.move_vars)
        free(self.move_vals)
        free(self.move_olds)
        free(self.group)
        free(self.values)
        free(self.drawn)
        free(self.change_buf)

    cdef void use_theta(self, const double* theta) noexcept nogil:
        self.theta = theta
        self.base.use_theta(theta)

    cdef void end_batch(self) noexcept nogil:
        self.base.end_batch()

    cdef void accepted(self, CountModel m, int64_t v, int64_t y_new) noexcept nogil:
        self.base.accepted(m, v, y_new)

    cdef void start(self, CountModel m) noexcept nogil:
        cdef int64_t cap = m.max_group_size(), nv
        self.base.start(m)
        free(self.change_buf)
        self.change_buf = NULL
        self.n_stats = m.n_stats
        self.group_cap = 0
        if m.reference.unbounded or cap <= 0:
            return
        nv = m.reference.hi - m.reference.lo + 1
        free(self.group); free(self.values); free(self.drawn)
        free(self.move_vars); free(self.move_vals); free(self.move_olds)
        self.group = <int64_t*>malloc(cap * sizeof(int64_t))
        self.values = <int64_t*>malloc(cap * sizeof(int64_t))
        self.drawn = <int64_t*>malloc(cap * sizeof(int64_t))
        self.move_vars = <int64_t*>malloc(cap * sizeof(int64_t))
        self.move_vals = <int64_t*>malloc(cap * sizeof(int64_t))
        self.move_olds = <int64_t*>malloc(cap * sizeof(int64_t))
        self.change_buf = <double*>malloc(max(1, nv * m.n_stats) * sizeof(double))
        if (self.group != NULL and self.values != NULL and self.drawn != NULL
                and self.move_vars != NULL and self.move_vals != NULL
                and self.move_olds != NULL and self.change_buf != NULL):
            self.group_cap = cap

    cdef double _log_cond(self, CountModel m, int64_t v, int64_t y, int64_t z, double lam,
                          RNG* rng, int64_t* draw) noexcept nogil:
        # the tilted full conditional of v (now at y) over the support: log p(z), or,
        # when ``draw`` is not NULL, a value drawn into draw[0] and log p of it
        cdef int64_t lo = m.reference.lo, nv = m.reference.hi - lo + 1, k, j
        cdef double lw, top = -INFINITY, total = 0.0, u, lz = 0.0
        cdef double* w = self.change_buf
        m.change_support(v, lo, nv, w)
        for k in range(nv):
            lw = 0.0
            if lo + k != y:
                for j in range(self.n_stats):
                    lw += self.theta[j] * w[k * self.n_stats + j]
            lw += m.reference.log_ratio(y, lo + k) + lam * (lo + k)
            w[k * self.n_stats] = lw          # the row's first entry keeps the weight
            if lw > top:
                top = lw
        for k in range(nv):
            total += exp(w[k * self.n_stats] - top)
        if draw != NULL:
            u = rng_uniform(rng) * total
            k = 0
            while k < nv - 1:
                u -= exp(w[k * self.n_stats] - top)
                if u < 0.0:
                    break
                k += 1
            z = lo + k
            draw[0] = z
        return w[(z - lo) * self.n_stats] - top - log(total)

    cdef int64_t propose(self, CountModel m, RNG* rng, int64_t* y_new,
                         double* log_q_ratio) noexcept nogil:
        cdef int64_t G = m.n_groups(), g, s, r, c = 0, z
        cdef double lam, lq = 0.0
        if (G <= 0 or self.group_cap <= 0 or self.theta == NULL
                or rng_uniform(rng) >= self.share):
            return self.base.propose(m, rng, y_new, log_q_ratio)
        log_q_ratio[0] = 0.0
        g = rng_below(rng, G)
        lam = (2.0 * rng_uniform(rng) - 1.0) * self.tilt
        s = m.group_vars(g, self.group, self.values)
        # forward: each value from its tilted conditional at the present network
        for r in range(s):
            lq -= self._log_cond(m, self.group[r], self.values[r], 0, lam, rng, &self.drawn[r])
            if self.drawn[r] != self.values[r]:
                self.move_vars[c] = self.group[r]
                self.move_vals[c] = self.drawn[r]
                c += 1
        if c == 0:
            return -1
        # reverse: the old values from the conditionals at the new network, tilted by -lam
        for r in range(c):
            self.move_olds[r] = m.get(self.move_vars[r])
            m.set(self.move_vars[r], self.move_vals[r])
        for r in range(s):
            lq += self._log_cond(m, self.group[r], self.drawn[r], self.values[r], -lam, rng,
                                 NULL)
        for r in range(c - 1, -1, -1):
            m.set(self.move_vars[r], self.move_olds[r])
        self.n_moves = c
        log_q_ratio[0] = lq
        return MULTI_MOVE
