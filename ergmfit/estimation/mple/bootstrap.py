"""The parametric bootstrap of a pseudo-likelihood estimate (binary and count MPLE)."""
from __future__ import annotations

import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError


def refit_params(refit, *args):
    """``refit(*args).params``, or None when that fit does not exist or does not converge
    (one bootstrap replicate)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            f = refit(*args)
    except DegenerateModelError:
        return None
    return f.params if f.converged else None


def bootstrap_covariance(fits, what="MPLE"):
    """The covariance of the bootstrap replicates ``fits`` (parameter vectors, None for a
    replicate whose fit failed): (covariance, the estimates, how many failed).  Failed
    replicates are left out with a warning; fewer than two left is an error."""
    B = len(fits)
    draws = [f for f in fits if f is not None]
    failed = B - len(draws)
    if len(draws) < 2:
        raise DegenerateModelError(
            f"the {what} does not exist for {failed} of {B} networks simulated from the "
            f"{what}; the parametric bootstrap cannot estimate the covariance (the model may "
            "be degenerate near the estimate)")
    if failed:
        warnings.warn(f"the {what} did not exist for {failed} of {B} bootstrap networks; they "
                      "were left out of the bootstrap covariance", ConvergenceWarning,
                      stacklevel=5)
    draws = np.array(draws)
    return np.atleast_2d(np.cov(draws, rowvar=False, ddof=1)), draws, failed
