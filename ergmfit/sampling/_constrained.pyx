# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Proposals that never leave a constrained sample space, and the sampler
that runs their multi-toggle moves.

:class:`ConstrainedProposal` walks the networks that agree with the
observed one outside a set of *free* dyads (``blockdiag``, ``blocks``,
``fixallbut``, ``fixedas``, ``dyads``, ``observed``, missing dyads), with
optional bounds on the degrees (``bd``), by one of five moves (``mode``):

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

A move that would leave the space (a fixed dyad, a degree bound) is
proposed as "no move": the chain stays, which keeps the Metropolis-Hastings
ratio exact on the restricted space.  Every move is scored toggle by toggle
(each change statistic at the state the previous toggles left).
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport log
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free, realloc
from ergmfit.core._random cimport RNG, rng_below, rng_uniform, rng_uniform_pos
from ergmfit.terms._ergm cimport ERGMModel
from ergmfit.core._model cimport BinaryModel

cnp.import_array()

MODES = {"tnt": 0, "edges": 1, "degrees": 2, "odegrees": 3, "idegrees": 4}
_BIG = 1 << 30


cdef inline double _taylor4(double y) noexcept nogil:
    return 1.0 + y * (1.0 + y * (0.5 + y * (1.0 / 6.0 + y * (1.0 / 24.0))))


cdef inline int _slot(int* nodes, int* dout, int* din, int* nn, int node) noexcept nogil:
    # the position of ``node`` among the nn nodes seen, added (with zero counts) if new
    cdef int s
    for s in range(nn[0]):
        if nodes[s] == node:
            return s
    nodes[nn[0]] = node
    dout[nn[0]] = 0
    din[nn[0]] = 0
    nn[0] += 1
    return nn[0] - 1


cdef class ConstrainedProposal(Proposal):
    """A move of ``mode`` over the free variables of a compiled ERGM.

    Parameters
    ----------
    model : ERGMModel
        The compiled model the chain runs on.
    mode : {"tnt", "edges", "degrees", "odegrees", "idegrees"}
    free_vars : int64 array or None
        The free variables (dyad indices); None: every dyad.
    bounds : (lo_out, hi_out, lo_in, hi_in) int arrays of length n, or None
        Degree bounds (undirected: the degree must lie in [lo_out, hi_out]).
    """

    def __init__(self, ERGMModel model, mode="tnt", free_vars=None, bounds=None):
        self.em = model
        if mode not in MODES:
            raise ValueError(f"unknown constrained move {mode!r}")
        self.mode = MODES[mode]
        keep = []
        self.all_free = free_vars is None
        if self.all_free:
            self.n_free = model.n_vars
        else:
            fv = np.ascontiguousarray(np.unique(np.asarray(free_vars, dtype=np.int64)))
            if len(fv) and (fv[0] < 0 or fv[len(fv) - 1] >= model.n_vars):
                raise ValueError("free variable out of range")
            self.n_free = len(fv)
            onl = np.zeros(max(1, self.n_free), dtype=np.int64)
            onpos = np.full(max(1, self.n_free), -1, dtype=np.int64)
            fv1 = fv if len(fv) else np.zeros(1, dtype=np.int64)
            pairs = _pairs_of(model, fv1)
            fi1 = np.ascontiguousarray(pairs[:, 0])
            fj1 = np.ascontiguousarray(pairs[:, 1])
            keep += [fv1, onl, onpos, fi1, fj1]
            self.fi = <int*>cnp.PyArray_DATA(fi1)
            self.fj = <int*>cnp.PyArray_DATA(fj1)
            self.fv = <int64_t*>cnp.PyArray_DATA(fv1)
            self.onl = <int64_t*>cnp.PyArray_DATA(onl)
            self.onpos = <int64_t*>cnp.PyArray_DATA(onpos)
            self.seen_version = -1
        self.has_bounds = bounds is not None
        if self.has_bounds:
            arrs = [np.ascontiguousarray(b, dtype=np.intc) for b in bounds]
            if len(arrs) != 4 or any(a.shape != (model.state.n,) for a in arrs):
                raise ValueError("bounds must be four arrays of one value per node")
            keep += arrs
            self.lo_out = <int*>cnp.PyArray_DATA(arrs[0])
            self.hi_out = <int*>cnp.PyArray_DATA(arrs[1])
            self.lo_in = <int*>cnp.PyArray_DATA(arrs[2])
            self.hi_in = <int*>cnp.PyArray_DATA(arrs[3])
        self._keep = keep

    @property
    def n_moves_max(self):
        return MAX_TOGGLES

    # -- the free set ------------------------------------------------------
    cdef void sync(self) noexcept nogil:
        # rebuild the free-tie list if the network changed behind our back
        cdef int64_t k
        if self.all_free or self.seen_version == self.em.state.version:
            return
        self.n_free_on = 0
        for k in range(self.n_free):
            if self.em.get(self.fv[k]):
                self.onpos[k] = self.n_free_on
                self.onl[self.n_free_on] = k
                self.n_free_on += 1
            else:
                self.onpos[k] = -1
        self.seen_version = self.em.state.version

    cdef void toggled(self, int64_t v, bint now_on) noexcept nogil:
        # keep the free-tie list after a flip of v (called right after it)
        cdef int64_t k, p, last
        if self.all_free:
            return
        if self.seen_version != self.em.state.version - 1:
            return                       # already stale: sync() rebuilds
        k = self.find(v)
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
        self.seen_version = self.em.state.version

    cdef int64_t find(self, int64_t v) noexcept nogil:
        # the position of variable v among the (sorted) free ones, or -1
        cdef int64_t lo = 0, hi = self.n_free, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.fv[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < self.n_free and self.fv[lo] == v else -1

    cdef bint is_free(self, int64_t v) noexcept nogil:
        return self.all_free or self.find(v) >= 0

    cdef int64_t free_tie(self, RNG* rng) noexcept nogil:
        cdef int64_t k
        if self.all_free:
            return self.em.on_var(rng_below(rng, self.em.n_on()))
        k = self.onl[rng_below(rng, self.n_free_on)]
        return self.em.proposed_var(self.fi[k], self.fj[k])

    cdef int64_t free_dyad(self, RNG* rng) noexcept nogil:
        cdef int64_t k
        if self.all_free:
            return self.em.random_var(rng)
        k = rng_below(rng, self.n_free)
        return self.em.proposed_var(self.fi[k], self.fj[k])

    cdef bint bounds_ok(self, const int64_t* out, int k) noexcept nogil:
        # the degrees after the k toggles stay within the bounds
        cdef int nodes[2 * MAX_TOGGLES]
        cdef int dout[2 * MAX_TOGGLES]
        cdef int din[2 * MAX_TOGGLES]
        cdef int nn = 0, r, s, i, j, sgn, d
        cdef bint directed = self.em.state.directed
        for r in range(k):
            sgn = -1 if self.em.get(out[r]) else 1
            self.em.dyad(out[r], &i, &j)
            s = _slot(nodes, dout, din, &nn, i)
            dout[s] += sgn
            s = _slot(nodes, dout, din, &nn, j)
            if directed:
                din[s] += sgn
            else:
                dout[s] += sgn
        for s in range(nn):
            i = nodes[s]
            if dout[s] != 0:
                d = self.em.state.out_deg[i] + dout[s]
                if d < self.lo_out[i] or d > self.hi_out[i]:
                    return False
            if directed and din[s] != 0:
                d = self.em.state.in_deg[i] + din[s]
                if d < self.lo_in[i] or d > self.hi_in[i]:
                    return False
        return True

    # -- moves -------------------------------------------------------------
    cdef int propose_k(self, RNG* rng, int64_t* out, double* lq) noexcept nogil:
        # writes the toggles of one move into out; returns their number (0: no move)
        cdef int64_t L, v, e1, e2, n1, n2
        cdef double D = <double>self.n_free
        cdef int a, b, c, d, t, k, tries, n = self.em.state.n
        cdef bint directed = self.em.state.directed
        lq[0] = 0.0
        self.sync()
        L = self.em.n_on() if self.all_free else self.n_free_on
        if self.n_free <= 0:
            return 0
        if self.mode == 0:
            if L > 0 and rng_uniform(rng) < 0.5:
                v = self.free_tie(rng)
            else:
                v = self.free_dyad(rng)
            if self.em.get(v):
                lq[0] = log(((0.5 / D) if L > 1 else (1.0 / D)) / (0.5 / L + 0.5 / D))
            else:
                lq[0] = log((0.5 / (L + 1) + 0.5 / D) / ((0.5 / D) if L > 0 else (1.0 / D)))
            out[0] = v
            k = 1
        elif self.mode == 1:
            if L == 0 or L >= self.n_free:
                return 0
            out[0] = self.free_tie(rng)
            tries = 0
            while True:
                v = self.free_dyad(rng)
                if not self.em.get(v):
                    break
                tries += 1
                if tries > 1000000:
                    return 0
            out[1] = v
            k = 2
        elif self.mode == 2:
            if L < 2:
                return 0
            if not directed or rng_uniform(rng) < 0.5:
                e1 = self.free_tie(rng)
                self.em.dyad(e1, &a, &b)
                e2 = self.free_tie(rng)
                self.em.dyad(e2, &c, &d)
                if e1 == e2:
                    return 0
                if not directed:
                    if rng_uniform(rng) < 0.5:
                        t = a; a = b; b = t
                    if rng_uniform(rng) < 0.5:
                        t = c; c = d; d = t
                if a == c or b == d or a == d or c == b:
                    return 0
                if self.em.state.has_tie(a, d) or self.em.state.has_tie(c, b):
                    return 0
                n1 = self.em.var(a, d)
                n2 = self.em.var(c, b)
                if not (self.is_free(n1) and self.is_free(n2)):
                    return 0
                out[0] = e1; out[1] = e2; out[2] = n1; out[3] = n2
                k = 4
            else:
                # reverse the 3-cycle a->b->c->a
                e1 = self.free_tie(rng)
                self.em.dyad(e1, &a, &b)
                c = <int>rng_below(rng, n)
                if c == a or c == b:
                    return 0
                if not (self.em.state.has_tie(b, c) and self.em.state.has_tie(c, a)):
                    return 0
                if self.em.state.has_tie(b, a) or self.em.state.has_tie(c, b) or self.em.state.has_tie(a, c):
                    return 0
                out[0] = e1; out[1] = self.em.var(b, c); out[2] = self.em.var(c, a)
                out[3] = self.em.var(b, a); out[4] = self.em.var(c, b); out[5] = self.em.var(a, c)
                for t in range(1, 6):
                    if not self.is_free(out[t]):
                        return 0
                k = 6
        else:
            if L < 1:
                return 0
            e1 = self.free_tie(rng)
            self.em.dyad(e1, &a, &b)
            c = <int>rng_below(rng, n)
            if c == a or c == b:
                return 0
            if self.mode == 3:
                if self.em.state.has_tie(a, c):
                    return 0
                n1 = self.em.var(a, c)
            else:
                if self.em.state.has_tie(c, b):
                    return 0
                n1 = self.em.var(c, b)
            if not self.is_free(n1):
                return 0
            out[0] = e1; out[1] = n1
            k = 2
        if self.has_bounds and not self.bounds_ok(out, k):
            return 0
        return k

    # -- the one-toggle interface of the plain engine --------------------------
    cdef int64_t propose(self, BinaryModel bm, RNG* rng, double* log_q_ratio) noexcept nogil:
        cdef int64_t out[MAX_TOGGLES]
        cdef int k = self.propose_k(rng, out, log_q_ratio)
        return out[0] if k == 1 else -1

    cdef void accepted(self, BinaryModel bm, int64_t v, bint now_on) noexcept nogil:
        if self.em.get(v) == now_on:          # applied (not an apply=False scoring)
            self.toggled(v, now_on)

    def counts(self):
        """(free dyads, free ties now)."""
        self.sync()
        return int(self.n_free), int(self.em.n_on() if self.all_free else self.n_free_on)


cdef class ConstrainedSampler(MHSampler):
    """The Metropolis-Hastings engine for a :class:`ConstrainedProposal`:
    the same loop as :class:`~ergmfit.sampling.MHSampler` (and the same
    Python methods), with moves of up to six toggles."""

    def __cinit__(self, BinaryModel model, Proposal proposal, cnp.uint64_t[:] seed):
        if not isinstance(proposal, ConstrainedProposal):
            raise TypeError("ConstrainedSampler needs a ConstrainedProposal")
        self.cprop = <ConstrainedProposal>proposal
        if self.cprop.em is not model:
            raise ValueError("the proposal walks another compiled model")
        self.tbuf = <double*>malloc(MAX_TOGGLES * max(1, model.n_stats) * sizeof(double))
        if self.tbuf == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.tbuf)
        free(self.mlog)

    cdef int log_move(self, const int64_t* tog, int k, int64_t* journal,
                      int64_t* n_journal) noexcept nogil:
        # one journal entry per move: the offset of [k, toggles...] in mlog
        cdef int64_t cap
        cdef int64_t* grown
        cdef int r
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
            self.mlog[self.mlog_n + 1 + r] = tog[r]
        self.mlog_n += k + 1
        return 0

    cdef int _batch(self, const double* theta, int64_t steps, double* delta,
                    double* add_acc, double* del_acc, bint apply,
                    int64_t* journal, int64_t* n_journal) noexcept nogil:
        cdef int64_t t, v
        cdef int64_t tog[MAX_TOGGLES]
        cdef bint was_on[MAX_TOGGLES]
        cdef int k, r, c, p = self.model.n_stats
        cdef double lq, dot, lr, u
        cdef bint accept
        cdef double* buf = self.tbuf
        cdef double* row
        for t in range(steps):
            k = self.cprop.propose_k(&self.rng, tog, &lq)
            self.n_proposed += 1
            if k <= 0:
                continue
            dot = 0.0
            for r in range(k):
                v = tog[r]
                was_on[r] = self.cprop.em.get(v)
                row = buf + r * p
                self.cprop.em.change(v, row)
                if was_on[r]:
                    for c in range(p):
                        dot -= theta[c] * row[c]
                else:
                    for c in range(p):
                        dot += theta[c] * row[c]
                if r < k - 1:                 # the next toggle is scored after this one
                    if self.cprop.em.flip(v) != 0:
                        return -1
                    self.cprop.toggled(v, not was_on[r])
            lr = dot + lq
            if lr >= 0.0:
                accept = True
            else:
                u = rng_uniform_pos(&self.rng)
                accept = u * _taylor4(-lr) <= 1.0 + 1e-9 and log(u) < lr
            if accept and apply:
                v = tog[k - 1]
                if self.cprop.em.flip(v) != 0:
                    return -1
                self.cprop.toggled(v, not was_on[k - 1])
                if journal != NULL and self.log_move(tog, k, journal, n_journal) != 0:
                    return -1
                for r in range(k):
                    row = buf + r * p
                    if was_on[r]:
                        for c in range(p):
                            delta[c] -= row[c]
                    else:
                        for c in range(p):
                            delta[c] += row[c]
            else:
                for r in range(k - 2, -1, -1):
                    if self.cprop.em.flip(tog[r]) != 0:
                        return -1
                    self.cprop.toggled(tog[r], was_on[r])
            if accept:
                self.n_accepted += 1
                for r in range(k):
                    row = buf + r * p
                    if was_on[r]:
                        if del_acc != NULL:
                            for c in range(p):
                                del_acc[c] += row[c]
                    elif add_acc != NULL:
                        for c in range(p):
                            add_acc[c] += row[c]
        return 0

    cdef int _revert(self, const int64_t* journal, int64_t n_journal) noexcept nogil:
        # undo the journalled moves, last first, toggle by toggle
        cdef int64_t r, off, v
        cdef int t, k
        cdef bint on
        for r in range(n_journal - 1, -1, -1):
            off = journal[r]
            k = <int>self.mlog[off]
            for t in range(k - 1, -1, -1):
                v = self.mlog[off + 1 + t]
                on = self.cprop.em.get(v)
                if self.model.flip(v) != 0:
                    return -1
                self.cprop.toggled(v, not on)
        if n_journal > 0:
            self.mlog_n = journal[0]
        return 0


def _pairs_of(ERGMModel model, cnp.int64_t[::1] vars):
    """(i, j) of each variable, as an (m, 2) int array."""
    out = np.empty((vars.shape[0], 2), dtype=np.intc)
    cdef int[:, ::1] ov = out
    cdef int64_t r
    cdef int i, j
    for r in range(vars.shape[0]):
        model.dyad(vars[r], &i, &j)
        ov[r, 0] = i
        ov[r, 1] = j
    return out


def change_rows(ERGMModel model, vars):
    """Change statistics and values of the variables ``vars`` at the model's
    state: (X, y) with X[r] = g(x_v=1) - g(x_v=0) of v = vars[r]."""
    cdef cnp.int64_t[::1] vv = np.ascontiguousarray(vars, dtype=np.int64)
    cdef int64_t m = vv.shape[0], r
    cdef int p = model.n_stats
    X = np.zeros((m, max(p, 1)))
    y = np.zeros(m, dtype=np.int8)
    cdef double[:, ::1] Xv = X
    cdef cnp.int8_t[::1] yv = y
    if m and (np.min(vars) < 0 or np.max(vars) >= model.n_vars):
        raise ValueError("variable out of range")
    with nogil:
        for r in range(m):
            model.change(vv[r], &Xv[r, 0])
            yv[r] = model.get(vv[r])
    return X[:, :p], y
