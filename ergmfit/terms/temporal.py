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
compiled side is :class:`._temporal.TemporalKernel`.

Examples
--------
>>> import networkx as nx
>>> import ergmfit as ef
>>> g0 = nx.path_graph(4); g1 = nx.cycle_graph(4)
>>> ef.ERGM(ef.NetSeries([g0, g1]), "Form(~edges) + Persist(~edges)").statistics()
{'Form~edges': 4.0, 'Persist~edges': 3.0}
"""
from __future__ import annotations

import numpy as np

from ..exceptions import TermError
from ._temporal import TEMPORAL_MODES, TemporalKernel
from .curvemap import keep_curvature
from .operators import _formula, build_formula
from .registry import BOTH, Param, Term, register

FAMILY = "temporal"

#: what each operator evaluates its formula on (for the docs and error messages)
MEANING = {"Form": "y⁻ ∪ y", "Persist": "y⁻ ∩ y", "Diss": "−(y⁻ ∩ y)", "Cross": "y",
           "Change": "y⁻ △ y"}


def previous_ties(net, operator):
    """The previous network's ties of ``net`` ((m, 2) node indices), or a TermError saying
    that ``operator`` needs a series."""
    prev = getattr(net, "previous_ties", None)
    if prev is None:
        raise TermError(f"term {operator}() is a temporal operator: it needs the previous "
                        "network of each transition; give the waves as ef.NetSeries([g0, g1, "
                        "...]) instead of one network")
    return np.ascontiguousarray(prev, dtype=np.int64).reshape(-1, 2)


def temporal_term(net, operator, formula):
    """The Term of ``operator(~formula)`` on ``net`` (a NetSeries' combined network)."""
    f = _formula(operator, formula)
    prev = previous_ties(net, operator)
    terms = build_formula(net, f)
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
    return keep_curvature(operator, term, terms,
                          lambda labs: [f"{operator}~{lab}" for lab in labs])


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
