"""Exact computations for small binary MRFs (evaluation only).

Everything here works on any compiled :class:`~ergmfit.core._model.BinaryModel`
with a ``set_state``/``statistics`` pair (the models of ``ergmfit.mrf``):
the statistics of all 2^n states are obtained by ONE Gray-code walk of the
shared block enumerator (:meth:`ergmfit.sampling._blocks.Enumeration.differences`
with the block = every variable), so exact results use the same change
statistics as the samplers and estimators.

State s (an integer in 0..2^n-1) has x_v = bit v of s.  Limits: n <= 20 and
2^n * n_stats <= 2^27 doubles (1 GiB).

Thin models beyond 20 variables (chains, trees, narrow grids): :mod:`ergmfit.mrf.junction`.
The maximum-likelihood estimator of both is :class:`ExactLikelihood` (``method="exact"``).
"""
from __future__ import annotations

import numpy as np
from scipy import special

from ..estimation.base import Setting, choice, integer, number
from ..utils.optimize import newton_ascent
from ..utils.validation import check_params
from ._base import row_weights
from .fitting import MRFMethod, MRFResults

__all__ = ["MAX_EXACT_VARS", "state_matrix", "all_statistics", "log_partition", "probabilities",
           "mean_statistics", "marginals", "loglik", "loglik_score_fisher", "ExactLikelihood",
           "state_index", "mle_direction", "mle_direction_by_oracle",
           "require_mle"]

MAX_EXACT_VARS = 20
_MAX_CELLS = 2 ** 27


def _check(bm):
    n, p = int(bm.n_vars), int(bm.n_stats)
    if n > MAX_EXACT_VARS:
        raise ValueError(f"exact enumeration needs at most {MAX_EXACT_VARS} variables, got {n}")
    if (2 ** n) * max(p, 1) > _MAX_CELLS:
        raise ValueError(f"2^{n} states x {p} statistics is too large to enumerate")
    return n, p


def state_matrix(n):
    """All 2^n states as a (2^n, n) uint8 array; row s has x_v = bit v of s."""
    s = np.arange(2 ** n, dtype=np.int64)
    return ((s[:, None] >> np.arange(n)) & 1).astype(np.uint8)


def state_index(X):
    """The index s of each row of the 0/1 matrix X (x_v = bit v of s)."""
    X = np.atleast_2d(np.asarray(X))
    X = (X > 0).astype(np.int64)
    return X @ (1 << np.arange(X.shape[1], dtype=np.int64))


def all_statistics(bm):
    """g(x) for every state x: a (2^n, p) array, row s = state s.

    One Gray-code walk from the all-zero state (the model's state is restored)."""
    from ..sampling._blocks import Enumeration
    n, p = _check(bm)
    saved = bm.state()
    bm.set_state(np.zeros(n, dtype=np.uint8))
    try:
        g0 = np.asarray(bm.statistics(), dtype=float)
        D = Enumeration(max(1, n)).differences(bm, np.arange(n, dtype=np.int64))
    finally:
        bm.set_state(saved)
    return g0[None, :] + D


def _G(bm_or_G):
    return bm_or_G if isinstance(bm_or_G, np.ndarray) else all_statistics(bm_or_G)


def log_partition(bm_or_G, theta):
    """log Z(theta) = log sum_x exp(theta . g(x))."""
    G = _G(bm_or_G)
    return float(special.logsumexp(G @ np.asarray(theta, dtype=float)))


def probabilities(bm_or_G, theta):
    """p(x | theta) of every state (length 2^n, state order of :func:`state_matrix`)."""
    G = _G(bm_or_G)
    w = G @ np.asarray(theta, dtype=float)
    return np.exp(w - special.logsumexp(w))


def mean_statistics(bm_or_G, theta):
    """E_theta[g(X)]."""
    G = _G(bm_or_G)
    return probabilities(G, theta) @ G


def marginals(bm_or_G, theta, n_vars=None):
    """P(x_v = 1) for every variable."""
    G = _G(bm_or_G)
    n = int(round(np.log2(G.shape[0]))) if n_vars is None else n_vars
    return probabilities(G, theta) @ state_matrix(n).astype(float)


def loglik(bm_or_G, theta, X, weights=None):
    """sum_i log p(x_i | theta) over the rows of X (0/1 or +-1)."""
    G = _G(bm_or_G)
    theta = np.asarray(theta, dtype=float)
    idx = state_index(X)
    w = np.ones(len(idx)) if weights is None else np.asarray(weights, dtype=float)
    return float(w @ (G[idx] @ theta) - w.sum() * special.logsumexp(G @ theta))


def loglik_score_fisher(G, theta, counts):
    """Log-likelihood, score and N Cov(g) given state counts (length 2^n)."""
    theta = np.asarray(theta, dtype=float)
    N = float(counts.sum())
    w = G @ theta
    lz = special.logsumexp(w)
    P = np.exp(w - lz)
    Eg = P @ G
    ll = float(counts @ w - N * lz)
    sc = counts @ G - N * Eg
    C = (G * P[:, None]).T @ G - np.outer(Eg, Eg)
    return ll, sc, N * C


def mle_direction(G, counts):
    """A direction d along which the exact log-likelihood of data with state
    counts ``counts`` (length 2^n, or any non-negative weights per row of
    ``G``) increases for ever, or None when a finite maximiser exists.

    The log-likelihood is theta . sum_s c_s g(s) - N log Z(theta); it rises
    without bound along d exactly when d . (g(s) - gbar) <= 0 for every
    state s, with some < 0 (gbar = the observed mean statistics on the
    boundary of the convex hull of the attainable ones): the linear program
    of :func:`ergmfit.estimation.contrastive.mcle.separation_direction`, with the exact
    likelihood as the composite likelihood of one block holding every
    variable.  Every state observed: the MLE exists (no program to solve)."""
    from types import SimpleNamespace
    from ..estimation.contrastive.mcle import separation_direction
    G = np.asarray(G, dtype=float)
    c = np.asarray(counts, dtype=float)
    if np.all(c > 0):
        return None
    gbar = c @ G / c.sum()
    rows = np.unique(G, axis=0) - gbar
    D = np.vstack([np.zeros(G.shape[1]), rows])[None, :, :]
    groups = [(D, np.ones(1))]
    return separation_direction(SimpleNamespace(groups=groups, p=G.shape[1],
                                                parts=lambda: [(D, np.ones(1), None)]))


def check_nonexistent(nonexistent):
    """Validate the ``nonexistent=`` option of the Potts model's exact fit."""
    if nonexistent not in ("raise", "ignore"):
        raise ValueError(f"nonexistent must be 'raise' or 'ignore', got {nonexistent!r}")


def require_mle(d, labels, p):
    """Raise DegenerateModelError naming the direction ``d`` (from
    :func:`mle_direction` or :func:`mle_direction_by_oracle`) along which the
    exact log-likelihood increases for ever; nothing when ``d`` is None.  The
    one message of every exact fit (binary, Potts, junction tree)."""
    if d is None:
        return
    from ..exceptions import DegenerateModelError
    from .estimation import direction_text
    names = list(labels) if labels is not None else [f"theta[{k}]" for k in range(p)]
    raise DegenerateModelError(
        "the maximum likelihood estimate does not exist: the exact log-likelihood "
        f"keeps increasing as {direction_text(d, names)}, i.e. no state is larger "
        "in that direction than the observed mean statistics (they lie on the "
        "boundary of the convex hull of the attainable ones, e.g. a state never "
        "observed that the data would need). Give data with more variety, or "
        "drop the statistic (nonexistent='ignore' returns where Newton's method "
        "stops, not an estimate).")


def _null_basis(A, k):
    """Orthonormal basis (columns) of {z in R^k : A z = 0}."""
    if len(A) == 0:
        return np.eye(k)
    _, sv, Vt = np.linalg.svd(np.asarray(A, dtype=float), full_matrices=True)
    r = int(np.sum(sv > 1e-9 * max(1.0, float(sv.max()) if sv.size else 1.0)))
    return Vt[r:].T


def mle_direction_by_oracle(Gobs, weights, best_statistics, max_rounds=1000):
    """:func:`mle_direction` when the states are too many to list (the
    junction tree's exact fit): ``Gobs`` the statistics of the observed
    states (rows) with ``weights``, ``best_statistics(theta)`` the statistics
    g(s*) of a state maximising theta . g(s) (max-product).  Returns a
    direction d with d . (g(s) - gbar) <= 0 for every state s, some < 0, or
    None when a finite maximiser exists.

    A direction must be orthogonal to every observed deviation g(x_m) - gbar
    (their weighted mean is 0), so it lives in their null space; there,
    cutting planes: a linear program over the states met so far (pushing
    their sum below 0), the oracle adding the state that the candidate
    violates most, until none violates (found) or no candidate is left.  A
    candidate orthogonal to every state met is probed both ways by the oracle:
    a state off the plane cuts it, or it is a constant of the model (dropped).
    No answer after ``max_rounds`` rounds: a ConvergenceWarning and None."""
    from scipy import optimize
    G = np.asarray(Gobs, dtype=float)
    w = np.asarray(weights, dtype=float)
    gbar = w @ G / w.sum()
    N = _null_basis(G[w > 0] - gbar, G.shape[1])
    scale = 1.0 + np.abs(G).max()
    tol = 1e-9 * scale
    R = []
    for _ in range(max_rounds):
        k = N.shape[1]
        if k == 0:
            return None
        H = np.array(R).reshape(-1, len(gbar)) @ N
        if len(H):
            res = optimize.linprog(H.sum(axis=0), A_ub=H, b_ub=np.zeros(len(H)),
                                   bounds=[(-1.0, 1.0)] * k, method="highs")
            if res.status == 0 and res.fun < -1e-7 * scale:
                d = N @ res.x
                g = np.asarray(best_statistics(d), dtype=float) - gbar
                if g @ d <= tol:
                    d[np.abs(d) < 1e-9 * np.abs(d).max()] = 0.0
                    return d
                R.append(g)
                continue
        # every candidate lies in L = {z: z . h(s) = 0 for the states met}: probe one
        L = _null_basis(H, k)
        if L.shape[1] == 0:
            return None
        b = N @ L[:, 0]
        g1 = np.asarray(best_statistics(b), dtype=float) - gbar
        g2 = np.asarray(best_statistics(-b), dtype=float) - gbar
        if g1 @ b <= tol and -(g2 @ b) <= tol:       # b . g(s) constant: not a direction
            N = N @ _null_basis(L[:, :1].T, k)
            continue
        R.extend(g for g, v in ((g1, g1 @ b), (g2, -(g2 @ b))) if v > tol)
    import warnings
    from ..exceptions import ConvergenceWarning
    warnings.warn(f"the check that the maximum likelihood estimate exists gave no answer after "
                  f"{max_rounds} cutting planes; fitting without it", ConvergenceWarning,
                  stacklevel=3)
    return None


class ExactLikelihood(MRFMethod):
    """Maximum likelihood by Newton's method on the exact log-likelihood
    (concave), ``method="exact"``.

    ``algorithm="enumeration"`` sums over all 2^n states (n <= 20, one
    Gray-code walk, :func:`all_statistics`); ``"junction"`` runs sum-product
    on a junction tree (:class:`~ergmfit.mrf.junction.JunctionTree`: chains,
    trees, thin grids of any length; the exact score
    sum_m w_m g(x_m) - W E[g] and information W Cov(g), forward-mode, no
    finite differences); ``"auto"`` (default) enumerates up to 20 variables.

    First the MLE's existence is checked (:func:`mle_direction`, or for the
    junction tree :func:`mle_direction_by_oracle` with the max-product state
    as the oracle); when it does not exist (e.g. a state of extreme
    statistics never observed), ``nonexistent="raise"`` (the default, as the
    ERGM estimators do: ``ergmfit.estimation.mple.existence``) raises
    DegenerateModelError naming the direction, and ``"ignore"`` returns
    where Newton stops on the ridge (not an estimate).

    ``cov`` is the inverse information; ``loglik`` the exact log-likelihood;
    ``info`` holds ``fisher`` (the information of all observations at the
    estimate) and, on the junction tree, ``score``.  Needs a single model
    instance (not a CRF's inputs).

    Examples
    --------
    >>> import networkx as nx
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel(nx.path_graph(8))
    >>> X = m.sample(300, theta=[0.2, 0.5], random_state=0)
    >>> a = ExactLikelihood().fit(m, X)
    >>> b = ExactLikelihood(algorithm="junction").fit(m, X)
    >>> bool(np.allclose(a.params, b.params, atol=1e-8))
    True
    """

    method = "exact"
    SETTINGS = (
        Setting("algorithm", "auto", choice("auto", "enumeration", "junction"),
                "'enumeration' (n <= 20), 'junction' (junction tree) or 'auto'."),
        Setting("theta0", None, None, "Starting values (default zeros)."),
        Setting("maxiter", None, integer(1, allow_none=True),
                "Newton iterations (None: 200 by enumeration, 100 on the junction tree)."),
        Setting("tol", 1e-12, number(0, lo_open=True), "Newton-decrement tolerance."),
        Setting("nonexistent", "raise", choice("raise", "ignore"),
                "When the MLE does not exist: 'raise' (DegenerateModelError) or 'ignore'."),
    )

    def _fit_instances(self, insts, labels, model=None):
        if len(insts) != 1:
            raise ValueError("method='exact' needs a single model instance")
        bm, X, w = (tuple(insts[0]) + (None,))[:3]
        labels = list(labels)
        theta0 = None if self.theta0 is None else check_params(self.theta0, labels, "theta0")
        algorithm = self.algorithm
        if algorithm == "auto":
            algorithm = "enumeration" if int(bm.n_vars) <= MAX_EXACT_VARS else "junction"
        if algorithm == "junction":
            jt = model._junction() if model is not None and hasattr(model, "_junction") else bm
            return self._fit_junction(jt, X, w, theta0, labels)
        G = model._G() if model is not None and hasattr(model, "_G") else all_statistics(bm)
        return self._fit_enumeration(G, X, w, theta0, labels)

    def _fit_enumeration(self, G, X, w, theta0, labels):
        n = int(round(np.log2(G.shape[0])))
        idx = state_index(X)
        w = row_weights(w, len(idx))
        counts = np.bincount(idx, weights=w, minlength=2 ** n).astype(float)
        p = G.shape[1]
        if self.nonexistent == "raise":
            require_mle(mle_direction(G, counts), labels, p)
        theta = np.zeros(p) if theta0 is None else np.asarray(theta0, dtype=float).copy()
        theta, ll, _, H, _, converged = newton_ascent(
            lambda th: loglik_score_fisher(G, th, counts), theta,
            maxiter=200 if self.maxiter is None else self.maxiter, tol=self.tol,
            ridge=1e-12, min_step=1e-12)
        return MRFResults(theta, labels, method=self.method, cov=np.linalg.pinv(H), loglik=ll,
                          converged=converged, n_iter=None, info={"fisher": H})

    def _fit_junction(self, model, X, w, theta0, labels):
        from .junction import JunctionTree
        jt = model if isinstance(model, JunctionTree) else JunctionTree(model)
        G = jt.statistics(X)
        w = row_weights(w, len(G))
        if self.nonexistent == "raise":
            require_mle(mle_direction_by_oracle(
                G, w, lambda th: jt.statistics(jt.max_state(th)[0][None])[0]), labels, jt.n_stats)
        W = float(w.sum())
        gobs = w @ G
        theta = np.zeros(jt.n_stats) if theta0 is None else jt._theta(theta0).copy()

        def fun(th):
            lz, mean, cov = jt.covariance(th)
            return float(gobs @ th - W * lz), gobs - W * mean, W * cov

        def value(th):
            return float(gobs @ th - W * jt.log_partition(th))

        theta, ll, g, H, it, conv = newton_ascent(
            fun, theta, value=value, maxiter=100 if self.maxiter is None else self.maxiter,
            tol=self.tol, ridge=1e-12, min_step=1e-12)
        return MRFResults(theta, labels, method=self.method, cov=np.linalg.pinv(H), loglik=ll,
                          converged=bool(conv), n_iter=int(it), info={"fisher": H, "score": g})
