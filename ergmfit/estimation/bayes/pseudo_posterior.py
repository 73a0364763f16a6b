"""The adjusted pseudo-posterior (Bouranis, Friel & Maire 2017; Bergm's ``bergmC``).

The pseudo-likelihood PL(θ) is cheap (a logistic regression on the
compressed change statistics, :mod:`ergmfit.estimation.mple.pseudolikelihood`) but its
posterior is too narrow and in the wrong place for dyad-dependent models.
Bouranis et al. calibrate it by an affine map of the parameter,

    f̃(y | θ) = PL(θ̂_PL + W (θ − θ̂))

where θ̂_PL is the MPLE, θ̂ the MLE and W chosen so that the curvature at
θ̂ is the likelihood's: Wᵀ H_PL W = H, with H_PL the negative Hessian of
log PL at θ̂_PL and H the Fisher information at θ̂ (the inverse of the
model covariance of an MCMC-MLE fit).  With the Cholesky factors
H_PL = N Nᵀ and H = M Mᵀ, W = N⁻ᵀ Mᵀ.  The adjusted posterior
π̃(θ | y) ∝ f̃(y | θ) π(θ) then has the likelihood's mode and curvature and
is sampled by random-walk Metropolis, ``n_chains`` chains at once
(vectorised numpy: each step evaluates the pseudo-likelihood of every
chain on the compressed design).  The proposal covariance is
(2.38² / p) · v_proposal · (H + Σ_prior⁻¹)⁻¹ (the Gaussian approximation's
optimal scale, ``v_proposal=1`` by default).

Bergm's ``bergmC`` finds θ̂ by Robbins-Monro; here it is the MCMC-MLE
(:class:`~ergmfit.estimation.mcmle.estimator.MCMLE`, without the bridge-sampled
log-likelihood), whose settings can be passed as ``mcmle={...}``.
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from ...exceptions import SettingsError
from ...results.bayes import BayesResults
from ...runtime import Progress, catch_interrupt
from ...utils.validation import check_random_state
from ..base import Estimator, Setting, integer, number
from ..common.nobs import fit_nobs
from .adjustment import adjustment, adjusted_design
from .exchange import make_prior

__all__ = ["BayesPL", "adjustment"]


def _mcmle_check(name, value):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SettingsError(f"setting {name!r} must be a dict of MCMC-MLE settings, got {value!r}")
    return dict(value)


class BayesPL(Estimator):
    """The adjusted pseudo-posterior (see the module docstring); returns
    :class:`~ergmfit.results.bayes.BayesResults` with ``method="bayes-pl"``.

    Bergm's ``bergmC(formula, prior.mean, prior.sigma, burn.in, main.iters,
    thin)`` is ``BayesPL(prior_mean=, prior_sigma=, burnin=, main_iters=,
    thin=)`` (here per chain: 4 chains x 10,000 draws is Bergm's 40,000).
    """

    method = "bayes-pl"
    supports = {"curved": False, "constraints": False, "missing": False, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary"})}
    SETTINGS = (
        Setting("prior", None, None,
                "Normal prior: (mean, sigma), {'mean':, 'sigma':} or a multivariate normal."),
        Setting("prior_mean", None, None, "Prior mean (default 0)."),
        Setting("prior_sigma", None, None, "Prior covariance (default 100 I)."),
        Setting("burnin", 2500, integer(0), "Metropolis iterations discarded, every chain."),
        Setting("main_iters", 10000, integer(1), "Metropolis iterations kept, every chain."),
        Setting("n_chains", 4, integer(1), "Chains (run together, vectorised)."),
        Setting("thin", 1, integer(1), "Keep every thin-th iteration."),
        Setting("v_proposal", 1.0, number(0.0, lo_open=True),
                "Scale of the proposal covariance (x the Gaussian optimum)."),
        Setting("mcmle", None, _mcmle_check, "Settings of the MCMC-MLE fit of the MLE."),
    )

    def fit(self, model) -> BayesResults:
        from ..common.restricted import offset_design
        from ..mple.pseudolikelihood import pseudo_design
        t0, c0 = time.perf_counter(), time.process_time()
        p = model.n_params
        if p == 0:
            raise SettingsError("the model has no parameters to sample")
        prior = make_prior(p, self.prior, self.prior_mean, self.prior_sigma)
        rng = check_random_state(self.random_state)
        # offsets (ERGM.fit's free-coefficient view) leave the columns for each row's fixed
        # part, as in the MPLE: the adjustment and the posterior are over the free coefficients
        design, _, _ = offset_design(model, pseudo_design(model.compiled(), random_state=rng),
                                     list(model.labels))
        adj = adjustment(model, design, self.mcmle, rng, self.verbose)
        n, s = design.n, design.s
        W, mle = adj["W"], adj["mle"]
        XW, c = adjusted_design(design, adj)

        def logpost(T):               # T: (H, p) -> (H,)
            E = T @ XW.T + c          # (H, rows)
            ll = E @ s - np.logaddexp(0.0, E) @ n
            D = T - prior.mean
            return ll - 0.5 * np.einsum("hi,ij,hj->h", D, prior.precision, D)

        post_cov = np.linalg.inv(adj["H"] + prior.precision)
        L = np.linalg.cholesky((2.38 ** 2 / p) * self.v_proposal * post_cov)
        H = self.n_chains
        theta = mle + rng.standard_normal((H, p)) @ np.linalg.cholesky(post_cov).T
        lp = logpost(theta)
        n_total = self.burnin + self.main_iters
        kept = np.empty((H, (self.main_iters + self.thin - 1) // self.thin, p))
        accepted = np.zeros(H)
        k = it = 0
        with Progress(n_total, "bayes-pl", enabled=self.verbose) as bar, \
                catch_interrupt() as stop:
            while it < n_total:
                prop = theta + rng.standard_normal((H, p)) @ L.T
                lp_new = logpost(prop)
                ok = np.log(rng.random(H)) < lp_new - lp
                theta[ok], lp[ok] = prop[ok], lp_new[ok]
                accepted += ok
                if it >= self.burnin and (it - self.burnin) % self.thin == 0:
                    kept[:, k] = theta
                    k += 1
                it += 1
                if it % 1000 == 0:
                    bar.update(1000)
                    stop.check()                # a Ctrl-C lost in a finalizer
        interrupted = stop.interrupted
        warn = []
        if interrupted:
            warn.append(f"the sampling was interrupted by the user after {it} of {n_total} "
                        "iterations; the results hold the draws made so far")
            warnings.warn(warn[-1], RuntimeWarning, stacklevel=2)
        info = {"interrupted": interrupted, "iterations": int(it), "burnin": self.burnin,
                "main_iters": self.main_iters, "thin": self.thin, "n_chains": H,
                "mple": adj["mple"], "mle": adj["mle"], "W": W,
                "mle_converged": bool(adj["mle_fit"].converged),
                "mcmc": adj["mle_fit"].info.get("mcmc"),
                "cpu_seconds": time.process_time() - c0}
        if not adj["mle_fit"].converged:
            warn.append("the MCMC-MLE fit of the adjustment did not converge: the adjusted "
                        "pseudo-posterior may be off; check with method='bayes'")
        return BayesResults(kept[:, :k], list(model.labels), method="bayes-pl",
                            acceptance=accepted / max(it, 1), prior_mean=prior.mean,
                            prior_cov=prior.cov, converged=not interrupted, **fit_nobs(model),
                            seconds=time.perf_counter() - t0, warnings=warn,
                            info={k_: (v.tolist() if isinstance(v, np.ndarray) else v)
                                  for k_, v in info.items()},
                            formula=getattr(model, "formula", None),
                            network=getattr(model, "network", None), model=model,
                            dyad_independent=getattr(model, "dyad_independent", None))
