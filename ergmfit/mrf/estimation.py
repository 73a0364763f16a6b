"""Estimators for i.i.d. observations of a binary MRF, on the shared engine.

The ERGM estimators see ONE observed state (a network).  With N observations
x_1 .. x_N of an MRF (or N input/label pairs of a CRF, each its own compiled
conditional model) the pseudo- and composite likelihoods are sums over the
observations; these thin wrappers set the compiled model's state to each
distinct observation, let the shared code build that observation's design,
and add the designs up:

* pseudo-likelihood: :func:`ergmfit.estimation.mple.pseudolikelihood.pseudo_design` per
  observation (the compiled ``_mple.build_design``), rows merged, then the
  same weighted logistic regression :func:`~ergmfit.estimation.mple.pseudolikelihood.fit_design`
  as the MPLE;
* composite likelihood of order k (all k-subsets, Yasuda et al.'s F_k, or
  any list of blocks): :func:`ergmfit.estimation.contrastive.mcle.composite_design` per
  observation (the compiled Gray-code block enumerator), merged into one
  :class:`~ergmfit.estimation.contrastive.mcle.CompositeDesign`, maximised by
  :func:`~ergmfit.estimation.contrastive.mcle.maximize_composite`;
* CD-n, Bn-CDm and persistent CD: the negative phase is drawn by the shared
  samplers -- :class:`~ergmfit.sampling._blocks.BlockGibbsSampler` (random-scan
  blocked Gibbs with exact block conditionals; block size 1 = Gibbs) or
  :class:`~ergmfit.sampling._mh.MHSampler` with
  :class:`~ergmfit.sampling._proposals.RandomToggle` -- started at the
  observation (CD) or at persistent particles (PCD).

An "instance" below is a triple (bm, X, w): a compiled model, the 0/1 rows
observed under it and their weights.  An unconditional MRF has one instance;
a CRF one per input image.

The estimators are classes on the ERGM estimators' protocol
(:mod:`ergmfit.mrf.fitting`): :class:`PseudoLikelihood` (``"pl"``),
:class:`CompositeLikelihood` (``"cl"``), :class:`ContrastiveDivergence`
(``"cd"``) and :class:`PersistentContrastiveDivergence` (``"pcd"``).  The
pseudo- and composite likelihoods run the ERGM's MPLE and MCLE algorithms on
the merged designs and take those estimators' settings (``maxiter``,
``tol``, ``block_size``, ``blocks``, ``n_blocks``) from their tables.
"""
from __future__ import annotations

import math

import numpy as np

from ..estimation.base import Setting, boolean, integer, number
from ..estimation.contrastive.mcle import MCLE
from ..estimation.mple.pseudolikelihood import MPLE
from ..exceptions import SettingsError
from ..utils.validation import check_params, check_random_state, seed_words
from ._base import row_weights
from .fitting import MRFMethod, MRFResults, shared_settings

__all__ = ["distinct_rows", "pseudo_design_multi", "composite_design_multi", "composite_loglik",
           "direction_text", "PseudoLikelihood", "CompositeLikelihood", "ContrastiveDivergence",
           "PersistentContrastiveDivergence"]


def distinct_rows(X, weights=None):
    """The distinct rows of a 0/1 matrix and their total weights."""
    X = np.atleast_2d(np.asarray(X))
    X01 = (X > 0).astype(np.uint8) if X.min() < 0 else X.astype(np.uint8)
    w = row_weights(weights, len(X01))
    U, inv = np.unique(X01, axis=0, return_inverse=True)
    return U, np.bincount(np.asarray(inv).ravel(), weights=w, minlength=len(U))


def _instances(instances):
    out = []
    for inst in instances:
        bm, X = inst[0], inst[1]
        w = inst[2] if len(inst) > 2 else None
        U, cw = distinct_rows(X, w)
        out.append((bm, U, cw))
    return out


# ---------------------------------------------------------------------------
# Pseudo-likelihood
# ---------------------------------------------------------------------------
def pseudo_design_multi(instances):
    """The merged pseudo-likelihood design (:class:`~ergmfit.estimation.mple.pseudolikelihood.Design`)
    of all observations: every variable of every observation is one row."""
    from ..estimation.mple.pseudolikelihood import Design, pseudo_design
    Xs, ns, ss = [], [], []
    n_vars = n_on = 0
    for bm, U, cw in _instances(instances):
        saved = bm.state()
        try:
            for x, c in zip(U, cw):
                bm.set_state(x)
                d = pseudo_design(bm)
                Xs.append(d.X)
                ns.append(d.n * c)
                ss.append(d.s * c)
                n_vars += int(d.n_vars * c)
                n_on += int(d.n_on * c)
        finally:
            bm.set_state(saved)
    X = np.concatenate(Xs)
    n = np.concatenate(ns)
    s = np.concatenate(ss)
    key, inv = np.unique(np.round(X, 12) + 0.0, axis=0, return_inverse=True)
    inv = np.asarray(inv).ravel()
    return Design(key, np.bincount(inv, weights=n, minlength=len(key)),
                  np.bincount(inv, weights=s, minlength=len(key)), n_vars, n_on)


def _theta0(name, value):
    """A check for starting values: None or finite numbers (their number is
    checked against the model's statistics when it fits)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return value
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise SettingsError(f"setting {name!r} must be None or parameter values (numbers), "
                            f"got {value!r}") from None
    if arr.ndim != 1 or not np.all(np.isfinite(arr)):
        raise SettingsError(f"setting {name!r} must be None or a sequence of finite numbers, "
                            f"got {value!r}")
    return value


THETA0 = Setting("theta0", None, _theta0, "Starting values (default zeros).")


class PseudoLikelihood(MRFMethod):
    """Maximum pseudo-likelihood over all observations (``method="pl"``): the
    merged design of :func:`pseudo_design_multi` fitted by the MPLE's
    weighted logistic regression
    (:func:`~ergmfit.estimation.mple.pseudolikelihood.fit_design`).

    ``cov`` is the inverse pseudo-likelihood information; ``loglik`` the log
    pseudo-likelihood at the estimate.

    Examples
    --------
    >>> import networkx as nx
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel(nx.cycle_graph(5))
    >>> X = m.sample(200, theta=[0.2, 0.5], random_state=0)
    >>> PseudoLikelihood().fit(m, X).params.shape
    (2,)
    """

    method = "pl"
    SETTINGS = shared_settings(MPLE, "maxiter", "tol")

    def _fit_instances(self, insts, labels, model=None):
        from ..estimation.mple.pseudolikelihood import fit_design
        lf = fit_design(pseudo_design_multi(insts), list(labels), None, "error", self.maxiter,
                        self.tol, unit="variable")
        return MRFResults(lf.params, labels, method=self.method, cov=lf.cov, loglik=lf.loglik,
                          converged=lf.converged, n_iter=lf.n_iter)


# ---------------------------------------------------------------------------
# Composite likelihood
# ---------------------------------------------------------------------------
def direction_text(d, labels):
    """A direction of unbounded increase in words: ``"edge -> +Inf"`` or
    ``"the combination 0.5*a + 1*b -> +Inf"``."""
    sup = np.flatnonzero(d)
    if len(sup) == 1:
        return f"{labels[sup[0]]} -> {'+' if d[sup[0]] > 0 else '-'}Inf"
    return ("the combination " + " + ".join(f"{d[k] / np.abs(d[sup]).max():.3g}*{labels[k]}"
                                            for k in sup) + " -> +Inf")


def composite_design_multi(instances, block_size=2, blocks="all", n_blocks=None,
                           random_state=None):
    """The merged :class:`~ergmfit.estimation.contrastive.mcle.CompositeDesign` of all
    observations (the same blocks for each observation).  ``loglik`` is the
    UNNORMALISED sum over observations and blocks of log p(x_A | x_-A)."""
    from ..estimation.contrastive.mcle import CompositeDesign, composite_design, merge_groups
    rng = check_random_state(random_state)
    by_size = {}
    total = 0
    p = None
    n_vars = 0
    fixed_blocks = blocks
    for bm, U, cw in _instances(instances):
        p = int(bm.n_stats)
        n_vars = int(bm.n_vars)
        if isinstance(blocks, str) and n_blocks is not None:
            # a random family, drawn once and used for every observation
            from ..estimation.contrastive.mcle import make_blocks
            fam, _ = make_blocks(bm, blocks, block_size, n_blocks, random_state=rng)
            fixed_blocks = [r for arrs in fam.values() for arr in arrs for r in arr]
        saved = bm.state()
        try:
            for x, c in zip(U, cw):
                bm.set_state(x)
                des = composite_design(bm, fixed_blocks, block_size)
                total += des.n_blocks * c
                for D, w in des.groups:
                    by_size.setdefault(D.shape[1], []).append((D, w * c))
        finally:
            bm.set_state(saved)
    des = CompositeDesign(merge_groups(by_size), p, int(round(total)), n_vars,
                          {"blocks": blocks if isinstance(blocks, str) else "list",
                           "block_size": block_size})
    return des


def composite_loglik(instances, theta, block_size):
    """Yasuda et al.'s L_{F_k}(theta) (eq. 5): the mean over observations and
    over all k-subsets c of log p(x_c | x_-c, theta).  L_{F_1} is the
    (normalised) pseudo-likelihood and L_{F_n} the mean log-likelihood."""
    insts = _instances(instances)
    des = composite_design_multi(insts, block_size=block_size)
    N = sum(float(cw.sum()) for _, _, cw in insts)
    n = int(insts[0][0].n_vars)
    return des.loglik(theta) / (N * math.comb(n, block_size))


class CompositeLikelihood(MRFMethod):
    """Maximum composite likelihood over all observations (``method="cl"``):
    blocks of ``block_size`` variables (all k-subsets: Yasuda et al.'s F_k;
    random ones with ``n_blocks``; or a list), the same blocks for every
    observation, maximised by the MCLE's
    :func:`~ergmfit.estimation.contrastive.mcle.maximize_composite`.

    ``loglik`` is the unnormalised composite likelihood at the maximum;
    ``info`` holds ``hessian`` (minus its Hessian) and ``design``.  Raises
    DegenerateModelError, naming the direction, when the composite likelihood
    has no finite maximiser (a linear program checks it first).

    Examples
    --------
    >>> import networkx as nx
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel(nx.cycle_graph(5))
    >>> X = m.sample(200, theta=[0.2, 0.5], random_state=0)
    >>> CompositeLikelihood(block_size=3).fit(m, X).converged
    True
    """

    method = "cl"
    SETTINGS = shared_settings(MCLE, "block_size", "blocks", "n_blocks") + (THETA0,) + \
        shared_settings(MCLE, "maxiter", "tol")

    def _fit_instances(self, insts, labels, model=None):
        r = _maximize_cl(insts, labels, self.block_size, self.blocks, self.n_blocks,
                         self.theta0, self.random_state, self.maxiter, self.tol)
        return MRFResults(r["theta"], labels, method=self.method, loglik=r["loglik"],
                          converged=r["converged"], n_iter=r["n_iter"],
                          info={"hessian": r["hessian"], "design": r["design"]})


def _maximize_cl(instances, labels, block_size, blocks, n_blocks, theta0, random_state, maxiter,
                 tol):
    from ..estimation.contrastive.mcle import maximize_composite, check_design, separation_direction
    from ..exceptions import DegenerateModelError
    des = composite_design_multi(instances, block_size, blocks, n_blocks, random_state)
    labels = list(labels)
    check_design(des, labels)
    d = separation_direction(des)
    if d is not None:
        what = direction_text(d, labels)
        raise DegenerateModelError(
            f"the maximum composite likelihood estimate (blocks of {block_size}) does not "
            f"exist: the composite likelihood keeps increasing as {what}, i.e. in that "
            "direction no configuration of any block is more likely than the observed one "
            "(separation, e.g. only the constant states observed). Give data with more "
            "variety, use larger blocks, or drop the statistic.")
    theta0 = np.zeros(des.p) if theta0 is None else check_params(theta0, labels, "theta0")
    theta, ll, H, n_iter, converged = maximize_composite(des, theta0, maxiter, tol)
    return {"theta": theta, "loglik": ll, "hessian": H, "n_iter": n_iter,
            "converged": converged, "design": des}


# ---------------------------------------------------------------------------
# Contrastive divergence and persistent CD
# ---------------------------------------------------------------------------
def _make_sampler(bm, sampler, block_size, seed):
    if callable(sampler):      # a factory (bm, seed_words) -> sampler, e.g. Potts node blocks
        return sampler(bm, seed)
    if sampler in ("gibbs", "block", "blocked"):
        from ..sampling._blocks import BlockGibbsSampler, Enumeration, UniformBlocks
        k = int(block_size)
        return BlockGibbsSampler(bm, UniformBlocks(bm.n_vars, k), Enumeration(max(1, k)), seed)
    if sampler in ("mh", "metropolis"):
        from ..sampling._mh import MHSampler
        from ..sampling._proposals import RandomToggle
        return MHSampler(bm, RandomToggle(), seed)
    raise ValueError(f"sampler must be 'gibbs' or 'mh', got {sampler!r}")


def _sampler(name, value):
    if callable(value) or (isinstance(value, str) and value in _SAMPLERS):
        return value
    raise SettingsError(f"setting {name!r} must be 'gibbs' (blocked Gibbs), 'mh' "
                        f"(Metropolis-Hastings) or a factory (bm, seed_words) -> sampler, "
                        f"got {value!r}")


_SAMPLERS = ("gibbs", "block", "blocked", "mh", "metropolis")


def _callback(name, value):
    if value is not None and not callable(value):
        raise SettingsError(f"setting {name!r} must be callable or None, got {value!r}")
    return value


class ContrastiveDivergence(MRFMethod):
    """CD-n by stochastic gradient ascent (``method="cd"``).

    Each iteration takes a mini-batch of ``batch_size`` observations (all if
    None).  For each, the chain starts at the observation and makes
    ``n_steps`` updates (``sampler="gibbs"``: random-scan blocked Gibbs on
    uniform blocks of ``block_size`` variables, i.e. Bn-CDm of Asuncion et
    al.; ``"mh"``: single-variable Metropolis-Hastings with random toggles;
    or a callable ``(bm, seed_words) -> sampler`` with ``run(theta, steps)``
    and a ``delta`` array); the gradient is minus the mean of
    g(x_n) - g(x_0).  The model may choose its own sampler (a Potts model:
    blocked Gibbs over its node groups, one sweep by default).  Step:
    learning_rate / (1 + decay t).  The estimate is the average of the
    iterates from fraction ``average_from`` of the run on (Polyak-Ruppert),
    1.0 = last iterate; ``info`` holds ``trace`` (every ``trace_every``
    iterations) and ``last`` (the last iterate).

    ``fit`` refuses sample weights (a weight would have to weight a chain).

    References
    ----------
    Hinton, G. E. (2002). Training products of experts by minimizing
    contrastive divergence. *Neural Computation* 14, 1771-1800.

    Asuncion, A., Liu, Q., Ihler, A. & Smyth, P. (2010). Learning with blocks:
    composite likelihood and contrastive divergence. AISTATS.

    Examples
    --------
    >>> import networkx as nx
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel(nx.cycle_graph(5))
    >>> X = m.sample(200, theta=[0.2, 0.5], random_state=0)
    >>> ContrastiveDivergence(n_iter=50, random_state=1).fit(m, X).params.shape
    (2,)
    """

    # a Potts model's one-hot states too: it is sampled through the model's cd_sampler hook
    # (so not from one-hot instances given without their model)
    variable_families = frozenset({"binary", "one-hot"})
    instance_families = frozenset({"binary"})

    method = "cd"
    #: whether the chains persist between iterations (PCD) instead of restarting at the data
    persistent = False
    SETTINGS = (
        Setting("n_steps", None, integer(1, allow_none=True),
                "Sampler updates per chain and iteration (None: 1; a Potts model: one sweep)."),
        Setting("sampler", "gibbs", _sampler, "'gibbs', 'mh' or a factory (bm, seed) -> sampler."),
        Setting("block_size", 1, integer(1), "Variables per Gibbs block (Bn-CDm)."),
        Setting("n_iter", 2000, integer(1), "Gradient steps."),
        Setting("learning_rate", 0.05, number(0, lo_open=True), "Step size a."),
        Setting("decay", 0.0, number(0), "Step a / (1 + decay t)."),
        Setting("batch_size", None, integer(1, allow_none=True),
                "Observations per step (None: all)."),
        Setting("n_particles", None, integer(1, allow_none=True),
                "PCD: persistent chains (None: the batch size)."),
        THETA0,
        Setting("warm_start", False, boolean, "Start at the model's current estimate (coef_)."),
        Setting("average_from", 0.5, number(0, 1),
                "Average the iterates from this fraction of the run (1: the last iterate)."),
        Setting("trace_every", 0, integer(0), "Keep the estimate every this many steps."),
        Setting("callback", None, _callback, "Called as callback(t, theta) after every step."),
    )

    def _fit_instances(self, insts, labels, model=None):
        if any(len(inst) > 2 and inst[2] is not None for inst in insts):
            raise ValueError(f"sample_weight is not supported by method={self.method!r}")
        labels = list(labels)
        sampler, n_steps = self.sampler, self.n_steps
        if model is not None:
            sampler, n_steps = model.cd_sampler(sampler, self.block_size, n_steps,
                                                "sampler" in self.given_params())
        theta0 = self.theta0
        if theta0 is None and self.warm_start and model is not None:
            theta0 = getattr(model, "coef_", None)
        r = self._run(insts, len(labels), 1 if n_steps is None else n_steps, sampler,
                      None if theta0 is None else check_params(theta0, labels, "theta0"))
        return MRFResults(r["theta"], labels, method=self.method, converged=None,
                          n_iter=r["n_iter"], info={"trace": r["trace"]})

    def _run(self, instances, p, n_steps, sampler, theta0):
        n_iter, learning_rate, decay = self.n_iter, self.learning_rate, self.decay
        batch_size, n_particles, persistent = self.batch_size, self.n_particles, self.persistent
        average_from, callback, trace_every = self.average_from, self.callback, self.trace_every
        block_size = self.block_size
        rng = check_random_state(self.random_state)
        insts = [(bm, (np.asarray(X) > 0).astype(np.uint8) if np.asarray(X).min() < 0
                  else np.asarray(X, dtype=np.uint8), None) for bm, X, *_ in instances]
        samplers = [_make_sampler(bm, sampler, block_size, seed_words(rng)) for bm, _, _ in insts]
        is_mh = sampler in ("mh", "metropolis")
        rows = [(i, r) for i, (_, X, _) in enumerate(insts) for r in range(len(X))]
        N = len(rows)
        B = N if batch_size is None else min(int(batch_size), N)
        theta = np.zeros(p) if theta0 is None else np.asarray(theta0, dtype=float).copy()
        start_avg = int(average_from * n_iter) if average_from < 1 else n_iter - 1
        avg = np.zeros(p)
        n_avg = 0
        trace = []
        particles = None
        saved = [bm.state() for bm, _, _ in insts]
        if persistent:
            P = B if n_particles is None else int(n_particles)
            pick = rng.integers(0, N, size=P)
            particles = [(rows[j][0], insts[rows[j][0]][1][rows[j][1]].copy()) for j in pick]
        try:
            for t in range(n_iter):
                batch = rng.choice(N, size=B, replace=False) if B < N else np.arange(N)
                grad = np.zeros(p)
                if not persistent:
                    for j in batch:
                        i, r = rows[j]
                        bm, X, _ = insts[i]
                        s = samplers[i]
                        bm.set_state(X[r])
                        if is_mh:
                            grad -= s.cd_sample(theta, 1, n_steps)[0]
                        else:
                            s.delta[:] = 0.0
                            s.run(theta, n_steps)
                            grad -= s.delta
                    grad /= B
                else:
                    for j in batch:
                        i, r = rows[j]
                        bm, X, _ = insts[i]
                        bm.set_state(X[r])
                        grad += bm.statistics()
                    grad /= B
                    neg = np.zeros(p)
                    for q, (i, x) in enumerate(particles):
                        bm = insts[i][0]
                        bm.set_state(x)
                        samplers[i].run(theta, n_steps)
                        particles[q] = (i, bm.state())
                        neg += bm.statistics()
                    grad -= neg / len(particles)
                theta = theta + learning_rate / (1.0 + decay * t) * grad
                if not np.all(np.isfinite(theta)):
                    raise FloatingPointError("contrastive divergence diverged; lower learning_rate")
                if t >= start_avg:
                    n_avg += 1
                    avg += (theta - avg) / n_avg
                if trace_every and (t + 1) % trace_every == 0:
                    trace.append(theta.copy())
                if callback is not None:
                    callback(t, theta)
        finally:
            for (bm, _, _), s0 in zip(insts, saved):
                bm.set_state(s0)
        return {"theta": avg if n_avg else theta, "last": theta, "n_iter": n_iter,
                "trace": np.asarray(trace).reshape(-1, p)}


class PersistentContrastiveDivergence(ContrastiveDivergence):
    """Persistent CD (``method="pcd"``; Tieleman 2008): as
    :class:`ContrastiveDivergence`, but ``n_particles`` chains (default: the
    batch size) persist between iterations; gradient = mean g(data batch) -
    mean g(particles).

    References
    ----------
    Tieleman, T. (2008). Training restricted Boltzmann machines using
    approximations to the likelihood gradient. ICML.
    """

    method = "pcd"
    persistent = True
