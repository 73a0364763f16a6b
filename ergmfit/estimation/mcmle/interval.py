"""The MCMC interval of an MCMC-MLE sample, adapted to its effective size."""
from __future__ import annotations

import numpy as np

# (The share of target_ess that every single statistic must reach in a non-final
# sample, besides target_ess multivariate effective draws, is the setting
# min_ess_share, by default the model family's ModelFamily.min_ess_share: 0.5 for
# binary ties, whose steps wandered without it -- docs/guide/estimators/mcmle.md,
# "Sample sizes and intervals".)

# A non-final sample drawn at the smallest interval (where the interval cannot shrink to
# what the effective-size target asks) is drawn in this many parts and stops after the
# first part at which it has its target (:func:`step_sample_parts`).
STEP_SAMPLE_PARTS = 4


# statnet's MCMLE.sampsize.boost.pow: a boost of the effective-size target by b multiplies
# the draws by b ** SAMPSIZE_BOOST_POW (the last sample of the Hummel rule: 4 x the target,
# 2 x the draws)
SAMPSIZE_BOOST_POW = 0.5


def last_sample_floor(samplesize, last_boost):
    """The fewest draws of the last (boosted) sample: ``samplesize`` x ``last_boost`` **
    :data:`SAMPSIZE_BOOST_POW`, as statnet boosts ``MCMC.samplesize`` with its target
    (2048 for the defaults).

    >>> last_sample_floor(1024, 4)
    2048
    """
    return int(round(int(samplesize) * float(last_boost) ** SAMPSIZE_BOOST_POW))


def quarter_octave(interval, lo, hi):
    """``interval`` rounded to a power of 2**(1/4), within [lo, hi]."""
    return int(min(hi, max(lo, 2 ** (round(4 * np.log2(interval)) / 4))))


def streak_tau(records, key="ess"):
    """Proposals per multivariate effective draw (``"ess"``, by
    :func:`~ergmfit.sampling.chains.multivariate_ess`: the measure of statnet's
    ``MCMC.effectiveSize``), pooled over the iteration ``records`` (the two samples of the
    streak before the last one: the ESS of one sample is noisy); None when a record has no
    effective size (a backtrack, or a resumed history from before the multivariate size
    was recorded).  ``key="min_ess"``: per effective draw of the slowest statistic."""
    if not records or any(key not in h for h in records):
        return None
    return (sum(h["interval"] * h["samplesize"] for h in records)
            / sum(max(h[key], 1.0) for h in records))


def last_sample_key(records, samplesize, target_ess, min_interval):
    """Which effective size the last sample's interval and draws follow: ``"ess"``
    (multivariate, statnet's Hummel target) unless that asks for no more than the smallest
    interval, where the last sample is drawn in parts until every statistic has its target
    and its interval and draws follow the slowest statistic (``"min_ess"``): at the floor
    the multivariate interval gave the ergm.ego reference fits too small last samples
    (docs/guide/estimators/mcmle.md, "Sample sizes and intervals").

    >>> recs = [{"interval": 256, "samplesize": 1024, "ess": 400.0, "min_ess": 40.0}] * 2
    >>> last_sample_key(recs, 1024, 64, 256), last_sample_key(recs, 1024, 64, 16)
    ('min_ess', 'ess')
    """
    tau = streak_tau(records)
    if tau is None or quarter_octave(target_ess * tau / samplesize, 1, 2 ** 62) > min_interval:
        return "ess"
    return "min_ess"


def final_sample_size(records, interval, samplesize, last_boost, target_ess, key="ess"):
    """Draws of the last (boosted) sample of the Hummel rule, drawn at ``interval``.

    The last sample aims at ``last_boost`` x ``target_ess`` multivariate effective draws,
    as statnet's Hummel rule boosts ``MCMLE.effectiveSize`` by ``MCMLE.last.boost`` (64 x
    4): ``last_boost`` x ``samplesize`` draws at the interval ``target_ess`` x tau /
    ``samplesize`` (tau: :func:`streak_tau`), rounded to a quarter octave.  When a limit
    held the interval above that (``min_interval``, or half the last interval), so many
    draws would overshoot the target by the same factor.  The draws then shrink by that
    factor, to at least :func:`last_sample_floor` (statnet's boost of the draws, 2 x
    ``samplesize``: fewer scattered the standard errors); otherwise (and without a tau)
    they are ``last_boost`` x ``samplesize``.  Why these rules: the measurements in
    docs/guide/estimators/mcmle.md, "Sample sizes and intervals".

    Examples
    --------
    >>> recs = [{"interval": 1024, "samplesize": 1024, "ess": 467.0},
    ...         {"interval": 256, "samplesize": 1024, "ess": 66.0}]
    >>> final_sample_size(recs, 256, 1024, 4, 64)    # asks for 152, held at 256
    2432
    >>> final_sample_size(recs, 1024, 1024, 4, 64)   # held at 1024: the floor
    2048
    >>> final_sample_size(recs, 152, 1024, 4, 64)    # the interval asked: the full boost
    4096
    """
    full = int(last_boost) * int(samplesize)
    tau = streak_tau(records, key)      # (key: :func:`last_sample_key`)
    if tau is None:
        return full
    asked = quarter_octave(target_ess * tau / samplesize, 1, 2 ** 62)
    return int(min(full, max(last_sample_floor(samplesize, last_boost),
                             int(np.ceil(full * asked / interval)))))


def step_sample_parts(samplesize, interval, min_interval):
    """Draws of each part of a sample drawn until it has its effective-size target, or
    None when the sample is drawn whole.

    At the smallest interval (``interval <= min_interval``) a sample can have many times
    the effective draws it aims at: the interval adapts towards the target but is held at
    the floor.  Such a sample is drawn in parts of ``samplesize /
    STEP_SAMPLE_PARTS`` draws (the chains go on from part to part), up to its size, and
    stops after the first part at which it has its target, as statnet's
    ``MCMC.effectiveSize`` runs the chain forward until its target is reached: a step's
    sample ``target_ess`` multivariate and ``min_ess_share`` of it for every statistic,
    the last sample ``last_boost`` x ``target_ess`` of every statistic, in at least
    ``samplesize`` draws (drawn up to ``last_boost`` x ``samplesize``).  Above the floor
    :func:`final_sample_size` sizes the last sample by statnet's multivariate target;
    at the floor the per-statistic one stays (:func:`last_sample_key`).

    Examples
    --------
    >>> step_sample_parts(1024, 256, 256)
    256
    >>> step_sample_parts(1024, 512, 256) is None     # the interval adapts instead
    True
    """
    if interval > min_interval or samplesize < 2 * STEP_SAMPLE_PARTS:
        return None
    return int(samplesize) // STEP_SAMPLE_PARTS
