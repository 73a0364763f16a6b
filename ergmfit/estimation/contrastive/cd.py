"""Contrastive divergence (CD-n), as statnet fits with ``estimate="CD"``.

The algorithm (Hinton 2002; Krivitsky 2017, "Using contrastive divergence to
seed Monte Carlo MLE for exponential-family random graph models"):

1. Start from ``init`` (default: every parameter 0 except the density one --
   ``edges`` -- at the logit of the observed density).
2. At the current θ_t draw ``samplesize`` short runs of ``nsteps``
   Metropolis-Hastings proposals, *each started from the observed state*, and
   keep z_i = g(x_i) − g(x_obs) of their end points (statnet's
   ``CD.nsteps = 8``; ``CD.samplesize.per_theta = 128`` draws per parameter).
3. Update θ exactly as one MCMC-MLE iteration does with that sample
   (:mod:`ergmfit.estimation.mcmle.estimator`): the Hummel et al. step length
   (``steplength_margin``, statnet's ``CD.steplength.margin``) and the
   maximiser of the importance-sampling approximation
   θ ↦ −log mean_i exp((θ − θ_t)·z_i) with the pseudo-observation (1 − γ) z̄.
4. Stop when the step length is 1 and Hotelling's T² test (the draws are
   independent) no longer rejects E[z] = 0 at ``conv_pval`` (statnet's
   ``CD.conv.min.pval = 0.5``), or after ``maxit`` iterations (``CD.maxit = 60``).

CD-n solves E_θ[g(X_n) | X_0 = x_obs] = g(x_obs): as n grows it approaches
the MLE, for small n it is a cheap, approximate estimate -- a starting point
for MCMC-MLE (when the MPLE does not exist) and for Equilibrium Expectation.
As in statnet 4.4 no standard errors are given (the summary prints NA).

Differences from statnet: ``CD.multiplicity`` (several tentative toggles per
step) is not implemented (statnet's default is 1); the proposal is the same
tie/no-tie mixture as every other estimator here.

**Missing dyads** (Handcock & Gile 2010's observed-data likelihood, whose
score is E_θ[g | Y_obs] − E_θ[g]): CD as for a model with latent
variables (Hinton 2002's contrastive divergence with hidden units).  A
conditional chain -- tie/no-tie restricted to the missing dyads, on the
same compiled network -- draws completions y of the missing dyads given the
observed ones at the current θ (``max(nsteps, m // 4)`` proposals between
draws for m missing dyads, 16 times that at the start of every iteration;
it persists across iterations), and each CD run of ``nsteps`` proposals
over all dyads starts at the current completion: z_i = g(x_i) − g(y_i).
CD-n then solves E_θ[g(X_n) − g(Y)] = 0 with Y ~ π_θ(· | Y_obs) and X_n
``nsteps`` proposals away from Y; as ``nsteps`` grows this is the
observed-data likelihood equation E_θ[g] = E_θ[g | Y_obs], the equation the
missing-data MCMC-MLE solves.  statnet instead imputes the missing dyads
once (at the observed density) and starts both its unconditional and its
conditional CD runs there, so its CD estimate depends on that single
imputation (and it warns that CD with missing dyads "is not recommended"
for ``CD.nsteps`` below their number).  Offsets and curved models go
through the same path (the conditional chain runs at η(θ)).

The core (:func:`cd_core`) needs only a model spec with ``labels`` and
``compiled()`` (a :class:`~ergmfit.core._model.BinaryModel` at the observed
state), so the MRF models reuse it.
"""
from __future__ import annotations

import time
import warnings

import numpy as np
from scipy import special

from ...exceptions import ConvergenceWarning, DegenerateModelError, SettingsError
from ...runtime import Progress, catch_interrupt
from ...utils.validation import check_params, seed_words
from ..base import Estimator, Setting, choice, integer, number
from ..mple.existence import nonexistence_error, observed_design, on_boundary

CD_SE_WARNING = ("Standard errors are not computed for contrastive divergence (statnet prints "
                 "NA as well); use method=\"mcmle\" or method=\"ee\" for standard errors.")


# ---------------------------------------------------------------------------
# helpers shared with ee.py
# ---------------------------------------------------------------------------
def density_index(model):
    """Index of the density statistic (``edges``/``Arc``: change statistic 1 for
    every variable), or None.

    A model spec may say so itself with a ``density_index`` attribute (the MRF
    models do); for an ERGM it is the ``edges`` term.
    """
    idx = getattr(model, "density_index", None)
    if idx is not None:
        return int(idx)
    terms = getattr(model, "terms", None)
    if terms is None:
        return None
    off = 0
    for t in terms:
        if getattr(t, "name", None) == "edges" and len(t.labels) == 1:
            return off
        off += len(t.labels)
    return None


def density_start(model, bm=None):
    """Parameters 0 except the density one at logit(L / D) of the observed state
    (and the decays of curved terms at their given start, else 0.5)."""
    p = len(model.labels)
    theta = np.zeros(p)
    k = density_index(model)
    par = getattr(model, "parameterisation", None)
    if par is not None and not par.linear:
        k = None
        off = 0
        for t in model.terms:
            if getattr(t, "curve", None) is None and t.name == "edges" and len(t.labels) == 1:
                k = off
            off += len(t.param_labels)
        # every free decay, those of curved terms inside operators too (Label(~gwesp()))
        from ...terms.parameterisation import declared_decays
        from ...terms.registry import curved_terms
        for at, d in declared_decays(par, curved_terms(model.terms)):
            theta[at] = 0.5 if d is None else d
    if k is not None:
        bm = model.compiled() if bm is None else bm
        D = float(bm.n_vars)
        L = float(len(bm.on_vars()))
        L = min(max(L, 0.5), D - 0.5)           # keep the logit finite
        theta[k] = np.log(L / (D - L))
    return theta


def hotelling_iid(Z):
    """p-value of H0: E[z] = 0 from independent rows of Z (Hotelling's T²).

    Statistics that never varied are left out of the test (they count as
    converged if they are 0 in every draw).  Returns (pvalue, T2).
    """
    n, p = Z.shape
    zbar = Z.mean(axis=0)
    var = Z.var(axis=0, ddof=1) if n > 1 else np.zeros(p)
    live = var > 0
    if not np.all(zbar[~live] == 0):
        return 0.0, float("inf")
    q = int(live.sum())
    if q == 0:
        return 1.0, 0.0
    if n <= q:
        return float("nan"), float("nan")
    S = np.cov(Z[:, live], rowvar=False).reshape(q, q)
    T2 = float(n * zbar[live] @ np.linalg.pinv(S) @ zbar[live])
    F = (n - q) / (q * (n - 1.0)) * T2
    return float(special.fdtrc(q, n - q, F)), T2


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------
def cd_core(model, init=None, nsteps=8, samplesize=None, samplesize_per_theta=128, maxit=60,
            conv_pval=0.5, steplength_margin=0.5, proposal="tnt", random_state=None,
            verbose=False, bm=None, keep_interrupted=False):
    """Contrastive divergence CD-``nsteps``; returns a dict (params, converged,
    n_iter, history, seconds, samplesize).

    Parameters
    ----------
    model : ERGM or a model spec with ``labels`` and ``compiled()``
    init : array or dict, optional
        Starting parameters (default: :func:`density_start`).
    nsteps : int
        Metropolis-Hastings proposals per draw, from the observed state (statnet
        ``CD.nsteps``, 8).  ``nsteps=1`` is CD-1.
    samplesize : int, optional
        Draws per iteration (default ``samplesize_per_theta`` × number of
        parameters, statnet's ``CD.samplesize.per_theta = 128``).
    maxit, conv_pval, steplength_margin
        statnet's ``CD.maxit`` (60), ``CD.conv.min.pval`` (0.5) and
        ``CD.steplength.margin`` (0.5).
    proposal : {"tnt", "random"}
    bm : BinaryModel, optional
        A compiled model at the observed state to use (default ``model.compiled()``).
    keep_interrupted : bool
        On Ctrl-C, return the iterations finished (``interrupted`` True) instead of
        raising ``KeyboardInterrupt`` (the CD estimator; not a start for another one).
    """
    from ...sampling import MHSampler, make_proposal
    from ..common.stepping import hummel_step, maximize_is_loglik
    t0 = time.perf_counter()
    labels = list(model.labels)
    p = len(labels)
    nsteps = int(nsteps)
    if nsteps < 1:
        raise SettingsError(f"nsteps must be at least 1, got {nsteps}")
    if maxit < 1:
        raise SettingsError(f"maxit must be at least 1, got {maxit}")
    samplesize = int(samplesize) if samplesize is not None else int(samplesize_per_theta) * max(p, 1)
    if samplesize < 2:
        raise SettingsError(f"samplesize must be at least 2, got {samplesize}")
    bm = model.compiled() if bm is None else bm
    # dead or collinear statistics: an error before any sampling (as the MPLE);
    # a separation direction of the observed design: checked against the sample at the end
    od = observed_design(model, bm)
    theta = density_start(model, bm) if init is None else check_params(init, labels, "init")
    par = getattr(model, "parameterisation", None)
    curved = par is not None and not par.linear
    if curved:
        from ..common.curved import curved_step
        from ..common.curved import projector as _projector
    space = getattr(model, "sample_space", None)      # an ERGM's; an MRF spec has none
    prop = space.proposal(proposal, bm, model) if space is not None else make_proposal(proposal, bm)
    sampler = (space.make_sampler(bm, prop, seed_words(random_state)) if space is not None
               else MHSampler(bm, prop, seed_words(random_state)))
    if hasattr(model, "_guard_name"):           # the runaway guard's message names the model
        sampler.set_guard(reference_ties=model.network.n_ties)
        sampler.description = model._guard_name()
    missing = _MissingCD.make(model, space, bm, nsteps, random_state)
    bar = Progress(maxit, f"CD-{nsteps}", unit="it", enabled=verbose)
    history = []
    converged = False
    it = done = 0
    Z = None
    stop = catch_interrupt()
    try:
        with stop:      # Ctrl-C: keep the iterations finished so far (the sampler checks too)
            for it in range(1, maxit + 1):
                eta_t = par.eta(theta) if curved else theta
                Z = (sampler.cd_sample(eta_t, samplesize, nsteps) if missing is None
                     else missing.sample(sampler, eta_t, samplesize, nsteps))
                if not np.all(np.isfinite(Z)):
                    raise DegenerateModelError("non-finite statistics in the contrastive-"
                                               "divergence sample; check the model terms")
                Zp = _projector(par, theta)(Z) if curved else Z   # the parameters' directions
                gamma = hummel_step(Zp, steplength_margin)
                pval, _ = hotelling_iid(Zp)
                if curved:
                    eta = curved_step(Z, (1.0 - gamma) * Z.mean(axis=0), par, theta,
                                      decay_box=True)[0]
                else:
                    eta = maximize_is_loglik(Z, (1.0 - gamma) * Z.mean(axis=0))
                history.append({"iteration": it, "theta": theta.tolist(), "gamma": float(gamma),
                                "pvalue": float(pval), "zbar": Z.mean(axis=0).tolist()})
                theta = theta + eta
                done = it
                bar.update(1, step=f"{gamma:.2f}", p=f"{pval:.2f}")
                if gamma >= 1.0 and np.isfinite(pval) and pval > conv_pval:
                    converged = True
                    break
    finally:
        bar.close()
    if stop.interrupted and not keep_interrupted:
        raise KeyboardInterrupt
    if (od is not None and done > 0 and not stop.interrupted and od.direction is not None
            and on_boundary(Z, od.direction)):
        # no toggle of the observed network and no CD draw goes beyond it along d
        raise nonexistence_error(labels, od.direction, "contrastive divergence", theta)
    if not np.all(np.isfinite(theta)):
        raise DegenerateModelError("contrastive divergence diverged (non-finite parameters): the "
                                   "model may be degenerate; try geometrically weighted terms or "
                                   "a different init")
    return {"params": theta, "converged": converged and not stop.interrupted, "n_iter": done,
            "history": history, "seconds": time.perf_counter() - t0, "samplesize": samplesize,
            "nsteps": nsteps, "acceptance": sampler.acceptance_rate,
            "interrupted": stop.interrupted}


class _MissingCD:
    """The conditional chain over the missing dyads beside CD's runs (module
    docstring): it shares CD's compiled network, so each CD run starts at
    its completion; a CD run undoes its moves, and the conditional chain's
    own bookkeeping stays valid."""

    def __init__(self, cond, m_c):
        self.cond, self.m_c = cond, m_c

    @classmethod
    def make(cls, model, space, bm, nsteps, random_state):
        n = int(getattr(space, "n_missing", 0) or 0)
        if not n:
            return None
        cspace = space.conditional()
        # a stream of its own (an integer random_state seeds CD's sampler too)
        words = [int(w) for w in seed_words(random_state)] + [18]
        cond = cspace.make_sampler(bm, cspace.proposal("auto", bm, model),
                                   seed_words(np.random.default_rng(words)))
        return cls(cond, max(int(nsteps), n // 4))

    def sample(self, sampler, eta, n, nsteps):
        """``n`` CD draws g(x_i) − g(y_i), each from a new completion y_i."""
        cond, m_c = self.cond, self.m_c
        cond.run(eta, 16 * m_c)
        Z = np.empty((n, len(sampler.delta)))
        for i in range(n):
            cond.run(eta, m_c)
            Z[i] = sampler.cd_sample(eta, 1, nsteps)[0]
        return Z


class CD(Estimator):
    """Contrastive divergence, statnet's ``ergm(..., estimate = "CD")`` (see the
    module docstring).

    Returns an :class:`~ergmfit.results.ERGMResults` with method ``"cd"``,
    NA standard errors (as statnet), and ``info`` holding the iteration
    history, ``nsteps`` and the sample size.

    With missing dyads each CD run starts at a completion of the missing
    dyads drawn by a conditional chain at the current θ (CD for latent
    variables; the module docstring says how this differs from statnet's
    single imputation); as ``nsteps`` grows the estimate tends to the
    observed-data MLE.

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("samplike"), "edges + mutual")
    >>> fit = m.fit(method="cd", random_state=1)
    >>> fit.method
    'cd'
    """

    method = "cd"
    supports = {"curved": True, "constraints": True, "missing": True, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary"})}
    SETTINGS = (
        Setting("init", None, None, "Starting parameters (default: the density start)."),
        Setting("nsteps", 8, integer(1),
                "Metropolis-Hastings proposals per draw from the observed state (CD.nsteps)."),
        Setting("samplesize", None, integer(2, allow_none=True),
                "Draws per iteration (default samplesize_per_theta x parameters)."),
        Setting("samplesize_per_theta", 128, integer(1), "statnet's CD.samplesize.per_theta."),
        Setting("maxit", 60, integer(1), "statnet's CD.maxit."),
        Setting("conv_pval", 0.5, number(0, 1), "statnet's CD.conv.min.pval."),
        Setting("steplength_margin", 0.5, number(0), "statnet's CD.steplength.margin."),
        Setting("proposal", "tnt", choice("tnt", "random"), "Proposal of the CD draws."),
    )

    def fit(self, model):
        settings = self.get_params()
        return _cd_results(model, **settings)


def fit_cd(model, **settings):
    """``CD(**settings).fit(model)``; see :class:`CD` and :func:`cd_core`."""
    return CD(**settings).fit(model)


def _cd_results(model, random_state=None, verbose=False, **kwargs):
    from ...results import ERGMResults
    out = cd_core(model, random_state=random_state, verbose=verbose, keep_interrupted=True,
                  **kwargs)
    warn = [CD_SE_WARNING]
    if out["interrupted"]:
        msg = (f"contrastive divergence was interrupted by the user after {out['n_iter']} "
               "finished iteration(s): the estimate is that of the last finished iteration"
               + ("" if out["n_iter"] else " (the start)") + " and is NOT converged")
        warnings.warn(msg, ConvergenceWarning, stacklevel=2)
        warn.insert(0, msg)
    elif not out["converged"]:
        msg = (f"contrastive divergence did not converge in {out['n_iter']} iterations; "
               "increase maxit or nsteps")
        warnings.warn(msg, ConvergenceWarning, stacklevel=2)
        warn.insert(0, msg)
    p = len(model.labels)
    net = getattr(model, "network", None)
    info = {"history": out["history"], "nsteps": out["nsteps"], "samplesize": out["samplesize"],
            "acceptance": out["acceptance"], "interrupted": out["interrupted"]}
    return ERGMResults(out["params"], np.full((p, p), np.nan), model.labels, method="cd",
                       nobs=getattr(net, "n_dyads", None), converged=out["converged"],
                       n_iter=out["n_iter"], seconds=out["seconds"], se_kind=None,
                       warnings=warn, info=info, formula=getattr(model, "formula", None),
                       network=net, model=model,
                       dyad_independent=getattr(model, "dyad_independent", None))
