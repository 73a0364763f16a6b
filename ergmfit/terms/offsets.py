"""Offset terms: coefficients fixed at given values (statnet's ``offset()``).

:class:`OffsetParameterisation` wraps a model's parameterisation so that an
estimator sees only the free coefficients: η(θ_free) = inner.η(θ with the
offsets put back), ∂η/∂θ_free the inner Jacobian's free columns.  It is not
``linear`` (η is affine in θ_free), so the MCMC-MLE takes its general
(curved) path, with no change to it.  An infinite offset (a structural
zero, −Inf) enters the sampler as ±1e300: a proposal that changes its
statistic is then always rejected, and 0 × 1e300 stays 0 where a toggle
does not change it (where −Inf × 0 would be NaN).

Examples
--------
>>> import numpy as np
>>> from ergmfit.terms.parameterisation import Identity
>>> par = OffsetParameterisation(Identity(["edges", "triangle"]), [True, False], [-1.5])
>>> par.eta(np.array([0.2]))
array([-1.5,  0.2])
"""
from __future__ import annotations

import numpy as np

from .parameterisation import Parameterisation

BIG = 1e300


class OffsetParameterisation(Parameterisation):
    """The free coefficients of ``inner`` (offsets at ``coef``).

    ``inner`` may be curved (statnet's ``offset(gwesp(fixed=FALSE))`` fixes
    both the weight and the decay; ``offset(gwesp(fixed=FALSE), 2)`` only
    the decay).  With every decay fixed the view is affine in the free
    coefficients (``affine``: the MPLE is then a logistic regression and
    the MCMC-MLE's importance-sampling step the linear one, in effect);
    a curved term whose decay stays free keeps its (weight, decay) pair in
    :attr:`curved_terms`, in the free coefficients' positions.  A curved
    term whose weight is fixed but whose decay is free is refused (see
    :func:`check_offset_mask`)."""

    linear = False

    def __new__(cls, inner=None, mask=None, coef=None):
        # a map that folds fixed coefficients in itself (Curve(): .curvemap) does so
        if cls is OffsetParameterisation and hasattr(inner, "fixing"):
            return inner.fixing(mask, coef)
        return super().__new__(cls)

    def __init__(self, inner, mask, coef):
        if isinstance(inner, OffsetParameterisation):
            # the free view of a free view (offset() terms in a model with Offset()
            # operators): one view of the innermost parameterisation
            free_at = np.flatnonzero(~inner.mask)[np.asarray(mask, dtype=bool)]
            vals = np.zeros(len(inner.mask))
            vals[inner.mask] = inner.offset_coef
            vals[free_at] = coef
            mask = inner.mask.copy()
            mask[free_at] = True
            coef, inner = vals[mask], inner.inner
        self.inner = inner
        self.mask = np.asarray(mask, dtype=bool)
        self.offset_coef = np.asarray(coef, dtype=float)      # as given (may be -Inf)
        self.coef = np.clip(self.offset_coef, -BIG, BIG)
        free = [lab for lab, o in zip(inner.param_labels, self.mask) if not o]
        super().__init__(free, inner.stat_labels)
        check_offset_mask(inner, self.mask)
        # position of each inner parameter among the free ones (-1: an offset)
        pos = np.cumsum(~self.mask) - 1
        self.curved_terms, self.kept_curved = [], []
        for j, (ps, ss, curve) in enumerate(getattr(inner, "curved_terms", [])):
            if not self.mask[ps.start + 1]:            # the decay is free
                a = int(pos[ps.start])
                self.curved_terms.append((slice(a, a + 2), ss, curve))
                self.kept_curved.append(j)

    @property
    def affine(self) -> bool:
        """η is affine in the free coefficients: no free decay."""
        return not self.curved_terms

    @property
    def fixed_by_columns(self) -> bool:
        """The offsets are statistics' own coefficients: the inner map is linear."""
        return getattr(self.inner, "linear", True)

    def full(self, theta) -> np.ndarray:
        """θ with the offset coefficients put back (in the inner model's order)."""
        theta = np.asarray(theta, dtype=float)
        out = np.empty(theta.shape[:-1] + (len(self.mask),))
        out[..., self.mask] = self.coef
        out[..., ~self.mask] = theta
        return out

    def eta(self, theta) -> np.ndarray:
        return self.inner.eta(self.full(theta))

    def jacobian(self, theta) -> np.ndarray:
        return self.inner.jacobian(self.full(theta))[:, ~self.mask]

    def affine_parts(self, theta=None):
        """(A, c) with η(θ) = A θ + c at the decays of ``theta`` (every decay, if
        the view is affine): A is (q, p_free), c the offsets' part of η.  The
        free decays' columns of A are zero (see
        :func:`ergmfit.terms.parameter_steps.fixed_decay_matrix`)."""
        theta = np.zeros(self.n_params) if theta is None else np.asarray(theta, float)
        full = self.full(theta)
        inner = self.inner
        if getattr(inner, "linear", False):
            A = np.eye(inner.n_stats)
        else:
            from .parameter_steps import fixed_decay_matrix
            A = fixed_decay_matrix(inner, full)
        return A[:, ~self.mask], A[:, self.mask] @ self.coef

    def lower_bounds(self) -> np.ndarray:
        lb = getattr(self.inner, "lower_bounds", None)
        return (lb()[~self.mask] if lb is not None
                else np.full(int((~self.mask).sum()), -np.inf))

    def decay_indices(self) -> list:
        return [ps.start + 1 for ps, _, _ in self.curved_terms]

    def free_position(self, i):
        return None if self.mask[i] else int(i - self.mask[:i].sum())

    def fixed_coefficients(self):
        """(mask over the inner model's parameters, offset coefficients as given)."""
        return self.mask, self.offset_coef


def model_offsets(model):
    """The coefficients ``model``'s own ``offset()`` terms hold fixed: (mask over its
    coefficients, their values as given -- ``fit(offset_coef=)``, ±Inf kept -- or None
    when not given).  The mask is all False without offset terms, or for a model without
    them (an MRF).  A fit's free-coefficient view holds its offsets in its map instead
    (:meth:`~ergmfit.terms.parameterisation.Parameterisation.fixed_coefficients`).

    >>> class Field:
    ...     labels = ["h", "J"]
    >>> model_offsets(Field())
    (array([False, False]), None)
    """
    mask = getattr(model, "offset", None)
    mask = (np.zeros(len(model.labels), dtype=bool) if mask is None
            else np.asarray(mask, dtype=bool))
    coef = getattr(model, "offset_coef", None)
    return mask, (None if coef is None else np.asarray(coef, dtype=float))


def check_offset_mask(inner, mask):
    """Refuse what a curved term cannot do: a fixed weight with a free decay
    (its natural parameters would be curved in the decay alone)."""
    from ..exceptions import FormulaError
    for ps, _, _ in getattr(inner, "curved_terms", []):
        if mask[ps.start] and not mask[ps.start + 1]:
            w, d = inner.param_labels[ps.start], inner.param_labels[ps.start + 1]
            raise FormulaError(
                f"offset on {w!r} with {d!r} free is not implemented: fix both "
                f"(offset(term)) or only the decay (offset(term, 2))")


def split_which(text):
    """``"term, which"`` -> (term text, which text or None): statnet's
    ``offset(term, which)``, split at the first comma outside parentheses,
    brackets and strings (nothing evaluated)."""
    for i, ch, depth in _outside_strings(text):
        if ch == "," and depth == 0:
            return text[:i].strip(), text[i + 1:].strip()
    return text.strip(), None


def _outside_strings(text):
    """(position, character, bracket depth before it) of each character of ``text`` outside
    its string literals."""
    depth, quote, i = 0, None, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        else:
            yield i, ch, depth
            depth += (ch in "([{") - (ch in ")]}")
        i += 1


def which_mask(which, n):
    """The mask of a term's ``n`` parameters that ``which`` (statnet's
    ``offset(term, which)``: 1-based indices ``2`` / ``c(1, 3)`` / ``1:2``,
    or logicals ``c(FALSE, TRUE)``, recycled as statnet does) fixes; all of
    them when ``which`` is None.

    >>> which_mask("2", 2).tolist()
    [False, True]
    >>> which_mask("c(TRUE, FALSE)", 4).tolist()
    [True, False, True, False]
    """
    from ..exceptions import FormulaError
    if which is None:
        return np.ones(n, dtype=bool)
    w = which.strip()
    if w.startswith("which") and "=" in w:
        w = w.split("=", 1)[1].strip()
    inner = w[2:-1] if w.startswith("c(") and w.endswith(")") else w
    items = [x.strip() for x in inner.split(",") if x.strip()]
    if items and all(x.upper() in ("TRUE", "FALSE", "T", "F") for x in items):
        vals = [x.upper() in ("TRUE", "T") for x in items]
        return np.array([vals[k % len(vals)] for k in range(n)], dtype=bool)
    idx = []
    try:
        for x in items:
            if ":" in x:
                a, b = (int(float(v)) for v in x.split(":"))
                idx.extend(range(a, b + 1) if a <= b else range(a, b - 1, -1))
            else:
                idx.append(int(float(x)))
    except ValueError:
        raise FormulaError(f"offset(..., {which}): which must be indices or TRUE/FALSE "
                           "values of the term's parameters") from None
    if not idx or any(k < 1 or k > n for k in idx):
        raise FormulaError(f"offset(..., {which}): the term has {n} parameter(s); "
                           "which must pick among 1.." + str(n))
    mask = np.zeros(n, dtype=bool)
    mask[[k - 1 for k in idx]] = True
    return mask


def _top_level_offsets(formula):
    """Start positions of the ``offset(`` calls at the top level of ``formula`` (outside
    strings and parentheses, after ``+``, ``~`` or the start): the ones that wrap a term
    of this formula.  Those inside an operator's formula belong to that formula."""
    out = []
    for i, _, depth in _outside_strings(formula):
        if depth == 0 and formula.startswith("offset(", i) and \
                (i == 0 or not (formula[i - 1].isalnum() or formula[i - 1] in "._")):
            before = formula[:i].rstrip()
            if not before or before[-1] in "+~":
                out.append(i)
    return out


def split_offsets(formula):
    """``formula`` with each top-level ``offset(term)`` replaced by ``term``, and the
    texts of the offset terms (parentheses matched, nothing evaluated).  An ``offset()``
    inside an operator's formula (``Sum(~edges + offset(absdiff("x")))``) is left to that
    operator (see :func:`.operators.build_formula`)."""
    from ..exceptions import FormulaError
    if not isinstance(formula, str):
        return formula, []
    out, offs, k = [], [], 0
    for j in _top_level_offsets(formula):
        depth, e = 1, j + 7
        while e < len(formula) and depth:
            depth += {"(": 1, ")": -1}.get(formula[e], 0)
            e += 1
        if depth:
            raise FormulaError(f"unbalanced parentheses in offset(...) of {formula!r}")
        inner = formula[j + 7:e - 1].strip()
        out.append(formula[k:j] + split_which(inner)[0])      # offset(term, which)
        offs.append(inner)
        k = e
    out.append(formula[k:])
    return "".join(out), offs


def offset_flags(calls, offset_texts):
    """A flag per parsed term of a formula: False, or the ``which`` text of
    ``offset(term, which)`` (True: every parameter)."""
    from ..exceptions import FormulaError
    flags, todo = [], [split_which(t) for t in offset_texts]
    for c in calls:
        hit = next((t for t in todo if t[0] == c.text.strip()), None)
        if hit is not None:
            todo.remove(hit)
        flags.append(False if hit is None else (hit[1] or True))
    if todo:
        raise FormulaError(f"offset({todo[0][0]}) does not wrap one term of the formula")
    return flags


def propagate_offsets(name, term, terms, W, n_formulas):
    """``offset()`` inside an operator's formula, as statnet's ``Sum()`` treats it: with one
    formula and a weight per statistic (W diagonal) the operator's statistic k is inner
    statistic k times a weight, so its coefficient is an offset where the inner one is
    (statnet's test-term-Sum.R: ``Sum(c(1, .5) ~ edges + offset(absdiff("wealth")),
    identity)`` gives ``Sum~edges``, ``offset(Sum~absdiff.wealth)``).  Otherwise (several
    formulas, a weight matrix, ``"sum"``/``"mean"``) the offset is dropped with statnet's
    warning ("does not propagate offset()").  Sets ``term.offset_mask`` (see
    :class:`ergmfit.model.ERGM`); returns ``term``."""
    from ..utils.validation import warn
    from ..exceptions import TermError
    flags = [getattr(t, "offset_flag", False) for t in terms]
    if not any(flags):
        return term
    W = np.asarray(W, dtype=float)
    diagonal = W.shape[0] == W.shape[1] and np.array_equal(W, np.diag(np.diag(W)))
    if n_formulas != 1 or not diagonal:
        warn(f"term {name}: {name}() does not propagate offset() here (several "
             f"formulas or a weight matrix): the statistics are kept and their "
             f"coefficients estimated, as statnet warns")
        return term
    stat_mask, par_mask = [], []
    for t, flag in zip(terms, flags):
        pm = which_mask(flag if isinstance(flag, str) else None, len(t.param_labels)) \
            & bool(flag)
        par_mask.extend(pm)
        if getattr(term, "curve_map", None) is not None:     # it keeps the inner curvature
            stat_mask.extend(pm if len(pm) == len(t.labels) else [bool(pm.all())] * len(t.labels))
        elif len(pm) == len(t.labels):
            stat_mask.extend(pm)
        elif pm.all() or not pm.any():         # a curved term: all its statistics, or none
            stat_mask.extend([bool(pm.all())] * len(t.labels))
        else:
            raise TermError(f"term {name}: offset(term, which) of some of a curved term's "
                            f"parameters inside {name}() is not supported; fix all of them")
    if getattr(term, "curve_map", None) is not None and len(par_mask) == len(term.param_labels):
        # an operator keeping its inner curved parameters: offsets over them, and the
        # statistics labelled offset(...) where all of their term's parameters are
        term.offset_mask = np.array(par_mask, dtype=bool)
        term.offset_stat_mask = np.array(stat_mask, dtype=bool)
        return term
    if len(term.param_labels) != len(stat_mask):
        raise TermError(f"term {name}: offset() inside {name}() over a curved term is not "
                        f"supported")
    term.offset_mask = np.array(stat_mask, dtype=bool)
    return term
