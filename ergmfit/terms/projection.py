"""statnet's ``Project(formula, mode)`` operator and its aliases ``Proj1(formula)`` /
``Proj2(formula)``: the terms of ``formula`` on the one-mode projection of a two-mode network.

statnet's help: "This operator on a bipartite network evaluates the formula on the
undirected, valued network constructed by projecting it onto its specified mode."  The value
of the projected tie {p, q} is the number of partners p and q share in the other mode, so the
inner terms are statnet's *valued* terms.  ergmfit gives those a projection makes sense with
(statnet's definitions and labels, each a sum over the projected dyads p < q):

* ``sum(pow=1)``: Σ y^pow (label ``sum``, ``sum<pow>`` for pow ≠ 1);
* ``CMP``: Σ log(y!), statnet's Conway-Maxwell-Poisson dispersion term (label ``CMP``);
* ``nonzero``: #{y ≠ 0} (``edges``, statnet's valued alias of it, too; label ``nonzero``);
* ``atleast(threshold=0)``, ``atmost``, ``greaterthan``, ``smallerthan``: #{y ≥ t} etc., one
  statistic per threshold (labels ``atleast.<t>``, ...);
* ``equalto(value=0, tolerance=0)``: #{|y − v| ≤ tol} (label ``equalto.<v>.pm.<tol>``);
* ``ininterval(lower=-Inf, upper=+Inf, open=c(TRUE, TRUE))``: #{y in the interval}; ``open``
  may also be "[]", "(]", "[)" or "()" (label ``ininterval(<lower>,<upper>)`` with the
  interval's brackets);
* ``transitiveweights(twopath="min", combine="max", affect="min")``: Σ_{p<q} affect(y_pq,
  combine_k twopath(y_pk, y_kq)) (Krivitsky 2012, eq. 13; twopath/affect "min" or
  "geomean", combine "max" or "sum"; label ``transitiveweights.<twopath>.<combine>.<affect>``);
  ``cyclicalweights`` (focus y_qp) is the same statistic on the undirected projection.  Their
  kernel keeps the projected values as a dense matrix: projected modes of at most 1,024
  nodes, O(deg · n_m²) per toggle at worst;
* ``absdiff``, ``nodecov``, ``nodematch``, ``nodemix``, ``nodefactor``, ``edgecov``, ``mm``,
  ``sociality``, ``absdiffcat`` with
  ``form="sum"`` (the default; Σ x_pq y_pq, x_pq the binary term's statistic on the dyad) or
  ``form="nonzero"`` (Σ x_pq [y_pq ≠ 0]); their other arguments as for binary networks,
  attributes and ``edgecov`` matrices those of the projected mode's nodes; labels the binary
  labels with the form after the term name (``absdiff.sum.b1``, ``nodefactor.sum.a.x``,
  ``mm.sum[a=x,a=y]``, as statnet's test-term-mm.R prints a valued ``mm``; ``sociality<k>.sum``
  and ``absdiff.sum.<attr>.<d>`` by the same rule, not confirmed by a statnet print).
* ``nodecovar(center, transform="identity")``: Σ_i Σ_{j<k} z_ij z_ik / (n_m − 2), z the
  values (``transform="sqrt"``: their square roots), centred by their mean over all projected
  dyads when ``center=TRUE`` (non-local; statnet's help and test-valued-terms.R); label
  ``nodecovar`` (statnet 4.4 prints ``nodeocovar``/``nodeicovar`` for the centred directed
  forms; the sqrt form's label is not confirmed by a statnet print).  ``center`` must be
  given.  Its kernel (:class:`._coreterms.ProjectedNodeCovarKernel`) keeps each projected
  node's sum of values: O(deg) per toggle.

Labels ``Proj<mode>~<label>`` (statnet's, also for ``Project(f, 1)``).  Any other inner term
is refused, by name.  A value term the same for every projected value 0..n (n the other
mode's size: ``atleast(0)``, ``atmost(n)``) is the same on every network: the term declares
its value statistics (``Term.value_stats``) and the family's ``check_fit`` refuses such a
one before a fit, by the count family's rule (``statistics()`` keeps it).  The kernel of the dyadic terms is
:class:`._coreterms.ProjectionKernel`: O(deg) per toggle.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..exceptions import TermError
from ._operators import LinearKernel
from ._coreterms import (ProjectedNodeCovarKernel, ProjectedWeightsKernel, ProjectionKernel,
                          transform_value)
from .operators import OPEN_ENDS as _OPEN, _formula, check_interval
from .registry import UNDIRECTED, Param, Term, as_bool, as_float, build_term, format_number, \
    register

FAMILY = "operators"

# the valued forms of binary dyad-independent terms (statnet's form="sum"/"nonzero")
COVARIATE_TERMS = {"absdiff", "nodecov", "nodemain", "nodematch", "match", "nodemix",
                   "nodefactor", "edgecov", "mm", "sociality", "absdiffcat"}
# valued terms of the value alone: name -> (parameter names, defaults)
VALUE_TERMS = {
    "sum": (("pow",), (1.0,)),
    "nonzero": ((), ()),
    "atleast": (("threshold",), (0.0,)),
    "atmost": (("threshold",), (0.0,)),
    "greaterthan": (("threshold",), (0.0,)),
    "smallerthan": (("threshold",), (0.0,)),
    "equalto": (("value", "tolerance"), (0.0, 0.0)),
    "ininterval": (("lower", "upper", "open"), (-np.inf, np.inf, [True, True])),
    "CMP": ((), ()),
}
# valued triad terms (statnet's transitiveweights / cyclicalweights; the same statistic on an
# undirected network): their arguments and the largest projected mode they take (they keep
# the projected values as a dense matrix and cost O(deg n_m^2) per toggle at worst)
WEIGHT_TERMS = ("transitiveweights", "cyclicalweights")
WEIGHTS_MAX_NODES = 1024
# Projected tie values (shared-partner counts): held by the state (n x n counts updated in
# O(degree) per toggle) on networks of up to HELD_NODES nodes, whose counts stay in the CPU
# caches; on larger ones counted on demand from the neighbour lists (the state still holds
# them on dense networks, by its own rule).  benchmarks/bench_projection.py --quick, M change
# + toggle + back per CPU s, held / on demand (load 5): 50+30 nodes 1.73 / 0.94, 500+200
# 1.30 / 1.00, 2000+1000 0.96 / 2.63, 3000+1000 (degree 20) 0.30 / 0.32, 5000+3000
# 0.80 / 2.10, 5000+5000 0.26 / 0.54.  None: that rule; True / False force it.
ON_DEMAND = None
HELD_NODES = 1024


def _bind(term, call, names, defaults, kwargs=None):
    what = f"term {term}: {call.name}"
    if len(call.args) > len(names):
        raise TermError(f"{what} takes at most {len(names)} argument(s) ({', '.join(names)})")
    bound = dict(zip(names, defaults))
    bound.update(zip(names, call.args))
    for k, v in (call.kwargs if kwargs is None else kwargs).items():
        if k not in names:
            raise TermError(f"{what}: unknown argument {k!r}; it takes "
                            f"{', '.join(names) or 'no arguments'}")
        bound[k] = v
    return bound


def _numbers(value, what, finite=True):
    vals = value if isinstance(value, list) else [value]
    if not vals:
        raise TermError(f"{what} must not be empty")
    out = []
    for v in vals:
        if finite:
            out.append(as_float(v, what))
        else:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or np.isnan(v):
                raise TermError(f"{what} must be a number, got {v!r}")
            out.append(float(v))
    return out


def _value_items(term, call):
    """The items and labels of a valued term of the value alone."""
    names, defaults = VALUE_TERMS[call.name]
    a = _bind(term, call, names, defaults)
    what = f"term {term}: {call.name}"
    if call.name == "sum":
        p = as_float(a["pow"], f"{what}: pow")
        if p < 0:
            raise TermError(f"{what}: pow must be >= 0 (0^pow is infinite below), got {p}")
        if p == 0:
            raise TermError(f"{what}: pow=0 makes every dyad's value^pow 1, so the statistic "
                            "is the number of dyads on every network (a constant, with no "
                            "coefficient to estimate); give pow > 0")
        return [("pow", [p], -1)], ["sum" if p == 1 else f"sum{format_number(p)}"]
    if call.name == "nonzero":
        return [("nonzero", [], -1)], ["nonzero"]
    if call.name == "CMP":            # statnet's Conway-Maxwell-Poisson term: sum log(y!)
        return [("lfactorial", [], -1)], ["CMP"]
    if call.name == "equalto":
        v = as_float(a["value"], f"{what}: value")
        tol = as_float(a["tolerance"], f"{what}: tolerance")
        if tol < 0:
            raise TermError(f"{what}: tolerance must be >= 0, got {tol}")
        return [("equalto", [v, tol], -1)], [f"equalto.{format_number(v)}.pm.{format_number(tol)}"]
    if call.name == "ininterval":
        lo = _numbers(a["lower"], f"{what}: lower", finite=False)
        hi = _numbers(a["upper"], f"{what}: upper", finite=False)
        if len(lo) != 1 or len(hi) != 1:
            raise TermError(f"{what}: lower and upper must be single numbers")
        op = a["open"]
        if isinstance(op, str):
            if op not in _OPEN:
                raise TermError(f"{what}: open must be two TRUE/FALSE values or one of "
                                f"{', '.join(_OPEN)}, got {op!r}")
            op = _OPEN[op]
        op = op if isinstance(op, list) else [op, op]
        if len(op) != 2 or not all(isinstance(v, (bool, np.bool_)) for v in op):
            raise TermError(f"{what}: open must be two TRUE/FALSE values, got {a['open']!r}")
        check_interval(lo[0], hi[0], op, what)
        label = (f"ininterval{'(' if op[0] else '['}{_r_num(lo[0])},{_r_num(hi[0])}"
                 f"{')' if op[1] else ']'}")
        return [("ininterval", [lo[0], hi[0], float(op[0]), float(op[1])], -1)], [label]
    ts = _numbers(a["threshold"], f"{what}: threshold")
    return [(call.name, [t], -1) for t in ts], [f"{call.name}.{format_number(t)}" for t in ts]


def _weights_kernel(term, call, mode, n1, n_m):
    names = ("twopath", "combine", "affect")
    kw = dict(call.kwargs)
    if call.name == "cyclicalweights" and "affected" in kw:    # its help page's spelling
        kw["affect"] = kw.pop("affected")
    a = _bind(term, call, names, ("min", "max", "min"), kw)
    for k, allowed in (("twopath", ("min", "geomean")), ("combine", ("max", "sum")),
                       ("affect", ("min", "geomean"))):
        if a[k] not in allowed:
            raise TermError(f"term {term}: {call.name}: {k} must be "
                            f"{' or '.join(repr(v) for v in allowed)}, got {a[k]!r}")
    if n_m > WEIGHTS_MAX_NODES:
        raise TermError(f"term {term}: {call.name} keeps the projected values as a dense "
                        f"matrix and takes projected modes of at most {WEIGHTS_MAX_NODES:,} "
                        f"nodes; this one has {n_m:,}")
    kernel = ProjectedWeightsKernel(mode, n1, n_m, a["twopath"], a["combine"], a["affect"])
    return kernel, f"{call.name}.{a['twopath']}.{a['combine']}.{a['affect']}"


def _nodecovar_kernel(term, call, mode, n1, n_m, on_demand):
    """statnet's valued ``nodecovar(center, transform)``: Σ_i Σ_{j<k} z_ij z_ik / (n − 2), z
    the values (``transform="sqrt"``: their square roots), centred by their mean over all
    dyads when ``center`` (its help page and test-valued-terms.R)."""
    a = _bind(term, call, ("center", "transform"), (None, "identity"))
    what = f"term {term}: nodecovar"
    if a["center"] is None:
        raise TermError(f"{what}: give center=TRUE or center=FALSE (statnet's nodecovar(center, "
                        "transform) has no default for it here)")
    center = as_bool(a["center"], f"{what}: center")
    if a["transform"] not in ("identity", "sqrt"):
        raise TermError(f"{what}: transform must be 'identity' or 'sqrt', got "
                        f"{a['transform']!r}")
    if n_m < 3:
        raise TermError(f"{what}: divides by n - 2, so the projected mode needs at least 3 "
                        f"nodes; it has {n_m}")
    return ProjectedNodeCovarKernel(mode, n1, n_m, center, a["transform"] == "sqrt", on_demand)


def _r_num(x):
    if np.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    return format_number(x)


def _form_label(label, form):
    if label.startswith("mm["):           # statnet's valued mm: mm.sum[Grade=7,Grade=8]
        return f"mm.{form}{label[2:]}"
    head, dot, rest = label.partition(".")
    return f"{head}.{form}.{rest}" if dot else f"{head}.{form}"


def projected_network(net, mode):
    """The nodes of one mode as a one-mode network without ties, with their attributes and
    the network's graph attributes (edgecov matrices are the projected nodes')."""
    from ..network import Network
    n1 = net.bipartite
    idx = list(range(0, n1)) if mode == 1 else list(range(n1, net.n))
    return Network(len(idx), np.zeros((0, 2), dtype=np.int64), False,
                   labels=[net.labels[k] for k in idx],
                   node_attrs={a: [v[k] for k in idx] for a, v in net.node_attrs.items()},
                   graph_attrs=net.graph_attrs)


def _project(net, formula, mode, name="Project"):
    f = _formula(name, formula)
    if not getattr(net, "bipartite", None):
        raise TermError(f"term {name}: needs a two-mode (bipartite) network; this one is "
                        f"{'directed' if net.directed else 'one-mode'}")
    if isinstance(mode, bool) or mode not in (1, 2):
        raise TermError(f"term {name}: mode must be 1 or 2 (the mode to project onto), got "
                        f"{mode!r}")
    mode = int(mode)
    sub = projected_network(net, mode)
    on_demand = net.n > HELD_NODES if ON_DEMAND is None else ON_DEMAND
    groups, labels, empty = [], [], []       # kernels in formula order
    items, kernels = [], []                  # the dyadic items of the current group
    values = []                              # the value statistics (Term.value_stats)

    def close_group():
        if items:
            groups.append(ProjectionKernel(mode, net.bipartite, sub.n, list(items),
                                           list(kernels), on_demand))
            items.clear()
            kernels.clear()

    for call in f.terms:
        if call.name == "edges":         # statnet's valued edges is nonzero (its help page)
            call = dataclasses.replace(call, name="nonzero")
        if call.name in VALUE_TERMS:
            its, labs = _value_items(name, call)
            values += [(len(labels) + k, kind, par) for k, (kind, par, _) in enumerate(its)]
            items += its
            labels += labs
            npairs = sub.n * (sub.n - 1) / 2.0
            empty += [npairs * transform_value(kind, par, 0.0) for kind, par, _ in its]
        elif call.name.lower() in COVARIATE_TERMS:
            kwargs = dict(call.kwargs)
            form = kwargs.pop("form", "sum")
            if form not in ("sum", "nonzero"):
                raise TermError(f"term {name}: {call.name}(form={form!r}): form must be "
                                "'sum' or 'nonzero'")
            inner = build_term(sub, call.name, call.args, kwargs)
            kernels.append(inner.kernel)
            items.append(("pow" if form == "sum" else "nonzero", [1.0], len(kernels) - 1))
            labels += [_form_label(lab, form) for lab in inner.labels]
            empty += [0.0] * len(inner.labels)
        elif call.name in WEIGHT_TERMS:
            close_group()
            kernel, label = _weights_kernel(name, call, mode, net.bipartite, sub.n)
            groups.append(kernel)
            labels.append(label)
            empty.append(0.0)
        elif call.name == "nodecovar":
            close_group()
            groups.append(_nodecovar_kernel(name, call, mode, net.bipartite, sub.n, on_demand))
            labels.append("nodecovar")
            empty.append(0.0)
        elif call.name == ":":
            raise TermError(f"term {name}: interactions have no valued form in ergmfit yet")
        else:
            raise TermError(
                f"term {name}: the inner term {call.name!r} has no valued form in ergmfit yet "
                f"(the projection is a valued network); supported: "
                f"{', '.join(VALUE_TERMS)}, {', '.join(WEIGHT_TERMS)}, nodecovar, and absdiff, "
                "nodecov, nodematch, nodemix, nodefactor, edgecov, mm, sociality, absdiffcat with "
                "form='sum' or 'nonzero'")
    close_group()
    if not groups:
        raise TermError(f"term {name}: the formula has no terms")
    kernel = groups[0] if len(groups) == 1 else LinearKernel(groups)
    term = Term(name, [f"Proj{mode}~{lab}" for lab in labels], kernel, empty=np.array(empty))
    if values:
        # a projected tie's value: the partners two nodes of ``mode`` share, 0 to the other
        # mode's size; a value statistic the same for all of them is refused before a fit
        other = net.n - net.bipartite if mode == 1 else net.bipartite
        from ..families.base import ValueSupport
        term.value_stats = (values, ValueSupport(0, other, (
            f"value a projected tie can take (0..{other}: the mode-{3 - mode} partners two "
            f"mode-{mode} nodes can share)")))
    return term


@register("Project", kinds=UNDIRECTED, params=[Param("formula"), Param("mode")], family=FAMILY)
def project(net, formula, mode):
    """Projection: the valued terms of ``formula`` on the one-mode projection of a two-mode
    network onto ``mode`` (1 or 2), tie value = number of shared partners. Labels
    ``Proj<mode>~<label>``; inner terms: sum, nonzero, atleast, atmost, greaterthan,
    smallerthan, equalto, ininterval, CMP, transitiveweights, cyclicalweights, nodecovar, and
    absdiff/nodecov/nodematch/nodemix/nodefactor/edgecov/mm/sociality/absdiffcat with
    ``form="sum"`` or ``"nonzero"`` (see :mod:`ergmfit.terms.projection`)."""
    if isinstance(mode, float) and mode.is_integer():
        mode = int(mode)
    return _project(net, formula, mode)


@register("Proj1", kinds=UNDIRECTED, params=[Param("formula")], family=FAMILY)
def proj1(net, formula):
    """``Project(formula, 1)``: valued terms of the projection onto mode 1 (tie value = number
    of shared mode-2 partners); labels ``Proj1~<label>``."""
    return _project(net, formula, 1, "Proj1")


@register("Proj2", kinds=UNDIRECTED, params=[Param("formula")], family=FAMILY)
def proj2(net, formula):
    """``Project(formula, 2)``: valued terms of the projection onto mode 2 (tie value = number
    of shared mode-1 partners); labels ``Proj2~<label>``."""
    return _project(net, formula, 2, "Proj2")


__all__ = ["project", "proj1", "proj2", "projected_network"]
