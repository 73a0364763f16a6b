# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The Metropolis-Hastings engine of the constrained proposals
(:class:`~ergmfit.sampling._constrained.ConstrainedProposal`): moves of several
toggles scored in stages, with the exact shortcuts of :mod:`._constrained` (``_gwpass.pxi``) (see the
docstring of :mod:`._constrained` for the moves and the staged acceptance)."""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free, realloc
from ergmfit.terms._ergm cimport ERGMModel
from ergmfit.core._model cimport BinaryModel
from ergmfit.sampling._proposals cimport Proposal
from ergmfit.sampling._mh cimport add_row, acc_row, mh_accept as _accept
from ergmfit.sampling._kernelsets cimport KernelSet, ks_changes, ks_dot, ks_init, ks_free
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms import _coreterms

cnp.import_array()

# kernels whose change statistic reads no tie of the network (dyadic covariates:
# ``mutual`` reads the reverse tie and is not one of them)
from ergmfit.terms.multinet import TIE_FREE_KERNELS as _TIE_FREE

# kernels whose statistic reads no node label or attribute (its value is the
# same on any relabelling of the network): a neighbourhood exchange of two
# nodes is such a relabelling, so it does not change them
_LABEL_FREE = tuple(getattr(_coreterms, name) for name in (
    "TriangleKernel", "TwopathKernel", "EspKernel", "DspKernel", "NspKernel", "GwespKernel",
    "GwdspKernel", "GwnspKernel", "CycleKernel")) + tuple(getattr(_coreterms, name) for name in (
    "StarKernel", "DegreeKernel", "GWDegreeKernel", "AltStarKernel", "IsolatesKernel"))


cdef class ConstrainedSampler(MHSampler):
    """The Metropolis-Hastings engine for a :class:`ConstrainedProposal`:
    the same loop as :class:`~ergmfit.sampling.MHSampler` (and the same
    Python methods), with moves of several toggles scored by a factorised
    first stage and delayed acceptance (see the module's docstring)."""

    def __cinit__(self, BinaryModel model, Proposal proposal, cnp.uint64_t[:] seed):
        cdef int m, r, t
        if not isinstance(proposal, ConstrainedProposal):
            raise TypeError("ConstrainedSampler needs a ConstrainedProposal")
        self.cprop = <ConstrainedProposal>proposal
        if self.cprop.em is not model:
            raise ValueError("the proposal walks another compiled model")
        em = self.cprop.em
        free_of_ties = [type(k) in _TIE_FREE for k in em.kernels]
        unit = [type(k) is _coreterms.EdgesKernel for k in em.kernels]
        ks_init(&self.kall, em, [True] * len(unit), unit)
        ks_init(&self.kfree, em, free_of_ties, unit)
        ks_init(&self.kfree1, em, [f and not u for f, u in zip(free_of_ties, unit)], unit)
        ks_init(&self.kdep, em, [not f for f in free_of_ties], unit)
        m = self.cprop.max_toggles
        self.tbuf = <double*>malloc((m + 1) * max(1, model.n_stats) * sizeof(double))
        self.ti = <int*>malloc(m * sizeof(int))
        self.tj = <int*>malloc(m * sizeof(int))
        self.ton = <bint*>malloc(m * sizeof(bint))
        self.tp = <int64_t*>malloc(m * sizeof(int64_t))
        self.uoff = <int*>malloc(max(1, len(unit)) * sizeof(int))
        if (self.tbuf == NULL or self.uoff == NULL or self.ti == NULL or self.tj == NULL or self.ton == NULL
                or self.tp == NULL):
            raise MemoryError()
        # the unit kernels' (edges') column of every row of tbuf: 1 for good
        # (_free_lr does not write it)
        self.nunit = 0
        for t, u in enumerate(unit):
            if u:
                self.uoff[self.nunit] = em._offsets[t]
                self.nunit += 1
        for r in range(m + 1):
            for t in range(self.nunit):
                self.tbuf[r * max(1, model.n_stats) + self.uoff[t]] = 1.0
        dep = [t for t, f in enumerate(free_of_ties) if not f]
        self.dep_invariant = all(type(em.kernels[t]) in _LABEL_FREE for t in dep)
        self.one_pass = (not em.state.directed and em._n_stateful == 0
                         and all(type(em.kernels[t]) is _coreterms.GwespKernel for t in dep))
        if self.one_pass:
            self._init_gw(em, dep)
        self.one_pass = self.one_pass and self.gw.n == len(dep)

    def _init_gw(self, ERGMModel em, dep):
        # weight tables of the gwesp kernels (the kernels' own weights; counts past
        # the table by the same formula)
        cdef int j
        n = em.state.n
        self.gw.n = len(dep)
        self.gw.len = max(2, min(n + 2, 4096))
        m = max(1, self.gw.n)
        off = np.array([em._offsets[t] for t in dep] or [0], dtype=np.intc)
        tabs = [np.array([em.kernels[t].weight(s) for s in range(self.gw.len)], dtype=float)
                for t in dep]
        ea = np.array([np.exp(em.kernels[t].decay) for t in dep] or [1.0])
        with np.errstate(divide="ignore"):
            l1r = np.array([np.log1p(-np.exp(-em.kernels[t].decay)) for t in dep] or [0.0])
        d = np.zeros(m)
        ptrs = <double**>malloc(m * sizeof(double*))
        if ptrs == NULL:
            raise MemoryError()
        for j in range(self.gw.n):
            ptrs[j] = <double*>cnp.PyArray_DATA(tabs[j])
        self.gw.tab = ptrs
        self._gwkeep = [off, tabs, ea, l1r, d]
        self.gw.off = <int*>cnp.PyArray_DATA(off)
        self.gw.ea = <double*>cnp.PyArray_DATA(ea)
        self.gw.l1r = <double*>cnp.PyArray_DATA(l1r)
        self.gw.d = <double*>cnp.PyArray_DATA(d)

    def __dealloc__(self):
        ks_free(&self.kall)
        ks_free(&self.kfree)
        ks_free(&self.kfree1)
        free(self.uoff)
        ks_free(&self.kdep)
        free(self.tbuf)
        free(self.ti)
        free(self.tj)
        free(self.ton)
        free(self.tp)
        free(self.mlog)
        free(self.gw.tab)

    @property
    def tie_free_terms(self):
        """How many of the model's term kernels read no tie (the factorised first stage)."""
        return self.kfree.n

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
        if gw_change(&self.gw, self.cprop.st, self.ti, self.tj, self.ton, len(toggles),
                     <double*>cnp.PyArray_DATA(th), &one) != 0:
            return None
        return [self.gw.d[r] for r in range(self.gw.n)]

    def _apart(self, toggles, bint swap):
        """gw_apart_now on the toggles [(i, j), ...] of the network now (for tests):
        whether they provably do not meet, with the double-edge-swap shortcut when
        ``swap``."""
        cdef int r
        if len(toggles) > MAX_TOGGLES:
            raise ValueError("too many toggles")
        for r, (i, j) in enumerate(toggles):
            self.ti[r] = min(i, j)
            self.tj[r] = max(i, j)
        return bool(gw_apart_now(self.cprop.st, self.ti, self.tj, len(toggles), swap))

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

    cdef double _free_lr(self, const double* theta, int k) noexcept nogil:
        # stage 1 of a move of k toggles: theta . the summed signed changes of the
        # tie-free kernels at the current network (rows of tbuf).  The unit
        # kernels (edges: change 1) add theta times (adds - removes), nothing on
        # the moves of several toggles (each keeps the tie count): they are not
        # called, their columns of tbuf hold 1 for good.
        cdef const KernelSet* ks = &self.kfree1
        cdef int r, t, c, p = self.model.n_stats, net = 0
        cdef double lr = 0.0, s
        cdef double* row
        for r in range(k):
            row = self.tbuf + r * p
            net += -1 if self.ton[r] else 1
            for t in range(ks.n):
                (<TermKernel>ks.kern[t]).change(self.cprop.st, self.ti[r], self.tj[r], row + ks.off[t])
        for t in range(ks.n):
            for c in range(ks.off[t], ks.off[t] + ks.ns[t]):
                s = 0.0
                for r in range(k):
                    s += -self.tbuf[r * p + c] if self.ton[r] else self.tbuf[r * p + c]
                lr += theta[c] * s
        if net != 0:
            for t in range(self.nunit):
                lr += net * theta[self.uoff[t]]
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
        cdef bint flipped
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
                            or (self.one_pass and not self.cprop.delayed and self.gw.n > 0
                                and k == 2)):
                # a relabelling (the dependent kernels do not change), or a move of two
                # toggles (a tie for a non-tie) with gwesp scored in one pass, no toggle
                # applied, instead of toggle by toggle.  (Swaps of four toggles were
                # slower in one pass on faux.magnolia.high: 2.10 against 2.31 M per CPU s;
                # and with delayed acceptance the staged path below is faster: its
                # stage 2 is cheaper than the exact change and rejects most moves.)
                same = self.cprop.relabel and self.dep_invariant
                lr1 = lq + self._free_lr(theta, k)
                if self.cprop.delayed:
                    # factorised: the tie-free kernels first (exact by itself)
                    if not _accept(&self.rng, lr1):
                        continue
                    lr1 = 0.0
                lr = 0.0
                if not same and gw_change(&self.gw, self.cprop.st, ti, tj, ton, k, theta, &lr) != 0:
                    # many shared partners: the exact change toggle by toggle
                    ks_changes(&self.kdep, self.cprop.st, ti[0], tj[0], buf)
                    if self._forward(&self.kdep, theta, k, &lr) != 0 or self._undo(k) != 0:
                        return -1
                    for c in range(self.gw.n):
                        self.gw.d[c] = 0.0
                        for r in range(k):
                            row = buf + r * p
                            self.gw.d[c] += -row[self.gw.off[c]] if ton[r] else row[self.gw.off[c]]
                if not _accept(&self.rng, lr1 + lr):
                    continue
                self.n_accepted += 1
                self.cprop.lift_ok = 1          # (the lifted moves turn after a rejection)
                if apply:
                    if self._apply(k, True, journal, n_journal) != 0:
                        return -1
                    for r in range(k):
                        row = buf + r * p
                        for c in range(self.kfree.n):
                            for cc in range(self.kfree.off[c], self.kfree.off[c] + self.kfree.ns[c]):
                                delta[cc] += -row[cc] if ton[r] else row[cc]
                    if not same:
                        for c in range(self.gw.n):
                            delta[self.gw.off[c]] += self.gw.d[c]
                continue
            elif not self.cprop.delayed:
                # plain Metropolis-Hastings, the change taken toggle by toggle: the first
                # k - 1 toggles applied, the last one's change taken there and applied only
                # if the move is accepted (a rejected move undoes k - 1 toggles, not k)
                ks_changes(&self.kall, self.cprop.st, ti[0], tj[0], buf)
                lr = lq
                if self._forward(&self.kall, theta, k - 1, &lr) != 0:
                    return -1
                row = buf + (k - 1) * p
                ks_changes(&self.kall, self.cprop.st, ti[k - 1], tj[k - 1], row)
                s = ks_dot(&self.kall, theta, row)
                lr += -s if ton[k - 1] else s
                if not _accept(&self.rng, lr):
                    if self._undo(k - 1) != 0:
                        return -1
                    continue
                if self.cprop.flip(ti[k - 1], tj[k - 1], ton[k - 1], self.tp[k - 1]) != 0:
                    return -1
                flipped = True
            else:
                # stage 1: the tie-free kernels, whose summed changes are exact
                if not _accept(&self.rng, lq + self._free_lr(theta, k)):
                    continue
                if self.kdep.n and self.one_pass and k <= MAX_TOGGLES and gw_apart_now(
                        self.cprop.st, ti, tj, k, self.cprop.swap):
                    # gwesp only, and the toggles provably do not meet (see gw_apart_now):
                    # its change at x, exact and at the proposed network is 0, so stages 2
                    # and 3 would accept without a draw (skipped: the same chain)
                    for r in range(k):
                        for c in range(self.gw.n):
                            buf[r * p + self.gw.off[c]] = 0.0
                elif self.kdep.n:
                    # stage 2: the other kernels, each toggle at the current network
                    lr1 = self._indep(&self.kdep, theta, k)
                    if not _accept(&self.rng, lr1):
                        continue
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
            self.cprop.lift_ok = 1          # (the lifted moves turn after a rejection)
            if apply:
                if self._apply(k, not flipped, journal, n_journal) != 0:
                    return -1
                for r in range(k):
                    add_row(delta, buf + r * p, p, ton[r])
            elif flipped and self._undo(k) != 0:
                return -1
            for r in range(k):
                acc_row(buf + r * p, p, ton[r], add_acc, del_acc)
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
