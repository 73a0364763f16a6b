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


#: phase-3 draws of the stochastic approximation that moves a drifting start: its
#: estimate is what is used, not its standard errors
APPROACH_PHASE3 = 50


def approach(model, method, theta, random_state):
    """The start moved from ``theta`` by ``method`` (``"sa"``: Robbins-Monro stochastic
    approximation, :class:`~ergmfit.estimation.sa.robbins_monro.SA`, on a chain from the
    observed network), for a start whose MCMC-MLE chains still drift: each Robbins-Monro
    step follows the chain, where Hummel's importance-sampling steps from a sample settled
    far from the data move a few % (docs/valued_terms.md, "MCMC-MLE of the issue-554
    model").  Returns the new θ."""
    if method != "sa":
        raise SettingsError(f"drift_start={method!r}: the start is moved by 'sa' only")
    from ..sa.robbins_monro import SA
    with warnings.catch_warnings():     # not converged by SA's own t-ratios: MCMC-MLE goes on
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = SA(init=np.asarray(theta, dtype=float), random_state=random_state,
                 phase3=APPROACH_PHASE3).fit(model)
    return np.asarray(fit.params, dtype=float)


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
