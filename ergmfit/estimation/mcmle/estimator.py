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
   name) when γ = 1 in two consecutive iterations; then one last iteration
   with a sample ``last_boost`` (4) times larger gives the estimate and its
   covariance.  With ``termination="hotelling"`` stop instead when γ = 1 and
   Hotelling's T² test (batch-means covariance, so autocorrelation counts)
   no longer rejects E_θ[g] = g(x_obs) at ``conv_pval``.  Either way the final
   Hotelling p-value is kept in ``info["history"]``.  The interval adapts so
   that each sample has ``target_ess`` (64) effective draws, counted as statnet
   counts them (the multivariate effective size), and at least 32 of every
   statistic; the last, boosted sample aims at ``last_boost`` × 64 effective
   draws of every single statistic.
5. Standard errors: the inverse of the Fisher information Cov_θ̂[g] estimated
   from the last sample (importance-weighted to θ̂), plus the Monte Carlo
   variance I⁻¹ V I⁻¹ with V the batch-means variance of the weighted mean
   ("MCMC %" = share of the total s.e. due to it, as statnet prints it).
6. Log-likelihood by bridge sampling from the dyad-independent submodel,
   whose log-likelihood is exact: log Z(θ̂) − log Z(θ₀) = ∫ (θ̂ − θ₀)·E_{θ(u)}[g] du
   over θ(u) = θ₀ + u(θ̂ − θ₀), by the midpoint rule over ``bridges`` points.

Guards (#22): the step length of step 3 is the larger of Hummel's and the
sample ellipsoid's only while the latter's pseudo-observation stays inside the
convex hull (outside it the importance-sampling log-likelihood has no finite
maximiser); an overshooting step is halved back; a step keeps ``min_is_ess``
of the importance weights' effective size.  When the iterations fail (a
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

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError, SettingsError
from ...sampling.chains import batch_means_cov, effective_sizes, multivariate_ess, run_chains
from ..common.stepping import (ellipsoid_step, hotelling_pvalue, hummel_step, in_convex_hull,  # noqa: F401
                       is_trust_region, maximize_is_loglik, is_weights,
                       standardised_mean as _standardised_mean)
from ...runtime import Checkpoint, Progress, catch_interrupt
from ...utils.validation import check_random_state
from ..common.curved import (check_runoff as _check_runoff, curved_step as _curved_step,
                     degenerate_sample as _degenerate_sample, gw_advice as _gw_advice,
                     restart as _restart_decays,
                     first_interval as _first_interval,
                     first_sample_ok as _first_sample_ok,
                     projector as _projector, times_jacobian as _times_jacobian)
from ..base import Estimator
from .checkpoint import MCMLEState
from .interval import MIN_ESS_SHARE, quarter_octave
from .loglik import bridge_loglik
from .settings import SETTINGS
from .start import exact_mle, exact_mle_available, start_theta





def check_degeneracy(model, chains, D):
    """Raise DegenerateModelError for a sample stuck at the empty/complete graph
    or a statistic that does not vary."""
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
        raise DegenerateModelError(
            f"the simulated statistic(s) {flat} did not vary in the MCMC sample: the model is "
            f"degenerate or the chain does not mix. Try {_gw_advice(model)}a longer interval, "
            "or removing the term(s)")


def _check_oscillation(model, history, Z, g_obs, counts=True):
    """Near-degeneracy: the sampled networks swing from far below to far above
    the observed statistics (e.g. almost empty, then almost complete) from one
    iteration to the next.  Record the standardised sample means and raise a
    DegenerateModelError when a statistic has done that twice."""
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
    # the last six recorded iterations (a resumed checkpoint may predate "bistable")
    last = [h for h in history if "t_mean" in h][-6:]
    if len(last) < 3:
        return
    recent = np.array([h["t_mean"] for h in last])
    bis = np.array([h.get("bistable", [False] * len(t)) for h in last])
    for k, lab in enumerate(model.labels):
        above, below = np.sum(recent[:, k] > 3), np.sum(recent[:, k] < -3)
        # two swings each way; or one each way with a bistable sample between.
        # Curved models (no counts to call bistable) need the swing to come back:
        # far above, far below, far above again (or the reverse) -- a curved fit
        # approaching from far away crosses once, from its fixed-decay start.
        if not counts:
            side = np.sign(recent[:, k][np.abs(recent[:, k]) > 3])
            swung = int(np.sum(side[1:] != side[:-1])) >= 2
        else:
            swung = (above >= 2 and below >= 2) or (above >= 1 and below >= 1
                                                    and bis[:, k].any())
        if swung:
            lo = np.min(recent[:, k]); hi = np.max(recent[:, k])
            raise _swing(_retryable(DegenerateModelError(
                f"the model is near-degenerate: from one MCMC-MLE iteration to the next the "
                f"simulated networks swing between far fewer and far more {lab!r} than observed "
                f"(sample means {lo:+.0f} to {hi:+.0f} standard deviations from it), so no "
                f"estimate reproduces the observed network. Try "
                f"{_gw_advice(model, 'a smaller decay of the geometrically weighted terms, ')}"
                "add dyad-independent covariate terms, or fit by method='ee'")))


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
    initial estimate.  The settings are those of :func:`mcmle_core`.

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    >>> fit = MCMLE(random_state=1).fit(m)
    >>> round(float(fit.params["edges"]), 1)
    -1.7
    """

    method = "mcmle"
    supports = {"curved": True, "constraints": True, "missing": True, "target_stats": True,
                "missing+target_stats": False, "families": frozenset({"binary"})}
    SETTINGS = SETTINGS

    def fit(self, model):
        if getattr(getattr(model, "sample_space", None), "n_missing", 0):
            # missing dyads: the observed-data likelihood (statnet's), its own loop
            from .missing import MissingDataMCMLE
            return MissingDataMCMLE(**self.given_params()).fit(model)
        if self.obs_interval is not None:
            raise SettingsError("setting 'obs_interval' (the chains conditional on the observed "
                                "dyads) applies to models with missing dyads only")
        from ...results import ERGMResults
        settings = self.get_params()
        settings.pop("obs_interval")
        if exact_mle_available(model, settings):
            return exact_mle(model, settings)
        from ...runtime.interrupts import second_ctrl_c_waits
        try:
            with second_ctrl_c_waits():     # a second quick Ctrl-C does not lose the fit
                out = mcmle_core(model, **settings)
            fallback = None
        except DegenerateModelError as exc:
            if (getattr(exc, "decay_start", None) is not None and settings["init"] is None
                    and settings["resume"] is None):
                # a curved fit failed from its default start: from decays 0.5 (curved.restart)
                from ..mple.pseudolikelihood import fit_mple
                out, fallback = _restart_decays(model, settings, exc,
                                                lambda m, **s: mcmle_core(m, **s), fit_mple)
            elif not getattr(exc, "retryable", False) or settings["resume"] is not None:
                raise
            else:
                out, fallback = _fall_back(model, settings, exc,
                                           lambda m, **s: mcmle_core(m, **s))
        if out["interrupted"]:
            warn = [f"interrupted by the user after {out['n_iter']} iteration(s): not converged"]
        elif not out["converged"]:
            warn = [f"MCMC-MLE did not converge in {out['n_iter']} iterations"]
        else:
            warn = []
        if getattr(model, "curved", False):
            from ..common.curved import decay_messages
            for msg in decay_messages(model.parameterisation, out["params"], "likelihood"):
                warn.append(msg)
                if not msg.startswith("Note"):
                    warnings.warn(msg, ConvergenceWarning, stacklevel=3)
        if out["loglik_interrupted"]:
            warn.append("interrupted by the user while bridge-sampling the log-likelihood: the "
                        "fit is complete, its log-likelihood is NA (eval_loglik=False skips it)")
        interval = out["final_interval"]
        info = {"history": out["history"], "final_interval": interval,
                "mcmc": {"interval": interval, "burnin": 16 * interval},
                "init_method": out["init_method"], "loglik_mcse": out["loglik_se"],
                "interrupted": out["interrupted"],
                "loglik_interrupted": out["loglik_interrupted"],
                "cov_model": out["cov_model"].tolist(), "cpu_seconds": out["cpu_seconds"]}
        if fallback is not None:
            info["fallback"] = fallback
            warn.append(f"Note: {fallback}")
        res = ERGMResults(out["params"], out["cov"], model.labels, method="mcmle",
                           loglik=out["loglik"],
                           loglik_kind="bridge" if out["loglik"] is not None else None,
                           nobs=model.network.n_dyads, converged=out["converged"],
                           n_iter=out["n_iter"], seconds=out["seconds"], cov_mc=out["cov_mc"],
                           se_kind="MCMC", loglik_mcse=out["loglik_se"], warnings=warn,
                           info=info, formula=model.formula, network=model.network, model=model,
                           dyad_independent=model.dyad_independent)
        if out["chains"] is not None:       # None: interrupted before the first sample
            res.mcmc_sample = {"chains": out["chains"], "observed": model.statistics_vector(),
                               "labels": list(model.stat_labels), "interval": interval}
        return res


# The second attempt after a failure of the iterations (a start that fits the
# failure, a longer chain, a tighter trust region): see _mcmle_fallback.
from .fallback import fall_back as _fall_back, swing as _swing  # noqa: E402


def fit_mcmle(model, random_state=None, verbose=True, **kwargs):
    """Fit ``model`` by MCMC-MLE: ``MCMLE(random_state=..., verbose=..., **kwargs).fit(model)``.

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    >>> fit = m.fit(method="mcmle", random_state=1, verbose=False)
    >>> round(float(fit.params["edges"]), 1)
    -1.7
    """
    return MCMLE(random_state=random_state, verbose=verbose, **kwargs).fit(model)


def mcmle_core(model, random_state=None, verbose=True, init=None, maxit=60, samplesize=1024,
              interval=1024, burnin=None, n_chains=None, n_jobs=1, proposal="auto",
              steplength_margin=0.05, termination="hummel", last_boost=4, conv_pval=0.5,
              target_ess=64, min_interval=None, max_interval=2**20, eval_loglik=True, bridges=16,
              bridge_samplesize=None, backend=None, checkpoint=None, resume=None, min_is_ess=0.05):
    """Fit by MCMC-MLE; returns the pieces an ERGMResults needs (a dict).

    Parameters
    ----------
    init : array or dict, optional
        Starting parameters (default: the MPLE).
    maxit : int
        At most this many iterations (statnet's ``MCMLE.maxit``, 60).
    samplesize, interval, burnin : int
        MCMC sample per iteration, proposals between draws and before the first
        (default burnin 16 × interval, as statnet).  A curved model's first sample
        is a pilot at ``min_interval``, forgotten (redrawn at ``interval``) when short of
        ``target_ess`` (see :func:`ergmfit.estimation.common.curved.first_sample_ok`).
    n_chains, n_jobs : int
        Chains per iteration (default: ``n_jobs``) and parallel processes.
    min_is_ess : float
        A step whose importance weights have an effective size below this share
        of the sample is halved until it has (a trust region).
    checkpoint : path, optional
        After every iteration, write the current estimate, interval and history
        to this JSON file (atomically, see :mod:`ergmfit.runtime.checkpoint`; a
        second fit writing to it at the same time is refused, a failed write
        warns), so a long fit can be resumed.  Ctrl-C returns the last
        finished iteration (marked interrupted); during the bridge sampling it
        returns the finished fit with the log-likelihood NA.
    resume : path, optional
        Continue from a checkpoint written by an earlier fit of the same model.
    termination : {"hummel", "hotelling"}
        The stopping rule (see the module docstring).
    bridges, bridge_samplesize : int
        Bridge points of the log-likelihood (statnet's ``bridge.nsteps``, 16)
        and draws at each, at the final interval (default ``samplesize / 8``,
        128: over seeds 1-6 the log-likelihood of faux.mesa.high varied with
        sd 0.53, as statnet's default runs do; 256 gave 0.44 at twice the
        cost).
    last_boost : int
        Sample-size multiplier of the last iteration ("hummel").
    target_ess : float
        Effective sample size each iteration aims at (statnet's
        ``MCMLE.effectiveSize``, 64, counted as statnet does: the multivariate
        ESS, see :func:`ergmfit.sampling.chains.multivariate_ess`), with
        at least half of it for every single statistic: the interval of the
        next iteration is scaled by the larger target / ESS ratio, between
        ``min_interval`` (default a quarter of ``interval``) and
        ``max_interval``.  The last iteration's sample is ``last_boost``
        times larger and aims at ``last_boost * target_ess`` effective draws
        of every statistic (the smallest univariate ESS, stricter than
        statnet), with the autocorrelation time pooled over the two samples
        before it; its interval is between 1/2 and 4 times the previous one.
    """
    if termination not in ("hummel", "hotelling"):
        raise ValueError(f"termination must be 'hummel' or 'hotelling', got {termination!r}")
    if bridge_samplesize is not None and int(bridge_samplesize) < 8:
        raise ValueError(f"bridge_samplesize must be at least 8, got {bridge_samplesize}")
    t0 = time.perf_counter()
    c0 = time.process_time()
    timings = {}        # CPU seconds of this process by phase (parallel chains not included)
    rng = check_random_state(random_state)
    net = model.network
    D = net.n_dyads
    if n_chains is None:
        # one chain per process: joblib's n_jobs = -k means every CPU but k - 1
        from joblib import effective_n_jobs
        n_chains = effective_n_jobs(n_jobs) if n_jobs < 0 else n_jobs
    n_chains = max(1, int(n_chains))
    burnin = 16 * interval if burnin is None else int(burnin)
    target_ess = float(target_ess)
    # the interval may drop to a quarter of the start value when the draws are
    # nearly independent (small, fast-mixing models), no lower: a short chain
    # stuck in one mode of a near-degenerate model looks well mixed locally
    min_interval = max(1, interval // 4) if min_interval is None else int(min_interval)
    g_obs = model.statistics_vector()
    par = model.parameterisation
    init_method = "user"
    history = []
    if resume is not None:
        state = MCMLEState.read(resume, model, max_interval=max_interval)
        init, interval, history = state.theta, state.interval, state.history
        burnin = 16 * interval
        init_method = f"checkpoint {resume}"
    theta, how = start_theta(model, init, rng)
    init_method = how or init_method
    timings["start"] = time.process_time() - c0
    pilot = None        # curved: the first sample at the smallest interval, a pilot
    if getattr(model, "curved", False) and resume is None and min_interval < interval:
        pilot, interval = interval, _first_interval(interval, min_interval)
    starts = [None] * n_chains
    progress = Progress(maxit, "MCMLE", unit="it", enabled=verbose)
    store = None
    if checkpoint is not None:
        store = Checkpoint(checkpoint, what="MCMC-MLE checkpoint").acquire()
    converged = False
    interrupted = False
    it = 0
    chains_z = None
    n_before = len(history)     # records of a resumed run's earlier iterations
    try:
        streak = 0          # consecutive iterations with gamma == 1
        guard, backtracks = None, 0    # (θ of the last accepted sample, its standardised mean)
        final = False       # this iteration is the boosted last one
        for it in range(1, maxit + 1):
            size = samplesize * (last_boost if final else 1)
            if pilot is not None and it == 1:       # curved: see curved.first_sample_ok
                before = (rng.bit_generator.state, starts)
            chains, starts, acc = run_chains(model, theta, size, burnin, interval, starts,
                                             n_chains=n_chains, n_jobs=n_jobs, random_state=rng,
                                             proposal=proposal, backend=backend)
            if pilot is not None and it == 1 and not _first_sample_ok(
                    par, theta, chains, target_ess, MIN_ESS_SHARE):
                # a pilot short of effective draws leaves no trace: the first sample
                # is drawn as without it (same start, burn-in and random numbers)
                rng.bit_generator.state, starts = before
                interval = pilot
                chains, starts, acc = run_chains(model, theta, size, burnin, interval, starts,
                                                 n_chains=n_chains, n_jobs=n_jobs,
                                                 random_state=rng, proposal=proposal,
                                                 backend=backend)
            sample_theta = theta.copy()        # where this sample was drawn
            # a curved model's canonical statistics (e.g. 30 ESP counts, many
            # nearly constant) are judged in the directions of its parameters,
            # z J(θ): the step length, convergence test, ESS and degeneracy checks
            proj = _projector(par, theta)
            try:
                check_degeneracy(model, [proj(c) for c in chains], D)
            except DegenerateModelError as exc:
                if par.linear:
                    raise
                raise _degenerate_sample(model, exc, chains, g_obs, D, history, theta) from None
            chains_z = [c - g_obs for c in chains]
            Z = np.concatenate(chains_z)
            Zp, chains_zp = proj(Z), [proj(c) for c in chains_z]
            # Guarded step: a step that overshoots -- the sample lands far on the
            # other side of the observed statistics, farther than before it -- is
            # halved back towards where it came from instead of being trusted
            # (a near-degenerate region amplifies small moves; statnet would
            # carry on from the overshoot and often oscillate).
            tstat = _standardised_mean(Zp)
            if (guard is not None and backtracks < MAX_BACKTRACKS
                    and _overshoot(guard[1], tstat)):
                backtracks += 1
                history.append({"iteration": it, "theta": theta.tolist(), "backtrack": True,
                                "gamma": 0.0, "pvalue": float("nan"),
                                "interval": interval, "samplesize": size,
                                "t_max": float(np.max(np.abs(tstat)))})
                theta = guard[0] + 0.5 * (theta - guard[0])
                final, streak = False, 0
                progress.update(1, step="back", interval=interval)
                continue
            backtracks = 0
            guard = (theta.copy(), tstat)
            gamma = _step_length(Zp, steplength_margin)
            pval = hotelling_pvalue(chains_zp) if gamma >= 1.0 else 0.0
            if par.linear:
                eta = maximize_is_loglik(Z, (1.0 - gamma) * Z.mean(axis=0))
                while not np.all(np.isfinite(eta)) and gamma > 1e-3:
                    # no finite maximiser (a target on the hull's face): step less far
                    gamma *= 0.5
                    eta = maximize_is_loglik(Z, (1.0 - gamma) * Z.mean(axis=0))
                if not np.all(np.isfinite(eta)):
                    raise _retryable(DegenerateModelError(
                        "the importance-sampling step has no finite maximiser even towards the "
                        "sample's own mean: the sample does not vary in some direction"))
            else:
                # a decay moves at most MAX_DECAY_STEP per iteration (the whole step is scaled)
                eta, capped = _curved_step(Z, (1.0 - gamma) * Z.mean(axis=0), par, theta)
                if capped:
                    gamma = min(gamma, 0.5)
            # trust region: keep the importance weights of the move informative
            eta, halved = is_trust_region(Z, eta, min_is_ess, None if par.linear else
                                          lambda e: par.eta(theta + e) - par.eta(theta))
            if halved:
                gamma = min(gamma, 0.5)
            ess = effective_sizes(chains_zp)
            mess = multivariate_ess(chains_zp)
            history.append({"iteration": it, "theta": theta.tolist(), "gamma": gamma,
                            "pvalue": pval, "min_ess": float(ess.min()), "ess": mess,
                            "interval": interval,
                            "samplesize": size, "acceptance": float(np.mean(acc))})
            _check_oscillation(model, history, Zp, proj(g_obs), counts=par.linear)
            if not par.linear:      # a decay running off, or a stall far from g_obs
                _check_runoff(model, history, theta + eta, chains, g_obs, D)
            progress.update(1, step=f"{gamma:.2f}", p=f"{pval:.2f}", interval=interval)
            theta = theta + eta
            if store is not None:
                MCMLEState(theta=theta, interval=interval, history=history).write(store, model)
            streak = streak + 1 if gamma >= 1.0 else 0
            if termination == "hotelling":
                if gamma >= 1.0 and pval > conv_pval:
                    converged = True
                    break
            elif final and gamma >= 1.0:
                converged = True
                break
            else:
                final = streak >= 2
            min_ess = max(float(ess.min()), 1.0)
            if not final:
                # Aim the next sample at target_ess effective draws as statnet's
                # MCMLE.effectiveSize counts them (multivariate), and at least
                # MIN_ESS_SHARE of that for every statistic: scale the interval by
                # the larger target / ESS ratio, within a factor 1/4..8 per
                # iteration, and burn in ~2 autocorrelation times of the slowest
                # statistic.
                ratio = max(target_ess / max(mess, 1.0), MIN_ESS_SHARE * target_ess / min_ess)
                interval = quarter_octave(interval * min(8.0, max(0.25, ratio)),
                                           min_interval, max_interval)
                tau = interval * size / min_ess
                burnin = int(min(16 * interval, max(interval, 2 * tau)))
            else:
                # The boosted last sample gives the estimate, its standard errors
                # and the convergence test: aim it at last_boost * target_ess
                # effective draws of *every* statistic (stricter than statnet).
                # The autocorrelation time (proposals per effective draw of the
                # slowest statistic) is pooled over the two samples of the streak,
                # as the ESS of one sample is noisy; the interval moves by 1/2..4.
                recent = history[-2:]
                tau = (sum(h["interval"] * h["samplesize"] for h in recent)
                       / sum(max(h["min_ess"], 1.0) for h in recent))
                interval = quarter_octave(
                    min(4.0 * interval, max(0.5 * interval, target_ess * tau / samplesize)),
                    min_interval, max_interval)
    except KeyboardInterrupt:
        # Ctrl-C: keep what was done, clearly marked as unfinished
        interrupted = True
    finally:
        progress.close()
        if store is not None:
            store.release()
    if interrupted:
        it = len(history) - n_before        # the iterations finished (backtracks included)
        if chains_z is None:
            # Ctrl-C before the first sample: the start estimate, without standard errors
            warnings.warn(f"MCMC-MLE was interrupted by the user before its first iteration "
                          f"finished: the estimates are the start ({init_method}) and are NOT "
                          "converged; standard errors are NA", ConvergenceWarning, stacklevel=3)
            p = len(theta)
            nan = np.full((p, p), np.nan)
            timings["iterations"] = time.process_time() - c0 - timings["start"]
            return {"params": theta, "cov": nan, "cov_model": nan.copy(), "cov_mc": nan.copy(),
                    "loglik": None, "loglik_se": None, "converged": False, "n_iter": 0,
                    "seconds": time.perf_counter() - t0, "init_method": init_method,
                    "history": history, "final_interval": interval, "sample": None,
                    "chains": None, "interrupted": True, "cpu_seconds": timings,
                    "loglik_interrupted": False}
        warnings.warn(f"MCMC-MLE was interrupted after {it} iteration(s): the estimates "
                      "are those of the last finished iteration and are NOT converged",
                      ConvergenceWarning, stacklevel=3)
    elif not converged:
        warnings.warn(f"MCMC-MLE did not converge in {maxit} iterations; the estimates are "
                      "not reliable. Increase maxit, the interval or the sample size",
                      ConvergenceWarning, stacklevel=3)
    # covariance from the last sample, importance-weighted to the final estimate
    Z = np.concatenate(chains_z)
    w = is_weights(Z, par.eta(theta) - par.eta(sample_theta))
    # J' C J as the covariance of Z J (p columns, not the q canonical ones)
    J = None if par.linear else par.jacobian(theta)
    ZJ = Z if J is None else _times_jacobian(Z, J)
    mu = w @ ZJ
    info = (ZJ - mu).T @ ((ZJ - mu) * w[:, None])
    try:
        cov_model = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        raise DegenerateModelError("the Fisher information is singular: some statistics are "
                                   "linear combinations of others; remove a redundant term") from None
    V = batch_means_cov(chains_z if J is None else [_times_jacobian(c, J) for c in chains_z])
    cov_mc = cov_model @ V @ cov_model
    cov = cov_model + cov_mc
    timings["iterations"] = time.process_time() - c0 - timings["start"]
    loglik = loglik_se = None
    loglik_interrupted = False
    if eval_loglik and not interrupted:
        # Ctrl-C here keeps the converged fit: only the log-likelihood is NA
        with catch_interrupt() as stop:
            loglik, loglik_se = bridge_loglik(
                model, theta, g_obs, starts, rng, bridges=bridges,
                samplesize=bridge_samplesize if bridge_samplesize else max(64, samplesize // 8),
                interval=interval, n_jobs=n_jobs, proposal=proposal, backend=backend)
        if stop.interrupted:
            loglik = loglik_se = None
            loglik_interrupted = True
            warnings.warn("interrupted while bridge-sampling the log-likelihood: the fit is "
                          "complete, its log-likelihood (and AIC, BIC) is NA",
                          ConvergenceWarning, stacklevel=3)
    timings["loglik"] = time.process_time() - c0 - timings["start"] - timings["iterations"]
    return {
        "params": theta, "cov": cov, "cov_model": cov_model, "cov_mc": cov_mc,
        "loglik": loglik, "loglik_se": loglik_se, "converged": converged, "n_iter": it,
        "seconds": time.perf_counter() - t0, "init_method": init_method,
        "history": history, "final_interval": interval, "sample": Z + g_obs,
        "chains": [c + g_obs for c in chains_z],
        "interrupted": interrupted, "cpu_seconds": timings,
        "loglik_interrupted": loglik_interrupted,
    }
