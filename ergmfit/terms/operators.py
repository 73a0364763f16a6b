"""Operator terms: terms made of other terms (statnet ``ergm`` 4.4 operators).

``F(~f, ~filter)``, ``NodematchFilter(~f, attr)``, ``S(~f, ~nodes)``, ``Symmetrize(~f, rule)``
evaluate the terms of ``f`` on a derived network (the ties passing a dyadic filter, the
subgraph of some nodes, the symmetrised network) kept beside the model's network and
updated on every toggle (:class:`._operators.SubnetKernel`).  ``Sum``, ``Label``,
``Offset``, ``Passthrough``, ``Curve``/``Parametrise``, ``For`` and the interaction
``a:b`` (``a*b`` = a + b + a:b; built in :mod:`.interaction`) combine the inner statistics
linearly or by products.

What ergmfit gives (statnet's labels and values of ``summary()``):

* ``Offset(~f, coef, which)`` gives the statistics of ``f`` (labels of ``f``) and fixes the
  parameters ``which`` at ``coef``: the model's coefficients are the free ones (statnet's),
  fitted through :class:`~.offsets.OffsetParameterisation` as ``offset()`` terms are;
  ``Curve``/``Parametrise`` fits its parameters through its map η(θ) (:mod:`.curvemap`).
* ``B(~f, form)``: statnet defines it for valued networks only; on ergmfit's binary
  networks it is ``f`` itself (form ``sum``/``nonzero``, or a form keeping value-1 ties) or
  ``f`` on the empty network (a form value 1 fails), labels ``B(<form>)~<label>``.
* ``Sum``/``Prod`` weights (a formula's left-hand side): a number, a vector (one per
  statistic), ``matrix(...)`` (premultiplies the statistics), ``"sum"`` or ``"mean"``.
* ``Exp``, ``Log``, ``Prod``: see .nonlinear and .composed.
"""
from __future__ import annotations

import re

import numpy as np

from ..exceptions import TermError
from ..formula import AsIs, FormulaArg, RCode, RName, compact_text, parse_formula
from ._operators import SubnetKernel
from .stacking import stack
from .curvemap import (curve_leaves, curve_map, keep_curvature,  # also registers the
                       r_value)                 # Offset()/Curve() maps
from .parameterisation import Curved
from .offsets import offset_flags, propagate_offsets, split_offsets
from .dyadic import _levels
from .macros import expand_for, for_texts
from .attrspec import node_values
from .registry import BOTH, DIRECTED, Param, Term, as_bool, as_float, build_term, format_number, \
    register

FAMILY = "operators"


# -- helpers -------------------------------------------------------------------------

def _formula(term, value, what="formula"):
    if not isinstance(value, FormulaArg):
        raise TermError(f"term {term}: the {what} must be a formula such as ~edges + triangle, "
                        f"got {value!r}")
    return value


def wrapped_offsets(name, term, terms):
    """``offset()`` inside the formula of an operator whose statistics are its inner
    terms' statistics one for one (``B``, ``F``, ``S``, ``Symmetrize``, ``Label``,
    ``Passthrough``, ``NodematchFilter``; tergm's ``Form``, ``Persist``, ``Diss``, ``Cross``,
    ``Change``: :mod:`.temporal`): the operator's coefficient is an offset where the
    inner term's is, as statnet's operators built on ``wrap.ergm_model`` (which "wraps
    offset indicators" of the submodel) propagate it (statnet/ergm issue 320:
    ``Passthrough(~edges + offset(triangle))`` gives ``offset(Passthrough~triangle)``).
    The inner terms were built with ``build_formula(..., offsets="keep")``; through
    :func:`.offsets.propagate_offsets` with the identity weights (``Sum()`` of one formula's
    machinery).  Returns ``term``."""
    p = sum(len(t.labels) for t in terms)
    return propagate_offsets(name, term, terms, np.eye(p), 1)


def formula_calls(farg):
    """The parsed terms of a formula argument, each ``offset(term)`` read as ``term`` (what
    an operator checks before :func:`build_formula` builds them)."""
    text, offs = split_offsets(farg.text)
    return parse_formula(text) if offs else farg.terms


def build_formula(net, farg, offsets="warn"):
    """The Terms of a formula argument, built against ``net`` (``For()`` written out first,
    as in the model's formula: .macros).  A term wrapped in ``offset()`` gets
    ``offset_flag`` (True, or its ``which`` text); an operator that does not propagate it
    (``offsets="warn"``) warns (see .offsets.propagate_offsets); one that does
    (``offsets="keep"``: :func:`wrapped_offsets`, ``Sum()``) reads the flags."""
    if offsets not in ("warn", "keep"):
        raise ValueError(f"offsets must be 'warn' or 'keep', got {offsets!r}")
    text, offs = split_offsets(farg.text)
    calls = parse_formula(text) if offs else farg.terms
    calls, flags = expand_for(net, calls, offset_flags(calls, offs))
    terms = [build_term(net, c.name, c.args, c.kwargs) for c in calls]
    if not any(flags):
        return terms
    if offsets == "warn":
        from ..utils.validation import warn
        warn(f"offset() inside an operator's formula ({farg.compact}) is not "
             "propagated by this operator: its coefficient is estimated; to fix it, write "
             "offset() around the operator (offset(Op(~term, ...)), offset(Op(...), which)) "
             "or use an operator that propagates it (B, F, S, Symmetrize, Label, "
             "Passthrough, NodematchFilter, Sum of one formula, Form, Persist, Diss, Cross, "
             "Change)")
    for t, flag in zip(terms, flags):
        t.offset_flag = flag
    return terms


def _dyad_values(net, farg_text, term):
    """Value of a one-statistic dyad-independent term (e.g. ``absdiff("x")``) on every dyad,
    as an n x n array."""
    calls = parse_formula(farg_text)
    if len(calls) != 1:
        raise TermError(f"term {term}: the filter must be one term, got {farg_text!r}")
    t = build_term(net, calls[0].name, calls[0].args, calls[0].kwargs)
    if not t.dyad_independent or len(t.labels) != 1:
        raise TermError(f"term {term}: the filter must be a dyad-independent term with one "
                        f"statistic, got {farg_text!r}")
    from ._ergm import ERGMModel
    from ..network import NetworkState
    m = ERGMModel(NetworkState(net.n, net.directed), [t.kernel])
    vals = np.zeros((net.n, net.n))
    for i in range(net.n):
        for j in range(net.n):
            if i != j and (net.directed or i < j):
                vals[i, j] = m.dyad_change_stats(i, j)[0]
    if not net.directed:
        vals = vals + vals.T
    return vals


_COMPARE = re.compile(r"^(.*?)(==|!=|>=|<=|>|<)\s*(-?[0-9.eE+]+)\s*$", re.S)


def dyad_filter(net, text, term):
    """Boolean n x n mask of a statnet filter formula: ``term``, ``!term``, ``term > v``..."""
    text = text.strip()
    negate = False
    while text.startswith("!"):
        negate = not negate
        text = text[1:].strip()
    m = _COMPARE.match(text)
    if m:
        vals = _dyad_values(net, m.group(1), term)
        v = float(m.group(3))
        mask = {"==": vals == v, "!=": vals != v, ">=": vals >= v, "<=": vals <= v,
                ">": vals > v, "<": vals < v}[m.group(2)]
    else:
        mask = _dyad_values(net, text, term) != 0
    if negate:
        mask = ~mask
    np.fill_diagonal(mask, False)
    return mask


def _subnet_term(net, name, prefix, inner_net, terms, mode, **kw):
    labels = [f"{prefix}~{lab}" for t in terms for lab in t.labels]
    kernel = SubnetKernel([t.kernel for t in terms], mode, net.n, aux_n=inner_net.n,
                          aux_directed=inner_net.directed,
                          empty=np.concatenate([t.empty for t in terms]), **kw)
    true = np.concatenate([t.on_empty() for t in terms])
    # over a nonlinear term the kernel gives its exact values (0 declared on the empty graph)
    term = Term(name, labels, kernel, empty=np.zeros(len(true)) if kernel.exact_total else true,
                true_empty=true if kernel.exact_total else None,
                dyad_independent=mode == "filter" and all(t.dyad_independent for t in terms))
    term = keep_curvature(name, term, terms, lambda labs: [f"{prefix}~{lab}" for lab in labs])
    return wrapped_offsets(name, term, terms)


# -- filters and subgraphs -------------------------------------------------------------

@register("F", kinds=BOTH, params=[Param("formula"), Param("filter")], family=FAMILY)
def f_operator(net, formula, filter):
    """Filter: the terms of ``formula`` on the network of the ties whose dyad passes the
    filter, a dyad-independent term (``~nodematch("a")``, ``~!nodematch("a")``,
    ``~absdiff("x") > 20``). Labels ``F(<filter>)~<label>``."""
    f = _formula("F", formula)
    flt = _formula("F", filter, "filter")
    mask = dyad_filter(net, flt.text, "F")
    terms = build_formula(net, f, "keep")
    return _subnet_term(net, "F", f"F({flt.compact})", net, terms, "filter",
                        mask=mask.astype(np.uint8).ravel())


@register("NodematchFilter", kinds=BOTH,
          params=[Param("formula"), Param("attrname", None), Param("attr", None)],
          family=FAMILY)
def nodematch_filter(net, formula, attrname=None, attr=None):
    """The terms of ``formula`` on the ties between nodes of the same level of ``attrname``
    (statnet's argument name; ``attr=`` is accepted too), one name or several (labels
    ``NodematchFilter(<attrname>)~<label>``)."""
    if (attrname is None) == (attr is None):
        raise TermError("term NodematchFilter: give the attribute once, as attrname= (statnet's "
                        "name) or the second argument")
    attr = attrname if attr is None else attr
    f = _formula("NodematchFilter", formula)
    lv = _levels(net, attr, "NodematchFilter")
    code = np.asarray(lv.code)
    mask = code[:, None] == code[None, :]
    np.fill_diagonal(mask, False)
    terms = build_formula(net, f, "keep")
    return _subnet_term(net, "NodematchFilter", f"NodematchFilter({lv.name})", net, terms,
                        "filter", mask=mask.astype(np.uint8).ravel())


def node_selection(net, text, term):
    """Boolean vector of the nodes a statnet node expression selects: TRUE/FALSE per node,
    or node numbers (1-based, as statnet's ``S(~edges, ~c(2, 5, 7))``)."""
    m = re.fullmatch(r"\s*I\((.*)\)\s*", text, re.S)
    if m:               # I(...): as is (node numbers of the whole network)
        text = m.group(1)
    vals = np.atleast_1d(np.asarray(node_values(net, text, term)))
    if vals.dtype != bool and vals.ndim == 1 and np.issubdtype(vals.dtype, np.number):
        if not (np.all(np.mod(vals, 1) == 0) and np.all(vals >= 1) and np.all(vals <= net.n)):
            raise TermError(f"term {term}: the node numbers {text!r} must be whole numbers "
                            f"from 1 to {net.n}")
        sel = np.zeros(net.n, dtype=bool)
        sel[vals.astype(np.int64) - 1] = True
        return sel
    sel = vals.astype(bool)
    if sel.shape != (net.n,):
        raise TermError(f"term {term}: the node expression {text!r} must give one TRUE/FALSE "
                        "per node")
    return sel


def subnetwork(net, keep):
    """The subgraph of the nodes ``keep`` (sorted indices), with their attributes."""
    from ..network import Network
    index = -np.ones(net.n, dtype=np.int64)
    index[keep] = np.arange(len(keep))
    ties = net.ties[(index[net.ties[:, 0]] >= 0) & (index[net.ties[:, 1]] >= 0)] \
        if len(net.ties) else net.ties
    return Network(len(keep), index[ties] if len(ties) else ties, net.directed,
                   labels=[net.labels[k] for k in keep],
                   node_attrs={a: [v[k] for k in keep] for a, v in net.node_attrs.items()})


@register("S", kinds=BOTH, params=[Param("formula"), Param("attrs")], family=FAMILY)
def s_operator(net, formula, attrs):
    """Subgraph: the terms of ``formula`` on the subgraph induced by the nodes the node
    expression selects (``~practice == practice[1]``, ``~wealth > median(wealth)``); with
    ``tails ~ heads`` (``I(c(1, 2)) ~ I(c(3, 4))``) the two-mode network of the ties from
    the tails to the heads. Labels ``S(<expression>)~<label>``."""
    f = _formula("S", formula)
    # a name: that (logical) node attribute selects, as statnet's attribute specifications
    expr = _formula("S", FormulaArg(attrs) if isinstance(attrs, str) else attrs,
                    "node expression")
    if expr.lhs is not None or net.bipartite is not None:
        return _s_two_mode(net, f, expr)
    sel = node_selection(net, expr.text, "S")
    keep = np.flatnonzero(sel)
    if len(keep) < 2:
        raise TermError(f"term S: the expression {expr.text!r} selects fewer than two nodes")
    sub = subnetwork(net, keep)
    nmap = np.full(net.n, -1, dtype=np.intc)
    nmap[keep] = np.arange(len(keep), dtype=np.intc)
    terms = build_formula(sub, f, "keep")
    return _subnet_term(net, "S", f"S({expr.compact})", sub, terms, "sub", nmap=nmap)


def _lhs_text(value):
    """The R text of the tails of ``S(f, tails ~ heads)``: node numbers (c(...),
    I(c(...))), TRUE/FALSE per node, or a (logical) node attribute's name."""
    if isinstance(value, str):
        return str(value)
    vals = list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
    if vals and all(isinstance(v, (bool, np.bool_)) for v in vals):
        return "c(" + ",".join("TRUE" if v else "FALSE" for v in vals) + ")"
    if not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
               for v in vals):
        raise TermError(f"term S: the tails (left of ~) must be node numbers, TRUE/FALSE per "
                        f"node or an attribute name, got {value!r}")
    text = "c(" + ",".join(format_number(v) for v in vals) + ")" if len(vals) > 1 \
        else format_number(vals[0])
    return f"I({text})" if isinstance(value, AsIs) else text


def _lhs_selection(net, value):
    """The tail set of ``S(f, tails ~ heads)`` and its R text (for the label)."""
    text = _lhs_text(value)
    if isinstance(value, list) and value and all(isinstance(v, (bool, np.bool_)) for v in value) \
            and len(value) != net.n:
        raise TermError(f"term S: the tail selection must give one TRUE/FALSE per node "
                        f"({net.n}), got {len(value)}")
    return node_selection(net, text, "S"), text


def _mode_selection(net, text, mode):
    """On a two-mode network, the nodes of ``mode`` (1: the tails, 2: the heads) the
    selection ``text`` picks, evaluated on that mode's nodes alone (statnet's help: logical
    vectors are recycled to the size of the bipartition, indices index it, negative ones
    deselect): TRUE/FALSE per node of the mode, indices among them, or an attribute
    expression; a boolean vector over the network's nodes."""
    m = re.fullmatch(r"\s*I\((.*)\)\s*", text, re.S)
    nodes = np.arange(net.bipartite) if mode == 1 else np.arange(net.bipartite, net.n)
    text = m.group(1) if m else text
    for r, py in (("TRUE", "True"), ("FALSE", "False")):    # R's logicals (not attributes)
        text = text if r in net.node_attrs else re.sub(rf"(?<![\w.'\"]){r}(?![\w.'\"])", py, text)
    vals = np.atleast_1d(np.asarray(node_values(subnetwork(net, nodes), text, "S")))
    k = len(nodes)
    if vals.dtype == bool and 1 <= len(vals) <= k:         # recycled, as R's rep_len
        sel = np.resize(vals, k)
    elif vals.dtype != bool and np.issubdtype(vals.dtype, np.number) and \
            np.all(np.mod(vals, 1) == 0) and (np.all((vals >= 1) & (vals <= k))
                                              or np.all((vals <= -1) & (vals >= -k))):
        sel = np.zeros(k, dtype=bool) if vals[0] > 0 else np.ones(k, dtype=bool)
        sel[np.abs(vals).astype(np.int64) - 1] = vals[0] > 0
    else:
        raise TermError(f"term S: on a two-mode network the {('tails', 'heads')[mode - 1]} "
                        f"{text!r} must select among the {k} nodes of mode {mode}: TRUE/FALSE "
                        f"per node of the mode (recycled), indices 1..{k} (negative: all but "
                        "those) or an attribute expression")
    out = np.zeros(net.n, dtype=bool)
    out[nodes[sel]] = True
    return out


def _s_two_mode(net, f, expr):
    """``S(f, tails ~ heads)``: the terms of ``f`` on the undirected two-mode network of the
    ties from the tails (mode 1) to the heads (mode 2) -- of a directed network the ties
    tail -> head, of an undirected one the ties between the two sets (statnet's help: an
    undirected bipartite graph is induced when the two sets differ).  Each set keeps the
    network's node order.  Identical sets are the one-sided form.  On a two-mode network
    the tails are nodes of mode 1 and the heads of mode 2, each selection read on its
    mode's nodes (a one-sided ``~A`` is ``A ~ A``, statnet's rule)."""
    if net.bipartite is not None:
        ltext = expr.text if expr.lhs is None else _lhs_text(expr.lhs)
        tails, heads = _mode_selection(net, ltext, 1), _mode_selection(net, expr.text, 2)
        label = (f"S({expr.compact})" if expr.lhs is None else
                 f"S({compact_text(ltext)}~{expr.compact})")
        return _s_bipartite(net, f, tails, heads, label)
    tails, ltext = _lhs_selection(net, expr.lhs)
    heads = node_selection(net, expr.text, "S")
    label = f"S({compact_text(ltext)}~{expr.compact})"
    if np.array_equal(tails, heads):
        expr1 = FormulaArg(expr.text)
        return s_operator(net, FormulaArg(f.text), expr1)
    if np.any(tails & heads):
        raise TermError("term S: the tail and head node sets overlap (they must be equal or "
                        "disjoint)")
    return _s_bipartite(net, f, tails, heads, label)


def _s_bipartite(net, f, tails, heads, label):
    T, H = np.flatnonzero(tails), np.flatnonzero(heads)
    if len(T) == 0 or len(H) == 0:
        raise TermError("term S: the tail or the head node set is empty")
    from ..network import Network
    nt = len(T)
    nmap = np.full(net.n, -1, dtype=np.intc)
    nmap[T] = np.arange(nt, dtype=np.intc)
    hmap = np.full(net.n, -1, dtype=np.intc)
    hmap[H] = nt + np.arange(len(H), dtype=np.intc)
    ties = []
    for i, j in net.ties.tolist():
        if nmap[i] >= 0 and hmap[j] >= 0:
            ties.append((nmap[i], hmap[j]))
        elif not net.directed and nmap[j] >= 0 and hmap[i] >= 0:
            ties.append((nmap[j], hmap[i]))
    keep = np.concatenate([T, H])
    sub = Network(len(keep), np.array(ties, dtype=np.int64).reshape(-1, 2), False,
                  labels=[net.labels[k] for k in keep], bipartite=nt,
                  node_attrs={a: [v[k] for k in keep] for a, v in net.node_attrs.items()})
    terms = build_formula(sub, f, "keep")
    return _subnet_term(net, "S", label, sub, terms, "bip", nmap=nmap, hmap=hmap)


@register("Symmetrize", kinds=DIRECTED, aliases=("Symmetrise",),
          params=[Param("formula"), Param("rule", "weak")], family=FAMILY)
def symmetrize(net, formula, rule="weak"):
    """The terms of ``formula`` on the undirected network of ``rule``: "weak" (i–j if i→j or
    j→i), "strong" (both), "upper" / "lower" (the arcs i→j with i < j / i > j). Labels
    ``Symmetrize(<rule>)~<label>``."""
    f = _formula("Symmetrize", formula)
    if rule not in ("weak", "strong", "upper", "lower"):
        raise TermError(f"term Symmetrize: rule must be 'weak', 'strong', 'upper' or 'lower', "
                        f"got {rule!r}")
    from ..network import Network
    und = Network(net.n, np.zeros((0, 2), dtype=np.int64), False, labels=net.labels,
                  node_attrs=net.node_attrs)
    terms = build_formula(und, f, "keep")
    return _subnet_term(net, "Symmetrize", f"Symmetrize({rule})", und, terms, "sym", rule=rule)


# -- linear combinations ---------------------------------------------------------------

def weighted_formulas(net, formulas, term, presets, what, sizes=None):
    """The terms of a list of formulas with left-hand sides (statnet's Sum/Prod) and the
    matrix W combining their statistics: none -> the identity, a number -> that times the
    identity, a vector -> the diagonal matrix, a matrix (``matrix(...)``) -> itself,
    presets[0] -> one row of 1s, presets[1] -> one row of 1/p.  ``sizes`` (a list) gets
    each formula's number of terms."""
    items = formulas if isinstance(formulas, list) else [formulas]
    blocks, terms, width = [], [], None
    for it in items:
        f = _formula(term, it)
        ts = build_formula(net, f, "keep" if term == "Sum" else "warn")
        p = sum(len(t.labels) for t in ts)
        w = f.lhs
        if w is None:
            W = np.eye(p)
        elif isinstance(w, str) and w in presets:
            W = np.full((1, p), 1.0 / p if w == presets[1] else 1.0)
        elif isinstance(w, (int, float)) and not isinstance(w, bool):
            W = float(w) * np.eye(p)
        elif (isinstance(w, list) and w
              and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in w)):
            if len(w) != p:          # statnet: "corresponding network statistics"
                raise TermError(f"term {term}: the {what} vector has {len(w)} value(s) for "
                                f"{p} statistic(s)")
            W = np.diag(np.asarray(w, dtype=float))
        elif isinstance(w, RCode):   # matrix(...) / rbind(...): premultiplies the statistics
            try:
                W = np.atleast_2d(np.asarray(r_value(w.text, {}), dtype=float))
            except (ValueError, SyntaxError, TypeError, ZeroDivisionError) as exc:
                raise TermError(f"term {term}: the {what} {w.text!r}: {exc}") from None
            if W.shape[1] != p or not np.all(np.isfinite(W)):
                raise TermError(f"term {term}: the {what} matrix is {W.shape[0]} x "
                                f"{W.shape[1]}; it needs {p} finite column(s), one per "
                                "statistic")
        else:
            raise TermError(f"term {term}: the {what} {w!r} is not supported (a number, a "
                            f"vector, a matrix, {presets[0]!r} or {presets[1]!r})")
        if width is not None and W.shape[0] != width:
            raise TermError(f"term {term}: the formulas must give equally many statistics")
        width = W.shape[0]
        blocks.append(W)
        terms.extend(ts)
        if sizes is not None:
            sizes.append(len(ts))
    return terms, np.hstack(blocks)


@register("Sum", kinds=BOTH, params=[Param("formulas"), Param("label", None)], family=FAMILY)
def sum_operator(net, formulas, label=None):
    """Weighted sum of formulas with equally many statistics: ``Sum(list(~f, 2 ~ g))``
    (weight 2), ``Sum("mean" ~ f)`` / ``Sum("sum" ~ f)`` (one statistic). Labels
    ``Sum~<label>`` (one statistic) or ``Sum~<label><k>``."""
    sizes = []
    terms, W = weighted_formulas(net, formulas, "Sum", ("sum", "mean"), "weight", sizes)
    groups = formula_labels(terms, sizes)
    items = formulas if isinstance(formulas, list) else [formulas]
    term = stack("Sum", terms, sum_labels("Sum", label, groups, W.shape[0], "Sum~"), W)
    first = terms[:sizes[0]]
    pgroups = [[lab for t in first for lab in t.param_labels]]
    keep_first_curvature("Sum", term, first, W.shape[0], lambda names: sum_labels(
        "Sum", label, pgroups, len(names), "Sum~"), vector_label=isinstance(label, list)
        and len(label) > 1)
    return propagate_offsets("Sum", term, terms, W, len(items))


def keep_first_curvature(name, term, first, width, relabel, vector_label=False):
    """Sum() (and Prod(), statnet's Exp(~Sum(~Log(f)))) over a curved first formula: its
    help says "Curved models are supported ... the first model's etamap will be used,
    overwriting the others": the coefficients are the first formula's parameters
    (``relabel`` names them), η(θ) its map over the ``width`` statistics of ``term`` (so
    they must be as many as that formula's).  Returns ``term``."""
    if curve_leaves(name, first) is None:
        return term
    p1 = sum(len(t.labels) for t in first)
    if width != p1:
        curved = ", ".join(t.name for t in first if curve_leaves(name, [t]))
        raise TermError(f"term {name}: the first formula is curved ({curved}): statnet uses "
                        f"its map η(θ) for {name}'s statistics, so {name} must give one "
                        f"statistic per statistic of that formula ({p1}), not {width}; use "
                        "a weight per statistic, or fixed=TRUE")
    if vector_label:
        raise TermError(f"term {name}: over a curved formula a vector label needs statnet's "
                        "\"curved\" attribute naming the curved parameters, which ergmfit "
                        "does not read; give one string, I, identity or a label function")
    return keep_curvature(name, term, first, relabel)


def formula_labels(terms, sizes):
    """The statistic labels of each formula of a Sum()/Prod() (one list per formula), from
    the terms :func:`weighted_formulas` built and its ``sizes`` (building the formulas
    again would double the work at every level of nested Sum()s)."""
    out, start = [], 0
    for size in sizes:
        out.append([lab for t in terms[start:start + size] for lab in t.labels])
        start += size
    return out


_PASTE = re.compile(r"^\s*function\s*\(\s*(\w+)\s*\)\s*(I\s*\()?\s*(paste0?)\s*\((.*)\)\s*"
                    r"(?(2)\)|)\s*$", re.S)


def sum_labels(term, label, groups, width, prefix):
    """statnet's Sum() labels: a string -> ``<prefix><label>`` (one statistic) or
    ``<prefix><label><k>``; a vector of ``width`` strings -> ``<prefix><label_k>``; ``I`` ->
    the inner labels as they are; ``identity`` (or another label function of Label()) -> the
    inner labels, mapped, after ``<prefix>``; ``function(x) I(paste(x[[1]], x[[2]]))`` ->
    the formulas' labels pasted together (``I()``: without the prefix).  Function forms read
    the labels of one formula, or paste those of several."""
    from .labelfun import is_label_function, label_function

    def inner():
        if len(groups) != 1 or len(groups[0]) != width:
            raise TermError(f"term {term}: a label function here needs one formula whose "
                            f"statistics are summed as they are ({width} statistic(s))")
        return groups[0]
    if label is None:
        label = term
    if isinstance(label, RName) and label == "I":
        return list(inner())
    if isinstance(label, RCode) and _PASTE.match(label.text):
        arg, asis, fn, body = _PASTE.match(label.text).groups()
        parts = [p.strip() for p in re.split(r",(?![^\[]*\])", body)]
        sep = "" if fn == "paste0" else " "
        cols = []
        for p in parts:
            m = re.fullmatch(r"%s\[\[(\d+)\]\]" % re.escape(arg), p)
            ms = re.fullmatch(r"sep\s*=\s*(['\"])(.*)\1", p)
            if ms:
                sep = ms.group(2)
            elif m and 1 <= int(m.group(1)) <= len(groups) and len(groups[int(m.group(1)) - 1]) == width:
                cols.append(groups[int(m.group(1)) - 1])
            else:
                raise TermError(f"term {term}: the label function {label.text!r} is not "
                                "understood (paste(x[[1]], x[[2]], ...) of the formulas' labels)")
        out = [sep.join(c[k] for c in cols) for k in range(width)]
        return out if asis else [prefix + v for v in out]
    if isinstance(label, RName) and label == "identity":
        return [prefix + v for v in inner()]
    if is_label_function(label):
        return [prefix + v for v in label_function(label)(list(inner()))]
    if isinstance(label, list):
        if len(label) == width and width > 1 and all(isinstance(v, str) for v in label):
            return [prefix + v for v in label]
        if len(label) != 1 or not isinstance(label[0], str):
            raise TermError(f"term {term}: label must be one string or {width} strings, got "
                            f"{len(label)}")
        label = label[0]
    if not isinstance(label, str):
        raise TermError(f"term {term}: label must be a string, a vector of strings or a label "
                        f"function, got {getattr(label, 'text', label)!r}")
    return [prefix + label] if width == 1 else [f"{prefix}{label}{k + 1}" for k in range(width)]


@register("Label", kinds=BOTH, params=[Param("formula"), Param("label"), Param("pos", "(")],
          family=FAMILY)
def label_operator(net, formula, label, pos="("):
    """The terms of ``formula`` relabelled: ``pos`` "(" gives ``<label>(<inner>)``,
    "prepend" ``<label><inner>``, "append" ``<inner><label>``, "replace" ``<label>``.
    ``label`` may also be a function mapping the inner labels (``pos`` is then unused), in
    the forms :mod:`.labelfun` reads: ``toupper``, ``~paste0("a.", .)``,
    ``function(x) tolower(x)``."""
    from .labelfun import is_label_function, label_function
    terms = build_formula(net, _formula("Label", formula), "keep")
    inner = [lab for t in terms for lab in t.labels]
    curved = curve_leaves("Label", terms) is not None
    stat_label, par_label = label, label
    if (curved and pos == "replace" and isinstance(label, list) and len(label) == 2
            and any(v is None or isinstance(v, list) for v in label)):
        # statnet: list(<curved parameter names>, <canonical names>); NULL keeps them
        par_label, stat_label = label
    if is_label_function(label):
        f = label_function(label)
        return wrapped_offsets("Label", keep_curvature("Label", stack("Label", terms, f(inner)),
                                                       terms, f), terms)

    def rename(names, label):
        if label is None:
            return list(names)
        labs = label if isinstance(label, list) else [label]
        if not labs or not all(isinstance(v, str) or (isinstance(v, RName) and v == "NA")
                               for v in labs):
            raise TermError("term Label: label must be a string or a list of strings")
        labs = [labs[k % len(labs)] for k in range(len(names))]
        if pos == "(":
            return [f"{a}({b})" for a, b in zip(labs, names)]
        if pos == "prepend":
            return [a + b for a, b in zip(labs, names)]
        if pos == "append":
            return [b + a for a, b in zip(labs, names)]
        if pos == "replace":      # statnet >= 4.7: an NA label keeps the inner name
            return [b if isinstance(a, RName) and a == "NA" else a for a, b in zip(labs, names)]
        raise TermError(f"term Label: pos must be '(', 'prepend', 'append' or 'replace', got "
                        f"{pos!r}")
    return wrapped_offsets("Label", keep_curvature(
        "Label", stack("Label", terms, rename(inner, stat_label)), terms,
        lambda names: rename(names, par_label)), terms)


@register("Offset", kinds=BOTH, params=[Param("formula"), Param("coef", 0), Param("which", True)],
          family=FAMILY)
def offset_operator(net, formula, coef=0, which=True):
    """The terms of ``formula`` with the parameters ``which`` selects fixed at ``coef``, as
    ``offset()`` fixes a term's: the statistics are those of ``formula`` (its labels), the
    model's coefficients only the free ones (statnet's).  ``which``: TRUE/FALSE per parameter
    (recycled), 1-based indices or parameter names (default: all); ``coef``: the values of
    the fixed parameters in order, recycled to their number (R's rep_len)."""
    terms = build_formula(net, _formula("Offset", formula))
    pars = [lab for t in terms for lab in t.param_labels]
    mask = _which(which, pars)
    vals = coef if isinstance(coef, list) else [coef]
    if not vals or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                           for v in vals):
        raise TermError(f"term Offset: coef must be a number or a vector of numbers, got "
                        f"{coef!r}")
    if any(np.isnan(float(v)) for v in vals):
        raise TermError("term Offset: coef must not be NaN")
    fixed = [float(vals[k % len(vals)]) for k in range(int(mask.sum()))]
    if any(getattr(t, "fixed", None) is not None or getattr(t, "curve_map", None) is not None
           for t in terms):
        raise TermError("term Offset: Offset() and Curve() inside Offset() are not supported "
                        "yet; put the terms in one Offset()")
    term = stack("Offset", terms)
    term.param_labels = [p for p, m in zip(pars, mask) if not m]
    term.fixed = (terms, mask, fixed)
    return term


def _which(which, pars):
    """statnet's ``which``: logicals (recycled), 1-based indices (negative: all but those,
    as R indexes) or parameter names."""
    n = len(pars)
    items = which if isinstance(which, list) else [which]
    if items and all(isinstance(v, (bool, np.bool_)) for v in items):
        return np.array([bool(items[k % len(items)]) for k in range(n)], dtype=bool)
    ints = [v for v in items if isinstance(v, (int, float)) and not isinstance(v, bool)
            and float(v).is_integer()]
    if items and len(ints) == len(items) and all(v < 0 for v in ints) and \
            all(-v <= n for v in ints):
        mask = np.ones(n, dtype=bool)          # R's negative indices: all but these
        mask[[int(-v) - 1 for v in ints]] = False
        return mask
    mask = np.zeros(n, dtype=bool)
    for v in items:
        if isinstance(v, str):
            if v not in pars:
                raise TermError(f"term Offset: which names {v!r}, not a parameter of the formula "
                                f"({', '.join(pars)})")
            mask[pars.index(v)] = True
        elif isinstance(v, (int, float)) and float(v).is_integer() and 1 <= v <= n:
            mask[int(v) - 1] = True
        else:
            raise TermError(f"term Offset: which must be TRUE/FALSE values, indices 1..{n} or "
                            f"parameter names, got {v!r}")
    return mask


#: statnet's ``ininterval(open=)`` strings: whether each end is excluded
OPEN_ENDS = {"[]": [False, False], "(]": [True, False], "[)": [False, True], "()": [True, True]}


def check_interval(lower, upper, open_ends, what):
    """A TermError unless the interval lower..upper (``open_ends``: whether each end is
    excluded) holds some number: an empty one (``ininterval(3, 1)``, ``ininterval(2, 2)``
    open at an end) counts no dyad on any network, a constant 0 statistic."""
    if lower < upper or (lower == upper and not any(open_ends)):
        return
    shown = (f"{'(' if open_ends[0] else '['}{_end(lower)}, {_end(upper)}"
             f"{')' if open_ends[1] else ']'}")
    why = (f"lower {_end(lower)} is above upper {_end(upper)}" if lower > upper else
           "its ends are equal and not both included")
    raise TermError(f"{what}: the interval {shown} is empty ({why}), so the statistic is 0 on "
                    "every network (a constant, with no coefficient to estimate); give "
                    "lower < upper, or open='[]' for a single value (equalto)")


def _end(x):
    return ("Inf" if x > 0 else "-Inf") if np.isinf(x) else format_number(x)


# -- B(): binary terms of a valued network ------------------------------------------------

_B_FORMS = {"nonzero": 0, "atleast": 1, "greaterthan": 1, "equalto": 1, "ininterval": 2}


def _b_keeps_ties(net, form):
    """Whether the binary network of ``form`` (a valued term counting 0/1 per dyad, 0 for a
    0-valued dyad) has the network's ties (True) or none (False): every tie of a binary
    network has value 1."""
    calls = form.terms
    if len(calls) != 1 or calls[0].name not in _B_FORMS:
        raise TermError(f"term B: form ~{form.text} is not understood on a binary network "
                        "(ergmfit models binary networks only: a valued form would need the "
                        "values of a valued network); use form='sum', 'nonzero' or a formula of "
                        "nonzero, atleast(v), greaterthan(v), equalto(v) or ininterval(a, b)")
    c = calls[0]
    a = [as_float(v, f"term B: {c.name}") for v in c.args] + [
        as_float(v, f"term B: {c.name}") for k, v in c.kwargs.items() if k != "open"]
    if c.name == "nonzero":
        return True
    if not a:
        raise TermError(f"term B: {c.name}() needs its threshold")
    if c.name == "atleast":
        zero, one = 0 >= a[0], 1 >= a[0]
    elif c.name == "greaterthan":
        zero, one = 0 > a[0], 1 > a[0]
    elif c.name == "equalto":
        tol = a[1] if len(a) > 1 else 0.0
        zero, one = abs(a[0]) <= tol, abs(1 - a[0]) <= tol
    else:
        if len(a) < 2:
            raise TermError("term B: ininterval() needs lower and upper")
        op = c.kwargs.get("open", [True, True])
        if isinstance(op, str):         # statnet's "[]", "(]", "[)", "()"
            if op not in OPEN_ENDS:
                raise TermError(f"term B: ininterval: open must be two TRUE/FALSE values or "
                                f"one of {', '.join(OPEN_ENDS)}, got {op!r}")
            op = OPEN_ENDS[op]
        op = op if isinstance(op, list) else [op, op]
        check_interval(a[0], a[1], op, "term B: ininterval")

        def inside(y):
            return (y > a[0] if op[0] else y >= a[0]) and (y < a[1] if op[1] else y <= a[1])
        zero, one = inside(0.0), inside(1.0)
    if zero:
        raise TermError(f"term B: form ~{form.text} counts 0-valued dyads; statnet requires "
                        "a form that is 0 for a 0-valued dyad")
    return one


@register("B", kinds=BOTH, params=[Param("formula"), Param("form", "sum")], family=FAMILY)
def b_operator(net, formula, form="sum"):
    """The terms of ``formula`` on the binary network of a valued one (statnet's B(),
    defined there for valued networks only).  ergmfit's networks are binary, every tie of
    value 1,
    so ``form="sum"`` (dyad-independent terms only, as statnet) and ``form="nonzero"`` give
    the statistics of ``formula``, and a formula form (``~atleast(v)``, ``~greaterthan(v)``,
    ``~equalto(v)``, ``~ininterval(a, b)``, ``~nonzero``) those of ``formula`` on the ties it
    keeps: all of them, or none when value 1 fails it.  Labels ``B(<form>)~<label>``; a form
    that needs tie values other than 0/1 is an error."""
    f = _formula("B", formula)
    terms = build_formula(net, f, "keep")
    if isinstance(form, FormulaArg):
        keep, name = _b_keeps_ties(net, form), form.compact
    elif form in ("sum", "nonzero"):
        keep, name = True, form
        if form == "sum" and not all(t.dyad_independent for t in terms):
            raise TermError("term B: form='sum' needs dyad-independent terms (statnet's rule); "
                            "use form='nonzero'")
    else:
        raise TermError(f"term B: form must be 'sum', 'nonzero' or a one-sided formula, got "
                        f"{form!r}")
    labels = [f"B({name})~{lab}" for t in terms for lab in t.labels]
    if keep:
        term = stack("B", terms, labels)
        if form == "sum":
            term.empty = np.zeros(len(labels))       # statnet drops the empty-network values
    else:
        mask = np.zeros(net.n * net.n, dtype=np.uint8)   # the binary network has no tie
        kernel = SubnetKernel([t.kernel for t in terms], "filter", net.n, mask=mask,
                              aux_n=net.n, aux_directed=net.directed)
        term = Term("B", labels, kernel, empty=np.concatenate([t.empty for t in terms]),
                    dyad_independent=True)
    # statnet wraps the inner model (wrap.ergm_model): curved terms keep their parameters,
    # offset() inside propagates
    term = keep_curvature("B", term, terms, lambda labs: [f"B({name})~{lab}" for lab in labs])
    return wrapped_offsets("B", term, terms)


@register("Passthrough", kinds=BOTH, params=[Param("formula"), Param("label", False),
                                             Param("submodel", True)], family=FAMILY)
def passthrough(net, formula, label=False, submodel=True):
    """The statistics of ``formula`` unchanged.  ``label`` (statnet's logical, default
    FALSE): TRUE names the statistics and parameters ``Passthrough~<name>``, as statnet's
    standard operator name wrap; ``submodel``: statnet's switch of how it evaluates them
    internally (the statistics are the same either way).

    >>> import ergmfit as ef
    >>> ef.ERGM("flomarriage", "Passthrough(~edges + degree(0), label=TRUE)").labels
    ['Passthrough~edges', 'Passthrough~degree0']
    """
    as_bool(submodel, "term Passthrough: submodel")
    if not isinstance(label, (bool, np.bool_)):
        raise TermError(f"term Passthrough: label must be TRUE or FALSE (statnet's "
                        f"Passthrough(formula, label=FALSE, submodel=TRUE): TRUE names the "
                        f"statistics Passthrough~<name>), got {getattr(label, 'text', label)!r}; "
                        "for a label of your own use Label(~..., label)")
    terms = build_formula(net, _formula("Passthrough", formula), "keep")
    wrap = (lambda names: [f"Passthrough~{v}" for v in names]) if label else None
    inner = [lab for t in terms for lab in t.labels]
    term = stack("Passthrough", terms, wrap(inner) if wrap else None)
    return wrapped_offsets("Passthrough", keep_curvature("Passthrough", term, terms, wrap),
                           terms)


@register("I", kinds=BOTH, params=[Param("formula")], family=FAMILY)
def splice(net, formula):
    """statnet's ``I()`` (in ergm 4.12's term index): the terms of ``formula`` (or of a
    character vector of terms, ``I(c("degree(0)", "degree(1)"))``) written in its place,
    with their own labels; the formula parser substitutes them (see ``ergmfit.formula``)."""
    if isinstance(formula, (str, list)):
        from ..formula import FormulaArg as _F
        texts = [formula] if isinstance(formula, str) else formula
        formula = _F(" + ".join(texts))
    return stack("I", build_formula(net, _formula("I", formula)))


_CURVE = [Param("formula"), Param("params", None), Param("map", None), Param("gradient", None),
          Param("minpar", None), Param("maxpar", None), Param("cov", None)]


@register("Curve", kinds=BOTH, aliases=("Parametrise", "Parametrize"), params=_CURVE,
          family=FAMILY)
def curve(net, formula, params=None, map=None, gradient=None, minpar=None, maxpar=None,
          cov=None):
    """The statistics of ``formula`` (statnet's labels) with natural parameters η = map(θ),
    θ the parameters named in ``params`` (the model's coefficients): ``map="rep"``, numbers
    (constant), or an R function ``function(x, n, ...) ...`` with ``gradient="linear"``, a
    gradient matrix or a gradient function (see :mod:`.curvemap`).  With curved terms inside
    (``gwesp(fixed=FALSE)``) the map gives their parameters (statnet's rule), ``n`` their
    number."""
    if isinstance(map, RCode) and gradient is None:
        raise TermError("term Curve: the 'gradient' argument must be supplied unless 'map' is "
                        "one of statnet's named maps (statnet's rule)")
    terms = build_formula(net, _formula("Curve", formula))
    if isinstance(params, dict):
        names = list(params)
    elif isinstance(params, list):
        names = params
    elif isinstance(params, str):
        names = [params]
    else:
        raise TermError("term Curve: params must name the curved parameters (a named list "
                        "or a character vector)")
    if not names or not all(isinstance(v, str) for v in names) or len(set(names)) != len(names):
        raise TermError(f"term Curve: params must be distinct names, got {params!r}")
    if any(getattr(t, "fixed", None) is not None or getattr(t, "curve_map", None) is not None
           for t in terms):
        raise TermError("term Curve: Offset() and Curve() inside Curve() are not supported yet")
    term = stack("Curve", terms)
    if not any(getattr(t, "curve", None) is not None for t in terms):
        term.curve_map = curve_map("Curve", names, len(term.labels), map, gradient, minpar,
                                   maxpar)
    else:
        # statnet: "If the model in formula is curved, then the outputs of this operator
        # term's map argument will be used as inputs to the curved terms of the formula
        # model": map(θ) gives the inner model's parameters ψ (n = their number), and
        # η = η_inner(ψ), so ∂η/∂θ = J_inner(ψ) ∂ψ/∂θ.
        inner = Curved(terms)
        cm = curve_map("Curve", names, inner.n_params, map, gradient, minpar, maxpar)
        psi = cm["map"]
        if psi["affine"] and cm["why"] is None and len(names) == inner.n_params:
            A, c = psi["jac"](np.zeros(len(names))), psi["eta"](np.zeros(len(names)))
            if (np.array_equal(A, np.eye(len(names))) and not np.any(c)
                    and np.all(cm["lower"] >= inner.lower_bounds())):
                # the identity (map="rep" over the inner parameters) within the inner
                # terms' box (minpar keeps the decays >= 0): the inner curved terms
                # themselves, renamed -- their decays stay decays to the estimators.
                # Without such a minpar statnet lets a decay go negative: the general map.
                cm["inner"], term.curve_terms = inner, list(terms)
        cm["map"] = {"eta": lambda th: inner.eta(psi["eta"](th)),
                     "jac": lambda th: inner.jacobian(psi["eta"](th)) @ psi["jac"](th),
                     "affine": False}
        term.curve_map = cm
    term.param_labels = list(names)
    return term


@register("For", kinds=BOTH, params=[Param("formula"), Param("...", None)], family=FAMILY)
def for_operator(net, formula, **kw):
    """``For(~term(.), . = values)``: the formula once per value with ``.`` replaced by it
    (values: a vector, ``~sort(unique(.%v%"attr"))`` or ``function(nw) sort(unique(nw %v%
    "attr"))`` for the levels of attr).  Several loop variables nest, the first named the
    outermost (``For(~absdiff(a, pow=.), a = c("x", "y"), . = 1:3)``)."""
    f = _formula("For", formula)
    terms = []
    for text in for_texts(net, f, kw.get("...")):
        terms.extend(build_formula(net, FormulaArg(text)))
    # a macro in statnet (the terms written out): curved terms keep their parameters; in
    # the model's own formula it is written out before any term is built (.macros)
    return keep_curvature("For", stack("For", terms), terms)
