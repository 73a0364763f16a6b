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
of binary ties or counts (``ERGM(g, ..., response=, reference=)``) on any sample
space the model has (constraints included): the chain is ``model.sampler()``,
the family's Metropolis-Hastings sampler.  ``checkpoint=path`` writes, after
phase 1 and after every subphase, the estimate, D⁻¹, the subphases done and the
chain's network (:class:`SAState`: its nonzero dyads, and their values under a
count family); ``resume=path`` goes on from there (with ``random_state``'s
random numbers: statistically, not bit for bit, the fit that was not stopped).
Ctrl-C returns the work finished, marked interrupted
(:class:`~ergmfit.runtime.interrupts.GuardedPhases`): in phase 1 the start, in
phase 2 the last finished subphase's estimate (standard errors NA), in phase 3
the final estimate without standard errors.

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
from types import SimpleNamespace

import numpy as np

from ...exceptions import ConvergenceWarning
from ...runtime import Checkpoint, GuardedPhases
from ...runtime.checkpoint import array, record
from ...utils.validation import check_random_state
from ...families import family_of
from ..base import Estimator, Setting, integer, number
from ..common.checkpoint import ModelState
from ..common.nobs import fit_nobs
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
                "missing+target_stats": False, "families": frozenset({"binary", "count"})}
    SETTINGS = (
        Setting("init", None, None, "Starting parameters (default: the MPLE)."),
        Setting("interval", 1024, integer(1), "Proposals between two draws."),
        Setting("burnin", 16384, integer(0), "Proposals before the first draw."),
        Setting("phase1", None, integer(2, allow_none=True),
                "Draws of phase 1 (default 7 + 3 x parameters, as Snijders)."),
        Setting("n_subphases", 4, integer(1, 20), "Subphases of phase 2."),
        Setting("gain", 0.1, number(0, 1, lo_open=True), "Gain of the first subphase."),
        Setting("phase2_min", None, integer(1, allow_none=True),
                "Least draws of the first subphase (default 7 + parameters; each later "
                "one 2^(4/3) times more, as Snijders); a subphase goes on, up to 200 draws "
                "more, while its θ still moves one way."),
        Setting("phase3", 1000, integer(10), "Draws of phase 3."),
        Setting("t_ratio", 0.1, number(0, lo_open=True),
                "Converged when every phase-3 t-ratio is below this."),
        Setting("checkpoint", None, None, "JSON file written after phase 1 and every subphase."),
        Setting("resume", None, None, "Continue from this checkpoint file."),
    )

    def fit(self, model):
        from ...results import ERGMResults
        s = self.get_params()
        rng = check_random_state(s["random_state"])
        t0 = time.process_time()
        p = len(model.labels)
        g_obs = model.statistics_vector()
        run = SimpleNamespace(theta=None, how=None, D_inv=None, history=[], final=None,
                              sampler=None, compiled=None, offset=np.zeros(p),
                              store=None)
        if s["resume"] is not None:
            saved = SAState.read(s["resume"], model, last_node=model.network.n - 1)
            run.theta, run.D_inv, run.history = saved.theta, saved.D_inv, saved.history
            run.how = f"checkpoint {s['resume']}"
            start = family_of(model).chain_start(saved.ties.reshape(-1, 2), saved.values)
            run.sampler, run.compiled = model.sampler(run.theta, random_state=rng, start=start)
            # the sampler's delta is g(x) - g(start): shift it to g(x) - g(x_obs)
            run.offset = model.statistics_vector(start) - g_obs
        else:
            theta, run.how = start_theta(model, s["init"], rng)
            run.theta = np.asarray(theta, dtype=float)
            run.sampler, run.compiled = model.sampler(run.theta, random_state=rng)
            # 0 but where the chain's network is not the one g_obs describes (the
            # network of target statistics that MCMC-MLE's chains start at)
            run.offset = model.statistics_vector(model.chain_end(run.compiled)) - g_obs
        if s["checkpoint"] is not None:
            run.store = Checkpoint(s["checkpoint"], what=SAState.what).acquire()
        guard = GuardedPhases()
        try:
            if run.D_inv is None:
                guard.run("phase 1", self._phase1, model, run, s)
            for k in range(len(run.history), s["n_subphases"]):
                if not guard.run("phase 2", self._subphase, model, run, s, k):
                    break
        finally:
            if run.store is not None:
                run.store.release()
        guard.run("phase 3", self._phase3, model, run, s)
        theta = run.theta
        warn = []
        if guard.interrupted is not None:
            done = len(run.history)
            where = {"phase 1": "the start", "phase 2": f"the estimate after {done} of "
                     f"{s['n_subphases']} subphases", "phase 3": "the final estimate"}
            msg = (f"stochastic approximation was interrupted by the user in "
                   f"{guard.interrupted}: the estimates are {where[guard.interrupted]}, "
                   "NOT converged; standard errors are NA")
            warnings.warn(msg, ConvergenceWarning, stacklevel=2)
            warn.append(msg)
            cov, t, converged = np.full((p, p), np.nan), np.full(p, np.nan), False
        else:
            final = run.final
            sd = final.std(axis=0, ddof=1)
            t = np.divide(final.mean(axis=0), sd, out=np.zeros(p), where=sd > 0)
            cov = np.linalg.pinv(np.atleast_2d(np.cov(final, rowvar=False)))
            converged = bool(np.all(np.abs(t) < s["t_ratio"]))
        if guard.interrupted is None and not converged:
            msg = (f"stochastic approximation did not converge: phase-3 t-ratios up to "
                   f"{np.max(np.abs(t)):.3f} (criterion {s['t_ratio']}); raise phase2_min or "
                   "n_subphases, or start from this estimate (init=fit.params)")
            warnings.warn(msg, ConvergenceWarning, stacklevel=2)
            warn.append(msg)
        net = getattr(model, "network", None)
        info = {"start": run.how, "history": run.history,
                "t_ratios": dict(zip(model.labels, t.tolist())),
                "acceptance": run.sampler.acceptance_rate,
                "interrupted": guard.interrupted is not None}
        return ERGMResults(theta, cov, model.labels, method="sa",
                           **fit_nobs(model), converged=converged,
                           n_iter=len(run.history), seconds=time.process_time() - t0,
                           se_kind="sa", warnings=warn, info=info,
                           formula=getattr(model, "formula", None), network=net, model=model,
                           dyad_independent=getattr(model, "dyad_independent", None))

    def _phase1(self, model, run, s):
        """Burn-in, then the covariance D of the statistics at the start."""
        p = len(run.theta)
        run.sampler.run(_eta(model, run.theta), s["burnin"])
        draws = _draws(model, run.sampler, run.theta, s["phase1"] or 7 + 3 * p, s["interval"])
        D = np.atleast_2d(np.cov(draws, rowvar=False))
        run.D_inv = np.linalg.pinv(D + 1e-8 * np.eye(p))
        self._save(model, run)

    def _subphase(self, model, run, s, k):
        """Subphase ``k`` of phase 2: Robbins-Monro steps, then the average of its θ's.

        At least N_k⁻ = ``phase2_min`` 2^(4k/3) steps, then until every statistic's
        deviations from the observed ones have a negative lag-1 sum of products (θ
        oscillates about the solution instead of still moving towards it), at most
        N_k⁺ = N_k⁻ + ``SUBPHASE_EXTRA`` steps: Snijders' (2002) rule.  Without it a start
        far away whose first subphase is still on its way leaves that subphase's average
        short of the solution, and the later, smaller gains do not make it up (a
        2-coefficient count model from 0: up to 2.6 s.e. off at the default 9 draws)."""
        p = len(run.theta)
        a = s["gain"] / 2 ** k
        n_min = s["phase2_min"] or 7 + p
        n_k = int(round(n_min * 2 ** (4 * k / 3)))
        n_max = n_k + SUBPHASE_EXTRA
        path = np.empty((n_max, p))
        theta = run.theta
        before, products = None, np.zeros(p)
        n = 0
        while n < n_max:
            run.sampler.run(_eta(model, theta), s["interval"])
            dev = _in_params(model, np.asarray(run.sampler.delta) + run.offset, theta)
            theta = theta - a * run.D_inv @ dev
            path[n] = theta
            n += 1
            if before is not None:
                products += dev * before
            before = dev
            if n >= n_k and np.all(products < 0):
                break
        run.theta = path[:n].mean(axis=0)
        run.history.append({"subphase": k + 1, "gain": a, "draws": n,
                            "theta": run.theta.tolist()})
        self._save(model, run)

    def _phase3(self, model, run, s):
        """Draws at the final θ: the covariance of the statistics and the t-ratios."""
        run.sampler.run(_eta(model, run.theta), s["burnin"])
        run.final = _draws(model, run.sampler, run.theta, s["phase3"], s["interval"],
                           run.offset)

    @staticmethod
    def _save(model, run):
        if run.store is not None:
            ties, values = family_of(model).chain_arrays(model.chain_end(run.compiled))
            SAState(theta=run.theta, D_inv=run.D_inv, history=run.history,
                    ties=ties, values=values).write(run.store, model)


#: a subphase whose θ still moves towards the solution goes on at most this many steps
#: past its minimum (Snijders 2002: N_k⁺ = N_k⁻ + 200)
SUBPHASE_EXTRA = 200


def _history(value, dims):
    """The subphases' records (at most 20, the most subphases a fit has)."""
    if not isinstance(value, list) or len(value) > 20 or not all(
            isinstance(h, dict) for h in value):
        raise ValueError("not a list of at most 20 subphase records")
    return value


class SAState(ModelState):
    """Where a stochastic-approximation fit stands after phase 1 or a subphase: the
    estimate ``theta``, the inverse ``D_inv`` of phase 1's covariance, the finished
    subphases' ``history`` and the chain's network (``ties``: its nonzero dyads;
    ``values``: their values, None for binary ties -- ``ModelFamily.chain_arrays``)."""

    kind = "ergmfit-sa-checkpoint"
    what = "SA checkpoint"
    fields = {"theta": array("float64", ("p",)),
              "D_inv": array("float64", ("p", "p")),
              "history": record(_history),
              "ties": array("int64", (None, 2), low=0, high="last_node"),
              "values": array("int64", (None,), low=0, optional=True)}

    def validate(self, path, model, dims):
        t = self.ties
        if len(t) and np.any(t[:, 0] == t[:, 1]):
            raise ValueError("the chain's network has a loop")
        if self.values is not None and len(self.values) != len(t):
            raise ValueError(f"{len(self.values)} values for {len(t)} nonzero dyads")
        from ...exceptions import NetworkError
        try:
            model.sample_space.check(t)
        except NetworkError as exc:
            raise ValueError(f"the chain's network is outside the sample space ({exc})") \
                from None


def _eta(model, theta):
    """The sampler's natural parameters at θ (with offset terms, θ holds only the free
    coefficients: the model's parameterisation puts the offsets back)."""
    return model.eta(theta) if hasattr(model, "eta") else theta


def _in_params(model, Z, theta):
    """Statistics (rows of ``Z``) in the directions of the parameters θ (with offsets,
    the free ones)."""
    par = getattr(model, "parameterisation", None)
    return par.times_jacobian(Z, theta) if par is not None else Z


def _draws(model, sampler, theta, n, interval, shift=0.0):
    """``n`` draws of g(x) - g(x_start) (+ ``shift``), ``interval`` proposals apart, at
    ``theta``, in the parameters' directions."""
    Z = np.asarray(sampler.sample(_eta(model, theta), n, 0, interval)) + shift
    return _in_params(model, Z, theta)
