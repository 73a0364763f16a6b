# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Proposals that never leave a constrained sample space, and the sampler
that runs their multi-toggle moves.

:class:`ConstrainedProposal` walks the networks that agree with the
observed one outside a set of *free* dyads (``blockdiag``, ``blocks``,
``fixallbut``, ``fixedas``, ``dyads``, ``observed``, missing dyads, the
between-mode dyads of a two-mode network), with optional bounds on the
degrees (``bd``, also per class of alters: ``bd(attribs=)``), by one of
these moves (``mode``):

0. tie / no-tie over the free dyads: with probability 1/2 a uniformly drawn
   free tie, else a uniformly drawn free dyad, is toggled; the Hastings
   ratio is statnet's ``MH_TNT`` one with the free-dyad count D_F and the
   free-tie count L_F in place of D and L.
1. ``edges`` (fixed tie count): a uniformly drawn free tie is swapped for a
   uniformly drawn free non-tie (symmetric: L_F (D_F - L_F) pairs each way).
2. ``degrees``: undirected, a double-edge swap -- two distinct free ties
   {a, b}, {c, d} (each drawn uniformly, with a random orientation) become
   {a, d}, {c, b} when both are free non-ties and a, b, c, d are distinct
   (symmetric; connects every graph with the degree sequence, Taylor 1981).
   Directed, with probability 1/2 a head swap a->b, c->d => a->d, c->b,
   else the reversal of a directed 3-cycle through a uniformly drawn free
   tie and a uniformly drawn third node (both symmetric: together they
   connect every digraph with the in- and out-degree sequences, Rao,
   Jana & Bandyopadhyay 1996).
3. ``odegrees``: a free tie a->b becomes a->c for a uniformly drawn node c
   (symmetric: out-degrees kept); 4. ``idegrees``: a->b becomes c->b.
5. ``b1degrees`` (two-mode): a tie {a, b} (a in the first mode) becomes
   {a, c} for a uniformly drawn second-mode node c; 6. ``b2degrees``: it
   becomes {c, b} for a uniformly drawn first-mode node c (symmetric: the
   degrees of the first / second mode are kept).
7. ``degreedist`` (undirected): with probability 1/2 a double-edge swap (as
   2), else two uniformly drawn nodes b, c exchange their neighbourhoods
   (every w other than b, c with exactly one of the ties b-w, c-w moves it
   to the other node): b and c exchange their degrees, so the degree
   distribution is kept.  Both moves are involutions drawn with the same
   probability from either end (symmetric); swaps connect each degree
   sequence, neighbourhood exchanges connect the sequences with the same
   distribution.
8. ``pairs`` (tie/no-tie on node pairs, for stacked networks and layers): a
   node pair is drawn as tie/no-tie draws a dyad (with probability 1/2 a free
   tie's pair, else a uniformly drawn free dyad's pair; of a layered network,
   ``layers`` blocks of ``n / layers`` nodes, the pair of nodes the dyad joins
   in its layer), then a nonempty set of layers uniformly (one layer: that one)
   and, directed, the drawn direction (``p_this``), the reverse one (``p_rev``)
   or both (``p_both``): every dyad of the pair so named is toggled (a fixed one
   among them: no move).  The move toggles at once what single toggles must
   pass through rarer states for: a dyad in two layers (a term on
   ``advice & friendship``), a mutual pair.  The Hastings ratio: with c_ab
   (f_ab) the free ties (free dyads) among the layers' dyads a -> b, L_F the
   free ties and D_F the free dyads, the pair (a, b) is drawn with probability
   s_ab = c_ab / (2 L_F) + f_ab / (2 D_F) (f_ab / D_F when L_F = 0); a toggle
   set on a -> b is proposed with probability P(M) (s_ab p_this + s_ba p_rev),
   on b -> a with P(M) (s_ab p_rev + s_ba p_this), on both with
   P(M) (s_ab + s_ba) p_both (the two draws that name the same set), and the
   reverse move the same way at the proposed network.  One layer, undirected,
   it is mode 0.

A move that would leave the space (a fixed dyad, a degree bound) is
proposed as "no move": the chain stays, which keeps the Metropolis-Hastings
ratio exact on the restricted space.

Scoring a move of k > 1 toggles exactly needs each change statistic at the
state the previous toggles left (k toggles applied, undone after a
rejection).  On sparse networks (``delayed``) the sampler splits the model,
pi(x) = exp(theta_F g_F(x)) exp(theta_D g_D(x)), into the terms whose change
statistic reads no tie (F: edges, dyadic covariates; their k changes taken at
the current network add up exactly) and the others (D), and accepts a move
1. with min(1, q-ratio exp(theta_F s_F)), s_F the exact change of g_F (a
   factorised Metropolis-Hastings step, exact by itself), then
2. with min(1, r~), log r~ = theta_D s_D, s_D the sum of the k changes of
   g_D all taken at the current network (no toggle applied), then
3. applies it, scores it exactly (theta_D times the change of g_D, toggle
   by toggle: log r) and at the proposed network (the reverse move's r~'),
   and accepts with min(1, r min(1, r~') / min(1, r~)): with stage 2,
   delayed acceptance (Christen & Fox 2005), exact for any stage 2.
Most moves end at stage 1 or 2 with no toggle applied and, at stage 1, none
of the costly terms (gwesp...) computed.  When the toggles do not interact,
r~' = 1/r~ = 1/r and stage 3 accepts; stage 1 costs acceptance only when the
F and D changes have opposite signs.

Everything works on node pairs (no dyad-index decoding); the free dyads of a
restricted space are found in O(1) through a hash table, and free ties are
drawn in O(1) from a list kept up to date on every toggle.
"""
import numpy as np

from ergmfit.utils.setops import unique_sorted
cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t, uint8_t
from libc.stdlib cimport malloc, calloc, free, realloc
from libc.math cimport log, isnan, NAN, ldexp
from ergmfit.core._random cimport RNG, rng_below, rng_uniform, rng_next, word_uniform
from ergmfit.core._hashmap cimport mix64
from ergmfit.terms._ergm cimport ERGMModel
from ergmfit.network._state cimport NetworkState
from ergmfit.core._model cimport BinaryModel
from ergmfit.sampling._proposals cimport tnt_lq_slot

cnp.import_array()

MODES = {"tnt": 0, "edges": 1, "degrees": 2, "odegrees": 3, "idegrees": 4,
         "b1degrees": 5, "b2degrees": 6, "degreedist": 7, "pairs": 8, "lifted-pairs": 9}

# the most layers of a node-pair move (mode 8): 2^layers - 1 sets of layers
MAX_PAIR_LAYERS = 16
# the most layers whose log chances mode 8 keeps by tie count ((layers + 1)^2 x 3 per count)
cdef enum:
    PAIR_CACHE_LAYERS = 3
    PAIR_DYADS_MAX = 32     # a pair's dyads: 2 x MAX_PAIR_LAYERS

# mode 8's default chances of toggling the drawn direction, its reverse and both, of a
# directed pair (docs/guide/multinetwork.md, "Speed"): on Sampson's triad model at
# statnet's MLE, (0.5, 0.25, 0.25) needs 1,420 proposals per effective draw of the slowest
# statistic against 1,623 for (0.8, 0.1, 0.1), and its MCMC-MLE 459k proposals against
# 655k (medians of 10 seeds)
PAIR_DIRECTIONS = (0.5, 0.25, 0.25)


def _free_rows(pairs, n, directed):
    """(row0, col0) such that the free dyad (i, j) (rows of ``pairs``, in the order of their
    variable indices) is at position row0[i] + j - col0[i] - (directed and j > i), when each
    node's free dyads are one run of nodes (itself left out: a block of stacked networks);
    None otherwise."""
    i = pairs[:, 0].astype(np.int64)
    j = pairs[:, 1].astype(np.int64)
    counts = np.bincount(i, minlength=n)
    row0 = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    first = np.full(n, n, dtype=np.int64)
    np.minimum.at(first, i, j)
    if directed:                     # the run may start at the node itself (left out)
        first = np.minimum(first, np.arange(n))
    col0 = np.where(first < n, first, 0).astype(np.intc)
    pos = row0[i] + j - col0[i] - ((j > i) if directed else 0)
    if not np.array_equal(pos, np.arange(len(pairs))):
        return None
    return [np.ascontiguousarray(row0), np.ascontiguousarray(col0)]


def _pairs_closed(pairs, n, base_n, layers, directed):
    """Whether, with every free dyad (rows of ``pairs``), every dyad of its node pair is
    free: in each of the ``layers`` layers of ``base_n`` nodes and, directed, both ways."""
    keys = np.sort(pairs[:, 0].astype(np.int64) * n + pairs[:, 1])
    a, b = pairs[:, 0] % base_n, pairs[:, 1] % base_n
    need = []
    for m in range(layers):
        need.append((m * base_n + a) * n + m * base_n + b)
        if directed:
            need.append((m * base_n + b) * n + m * base_n + a)
    need = np.concatenate(need)
    k = np.searchsorted(keys, need)
    return bool((k < len(keys)).all() and (keys[np.minimum(k, len(keys) - 1)] == need).all())


cdef inline double _pair_chance(int c, int f, int64_t L, double D) noexcept nogil:
    # the chance that mode 8 draws a pair (one direction) with c free ties among f free dyads
    if L > 0:
        return 0.5 * c / <double>L + 0.5 * f / D
    return f / D


cdef inline double _pair_set_chance(ConstrainedProposal p, int cab, int cba, int fab, int fba,
                                    int64_t L, double D, int dirs) noexcept nogil:
    # the chance (but the layers' factor) that mode 8 proposes a pair's toggle set in
    # directions ``dirs`` (1: a -> b, 2: b -> a, 3: both): the two draws that name it
    cdef double sab = _pair_chance(cab, fab, L, D), sba = _pair_chance(cba, fba, L, D)
    if dirs == 1:
        return sab * p.p_this + sba * p.p_rev
    if dirs == 2:
        return sab * p.p_rev + sba * p.p_this
    return (sab + sba) * p.p_both


cdef class ConstrainedProposal(Proposal):
    """A move of ``mode`` over the free dyads of a compiled ERGM.

    Parameters
    ----------
    model : ERGMModel
        The compiled model the chain runs on.
    mode : {"tnt", "edges", "degrees", "odegrees", "idegrees", "b1degrees",
            "b2degrees", "degreedist", "pairs"}
    free_vars : int64 array or None
        The free variables (dyad indices); None: every dyad.
    bounds : (lo_out, hi_out, lo_in, hi_in) int arrays of length n, or None
        Degree bounds (undirected: the degree must lie in [lo_out, hi_out]).
    attr_bounds : (attribs, lo_out, hi_out, lo_in, hi_in) or None
        ``bd(attribs=)``: an (n, K) boolean matrix of the alters' classes and
        (n, K) bounds on each node's ties to (out) / from (in) each class.
    attr_either : bool
        Directed networks: a node's arcs to and from the nodes of a class
        count together against ``lo_out``/``hi_out`` of ``attr_bounds`` (the
        ``snowball`` constraint: a tie in either direction to the previous
        wave); ``lo_in``/``hi_in`` are then unused.
    n1 : int
        Two-mode networks: the number of first-mode nodes (b1degrees, b2degrees).
    layers : int
        ``pairs``: the number of stacked layers, each of ``n / layers`` nodes (layer m
        holds nodes m n / layers, ...); 1 for one network or stacked networks.
    directions : (float, float, float) or None
        ``pairs``, directed: the chances of toggling the drawn direction, the reverse
        one and both (default ``PAIR_DIRECTIONS``); an undirected pair has one.
    delayed : bool or None
        Score moves of several toggles by delayed acceptance (see the module's
        docstring); None: on networks of at least 50 nodes and density at most
        0.05.  Either way the chain is exact.
    """

    def __init__(self, ERGMModel model, mode="tnt", free_vars=None, bounds=None,
                 attr_bounds=None, n1=0, delayed=None, attr_either=False, layers=1,
                 directions=None):
        cdef int64_t k, h, cap
        cdef int n = model.state.n
        self.em = model
        self.st = model.state
        if mode not in MODES:
            raise ValueError(f"unknown constrained move {mode!r}")
        self.mode = MODES[mode]
        self.n1 = int(n1)
        if self.mode in (5, 6) and not 0 < self.n1 < n:
            raise ValueError("b1degrees / b2degrees need a two-mode network")
        if self.mode == 7 and model.state.directed:
            raise ValueError("degreedist moves are for undirected networks")
        self.max_toggles = max(MAX_TOGGLES, 4 * n) if self.mode == 7 else MAX_TOGGLES
        if not 1 <= layers <= MAX_PAIR_LAYERS or n % layers:
            raise ValueError(f"layers must be 1..{MAX_PAIR_LAYERS} and divide the {n} nodes, "
                             f"got {layers!r}")
        self.n_layers = int(layers)
        self.base_n = n // self.n_layers
        self.lift, self.lift_ok = 1, 1
        if self.mode >= 8:
            self.max_toggles = max(MAX_TOGGLES, 2 * self.n_layers)
            if self.n_layers > 1 and free_vars is None:
                raise ValueError("node-pair moves of layers need the free dyads (those within "
                                 "the layers)")
        dirs = PAIR_DIRECTIONS if directions is None else tuple(float(x) for x in directions)
        if len(dirs) != 3 or min(dirs) < 0 or abs(sum(dirs) - 1.0) > 1e-9 or dirs[0] + dirs[1] <= 0:
            raise ValueError("directions must be three chances >= 0 summing to 1, the drawn or "
                             f"the reverse direction possible; got {directions!r}")
        if not model.state.directed:
            dirs = (1.0, 0.0, 0.0)
        self.p_this, self.p_rev, self.p_both = dirs
        if delayed is None:
            # delayed acceptance pays on sparse networks, where the toggles of a
            # move rarely interact; on small or dense ones its first stage would
            # reject moves that plain Metropolis-Hastings accepts
            density = model.state.n_ties / max(1.0, <double>model.n_vars)
            delayed = n >= 50 and density <= 0.05
        self.delayed = bool(delayed)
        for k in range(64):
            self.lq_key[k] = -1
        keep = []
        self.all_free = free_vars is None
        if self.all_free:
            self.n_free = model.n_vars
        else:
            fv = np.ascontiguousarray(unique_sorted(np.asarray(free_vars, dtype=np.int64)))
            if len(fv) and (fv[0] < 0 or fv[len(fv) - 1] >= model.n_vars):
                raise ValueError("free variable out of range")
            self.n_free = len(fv)
            m1 = max(1, self.n_free)
            pairs = np.ascontiguousarray(_pairs_of(model, fv) if len(fv)
                                         else np.zeros((1, 2), dtype=np.intc))
            onl = np.zeros(m1, dtype=np.int64)
            onpos = np.full(m1, -1, dtype=np.int64)
            cap = 16
            while cap < 2 * m1 + 2:
                cap <<= 1
            hkv = np.full(2 * cap, -1, dtype=np.int64)
            keep += [pairs, onl, onpos, hkv]
            self.fij = <int*>cnp.PyArray_DATA(pairs)
            self.onl = <int64_t*>cnp.PyArray_DATA(onl)
            self.onpos = <int64_t*>cnp.PyArray_DATA(onpos)
            self.hkv = <int64_t*>cnp.PyArray_DATA(hkv)
            self.hmask = cap - 1
            for k in range(self.n_free):
                key = <int64_t>self.fij[2 * k] * n + self.fij[2 * k + 1]
                h = <int64_t>(mix64(<uint64_t>key) & <uint64_t>self.hmask)
                while self.hkv[2 * h] != -1:
                    h = (h + 1) & self.hmask
                self.hkv[2 * h] = key
                self.hkv[2 * h + 1] = k
            self.seen_version = -1
        if self.mode >= 8 and not self.all_free and self.n_free:
            if (pairs[:, 0] // self.base_n != pairs[:, 1] // self.base_n).any():
                raise ValueError("node-pair moves of layers need every free dyad within a layer")
            self.pairs_closed = _pairs_closed(pairs, n, self.base_n, self.n_layers,
                                              model.state.directed)
            rows = _free_rows(pairs, n, model.state.directed)
            if self.pairs_closed and rows is not None:
                keep += rows
                self.row0 = <int64_t*>cnp.PyArray_DATA(rows[0])
                self.col0 = <int*>cnp.PyArray_DATA(rows[1])
        elif self.mode >= 8:
            self.pairs_closed = self.n_layers == 1
        self.pq_w = 0
        if self.mode == 8 and self.pairs_closed and self.n_layers <= PAIR_CACHE_LAYERS:
            self.pq_w = (self.n_layers + 1) * (self.n_layers + 1) * 3
            pq = np.full(64 * self.pq_w, np.nan)
            keep.append(pq)
            self.pq_log = <double*>cnp.PyArray_DATA(pq)
            for k in range(64):
                self.pq_key[k] = -1
        self.has_bounds = bounds is not None
        if self.has_bounds:
            arrs = [np.ascontiguousarray(b, dtype=np.intc) for b in bounds]
            if len(arrs) != 4 or any(a.shape != (n,) for a in arrs):
                raise ValueError("bounds must be four arrays of one value per node")
            keep += arrs
            self.lo_out = <int*>cnp.PyArray_DATA(arrs[0])
            self.hi_out = <int*>cnp.PyArray_DATA(arrs[1])
            self.lo_in = <int*>cnp.PyArray_DATA(arrs[2])
            self.hi_in = <int*>cnp.PyArray_DATA(arrs[3])
        self.K = 0
        self.attr_either = bool(attr_either) and model.state.directed
        if attr_bounds is not None:
            att = np.ascontiguousarray(attr_bounds[0], dtype=np.uint8)
            if att.ndim != 2 or att.shape[0] != n or att.shape[1] < 1:
                raise ValueError("bd(attribs=) must be an (n, K) matrix")
            self.K = att.shape[1]
            arrs = [np.ascontiguousarray(b, dtype=np.intc) for b in attr_bounds[1:]]
            if len(arrs) != 4 or any(a.shape != att.shape for a in arrs):
                raise ValueError("bd(attribs=) bounds must be four (n, K) matrices")
            keep += [att] + arrs
            self.attribs = <uint8_t*>cnp.PyArray_DATA(att)
            self.alo_out = <int*>cnp.PyArray_DATA(arrs[0])
            self.ahi_out = <int*>cnp.PyArray_DATA(arrs[1])
            self.alo_in = <int*>cnp.PyArray_DATA(arrs[2])
            self.ahi_in = <int*>cnp.PyArray_DATA(arrs[3])
        if self.has_bounds or self.K:
            scratch = [np.zeros(n, dtype=np.intc), np.zeros(n, dtype=np.intc),
                       np.zeros(max(1, n * self.K), dtype=np.intc),
                       np.zeros(max(1, n * self.K), dtype=np.intc),
                       np.zeros(4 * self.max_toggles * max(1, self.K) + 8, dtype=np.intc)]
            keep += scratch
            self.d_out = <int*>cnp.PyArray_DATA(scratch[0])
            self.d_in = <int*>cnp.PyArray_DATA(scratch[1])
            self.c_out = <int*>cnp.PyArray_DATA(scratch[2])
            self.c_in = <int*>cnp.PyArray_DATA(scratch[3])
            self.touched = <int*>cnp.PyArray_DATA(scratch[4])
        self._keep = keep

    @property
    def n_moves_max(self):
        return self.max_toggles

    # -- the free set ------------------------------------------------------
    cdef int64_t find(self, int i, int j) noexcept nogil:
        # the position of the free dyad (i, j) (canonical), or -1
        cdef int64_t key = <int64_t>i * self.st.n + j
        cdef int64_t h = <int64_t>(mix64(<uint64_t>key) & <uint64_t>self.hmask)
        cdef int64_t k
        while True:
            k = self.hkv[2 * h]
            if k == key:
                return self.hkv[2 * h + 1]
            if k == -1:
                return -1
            h = (h + 1) & self.hmask

    cdef bint free_at(self, int i, int j, int64_t* pos) noexcept nogil:
        # whether (i, j) (canonical) is free; its position into pos[0] (-1: all free)
        if self.all_free:
            pos[0] = -1
            return True
        pos[0] = self.find(i, j)
        return pos[0] >= 0

    cdef void sync(self) noexcept nogil:
        # rebuild the free-tie list if the network changed behind our back
        cdef int64_t k
        if self.all_free or self.seen_version == self.st.version:
            return
        self.n_free_on = 0
        for k in range(self.n_free):
            if self.st.has_tie(self.fij[2 * k], self.fij[2 * k + 1]):
                self.onpos[k] = self.n_free_on
                self.onl[self.n_free_on] = k
                self.n_free_on += 1
            else:
                self.onpos[k] = -1
        self.seen_version = self.st.version

    cdef void toggled(self, int64_t k, bint now_on) noexcept nogil:
        # keep the free-tie list after a flip of the free dyad at position k
        # (-1: not a free dyad; called right after the flip)
        cdef int64_t p, last
        if self.all_free:
            return
        if self.seen_version != self.st.version - 1:
            return                       # already stale: sync() rebuilds
        if k >= 0:
            if now_on and self.onpos[k] < 0:
                self.onpos[k] = self.n_free_on
                self.onl[self.n_free_on] = k
                self.n_free_on += 1
            elif not now_on and self.onpos[k] >= 0:
                p = self.onpos[k]
                last = self.onl[self.n_free_on - 1]
                self.onl[p] = last
                self.onpos[last] = p
                self.onpos[k] = -1
                self.n_free_on -= 1
        self.seen_version = self.st.version

    cdef int flip(self, int i, int j, bint on, int64_t pos) noexcept nogil:
        # toggle (i, j) (now ``on``; free at position ``pos``, -2: look it up) in the
        # state, and tell the model's stateful kernels and the free-tie list
        cdef int rc = self.st.remove_tie(i, j) if on else self.st.add_tie(i, j)
        if rc != 0:
            return rc
        if self.em._n_stateful:
            if not self.st.directed and i > j:
                self.em._toggled(j, i, not on)
            else:
                self.em._toggled(i, j, not on)
        if not self.all_free:
            if pos == -2:
                pos = self.find(i, j)
            self.toggled(pos, not on)
        return 0

    cdef void free_tie(self, RNG* rng, int* i, int* j, int64_t* pos) noexcept nogil:
        self.free_tie_w(rng_next(rng), i, j, pos)

    cdef inline void free_tie_w(self, uint64_t w, int* i, int* j, int64_t* pos) noexcept nogil:
        # the free tie drawn by the random word w (its top 53 bits, as rng_below)
        cdef int64_t k, L = self.st.n_ties if self.all_free else self.n_free_on
        k = <int64_t>(word_uniform(w) * L)
        if k >= L:
            k = L - 1
        if self.all_free:
            i[0] = self.st.ends[2 * k]
            j[0] = self.st.ends[2 * k + 1]
            pos[0] = -1
        else:
            k = self.onl[k]
            i[0] = self.fij[2 * k]
            j[0] = self.fij[2 * k + 1]
            pos[0] = k

    cdef void free_dyad(self, RNG* rng, int* i, int* j, int64_t* pos) noexcept nogil:
        cdef int64_t k
        cdef int n = self.st.n, a, b
        pos[0] = -1
        if self.all_free:
            a = <int>rng_below(rng, n)
            b = <int>rng_below(rng, n - 1)
            if b >= a:
                b += 1
            if not self.st.directed and a > b:
                i[0] = b; j[0] = a
            else:
                i[0] = a; j[0] = b
        else:
            k = rng_below(rng, self.n_free)
            i[0] = self.fij[2 * k]
            j[0] = self.fij[2 * k + 1]
            pos[0] = k

    cdef bint bounds_ok(self, const int* ti, const int* tj, const bint* ton, int k) noexcept nogil:
        # the degrees (and the ties per class of alters) after the k toggles stay
        # within the bounds; the scratch arrays are zero again on return
        cdef int nt = 0, r, s, i, j, sgn, d, c, K = self.K, w, cnt, e
        cdef bint directed = self.st.directed, ok = True
        cdef int* nb
        cdef int* touched = self.touched
        for r in range(k):
            i = ti[r]; j = tj[r]
            sgn = -1 if ton[r] else 1
            if self.has_bounds:
                self.d_out[i] += sgn
                if directed:
                    self.d_in[j] += sgn
                else:
                    self.d_out[j] += sgn
            for c in range(K):
                if self.attribs[j * K + c]:
                    self.c_out[i * K + c] += sgn
                if self.attribs[i * K + c]:
                    if directed and not self.attr_either:
                        self.c_in[j * K + c] += sgn
                    else:
                        self.c_out[j * K + c] += sgn
            touched[nt] = i
            touched[nt + 1] = j
            nt += 2
        for s in range(nt):
            i = touched[s]
            if self.has_bounds:
                if self.d_out[i] != 0:
                    d = self.st.out_deg[i] + self.d_out[i]
                    if d < self.lo_out[i] or d > self.hi_out[i]:
                        ok = False
                if directed and self.d_in[i] != 0:
                    d = self.st.in_deg[i] + self.d_in[i]
                    if d < self.lo_in[i] or d > self.hi_in[i]:
                        ok = False
            for c in range(K):
                e = i * K + c
                if ok and self.c_out[e] != 0:
                    nb = self.st.out_nb[i]
                    cnt = 0
                    for w in range(self.st.out_deg[i]):
                        cnt += self.attribs[nb[w] * K + c]
                    if self.attr_either:
                        nb = self.st.in_nb[i]
                        for w in range(self.st.in_deg[i]):
                            cnt += self.attribs[nb[w] * K + c]
                    d = cnt + self.c_out[e]
                    if d < self.alo_out[e] or d > self.ahi_out[e]:
                        ok = False
                if ok and directed and self.c_in[e] != 0:
                    nb = self.st.in_nb[i]
                    cnt = 0
                    for w in range(self.st.in_deg[i]):
                        cnt += self.attribs[nb[w] * K + c]
                    d = cnt + self.c_in[e]
                    if d < self.alo_in[e] or d > self.ahi_in[e]:
                        ok = False
        for s in range(nt):
            i = touched[s]
            if self.has_bounds:
                self.d_out[i] = 0
                self.d_in[i] = 0
            for c in range(K):
                self.c_out[i * K + c] = 0
                self.c_in[i * K + c] = 0
        return ok

    # -- moves -------------------------------------------------------------
    # A move writes its toggles into ti/tj (node pairs, i < j when undirected),
    # whether each is a tie now into ton, and its position among the free
    # dyads into tp (-1 when every dyad is free), and returns their number.
    cdef int swap_moves(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp) noexcept nogil:
        # degree-preserving moves (mode 2, and half of mode 7); needs >= 2 free ties
        cdef int a, b, c, d, t, r, n = self.st.n
        cdef int64_t p0, p1
        cdef uint64_t w0, w1
        cdef bint directed = self.st.directed
        if not directed or rng_uniform(rng) < 0.5:
            w0 = rng_next(rng)
            w1 = rng_next(rng)
            self.free_tie_w(w0, &a, &b, &p0)
            self.free_tie_w(w1, &c, &d, &p1)
            if not directed:
                # a random orientation of each tie: its word's lowest bit (the
                # draw of the tie read the top 53), with no branch
                t = (a ^ b) & -<int>(w0 & 1)
                a ^= t; b ^= t
                t = (c ^ d) & -<int>(w1 & 1)
                c ^= t; d ^= t
            if a == c or b == d or a == d or c == b:
                return 0
            ti[0] = a; tj[0] = b; ti[1] = c; tj[1] = d
            ti[2] = a; tj[2] = d; ti[3] = c; tj[3] = b
            tp[0] = p0; tp[1] = p1
            r = 4
        else:
            # reverse the 3-cycle a->b->c->a
            self.free_tie(rng, &a, &b, &p0)
            c = <int>rng_below(rng, n)
            if c == a or c == b:
                return 0
            if not (self.st.has_tie(b, c) and self.st.has_tie(c, a)):
                return 0
            ti[0] = a; tj[0] = b; ti[1] = b; tj[1] = c; ti[2] = c; tj[2] = a
            ti[3] = b; tj[3] = a; ti[4] = c; tj[4] = b; ti[5] = a; tj[5] = c
            tp[0] = p0
            if not (self.free_at(b, c, &tp[1]) and self.free_at(c, a, &tp[2])):
                return 0
            r = 6
        if not directed:
            # each pair (i < j), with no branch (the orientations are random)
            for t in range(r):
                a = ti[t]
                b = tj[t]
                ti[t] = a if a < b else b
                tj[t] = b if a < b else a
        for t in range(r // 2, r):
            if self.st.has_tie(ti[t], tj[t]) or not self.free_at(ti[t], tj[t], &tp[t]):
                return 0
        for t in range(r):
            ton[t] = t < r // 2
        return r

    cdef int neighbour_swap(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp) noexcept nogil:
        # nodes b, c exchange their neighbourhoods (undirected): 2 toggles per w
        # adjacent to exactly one of them
        cdef int n = self.st.n, b, c, w, t, k = 0, x, y, z
        cdef int* nb
        b = <int>rng_below(rng, n)
        c = <int>rng_below(rng, n - 1)
        if c >= b:
            c += 1
        for t in range(2):
            x = b if t == 0 else c
            y = c if t == 0 else b
            nb = self.st.out_nb[x]
            for w in range(self.st.out_deg[x]):
                z = nb[w]
                if z == y or self.st.has_tie(y, z):
                    continue
                # x-z goes, y-z comes
                ti[k] = x if x < z else z
                tj[k] = z if x < z else x
                ti[k + 1] = y if y < z else z
                tj[k + 1] = z if y < z else y
                ton[k] = True
                ton[k + 1] = False
                if not (self.free_at(ti[k], tj[k], &tp[k])
                        and self.free_at(ti[k + 1], tj[k + 1], &tp[k + 1])):
                    return 0
                k += 2
        return k

    cdef bint pair_slot(self, int x, int y, int64_t* pos) noexcept nogil:
        # whether the dyad (x, y) of a drawn node pair is free, and its position (-2: free,
        # looked up if the toggle is made)
        if self.row0 != NULL:
            pos[0] = self.row0[x] + y - self.col0[x] - (self.st.directed and y > x)
            return True
        if self.pairs_closed:
            pos[0] = -2
            return True
        return self.free_at(x, y, pos)

    cdef double pair_log_chance(self, int cab, int cba, int64_t L, int dirs) noexcept nogil:
        # log _pair_set_chance of a closed pair (every dyad free), kept by L when pq_w > 0
        cdef int slot, e, t
        cdef double* row
        if self.pq_w == 0:
            return log(_pair_set_chance(self, cab, cba, self.n_layers, self.n_layers, L,
                                        <double>self.n_free, dirs))
        slot = <int>(L & 63)
        row = self.pq_log + slot * self.pq_w
        if self.pq_key[slot] != L:
            for t in range(self.pq_w):
                row[t] = NAN
            self.pq_key[slot] = L
        e = ((cab * (self.n_layers + 1)) + cba) * 3 + dirs - 1
        if isnan(row[e]):
            row[e] = log(_pair_set_chance(self, cab, cba, self.n_layers, self.n_layers, L,
                                          <double>self.n_free, dirs))
        return row[e]

    cdef int pair_move(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp,
                       double* lq) noexcept nogil:
        # mode 8: toggle a set of layers' dyads of one node pair (see the module's docstring)
        cdef int64_t L = self.st.n_ties if self.all_free else self.n_free_on
        cdef double D = <double>self.n_free, u
        cdef int64_t pos
        cdef int i, j, a, b, m, d, x, y, k = 0, nb = self.base_n
        cdef int nd = 2 if self.st.directed else 1
        cdef int dirs = 1
        cdef bint on, picked
        cdef unsigned int M
        # per direction (0: a -> b, 1: b -> a): free ties, free dyads, change of the ties
        cdef int c[2]
        cdef int f[2]
        cdef int dc[2]
        if L > 0 and rng_uniform(rng) < 0.5:
            self.free_tie(rng, &i, &j, &pos)
        else:
            self.free_dyad(rng, &i, &j, &pos)
        a = i if self.n_layers == 1 else i % nb          # the pair's nodes in the layer
        b = j if self.n_layers == 1 else j % nb
        M = 1u
        if self.n_layers > 1:
            M += <unsigned int>rng_below(rng, (1 << self.n_layers) - 1)
        if nd == 2:
            u = rng_uniform(rng)
            dirs = 1 if u < self.p_this else (2 if u < self.p_this + self.p_rev else 3)
        c[0] = c[1] = f[0] = f[1] = dc[0] = dc[1] = 0
        for m in range(self.n_layers):
            for d in range(nd):
                x = m * nb + (a if d == 0 else b)
                y = m * nb + (b if d == 0 else a)
                picked = (M >> m) & 1 and (dirs >> d) & 1
                if not self.pair_slot(x, y, &pos):
                    if picked:
                        return 0
                    continue
                on = self.st.has_tie(x, y)
                f[d] += 1
                c[d] += on
                if picked:
                    ti[k] = x
                    tj[k] = y
                    ton[k] = on
                    tp[k] = pos
                    dc[d] += -1 if on else 1
                    k += 1
        # the chances of drawing the set at x and, the reverse move, at the proposed network
        if self.pairs_closed:
            lq[0] = (self.pair_log_chance(c[0] + dc[0], c[1] + dc[1], L + dc[0] + dc[1], dirs)
                     - self.pair_log_chance(c[0], c[1], L, dirs))
            return k
        lq[0] = log(_pair_set_chance(self, c[0] + dc[0], c[1] + dc[1], f[0], f[1],
                                     L + dc[0] + dc[1], D, dirs)
                    / _pair_set_chance(self, c[0], c[1], f[0], f[1], L, D, dirs))
        return k

    cdef int lifted_pair_move(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp,
                              double* lq) noexcept nogil:
        # mode 9, the lifted (non-reversible) node-pair move: going up (lift = +1) it draws
        # a uniform free dyad, and where it is absent, a uniform nonempty set of its node
        # pair's absent free dyads (every layer, both directions) to add; going down, a
        # uniform free tie and a uniform nonempty set of its pair's free ties to remove.
        # The walk keeps its direction while moves are accepted and turns after a
        # rejection or a null draw (a present dyad going up).  Accepted with
        # pi(y) q_down(y -> x) / (pi(x) q_up(x -> y)) (and the mirror image): skew detailed
        # balance on the lifted space, so pi is left invariant (LiftedTriadicTNT's guided
        # walk).  With a_p absent and c_p present free dyads in the pair, L free ties and D
        # free dyads: q_up = a_p / D / (2^a_p - 1), q_down = c_p / L / (2^c_p - 1).
        cdef int64_t L = self.st.n_ties if self.all_free else self.n_free_on
        cdef double D = <double>self.n_free
        cdef int64_t pos
        cdef int i, j, a, b, m, d, x, y, k = 0, nb = self.base_n, nc = 0, nother = 0
        cdef int nd = 2 if self.st.directed else 1
        cdef bint on, want
        cdef uint64_t M
        cdef int ci[PAIR_DYADS_MAX]
        cdef int cj[PAIR_DYADS_MAX]
        cdef int64_t cp[PAIR_DYADS_MAX]
        if not self.lift_ok:
            self.lift = -self.lift
        self.lift_ok = 0
        if self.lift > 0:
            if L >= self.n_free:
                return 0
            self.free_dyad(rng, &i, &j, &pos)
            if self.st.has_tie(i, j):
                return 0
        else:
            if L == 0:
                return 0
            self.free_tie(rng, &i, &j, &pos)
        want = self.lift < 0                  # the state of the dyads the move toggles
        a = i if self.n_layers == 1 else i % nb
        b = j if self.n_layers == 1 else j % nb
        for m in range(self.n_layers):
            for d in range(nd):
                x = m * nb + (a if d == 0 else b)
                y = m * nb + (b if d == 0 else a)
                if not self.pair_slot(x, y, &pos):
                    continue
                on = self.st.has_tie(x, y)
                if on == want:
                    ci[nc] = x
                    cj[nc] = y
                    cp[nc] = pos
                    nc += 1
                else:
                    nother += 1
        # nc >= 1: the drawn dyad is one of them
        M = 1 + <uint64_t>rng_below(rng, (<int64_t>1 << nc) - 1)
        for m in range(nc):
            if (M >> m) & 1:
                ti[k] = ci[m]
                tj[k] = cj[m]
                ton[k] = want
                tp[k] = cp[m]
                k += 1
        # forward: the pair's nc dyads of the walk's kind; reverse: nother + k of the other
        if self.lift > 0:
            lq[0] = (log((nother + k) / <double>(L + k) / (ldexp(1.0, nother + k) - 1.0))
                     - log(nc / D / (ldexp(1.0, nc) - 1.0)))
        else:
            lq[0] = (log((nother + k) / D / (ldexp(1.0, nother + k) - 1.0))
                     - log(nc / <double>L / (ldexp(1.0, nc) - 1.0)))
        return k

    cdef int propose_k(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp,
                       double* lq) noexcept nogil:
        # writes the toggles of one move; returns their number (0: no move)
        cdef int64_t L
        cdef double D = <double>self.n_free
        cdef int a, b, c, k, n = self.st.n, slot, tries
        lq[0] = 0.0
        self.relabel = False
        self.swap = False
        self.sync()
        L = self.st.n_ties if self.all_free else self.n_free_on
        if self.n_free <= 0:
            return 0
        if self.mode == 0:
            if L > 0 and rng_uniform(rng) < 0.5:
                self.free_tie(rng, &a, &b, &tp[0])
                ton[0] = True
            else:
                self.free_dyad(rng, &a, &b, &tp[0])
                ton[0] = self.st.has_tie(a, b)
            slot = tnt_lq_slot(self.lq_key, self.lq_del, self.lq_add, L, D)
            lq[0] = self.lq_del[slot] if ton[0] else self.lq_add[slot]
            ti[0] = a; tj[0] = b
            k = 1
        elif self.mode == 1:
            if L == 0 or L >= self.n_free:
                return 0
            self.free_tie(rng, &ti[0], &tj[0], &tp[0])
            tries = 0
            while True:
                self.free_dyad(rng, &a, &b, &tp[1])
                if not self.st.has_tie(a, b):
                    break
                tries += 1
                if tries > 1000000:
                    return 0
            ti[1] = a; tj[1] = b
            ton[0] = True; ton[1] = False
            k = 2
        elif self.mode == 8:
            k = self.pair_move(rng, ti, tj, ton, tp, lq)
            if k == 0:
                return 0
        elif self.mode == 9:
            k = self.lifted_pair_move(rng, ti, tj, ton, tp, lq)
            if k == 0:
                return 0
        elif self.mode == 2 or self.mode == 7:
            if self.mode == 7 and rng_uniform(rng) < 0.5:
                k = self.neighbour_swap(rng, ti, tj, ton, tp)
                self.relabel = True
            else:
                if L < 2:
                    return 0
                k = self.swap_moves(rng, ti, tj, ton, tp)
                self.swap = k == 4 and not self.st.directed
            if k == 0:
                return 0
        else:
            if L < 1:
                return 0
            self.free_tie(rng, &a, &b, &tp[0])
            if self.mode == 5:
                c = self.n1 + <int>rng_below(rng, n - self.n1)
                if c == b:
                    return 0
                ti[1] = a; tj[1] = c
            elif self.mode == 6:
                c = <int>rng_below(rng, self.n1)
                if c == a:
                    return 0
                ti[1] = c; tj[1] = b
            else:
                c = <int>rng_below(rng, n)
                if c == a or c == b:
                    return 0
                if self.mode == 3:
                    ti[1] = a; tj[1] = c
                else:
                    ti[1] = c; tj[1] = b
            if self.st.has_tie(ti[1], tj[1]) or not self.free_at(ti[1], tj[1], &tp[1]):
                return 0
            ti[0] = a; tj[0] = b
            ton[0] = True; ton[1] = False
            k = 2
        if (self.has_bounds or self.K) and not self.bounds_ok(ti, tj, ton, k):
            return 0
        return k

    # -- the one-toggle interface of the plain engine --------------------------
    cdef int64_t propose(self, BinaryModel bm, RNG* rng, double* log_q_ratio) noexcept nogil:
        cdef int ti[MAX_TOGGLES]
        cdef int tj[MAX_TOGGLES]
        cdef bint ton[MAX_TOGGLES]
        cdef int64_t tp[MAX_TOGGLES]
        if self.max_toggles > MAX_TOGGLES:
            return -1
        if self.propose_k(rng, ti, tj, ton, tp, log_q_ratio) != 1:
            return -1
        return self.em.proposed_var(ti[0], tj[0])

    cdef void accepted(self, BinaryModel bm, int64_t v, bint now_on) noexcept nogil:
        cdef int i, j
        self.em.dyad(v, &i, &j)
        if self.st.has_tie(i, j) == now_on and not self.all_free:   # applied (not a scoring)
            self.toggled(self.find(i, j), now_on)

    def counts(self):
        """(free dyads, free ties now)."""
        self.sync()
        return int(self.n_free), int(self.st.n_ties if self.all_free else self.n_free_on)


# The bulk dyad rows, gwesp's one-pass change and the sampler that runs these proposals share this
# extension module (each compiled module costs about 1 CPU s of build before its own code,
# docs/build.md); their sources stay in their own files:
# - _dyadrows.pxi: dyads and change statistics of a compiled ERGM's variables, in bulk;
# - _gwpass.pxi: gwesp's change under a constrained move, without applying it;
# - _constrainedmh.pxi: the Metropolis-Hastings sampler of the constrained proposals.
include "_dyadrows.pxi"
include "_gwpass.pxi"
include "_constrainedmh.pxi"
_pairs_of = pairs_of
