"""Equilibrium generalised method of moments (tergm's ``estimate="EGMME"``).

A separable temporal model ``Form(~...) + Persist(~...)`` (or ``Diss``) is fitted to ONE
observed cross-section y_obs: the free coefficients θ are those at which the stationary
(equilibrium) distribution of the dynamic process has mean target statistics equal to the
observed ones, E_θ[g_T(Y)] = g_T(y_obs) (tergm: Krivitsky & Handcock 2014).  Offsets fix
what one cross-section cannot tell (typically the dissolution, from a known mean duration).

How it is solved here (tergm uses a Robbins-Monro gradient search with jittered
parameters; see docs/egmme.md for the derivations):

1. one long dynamic chain (:class:`~ergmfit.temporal.chain.DynamicChain`: one bound
   compiled model, advanced in place each time step) started at y_obs;
2. from the start (the cross-sectional MPLE of Form()'s formula shifted for the
   dissolution, :func:`~ergmfit.temporal.formulas.dissolution_shift`), Newton steps
   θ ← θ − (J'WJ)⁻¹ J'W (ḡ_T − g_obs) from the chain's means over ``steps`` time
   steps, the Jacobian J estimated on the same chain as Cov(g_T(y_t), g_θ(y_{t-1}, y_t))
   (the edges-dissolution approximation of the equilibrium: exact in the limit of long
   durations, and only the speed of convergence depends on it), the targets weighted by
   W = Σ⁺, the pseudo-inverse of their covariance on the chain (with more targets than
   coefficients the generalised method of moments' step; with as many, the Newton step
   −J⁻¹ (ḡ_T − g_obs)), damped (Levenberg-Marquardt; each direction of the step's
   Monte Carlo noise shrunk by signal² / (signal² + variance), :func:`noise_damped`),
   its gain divided by 1 + the number of steps that turned back (Kesten's rule), no
   coefficient moving more than ``max_step`` per step, and a step after which the
   deviation grew more than ``REJECT_GROWTH`` times (and past 1 sd), or the weighted
   objective ‖ḡ_T − g_obs‖_W rose clearly above the best so far (:func:`taken_back`),
   taken back to a quarter of it, the chain restarting from y_obs (a step into another
   phase, or along a fold of the moment map where the targets are out of reach);
   With a free decay (``gwesp(0.5, fixed=FALSE)``) the targets are their curved
   statistics at θ, A(θ)' g_T (:class:`CurvedTargets`: edges, gwesp at the decay, its
   derivative in the decay), as many as the coefficients, so that no weight matrix and
   no Jacobian estimate moves the root;
3. ``n_average`` further half-steps whose θ's are averaged (Polyak-Ruppert);
4. a final run at θ̂ gives the equilibrium covariance Σ of the targets, their mean
   (t-ratios) and its Monte Carlo error (batch means); the Jacobian is re-estimated by central differences with common random
   numbers (chains of the same seed at θ̂ ± h e_k, h half an approximate s.e.), and
   Cov(θ̂) = J⁻¹ Σ J⁻ᵀ (the observed network as one draw from the equilibrium).

Ctrl-C returns the estimate reached, marked interrupted (standard errors NA).
``checkpoint=path`` writes where the run stands after the burn-in and after every
iteration (:mod:`ergmfit.estimation.egmme.checkpoint`; only that file, atomically);
``resume=path`` goes on from it, to the result the uninterrupted run with the same seed
returns (the chain is rebuilt from its network, with a seed from the run's generator, at
every iteration, also without a checkpoint).

References
----------
Krivitsky, P. N. & Handcock, M. S. (2014). A separable model for dynamic networks.
JRSS B 76(1), 29-46.
Carnegie, N. B., Krivitsky, P. N., Hunter, D. R. & Goodreau, S. M. (2015). An
approximation method for improving dynamic network model fitting. JCGS 24(2), 502-519.
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, SettingsError
from ...runtime import Checkpoint, GuardedPhases
from ...utils.validation import check_random_state
from ..base import Estimator, Setting, integer, number
from ..common.nobs import fit_nobs
from .checkpoint import RUN_SETTINGS, EGMMECheckpoint


class EGMME(Estimator):
    """Equilibrium generalised method of moments of a dynamic model (tergm's EGMME).

    Returns an :class:`~ergmfit.results.ERGMResults` with method ``"egmme"``; its
    ``info`` holds the targets, their equilibrium means and t-ratios, and the history of
    the Newton steps.

    Examples
    --------
    >>> import numpy as np, ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("flobusiness"),
    ...             "Form(~edges) + Persist(~offset(edges))")
    >>> fit = m.fit(method="egmme", offset_coef=[np.log(9)], random_state=1)
    >>> bool(abs(fit.params["Form~edges"] + 4.08) < 0.3)     # closed form: -4.07
    True
    """

    method = "egmme"
    supports = {"curved": True, "constraints": True, "missing": False,
                "target_stats": False, "missing+target_stats": False,
                "families": frozenset({"binary"})}
    SETTINGS = (
        Setting("targets", None, None,
                "The target statistics' formula (``'~edges + gwesp(0, fixed=TRUE)'``) or "
                "``'formation'`` (the default: the formula of Form())."),
        Setting("init", None, None, "Starting free coefficients (default: the formation "
                "formula's cross-sectional MPLE, other coefficients 0)."),
        Setting("proposals", None, integer(1, allow_none=True),
                "Metropolis-Hastings proposals per time step (default 16 per dyad)."),
        Setting("burnin", 100, integer(0), "Time steps run before each iteration's means."),
        Setting("steps", 1000, integer(10), "Time steps averaged per Newton iteration."),
        Setting("n_iter", 8, integer(1), "Newton iterations (gain 1)."),
        Setting("n_average", 8, integer(0), "Half-gain iterations averaged at the end."),
        Setting("max_step", 1.0, number(0, lo_open=True),
                "Largest change of a coefficient in one Newton step."),
        Setting("final_steps", 4000, integer(10), "Time steps of the final run (Σ, t-ratios)."),
        Setting("fd_steps", 2000, integer(10),
                "Time steps of each finite-difference chain of the final Jacobian."),
        Setting("t_ratio", 0.1, number(0, lo_open=True),
                "Converged when every final |mean - observed| / sd is below this, or "
                "within two Monte Carlo standard errors of the final run's mean."),
        Setting("checkpoint", None, None,
                "JSON file written after the burn-in and every iteration."),
        Setting("resume", None, None,
                "Continue from this checkpoint file (its random generator replaces "
                "random_state; its offsets are used when none are given)."),
    )

    def fit(self, model):
        from ...results import ERGMResults
        s = self.get_params()
        rng = check_random_state(s["random_state"])
        t0 = time.process_time()
        series = getattr(model, "series", None)
        if series is None or not getattr(model, "reads_previous", False):
            raise SettingsError(
                "method='egmme' fits a dynamic model to one cross-section: write it with "
                "tergm's operators, e.g. ef.ERGM(g, 'Form(~edges + gwesp(0, fixed=TRUE)) + "
                "Persist(~offset(edges))'), with targets= and offset_coef=")
        cross = series.waves[-1]
        targets = _targets_formula(model, s["targets"])
        g_obs, tlabels = model.cross_section_statistics(targets)
        tmap = CurvedTargets.of(model, targets)
        decays = model.parameterisation.decay_indices() \
            if not model.parameterisation.affine else []
        missing = [model.labels[d] for d in decays
                   if tmap is None or d not in tmap.columns]
        if missing:
            raise SettingsError(
                f"method='egmme' with a free decay ({', '.join(missing)}) needs targets "
                "that carry it: the Form() formula's own terms with the decay free (the "
                f"default targets='formation'), not {targets!r}, whose statistics give the "
                "decay no moment of its own (with counts such as esp(1), ..., esp(k) as "
                "targets the decay ran to 0 in our trials, docs/egmme.md); or fix the decay "
                "(fixed=TRUE)")
        p = len(model.labels)
        q = len(g_obs) if tmap is None else len(tmap.labels)
        if q < p:
            raise SettingsError(
                f"method='egmme': {q} target statistic(s) ({targets}) cannot identify {p} free "
                f"coefficient(s) ({', '.join(model.labels)}); add targets or fix coefficients "
                "with offset()")
        run = _Run(model, g_obs, p)
        run.tmap, run.raw_labels = tmap, tlabels
        if tmap is not None:
            tlabels = list(tmap.labels)
        run.observed_ties = np.asarray(cross.ties)
        run.settings = {k: s[k] for k in RUN_SETTINGS}
        saved = None
        if s["resume"] is not None:
            saved = EGMMECheckpoint.read(s["resume"], model)
            saved.check_targets(targets, s["resume"])
            saved.check_settings(s, s["resume"])
            rng = saved.rng
            run.theta, run.history = np.array(saved.theta, dtype=float), list(saved.history)
            run.averaged, run.stage, run.step = list(saved.averaged), saved.stage, saved.step
            proposals, start = saved.proposals, saved.ties
        else:
            run.theta = _start(model, s["init"], rng)
            proposals, start = s["proposals"], None
        run.set_targets(run.theta)
        run.chain = model.dynamic_chain(cross=targets, start=start, proposals=proposals,
                                        random_state=rng)
        run.chain.step = run.step
        store = None
        if s["checkpoint"] is not None:
            store = Checkpoint(s["checkpoint"], what="EGMME checkpoint").acquire()
        guard = GuardedPhases()
        # the stages: the burn-in, n_iter Newton iterations (gain 1), n_average averaged
        # half-steps; each is skipped when a resumed checkpoint has done it
        stages = [("burn-in", self._burnin, ())] + \
            [("Newton", self._iteration, (1.0,))] * s["n_iter"] + \
            [("averaging", self._iteration, (0.5,))] * s["n_average"]
        try:
            for stage, (phase, step, args) in enumerate(stages, start=1):
                if stage <= run.stage:
                    continue
                if not guard.run(phase, step, run, s, *args):
                    break
                if phase == "averaging":
                    run.averaged.append(run.theta.copy())
                run.stage = stage
                guard.run(phase, self._boundary, run, store, targets, rng)
        finally:
            if store is not None:
                store.release()
        if run.averaged:
            run.theta = np.mean(run.averaged, axis=0)
        if guard.interrupted is None:
            guard.run("final run", self._final, run, s, rng)
        theta = run.theta
        g_obs = run.g_obs               # (a curved target's: at the estimate)
        warn = []
        labels = list(model.labels)
        if guard.interrupted is not None:
            msg = (f"EGMME was interrupted by the user in its {guard.interrupted} phase: the "
                   f"estimates are those after {len(run.history)} iteration(s), NOT converged; "
                   "standard errors are NA")
            warnings.warn(msg, ConvergenceWarning, stacklevel=2)
            warn.append(msg)
            cov, t, converged, means = np.full((p, p), np.nan), np.full(q, np.nan), False, None
        else:
            cov, t, means = run.cov, run.t, run.means
            if run.z is None:
                converged = bool(np.all(np.abs(t) < s["t_ratio"])
                                 or np.all(np.abs(means - g_obs) < 2 * run.mc_se))
                gap = (f"the equilibrium means of the targets are up to "
                       f"{np.max(np.abs(t)):.3f} sd from the observed")
            else:
                z, z_se = run.z[~run.held], run.z_se[~run.held]
                converged = bool(np.all(np.abs(z) < s["t_ratio"])
                                 or np.all(np.abs(z) < 2 * z_se))
                gap = (f"the {q} targets' deviation from the observed, projected on the "
                       f"{len(z)} free coefficients' directions, is up to "
                       f"{np.max(np.abs(z)):.3f} sd (Monte Carlo s.e. {np.max(z_se):.3f})")
            if not converged:
                msg = f"EGMME did not converge: {gap} (criterion {s['t_ratio']}); "
                stall = None if run.z is not None else \
                    stalled(run.history, np.sqrt(np.diag(cov_targets(run))))
                if stall is not None:
                    msg += (f"the Newton steps stopped closing the gap (the deviation of the "
                            f"targets, in sd, went from {stall[0]:.2f} at the first step to "
                            f"{stall[1]:.2f} on average over the last half): the observed "
                            f"targets {dict(zip(tlabels, np.round(g_obs, 3).tolist()))} look "
                            "out of reach of this model's equilibrium with its offsets (e.g. "
                            "a dissolution offset giving ties a very short life); check the "
                            "offsets (Diss() and Persist() have opposite signs) and the "
                            "targets (docs/egmme.md); the standard errors are NA (the "
                            "equilibrium means barely move along some direction there)")
                    cov = np.full((p, p), np.nan)
                else:
                    msg += "raise n_iter or steps, or start from this estimate (init=fit.params)"
                warnings.warn(msg, ConvergenceWarning, stacklevel=2)
                warn.append(msg)
            phases = bistable(run.final_cross, run.g_raw, run.raw_labels)
            if phases:
                msg = ("EGMME: the equilibrium at the estimate is bistable: the process switches "
                       "between networks far below and far above the observed ("
                       + "; ".join(f"{lab}: {lo:.0%} of the time steps at most half the observed "
                                   f"{obs:g}, {hi:.0%} at least twice it"
                                   for lab, obs, lo, hi in phases)
                       + "), so its mean statistics match the targets, if at all, only as an "
                       "average of two phases, neither of which looks like the observed "
                       "network: a degenerate model at these offsets; the estimate is not "
                       "meaningful and its standard errors are NA")
                cov = np.full((p, p), np.nan)
                warnings.warn(msg, ConvergenceWarning, stacklevel=2)
                warn.append(msg)
        info = {"targets": dict(zip(tlabels, g_obs.tolist())),
                "target_means": None if means is None else dict(zip(tlabels, means.tolist())),
                "t_ratios": dict(zip(tlabels, t.tolist())),
                "projected_t": None if run.z is None else dict(zip(labels, run.z.tolist())),
                "held_at_bound": [] if run.held is None else [
                    lab for lab, h in zip(labels, run.held) if h],
                "target_mc_se": None if run.mc_se is None else dict(zip(tlabels,
                                                                        run.mc_se.tolist())),
                "bistable": None if run.final_cross is None else [
                    lab for lab, _, _, _ in bistable(run.final_cross, run.g_raw,
                                                     run.raw_labels)],
                "target_statistics": dict(zip(run.raw_labels, run.g_raw.tolist())),
                "history": run.history, "time_steps": int(run.chain.step),
                "proposals_per_step": int(run.chain.proposals),
                "interrupted": guard.interrupted is not None}
        net = getattr(model, "network", None)
        return ERGMResults(theta, cov, labels, method="egmme", **fit_nobs(model),
                           converged=converged, n_iter=len(run.history),
                           seconds=time.process_time() - t0, se_kind="egmme", warnings=warn,
                           info=info, formula=getattr(model, "formula", None), network=net,
                           model=model, dyad_independent=getattr(model, "dyad_independent", None))

    # -- phases ----------------------------------------------------------------------------
    def _boundary(self, run, store, targets, rng):
        """After a stage: the checkpoint (with the generator's state before the chain is
        rebuilt), then the chain rebuilt from its network with a seed from ``rng``."""
        ties, step = run.chain.state.ties(), run.chain.step
        if run.restart:                     # a rejected step: back to the observed network
            ties, run.restart = np.array(run.observed_ties, copy=True), False
        if store is not None:
            EGMMECheckpoint(stage=run.stage, theta=run.theta, history=run.history,
                            averaged=[a.tolist() for a in run.averaged], ties=ties.tolist(),
                            step=step, proposals=run.chain.proposals, targets=targets,
                            rng=rng, settings=run.settings).write(store, run.model)
        run.chain = run.model.dynamic_chain(cross=run.chain.cross_formula, start=ties,
                                            proposals=run.chain.proposals, random_state=rng)
        run.chain.step = step

    def _burnin(self, run, s):
        _checked(run.chain.run(run.model.eta(run.theta), s["burnin"]))

    def _iteration(self, run, s, gain):
        """One Newton step from the chain's means at θ (after ``burnin`` steps there)."""
        eta = run.model.eta(run.theta)
        run.set_targets(run.theta)
        _checked(run.chain.run(eta, s["burnin"]))
        r = run.reduced(_checked(run.chain.run(eta, s["steps"])))
        dev = r.cross.mean(axis=0) - run.g_obs
        W = target_weights(np.atleast_2d(np.cov(r.cross, rowvar=False)))
        if run.history and taken_back(run.history, dev, r.cross, W):
            # the last step made the fit worse: into another regime of the equilibrium (a
            # dense phase beyond a steep stretch, where the Jacobian of the sparse side
            # does not hold), or along a fold of the moment map where no root lies (the
            # targets out of reach, a nearly singular Jacobian): a quarter of it is taken
            # instead, from the observed network, and the turn counts for Kesten's rule
            ref = _last_taken(run.history)
            start = np.asarray(ref["start"], dtype=float)
            changes = run.history[-1].get("changes", 0) + 1
            theta = run.model.parameterisation.project(
                start + REJECT_SHRINK * (run.theta - start))
            run.history.append({"theta": theta.tolist(), "gain": 0.0,
                                "deviation": dev.tolist(), "changes": changes,
                                "start": run.theta.tolist(), "rejected": True,
                                "objective": _objective(dev, W)})
            run.theta, run.restart = theta, True
            return
        J = run.eda_jacobian(r)
        par = run.model.parameterisation
        free = free_directions(J, dev, W, par.at_bound(run.theta), run.theta,
                               par.lower_bounds())
        step = weighted_step(J, dev, W, free=free)
        step = noise_damped(step, J, W, _batch_means_cov(r.cross), free)
        # Kesten's rule: the gain falls as 1 / (1 + the number of times the step has
        # turned back), measured along the coefficients' directions in the J'WJ metric
        # (an overshoot past the root, or the Monte Carlo noise of the means near it)
        changes = run.history[-1].get("changes", 0) if run.history else 0
        if run.history:
            back = weighted_step(J, np.asarray(run.history[-1]["deviation"], dtype=float), W,
                                 free=free)
            if float(step @ (J.T @ W @ J) @ back) < 0:
                changes += 1
        gain = gain / (1.0 + changes)
        size = float(np.max(np.abs(step))) if len(step) else 0.0
        if size > s["max_step"]:            # at most max_step in every coefficient
            step *= s["max_step"] / size
        start = run.theta
        run.theta = par.project(run.theta + gain * step)
        run.history.append({"theta": run.theta.tolist(), "gain": gain,
                            "deviation": dev.tolist(), "changes": changes,
                            "start": start.tolist(),
                            "objective": _objective(dev, W)})

    def _final(self, run, s, rng):
        eta = run.model.eta(run.theta)
        run.set_targets(run.theta)
        _checked(run.chain.run(eta, s["burnin"]))
        r = _checked(run.chain.run(eta, s["final_steps"]))
        run.final_cross = r.cross
        r = run.reduced(r)
        Sigma = np.atleast_2d(np.cov(r.cross, rowvar=False))
        run.sigma = Sigma
        sd = np.sqrt(np.diag(Sigma))
        run.means = r.cross.mean(axis=0)
        run.mc_se = _batch_means_se(r.cross)
        run.t = np.divide(run.means - run.g_obs, sd, out=np.zeros_like(sd), where=sd > 0)
        J0 = run.eda_jacobian(r)
        J = self._fd_jacobian(run, s, J0, Sigma, rng)
        par = run.model.parameterisation
        W = target_weights(Sigma)
        free = free_directions(J, run.means - run.g_obs, W, par.at_bound(run.theta),
                               run.theta, par.lower_bounds())
        run.held = ~free
        if len(run.g_obs) > len(run.theta) or run.held.any():
            # over-identified (or a coefficient held at its bound, whose moment condition
            # need not hold): the weighted estimate's covariance (J'WJ)⁻¹ with W = Σ⁺,
            # and the deviation judged along the free coefficients' directions
            run.cov = np.linalg.pinv(J.T @ W @ J)
            run.z, run.z_se = np.full(len(free), np.nan), np.full(len(free), np.nan)
            run.z[free], run.z_se[free] = projected_t(r.cross, run.g_obs, J[:, free], Sigma)
        else:
            Jp = np.linalg.pinv(J)
            run.cov = Jp @ Sigma @ Jp.T

    def _fd_jacobian(self, run, s, J0, Sigma, rng):
        """Central differences of the equilibrium means at θ̂ ± h e_k, both chains with the
        same seed from the chain's present network (common random numbers)."""
        p = len(run.theta)
        approx = np.linalg.pinv(J0.T @ np.linalg.pinv(Sigma) @ J0)
        h = 0.5 * np.sqrt(np.maximum(np.diag(approx), 1e-8))
        start = run.chain.state.ties()
        J = np.empty((len(run.g_obs), p))
        lower = run.model.parameterisation.lower_bounds()
        for k in range(p):
            seed = int(rng.integers(2**63 - 1))
            means = []
            # one-sided at a bound of the box (a decay near 0): θ̂ + 2h against θ̂
            signs = (1.0, -1.0) if run.theta[k] - h[k] >= lower[k] else (2.0, 0.0)
            for sign in signs:
                theta = run.theta.copy()
                theta[k] += sign * h[k]
                chain = run.model.dynamic_chain(cross=run.chain.cross_formula, start=start,
                                                proposals=run.chain.proposals,
                                                random_state=seed)
                eta = run.model.eta(theta)
                _checked(chain.run(eta, s["burnin"]))
                means.append(run.reduced(_checked(chain.run(eta, s["fd_steps"])))
                             .cross.mean(axis=0))
            J[:, k] = (means[0] - means[1]) / (2 * h[k])
        return J


class CurvedTargets:
    """Targets with a free decay (``gwesp(0.5, fixed=FALSE)``, the default targets of a
    curved Form() formula) mapped to their curved statistics: at θ the target statistics
    g_T (edges, esp(1), esp(2), ...) become A(θ)' g_T with A = ∂η_T/∂θ_T, the Jacobian of
    the targets' own parameterisation at the model's coefficients of the same names
    (``Form~gwesp`` for ``gwesp``).  A decay's column is taken at its term's coefficient
    1 (∂c/∂decay of η_k = θ_w c_k(decay): the same moment, scaled, and defined at
    θ_w = 0).  The moment equations E_θ[A' g_T] = A' g_T(y_obs) are then as many as the
    coefficients: in the edges-dissolution approximation, where the equilibrium is the
    cross-sectional ERGM of the Form() coefficients (edges shifted) and dm/dθ = Σ A, the
    efficient GMM's J'Σ⁻¹ (m − g_obs) = A'(m − g_obs) — the curved ERGM's likelihood
    equations, as for a cross-sectional fit — with no weight matrix to estimate (the Σ⁺
    of the rare esp counts was what sent a free decay to 0, docs/egmme.md).

    Examples
    --------
    >>> import numpy as np, ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("flobusiness"),
    ...             "Form(~edges + gwesp(0.5, fixed=FALSE)) + Persist(~offset(edges))")
    >>> free = m.configured(offset_coef=[np.log(9)])
    >>> t = CurvedTargets.of(free, "edges + gwesp(0.5, fixed=FALSE)")
    >>> t.labels
    ['edges', 'gwesp', 'gwesp.decay']
    >>> A = t.matrix(np.array([-5.0, 1.0, 0.5]))
    >>> A.shape, round(float(A[2, 1]), 3)       # esp(2)'s weight in gwesp(0.5)
    ((15, 3), 1.393)
    """

    def __init__(self, static, columns):
        self.static, self.columns = static, np.asarray(columns, dtype=int)
        self.labels = list(static.labels)
        par = static.parameterisation
        self.decays = list(par.decay_indices())

    @classmethod
    def of(cls, model, targets):
        """The map of ``targets`` (a formula text) on ``model``'s cross-section, or None
        when the targets have no free decay; a target coefficient that is not one of the
        model's (``Form~`` + its name) is refused by name."""
        static = model.cross_section_model(targets)
        if static.parameterisation.affine:
            return None
        labels = list(model.labels)
        columns = []
        for lab in static.labels:
            for name in (f"Form~{lab}", lab):
                if name in labels:
                    columns.append(labels.index(name))
                    break
            else:
                raise SettingsError(
                    f"method='egmme': the targets ({targets}) have a free decay, so their "
                    f"curved statistics are taken at the model's coefficients of the same "
                    f"names, but {lab!r} (or 'Form~{lab}') is not a free coefficient of the "
                    f"model ({', '.join(labels)}); give the targets' decay fixed=TRUE or "
                    "use the Form() formula's terms")
        return cls(static, columns)

    def matrix(self, theta):
        """A(θ): target statistics x curved statistics."""
        th = np.asarray(theta, dtype=float)[self.columns]
        jac = self.static.parameterisation.jacobian
        A = jac(th)
        if self.decays:
            unit = th.copy()
            unit[[d - 1 for d in self.decays]] = 1.0
            A[:, self.decays] = jac(unit)[:, self.decays]
        return A


def target_weights(Sigma, rel_tol=1e-9):
    """W = Σ⁺, the weights of the targets (their equilibrium covariance's pseudo-inverse:
    tergm's EGMME weights its targets' deviations by the inverse of their covariance);
    eigenvalues below ``rel_tol`` of the largest count as 0 (a target that does not vary
    at θ: its row of the Jacobian is 0 too, so it takes no part in the step).

    Examples
    --------
    >>> import numpy as np
    >>> target_weights(np.diag([4.0, 0.0]))
    array([[0.25, 0.  ],
           [0.  , 0.  ]])
    """
    Sigma = np.atleast_2d(np.asarray(Sigma, dtype=float))
    vals, vecs = np.linalg.eigh((Sigma + Sigma.T) / 2)
    top = float(np.max(vals)) if vals.size else 0.0
    keep = vals > rel_tol * max(top, 0.0) if top > 0 else np.zeros(len(vals), dtype=bool)
    return (vecs[:, keep] / vals[keep]) @ vecs[:, keep].T


def free_directions(J, dev, W, at_bound, theta, lower):
    """Mask of the coefficients a step may move: all but those held at a bound of the
    parameter box (a decay at 0) whose step points out of it — the active set of the
    bounded moment equations (the step then solves them in the other coefficients)."""
    free = np.ones(J.shape[1], dtype=bool)
    at_bound = np.asarray(at_bound, dtype=bool)
    if not at_bound.any():
        return free
    step = weighted_step(J, dev, W)
    lower = np.asarray(lower, dtype=float)
    outward = np.where(np.asarray(theta) <= lower, step < 0, step > 0)
    free[at_bound & outward] = False
    return free


def weighted_step(J, dev, W, ridge=1e-3, free=None):
    """The Gauss-Newton step of the weighted moment equations, −(J'WJ + λI)⁻¹ J'W dev:
    with as many targets as coefficients and J invertible the Newton step −J⁻¹ dev (the
    weights do not move the root), with more targets the step of the generalised method
    of moments with weights W (the targets' deviations in equilibrium sd, correlated
    targets counted once).  Levenberg-Marquardt: λ = ``ridge`` x the largest curvature
    keeps a flat direction (a statistic that does not move) from taking a huge step.

    Examples
    --------
    >>> import numpy as np
    >>> weighted_step(np.eye(2), np.array([1.0, -2.0]), np.eye(2), ridge=0.0)
    array([-1.,  2.])
    """
    J, dev = np.atleast_2d(np.asarray(J, dtype=float)), np.asarray(dev, dtype=float)
    out = np.zeros(J.shape[1])
    cols, H, JtW = _normal_equations(J, W, free, ridge)
    if cols.any():
        out[cols] = -np.linalg.solve(H, JtW @ dev)
    return out


def _normal_equations(J, W, free, ridge):
    """The free columns of ``J`` (all when ``free`` is None), and the ridged normal matrix
    J'WJ + ridge * max(diag) * I and J'W over them (empty when no column is free)."""
    cols = np.ones(J.shape[1], dtype=bool) if free is None else np.asarray(free, dtype=bool)
    J = J[:, cols]
    JtW = J.T @ W
    H = JtW @ J
    lam = ridge * max(float(np.max(np.diag(H))) if H.size else 0.0, 1e-12)
    return cols, H + lam * np.eye(J.shape[1]), JtW


def projected_t(cross, g_obs, J, Sigma):
    """(z, Monte Carlo s.e. of z) of an over-identified fit (more targets than
    coefficients, where no θ matches every target): the targets' deviation projected on
    the directions the coefficients move them, in equilibrium sd,
    z = (J'WJ)^{-1/2} J'W (ḡ − g_obs) with W = Σ⁺ — the moment conditions the weighted
    estimate solves (z = 0 at the root; with as many targets as coefficients |z| is the
    deviation's Mahalanobis length).  The Monte Carlo s.e. by batch means of z over the
    time steps of ``cross``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> cross = rng.normal([1.0, 1.0], 1.0, size=(4000, 2))
    >>> z, se = projected_t(cross, np.array([1.0, 1.0]), np.array([[1.0], [1.0]]), np.eye(2))
    >>> bool(abs(z[0]) < 3 * se[0])
    True
    """
    W = target_weights(Sigma)
    H = J.T @ W @ J
    vals, vecs = np.linalg.eigh((H + H.T) / 2)
    vals = np.where(vals > 1e-12 * max(float(np.max(vals)), 1e-300), vals, np.inf)
    A = (vecs / np.sqrt(vals)) @ vecs.T @ J.T @ W          # p x q
    Z = (np.asarray(cross, dtype=float) - g_obs) @ A.T
    return Z.mean(axis=0), _batch_means_se(Z)


def cov_targets(run):
    """The equilibrium covariance of the targets from the final run (NaN before it)."""
    return run.sigma if run.sigma is not None else \
        np.full((len(run.g_obs),) * 2, np.nan)


def stalled(history, sd, share=0.5, floor=0.5):
    """(first, late) sizes of the targets' deviation from the observed, in equilibrium sd
    (the largest over the targets), when the Newton iterations stopped closing the gap: the
    average over the last half of the iterations still ``share`` or more of the first
    iteration's, and at least ``floor`` sd (below it the late deviations are the Monte
    Carlo noise of the iterations' means: a start already at the root, such as the
    dissolution-shifted start of a dyad-independent model, is not a stall); else None.

    Examples
    --------
    >>> h = [{"deviation": [4.0, -4.0]}, {"deviation": [3.0, -4.5]}, {"deviation": [2.0, -4.4]}]
    >>> stalled(h, [5.0, 5.0])
    (0.8, 0.89)
    >>> stalled([{"deviation": [4.0]}, {"deviation": [0.2]}, {"deviation": [-0.1]}], [5.0])
    >>> stalled([{"deviation": [0.5]}, {"deviation": [1.0]}, {"deviation": [-1.0]}], [5.0])
    """
    sd = np.asarray(sd, dtype=float)
    if len(history) < 2 or not np.all(np.isfinite(sd)) or np.any(sd <= 0):
        return None
    size = [float(np.max(np.abs(np.asarray(h["deviation"], dtype=float)) / sd))
            for h in history]
    late = float(np.mean(size[len(size) // 2:]))
    return (round(size[0], 3), round(late, 3)) \
        if late >= max(share * size[0], floor) else None


def _objective(dev, W):
    """‖dev‖_W = (dev' W dev)^½, the targets' deviation in the metric W = Σ⁺."""
    return float(np.sqrt(max(float(dev @ W @ dev), 0.0)))


def _last_taken(history):
    """The last iteration whose step was taken (not itself a step taken back): the steps
    taken back since then are judged against its deviation and shrunk towards its θ."""
    for h in reversed(history):
        if "start" in h and not h.get("rejected"):
            return h
    return None


def taken_back(history, dev, cross, W):
    """Whether the last step is taken back, judged at its end (deviation ``dev`` of the
    targets' means over the time steps ``cross``, weights ``W`` = Σ⁺ there).  Two rules:

    - the largest |mean − observed| / sd grew more than ``REJECT_GROWTH`` times the one
      where the last step taken started (:func:`_last_taken`) and past 1 sd (a step into
      another phase);
    - the weighted objective the steps minimise, ‖dev‖_W = (dev' W dev)^½ (the targets'
      Mahalanobis distance from the observed, each iteration's in its own metric, kept
      in ``history[k]["objective"]``), is past 1 and more than ``REJECT_MARGIN`` Monte
      Carlo s.e. (of a difference of two iterations' objectives) above the best so far
      (docs/egmme.md, "taking back a step that makes the fit worse").  A Gauss-Newton
      step is only trusted where it does not make the fit worse: where no θ reaches the
      targets (docs/egmme.md, "When the targets are out of reach") the map θ ↦ E_θ[g]
      folds, its Jacobian is nearly singular there, and the steps, each a little worse
      than the last, walked along the fold into the empty network.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> cross = rng.normal(0.0, 1.0, size=(1000, 2))
    >>> h = [{"start": [0.0, 0.0], "deviation": [1.5, 0.0]}]
    >>> taken_back(h, np.array([2.5, 0.0]), cross, np.eye(2))
    True
    >>> taken_back(h, np.array([1.52, 0.0]), cross, np.eye(2))
    False
    """
    ref = _last_taken(history)
    if ref is None:
        return False
    dev = np.asarray(dev, dtype=float)
    before_dev = np.asarray(ref["deviation"], dtype=float)
    sd = np.sqrt(np.maximum(np.var(cross, axis=0, ddof=1), 1e-12))
    now = float(np.max(np.abs(dev) / sd))
    before = float(np.max(np.abs(before_dev) / sd))
    if now > max(REJECT_GROWTH * before, 1.0):
        return True
    q_now = _objective(dev, W)
    if q_now <= 1.0:
        return False
    # the best point so far: the smallest objective of the steps' starting points, each
    # in its own iteration's metric (the objective of the continuously updated GMM;
    # history written by older versions has none: the present metric).  Against the
    # last point only, steps that each add a little less than the margin walk away
    q_before = min(float(h["objective"]) if "objective" in h else _objective(
        np.asarray(h["deviation"], dtype=float), W)
        for h in history if "start" in h and not h.get("rejected"))
    u = W @ dev / q_now                 # the gradient of ‖dev‖_W in the mean
    se = float(np.sqrt(max(u @ _batch_means_cov(cross) @ u, 0.0)))
    return bool(q_now > q_before + REJECT_MARGIN * np.sqrt(2.0) * se)


#: a Newton iteration whose targets' deviation (largest |mean − observed| / sd) grew past
#: this many times the last one's, and past 1 sd, rejects the last step
REJECT_GROWTH = 3.0
#: a step whose weighted objective ‖dev‖_W grew by more than this many Monte Carlo s.e. of
#: the difference (and is past 1) is taken back
REJECT_MARGIN = 2.0
#: the share of a rejected step taken instead
REJECT_SHRINK = 0.25
#: a phase of a bistable equilibrium holds at least this share of the time steps
PHASE_SHARE = 0.05
#: Sarle's bimodality coefficient above which a distribution counts as two-peaked (5/9: a
#: uniform distribution's; a normal has 1/3): a wide one-peaked equilibrium such as the
#: tutorial's (gwesp(0): 0.36-0.44 at its estimate) also puts 5 % beyond half and twice the
#: observed, a two-phase one (0.56-0.89 along the Diss model's knife edge) is set apart
BIMODALITY = 5.0 / 9.0
#: the smallest observed value whose halves and doubles are two phases: below it a count
#: with Poisson noise alone reaches both (from 8 on, half and twice the observed lie
#: more than 4 Poisson sd apart)
MIN_PHASE_VALUE = 8.0


def bistable(cross, g_obs, labels, share=PHASE_SHARE):
    """[(label, observed, low share, high share)] of the targets whose equilibrium run
    ``cross`` (time steps x targets) is two-peaked (Sarle's bimodality coefficient
    (skewness² + 1) / (excess kurtosis + 3 (n−1)² / ((n−2)(n−3))) above ``BIMODALITY``)
    and spends at least ``share`` of its steps at most half the observed value and
    ``share`` at least twice it (a process switching between two phases, neither like the
    observed network; the MCMC-MLE's bistable rule); [] if none.  Targets observed below
    ``MIN_PHASE_VALUE`` are not judged (Poisson noise alone puts a small count at half and
    twice its mean).

    Examples
    --------
    >>> import numpy as np
    >>> two_phases = np.array([[0.0], [1.0], [40.0], [45.0], [2.0]] * 4)
    >>> bistable(two_phases, np.array([15.0]), ["edges"])
    [('edges', 15.0, 0.6, 0.4)]
    >>> bistable(np.array([[12.0], [15.0], [18.0]] * 5), np.array([15.0]), ["edges"])
    []
    """
    if cross is None or not len(cross):
        return []
    cross = np.asarray(cross, dtype=float)
    out = []
    for k, lab in enumerate(labels):
        obs = float(g_obs[k])
        if obs < MIN_PHASE_VALUE:
            continue
        lo = float(np.mean(cross[:, k] <= obs / 2))
        hi = float(np.mean(cross[:, k] >= 2 * obs))
        if lo >= share and hi >= share and bimodality(cross[:, k]) > BIMODALITY:
            out.append((lab, obs, round(lo, 3), round(hi, 3)))
    return out


def bimodality(x):
    """Sarle's bimodality coefficient of the sample ``x`` (1/3 for a normal, 5/9 for a
    uniform, towards 1 for two separate peaks); 0 for fewer than 4 values or no spread.

    Examples
    --------
    >>> import numpy as np
    >>> round(bimodality(np.r_[np.zeros(50), np.full(50, 10.0)]), 3)
    0.915
    """
    from scipy.stats import kurtosis, skew
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n < 4 or np.ptp(x) == 0:
        return 0.0
    g, k = float(skew(x)), float(kurtosis(x))
    return (g * g + 1.0) / (k + 3.0 * (n - 1) ** 2 / ((n - 2) * (n - 3)))


class _Run:
    """What the phases share."""

    def __init__(self, model, g_obs, p):
        self.model, self.g_obs, self.p = model, g_obs, p
        self.g_raw, self.raw_labels = g_obs, None
        self.tmap = self.A = None           # curved targets (CurvedTargets) and their map
        self.theta = self.chain = self.cov = self.t = self.means = self.mc_se = None
        self.sigma = self.final_cross = self.z = self.z_se = self.held = None
        self.history, self.averaged = [], []
        self.restart, self.observed_ties = False, None
        self.stage = self.step = 0          # stages done (see EGMME.fit), chain time steps

    def set_targets(self, theta):
        """Curved targets: the map A(θ) of the target statistics to their curved
        statistics at ``theta`` and the observed ones, g_obs = A(θ)' g_T(y_obs)."""
        if self.tmap is not None:
            self.A = self.tmap.matrix(theta)
            self.g_obs = self.g_raw @ self.A

    def reduced(self, r):
        """The chain's run ``r`` with its targets' statistics mapped by A(θ) (curved
        targets; ``r`` itself otherwise)."""
        if self.tmap is None:
            return r
        return _Draws(r.cross @ self.A, r.stats, r.interrupted)

    def eda_jacobian(self, r):
        """Cov(g_T(y_t), g_θ(y_{t-1}, y_t)) over the run: the derivative of the equilibrium
        means in the edges-dissolution approximation (the statistics of the transitions
        mapped to θ through the parameterisation)."""
        S = r.stats @ self.model.parameterisation.jacobian(self.theta)
        T = r.cross
        Tc, Sc = T - T.mean(axis=0), S - S.mean(axis=0)
        J = Tc.T @ Sc / max(1, len(T) - 1)
        return J


def noise_damped(step, J, W, V, free=None, ridge=1e-3):
    """The step with each of its Monte Carlo noise's principal directions shrunk by
    signal² / (signal² + noise variance) (a Wiener filter): V is the covariance of the
    targets' mean deviation (batch means), the step's noise covariance A V A' with
    A = (J'WJ + λI)⁻¹ J'W; a direction the step takes mostly because of the noise of
    the means (along a ridge of nearly collinear statistics) hardly moves, one it takes
    for the signal moves in full.

    Examples
    --------
    >>> import numpy as np
    >>> J, W = np.eye(2), np.eye(2)
    >>> noise_damped(np.array([3.0, 0.1]), J, W, np.diag([0.01, 1.0])).round(3).tolist()
    [2.997, 0.001]
    """
    J = np.atleast_2d(np.asarray(J, dtype=float))
    step = np.asarray(step, dtype=float).copy()
    cols, H, JtW = _normal_equations(J, W, free, ridge)
    if not cols.any():
        return step
    A = np.linalg.solve(H, JtW)
    C = A @ np.atleast_2d(V) @ A.T
    vals, U = np.linalg.eigh((C + C.T) / 2)
    c = U.T @ step[cols]
    vals = np.maximum(vals, 0.0)
    c *= np.divide(c * c, c * c + vals, out=np.ones_like(c), where=(c * c + vals) > 0)
    step[cols] = U @ c
    return step


class _Draws:
    """A dynamic chain's run with its targets' statistics replaced (curved targets)."""

    def __init__(self, cross, stats, interrupted):
        self.cross, self.stats, self.interrupted = cross, stats, interrupted


def _batch_means_cov(T, n_batches=20):
    """Monte Carlo covariance of the column means of the autocorrelated rows ``T``
    (batch means)."""
    b = len(T) // n_batches
    means = T[: b * n_batches].reshape(n_batches, b, -1).mean(axis=1)
    return np.atleast_2d(np.cov(means, rowvar=False)) / n_batches


def _batch_means_se(T, n_batches=20):
    """Monte Carlo standard error of the column means of the autocorrelated rows ``T``
    (batch means)."""
    b = len(T) // n_batches
    means = T[: b * n_batches].reshape(n_batches, b, -1).mean(axis=1)
    return means.std(axis=0, ddof=1) / np.sqrt(n_batches)


def _checked(r):
    if r.interrupted:
        raise KeyboardInterrupt
    return r


def _targets_formula(model, targets):
    if targets is None or (isinstance(targets, str) and targets.strip().lower() == "formation"):
        text = model.operator_formula("Form")
        if not text:
            raise SettingsError("method='egmme': the model has no Form() to take the targets "
                                "from; give targets='~...'")
        return text
    if not isinstance(targets, str):
        raise SettingsError(f"setting 'targets' must be a formula such as '~edges + "
                            f"gwesp(0, fixed=TRUE)' or 'formation', got {targets!r}")
    return targets.strip().lstrip("~").strip()


def _start(model, init, rng):
    """θ₀: ``init``, or the cross-sectional MPLE of each operator's formula on y_obs for
    the coefficients of Form() (the equilibrium of slow dissolution), 0 elsewhere."""
    p = len(model.labels)
    if init is not None:
        theta = np.asarray(init, dtype=float).ravel()
        if theta.shape != (p,) or not np.all(np.isfinite(theta)):
            raise SettingsError(f"setting 'init' must be {p} finite number(s) "
                                f"({', '.join(model.labels)}), got {init!r}")
        return theta
    return model.equilibrium_start()
