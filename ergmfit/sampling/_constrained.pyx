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
cimport numpy as cnp
from libc.math cimport log, expm1
from libc.stdint cimport int64_t, uint64_t, uint8_t
from libc.stdlib cimport malloc, calloc, free, realloc
from ergmfit.core._random cimport RNG, rng_below, rng_uniform, rng_uniform_pos
from ergmfit.core._hashmap cimport mix64
from ergmfit.terms._ergm cimport ERGMModel
from ergmfit.network._state cimport NetworkState, in_list
from ergmfit.core._model cimport BinaryModel
from ergmfit.sampling._proposals cimport tnt_lq_slot
from ergmfit.sampling._kernelsets cimport KernelSet, ks_changes, ks_dot, ks_init, ks_free
from ergmfit.terms import _dyadic, _triad, _degree
from ergmfit.sampling._dyadrows import change_rows, pairs_of as _pairs_of  # noqa: F401 (re-exported)

cnp.import_array()

# kernels whose change statistic reads no tie of the network (dyadic covariates:
# ``mutual`` reads the reverse tie and is not one of them)
_TIE_FREE = tuple(getattr(_dyadic, name) for name in (
    "EdgesKernel", "NodeCovKernel", "AbsDiffKernel", "FactorKernel", "MatchKernel", "MixKernel",
    "AbsDiffCatKernel", "DenseEdgeCovKernel", "SparseEdgeCovKernel"))

# kernels whose statistic reads no node label or attribute (its value is the
# same on any relabelling of the network): a neighbourhood exchange of two
# nodes is such a relabelling, so it does not change them
_LABEL_FREE = tuple(getattr(_triad, name) for name in (
    "TriangleKernel", "TwopathKernel", "EspKernel", "DspKernel", "NspKernel", "GwespKernel",
    "GwdspKernel", "GwnspKernel", "CycleKernel")) + tuple(getattr(_degree, name) for name in (
    "StarKernel", "DegreeKernel", "GWDegreeKernel", "AltStarKernel", "IsolatesKernel"))

MODES = {"tnt": 0, "edges": 1, "degrees": 2, "odegrees": 3, "idegrees": 4,
         "b1degrees": 5, "b2degrees": 6, "degreedist": 7}


cdef inline double _taylor4(double y) noexcept nogil:
    return 1.0 + y * (1.0 + y * (0.5 + y * (1.0 / 6.0 + y * (1.0 / 24.0))))


cdef inline bint _accept(RNG* rng, double lr) noexcept nogil:
    # log(u) < lr, with the log only when a cheap bound cannot decide
    cdef double u
    if lr >= 0.0:
        return True
    u = rng_uniform_pos(rng)
    return u * _taylor4(-lr) <= 1.0 + 1e-9 and log(u) < lr


# -- one-pass exact change of gwesp under a move of a few toggles ----------
# x is the network now, x' = x with the k toggles (ti[r], tj[r]) applied
# (undirected: ti[r] < tj[r]).  gwesp = sum over ties e of w(sp(e)), so its
# change is a sum over the ties whose shared-partner count or presence
# changes: the toggled dyads, and ties (u, v) whose common neighbours gain or
# lose some w through a toggle (u, w) or (v, w).

cdef inline uint64_t _pair_key(int a, int b) noexcept nogil:
    if a > b:
        return (<uint64_t>b << 32) | <uint64_t>a
    return (<uint64_t>a << 32) | <uint64_t>b


cdef inline int _toggle_at(const uint64_t* keys, int k, int a, int b) noexcept nogil:
    # whether {a, b} is one of the k toggles (their keys; no branch per toggle)
    cdef int r, hit = 0
    cdef uint64_t key = _pair_key(a, b)
    for r in range(k):
        hit |= keys[r] == key
    return hit


cdef inline int _adj(NetworkState st, int a, int b) noexcept nogil:
    # x_ab: a scan of b's neighbours when they are few, else the state's lookup
    cdef int d = st.odeg(b)
    if d <= 8:
        return in_list(st.onb(b), d, a)
    return st.has_tie(a, b)


cdef inline int _dsp(NetworkState st, const int* ti, const int* tj, const uint64_t* keys,
                     int k, int u, int v) noexcept nogil:
    # sp(u, v) in x' minus sp(u, v) in x: only the w with a toggle (u, w) or
    # (v, w) can count differently (k <= MAX_TOGGLES)
    cdef int r, w, q, s = 0, ns = 0, xu, xv
    cdef int seen[2 * MAX_TOGGLES]
    cdef bint dup
    for r in range(k):
        if ti[r] == u or ti[r] == v:
            w = tj[r]
        elif tj[r] == u or tj[r] == v:
            w = ti[r]
        else:
            continue
        if w == u or w == v:
            continue
        dup = False
        for q in range(ns):
            if seen[q] == w:
                dup = True
                break
        if dup:
            continue
        seen[ns] = w
        ns += 1
        xu = _adj(st, u, w)
        xv = _adj(st, v, w)
        s -= xu & xv
        s += (xu ^ _toggle_at(keys, k, u, w)) & (xv ^ _toggle_at(keys, k, v, w))
    return s


cdef enum:
    GW_CAP = 64     # common neighbours / kept ties scored in one pass (more: toggle by toggle)


cdef inline int _common(NetworkState st, int a, int b, int* out) noexcept nogil:
    # the common neighbours of a and b into out; -1 if more than GW_CAP
    cdef int t, v, m = 0, da, db
    cdef int* nba
    cdef int* nbb
    if st.odeg(a) > st.odeg(b):
        a, b = b, a
    da = st.odeg(a)
    db = st.odeg(b)
    nba = st.onb(a)
    nbb = st.onb(b)
    for t in range(da):
        v = nba[t]
        if v == b:
            continue
        if (in_list(nbb, db, v) if db <= 16 else st.has_tie(v, b)):
            if m == GW_CAP:
                return -1
            out[m] = v
            m += 1
    return m


cdef inline bint _push_pair(int* cand, int* nc, int a, int b) noexcept nogil:
    # add the pair {a, b} to the nc[0] pairs of cand unless there; False if full
    cdef int q
    if a > b:
        a, b = b, a
    for q in range(nc[0]):
        if cand[2 * q] == a and cand[2 * q + 1] == b:
            return True
    if nc[0] == GW_CAP:
        return False
    cand[2 * nc[0]] = a
    cand[2 * nc[0] + 1] = b
    nc[0] += 1
    return True


cdef class ConstrainedProposal(Proposal):
    """A move of ``mode`` over the free dyads of a compiled ERGM.

    Parameters
    ----------
    model : ERGMModel
        The compiled model the chain runs on.
    mode : {"tnt", "edges", "degrees", "odegrees", "idegrees", "b1degrees",
            "b2degrees", "degreedist"}
    free_vars : int64 array or None
        The free variables (dyad indices); None: every dyad.
    bounds : (lo_out, hi_out, lo_in, hi_in) int arrays of length n, or None
        Degree bounds (undirected: the degree must lie in [lo_out, hi_out]).
    attr_bounds : (attribs, lo_out, hi_out, lo_in, hi_in) or None
        ``bd(attribs=)``: an (n, K) boolean matrix of the alters' classes and
        (n, K) bounds on each node's ties to (out) / from (in) each class.
    n1 : int
        Two-mode networks: the number of first-mode nodes (b1degrees, b2degrees).
    delayed : bool or None
        Score moves of several toggles by delayed acceptance (see the module's
        docstring); None: on networks of at least 50 nodes and density at most
        0.05.  Either way the chain is exact.
    """

    def __init__(self, ERGMModel model, mode="tnt", free_vars=None, bounds=None,
                 attr_bounds=None, n1=0, delayed=None):
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
            fv = np.ascontiguousarray(np.unique(np.asarray(free_vars, dtype=np.int64)))
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
        cdef int64_t k
        if self.all_free:
            k = rng_below(rng, self.st.n_ties)
            i[0] = self.st.tail[k]
            j[0] = self.st.head[k]
            pos[0] = -1
        else:
            k = self.onl[rng_below(rng, self.n_free_on)]
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
                    if directed:
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
        cdef bint directed = self.st.directed
        if not directed or rng_uniform(rng) < 0.5:
            self.free_tie(rng, &a, &b, &p0)
            self.free_tie(rng, &c, &d, &p1)
            if not directed:
                if rng_uniform(rng) < 0.5:
                    t = a; a = b; b = t
                if rng_uniform(rng) < 0.5:
                    t = c; c = d; d = t
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
            for t in range(r):
                if ti[t] > tj[t]:
                    a = ti[t]; ti[t] = tj[t]; tj[t] = a
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

    cdef int propose_k(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp,
                       double* lq) noexcept nogil:
        # writes the toggles of one move; returns their number (0: no move)
        cdef int64_t L
        cdef double D = <double>self.n_free
        cdef int a, b, c, k, n = self.st.n, slot, tries
        lq[0] = 0.0
        self.relabel = False
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
        elif self.mode == 2 or self.mode == 7:
            if self.mode == 7 and rng_uniform(rng) < 0.5:
                k = self.neighbour_swap(rng, ti, tj, ton, tp)
                self.relabel = True
            else:
                if L < 2:
                    return 0
                k = self.swap_moves(rng, ti, tj, ton, tp)
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


cdef class ConstrainedSampler(MHSampler):
    """The Metropolis-Hastings engine for a :class:`ConstrainedProposal`:
    the same loop as :class:`~ergmfit.sampling.MHSampler` (and the same
    Python methods), with moves of several toggles scored by a factorised
    first stage and delayed acceptance (see the module's docstring)."""

    def __cinit__(self, BinaryModel model, Proposal proposal, cnp.uint64_t[:] seed):
        cdef int m
        if not isinstance(proposal, ConstrainedProposal):
            raise TypeError("ConstrainedSampler needs a ConstrainedProposal")
        self.cprop = <ConstrainedProposal>proposal
        if self.cprop.em is not model:
            raise ValueError("the proposal walks another compiled model")
        em = self.cprop.em
        free_of_ties = [type(k) in _TIE_FREE for k in em.kernels]
        unit = [type(k) is _dyadic.EdgesKernel for k in em.kernels]
        ks_init(&self.kall, em, [True] * len(unit), unit)
        ks_init(&self.kfree, em, free_of_ties, unit)
        ks_init(&self.kdep, em, [not f for f in free_of_ties], unit)
        m = self.cprop.max_toggles
        self.tbuf = <double*>malloc((m + 1) * max(1, model.n_stats) * sizeof(double))
        self.ti = <int*>malloc(m * sizeof(int))
        self.tj = <int*>malloc(m * sizeof(int))
        self.ton = <bint*>malloc(m * sizeof(bint))
        self.tp = <int64_t*>malloc(m * sizeof(int64_t))
        if (self.tbuf == NULL or self.ti == NULL or self.tj == NULL or self.ton == NULL
                or self.tp == NULL):
            raise MemoryError()
        dep = [t for t, f in enumerate(free_of_ties) if not f]
        self.dep_invariant = all(type(em.kernels[t]) in _LABEL_FREE for t in dep)
        self.one_pass = (not em.state.directed and em._n_stateful == 0
                         and all(type(em.kernels[t]) is _triad.GwespKernel for t in dep))
        if self.one_pass:
            self._init_gw(em, dep)
        self.one_pass = self.one_pass and self.n_gw == len(dep)

    def _init_gw(self, ERGMModel em, dep):
        # weight tables of the gwesp kernels (the kernels' own weights; counts past
        # the table by the same formula)
        cdef int j
        n = em.state.n
        self.n_gw = len(dep)
        self.gw_len = max(2, min(n + 2, 4096))
        m = max(1, self.n_gw)
        off = np.array([em._offsets[t] for t in dep] or [0], dtype=np.intc)
        tabs = [np.array([em.kernels[t].weight(s) for s in range(self.gw_len)], dtype=float)
                for t in dep]
        ea = np.array([np.exp(em.kernels[t].decay) for t in dep] or [1.0])
        with np.errstate(divide="ignore"):
            l1r = np.array([np.log1p(-np.exp(-em.kernels[t].decay)) for t in dep] or [0.0])
        d = np.zeros(m)
        ptrs = <double**>malloc(m * sizeof(double*))
        if ptrs == NULL:
            raise MemoryError()
        for j in range(self.n_gw):
            ptrs[j] = <double*>cnp.PyArray_DATA(tabs[j])
        self.gw_tab = ptrs
        self._gwkeep = [off, tabs, ea, l1r, d]
        self.gw_off = <int*>cnp.PyArray_DATA(off)
        self.gw_ea = <double*>cnp.PyArray_DATA(ea)
        self.gw_l1r = <double*>cnp.PyArray_DATA(l1r)
        self.gw_d = <double*>cnp.PyArray_DATA(d)

    def __dealloc__(self):
        ks_free(&self.kall)
        ks_free(&self.kfree)
        ks_free(&self.kdep)
        free(self.tbuf)
        free(self.ti)
        free(self.tj)
        free(self.ton)
        free(self.tp)
        free(self.mlog)
        free(self.gw_tab)

    @property
    def tie_free_terms(self):
        """How many of the model's term kernels read no tie (the factorised first stage)."""
        return self.kfree.n

    cdef double _gw_w(self, int j, int s) noexcept nogil:
        if s < self.gw_len:
            return self.gw_tab[j][s]
        return -self.gw_ea[j] * expm1(s * self.gw_l1r[j])

    cdef void _gw_add(self, int s0, int s1) noexcept nogil:
        # a tie whose count goes from s0 to s1 (-1: absent)
        cdef int j
        for j in range(self.n_gw):
            self.gw_d[j] += ((self._gw_w(j, s1) if s1 >= 0 else 0.0)
                             - (self._gw_w(j, s0) if s0 >= 0 else 0.0))

    cdef int _gw_change(self, const double* theta, int k, double* lr) noexcept nogil:
        # the exact change of the gwesp kernels under the k toggles (k <= MAX_TOGGLES),
        # with no toggle applied: each into gw_d, theta . change into lr; 1 when there
        # are too many shared partners to score this way (nothing done), else 0
        cdef const int* ti = self.ti
        cdef const int* tj = self.tj
        cdef int r, q, e, j, u, w, v, x, m, s0, ds
        cdef int nc = 0, ns = 0
        cdef int nodes[2 * MAX_TOGGLES]
        cdef int cn[GW_CAP]
        cdef int cand[2 * GW_CAP]
        cdef uint64_t keys[MAX_TOGGLES]
        for j in range(self.n_gw):
            self.gw_d[j] = 0.0
        for r in range(k):
            keys[r] = _pair_key(ti[r], tj[r])
        for r in range(k):
            u = ti[r]
            w = tj[r]
            m = _common(self.cprop.st, u, w, cn)
            if m < 0:
                return 1
            # the toggled dyad: sp(u, w) = m now
            if self.ton[r]:
                self._gw_add(m, -1)
            else:
                self._gw_add(-1, m + _dsp(self.cprop.st, ti, tj, keys, k, u, w))
            # kept ties (x, v), x an end of the toggle and v a neighbour of both
            # ends in x (those in x' only are ends of toggles: below)
            for q in range(m):
                v = cn[q]
                if not _toggle_at(keys, k, u, v) and not _push_pair(cand, &nc, u, v):
                    return 1
                if not _toggle_at(keys, k, w, v) and not _push_pair(cand, &nc, w, v):
                    return 1
            for e in range(2):
                x = u if e == 0 else w
                for q in range(ns):
                    if nodes[q] == x:
                        break
                else:
                    nodes[ns] = x
                    ns += 1
        # kept ties between two ends of toggles (the common neighbours of a toggle's
        # ends in x' but not in x are among these)
        for q in range(ns):
            for e in range(q + 1, ns):
                x = nodes[q]
                v = nodes[e]
                if not _toggle_at(keys, k, x, v) and _adj(self.cprop.st, x, v):
                    if not _push_pair(cand, &nc, x, v):
                        return 1
        for q in range(nc):
            x = cand[2 * q]
            v = cand[2 * q + 1]
            ds = _dsp(self.cprop.st, ti, tj, keys, k, x, v)
            if ds != 0:
                s0 = self.cprop.st.n_sp(x, v)
                self._gw_add(s0, s0 + ds)
        lr[0] = 0.0
        for j in range(self.n_gw):
            lr[0] += theta[self.gw_off[j]] * self.gw_d[j]
        return 0

    def _dependent_change(self, toggles):
        """The one-pass change of the gwesp kernels under the toggles [(i, j), ...]
        of the network now (for tests; nothing is applied)."""
        cdef int r
        cdef double one = 1.0
        if not self.one_pass or len(toggles) > MAX_TOGGLES:
            raise ValueError("no one-pass change for this model or move")
        for r, (i, j) in enumerate(toggles):
            self.ti[r] = min(i, j)
            self.tj[r] = max(i, j)
            self.ton[r] = self.cprop.st.has_tie(i, j)
        th = np.ones(self.model.n_stats)
        if self._gw_change(<double*>cnp.PyArray_DATA(th), len(toggles), &one) != 0:
            return None
        return [self.gw_d[r] for r in range(self.n_gw)]

    cdef bint _apart(self, int k) noexcept nogil:
        # gwesp only (one_pass), its change at the network now of each toggle in the
        # rows of tbuf: whether the toggles can be shown not to meet.  A toggle's
        # change is 0 exactly when its ends have no common neighbour; if none has
        # one now, no two ends of toggles are tied other than by a toggle and no
        # three toggles make a triangle, then no toggle's ends gain a common
        # neighbour as the others are applied, so the exact change of the move and
        # of the reverse move are 0: stage 3 would accept, and is skipped.  (On the
        # swaps and tie-for-non-tie moves of the degree and edges constraints a tie
        # between ends, or a triangle of toggles, already gives some toggle a common
        # neighbour now; the two last checks are for moves in general.)
        cdef int r, q, e, ns = 0, x, v, a, b
        cdef int nodes[2 * MAX_TOGGLES]
        cdef uint64_t keys[MAX_TOGGLES]
        cdef int p = self.model.n_stats
        for r in range(k):
            if self.tbuf[r * p + self.gw_off[0]] != 0.0:
                return False
            keys[r] = _pair_key(self.ti[r], self.tj[r])
            for e in range(2):
                x = self.ti[r] if e == 0 else self.tj[r]
                for q in range(ns):
                    if nodes[q] == x:
                        break
                else:
                    nodes[ns] = x
                    ns += 1
        for q in range(ns):
            for e in range(q + 1, ns):
                x = nodes[q]
                v = nodes[e]
                if _toggle_at(keys, k, x, v):
                    # a toggle {x, v}: a triangle of toggles through it?
                    for r in range(ns):
                        if (r != q and r != e and _toggle_at(keys, k, x, nodes[r])
                                and _toggle_at(keys, k, v, nodes[r])):
                            return False
                elif _adj(self.cprop.st, x, v):
                    return False
        return True

    cdef int _apply(self, int k, bint flip, int64_t* journal, int64_t* n_journal) noexcept nogil:
        # an accepted move: its k toggles (unless applied already) and its journal entry
        cdef int r
        if flip:
            for r in range(k):
                if self.cprop.flip(self.ti[r], self.tj[r], self.ton[r], self.tp[r]) != 0:
                    return -1
        if journal != NULL and self.log_move(self.ti, self.tj, k, journal, n_journal) != 0:
            return -1
        return 0

    cdef int log_move(self, const int* ti, const int* tj, int k, int64_t* journal,
                      int64_t* n_journal) noexcept nogil:
        # one journal entry per move: the offset of [k, keys...] in mlog
        cdef int64_t cap
        cdef int64_t* grown
        cdef int r
        cdef int64_t n = self.cprop.st.n
        if self.mlog_n + k + 1 > self.mlog_cap:
            cap = max(1024, 2 * (self.mlog_n + k + 1))
            grown = <int64_t*>realloc(self.mlog, cap * sizeof(int64_t))
            if grown == NULL:
                return -1
            self.mlog, self.mlog_cap = grown, cap
        journal[n_journal[0]] = self.mlog_n
        n_journal[0] += 1
        self.mlog[self.mlog_n] = k
        for r in range(k):
            self.mlog[self.mlog_n + 1 + r] = ti[r] * n + tj[r]
        self.mlog_n += k + 1
        return 0

    cdef double _indep(self, const KernelSet* ks, const double* theta, int k) noexcept nogil:
        # sum over the k toggles of the signed change statistics of ks, each at
        # the current network (rows of tbuf)
        cdef double lr = 0.0, s
        cdef int r
        cdef double* row
        for r in range(k):
            row = self.tbuf + r * self.model.n_stats
            ks_changes(ks, self.cprop.st, self.ti[r], self.tj[r], row)
            s = ks_dot(ks, theta, row)
            lr += -s if self.ton[r] else s
        return lr

    cdef int _forward(self, const KernelSet* ks, const double* theta, int k,
                      double* lr) noexcept nogil:
        # apply the k toggles in turn, each change of ks taken at the network the
        # previous ones left (row 0, at the current network, is already there)
        cdef int r
        cdef double s
        cdef double* row
        for r in range(k):
            row = self.tbuf + r * self.model.n_stats
            if r > 0:
                ks_changes(ks, self.cprop.st, self.ti[r], self.tj[r], row)
            s = ks_dot(ks, theta, row)
            lr[0] += -s if self.ton[r] else s
            if self.cprop.flip(self.ti[r], self.tj[r], self.ton[r], self.tp[r]) != 0:
                return -1
        return 0

    cdef int _undo(self, int k) noexcept nogil:
        cdef int r
        for r in range(k - 1, -1, -1):
            if self.cprop.flip(self.ti[r], self.tj[r], not self.ton[r], self.tp[r]) != 0:
                return -1
        return 0

    cdef int _batch(self, const double* theta, int64_t steps, double* delta,
                    double* add_acc, double* del_acc, bint apply,
                    int64_t* journal, int64_t* n_journal) noexcept nogil:
        cdef int64_t t
        cdef int k, r, c, p = self.model.n_stats
        cdef double lq, lr1, lr, lrev, s
        cdef int cc
        cdef bint accept, flipped
        cdef double* buf = self.tbuf
        cdef double* row
        cdef double* extra = self.tbuf + self.cprop.max_toggles * p
        cdef int* ti = self.ti
        cdef int* tj = self.tj
        cdef bint* ton = self.ton
        # moves scored with no toggle applied: the tie-free kernels' changes at x,
        # the dependent ones' exact change in one pass (or none: a relabelling)
        cdef bint quick = add_acc == NULL and del_acc == NULL
        cdef bint same
        for t in range(steps):
            k = self.cprop.propose_k(&self.rng, ti, tj, ton, self.tp, &lq)
            self.n_proposed += 1
            if k <= 0:
                continue
            self.n_moves += 1
            flipped = False
            if k == 1:
                # one toggle: plain Metropolis-Hastings
                if not _accept(&self.rng, lq + self._indep(&self.kall, theta, 1)):
                    continue
            elif quick and ((self.cprop.relabel and self.dep_invariant)
                            or (self.one_pass and not self.cprop.delayed and self.n_gw > 0
                                and k == 2)):
                # a relabelling (the dependent kernels do not change), or a move of two
                # toggles (a tie for a non-tie) with gwesp scored in one pass, no toggle
                # applied, instead of toggle by toggle.  (Swaps of four toggles were
                # slower in one pass on faux.magnolia.high: 2.10 against 2.31 M per CPU s;
                # and with delayed acceptance the staged path below is faster: its
                # stage 2 is cheaper than the exact change and rejects most moves.)
                same = self.cprop.relabel and self.dep_invariant
                lr1 = lq + self._indep(&self.kfree, theta, k)
                if self.cprop.delayed:
                    # factorised: the tie-free kernels first (exact by itself)
                    if not _accept(&self.rng, lr1):
                        continue
                    lr1 = 0.0
                lr = 0.0
                if not same and self._gw_change(theta, k, &lr) != 0:
                    # many shared partners: the exact change toggle by toggle
                    ks_changes(&self.kdep, self.cprop.st, ti[0], tj[0], buf)
                    if self._forward(&self.kdep, theta, k, &lr) != 0 or self._undo(k) != 0:
                        return -1
                    for c in range(self.n_gw):
                        self.gw_d[c] = 0.0
                        for r in range(k):
                            row = buf + r * p
                            self.gw_d[c] += -row[self.gw_off[c]] if ton[r] else row[self.gw_off[c]]
                if not _accept(&self.rng, lr1 + lr):
                    continue
                self.n_accepted += 1
                if apply:
                    if self._apply(k, True, journal, n_journal) != 0:
                        return -1
                    for r in range(k):
                        row = buf + r * p
                        for c in range(self.kfree.n):
                            for cc in range(self.kfree.off[c], self.kfree.off[c] + self.kfree.ns[c]):
                                delta[cc] += -row[cc] if ton[r] else row[cc]
                    if not same:
                        for c in range(self.n_gw):
                            delta[self.gw_off[c]] += self.gw_d[c]
                continue
            elif not self.cprop.delayed:
                # plain Metropolis-Hastings, the change taken toggle by toggle
                ks_changes(&self.kall, self.cprop.st, ti[0], tj[0], buf)
                lr = lq
                if self._forward(&self.kall, theta, k, &lr) != 0:
                    return -1
                flipped = True
                if not _accept(&self.rng, lr):
                    if self._undo(k) != 0:
                        return -1
                    continue
            else:
                # stage 1: the tie-free kernels, whose summed changes are exact
                if not _accept(&self.rng, lq + self._indep(&self.kfree, theta, k)):
                    continue
                if self.kdep.n:
                    # stage 2: the other kernels, each toggle at the current network
                    lr1 = self._indep(&self.kdep, theta, k)
                    if not _accept(&self.rng, lr1):
                        continue
                    if not (self.one_pass and k <= MAX_TOGGLES and self._apart(k)):
                        # stage 3: their exact change, toggle by toggle (all k applied) ...
                        lr = 0.0
                        if self._forward(&self.kdep, theta, k, &lr) != 0:
                            return -1
                        flipped = True
                        # ... and the reverse move's stage 2, at the proposed network
                        lrev = 0.0
                        for r in range(k):
                            ks_changes(&self.kdep, self.cprop.st, ti[r], tj[r], extra)
                            s = ks_dot(&self.kdep, theta, extra)
                            lrev += s if ton[r] else -s
                        if not _accept(&self.rng, lr + (lrev if lrev < 0.0 else 0.0)
                                       - (lr1 if lr1 < 0.0 else 0.0)):
                            if self._undo(k) != 0:
                                return -1
                            continue
            self.n_accepted += 1
            if apply:
                if self._apply(k, not flipped, journal, n_journal) != 0:
                    return -1
                for r in range(k):
                    row = buf + r * p
                    if ton[r]:
                        for c in range(p):
                            delta[c] -= row[c]
                    else:
                        for c in range(p):
                            delta[c] += row[c]
            elif flipped and self._undo(k) != 0:
                return -1
            for r in range(k):
                row = buf + r * p
                if ton[r]:
                    if del_acc != NULL:
                        for c in range(p):
                            del_acc[c] += row[c]
                elif add_acc != NULL:
                    for c in range(p):
                        add_acc[c] += row[c]
        return 0

    cdef int _revert(self, const int64_t* journal, int64_t n_journal) noexcept nogil:
        # undo the journalled moves, last first, toggle by toggle
        cdef int64_t r, off, key
        cdef int t, k, i, j
        cdef int64_t n = self.cprop.st.n
        for r in range(n_journal - 1, -1, -1):
            off = journal[r]
            k = <int>self.mlog[off]
            for t in range(k - 1, -1, -1):
                key = self.mlog[off + 1 + t]
                i = <int>(key // n)
                j = <int>(key % n)
                if self.cprop.flip(i, j, self.cprop.st.has_tie(i, j), -2) != 0:
                    return -1
        if n_journal > 0:
            self.mlog_n = journal[0]
        return 0
