"""Stochastic composite likelihood (Dillon & Lebanon 2009), ``method="scl"``.

A *likelihood object* is an m-pair (A, B) with the score of
S(A, B) = log p(x_A | x_B).  Here B is always the complement of A (the
choice of the paper for Markov random fields, Sec. 5), so an object is a
block A of variables and

    S_A(x) = log p(x_A | x_-A) = -log sum_s exp(theta . D_{A,s}(x)),

the block conditional of the shared composite-likelihood engine
(:mod:`ergmfit.estimation.contrastive.mcle`; D_{A,s} are the statistic differences of the
2^|A| configurations of the block).  A = every variable is the full
log-likelihood log p(x).

Objects are specified by *components* (see :func:`make_components`): a
component is a family of objects sharing a selection probability lambda and
a weight beta,

* ``("pl", k, lam, beta)``: every k-subset A of the variables (the
  composite likelihood of order k, "PL_k" of the paper; PL_1 is Besag's
  pseudo-likelihood);
* ``("full", lam, beta)``: the single object A = all variables (the full
  likelihood; at most 20 variables);
* ``("blocks", [A_1, A_2, ...], lam, beta)``: explicit blocks.

``lam`` and ``beta`` may be omitted (default 1).  The stochastic composite
log-likelihood of observations x^(1) .. x^(n) is (paper eq. 8, without the
1/n)

    scl(theta) = sum_i sum_j beta_j Z_ij log p(x^(i)_{A_j} | x^(i)_{-A_j}),

with Z_ij ~ Bernoulli(lambda_j) independent of the data.  ``selection=
"object"`` (default, Definition 2 of the paper: every object of every
observation is selected independently) draws one Z per observation and
object; ``selection="component"`` one Z per observation and component,
shared by all objects of the component (all k-subsets of observation i are
in or out together).  Only selected objects are computed: the expected cost
per observation is sum_j lambda_j 2^|A_j| configurations.

Weights ``beta_j Z_ij`` are the row weights of one merged
:class:`~ergmfit.estimation.contrastive.mcle.CompositeDesign`, so the objective, score
and Hessian are those of the shared engine.  The maximiser is found by
scipy's BFGS (the paper's choice) and polished by Newton steps with the
exact Hessian (the objective is concave).

Asymptotics (Proposition 3): sqrt(n) (theta_hat - theta_0) -> N(0, H^-1 J H^-1),

    H = sum_j beta_j lambda_j E[V_j V_j'] = sum_j beta_j lambda_j E[Cov(g | x_-A_j)],
    J = Var(sum_j beta_j Z_j V_j),     V_j = grad S_{A_j} at theta_0.

Because Z is independent of X and E V_j = 0,
J = E[(sum_j lambda_j beta_j V_j)(...)'] + sum_c lambda_c (1 - lambda_c) E[W_c W_c'],
W_c the sum of beta_j V_j over a selection unit c (an object, or a component
for ``selection="component"``).  The paper's eq. (14) prints
J = Var(sum_j beta_j lambda_j V_j), which drops the second term (the
variance of the selection itself); it is exact only when every lambda is 1.
:func:`scl_asymptotic_variance` computes both (``formula="exact"``, the
default, or ``"paper"``); a Monte-Carlo check (tests, vignette
``dillon_lebanon_scl.py``) agrees with ``"exact"``.

>>> import itertools
>>> from ergmfit.mrf import IsingModel
>>> m = IsingModel((4, list(itertools.combinations(range(4), 2))), coding="01",
...                tied=False, fields=False)
>>> X = m.sample(300, theta=[1, -1, 1, -1, 1, -1], random_state=0)
>>> comps = [("pl", 1, 0.5), ("pl", 2, 0.5)]
>>> m.fit(X, method="scl", components=comps, random_state=0).coef_.shape
(6,)
>>> v = scl_asymptotic_variance(m, [1, -1, 1, -1, 1, -1], comps)
>>> bool(v["trace_ratio"] > 1.0)
True
"""
from __future__ import annotations

import itertools
import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from ..estimation.base import Setting, boolean, choice, integer, number
from ..exceptions import ConvergenceWarning, DegenerateModelError, SettingsError
from ..utils.optimize import newton_ascent
from ..utils.validation import check_params, check_random_state
from ._base import row_weights
from .fitting import MRFMethod, MRFResults

__all__ = ["SCLComponent", "make_components", "likelihood_objects", "pl_mixture",
           "draw_selection", "scl_design", "StochasticCompositeLikelihood",
           "scl_asymptotic_variance", "object_scores"]

_MAX_FULL = 20


# ---------------------------------------------------------------------------
# Components and likelihood objects
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SCLComponent:
    """A family of likelihood objects with one selection probability and weight.

    Parameters
    ----------
    kind : {"pl", "full", "blocks"}
    order : int or None
        k for ``"pl"`` (all k-subsets); None otherwise.
    lam : float
        Selection probability lambda, in (0, 1].
    beta : float
        Positive weight beta.
    blocks : tuple of tuples, optional
        The blocks A of ``kind="blocks"``.
    """

    kind: str
    order: int | None
    lam: float
    beta: float
    blocks: tuple | None = None

    def as_tuple(self):
        if self.kind == "pl":
            return ("pl", self.order, self.lam, self.beta)
        if self.kind == "full":
            return ("full", self.lam, self.beta)
        return ("blocks", [list(b) for b in self.blocks], self.lam, self.beta)

    def label(self):
        if self.kind == "pl":
            return f"PL{self.order}"
        if self.kind == "full":
            return "FL"
        return f"blocks({len(self.blocks)})"


def component_lam_beta(c, first, what):
    """The selection probability and weight of component tuple ``c``, read from
    positions ``first`` and ``first + 1`` (each 1 when absent) and validated:
    lambda in (0, 1], beta positive and finite.  ``what`` names the component in
    the errors.

    >>> component_lam_beta(("pl", 2, 0.5), 2, "component 0")
    (0.5, 1.0)
    """
    lam = c[first] if len(c) > first else 1.0
    beta = c[first + 1] if len(c) > first + 1 else 1.0
    for name, v in (("lambda", lam), ("beta", beta)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v):
            raise ValueError(f"{what}: {name} must be a finite number, got {v!r}")
    if not 0.0 < lam <= 1.0:
        raise ValueError(f"{what}: the selection probability lambda must lie in (0, 1], got "
                         f"{lam} (leave the component out rather than give it lambda = 0)")
    if not beta > 0:
        raise ValueError(f"{what}: the weight beta must be positive, got {beta}")
    return float(lam), float(beta)


def component_tuples(components, component_type, usage, example):
    """Normalise a component specification to ``(what, kind, tuple)`` triples.

    ``components`` is one component or a sequence of them, each a
    ``component_type`` instance (turned into its ``as_tuple()``), a kind name or
    a tuple starting with one; ``what`` names the component in errors, ``kind``
    is the lower-cased kind.  ``usage`` (the accepted tuple shapes) and
    ``example`` (a valid specification) word the errors.  The kinds themselves
    are checked by the caller.

    >>> [k for _, k, _ in component_tuples([("PL", 1), "full"], SCLComponent, "", "")]
    ['pl', 'full']
    """
    if isinstance(components, (component_type, str)) or (
            isinstance(components, tuple) and components and isinstance(components[0], str)):
        components = [components]          # a single component
    components = list(components)
    if not components:
        raise ValueError(f"components is empty: give at least one, e.g. {example}")
    for i, c in enumerate(components):
        what = f"component {i} ({c!r})"
        if isinstance(c, component_type):
            c = c.as_tuple()
        if isinstance(c, str):
            c = (c,)
        if not isinstance(c, (tuple, list)) or not c or not isinstance(c[0], str):
            raise ValueError(f"{what}: a component is {usage}")
        yield what, c[0].lower(), c


def make_components(components, n_vars=None):
    """Validate a component specification; returns a list of :class:`SCLComponent`.

    Parameters
    ----------
    components : sequence
        Each item an :class:`SCLComponent` or a tuple ``("pl", k[, lam[, beta]])``,
        ``("full"[, lam[, beta]])`` or ``("blocks", blocks[, lam[, beta]])``
        (``lam``, ``beta`` default 1).  ``"pl"`` with k = n_vars is the full
        likelihood.
    n_vars : int, optional
        Number of variables, to check orders and blocks.

    Raises
    ------
    ValueError
        An unknown kind, lambda outside (0, 1], beta <= 0, a bad order or block.

    Examples
    --------
    >>> [c.label() for c in make_components([("pl", 1, 0.3), ("pl", 2, 0.7, 2.0)], 5)]
    ['PL1', 'PL2']
    """
    out = []
    for what, kind, c in component_tuples(
            components, SCLComponent, "a tuple ('pl', k, lam, beta), ('full', lam, beta) or "
            "('blocks', blocks, lam, beta)", "[('pl', 1, 1.0, 1.0)]"):
        if kind in ("pl", "cl"):
            if len(c) < 2 or len(c) > 4:
                raise ValueError(f"{what}: expected ('pl', k[, lam[, beta]])")
            k = c[1]
            if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
                raise ValueError(f"{what}: the order k must be a positive integer, got {k!r}")
            if n_vars is not None and k > n_vars:
                raise ValueError(f"{what}: order {k} exceeds the number of variables {n_vars}")
            lam, beta = component_lam_beta(c, 2, what)
            out.append(SCLComponent("pl", int(k), lam, beta))
        elif kind in ("full", "fl", "ml"):
            if len(c) > 3:
                raise ValueError(f"{what}: expected ('full'[, lam[, beta]])")
            lam, beta = component_lam_beta(c, 1, what)
            out.append(SCLComponent("full", None, lam, beta))
        elif kind == "blocks":
            if len(c) < 2 or len(c) > 4:
                raise ValueError(f"{what}: expected ('blocks', blocks[, lam[, beta]])")
            blocks = []
            for b in c[1]:
                arr = np.atleast_1d(np.asarray(b))
                if arr.size == 0 or arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
                    raise ValueError(f"{what}: each block must be a non-empty list of variable "
                                     f"indices, got {b!r}")
                if len(np.unique(arr)) != arr.size:
                    raise ValueError(f"{what}: the variables of a block must be distinct: {b!r}")
                if arr.min() < 0 or (n_vars is not None and arr.max() >= n_vars):
                    raise ValueError(f"{what}: block variables must lie in 0..{n_vars}, got {b!r}")
                blocks.append(tuple(sorted(int(v) for v in arr)))
            if not blocks:
                raise ValueError(f"{what}: the list of blocks is empty")
            lam, beta = component_lam_beta(c, 2, what)
            out.append(SCLComponent("blocks", None, lam, beta, tuple(blocks)))
        else:
            raise ValueError(f"{what}: unknown component kind {c[0]!r}; use 'pl', 'full' or "
                             "'blocks'")
    return out


def likelihood_objects(components, n_vars):
    """The flat list of likelihood objects of the components.

    Returns
    -------
    dict with ``blocks`` (list of sorted int64 arrays A_j), ``lam``, ``beta``
    (arrays over objects), ``component`` (index of each object's component)
    and ``components`` (the validated :class:`SCLComponent` list).

    Examples
    --------
    >>> obj = likelihood_objects([("pl", 1), ("pl", 2, 0.5)], 4)
    >>> len(obj["blocks"]), obj["lam"].tolist()[-1]
    (10, 0.5)
    """
    n_vars = int(n_vars)
    comps = make_components(components, n_vars)
    blocks, lam, beta, comp = [], [], [], []
    for ci, c in enumerate(comps):
        if c.kind == "pl":
            if c.order == n_vars and n_vars > _MAX_FULL:
                raise ValueError(f"the full likelihood of {n_vars} variables cannot be enumerated "
                                 f"(at most {_MAX_FULL})")
            fam = [np.asarray(a, dtype=np.int64)
                   for a in itertools.combinations(range(n_vars), c.order)]
        elif c.kind == "full":
            if n_vars > _MAX_FULL:
                raise ValueError(f"the full likelihood of {n_vars} variables cannot be enumerated "
                                 f"(at most {_MAX_FULL})")
            fam = [np.arange(n_vars, dtype=np.int64)]
        else:
            fam = [np.asarray(b, dtype=np.int64) for b in c.blocks]
        blocks += fam
        lam += [c.lam] * len(fam)
        beta += [c.beta] * len(fam)
        comp += [ci] * len(fam)
    return {"blocks": blocks, "lam": np.asarray(lam), "beta": np.asarray(beta),
            "component": np.asarray(comp, dtype=np.int64), "components": comps}


def pl_mixture(alpha, low, high, beta=(1.0, 1.0)):
    """Components of the paper's mixture ``alpha PL_high + (1 - alpha) PL_low``:
    the order-``high`` objects are selected with probability alpha, the
    order-``low`` ones with 1 - alpha (a component whose probability is 0 is
    left out).  ``high`` may be ``"full"``.

    Examples
    --------
    >>> pl_mixture(0.25, 1, 2)
    [('pl', 1, 0.75, 1.0), ('pl', 2, 0.25, 1.0)]
    >>> pl_mixture(0.0, 1, 2)
    [('pl', 1, 1.0, 1.0)]
    """
    a = float(alpha)
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    out = []
    if a < 1.0:
        out.append(("pl", int(low), 1.0 - a, float(beta[0])))
    if a > 0.0:
        out.append(("full", a, float(beta[1])) if high == "full"
                   else ("pl", int(high), a, float(beta[1])))
    return out


def _units(obj, selection):
    """Selection units: index of each object's Bernoulli variable, and the
    lambda of each unit."""
    if selection == "object":
        K = len(obj["blocks"])
        return np.arange(K), obj["lam"].copy()
    if selection == "component":
        comp = obj["component"]
        return comp.copy(), np.array([c.lam for c in obj["components"]])
    raise ValueError(f"selection must be 'object' or 'component', got {selection!r}")


def draw_selection(n_obs, objects, selection="object", random_state=None):
    """Z (n_obs, n_objects) boolean: Z_ij ~ Bernoulli(lambda_j), independent over
    observations and over selection units (objects, or components for
    ``selection="component"``).  The same seed gives the same draw.

    Examples
    --------
    >>> obj = likelihood_objects([("pl", 1, 0.5)], 3)
    >>> draw_selection(2, obj, random_state=0).shape
    (2, 3)
    """
    rng = check_random_state(random_state)
    unit, lam_u = _units(objects, selection)
    U = rng.random((int(n_obs), len(lam_u))) < lam_u[None, :]
    U[:, lam_u >= 1.0] = True
    return U[:, unit]


# ---------------------------------------------------------------------------
# The SCL objective as a weighted CompositeDesign
# ---------------------------------------------------------------------------
def _as01(X):
    X = np.atleast_2d(np.asarray(X))
    if X.size and X.min() < 0:
        return (X > 0).astype(np.uint8)
    return X.astype(np.uint8)


def _normalise_insts(insts):
    out = []
    for inst in insts:
        bm, X = inst[0], _as01(inst[1])
        w = inst[2] if len(inst) > 2 else None
        w = row_weights(w, len(X), "weights", positive_total=False)
        if X.shape[1] != int(bm.n_vars):
            raise ValueError(f"X must have {bm.n_vars} columns, got {X.shape[1]}")
        out.append((bm, X, w))
    if not out:
        raise ValueError("no observations")
    return out


def _row_groups(X):
    """Distinct rows U and, for each, the indices of the observations equal to it."""
    U, inv = np.unique(X, axis=0, return_inverse=True)
    inv = np.asarray(inv).ravel()
    order = np.argsort(inv, kind="stable")
    cuts = np.cumsum(np.bincount(inv, minlength=len(U)))[:-1]
    return U, np.split(order, cuts)


def _block_D(bm, blocks):
    """Statistic differences (C, 2^k, p) of equal-sized blocks at bm's state,
    by the shared composite-likelihood builder (unmerged, in block order)."""
    from ..estimation.contrastive.mcle import composite_design
    des = composite_design(bm, [b for b in blocks], merge=False)
    (D, _), = des.groups
    return D


def _per_row_objects(obj_w, blocks):
    """Indices of the selected objects (weight > 0) grouped by block size."""
    by = {}
    for j in np.flatnonzero(obj_w > 0):
        by.setdefault(len(blocks[j]), []).append(j)
    return by


def scl_design(insts, objects, Z):
    """The SCL objective as one merged :class:`~ergmfit.estimation.contrastive.mcle.CompositeDesign`.

    Parameters
    ----------
    insts : list of (bm, X, w)
        Compiled models and their 0/1 observations (w: row weights or None).
    objects : dict
        From :func:`likelihood_objects`.
    Z : bool array (n_obs, n_objects)
        The selection, rows in the order of the observations (instance by instance).

    Returns
    -------
    CompositeDesign whose ``loglik`` is sum_i w_i sum_j beta_j Z_ij log p(x_i,A_j | x_i,-A_j).
    """
    from ..estimation.contrastive.mcle import CompositeDesign, merge_groups
    insts = _normalise_insts(insts)
    blocks, beta = objects["blocks"], objects["beta"]
    n_obs = sum(len(X) for _, X, _ in insts)
    Z = np.asarray(Z, dtype=bool)
    if Z.shape != (n_obs, len(blocks)):
        raise ValueError(f"Z must have shape ({n_obs}, {len(blocks)}), got {Z.shape}")
    by_size = {}
    total = 0
    p = int(insts[0][0].n_stats)
    start = 0
    for bm, X, w in insts:
        Zi = Z[start:start + len(X)]
        start += len(X)
        U, groups_of = _row_groups(X)
        total += int(Zi.sum())
        saved = bm.state()
        try:
            for x, rows in zip(U, groups_of):
                # weight of (distinct row x, object j) = beta_j sum_{i: x_i = x} w_i Z_ij
                Wr = beta * (w[rows] @ Zi[rows])
                sel = _per_row_objects(Wr, blocks)
                if not sel:
                    continue
                bm.set_state(x)
                for _, js in sel.items():
                    D = _block_D(bm, [blocks[j] for j in js])
                    by_size.setdefault(D.shape[1], []).append((D, Wr[js]))
        finally:
            bm.set_state(saved)
    if not by_size:
        raise ValueError("no likelihood object was selected for any observation (all Z_ij = 0 "
                         "or all weights 0): raise lambda or give more data")
    des = CompositeDesign(merge_groups(by_size), p, total, int(insts[0][0].n_vars),
                          {"blocks": "scl", "block_size": None})
    des.info["n_unique"] = des.n_unique
    return des


def object_scores(bm, blocks, theta):
    """grad log p(x_A | x_-A) at bm's current state for each block A: an array
    (len(blocks), p), computed from the shared block differences."""
    theta = np.asarray(theta, dtype=float)
    out = np.empty((len(blocks), int(bm.n_stats)))
    by = {}
    for j, b in enumerate(blocks):
        by.setdefault(len(b), []).append(j)
    for _, js in by.items():
        D = _block_D(bm, [blocks[j] for j in js])
        Wt = D @ theta
        P = np.exp(Wt - special.logsumexp(Wt, axis=1)[:, None])
        out[js] = -np.einsum("us,usq->uq", P, D)
    return out


def _sandwich_J(insts, objects, Z, theta):
    """sum_i u_i u_i', u_i = w_i sum_j beta_j Z_ij grad S_j(x_i) (empirical J)."""
    blocks, beta = objects["blocks"], objects["beta"]
    p = int(insts[0][0].n_stats)
    J = np.zeros((p, p))
    start = 0
    for bm, X, w in insts:
        Zi = Z[start:start + len(X)]
        start += len(X)
        U, groups_of = _row_groups(X)
        saved = bm.state()
        try:
            for x, rows in zip(U, groups_of):
                zeta = (w[rows, None] * Zi[rows]) * beta[None, :]
                js = np.flatnonzero(zeta.any(axis=0))
                if len(js) == 0:
                    continue
                bm.set_state(x)
                S = object_scores(bm, [blocks[j] for j in js], theta)
                Ui = zeta[:, js] @ S
                J += Ui.T @ Ui
        finally:
            bm.set_state(saved)
    return J


def _optimizer(name, value):
    opt = str(value).upper() if isinstance(value, str) else None
    if opt not in ("BFGS", "L-BFGS-B", "LBFGS", "L-BFGS"):
        raise SettingsError(f"setting {name!r} must be 'BFGS' or 'L-BFGS-B', got {value!r}")
    return "BFGS" if opt == "BFGS" else "L-BFGS-B"


class StochasticCompositeLikelihood(MRFMethod):
    """Maximum stochastic composite likelihood (Dillon & Lebanon 2009), ``method="scl"``.

    Each observation x^(i) draws Z_ij ~ Bernoulli(lambda_j) for every
    likelihood object j of the ``components`` (see :func:`make_components`;
    default PL_1 with lambda = beta = 1), and the estimate maximises
    sum_i sum_j beta_j Z_ij log p(x^(i)_{A_j} | x^(i)_{-A_j}) by scipy's
    quasi-Newton method, polished by Newton steps with the exact Hessian.
    A weight multiplies all terms of its observation.

    ``loglik`` is the objective at the maximum (the paper's eq. 8 is this /
    n); ``cov`` (``cov="sandwich"``) the estimated covariance H^-1 J H^-1,
    H = minus the Hessian of the objective, J = sum_i u_i u_i' with u_i the
    selected, weighted score of observation i (includes the selection noise).
    ``info``: ``components`` (tuples), ``selection`` (Z, with
    ``store_selection``), ``n_obs``, ``scl_mean`` (loglik / n),
    ``n_selected`` (selected objects per component), ``cost``
    (configurations enumerated per observation), ``hessian``.

    References
    ----------
    Dillon, J. V. & Lebanon, G. (2009). Statistical and computational
    tradeoffs in stochastic composite likelihood. AISTATS.

    Examples
    --------
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel((3, [(0, 1), (1, 2)]), coding="01", tied=False, fields=False)
    >>> X = m.sample(200, theta=[1.0, -1.0], random_state=1)
    >>> r = StochasticCompositeLikelihood(components=[("pl", 1, 0.5)], random_state=0).fit(m, X)
    >>> r.params.shape, r.converged
    ((2,), True)
    """

    method = "scl"
    SETTINGS = (
        Setting("components", (("pl", 1, 1.0, 1.0),), None,
                "Likelihood objects: ('pl', k, lam, beta), ('full', lam, beta), "
                "('blocks', [...], lam, beta) (see make_components)."),
        Setting("selection", "object", choice("object", "component"),
                "One Bernoulli per observation and object, or per component."),
        Setting("theta0", None, None, "Starting values (default zeros)."),
        Setting("maxiter", 500, integer(1), "Quasi-Newton iterations."),
        Setting("tol", 1e-12, number(0, lo_open=True),
                "Newton-decrement tolerance of the polishing Newton steps."),
        Setting("optimizer", "BFGS", _optimizer, "'BFGS' or 'L-BFGS-B' (scipy)."),
        Setting("polish", True, boolean, "Newton steps with the exact Hessian at the end."),
        Setting("cov", "sandwich", choice("sandwich", "none"), "'sandwich' or 'none'."),
        Setting("store_selection", True, boolean, "Keep Z in info['selection']."),
    )

    def _fit_instances(self, insts, labels, model=None):
        r = _maximize_scl(insts, labels, self.components, self.selection, self.random_state,
                          self.theta0, self.maxiter, self.tol, self.optimizer, self.polish,
                          self.cov, self.store_selection)
        return MRFResults(r["theta"], labels, method=self.method, cov=r["cov"],
                          loglik=r["loglik"], converged=r["converged"], n_iter=r["n_iter"],
                          info=r["extra"])


def _maximize_scl(insts, labels, components, selection, random_state, theta0, maxiter, tol,
                  opt, polish, cov, store_selection):
    from ..estimation.contrastive.mcle import check_design, separation_direction
    labels = list(labels)
    insts = _normalise_insts(insts)
    n_vars = int(insts[0][0].n_vars)
    if any(int(bm.n_vars) != n_vars for bm, _, _ in insts):
        raise ValueError("all model instances must have the same number of variables")
    objects = likelihood_objects(components, n_vars)
    n_obs = sum(len(X) for _, X, _ in insts)
    Z = draw_selection(n_obs, objects, selection, random_state)
    des = scl_design(insts, objects, Z)
    check_design(des, labels)
    p = des.p
    theta = np.zeros(p) if theta0 is None else check_params(theta0, labels, "theta0")
    scale = max(1.0, float(n_obs))

    def f(th):
        ll, sc = des.loglik_score(th)
        return -ll / scale, -sc / scale

    options = {"maxiter": int(maxiter), "gtol": 1e-10}
    if opt == "L-BFGS-B":
        options["ftol"] = 1e-15
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = optimize.minimize(f, theta, jac=True, method=opt, options=options)
    if np.all(np.isfinite(res.x)):
        theta = res.x
    n_iter = int(res.nit)
    g = des.score(theta)
    converged = bool(np.max(np.abs(g)) / scale < 1e-6)
    H = None
    if polish:
        theta, ll, g, H, it, converged = newton_ascent(
            des.loglik_score_hessian, theta, value=des.loglik, maxiter=50, tol=tol)
        n_iter += it
    else:
        ll = des.loglik(theta)
    if H is None:
        H = des.hessian(theta)
    if not converged or np.max(np.abs(theta)) > 20:
        d = separation_direction(des)
        if d is not None:
            sup = np.flatnonzero(d)
            raise DegenerateModelError(
                "the maximum stochastic composite likelihood estimate does not exist: the "
                "objective keeps increasing along a direction involving "
                f"{', '.join(repr(labels[q]) for q in sup)} (no configuration of any selected "
                "object is more likely than the observed one in that direction); give more "
                "data, larger lambdas or larger blocks")
    if not converged or np.max(np.abs(theta)) > 1e3:
        warnings.warn(f"the stochastic composite likelihood did not converge to a finite "
                      f"maximum (largest |coefficient| {np.max(np.abs(theta)):.3g}); the "
                      "estimate may not exist for this selection (e.g. too few selected "
                      "objects)", ConvergenceWarning, stacklevel=4)
        converged = False
    covm = None
    if str(cov).lower() == "sandwich":
        try:
            Hinv = np.linalg.inv(H)
        except np.linalg.LinAlgError:
            Hinv = np.linalg.pinv(H, hermitian=True)
        J = _sandwich_J(insts, objects, Z, theta)
        covm = Hinv @ J @ Hinv
        covm = 0.5 * (covm + covm.T)
    sizes = np.array([len(b) for b in objects["blocks"]])
    n_sel = [int(Z[:, objects["component"] == c].sum()) for c in range(len(objects["components"]))]
    extra = {"components": [c.as_tuple() for c in objects["components"]],
             "selection": Z if store_selection else None,
             "n_obs": n_obs,
             "scl_mean": float(ll) / n_obs,
             "n_selected": n_sel,
             "cost": float((Z * (2.0 ** sizes)[None, :]).sum() / n_obs),
             "hessian": H}
    return {"theta": np.asarray(theta, dtype=float), "loglik": float(ll),
            "converged": bool(converged), "n_iter": n_iter, "cov": covm, "extra": extra}


# ---------------------------------------------------------------------------
# Asymptotic variance by enumeration
# ---------------------------------------------------------------------------
def _statistics_matrix(model_or_G):
    from . import exact
    if isinstance(model_or_G, np.ndarray):
        G = np.asarray(model_or_G, dtype=float)
        n = int(round(math.log2(G.shape[0])))
        if G.ndim != 2 or 2 ** n != G.shape[0]:
            raise ValueError("G must be the (2^n, p) matrix of exact.all_statistics")
        return G, n
    bm = model_or_G.compiled() if hasattr(model_or_G, "compiled") else model_or_G
    return exact.all_statistics(bm), int(bm.n_vars)


def _object_score_matrix(G, n, block, logw):
    """V_A(x) = g(x) - E[g | x_-A] for every state x (rows of G), exactly."""
    mask = 0
    for v in block:
        mask |= 1 << int(v)
    s = np.arange(2 ** n, dtype=np.int64)
    bases = s[(s & mask) == 0]
    subs = s[(s & ~mask) == 0]
    idx = bases[:, None] | subs[None, :]                       # (2^(n-k), 2^k)
    L = logw[idx]
    P = np.exp(L - special.logsumexp(L, axis=1)[:, None])
    E = np.einsum("bs,bsq->bq", P, G[idx])                     # E[g | x_-A] per base
    base_of = s & ~mask
    pos = np.empty(2 ** n, dtype=np.int64)
    pos[bases] = np.arange(len(bases))
    return G - E[pos[base_of]]


def scl_asymptotic_variance(model_or_G, theta, components, selection="object",
                            formula="exact"):
    """Asymptotic covariance of the SCL estimator per observation, exactly by enumeration.

    sqrt(n) (theta_hat - theta) -> N(0, H^-1 J H^-1) (Proposition 3), with

    * H = sum_j beta_j lambda_j E[V_j V_j'] (= E of the conditional covariances),
    * J = Var(sum_j beta_j Z_j V_j) = E[(sum_j lambda_j beta_j V_j)(...)']
      + sum_c lambda_c (1 - lambda_c) E[W_c W_c'] (``formula="exact"``; W_c the
      sum of beta_j V_j over selection unit c), or the paper's printed eq. (14)
      J = Var(sum_j beta_j lambda_j V_j) (``formula="paper"``, which omits the
      selection variance);

    V_j = grad log p(x_A_j | x_-A_j) at theta, expectations over p_theta by
    enumerating all 2^n states (small models only).

    Parameters
    ----------
    model_or_G : LinearMRF, compiled BinaryModel, or the (2^n, p) array of
        :func:`ergmfit.mrf.exact.all_statistics`
    theta : array
    components : see :func:`make_components`
    selection : {"object", "component"}
    formula : {"exact", "paper"}

    Returns
    -------
    dict: ``cov`` (H^-1 J H^-1), ``cov_ml`` (inverse Fisher information),
    ``H``, ``J``, ``fisher``, ``trace_ratio`` = tr(cov)/tr(cov_ml),
    ``det_ratio`` = det(cov)/det(cov_ml), ``cost`` = sum_j lambda_j 2^|A_j|
    (expected configurations enumerated per observation).

    Examples
    --------
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel((3, [(0, 1), (1, 2)]), coding="01", tied=False, fields=False)
    >>> v = scl_asymptotic_variance(m, [1.0, -1.0], [("full", 1.0)])
    >>> bool(np.allclose(v["cov"], v["cov_ml"]))
    True
    """
    formula = str(formula).lower()
    if formula not in ("exact", "paper"):
        raise ValueError(f"formula must be 'exact' or 'paper', got {formula!r}")
    G, n = _statistics_matrix(model_or_G)
    p = G.shape[1]
    theta = np.asarray(theta, dtype=float).ravel()
    if theta.shape[0] != p:
        raise ValueError(f"theta needs {p} values, got {theta.shape[0]}")
    obj = likelihood_objects(components, n)
    unit, lam_u = _units(obj, selection)
    logw = G @ theta
    pr = np.exp(logw - special.logsumexp(logw))
    Eg = pr @ G
    fisher = (G * pr[:, None]).T @ G - np.outer(Eg, Eg)
    H = np.zeros((p, p))
    Wsum = np.zeros_like(G)                    # sum_j lambda_j beta_j V_j(x)
    Wunit = np.zeros((len(lam_u),) + G.shape) if formula == "exact" and selection == "component" \
        else None
    Jsel = np.zeros((p, p))
    for j, block in enumerate(obj["blocks"]):
        if len(block) == n:
            V = G - Eg
        else:
            V = _object_score_matrix(G, n, block, logw)
        lam, beta = obj["lam"][j], obj["beta"][j]
        EVV = (V * pr[:, None]).T @ V
        H += beta * lam * EVV
        Wsum += lam * beta * V
        if formula == "exact":
            if Wunit is not None:
                Wunit[unit[j]] += beta * V
            else:
                Jsel += lam * (1 - lam) * beta ** 2 * EVV
    J = (Wsum * pr[:, None]).T @ Wsum
    if Wunit is not None:
        for c, lam in enumerate(lam_u):
            Jsel += lam * (1 - lam) * (Wunit[c] * pr[:, None]).T @ Wunit[c]
    J = J + Jsel
    try:
        Hinv = np.linalg.inv(H)
        cov_ml = np.linalg.inv(fisher)
    except np.linalg.LinAlgError:
        raise ValueError("the information matrix is singular: these likelihood objects (or "
                         "the model) do not identify theta") from None
    cov = Hinv @ J @ Hinv
    cov = 0.5 * (cov + cov.T)
    sizes = np.array([len(b) for b in obj["blocks"]])
    _, ld = np.linalg.slogdet(cov)
    _, ld_ml = np.linalg.slogdet(cov_ml)
    return {"cov": cov, "cov_ml": cov_ml, "H": H, "J": J, "fisher": fisher,
            "trace_ratio": float(np.trace(cov) / np.trace(cov_ml)),
            "det_ratio": float(np.exp(ld - ld_ml)),
            "cost": float(obj["lam"] @ (2.0 ** sizes))}
