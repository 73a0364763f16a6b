"""The parametric bootstrap of a pseudo-likelihood estimate (binary and count MPLE)."""
from __future__ import annotations

import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError


def bootstrap_covariance(states, refit, B, what="MPLE"):
    """The parametric bootstrap of a pseudo-likelihood estimate: ``refit(state)`` (a fit
    with ``params`` and ``converged``, or DegenerateModelError) on each of the ``B``
    simulated states of the iterator ``states``, whose next item after them is its
    sampler.  Returns (covariance of the refits, their estimates, how many failed, the
    sampler); refits that fail are left out with a warning, fewer than two is an error."""
    draws, failed = [], 0
    for _ in range(B):
        state = next(states)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                f = refit(state)
            if not f.converged:
                raise DegenerateModelError("not converged")
            draws.append(f.params)
        except DegenerateModelError:
            failed += 1
    sampler = next(states)
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
    return np.atleast_2d(np.cov(draws, rowvar=False, ddof=1)), draws, failed, sampler
