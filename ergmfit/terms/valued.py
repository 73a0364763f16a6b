"""Valued (count) terms with ergm.count's names, arguments and labels.

They are registered with ``state="count"``: a count-valued model
(``ERGM(g, formula, response=..., reference=...)``) looks its terms up here, and their
kernels are ``CountKernel`` s (the change of the statistics when a dyad's value moves from
one count to another; see ``ergmfit/terms/_valued.pyx`` and docs/valued_terms.md).

* of the value alone (Σ_ij h(y_ij), the transforms ``Project()`` uses): ``sum(pow)``,
  ``nonzero``, ``CMP``, ``atleast``, ``atmost``, ``greaterthan``, ``smallerthan``,
  ``equalto(value, tolerance)``, ``ininterval(lower, upper, open)``;
* ``form="sum"`` / ``form="nonzero"`` of the dyad-independent binary terms (``nodematch``,
  ``nodefactor``, ``nodecov``, ``absdiff``, ``edgecov``, ``nodemix``, ...): the binary term's
  own declaration, argument checks and labels (``nodematch.sum.group``), its kernel wrapped;
* ``mutual(form, threshold)``, ``transitiveweights`` / ``cyclicalweights(twopath, combine,
  affect)``, ``nodecovar`` / ``nodeocovar`` / ``nodeicovar(center, transform)`` and the
  deprecated ``nodesqrtcovar`` / ``nodeosqrtcovar`` / ``nodeisqrtcovar(center)``.

Examples
--------
>>> import networkx as nx
>>> import ergmfit as ef
>>> g = nx.DiGraph()
>>> g.add_nodes_from(range(4))
>>> g.add_edge(0, 1, w=2); g.add_edge(1, 0, w=3); g.add_edge(1, 2, w=1); g.add_edge(2, 0, w=2)
>>> m = ef.ERGM(g, "sum + atleast(2) + mutual(form='nabsdiff') + transitiveweights",
...             response="w", reference="Poisson")
>>> m.statistics()
{'sum': 8.0, 'atleast.2': 3.0, 'mutual.nabsdiff': -4.0, 'transitiveweights.min.max.min': 1.0}
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..exceptions import TermError
from . import registry
from .curvemap import curve_leaves
from .stacking import stack
from .projection import VALUE_TERMS, _form_label, _value_items
from .registry import COUNT_STATE, DIRECTED, UNDIRECTED, Param, Term, as_bool, as_float, \
    register
from ._valued import BinaryViewKernel, DyadicFormKernel, MutualKernel, NodeCovarKernel, \
    ValueKernel, WeightsKernel

FAMILY = "valued"


class ZeroDyadLocality:
    """What the change statistic of a count term reads at a *zero* dyad (i, j) whose ends
    are *remote*: y_ij = y_ji = 0 and no node k has a nonzero value with both i and j
    (in either direction).  There the change of y_ij from 0 to any k is a function of
    ``node_features`` of i and of j alone (and of the network's global moments), so the
    count MPLE computes it once per pair of node classes
    (:class:`ergmfit.estimation.mple.count.RemoteZeros`).

    ``near``: the zero dyads where that does not hold and the change is computed dyad by
    dyad: ``"reverse"`` (y_ji != 0), ``"twopath"`` (i and j share a nonzero neighbour, or
    y_ji != 0), or ``None``.  ``node_features(n, directed, dyads, values)``: an (n, q)
    array of the per-node quantities the change reads (None: q = 0).
    """

    NEAR = (None, "reverse", "twopath")

    def __init__(self, near=None, node_features=None):
        if near not in self.NEAR:
            raise AssertionError(f"near must be one of {self.NEAR}, got {near!r}")
        self.near, self.node_features = near, node_features

    def features(self, n, directed, dyads, values):
        """The (n, q) node features of the network with these nonzero ``dyads``/``values``."""
        if self.node_features is None:
            return np.zeros((n, 0))
        return self.node_features(n, directed, dyads, values)


class _Call:
    """A term call as ``projection._value_items`` reads it (name, args, kwargs)."""

    def __init__(self, name, kwargs):
        self.name, self.args, self.kwargs = name, (), kwargs


def _n_dyads(net):
    return net.n * (net.n - 1) // (1 if net.directed else 2)


def _value_term(name, bound, net):
    items, labels = _value_items(name, _Call(name, bound))
    kinds = [(kind, params) for kind, params, _ in items]
    # the statistics on the all-zero network: N h(0) (atmost, equalto(0), ...)
    from ._coreterms import transform_value
    empty = [_n_dyads(net) * transform_value(kind, params, 0.0) for kind, params in kinds]
    return Term(name, labels, ValueKernel(kinds), empty=np.array(empty), dyad_independent=True)


#: statnet's valued aliases: ``edges`` is the valued ``nonzero`` (ergm's help page of
#: ``edges`` lists "valued: nonzero" and "valued: edges", "the number of edges (i.e. nonzero
#: values)"; its old term index aliased valued ``edges`` to ``nonzero``, statnet/ergm#290),
#: so its label is ``nonzero`` (no statnet print in the reference files confirms it)
VALUE_ALIASES = {"nonzero": ("edges",)}


def _register_value_term(name, params):
    names, defaults = VALUE_TERMS[name]

    @register(name, params=tuple(Param(p, d) for p, d in zip(names, defaults)),
              aliases=VALUE_ALIASES.get(name, ()),
              family=FAMILY, state=COUNT_STATE, cell_attrs=())     # the value alone
    def builder(net, **bound):
        return _value_term(name, bound, net)

    builder.__doc__ = params
    return builder


_VALUE_DOCS = {
    "sum": "Σ y_ij^pow (ergm's valued ``sum``; label ``sum``, ``sum<pow>`` otherwise).",
    "nonzero": "Number of dyads with a nonzero value (``nonzero``); ``edges`` is its alias "
               "in a valued model, as in statnet (label ``nonzero``).",
    "CMP": "Σ log(y_ij!): the Conway-Maxwell-Poisson term (ergm.count's ``CMP``); with the "
           "Poisson reference, coefficient 0 is Poisson and 1 geometric.",
    "atleast": "Number of dyads with y_ij >= threshold, one per threshold (``atleast.<t>``).",
    "atmost": "Number of dyads with y_ij <= threshold (``atmost.<t>``).",
    "greaterthan": "Number of dyads with y_ij > threshold (``greaterthan.<t>``).",
    "smallerthan": "Number of dyads with y_ij < threshold (``smallerthan.<t>``).",
    "equalto": "Number of dyads with |y_ij - value| <= tolerance (``equalto.<v>.pm.<tol>``).",
    "ininterval": "Number of dyads with y_ij in the interval lower..upper, ``open`` saying "
                  "which ends are excluded (default both: ``ininterval(1,2)``).",
}
for _name, _doc in _VALUE_DOCS.items():
    _register_value_term(_name, _doc)


@register("CMB", params=(Param("trials"), Param("coupled", True)), family=FAMILY,
          state=COUNT_STATE, cell_attrs=())
def _cmb(net, trials, coupled):
    """Conway-Maxwell-Binomial (ergm.count's ``CMB(trials, coupled=TRUE)``): Σ_ij log(y_ij!) +
    log((trials - y_ij)!), label ``CMB``; with ``coupled=FALSE`` the two sums as two
    statistics, labels ``CMB.1`` (Σ log(y_ij!)) and ``CMB.2`` (Σ log((trials - y_ij)!)).
    With a ``Binomial(trials)`` reference a negative coefficient makes the values
    underdispersed and a positive one overdispersed; the term is defined for values up to
    ``trials``, so the reference may not allow more (``Binomial(t)`` with t <= trials, or
    ``DiscUnif(a, b)`` with b <= trials)."""
    t = as_float(trials, "CMB: trials")
    if not float(t).is_integer() or t < 1:
        raise TermError(f"CMB: trials must be a positive integer, got {trials!r}")
    kinds = [("cmb", [t])] if as_bool(coupled, "CMB: coupled") else \
        [("lfactorial", []), ("lfactorial_rest", [t])]
    labels = ["CMB"] if len(kinds) == 1 else ["CMB.1", "CMB.2"]
    from ._coreterms import transform_value
    empty = [_n_dyads(net) * transform_value(kind, params, 0.0) for kind, params in kinds]
    term = Term("CMB", labels, ValueKernel(kinds), empty=np.array(empty), dyad_independent=True)
    term.max_value = int(t)
    return term


# -- the valued forms of the dyad-independent binary terms --------------------------------

#: binary terms with statnet's valued ``form="sum"`` / ``form="nonzero"``
FORM_TERMS = ("absdiff", "absdiffcat", "edgecov", "mm", "nodecov", "nodefactor",
              "nodeicov", "nodeifactor", "nodematch", "nodemix", "nodeocov", "nodeofactor",
              "receiver", "sender", "sociality")
FORMS = ("sum", "nonzero")
#: the value transform h of each form (``DyadicFormKernel``: x_ij times the change of h)
FORM_ITEMS = {"sum": ("pow", [1.0]), "nonzero": ("nonzero", [])}


def _register_form_term(spec):
    @register(spec.name, kinds=spec.kinds, params=(*spec.params, Param("form", "sum")),
              aliases=spec.aliases, family=FAMILY, state=COUNT_STATE,
              cell_attrs=spec.cell_attrs)         # the binary term's (and the value)
    def builder(net, **bound):
        form = bound.pop("form")
        if form not in FORMS:
            raise TermError(f"{spec.name}: form must be 'sum' or 'nonzero', got {form!r}")
        kwargs = dict(bound.pop("...", {}))
        kwargs.update(bound)
        binary = registry.build_term(net, spec.name, (), kwargs)
        if not binary.dyad_independent or getattr(binary.kernel, "stateful", False):
            raise TermError(f"{spec.name}: this use of it is not dyad-independent and has no "
                            "valued form")
        kernel = DyadicFormKernel(binary.kernel, *FORM_ITEMS[form], net.n, net.directed)
        return Term(spec.name, [_form_label(lab, form) for lab in binary.labels], kernel,
                    dyad_independent=True)

    builder.__doc__ = (f"Valued ``{spec.name}``: Σ x_ij y_ij (``form='sum'``, the default) or "
                       f"Σ x_ij [y_ij != 0] (``form='nonzero'``), x_ij the binary "
                       f"{spec.name}'s statistic of the dyad; labels "
                       f"``{spec.name}.<form>...``.\n\n{spec.doc}")
    return builder


for _spec in registry.all_terms():
    if _spec.name in FORM_TERMS:
        _register_form_term(_spec)


# -- B(formula, form): binary terms of a valued network ----------------------------------

#: the value criteria ``B(form=~...)`` takes: statnet's rule, a dyad-independent valued term
#: whose dyad contributes 0 or 1, and 0 for a 0-valued dyad
B_CRITERIA = ("nonzero", "atleast", "atmost", "greaterthan", "smallerthan", "equalto",
              "ininterval")


def _b_criterion(form):
    """(kind, params, label) of ``B()``'s one-sided value formula ``form`` (statnet: "one
    valued term ... dyadwise contribution of either 0 or 1 and ... 0 for a 0-valued
    dyad")."""
    from ._coreterms import transform_value
    calls = [dataclasses.replace(c, name="nonzero") if c.name == "edges" else c
             for c in form.terms]             # the valued edges is nonzero
    if len(calls) != 1 or calls[0].name not in B_CRITERIA:
        got = " + ".join(c.name for c in calls) or "nothing"
        raise TermError(f"term B: form ~{form.text} must be one valued term that counts each "
                        f"dyad 0 or 1 ({', '.join(B_CRITERIA)}), got {got}; or give "
                        "form='sum' or form='nonzero'")
    items, _ = _value_items("B", calls[0])
    if len(items) != 1:
        raise TermError(f"term B: form ~{form.text} has {len(items)} statistics; the value "
                        "criterion must be one (give a single threshold)")
    kind, params, _ = items[0]
    if transform_value(kind, params, 0.0) != 0.0:
        raise TermError(f"term B: form ~{form.text} counts 0-valued dyads (it is 1 at value 0), "
                        "so the binary network would hold every empty dyad; statnet requires a "
                        "criterion that is 0 for a 0-valued dyad (e.g. atleast(1), "
                        "greaterthan(0), ininterval(0, 3))")
    return kind, list(params), form.compact


def _valued_only(name):
    """Whether ``name`` spelt so is a valued term and no binary one (``sum``: the binary
    table has the operator ``Sum``; ``transitiveweights``)."""
    key = name.lower()
    registry._load_families_of(key, COUNT_STATE)
    registry._load_families_of(key, registry.BINARY_STATE)
    return (registry._spelt(name, registry._VALUED_LOOKUP.get(key, []))
            and not registry._spelt(name, registry._LOOKUP.get(key, [])))


@register("B", params=(Param("formula"), Param("form", "sum")), family=FAMILY,
          state=COUNT_STATE)
def b_valued(net, formula, form="sum"):
    """statnet's ``B(formula, form)``: the binary terms of ``formula`` in a valued model.

    * ``form="sum"``: Σ x_ij y_ij, x_ij each term's statistic of the dyad (its change
      statistic on any network): its terms must be dyad-independent (statnet's rule), and
      ``B(~nodecov("a"), form="sum")`` equals ``nodecov("a", form="sum")``;
    * ``form="nonzero"``: the terms on the binary network of the nonzero dyads (any binary
      term, dyad-dependent too);
    * a one-sided formula of one valued 0/1 criterion that is 0 at value 0
      (``~atleast(2)``, ``~greaterthan(1)``, ``~ininterval(0, 3)``, ``~equalto(1)``, ...):
      the terms on the binary network of the dyads that pass it.

    Labels ``B(<form>)~<label>`` (``B(sum)~nodecov.a``, ``B(atleast(2))~triangle``), as
    ergmfit's ``B()`` of binary models (statnet's operator name wrap; no statnet print in
    the reference files confirms them).  A curved term (``gwesp`` with its decay estimated)
    is refused: count models here have no curved parameters (statnet keeps them).
    A dyad-dependent term changes by its binary change statistic when a value crosses the
    criterion: O(1) plus that term's cost per change (:class:`._valued.BinaryViewKernel`).

    >>> import networkx as nx, ergmfit as ef
    >>> g = nx.DiGraph()
    >>> g.add_edge(0, 1, w=2); g.add_edge(1, 2, w=1); g.add_edge(0, 2, w=3); g.add_node(3)
    >>> ef.ERGM(g, "B(~edges, form='sum') + B(~ttriple, form=~atleast(2))", response="w",
    ...         reference="Poisson").statistics()
    {'B(sum)~edges': 6.0, 'B(atleast(2))~ttriple': 0.0}
    """
    from .operators import FormulaArg, _formula, build_formula, formula_calls, wrapped_offsets
    f = _formula("B", formula)
    if isinstance(form, FormulaArg):
        kind, params, name = _b_criterion(form)
    elif isinstance(form, str) and form in FORM_ITEMS:
        (kind, params), name = FORM_ITEMS[form], form
    else:
        raise TermError(f"term B: form must be 'sum', 'nonzero' or a one-sided formula of one "
                        f"valued 0/1 term (~atleast(2), ...), got {getattr(form, 'text', form)!r}")
    for c in formula_calls(f):
        if c.name.lower() == "b":
            raise TermError("term B: B() inside B(): its formula is evaluated on a binary "
                            "network already; write the inner terms without B()")
        if "form" in c.kwargs and not _valued_only(c.name):
            raise TermError(f"term B: {c.name}(form=...) inside B(): the terms inside are "
                            f"binary and take no form=; give it to B() (B(~{c.name}(...), "
                            "form='nonzero')) or write the valued term outside B()")
        if _valued_only(c.name):
            raise TermError(f"term B: {c.name!r} is a valued term; B() wraps binary terms "
                            f"(edges, triangle, nodematch, ...): write {c.name} outside B(), "
                            "beside it in the model's formula")
    terms = build_formula(net, f, "keep")
    if not terms:
        raise TermError("term B: the formula has no terms")
    for t in terms:
        if getattr(t.kernel, "exact_total", False):
            raise TermError(f"term B: {t.name} (a nonlinear operator, Exp/Log/Prod) inside B() "
                            "is not available in count models")
    if curve_leaves("B", terms) is not None:
        bad = ", ".join(dict.fromkeys(t.name for t in terms
                                      if getattr(t, "curve", None) is not None
                                      or getattr(t, "curve_map", None) is not None))
        raise TermError(f"term B: {bad} is curved (its decay estimated, statnet's "
                        "fixed=FALSE); count-valued models in ergmfit have no curved "
                        "parameters yet: fix the decay (gwesp(0.5, fixed=TRUE), "
                        "gwdegree(0.5, fixed=TRUE), ...)")
    independent = all(t.dyad_independent for t in terms)
    if form == "sum" and not independent:
        bad = ", ".join(dict.fromkeys(t.name for t in terms if not t.dyad_independent))
        raise TermError(f"term B: form='sum' (Σ x_ij y_ij) needs dyad-independent terms "
                        f"(statnet's rule); {bad} is not: use form='nonzero' or a value "
                        "criterion such as form=~atleast(2)")
    labels = [f"B({name})~{lab}" for t in terms for lab in t.labels]
    binary = stack("B", terms, labels)
    if len(terms) == 1 and independent and not binary.kernel.stateful:
        # one stateless dyad-independent term: nodecov(form=)'s own kernel
        kernel = DyadicFormKernel(binary.kernel, kind, params, net.n, net.directed)
    else:
        kernel = BinaryViewKernel(binary.kernel, kind, params, net.n, net.directed)
        kernel.follow = not independent
    # form "sum" has no empty-network value (Σ x_ij y_ij); the other forms evaluate the
    # terms on a binary network, empty when every value is 0
    empty = np.zeros(len(labels)) if form == "sum" else binary.on_empty()
    term = Term("B", labels, kernel, empty=empty, dyad_independent=independent)
    term.parts = binary.parts
    if form != "sum":
        # the terms read the values only through this 0/1 criterion (the binary network of
        # the dyads that pass it): a criterion constant on the reference's support makes
        # every statistic constant (``CountFamily.constant_statistics``)
        term.value_view = (kind, list(params))
    cells = [t.cell_attrs for t in terms]
    if independent and all(c is not None for c in cells):
        # each dyad's x_ij is a function of these node attributes at i and j: the count MPLE
        # counts the zero dyads per attribute cell (ZeroCells), as for nodematch(form=)
        term.cell_attrs = list(dict.fromkeys(a for c in cells for a in c))
    # offset() inside B()'s formula fixes that statistic's coefficient, as statnet's B()
    # (wrap.ergm_model) and the binary operators propagate it
    return wrapped_offsets("B", term, terms)


# -- mutual, triad weights, node covariances ----------------------------------------------

MUTUAL_FORMS = ("min", "nabsdiff", "threshold", "product", "geometric")


@register("mutual", kinds=DIRECTED, params=(Param("form", "min", "how the two values combine"),
                                            Param("threshold", 0)),
          family=FAMILY, state=COUNT_STATE)
def mutual_term(net, form, threshold):
    """Reciprocity of a directed valued network: Σ_{i<j} m(y_ij, y_ji), m by ``form``:
    ``"min"`` min(a, b), ``"nabsdiff"`` -|a - b|, ``"threshold"`` [a > threshold and
    b > threshold], ``"product"`` ab, ``"geometric"`` √a √b.  Label ``mutual.<form>``, but
    ``mutual.geom.mean`` for ``"geometric"`` (ergm.count's name)."""
    if form not in MUTUAL_FORMS:
        raise TermError(f"mutual: form must be one of {MUTUAL_FORMS}, got {form!r}")
    t = as_float(threshold, "mutual: threshold")
    label = "mutual.geom.mean" if form == "geometric" else f"mutual.{form}"
    return Term("mutual", [label], MutualKernel(form, t),
                zero_locality=ZeroDyadLocality(near="reverse"))   # reads y_ji alone


_WEIGHT_CHOICES = (("twopath", ("min", "geomean")), ("combine", ("max", "sum")),
                   ("affect", ("min", "geomean")))


def _weights(name, net, twopath, combine, affect):
    args = {"twopath": twopath, "combine": combine, "affect": affect}
    for key, allowed in _WEIGHT_CHOICES:
        if args[key] not in allowed:
            raise TermError(f"{name}: {key} must be {' or '.join(repr(v) for v in allowed)}, "
                            f"got {args[key]!r}")
    kernel = WeightsKernel(name == "cyclicalweights", twopath, combine, affect)
    # at a remote zero dyad no two-path runs through (i, j) or joins i to j: the change is 0
    return Term(name, [f"{name}.{twopath}.{combine}.{affect}"], kernel,
                zero_locality=ZeroDyadLocality(near="twopath"))


_WEIGHT_PARAMS = (Param("twopath", "min"), Param("combine", "max"), Param("affect", "min"))


@register("transitiveweights", params=_WEIGHT_PARAMS, family=FAMILY, state=COUNT_STATE)
def transitiveweights(net, twopath, combine, affect):
    """Σ_{i != j} affect(y_ij, combine_k twopath(y_ik, y_kj)) (Krivitsky 2012, eq. 13; over
    i < j when undirected): twopath ``"min"``/``"geomean"``, combine ``"max"``/``"sum"``,
    affect ``"min"``/``"geomean"``.  Label ``transitiveweights.<twopath>.<combine>.<affect>``."""
    return _weights("transitiveweights", net, twopath, combine, affect)


@register("cyclicalweights", params=_WEIGHT_PARAMS, family=FAMILY, state=COUNT_STATE)
def cyclicalweights(net, twopath, combine, affect):
    """As ``transitiveweights`` with the focus dyad y_ji: Σ_{i != j} affect(y_ji, combine_k
    twopath(y_ik, y_kj)).  Label ``cyclicalweights.<twopath>.<combine>.<affect>``
    (statnet's help also spells the last argument ``affected``: pass it by position)."""
    return _weights("cyclicalweights", net, twopath, combine, affect)


_ROWS = {"nodecovar": (UNDIRECTED, 0), "nodeocovar": (DIRECTED, 1), "nodeicovar": (DIRECTED, 2)}


def _covar(name, net, center, transform, label):
    if center is None:
        raise TermError(f"{name}: give center=TRUE or center=FALSE (statnet's {name}(center, "
                        "transform) has no default for it)")
    c = as_bool(center, f"{name}: center")
    if transform not in ("identity", "sqrt"):
        raise TermError(f"{name}: transform must be 'identity' or 'sqrt', got {transform!r}")
    if net.n < 3:
        raise TermError(f"{name}: divides by n - 2, so the network needs at least 3 nodes; it "
                        f"has {net.n}")
    base = name.replace("sqrt", "")
    rows = _ROWS[base][1]
    root = transform == "sqrt"
    return Term(name, [label], NodeCovarKernel(rows, c, root),
                zero_locality=ZeroDyadLocality(node_features=_row_sums(rows, root)))


def _row_sums(rows, root):
    """The node features of ``NodeCovarKernel``'s change at a zero dyad (i, j): the row
    sums of f(y) (f the identity or √) of i and j -- undirected, of every dyad at the node
    (rows 0); directed, out of it (rows 1) and into it (rows 2), both kept per node."""
    def features(n, directed, dyads, values):
        f = np.sqrt(values.astype(float)) if root else values.astype(float)
        out = np.bincount(dyads[:, 0], weights=f, minlength=n) if len(f) else np.zeros(n)
        into = np.bincount(dyads[:, 1], weights=f, minlength=n) if len(f) else np.zeros(n)
        if rows == 0:
            return (out + into)[:, None]
        return np.stack([out, into], axis=1)
    return features


def _register_covar(name, kinds):
    @register(name, kinds=kinds, params=(Param("center", None), Param("transform", "identity")),
              family=FAMILY, state=COUNT_STATE)
    def builder(net, center, transform):
        return _covar(name, net, center, transform, name)

    star = {"nodecovar": "star(2)", "nodeocovar": "ostar(2)", "nodeicovar": "istar(2)"}[name]
    builder.__doc__ = (f"Covariance of the values incident on each node, the valued {star}: "
                       "Σ over nodes and pairs of their dyads z z' / (n - 2), z the values "
                       "(``transform='sqrt'``: their square roots), centred by their mean over "
                       "the network when ``center`` (non-local).  Label ``" + name + "``.")

    @register(name.replace("covar", "sqrtcovar"), kinds=kinds, params=(Param("center", None),),
              family=FAMILY, state=COUNT_STATE)
    def sqrt_builder(net, center):
        return _covar(name.replace("covar", "sqrtcovar"), net, center, "sqrt",
                      name.replace("covar", "sqrtcovar"))

    sqrt_builder.__doc__ = (f"``{name}(center, transform='sqrt')`` (statnet's deprecated "
                            "spelling; label ``" + name.replace("covar", "sqrtcovar") + "``).")


for _name, (_kinds, _) in _ROWS.items():
    _register_covar(_name, _kinds)

__all__ = ["FORM_TERMS", "MUTUAL_FORMS", "ZeroDyadLocality", "mutual_term", "transitiveweights",
           "cyclicalweights"]

