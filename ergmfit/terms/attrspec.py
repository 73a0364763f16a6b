"""statnet's nodal attribute and level specifications beyond a plain name (its
``nodal_attributes`` help page), resolved before a term is built.

* An attribute given as a one-sided formula, ``nodefactor(~Grade > 9)``,
  ``nodecov(~Grade^2)``, ``absdiff(~abs(Grade - mean(Grade)))``: the expression is
  evaluated over the node attributes (:func:`node_values`, never ``eval``) and the
  term sees a node attribute named as statnet names it, the expression's text without
  blanks (labels ``nodefactor.Grade>9.TRUE``, ``nodecov.Grade^2``).
* ``COLLAPSE_SMALLEST(attr, n, into)``: the attribute with its ``n`` least frequent levels
  merged into the level ``into`` (named as ``attr``).
* ``levels=LARGEST``, ``SMALLEST``, ``LARGEST(n)``, ``-SMALLEST(n)`` ...: the ``n`` most
  (least) frequent levels of the term's attribute (node counts; levels ranked by
  count with ties in sorted order, SMALLEST taking the first and LARGEST the last of that
  ranking, as statnet's ``test-level-select`` shows), or all the others when negated;
  the selected levels keep their sorted order (statnet's ``test-level-select``).

Only the attribute arguments of ordinary terms are rewritten (``attr``, ``attrs``, ``by``,
``on``, ``same``, ``b1attr``, ``b2attr``, ``byb1attr``, ``byb2attr``); operator terms read
their formula arguments themselves, and two-sided formulas (``mm(Race~Grade)``) are left
to the term.
"""
from __future__ import annotations

import ast
import copy
import re

import numpy as np

from ..exceptions import TermError
from ..formula import AsIs, CollapseSmallest, FormulaArg, LevelSelector, RCode
from . import registry
from ._operators import LinearKernel

ATTR_PARAMS = ("attr", "attrs", "by", "on", "same", "b1attr", "b2attr", "byb1attr", "byb2attr")
LEVEL_PARAMS = {"levels": None, "b1levels": "b1attr", "b2levels": "b2attr"}
_SKIP_FAMILIES = ("operators",)
_SKIP_TERMS = ("Prod", "Exp", "Log")


class _NodeExpr(ast.NodeVisitor):
    """Evaluates a statnet node expression (``practice == practice[1]``,
    ``wealth > median(wealth)``) over node attributes, without eval."""

    FUNCS = {"median": np.median, "mean": np.mean, "max": np.max, "min": np.min,
             "abs": np.abs, "sum": np.sum, "log": np.log, "sqrt": np.sqrt, "exp": np.exp,
             "c": lambda *a: np.concatenate([np.atleast_1d(x) for x in a]), "poly": None}

    def __init__(self, net, term):
        self.net, self.term = net, term

    def fail(self, what):
        raise TermError(f"term {self.term}: {what} is not understood in a node expression "
                        "(attribute names, numbers, strings, x[k], ==, !=, <, >, &, |, !, "
                        "+, -, *, /, ^, median/mean/min/max/abs/sum/log/sqrt)")

    def visit_Expression(self, node):
        return self.visit(node.body)

    def visit_Name(self, node):
        vals = self.net.node_attribute(node.id)
        if all(isinstance(v, (bool, np.bool_)) for v in vals):
            return vals.astype(bool)         # R's logical: TRUE/FALSE levels, a selection
        try:
            return vals.astype(float)
        except (TypeError, ValueError):
            return vals

    def visit_Constant(self, node):
        return node.value

    def visit_Subscript(self, node):
        base = np.atleast_1d(self.visit(node.value))
        k = self.visit(node.slice)
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, float, np.integer,
                                                                 np.floating)) \
                or not float(k).is_integer() or not 1 <= k <= len(base):
            raise TermError(f"term {self.term}: the index in x[k] of a node expression must "
                            f"be a whole number from 1 to {len(base)}, got {_py(k)!r}")
        return base[int(k) - 1]          # R indexes from 1

    def visit_Call(self, node):
        if not isinstance(node.func, ast.Name) or node.func.id not in self.FUNCS:
            self.fail("a function call")
        if node.func.id == "poly":
            return self._poly(node)
        if node.keywords:
            self.fail("a named argument")
        return self.FUNCS[node.func.id](*[self.visit(a) for a in node.args])

    def _poly(self, node):
        """R's poly(x, degree, raw=TRUE): the columns x, x^2, ..., x^degree (an n x degree
        matrix; R's default orthogonal polynomials are not computed)."""
        kw = {k.arg: k.value for k in node.keywords}
        args = list(node.args)
        raw = kw.pop("raw", args[2] if len(args) > 2 else None)
        degree = kw.pop("degree", args[1] if len(args) > 1 else None)
        if kw or not args or raw is None or not (isinstance(raw, ast.Name) and raw.id in
                                                  ("TRUE", "T")):
            self.fail("poly() other than poly(x, degree, raw=TRUE)")
        x = np.asarray(self.visit(args[0]), dtype=float)
        d = 1 if degree is None else self.visit(degree)
        if isinstance(d, bool) or not float(d).is_integer() or not 1 <= d <= 10:
            self.fail("this poly() degree")
        return np.column_stack([x ** k for k in range(1, int(d) + 1)])

    def visit_Compare(self, node):
        left = self.visit(node.left)
        out = None
        for op, comp in zip(node.ops, node.comparators):
            right = self.visit(comp)
            fn = {ast.Eq: np.equal, ast.NotEq: np.not_equal, ast.Lt: np.less,
                  ast.LtE: np.less_equal, ast.Gt: np.greater, ast.GtE: np.greater_equal}
            if type(op) not in fn:
                self.fail("this comparison")
            r = fn[type(op)](left, right)
            out = r if out is None else out & r
            left = right
        return out

    def visit_BinOp(self, node):
        a, b = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.BitAnd):
            return np.logical_and(a, b)
        if isinstance(node.op, ast.BitOr):
            return np.logical_or(a, b)
        ops = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide,
               ast.Pow: np.power}
        if type(node.op) not in ops:
            self.fail("this operator")
        return ops[type(node.op)](a, b)

    def visit_UnaryOp(self, node):
        v = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            return np.logical_not(v)
        if isinstance(node.op, ast.USub):
            return -v
        self.fail("this operator")

    def generic_visit(self, node):
        self.fail(type(node).__name__)


def node_values(net, text, term):
    """The values of a statnet node expression (``Grade > 9``, ``Grade^2``,
    ``abs(Grade - mean(Grade))``) over the nodes, evaluated without eval: an array,
    or a scalar where the expression names no attribute."""
    py = re.sub(r"!(?!=)", " not ", text).replace("&&", "&").replace("||", "|")
    py = py.replace("^", "**")
    try:
        tree = ast.parse(py.strip(), mode="eval")
        return _NodeExpr(net, term).visit(tree)
    except (SyntaxError, ValueError) as exc:
        if isinstance(exc, TermError):
            raise
        raise TermError(f"term {term}: cannot read the node expression {text!r}") from None
    except (RecursionError, MemoryError):
        raise TermError(f"term {term}: the node expression {_short(text)!r} is nested too "
                        "deeply to be read (hundreds of operators in a chain)") from None


def _short(text, n=60):
    return text if len(text) <= n else text[:n] + "..."


def _with_attr(net, name, values):
    """A shallow copy of ``net`` with one more node attribute."""
    out = copy.copy(net)
    out.node_attrs = dict(net.node_attrs)
    out.node_attrs[name] = list(values)
    return out


def _py(v):
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.integer):
        return int(v)
    return v


_FUNCTION = re.compile(r"^\s*function\s*\(\s*([A-Za-z_.][A-Za-z0-9_.]*)\s*(?:,[^)]*)?\)\s*(.*)$", re.S)


def _vattr_refs(text, net_names):
    """``x %v% "a"`` / ``get.vertex.attribute(x, "a")`` (x the network) -> ``a``;
    ``network.size(x)`` -> ``n``."""
    names = "|".join(re.escape(v) for v in net_names)
    text = re.sub(r"(?:%s)\s*%%v%%\s*(['\"])([^'\"]*)\1" % names, r"\2", text)
    text = re.sub(r"get\.vertex\.attribute\(\s*(?:%s)\s*,\s*(['\"])([^'\"]*)\1\s*\)" % names,
                  r"\2", text)
    return text


_AGGREGATES = ("median", "mean", "max", "min", "sum")


def _mode_only(net, text, term, mode):
    """The values of node expression ``text`` when a two-mode term reads only ``mode``'s
    nodes and an attribute it names is missing on the other mode only (statnet evaluates
    the expression over every node and keeps that mode's values, so e.g. ``b1cov(~age)``
    does not see the other mode's NAs): evaluated over ``mode``'s nodes, None elsewhere.
    None when that does not apply (the ordinary evaluation then runs, or raises)."""
    if mode is None:
        return None
    from ..network.values import is_missing
    try:
        tree = ast.parse(re.sub(r"!(?!=)", " not ", text).replace("^", "**").strip(),
                         mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & set(net.node_attrs)
    n1 = net.bipartite
    span = range(0, n1) if mode == 1 else range(n1, net.n)
    miss = {a: [i for i, v in enumerate(net.node_attrs[a]) if is_missing(v)] for a in names}
    if not any(miss.values()) or any(i in span for m in miss.values() for i in m):
        return None
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name)}
    if calls & set(_AGGREGATES) or any(isinstance(n, ast.Subscript) for n in ast.walk(tree)):
        bad = sorted(a for a, m in miss.items() if m)
        raise TermError(f"term {term}: node attribute(s) {bad} are missing on mode "
                        f"{3 - mode}'s nodes; statnet evaluates {text!r} over every node, so "
                        f"its {', '.join(sorted(calls & set(_AGGREGATES))) or 'indexing'} "
                        f"would be NA: give those nodes values, or compute the attribute "
                        f"for mode {mode} first")
    vals = np.asarray(node_values(net._mode_view(mode), text, term))
    if vals.ndim == 0:
        vals = np.repeat(vals, len(span))
    if vals.shape != (len(span),):
        raise TermError(f"term {term}: the attribute expression {text!r} must give one value "
                        f"per node (a matrix with values missing on the other mode is not "
                        f"supported)")
    full = [None] * net.n
    for i, v in zip(span, vals):
        full[i] = _py(v)
    return full


def _attr_values(net, spec, term, mode=None):
    """(name, values) of an attribute specification that is not a plain name (``mode``:
    the two-mode term's mode, see :func:`_mode_only`)."""
    if isinstance(spec, RCode) and _FUNCTION.match(spec.text):
        # function(x) <expression of x %v% "attr">: the expression over the attributes
        arg, body = _FUNCTION.match(spec.text).groups()
        body = _vattr_refs(body, [arg])
        body = re.sub(r"network\.size\(\s*%s\s*\)" % re.escape(arg), str(net.n), body)
        if re.search(r"(?<![A-Za-z0-9_.])%s(?![A-Za-z0-9_.])" % re.escape(arg), body):
            raise TermError(f"term {term}: the attribute function {spec.text!r} uses the "
                            "network other than through x %v% \"name\"; write it as a "
                            "formula over the node attributes, e.g. ~Grade > 9")
        spec = FormulaArg(body.strip())
    if isinstance(spec, FormulaArg):
        text = _vattr_refs(spec.text, [".nw", "."])
        text = re.sub(r"network\.size\(\s*(?:\.nw|\.)\s*\)", str(net.n), text)
        only = _mode_only(net, text, term, mode)
        if only is not None:
            return spec.compact, only
        vals = node_values(net, text, term)
        arr = np.asarray(vals)
        if arr.ndim == 0:
            arr = np.repeat(arr, net.n)
        if arr.ndim == 2 and arr.shape[0] == net.n:       # a matrix: one attribute per column
            return spec.compact, [[_py(v) for v in arr[:, k]] for k in range(arr.shape[1])]
        if arr.shape != (net.n,):
            raise TermError(f"term {term}: the attribute expression {spec.text!r} must give "
                            f"one value per node (got shape {arr.shape})")
        return spec.compact, [_py(v) for v in arr]
    if isinstance(spec, CollapseSmallest):
        name, vals = (spec.attr, net.node_attribute(spec.attr)) if isinstance(spec.attr, str) \
            else _attr_values(net, spec.attr, term)
        vals = [_py(v) for v in vals]
        uniq = sorted(set(vals), key=lambda v: (str(type(v)), v))
        counts = [sum(1 for v in vals if v == u) for u in uniq]
        order = sorted(range(len(uniq)), key=lambda k: counts[k])      # stable: ties by level
        small = {uniq[k] for k in order[:spec.n]}
        into = spec.into
        if isinstance(into, str) != all(isinstance(v, str) for v in vals):
            raise TermError(f"term {term}: COLLAPSE_SMALLEST's new level {into!r} must be of "
                            f"the attribute's type (statnet)")
        return name, [into if v in small else v for v in vals]
    if isinstance(spec, RCode):
        raise TermError(f"term {term}: the attribute {spec.text!r} is not understood; give "
                        "a name, a formula over the node attributes (~Grade > 9) or "
                        "function(x) <expression of x %v% \"name\">")
    return None


def _mode(net, term, param):
    """The mode (1 or 2) whose nodes a two-mode term's levels describe, else None."""
    if net.bipartite is None:
        return None
    if param == "b1levels" or term.startswith("b1") or term.startswith("gwb1"):
        return 1
    if param == "b2levels" or term.startswith("b2") or term.startswith("gwb2"):
        return 2
    return None


def _select(net, term, param, attr, sel):
    """statnet's LARGEST/SMALLEST selection as the level values (strings) it keeps."""
    from .dyadic import _levels
    mode = _mode(net, term, param)
    lv = _levels(net if mode is None else net._mode_view(mode), attr, term)
    counts = np.bincount(np.asarray(lv.code), minlength=len(lv.labels))
    present = [k for k in range(len(lv.labels)) if counts[k] > 0]
    ranked = sorted(present, key=lambda k: counts[k])     # stable: ties in level order
    chosen = set(ranked[:sel.n] if sel.kind == "SMALLEST" else ranked[::-1][:sel.n][::-1])
    keep = [k for k in present if (k in chosen) != sel.negate]
    if not keep:
        raise TermError(f"term {term}: {param}={'-' if sel.negate else ''}{sel.kind}"
                        f"({sel.n}) leaves no level")
    return [lv.labels[k] for k in keep]


def resolve(net, spec, bound, build):
    """(net, bound) with the attribute and level specifications of ``bound`` made plain:
    derived attributes added to a copy of ``net`` and named, LARGEST/SMALLEST replaced by
    the level values they select.  An attribute expression giving a matrix returns the
    Term itself: ``build`` (registry's builder) once per column, stacked."""
    if spec.family in _SKIP_FAMILIES or spec.name in _SKIP_TERMS:
        return net, bound
    out = None
    for p in ATTR_PARAMS:
        v = bound.get(p)
        if isinstance(v, (FormulaArg, CollapseSmallest, RCode)):
            if isinstance(v, FormulaArg) and v.lhs is not None:
                continue
            got = _attr_values(net, v, spec.name, _mode(net, spec.name, p))
            if got is None:
                continue
            out = dict(bound) if out is None else out
            if got[1] and isinstance(got[1][0], list):
                # a matrix (poly(x, 2, raw=TRUE)): the term once per column, the columns
                # named <expression>.1, <expression>.2, ... as R names a matrix's columns
                names = [f"{got[0]}.{k + 1}" for k in range(len(got[1]))]
                for name, col in zip(names, got[1]):
                    net = _with_attr(net, name, col)
                parts = [build(spec, net, dict(out, **{p: name})) for name in names]
                term = registry.Term(spec.name, [lab for t in parts for lab in t.labels],
                                     LinearKernel([t.kernel for t in parts], None),
                                     empty=np.concatenate([t.empty for t in parts]),
                                     dyad_independent=all(t.dyad_independent for t in parts))
                term.args = parts[0].args
                return term
            net = _with_attr(net, got[0], got[1])
            out[p] = got[0]
    bound = out if out is not None else bound
    for p, owner in LEVEL_PARAMS.items():
        v = bound.get(p)
        if not isinstance(v, LevelSelector):
            continue
        attr = bound.get(owner) if owner else next(
            (bound.get(a) for a in ("attr", "by", "same", "attrs", "on") if bound.get(a)), None)
        if not isinstance(attr, (str, list)):
            raise TermError(f"term {spec.name}: {p}={v.kind} needs the term's attribute")
        bound = dict(bound)
        bound[p] = AsIs(_select(net, spec.name, p, attr, v))
    return net, bound


registry.RESOLVE = resolve
