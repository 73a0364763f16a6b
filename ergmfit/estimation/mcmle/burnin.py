"""Whether an MCMC-MLE sample is fit to step on: a sample whose chains are still
drifting (burning in), or that holds too few effective draws, gives an
importance-sampling step that is noise -- it is redrawn instead, the chains going on
from where they stopped, at the same parameters and with the interval adapted.

statnet's adaptive MCMC (``MCMC.effectiveSize``, on by default in ergm 4's MCMLE) does
the same: it runs the chain forward until the sample reaches its effective size, and
tests the burn-in (``MCMC.effectiveSize.burnin.pval``) before the sample is used.

Which models need it is the model's declaration (``ModelFamily.min_step_ess_share``,
read through ``model.min_step_ess_share``): the count family's chains from its MPLE
drift for millions of proposals before they settle (docs/valued_terms.md, "MCMC-MLE
of the issue-554 model"), the binary family keeps its fits as they were (0: off).
"""
from __future__ import annotations

import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, SettingsError
from ...sampling.chains import batch_means_cov

#: at most this many samples in a row are redrawn at the same parameters; the next
#: one is stepped on whatever its effective size (as statnet's
#: ``MCMC.effectiveSize.maxruns`` bounds its runs)
MAX_REDRAWS = 4
#: a redrawn sample's interval grows at most this many times over the last one's
REDRAW_GROWTH = 2
#: a drift between a chain's first and second half larger than this many Monte Carlo
#: standard errors, in the statistic that drifts most (a Bonferroni-like bound for
#: ~20 statistics), marks the sample as still burning in
DRIFT_Z = 4.0


def drift_z(chains) -> np.ndarray:
    """Per statistic, the largest over chains of |mean(second half) - mean(first half)|
    in units of its Monte Carlo standard error under stationarity (twice the batch-means
    variance of the second half's mean): a Geweke-type test that the chain has
    finished its burn-in.

    Parameters
    ----------
    chains : list of (n, p) arrays
        The sample's chains of statistics (any centring).

    Returns
    -------
    (p,) array (0 where a statistic does not vary).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> flat = [rng.standard_normal((400, 2))]
    >>> trend = [flat[0] + np.linspace(0, 3, 400)[:, None]]
    >>> bool(drift_z(flat).max() < DRIFT_Z), bool(drift_z(trend).max() > DRIFT_Z)
    (True, True)
    """
    out = None
    for c in chains:
        c = np.asarray(c, dtype=float)
        half = len(c) // 2
        if half < 8:
            continue
        a, b = c[:half], c[-half:]
        # both halves' means have the Monte Carlo variance of the second one's when the
        # chain is stationary; the first half's own batch means would count a drift
        # within it as variance and hide it
        var = 2.0 * np.diag(batch_means_cov([b]))
        diff = np.abs(b.mean(axis=0) - a.mean(axis=0))
        z = np.where(var > 0, diff / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)
        out = z if out is None else np.maximum(out, z)
    if out is None:
        return np.zeros(np.asarray(chains[0]).shape[1])
    return out


def drifting(chains) -> bool:
    """Whether a chain of ``chains`` still drifts (:func:`drift_z` above :data:`DRIFT_Z`)."""
    z = drift_z(chains)
    return bool(z.size and float(z.max()) > DRIFT_Z)


#: a sample's burn-in runs in at most this many parts (each at most the sample's size)
#: before the sample is stepped on whatever its drift (statnet's
#: ``MCMC.effectiveSize.maxruns``): where the burn-in never ends (the issue-554 count model
#: at its SA start) more parts only cost proposals without a step (the measurement:
#: docs/valued_terms.md, "burn-in by parts")
MAX_SETTLE = 4
#: where a chain's burn-in may end: these shares of the sample's draws are tried in turn
BURNIN_CUTS = (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75)


def burnin_cut(chains):
    """Draws to drop from the head of every chain of ``chains`` so that the rest no longer
    drifts (:func:`drift_z` at most :data:`DRIFT_Z`), the first of :data:`BURNIN_CUTS` of
    the shortest chain that does; None when none does (the whole sample is burn-in).  The
    burn-in test of statnet's adaptive MCMC (``MCMC.effectiveSize.burnin.pval``): a
    Geweke-type comparison of the halves of what is kept.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((512, 2))
    >>> burnin_cut([x])
    0
    >>> x[:, 0] += 30 * np.exp(-np.arange(512) / 20.0)     # relaxing, then settled
    >>> burnin_cut([x])
    64
    """
    n = min(len(c) for c in chains)
    for share in BURNIN_CUTS:
        k = int(share * n)
        z = drift_z([np.asarray(c)[k:] for c in chains])
        if not z.size or float(z.max()) <= DRIFT_Z:
            return k
    return None


def settle(chains, more, min_ess=0.0, max_growth=4, proj=None):
    """A sample whose burn-in has ended: while the chains still drift, the draws before
    the burn-in's end (:func:`burnin_cut`; all of them when no cut ends it) are dropped
    and the chains go on to replace them; a settled sample with fewer than ``min_ess``
    effective draws (multivariate) goes on too, keeping its draws, up to ``max_growth``
    x its size.  At most :data:`MAX_SETTLE` parts.  statnet's adaptive MCMC
    (``MCMC.effectiveSize``) runs its chains on in the same way.

    Parameters
    ----------
    chains : list of (n, p) arrays
        The sample's chains of statistics.
    more : callable
        ``more(k, chains)``: k further draws of every chain, from where it stopped (a list
        of (k, p) arrays).
    min_ess : float
        Effective draws a settled sample needs (0: none).
    proj : callable, optional
        Maps a chain's statistics to what is tested (a curved model's directions).

    Returns
    -------
    (chains, record): the settled sample, and ``{"burnin_parts", "burnin_draws"}`` (the
    parts run on, the draws dropped over all chains; empty when none was run).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> relaxing = [rng.standard_normal((256, 2)) + 40 * np.exp(-np.arange(256) / 20)[:, None]]
    >>> chains, record = settle(relaxing, lambda k, c: [rng.standard_normal((k, 2))])
    >>> record["burnin_parts"] >= 1, len(chains[0])
    (True, 256)
    """
    from ...sampling.chains import multivariate_ess
    proj = proj or (lambda c: c)
    first = sum(len(c) for c in chains)
    dropped = parts = 0
    for parts in range(MAX_SETTLE + 1):
        zp = [proj(c) for c in chains]
        cut = burnin_cut(zp)
        if cut == 0:
            if (min_ess <= 0 or sum(len(c) for c in chains) >= max_growth * first
                    or multivariate_ess(zp) >= min_ess):
                break
            k = min(len(c) for c in chains)         # settled but short: go on
        else:
            k = cut if cut is not None else min(len(c) for c in chains)
        if parts == MAX_SETTLE:
            break
        new = more(k, chains)
        drop = k if cut != 0 else 0
        dropped += drop * len(chains)
        chains = [np.vstack([c[drop:], m]) for c, m in zip(chains, new)]
    return chains, ({"burnin_parts": parts, "burnin_draws": dropped} if parts else {})


#: phase-3 draws of the stochastic approximation that moves a drifting start: its
#: estimate is what is used, not its standard errors
APPROACH_PHASE3 = 50
#: the Newton approach: draws per sample, most Newton steps
NEWTON_DRAWS = 256
NEWTON_STEPS = 5
#: its samples start at this many times the MCMC-MLE's interval (whose sample drifted)
NEWTON_INTERVAL_FACTOR = 4
#: it hands over to the MCMC-MLE steps once Hummel's step length reaches this
NEWTON_HANDOVER = 0.5


def approach(model, method, theta, random_state, interval=1024, max_interval=2 ** 20):
    """The start moved from ``theta`` for a start whose MCMC-MLE chains still drift;
    returns ``(theta, interval)``, the new start and the interval its chains need.

    ``"newton"``: :func:`newton_approach`.  ``"sa"``: Robbins-Monro stochastic
    approximation (:class:`~ergmfit.estimation.sa.robbins_monro.SA`, on a chain from the
    observed network; the interval unchanged).  See docs/valued_terms.md, "MCMC-MLE of
    the issue-554 model"."""
    if method == "newton":
        return newton_approach(model, theta, random_state, interval, max_interval)
    if method != "sa":
        raise SettingsError(f"drift_start={method!r}: the start is moved by 'newton' or 'sa'")
    from ..sa.robbins_monro import SA
    with warnings.catch_warnings():     # not converged by SA's own t-ratios: MCMC-MLE goes on
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = SA(init=np.asarray(theta, dtype=float), random_state=random_state,
                 phase3=APPROACH_PHASE3).fit(model)
    return np.asarray(fit.params, dtype=float), interval


def newton_approach(model, theta, random_state, interval=1024, max_interval=2 ** 20):
    """Newton steps on equilibrium samples: at θ, a chain whose burn-in runs on until it
    has ended and that has 2p effective draws (:func:`settle`, up to 4 x its draws), then
    θ ← θ + Σ⁻¹ (g(x_obs) − μ), μ and Σ the sample's mean and covariance (the
    maximiser of the log-normal approximation of the log-likelihood, statnet's
    ``MCMLE.metric="lognormal"``, with no step-length limit), until Hummel's step length
    reaches :data:`NEWTON_HANDOVER` (the MCMC-MLE steps take over), at most
    :data:`NEWTON_STEPS` times; a step after which the sample lies farther from the data
    (Mahalanobis distance of its mean) than before is halved back.

    Why: a count chain from its MPLE can relax for millions of proposals to an
    equilibrium far from the data (the issue-554 model: 30-37 s.d. away), from which
    Hummel's steps, bounded by the sample's convex hull, move a few % per iteration;
    the first Newton step from that equilibrium lands within about 10 s.d.
    (docs/valued_terms.md).  Returns ``(theta, interval)``."""
    from ...sampling.chains import run_chains
    from ..common.stepping import hummel_step
    rng = random_state
    g_obs = model.statistics_vector()
    theta = np.asarray(theta, dtype=float).copy()
    p = len(theta)
    interval = min(int(interval) * NEWTON_INTERVAL_FACTOR, int(max_interval))
    starts, before, last = None, None, None
    for _ in range(NEWTON_STEPS):
        chains, starts, _acc = run_chains(model, theta, NEWTON_DRAWS, 4 * interval, interval,
                                          starts, random_state=rng)
        ends = [starts]

        def more(k, chains, theta=theta):
            new, ends[0], _acc = run_chains(model, theta, k * len(chains), 0, interval,
                                            ends[0], random_state=rng)
            return new
        # its burn-in run on until it has ended, and 2p effective draws (up to 4 x the draws)
        chains, _record = settle(chains, more, 2 * p)
        starts = ends[0]
        Z = np.concatenate(chains) - g_obs
        zbar = Z.mean(axis=0)
        C = np.atleast_2d(np.cov(Z, rowvar=False))
        dist = float(zbar @ np.linalg.lstsq(C, zbar, rcond=None)[0])
        if before is not None and dist > before and last is not None:
            theta = theta - 0.5 * last          # farther than before: halve the step back
            last = 0.5 * last
            continue
        if hummel_step(Z) >= NEWTON_HANDOVER:
            break
        last = np.linalg.lstsq(C, -zbar, rcond=None)[0]
        theta, before = theta + last, dist
    return theta, interval


def unfit_to_step(chains, mess, min_ess):
    """Why the sample ``chains`` (effective size ``mess``, multivariate) is not fit to
    step on, or None: fewer than ``min_ess`` effective draws, or chains still
    drifting (:func:`drift_z` above :data:`DRIFT_Z`)."""
    if mess < min_ess:
        return f"{mess:.1f} effective draws, fewer than {min_ess:.0f}"
    z = drift_z(chains)
    if z.size and float(z.max()) > DRIFT_Z:
        return f"the chains still drift ({float(z.max()):.1f} Monte Carlo s.e. between halves)"
    return None


def streak_records(history, k=2):
    """The last ``k`` iteration records of samples that were stepped on: a redrawn
    sample's record (``"redraw"``) is left out.  A redraw does not end the Hummel streak
    (it is not a step), so without this the streak's last two records -- from which the
    boosted last sample's interval and size are read
    (:func:`~ergmfit.estimation.mcmle.interval.streak_tau`) -- could be a drifting
    sample's, whose effective size says little about the mixing at equilibrium.

    Examples
    --------
    >>> h = [{"gamma": 1.0, "min_ess": 60.0}, {"redraw": "drift", "gamma": 0.0,
    ...      "min_ess": 3.0}, {"gamma": 1.0, "min_ess": 70.0}]
    >>> [r["min_ess"] for r in streak_records(h)]
    [60.0, 70.0]
    """
    return [h for h in history if "redraw" not in h][-k:]
