"""Posterior results of Bayesian ERGM fits: :class:`BayesResults`.

A :class:`BayesResults` *is* an :class:`~ergmfit.results.ERGMResults`
(``params`` are the posterior means, ``bse`` the posterior standard
deviations, ``cov`` the posterior covariance), so everything that reads a
fit -- the command line's ``--json``, ``save``/``load``, ``simulate``,
``rebuild_model`` -- reads a posterior too.  What it adds:

* ``chains`` -- the draws as an ``(n_chains, n_iter, p)`` array, and
  ``draws`` -- the same stacked chain after chain, ``(n_chains * n_iter, p)``
  (Bergm's ``Theta``);
* ``quantiles()``, ``ess`` (effective sample size, Geyer's initial
  monotone sequence per chain, summed), ``rhat`` (split R-hat, Gelman et al.
  BDA3 11.4), ``mcse`` (sd / sqrt(ess)), ``acceptance`` (per chain) and
  ``acceptance_rate``;
* ``summary()`` laid out as Bergm's ``summary(bergm)``: the posterior mean,
  sd, naive and time-series standard errors (plus ESS and R-hat), then the
  quantiles, then the acceptance rate;
* ``gof()`` -- posterior predictive goodness of fit: one network simulated
  at each of ``n_sim`` posterior draws, each by its own chain from the
  observed network (Bergm's ``bgof``), in parallel with ``n_jobs``;
* ``plot_trace()`` and ``plot_density()``;
* ``to_numpy()`` and, with arviz installed (``pip install arviz``),
  ``to_arviz()`` -- an ``arviz.InferenceData`` whose ``posterior`` group
  holds the chains (use arviz's own diagnostics on it).

Saving (``.json`` or ``.npz``, never pickle) keeps the chains, so a loaded
posterior has the same summary, diagnostics and plots.
"""
from __future__ import annotations

import math

import numpy as np

from .ergm import ERGMResults, LabeledArray, r_format
from .io import _dec_array, _dec_float, _enc
from ..sampling.chains import effective_sizes

__all__ = ["BayesResults", "BayesSummary", "split_rhat", "chain_ess"]

_TITLES = {"bayes": "Approximate exchange algorithm (population MCMC, ADS)",
           "bayes-pl": "Adjusted pseudo-posterior (calibrated pseudo-likelihood)"}


def split_rhat(chains) -> np.ndarray:
    """Split R-hat of each parameter from ``(m, n, p)`` chains (BDA3 11.4):
    every chain cut in halves, then sqrt(var+ / W).  NaN with fewer than 4
    draws per chain; 1 for a parameter that never moves."""
    c = np.asarray(chains, dtype=float)
    m, n, p = c.shape
    half = n // 2
    if half < 2:
        return np.full(p, np.nan)
    s = np.concatenate([c[:, :half], c[:, n - half:]], axis=0)
    # (a column that never moves -- an offset, possibly at -Inf -- has w 0 or NaN: 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = s.var(axis=1, ddof=1).mean(axis=0)
        b = half * s.mean(axis=1).var(axis=0, ddof=1)
        var_plus = (half - 1) / half * w + b / half
        r = np.sqrt(var_plus / w)
    return np.where(w > 0, r, 1.0)


def fixed_columns(draws) -> np.ndarray:
    """Which columns of the (n, p) ``draws`` never move (an offset, possibly at +-Inf).

    >>> fixed_columns(np.array([[0.1, 0.5], [0.2, 0.5]])).tolist()
    [False, True]
    """
    return np.all(draws == draws[:1], axis=0)


def chain_ess(chains) -> np.ndarray:
    """Effective sample size of each parameter: per chain by Geyer's initial
    monotone sequence (:func:`ergmfit.sampling.chains.effective_sizes`), summed."""
    c = np.asarray(chains, dtype=float)
    if c.shape[1] < 4:
        return np.full(c.shape[2], float(c.shape[0] * c.shape[1]))
    # a column constant in every chain (an offset, possibly at +-Inf) counts every draw,
    # as effective_sizes counts it, without its arithmetic on infinite values
    moves = ~fixed_columns(c.reshape(-1, c.shape[2]))
    ess = np.full(c.shape[2], float(c.shape[0] * c.shape[1]))
    if moves.any():
        ess[moves] = effective_sizes(list(c[:, :, moves]))
    return ess


class BayesResults(ERGMResults):
    """A posterior sample of an ERGM's parameters (see the module docstring).

    Parameters
    ----------
    chains : array (n_chains, n_iter, p)
        The kept draws of every chain (after burn-in and thinning).
    labels : list of str
    acceptance : array (n_chains,), optional
        Acceptance rate of every chain.
    prior_mean, prior_cov : arrays, optional
        The multivariate normal prior.
    **kwargs
        Passed to :class:`~ergmfit.results.ERGMResults` (formula, network,
        model, seconds, warnings, info, ...).
    """

    def __init__(self, chains, labels, *, method="bayes", acceptance=None, prior_mean=None,
                 prior_cov=None, **kwargs):
        labels = [str(lab) for lab in labels]
        p = len(labels)
        c = np.asarray(chains, dtype=float)
        self.chains = c.reshape(c.shape[0] if c.ndim == 3 else 1, -1, p)
        draws = self.chains.reshape(-1, p)
        if len(draws) >= 2:
            with np.errstate(invalid="ignore"):     # (an offset's column at +-Inf)
                mean, cov = draws.mean(axis=0), np.atleast_2d(np.cov(draws, rowvar=False))
            fixed = fixed_columns(draws)        # offsets: their value, no variance
            mean[fixed] = draws[0, fixed]
            cov[fixed, :] = 0.0
            cov[:, fixed] = 0.0
        else:
            mean = draws.mean(axis=0) if len(draws) else np.full(p, np.nan)
            cov = np.full((p, p), np.nan)
        kwargs.setdefault("se_kind", "posterior")
        kwargs.setdefault("n_iter", self.chains.shape[1])
        super().__init__(mean, cov, labels, method=method, **kwargs)
        self.acceptance = (np.full(self.chains.shape[0], np.nan) if acceptance is None
                           else np.asarray(acceptance, dtype=float).reshape(-1))
        self.prior_mean = None if prior_mean is None else np.asarray(prior_mean, float).reshape(p)
        self.prior_cov = None if prior_cov is None else np.asarray(prior_cov, float).reshape(p, p)

    def put_offsets_back(self, mask, coef, labels):
        """:meth:`ERGMResults.put_offsets_back`, and every draw holds the offsets
        at ``coef`` (a column that never moves) and the prior is a point mass there
        (mean ``coef``, variance 0), so that the draws, their diagnostics and a saved
        posterior have one column per coefficient, as ``params`` has.

        Examples
        --------
        >>> import numpy as np
        >>> r = BayesResults(np.zeros((2, 3, 1)), ["edges"], prior_mean=[0.0],
        ...                  prior_cov=[[100.0]])
        >>> r.put_offsets_back(np.array([False, True]), np.array([0.5]),
        ...                    ["edges", "offset(triangle)"])
        >>> r.draws[0].tolist(), r.prior_mean.tolist(), r.ess.tolist()
        ([0.0, 0.5], [0.0, 0.5], [6.0, 6.0])
        """
        from .ergm import _with_zero_rows
        super().put_offsets_back(mask, coef, labels)
        mask = np.asarray(mask, dtype=bool)
        chains = np.empty(self.chains.shape[:2] + (len(mask),))
        chains[:, :, mask] = np.asarray(coef, dtype=float)
        chains[:, :, ~mask] = self.chains
        self.chains = chains
        if self.prior_mean is not None:
            mean = np.empty(len(mask))
            mean[mask], mean[~mask] = coef, self.prior_mean
            self.prior_mean = mean
        if self.prior_cov is not None:
            self.prior_cov = _with_zero_rows(self.prior_cov, mask)

    # -- the draws -----------------------------------------------------------
    @property
    def draws(self) -> np.ndarray:
        """All kept draws, chain after chain: an ``(n_draws, p)`` array."""
        return self.chains.reshape(-1, self.n_params)

    @property
    def n_draws(self) -> int:
        return self.chains.shape[0] * self.chains.shape[1]

    @property
    def n_chains(self) -> int:
        return self.chains.shape[0]

    def to_numpy(self) -> np.ndarray:
        """A copy of :attr:`draws`."""
        return self.draws.copy()

    def to_arviz(self):
        """The chains as an ``arviz.InferenceData`` (needs ``pip install arviz``)."""
        try:
            import arviz as az
        except ImportError:
            raise ImportError("to_arviz() needs arviz: pip install arviz (the draws are "
                              "also available as a numpy array: fit.draws)") from None
        posterior = {lab: self.chains[:, :, k] for k, lab in enumerate(self.labels)}
        try:                        # arviz < 1.0
            return az.from_dict(posterior=posterior)
        except TypeError:           # arviz >= 1.0: groups in one dict
            return az.from_dict({"posterior": posterior})

    # -- diagnostics ---------------------------------------------------------
    def quantiles(self, q=(0.025, 0.25, 0.5, 0.75, 0.975)) -> LabeledArray:
        """Posterior quantiles: a ``(p, len(q))`` array (R's type-7 quantiles)."""
        q = np.atleast_1d(np.asarray(q, dtype=float))
        if self.n_draws == 0:
            return LabeledArray(np.full((self.n_params, len(q)), np.nan), self.labels)
        d = self.draws
        with np.errstate(invalid="ignore"):         # (-Inf - -Inf in the interpolation)
            out = np.quantile(d, q, axis=0).T
        fixed = fixed_columns(d)                    # an offset's column: its value
        out[fixed] = d[0, fixed][:, None]
        return LabeledArray(out, self.labels)

    def conf_int(self, alpha: float = 0.05) -> LabeledArray:
        """Equal-tailed credible intervals (alpha/2 and 1 - alpha/2 quantiles), ``(p, 2)``."""
        return self.quantiles((alpha / 2.0, 1.0 - alpha / 2.0))

    @property
    def ess(self) -> LabeledArray:
        """Effective sample size of each parameter (see :func:`chain_ess`)."""
        return LabeledArray(chain_ess(self.chains), self.labels)

    @property
    def rhat(self) -> LabeledArray:
        """Split R-hat of each parameter (see :func:`split_rhat`)."""
        return LabeledArray(split_rhat(self.chains), self.labels)

    @property
    def mcse(self) -> LabeledArray:
        """Monte Carlo standard error of each posterior mean: sd / sqrt(ESS)."""
        return LabeledArray(np.asarray(self.bse) / np.sqrt(np.asarray(self.ess)), self.labels)

    @property
    def acceptance_rate(self) -> float:
        """The overall acceptance rate (mean over chains)."""
        a = self.acceptance[np.isfinite(self.acceptance)]
        return float(a.mean()) if a.size else float("nan")

    # -- presentation --------------------------------------------------------
    def summary(self) -> "BayesSummary":
        """Bergm's ``summary(bergm)`` as an object that prints."""
        return BayesSummary(self)

    def __repr__(self):
        return (f"<BayesResults method={self.method!r} draws={self.n_draws} chains={self.n_chains} "
                f"params={dict(zip(self.labels, np.round(np.asarray(self.params), 4).tolist()))}>")

    def plot_trace(self, path=None, **kwargs):
        """Trace plot of every parameter, one line per chain (see
        :func:`ergmfit.plotting.posterior_trace_plot`)."""
        from ..plotting import posterior_trace_plot
        return posterior_trace_plot(self.chains, self.labels, path=path, **kwargs)

    def plot_density(self, path=None, **kwargs):
        """Posterior density (kernel estimate) of every parameter (see
        :func:`ergmfit.plotting.posterior_density_plot`)."""
        from ..plotting import posterior_density_plot
        return posterior_density_plot(self.draws, self.labels, path=path, **kwargs)

    # -- posterior predictive checks -----------------------------------------
    def gof(self, n_sim=100, random_state=None, steps=None, n_jobs=1, backend=None, **kwargs):
        """Posterior predictive goodness of fit (Bergm's ``bgof``): ``n_sim``
        draws picked at random from the posterior and one network simulated at
        each, by its own chain of ``steps`` proposals from the observed network
        (default: the fit's auxiliary chain length ``diagnostics.aux_iters``, which
        its pilot found long enough for near-stationary draws), so the
        networks are independent given the draws.  The chains run in
        ``n_jobs`` processes (joblib; ``backend`` as in
        :func:`ergmfit.runtime.parallel.parallel_map`); every network has its
        own seed, so the result does not depend on ``n_jobs``.  Other
        settings (``statistics``, ``proposal``, ``verbose``) go to
        :func:`ergmfit.gof.gof`."""
        from ..runtime import parallel_map
        rows, seeds, steps = self._predictive_plan(n_sim, random_state, steps)
        for key in ("burnin", "interval", "params", "n_sim", "mcmc"):
            if key in kwargs:
                raise ValueError(f"gof of a posterior sets {key!r} itself; give steps= (the "
                                 "proposals of every network's chain) instead")
        model = self.rebuild_model()
        parts = np.array_split(np.arange(len(rows)), max(1, min(int(n_jobs) if n_jobs > 0
                                                             else len(rows), len(rows))))
        done = parallel_map(_predictive_part, [(model, rows[ix], seeds[ix], steps, kwargs)
                                               for ix in parts if len(ix)],
                            n_jobs=n_jobs, backend=backend)
        return _merge_gof([r for part in done for r in part], rows, steps)

    def _predictive_plan(self, n_sim, random_state, steps):
        """The posterior rows, the seed of every network and the chain length of a
        posterior predictive check."""
        from ..utils.validation import check_random_state
        if self.n_draws == 0:
            raise ValueError("this posterior holds no draws")
        rng = check_random_state(random_state)
        n_sim = int(n_sim)
        if n_sim < 1:
            raise ValueError(f"n_sim must be at least 1, got {n_sim}")
        rows = self.draws[rng.choice(self.n_draws, size=n_sim, replace=self.n_draws < n_sim)]
        seeds = rng.integers(0, 2**63 - 1, size=n_sim)
        if steps is None:
            steps = getattr(self.diagnostics, "aux_iters", None) or 1000
        steps = int(steps)
        if steps < 1:
            raise ValueError(f"steps must be at least 1, got {steps}")
        return rows, seeds, steps

    # -- serialisation -------------------------------------------------------
    def to_dict(self, include_network: bool = False) -> dict:
        d = super().to_dict(include_network=include_network)
        d.update(_enc({"results_class": BayesResults.saved_name(),
                       "chains": self.chains, "acceptance": self.acceptance,
                       "prior_mean": self.prior_mean, "prior_cov": self.prior_cov,
                       "posterior": {"ess": np.asarray(self.ess), "rhat": np.asarray(self.rhat),
                                     "quantiles": np.asarray(self.quantiles())}}))
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "BayesResults":
        labels = d["labels"]
        p = len(labels)
        chains = d.get("chains")
        chains = (np.zeros((1, 0, p)) if chains is None or len(chains) == 0
                  else _dec_array(chains).reshape(len(chains), -1, p))
        opt = {k: _dec_array(d.get(k)) for k in ("acceptance", "prior_mean", "prior_cov")}
        return cls(chains, labels, method=d.get("method", "bayes"),
                   acceptance=opt["acceptance"], prior_mean=opt["prior_mean"],
                   prior_cov=opt["prior_cov"],
                   loglik=None if d.get("loglik") is None else _dec_float(d["loglik"]),
                   loglik_kind=d.get("loglik_kind"), nobs=d.get("nobs"),
                   null_loglik=None if d.get("null_loglik") is None
                   else _dec_float(d["null_loglik"]),
                   converged=d.get("converged", True), seconds=d.get("seconds", 0.0),
                   warnings=d.get("warnings", ()), info=d.get("info"),
                   formula=d.get("formula"), network=d.get("network"),
                   dyad_independent=d.get("dyad_independent"))


def _predictive_part(model, rows, seeds, steps, kwargs):
    """One network per row, each by its own chain from the observed network."""
    from ..gof import gof as _gof
    return [_gof(model, params=row[None, :], n_sim=1, burnin=0, interval=steps,
                 random_state=int(seed), **kwargs) for row, seed in zip(rows, seeds)]


def _merge_gof(results, rows, steps):
    """One :class:`~ergmfit.gof.GofResult` from single-network ones (their rows
    trimmed to their own informative range: padded with zeros to the widest)."""
    from ..gof import GofBlock, GofResult
    first = results[0]
    blocks = []
    for name in first.blocks:
        parts = [r.blocks[name] for r in results]
        wide = max(parts, key=lambda b: len(b.labels))
        k = len(wide.labels)
        sims = []
        for b in parts:
            sim = np.zeros((b.n_sim, k))
            if name == "distance":          # finite distances, then the Inf column
                sim[:, :len(b.labels) - 1] = b.sim[:, :-1]
                sim[:, -1] = b.sim[:, -1]
            else:
                sim[:, :len(b.labels)] = b.sim
            sims.append(sim)
        blocks.append(GofBlock(name, wide.labels, wide.obs, np.vstack(sims)))
    return GofResult(blocks, n_sim=len(results), burnin=0, interval=steps,
                     params=dict(zip(first.params, rows.mean(axis=0).tolist())),
                     formula=first.formula, directed=first.directed, n_nodes=first.n_nodes,
                     acceptance_rate=float(np.mean([r.acceptance_rate for r in results])),
                     seconds=float(sum(r.seconds for r in results)), proposal=first.proposal)


def _table(row_labels, heads, columns) -> list:
    widths = [max([len(h)] + [len(c) for c in col]) for h, col in zip(heads, columns)]
    wl = max([len(s) for s in row_labels] + [0])
    lines = [" " * wl + "".join(" " + h.rjust(w) for h, w in zip(heads, widths))]
    for k, lab in enumerate(row_labels):
        lines.append(lab.ljust(wl) + "".join(" " + col[k].rjust(w)
                                             for col, w in zip(columns, widths)))
    return lines


def _col(values, digits=7) -> list:
    return [s.strip() for s in r_format([float(v) for v in values], digits)]


class BayesSummary:
    """Bergm's ``summary(bergm)``: posterior moments, quantiles, acceptance rate.

    ``rows()`` gives one dict per parameter (label, mean, sd, naive_se,
    time_series_se, ess, rhat and the quantiles).
    """

    QUANTILES = (0.025, 0.25, 0.5, 0.75, 0.975)

    def __init__(self, results: BayesResults):
        self.results = results

    def row_labels(self) -> list:
        return [f"theta{k + 1} ({lab})" for k, lab in enumerate(self.results.labels)]

    def rows(self) -> list:
        r = self.results
        mean, sd = np.asarray(r.params), np.asarray(r.bse)
        ess, rhat, q = np.asarray(r.ess), np.asarray(r.rhat), np.asarray(r.quantiles(self.QUANTILES))
        n = max(r.n_draws, 1)
        out = []
        for k, lab in enumerate(r.labels):
            row = {"label": lab, "mean": float(mean[k]), "sd": float(sd[k]),
                   "naive_se": float(sd[k] / math.sqrt(n)),
                   "time_series_se": float(sd[k] / math.sqrt(ess[k])) if ess[k] > 0 else math.nan,
                   "ess": float(ess[k]), "rhat": float(rhat[k])}
            for qq, v in zip(self.QUANTILES, q[k]):
                row[f"{100 * qq:g}%"] = float(v)
            out.append(row)
        return out

    def __str__(self) -> str:
        r = self.results
        rows = self.rows()
        lines = ["", f" Posterior Density Estimate for Model: y ~ {r.formula}", "",
                 f" {_TITLES.get(r.method, r.method)}: {r.n_chains} chains x "
                 f"{r.chains.shape[1]} kept draws = {r.n_draws} draws", ""]
        labels = self.row_labels()
        heads = ["Mean", "SD", "Naive SE", "Time-series SE", "ESS", "R-hat"]
        cols = [_col([row["mean"] for row in rows]), _col([row["sd"] for row in rows]),
                _col([row["naive_se"] for row in rows]),
                _col([row["time_series_se"] for row in rows]),
                [f"{row['ess']:.0f}" for row in rows], [f"{row['rhat']:.3f}" for row in rows]]
        lines += _table(labels, heads, cols) + [""]
        qheads = [f"{100 * q:g}%" for q in self.QUANTILES]
        lines += _table(labels, qheads, [_col([row[h] for row in rows]) for h in qheads])
        lines += ["", f" Acceptance rate: {r_format([r.acceptance_rate], 2)[0].strip()}", ""]
        if r.warnings:
            lines += r.warnings + [""]
        return "\n".join(lines)

    def __repr__(self):
        return self.__str__()

    def as_text(self) -> str:
        return str(self)

    def to_frame(self):
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("BayesSummary.to_frame() needs pandas; rows() gives the same "
                              "table as a list") from None
        rows = self.rows()
        return pd.DataFrame([{k: v for k, v in row.items() if k != "label"} for row in rows],
                            index=[row["label"] for row in rows])
