"""statnet's ``Curve()`` / ``Parametrise()`` operator fitted through the parameterisation:
η(θ) = map(θ), θ the curved parameters ``params`` names, η the natural parameters of the
inner formula's statistics.

Maps: ``map="rep"`` (θ recycled to the statistics), a numeric vector (constant natural
parameters, like an offset), or an R function of ``x`` (θ) and ``n`` (the number of
statistics) that ergmfit can evaluate (``c()``, ``rep()``, ``x[k]``, arithmetic, ``^``,
``exp``/``log``/``sqrt``; no braces) with ``gradient="linear"`` (the map must then be
affine in θ), a gradient matrix (``matrix(...)``), or a gradient function
(``function(x, n, ...) rbind(...)``); gradients are in statnet's orientation, one row per
parameter, and checked against the map's numerical derivative.  A map ergmfit cannot
evaluate still gives the statistics (``summary()``), but fitting it is an error naming the
reason.  ``minpar`` and ``maxpar`` (recycled to the parameters, as statnet does) bound the
parameters: every estimator keeps θ in that box (:meth:`Parameterisation.project`), and a
parameter whose likelihood keeps rising beyond its bound stops on it.  The initial values
in ``params`` are not used.

A model with Curve() terms has one parameterisation, :class:`MapParameterisation`,
covering its other terms too, block by block (the Jacobian is block-diagonal over the
terms): linear terms the identity, ``Offset()`` terms their free parameters and constants,
curved terms (``gwesp(fixed=FALSE)``) their own (weight, decay) map -- their decays stay
decays for the estimators (:attr:`MapParameterisation.curved_terms`).  It
presents itself as a free-coefficient view of the canonical model (``inner``: η itself,
``offset_coef``, ``affine_parts``), so the estimators' offset machinery fits it: with
affine maps the MPLE is the logistic regression on X A with offset X c, otherwise the
curved pseudo-likelihood; the MCMC-MLE takes its general (curved) path; ``offset()`` terms
on top fold into the same map (:meth:`MapParameterisation.fixing`).
"""
from __future__ import annotations

import ast
import re

import numpy as np

from ..exceptions import FormulaError, TermError
from ..formula import RCode
from . import parameterisation
from .offsets import OffsetParameterisation
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

    def decay_indices(self):
        return []


class MapParameterisation(Parameterisation):
    """η(θ) block by block: ``blocks`` are (parameter slice, statistic slice, map) with map
    {"eta": θ_b -> η_b, "jac": θ_b -> ∂η_b/∂θ_b, "affine": bool, "curves": [(parameter
    slice, statistic slice, CurvedMap) within the block]}; ``why`` (not None) makes the
    model unfittable; ``lower``/``upper`` bound every parameter.  Parameters ``fixed`` (a
    mask over all of them) sit at ``values``.  It presents itself as a free-coefficient
    view of the canonical model (``inner``: η itself; ``full(θ)`` = η(θ); no offsets of
    its own: ``mask`` all False, ``offset_coef`` empty), which is what the estimators'
    offset machinery reads.  The curved terms among the blocks whose decay is free are
    :attr:`curved_terms` (in the free parameters' positions; ``kept_curved``: their
    places among the model's curved terms), as for a model without Curve()."""

    linear = False
    fixed_by_columns = False        # the design goes through the map (affine_parts)

    def __init__(self, param_labels, stat_labels, blocks, lower, upper=None, why=None,
                 fixed=None, values=None):
        self.all_labels = list(param_labels)
        self.blocks, self.why = blocks, why
        self.lower_all = np.asarray(lower, dtype=float)
        self.upper_all = (np.full(len(self.lower_all), np.inf) if upper is None
                          else np.asarray(upper, dtype=float))
        self.fixed = np.zeros(len(param_labels), bool) if fixed is None else np.asarray(fixed)
        self.values = np.zeros(int(self.fixed.sum())) if values is None else \
            np.asarray(values, dtype=float)
        super().__init__([lab for lab, f in zip(param_labels, self.fixed) if not f],
                         stat_labels)
        self.inner = _Canonical(stat_labels)
        self.mask = np.zeros(len(self.stat_labels), dtype=bool)
        self.offset_coef = self.coef = np.zeros(0)
        pos = np.cumsum(~self.fixed) - 1          # each parameter's place among the free
        self.curved_terms, self.kept_curved = [], []
        affine = True
        for ps, ss, m in blocks:
            free_decay = False
            for cps, css, curve, j in m.get("curves", []):
                w, d = ps.start + cps.start, ps.start + cps.start + 1
                if self.fixed[w] and not self.fixed[d]:
                    raise FormulaError(f"offset on {self.all_labels[w]!r} with "
                                       f"{self.all_labels[d]!r} free is not implemented: fix "
                                       "both (offset(term)) or only the decay (offset(term, 2))")
                if not self.fixed[d]:
                    free_decay = True
                    self.curved_terms.append((slice(int(pos[w]), int(pos[w]) + 2),
                                              slice(ss.start + css.start, ss.start + css.stop),
                                              curve))
                    self.kept_curved.append(j)
            # a block curved only through its terms' decays is affine once they are fixed
            affine = affine and (m["affine"] or (m.get("curves") is not None and not free_decay))
        # a finite bound on a free parameter: the bounded (curved) maximisation, never
        # the unbounded logistic regression of an affine map
        free = ~self.fixed
        self.affine = affine and not (np.isfinite(self.lower_all[free]).any()
                                      or np.isfinite(self.upper_all[free]).any())

    def _all(self, theta):
        if self.why is not None:
            raise FormulaError(f"cannot fit this model: {self.why}")
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta must have {self.n_params} value(s), got shape {theta.shape}")
        out = np.empty(len(self.fixed))
        out[self.fixed], out[~self.fixed] = self.values, theta
        return out

    def eta(self, theta) -> np.ndarray:
        th = self._all(theta)
        out = np.empty(self.n_stats)
        for ps, ss, m in self.blocks:
            out[ss] = m["eta"](th[ps])
        return out

    def jacobian(self, theta) -> np.ndarray:
        th = self._all(theta)
        J = np.zeros((self.n_stats, len(th)))
        for ps, ss, m in self.blocks:
            J[ss, ps] = m["jac"](th[ps])
        return J[:, ~self.fixed]

    def full(self, theta) -> np.ndarray:
        return self.eta(theta)

    def fixed_coefficients(self):
        """(mask over η's coordinates, all False; no values): a free-coefficient view
        with no offsets of its own."""
        return self.mask, self.offset_coef

    def affine_parts(self, theta=None):
        """(A, c) with η(θ') ≈ A θ' + c near ``theta`` (exact for affine maps); the free
        decays' columns of A are zero, so that a curved term's block is exact at the
        decays of ``theta`` (:func:`ergmfit.terms.parameter_steps.fixed_decay_matrix`)."""
        theta = np.zeros(self.n_params) if theta is None else np.asarray(theta, dtype=float)
        A = self.jacobian(theta)
        A[:, self.decay_indices()] = 0.0
        return A, self.eta(theta) - A @ theta

    def lower_bounds(self) -> np.ndarray:
        return self.lower_all[~self.fixed].copy()

    def upper_bounds(self) -> np.ndarray:
        return self.upper_all[~self.fixed].copy()

    def decay_indices(self) -> list:
        return [ps.start + 1 for ps, _, _ in self.curved_terms]

    def fixing(self, mask, coef):
        """This map with the free parameters ``mask`` fixed at ``coef`` (offset() terms)."""
        fixed = self.fixed.copy()
        at = np.flatnonzero(~self.fixed)[np.asarray(mask, dtype=bool)]
        fixed[at] = True
        vals = np.zeros(len(fixed))
        vals[self.fixed] = self.values
        vals[at] = np.clip(np.asarray(coef, dtype=float), -1e300, 1e300)
        return MapParameterisation(self.all_labels, self.stat_labels, self.blocks,
                                   self.lower_all, self.upper_all, self.why, fixed,
                                   vals[fixed])


def _affine(A, c):
    A, c = np.asarray(A, dtype=float), np.asarray(c, dtype=float)
    return {"eta": lambda th: A @ th + c, "jac": lambda th: A, "affine": True}


def _term_block(t, first_curved):
    """(map, lower, upper, why) of one term of a model with Curve() terms; its curved
    terms (``curves``) are numbered from ``first_curved`` in the model's order
    (:func:`ergmfit.terms.registry.curved_terms`)."""
    cm, fx = getattr(t, "curve_map", None), getattr(t, "fixed", None)
    if cm is not None and cm.get("inner") is None:       # Curve(): its own map and box
        return cm["map"], cm["lower"], cm["upper"], cm["why"]
    if cm is not None:            # Curve() as the identity of its curved terms' parameters
        sub = cm["inner"]
        j = [first_curved + k for k in range(len(sub.curved_terms))]
    elif fx is not None:                                   # Offset(): the free parameters
        inner, fmask, vals = fx
        sub = OffsetParameterisation(parameterisation.parameterisation_of(inner), fmask, vals)
        j = [first_curved + k for k in sub.kept_curved]
    elif getattr(t, "curve", None) is not None:          # gwesp(fixed=FALSE) and its kin
        sub, j = parameterisation.Curved([t]), [first_curved]
    else:                                                # linear: the identity
        q = len(t.labels)
        return _affine(np.eye(q), np.zeros(q)), np.full(q, -np.inf), np.full(q, np.inf), None
    m = {"eta": sub.eta, "jac": sub.jacobian, "affine": bool(getattr(sub, "affine", False)),
         "curves": [c + (k,) for c, k in zip(sub.curved_terms, j)],
         "n_curved": len(getattr(getattr(sub, "inner", sub), "curved_terms", []))}
    lower, upper = sub.lower_bounds(), sub.upper_bounds()
    if cm is not None:            # minpar/maxpar within the terms' own box
        lower, upper = np.maximum(lower, cm["lower"]), np.minimum(upper, cm["upper"])
    return m, lower, upper, None


def map_parameterisation(terms) -> MapParameterisation:
    """The map of a model with Curve() terms (see the module docstring)."""
    plabs, slabs, blocks, lower, upper, why, n_curved = [], [], [], [], [], None, 0
    for t in terms:
        m, lo, hi, w = _term_block(t, n_curved)
        why = why or w
        n_curved += m.get("n_curved", 0)
        p0, s0 = len(plabs), len(slabs)
        plabs += list(t.param_labels)
        slabs += list(t.labels)
        blocks.append((slice(p0, len(plabs)), slice(s0, len(slabs)), m))
        lower.append(lo)
        upper.append(hi)
    return MapParameterisation(plabs, slabs, blocks, np.concatenate(lower),
                               np.concatenate(upper), why)


# -- operators keeping their inner terms' curvature ---------------------------------

def curve_leaves(name, terms):
    """The blocks of ``terms`` as :class:`Curved` reads them (parameter labels, statistic
    labels, CurvedMap or None), an operator term that kept its inner curvature opened up
    into its own blocks; None when no term is curved."""
    from types import SimpleNamespace
    leaves, curved = [], False
    for t in terms:
        cm = getattr(t, "curve_map", None)
        if cm is not None and cm.get("kept"):
            for ps, ss, c in cm["inner"]._blocks:
                leaves.append(SimpleNamespace(param_labels=list(t.param_labels[ps]),
                                              labels=list(t.labels[ss]), curve=c))
            curved = True
        elif cm is not None or getattr(t, "fixed", None) is not None:
            where = ("write its terms out (For() stands for them)" if name == "For" else
                     f"put {name}() inside them instead")
            raise TermError(f"term {name}: Curve() or Offset() inside {name}() is not "
                            f"supported; {where}")
        else:
            c = getattr(t, "curve", None)
            curved = curved or c is not None
            leaves.append(SimpleNamespace(param_labels=list(t.param_labels),
                                          labels=list(t.labels), curve=c))
    return leaves if curved else None


def keep_curvature(name, term, terms, relabel=None):
    """``term`` (an operator over ``terms`` whose statistic k is a multiple of inner
    statistic k) with the inner terms' curved parameters, as statnet 4.x's operators keep
    them: ``F(~gwesp(fixed=FALSE), ...)`` has the coefficients ``F(...)~gwesp`` and
    ``F(...)~gwesp.decay`` and η(θ) of gwesp over its statistics.  ``relabel`` maps the
    inner parameter names to the operator's (as it maps the statistics' names).  The
    parameterisation is the identity map of the inner model (a ``curve_map`` with
    ``inner``, as ``Curve(map="rep")`` over curved terms): the decays stay decays to the
    estimators.  Returns ``term`` (unchanged without curved inner terms)."""
    leaves = curve_leaves(name, terms)
    if leaves is None:
        return term
    par = parameterisation.Curved(leaves)
    if par.n_stats != len(term.labels):
        raise TermError(f"term {name}: over curved terms it needs one statistic per inner "
                        f"statistic ({par.n_stats}), got {len(term.labels)}")
    names = list(par.param_labels)
    term.param_labels = list(relabel(names)) if relabel is not None else names
    term.curve_map = {"inner": par, "kept": True, "lower": par.lower_bounds(),
                      "upper": np.full(par.n_params, np.inf), "why": None,
                      "map": {"eta": par.eta, "jac": par.jacobian, "affine": False}}
    term.curve_terms = list(terms)
    return term


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
        if name in ("rbind", "cbind") and args:
            rows = [np.atleast_1d(a) for a in args]
            return np.vstack(rows) if name == "rbind" else np.column_stack(rows)
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
    with np.errstate(all="ignore"):
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


def _numeric_jacobian(f, th, q):
    h = 1e-6 * np.maximum(1.0, np.abs(th))
    return np.column_stack([(f(th + h[j] * e, q) - f(th - h[j] * e, q)) / (2 * h[j])
                            for j, e in enumerate(np.eye(len(th)))])


def _bounds(term, v, default, p, what):
    """statnet's ``minpar``/``maxpar``: a number or vector, recycled to the p parameters."""
    vals = v if isinstance(v, list) else [default if v is None else v]
    if not vals or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                           for x in vals) or np.isnan(np.asarray(vals, dtype=float)).any():
        raise TermError(f"term {term}: {what} must be a number or a vector of numbers, got "
                        f"{v!r}")
    return np.resize(np.asarray(vals, dtype=float), p)


def curve_map(term, pnames, q, map, gradient, minpar, maxpar):
    """{"map", "lower", "upper", "why"} of a Curve() term's map (``why`` set when ergmfit
    cannot fit it: the statistics still work); ``lower``/``upper`` are statnet's
    ``minpar``/``maxpar`` recycled to the parameters."""
    p = len(pnames)
    lower = _bounds(term, minpar, -np.inf, p, "minpar")
    upper = _bounds(term, maxpar, np.inf, p, "maxpar")
    if np.any(lower > upper):
        k = int(np.flatnonzero(lower > upper)[0])
        raise TermError(f"term {term}: minpar exceeds maxpar for the parameter {pnames[k]!r} "
                        f"({lower[k]:g} > {upper[k]:g})")
    out = {"map": _affine(np.zeros((q, p)), np.zeros(q)), "lower": lower, "upper": upper,
           "why": None}
    if isinstance(map, str):
        if not map or not "rep".startswith(map):
            raise TermError(f"term {term}: map {map!r} is not one of statnet's named maps "
                            "('rep')")
        out["map"] = _affine([[1.0 if k % p == j else 0.0 for j in range(p)]
                              for k in range(q)], np.zeros(q))
        return out
    if isinstance(map, (int, float, list)) and not isinstance(map, bool):
        vals = map if isinstance(map, list) else [map]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            raise TermError(f"term {term}: map must be a function, numbers or 'rep'")
        out["map"] = _affine(np.zeros((q, p)), np.resize(np.asarray(vals, dtype=float), q))
        return out
    if not isinstance(map, RCode):
        raise TermError(f"term {term}: map must be a function, numbers or 'rep', got {map!r}")
    try:
        f = r_function(map)
        c = f(np.zeros(p), q)
        A = np.column_stack([f(np.eye(p)[j], q) - c for j in range(p)]) if p else np.zeros((q, 0))
        if c.shape != (q,):
            raise ValueError(f"the map gives {c.size} value(s) for {q} statistic(s)")
        rng = np.random.default_rng(0)
        probes = [rng.uniform(0.2, 1.5, size=p) for _ in range(3)]
        affine = all(np.allclose(f(th, q), A @ th + c, rtol=1e-9, atol=1e-12) for th in probes)
        if isinstance(gradient, RCode) and gradient.text.lstrip().startswith("matrix"):
            G = np.atleast_2d(r_value(gradient.text, {}))
            if not affine:
                raise ValueError("a constant gradient matrix needs a map affine in the "
                                 "parameters")
            if G.shape != (p, q) or not np.allclose(G.T, A, rtol=1e-9, atol=1e-12):
                raise ValueError("the gradient matrix does not match the map")
        elif isinstance(gradient, RCode):
            g = r_function(gradient)

            def jac(th, g=g):
                G = np.atleast_2d(g(th, q)).reshape(p, q)
                return G.T
            for th in probes:
                if not np.allclose(jac(th), _numeric_jacobian(f, th, q), rtol=1e-4, atol=1e-6):
                    raise ValueError("the gradient function does not match the map's derivative"
                                     " (statnet's orientation: one row per parameter)")
            out["map"] = {"eta": lambda th, f=f: f(th, q), "jac": jac, "affine": affine}
            return out
        elif not affine:
            raise ValueError("the map is not affine in the parameters, so its gradient must "
                             "be a function")
    except (ValueError, SyntaxError, ZeroDivisionError, TypeError) as exc:
        out["why"] = f"term {term}: its map {map.text!r}: {exc}"
        return out
    out["map"] = _affine(A, c)
    return out


def offset_view(terms):
    """The free-coefficient view of a model with Offset() terms: the model of their inner
    terms with the fixed parameters as offsets (``Term.fixed``: inner terms, mask, values)."""
    flat, mask, coef = [], [], []
    for t in terms:
        inner, m, c = t.fixed if getattr(t, "fixed", None) is not None else ([t], None, [])
        flat += inner
        mask += list(m) if m is not None else [False] * len(t.param_labels)
        coef += list(c)
    return OffsetParameterisation(parameterisation.parameterisation_of(flat), mask, coef)


parameterisation.OPERATOR_MAPS[:] = [
    (lambda terms: any(getattr(t, "curve_map", None) is not None for t in terms),
     map_parameterisation),
    (lambda terms: any(getattr(t, "fixed", None) is not None for t in terms), offset_view),
]
