"""statnet's ``Curve()`` / ``Parametrise()`` operator fitted through the parameterisation:
η = A θ + c, θ the curved parameters ``params`` names, η the natural parameters of the inner
formula's statistics.

ergmfit fits the maps that are affine in θ: ``map="rep"`` (θ recycled to the statistics),
a numeric vector (constant natural parameters, like an offset), and an R function of
``x`` (θ) and ``n`` (the number of statistics) that ergmfit can evaluate (``c()``, ``rep()``,
``x[k]``, arithmetic, ``exp``/``log``/``sqrt``; no braces) with ``gradient="linear"`` or a
constant gradient matrix (``matrix(...)``, statnet's orientation: one row per parameter).
A map that is not affine, or that ergmfit cannot evaluate, still gives the statistics
(``summary()``), but fitting it is an error naming the reason.  ``minpar`` is the lower
bound of the parameters; a finite ``maxpar`` is refused (the optimisers bound from below
only).  The initial values in ``params`` are not used (the estimators choose the start).

A model with Curve() terms has one parameterisation, :class:`AffineParameterisation`,
covering its other terms too (linear terms: the identity; ``Offset()`` terms: their free
parameters and constants); with curved terms (``gwesp(fixed=FALSE)``) it is refused.  It
presents itself as a free-coefficient view (``offset_coef``, ``affine_parts``), so the
estimators' offset machinery fits it: the MPLE is the logistic regression on X A with
offset X c, the MCMC-MLE the general (curved) path; ``offset()`` terms on top fold into
the same map (:meth:`AffineParameterisation.fixing`).
"""
from __future__ import annotations

import ast
import re

import numpy as np

from ..exceptions import FormulaError, TermError
from ..formula import RCode
from .parameterisation import Parameterisation


class _Canonical(Parameterisation):
    """The model in its natural parameters (η = θ over the statistics): what a Curve()
    model is "with every coefficient" (the MCMC-MLE's log-likelihood bridge runs it at
    η(θ)).  Not ``linear``, so the MPLE takes the view's affine design."""

    linear = False
    affine = True

    def __init__(self, stat_labels):
        super().__init__(stat_labels, stat_labels)
        self.curved_terms = []

    def eta(self, theta):
        return np.asarray(theta, dtype=float)

    def jacobian(self, theta):
        return np.eye(self.n_params)

    def lower_bounds(self):
        return np.full(self.n_params, -np.inf)

    def decay_indices(self):
        return []


class AffineParameterisation(Parameterisation):
    """η = A θ + c (``A`` None: not fittable, ``why`` says why).  It presents itself as a
    free-coefficient view of the canonical model (``inner``: η itself; ``full(θ)`` = η(θ);
    no offsets: ``mask`` all False, ``offset_coef`` empty), which is what the estimators'
    offset machinery reads."""

    linear = False
    affine = True

    def __init__(self, param_labels, stat_labels, A, c, lower=None, why=None):
        super().__init__(param_labels, stat_labels)
        self.A = None if A is None else np.asarray(A, dtype=float)
        self.c = np.asarray(c, dtype=float)
        self.why = why
        self.lower = (np.full(len(self.param_labels), -np.inf) if lower is None
                      else np.asarray(lower, dtype=float))
        self.inner = _Canonical(stat_labels)
        self.mask = np.zeros(len(self.stat_labels), dtype=bool)
        self.offset_coef = self.coef = np.zeros(0)
        self.curved_terms, self.kept_curved = [], []

    def full(self, theta) -> np.ndarray:
        return self.eta(theta)

    def _check(self):
        if self.A is None:
            raise FormulaError(f"cannot fit this model: {self.why}")

    def eta(self, theta) -> np.ndarray:
        self._check()
        theta = np.asarray(theta, dtype=float)
        if theta.shape[-1:] != (self.n_params,):
            raise ValueError(f"theta must have {self.n_params} value(s), got shape {theta.shape}")
        return theta @ self.A.T + self.c

    def jacobian(self, theta) -> np.ndarray:
        self._check()
        return self.A.copy()

    def affine_parts(self, theta=None):
        self._check()
        return self.A.copy(), self.c.copy()

    def lower_bounds(self) -> np.ndarray:
        return self.lower.copy()

    def decay_indices(self) -> list:
        return []

    def fixing(self, mask, coef):
        """This map with the parameters ``mask`` fixed at ``coef`` (offset() terms)."""
        mask = np.asarray(mask, dtype=bool)
        coef = np.clip(np.asarray(coef, dtype=float), -1e300, 1e300)
        free = [lab for lab, m in zip(self.param_labels, mask) if not m]
        if self.A is None:
            return AffineParameterisation(free, self.stat_labels, None, self.c, why=self.why)
        return AffineParameterisation(free, self.stat_labels, self.A[:, ~mask],
                                      self.c + self.A[:, mask] @ coef, self.lower[~mask])


def affine_parameterisation(terms) -> AffineParameterisation:
    """The map of a model with Curve() terms (see the module docstring)."""
    plabs, slabs, blocks, consts, lower, why = [], [], [], [], [], None
    for t in terms:
        q = len(t.labels)
        if getattr(t, "curve", None) is not None:
            raise TermError(f"Curve() together with the curved term {t.name} (fixed=FALSE) is "
                            "not supported yet; fix its decay")
        cm = getattr(t, "curve_map", None)
        fx = getattr(t, "fixed", None)
        if cm is not None:
            A, c, lo = cm["A"], cm["c"], cm["lower"]
            why = why or cm["why"]
        elif fx is not None:
            _, m, vals = fx
            A, c = np.eye(q)[:, ~np.asarray(m)], np.zeros(q)
            c[np.asarray(m)] = vals
            lo = np.full(A.shape[1], -np.inf)
        else:
            A, c, lo = np.eye(q), np.zeros(q), np.full(q, -np.inf)
        blocks.append(A)
        consts.append(c)
        lower.append(lo)
        plabs += list(t.param_labels)
        slabs += list(t.labels)
    if why is not None:
        return AffineParameterisation(plabs, slabs, None, np.concatenate(consts), why=why)
    p = len(plabs)
    A = np.zeros((len(slabs), p))
    r = k = 0
    for B in blocks:
        A[r:r + B.shape[0], k:k + B.shape[1]] = B
        r, k = r + B.shape[0], k + B.shape[1]
    return AffineParameterisation(plabs, slabs, A, np.concatenate(consts),
                                  np.concatenate(lower) if lower else None)


# -- the map argument ------------------------------------------------------------------

class _REval(ast.NodeVisitor):
    """A small evaluator of R expressions of x and n (no eval)."""

    FUNCS = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs, "sum": np.sum,
             "length": lambda v: float(np.size(v))}

    def __init__(self, env):
        self.env = env

    def fail(self, what):
        raise ValueError(f"{what} is not understood")

    def visit_Expression(self, node):
        return self.visit(node.body)

    def visit_Name(self, node):
        if node.id not in self.env:
            self.fail(f"the name {node.id!r}")
        return self.env[node.id]

    def visit_Constant(self, node):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            self.fail(repr(node.value))
        return float(node.value)

    def visit_Subscript(self, node):
        base = np.atleast_1d(self.visit(node.value))
        k = int(self.visit(node.slice))
        if not 1 <= k <= len(base):
            self.fail(f"the index {k}")
        return base[k - 1]

    def visit_Call(self, node):
        if not isinstance(node.func, ast.Name) or node.keywords:
            self.fail("this call")
        name, args = node.func.id, [self.visit(a) for a in node.args]
        if name == "c":
            return np.concatenate([np.atleast_1d(a) for a in args]) if args else np.zeros(0)
        if name == "rep" and len(args) == 2:
            return np.resize(np.atleast_1d(args[0]), int(args[1]))
        if name == "matrix" and 1 <= len(args) <= 3:
            data = np.atleast_1d(args[0])
            nrow = int(args[1]) if len(args) > 1 else len(data)
            ncol = int(args[2]) if len(args) > 2 else max(1, len(data) // nrow)
            return np.resize(data, nrow * ncol).reshape(ncol, nrow).T     # R: by column
        if name in self.FUNCS and len(args) == 1:
            return self.FUNCS[name](args[0])
        self.fail(f"the function {name}()")

    def visit_BinOp(self, node):
        ops = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
               ast.Div: np.divide, ast.Pow: np.power}
        if type(node.op) not in ops:
            self.fail("this operator")
        return ops[type(node.op)](self.visit(node.left), self.visit(node.right))

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.USub):
            return -self.visit(node.operand)
        if isinstance(node.op, ast.UAdd):
            return self.visit(node.operand)
        self.fail("this operator")

    def generic_visit(self, node):
        self.fail(type(node).__name__)


_FUNCTION = re.compile(r"^\s*function\s*\(([^)]*)\)\s*(.+?)\s*$", re.S)


def r_value(text, env):
    """Value of an R expression over ``env`` (numbers and numeric vectors)."""
    tree = ast.parse(text.replace("^", "**").strip(), mode="eval")
    return _REval(env).visit(tree)


def r_function(code: RCode):
    """``function(x, n, ...) body`` -> a Python function (x, n) -> value."""
    m = _FUNCTION.match(code.text)
    if not m:
        raise ValueError(f"{code.text!r} is not an R function of the form function(x, n, ...) "
                         "expression")
    names = [a.strip() for a in m.group(1).split(",") if a.strip() and a.strip() != "..."]
    body = m.group(2)

    def f(x, n):
        env = dict(zip(names, [np.asarray(x, dtype=float), float(n)]))
        return np.atleast_1d(np.asarray(r_value(body, env), dtype=float))
    return f


def curve_map(term, pnames, q, map, gradient, minpar, maxpar):
    """{"A", "c", "lower", "why"} of a Curve() term's map (A None with ``why`` when ergmfit
    cannot fit it)."""
    p = len(pnames)
    lower = np.resize(np.atleast_1d(np.asarray(-np.inf if minpar is None else minpar,
                                               dtype=float)), p)
    hi = np.atleast_1d(np.asarray(np.inf if maxpar is None else maxpar, dtype=float))
    if np.isfinite(hi).any():
        raise TermError(f"term {term}: a finite maxpar is not supported yet (the estimators "
                        "bound the parameters from below only)")
    out = {"A": None, "c": np.zeros(q), "lower": lower, "why": None}
    if isinstance(map, str):
        if not "rep".startswith(map) or not map:
            raise TermError(f"term {term}: map {map!r} is not one of statnet's named maps "
                            "('rep')")
        out["A"] = np.array([[1.0 if k % p == j else 0.0 for j in range(p)] for k in range(q)])
        return out
    if isinstance(map, (int, float, list)) and not isinstance(map, bool):
        vals = map if isinstance(map, list) else [map]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            raise TermError(f"term {term}: map must be a function, numbers or 'rep'")
        out["A"], out["c"] = np.zeros((q, p)), np.resize(np.asarray(vals, dtype=float), q)
        return out
    if not isinstance(map, RCode):
        raise TermError(f"term {term}: map must be a function, numbers or 'rep', got {map!r}")
    try:
        f = r_function(map)
        c = f(np.zeros(p), q)
        A = np.column_stack([f(np.eye(p)[j], q) - c for j in range(p)]) if p else np.zeros((q, 0))
        if c.shape != (q,) or A.shape != (q, p):
            raise ValueError(f"the map gives {c.size} value(s) for {q} statistic(s)")
        rng = np.random.default_rng(0)
        for _ in range(3):          # affine: f(θ) = A θ + c at random θ
            th = rng.normal(size=p)
            if not np.allclose(f(th, q), A @ th + c, rtol=1e-9, atol=1e-12):
                raise ValueError("the map is not affine in the parameters (ergmfit fits "
                                 "affine maps only)")
        if isinstance(gradient, RCode) and gradient.text.lstrip().startswith("matrix"):
            G = np.atleast_2d(r_value(gradient.text, {}))
            if G.shape != (p, q) or not np.allclose(G.T, A, rtol=1e-9, atol=1e-12):
                raise ValueError("the gradient matrix does not match the map")
    except (ValueError, SyntaxError, ZeroDivisionError, TypeError) as exc:
        out["why"] = f"term {term}: its map {map.text!r}: {exc}"
        return out
    out["A"], out["c"] = A, c
    return out
