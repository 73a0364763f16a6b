"""Newton's method for concave objectives, shared by the estimators."""
from __future__ import annotations

import numpy as np


def newton_ascent(fun, theta, value=None, maxiter=50, tol=1e-12, ridge=0.0, min_step=1e-10):
    """Maximise a concave function by Newton steps with backtracking.

    Parameters
    ----------
    fun : callable
        ``fun(theta) -> (f, gradient, information)``, the information being
        the negative Hessian (positive semi-definite).
    theta : array
        Start.
    value : callable, optional
        ``value(theta) -> f`` for the line search when it is cheaper than ``fun``.
    tol : float
        Stop when the Newton decrement gradient·step falls below tol·(1 + |f|).
    ridge : float
        Added to the information's diagonal before solving.

    Returns
    -------
    theta, f, gradient, information, n_iter, converged
    """
    theta = np.asarray(theta, dtype=float).copy()
    f, g, H = fun(theta)
    eye = np.eye(len(theta))
    for it in range(maxiter):
        try:
            step = np.linalg.solve(H + ridge * eye, g)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(H, g, rcond=None)[0]
        if not float(g @ step) > tol * (1.0 + abs(f)):
            return theta, f, g, H, it, True
        t = 1.0
        while t > min_step:
            fc = value(theta + t * step) if value is not None else fun(theta + t * step)[0]
            if np.isfinite(fc) and fc >= f - 1e-12 * (1 + abs(f)):
                break
            t *= 0.5
        theta = theta + t * step
        f, g, H = fun(theta)
    return theta, f, g, H, maxiter, False
