"""Maximum composite likelihood estimation (``method="mcle"``): the estimator
class :class:`MCLE`, the composite designs it maximises and their covariance.

The composite likelihood, the block families, curved terms, constraints and
the standard errors are described in ``docs/guide/estimators/mcle.md``.  The
module is written against the BinaryModel interface and a model spec
(``labels``, ``compiled()``; optionally ``sampler()``, ``formula``,
``network``), so the MRF submodule reuses it.

References
----------
Lindsay, B. G. (1988). Composite likelihood methods. *Contemporary
Mathematics* 80, 221-239.

Varin, C., Reid, N. & Firth, D. (2011). An overview of composite likelihood
methods. *Statistica Sinica* 21, 5-42.

Asuncion, A., Liu, Q., Ihler, A. & Smyth, P. (2010). Learning with blocks:
composite likelihood and contrastive divergence. *AISTATS*.

Examples
--------
>>> import ergmfit as ef
>>> from ergmfit.estimation import MCLE
>>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
>>> MCLE(block_size=2, random_state=1).fit(m).method
'mcle'
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special

from ...exceptions import ConvergenceWarning, DegenerateModelError, SettingsError
from ...results import ERGMResults
from ...runtime import Progress, catch_interrupt
from ...utils.optimize import newton_ascent
from ...utils.validation import check_params, check_random_state, seed_words
from ...terms.parameterisation import Identity
from ...terms.parameter_steps import bounded_ascent
from ..base import Estimator, Setting, choice, integer, number
from ..common.nobs import fit_nobs
from .blocks import (DEFAULT_MAX_BLOCKS, block_kernel, degree_feasibility,
                     free_variables, make_blocks, make_chooser)
from ..mple.existence import observed_design

__all__ = ["MCLE", "CompositeDesign", "KernelComposite", "composite_design",
           "make_blocks",
           "make_chooser", "MAX_EXACT_VARS"]

MAX_EXACT_VARS = 20


# ---------------------------------------------------------------------------
# The composite likelihood as a function of theta
# ---------------------------------------------------------------------------
@dataclass
class CompositeDesign:
    """Statistic differences of every block, merged into distinct blocks.

    ``groups`` is a list of (D, w): D of shape (U, 2^k, p) holds the
    distinct difference matrices of the blocks of one size, w (U,) how many
    blocks each stands for.
    """
    groups: list
    p: int
    n_blocks: int
    n_vars: int
    info: dict = field(default_factory=dict)
    # per group None or (U, 2^k) bool: the configurations inside the sample
    # space (degree bounds, blocks.degree_feasibility); the others have probability 0
    masks: list = None

    @property
    def n_unique(self) -> int:
        return int(sum(len(w) for _, w in self.groups))

    def parts(self):
        return _parts(self)

    def _probs(self, D, theta, M=None):
        W = _logits(D, theta, M)                       # (U, S)
        lse = special.logsumexp(W, axis=1)
        P = np.exp(W - lse[:, None])
        return lse, P

    def loglik(self, theta) -> float:
        theta = np.asarray(theta, dtype=float)
        return float(-sum(w @ special.logsumexp(_logits(D, theta, M), axis=1)
                          for D, w, M in self.parts()))

    def score(self, theta) -> np.ndarray:
        """sum_c (g(x) - E[g | x_-A_c])."""
        theta = np.asarray(theta, dtype=float)
        out = np.zeros(self.p)
        for D, w, M in self.parts():
            _, P = self._probs(D, theta, M)
            out -= np.einsum("u,us,usq->q", w, P, D)
        return out

    def loglik_score_hessian(self, theta):
        """CL, its gradient and H = -Hessian = sum_c Cov[g | x_-A_c]."""
        theta = np.asarray(theta, dtype=float)
        ll, sc, H = 0.0, np.zeros(self.p), np.zeros((self.p, self.p))
        for D, w, M in self.parts():
            lse, P = self._probs(D, theta, M)
            ll -= float(w @ lse)
            E = np.einsum("us,usq->uq", P, D)
            sc -= w @ E
            S2 = np.einsum("u,us,usq,usr->qr", w, P, D, D)
            H += S2 - E.T @ (w[:, None] * E)
        return ll, sc, H

    def hessian(self, theta) -> np.ndarray:
        return self.loglik_score_hessian(theta)[2]

    def loglik_score(self, theta):
        return _ll_sc(self, theta)

    def score_at(self, bm, theta) -> np.ndarray:
        """The composite score of the same blocks at ``bm``'s current state."""
        return composite_score_at_state(bm, self._blocks, theta, getattr(self, "_feasible", None))


def _parts(des):
    """(D, w, M) per group of a design (M None: every configuration; designs
    built elsewhere, e.g. by the MRF submodule, have no masks)."""
    masks = getattr(des, "masks", None) or [None] * len(des.groups)
    return [(D, w, M) for (D, w), M in zip(des.groups, masks)]


def _logits(D, theta, M=None):
    """θ·D of every configuration; -inf where ``M`` (feasible) is False."""
    W = D @ theta
    return W if M is None else np.where(M, W, -np.inf)


class KernelComposite:
    """The composite likelihood through any :class:`~ergmfit.sampling.BlockKernel`
    (e.g. forward-backward over tree-shaped blocks of a pairwise MRF): evaluated
    block by block in compiled code at every theta; minus the Hessian by central
    differences of the score.  Same interface as :class:`CompositeDesign`."""

    groups = None

    def __init__(self, bm, kernel, blocks_by_size, info):
        rows = [r for arrs in blocks_by_size.values() for arr in arrs for r in arr]
        self.bm = bm
        self.kernel = kernel
        self.flat = np.ascontiguousarray(np.concatenate(rows), dtype=np.int64)
        self.offsets = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
        self.p = int(bm.n_stats)
        self.n_blocks = len(rows)
        self.n_unique = len(rows)
        self.n_vars = int(bm.n_vars)
        self.info = dict(info)
        self._blocks = blocks_by_size
        if max(len(r) for r in rows) > kernel.max_size:
            raise SettingsError(f"blocks of up to {max(len(r) for r in rows)} variables exceed the "
                                f"kernel's max_size={kernel.max_size}")

    def loglik_score(self, theta, bm=None):
        from ...sampling._blocks import kernel_composite
        return kernel_composite(self.bm if bm is None else bm, self.kernel, self.flat,
                                self.offsets, np.asarray(theta, dtype=float))

    def loglik(self, theta) -> float:
        return float(self.loglik_score(theta)[0])

    def score(self, theta) -> np.ndarray:
        return self.loglik_score(theta)[1]

    def score_at(self, bm, theta) -> np.ndarray:
        return self.loglik_score(theta, bm)[1]

    def loglik_score_hessian(self, theta):
        theta = np.asarray(theta, dtype=float)
        ll, sc = self.loglik_score(theta)
        H = np.empty((self.p, self.p))
        for q in range(self.p):
            h = 1e-5 * (1.0 + abs(theta[q]))
            e = np.zeros(self.p)
            e[q] = h
            H[:, q] = -(self.score(theta + e) - self.score(theta - e)) / (2 * h)
        return ll, sc, 0.5 * (H + H.T)

    def hessian(self, theta) -> np.ndarray:
        return self.loglik_score_hessian(theta)[2]


def merge_blocks(D, w, M=None):
    """Merge blocks with equal difference matrices (rounded to 1e-10), adding
    their weights: ``D`` (blocks, configurations, p), ``w`` (blocks,) ->
    (distinct D, summed w).  The PL, CL, SCL and Potts designs all shrink
    this way before the Newton iterations.  With ``M`` (blocks,
    configurations) feasibility masks, blocks merge when their masks agree
    too, and (D, w, M) is returned."""
    U, S, p = D.shape
    if U <= 1:
        return (D, w) if M is None else (D, w, M)
    flat = np.round(D.reshape(U, S * p), 10) + 0.0
    if M is not None:
        flat = np.concatenate([flat, M.astype(float)], axis=1)
    uniq, inv = np.unique(flat, axis=0, return_inverse=True)
    inv = np.asarray(inv).ravel()
    wsum = np.bincount(inv, weights=w, minlength=len(uniq))
    if M is None:
        return uniq.reshape(-1, S, p), wsum
    return uniq[:, :S * p].reshape(-1, S, p), wsum, uniq[:, S * p:] > 0.5


def merge_groups(by_size):
    """``{configurations: [(D, w), ...]}`` -> one merged (D, w) group per
    number of configurations, in increasing order (see :func:`merge_blocks`)."""
    return [merge_blocks(np.concatenate([d for d, _ in parts]),
                         np.concatenate([w for _, w in parts]))
            for _, parts in sorted(by_size.items())]


def composite_design(bm, blocks="all", block_size=1, n_blocks=None,
                     max_blocks=DEFAULT_MAX_BLOCKS, random_state=None, merge=True, free=None,
                     feasible=None):
    """The :class:`CompositeDesign` of a compiled model at its current state
    (with ``free``: over blocks of those variables only, see :func:`make_blocks`;
    with ``feasible``: only the configurations it allows, see
    :func:`ergmfit.estimation.contrastive.blocks.degree_feasibility`)."""
    from ...sampling._blocks import Enumeration, block_differences, MAX_ENUMERATION
    fam, desc = make_blocks(bm, blocks, block_size, n_blocks, max_blocks, random_state, free)
    groups, masks = [], []
    total = 0
    raw = {}
    for k, chunks in fam.items():
        if k > MAX_ENUMERATION:
            raise SettingsError(f"blocks of {k} variables are too large to enumerate "
                                f"(at most {MAX_ENUMERATION}); use smaller blocks")
        kern = Enumeration(max(1, k))
        Ds, ws, Ms = [], [], []
        rows = []
        for arr in chunks:
            total += len(arr)
            rows.append(arr)
            D = block_differences(bm, arr, kern)
            w = np.ones(len(D))
            M = None if feasible is None else feasible(bm, arr)
            if merge:
                D, w, *M = merge_blocks(D, w, M)
                M = M[0] if M else None
            Ds.append(D)
            ws.append(w)
            Ms.append(M)
        D = np.concatenate(Ds)
        w = np.concatenate(ws)
        M = None if feasible is None else np.concatenate(Ms)
        if merge and len(Ds) > 1:
            D, w, *M = merge_blocks(D, w, M)
            M = M[0] if M else None
        groups.append((D, w))
        masks.append(M)
        raw[k] = rows
    des = CompositeDesign(groups, int(bm.n_stats), total,
                          int(bm.n_vars) if free is None else len(free), dict(desc),
                          masks=None if feasible is None else masks)
    des._feasible = feasible
    des.info["n_unique"] = des.n_unique
    des._blocks = raw            # the block variables, to re-evaluate the score elsewhere
    return des


def composite_score_at_state(bm, blocks_by_size, theta, feasible=None):
    """The composite score at the model's current state, for the given blocks
    (and only the configurations ``feasible`` allows)."""
    from ...sampling._blocks import Enumeration, block_differences
    theta = np.asarray(theta, dtype=float)
    out = np.zeros(bm.n_stats)
    for k, rows in blocks_by_size.items():
        kern = Enumeration(max(1, k))
        for arr in rows:
            D = block_differences(bm, arr, kern)
            W = _logits(D, theta, None if feasible is None else feasible(bm, arr))
            P = np.exp(W - special.logsumexp(W, axis=1)[:, None])
            out -= np.einsum("us,usq->q", P, D)
    return out


# ---------------------------------------------------------------------------
# Estimator
# ---------------------------------------------------------------------------
def check_design(des: CompositeDesign, labels):
    if des.groups is None:
        return
    var = np.zeros(des.p, dtype=bool)
    for D, _, M in _parts(des):
        var |= np.any((D != 0) & (True if M is None else M[:, :, None]), axis=(0, 1))
    flat = [labels[q] for q in np.flatnonzero(~var)]
    if flat:
        raise DegenerateModelError(
            f"the statistic(s) {flat} do not change in any configuration of any block: they "
            "carry no information in this composite likelihood (e.g. a nodefactor level no "
            "node has); remove them from the formula or use other blocks")


def maximize_composite(des: CompositeDesign, theta0, maxiter=500, tol=1e-12, progress=None):
    """L-BFGS then Newton on -CL.  Returns (theta, loglik, H, n_iter, converged).
    ``progress`` (a dict), if given, gets the best point so far as "theta"
    (what a caller keeps when Ctrl-C ends the optimisation)."""
    scale = max(1.0, float(des.n_blocks))
    best = [np.inf]

    def f(th):
        ll, sc = des.loglik_score(th)
        if progress is not None and np.isfinite(ll) and -ll < best[0]:
            best[0] = -ll
            progress["theta"] = np.array(th, dtype=float)
        return -ll / scale, -sc / scale

    theta = np.asarray(theta0, dtype=float).copy()
    res = optimize.minimize(f, theta, jac=True, method="L-BFGS-B",
                            options={"maxiter": maxiter, "gtol": 1e-10, "ftol": 1e-15})
    if np.all(np.isfinite(res.x)):
        theta = res.x
    theta, ll, _, H, newton_iter, converged = newton_ascent(
        des.loglik_score_hessian, theta, value=des.loglik, maxiter=50, tol=tol)
    n_iter = int(res.nit) + newton_iter
    return theta, ll, H, n_iter, converged


def maximize_curved_composite(des: CompositeDesign, par, theta0, maxiter=200, tol=1e-12,
                              progress=None):
    """Maximise CL(η(θ)) over θ (a curved model; ``des`` holds the canonical
    statistic differences): Fisher scoring with gradient J' score and
    information J' H J, decays kept at or above their bounds, as the curved
    MPLE (:func:`ergmfit.terms.parameter_steps.maximize_curved_pseudolikelihood`).  Returns
    (theta, loglik, J'HJ, n_iter, converged); ``progress`` as for
    :func:`maximize_composite`."""
    best = [-np.inf]

    def fun(theta):
        ll, sc, H = des.loglik_score_hessian(par.eta(theta))
        if progress is not None and np.isfinite(ll) and ll > best[0]:
            best[0] = ll
            progress["theta"] = np.array(theta, dtype=float)
        J = par.jacobian(theta)
        return ll, J.T @ sc, J.T @ H @ J

    def value(theta):
        with np.errstate(all="ignore"):
            return des.loglik(par.eta(theta))

    return bounded_ascent(fun, value, theta0, par, maxiter, tol)


def _ll_sc(des, th):
    th = np.asarray(th, dtype=float)
    ll, sc = 0.0, np.zeros(des.p)
    for D, w, M in _parts(des):
        W = _logits(D, th, M)
        lse = special.logsumexp(W, axis=1)
        ll -= float(w @ lse)
        P = np.exp(W - lse[:, None])
        sc -= np.einsum("u,us,usq->q", w, P, D)
    return ll, sc


def separation_direction(des: CompositeDesign):
    """A direction d along which CL(theta + t d) increases for ever (so no
    maximum exists), or None.  CL rises without bound along d exactly when
    d . D_{c,s} <= 0 for every configuration of every block, with some < 0
    (a linear program, as for the MPLE)."""
    if des.groups is None:              # a generic kernel: no difference matrices
        return None
    # the configurations other than the observed one (and inside the space)
    keep = [np.ones(D.shape[:2], bool) if M is None else M for D, _, M in _parts(des)]
    rows = np.concatenate([D[:, 1:, :][K[:, 1:]] for (D, _), K in zip(des.groups, keep)])
    wts = np.concatenate([np.broadcast_to(w[:, None], K[:, 1:].shape)[K[:, 1:]]
                          for (_, w), K in zip(des.groups, keep)])
    if len(rows) == 0:
        return None
    rows, inv = np.unique(np.round(rows, 10) + 0.0, axis=0, return_inverse=True)
    wts = np.bincount(np.asarray(inv).ravel(), weights=wts, minlength=len(rows))
    scale = np.abs(rows).max(axis=0)
    scale[scale == 0] = 1.0
    Z = rows / scale
    res = optimize.linprog(wts @ Z, A_ub=Z, b_ub=np.zeros(len(Z)), bounds=[(-1.0, 1.0)] * des.p,
                           method="highs")
    if res.status != 0 or res.fun >= -1e-7:
        return None
    d = np.asarray(res.x) / scale
    d[np.abs(res.x) < 1e-7] = 0.0
    return d if np.any(d) else None


def _inv(H):
    try:
        return np.linalg.inv(H)
    except np.linalg.LinAlgError:
        return np.linalg.pinv(H, hermitian=True)


def _simulated_scores(model, bm_obs, des, theta, n_sim, burnin, interval, proposal, rng,
                      verbose=False, eta=None):
    """Composite scores at n_sim states simulated from theta (a curved model:
    ``theta`` its parameters, ``eta`` = η(θ) the natural parameters the
    sampler and the scores use; the scores are in the canonical statistics)."""
    if hasattr(model, "sampler"):
        sampler, bm = model.sampler(theta, proposal=proposal, random_state=rng)
        if eta is not None:
            theta = eta
        run = sampler.run
        kind = f"Metropolis-Hastings ({proposal})"
    else:
        from ...sampling._blocks import BlockGibbsSampler, UniformBlocks
        bm = model.compiled()
        sampler = BlockGibbsSampler(bm, UniformBlocks(bm.n_vars, 1), None, seed_words(rng))
        run = sampler.run
        kind = "random-scan Gibbs"
    U = np.empty((n_sim, des.p))
    bar = _progress(verbose, n_sim, "Godambe J")
    done = 0
    with catch_interrupt() as stop:      # Ctrl-C: keep the scores finished so far
        run(theta, burnin)
        for r in range(n_sim):
            run(theta, interval)
            U[r] = des.score_at(bm, theta)
            done = r + 1
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    return U[:done], kind, stop.interrupted


def exact_variability(bm, des, theta, free=None, feasible=None):
    """J = E_theta[u u'] (and E u) over every state of a small model, walking
    all 2^M states by Gray-code flips of the compiled model (restored after);
    with ``free``, the states of those variables (the others fixed); with
    ``feasible`` (degree bounds), the states inside the bounds."""
    var = np.arange(int(bm.n_vars)) if free is None else np.asarray(free, dtype=np.int64)
    M = len(var)
    if M > MAX_EXACT_VARS:
        raise SettingsError(f"cov='exact' enumerates 2^{M} states; at most {MAX_EXACT_VARS} "
                            "variables")
    theta = np.asarray(theta, dtype=float)
    n = 1 << M
    logw = np.empty(n)
    U = np.empty((n, des.p))
    g = np.zeros(des.p)             # g(x) - g(x_obs) along the walk
    cur = 0
    for t in range(n):
        if t > 0:
            b = (t & -t).bit_length() - 1
            v = int(var[b])
            d = bm.change_stats(v)
            g = g - d if bm.value(v) else g + d
            bm.flip_var(v)
            cur ^= 1 << b
        if feasible is None or feasible.state_ok(bm):
            logw[t] = theta @ g
            U[t] = des.score_at(bm, theta)
        else:
            logw[t], U[t] = -np.inf, 0.0
    # restore the observed state
    b = 0
    while cur:
        if cur & 1:
            bm.flip_var(int(var[b]))
        cur >>= 1
        b += 1
    pr = np.exp(logw - special.logsumexp(logw))
    mean = pr @ U
    return (U * pr[:, None]).T @ U, mean


def _progress(verbose, total, desc):
    return Progress(total, desc, enabled=verbose)


class MCLE(Estimator):
    """Maximum composite likelihood estimator: θ maximising the sum over blocks
    of k = ``block_size`` dyads of log p(x_block | rest, θ) (Lindsay 1988),
    with the Godambe sandwich covariance (Varin, Reid & Firth 2011).  The
    algorithm is described in ``docs/guide/estimators/mcle.md``.

    ``MCLE(**settings).fit(model)``; ``ERGM.fit(method="mcle", **settings)``
    builds it.  ``blocks="uniform"`` (or "triple", "star") draws random
    blocks and needs ``n_blocks``.  ``kernel`` (a BlockKernel) evaluates each
    block's conditional at every theta (e.g. forward-backward over
    tree-shaped blocks of an MRF) instead of the precomputed Gray-code
    differences; minus the Hessian then comes from central differences of
    the score.

    References
    ----------
    Lindsay, B. G. (1988). Composite likelihood methods. *Contemporary
    Mathematics* 80, 221-239.

    Varin, C., Reid, N. & Firth, D. (2011). An overview of composite likelihood
    methods. *Statistica Sinica* 21, 5-42.

    Examples
    --------
    >>> import ergmfit as ef
    >>> from ergmfit.estimation import MCLE
    >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    >>> fit = MCLE(block_size=2, cov="naive").fit(m)
    >>> fit.method, fit.info["block_size"]
    ('mcle', 2)
    """

    method = "mcle"
    supports = {"curved": True, "constraints": True, "missing": False, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary"})}
    SETTINGS = (
        Setting("block_size", 2, integer(1), "The order k of the composite likelihood."),
        Setting("blocks", "all", None,
                "'all', 'uniform', 'triple', 'star' or a list of blocks (index sets)."),
        Setting("n_blocks", None, integer(1, allow_none=True),
                "Use this many random blocks (required for 'uniform'/'triple'/'star')."),
        Setting("max_blocks", DEFAULT_MAX_BLOCKS, integer(1),
                "Largest family 'all' may enumerate."),
        Setting("cov", "godambe", choice("godambe", "exact", "naive", "none"),
                "Covariance: 'godambe' (simulated), 'exact', 'naive' or 'none'."),
        Setting("n_sim", 200, integer(2), "Simulated networks for cov='godambe'."),
        Setting("burnin", 16384, integer(0), "Proposals before the first simulated network."),
        Setting("interval", 1024, integer(1), "Proposals between simulated networks."),
        Setting("proposal", "tnt", None, "Proposal of the simulations."),
        Setting("init", None, None, "Starting value of the optimiser (default: the MPLE)."),
        Setting("maxiter", 500, integer(1), "Optimiser iterations."),
        Setting("tol", 1e-12, number(0, lo_open=True), "Newton-decrement tolerance."),
        Setting("kernel", None, block_kernel, "A BlockKernel evaluating block conditionals."),
        Setting("order", None, integer(1, allow_none=True), "Alias of block_size."),
    )

    def _finish_settings(self):
        if self.order is not None:
            self.block_size = self.order
        blocks = self.blocks
        if isinstance(blocks, str) and blocks.lower() in ("uniform", "random", "triple",
                                                          "triples", "star", "node") \
                and self.n_blocks is None:
            raise SettingsError(f"blocks={blocks!r} draws random blocks: give n_blocks=")

    def fit(self, model) -> ERGMResults:
        t0 = time.perf_counter()
        rng = check_random_state(self.random_state)
        labels = list(model.labels)
        par = getattr(model, "parameterisation", None) or Identity(labels)
        free = free_variables(model, "mcle")       # None: every dyad (no constraints)
        feasible = degree_feasibility(model)       # None: no degree bounds
        if feasible is not None and self.kernel is not None:
            raise SettingsError("MCLE under degree bounds evaluates its blocks from the "
                                "enumerated configurations (the feasible ones only): kernel= "
                                "cannot be used")
        bm = model.compiled()
        # the maximiser, chosen once: in η (θ = η) or through the curved map
        fitter = (_LinearComposite if par.linear else _CurvedComposite)(
            model, par, labels, self.init, bm, free)
        fitter.check_observed()
        with catch_interrupt() as early:     # Ctrl-C while the blocks are enumerated
            if self.kernel is None:
                des = composite_design(bm, self.blocks, self.block_size, self.n_blocks,
                                       self.max_blocks, rng, free=free, feasible=feasible)
            else:
                fam, desc = make_blocks(bm, self.blocks, self.block_size, self.n_blocks,
                                        self.max_blocks, rng, free)
                des = KernelComposite(bm, self.kernel, {k: list(v) for k, v in fam.items()},
                                      desc)
                des.n_vars = int(bm.n_vars) if free is None else len(free)
        if early.interrupted:        # nothing of the MCLE is done: the start, marked
            return self._interrupted(model, None, fitter.start(), labels, t0,
                                     "while building the composite likelihood's blocks")
        fitter.check_design(des)
        if self.verbose:
            print(f"MCLE: {des.n_blocks:,} blocks -> {des.n_unique:,} distinct")
        theta0 = fitter.start()
        progress = {}
        with catch_interrupt() as stop:      # Ctrl-C: keep the best point so far
            theta, ll, H, n_iter, converged = fitter.maximize(des, theta0, self.maxiter,
                                                              self.tol, progress)
        warn = []
        if stop.interrupted:
            return self._interrupted(model, des, progress.get("theta", theta0), labels, t0,
                                     "while maximising the composite likelihood")
        warn += par.decay_messages(theta, "composite likelihood")     # none when θ = η
        fitter.check_existence(des, theta, converged)
        if not converged or np.max(np.abs(theta)) > 1e3:
            msg = ("the composite likelihood did not converge to a finite maximum (largest "
                   f"|coefficient| {np.max(np.abs(theta)):.3g}): the maximum composite likelihood "
                   "estimate may not exist for these blocks (e.g. a statistic at its extreme); "
                   "try larger or other blocks")
            warnings.warn(msg, ConvergenceWarning, stacklevel=3)
            warn.append(msg)
            converged = False
        Hinv = _inv(H)
        # the canonical-space score and its map to θ: s -> s J (identity when linear)
        eta = par.eta(theta)

        def proj(A):
            return par.score(theta, A)
        info = {"block_size": des.info.get("block_size"), "blocks": des.info.get("blocks"),
                "n_blocks": des.n_blocks, "unique_blocks": des.n_unique,
                "composite_loglik": ll, "score_at_estimate": proj(des.score(eta)).tolist()}
        se_kind = self.cov
        if self.cov == "naive":
            cov = Hinv
            if not _whole(des):
                warn.append("Warning: the standard errors are the naive inverse of the composite "
                            "Hessian and are too small for a composite likelihood; use "
                            "cov=\"godambe\".")
        elif self.cov == "none":
            cov = np.full((len(labels), len(labels)), np.nan)
            se_kind = None
        else:
            if self.cov == "exact":
                J, mean = exact_variability(bm, des, eta, free, feasible)
                J, mean = par.information(theta, J), par.score(theta, mean)
                info["godambe"] = {"J": "exact", "mean_score": mean.tolist()}
            else:
                U, kind, cut = _simulated_scores(model, bm, des, theta, self.n_sim, self.burnin,
                                                 self.interval, self.proposal, rng, self.verbose,
                                                 eta=eta)
                U = proj(U)
                J = U.T @ U / len(U) if len(U) >= 2 else np.full((len(labels),) * 2, np.nan)
                info["godambe"] = {"n_sim": len(U), "burnin": self.burnin,
                                   "interval": self.interval, "sampler": kind,
                                   "mean_score": U.mean(axis=0).tolist() if len(U) else None}
                if cut:
                    info["interrupted"] = True
                    msg = (f"interrupted by the user while simulating the Godambe variability: "
                           f"the standard errors use {len(U)} of {self.n_sim} simulated networks"
                           + (" (NA: too few)" if len(U) < 2 else ""))
                    warnings.warn(msg, ConvergenceWarning, stacklevel=3)
                    warn.append(msg)
            cov = Hinv @ J @ Hinv
            cov = 0.5 * (cov + cov.T)
            se_kind = "godambe"
        whole = _whole(des)
        k = des.info.get("block_size")
        if whole:
            loglik, kind = ll, "exact"
        elif k == 1 and des.info.get("blocks") == "all":
            loglik, kind = ll, "pseudo"
        else:
            loglik, kind = None, None
        return ERGMResults(
            theta, cov, labels, method="mcle", loglik=loglik, loglik_kind=kind,
            **fit_nobs(model), converged=converged, n_iter=n_iter,
            seconds=time.perf_counter() - t0, se_kind=se_kind, warnings=warn, info=info,
            formula=getattr(model, "formula", None), network=getattr(model, "network", None),
            model=model, dyad_independent=getattr(model, "dyad_independent", None))


    def _interrupted(self, model, des, theta, labels, t0, where):
        """The results of a fit that Ctrl-C ended during the optimisation: the
        best point so far (before it, ``des`` None: the start), not converged,
        no standard errors."""
        msg = (f"interrupted by the user {where}: not converged (the estimate is the "
               + ("best point so far" if des is not None else "start") + "; no standard errors)")
        warnings.warn(msg, ConvergenceWarning, stacklevel=4)
        p = len(labels)
        info = {"interrupted": True}
        if des is not None:
            info.update(block_size=des.info.get("block_size"), blocks=des.info.get("blocks"),
                        n_blocks=des.n_blocks)
        return ERGMResults(
            np.asarray(theta, dtype=float), np.full((p, p), np.nan), labels, method="mcle",
            **fit_nobs(model), converged=False, n_iter=0,
            seconds=time.perf_counter() - t0, se_kind=None, warnings=[msg],
            info=info,
            formula=getattr(model, "formula", None), network=getattr(model, "network", None),
            model=model, dyad_independent=getattr(model, "dyad_independent", None))


def _whole(des) -> bool:
    return des.n_blocks == 1 and des.info.get("block_size") == des.n_vars


def pseudo_fit(bm, labels, free=None):
    """The MPLE (a LogitFit) over every variable, or over the ``free`` ones of a
    constrained space (the start and preconditioner of MCLE and blocked CD)."""
    from ..mple.pseudolikelihood import fit_design, fit_pseudolikelihood, restricted_design
    if free is None:
        return fit_pseudolikelihood(bm, labels)
    return fit_design(restricted_design(bm, free), labels, unit="variable")


class _LinearComposite:
    """MCLE's maximiser when θ = η: the observed design and the blocks are checked
    for dead or collinear statistics, the start is ``init`` or the MPLE, the
    maximiser is Newton's in η, and a separation direction is an error."""

    def __init__(self, model, par, labels, init, bm, free):
        self.model, self.par, self.labels = model, par, labels
        self.init, self.bm, self.free = init, bm, free

    def check_observed(self):
        observed_design(self.model, self.bm)    # dead or collinear statistics: an error

    def check_design(self, des):
        check_design(des, self.labels)

    def start(self):
        if self.init is not None:
            return check_params(self.init, self.labels, "init")
        return _mple_start(self.bm, self.labels, self.free)

    def maximize(self, des, theta0, maxiter, tol, progress):
        return maximize_composite(des, theta0, maxiter, tol, progress)

    def check_existence(self, des, theta, converged):
        """DegenerateModelError when the composite likelihood keeps rising along a
        direction of the statistics (no finite maximum)."""
        if converged and not np.max(np.abs(theta)) > 20:
            return
        d = separation_direction(des)
        if d is None:
            return
        labels = self.labels
        sup = np.flatnonzero(d)
        parts = " + ".join(f"{d[q] / np.abs(d[sup]).max():.3g}*{labels[q]}" for q in sup)
        raise DegenerateModelError(
            "the maximum composite likelihood estimate does not exist: the composite "
            f"likelihood keeps increasing along {parts} (statistics "
            f"{', '.join(repr(labels[q]) for q in sup)}), i.e. no configuration of any "
            "block is more likely than the observed one in that direction (as for a "
            "statistic at its extreme). Remove the term(s) or use larger blocks.")


class _CurvedComposite(_LinearComposite):
    """MCLE's maximiser through a curved map: a curved term's high counts may never
    change (no dead-statistic checks), the start is the curved MPLE
    (:func:`_curved_start`), the maximiser bounded in θ; a decay that runs off is
    reported by the map's decay messages instead of a separation error."""

    def check_observed(self):
        pass

    def check_design(self, des):
        pass

    def start(self):
        return _curved_start(self.model, self.init, self.labels)

    def maximize(self, des, theta0, maxiter, tol, progress):
        return maximize_curved_composite(des, self.par, theta0, maxiter, tol, progress)

    def check_existence(self, des, theta, converged):
        pass


def _mple_start(bm, labels, free=None):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lf = pseudo_fit(bm, labels, free)
        th = np.asarray(lf.params, dtype=float)
        if np.all(np.isfinite(th)):
            return th
    except Exception:  # noqa: BLE001 - any failure: start at zero instead
        pass
    return np.zeros(len(labels))


def _curved_start(model, init, labels):
    """Start of a curved MCLE: ``init`` (NaN entries filled from the curved
    MPLE), else the curved MPLE (its best fixed-decay start if it ran off)."""
    from ..mple.pseudolikelihood import MPLE, curved_init
    given = curved_init(init, labels)
    if given is not None and np.all(np.isfinite(given)):
        theta = given
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = MPLE(verbose=False).fit(model)
        theta = np.asarray(fit.params, dtype=float)
        if not np.all(np.isfinite(theta)) and fit.info.get("curved_start") is not None:
            theta = np.asarray(fit.info["curved_start"], dtype=float)
        if given is not None:
            ok = np.isfinite(given)
            theta[ok] = given[ok]
    return model.parameterisation.project(theta)
