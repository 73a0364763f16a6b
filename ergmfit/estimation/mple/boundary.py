"""Infinite estimates: the maximum likelihood estimate on a face of the convex hull.

The MLE of an exponential family exists exactly when the observed (or target)
statistics lie in the relative interior of the convex hull of the attainable
ones.  When they lie on its boundary -- a statistic at its smallest or largest
attainable value, or a separation in the dyad-independent part of the model --
the likelihood keeps increasing along a direction d, and its supremum is the
MLE of the model restricted to the *face* of the hull that the observed
statistics lie on.  For the dyad-independent part the face is a set of dyads
whose values it decides: every dyad whose change statistic z has d . z > 0 is
a tie on the face, every one with d . z < 0 a non-tie.

statnet (``ergm``) reports such a fit with the coefficients of the statistics
at their extremes as -Inf (or +Inf), their standard error 0, and fits the other
coefficients on the face.  This module finds the face and gives the model on
it: the statistics whose coefficient is infinite become offsets at -Inf/+Inf
(an infinite offset decides its dyads: :func:`ergmfit.estimation.common.restricted.offset_design`
for the pseudo-likelihood, a structural zero for the samplers), so every
estimator that fits offsets fits the face model.

What is found, and when it is refused
-------------------------------------
The direction comes from one linear program over the distinct change-statistic
rows z_r (weights n_r) of the model's dyad-independent terms, with t the
observed statistics minus those of the empty network (sum_r s_r z_r, s_r ties
of row r) or the target statistics minus those of the empty network: find d
with sum_r n_r max(0, d . z_r) <= d . t (t on the face where every row with
d . z_r > 0 is all ties and every row with d . z_r < 0 has none) and as much
separation as possible.  Then

* every statistic whose change statistic is non-zero only on the decided rows,
  each time with the sign the decided value asks for, gets the coefficient
  sign(d_k) x Inf (statnet's "statistic at its extreme");
* the program runs again on the rows that are left (a face of a face);
* a direction that is not of that coordinate form (only a combination of
  coefficients diverges) is *not* turned into infinities: statnet does not
  report those either, and the estimators refuse them with their own message
  naming the combination.

The linear program covers the dyad-independent statistics only: their change
statistics do not depend on the network, so a separation among them is a
property of the whole sample space, not of the observed network (the
pseudo-likelihood's separation in a dyad-dependent statistic is only
necessary; see :mod:`ergmfit.estimation.mple.existence`).

A dyad-dependent statistic goes to infinity when it is *certainly* at its
extreme (:func:`extreme_statistics`, statnet's check of ``minval``/``maxval``):
its term declares bounds valid on every network (``register(bounds=)``: a
count is at least 0; a statistic that adding a tie never decreases lies
between its values on the empty and on the complete network) and the observed
statistic equals one of them -- then the observed network attains it, so it
is the smallest (largest) attainable value on any sample space that holds the
observed network.  Its coefficient is -Inf (+Inf) and the others are fitted on
the face: the networks on which the statistic keeps its extreme value (the
samplers reject every toggle that changes it, the pseudo-likelihood leaves out
the dyads whose toggle would).  A statistic at its extreme that no declared
bound certifies (a combination of statistics, or a term without ``bounds``)
is refused by the estimators, as statnet refuses it.

References
----------
Geyer, C. J. (2009). Likelihood inference in exponential families and
directions of recession. Electronic Journal of Statistics 3, 259-289.
Handcock, M. S. (2003). Assessing degeneracy in statistical models of social
networks. CSSS working paper 39.

Examples
--------
>>> import ergmfit as ef
>>> g = ef.datasets.load("faux.mesa.high")
>>> m = ef.ERGM(g, "edges + nodematch('Race', diff=TRUE)")
>>> face = boundary_face(m)
>>> face.infinite
{'nodematch.Race.Black': -inf, 'nodematch.Race.Other': -inf}
>>> import networkx as nx
>>> boundary_face(ef.ERGM(nx.cycle_graph(6), "edges + triangle")).infinite
{'triangle': -inf}
"""
from __future__ import annotations

import copy
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import optimize, sparse

from ...exceptions import ConvergenceWarning, DegenerateModelError
from ...terms.offsets import model_offsets
from ...terms.targets import target_of

__all__ = ["DesignFace", "design_face", "ModelFace", "boundary_face", "infinite_note",
           "boundary_warning", "statistic_bounds", "extreme_statistics"]

#: LP objective (per unit of total weight) below which no separation is taken as found
_LP_TOL = 1e-9
#: a dyad-by-dyad design larger than this (dyads x statistics) is not built for the face
#: question (nor its linear program solved): the estimator's own checks answer it
MAX_DESIGN_ENTRIES = 5 * 10 ** 7
#: nor is the linear program solved over more distinct rows than this
MAX_LP_ROWS = 100_000
#: the complete network's statistics (the upper bound of a statistic that adding a tie
#: never decreases) are computed for networks of at most this many dyads
MAX_COMPLETE_DYADS = 5000


@dataclass
class DesignFace:
    """The face of a compressed design: ``coef[k]`` is +/-Inf for the
    statistics whose coefficient diverges (NaN elsewhere), ``keep`` the rows
    left free on the face, ``target`` the target statistics of those rows
    (the decided ties' change statistics taken out) and ``n_decided`` the
    number of variables the face decides."""
    coef: np.ndarray
    keep: np.ndarray
    target: np.ndarray
    n_decided: float

    @property
    def fixed(self) -> np.ndarray:
        return ~np.isnan(self.coef)


def _recession_direction(Z, w, t):
    """The LP: d in [-1, 1]^p and u_r >= max(0, d . z_r) with
    sum_r w_r u_r <= d . t, maximising sum_r w_r (2 u_r - d . z_r) (which is
    sum_r w_r |d . z_r| at the optimum and 0 exactly when t is interior).
    Returns d or None."""
    R, p = Z.shape
    # variables x = (d, u)
    c = -np.concatenate([-(w @ Z), 2.0 * w])
    A1 = sparse.hstack([sparse.csr_matrix(Z), -sparse.identity(R, format="csr")])   # Zd - u <= 0
    A2 = sparse.csr_matrix(np.concatenate([-t, w])[None, :])                        # wu - td <= 0
    A = sparse.vstack([A1, A2]).tocsr()
    b = np.zeros(R + 1)
    bounds = [(-1.0, 1.0)] * p + [(0.0, None)] * R
    res = optimize.linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
    if res.status != 0 or -res.fun <= _LP_TOL:
        return None
    d = np.asarray(res.x[:p])
    d[np.abs(d) < 1e-7] = 0.0
    return d if np.any(d) else None


def _is_recession_direction(X, n, t, d):
    """Whether the likelihood does not decrease along ``d`` in the original units:
    t . d >= sum_r n_r max(0, x_r . d) up to rounding of these sums themselves (the
    LP works with weights n / sum(n), whose tolerance hides a few ties among 10^13
    dyads)."""
    xd = X @ d
    lhs = float(t @ d)
    rhs = float(n @ np.maximum(xd, 0.0))
    return lhs >= rhs - 1e-9 * max(1.0, abs(lhs), abs(rhs))


def design_face(X, n, t, labels=None):
    """The face of the convex hull that target ``t`` lies on, for the
    dyad-independent design (rows ``X``, weights ``n``); ``t`` is the target
    minus the statistics of the empty network (for an observed network:
    ``s @ X``, s the ties of each row).

    Returns None when ``t`` is interior (the MLE exists), a
    :class:`DesignFace` when the face is given by coefficients at +/-Inf, and
    raises DegenerateModelError when ``t`` is outside the attainable range or
    only a combination of coefficients diverges (``labels`` name them)."""
    X = np.asarray(X, dtype=float)
    n = np.asarray(n, dtype=float)
    t = np.asarray(t, dtype=float).copy()
    R, p = X.shape
    labels = list(labels) if labels is not None else [f"statistic {k + 1}" for k in range(p)]
    coef = np.full(p, np.nan)
    keep = n > 0
    active = np.ones(p, dtype=bool)
    n_decided = 0.0
    total = float(n[keep].sum())
    while keep.any() and active.any():
        rows = np.flatnonzero(keep)
        cols = np.flatnonzero(active)
        scale = np.abs(X[np.ix_(rows, cols)]).max(axis=0)
        scale[scale == 0] = 1.0
        Z = X[np.ix_(rows, cols)] / scale
        w = n[rows] / total
        tz = t[cols] / scale / total
        d = _recession_direction(Z, w, tz)
        if d is None:
            break
        dz = Z @ d
        if not _is_recession_direction(X[np.ix_(rows, cols)], n[rows], t[cols], d / scale):
            break       # the LP's tolerance, not the data: t is interior along d
        big = 1e-9 * max(1.0, float(np.abs(dz).max()))
        slack = float(w @ np.maximum(dz, 0.0) - tz @ d)
        if slack < -1e-7 * max(1.0, float(np.abs(tz).max())):
            raise DegenerateModelError(
                "the target statistics are outside the range any network attains: "
                + _combination(d, cols, labels) + " exceeds its largest attainable value")
        decided = np.abs(dz) > big
        on = dz > big
        nz = Z != 0
        in_face = nz[decided].any(axis=0) & ~nz[~decided].any(axis=0)
        # the decided value each row asks for, +1 (tie) or -1 (non-tie)
        want = np.where(on, 1.0, -1.0)
        signs = np.zeros(len(cols))
        for j in np.flatnonzero(in_face):
            r = decided & nz[:, j]
            sg = np.unique(np.sign(Z[r, j]) * want[r])
            if len(sg) != 1:
                in_face[j] = False
            else:
                signs[j] = sg[0]
        if np.any((d != 0) & ~in_face) or np.any(signs[d != 0] != np.sign(d[d != 0])):
            raise DegenerateModelError(
                "the maximum likelihood estimate does not exist: the likelihood keeps "
                "increasing as " + _combination(d, cols, labels) + " -> +Inf, and this is not "
                "a statistic at its extreme (no coefficient alone diverges, so there is no "
                "+/-Inf estimate to report as statnet does for those). Remove the term(s) from "
                "the formula.")
        for j in np.flatnonzero(in_face):
            coef[cols[j]] = signs[j] * math.inf
        t -= n[rows[on]] @ X[rows[on]]
        n_decided += float(n[rows[decided]].sum())
        keep[rows[decided]] = False
        active[cols[in_face]] = False
    if not np.any(~np.isnan(coef)):
        return None
    return DesignFace(coef, keep, t, n_decided)


def _combination(d, cols, labels):
    sup = np.flatnonzero(d)
    big = np.abs(d[sup]).max()
    if len(sup) == 1:
        return repr(labels[cols[sup[0]]])
    return "the combination " + " + ".join(f"{d[k] / big:.3g}*{labels[cols[k]]}" for k in sup)


# ---------------------------------------------------------------------------
# The model on the face
# ---------------------------------------------------------------------------
@dataclass
class ModelFace:
    """A model whose MLE lies on a face: ``model`` is the same model with the
    diverging statistics as offsets at +/-Inf (what the estimators fit),
    ``infinite`` maps their labels to +/-Inf and ``n_decided`` counts the
    dyads the face decides."""
    model: object
    infinite: dict
    n_decided: float

    def finish(self, res):
        """The results of the face model as results of the model: the infinite
        coefficients are estimates (not the user's offsets), and a note names them
        as statnet's summary does.  The deviances count every free dyad, the decided
        ones at probability 1: ``nobs`` is the sample space's, whatever the estimator
        (:func:`~ergmfit.estimation.common.nobs.fit_nobs`; the face model shares the
        model's sample space)."""
        diag = res.diagnostics
        off = diag.offset
        if off:
            diag.offset = {k: (v and k not in self.infinite) for k, v in off.items()}
            if not any(diag.offset.values()):
                diag.unset("offset")
        diag.update({"infinite": {k: ("+Inf" if v > 0 else "-Inf")
                                  for k, v in self.infinite.items()},
                     "face_decided_dyads": int(round(self.n_decided))})
        if res.loglik is not None:
            res.loglik = res.loglik + 0.0       # every dyad decided: -0.0 prints as 0
        res.warnings = list(res.warnings) + [infinite_note(self.infinite)]
        warnings.warn(boundary_warning(self.infinite), ConvergenceWarning, stacklevel=3)
        return res


def boundary_warning(infinite) -> str:
    """The warning a fit with infinite estimates gives, naming them."""
    parts = [f"{lab!r} is at its {'smallest' if v < 0 else 'largest'} attainable value "
             f"(coefficient {'-' if v < 0 else '+'}Inf)" for lab, v in infinite.items()]
    return ("the maximum likelihood estimate lies on the boundary of the attainable "
            "statistics: " + "; ".join(parts) + ". The estimate is infinite for "
            + ("it" if len(parts) == 1 else "them") + " and the other coefficients are fitted "
            "on the networks that keep " + ("it" if len(parts) == 1 else "them") + " at that "
            "value (the face), as statnet does (a standard error of 0 is printed)")


def infinite_note(infinite) -> str:
    """statnet's summary note on infinite estimates."""
    return ("Warning: The following terms have infinite coefficient estimates:\n  "
            + " ".join(infinite))


def _applies_any(model) -> bool:
    """Whether the model is one whose infinite estimates are sought at all: a
    linear model of a family with boundary faces, fitted by the front (not a
    free-coefficient view), its offsets' coefficients given, and target statistics only
    for dyad-independent models (a dyad-dependent model's targets go through SAN)."""
    if not getattr(getattr(model, "parameterisation", None), "linear", True):
        return False        # curved, or a free-coefficient view
    off, off_coef = model_offsets(model)
    if np.any(off) and off_coef is None:
        return False        # (the estimator asks for the offsets' coefficients)
    if model.parameterisation.fixed_coefficients() is not None:
        return False        # a free-coefficient view made by ERGM.fit: not the front's model
    if not model.family.has_boundary_faces:
        return False
    space = getattr(model, "sample_space", None)
    if space is None:
        return False
    if target_of(model).needs_network_search(model.dyad_independent):
        return False        # a dyad-dependent model's targets go through SAN
    return bool(getattr(model, "terms", None))


def _applies(model) -> bool:
    """Whether the linear program over the dyad-independent design applies: also a
    sample space of free dyads only (no degree bounds)."""
    return _applies_any(model) and model.sample_space.dyad_independent


def _independent_part(model):
    """(submodel of the dyad-independent terms, their statistic columns)."""
    cols, k = [], 0
    idx = []
    for j, term in enumerate(model.terms):
        width = len(term.labels)
        if term.dyad_independent:
            idx.append(j)
            cols.extend(range(k, k + width))
        k += width
    if not idx:
        return None, None
    sub = model if len(idx) == len(model.terms) else model.submodel(idx)
    return sub, np.asarray(cols, dtype=int)


def independent_design(model):
    """The compressed design (X, n, s, t) of a dyad-independent model over its
    free, observed dyads -- by attribute cells when the terms allow it
    (:mod:`.cells`), else dyad by dyad -- with t the target (or observed)
    statistics minus those of the empty network; None when it would need a
    case-control sample (too many dyads and no cell structure)."""
    from .cells import cell_design
    from .pseudolikelihood import DEFAULT_MAX_DYADS, Design, pseudo_design
    target = target_of(model)
    cells = cell_design(model)
    design = None if cells is None else Design(*cells)
    if design is None:
        if (model.network.n_dyads * len(model.labels) > MAX_DESIGN_ENTRIES
                or model.network.n_dyads > DEFAULT_MAX_DYADS):
            return None         # (the estimator's own checks and messages apply)
        # every free, observed dyad (no case-control sample below DEFAULT_MAX_DYADS)
        design = pseudo_design(model.compiled(), vars_=model.sample_space.design_vars())
    t = target.statistics_over_empty(lambda: model.statistics_vector(np.zeros((0, 2))),
                                     lambda: design.s @ design.X)
    return design, t


def _complete_ties(network):
    """Every dyad of ``network``'s kind as an (m, 2) tie array (the complete network)."""
    n = network.n
    if network.bipartite is not None:
        i, j = np.meshgrid(np.arange(network.bipartite), np.arange(network.bipartite, n),
                           indexing="ij")
    elif network.directed:
        i, j = np.nonzero(~np.eye(n, dtype=bool))
    else:
        i, j = np.triu_indices(n, 1)
    return np.column_stack([np.ravel(i), np.ravel(j)]).astype(np.int64)


def statistic_bounds(model):
    """(lower, upper): bounds of each statistic of ``model``'s linear dyad-dependent
    terms that hold on every network, from the terms' ``bounds`` declarations
    (:data:`ergmfit.terms.registry.BOUNDS`); NaN where nothing is declared (and for
    dyad-independent statistics, whose face the linear program finds exactly).  The
    upper bound of an increasing statistic (its value on the complete network) is
    computed for networks of at most :data:`MAX_COMPLETE_DYADS` dyads.

    >>> import ergmfit as ef, networkx as nx
    >>> statistic_bounds(ef.ERGM(nx.path_graph(4), "edges + triangle + kstar(2)"))
    (array([nan,  0.,  0.]), array([nan,  4., 12.]))
    """
    p = len(model.stat_labels)
    lower, upper = np.full(p, np.nan), np.full(p, np.nan)
    increasing, k = [], 0
    for j, term in enumerate(model.terms):
        cols = slice(k, k + len(term.labels))
        k += len(term.labels)
        kind = getattr(term, "bounds", None)
        if kind is None or term.dyad_independent or getattr(term, "curve", None) is not None:
            continue
        if kind == "count":
            lower[cols] = 0.0
        elif kind == "increasing":
            lower[cols] = term.on_empty()
            increasing.append((j, cols))
    if increasing and model.network.n_dyads <= MAX_COMPLETE_DYADS:
        sub = model.submodel([j for j, _ in increasing])
        full = sub.statistics_vector(_complete_ties(model.network))
        k = 0
        for _, cols in increasing:
            width = cols.stop - cols.start
            upper[cols] = full[k:k + width]
            k += width
    return lower, upper


def extreme_statistics(model) -> dict:
    """The columns of ``model``'s dyad-dependent statistics observed (or targeted) at a
    bound of :func:`statistic_bounds` -- at their smallest or largest attainable value
    -- as {column: -Inf or +Inf}; the user's offsets are left out, and neither a statistic
    whose two bounds agree (constant on every network) nor one that no single toggle of
    the observed network moves (:func:`_unmoved`) is taken as at an extreme.  Empty when a
    model has missing dyads (the observed statistics are then not a network's)."""
    if model.sample_space.conditional() is not None:      # missing dyads
        return {}
    lower, upper = statistic_bounds(model)
    if np.all(np.isnan(lower) & np.isnan(upper)):
        return {}
    obs = model.statistics_vector()
    offset, _ = model_offsets(model)
    out = {}
    for k in range(len(obs)):
        if offset[k]:
            continue
        at_low = not np.isnan(lower[k]) and abs(obs[k] - lower[k]) <= 1e-9 * max(1.0, abs(obs[k]))
        at_high = not np.isnan(upper[k]) and abs(obs[k] - upper[k]) <= 1e-9 * max(1.0, abs(obs[k]))
        if at_low != at_high:
            out[k] = -math.inf if at_low else math.inf
    if out:
        for k in _unmoved(model, sorted(out)):
            del out[k]
    return out


#: the check that a statistic at its extreme moves under some single toggle builds the change
#: statistics of every free dyad for networks of at most this many dyads
MAX_MOVE_CHECK_DYADS = 10 ** 6


def _unmoved(model, cols):
    """The columns among ``cols`` whose change statistic is 0 for every free dyad of the
    observed network (no single toggle moves them; e.g. ``degree(20)`` on 16 nodes, which
    no network can change): left to the estimators' own check ("has no variation"), not
    made infinite."""
    if model.network.n_dyads > MAX_MOVE_CHECK_DYADS:
        return []
    from .pseudolikelihood import pseudo_design
    starts = np.cumsum([0] + [len(t.labels) for t in model.terms])
    terms = sorted({int(np.searchsorted(starts, k, side="right")) - 1 for k in cols})
    sub = model.submodel(terms)
    # every free, observed dyad (at most MAX_MOVE_CHECK_DYADS: never a case-control sample)
    design = pseudo_design(sub.compiled(), vars_=model.sample_space.design_vars())
    sub_cols = np.concatenate([np.arange(starts[j], starts[j + 1]) for j in terms])
    moved = np.abs(design.X).max(axis=0) > 0 if len(design.X) else np.zeros(len(sub_cols), bool)
    return [k for k in cols if not moved[int(np.flatnonzero(sub_cols == k)[0])]]


def boundary_face(model):
    """The face the model's MLE lies on (:class:`ModelFace`), or None when the
    MLE exists as far as is certain (or the question does not apply: curved
    models, count models, missing offset coefficients).  The dyad-independent
    statistics' face is found by the linear program (not under dyad-dependent
    constraints, nor with an infinite user offset on a dyad-dependent statistic),
    the dyad-dependent statistics at their extremes by :func:`extreme_statistics`.
    The user's offsets stay offsets (an infinite one's dyads are decided before
    the face is sought).  Raises DegenerateModelError when the target statistics
    are not attainable or only a combination of coefficients diverges (module
    docstring)."""
    if not _applies_any(model):
        return None
    independent = _independent_face(model) if _applies(model) else None
    extreme = extreme_statistics(model)
    if independent is None and not extreme:
        return None
    p = len(model.labels)
    off, off_coef = model_offsets(model)
    fixed = np.asarray(off, dtype=bool).copy()
    coef_all = np.full(p, np.nan)
    if fixed.any():
        coef_all[fixed] = np.asarray(off_coef, dtype=float)
    found = dict(extreme)
    n_decided = 0.0
    if independent is not None:
        found.update(independent[0])
        n_decided = independent[1]
    for k, v in found.items():
        fixed[k] = True
        coef_all[k] = v
    infinite = {model.labels[k]: float(v) for k, v in sorted(found.items())}
    m = copy.copy(model)
    m.offset = fixed
    m.offset_coef = coef_all[fixed]
    return ModelFace(m, infinite, n_decided)


def _independent_face(model):
    """The linear program's face of the dyad-independent statistics:
    ({column: +/-Inf}, dyads the face decides), or None."""
    sub, cols = _independent_part(model)
    if sub is None:
        return None
    got = independent_design(sub)
    if got is None:
        return None
    design, t = got
    if design.X.shape[0] > MAX_LP_ROWS:
        return None             # (a continuous dyadic covariate: the estimator's checks apply)
    X, n = design.X, design.n
    labels = [model.labels[k] for k in cols]
    # the user's offsets: out of the question; the dyads an infinite one decides leave the
    # design (those it makes ties stay in every network of the face: out of the target)
    p = len(model.labels)
    user = np.zeros(p, dtype=bool)
    user_coef = np.full(p, np.nan)
    off, off_coef = model_offsets(model)
    if np.any(off):
        user[:] = off
        user_coef[user] = off_coef
        dep_inf = user & ~np.isfinite(user_coef)
        dep_inf[cols] = False
        if dep_inf.any():
            return None         # an infinite offset on a dyad-dependent statistic
    ucols = user[cols]
    inf_cols = ucols & ~np.isfinite(user_coef[cols])
    if inf_cols.any():
        Xi = X[:, inf_cols]
        decided = (Xi != 0).any(axis=1)
        made = decided & (np.sign(Xi @ np.sign(user_coef[cols][inf_cols])) > 0)
        t = t - n[made] @ X[made]
        X, n = X[~decided], n[~decided]
        if target_of(model).checks_observed_network:
            t = design.s[~decided] @ X
    free = ~ucols
    face = design_face(X[:, free], n, t[free], [lab for lab, f in zip(labels, free) if f])
    if face is None:
        return None
    fcols = cols[free][face.fixed]
    return ({int(k): float(v) for k, v in zip(fcols, face.coef[face.fixed])},
            face.n_decided)
