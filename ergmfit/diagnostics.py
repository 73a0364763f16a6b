"""MCMC diagnostics of a fit's last sample, as statnet's ``mcmc.diagnostics``.

``fit.mcmc_diagnostics()`` (an :class:`~ergmfit.results.ERGMResults` of
MCMC-MLE or EE) returns an :class:`MCMCDiagnostics` of the last MCMC sample the
estimator drew (MCMC-MLE's boosted last sample; EE's simulation at its
estimate, one chain per EE chain), centred on the observed
statistics as statnet's are:

* ``summary``: mean, sd, naive and time-series standard error of each
  statistic minus its observed value (statnet's "Sample statistics summary");
* ``autocorr``: autocorrelation at lags 0-5 draws (statnet prints them at
  lags 0, interval, 2 x interval, ...);
* ``ess``: effective sample size of each statistic (Geyer's initial monotone
  sequence, :func:`ergmfit.sampling.chains.effective_sizes`);
* ``geweke``: Geweke's z of each statistic (mean of the first 10 % against
  the last 50 %, coda's ``geweke.diag``) with its two-sided p-value, and a
  joint p-value (statnet's "Joint P-value (lower = worse)");
* ``rhat``: the Gelman-Rubin potential scale reduction factor (coda's
  ``gelman.diag``) over the chains, each split in halves (split R-hat, so
  one chain gives one too).

``plot()`` draws statnet's trace + density panels of every statistic.
Nothing here needs arviz; :meth:`MCMCDiagnostics.to_arviz` hands the sample
to it for its own plots when it is installed.
"""
from __future__ import annotations

import numpy as np
from scipy import special, stats

from .exceptions import ErgmfitError
from .sampling.chains import integrated_autocorrelation_time, effective_sizes

LAGS = (0, 1, 2, 3, 4, 5)


def _mean_var(x):
    """Variance of the mean of a series from its autocorrelation time
    (coda's spectral density at 0 divided by n)."""
    n = len(x)
    v = float(np.var(x, ddof=1)) if n > 1 else 0.0
    return v * (integrated_autocorrelation_time(x) if v > 0 else 1.0) / max(n, 1)


def geweke(x, first=0.1, last=0.5):
    """Geweke's z: the mean of the first ``first`` of the series against the
    mean of the last ``last``, standardised by their autocorrelation-corrected
    variances.  0 when the series does not vary."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    a, b = x[: max(2, int(first * n))], x[n - max(2, int(last * n)):]
    var = _mean_var(a) + _mean_var(b)
    return 0.0 if var <= 0 else float((a.mean() - b.mean()) / np.sqrt(var))


def split_rhat(chains):
    """Gelman-Rubin R-hat of one statistic over the halves of every chain."""
    halves = []
    for c in chains:
        m = len(c) // 2
        if m >= 2:
            halves += [c[:m], c[m:2 * m]]
    if len(halves) < 2:
        return float("nan")
    n = min(len(h) for h in halves)
    h = np.array([x[:n] for x in halves])
    W = float(np.mean(h.var(axis=1, ddof=1)))
    B = n * float(h.mean(axis=1).var(ddof=1))
    if W <= 0:
        return 1.0 if B <= 0 else float("inf")
    return float(np.sqrt(((n - 1) / n * W + B / n) / W))


def autocorr(x, lags=LAGS):
    x = np.asarray(x, dtype=float) - np.mean(x)
    v = float(x @ x)
    if v <= 0:
        return np.array([1.0] + [np.nan] * (len(lags) - 1))
    return np.array([float(x[: len(x) - k] @ x[k:]) / v for k in lags])


class MCMCDiagnostics:
    """Diagnostics of an MCMC sample of statistics (see the module docstring).

    Parameters
    ----------
    chains : list of (n_c, p) arrays
        The sampled statistics of each chain (not centred).
    observed : array (p,)
        The observed statistics; everything is reported relative to them.
    labels : list of str
    interval : int, optional
        Proposals between draws (labels the autocorrelation lags).
    method : str
        The estimator that drew the sample.
    """

    def __init__(self, chains, observed, labels, interval=None, method="mcmle"):
        self.chains = [np.asarray(c, dtype=float).reshape(len(c), -1) for c in chains]
        self.observed = np.asarray(observed, dtype=float).ravel()
        self.labels = [str(s) for s in labels]
        p = len(self.labels)
        if any(c.shape[1] != p for c in self.chains) or len(self.observed) != p:
            raise ErgmfitError(f"the sample has {self.chains[0].shape[1]} statistics for "
                               f"{p} labels")
        self.interval = interval
        self.method = method
        centred = [c - self.observed for c in self.chains]
        Z = np.concatenate(centred)
        self.n = len(Z)
        self.mean = Z.mean(axis=0)
        self.sd = Z.std(axis=0, ddof=1)
        self.naive_se = self.sd / np.sqrt(self.n)
        self.ess = effective_sizes(centred)
        self.ts_se = np.where(self.ess > 0, self.sd / np.sqrt(np.maximum(self.ess, 1e-300)),
                              np.nan)
        self.autocorr = np.array([autocorr(Z[:, k]) for k in range(p)]).T     # (lags, p)
        # Geweke per chain, combined over chains by Stouffer's sum
        zs = np.array([[geweke(c[:, k]) for k in range(p)] for c in centred])
        self.geweke_z = zs.sum(axis=0) / np.sqrt(len(centred))
        self.geweke_p = 2.0 * special.ndtr(-np.abs(self.geweke_z))
        self.geweke_joint_p = self._joint_geweke(centred)
        self.rhat = np.array([split_rhat([c[:, k] for c in centred]) for k in range(p)])

    @staticmethod
    def _joint_geweke(centred):
        """Joint p-value of the Geweke differences: a chi-square of the
        first-10 % minus last-50 % mean vectors, their covariance from the
        per-statistic variances and the sample correlation."""
        chi2, dof = 0.0, 0
        for c in centred:
            n, p = c.shape
            a, b = c[: max(2, int(0.1 * n))], c[n - max(2, int(0.5 * n)):]
            sd = np.sqrt([_mean_var(a[:, k]) + _mean_var(b[:, k]) for k in range(p)])
            keep = sd > 0
            if not keep.any():
                continue
            d = (a.mean(axis=0) - b.mean(axis=0))[keep] / sd[keep]
            R = np.atleast_2d(np.corrcoef(c[:, keep], rowvar=False))
            chi2 += float(d @ np.linalg.lstsq(R, d, rcond=None)[0])
            dof += int(keep.sum())
        return float(stats.chi2.sf(chi2, dof)) if dof else float("nan")

    # -- tables ----------------------------------------------------------
    def to_frame(self):
        """One row per statistic: mean, sd, naive and time-series SE (of the
        statistic minus its observed value), ESS, Geweke z and p, R-hat."""
        import pandas as pd
        return pd.DataFrame({"mean": self.mean, "sd": self.sd, "naive_se": self.naive_se,
                             "ts_se": self.ts_se, "ess": self.ess, "geweke_z": self.geweke_z,
                             "geweke_p": self.geweke_p, "rhat": self.rhat}, index=self.labels)

    def summary(self) -> str:
        w = max(12, max(len(s) for s in self.labels) + 1)
        step = self.interval or 1
        out = [f"Sample statistics summary ({self.method}, {self.n} draws in "
               f"{len(self.chains)} chain(s), relative to the observed statistics):", "",
               f"{'':<{w}}{'Mean':>11}{'SD':>11}{'Naive SE':>11}{'Time-series SE':>16}"
               f"{'ESS':>9}"]
        for k, lab in enumerate(self.labels):
            out.append(f"{lab:<{w}}{self.mean[k]:>11.4g}{self.sd[k]:>11.4g}"
                       f"{self.naive_se[k]:>11.4g}{self.ts_se[k]:>16.4g}{self.ess[k]:>9.1f}")
        out += ["", "Sample statistics auto-correlation:",
                f"{'':<{10}}" + "".join(f"{lab[:w - 1]:>{w}}" for lab in self.labels)]
        for i, lag in enumerate(LAGS):
            out.append(f"{'Lag ' + str(lag * step):<10}"
                       + "".join(f"{self.autocorr[i, k]:>{w}.4f}" for k in range(len(self.labels))))
        out += ["", "Sample statistics burn-in diagnostic (Geweke): first 10% vs last 50%",
                f"{'':<{w}}{'z':>9}{'P-value':>10}{'R-hat':>9}"]
        for k, lab in enumerate(self.labels):
            out.append(f"{lab:<{w}}{self.geweke_z[k]:>9.3f}{self.geweke_p[k]:>10.4f}"
                       f"{self.rhat[k]:>9.3f}")
        out += [f"Joint P-value (lower = worse): {self.geweke_joint_p:.4g}",
                "(R-hat: Gelman-Rubin over the chains split in halves; near 1 is good)"]
        return "\n".join(out)

    def __str__(self):
        return self.summary()

    def __repr__(self):
        return (f"<MCMCDiagnostics {self.method}: {self.n} draws, {len(self.labels)} statistics, "
                f"min ESS {float(np.min(self.ess)):.0f}, joint Geweke p "
                f"{self.geweke_joint_p:.3g}>")

    def _repr_html_(self):
        """The notebook's display: the summary's tables (statistics minus their observed
        values; Geweke p-values below 0.05 in red)."""
        from .results.htmltable import html_table
        step = self.interval or 1
        head = (f"<p><b>MCMC diagnostics</b> ({self.method}): {self.n} draws in "
                f"{len(self.chains)} chain(s), statistics relative to their observed values; "
                f"joint Geweke p-value {self.geweke_joint_p:.4g} (lower = worse)</p>")
        cols = ["Mean", "SD", "Naive SE", "Time-series SE", "ESS", "Geweke z", "Geweke p",
                "R-hat"]
        rows = [(lab, [self.mean[k], self.sd[k], self.naive_se[k], self.ts_se[k], self.ess[k],
                       self.geweke_z[k], self.geweke_p[k], self.rhat[k]])
                for k, lab in enumerate(self.labels)]
        summary = html_table(cols, rows, caption="Sample statistics",
                             flag=lambda col, v: col == "Geweke p" and v < 0.05)
        acf = html_table(self.labels, [(f"Lag {lag * step}", self.autocorr[i])
                                       for i, lag in enumerate(LAGS)],
                         caption="Sample statistics auto-correlation")
        return head + summary + acf

    # -- plots -------------------------------------------------------------
    def plot(self, path=None, **kwargs):
        """Trace and density of every statistic minus its observed value
        (statnet's ``mcmc.diagnostics`` plots); see
        :func:`ergmfit.plotting.mcmc_diagnostics_plot`."""
        from .plotting import mcmc_diagnostics_plot
        return mcmc_diagnostics_plot([c - self.observed for c in self.chains], self.labels,
                                     path=path, **kwargs)

    def to_arviz(self):
        """The centred sample as an ``arviz.InferenceData`` (``posterior`` group,
        one variable per statistic), for arviz's own diagnostics and plots."""
        try:
            import arviz as az
        except ImportError:
            raise ErgmfitError("to_arviz needs arviz (pip install arviz)") from None
        n = min(len(c) for c in self.chains)
        arr = np.array([c[:n] - self.observed for c in self.chains])
        return az.from_dict(posterior={lab: arr[:, :, k] for k, lab in enumerate(self.labels)})


def from_results(results):
    """The diagnostics of a fit's kept sample (``results.mcmc_sample``)."""
    s = results.mcmc_sample
    if not s:
        raise ErgmfitError(
            f"this {results.method!r} fit keeps no MCMC sample: mcmc_diagnostics() needs a fit "
            "by method='mcmle' or method='ee' (with se='simulate', not interrupted before its "
            "simulation); a saved fit keeps its sample (ERGMResults.save/load)")
    return MCMCDiagnostics(s["chains"], s["observed"], s["labels"], interval=s.get("interval"),
                           method=results.method)
