"""MCMC-MLE of the observed-data likelihood of a network with missing dyads
(Handcock & Gile 2010, statnet's default when a network has ``NA`` dyads).

The observed-data log-likelihood of θ is log Z_obs(θ) − log Z(θ), Z_obs
summing over the completions of the missing dyads given the observed ones.
Its score is E_θ[g | observed] − E_θ[g]: the mean of a *constrained* chain,
which toggles only the missing dyads (the model's
:meth:`~ergmfit.sampling.space.SampleSpace.conditional` space), minus the mean
of the usual unconstrained chain.  Each iteration draws both samples at the
current θ and takes the complete-data MCMC-MLE step (Hummel's step length,
the importance-sampling maximiser, the same trust region) with the
constrained chain's mean in place of the observed statistics; at the fixed
point the two means agree, which is the observed-data likelihood equation.
The information is Cov_θ[g] − Cov_θ[g | observed] (complete-data minus
missing information), whose inverse gives the standard errors.

The iterations follow the complete-data MCMC-MLE's rules: the interval is
adapted to the effective sample size (``target_ess``, between
``min_interval`` and ``max_interval``; the conditional chain's is a quarter
of it unless ``obs_interval`` is given) and ``termination="hummel"``
(default) stops after two full steps in a row and a ``last_boost`` times
larger last sample, whose full step gives the estimate (the covariances
importance-weighted to it).  ``termination="hotelling"`` is statnet's rule:
a full step whose Hotelling p-value exceeds ``conv_pval``, then one more
sample, the estimate being the θ it was drawn at.  On faux.mesa.high.na10
``edges + nodematch('Grade') + gwesp(0.25, fixed=TRUE)``, seeds 1-6, the
first takes 4-6 iterations (within 0.08 statnet s.e.), the second 7-30.

A curved model (``gwesp(fixed=FALSE)``, ...) is fitted in θ through η(θ), as the
complete-data MCMC-MLE fits it: both chains run at η(θ) and keep the canonical
statistics; the step length, Hotelling's test and the ESS judge them in the
parameters' directions z J(θ); the step maximises the importance-sampling
log-likelihood ratio in θ (:func:`ergmfit.terms.parameter_steps.curved_step`,
decays capped) and the information is J'(Cov[g] − Cov[g | observed])J at the
estimate (statnet's).  On 6 nodes with 3 missing dyads it equals the exact
observed-data MLE (enumerated) within 0.03 s.e.; lazega.na10 ``edges +
gwesp(fixed=FALSE) + nodematch('practice')`` converges in 4 iterations (decay
0.81-0.83, seeds 1, 3, 4), within 0.1 s.e. of EE with missing dyads.  A fit
that fails from its default start is redone once (see :class:`MissingDataMCMLE`).

A dyad-independent model (on every dyad) has an exact observed-data MLE: the
logistic regression on the observed dyads (the MPLE), returned without MCMC.

With no missing dyads the constrained chain is the observed network and the
method is the ordinary MCMC-MLE (``ERGM.fit`` then calls that one; called
directly, this one gives the same fit within Monte Carlo error).  The
log-likelihood is the observed-data one, by bridge sampling with both chains
at every bridge point (:func:`ergmfit.estimation.mcmle.loglik.bridge_loglik`), as
statnet computes it.

``checkpoint=path`` writes, after every iteration, the MCMC-MLE checkpoint
of :mod:`ergmfit.estimation.mcmle.estimator` (estimate, interval, history, sample
space) plus what this fit needs to go on exactly where it stopped: the last
state of every unconditional chain and of every conditional chain (the
current completion of the missing dyads), the step's bookkeeping and the
random generator's state.  ``resume=path`` continues from it -- with the
checkpoint's random stream (``random_state`` is not used), so a resumed fit
returns what the uninterrupted fit would have; a checkpoint of another
sample space (other missing dyads, constraints, offsets) is refused.
"""
from __future__ import annotations

import contextlib
import time
import warnings
from types import SimpleNamespace

import numpy as np

from ...exceptions import CheckpointError, ConvergenceWarning, DegenerateModelError, \
    NetworkError
from ...results import ERGMResults
from ...sampling.chains import run_chains
from ...utils.validation import check_random_state
from ...runtime import GuardedPhases
from ...runtime.checkpoint import array, flag, generator, group, integer, record
from .checkpoint import MCMLECheckpoint
from .settings import missing_data_settings
from ..base import Estimator
from ..common.restricted import conditional_model  # noqa: F401 (its home was here)
from ..common.curved import check_runoff, restart
from ..common.stepping import is_weights, ellipsoid_step, hotelling_pvalue, hummel_step, \
    is_trust_region, maximize_is_loglik, standardised_mean

MAX_STEP = 1.0      # largest change of a coefficient in one iteration





class MissingDataMCMLE(Estimator):
    """MCMC-MLE of the observed-data likelihood of a model with missing dyads
    (statnet's): what :class:`~ergmfit.estimation.mcmle.estimator.MCMLE` fits
    when ``model.sample_space`` has missing dyads.  Its settings are MCMC-MLE's
    (:mod:`.settings`) without the bridge sampling, with ``maxit=30`` and one
    chain by default.

    A fit that fails from its default start is redone once, as the
    complete-data MCMC-MLE does (``info["fallback"]`` says so): after FAR_ITERS
    iterations far from the conditional sample with partial steps (a chain in
    the other phase of a near-degenerate model -- linear or curved), from the
    EE estimate with a longer interval
    (:func:`ergmfit.estimation.mcmle.fallback.fall_back`); a curved fit after a
    decay ran off or a stall, or when EE fails or its decay runs off too
    (samplike.na10 seed 4), from the fixed-decay MPLE at decay 0.5
    (:func:`ergmfit.estimation.common.curved.restart`).

    Ctrl-C anywhere in the iterations, the covariance or the log-likelihood
    returns the finished work, marked
    (:class:`~ergmfit.runtime.interrupts.GuardedPhases`).

    Examples
    --------
    >>> import ergmfit as ef
    >>> g = ef.datasets.load("flomarriage")
    >>> m = ef.ERGM(g, "edges + triangle", missing=[tuple(list(g.nodes)[:2])])
    >>> round(float(m.fit(method="mcmle", random_state=1).params["edges"]), 1)
    -1.7
    """

    method = "mcmle"
    supports = {"curved": True, "constraints": True, "missing": True, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary"})}
    SETTINGS = missing_data_settings()

    def fit(self, model):
        if not len(model.labels):      # every coefficient an offset: nothing to estimate
            from .start import nothing_to_estimate
            return nothing_to_estimate(model, self.get_params(), max(1, self.n_chains or 1))
        try:
            return self._run(model)
        except DegenerateModelError as exc:
            if self.init is not None or self.resume is not None:
                raise
            s = dict(self.get_params(), init=None)
            core = lambda m, **kw: {"res": type(self)(**kw)._run(m)}  # noqa: E731
            from ..mple.pseudolikelihood import MPLE
            start = None
            if getattr(exc, "retryable", False):         # no headway: from EE's estimate
                from .fallback import _ee_start
                start = _ee_start(model, check_random_state(self.random_state))
            if start is not None:
                from .fallback import fall_back
                s.update(init=start)
                out, note = fall_back(model, s, exc, core)
                out["init_method"] = "EE"
                note = note.replace("restarted ", "restarted from the equilibrium-expectation "
                                    "(EE) estimate, ", 1)
            elif getattr(exc, "decay_start", None) is not None:     # (EE ran off too)
                out, note, out["init_method"] = restart(model, s, exc, core, MPLE)
            else:
                raise
        res = out["res"]
        res.info.update(init_method=out["init_method"], fallback=note)
        res.warnings.append(f"Note: {note}")
        return res

    def _run(self, model):
        """The observed-data fit from its start (see the module docstring)."""
        random_state, verbose, init, maxit = (self.random_state, self.verbose, self.init,
                                              self.maxit)
        samplesize, interval, burnin = self.samplesize, self.interval, self.burnin
        n_chains, n_jobs, proposal, backend = (self.n_chains, self.n_jobs, self.proposal,
                                               self.backend)
        steplength_margin, conv_pval, min_is_ess = (self.steplength_margin, self.conv_pval,
                                                    self.min_is_ess)
        last_boost, obs_interval, eval_loglik = (self.last_boost, self.obs_interval,
                                                 self.eval_loglik)
        checkpoint, resume, termination = self.checkpoint, self.resume, self.termination
        target_ess, min_interval, max_interval = (self.target_ess, self.min_interval,
                                                  self.max_interval)
        # a curved model works in θ through η(θ) (_curved_move); an offset view's η is
        # affine in θ: its Jacobian is constant
        curved = bool(getattr(model, "curved", False))
        if (getattr(model, "dyad_independent", False) and model.sample_space.kind == "all"
                and init is None and resume is None):
            # the likelihood factorises over the dyads and the missing ones sum out:
            # the observed-data MLE is the logistic regression on the observed dyads,
            # the MPLE, exactly (statnet returns it too, without MCMC)
            from .start import exact_mle
            res = exact_mle(model, {})
            res.info.update(n_missing=model.sample_space.n_missing,
                            missing_data="observed-data likelihood (exact: dyad-independent)")
            return res
        t0 = time.perf_counter()
        space = model.sample_space
        # no missing dyads (a direct call): the conditional "chain" is the observed network
        cond = conditional_model(model) if space.n_missing else None
        burnin = 16 * interval if burnin is None else int(burnin)
        # None: a quarter of the (adapted) interval
        obs_interval = None if obs_interval is None else int(obs_interval)
        min_interval = max(1, interval // 4) if min_interval is None else int(min_interval)
        par = model.parameterisation
        history = []
        if resume is not None:
            # the checkpoint's chains, bookkeeping and random stream: the fit goes
            # on as if it had not stopped
            st = _read_resume(resume, model, cond, n_chains)
            rng, theta, history = st["rng"], st["theta"], st["history"]
            interval, obs_interval = st["interval"], st["obs_interval"]
            theta_ok, retreats, final = st["theta_ok"], st["retreats"], st["final"]
            streak = st["streak"]
            starts_u, starts_c = st["starts_u"], st["starts_c"]
            init_method = f"checkpoint {resume}"
        else:
            rng = check_random_state(random_state)
            # statnet's start: the MPLE on a random completion of the missing dyads (a
            # curved one that ran off along a ridge: the best fixed-decay MPLE; NaN in
            # init: the curved MPLE from there), CD when no MPLE exists
            from .start import start_theta
            theta, how = start_theta(model, init, rng, completion=rng)
            init_method = how or "init"
            theta_ok, retreats, final, streak = theta, 0, False, 0
            starts_u = starts_c = None
        g_obs = model.statistics_vector()
        # statistics -> the directions of the free coefficients (offsets: a column selection);
        # a curved model keeps the canonical statistics (its steps go through η(θ))
        J = np.eye(len(g_obs)) if par.linear else par.jacobian(np.zeros(par.n_params))
        g_ref = g_obs if curved else g_obs @ J
        dep = _dependent_params(model)
        converged = False
        step = None         # "hummel": the last sample's step to the estimate
        n_before = len(history)
        cold = starts_u is None         # chains from the observed network: a full burn-in
        store = None
        if checkpoint is not None:
            from ...runtime import Checkpoint
            store = Checkpoint(checkpoint, what="MCMC-MLE checkpoint").acquire()
        it = 0
        sample = None           # (θ, chains_u, chains_c): the last finished pair of samples
        # iterations, covariance and log-likelihood: one guarded region (a Ctrl-C in any
        # of them returns the finished work, marked)
        guard = GuardedPhases()
        with guard.phase("iterations"), _released(store):
            for it in range(1, maxit + 1):
                size = samplesize * (last_boost if final else 1)
                chains_u, starts_u, acc = run_chains(model, theta, size, burnin if cold else
                                                     4 * interval, interval, starts_u,
                                                     n_chains=n_chains, n_jobs=n_jobs,
                                                     random_state=rng, proposal=proposal,
                                                     backend=backend)
                oi = obs_interval or max(8, interval // 4)
                if cond is None:
                    chains_c = [np.tile(g_obs, (len(c), 1)) for c in chains_u]
                else:
                    chains_c, starts_c, _ = run_chains(cond, theta, size, 4 * oi, oi, starts_c,
                                                       n_chains=n_chains, n_jobs=n_jobs,
                                                       random_state=rng, backend=backend)
                cold = False
                if not curved:
                    chains_u = [c @ J for c in chains_u]
                    chains_c = [c @ J for c in chains_c]
                sample = (theta.copy(), chains_u, chains_c)
                Zc = np.concatenate(chains_c) - g_ref
                zc = Zc.mean(axis=0)
                chains_z = [c - g_ref - zc for c in chains_u]
                Z = np.concatenate(chains_z)
                # the parameters' directions (curved: z J(θ), as mcmle judges its samples)
                chains_zp = [par.projector(theta)(c) for c in chains_z] if curved else chains_z
                Zp = np.concatenate(chains_zp)
                if (Zp.std(axis=0) == 0).any():
                    flat = [lab for lab, s in zip(model.labels, Zp.std(axis=0)) if s == 0]
                    if retreats >= 8:
                        raise DegenerateModelError(f"the simulated statistic(s) {flat} did not vary "
                                                   "in the MCMC sample: the model is degenerate or "
                                                   "the chain does not mix; try a starting value "
                                                   "(init=...)")
                    # a degenerate start (e.g. an MPLE in the near-complete-graph region):
                    # halve the dyad-dependent coefficients and start again from the data
                    theta = np.where(dep, theta_ok / 2.0, theta_ok)
                    theta_ok = theta
                    starts_u = starts_c = None
                    retreats += 1
                    final, streak = False, 0
                else:
                    gamma = max(hummel_step(Zp, steplength_margin), ellipsoid_step(Zp))
                    pval = hotelling_pvalue(chains_zp) if gamma >= 1.0 else 0.0
                    history.append({"iteration": n_before + it, "theta": theta.tolist(),
                                    "gamma": gamma, "pvalue": pval, "interval": interval,
                                    "samplesize": size, "acceptance": float(np.mean(acc)),
                                    "t_mean": standardised_mean(Zp).tolist()})
                    if verbose:
                        print(f"missing-data MCMC-MLE iteration {n_before + it}: step {gamma:.2f}, "
                              f"p {pval:.2f}")
                    if final and termination == "hotelling":
                        converged = True
                        break
                    if curved:
                        eta, gamma = _curved_move(Z, gamma, par, theta, min_is_ess)
                    else:
                        eta = maximize_is_loglik(Z, (1.0 - gamma) * Z.mean(axis=0))
                        eta = is_trust_region(Z, eta, min_is_ess)[0]
                    if np.max(np.abs(eta)) > MAX_STEP:        # a trust region in θ as well
                        eta = eta * (MAX_STEP / np.max(np.abs(eta)))
                        gamma = min(gamma, 0.5)
                    if curved:          # a decay running off
                        check_runoff(model, history, theta + eta, chains_u, g_obs,
                                     model.network.n_dyads)
                    _check_far(history, par)    # a chain stuck in another phase
                    if final and gamma >= 1.0:
                        # the boosted last sample's full step gives the estimate (as mcmle)
                        step = eta
                        converged = True
                        break
                    theta_ok = theta
                    theta = theta + eta
                    streak = streak + 1 if gamma >= 1.0 else 0
                    if termination == "hotelling":      # statnet's rule
                        final = gamma >= 1.0 and pval > conv_pval
                    else:
                        # mcmle's: two full steps in a row, then a boosted last sample
                        final = streak >= 2
                    if not final and not (curved and _stalled(history[-1])):
                        # (a curved chain stuck in another phase: a longer interval
                        # does not free it -- samplike.na10 seed 3 grew it to 131072)
                        interval = _adapted_interval(chains_zp, interval, target_ess,
                                                     min_interval, max_interval)
                if store is not None:
                    # the state the next iteration starts from (not written after the
                    # converged one: resuming then repeats it and returns the same fit)
                    _write_state(store, model, theta, interval, history, {
                        "obs_interval": obs_interval, "theta_ok": [float(t) for t in theta_ok],
                        "retreats": retreats, "final": bool(final), "streak": streak,
                        "starts_u": _ties_list(starts_u), "starts_c": _ties_list(starts_c),
                        "rng": rng.bit_generator.state})
        # Ctrl-C in the iterations: the last finished sample's θ, marked (the checkpoint,
        # if any, holds the last finished iteration: resume= goes on from it)
        interrupted = guard.interrupted == "iterations"
        warn = []
        if interrupted:
            it = len(history) - n_before
            warn.append(f"interrupted by the user after {it} iteration(s): " + (
                f"the estimates are the start ({init_method}), standard errors NA"
                if sample is None else "the estimates are the θ of the last finished sample")
                + "; NOT converged")
        elif not converged:
            warn.append(f"the missing-data MCMC-MLE did not converge in {maxit} iterations")
        if sample is not None:       # decays that ran off or sit at a bound
            warn.extend(par.decay_messages(sample[0] if step is None else sample[0] + step,
                                           "likelihood"))
        for msg in warn:
            if not msg.startswith("Note"):
                warnings.warn(msg, ConvergenceWarning, stacklevel=3)
        if sample is None:           # interrupted before the first sample: the start
            cov = np.full((len(theta), len(theta)), np.nan)
        else:
            # the last sample's θ (statnet's "hotelling" rule), plus its step ("hummel");
            # information there: complete-data minus missing-data covariance of the
            # last samples (importance-weighted to the estimate after a final step)
            theta, chains_u, chains_c = sample
            move = step
            if step is not None:
                move = par.eta(theta + step) - par.eta(theta) if curved else step
                theta = theta + step
            covs = []
            # (also after interrupted iterations: the last samples' covariance)
            if not guard.run("covariance", lambda: covs.append(
                    _observed_data_cov(par, theta, chains_u, chains_c, move, curved)),
                    finishing=True):
                cov = np.full((len(theta), len(theta)), np.nan)
                interrupted = True
                warn.append("interrupted by the user while computing the covariance after the "
                            "iterations: standard errors and log-likelihood are NA")
                warnings.warn(warn[-1], ConvergenceWarning, stacklevel=3)
            else:
                cov = covs[0]
        loglik = loglik_se = None
        if eval_loglik and guard.interrupted is None:
            from . import loglik as bridge
            with guard.phase("loglik"):         # Ctrl-C here keeps the fit, its loglik NA
                # (chains restarted by a retreat in the last iteration: from the data)
                loglik, loglik_se = bridge.bridge_loglik(
                    model, theta, g_obs, starts_u or [None] * n_chains, rng,
                    samplesize=max(64, samplesize // 8), interval=interval, n_jobs=n_jobs, proposal=proposal, backend=backend,
                    cond=cond, cond_starts=starts_c or [None] * n_chains,
                    cond_interval=obs_interval or max(8, interval // 4))
            if guard.interrupted == "loglik":
                loglik = loglik_se = None
                warn.append("interrupted by the user while bridge-sampling the log-likelihood: "
                            "the fit is complete, its log-likelihood is NA")
                warnings.warn(warn[-1], ConvergenceWarning, stacklevel=3)
        return ERGMResults(
            theta, cov, model.labels, method="mcmle", loglik=loglik, nobs=space.n_free,
            loglik_kind="bridge" if loglik is not None else None, loglik_mcse=loglik_se,
            converged=converged and guard.interrupted != "iterations", n_iter=it, seconds=time.perf_counter() - t0,
            se_kind="naive", warnings=warn,
            info={"history": history, "init_method": init_method, "n_missing": space.n_missing,
                  "interrupted": interrupted,
                  "missing_data": "observed-data likelihood (Handcock & Gile 2010)"},
            formula=model.formula, network=model.network, model=model,
            dyad_independent=bool(getattr(model, "dyad_independent", False)))


# a curved fit whose unconditional sample stays more than FAR_T sd from the
# conditional one, with partial steps, FAR_ITERS iterations running, sits in the
# other phase of a near-degenerate model (faux.mesa.high.na10 gwesp(fixed=FALSE)
# from its MPLE: 10-20 sd above for 30 iterations, the decay drifting up)
FAR_T, FAR_ITERS = 5.0, 4


def _stalled(h):
    """An iteration whose sample is far from the conditional one and whose step
    hardly moved (curved.check_runoff's stall, FAR_T sd)."""
    from ..common.curved import STALL_GAMMA
    return h["gamma"] < STALL_GAMMA and np.max(np.abs(h["t_mean"])) > FAR_T


def _check_far(history, par):
    last = history[-FAR_ITERS:]
    if len(last) == FAR_ITERS and all(h["gamma"] < 0.5 and np.max(np.abs(h["t_mean"])) > FAR_T
                                      for h in last):
        exc = DegenerateModelError(
            f"the missing-data MCMC-MLE made no headway: in iterations {last[0]['iteration']}-"
            f"{last[-1]['iteration']} the sample stayed more than {FAR_T:g} sd from the "
            f"conditional sample (the observed dyads with the missing ones imputed) and each "
            f"step went at most {max(h['gamma'] for h in last):.0%} of the way: the model is "
            "near-degenerate there and the chain sits in another phase")
        exc.retryable = exc.swing = True
        decays = par.decay_indices() if hasattr(par, "decay_indices") else []
        if len(decays):         # a curved fit may restart from other decays
            exc.decay_start = [history[0]["theta"][k] for k in decays]
        raise exc


def _dependent_params(model):
    """Mask of the (free) coefficients of dyad-dependent terms, decays left out: the
    ones a degenerate start halves (per parameter, not per canonical statistic)."""
    par = model.parameterisation
    dep = np.array([not t.dyad_independent for t in model.terms
                    for _ in (getattr(t, "param_labels", None) or t.labels)], dtype=bool)
    if hasattr(par, "mask"):        # an offset view: its free coefficients
        dep = dep[~par.mask]
    dep[par.decay_indices() if hasattr(par, "decay_indices") else []] = False
    return dep


def _curved_move(Z, gamma, par, theta, min_is_ess):
    """A curved model's step from ``theta`` (the importance-sampling maximiser
    through η(θ), decays capped, as in the complete-data MCMC-MLE) towards the
    pseudo-observation (1 − γ) z̄ of ``Z`` (canonical statistics centred at the
    conditional chain's mean); a capped or halved step is not a full one.
    Returns (step, γ)."""
    eta, capped = par.is_step(Z, (1.0 - gamma) * Z.mean(axis=0), theta)
    eta, halved = is_trust_region(Z, eta, min_is_ess, lambda e: par.eta_change(theta, e))
    return eta, (min(gamma, 0.5) if capped or halved else gamma)


def _observed_data_cov(par, theta, chains_u, chains_c, move, curved):
    """The estimate's covariance: the inverse of the observed-data information, the
    complete-data minus the missing-data covariance of the last samples
    (importance-weighted by ``move`` to the estimate ``theta``); NaN, with a warning,
    when that is not positive definite."""
    info_obs = _weighted_cov(chains_u, move) - _weighted_cov(chains_c, move)
    if curved:      # J' (Cov[g] - Cov[g | observed]) J at the estimate (the delta method)
        info_obs = par.information(theta, info_obs)
    try:
        cov = np.linalg.inv(info_obs)
        if np.any(np.diag(cov) <= 0):
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        cov = np.full_like(info_obs, np.nan)
        warnings.warn("the observed-data information is not positive definite: no "
                      "standard errors", ConvergenceWarning, stacklevel=4)
    return cov


@contextlib.contextmanager
def _released(store):
    """The checkpoint's lock released when the block ends, however it ends."""
    try:
        yield
    finally:
        if store is not None:
            store.release()


def _weighted_cov(chains, eta):
    """Covariance of the draws of ``chains``, importance-weighted by a move
    ``eta`` of the parameters (None: unweighted)."""
    X = np.concatenate(chains)
    w = np.full(len(X), 1.0 / len(X)) if eta is None else is_weights(X - X.mean(axis=0), eta)
    d = X - w @ X
    return (d * w[:, None]).T @ d


def _adapted_interval(chains_z, interval, target_ess, lo, hi):
    """The next iteration's interval, as MCMC-MLE adapts it (mcmle.py): aimed
    at ``target_ess`` effective draws (multivariate) and at least
    MIN_ESS_SHARE of it for every statistic, by 1/4..8 per iteration."""
    from ...sampling.chains import effective_sizes, multivariate_ess
    from .interval import MIN_ESS_SHARE, quarter_octave
    ess = max(float(effective_sizes(chains_z).min()), 1.0)
    ratio = max(target_ess / max(multivariate_ess(chains_z), 1.0),
                MIN_ESS_SHARE * target_ess / ess)
    return quarter_octave(interval * min(8.0, max(0.25, ratio)), lo, hi)


# ---------------------------------------------------------------------------
# checkpoints: the MCMC-MLE checkpoint's fields plus this fit's chains
# ---------------------------------------------------------------------------
def _ties_list(starts):
    return None if starts is None else [np.asarray(t, dtype=np.int64).reshape(-1, 2).tolist()
                                        for t in starts]


def _chain_states(value, dims):
    """The saved last states of the chains: a list of tie lists (checked
    against the network and the sample space by :func:`_read_ties`)."""
    if not isinstance(value, list) or len(value) > 2 ** 16:
        raise ValueError("not a list of the chains' states")
    return value


class MissingMCMLEState(MCMLECheckpoint):
    """Where a missing-data MCMC-MLE fit stands: the MCMC-MLE fields and
    ``missing_data_state``: the fit's bookkeeping, its chains' last states
    (unconditional and conditional) and its random generator."""

    what = "missing-data MCMC-MLE checkpoint"
    fields = {**MCMLECheckpoint.fields,
              "missing_data_state": group({
                  "obs_interval": integer(1, 2 ** 20, optional=True),
                  "theta_ok": array("float64", ("p",)),
                  "retreats": integer(0, 2 ** 20),
                  "streak": integer(0, 2 ** 20),
                  "final": flag(),
                  "starts_u": record(_chain_states, optional=True),
                  "starts_c": record(_chain_states, optional=True),
                  "rng": generator()})}


def _write_state(store, model, theta, interval, history, state):
    MissingMCMLEState(theta=theta, interval=interval, history=history,
                      missing_data_state=state).write(store, model)


def _read_ties(value, model, space, n_chains, what):
    """The saved last states of ``n_chains`` chains (None: start afresh)."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise ValueError(f"the {what} chains' states are not a list")
    if len(value) != n_chains:
        return None         # another number of chains: they start from the data
    net = model.network
    out = []
    for ties in value:
        t = np.asarray(ties if len(ties) else np.zeros((0, 2)), dtype=float)
        if t.ndim != 2 or t.shape[1] != 2 or not np.all(np.isfinite(t)) or \
                np.any(t != np.round(t)) or np.any((t < 0) | (t >= net.n)) or \
                np.any(t[:, 0] == t[:, 1]):
            raise ValueError(f"a {what} chain's state is not a list of ties between "
                             f"{net.n} nodes")
        t = t.astype(np.int64)
        from ...sampling.space import dyad_vars
        if len(np.unique(dyad_vars(net.n, net.directed, t))) != len(t):
            raise ValueError(f"a {what} chain's state lists a tie twice")
        if space.constrained:
            try:
                space.check(t)
            except NetworkError as exc:
                raise ValueError(f"a {what} chain's state is outside its sample space "
                                 f"({exc})") from None
        out.append(t)
    return out


def _read_resume(path, model, cond, n_chains):
    """What :class:`MissingDataMCMLE` goes on from: the checkpoint ``path``
    (read and checked as a :class:`MissingMCMLEState`, its sample space
    included), its chains' states and random generator.  CheckpointError if
    damaged."""
    whole = MissingMCMLEState.read(path, model)
    st = SimpleNamespace(**whole.missing_data_state)
    try:
        out = {"starts_u": _read_ties(st.starts_u, model, model.sample_space, n_chains,
                                      "unconditional"),
               "starts_c": None if cond is None else _read_ties(
                   st.starts_c, model, cond.sample_space, n_chains, "conditional")}
    except (TypeError, ValueError, OverflowError, AttributeError) as exc:
        raise CheckpointError(f"cannot resume from {path}: its chains' states are damaged "
                              f"({type(exc).__name__}: {exc})") from None
    if cond is not None and (out["starts_u"] is None) != (out["starts_c"] is None):
        out["starts_u"] = out["starts_c"] = None
    out.update(rng=st.rng, theta=whole.theta, history=whole.history, interval=whole.interval,
               obs_interval=st.obs_interval, theta_ok=st.theta_ok, retreats=st.retreats,
               final=st.final, streak=st.streak)
    return out
