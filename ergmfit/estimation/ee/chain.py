"""Equilibrium Expectation, one chain: Algorithm S, Algorithm EE, the
simulation at the estimate (see :mod:`ergmfit.estimation.ee.estimator` for the method).

Runs in a worker process for parallel chains; needs only a model spec with
``labels`` and ``compiled()``.
"""
from __future__ import annotations

import math
import os
import resource
import time

import numpy as np

from ...exceptions import DegenerateModelError
from ...families import family_of
from ...terms.parameterisation import Identity
from ...terms.parameter_steps import MAX_DECAY_STEP, projector
from ...sampling.space import sample_space_of
from ...utils.setops import in_sorted
from ...utils.validation import seed_words
from .missing import COMPLETE_DATA, conditional_chain
from .checkpoint import ChainCheckpoint, EESimsState, read_chain_state, read_sims, sims_name
from .simulation import _curved_scales, _sim_sampler, _simulate, sim_plan
from ...runtime.interrupts import catch_interrupt, deaf_to_sigint

_MAX_ROWS = 200_000          # stored trajectory rows per chain (thinned beyond)
#: the random state of the MPLE that starts EE (``init="mple"``): fixed, so the start is
#: a function of the model alone, as the MPLE of a network of at most ``max_dyads`` dyads
#: is, and its completion of missing dyads is MPLE's own default one (0).  Beyond
#: ``max_dyads`` the MPLE fits a case-control sample of the non-ties, which an MPLE
#: without a random state drew afresh in every run: the same EE seed gave other starts,
#: estimates, standard errors and ``converged`` flags (tests/estimation/ee/test_ee_seed.py).
MPLE_START_SEED = 0


# ---------------------------------------------------------------------------
# small statistics helpers
# ---------------------------------------------------------------------------
def batch_means_sigma(X):
    """mcmcse's ``mcse.multi(X, method="bm", r=1, size="sqroot")$cov``: the
    asymptotic covariance Σ (Var of the mean ≈ Σ / N) by batch means with
    b = ⌊√N⌋ rows per batch over the first a·b rows, a = ⌊N / b⌋, centred at
    the mean of all rows.  Returns a (p, p) array (NaN if N < 4)."""
    X = np.asarray(X, dtype=float)
    N, p = X.shape
    if N < 4:
        return np.full((p, p), np.nan)
    b = int(math.floor(math.sqrt(N)))
    a = N // b
    mean = X.mean(axis=0)
    bm = X[: a * b].reshape(a, b, p).mean(axis=1) - mean
    return b * (bm.T @ bm) / (a - 1)


def _make_pd(S, floor=1e-12):
    """S symmetrised, with eigenvalues floored at a small positive value."""
    S = 0.5 * (S + S.T)
    w, V = np.linalg.eigh(S)
    top = max(float(w.max()), floor) if w.size else floor
    w = np.maximum(w, top * 1e-10)
    return (V * w) @ V.T


def t_ratios(dz):
    """mean / sd of each column (sd with ddof=1); 0 where a column is constant 0."""
    dz = np.asarray(dz, dtype=float)
    if len(dz) < 2:
        return np.full(dz.shape[1], np.nan)
    m = dz.mean(axis=0)
    sd = dz.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd > 0, m / sd, np.where(m == 0, 0.0, np.sign(m) * np.inf))
    return t


def burnin_iters(burnin, n_done, stage_start=0):
    """First kept iteration: ``burnin`` (a fraction of the iterations of the last
    learning-rate stage, which starts at ``stage_start``, or a number of
    iterations); the last half when the run is too short for it."""
    if stage_start >= n_done:
        stage_start = 0
    if isinstance(burnin, float) and 0.0 <= burnin < 1.0:
        b = stage_start + int(math.floor(burnin * (n_done - stage_start)))
    else:
        b = max(int(burnin), stage_start)
    if b >= n_done - 1:          # too short a run: keep the last half
        b = n_done // 2
    return max(b, 0)


def _stages(rate, outer):
    """Learning rate of each outer iteration: a float, or a sequence of rates
    for equal consecutive stages.  Returns (array of rates, first outer
    iteration of the last stage)."""
    rates = np.atleast_1d(np.asarray(rate, dtype=float))
    if rates.ndim != 1 or rates.size == 0 or not np.all(rates > 0):
        raise ValueError(f"learning_rate must be a positive number or a sequence of them, got "
                         f"{rate!r}")
    k = len(rates)
    stage = np.minimum((np.arange(outer) * k) // max(outer, 1), k - 1)
    first_last = int(np.searchsorted(stage, k - 1)) if outer else 0
    return rates[stage], first_last


def _peak_rss_mb():
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / 1024.0            # Linux: kilobytes


# ---------------------------------------------------------------------------
# Algorithm S
# ---------------------------------------------------------------------------
def algorithm_s(sampler, p, free, steps, m, aca_s, ifd=None, arc_corr=0.0, dens=None):
    """EstimNetDirected's Algorithm S on ``sampler`` (moves scored, never applied).

    Returns (theta, Dmean, rows): the CD-1 estimate (θ_dens = V − arc_corr
    with IFD), D = m / Σ dzA², and the θ row of every iteration.
    """
    theta = np.zeros(p)
    D0 = np.zeros(p)
    rows = np.zeros((steps, p))
    for t in range(steps):
        th = theta.copy()
        if dens is not None:
            th[dens] = 0.0
        add, dele = sampler.run_batch(th, m, apply=False)
        dzA = dele - add
        sumC = add + dele
        D0 += dzA * dzA
        # sumC^2, unless change statistics of both signs (±1 MRF spins, negative
        # covariates) cancel in sumC: then the step would explode; cap it at aca_s
        denom = np.maximum(sumC * sumC, dzA * dzA)
        with np.errstate(divide="ignore", invalid="ignore"):
            da = np.where(denom > 0, aca_s / denom, 0.0)
        step = np.where(dzA < 0, -1.0, 1.0) * da * dzA * dzA
        theta[free] += step[free]
        if ifd is not None:
            theta[dens] = ifd.V - arc_corr
        rows[t] = theta
    with np.errstate(divide="ignore"):
        Dmean = np.where(D0 > 0, m / D0, np.inf)
    return theta, Dmean, rows


# ---------------------------------------------------------------------------
# one chain (runs in a worker process)
# ---------------------------------------------------------------------------
def _finished_run(cur, phase, inner, cfg, adaptive):
    """The run dict of a phase that a checkpoint saved as finished."""
    kind, outer = phase
    total = outer * inner
    store_every = max(1, -(-total // _MAX_ROWS))
    _, last_stage = _stages(cfg["learning_rate"], outer)
    n_rows = len(cur["theta_rows"])
    return {"theta_rows": cur["theta_rows"], "dz_rows": cur["dz_rows"],
            "acc_rows": cur["acc_rows"], "v_rows": cur["v_rows"],
            "iters": np.arange(n_rows) * store_every, "n_done": int(cur["n_done"]),
            "store_every": store_every, "final_theta": cur["theta"],
            "final_dzA": cur["dzA"], "D_final": cur["Dvec"],
            "stage_start": last_stage * inner if not adaptive else 0,
            "times": list(cur["times"]), "cpu_times": list(cur["cpu_times"]),
            "stopped_early": int(cur["n_done"]) < total, "proposal": kind}



def _ridged_cov(S, idx):
    """Cov of the columns ``idx`` of the rows ``S``, with a small ridge."""
    C = np.atleast_2d(np.cov(S[:, idx], rowvar=False))
    d = np.diag(C)
    return C + np.diag(np.maximum(1e-3 * d, 1e-9 * max(float(d.max(initial=0.0)), 1.0)))


def _inverse_cov(S, free):
    """Cov(g)⁻¹ over the free parameters (zero rows/columns elsewhere), from
    rows of statistics ``S``; a small ridge keeps it finite."""
    p = S.shape[1]
    idx = np.flatnonzero(free)
    C = _ridged_cov(S, idx)
    P = np.zeros((p, p))
    P[np.ix_(idx, idx)] = np.linalg.pinv(C)
    return P


class _EEUpdate:
    """EE's update of θ for one kind of parameterisation, chosen once per chain
    (:class:`_LinearEE`, :class:`_CurvedEE`): Algorithm S (or its scales), the
    metric of ``update="newton"`` and one outer iteration.  ``dens_t``/``dens_s``:
    the density parameter's position in θ and in the statistics (IFD); ``cond``: the
    conditional chain over missing dyads (:mod:`ergmfit.estimation.ee.missing`)."""

    def __init__(self, par, dens_t, dens_s, cond=COMPLETE_DATA):
        self.par, self.dens_t, self.dens_s = par, dens_t, dens_s
        self.cond = cond

    def _iterate(self):
        return self.cond.iterations

    def masks(self, ifd):
        """(free parameters, free statistics): all but the density under IFD."""
        fp = np.ones(self.par.n_params, dtype=bool)
        fs = np.ones(self.par.n_stats, dtype=bool)
        if ifd:
            fp[self.dens_t] = False
            fs[self.dens_s] = False
        return fp, fs


class _CurvedEE(_EEUpdate):
    """The "newton" update of a curved model through its map η(θ).

    Algorithm S estimates η, not θ, so a run asked to start by it starts at the
    curved MPLE (:attr:`starts_by_algorithm_s`); the chains' statistics are the
    canonical ones, not one per parameter, so a statistic that never moved (e.g. a
    high shared-partner count) says nothing about a parameter
    (:attr:`statistics_are_parameters`).

    The chain's statistics (and dzA = g(x_t) − g(x_obs)) are the q canonical
    ones; θ has p parameters.  Each outer iteration linearises the map at its
    start θ₀ (η ≈ η(θ₀) + J Δθ, J = ∂η/∂θ) and runs the compiled loop in η
    with the preconditioner J (J'CJ)⁻¹ J' (C = Cov(g) over the free
    statistics), so that every step is θ ← θ − a (J'CJ)⁻¹ J' dzA in the
    parameters; the rows are mapped back to θ by J's left inverse (exact: the
    steps lie in J's range).  After the outer iteration the sampler goes on
    at the exact η(θ); decays stay at or above their lower bounds and move
    at most ``MAX_DECAY_STEP`` per outer iteration, as in MCMC-MLE.  With
    IFD the density parameter (position ``dens_t`` in θ, ``dens_s`` in the
    statistics) is V − arc_corr, not a step of the update.  The stored dzA
    rows are the parameters' directions z J (:func:`ergmfit.terms.parameter_steps.projector`).
    """

    #: whether ``init="S"`` (Algorithm S) can start the run: it estimates η
    starts_by_algorithm_s = False
    #: whether the chains' statistics are one per parameter (θ = η)
    statistics_are_parameters = False

    @staticmethod
    def mple_start(model, rng, initial_estimate):
        """EE's ``init="mple"`` through a curved map: MCMC-MLE's start
        (``initial_estimate``), the curved MPLE, or the fixed-decay MPLE where the
        curved one ran off along a ridge.  The MPLE's random state is
        :data:`MPLE_START_SEED`; ``rng`` drives contrastive divergence where the MPLE
        does not exist."""
        return np.asarray(initial_estimate(model, random_state=rng,
                                           completion=MPLE_START_SEED)[0], dtype=float)

    def cov(self, S, ifd):
        """The ridged Cov(g) of the free statistics (q × q, zeros elsewhere)."""
        _, fs = self.masks(ifd)
        q = self.par.n_stats
        idx = np.flatnonzero(fs)
        C = np.zeros((q, q))
        C[np.ix_(idx, idx)] = _ridged_cov(np.asarray(S, dtype=float), idx)
        return C

    def outer(self, sampler, theta, dzA, inner, m, rate, C, ifd, arc_corr, cfg,
              th_c, dz_c, acc_c, v_c):
        """One outer iteration; fills th_c (θ rows) and dz_c (projected dzA
        rows), updates dzA (canonical) in place; returns (θ, canonical dzA rows)."""
        ee_iterations = self._iterate()
        par = self.par
        p, q = par.n_params, par.n_stats
        fp, fs = self.masks(ifd)
        eta0 = par.eta(theta)
        J = par.jacobian(theta)
        Jf = J[np.ix_(fs, fp)]
        M = np.linalg.pinv(_make_pd(Jf.T @ C[np.ix_(fs, fs)] @ Jf))
        P = np.zeros((q, q))
        P[np.ix_(fs, fs)] = Jf @ M @ Jf.T
        K = np.zeros((p, q))
        K[np.ix_(fp, fs)] = np.linalg.pinv(Jf)
        if ifd:
            K[self.dens_t, self.dens_s] = 1.0
        eta = np.ascontiguousarray(eta0, dtype=float).copy()
        et_c = np.zeros((inner, q))
        dzq_c = np.zeros((inner, q))
        ee_iterations(sampler, eta, dzA, inner, m, 2, float(rate), float(cfg["min_theta"]),
                      float(cfg["aca_ee"]), np.ones(q), self.dens_s if ifd else -1,
                      float(arc_corr), et_c, dzq_c, acc_c, v_c, P)
        th_c[:] = theta + (et_c - eta0) @ K.T
        dz_c[:] = projector(par, theta)(dzq_c)
        new = th_c[-1].copy()
        for k in par.decay_indices():
            new[k] = min(max(new[k], theta[k] - MAX_DECAY_STEP), theta[k] + MAX_DECAY_STEP)
        return par.project(new), dzq_c

    def outer_borisenko(self, sampler, theta, dzA, inner, m, rate, ifd, arc_corr, cfg,
                        th_c, dz_c, acc_c, v_c, D=None):
        """One outer iteration of the Borisenko update in the parameters'
        directions: θ_k ← θ_k − a max(|θ_k|, c) sign((J' dzA)_k), J at the
        current θ, the sampler at the exact η(θ).  The compiled loop runs one
        iteration (m proposals) per call with a zero step; the update, a few
        numbers, is made here between calls.

        With scales ``D`` it is the adaptive update (Byshkin et al. 2018) in
        the same directions: θ_k ← θ_k − sign(u_k) aca D_k u_k², u = J' dzA;
        decays stay within ``MAX_DECAY_STEP`` of their value at the start of
        the outer iteration."""
        ee_iterations = self._iterate()
        par = self.par
        theta0 = np.array(theta, dtype=float)
        decays = par.decay_indices()
        aca = float(cfg["aca_ee"])
        q = par.n_stats
        fp, _ = self.masks(ifd)
        c = float(cfg["min_theta"])
        P0 = np.zeros((q, q))
        one = np.ones(q)
        row, dzr = np.zeros((1, q)), np.zeros((1, q))
        dzq_c = np.zeros((inner, q))
        theta = np.array(theta, dtype=float)
        for i in range(inner):
            eta = np.ascontiguousarray(par.eta(theta), dtype=float)
            ee_iterations(sampler, eta, dzA, 1, m, 2, 0.0, c, float(cfg["aca_ee"]), one,
                          self.dens_s if ifd else -1, float(arc_corr), row, dzr,
                          acc_c[i:i + 1], v_c[i:i + 1], P0)
            u = par.jacobian(theta).T @ dzA
            if D is None:
                step = rate * np.maximum(np.abs(theta), c) * np.sign(u)
            else:
                step = np.sign(u) * aca * D * u * u
            theta = np.where(fp, par.project(theta - step), theta)
            for k in decays:
                theta[k] = min(max(theta[k], theta0[k] - MAX_DECAY_STEP),
                               theta0[k] + MAX_DECAY_STEP)
            if ifd:
                theta[self.dens_t] = eta[self.dens_s]          # V − arc_corr
            th_c[i] = theta
            dzq_c[i] = dzr[0]
        dz_c[:] = projector(par, theta)(dzq_c)
        return theta

    def algorithm_s(self, sampler, cfg, m, prop, arc_corr, free, labels, adaptive):
        """Only the scales of the adaptive update, in the parameters' directions at
        the start (Algorithm S itself estimates η): (None, D, None)."""
        Dmean = _curved_scales(sampler, self.par, np.asarray(cfg["init_theta"], dtype=float),
                               int(cfg["s_steps"]), m, self.dens_s if prop is not None else None)
        if prop is not None:
            Dmean[self.dens_t] = np.inf
        return None, Dmean, None

    def metric(self, S, ifd):
        return self.cov(S, ifd)

    def outer_iteration(self, sampler, theta, dzA, inner, m, upd, rate, metric, Dvec, ifd,
                        arc_corr, cfg, th_c, dz_c, acc_c, v_c):
        """One outer iteration: (θ, the canonical dzA rows for the next stage's
        metric, or None when the update has no metric)."""
        if upd == 2:
            return self.outer(sampler, theta, dzA, inner, m, rate, metric, ifd, arc_corr, cfg,
                              th_c, dz_c, acc_c, v_c)
        return self.outer_borisenko(sampler, theta, dzA, inner, m, rate, ifd, arc_corr, cfg,
                                    th_c, dz_c, acc_c, v_c,
                                    D=Dvec if upd == 1 else None), None


class _LinearEE(_EEUpdate):
    """EE's update of a model whose parameters are its natural ones (θ = η): the
    compiled loop makes every step of an outer iteration."""

    starts_by_algorithm_s = True
    statistics_are_parameters = True

    @staticmethod
    def mple_start(model, rng, initial_estimate):
        """EE's ``init="mple"`` when θ = η: the MPLE, with the random state
        :data:`MPLE_START_SEED` (``rng`` is not used)."""
        from ..mple.pseudolikelihood import MPLE
        return np.asarray(MPLE(verbose=False, random_state=MPLE_START_SEED).fit(model).params,
                          dtype=float)

    def algorithm_s(self, sampler, cfg, m, prop, arc_corr, free, labels, adaptive):
        """Algorithm S: (θ, D, rows) (see :func:`algorithm_s`)."""
        dens = self.dens_s if prop is not None else None
        s_theta, Dmean, s_rows = algorithm_s(sampler, self.par.n_params, free,
                                             int(cfg["s_steps"]), m, cfg["aca_s"], prop,
                                             arc_corr, dens)
        bad = [labels[k] for k in np.flatnonzero(~np.isfinite(Dmean) & free)]
        if bad and adaptive:
            raise DegenerateModelError(
                f"the statistic(s) {bad} never changed in Algorithm S ({cfg['s_steps']} x {m} "
                "proposals on the observed network): the model may be degenerate. Increase "
                "s_steps or sampler_steps, or remove the term(s)")
        return s_theta, Dmean, s_rows

    def metric(self, S, ifd):
        """The preconditioner of ``update="newton"``: Cov(g)⁻¹ over the free
        parameters from the rows of statistics ``S``."""
        return _inverse_cov(np.asarray(S, dtype=float), self.masks(ifd)[0])

    def outer_iteration(self, sampler, theta, dzA, inner, m, upd, rate, metric, Dvec, ifd,
                        arc_corr, cfg, th_c, dz_c, acc_c, v_c):
        """One outer iteration (θ, dzA in place); returns (θ, the rows of statistics
        for the next stage's metric, or None when the update has no metric)."""
        self._iterate()(sampler, theta, dzA, inner, m, upd, float(rate),
                        float(cfg["min_theta"]), float(cfg["aca_ee"]), Dvec,
                        int(self.dens_s) if ifd else -1, float(arc_corr),
                        th_c, dz_c, acc_c, v_c, metric)
        return theta, (dz_c.copy() if upd == 2 else None)


def _sample_at(sampler, theta, dzA, dens, m, n):
    """``n`` states ``m`` proposals apart, continuing the chain at θ (natural
    parameters; dzA follows it, in place).  Returns their statistics."""
    th = np.array(theta, dtype=float)
    if dens is not None:
        th[dens] = 0.0          # IFD: V stands for the density parameter
    d0 = np.array(sampler.delta, dtype=float)
    S = sampler.sample(th, int(n), 0, int(m))
    dzA += np.asarray(sampler.delta, dtype=float) - d0
    return S


class _PhaseRecord:
    """What one EE phase keeps: every ``store_every``-th iteration's θ, dzA,
    acceptance and V rows, and the clocks after each outer iteration (continued
    from ``start``, a partial phase read from a checkpoint)."""

    def __init__(self, outer, inner, p, start=None):
        total = outer * inner
        self.store_every = max(1, -(-total // _MAX_ROWS))
        n_store = -(-total // self.store_every)
        self.theta_rows = np.zeros((n_store, p))
        self.dz_rows = np.zeros((n_store, p))
        self.acc_rows = np.zeros(n_store)
        self.v_rows = np.zeros(n_store)
        self.n_rows = self.done = 0
        self.times, self.cpu_times = [], []
        if start is not None:
            self.n_rows = len(start["theta_rows"])
            for name in ("theta_rows", "dz_rows", "acc_rows", "v_rows"):
                getattr(self, name)[:self.n_rows] = start[name]
            self.done = int(start["n_done"])
            self.times, self.cpu_times = list(start["times"]), list(start["cpu_times"])

    def store(self, th_c, dz_c, acc_c, v_c):
        """Keep the stored rows of one outer iteration's ``len(th_c)`` iterations."""
        inner = len(th_c)
        sel = np.flatnonzero(np.arange(self.done, self.done + inner) % self.store_every == 0)
        k, n = len(sel), self.n_rows
        self.theta_rows[n:n + k] = th_c[sel]
        self.dz_rows[n:n + k] = dz_c[sel]
        self.acc_rows[n:n + k] = acc_c[sel]
        self.v_rows[n:n + k] = v_c[sel]
        self.n_rows += k
        self.done += inner

    def rows(self, name):
        return getattr(self, name)[:self.n_rows]

    def kept(self, burnin, stage_start):
        """Mask of the stored rows after the burn-in."""
        return np.arange(self.n_rows) * self.store_every >= burnin_iters(burnin, self.done,
                                                                          stage_start)


class EEChain:
    """One EE chain as one resumable state and its steps: Algorithm S, the EE
    phases (IFD, then tie/no-tie with ``proposal="ifd-tnt"``), then (``se="simulate"``)
    a sample at the chain's estimate.  A checkpoint saves the state (θ, dzA, D, the
    network, IFD's V, the rows so far) and :meth:`run` continues a saved one.

    ``model`` needs ``labels`` and ``compiled()``; ``cfg`` is a dict of the settings
    of the ``EE.SETTINGS`` table (plus ``init_theta``, ``dens``, ``dens_theta``).
    ``control`` (a :class:`~ergmfit.runtime.parallel.JobControl`) receives the
    progress and asks the chain to stop after its current outer iteration; a Ctrl-C
    (:class:`~ergmfit.runtime.catch_interrupt`) does the same.
    """

    def __init__(self, model, cfg, seed, chain=0, callback=None, control=None):
        from ...sampling._proposals import IFD, ifd_correction
        self.t0 = time.perf_counter()
        self.model, self.cfg, self.seed, self.chain = model, cfg, seed, chain
        self.callback, self.control = callback, control
        self.rng = np.random.default_rng(seed)
        self.labels = list(model.labels)
        self.p = p = len(self.labels)
        self.bm = bm = model.compiled()
        self.par = par = getattr(model, "parameterisation", None) or Identity(self.labels)
        self.n_vars = int(bm.n_vars)
        # the number of ties, without an array of them (4 MB on Epinions, at the run's peak)
        self.L0 = int(bm.n_on_vars() if hasattr(bm, "n_on_vars") else len(bm.on_vars()))
        self.use_ifd = use_ifd = cfg["proposal"] in ("ifd", "ifd-tnt")
        self.dens = dens = cfg["dens"] if use_ifd else None      # in the statistics
        # the density parameter's position in θ (differs from ``dens`` when a
        # curved term precedes it)
        self.dens_t = cfg.get("dens_theta", dens) if use_ifd else None
        self.free = np.ones(p, dtype=bool)
        if dens is not None:
            self.free[self.dens_t] = False
        self.space = space = sample_space_of(model)
        free_vars = space.free_vars() if space.dyad_independent else None
        if use_ifd and free_vars is not None:
            # IFD on the free dyads of a dyad-set constraint
            from ._ee import RestrictedIFD
            L_f = int(in_sorted(bm.on_vars(), free_vars).sum())
            self.arc_corr = ifd_correction(len(free_vars), L_f)
            self.prop = RestrictedIFD(free_vars, self.n_vars, K=cfg["ifd_k"])
        else:
            self.arc_corr = ifd_correction(self.n_vars, self.L0) if use_ifd else 0.0
            # the resolved probability (a checkpoint of a run made before the setting
            # existed has none: plain IFD, as it was made)
            recip = cfg.get("reciprocation", 0.0)
            recip = float(recip) if use_ifd and isinstance(recip, float) else 0.0
            if recip > 0.0:
                from ...sampling._proposals import ReciprocalIFD
                self.prop = ReciprocalIFD(bm, recip, K=cfg["ifd_k"])
            else:
                self.prop = IFD(K=cfg["ifd_k"]) if use_ifd else space.proposal(cfg["proposal"],
                                                                                bm, model)
        self.sampler = self._new_sampler()
        self.m = int(cfg["sampler_steps"])
        self.inner = int(cfg["ee_inner_steps"])
        self.adaptive = cfg["update"] == "adaptive"
        self.upd = {"borisenko": 0, "adaptive": 1, "newton": 2}[cfg["update"]]
        self.phases = [("ifd" if use_ifd else cfg["proposal"], int(cfg["ee_steps"]))]
        if cfg["proposal"] == "ifd-tnt":
            self.phases.append(("tnt", int(cfg["tnt_steps"]) if cfg["tnt_steps"] is not None
                                else int(cfg["ee_steps"])))
        self.n_planned = sum(n for _, n in self.phases)
        # the update of θ, chosen once: the compiled loop when θ = η, else through the map
        self.update = ee_update_for(par)(
            par, cfg.get("dens_theta", cfg.get("dens")), cfg.get("dens"))
        # the resumable state
        self.saved = self.cond = self.checkpoint = None
        self.s_theta = self.Dmean = self.s_rows = None
        self.theta = self.Dvec = None
        self.dzA = np.zeros(int(bm.n_stats))
        self.runs, self.phase, self.start = [], 0, None
        self.outer_done, self.interrupted = 0, False
        self.resumed_finished = False           # a finished chain's checkpoint
        self.t_start = self.c_start = None

    def _new_sampler(self):
        from ...sampling._mh import MHSampler
        if not self.use_ifd:        # IFD is EE's own proposal, run by the plain engine
            return self.space.make_sampler(self.bm, self.prop, seed_words(self.rng))
        return MHSampler(self.bm, self.prop, seed_words(self.rng))

    # -- the steps ------------------------------------------------------------------
    def run(self) -> dict:
        """The chain from its start, or from the checkpoint ``cfg["resume"]``; returns
        a dict of arrays (the trajectory, the estimate's sample, timings)."""
        self._resume()
        self._algorithm_s()
        self._start()
        t_ee, c_ee = time.perf_counter(), time.process_time()
        self.cond = conditional_chain(self.model, self.rng, self.saved)   # missing dyads
        self.update.cond = self.cond
        self._resume_phases()
        self._open_checkpoint()
        self._run_phases()
        out = self._summary(time.perf_counter() - t_ee, time.process_time() - c_ee)
        self._simulate_at_estimate(out)
        out["seconds"] = time.perf_counter() - self.t0
        out["maxrss_mb"] = _peak_rss_mb()
        return out

    def _resume(self):
        """Read this chain's checkpoint (``cfg["resume"]``): the network, IFD's V."""
        cfg = self.cfg
        if cfg.get("resume") is None:
            return
        path = os.path.join(cfg["resume"], f"chain_{self.chain}.npz")
        if not os.path.exists(path):     # this chain had not started: run it afresh
            return
        self.saved = saved = read_chain_state(path, self.model, self.chain, self.n_vars)
        # a resumed chain continues with a stream of its own (the MH sampler's
        # generator state is not saved): reproducible, not the same draws as an
        # uninterrupted run
        self.rng = np.random.default_rng([self.seed, saved["meta"]["outer_done"], 1])
        family_of(self.model).restore_state(self.bm, saved["arrays"])
        # the compiled model holds the saved network now: not its arrays besides for the
        # rest of the run (x_on alone is 8 bytes a tie, 245 MB at Pokec's size)
        for k in [k for k in saved["arrays"] if k.startswith("x_")]:
            del saved["arrays"][k]
        if self.use_ifd:
            self.prop.V = saved["meta"]["V"]
            self.prop.is_delete = saved["meta"]["is_delete"]
        self.sampler = self._new_sampler()

    def _needs_s(self):
        return self.cfg["init"] == "S" or self.adaptive

    def _algorithm_s(self):
        """Algorithm S (its start θ and the adaptive update's scales D), or what the
        checkpoint saved of it."""
        cfg = self.cfg
        if self.saved is not None:
            arrays = self.saved["arrays"]
            self.s_theta, self.Dmean, self.s_rows = (arrays.get(k) for k in
                                                     ("s_theta", "Dmean", "s_rows"))
        elif self._needs_s() and cfg["s_steps"] > 0:
            self.s_theta, self.Dmean, self.s_rows = self.update.algorithm_s(
                self.sampler, cfg, self.m, self.prop if self.use_ifd else None, self.arc_corr,
                self.free, self.labels, self.adaptive)

    def _initial_scales(self):
        if not self.adaptive:
            return np.ones(self.p)
        Dmean = np.ones(self.p) if self.Dmean is None else self.Dmean
        return np.where(np.isfinite(Dmean), Dmean, 0.0).astype(float)

    def _start(self):
        """θ and D at the start of EE."""
        cfg = self.cfg
        if cfg["init"] == "S":
            if self.s_theta is None:
                raise ValueError("init='S' needs s_steps > 0")
            theta = self.s_theta.copy()
        else:
            theta = np.asarray(cfg["init_theta"], dtype=float).copy()
            if self.use_ifd and self.saved is None:
                self.prop.V = theta[self.dens_t] + self.arc_corr
        if self.Dmean is None:
            self.Dmean = np.ones(self.p)
        self.Dvec = self._initial_scales()
        if self.use_ifd:
            theta[self.dens_t] = self.prop.V - self.arc_corr
        self.theta = theta

    def _resume_phases(self):
        """The finished phases and the partial one of a checkpoint."""
        saved = self.saved
        if saved is None:
            return
        self.runs = saved["runs"]
        self.outer_done = saved["meta"]["outer_done"]
        cur = saved["current"]
        self.phase = saved["meta"]["phase"]
        if saved["meta"]["final"]:
            self.runs.append(_finished_run(cur, self.phases[self.phase], self.inner, self.cfg,
                                           self.adaptive))
            self.phase += 1
        else:
            self.start = cur
        self.resumed_finished = self.phase >= len(self.phases)
        self.theta, self.dzA, self.Dvec = cur["theta"], cur["dzA"], cur["Dvec"]

    def _open_checkpoint(self):
        cfg = self.cfg
        if cfg.get("checkpoint") is None:
            return
        fixed = {k: v for k, v in (("s_theta", self.s_theta), ("Dmean", self.Dmean),
                                   ("s_rows", self.s_rows)) if v is not None}
        self.checkpoint = ChainCheckpoint(cfg["checkpoint"], self.chain,
                                          float(cfg["checkpoint_every"]), self.bm,
                                          self.prop if self.use_ifd else None, fixed, self.runs,
                                          self, self.model)

    def _run_phases(self):
        for ph in range(self.phase, len(self.phases)):
            kind, n_outer = self.phases[ph]
            self.phase = ph
            if self.checkpoint is not None:
                self.checkpoint.phase = ph
            if ph == 1:
                self._enter_unconditional_phase()
                dens, free = None, np.ones(self.p, dtype=bool)
            else:
                dens, free = self.dens, self.free
            run = self._phase(n_outer, dens, free)
            self.start = None
            run["proposal"] = kind
            self.runs.append(run)
            self.theta, self.Dvec = run["final_theta"], run["D_final"]
            if self.interrupted:
                break
        if not self.runs:
            raise ValueError(f"the checkpoint of chain {self.chain} has no EE iterations")

    def _enter_unconditional_phase(self):
        """``proposal="ifd-tnt"``: tie/no-tie from the IFD phase's estimate, same state."""
        if self.start is None:
            prev = self.runs[-1]
            keep = prev["iters"] >= burnin_iters(self.cfg["burnin"], prev["n_done"],
                                                  prev["stage_start"])
            if keep.any():
                self.theta = prev["theta_rows"][keep].mean(axis=0)
            self.dzA = prev["final_dzA"].copy()     # g(x_t) - g(x_obs), edges included
            self.Dvec = self._initial_scales()
            if self.adaptive and self.dens_t is not None and not self.Dvec[self.dens_t] > 0:
                self.Dvec[self.dens_t] = np.median(self.Dvec[self.free]) if self.free.any() \
                    else 1.0
        self.sampler = self.space.make_sampler(
            self.bm, self.space.proposal("tnt", self.bm, self.model), seed_words(self.rng))

    def _phase(self, outer, dens, free):
        """``outer`` outer iterations of Algorithm EE (continuing ``self.start``, a
        partial phase of a checkpoint); returns the phase's run dict.  Ctrl-C or a
        stop request ends it after the current outer iteration (``interrupted``)."""
        cfg, inner, m, upd = self.cfg, self.inner, self.m, self.upd
        p, sampler, update = self.p, self.sampler, self.update
        rec = _PhaseRecord(outer, inner, p, self.start)
        th_c, dz_c = np.zeros((inner, p)), np.zeros((inner, p))
        acc_c, v_c = np.zeros(inner), np.zeros(inner)
        theta = np.ascontiguousarray(self.theta, dtype=float).copy()
        dzA = np.ascontiguousarray(self.dzA, dtype=float).copy()
        Dvec = np.ascontiguousarray(self.Dvec, dtype=float).copy()
        o_start = rec.done // inner
        stopped_early = False
        rates, last_stage = _stages(cfg["learning_rate"], outer)
        stage_start = last_stage * inner if not self.adaptive else 0
        if rec.times and self.t_start is None:     # the clocks go on from the saved times
            self.t_start = time.perf_counter() - rec.times[-1]
            self.c_start = time.process_time() - rec.cpu_times[-1]
        if self.t_start is None:
            self.t_start, self.c_start = time.perf_counter(), time.process_time()

        def partial(final=False):
            return {"theta_rows": rec.rows("theta_rows"), "dz_rows": rec.rows("dz_rows"),
                    "acc_rows": rec.rows("acc_rows"), "v_rows": rec.rows("v_rows"),
                    "n_done": rec.done, "times": np.asarray(rec.times, dtype=float),
                    "cpu_times": np.asarray(rec.cpu_times, dtype=float), "theta": theta,
                    "dzA": dzA, "Dvec": Dvec, "final": final}

        ifd = dens is not None
        metric = stage_dz = None
        with catch_interrupt() as stop:
            if upd == 2:        # newton: the metric from a sample at the start
                metric = update.metric(_sample_at(sampler, self.par.eta(theta), dzA, dens, m,
                                                  max(200, 20 * p)), ifd)
                stage_dz = []
            for o in range(o_start, outer):
                if upd == 2 and o > o_start and rates[o] != rates[o - 1] and stage_dz:
                    # a new learning-rate stage: Cov(g) again, nearer the estimate
                    metric = update.metric(np.concatenate(stage_dz), ifd)
                    stage_dz = []
                theta, rows = update.outer_iteration(sampler, theta, dzA, inner, m, upd,
                                                     rates[o], metric, Dvec, ifd,
                                                     self.arc_corr, cfg, th_c, dz_c, acc_c, v_c)
                if stage_dz is not None:
                    stage_dz.append(rows)
                if self.adaptive:
                    Dvec = _adapted_scales(Dvec, th_c, free, cfg["comp_c"])
                rec.store(th_c, dz_c, acc_c, v_c)
                self.outer_done += 1
                rec.times.append(time.perf_counter() - self.t_start)
                rec.cpu_times.append(time.process_time() - self.c_start)
                if not np.all(np.isfinite(theta)):
                    raise DegenerateModelError(
                        "Equilibrium Expectation diverged (non-finite parameters): the model "
                        "may be degenerate; try geometrically weighted terms, a smaller "
                        "learning_rate / aca_ee, or a different init")
                self._report(rec.done, theta, dzA, acc_c)
                if self.checkpoint is not None and self.checkpoint.due():
                    self.checkpoint(partial())
                if self.control is not None and self.control.stop_requested():
                    self.interrupted = True
                    break
                if cfg["stop_when_converged"] and o + 1 >= _min_outer(cfg) \
                        and o >= last_stage and _settled(rec, cfg, stage_start, inner):
                    stopped_early = True
                    break
        if stop.interrupted:
            self.interrupted = True
        if self.checkpoint is not None:
            # after Ctrl-C inside an outer iteration its rows are lost but θ, dzA
            # and x_t still agree with each other: a resumed run goes on from them
            self.checkpoint(partial(final=not self.interrupted))
        self.dzA = dzA
        return {"theta_rows": rec.rows("theta_rows").copy(),
                "dz_rows": rec.rows("dz_rows").copy(), "acc_rows": rec.rows("acc_rows").copy(),
                "v_rows": rec.rows("v_rows").copy(),
                "iters": np.arange(rec.n_rows) * rec.store_every, "n_done": rec.done,
                "store_every": rec.store_every, "final_theta": theta, "final_dzA": dzA.copy(),
                "D_final": Dvec, "stage_start": stage_start, "times": rec.times,
                "cpu_times": rec.cpu_times, "stopped_early": stopped_early}

    def _report(self, done, theta, dzA, acc_c):
        """Progress to the run (``control``) and the user's ``callback``."""
        if self.control is not None:
            self.control.report(self.outer_done, self.n_planned)
        if self.callback is not None:
            self.callback({"chain": self.chain, "outer": self.outer_done,
                           "n_outer": self.n_planned, "iterations": done,
                           "theta": theta.copy(), "dzA": dzA.copy(),
                           "acceptance": float(acc_c.mean())})

    def _summary(self, seconds_ee, cpu_ee):
        cfg, runs, m = self.cfg, self.runs, self.m
        main = runs[-1]
        return {"chain": self.chain, "labels": self.labels, "n_done": main["n_done"],
                "store_every": main["store_every"], "stage_start": main["stage_start"],
                "theta_rows": main["theta_rows"], "dz_rows": main["dz_rows"],
                "acc_rows": main["acc_rows"], "v_rows": main["v_rows"],
                "phases": [{"proposal": r["proposal"], "n_done": r["n_done"],
                            "store_every": r["store_every"], "theta_rows": r["theta_rows"],
                            "times": r["times"], "cpu_times": r["cpu_times"],
                            "dz_rows": r["dz_rows"], "acc_rows": r["acc_rows"],
                            "v_rows": r["v_rows"]} for r in runs],
                "interrupted": self.interrupted, "s_theta": self.s_theta,
                "s_rows": self.s_rows, "Dmean": self.Dmean, "D_final": main["D_final"],
                "arc_correction": self.arc_corr, "dens": self.dens, "L_obs": self.L0,
                "n_vars": self.n_vars, "final_theta": main["final_theta"],
                "final_dzA": main["final_dzA"], "seconds_ee": seconds_ee, "cpu_ee": cpu_ee,
                "proposals_ee": sum(r["n_done"] for r in runs) * m,
                "proposals_s": (int(cfg["s_steps"]) * m if self._needs_s() else 0),
                "ifd_unbalanced": int(self.prop.n_unbalanced) if self.use_ifd else 0,
                "sims": None, "seconds_sim": 0.0, "proposals_sim": 0}

    def _simulate_at_estimate(self, out):
        """The Fisher information's sample at the chain's estimate (``se="simulate"``),
        or the one a finished chain's checkpoint saved."""
        cfg = self.cfg
        sims_saved = None
        if self.resumed_finished:
            # a finished chain resumed: its own simulation, if it was saved, so the
            # run returns the estimate it gave (a new one would differ)
            sims_saved = read_sims(cfg["resume"], self.model, self.chain, self.outer_done)
        if sims_saved is not None and cfg["se"] == "simulate":
            out["sims"], out["sim_interval"], out["proposals_sim"], extra = sims_saved
            out.update(extra)                   # cond_cov: missing dyads (ee.missing)
            return
        n_rows = len(out["theta_rows"])
        if cfg["se"] != "simulate" or out["interrupted"] or n_rows < 4:
            return
        keep = np.arange(n_rows) * out["store_every"] >= burnin_iters(
            cfg["burnin"], out["n_done"], out["stage_start"])
        est = out["theta_rows"][keep].mean(axis=0)
        t_sim = time.perf_counter()
        interval, burn, n_sim, unit, _ = sim_plan(cfg, self.L0)
        with catch_interrupt() as stop:
            # the model's own MCMC proposal (triadic moves for triangle terms mix
            # far better on clustered networks), as MCMC-MLE samples
            s2 = _sim_sampler(self.model, self.bm, self.rng)
            draws = _simulate(s2, self.par.eta(est), n_sim, burn, interval, unit,
                              self.control, self.n_planned)
            out["sims"] = out["final_dzA"] + draws
            # missing dyads: minus the conditional mean (ee.missing)
            self.cond.adjust(out, self.par.eta(est), n_sim, interval)
            out["sim_interval"] = int(interval)
            out["proposals_sim"] = int(burn) + int(n_sim) * int(interval)
            if self.checkpoint is not None:
                EESimsState(chain=self.chain, outer_done=int(self.outer_done),
                            interval=int(interval), proposals=out["proposals_sim"],
                            sims=out["sims"], cond_cov=out.get("cond_cov")).write(
                    self.checkpoint.store, self.model, sims_name(self.chain))
        if stop.interrupted:
            out["interrupted"] = True
        out["seconds_sim"] = time.perf_counter() - t_sim


def _adapted_scales(Dvec, th_c, free, comp_c):
    """The adaptive update's scales after an outer iteration whose θ rows are ``th_c``
    (Byshkin et al. 2018: D_k × sqrt(compC / (sd_k / |mean_k|)))."""
    mu = th_c.mean(axis=0)
    sd = th_c.std(axis=0)
    amu = np.where(np.abs(mu) < 0.1, 0.1, np.abs(mu))
    with np.errstate(divide="ignore", invalid="ignore"):
        fac = np.where(sd > 1e-10, np.sqrt(comp_c / (sd / amu)), 1.0)
    return np.where(free, Dvec * fac, Dvec)


def _min_outer(cfg):
    """Outer iterations before ``stop_when_converged`` may stop: ``min_ee_steps``, or 0
    for ``"auto"`` (whose rule, on the kept iterations, is :func:`_settled`'s)."""
    m = cfg.get("min_ee_steps", "auto")
    return 0 if isinstance(m, str) else int(m)


def min_kept_outer(cfg):
    """Outer iterations' worth of kept iterations (after the burn-in) an early stop needs
    under ``min_ee_steps="auto"``: ceil(1 / t_tol²), 100 at ``t_tol`` = 0.1.  The t-ratio of
    n roughly independent rows has a sampling noise of about 1/√n: with fewer, |t| < t_tol
    happens by chance for a trajectory whose mean dzA is a third of its sd away from 0
    (samplike ``edges + mutual`` stopped "converged" after 10-12 outer iterations, EstimNet's
    s.e. of mutual 0.7-16 against statnet's 0.4); one row an outer iteration (the default
    ``thin``) makes that many rows.  0 when ``min_ee_steps`` is a number (8 rows suffice)."""
    if not isinstance(cfg.get("min_ee_steps", "auto"), str):
        return 0
    return int(math.ceil(1.0 / float(cfg["t_tol"]) ** 2 - 1e-9))


def _settled(rec, cfg, stage_start, inner=1):
    """``stop_when_converged``: after the burn-in (at least 8 rows, and under
    ``min_ee_steps="auto"`` at least :func:`min_kept_outer` outer iterations of ``inner``
    iterations), every |t-ratio| below ``t_tol`` and every drift below ``drift_tol``."""
    keep = rec.kept(cfg["burnin"], stage_start)
    if keep.sum() < 8 or keep.sum() * rec.store_every < min_kept_outer(cfg) * inner:
        return False
    tr = t_ratios(rec.rows("dz_rows")[keep])
    dr = _drift(rec.rows("theta_rows")[keep])
    return bool(np.all(np.abs(tr) < cfg["t_tol"]) and np.all(dr < cfg["drift_tol"]))


def ee_chain(model, cfg, seed, chain=0, callback=None, control=None):
    """One EE chain (:class:`EEChain`), the job the EE estimator runs here or in a
    worker (deaf to SIGINT there: the parent asks it to stop).  Returns a dict of arrays."""
    with deaf_to_sigint(control is not None and getattr(control, "on_report", None) is None):
        return EEChain(model, cfg, seed, chain, callback, control).run()


def _drift(theta_rows):
    """|mean(first half) − mean(second half)| / sd, per parameter (sd over both)."""
    n = len(theta_rows)
    if n < 4:
        return np.full(theta_rows.shape[1], np.inf)
    h = n // 2
    d = np.abs(theta_rows[:h].mean(axis=0) - theta_rows[h:].mean(axis=0))
    sd = theta_rows.std(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, d / sd, np.where(d == 0, 0.0, np.inf))



def _planned_outer(cfg):
    n = cfg["ee_steps"]
    if cfg["proposal"] == "ifd-tnt":
        n += cfg["tnt_steps"] if cfg["tnt_steps"] is not None else cfg["ee_steps"]
    return n


def ee_update_for(par):
    """EE's update of θ for the parameterisation ``par``, chosen once: the compiled
    loop when θ = η (:class:`_LinearEE`, also for ``par`` None), else through the
    map (:class:`_CurvedEE`)."""
    return _CurvedEE if par is not None and not par.linear else _LinearEE
