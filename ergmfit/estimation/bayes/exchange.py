"""Bayesian ERGMs: the approximate exchange algorithm (Bergm's ``bergm``).

The exchange algorithm proposes θ' by population MCMC (parallel adaptive
direction sampling) and accepts it against an auxiliary network drawn at θ',
so the ratio holds no normalising constant.  Bergm's defaults are kept except
the proposal covariance (scaled from the MPLE's), a measured auxiliary chain
length and delayed acceptance on a Gaussian approximation of the posterior;
missing dyads are imputed jointly (Bergm's ``bergmM``).  The algorithm, the
defaults' reasons and the runs that checked them are in
``docs/guide/estimators/bayes_algorithm.md``; the adjusted pseudo-posterior
(``method="bayes-pl"``) is in :mod:`ergmfit.estimation.bayes.pseudo_posterior`.

References
----------
Murray, I., Ghahramani, Z. & MacKay, D. (2006). MCMC for doubly-intractable
distributions. *UAI 2006*.

Caimo, A. & Friel, N. (2011). Bayesian inference for exponential random graph
models. *Social Networks* 33, 41-55.

Christen, J. A. & Fox, C. (2005). Markov chain Monte Carlo using an
approximation. *Journal of Computational and Graphical Statistics* 14, 795-810.

Koskinen, J. H., Robins, G. L. & Pattison, P. E. (2010). Analysing exponential
random graph (p-star) models with missing data using Bayesian data
augmentation. *Statistical Methodology* 7, 366-384.

Examples
--------
>>> import ergmfit as ef
>>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
>>> post = m.fit(method="bayes", random_state=1, main_iters=200, n_chains=4)
>>> post.method
'bayes'
"""
from __future__ import annotations

import os
import time
import warnings

import numpy as np

from ...exceptions import CheckpointError, ErgmfitError, SettingsError
from ...families import family_of
from ...results.bayes import BayesResults
from ...runtime import Checkpoint, Progress, catch_interrupt
from ...sampling.space import sample_space_of
from ...terms.parameterisation import model_parameterisation
from ...utils.validation import check_random_state, seed_words
from ._bayes import exchange_block
from .state import BayesState, _GaussStage, _Imputer, _read_checkpoint, _Surrogate
from ..base import Estimator, Setting, boolean, choice, integer, number, optional_boolean
from ..common.nobs import fit_nobs

__all__ = ["Bayes", "NormalPrior", "make_prior", "start_centre", "start_population"]

_AUTO_SCALE = 0.2  # v_proposal=None: proposal noise sd = this x the MPLE's sds
#: v_proposal=None and gamma=None with a Gaussian first stage: a random walk whose covariance
#: is (_RW_SCALE^2 / p) x the stage's (the posterior's Gaussian approximation), no ADS move
#: (docs/guide/estimators/bayes_algorithm.md, "The default proposal")
_RW_SCALE = 1.8
_BERGM_GAMMA = 0.5  # gamma=None otherwise: Bergm's ADS move factor
_BLOCK = 10        # iterations per compiled call (Ctrl-C, progress and checkpoints between)


# ---------------------------------------------------------------------------
# the prior
# ---------------------------------------------------------------------------
class NormalPrior:
    """A multivariate normal prior N(mean, cov); ``logpdf`` up to a constant."""

    def __init__(self, mean, cov):
        self.mean = np.asarray(mean, dtype=float)
        self.cov = np.asarray(cov, dtype=float)
        try:
            self.chol = np.linalg.cholesky(self.cov)
        except np.linalg.LinAlgError:
            raise SettingsError("the prior covariance (prior_sigma) must be symmetric positive "
                                "definite") from None
        self.precision = np.linalg.inv(self.cov)

    def logpdf(self, theta) -> float:
        d = np.asarray(theta, dtype=float) - self.mean
        return -0.5 * float(d @ self.precision @ d)

    def grad(self, theta) -> np.ndarray:
        return -self.precision @ (np.asarray(theta, dtype=float) - self.mean)


def make_prior(p, prior=None, prior_mean=None, prior_sigma=None) -> NormalPrior:
    """The prior of a p-parameter model from the settings: ``prior`` (a
    ``(mean, sigma)`` pair, a dict with ``mean``/``sigma``, or an object with
    ``mean`` and ``cov`` such as scipy's ``multivariate_normal``) or
    ``prior_mean`` / ``prior_sigma`` (Bergm's names).  ``sigma`` may be a
    (p, p) matrix, p variances or one variance; defaults: 0 and 100 I."""
    if prior is not None:
        if prior_mean is not None or prior_sigma is not None:
            raise SettingsError("give either 'prior' or 'prior_mean'/'prior_sigma', not both")
        if isinstance(prior, dict):
            unknown = set(prior) - {"mean", "sigma", "cov"}
            if unknown:
                raise SettingsError(f"setting 'prior': unknown key(s) {sorted(unknown)}; use "
                                    "'mean' and 'sigma'")
            prior_mean, prior_sigma = prior.get("mean"), prior.get("sigma", prior.get("cov"))
        elif hasattr(prior, "mean") and hasattr(prior, "cov"):
            prior_mean, prior_sigma = prior.mean, prior.cov
        elif isinstance(prior, (tuple, list)) and len(prior) == 2:
            prior_mean, prior_sigma = prior
        else:
            raise SettingsError("setting 'prior' must be (mean, sigma), {'mean': ..., 'sigma': "
                                f"...}} or a multivariate normal, got {prior!r}")
    try:
        mean = np.zeros(p) if prior_mean is None else np.asarray(prior_mean, dtype=float)
        sigma = 100.0 * np.eye(p) if prior_sigma is None else np.asarray(prior_sigma, dtype=float)
    except (TypeError, ValueError):
        raise SettingsError("the prior mean and sigma must be numbers") from None
    if mean.ndim == 0:
        mean = np.full(p, float(mean))
    if mean.shape != (p,):
        raise SettingsError(f"the prior mean must have {p} values (one per statistic), "
                            f"got shape {mean.shape}")
    if sigma.ndim == 0:
        sigma = float(sigma) * np.eye(p)
    elif sigma.ndim == 1:
        if sigma.shape != (p,):
            raise SettingsError(f"prior_sigma as variances must have {p} values, got {sigma.size}")
        sigma = np.diag(sigma)
    if sigma.shape != (p, p):
        raise SettingsError(f"prior_sigma must be a {p} x {p} matrix, got shape {sigma.shape}")
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(sigma))):
        raise SettingsError("the prior mean and sigma must be finite")
    if not np.allclose(sigma, sigma.T):
        raise SettingsError("prior_sigma must be symmetric")
    return NormalPrior(mean, sigma)


def default_aux_iters(model) -> int:
    """The fallback length of an auxiliary chain (when the pilot of
    :func:`auxiliary_length` cannot measure one): Bergm's 1000, or 6 per dyad
    on larger networks (``docs/guide/estimators/bayes_algorithm.md``, "Tuning
    notes")."""
    net = getattr(model, "network", None)
    dyads = getattr(net, "n_dyads", None)
    return 1000 if dyads is None else max(1000, 6 * int(dyads))


#: auxiliary_length: the autocorrelation the statistics must fall to
AUX_ACF = 0.05
#: auxiliary_length: never shorter than Bergm's default
AUX_FLOOR = 1000
#: ... found as the lag of this level, extrapolated geometrically (less noisy)
AUX_LEVEL = 0.25
#: auxiliary_length with one persistent auxiliary network per chain (aux_start 'chain'): the
#: autocorrelation the statistics must fall to (bayes_algorithm.md, "Persistent auxiliary
#: networks": 0.25 left Lazega gwesp's means up to 0.2 posterior sds off)
AUX_CHAIN_ACF = 0.15


def auxiliary_length(model, proposal, rng, eta0, storage=None, n=20000, max_rounds=8,
                     target=AUX_ACF, step=None):
    """Proposals per auxiliary network when ``aux_iters`` is None, measured:
    the lag at which every statistic's autocorrelation, in a stationary
    chain at η0, has fallen to ``target`` (``AUX_ACF``, 0.05, for auxiliary chains
    started from the observed network; ``AUX_CHAIN_ACF``, 0.15, for persistent
    ones), and at least Bergm's 1,000
    (``AUX_FLOOR``) and one proposal per dyad.  A pilot thins the chain by s proposals (first dyads/50), takes
    ``n`` draws and looks among the first n/400 lags for the lag where the
    largest autocorrelation falls to ``AUX_LEVEL`` (0.25, estimated with less
    noise than 0.05), extrapolated geometrically to ``target`` (0.05: x ln 20 / ln 4); if it
    is not there, s grows 4-fold.  Returns (length, info).  A model whose chain
    does not settle within the rounds falls back to :func:`default_aux_iters`.
    Why 0.05 and why the floor: ``docs/guide/estimators/bayes_algorithm.md``,
    "Tuning notes"."""
    net = model.network
    dyads = int(net.n_dyads)
    smp, _ = fast_sampler(model, proposal, rng, eta0, storage=storage)
    eta0 = np.asarray(eta0, dtype=float)
    smp.run(eta0, 10 * dyads)                       # burn-in from the observed network
    step = max(1, dyads // 50) if step is None else max(1, int(step))
    max_lag = max(2, n // 400)      # the chain is at least 400 x the lag found
    for r in range(max_rounds):
        X = smp.sample(eta0, n, 0, step)
        moments = _moments(eta0, X)
        sd = X.std(axis=0)
        X = (X[:, sd > 0] - X[:, sd > 0].mean(axis=0)) / sd[sd > 0]
        if X.shape[1] == 0:
            break
        acf = np.array([np.max(np.mean(X[:-lag] * X[lag:], axis=0))
                        for lag in range(1, max_lag + 1)])
        below = np.flatnonzero(acf <= AUX_LEVEL)
        if len(below):
            # the lag of AUX_LEVEL (measured well) extrapolated geometrically to AUX_ACF
            lag = (int(below[0]) + 1) * step * np.log(target) / np.log(AUX_LEVEL)
            k = max(AUX_FLOOR, dyads, int(np.ceil(lag)))
            return k, {"pilot_lag": int(np.ceil(lag)), "pilot_step": step,
                       "pilot_rounds": r + 1, "_moments": moments,
                       "rule": f"lag of autocorrelation {target} (at least {AUX_FLOOR} and "
                               "one per dyad)"}
        step *= 4
    return default_aux_iters(model), {"rule": "fallback max(1000, 6 x dyads): the pilot "
                                              "found no lag"}


def start_centre(model, start=None):
    """The centre of the starting values and a rough posterior covariance:
    the MPLE and its covariance with every standard deviation capped at 1
    (``start`` and 0.01 I when ``start`` is given or the MPLE does not exist)."""
    p = model.n_params
    cov = None
    if start is None:
        from ..mple.pseudolikelihood import MPLE
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mp = MPLE().fit(model)
            centre, cov = np.asarray(mp.params, dtype=float), np.asarray(mp.cov, dtype=float)
        except (ErgmfitError, NotImplementedError, np.linalg.LinAlgError):
            centre = np.zeros(p)
        if not (np.all(np.isfinite(centre)) and cov is not None and np.all(np.isfinite(cov))):
            centre, cov = np.where(np.isfinite(centre), centre, 0.0), None
    else:
        centre = np.asarray(start, dtype=float).reshape(-1)
        if centre.shape != (p,) or not np.all(np.isfinite(centre)):
            raise SettingsError(f"setting 'start' must be {p} finite values, got {start!r}")
    if cov is None:
        cov = 0.01 * np.eye(p)
    sd = np.sqrt(np.clip(np.diag(cov), 1e-12, None))
    scale = np.minimum(sd, 1.0) / sd
    cov = cov * np.outer(scale, scale) + 1e-12 * np.eye(p)
    try:
        np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        cov = np.diag(np.minimum(sd, 1.0) ** 2)
    return centre, cov


def start_population(centre, cov, n_chains, rng):
    """Starting values of ``n_chains`` chains drawn from N(centre, cov): ``(n_chains, p)``."""
    L = np.linalg.cholesky(cov)
    return centre + rng.standard_normal((n_chains, len(centre))) @ L.T


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------
def _delayed_check(name, value):
    if isinstance(value, str) and value.lower() in ("auto", "pilot"):
        return value.lower()
    try:
        return boolean(name, value)
    except SettingsError:
        raise SettingsError(f"setting {name!r} must be 'auto', 'pilot', True or False, "
                            f"got {value!r}") from None


def _proposal_check(name, value):
    if not isinstance(value, str):
        raise SettingsError(f"setting {name!r} must be a proposal name, got {value!r}")
    return value


class Bayes(Estimator):
    """Posterior sampling by the approximate exchange algorithm with
    population MCMC (see the module docstring); returns
    :class:`~ergmfit.results.bayes.BayesResults` (``params``: posterior
    means, ``bse``: posterior sds, ``draws``: an (n_draws, p) array).

    Bergm's ``bergm(formula, prior.mean, prior.sigma, burn.in, main.iters,
    aux.iters, nchains, gamma, V.proposal, startVals, thin)`` is
    ``Bayes(prior_mean=, prior_sigma=, burnin=, main_iters=, aux_iters=,
    n_chains=, gamma=, v_proposal=, start=, thin=)``.
    """

    method = "bayes"
    supports = {"curved": True, "constraints": True, "missing": True, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary", "count"})}
    SETTINGS = (
        Setting("prior", None, None,
                "Normal prior: (mean, sigma), {'mean':, 'sigma':} or a multivariate normal."),
        Setting("prior_mean", None, None, "Prior mean (Bergm's prior.mean; default 0)."),
        Setting("prior_sigma", None, None,
                "Prior covariance: matrix, variances or one variance (default 100 I)."),
        Setting("burnin", 100, integer(0), "Iterations of every chain discarded (burn.in)."),
        Setting("main_iters", 1000, integer(1), "Iterations of every chain kept (main.iters)."),
        Setting("aux_iters", None, integer(1, allow_none=True),
                "MH proposals per auxiliary network (aux.iters; None: measured by a pilot, "
                "see auxiliary_length)."),
        Setting("n_chains", None, integer(1, allow_none=True),
                "Chains of the population (nchains; default 2 x number of parameters)."),
        Setting("gamma", None, number(0.0, allow_none=True),
                "ADS move factor (gamma; None: 0 -- a random walk on the posterior's Gaussian "
                "approximation -- where delayed acceptance fits one and v_proposal is None, "
                "else Bergm's 0.5)."),
        Setting("v_proposal", None, number(0.0, lo_open=True, allow_none=True),
                "Variance of the proposal noise, every parameter (V.proposal; None: scaled)."),
        Setting("start", None, None, "Centre of the starting values (default: the MPLE)."),
        Setting("thin", 1, integer(1), "Keep every thin-th iteration."),
        Setting("proposal", "auto", _proposal_check,
                "MH proposal of the auxiliary networks ('auto', 'tnt', ...)."),
        Setting("checkpoint", None, None, "Save the state to this .npz file (and on Ctrl-C)."),
        Setting("checkpoint_every", 60.0, number(0.0), "Seconds between checkpoints."),
        Setting("resume", None, None, "Continue from this checkpoint file."),
        Setting("progress", None, optional_boolean, "Progress bar (default: as verbose)."),
        Setting("aux_start", "auto", choice("auto", "observed", "last", "chain"),
                "Start of each auxiliary chain: 'observed' (Bergm), 'last' (the last "
                "auxiliary network of any chain), 'chain' (each chain's own last "
                "auxiliary network; random-walk chains only) or 'auto' ('chain' where the "
                "default random walk runs, else 'observed')."),
        Setting("missing_update", None, integer(1, allow_none=True),
                "Missing dyads: MH proposals of each imputation step (missingUpdate; "
                "None: the number of missing dyads)."),
        Setting("delayed", "auto", _delayed_check,
                "Delayed acceptance: screen proposals first on a Gaussian fitted to the pilot "
                "('pilot'; 'auto': where it applies) or the adjusted pseudo-posterior (True)."),
    )

    def _finish_settings(self):
        if self.prior is not None and (self.prior_mean is not None or self.prior_sigma is not None):
            raise SettingsError("give either 'prior' or 'prior_mean'/'prior_sigma', not both")
        for name in ("checkpoint", "resume"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, (str, os.PathLike))
                                  or not str(os.fspath(v)).endswith(".npz")):
                raise SettingsError(f"setting {name!r} must be a path ending in .npz, got {v!r}")

    def fit(self, model) -> BayesResults:
        """Sample the posterior of ``model``'s parameters."""
        t0 = time.perf_counter()
        c0 = time.process_time()
        p = model.n_params
        if p == 0:
            raise SettingsError("the model has no parameters to sample")
        family = family_of(model)
        if self.delayed is True and not family.logistic_pseudo_likelihood:
            raise SettingsError(f"delayed=True screens proposals with the logistic "
                                f"pseudo-likelihood of binary ties; the {family.name} family's "
                                f"states are {family.state}: use delayed='auto' or 'pilot' (a "
                                "Gaussian first stage) or delayed=False")
        prior = make_prior(p, self.prior, self.prior_mean, self.prior_sigma)
        H = self.n_chains if self.n_chains is not None else 2 * p
        n_total = self.burnin + self.main_iters
        rng = check_random_state(self.random_state)
        centre, cov0 = start_centre(model, self.start)
        if self.v_proposal is None:     # scaled to the model: a tenth of the MPLE's sds
            eps_cov = _AUTO_SCALE ** 2 * cov0
        else:                           # Bergm's V.proposal: the same variance for every parameter
            eps_cov = self.v_proposal * np.eye(p)
        state = None
        if self.resume is not None:
            state = _read_checkpoint(self.resume, model, H, n_total)
            # the iterations continue the saved generator where it stood, as the
            # uninterrupted run's did; the set-up below (checks, samplers) draws from a copy
            run_rng = np.random.default_rng()
            run_rng.bit_generator.state = state["rng"]
            rng = np.random.default_rng()
            rng.bit_generator.state = state["rng"]
            theta, out, accepted, it0 = (state["theta"], state["out"], state["accepted"],
                                         state["it"])
        else:
            # the chains start in the parameters' box
            theta = model.parameterisation.project(start_population(centre, cov0, H, rng))
            out = np.empty((n_total, H, p))
            accepted = np.zeros(H, dtype=np.int64)
            it0 = 0
            run_rng = rng
        eta0 = model.eta(centre)
        separation = _check_information(model, self.proposal, rng, eta0)
        sampler, storage = fast_sampler(model, self.proposal, rng, eta0)
        aux_info = {"rule": "aux_iters"}
        if self.aux_iters is not None:
            aux = self.aux_iters
        elif state is not None and state.get("aux_iters"):
            aux = int(state["aux_iters"])       # a resumed run keeps its length
        elif self.delayed in ("auto", "pilot") and _linear_unconstrained(model):
            aux = None          # measured at the first stage's mode (_gauss_first_stage)
        else:
            aux, aux_info = auxiliary_length(model, self.proposal, rng, eta0, storage)
            if self.burnin > 0 and aux > default_aux_iters(model):
                # the burn-in's draws are discarded and the MPLE often mixes more slowly
                # than the posterior (bayes_algorithm.md): the old default caps it
                aux_info["capped_from"] = aux
                aux = default_aux_iters(model)
        run = _ExchangeRun(model, sampler, prior, self, run_rng, theta, out, accepted)
        run.aux_iters, run.storage, run.aux_info = aux, storage, aux_info
        plain = _linear_unconstrained(model)
        # one persistent auxiliary network per chain where the chains will be the default
        # random walk (fitted by _gauss_first_stage): shorter auxiliary chains measured to a
        # higher autocorrelation (AUX_CHAIN_ACF; bayes_algorithm.md, "Persistent auxiliary
        # networks")
        run.aux_start = self.aux_start
        if self.aux_start == "auto":
            run.aux_start = ("chain" if self.v_proposal is None and self.gamma is None and plain
                             and self.delayed in ("auto", "pilot") else "observed")
        if model.sample_space.conditional() is not None:       # missing dyads: imputed
            if self.delayed in (True, "pilot"):
                raise SettingsError(f"delayed={self.delayed!r} with missing dyads is not "
                                    "implemented")
            run.imputer = _Imputer(model, theta.shape[0], self.missing_update, rng,
                                   *((state["completions"], state["completion_gx"])
                                     if state is not None and "completions" in state else ()))
        if self.delayed is True and (run.eta is not None or run.python_loop):
            # (the first stage is evaluated by the compiled loop only: elsewhere it was
            # ignored, and under a constraint reported as used)
            raise SettingsError("delayed=True needs a model with linear terms (no curved "
                                "term, no offset() term) and no constraint; use delayed="
                                "'auto' or False")
        if self.delayed is True:
            run.surrogate = _Surrogate(model, rng, self.verbose, saved=(
                state.get("surrogate") if state is not None else None))
        elif self.delayed == "pilot" and not plain:
            raise SettingsError("delayed='pilot' needs a model with linear terms, no "
                                "constraint and no missing dyads")
        elif self.delayed in ("auto", "pilot") and plain:
            if state is not None and "stage_prec" in state:      # as it was when saved
                run.surrogate = _GaussStage(state["stage_prec"], state["stage_mu"])
            else:
                _gauss_first_stage(self, run, model, prior, rng, eta0,
                                   AUX_CHAIN_ACF if run.aux_start == "chain" else AUX_ACF)
        if self.aux_iters is None and it0 <= self.burnin and self.burnin > 0 \
                and run.aux_start != "chain":
            def remeasure(draws):
                # the length for the kept iterations, measured at the mean of the burn-in's
                # second half (the MPLE and the likelihood's mode may mix more slowly than
                # the posterior: bayes_algorithm.md, "Tuning notes")
                k, info = auxiliary_length(model, self.proposal, run.rng,
                                           model.eta(draws.mean(axis=0)), storage,
                                           step=max(1, run.aux_info.get("pilot_step", 2) // 2))
                info["burnin_aux_iters"] = run.aux_iters
                info.pop("_moments", None)
                if k > default_aux_iters(model):    # see the module docstring
                    info["capped_from"], k = k, default_aux_iters(model)
                run.aux_iters, run.aux_info = k, info
            run.remeasure = remeasure
        aux_info.pop("_moments", None)
        run.gamma = _BERGM_GAMMA if self.gamma is None else self.gamma
        if self.v_proposal is None and self.gamma is None:
            if state is not None and "proposal_cov" in state:       # as it was when saved
                run.proposal_cov = state["proposal_cov"]
            elif run.proposal_stage is not None:
                # independent random walks shaped and scaled by the posterior's Gaussian
                # approximation (the pilot's, used by delayed acceptance or not): about 2.5x
                # the effective draws per CPU s of ADS on Lazega (bayes_algorithm.md, "The
                # default proposal"); the posterior is the same whatever the proposal
                run.proposal_cov = _RW_SCALE ** 2 / p * np.linalg.inv(run.proposal_stage.prec)
            if run.proposal_cov is not None:
                eps_cov, run.gamma = run.proposal_cov, 0.0
            if run.proposal_stage is not None and state is None and self.start is None:
                # the chains start in the Gaussian instead of around the MPLE: smaller steps
                # than ADS's from the MPLE would take long to cross a prior-dominated gap
                theta[:] = model.parameterisation.project(start_population(
                    run.proposal_stage.mu, np.linalg.inv(run.proposal_stage.prec), H, rng))
        run.eps_chol = np.linalg.cholesky(eps_cov)
        if run.aux_start == "chain":
            if run.gamma != 0 or run.imputer is not None or run.python_loop:
                if self.aux_start == "chain":
                    raise SettingsError("aux_start='chain' needs independent random-walk "
                                        "chains (gamma=0), one-dyad moves and no missing dyads")
                run.aux_start = "observed"      # 'auto' without the random walk
            else:
                # every chain's network: the observed one, or where the checkpoint left it
                # (compiled afresh with its sampler at every block: _chain_block)
                obs = model.chain_end(model.compiled())
                run.chain_ends = (list(state["aux_starts"]) if state is not None
                                  and "aux_starts" in state else [obs] * H)
        q = len(model.stat_labels)          # (p for the linear models of the compiled loop)
        run.gaux = {"observed": None, "last": np.zeros(q),
                    "chain": np.zeros((H, q))}[run.aux_start]
        if state is not None:
            _check_resumed_auxiliary(self.resume, state, run.aux_start, H)
            if run.aux_start == "chain":
                run.gaux = np.ascontiguousarray(state["aux_g"], dtype=float)
            elif run.aux_start == "last":       # the shared auxiliary network, where it was
                run.aux_end = state["aux_starts"][0]
                run.gaux = np.ascontiguousarray(state["aux_g"][0], dtype=float)
        show = self.verbose if self.progress is None else self.progress
        if self.checkpoint is not None:
            with Checkpoint(self.checkpoint, what="Bayes checkpoint") as run.checkpoint:
                it, interrupted = run.iterate(it0, n_total, show)
                run.save(it)
        else:
            it, interrupted = run.iterate(it0, n_total, show)
        if separation is not None and it > self.burnin and not interrupted:
            _confirm_separation(model, self.proposal, run.rng, separation,
                                run.out[self.burnin:it].reshape(-1, p).mean(axis=0))
        return _build_results(model, self, prior, run, it, interrupted, t0, c0)


class _ExchangeRun:
    """The state of a population-MCMC exchange run and its iteration loop."""

    def __init__(self, model, sampler, prior, est, rng, theta, out, accepted):
        from ...terms.parameterisation import Identity
        self.model, self.sampler, self.prior, self.est, self.rng = model, sampler, prior, est, rng
        self.theta, self.out, self.accepted = theta, out, accepted
        param = getattr(model, "parameterisation", None)
        self.eta = (None if param is None or isinstance(param, Identity) else model.eta)
        self.last_save = time.perf_counter()
        # a space whose moves change several dyads at once (ConstrainedSampler): the
        # auxiliary draws go through the sampler's own cd_sample
        self.python_loop = not sample_space_of(model).moves_one_dyad
        self.checkpoint = None  # a runtime.Checkpoint while one is written
        self.surrogate = None   # a _GaussStage or _Surrogate: delayed acceptance
        self.imputer = None     # an _Imputer: missing dyads
        self.remeasure = None   # called with the population at the end of the burn-in
        self.storage = None     # the auxiliary sampler's two-path storage ('held'/'default')
        self.passed = np.zeros(theta.shape[0], dtype=np.int64)
        self.eps_chol = None    # Cholesky factor of the covariance of the proposal noise
        self.gamma = est.gamma  # the ADS move factor in use (fit() resolves None)
        self.proposal_stage = None  # the pilot's Gaussian approximation of the posterior
        self.proposal_cov = None    # the random walk's covariance (gamma None), checkpointed
        # Bayes.fit resolves aux_start and sets gaux: None ('observed'), g(current
        # auxiliary network) - g(y0) carried across draws ('last'; the Python loop reads the
        # sampler's own delta, which starts at 0 too), one such row per chain ('chain')
        self.aux_start = est.aux_start
        self.gaux = None
        # aux_start 'chain': every chain's network (what model.chain_end gives) where the
        # last finished block left it, and that block's samplers; a block compiles the
        # networks afresh and makes their samplers with seeds from the run's generator, so
        # that a checkpoint (the networks, gaux and the generator) resumes the run draw for
        # draw
        self.chain_ends = None
        self.chain_samplers = None
        # the other modes ('observed', 'last'): one auxiliary sampler for all chains, made
        # afresh at every block in the same way, on the observed network ('observed') or on
        # the network the last block left (``aux_end``; None: the observed one), with
        # ``aux_base`` the block's starting g(x) - g(y0) ('last'); missing dyads: the
        # imputer's samplers too (_Imputer.restart)
        self.aux_end = None
        self.aux_base = None

    def iterate(self, it0, n_total, show):
        """Run iterations it0 .. n_total-1 in blocks of ``_BLOCK`` (the random
        numbers of a block are drawn first); returns (iterations done, interrupted)."""
        est, rng, prior = self.est, self.rng, self.prior
        theta, out, accepted = self.theta, self.out, self.accepted
        H, p = theta.shape
        L = self.eps_chol
        mu, prec = prior.mean, np.ascontiguousarray(prior.precision)
        lp = np.array([prior.logpdf(t) for t in theta])
        sur, gauss, ls = None, False, None
        bar = Progress(n_total, "bayes", enabled=show)
        bar.update(it0)
        it = it0
        with bar, catch_interrupt() as stop:     # Ctrl-C: the block under way is lost
            while it < n_total:
                stop.check()                    # a Ctrl-C lost in a finalizer
                if it == est.burnin and self.remeasure is not None:
                    # the auxiliary length at the second half of the burn-in's draws
                    self.remeasure(out[it // 2:it].reshape(-1, p))
                m = min(_BLOCK, n_total - it, (est.burnin - it) if it < est.burnin else _BLOCK)
                if self.surrogate is not sur:       # new (or refitted at the burn-in's end)
                    sur = self.surrogate
                    gauss = isinstance(sur, _GaussStage)
                    ls = np.array([sur.logpdf(t) if gauss else sur.loglik(t) for t in theta]
                                  if sur is not None else [])
                # where the block begins: a Ctrl-C in it returns here (the generator, the
                # population, the counts), so that a checkpoint resumes with the same block
                kept = rng.bit_generator.state, theta.copy(), accepted.copy(), self.passed.copy()
                g_kept = None if self.gaux is None else self.gaux.copy()
                eps = rng.standard_normal((m, H, p)) @ L.T
                logu = np.log(rng.random((m, H)))
                r1 = rng.integers(0, max(H - 1, 1), (m, H))
                r2 = rng.integers(0, max(H - 2, 1), (m, H))
                args = (theta, lp, out[it:it + m], accepted, eps, logu, r1, r2)
                try:
                    if self.chain_ends is None:
                        self._fresh_samplers()
                    if self.imputer is not None:
                        self._missing_block(*args)
                    elif self.chain_ends is not None:
                        self._chain_block(*args, sur, gauss, ls, prec, mu)
                    elif sur is not None and not self.python_loop:
                        first = ((sur.prec, sur.mu) if gauss else (sur.XW, sur.c, sur.s, sur.n))
                        exchange_block(self.sampler, *args, float(self.gamma),
                                       int(self.aux_iters), prec, mu,
                                       first + (ls, np.log(rng.random((m, H))), self.passed),
                                       self.gaux)
                    elif self.eta is None and not self.python_loop:
                        exchange_block(self.sampler, *args, float(self.gamma),
                                       int(self.aux_iters), prec, mu, None, self.gaux)
                    else:
                        self._python_block(*args)
                except KeyboardInterrupt:       # the block is lost
                    rng.bit_generator.state, theta[:], accepted[:], self.passed[:] = kept
                    if g_kept is not None:
                        self.gaux[:] = g_kept
                    if self.imputer is not None:
                        self.imputer.rollback()
                    raise
                self._block_done()
                it += m
                bar.update(m)
                if (self.checkpoint is not None
                        and time.perf_counter() - self.last_save >= est.checkpoint_every):
                    self.save(it)
        if stop.interrupted and it > 0:
            theta[:] = out[it - 1]      # the population after the last finished iteration
        return it, stop.interrupted

    def _fresh_samplers(self):
        """The samplers of a block in the modes other than 'chain': the auxiliary sampler
        compiled afresh on its network (the observed one, or the one the last block left
        with aux_start 'last') and seeded from the run's generator, and the imputer's
        samplers likewise (missing dyads): the block's draws then depend only on what a
        checkpoint holds (the generator, the networks, their statistics), so that a resumed
        run continues draw for draw.  (A sampler's own generator cannot be saved.)"""
        held = self.storage == "held"
        self.sampler = sampler_on(self.model, self.est.proposal,
                                  compiled_on(self.model, held, self.aux_end),
                                  seed_words(self.rng))
        self.aux_base = None if self.gaux is None else self.gaux.copy()
        if self.imputer is not None:
            self.imputer.restart(self.rng)

    def _block_done(self):
        """After a finished block: where the shared auxiliary network and the completions
        stand (the starts of the next block's samplers)."""
        if self.chain_ends is None and self.aux_start == "last":
            self.aux_end = self.model.chain_end(self.sampler.model)
        if self.imputer is not None:
            self.imputer.commit()

    def _chain_block(self, theta, lp, out, accepted, eps, logu, r1, r2, sur, gauss, ls, prec,
                     mu):
        """Iterations with one persistent auxiliary network per chain
        (``aux_start='chain'``): the chains are independent random walks
        (gamma 0), so each runs the block alone on its own network.  The block
        compiles every chain's network afresh (the order of ties and neighbours
        then depends on the network only) and makes its sampler (a fresh
        proposal, the generator seeded from the run's): the block's draws depend
        on nothing a checkpoint lacks.  Ctrl-C leaves the networks where the
        block began."""
        m, c = len(out), np.ascontiguousarray     # (the compiled loop takes C-contiguous arrays)
        H = theta.shape[0]
        logu1 = np.log(self.rng.random((m, H))) if sur is not None else None
        words = self.rng.integers(0, 2**64, size=(H, 4), dtype=np.uint64)
        held = self.storage == "held"
        self.chain_samplers = [
            sampler_on(self.model, self.est.proposal, compiled_on(self.model, held, end), words[h])
            for h, end in enumerate(self.chain_ends)]
        g0 = self.gaux.copy()
        try:
            for h, smp in enumerate(self.chain_samplers):
                sl = slice(h, h + 1)
                first = None
                if sur is not None:         # the chain's own slices, updated in place
                    stage = (sur.prec, sur.mu) if gauss else (sur.XW, sur.c, sur.s, sur.n)
                    first = stage + (ls[sl], c(logu1[:, sl]), self.passed[sl])
                out_h = np.empty((m, 1, theta.shape[1]))
                exchange_block(smp, theta[sl], lp[sl], out_h, accepted[sl], c(eps[:, sl]),
                               c(logu[:, sl]), c(r1[:, sl]), c(r2[:, sl]), 0.0,
                               int(self.aux_iters), prec, mu, first, self.gaux[h])
                out[:, h] = out_h[:, 0]
        except KeyboardInterrupt:
            self.gaux[:] = g0
            raise
        self.chain_ends = [self.model.chain_end(smp.model) for smp in self.chain_samplers]

    def _missing_block(self, theta, lp, out, accepted, eps, logu, r1, r2):
        """Iterations with missing dyads (Bergm's ``bergmM``; Koskinen, Robins
        & Pattison 2010): every chain h carries a completed network x_h; one
        iteration is the exchange move of every θ_h against g(x_h), then an
        imputation step of every x_h (``missing_update`` MH proposals that
        toggle only the missing dyads, at θ_h)."""
        imp = self.imputer
        compiled = self.eta is None and not self.python_loop
        for t in range(len(out)):
            sl = (theta, lp, out[t:t + 1], accepted, eps[t:t + 1], logu[t:t + 1], r1[t:t + 1],
                  r2[t:t + 1])
            if compiled:
                exchange_block(self.sampler, *sl, float(self.gamma), int(self.aux_iters),
                               np.ascontiguousarray(self.prior.precision), self.prior.mean,
                               None, self.gaux, imp.gx)
            else:
                self._python_block(*sl, gx=imp.gx)
            imp.update(theta, self.eta)

    def _python_block(self, theta, lp, out, accepted, eps, logu, r1, r2, gx=None):
        """The same iterations as ``exchange_block`` in Python, with the
        natural parameters η(θ) of a curved model."""
        est, sampler, prior = self.est, self.sampler, self.prior
        eta = self.eta if self.eta is not None else (lambda t: t)
        box = getattr(self.model, "parameterisation", None) if self.eta is not None else None
        H = theta.shape[0]
        for t in range(len(out)):
            for h in range(H):
                th = theta[h]
                if H >= 3:
                    a = r1[t, h] + (r1[t, h] >= h)
                    lo, hi = min(h, a), max(h, a)
                    b = r2[t, h]
                    b += b >= lo
                    b += b >= hi
                    prop = th + self.gamma * (theta[a] - theta[b]) + eps[t, h]
                else:
                    prop = th + eps[t, h]
                if box is not None and not np.array_equal(box.project(prop), prop):
                    continue        # outside the parameters' box: prior 0, rejected
                lp_new = prior.logpdf(prop)
                e_new = eta(prop)
                if self.gaux is None:       # from the observed network, undone afterwards
                    delta = sampler.cd_sample(e_new, 1, self.aux_iters)[0]     # g(y') - g(y)
                else:                       # from the last auxiliary network
                    sampler.run(e_new, self.aux_iters)
                    # g(y') - g(y0): the block's sampler started at the last block's network
                    delta = self.aux_base + sampler.delta
                    self.gaux[:] = delta
                if gx is not None:          # missing dyads: against the completed network
                    delta = delta - gx[h]
                logr = lp_new - lp[h] - float((e_new - eta(th)) @ delta)
                if logu[t, h] < logr:
                    theta[h] = prop
                    lp[h] = lp_new
                    accepted[h] += 1
            out[t] = theta

    def save(self, it):
        """Write the state after ``it`` iterations to the checkpoint (atomically)."""
        extra = {}
        if isinstance(self.surrogate, _GaussStage):
            extra.update(stage_prec=self.surrogate.prec, stage_mu=self.surrogate.mu)
        elif isinstance(self.surrogate, _Surrogate):
            extra.update(self.surrogate.arrays())
        if self.proposal_cov is not None:
            extra.update(proposal_cov=self.proposal_cov)
        if self.imputer is not None:
            extra.update(self.imputer.arrays())
        if self.chain_ends is not None or self.aux_start == "last":
            # every chain's auxiliary network ('chain'), or the shared one ('last')
            family = family_of(self.model)
            if self.chain_ends is not None:
                ends, g = self.chain_ends, self.gaux
            else:
                ends = [self.aux_end if self.aux_end is not None
                        else self.model.chain_end(self.model.compiled())]
                g = self.gaux[None, :]
            ends = [family.chain_arrays(end) for end in ends]
            extra.update(aux_ties=np.concatenate([t for t, _ in ends]),
                         aux_counts=np.array([len(t) for t, _ in ends], dtype=np.int64),
                         aux_g=g)
            if ends[0][1] is not None:
                extra.update(aux_values=np.concatenate([v for _, v in ends]))
        BayesState(n_total=self.out.shape[0], it=it, rng=self.rng, aux_iters=self.aux_iters,
                   theta=self.theta, out=self.out[:it], accepted=self.accepted,
                   **extra).write(self.checkpoint, self.model)
        self.last_save = time.perf_counter()


def _check_resumed_auxiliary(path, state, aux_start, H):
    """Refuse a checkpoint whose auxiliary networks are not the ones ``aux_start`` carries
    (one per chain for 'chain', one shared for 'last', none for 'observed')."""
    have = len(state["aux_starts"]) if "aux_starts" in state else 0
    want = {"observed": 0, "last": 1, "chain": H}[aux_start]
    if have == want:
        return
    said = {0: "no auxiliary network (aux_start 'observed', or 'last' written before the "
               "shared network was saved)", 1: "one shared auxiliary network (aux_start 'last')"}
    held = said.get(have, f"{have} auxiliary networks, one per chain (aux_start 'chain')")
    raise CheckpointError(
        f"cannot resume: the checkpoint {path} holds {held}, but these settings run "
        f"aux_start={aux_start!r} ({want} network(s)); resume with the settings of the run "
        "that wrote it")


def compiled_on(model, held, start=None):
    """The compiled model of ``model`` on a fresh copy of the observed network (or of
    ``start``, what ``model.sampler(start=)`` takes), its two-path counts held in
    memory (``held``) or the network state's default storage."""
    if not held:
        return model.compiled(start)
    from ...network._state import NetworkState
    from ...terms._ergm import ERGMModel
    net = model.network
    return ERGMModel(NetworkState(net.n, net.directed, net.ties if start is None else start,
                                  cache_degree=0.0), model.kernels)


def sampler_on(model, proposal, cm, words):
    """A sampler of ``model``'s space on the compiled model ``cm`` (which it advances in
    place) with a fresh ``proposal`` and its generator seeded by ``words``."""
    space = model.sample_space
    smp = space.make_sampler(cm, space.proposal(proposal, cm, model), words)
    smp.set_guard(reference_ties=model.network.n_ties)
    smp.description = model._guard_name()
    return smp


def fast_sampler(model, proposal, rng, eta0, pilot=20000, storage=None):
    """The auxiliary networks' sampler, on the faster of two storages of the
    two-path counts: the network state's default (counted on demand below a
    mean degree of 32 on networks of more than 64 nodes, a choice made for
    large networks) or held in memory
    (``cache_degree=0``; on a small dense network the counts fit in the CPU
    cache).  The draws are the same
    either way (the counts are exact), so only the speed depends on the
    choice, made by timing ``pilot`` proposals of each at ``eta0`` (best of 3),
    unless ``storage`` ('held' or 'default') names it.
    Returns (sampler, 'held' or 'default')."""
    from ...utils.validation import seed_words
    seed = seed_words(rng)
    net = model.network
    caching = any(getattr(k, "caches", 0) for k in model.kernels)

    def make(held, words):
        return sampler_on(model, proposal, compiled_on(model, held), words)

    from ...network.network import SMALL_NETWORK
    held = storage == "held"
    # networks of at most SMALL_NETWORK nodes hold their counts already
    # (ERGM.compiled): both storages would be the same, so no pilot
    if storage is None and caching and SMALL_NETWORK < net.n <= 4096:
        model.sample_space.resolve_proposal(proposal, model)
        eta0 = np.asarray(eta0, dtype=float)
        best = {}
        for h in (False, True):
            smp = make(h, seed)
            times = []
            for _ in range(3):
                c = time.process_time()
                smp.run(eta0, pilot)
                times.append(time.process_time() - c)
            best[h] = min(times)
        held = best[True] < 0.9 * best[False]
    return make(held, seed), ("held" if held else "default")


# at most this many dyads: the observed network's design is checked before the run
_INFORMATION_CHECK_MAX_DYADS = 10**6
# the sample that looks for statistics a constrained space never changes
_DEAD_CHECK_DRAWS = 200


def _check_information(model, proposal, rng, eta0):
    """Refuse, before the run, a model whose data carry no information about a
    parameter, as MCMC-MLE, EE, CD and MPLE refuse it (with their checks,
    :mod:`ergmfit.estimation.mple.existence`): a statistic that no free dyad
    changes or statistics that are linearly dependent (DegenerateModelError,
    the MPLE's message); a dyad-independent model whose observed statistics lie
    on the boundary of the attainable ones, so the likelihood keeps increasing
    along a direction d (an empty or complete network; no MLE, and the
    posterior along d is the prior's tail, which the chains do not explore).
    Under a constrained sample space (``~degrees``, ``~edges``, ...), where the
    observed design does not apply, a short chain at ``eta0`` looks for
    statistics that never change (``edges`` under ``~degrees``).  Missing dyads
    and networks of more than 10^6 dyads skip these checks.  Returns the
    separation direction d of a dyad-dependent model (None if there is none):
    the run's sample confirms it (:func:`_confirm_separation`)."""
    from ...exceptions import DegenerateModelError
    from ..mple.existence import nonexistence_error, observed_design
    space = model.sample_space
    n_dyads = getattr(model.network, "n_dyads", None)
    if n_dyads is None or n_dyads > _INFORMATION_CHECK_MAX_DYADS \
            or space.conditional() is not None:
        return None         # (missing dyads: the likelihood is the completions' marginal)
    od = observed_design(model, model.compiled())      # dead or collinear: raises
    if od is not None:
        d = od.direction
        if d is not None and bool(getattr(model, "dyad_independent", False)):
            raise nonexistence_error(list(model.labels), d, "the exchange algorithm")
        return d
    if space.moves_one_dyad:
        return None         # (the constraints' own moves may keep a statistic fixed)
    smp, _ = fast_sampler(model, proposal, rng, eta0, storage="default")
    eta0 = np.asarray(eta0, dtype=float)
    dyads = int(n_dyads)
    X = smp.sample(eta0, _DEAD_CHECK_DRAWS, 10 * dyads, max(1, dyads // 10))
    dead = [lab for lab, moved in zip(model.labels, np.any(X != 0, axis=0)) if not moved]
    if dead:
        raise DegenerateModelError(
            f"the statistic(s) {dead} never changed in {_DEAD_CHECK_DRAWS} networks drawn from "
            f"the sample space ({space.describe()}): the constraints fix them, so the data "
            "carry no information about their coefficients (the posterior would be the "
            "prior). Remove the term(s) from the formula (or fix the coefficient with offset())")
    return None


def _confirm_separation(model, proposal, rng, d, theta):
    """The observed design's separation direction d of a dyad-dependent model,
    confirmed as EE confirms it: every network simulated at the posterior mean
    ``theta`` lies on the observed side of d (the observed statistics on the
    boundary of the convex hull of the sample) -- then no MLE exists, the
    likelihood keeps increasing along d and the posterior there is the prior's
    tail: DegenerateModelError."""
    from ..mple.existence import nonexistence_error, on_boundary
    eta = model.eta(theta)
    smp, _ = fast_sampler(model, proposal, rng, eta, storage="default")
    dyads = int(model.network.n_dyads)
    X = smp.sample(eta, _DEAD_CHECK_DRAWS, 10 * dyads, max(1, dyads // 10))
    if on_boundary(X, np.asarray(d, dtype=float)):
        raise nonexistence_error(list(model.labels), np.asarray(d, dtype=float),
                                 "the exchange algorithm", theta)


def _linear_unconstrained(model) -> bool:
    """Linear terms (θ = η), one-dyad moves (no constraint) and no missing dyads:
    the models of the compiled loop's delayed acceptance."""
    space = model.sample_space
    return (model_parameterisation(model).linear and space.moves_one_dyad
            and space.conditional() is None)


def _gauss_first_stage(est, run, model, prior, rng, eta0, target=AUX_ACF, max_step=3.0):
    """Delayed acceptance's Gaussian first stage (:class:`_GaussStage`), fitted
    in two pilots: the first at the MPLE (the length pilot already run, or
    :func:`pilot_moments`) gives a Gaussian whose mode is one Newton step of
    the likelihood from there (at most ``max_step`` of its sds); the second, at
    that mode, measures the auxiliary length (when ``aux_iters`` is None) and
    fits the stage used by every iteration.  Under ``delayed='auto'`` the
    second pilot's statistics must be near-Gaussian, else the run stays plain."""
    measure = run.aux_iters is None
    first, guess = pilot_moments(model, est.proposal, rng, eta0, run.storage,
                                 default_aux_iters(model) if measure else run.aux_iters,
                                 n=500 if measure else 1000)
    stage = _GaussStage.fit(prior, first, "pilot")
    step = stage.mu - first[0]
    r = float(np.sqrt(step @ stage.prec @ step))
    theta1 = first[0] + step * min(1.0, max_step / max(r, 1e-300))
    if measure:
        # (the burn-in's length and the first stage's moments: half the usual draws)
        k, info = auxiliary_length(model, est.proposal, rng, theta1, run.storage, n=10000,
                                   step=None if guess is None else 2 * guess, target=target)
        moments = info.pop("_moments", None)
        info["pilot_at"] = "the mode of a Gaussian fitted at the MPLE"
        if est.burnin > 0 and k > default_aux_iters(model):
            info["capped_from"] = k     # the burn-in's length, as after the MPLE's pilot
            k = default_aux_iters(model)
        run.aux_iters, run.aux_info = k, info
        if moments is None:         # no lag found: plain exchange at the fallback length
            return
    else:
        moments, _ = pilot_moments(model, est.proposal, rng, theta1, run.storage,
                                   run.aux_iters, n=1000)
    run.proposal_stage = _GaussStage.fit(prior, moments, "pilot")
    run.surrogate = _GaussStage.fit(prior, moments, est.delayed)


def pilot_moments(model, proposal, rng, eta0, storage, aux, n=2000):
    """The mean and covariance of g(x) − g(y) at ``eta0`` from a pilot chain
    (``n`` draws ``aux``/4 proposals apart after 10 proposals per dyad):
    for :class:`_GaussStage` (see :func:`_moments`), and a first ``step`` for
    :func:`auxiliary_length` from the lag-1 autocorrelation (None if none)."""
    smp, _ = fast_sampler(model, proposal, rng, eta0, storage=storage)
    eta0 = np.asarray(eta0, dtype=float)
    smp.run(eta0, 10 * int(model.network.n_dyads))
    interval = max(1, int(aux) // 4)
    X = smp.sample(eta0, n, 0, interval)
    # a first step for auxiliary_length: its lag of AUX_LEVEL at about index 30
    Z = (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
    r1 = float(np.max(np.mean(Z[:-1] * Z[1:], axis=0), initial=0.0))
    guess = (interval * np.log(AUX_LEVEL) / np.log(r1) / 30) if 0 < r1 < 1 else None
    return _moments(eta0, X), guess


def _moments(eta0, X):
    """(eta0, mean, covariance, largest |skewness|, largest |excess kurtosis|)
    of the pilot's g(x) − g(y), the last two over the whitened statistics."""
    X = np.asarray(X, dtype=float)
    cov = np.cov(X, rowvar=False).reshape(X.shape[1], -1)
    w, V = np.linalg.eigh(cov)
    keep = w > 1e-9 * max(float(w.max(initial=0.0)), 1e-300)
    W = (X - X.mean(axis=0)) @ V[:, keep] / np.sqrt(w[keep])
    skew = float(np.abs((W ** 3).mean(axis=0)).max(initial=0.0))
    kurt = float(np.abs((W ** 4).mean(axis=0) - 3).max(initial=0.0))
    return np.asarray(eta0, dtype=float), X.mean(axis=0), cov, skew, kurt


def _build_results(model, est, prior, run, it, interrupted, t0, c0):
    warn = []
    kept = run.out[est.burnin:it:est.thin] if it > est.burnin else run.out[:0]
    if interrupted:
        msg = (f"the posterior sampling was interrupted by the user after {it} of "
               f"{run.out.shape[0]} iterations")
        if len(kept) == 0 and it > 0:
            kept = run.out[:it]
            msg += "; every draw is from the burn-in"
        msg += "; the results hold the draws made so far"
        warn.append(msg)
        warnings.warn(msg, RuntimeWarning, stacklevel=3)
    chains = np.ascontiguousarray(np.swapaxes(kept, 0, 1))        # (H, n_kept, p)
    acceptance = run.accepted / max(it, 1)
    rate = float(np.mean(acceptance))
    capped = (run.aux_info or {}).get("capped_from")
    if capped is not None and capped > 1.5 * run.aux_iters and it > est.burnin:
        warn.append(f"Note: the auxiliary chains ran {run.aux_iters} proposals (the cap of 6 "
                    f"per dyad); the pilot measured {capped} for an autocorrelation of "
                    f"{AUX_ACF}: set aux_iters={capped} for chains that long")
    if it > 0 and not (0.05 <= rate <= 0.9):
        warn.append(f"Note: the acceptance rate is {rate:.2f}; change v_proposal (now "
                    f"{est.v_proposal}) or gamma (now {run.gamma}) for a rate near 0.2-0.5")
    info = {"interrupted": interrupted, "iterations": int(it), "burnin": est.burnin,
            "main_iters": est.main_iters, "thin": est.thin, "aux_iters": run.aux_iters,
            "n_chains": int(run.theta.shape[0]), "gamma": run.gamma,
            "v_proposal": est.v_proposal, "proposal_cov": run.eps_chol @ run.eps_chol.T,
            "cpu_seconds": time.process_time() - c0,
            "delayed": ("pilot" if isinstance(run.surrogate, _GaussStage)
                        else run.surrogate is not None), "aux_start": run.aux_start,
            "storage": run.storage, "aux_rule": run.aux_info,
            "missing_update": None if run.imputer is None else run.imputer.steps,
            "n_missing": int(model.sample_space.n_missing),
            "first_stage_rate": (run.passed / max(it, 1)).tolist() if run.surrogate else None,
            "mcmc": {"interval": run.aux_iters, "burnin": 16 * run.aux_iters}}
    return BayesResults(chains, list(model.labels), method="bayes", acceptance=acceptance,
                        prior_mean=prior.mean, prior_cov=prior.cov,
                        converged=not interrupted, seconds=time.perf_counter() - t0,
                        warnings=warn, info=info, formula=getattr(model, "formula", None),
                        network=getattr(model, "network", None), model=model,
                        **fit_nobs(model),
                        dyad_independent=getattr(model, "dyad_independent", None))
