"""The MCMC interval of an MCMC-MLE sample, adapted to its effective size."""
from __future__ import annotations

import numpy as np

# Share of target_ess that every single statistic must reach in a non-final
# sample, besides target_ess multivariate effective draws: with 13 statistics
# (faux.mesa.high) the multivariate target alone left ~10 effective draws in
# the slowest directions, and fits wandered for 11-14 iterations (5-6 with it).
MIN_ESS_SHARE = 0.5


def quarter_octave(interval, lo, hi):
    """``interval`` rounded to a power of 2**(1/4), within [lo, hi]."""
    return int(min(hi, max(lo, 2 ** (round(4 * np.log2(interval)) / 4))))
