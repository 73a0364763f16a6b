"""The dynamic process of a separable temporal ERGM as one compiled chain.

A time step draws y_t from p(y_t | y_{t-1}) by Metropolis-Hastings on the one-transition
model whose previous network is y_{t-1}; then every temporal kernel of the bound model is
advanced in place (``TemporalKernel.advance``: y⁻ := y, O(ties) compiled work).  One
compiled model and one sampler serve the whole run: Python only calls the sampler and the
advance once per step, never per dyad.

A model dyad-independent given y⁻ whose terms declare their attribute cells (EpiModel's
edges-dissolution models: ``Form(~edges + nodematch("g")) + Persist(~offset(edges))``) is
stepped exactly instead, without Metropolis-Hastings (``exact=True``): every tie of y⁻
dissolves independently with its probability d, and every non-tie forms with its p, both by
thinning -- the ties: a Binomial(M, d_max) uniform subset of the M ties, each of it dropped
with probability d / d_max; the non-ties: a Binomial(N, q) uniform subset of the N dyads (q
the largest formation probability over the attribute cells), each non-tie of it kept with
probability p_ij / q.  The present ties are a table (variable, change row, d, step formed)
updated by each step's flips; the change statistics come from the compiled model
(``change_matrix``), the flips from its compiled loop (``change_and_flip``) and the
operators' y⁻ := y visits the flipped dyads only: O(formations + dissolutions) per step,
never O(ties) or O(dyads) (O(ties) once, and when η changes).

Cross-sectional statistics of every step (EGMME's targets, netdx's target statistics) ride
along as ``Cross(~...)`` terms with coefficient 0: their running value is exact (a Cross
kernel never depends on y⁻).  Tie ages are kept as the step at which each present tie
formed (numpy over the ties that changed).
"""
from __future__ import annotations

import numpy as np

from ..runtime import ctrl_c_flag
from ..terms._coreterms import TemporalKernel


class DynamicChain:
    """The dynamic process of ``model`` (a :class:`~ergmfit.temporal.model.TemporalERGM`)
    started from ``start`` (an (m, 2) tie array of its nodes; default the last wave).

    Parameters
    ----------
    model : TemporalERGM
        Its formula is the dynamic model (``Form(~...) + Persist(~...)``, any operators).
    cross : str, optional
        A formula of cross-sectional statistics followed at every step (``"edges +
        gwesp(0, fixed=TRUE)"``); read with :meth:`run` (``cross`` columns).
    proposals : int, optional
        Metropolis-Hastings proposals per time step (default 16 per dyad).
    exact : {"auto", True, False}
        Step a dyad-independent model exactly (see the module docstring); "auto": when
        the model allows it.
    random_state : int, Generator or None

    Examples
    --------
    >>> import networkx as nx, ergmfit as ef
    >>> from ergmfit.temporal.chain import DynamicChain
    >>> s = ef.NetSeries([nx.gnp_random_graph(20, 0.1, seed=1)] * 2)
    >>> m = ef.ERGM(s, "Form(~edges) + Persist(~edges)")
    >>> chain = DynamicChain(m, cross="edges", random_state=1)
    >>> out = chain.run(m.eta([-3.0, 2.0]), 5)
    >>> out.cross.shape, out.n_ties.shape
    ((5, 1), (5,))
    """

    def __init__(self, model, cross=None, start=None, proposals=None, random_state=None,
                 exact="auto"):
        from ..utils.validation import check_random_state
        self.rng = check_random_state(random_state)
        wave = model.series.waves[-1]
        if start is not None:
            wave = wave.with_ties(np.asarray(start, dtype=np.int64).reshape(-1, 2))
        formula = model.formula
        self.cross_formula = cross
        self.n_model = len(model.stat_labels)
        if cross:
            formula = f"{formula} + Cross(~{cross})"
        self.model = model.transition_model(wave, formula)
        self.n_cross = len(self.model.stat_labels) - self.n_model
        n = wave.n
        n_dyads = n * (n - 1) // (1 if wave.directed else 2)
        self.n_dyads = n_dyads
        self.proposals = int(proposals) if proposals is not None else 16 * n_dyads
        zero = np.zeros(len(self.model.labels))
        self.sampler, self.compiled = self.model.sampler(zero, random_state=self.rng)
        self.state = self.compiled.state
        kernels = self.compiled.kernels
        sizes = [k.n_stats for k in kernels]
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        # the temporal kernels and their columns in the statistics vector
        self._temporal = [(k, starts[c], starts[c + 1]) for c, k in enumerate(kernels)
                          if isinstance(k, TemporalKernel)]
        # statistics of the current transition = base + sampler.delta
        self._base = self.model.statistics_vector() - np.asarray(self.sampler.delta)
        self._exact_delta = np.zeros(len(self._base))
        self.step = 0
        self._aged_until = 0
        self.durations = []
        self.classes = self._node_classes() if exact in ("auto", True) else None
        if exact is True and self.classes is None:
            from ..exceptions import SettingsError
            raise SettingsError("exact=True steps a model that is dyad-independent given the "
                                "previous network, with terms that declare attribute cells "
                                "(edges, nodematch, nodefactor, nodemix, ...); this one is not")
        self.exact = self.classes is not None
        # tie key -> step it formed (None: present at the start); exact steps keep the
        # steps in their tie table instead
        self.born = {} if self.exact else \
            {key: None for key in self._keys(self.state.ties()).tolist()}
        self._q_eta = None
        self._tv = None             # the exact steps' table of present ties (_tie_table)
        self._tn = 0
        self._changed, self._rebuilt = None, True

    def _keys(self, ties):
        return ties[:, 0] * self.state.n + ties[:, 1] if len(ties) else np.zeros(0, np.int64)

    def statistics(self):
        """The statistics of the current transition (model's, then ``cross``)."""
        return self._base + np.asarray(self.sampler.delta) + self._exact_delta

    def eta_of(self, eta):
        """The chain's natural parameters: the model's ``eta``, zeros for ``cross``."""
        return np.concatenate([np.asarray(eta, dtype=float), np.zeros(self.n_cross)])

    def run(self, eta, n_steps, ages=False):
        """Run ``n_steps`` time steps at the model's natural parameters ``eta``; returns a
        :class:`ChainRun` (per step: the transition's model statistics, the ``cross``
        statistics after it, ties, ties formed and dissolved).  ``ages``: keep tie ages
        (the spells ending within the run go to ``self.durations``).  A Ctrl-C ends the
        run after the step in progress (``ChainRun.interrupted``)."""
        full = self.eta_of(eta)
        n_steps = int(n_steps)
        if ages and self._aged_until != self.step:
            # ages were not kept since the last aged step: the ties now present are
            # left-censored (their start is not known)
            if self.exact:
                if self._tv is not None:
                    self._tb[:self._tn] = -1
            else:
                self.born = {k: None for k in self._keys(self.state.ties()).tolist()}
        stats = np.empty((n_steps, self.n_model + self.n_cross))
        n_ties = np.empty(n_steps, dtype=np.int64)
        formed = np.empty(n_steps, dtype=np.int64)
        dissolved = np.empty(n_steps, dtype=np.int64)
        done = 0
        interrupted = False
        with ctrl_c_flag() as ctrl_c:
            try:
                for t in range(n_steps):
                    before = self.state.ties() if ages and not self.exact else None
                    m0 = self._n_ties()
                    if self.exact:
                        fd = self._exact_step(full, ages)
                    else:
                        self.sampler.run(full, self.proposals)
                    stats[t] = self.statistics()
                    changed = self._changed if self.exact else None
                    for k, a, b in self._temporal:
                        self._base[a:b] += k.advance(self.state, changed)
                    n_ties[t] = self._n_ties()
                    if self.exact and ages:
                        f, d = fd
                    elif ages:
                        f, d = self._age(before)
                    else:
                        f, d = self._counts(stats[t], m0, n_ties[t])
                    formed[t], dissolved[t] = f, d
                    self.step += 1
                    if ages:
                        self._aged_until = self.step
                    done += 1
                    ctrl_c.check()
            except KeyboardInterrupt:
                interrupted = True
        return ChainRun(stats[:done, :self.n_model], stats[:done, self.n_model:],
                        n_ties[:done], formed[:done], dissolved[:done], interrupted)

    def _node_classes(self):
        """(class of each node, number of classes) of the attributes the model's inner
        terms name, or None when the model is not stepped exactly (dyad-dependent given
        y⁻, a constraint, or a term without declared attribute cells)."""
        from ..model import ERGM
        from ..estimation.mple.cells import node_classes
        from .formulas import OPERATORS, operator_formula
        m = self.model
        if not m.dyad_independent or m.user_constraints:
            return None
        from ..terms.offsets import split_offsets
        inner = [split_offsets(operator_formula(m.formula, op))[0] for op in OPERATORS]
        text = " + ".join(f for f in inner if f)
        if not text:
            return None
        try:        # the inner terms on the cross-section: what their cells are
            static = ERGM(self.model.series.waves[-1], text)
        except Exception:
            return None
        names = []
        for t in static.terms:
            attrs = getattr(t, "cell_attrs", None)
            if attrs is None or not t.dyad_independent:
                return None
            names.extend(a for a in attrs if a not in names)
        return node_classes(static.network, names)

    def _formation_bound(self, eta):
        """The largest formation probability over the cells (one non-tie of y⁻ in each
        pair of node classes, its change statistics from the compiled model)."""
        cls, k = self.classes
        n = self.state.n
        members = [np.flatnonzero(cls == c) for c in range(k)]
        best = -np.inf
        rng = np.random.default_rng(12345)     # which representative: any non-tie will do
        for a in range(k):
            for b in range(a if not self.state.directed else 0, k):
                A, B = members[a], members[b]
                if len(A) == 0 or len(B) == 0 or (a == b and len(A) < 2):
                    continue
                for _ in range(64):
                    i, j = int(rng.choice(A)), int(rng.choice(B))
                    if i == j:
                        continue
                    v = self.compiled.var_of(i, j) if (self.state.directed or i < j) \
                        else self.compiled.var_of(j, i)
                    if not self.compiled.value(v):
                        best = max(best, float(self.compiled.change_stats(v) @ eta))
                        break
        return 1.0 / (1.0 + np.exp(-best)) if np.isfinite(best) else 1.0

    def _distinct(self, N, k):
        """k distinct uniform integers of 0..N-1, in the order drawn (O(k))."""
        rng = self.rng
        out = np.zeros(0, dtype=np.int64)
        while len(out) < k:
            more = rng.integers(0, N, size=k - len(out) + 8)
            both = np.concatenate([out, more])
            _, first = np.unique(both, return_index=True)
            out = both[np.sort(first)][:k]
        return out

    def _tie_table(self, eta):
        """The present ties as arrays (variable, change row, drop probability, step
        formed), kept in step with the state by the exact steps: O(changes) per step.
        Built from the state at the first exact step (or when the state was changed
        outside the steps); drop probabilities recomputed when ``eta`` changes; rows of
        the ties formed in the last step filled in now (after the advance: y⁻ holds them)."""
        cm = self.compiled
        if self._tv is None or self._tn != self.state.num_ties:
            v = np.asarray(cm.on_vars(), dtype=np.int64)
            cap = max(16, 2 * len(v))
            self._tv = np.zeros(cap, np.int64)
            self._tC = np.zeros((cap, len(eta)))
            self._td = np.zeros(cap)
            self._tb = np.full(cap, -1, np.int64)       # -1: formed before ages were kept
            self._tn, self._stale = len(v), 0
            self._tv[:len(v)] = v
            self._d_eta = None
            self._rebuilt = True        # y⁻ and y: not known to differ only by this step
        m, st = self._tn, self._stale
        if self._d_eta is None or not np.array_equal(self._d_eta, eta):
            st = 0                                      # every row's drop, O(ties) once
            self._d_eta, self._d_max = eta.copy(), 0.0
        if self._stale < m:                             # rows of the ties formed last step
            self._tC[self._stale:m] = cm.change_matrix(self._tv[self._stale:m])
        if st < m:
            d = 1.0 / (1.0 + np.exp(self._tC[st:m] @ eta))
            self._td[st:m] = d
            # the largest drop probability: a bound of every present tie's (a dissolved
            # tie's may stay in it; thinning needs a bound, not the maximum)
            self._d_max = max(self._d_max, float(d.max()))
        self._stale = m

    def _exact_step(self, eta, ages=False):
        """One exact time step of a dyad-independent model (module docstring); returns
        (ties formed, ties dissolved)."""
        cm, rng = self.compiled, self.rng
        if self._q_eta is None or not np.array_equal(self._q_eta[0], eta):
            self._q_eta = (eta.copy(), self._formation_bound(eta))
        q = self._q_eta[1]
        self._tie_table(eta)
        M, dmax = self._tn, self._d_max
        # dissolutions by thinning: each tie picked with probability dmax (a
        # Binomial(M, dmax) uniform subset), then dropped with probability d / dmax --
        # independently dropped with probability d
        K = int(rng.binomial(M, dmax)) if M else 0
        pos = self._distinct(M, K)
        if K:
            pos = pos[rng.random(K) * dmax < self._td[pos]]
        N = int(cm.n_vars)
        k = int(rng.binomial(N, q))
        cand = self._distinct(N, k)
        if len(cand):
            cand = cand[~cm.values(cand)]            # present ties do not form
        C_new = cm.change_matrix(cand) if len(cand) else np.zeros((0, len(eta)))
        p = 1.0 / (1.0 + np.exp(-(C_new @ eta)))
        if np.any(p > q * (1 + 1e-9)):
            raise RuntimeError("exact dynamic step: a formation probability above the "
                               "cells' bound (a term's statistics depend on more than its "
                               "declared attributes)")
        form = rng.random(len(cand)) * q < p
        new = cand[form]
        flips = np.concatenate([self._tv[pos], new])
        if len(flips):
            cm.change_and_flip(flips, False)
        # the dyads where y now differs from y⁻: the advance visits them only (O(flips))
        self._changed = None if self._rebuilt else cm.dyads_of(flips)
        self._rebuilt = False
        self._exact_delta += C_new[form].sum(axis=0) - self._tC[pos].sum(axis=0)
        if ages:
            b = self._tb[pos]
            self.durations.extend((self.step - b[b >= 0]).tolist())
        self._drop_rows(pos)
        m, f = self._tn, len(new)
        if m + f > len(self._tv):
            cap = 2 * (m + f)
            for name in ("_tv", "_tC", "_td", "_tb"):
                a = getattr(self, name)
                b = np.zeros((cap,) + a.shape[1:], a.dtype)
                b[:m] = a[:m]
                setattr(self, name, b)
        self._tv[m:m + f] = new
        self._tb[m:m + f] = self.step
        self._tn = m + f                 # their rows: at the next step (_tie_table)
        return f, len(pos)

    def _drop_rows(self, pos):
        """Remove the table rows ``pos`` (distinct): the last rows fill the holes, O(len)."""
        m, r = self._tn, len(pos)
        if not r:
            return
        keep = m - r
        holes = pos[pos < keep]
        tail = np.ones(r, bool)
        tail[pos[pos >= keep] - keep] = False
        movers = keep + np.flatnonzero(tail)
        for a in (self._tv, self._tC, self._td, self._tb):
            a[holes] = a[movers]
        self._tn = keep
        self._stale = min(self._stale, keep)

    def _n_ties(self):
        return int(self.state.num_ties)

    def _counts(self, stats, m0, m1):
        # without ages: formation/dissolution counts are not tracked (NaN-free zeros)
        return -1, -1

    def _age(self, before):
        after = self.state.ties()
        kb, ka = self._keys(before), self._keys(after)
        gone = np.setdiff1d(kb, ka, assume_unique=True)
        came = np.setdiff1d(ka, kb, assume_unique=True)
        for key in gone.tolist():
            b = self.born.pop(key)
            if b is not None:
                self.durations.append(self.step - b)
        for key in came.tolist():
            self.born[key] = self.step
        return len(came), len(gone)

    def censored_ages(self):
        """Ages of the present ties formed within the run (right-censored spells)."""
        if self.exact:
            if self._tv is None:
                return np.zeros(0)
            b = self._tb[:self._tn]
            return (self.step - b[b >= 0]).astype(float)
        return np.array([self.step - b for b in self.born.values() if b is not None], float)


class ChainRun:
    """What :meth:`DynamicChain.run` returns: per step ``stats`` (the transition's model
    statistics), ``cross`` (cross-sectional statistics after the step), ``n_ties``,
    ``formed``/``dissolved`` (−1 unless ages are kept) and ``interrupted``."""

    def __init__(self, stats, cross, n_ties, formed, dissolved, interrupted):
        self.stats, self.cross, self.n_ties = stats, cross, n_ties
        self.formed, self.dissolved, self.interrupted = formed, dissolved, interrupted
