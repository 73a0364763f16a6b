"""tergm's temporal operators (tergm 4.1.1): ``Form(~f)``, ``Persist(~f)``, ``Diss(~f)``,
``Cross(~f)`` and ``Change(~f)``.

Each evaluates the static terms of ``f`` (any term, curved ones included) on a network made
from the previous network y⁻ and the current one y of a transition y⁻ → y:

* ``Form(~f)``: f(y⁻ ∪ y), the formation network (what formed, plus what was there);
* ``Persist(~f)``: f(y⁻ ∩ y), the ties that persisted;
* ``Diss(~f)``: −f(y⁻ ∩ y) (tergm 4's sign: a positive coefficient favours dissolution);
* ``Cross(~f)``: f(y), the cross-section;
* ``Change(~f)``: f(y⁻ △ y), the ties that changed.

Labels are ``<Operator>~<label>`` (``Form~edges``, ``Persist~gwesp.fixed.0.5``).  The
previous network is the one a :class:`ergmfit.network.series.NetSeries` gives each
transition (``net.previous_ties``); on a network without one the operators refuse.
A model of these operators is the conditional model of y given y⁻ (tergm's CMLE).  The
compiled side is :class:`._coreterms.TemporalKernel` (source `_temporal.pxi`).

Examples
--------
>>> import networkx as nx
>>> import ergmfit as ef
>>> g0 = nx.path_graph(4); g1 = nx.cycle_graph(4)
>>> ef.ERGM(ef.NetSeries([g0, g1]), "Form(~edges) + Persist(~edges)").statistics()
{'Form~edges': 4.0, 'Persist~edges': 3.0}
"""
from __future__ import annotations

import copy

import numpy as np

from ..exceptions import TermError
from ._coreterms import TEMPORAL_MODES, TemporalKernel
from .curvemap import keep_curvature
from .operators import _formula, build_formula, wrapped_offsets
from .registry import BOTH, Param, Term, register

FAMILY = "temporal"

#: what each operator evaluates its formula on (for the docs and error messages)
MEANING = {"Form": "y⁻ ∪ y", "Persist": "y⁻ ∩ y", "Diss": "−(y⁻ ∩ y)", "Cross": "y",
           "Change": "y⁻ △ y"}
#: the dyads on which each operator's statistics can change, by their state in y⁻: absent
#: (False), present (True) or either (None); an interaction of two operators changing on
#: disjoint dyads (Form with Persist or Diss) is zero on every network
CHANGES_ON_PREVIOUS = {"Form": False, "Persist": True, "Diss": True, "Cross": None,
                       "Change": None}


def previous_ties(net, operator):
    """The previous network's ties of ``net`` ((m, 2) node indices), or a TermError saying
    that ``operator`` needs a series."""
    outer = getattr(net, "inside_temporal", None)
    if outer is not None:
        raise TermError(f"term {operator}() inside {outer}(): temporal operators and terms do "
                        f"not nest (the formula of {outer}() is evaluated on one network made "
                        f"of y⁻ and y); write them side by side, e.g. {outer}(~edges) + "
                        f"{operator}(~edges)")
    prev = getattr(net, "previous_ties", None)
    if prev is None:
        raise TermError(f"term {operator}() is a temporal term: it needs the previous "
                        "network of each transition; give the waves as ef.NetSeries([g0, g1, "
                        "...]) instead of one network")
    if 0 in getattr(net, "times", ()):
        raise TermError(f"term {operator}() needs the previous network of every transition, "
                        "but wave 0 (the first) has none: model the waves from 1 on")
    return np.ascontiguousarray(prev, dtype=np.int64).reshape(-1, 2)


def temporal_term(net, operator, formula):
    """The Term of ``operator(~formula)`` on ``net`` (a NetSeries' combined network)."""
    f = _formula(operator, formula)
    prev = previous_ties(net, operator)
    inner_net = copy.copy(net)          # the inner terms see one network, not a series
    inner_net.inside_temporal = operator
    terms = build_formula(inner_net, f, "keep")
    if not terms:
        raise TermError(f"term {operator}(): its formula has no terms")
    mode, sign = TEMPORAL_MODES[operator]
    inner_empty = np.concatenate([t.empty for t in terms])
    kernel = TemporalKernel([t.kernel for t in terms], operator, net.n, net.directed, prev,
                            empty=inner_empty)
    # the statistics at y = ∅: f(∅) for Persist, Diss, Cross; f(y⁻) for Form and Change
    true = np.concatenate([t.on_empty() for t in terms])
    if operator in ("Form", "Change") and len(prev):
        from ._ergm import ERGMModel
        from ..network import NetworkState
        fresh = ERGMModel(NetworkState(net.n, net.directed), [t.kernel for t in terms])
        true = true + fresh.add_ties_accumulate(prev)
    true = sign * true
    labels = [f"{operator}~{lab}" for t in terms for lab in t.labels]
    term = Term(operator, labels, kernel,
                empty=np.zeros(len(true)) if kernel.exact_total else true,
                true_empty=true if kernel.exact_total else None,
                dyad_independent=all(t.dyad_independent for t in terms))
    term.temporal_operator = operator
    # the derived network's (i, j) and (j, i) read y and y⁻ at those two dyads only
    term.reads = "pair" if all(t.locality in ("dyad", "pair") for t in terms) else None
    term.changes_on_previous = CHANGES_ON_PREVIOUS[operator]
    term = keep_curvature(operator, term, terms,
                          lambda labs: [f"{operator}~{lab}" for lab in labs])
    # offset() inside the operator is an offset of the operator's statistic (tergm's
    # Persist(~offset(edges)) is labelled offset(Persist~edges)): its statistics are the
    # inner ones one for one, as B()'s, Label()'s, Passthrough()'s
    return wrapped_offsets(operator, term, terms)


def _register(operator):
    def builder(net, formula):
        return temporal_term(net, operator, formula)
    builder.__name__ = f"{operator.lower()}_operator"
    builder.__doc__ = (f"tergm's ``{operator}(~f)``: the terms of ``f`` on {MEANING[operator]} "
                       f"of each transition y⁻ → y of a NetSeries; labels "
                       f"``{operator}~<label>``.")
    register(operator, kinds=BOTH, params=[Param("formula")], family=FAMILY)(builder)
    return builder


form_operator = _register("Form")
persist_operator = _register("Persist")
diss_operator = _register("Diss")
cross_operator = _register("Cross")
change_operator = _register("Change")


# -- btergm's temporal terms (btergm 1.10.12) -------------------------------------------
# Each is a dyadic covariate of the previous network (or of time) per transition; btergm
# names them edgecov.<name>[[i]] (its formula rewrites them as a list of covariates).

#: memory(type=): the covariate's value on a dyad whose previous tie is present / absent
MEMORY_TYPES = {"autoregression": (1.0, 0.0), "stability": (1.0, -1.0),
                "innovation": (0.0, 1.0), "loss": (-1.0, 0.0)}


def _series_net(net, term):
    outer = getattr(net, "inside_temporal", None)
    if outer is not None:
        raise TermError(f"term {term} inside {outer}(): btergm's temporal terms read the "
                        f"previous wave themselves; write them outside the operator")
    if getattr(net, "previous_ties", None) is None or not hasattr(net, "block_size"):
        raise TermError(f"term {term} is a btergm temporal term: it needs a NetSeries "
                        "(ef.NetSeries([g0, g1, ...]))")
    return net


def _within_block_pairs(net):
    """Every dyad (i, j), i != j, within a block of the series' combined network (i < j
    when undirected), as two index arrays."""
    b, n = net.n_transitions, net.block_size
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    keep = (i != j) if net.directed else (i < j)
    i, j = i[keep], j[keep]
    off = (np.arange(b) * n)[:, None]
    return (i[None, :] + off).ravel(), (j[None, :] + off).ravel()


def _covariate_term(net, label, rows, cols, vals, term):
    from .dyadic import SparseEdgeCovKernel, _csr
    keep = vals != 0
    rows, cols, vals = rows[keep], cols[keep], vals[keep]
    if not net.directed:        # the kernel reads the upper triangle (i < j)
        lo = np.minimum(rows, cols); hi = np.maximum(rows, cols)
        rows, cols = lo, hi
    kernel = SparseEdgeCovKernel(*_csr(net.n, rows.astype(np.int64), cols.astype(np.int64),
                                       vals.astype(np.float64)))
    t = Term(term, [label], kernel, dyad_independent=True)
    t.reads_previous = term != "timecov"
    return t


def _dyad_values(net, on_tie, off_tie, transpose=False):
    """(rows, cols, values) over the within-block dyads: ``on_tie`` where the previous
    network has the tie (j, i) if ``transpose`` else (i, j), ``off_tie`` elsewhere."""
    rows, cols = _within_block_pairs(net)
    prev = previous_ties(net, "memory/delrecip")
    n = net.n
    keys = prev[:, 0] * n + prev[:, 1]
    if not net.directed:
        keys = np.concatenate([keys, prev[:, 1] * n + prev[:, 0]])
    a, b = (cols, rows) if transpose else (rows, cols)
    has = np.isin(a * n + b, keys)
    return rows, cols, np.where(has, on_tie, off_tie).astype(float)


@register("memory", kinds=BOTH, params=[Param("type", "stability"), Param("lag", 1)],
          family=FAMILY)
def memory(net, type="stability", lag=1):
    """btergm's memory term: a dyadic covariate of the previous network of each transition,
    by ``type``: ``"autoregression"`` (1 where the previous tie is present), ``"stability"``
    (1 where present, −1 where absent: ties and non-ties kept), ``"innovation"`` (1 where
    absent), ``"loss"`` (−1 where present).  Label ``edgecov.memory[[i]]`` (btergm's).
    Only ``lag=1`` (the previous wave)."""
    _series_net(net, "memory")
    if type not in MEMORY_TYPES:
        raise TermError(f"term memory: type must be one of {sorted(MEMORY_TYPES)}, got {type!r}")
    if lag != 1:
        raise TermError(f"term memory: only lag=1 (the previous wave) is implemented, got {lag!r}")
    on, off = MEMORY_TYPES[type]
    return _covariate_term(net, "edgecov.memory[[i]]", *_dyad_values(net, on, off), "memory")


@register("delrecip", kinds=BOTH, params=[Param("mutuality", False), Param("lag", 1)],
          family=FAMILY)
def delrecip(net, mutuality=False, lag=1):
    """btergm's delayed reciprocity: the covariate of dyad (i, j) is 1 where the previous
    network has the tie (j, i); with ``mutuality=True`` also −1 where it has not (non-ties
    reciprocated too).  Directed networks only.  Label ``edgecov.delrecip[[i]]``; only
    ``lag=1``."""
    _series_net(net, "delrecip")
    if not net.directed:
        raise TermError("term delrecip: delayed reciprocity needs a directed network")
    if lag != 1:
        raise TermError(f"term delrecip: only lag=1 (the previous wave) is implemented, got "
                        f"{lag!r}")
    return _covariate_term(net, "edgecov.delrecip[[i]]",
                           *_dyad_values(net, 1.0, -1.0 if mutuality else 0.0, transpose=True),
                           "delrecip")


def _time_function(transform):
    """f(t) of btergm's ``transform=function(t) <expr>`` (an R expression of t, evaluated
    without eval by the small R evaluator of .curvemap)."""
    from .curvemap import r_value
    if transform is None:
        return lambda t: 1.0
    text = getattr(transform, "text", transform)
    if not isinstance(text, str):
        raise TermError(f"term timecov: transform must be function(t) <expression of t>, got "
                        f"{transform!r}")
    import re
    m = re.fullmatch(r"\s*function\s*\(\s*(\w+)\s*\)\s*(.+)", text, re.S)
    if not m:
        raise TermError(f"term timecov: transform must read function(t) <expression of t>, "
                        f"got {text!r}")
    var, body = m.group(1), m.group(2).strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1].strip()

    def f(t):
        try:
            return float(np.asarray(r_value(body, {var: float(t)}), dtype=float).ravel()[0])
        except Exception as exc:        # the evaluator's own message names the problem
            raise TermError(f"term timecov: cannot evaluate transform {text!r} at t={t}: "
                            f"{exc}") from None
    return f


@register("timecov", kinds=BOTH,
          params=[Param("covariate", None), Param("minimum", 1), Param("maximum", None),
                  Param("transform", None), Param("onlytime", None)], family=FAMILY)
def timecov(net, covariate=None, minimum=1, maximum=None, transform=None, onlytime=None):
    """btergm's time covariate: on every dyad of wave i (1-based position in the panel, as
    btergm counts: a model with lagged terms starts at i = 2) the value ``transform(i)``
    (default 1), 0 for i below ``minimum`` or above ``maximum`` (default: the last wave); with ``covariate`` (the name of a dyadic
    covariate of the series, see ``NetSeries(edge_covariates=)``) its product with that
    covariate.  Label ``edgecov.timecov1[[i]]`` (``timecov2`` ... for a covariate: btergm
    numbers them; here ``edgecov.timecov.<covariate>[[i]]``)."""
    _series_net(net, "timecov")
    f = _time_function(transform)
    # btergm's time of a modelled wave is its position in the whole panel (1-based): the
    # waves a lagged term drops keep their numbers
    steps = [t + 1 for t in net.times]
    maximum = max(steps) if maximum is None else int(maximum)
    weights = np.array([f(i) if minimum <= i <= maximum else 0.0 for i in steps])
    rows, cols = _within_block_pairs(net)
    vals = weights[rows // net.block_size]
    label = "edgecov.timecov1[[i]]"
    if covariate is not None:
        if not isinstance(covariate, str) or covariate not in net.graph_attrs:
            raise TermError(f"term timecov: covariate must name a dyadic covariate of the "
                            f"series (NetSeries(edge_covariates=...)), got {covariate!r}")
        mat = net.graph_attrs[covariate]
        vals = vals * np.asarray(mat[rows, cols]).ravel()
        label = f"edgecov.timecov.{covariate}[[i]]"
    return _covariate_term(net, label, rows, cols, vals, "timecov")
