"""Contrastive divergence CD-n (statnet's ``estimate="CD"``): the estimator
class :class:`CD` and the helpers other estimators start from
(:func:`density_start`, :func:`hotelling_iid`; ``density_index``, re-exported here, is
:func:`ergmfit.estimation.common.density.density_index`).

The algorithm, its missing-dyad variant and how it differs from statnet are in
``docs/guide/estimators/cd.md``.

Examples
--------
>>> import ergmfit as ef
>>> from ergmfit.estimation.contrastive.cd import density_index
>>> density_index(ef.ERGM(ef.datasets.load("flomarriage"), "triangle + edges"))
1
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError, SettingsError
from ...runtime import Progress, catch_interrupt
from ...families import family_of
from ...sampling.space import design_members, sample_space_of
from ...utils.validation import check_params, seed_words
from ..base import Estimator, Setting, choice, integer, number
from ...terms.parameterisation import Identity
from ..common.nobs import fit_nobs
from ..common.stepping import hummel_step
from ...terms.parameter_steps import projector
from ..mple.existence import nonexistence_error, observed_design, on_boundary
from ..common.density import density_index, statistic_parameter  # noqa: F401  (re-exported)

CD_SE_WARNING = ("Standard errors are not computed for contrastive divergence (statnet prints "
                 "NA as well); use method=\"mcmle\" or method=\"ee\" for standard errors.")


def density_start(model, bm=None):
    """Parameters 0 except the density one at logit(L / D) of the observed state: D the
    dyads the model's sample space lets vary and observes (a two-mode network's between
    its modes), L the ties among them
    (a count model: the coefficient of ``sum`` that gives the reference's i.i.d. law
    the observed mean value, :meth:`CountFamily.density_start`)
    (and the free decays of curved terms at their given start, else 0.5); an
    offset's coefficient is not among the parameters."""
    theta = np.zeros(len(model.labels))
    if getattr(model, "terms", None) is not None:
        # every free decay, those of curved terms inside operators too (Label(~gwesp()))
        from ...terms.parameterisation import declared_decays
        from ...terms.registry import curved_terms
        for at, d in declared_decays(model.parameterisation, curved_terms(model.terms)):
            theta[at] = 0.5 if d is None else d
    k = statistic_parameter(model, density_index(model))
    if k is not None:
        bm = model.compiled() if bm is None else bm
        # the dyads the sample space lets vary and observes (a two-mode network's between
        # its modes, a constraint's free dyads), and the ties among them
        free = sample_space_of(model).design_set()
        on = np.asarray(bm.on_vars(), dtype=np.int64)
        D = float(bm.n_vars if free is None else len(free))
        L = float(np.count_nonzero(design_members(on, free)))
        L = min(max(L, 0.5), D - 0.5)           # keep the logit finite
        theta[k] = np.log(L / (D - L))
    return family_of(model).density_start(model, bm, theta)


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
    from scipy import special

    return float(special.fdtrc(q, n - q, F)), T2


class _ObservedDraws:
    """CD's draws when every dyad is observed: each run starts at the observed network."""

    @staticmethod
    def sample(sampler, eta, n, nsteps):
        """``n`` CD draws g(x_i) − g(x_obs)."""
        return sampler.cd_sample(eta, n, nsteps)


class _CompletedDraws:
    """CD's draws with missing dyads: a conditional chain over the missing dyads
    (the sample space's conditional sampler) beside CD's runs; it shares CD's
    compiled network, so each CD run starts at its completion; a CD run undoes
    its moves, and the conditional chain's own bookkeeping stays valid
    (``docs/guide/estimators/cd.md``)."""

    def __init__(self, cond, m_c):
        self.cond, self.m_c = cond, m_c

    @classmethod
    def make(cls, model, bm, nsteps, random_state):
        """The draws of the model's sample space: :class:`_ObservedDraws` if it has
        no missing dyads."""
        space = sample_space_of(model)
        cspace = space.conditional()
        if cspace is None:
            return _ObservedDraws()
        n = int(space.n_missing)        # the conditional chain's steps scale with it
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
    """Contrastive divergence CD-n, statnet's ``ergm(..., estimate = "CD")``.

    At the current θ, ``samplesize`` short runs of ``nsteps`` Metropolis-Hastings
    proposals each start at the observed network; θ moves by the importance-sampling
    step of one MCMC-MLE iteration on the differences of their statistics from the
    observed ones, until the step length is 1 and Hotelling's T² no longer rejects
    a zero mean (Hinton 2002; Krivitsky 2017).  With missing dyads each run starts
    at a completion drawn by a conditional chain at the current θ.  The algorithm,
    the missing-dyad variant and the differences from statnet are in the user guide
    (``docs/guide/estimators/cd.md``).

    Returns an :class:`~ergmfit.results.ERGMResults` with method ``"cd"``,
    NA standard errors (as statnet), and ``info`` holding the iteration
    history, ``nsteps``, the sample size and the acceptance rate.

    References
    ----------
    Hinton, G. E. (2002). Training products of experts by minimizing contrastive
    divergence. *Neural Computation* 14, 1771-1800.

    Krivitsky, P. N. (2017). Using contrastive divergence to seed Monte Carlo MLE
    for exponential-family random graph models. *Computational Statistics & Data
    Analysis* 107, 149-161.

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("samplike"), "edges + mutual")
    >>> fit = m.fit(method="cd", random_state=1)
    >>> fit.method
    'cd'
    >>> from ergmfit.estimation import CD
    >>> CD(random_state=1, maxit=5).start(m).shape
    (2,)
    """

    method = "cd"
    supports = {"curved": True, "constraints": True, "missing": True, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary", "count"})}
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
        Setting("proposal", "auto", choice("auto", "tnt", "random", "gibbs"),
                "Proposal of the CD draws (auto: the sample space's choice for CD: 'tnt' "
                "for binary networks, 'gibbs' -- each dyad's full conditional -- for "
                "count-valued ones)."),
    )

    def fit(self, model):
        return _cd_results(model, self.run(model, keep_interrupted=True))

    def start(self, model) -> np.ndarray:
        """The CD estimate as the start of another estimator (MCMC-MLE, EE):
        its parameters; Ctrl-C raises ``KeyboardInterrupt``."""
        return np.asarray(self.run(model)["params"], dtype=float)

    def run(self, model, bm=None, keep_interrupted=False) -> dict:
        """The CD iterations on ``model`` (an ERGM or a spec with ``labels``
        and ``compiled()``); returns a dict (``params``, ``converged``,
        ``n_iter``, ``history``, ``seconds``, ``samplesize``, ``nsteps``,
        ``acceptance``, ``interrupted``).

        ``bm``: a compiled model at the observed state (default
        ``model.compiled()``).  ``keep_interrupted``: on Ctrl-C return the
        iterations finished (``interrupted`` True) instead of raising
        ``KeyboardInterrupt``."""
        t0 = time.perf_counter()
        labels = list(model.labels)
        p = len(labels)
        nsteps = self.nsteps
        samplesize = (self.samplesize if self.samplesize is not None
                      else self.samplesize_per_theta * max(p, 1))
        if samplesize < 2:
            raise SettingsError(f"samplesize must be at least 2, got {samplesize}")
        bm = model.compiled() if bm is None else bm
        # dead or collinear statistics: an error before any sampling (as the MPLE);
        # a separation direction of the observed design: checked against the sample at the end
        od = observed_design(model, bm)
        theta = (density_start(model, bm) if self.init is None
                 else check_params(self.init, labels, "init"))
        par = getattr(model, "parameterisation", None) or Identity(labels)
        sampler = _sampler(model, bm, self.proposal, self.random_state)
        draws = _CompletedDraws.make(model, bm, nsteps, self.random_state)
        bar = Progress(self.maxit, f"CD-{nsteps}", unit="it", enabled=self.verbose)
        history = []
        converged = False
        it = done = 0
        Z = None
        stop = catch_interrupt()
        try:
            with stop:      # Ctrl-C: keep the iterations finished so far (the sampler checks too)
                for it in range(1, self.maxit + 1):
                    Z = draws.sample(sampler, par.eta(theta), samplesize, nsteps)
                    if not np.all(np.isfinite(Z)):
                        raise DegenerateModelError("non-finite statistics in the contrastive-"
                                                   "divergence sample; check the model terms")
                    Zp = projector(par, theta)(Z)           # the parameters' directions
                    gamma = hummel_step(Zp, self.steplength_margin)
                    pval, _ = hotelling_iid(Zp)
                    # the step through the map (decays boxed); θ = η: the plain maximiser
                    eta = par.is_step(Z, (1.0 - gamma) * Z.mean(axis=0), theta, decay_box=True)[0]
                    history.append({"iteration": it, "theta": theta.tolist(),
                                    "gamma": float(gamma), "pvalue": float(pval),
                                    "zbar": Z.mean(axis=0).tolist()})
                    theta = theta + eta
                    done = it
                    bar.update(1, step=f"{gamma:.2f}", p=f"{pval:.2f}")
                    if gamma >= 1.0 and np.isfinite(pval) and pval > self.conv_pval:
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
            raise DegenerateModelError("contrastive divergence diverged (non-finite parameters): "
                                       "the model may be degenerate; try geometrically weighted "
                                       "terms or a different init")
        return {"params": theta, "converged": converged and not stop.interrupted, "n_iter": done,
                "history": history, "seconds": time.perf_counter() - t0,
                "samplesize": samplesize, "nsteps": nsteps, "acceptance": sampler.acceptance_rate,
                "interrupted": stop.interrupted}


def _sampler(model, bm, proposal, random_state):
    """CD's sampler on the model's sample space (an MRF spec has none: all variables)."""
    space = sample_space_of(model)
    sampler = space.make_sampler(bm, space.contrastive_proposal(proposal, bm, model),
                                 seed_words(random_state))
    if hasattr(model, "_guard_name"):           # the runaway guard's message names the model
        sampler.set_guard(reference_ties=model.network.n_ties)
        sampler.description = model._guard_name()
    return sampler


def _cd_results(model, out):
    from ...results import ERGMResults
    warn = [CD_SE_WARNING]
    if out["interrupted"]:
        msg = (f"contrastive divergence was interrupted by the user after {out['n_iter']} "
               "finished iteration(s): the estimate is that of the last finished iteration"
               + ("" if out["n_iter"] else " (the start)") + " and is NOT converged")
        warnings.warn(msg, ConvergenceWarning, stacklevel=3)
        warn.insert(0, msg)
    elif not out["converged"]:
        msg = (f"contrastive divergence did not converge in {out['n_iter']} iterations; "
               "increase maxit or nsteps")
        warnings.warn(msg, ConvergenceWarning, stacklevel=3)
        warn.insert(0, msg)
    p = len(model.labels)
    net = getattr(model, "network", None)
    info = {"history": out["history"], "nsteps": out["nsteps"], "samplesize": out["samplesize"],
            "acceptance": out["acceptance"], "interrupted": out["interrupted"]}
    return ERGMResults(out["params"], np.full((p, p), np.nan), model.labels, method="cd",
                       **fit_nobs(model), converged=out["converged"],
                       n_iter=out["n_iter"], seconds=out["seconds"], se_kind=None,
                       warnings=warn, info=info, formula=getattr(model, "formula", None),
                       network=net, model=model,
                       dyad_independent=getattr(model, "dyad_independent", None))
