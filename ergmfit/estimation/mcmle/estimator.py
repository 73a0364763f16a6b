"""Monte Carlo maximum likelihood (MCMC-MLE), as statnet fits ERGMs.

The algorithm (Geyer & Thompson 1992; Hummel, Hunter & Handcock 2012):

1. Start from the MPLE (or a given ``init``).
2. At the current θ_t, draw a sample of statistics g(X_i) by Metropolis-Hastings
   (persistent chains: each iteration continues from where the last stopped).
   With z_i = g(X_i) − g(x_obs), the log-likelihood ratio is estimated by
   importance sampling: ℓ(θ) − ℓ(θ_t) ≈ −log mean_i exp((θ − θ_t)·z_i).
3. Step length (Hummel et al.): the largest γ ∈ (0, 1] such that the point
   (1 − γ)·z̄, pushed out by the margin, lies in the convex hull of the z_i.
   Then maximise the importance-sampling approximation with the observed
   statistics replaced by that pseudo-observation: E_θ[z] = (1 − γ) z̄.
4. Stop (``termination="hummel"``, the default, as statnet 3's rule of the same
   name) when γ = 1 in two consecutive iterations (Hummel's γ, recorded as
   ``hummel_gamma``: the trust region below may shorten the step taken, recorded as
   ``gamma``, without ending the streak, as statnet's rule has no such region); then
   one last iteration with a sample up to ``last_boost`` (4) times larger gives the estimate and its
   covariance (as large as its effective-size target needs at its interval:
   :func:`~ergmfit.estimation.mcmle.interval.final_sample_size`).  With ``termination="hotelling"`` stop instead when γ = 1 and
   Hotelling's T² test (batch-means covariance, so autocorrelation counts)
   no longer rejects E_θ[g] = g(x_obs) at ``conv_pval``.  Either way the final
   Hotelling p-value is kept in ``info["history"]``.  The interval adapts so
   that each sample has ``target_ess`` (64) effective draws, counted as statnet
   counts them (the multivariate effective size), and ``min_ess_share`` of it of
   every statistic (a floor of ours, declared by the model's family: 0.5, 32 draws,
   for binary ties, without which faux.mesa.high's fits wandered; 0, statnet's
   multivariate rule alone, for counts); the
   last, boosted sample aims at ``last_boost`` × 64 multivariate effective draws,
   as statnet's Hummel rule boosts ``MCMLE.effectiveSize``, in at least 2 ×
   ``samplesize`` draws (statnet boosts the draws by ``last_boost`` ** 0.5).
   A sample at the smallest interval, which may
   have many times its target, is drawn in parts and stops once it has it
   (:func:`~ergmfit.estimation.mcmle.interval.step_sample_parts`); a last sample
   there stops once it has ``last_boost`` × 64 of every statistic (the rule before
   the multivariate one, kept at the floor: the ergm.ego reference fits' last
   samples shrank to 2048 draws under the multivariate target and missed statnet's).
5. Standard errors: the inverse of the Fisher information Cov_θ̂[g] estimated
   from the last sample (importance-weighted to θ̂), plus the Monte Carlo
   variance I⁻¹ V I⁻¹ with V the batch-means variance of the weighted mean
   ("MCMC %" = share of the total s.e. due to it, as statnet prints it).
6. Log-likelihood by bridge sampling from the dyad-independent submodel,
   whose log-likelihood is exact: log Z(θ̂) − log Z(θ₀) = ∫ (θ̂ − θ₀)·E_{θ(u)}[g] du
   over θ(u) = θ₀ + u(θ̂ − θ₀), by the midpoint rule over ``bridges`` points.

With ``pool_samples`` = K > 1 the step of step 3 is taken on the draws of the last K
settled samples, pooled by mixture importance sampling (Geyer's reverse logistic
regression, :mod:`ergmfit.estimation.mcmle.pooling`); the last sample alone gives the
estimate and its covariance.  ``"auto"`` is the model family's declaration
(``ModelFamily.pool_samples``): 4 for counts (the issue-554 model converged pooled, at
two seeds: docs/valued_terms.md), 1 for binary ties, as statnet.

Guards (#22): the step length of step 3 is the larger of Hummel's and the
sample ellipsoid's only while the latter's pseudo-observation stays inside the
convex hull (outside it the importance-sampling log-likelihood has no finite
maximiser); an overshooting step is halved back; a step keeps ``min_is_ess``
of the importance weights' effective size.  A near-degenerate swing counts only
samples with ``SWING_ESS_SHARE`` x ``target_ess`` effective draws of the swinging
statistic (or a bistable sample between): a swing of under-sampled statistics is
noise of the steps, answered by larger samples (every statistic's share of
``target_ess`` raised to ``SWING_ESS_SHARE``, divided among the ``pool_samples`` samples a
pooled step is taken on), not by a restart.  When the iterations fail (a
near-degenerate swing, a chain stuck at the empty or complete graph), the fit
is redone once (:mod:`ergmfit.estimation.mcmle.fallback`) from the EE estimate
after a swing, else from the contrastive-divergence one (unless ``init`` was
given), with a ``FALLBACK_INTERVAL`` (4) times longer interval and steps kept to
``FALLBACK_IS_ESS`` (0.2) effective size (``info["fallback"]`` says so); only
when that fails too is DegenerateModelError raised, with advice for the model.
The last sample stays on the results (``fit.mcmc_sample``) for
``fit.mcmc_diagnostics()``.
"""
from __future__ import annotations

import time
import warnings
from functools import partial

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError, SettingsError
from ...sampling.chains import batch_means_cov, effective_sizes, multivariate_ess, run_chains
from ..common.stepping import (ellipsoid_step, hotelling_pvalue, hummel_step, in_convex_hull,  # noqa: F401
                       is_trust_region, is_weights,
                       standardised_mean as _standardised_mean)
from ...runtime import Checkpoint, GuardedPhases, Progress
from ...sampling.space import sample_space_of
from ...utils.validation import check_random_state
from ..common.nobs import fit_nobs
from ..common.curved import (check_runoff as _check_runoff,
                              degenerate_sample as _degenerate_sample, gw_advice as _gw_advice,
                              restart as _restart_decays, first_interval as _first_interval,
                              first_sample_ok as _first_sample_ok)
from ..base import Estimator
from .checkpoint import MCMLECheckpoint, chains_record, restore_chains
from .state import MCMLEState
from .target import target_for
from .interval import (final_sample_size, last_sample_key, quarter_octave,
                       step_sample_parts, streak_tau)
from .loglik import bridge_loglik
from .pooling import pooled_sample
from .burnin import (MAX_REDRAWS, MAX_SETTLE, NEWTON_DRAWS, REDRAW_GROWTH, approach,
                     drifting, settle, streak_records, unfit_to_step)
from .settings import SETTINGS, missing_data_settings
from .start import exact_mle, exact_mle_available, nothing_to_estimate, start_theta





def check_degeneracy(model, chains, D, centre=None):
    """Raise DegenerateModelError for a sample stuck at the empty/complete graph
    or a statistic that does not vary.  With ``centre`` (what the sample aims at),
    a statistic stuck at another value than the centre's marks a chain far from
    the data (a start in another phase): a second attempt from another start may
    avoid it (retryable)."""
    S = np.concatenate(chains)
    labels = model.labels
    sd = S.std(axis=0)
    flat = [labels[k] for k in np.flatnonzero(sd == 0)]
    if "edges" in labels:
        e = S[:, labels.index("edges")]
        if np.all(e == 0) or np.all(e == D):
            where = "empty" if np.all(e == 0) else "complete"
            raise _retryable(DegenerateModelError(
                f"the MCMC sample is stuck at the {where} graph: the model is degenerate at these "
                f"parameters. Try {_gw_advice(model)}a different starting value (init=...)"))
    if flat:
        stuck_away = centre is not None and any(
            S[0, k] != centre[k] for k in np.flatnonzero(sd == 0))
        raise (_retryable if stuck_away else (lambda e: e))(DegenerateModelError(
            f"the simulated statistic(s) {flat} did not vary in the MCMC sample: the model is "
            f"degenerate or the chain does not mix. Try {_gw_advice(model)}a longer interval, "
            "or removing the term(s)"))


#: a swing counts as near-degeneracy only in samples holding at least this share of
#: ``target_ess`` effective draws of the swinging statistic (the binary family's floor of
#: every statistic, ``ModelFamily.min_ess_share``); a swing seen only in samples with fewer
#: is Monte Carlo noise of the steps (the issue-554 count fit's ``nodeicovar`` against
#: ``nodeocovar``: 5.7-19.8 effective draws per sample, docs/valued_terms.md), and the
#: fit's samples are grown to this share of every statistic instead (MCMLE._iterate)
SWING_ESS_SHARE = 0.5


def _check_oscillation(model, history, Z, g_obs, counts=True, ess=None, min_ess=0.0):
    """Near-degeneracy: the sampled networks swing from far below to far above
    the observed statistics (e.g. almost empty, then almost complete) from one
    iteration to the next.  Record the standardised sample means (and, given ``ess``,
    each statistic's effective draws) and raise a DegenerateModelError when a statistic
    has done that twice.

    Only samples with at least ``min_ess`` effective draws of a statistic count towards
    its swing (a record without them, e.g. from an older checkpoint, counts), unless a
    bistable sample lies between (a chain jumping between two phases mixes slowly by
    nature).  A swing that only the under-sampled samples make is noise of the steps,
    not of the model: its statistics' labels are returned (an empty list otherwise)."""
    sd = Z.std(axis=0)
    t = np.where(sd > 0, Z.mean(axis=0) / np.where(sd > 0, sd, 1.0), 0.0)
    # a bistable sample: the chain itself jumps between networks with at most
    # half and at least twice the observed count (5% of the draws each way)
    g = Z + g_obs
    q05, q95 = np.quantile(g, 0.05, axis=0), np.quantile(g, 0.95, axis=0)
    bistable = (g_obs >= 20) & (q05 <= g_obs / 2) & (q95 >= 2 * g_obs)
    if not counts:       # curved models: projected statistics are not counts
        bistable[:] = False
    if history:
        history[-1]["t_mean"] = t.tolist()
        history[-1]["bistable"] = bistable.tolist()
        if ess is not None:
            history[-1]["ess_each"] = [float(x) for x in ess]
    # the last six recorded iterations (a resumed checkpoint may predate "bistable")
    last = [h for h in history if "t_mean" in h][-6:]
    if len(last) < 3:
        return []
    recent = np.array([h["t_mean"] for h in last])
    bis = np.array([h.get("bistable", [False] * len(t)) for h in last])
    sampled = np.array([h.get("ess_each", [np.inf] * len(t)) for h in last]) >= min_ess
    noise = []
    for k, lab in enumerate(model.labels):
        swung = _swung(recent[:, k], bis[:, k], counts)
        if swung and not bis[:, k].any() and not _swung(recent[sampled[:, k], k],
                                                         bis[sampled[:, k], k], counts):
            noise.append(lab)           # only the under-sampled samples swing
            continue
        if swung:
            lo = np.min(recent[:, k]); hi = np.max(recent[:, k])
            raise _swing(_retryable(DegenerateModelError(
                f"the model is near-degenerate: from one MCMC-MLE iteration to the next the "
                f"simulated networks swing between far fewer and far more {lab!r} than observed "
                f"(sample means {lo:+.0f} to {hi:+.0f} standard deviations from it), so no "
                f"estimate reproduces the observed network. Try "
                f"{_gw_advice(model, 'a smaller decay of the geometrically weighted terms, ')}"
                "add dyad-independent covariate terms, or fit by method='ee'")))
    return noise


def _swung(t, bistable, counts):
    """Whether one statistic's standardised sample means ``t`` (oldest first) swing: two
    samples each way beyond 3 s.d.; or one each way with a ``bistable`` sample among them.
    Curved models (``counts`` False: no counts to call bistable) need the swing to come
    back: far above, far below, far above again (or the reverse) -- a curved fit
    approaching from far away crosses once, from its fixed-decay start."""
    above, below = np.sum(t > 3), np.sum(t < -3)
    if not counts:
        side = np.sign(t[np.abs(t) > 3])
        return int(np.sum(side[1:] != side[:-1])) >= 2
    return bool((above >= 2 and below >= 2) or (above >= 1 and below >= 1 and bistable.any()))


def _has_target(par, theta, target_ess, min_share, min_draws, stats):
    """Whether one chain's ``stats`` have ``target_ess`` effective draws (multivariate) and
    ``min_share`` of it for every direction of θ, in at least ``min_draws`` draws
    (``run_chains``' stopping rule of a sample drawn in parts).  A statistic that does not
    vary has no effective size (the estimate says n): a chain stuck in one state never
    stops early, so the whole sample shows it."""
    if len(stats) < min_draws or np.any(np.ptp(par.projector(theta)(stats), axis=0) == 0):
        return False
    return _first_sample_ok(par, theta, [stats], target_ess, min_share)


def _retryable(exc):
    """Mark a failure of the iterations (not of the model's statistics) that a
    second attempt from a better start, with a longer chain and smaller steps,
    may avoid (see :meth:`MCMLE.fit`)."""
    exc.retryable = True
    return exc


MAX_BACKTRACKS = 3      # consecutive halvings of an overshooting step


def _overshoot(before, after):
    """The sample crossed far to the other side of the observed statistics:
    some statistic went from > 3 sd on one side to > 3 sd on the other, and the
    largest deviation grew."""
    crossed = np.any(((before > 3) & (after < -3)) | ((before < -3) & (after > 3)))
    return bool(crossed and np.max(np.abs(after)) > np.max(np.abs(before)))


def _step_length(Z, margin):
    """Hummel's step length, or the ellipsoid's when larger -- but only while its
    pseudo-observation stays inside the sample's convex hull: outside it the
    importance-sampling log-likelihood has no finite maximiser, and Newton's
    method runs off to infinity (faux.dixon.high from its MPLE: a sample far
    below the observed statistics, the ellipsoid's target 0.33 of the way back
    lay outside the hull of a sample stretched along one direction)."""
    hull = hummel_step(Z, margin)
    ell = ellipsoid_step(Z)
    if ell > hull and not in_convex_hull(Z, (1.0 - ell) * Z.mean(axis=0)):
        return hull
    return max(hull, ell)


class MCMLE(Estimator):
    """Monte Carlo maximum likelihood, as statnet fits ERGMs (see :mod:`ergmfit.estimation.mcmle.estimator`).

    ``MCMLE(**settings).fit(model)`` returns an :class:`~ergmfit.results.ERGMResults`
    with method ``"mcmle"``; ``ERGM.fit(method="mcmle", **settings)`` builds it.
    ``info`` holds the iteration history, the final MCMC interval and the
    initial estimate.  A model with missing dyads is fitted by the observed-data
    likelihood in the same loop, its samples aimed at the conditional sample on
    the missing dyads (:mod:`ergmfit.estimation.mcmle.target`;
    :class:`MissingDataMCMLE` holds its defaults).

    ``checkpoint=path`` writes the current estimate, interval and history after
    every iteration, and what the next iteration goes on from: the chains' last states
    (as the model's family describes them), the random generator, the step's bookkeeping
    (burn-in, Hummel streak, overshoot guard, ...) and the samples a pooled step uses
    (:class:`~ergmfit.estimation.mcmle.checkpoint.MCMLECheckpoint`; written atomically, see
    :mod:`ergmfit.runtime.checkpoint`; a second fit writing to it at the same time is
    refused).  ``resume=path`` continues from it as if the fit had never stopped: with
    the same settings it returns the uninterrupted fit's coefficients, covariance,
    iterations and history (``random_state`` is not used; ``maxit`` counts the fit's
    iterations, the checkpoint's included).  A checkpoint written before these were kept
    resumes with its chains restarting (``info["resume"]`` says so).  Ctrl-C returns the last finished iteration (marked interrupted); during
    the covariance step the estimate (marked interrupted, standard errors NA);
    during the bridge sampling the finished fit with the log-likelihood NA
    (:class:`~ergmfit.runtime.interrupts.GuardedPhases`); while a failed first attempt's
    fall-back finds its start (EE, CD), the first attempt's last estimate (s.e. NA).  A model whose every
    coefficient is an offset has nothing to estimate: the fit holds none, with
    the log-likelihood at the offsets.
    A curved model's first sample is a pilot at ``min_interval``, forgotten
    (redrawn at ``interval``) when short of ``target_ess``
    (:func:`ergmfit.estimation.common.curved.first_sample_ok`).

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    >>> fit = MCMLE(random_state=1).fit(m)
    >>> round(float(fit.params["edges"]), 1)
    -1.7
    """

    method = "mcmle"
    #: the last sample's draws as its effective-size target needs at its interval
    #: (:func:`~ergmfit.estimation.mcmle.interval.final_sample_size`), not always
    #: ``last_boost`` x ``samplesize``
    final_sample_by_ess = True
    #: a non-final sample held at the smallest interval stops, part by part, once it has
    #: its effective-size target (:func:`~ergmfit.estimation.mcmle.interval.step_sample_parts`)
    step_sample_by_ess = True
    supports = {"curved": True, "constraints": True, "missing": True, "target_stats": True,
                "missing+target_stats": False, "families": frozenset({"binary", "count"}),
                "infinite_estimates": True, "tempering": True}
    SETTINGS = SETTINGS

    def fit(self, model):
        if not len(model.labels):
            return nothing_to_estimate(model, self.get_params(), self._n_chains())
        target = target_for(model, self.obs_interval)
        if type(target).completes_start and type(self).SETTINGS is SETTINGS:
            # missing dyads: the same loop, with the missing-data fit's defaults
            return MissingDataMCMLE(**self.given_params()).fit(model)
        if self.obs_interval is not None and target.checkpoint is MCMLECheckpoint:
            raise SettingsError("setting 'obs_interval' (the chains conditional on the observed "
                                "dyads) applies to models with missing dyads only")
        from ...results import ERGMResults
        settings = self.get_params()
        res = exact_mle(model, settings) if exact_mle_available(model, settings) else None
        if res is not None:
            res.diagnostics.update(target.info(model))
            return res
        from ...runtime.interrupts import second_ctrl_c_waits
        try:
            with second_ctrl_c_waits():     # a second quick Ctrl-C does not lose the fit
                state = self._run(model)
            fallback = None
        except DegenerateModelError as exc:
            try:
                if (getattr(exc, "decay_start", None) is not None and settings["init"] is None
                        and settings["resume"] is None):
                    # a curved fit failed from its default start: from decays 0.5
                    # (curved.restart)
                    from ..mple.pseudolikelihood import MPLE
                    state, fallback, state.init_method = _restart_decays(
                        model, settings, exc, self._refit, MPLE)
                elif not getattr(exc, "retryable", False) or settings["resume"] is not None:
                    raise
                else:
                    state, fallback = _fall_back(model, settings, exc, self._refit)
            except KeyboardInterrupt:
                # Ctrl-C while the second attempt found its start (EE, CD, the MPLE):
                # the first attempt's last iteration, marked (the second attempt's own
                # iterations answer Ctrl-C as any fit's)
                state, fallback = self._interrupted_restart(exc), None
        if state.interrupted_in == "covariance":     # (after finished iterations)
            warn = ["interrupted by the user while computing the covariance after the "
                    "iterations: standard errors and log-likelihood are NA"]
        elif state.interrupted:
            warn = [f"interrupted by the user after {state.iteration} iteration(s): not converged"]
        elif not state.converged:
            warn = [f"MCMC-MLE did not converge in {state.iteration} iterations"]
        else:
            warn = []
        for msg in model.parameterisation.decay_messages(state.theta, "likelihood"):
            warn.append(msg)
            if not msg.startswith("Note"):
                warnings.warn(msg, ConvergenceWarning, stacklevel=3)
        if state.loglik_interrupted:
            warn.append("interrupted by the user while bridge-sampling the log-likelihood: the "
                        "fit is complete, its log-likelihood is NA (eval_loglik=False skips it)")
        interval = state.interval
        info = {"history": state.history, "final_interval": interval,
                "mcmc": {"interval": interval, "burnin": 16 * interval},
                "init_method": (state.init_method if state.resumed_from is None else
                                f"checkpoint {state.resumed_from} (the fit's start: "
                                f"{state.init_method})"),
                "loglik_mcse": state.loglik_se,
                "interrupted": state.interrupted,
                "loglik_interrupted": state.loglik_interrupted,
                "cov_model": state.cov_model.tolist(), "cpu_seconds": state.cpu_seconds}
        if fallback is not None:
            info["fallback"] = fallback
            warn.append(f"Note: {fallback}")
        if state.resume_note is not None:
            info["resume"] = state.resume_note
            warn.append(f"Note: {state.resume_note}")
        info.update(target.info(model))
        res = ERGMResults(state.theta, state.cov, model.labels, method="mcmle",
                          loglik=state.loglik,
                          loglik_kind=state.loglik_kind if state.loglik is not None else None,
                          **fit_nobs(model),
                          converged=state.converged,
                          n_iter=state.iteration, seconds=state.seconds, cov_mc=state.cov_mc,
                          se_kind=target.se_kind, loglik_mcse=state.loglik_se, warnings=warn,
                          info=info, formula=model.formula, network=model.network, model=model,
                          dyad_independent=model.dyad_independent)
        if state.chains_z is not None:       # None: interrupted before the first sample
            res.mcmc_sample = {"chains": state.chains, "observed": model.statistics_vector(),
                               "labels": list(model.stat_labels), "interval": interval}
        return res

    def _interrupted_restart(self, first):
        """The state to return when Ctrl-C stopped the second attempt after ``first`` (the
        first attempt's DegenerateModelError, which carries its state) before that
        attempt's iterations began: the first attempt's last estimate, marked
        interrupted, standard errors NA (its last sample is the one that failed)."""
        state = first.state
        state.interrupted, state.interrupted_in = True, "restart"
        state.iteration = len(state.history)
        p = len(state.theta)
        state.cov, state.cov_model, state.cov_mc = (np.full((p, p), np.nan) for _ in range(3))
        warnings.warn(f"MCMC-MLE was interrupted by the user while restarting after its first "
                      f"attempt failed ({first}): the estimates are the first attempt's last, "
                      "NOT converged; standard errors are NA", ConvergenceWarning, stacklevel=3)
        return state

    def _refit(self, model, **settings):
        """The iterations again with other settings (the second attempt of a failed fit)."""
        return type(self)(**settings)._run(model)

    # -- the iterations ------------------------------------------------------------------
    def _n_chains(self):
        if self.n_chains is not None:
            return max(1, int(self.n_chains))
        # one chain per process: joblib's n_jobs = -k means every CPU but k - 1
        from joblib import effective_n_jobs
        return max(1, int(effective_n_jobs(self.n_jobs) if self.n_jobs < 0 else self.n_jobs))

    def _min_interval(self):
        # the interval may drop to a quarter of the start value when the draws are
        # nearly independent (small, fast-mixing models), no lower: a short chain
        # stuck in one mode of a near-degenerate model looks well mixed locally
        return max(1, self.interval // 4) if self.min_interval is None else int(self.min_interval)

    def _run(self, model) -> MCMLEState:
        """The whole fit: start, then iterations, covariance and log-likelihood as one
        guarded region (:class:`~ergmfit.runtime.interrupts.GuardedPhases`): a Ctrl-C in
        any of these phases returns the finished work, marked (``state.interrupted_in``)."""
        t0 = time.perf_counter()
        c0 = time.process_time()
        rng = check_random_state(self.random_state)
        state = self._start(model, rng)
        if state.rng is None:       # (a resumed fit goes on with the checkpoint's stream)
            state.rng = rng
        rng = state.rng
        timings = state.cpu_seconds
        timings["start"] = time.process_time() - c0
        guard = GuardedPhases()
        try:
            guard.run("iterations", self._iterations, model, state, rng)
        except DegenerateModelError as exc:
            exc.state = state       # (should Ctrl-C stop the second attempt: fit)
            raise
        state.interrupted = guard.interrupted == "iterations"
        self._warn_unfinished(state)
        if state.chains_z is not None:       # None: Ctrl-C before the first sample
            # (also after interrupted iterations: the last sample's covariance)
            guard.run("covariance", self._covariance, model, state, finishing=True)
        timings["iterations"] = time.process_time() - c0 - timings["start"]
        if state.chains_z is not None:
            if self.eval_loglik:
                guard.run("loglik", self._loglik, model, state, rng)
            timings["loglik"] = (time.process_time() - c0 - timings["start"]
                                 - timings["iterations"])
        state.interrupted_in = guard.interrupted
        if "covariance" in guard.interrupted_phases:
            state.interrupted = True
            warnings.warn("interrupted by the user while computing the covariance after the "
                          "iterations: the estimates are those of the last iteration, standard "
                          "errors and log-likelihood are NA", ConvergenceWarning, stacklevel=2)
        elif guard.interrupted == "loglik":
            state.loglik = state.loglik_se = None
            state.loglik_interrupted = True
            warnings.warn("interrupted while bridge-sampling the log-likelihood: the fit is "
                          "complete, its log-likelihood (and AIC, BIC) is NA",
                          ConvergenceWarning, stacklevel=2)
        if state.cov is None:                # no sample, or the covariance interrupted
            p = len(state.theta)
            nan = np.full((p, p), np.nan)
            state.cov, state.cov_model, state.cov_mc = nan, nan.copy(), nan.copy()
        state.seconds = time.perf_counter() - t0
        return state

    def _iterations(self, model, state, rng):
        """The iterations, until convergence or ``maxit``; a checkpoint after each."""
        progress = Progress(self.maxit, "MCMLE", unit="it", enabled=self.verbose)
        store = None
        if self.checkpoint is not None:
            store = Checkpoint(self.checkpoint, what="MCMC-MLE checkpoint").acquire()
        try:
            # maxit counts the fit's iterations, a resumed fit's earlier ones too
            for it in range(state.n_before + 1, self.maxit + 1):
                state.iteration = it
                done = self._iterate(model, state, rng, progress, store)
                if store is not None:
                    self._write(store, model, state, rng)
                if done:
                    break
        finally:
            progress.close()
            if store is not None:
                store.release()

    def _start(self, model, rng) -> MCMLEState:
        """The state before the first iteration: the start θ (or the checkpoint's)."""
        interval = self.interval
        burnin = 16 * interval if self.burnin is None else int(self.burnin)
        init, init_method, history = self.init, "user", []
        target = target_for(model, self.obs_interval)
        saved = None
        if self.resume is not None:
            saved = target.checkpoint.read(self.resume, model, max_interval=self.max_interval)
            init, interval, history = saved.theta, saved.interval, saved.history
            burnin = 16 * interval
            init_method = f"checkpoint {self.resume}"
        theta, how = start_theta(model, init, rng,
                                 completion=rng if target.completes_start else None)
        state = MCMLEState(theta=theta, interval=interval, history=history, burnin=burnin,
                           init_method=how or init_method, starts=[None] * self._n_chains(),
                           n_before=len(history), g_obs=model.statistics_vector(),
                           target=target, min_ess_share=self._min_ess_share(model),
                           pool_samples=self._pool_samples(model))
        if saved is not None:
            self._restore(model, state, saved, target)
        min_interval = self._min_interval()
        if getattr(model, "pilot_first_sample", False) and self.resume is None \
                and min_interval < interval:
            # the model asks for a pilot first sample at the smallest interval
            state.pilot, state.interval = interval, _first_interval(interval, min_interval)
        return state

    def _restore(self, model, state, saved, target):
        """Go on from the checkpoint ``saved``: the chains' states, the step's bookkeeping,
        the pooled samples and the random stream (:func:`.checkpoint.restore_chains`), so
        that the fit goes on as the uninterrupted one; a checkpoint without them (written
        before session 23) restarts its chains from the observed network, without moving
        the start (a warning and ``info["resume"]`` say so)."""
        n_chains, path = self._n_chains(), self.resume
        if len(state.history) >= self.maxit:
            raise SettingsError(f"cannot resume from {path}: it holds {len(state.history)} "
                                f"iterations and maxit={self.maxit} counts the fit's iterations, "
                                "these included: nothing is left to run; give a larger maxit "
                                "to go on")
        exact = restore_chains(saved.chains_state, state, model, sample_space_of(model),
                               n_chains, path)
        rng = target.restore(saved, state, n_chains, path)
        if rng is not None:             # (an older missing-data checkpoint's stream)
            state.rng, exact = rng, True
        if any("swing_noise" in h for h in state.history):     # (see _iterate)
            state.min_ess_share = max(state.min_ess_share, self._noise_share(state))
        if not exact:
            state.approached = True     # (the start is not moved on a resume)
            state.resume_note = (f"the checkpoint {path} predates the chains' states: the "
                                 "chains restart from the observed network and the step's "
                                 "pooled samples and streak are lost, so the fit does not go "
                                 "on as the uninterrupted one would")
            warnings.warn(f"MCMC-MLE resume: {state.resume_note}", ConvergenceWarning,
                          stacklevel=5)

    def _sample(self, model, state, rng, size):
        """The iteration's sample (chains of statistics) at state.theta; the chains go on
        from where the last sample left them."""
        run = self._run_args(rng)
        pilot = state.pilot is not None and state.iteration == 1
        if pilot:       # see curved.first_sample_ok
            before = (rng.bit_generator.state, state.starts)
        chains, state.starts, acc = self._draw(model, state, size, run)
        if pilot and not _first_sample_ok(model.parameterisation, state.theta, chains,
                                          self.target_ess, state.min_ess_share):
            # a pilot short of effective draws leaves no trace: the first sample
            # is drawn as without it (same start, burn-in and random numbers)
            rng.bit_generator.state, state.starts = before
            state.interval = state.pilot
            chains, state.starts, acc = run_chains(model, state.theta, size, state.burnin,
                                                   state.interval, state.starts, **run)
        return chains, acc

    def _draw(self, model, state, size, run):
        """``size`` draws at state.theta from state.starts (:func:`run_chains`); a sample at
        the smallest interval in parts, each chain stopping after the first part at which
        it has its share of the effective-size target (:func:`.interval.step_sample_parts`)."""
        part = step_sample_parts(self.samplesize, state.interval, self._min_interval())
        until = None
        if part is not None and self._in_parts(state):
            # what it aims at: the step's target (target_ess multivariate, min_ess_share
            # of it for every statistic), or the last sample's: at this smallest interval
            # last_boost x target_ess of *every* statistic in at least samplesize draws
            # (the rule before statnet's multivariate one, kept here: with the
            # multivariate target the ergm.ego census_sex_deg01 reference fits' last
            # samples fell from 4096 to 2048 draws and missed statnet's by 0.116 s.e.,
            # s.e. ratio 1.185; above the floor final_sample_size sizes the last sample by
            # the multivariate target, as statnet's Hummel rule)
            ess, share, least = ((self.last_boost * self.target_ess, 1.0, self.samplesize)
                                 if state.final
                                 else (self.target_ess, state.min_ess_share, 0))
            chains = run["n_chains"]
            until = (part, partial(_has_target, model.parameterisation, state.theta.copy(),
                                   ess / chains, share, least / chains))
        return run_chains(model, state.theta, size, state.burnin, state.interval,
                          state.starts, until=until, **run)

    def _in_parts(self, state):
        """Whether this iteration's sample is drawn in parts until it has its target."""
        return self.step_sample_by_ess and state.interval <= self._min_interval()

    def _run_args(self, rng):
        return dict(n_chains=self._n_chains(), n_jobs=self.n_jobs, random_state=rng,
                    proposal=self.proposal, backend=self.backend)

    def _write(self, store, model, state, rng):
        """The checkpoint after an iteration: the loop state's saved fields, what the next
        iteration goes on from (:func:`.checkpoint.chains_record`) and the target's."""
        target = state.target
        extra = {"chains_state": chains_record(state, model, rng),
                 **target.resume_state(state, rng)}
        target.checkpoint.of(state, extra).write(store, model)

    def _iterate(self, model, state, rng, progress, store) -> bool:
        """One iteration: sample at θ, step towards the observed statistics, adapt the
        interval.  Returns True when the fit has converged."""
        par = model.parameterisation
        size = self.samplesize
        if state.final:
            records = streak_records(state.history)
            key = last_sample_key(records, self.samplesize, self.target_ess,
                                  self._min_interval())
            size = (final_sample_size(records, state.interval, self.samplesize,
                                      self.last_boost, self.target_ess, key)
                    if self.final_sample_by_ess and not self._in_parts(state)
                    else self.last_boost * self.samplesize)
        chains, acc = self._sample(model, state, rng, size)
        chains, acc = self._settle(model, state, chains, acc, rng)
        size = sum(len(c) for c in chains)        # (fewer when it reached its target early)
        # the point the sample aims at: the observed statistics, or with missing dyads
        # the mean of the conditional sample at θ (see .target)
        g_obs = state.centre = state.target.centre(model, state, rng, size,
                                                   self._run_args(rng))
        theta = state.theta
        state.sample_theta = theta.copy()        # where this sample was drawn
        # a curved model's canonical statistics (e.g. 30 ESP counts, many
        # nearly constant) are judged in the directions of its parameters,
        # z J(θ): the step length, convergence test, ESS and degeneracy checks
        proj = par.projector(theta)
        try:
            check_degeneracy(model, [proj(c) for c in chains], model.network.n_dyads,
                             proj(g_obs))
        except DegenerateModelError as exc:
            # (a curved model's: with what happened to its decays, in plain words)
            raise _degenerate_sample(model, exc, chains, g_obs, model.network.n_dyads,
                                     state.history, theta) from None
        state.chains_z = [c - g_obs for c in chains]
        Z = np.concatenate(state.chains_z)
        Zp, chains_zp = proj(Z), [proj(c) for c in state.chains_z]
        ess = effective_sizes(chains_zp)
        mess = multivariate_ess(chains_zp)
        # a sample still burning in is redrawn before anything is judged from it (the
        # overshoot guard below then compares the settled sample with the last one used)
        if self._redraw(model, state, chains_zp, ess, mess, size, theta, progress, rng):
            return False
        # Guarded step: a step that overshoots -- the sample lands far on the
        # other side of the observed statistics, farther than before it -- is
        # halved back towards where it came from instead of being trusted
        # (a near-degenerate region amplifies small moves; statnet would
        # carry on from the overshoot and often oscillate).
        tstat = _standardised_mean(Zp)
        if (state.guard is not None and state.backtracks < MAX_BACKTRACKS
                and _overshoot(state.guard[1], tstat)):
            state.backtracks += 1
            state.history.append({"iteration": state.iteration, "theta": theta.tolist(),
                                  "backtrack": True, "gamma": 0.0, "pvalue": float("nan"),
                                  "interval": state.interval, "samplesize": size,
                                  "t_max": float(np.max(np.abs(tstat)))})
            state.theta = state.guard[0] + 0.5 * (theta - state.guard[0])
            state.final, state.streak = False, 0
            progress.update(1, step="back", interval=state.interval)
            return False
        state.backtracks = 0
        state.guard = (theta.copy(), tstat)
        Zs, pooled = self._pooled(par, state, Z, chains, chains_zp, g_obs, rng)
        gamma = _step_length(Zp if Zs is Z else proj(Zs), self.steplength_margin)
        pval = hotelling_pvalue(chains_zp) if gamma >= 1.0 else 0.0
        eta, gamma, hummel = self._step(par, theta, Zs, gamma)
        state.history.append({"iteration": state.iteration, "theta": theta.tolist(),
                              "gamma": gamma, "hummel_gamma": hummel, "pvalue": pval,
                              "min_ess": float(ess.min()),
                              "ess": mess, "interval": state.interval, "samplesize": size,
                              "acceptance": float(np.mean(acc)), **state.settled, **pooled})
        noise = _check_oscillation(model, state.history, Zp, proj(g_obs), counts=par.linear,
                                   ess=ess, min_ess=SWING_ESS_SHARE * self.target_ess)
        if noise:
            # a swing of under-sampled statistics: the steps chase their sample means' Monte
            # Carlo error; the samples grow (every statistic's share of target_ess) instead
            state.history[-1]["swing_noise"] = noise
            state.min_ess_share = max(state.min_ess_share, self._noise_share(state))
        # a decay running off, or a stall far from g_obs
        _check_runoff(model, state.history, theta + eta, chains, g_obs, model.network.n_dyads)
        progress.update(1, step=f"{gamma:.2f}", p=f"{pval:.2f}", interval=state.interval)
        state.theta = theta + eta
        # the stopping rule counts Hummel's step length (the data inside the sample's hull),
        # as statnet's does, not the step the trust region let the estimate take
        state.streak = state.streak + 1 if hummel >= 1.0 else 0
        if self.termination == "hotelling":
            if hummel >= 1.0 and pval > self.conv_pval:
                state.converged = True
                return True
        elif state.final and hummel >= 1.0:
            state.converged = True
            return True
        else:
            state.final = state.streak >= 2
        self._adapt_interval(state, ess, mess, size)
        return False

    def _pooled(self, par, state, Z, chains, chains_zp, g_obs, rng):
        """The draws the step is taken on: this sample's ``Z`` itself, or with
        ``pool_samples`` > 1 an equally weighted resample of the last ``pool_samples``
        settled samples' draws at this θ (:func:`.pooling.pooled_sample`); the last
        sample's alone.  A sample whose chains still drift joins no pool (and empties
        it: the chains were far from there).  Returns (Z centred at ``g_obs``, the
        record's fields: ``pooled`` samples and the pooled weights' ``pooled_ess``)."""
        if state.pool_samples <= 1:
            return Z, {}
        if state.final or drifting(chains_zp):
            state.pool = []
            return Z, {}
        eta = par.eta(state.theta)
        state.pool = (state.pool + [(eta, np.concatenate(chains))])[-state.pool_samples:]
        if len(state.pool) == 1:
            return Z, {}
        etas, samples = zip(*state.pool)
        G, ess = pooled_sample(etas, samples, eta, rng)
        return G - g_obs, {"pooled": len(state.pool), "pooled_ess": ess}

    def _noise_share(self, state):
        """Every statistic's share of ``target_ess`` in a step's sample after a swing of
        under-sampled statistics: ``SWING_ESS_SHARE`` in the draws a step is taken on,
        which with ``pool_samples`` = K are the last K samples' (each sample 1/K of it)."""
        return SWING_ESS_SHARE / state.pool_samples

    def _pool_samples(self, model):
        """The samples a step is taken on: the ``pool_samples`` setting, else (``"auto"``)
        the model family's declaration (``ModelFamily.pool_samples``)."""
        if self.pool_samples != "auto":
            return int(self.pool_samples)
        return int(model.family.pool_samples)

    def _min_ess_share(self, model):
        """The share of ``target_ess`` every statistic must reach in a step's sample: the
        ``min_ess_share`` setting, else (``"auto"``) the model family's declaration
        (``ModelFamily.min_ess_share``)."""
        if self.min_ess_share != "auto":
            return float(self.min_ess_share)
        return float(model.family.min_ess_share)

    def _min_step_ess(self, model):
        """The effective draws a (non-final) sample needs to be stepped on: the
        ``min_step_ess`` setting, else the model family's share of ``target_ess``
        (``ModelFamily.min_step_ess_share``; 0: every sample is stepped on)."""
        if self.min_step_ess is not None:
            return float(self.min_step_ess)
        return float(model.family.min_step_ess_share) * self.target_ess

    def _redraw(self, model, state, chains_zp, ess, mess, size, theta, progress, rng) -> bool:
        """True when this sample is not fit to step on (too few effective draws, or
        chains still drifting: :mod:`.burnin`) and is redrawn instead: θ stays, the
        chains go on from where they stopped, the interval adapts; at most
        ``burnin.MAX_REDRAWS`` times in a row.  The first drifting sample from the
        default start moves the start instead (:meth:`_approach`)."""
        min_ess = self._min_step_ess(model)
        if (min_ess <= 0 or state.final or state.redraws >= MAX_REDRAWS
                or state.settled.get("burnin_parts", 0) >= MAX_SETTLE):
            # (a sample whose burn-in ran its MAX_SETTLE parts is stepped on: a chain that
            # relaxes for longer moves towards its equilibrium, and Hummel's step follows it)
            state.redraws = 0
            return False
        why = unfit_to_step(chains_zp, mess, min_ess)
        if why is None:
            state.redraws = 0
            return False
        state.redraws += 1
        state.history.append({"iteration": state.iteration,
                              "theta": theta.tolist(), "redraw": why, "gamma": 0.0,
                              "pvalue": float("nan"), "min_ess": float(ess.min()), "ess": mess,
                              "interval": state.interval, "samplesize": size,
                              **state.settled})
        if self._approach(model, state, chains_zp, theta, rng):
            state.history[-1]["moved_start"] = state.init_method
            state.redraws = 0
        progress.update(1, step="redraw", interval=state.interval)
        # a drifting sample's effective size says little about the mixing at equilibrium:
        # the chains go on (that is the burn-in), the interval grows at most REDRAW_GROWTH
        # times per redraw (the usual adaptation's x8 ran the interval up 8^4 in 4 redraws)
        before = state.interval
        self._adapt_interval(state, ess, mess, size)
        if state.interval > REDRAW_GROWTH * before:
            state.interval = quarter_octave(REDRAW_GROWTH * before, self._min_interval(),
                                            self.max_interval)
            state.burnin = min(state.burnin, 16 * state.interval)
        return True

    def _settle(self, model, state, chains, acc, rng):
        """The sample's burn-in, run until it has ended (for models whose samples must be
        fit to step on: ``_min_step_ess`` > 0, the count family): while the chains still
        drift, the draws before the burn-in's end (:func:`.burnin.burnin_cut`; all of
        them when no cut ends it) are dropped and the chains go on, at the same θ and
        interval, to replace them; a settled step sample with fewer than
        ``_min_step_ess`` effective draws goes on too, keeping its draws, up to
        ``last_boost`` x its size.  At most :data:`.burnin.MAX_SETTLE` parts.  statnet's
        adaptive MCMC (``MCMC.effectiveSize``) runs its chains on in the same way, rather
        than redrawing whole samples at a longer interval: a count chain after a move of
        θ relaxes for millions of proposals (the node strengths' near-critical feedback,
        docs/valued_terms.md), and a whole redrawn sample at a doubled interval threw
        that away each time.  Not the first sample while the start may still move
        (:meth:`_approach`): its drift is what moves it.  The iteration's
        record says ``burnin_parts`` and ``burnin_draws`` (the draws dropped)."""
        state.settled = {}
        min_ess = self._min_step_ess(model)
        if min_ess <= 0 or (self._may_approach(model, state) and not state.history):
            return chains, acc
        proj = model.parameterisation.projector(state.theta)
        run = self._run_args(rng)
        acc = [acc]

        def more(k, chains):
            new, state.starts, acc[0] = run_chains(model, state.theta, k * len(chains), 0,
                                                   state.interval, state.starts, **run)
            return new
        chains, state.settled = settle(chains, more, 0 if state.final else min_ess,
                                       self.last_boost, proj)
        acc = acc[0]
        return chains, acc

    def _may_approach(self, model, state) -> bool:
        """Whether a drifting sample would still move the start (:meth:`_approach`)."""
        method = model.family.drift_start if self.drift_start == "auto" else self.drift_start
        return not (method is None or state.approached or self.init is not None
                    or type(state.target).completes_start)

    def _approach(self, model, state, chains_zp, theta, rng) -> bool:
        """Once per fit from the default start (no ``init``, no ``resume``): when this
        sample's chains still drift and ``drift_start`` (``"auto"``: the model family's
        ``drift_start``) names an estimator, the start moves by it
        (:func:`.burnin.approach`) and the chains restart at the observed network.  Not
        with missing dyads (stochastic approximation does not fit them)."""
        method = model.family.drift_start if self.drift_start == "auto" else self.drift_start
        if not self._may_approach(model, state) or not drifting(chains_zp):
            return False
        state.approached = True
        state.theta, interval = approach(model, method, theta, rng, state.interval,
                                         self.max_interval)
        state.starts = [None] * len(state.starts)
        state.pool = []
        # the interval at which its samples of NEWTON_DRAWS had their effective draws,
        # for samples of samplesize draws
        interval = quarter_octave(interval * NEWTON_DRAWS / self.samplesize,
                                  self._min_interval(), self.max_interval)
        if interval > state.interval:
            state.interval = interval
            state.burnin = 16 * interval
        state.init_method = f"{state.init_method}, moved by {method} (its chains drifted)"
        return True

    def _step(self, par, theta, Z, gamma):
        """The importance-sampling step towards the pseudo-observation (1 − γ) z̄, kept
        in the trust region; returns (step in θ, γ reduced when the step was, Hummel's γ).

        Hummel's γ is the step length of the pseudo-observation aimed at (halved while
        the importance-sampling log-likelihood has no finite maximiser towards it, at most
        0.5 when a decay's step was capped: a decay running off has not converged): the
        stopping rule counts it, as statnet's ``MCMLE.termination="Hummel"`` counts its
        step length (``.Hummel.steplength``; statnet has no importance-weight trust
        region).  The step taken may be shorter (the importance weights' effective size
        kept to ``min_is_ess``): the returned γ, at most 0.5 then, says how far the
        estimate moved.  Near the data the trust region halved steps whose Hummel γ was 1
        (the issue-554 fit, session 21), which broke the γ = 1 streak of a sample that had
        the data well inside its hull (docs/valued_terms.md, session 22)."""
        # a decay moves at most MAX_DECAY_STEP per iteration (the whole step is scaled)
        eta, capped = par.is_step(Z, (1.0 - gamma) * Z.mean(axis=0), theta)
        while not np.all(np.isfinite(eta)) and gamma > 1e-3:
            # no finite maximiser (a target on the hull's face): step less far
            gamma *= 0.5
            eta, capped = par.is_step(Z, (1.0 - gamma) * Z.mean(axis=0), theta)
        if not np.all(np.isfinite(eta)):
            raise _retryable(DegenerateModelError(
                "the importance-sampling step has no finite maximiser even towards the "
                "sample's own mean: the sample does not vary in some direction"))
        if capped:
            gamma = min(gamma, 0.5)
        hummel = gamma
        # trust region: keep the importance weights of the move informative
        eta, halved = is_trust_region(Z, eta, self.min_is_ess,
                                      lambda e: par.eta_change(theta, e))
        if halved:
            gamma = min(gamma, 0.5)
        return eta, gamma, hummel

    def _adapt_interval(self, state, ess, mess, size):
        """The next sample's interval (and burn-in) from this sample's effective size."""
        min_ess = max(float(ess.min()), 1.0)
        min_interval, interval = self._min_interval(), state.interval
        if not state.final:
            # Aim the next sample at target_ess effective draws as statnet's
            # MCMLE.effectiveSize counts them (multivariate), and at least
            # min_ess_share of that for every statistic: scale the interval by
            # the larger target / ESS ratio, within a factor 1/4..8 per
            # iteration, and burn in ~2 autocorrelation times of the slowest
            # statistic.
            ratio = max(self.target_ess / max(mess, 1.0),
                        state.min_ess_share * self.target_ess / min_ess)
            wanted = interval * min(8.0, max(0.25, ratio))
            state.interval = quarter_octave(wanted, min_interval, self.max_interval)
            if wanted > self.max_interval:
                self._interval_capped(state, wanted, mess, size)
            tau = state.interval * size / min_ess
            state.burnin = int(min(16 * state.interval, max(state.interval, 2 * tau)))
        else:
            # The boosted last sample gives the estimate, its standard errors
            # and the convergence test: aim it at last_boost * target_ess
            # multivariate effective draws, as statnet's Hummel rule boosts
            # MCMLE.effectiveSize by MCMLE.last.boost (not of *every* statistic,
            # stricter than statnet for no measured reason: docs/guide/estimators/mcmle.md).
            # The autocorrelation time (proposals per multivariate effective
            # draw) is pooled over the two samples of the streak, as the ESS of
            # one sample is noisy; the interval moves by 1/2..4.
            # Where that asks for no more than the smallest interval, the slowest
            # statistic's autocorrelation time instead (interval.last_sample_key).
            records = streak_records(state.history)
            tau = streak_tau(records, last_sample_key(records, self.samplesize,
                                                      self.target_ess, min_interval))
            if tau is None:         # (a resumed history without effective sizes)
                return
            state.interval = quarter_octave(
                min(4.0 * interval, max(0.5 * interval, self.target_ess * tau / self.samplesize)),
                min_interval, self.max_interval)

    def _interval_capped(self, state, wanted, mess, size):
        """The interval the sample's effective size asks for exceeds ``max_interval``: it
        stays there, the iteration's record says so (``interval_capped``), and the first
        time a ConvergenceWarning says what it means."""
        state.history[-1]["interval_capped"] = int(wanted)
        if state.capped_warned:
            return
        state.capped_warned = True
        warnings.warn(f"MCMC-MLE: the sample at the current parameters had {mess:.1f} effective "
                      f"draws of {size}, and the interval that would give {self.target_ess:g} "
                      f"({int(wanted):,} proposals between draws) exceeds max_interval="
                      f"{self.max_interval:,}: the interval stays at {self.max_interval:,}. The "
                      "chain mixes too slowly (or still moves away from the observed network) "
                      "at these parameters; give a better start (init=), another proposal, or "
                      "a larger max_interval if the cost is acceptable",
                      ConvergenceWarning, stacklevel=4)

    def _warn_unfinished(self, state):
        """The warning of iterations that were interrupted or did not converge."""
        if state.interrupted:
            state.iteration = len(state.history)    # finished (backtracks too)
            if state.chains_z is None:
                warnings.warn(f"MCMC-MLE was interrupted by the user before its first iteration "
                              f"finished: the estimates are the start ({state.init_method}) and "
                              "are NOT converged; standard errors are NA", ConvergenceWarning,
                              stacklevel=3)
                state.iteration = state.n_before
                return
            warnings.warn(f"MCMC-MLE was interrupted after {state.iteration} iteration(s): the "
                          "estimates are those of the last finished iteration and are NOT "
                          "converged", ConvergenceWarning, stacklevel=3)
        elif not state.converged:
            warnings.warn(f"MCMC-MLE did not converge in {self.maxit} iterations; the estimates "
                          "are not reliable. Increase maxit, the interval or the sample size",
                          ConvergenceWarning, stacklevel=3)

    def _covariance(self, model, state):
        """The estimate's covariance from the last sample (importance-weighted to the
        final θ)."""
        par = model.parameterisation
        theta = state.theta
        Z = np.concatenate(state.chains_z)
        w = is_weights(Z, par.eta(theta) - par.eta(state.sample_theta))
        # J' C J as the covariance of Z J (p columns, not the q canonical ones)
        ZJ = par.times_jacobian(Z, theta)
        mu = w @ ZJ
        info = (ZJ - mu).T @ ((ZJ - mu) * w[:, None])
        lost = state.target.information_correction(
            par, theta, par.eta(theta) - par.eta(state.target.sample_theta)
            if getattr(state.target, "sample_theta", None) is not None else None)
        try:
            if lost is not None:
                # the observed-data information: complete-data minus missing information
                cov_model = np.linalg.inv(info - lost)
                if np.any(np.diag(cov_model) <= 0):
                    warnings.warn("the observed-data information is not positive definite: "
                                  "no standard errors", ConvergenceWarning, stacklevel=4)
                    cov_model = np.full_like(info, np.nan)
            else:
                cov_model = np.linalg.inv(info)
        except np.linalg.LinAlgError:
            raise DegenerateModelError("the Fisher information is singular: some statistics "
                                       "are linear combinations of others; remove a redundant "
                                       "term") from None
        V = batch_means_cov([par.times_jacobian(c, theta) for c in state.chains_z])
        V_centre = state.target.mc_variance(par, theta)
        if V_centre is not None:
            V = V + V_centre
        cov_mc = cov_model @ V @ cov_model
        state.cov_model, state.cov_mc, state.cov = cov_model, cov_mc, cov_model + cov_mc

    def _loglik(self, model, state, rng):
        """The log-likelihood at the estimate (``eval_loglik``): the model's exact one where
        it has it (``model.exact_loglik(θ)``, e.g. a temporal model independent across dyad
        pairs), else bridge-sampled."""
        loglik = model.exact_loglik(state.theta)
        if loglik is not None:
            state.loglik, state.loglik_se, state.loglik_kind = loglik, 0.0, "exact"
            return
        samplesize = (self.bridge_samplesize if self.bridge_samplesize
                      else max(64, self.samplesize // 8))
        state.loglik, state.loglik_se = bridge_loglik(
            model, state.theta, state.g_obs, state.starts, rng, bridges=self.bridges,
            samplesize=samplesize, interval=state.interval, n_jobs=self.n_jobs,
            proposal=self.proposal, backend=self.backend,
            **state.target.loglik_args(state, self._n_chains()))


class MissingDataMCMLE(MCMLE):
    """MCMC-MLE of the observed-data likelihood of a model with missing dyads
    (statnet's): what :class:`~ergmfit.estimation.mcmle.estimator.MCMLE` fits
    when ``model.sample_space`` has missing dyads -- the same loop, with
    ``maxit=30`` and one chain by default.

    Examples
    --------
    >>> import ergmfit as ef
    >>> g = ef.datasets.load("flomarriage")
    >>> m = ef.ERGM(g, "edges + triangle", missing=[tuple(list(g.nodes)[:2])])
    >>> round(float(m.fit(method="mcmle", random_state=1).params["edges"]), 1)
    -1.7
    """

    SETTINGS = missing_data_settings()
    #: the observed-data information is the difference of two sampled covariances
    #: (complete-data minus conditional), whose relative Monte Carlo error is larger than
    #: either's: the last samples keep ``last_boost`` x ``samplesize`` draws (with the
    #: shrunk ones, 6 nodes, 3 missing dyads: a s.e. 13 % off the exact one at seed 2)
    final_sample_by_ess = False
    #: (and its samples are drawn whole)
    step_sample_by_ess = False


# The second attempt after a failure of the iterations (a start that fits the
# failure, a longer chain, a tighter trust region): see .fallback.
from .fallback import fall_back as _fall_back, swing as _swing  # noqa: E402
