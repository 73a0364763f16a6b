"""The importance-sampling steps shared by MCMC-MLE and contrastive divergence:
Hummel's step length (and the ellipsoid variant), the maximiser of the
importance-sampling log-likelihood ratio, its weights' effective size and the
batch-means Hotelling test of E[z] = 0.  Neither estimator imports the other."""
from __future__ import annotations

import numpy as np

from ...sampling.chains import batch_means_cov, effective_sizes


#: the most dimensions in which the hull's facets (qhull) decide membership: their number
#: grows fast with the dimension (512 points: 58 facets in 3-d, 335 in 4-d, 10^4 in 6-d)
MAX_FACET_DIMENSIONS = 4
#: a point this close outside a facet (relative to the points' scale) counts as inside,
#: as the LP's feasibility tolerance lets it
FACET_TOLERANCE = 1e-9


def in_convex_hull(points, x):
    """True if ``x`` lies in the convex hull of the rows of ``points``."""
    test = hull_test(points)
    return test(np.asarray(x, dtype=float))


def hull_test(points):
    """A membership test ``test(x)`` of the convex hull of the rows of ``points``: in 1 to
    ``MAX_FACET_DIMENSIONS`` dimensions from the hull's facets (qhull, computed once: a
    fraction of a millisecond for a few hundred points), else, or when the points are
    flat (no full-dimensional hull), a linear programme per point (a few milliseconds).

    Examples
    --------
    >>> import numpy as np
    >>> test = hull_test(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    >>> test(np.array([0.2, 0.2])), test(np.array([0.6, 0.6]))
    (True, False)
    """
    points = np.asarray(points, dtype=float)
    n, p = points.shape
    scale = FACET_TOLERANCE * max(1.0, float(np.max(np.abs(points))) if n else 1.0)
    if p == 1:
        lo, hi = float(points.min()), float(points.max())
        return lambda x: bool(lo - scale <= float(x[0]) <= hi + scale)
    if 2 <= p <= MAX_FACET_DIMENSIONS and n > p:
        from scipy.spatial import ConvexHull, QhullError
        try:
            facets = ConvexHull(points).equations
        except (QhullError, ValueError):
            facets = None          # flat points: the LP decides
        if facets is not None:
            normals, offsets = facets[:, :-1], facets[:, -1]
            return lambda x: bool(np.max(normals @ x + offsets) <= scale)
    return lambda x: _in_hull_lp(points, x)


def _in_hull_lp(points, x):
    """True if ``x`` lies in the convex hull of the rows of ``points`` (an LP)."""
    n = len(points)
    A_eq = np.vstack([points.T, np.ones((1, n))])
    b_eq = np.concatenate([x, [1.0]])
    from scipy import optimize

    res = optimize.linprog(np.zeros(n), A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    return res.status == 0


def hummel_step(Z, margin=0.05, tol=1e-3):
    """Largest γ in [0, 1] with (1 − γ) z̄, inflated by ``margin``, inside hull(Z).

    Z holds the sampled statistics minus the observed ones, so the observed
    statistics are the origin.
    """
    zbar = Z.mean(axis=0)
    test = hull_test(Z)

    def inside(gamma):
        point = zbar - (1.0 + margin) * gamma * zbar
        return test(point)

    if inside(1.0):
        return 1.0
    lo, hi = 0.0, 1.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if inside(mid):
            lo = mid
        else:
            hi = mid
    return lo


def ellipsoid_step(Z, level=0.99):
    """Largest γ in [0, 1] with the pseudo-observation (1 − γ) z̄ within the
    ``level`` Mahalanobis ellipsoid of the sample around its mean.

    In many dimensions a sample of a thousand draws has a convex hull that
    misses most of its own distribution, so the hull rule alone can refuse
    steps (or stall) even at the MLE; the ellipsoid keeps the target inside
    the bulk of the sample, where importance sampling is reliable.
    """
    zbar = Z.mean(axis=0)
    C = np.cov(Z, rowvar=False).reshape(Z.shape[1], Z.shape[1])
    try:
        d2 = float(zbar @ np.linalg.solve(C, zbar))
    except np.linalg.LinAlgError:
        d2 = float(zbar @ np.linalg.lstsq(C, zbar, rcond=None)[0])
    from scipy import special

    q = float(special.chdtri(Z.shape[1], 1.0 - level))
    return 1.0 if d2 <= q else float(np.sqrt(q / d2))


def is_weights(Z, eta):
    a = Z @ eta
    a -= a.max()
    w = np.exp(a)
    return w / w.sum()


def is_ess_fraction(Z, eta):
    """Effective size of the importance weights of a move by ``eta``, as a share of the sample."""
    w = is_weights(Z, eta)
    return float(1.0 / (w @ w) / len(w))


def is_trust_region(Z, eta, min_is_ess, move=None):
    """Halve the step ``eta`` until its importance weights keep ``min_is_ess`` of
    the sample ``Z`` (a trust region); ``move(eta)`` is the change of the
    canonical parameters it makes (default ``eta`` itself).  Returns (step,
    whether it was halved)."""
    halved = False
    d = eta if move is None else move(eta)
    while is_ess_fraction(Z, d) < min_is_ess and np.max(np.abs(eta)) > 1e-8:
        eta = eta / 2.0
        halved = True
        d = eta if move is None else move(eta)
    return eta, halved


def standardised_mean(Z):
    """The sample's mean over its standard deviation, per column (0 where it does not vary)."""
    sd = Z.std(axis=0)
    return np.where(sd > 0, Z.mean(axis=0) / np.where(sd > 0, sd, 1.0), 0.0)


def hotelling_pvalue(chains_z):
    """p-value of H0: E[z] = 0 from autocorrelated chains (batch-means Hotelling T²)."""
    Z = np.concatenate(chains_z)
    n, p = Z.shape
    zbar = Z.mean(axis=0)
    V = batch_means_cov(chains_z)            # Var(zbar)
    try:
        T2 = float(zbar @ np.linalg.solve(V, zbar))
    except np.linalg.LinAlgError:
        T2 = float(zbar @ np.linalg.lstsq(V, zbar, rcond=None)[0])
    ess = max(float(np.min(effective_sizes(chains_z))), p + 2.0)
    F = (ess - p) / (p * (ess - 1)) * T2
    from scipy import special

    return float(special.fdtrc(p, ess - p, F))
