"""Estimation in θ through a curved map η(θ) (Hunter & Handcock 2006).

The estimators that support curved terms (MPLE, MCMC-MLE, CD) work on the
canonical statistics g exactly as for a linear model and reach θ through the
model's :class:`~ergmfit.terms.parameterisation.Parameterisation`:

* the pseudo-likelihood is a logistic regression with linear predictor
  Δg·η(θ); its score is J(θ)' X'(y − μ) and its information J' X'WX J;
* the importance-sampling log-likelihood ratio of MCMC-MLE is
  (η(θ) − η₀)·ξ − log mean_i exp((η(θ) − η₀)·z_i), maximised over θ with
  gradient J'(ξ − μ_w) and information J' Cov_w(z) J;
* standard errors are the inverse of J' I_η J: the delta method from the
  canonical to the curved parameters, as statnet computes them.

MCMC-MLE draws a curved fit's first sample at the smallest interval, a pilot kept when
it has the effective draws every sample aims at (:func:`first_sample_ok`), else
forgotten; a linear fit starts at the configured interval.

Maximisation is Fisher scoring (Newton with the information above, which is
positive semi-definite) with backtracking, from start values chosen by
:func:`start_values`: the best of a grid of common decays for a fit with
the decays held fixed, unless the formula gave a decay (``gwesp(0.5,
fixed=FALSE)`` starts there) or ``init`` did.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy import special

from ...exceptions import ConvergenceWarning, DegenerateModelError
from .stepping import log_mean_exp, weighted_moments


# largest change of a curved term's decay in one MCMC-MLE / CD iteration: one
# sample determines a decay poorly, and a long jump lands far from equilibrium
MAX_DECAY_STEP = 0.25

# a decay above this has run off along a ridge (e^8 ~ 3000: a gw term then counts
# each edge by its number of shared partners, k-star like for degrees)
DECAY_RIDGE = 8.0

# starting decays tried when the formula gives none (α for gw terms, λ for altkstar)
DECAY_GRID = (0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
LAMBDA_GRID = (1.25, 1.5, 2.0, 3.0, 5.0)


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
                f"Fix the decay, e.g. {w_lab}(1, fixed=TRUE), or start elsewhere with "
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


def first_interval(interval, min_interval):
    """The MCMC interval of a curved MCMC-MLE fit's first sample: the smallest one
    (a pilot, see :func:`first_sample_ok`)."""
    return min(int(interval), int(min_interval))


def first_sample_ok(par, theta, chains, target_ess, min_share):
    """Whether a curved fit's first sample, drawn at the smallest interval, has the
    effective draws every MCMC-MLE sample aims at (``target_ess`` multivariate, and
    ``min_share`` of it for every direction of θ): the rule by which the interval
    adapts would not lengthen it.  Otherwise the pilot is forgotten and the first
    sample drawn as without it (same start, burn-in and random numbers: the fit is
    the one a linear model's rule gives).  On the Lazega model the pilot at 256 has
    100-180 effective draws (at 1024 the sample had 350-530, for a target of 64); on
    faux.mesa.high gwesp + gwdegree it has ~20 and is forgotten."""
    from ...sampling.chains import effective_sizes, multivariate_ess
    proj = projector(par, theta)
    zp = [proj(c) for c in chains]
    return (multivariate_ess(zp) >= target_ess
            and float(effective_sizes(zp).min()) >= min_share * target_ess)


# --- when a curved fit fails: what happened, in plain words, and what to try (#17 item 3)

TRIADIC = ("triangle", "kstar", "istar", "ostar", "ttriple", "ctriple", "cycle", "twopath",
           "tripercycle", "transitive", "m2star", "b1star", "b2star")
GW_PREFIXES = ("gw", "dgw", "altkstar")

# a decay moved by (nearly) MAX_DECAY_STEP, the same way, this many iterations running:
# it is running off (a legitimate fit starts within a few steps of its MLE)
RUNOFF_STEPS = 8
# the step towards the observed statistics stayed below this share, with the sample
# farther than STALL_T sample sd from them, this many iterations running: stalled
STALL_GAMMA, STALL_T, STALL_ITERS = 0.05, 5.0, 3


def gw_advice(model, if_gw=""):
    """The 'use geometrically weighted terms' advice, only for a model with triangle
    or k-star terms and no geometrically weighted term; ``if_gw`` for a model that
    has GW terms; "" otherwise."""
    labels = [str(lab) for lab in model.labels]
    if any(lab.startswith(GW_PREFIXES) for lab in labels):
        return if_gw
    if any(lab.startswith(TRIADIC) for lab in labels):
        return ("geometrically weighted terms (gwesp, gwdsp, gwdegree) instead of triangle or "
                "k-star terms, ")
    return ""


def _path(par, history, theta):
    """Per curved term: (weight label, decay label, curve, decays over the iterations)."""
    thetas = [h["theta"] for h in history if not h.get("backtrack")] + [list(theta)]
    out = []
    for ps, _, curve in par.curved_terms:
        d = [float(t[ps.start + 1]) for t in thetas]
        out.append((par.param_labels[ps.start], par.param_labels[ps.start + 1], curve, d))
    return out


def decay_ridge(curve):
    return DECAY_RIDGE if curve.decay_name == "decay" else float(np.exp(DECAY_RIDGE))


def ran_off(model, theta, converged):
    """A fit (an MPLE, EE) is no start: not ``converged``, or a decay beyond its ridge."""
    return (not converged) or any(theta[ps.start + 1] > decay_ridge(c)
                                  for ps, _, c in model.parameterisation.curved_terms)


def _sane(curve, path, history):
    """The last decay before things went wrong: at the last iteration whose sample was
    near the observed statistics (every |t| <= 3), else the start -- and never one
    beyond the ridge (then the usual start, 0.5 or λ = 2)."""
    good = [k for k, h in enumerate(h for h in history if not h.get("backtrack"))
            if "t_mean" in h and np.max(np.abs(h["t_mean"])) <= 3]
    for v in ([path[good[-1]]] if good else []) + [path[0]]:
        if curve.decay_lower < v <= decay_ridge(curve) or (v == curve.decay_lower == 0.0):
            return v
    return 0.5 if curve.decay_name == "decay" else 2.0


def _describe_paths(paths):
    parts = []
    for _, d_lab, _, d in paths:
        if len(d) > 1 and abs(d[-1] - d[0]) > 1e-3:
            parts.append(f"{d_lab} went from {d[0]:.3g} to {d[-1]:.3g} in {len(d) - 1} "
                         "iteration(s)")
        else:
            parts.append(f"{d_lab} = {d[-1]:.3g}")
    return "; ".join(parts)


def expert_advice(par, paths, history, running=None):
    """What a statnet expert would try for a curved fit in trouble: fix each decay at
    its last sane value (a ``running`` decay -- its label -- at its start, the others
    where they are), start lower (init=), or more MCMC."""
    fixes, inits = [], []
    for w_lab, d_lab, curve, d in paths:
        if running is None:
            v = _sane(curve, d, history)
        else:
            v = _sane(curve, [d[0] if d_lab == running else d[-1]], [])
        fixes.append(f"{w_lab}({v:.3g}, fixed=TRUE)")
        low = 0.5 if curve.decay_name == "decay" else 2.0
        moved = running is None or d_lab == running
        inits.append(f"{d_lab}={(min(v, low) if v > 0 else low) if moved else v:.3g}")
    return (f"What to try: fix the decay at its last sane value ({', '.join(fixes)}); or "
            f"start the decay elsewhere with init= (NaN for the other parameters, e.g. "
            f"{', '.join(inits)}); or more MCMC (a larger interval and samplesize)")


def _t_summary(model, chains, g_obs, D):
    """'the simulated networks have 570 ties on average (observed 115 of 630 dyads); ...'"""
    S = np.concatenate(chains)
    labels = list(model.stat_labels)
    facts = []
    if "edges" in labels:
        k = labels.index("edges")
        facts.append(f"the simulated networks have {S[:, k].mean():.0f} ties on average "
                     f"(observed {g_obs[k]:.0f}, of {D} dyads)")
    for ps, ss, curve in model.parameterisation.curved_terms:
        zero = np.all(S[:, ss] == 0)
        if zero and np.any(g_obs[ss] != 0):
            first, last = labels[ss.start], labels[ss.stop - 1]
            if "deg" in first:
                why = f"every node has degree 0 or above the cutoff {curve.K}"
            elif curve.decay_name == "lambda":
                why = "no node has a degree in 1 .. the cutoff"
            else:
                why = f"no pair has between 1 and {curve.K} (the cutoff) shared partners"
            facts.append(f"the counts {first} .. {last} of "
                         f"{model.parameterisation.param_labels[ps.start]} are 0 in every draw "
                         f"(observed total {g_obs[ss].sum():.0f}): {why}")
    return "; ".join(facts)


def _theta_text(par, theta):
    return ", ".join(f"{lab} {v:.3g}" for lab, v in zip(par.param_labels, theta))


def degenerate_sample(model, exc, chains, g_obs, D, history, theta):
    """A curved fit's sample did not vary or stuck at the empty/complete graph
    (``exc`` from check_degeneracy): the same error with what happened in plain words
    (the sample against the observed statistics, the decays' paths) and the expert's
    advice instead of the generic one."""
    par = model.parameterisation
    paths = _path(par, history, theta)
    facts = _t_summary(model, chains, g_obs, D)
    head = str(exc).split(":")[0]
    new = DegenerateModelError(
        f"{head}: the curved model is degenerate at ({_theta_text(par, theta)}) -- "
        f"{facts or 'the sample does not vary'}. {_describe_paths(paths)}. "
        + expert_advice(par, paths, history))
    for key in ("retryable", "swing"):
        if getattr(exc, key, False):
            setattr(new, key, True)
    new.decay_start = [d[0] for _, _, _, d in paths]
    return new


# the decays a failed default start is retried from (statnet's users' usual choice)
RESTART_DECAY = {"decay": 0.5, "lambda": 2.0}


def restart(model, settings, first, core, mple):
    """After ``first`` (a DegenerateModelError of a curved fit from the default start:
    a degenerate sample or a stall, with its start decays in ``first.decay_start``),
    fit once more by ``core(model, **settings)`` from the fixed-decay MPLE with every
    decay at RESTART_DECAY -- what a statnet expert tries first (``mple``: the MPLE
    estimator class, passed in by the caller: this module stays below ``mple`` in the
    import graph).  samplike
    ``edges + mutual + gwesp(fixed=FALSE)``: the default start (decay 2, the best
    fixed-decay pseudo-likelihood of the grid) stalls in the almost empty mode; from
    decay 0.5, seeds 1-5 converge to gwesp.decay 1.75-1.81.  Returns (what core
    returned, a note, how the fit started); raises ``first`` when its start had those
    decays already, or a DegenerateModelError naming both attempts."""
    par = model.parameterisation
    init = np.full(len(model.labels), np.nan)
    for ps, _, curve in par.curved_terms:
        init[ps.start + 1] = RESTART_DECAY[curve.decay_name]
    decays = init[par.decay_indices()]
    if np.allclose(decays, first.decay_start):
        raise first
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            start = np.asarray(mple(init=init, verbose=False).fit(model).info["curved_start"],
                               dtype=float)
    except (DegenerateModelError, KeyError):
        raise first from None
    what = ", ".join(f"{par.param_labels[k]} {v:g}" for k, v in zip(par.decay_indices(), decays))
    s = dict(settings, init=start)
    try:
        out = core(model, **s)
    except DegenerateModelError as second:
        raise DegenerateModelError(f"{first} -- Restarted from the fixed-decay MPLE at {what}: "
                                   f"{second}") from None
    return out, (f"the fit from the default start failed ({str(first).split('. ')[0]}); it was "
                 f"restarted from the fixed-decay MPLE at {what}"), \
        f"MPLE (fixed decays {what}, after a failed start)"


def check_runoff(model, history, theta, chains=None, g_obs=None, D=None):
    """Raise DegenerateModelError, fast, when a curved MCMC-MLE fit runs off: a decay
    beyond its ridge, a decay moved the same way at the largest step allowed
    RUNOFF_STEPS iterations running, or steps towards the observed statistics that
    stay near 0 with the sample far from them (a chain fallen into another mode of
    a bimodal model).  ``history``: the iterations' records, ``theta`` the next θ;
    ``chains`` (the last sample's canonical statistics), ``g_obs`` and ``D`` (dyads)
    describe the sample in the message."""
    par = model.parameterisation
    paths = _path(par, history, theta)
    recs = [h for h in history if not h.get("backtrack")]
    why = running = None
    for w_lab, d_lab, curve, d in paths:
        steps = np.diff(d)[-RUNOFF_STEPS:]
        if d[-1] > decay_ridge(curve):
            why = (f"{d_lab} ran off: it went from {d[0]:.3g} to {d[-1]:.3g} in {len(d) - 1} "
                   f"iteration(s), beyond {decay_ridge(curve):.3g}, where {w_lab} counts every "
                   "shared partner or degree alike (a triangle/k-star-like term)")
        elif len(steps) == RUNOFF_STEPS and (np.all(steps > 0.8 * MAX_DECAY_STEP)
                                             or np.all(steps < -0.8 * MAX_DECAY_STEP)):
            way = "rising" if steps[-1] > 0 else "falling"
            why = (f"{d_lab} is running off: it went from {d[0]:.3g} to {d[-1]:.3g} in "
                   f"{len(d) - 1} iterations, the last {RUNOFF_STEPS} all at the largest step "
                   f"allowed ({MAX_DECAY_STEP}) and still {way}: the likelihood has a ridge "
                   f"along {d_lab}")
            w = float(theta[par.param_labels.index(w_lab)])
            if abs(w) < 0.1:
                why += (f" ({w_lab} = {w:.3g}: with a weight near 0 its decay is hardly "
                        "identified; dropping the term is an option too)")
        if why:
            running = d_lab
            break
    if why is None and len(recs) >= STALL_ITERS:
        last = recs[-STALL_ITERS:]
        if all(h["gamma"] < STALL_GAMMA and "t_mean" in h
               and np.max(np.abs(h["t_mean"])) > STALL_T for h in last):
            facts = _t_summary(model, chains, g_obs, D) if chains is not None else ""
            why = (f"MCMC-MLE stalled: in iterations {last[0]['iteration']}-"
                   f"{last[-1]['iteration']} the sample stayed far from the observed "
                   f"network -- {facts or 'its means more than 5 sd away'} -- and the step "
                   f"towards it was at most {max(h['gamma'] for h in last):.1%} of the way")
            near = [h for h in recs[:-STALL_ITERS]
                    if "t_mean" in h and np.max(np.abs(h["t_mean"])) <= 3]
            if near:
                why += (f"; at iteration {near[-1]['iteration']}, at nearly the same "
                        "parameters, the sample was near the observed network: the model is "
                        "bimodal (near-degenerate) there, and the chain fell into the other mode")
            why += f". {_describe_paths(paths)}"
    if why is not None:
        exc = DegenerateModelError(f"{why}. At ({_theta_text(par, theta)}). "
                                   + expert_advice(par, paths, history, running))
        if running is None:         # a stall: another start may avoid the other mode
            exc.decay_start = [d[0] for _, _, _, d in paths]
        raise exc
