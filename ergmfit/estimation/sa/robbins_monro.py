"""The Robbins-Monro stochastic-approximation estimator of an ERGM.

Snijders' (2002) three phases on one Metropolis-Hastings chain started at the
observed network:

1. ``phase1`` draws at the start θ₀ (the MPLE) estimate the covariance D of
   the statistics;
2. ``n_subphases`` subphases with gains ``gain, gain/2, gain/4, ...`` move
   θ ← θ − a D⁻¹ (g(x) − g_obs) after every draw; each subphase ends at the
   average of its θ's (Polyak-Ruppert);
3. ``phase3`` draws at the final θ give the covariance Σ of the statistics,
   the standard errors (Σ⁻¹, the MLE's information) and the convergence
   t-ratios (mean − observed) / sd, which statnet and Snijders want below 0.1.

Its settings are declared once in :class:`SA`'s table; it fits linear models
on any sample space the model has (constraints included): the chain is
``model.sampler()``.

References
----------
Snijders, T. A. B. (2002). Markov chain Monte Carlo estimation of exponential
random graph models. Journal of Social Structure 3(2).
Robbins, H. & Monro, S. (1951). A stochastic approximation method. Annals of
Mathematical Statistics 22, 400-407.
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from ...exceptions import ConvergenceWarning
from ...utils.validation import check_random_state
from ..base import Estimator, Setting, integer, number
from ..mcmle.start import start_theta


class SA(Estimator):
    """Robbins-Monro stochastic approximation (Snijders 2002).

    Returns an :class:`~ergmfit.results.ERGMResults` with method ``"sa"``,
    standard errors from the phase-3 covariance of the statistics, and
    ``info["t_ratios"]`` (the convergence t-ratios of phase 3).

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    >>> fit = m.fit(method="sa", random_state=2)
    >>> fit.method, bool(abs(fit.params["edges"] + 1.68) < 0.15)
    ('sa', True)
    """

    method = "sa"
    supports = {"curved": False, "constraints": True, "missing": False, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary"})}
    SETTINGS = (
        Setting("init", None, None, "Starting parameters (default: the MPLE)."),
        Setting("interval", 1024, integer(1), "Proposals between two draws."),
        Setting("burnin", 16384, integer(0), "Proposals before the first draw."),
        Setting("phase1", None, integer(2, allow_none=True),
                "Draws of phase 1 (default 7 + 3 x parameters, as Snijders)."),
        Setting("n_subphases", 4, integer(1, 20), "Subphases of phase 2."),
        Setting("gain", 0.1, number(0, 1, lo_open=True), "Gain of the first subphase."),
        Setting("phase2_min", None, integer(1, allow_none=True),
                "Draws of the first subphase (default 7 + parameters; each later one "
                "2^(4/3) times more, as Snijders)."),
        Setting("phase3", 1000, integer(10), "Draws of phase 3."),
        Setting("t_ratio", 0.1, number(0, lo_open=True),
                "Converged when every phase-3 t-ratio is below this."),
    )

    def fit(self, model):
        from ...results import ERGMResults
        s = self.get_params()
        rng = check_random_state(s["random_state"])
        t0 = time.process_time()
        p = len(model.labels)
        theta, how = start_theta(model, s["init"], rng)
        theta = np.asarray(theta, dtype=float)
        sampler, _ = model.sampler(theta, random_state=rng)
        # sampler.delta is g(x_t) - g(x_obs): the step direction itself
        sampler.run(theta, s["burnin"])
        draws = _draws(sampler, theta, s["phase1"] or 7 + 3 * p, s["interval"])
        D = np.atleast_2d(np.cov(draws, rowvar=False))
        D_inv = np.linalg.pinv(D + 1e-8 * np.eye(p))
        history = []
        n_min = s["phase2_min"] or 7 + p
        for k in range(s["n_subphases"]):
            a = s["gain"] / 2 ** k
            n_k = int(round(n_min * 2 ** (4 * k / 3)))
            path = np.empty((n_k, p))
            for i in range(n_k):
                sampler.run(theta, s["interval"])
                theta = theta - a * D_inv @ np.asarray(sampler.delta)
                path[i] = theta
            theta = path.mean(axis=0)
            history.append({"subphase": k + 1, "gain": a, "draws": n_k, "theta": theta.tolist()})
        sampler.run(theta, s["burnin"])
        final = _draws(sampler, theta, s["phase3"], s["interval"])
        sd = final.std(axis=0, ddof=1)
        t = np.divide(final.mean(axis=0), sd, out=np.zeros(p), where=sd > 0)
        cov = np.linalg.pinv(np.atleast_2d(np.cov(final, rowvar=False)))
        converged = bool(np.all(np.abs(t) < s["t_ratio"]))
        warn = []
        if not converged:
            msg = (f"stochastic approximation did not converge: phase-3 t-ratios up to "
                   f"{np.max(np.abs(t)):.3f} (criterion {s['t_ratio']}); raise phase2_min or "
                   "n_subphases, or start from this estimate (init=fit.params)")
            warnings.warn(msg, ConvergenceWarning, stacklevel=2)
            warn.append(msg)
        net = getattr(model, "network", None)
        info = {"start": how, "history": history, "t_ratios": dict(zip(model.labels, t.tolist())),
                "acceptance": sampler.acceptance_rate}
        return ERGMResults(theta, cov, model.labels, method="sa",
                           nobs=getattr(net, "n_dyads", None), converged=converged,
                           n_iter=s["n_subphases"], seconds=time.process_time() - t0,
                           se_kind="sa", warnings=warn, info=info,
                           formula=getattr(model, "formula", None), network=net, model=model,
                           dyad_independent=getattr(model, "dyad_independent", None))


def _draws(sampler, theta, n, interval):
    """``n`` draws of g(x) - g(x_obs), ``interval`` proposals apart, at ``theta``."""
    return np.asarray(sampler.sample(theta, n, 0, interval))
