"""Steps in θ through a model's parameterisation (Hunter & Handcock 2006): the maths
every likelihood estimator shares, owned by the model layer.

The estimators (MPLE, MCMC-MLE, CD, EE, the missing-data MCMC-MLE) work on the
canonical statistics g exactly as for a linear model and reach θ through the
model's :class:`~ergmfit.terms.parameterisation.Parameterisation`:

* the pseudo-likelihood is a logistic regression with linear predictor
  Δg·η(θ); its score is J(θ)' X'(y − μ) and its information J' X'WX J
  (:func:`maximize_curved_pseudolikelihood`);
* the importance-sampling log-likelihood ratio of a sample drawn at θ₀ is
  (η(θ) − η₀)·ξ − log mean_i exp((η(θ) − η₀)·z_i), maximised over θ with
  gradient J'(ξ − μ_w) and information J' Cov_w(z) J (:func:`curved_step`; for
  η = θ, :func:`maximize_is_loglik`);
* standard errors are the inverse of J' I_η J: the delta method from the
  canonical to the curved parameters, as statnet computes them.

Maximisation is Fisher scoring (Newton with the information above, which is
positive semi-definite) with backtracking, kept in the parameters' box
(:func:`bounded_ascent`), from start values chosen by :func:`start_values`: the
best of a grid of common decays for a fit with the decays held fixed, unless
the formula gave a decay (``gwesp(0.5, fixed=FALSE)`` starts there) or ``init``
did.  The parameterisation's methods (``is_step``, ``projector``,
``times_jacobian``, ``eta_change``) call these.

Examples
--------
>>> import numpy as np
>>> Z = np.array([[1.0], [-1.0], [2.0], [-2.0]])
>>> float(np.round(maximize_is_loglik(Z, np.array([0.0]))[0], 6))
0.0
"""
from __future__ import annotations

import numpy as np

from ..exceptions import DegenerateModelError
from .curved import fixed_term
from ..utils.optimize import newton_ascent


# largest change of a curved term's decay in one MCMC-MLE / CD iteration: one
# sample determines a decay poorly, and a long jump lands far from equilibrium
MAX_DECAY_STEP = 0.25

# a decay above this has run off along a ridge (e^8 ~ 3000: a gw term then counts
# each edge by its number of shared partners, k-star like for degrees)
DECAY_RIDGE = 8.0

# starting decays tried when the formula gives none (α for gw terms, λ for altkstar)
DECAY_GRID = (0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
LAMBDA_GRID = (1.25, 1.5, 2.0, 3.0, 5.0)


def is_moments(Z, eta):
    """log mean_i exp(η·z_i), and the importance-weighted mean and covariance of
    the z_i (weights ∝ exp(η·z_i)): the pieces of the IS log-likelihood ratio."""
    return weighted_moments(Z @ eta, Z)


def weighted_moments(a, X):
    """log mean_i exp(a_i), and the mean and covariance of the rows of ``X``
    weighted ∝ exp(a_i).  (A curved model passes X = Z J, the statistics in its
    parameters' directions: p columns instead of the q canonical ones.)"""
    top = a.max()
    w = np.exp(a - top)
    w /= w.sum()
    mu = w @ X
    C = (X - mu).T @ ((X - mu) * w[:, None])
    return float(np.log(np.mean(np.exp(a - top))) + top), mu, C


def log_mean_exp(a) -> float:
    """log mean_i exp(a_i), computed stably."""
    top = a.max()
    return float(np.log(np.mean(np.exp(a - top))) + top)


def maximize_is_loglik(Z, target, maxit=100, tol=1e-12):
    """Maximise η·target − log mean exp(η·z_i) by Newton's method (concave).

    Returns η = θ − θ_t.  ``target`` is the pseudo-observation (centred).
    """
    def objective(eta):
        lme, mu, C = is_moments(Z, eta)
        return eta @ target - lme, target - mu, C

    return newton_ascent(objective, np.zeros(Z.shape[1]), maxiter=maxit, tol=tol,
                         min_step=1e-8)[0]


def fixed_decay_matrix(par, theta):
    """A (q, p) matrix A with η(θ) = A @ θ at the decays in ``theta``, nonzero
    only in the weight columns: the linear model with the decays held fixed
    (the decay columns are zero)."""
    A = np.zeros((par.n_stats, par.n_params))
    for ps, ss, curve in par._blocks:
        if curve is None:
            A[ss, ps] = np.eye(ss.stop - ss.start)
        else:
            th = np.asarray(theta, dtype=float)[ps]
            A[ss, ps.start] = curve.eta(np.array([1.0, th[1]]))
    return A


def fixed_decay_parts(par, theta):
    """(A, c) with η(θ) = A θ + c at the decays in ``theta`` (decay columns of A
    zero); c is None without offsets (see :func:`fixed_decay_matrix` and
    :meth:`~ergmfit.terms.offsets.OffsetParameterisation.affine_parts`)."""
    if hasattr(par, "affine_parts"):
        return par.affine_parts(theta)
    return fixed_decay_matrix(par, theta), None


def _decay_candidates(curve, given):
    if given is not None:
        return (float(given),)
    return LAMBDA_GRID if curve.decay_name == "lambda" else DECAY_GRID


def start_values(par, fit_linear, init_decays=None, init=None):
    """Start θ for a curved fit.

    ``fit_linear(A, c, cols=cols)`` fits the linear model whose statistics are
    g @ A[:, cols] (``cols``: the weight and linear columns, named by the
    parameters they are; offset g @ c unless c is None) and returns (params, loglik).
    Every decay given (``init_decays``: one per curved term, None for "choose")
    is used; the others are chosen jointly from a grid of common values by the
    best fixed-decay log-(pseudo-)likelihood.  ``init`` (a full θ with NaN for
    "choose") overrides.
    """
    decay_at = par.decay_indices()
    curves = [c for _, _, c in par.curved_terms]
    given = list(init_decays) if init_decays is not None else [None] * len(curves)
    theta = par.project(np.zeros(par.n_params))     # 0, or the nearest value in the box
    if init is not None:
        init = np.asarray(init, dtype=float)
        for j, k in enumerate(decay_at):
            if np.isfinite(init[k]):
                given[j] = float(init[k])
    grid = []
    for c, g in zip(curves, given):
        grid.append(_decay_candidates(c, g))
    n_cand = max((len(g) for g in grid), default=1)
    best = None
    for idx in range(n_cand):
        for j, k in enumerate(decay_at):
            theta[k] = grid[j][min(idx, len(grid[j]) - 1)]
        A, c = fixed_decay_parts(par, theta)
        # the linear model of the weights and linear terms; a column that vanishes here
        # (a Curve() parameter that only acts through a weight still 0) stays at its start
        cols = [k for k in range(par.n_params) if k not in decay_at and np.any(A[:, k] != 0)]
        try:
            params, ll = fit_linear(A[:, cols], c, cols=cols)
        except (DegenerateModelError, np.linalg.LinAlgError):   # no fixed-decay MPLE there
            continue
        if np.all(np.isfinite(params)) and np.isfinite(ll) and (best is None or ll > best[0]):
            cand = theta.copy()
            cand[cols] = params
            best = (ll, cand)
    if best is None:
        theta[[k for k in range(par.n_params) if k not in decay_at]] = 0.0
        return par.project(theta)
    theta = best[1]
    if init is not None:
        ok = np.isfinite(init)
        theta[ok] = init[ok]
    return par.project(theta)


def bounded_ascent(fun, value, theta0, box, maxiter=200, tol=1e-12):
    """Fisher scoring with backtracking on the box of ``box`` (a parameterisation:
    ``lower_bounds() <= θ <= upper_bounds()``, :meth:`~ergmfit.terms.parameterisation.Parameterisation.project`).

    ``fun(θ) -> (f, gradient, information)``; ``value(θ) -> f``.  A coordinate is
    held (left out of the Newton step) while it sits on a bound and the gradient
    pushes against it -- at its lower bound with gradient <= 0, at its upper bound
    with gradient >= 0; trial points are projected onto the box.  Returns
    (θ, f, information, n_iter, converged)."""
    lower, upper = box.lower_bounds(), box.upper_bounds()
    theta = box.project(theta0)
    f, g, H = fun(theta)
    for it in range(1, maxiter + 1):
        free = ~(((theta <= lower) & (g <= 0)) | ((theta >= upper) & (g >= 0)))
        step = np.zeros_like(theta)
        if free.any():
            Hf = H[np.ix_(free, free)]
            try:
                step[free] = np.linalg.solve(Hf, g[free])
            except np.linalg.LinAlgError:
                step[free] = np.linalg.lstsq(Hf, g[free], rcond=None)[0]
        if not np.all(np.isfinite(step)):
            return theta, f, H, it, False
        if not float(g @ step) > tol * (1.0 + abs(f)):
            return theta, f, H, it, True
        t = 1.0
        while True:
            cand = box.project(theta + t * step)
            fc = value(cand)
            if np.isfinite(fc) and fc >= f - 1e-12 * (1.0 + abs(f)):
                break
            t *= 0.5
            if t < 1e-12:
                return theta, f, H, it, False
        theta = cand
        f, g, H = fun(theta)
    return theta, f, H, maxiter, False


def held_run(par, run, P):
    """A stochastic-approximation chunk kept in the parameters' box: ``run(P)`` -> (its
    output, θ at its end) runs the chunk (same random numbers on every call) with the
    preconditioner ``P`` in θ.  When its end leaves the box, the chunk is run again with
    those coordinates held -- their rows and columns of P zero, so that no step within
    the chunk moves them and the other coordinates do not compensate for a move that the
    projection undoes (a coordinate is held for one chunk at a time: the next one tries
    it free again).  Returns the output and θ of the run kept (the caller projects it)."""
    out, new = run(P)
    lo, hi = par.lower_bounds(), par.upper_bounds()
    held = (new < lo) | (new > hi)
    if held.any() and not held.all():
        Ph = np.array(P, dtype=float)
        Ph[held, :] = 0.0
        Ph[:, held] = 0.0
        out, new = run(Ph)
    return out, new


def maximize_curved_pseudolikelihood(design, par, theta0, maxiter=200, tol=1e-12):
    """Maximise the curved pseudo-likelihood of ``design`` (rows X, weights n, s).

    Returns (theta, loglik, information J'X'WXJ, n_iter, converged)."""
    keep = design.n > 0
    from scipy import special

    X, n, s = design.X[keep], design.n[keep], design.s[keep]

    def value(theta):
        with np.errstate(all="ignore"):
            lin = X @ par.eta(theta)
            return float(s @ lin - n @ np.logaddexp(0.0, lin))

    def fun(theta):
        eta = par.eta(theta)
        lin = X @ eta
        mu = special.expit(lin)
        J = par.jacobian(theta)
        XJ = X @ J
        f = float(s @ lin - n @ np.logaddexp(0.0, lin))
        g = XJ.T @ (s - n * mu)
        H = XJ.T @ ((n * mu * (1.0 - mu))[:, None] * XJ)
        return f, g, H

    return bounded_ascent(fun, value, theta0, par, maxiter, tol)


def times_jacobian(Z, J):
    """Z @ J column by column (matrix-vector products).  On the thin matrices of a
    curved fit (thousands of draws, tens of counts, a few parameters) a threaded
    BLAS matrix product cost 8 ms of CPU per call on the shared 2-core machine (its
    threads wait on each other) against 0.2 ms for the products by columns."""
    Z, J = np.asarray(Z, dtype=float), np.asarray(J, dtype=float)
    if Z.ndim == 1:
        return Z @ J
    out = np.empty((Z.shape[0], J.shape[1]))
    for k in range(J.shape[1]):
        out[:, k] = Z @ J[:, k]
    return out


def maximize_curved_is_loglik(Z, target, par, theta0, maxit=100, tol=1e-12, box=None):
    """Maximise (η(θ) − η₀)·target − log mean exp((η(θ) − η₀)·z_i) over θ.

    ``Z`` are the sampled canonical statistics centred at the observed ones,
    sampled at θ0; ``target`` the (centred) pseudo-observation; ``box`` the
    bounds (default the parameterisation's, see :class:`DecayBox`).  Returns θ."""
    eta0 = par.eta(theta0)

    def fun(theta):
        # the moments of Z J (p columns), not of Z (q): J' Cov_w(Z) J = Cov_w(Z J)
        d = par.eta(theta) - eta0
        J = par.jacobian(theta)
        lme, mu, C = weighted_moments(Z @ d, times_jacobian(Z, J))
        return float(d @ target - lme), J.T @ target - mu, C

    def value(theta):
        d = par.eta(theta) - eta0
        return float(d @ target - log_mean_exp(Z @ d))

    return bounded_ascent(fun, value, theta0, par if box is None else box, maxit, tol)[0]


class DecayBox:
    """``par``'s bounds with every decay also within ``cap`` of its value in
    ``theta``: a trust region for the decays alone (see :func:`curved_step`)."""

    def __init__(self, par, theta, cap=MAX_DECAY_STEP):
        self.lo, self.hi = par.lower_bounds().copy(), par.upper_bounds().copy()
        for k in par.decay_indices():
            self.lo[k] = max(self.lo[k], theta[k] - cap)
            self.hi[k] = min(self.hi[k], theta[k] + cap)

    def lower_bounds(self):
        return self.lo

    def upper_bounds(self):
        return self.hi

    def project(self, theta):
        return np.clip(np.asarray(theta, dtype=float), self.lo, self.hi)


def curved_step(Z, target, par, theta, decay_box=False):
    """The importance-sampling step of a curved model from ``theta`` (MCMC-MLE, CD,
    EE's polish, the missing-data MCMC-MLE): the maximiser of
    :func:`maximize_curved_is_loglik` towards ``target``, minus ``theta``, scaled down
    so that no decay moves more than MAX_DECAY_STEP (one sample determines a decay
    poorly).  Returns (step, capped): ``capped`` when it was scaled.

    ``decay_box``: instead of scaling the whole step, maximise again with every
    decay held within MAX_DECAY_STEP of its value (:class:`DecayBox`), so that the
    weights move as far as that decay allows.  Scaling leaves a start with a
    weight 0 (CD's start at the density) stuck: the decay is then not identified,
    the maximiser moves it by ~20, and the scaled step moves the weights by ~1e-3
    -- Lazega ``edges + gwesp(fixed=FALSE) + ...`` by CD ran the decay up by 0.25
    for 60 iterations with the weights at 0."""
    step = maximize_curved_is_loglik(Z, target, par, theta) - theta
    big = max((abs(step[k]) for k in par.decay_indices()), default=0.0)
    if big > MAX_DECAY_STEP and decay_box:
        box = DecayBox(par, theta)
        return maximize_curved_is_loglik(Z, target, par, theta, box=box) - theta, True
    if big > MAX_DECAY_STEP:
        return step * (MAX_DECAY_STEP / big), True
    return step, False


def decay_messages(par, theta, what="pseudo-likelihood"):
    """Plain-words notes on decays that ran off (a ridge) or sit at their bound."""
    out = []
    for ps, _, curve in par.curved_terms:
        w_lab, d_lab = par.param_labels[ps.start], par.param_labels[ps.start + 1]
        decay = float(theta[ps.start + 1])
        big = DECAY_RIDGE if curve.decay_name == "decay" else float(np.exp(DECAY_RIDGE))
        if decay > big:
            out.append(
                f"{d_lab} ran off to {decay:.3g}: the {what} keeps rising along a ridge as the "
                f"decay grows, so it has no finite maximum in {d_lab} (with a very large decay "
                f"{w_lab} counts every shared partner, as a triangle or k-star term does). "
                f"Fix the decay, e.g. {fixed_term(curve, w_lab, 1)}, or start elsewhere with "
                f"init=[..., {d_lab}=0.5, ...]")
        elif decay <= curve.decay_lower + 1e-9:
            out.append(f"Note: {d_lab} is at its lower bound {curve.decay_lower:g} (the {what} "
                       f"is largest there); its standard error is not reliable")
    decays = par.decay_indices()
    lo = par.lower_bounds()
    for k in np.flatnonzero(par.at_bound(theta)):
        if k not in decays:            # Curve(minpar=, maxpar=): a bound that holds
            side, arg = ("lower", "minpar") if theta[k] <= lo[k] else ("upper", "maxpar")
            out.append(f"Note: {par.param_labels[k]} is at its {side} bound {theta[k]:g} "
                       f"({arg}: the {what} is largest there); its standard error is not "
                       "reliable")
    return out


def projector(par, theta):
    """z -> z J(θ') for a curved model (the identity for a linear one), θ' being θ
    with every curved weight set to 1: the decay's column of J is proportional to
    its weight, and a weight near 0 would make the decay look stuck.  (Column
    scalings change neither the step length, nor Hotelling's test, nor the ESS.)

    A parameter held on a bound (:meth:`~ergmfit.terms.parameterisation.Parameterisation.at_bound`: the bounded
    maximisation left it there because the likelihood keeps rising beyond it) has
    reached its constrained optimum: its direction of a sample (rows) is centred at
    its mean, so that the step length, the convergence test and the t-ratios judge
    the other directions only (the Karush-Kuhn-Tucker condition), with the variance
    -- the ESS and the degeneracy checks -- unchanged."""
    if par.linear:
        return lambda A: A
    th = np.array(theta, dtype=float)
    for ps, _, _ in par.curved_terms:
        th[ps.start] = 1.0
    J = par.jacobian(th)
    held = par.at_bound(theta)
    if not held.any():
        return lambda A: times_jacobian(A, J)

    def proj(A):
        out = times_jacobian(A, J)
        if out.ndim == 2 and len(out):
            out[:, held] -= out[:, held].mean(axis=0)
        return out
    return proj


def decay_ridge(curve):
    return DECAY_RIDGE if curve.decay_name == "decay" else float(np.exp(DECAY_RIDGE))
