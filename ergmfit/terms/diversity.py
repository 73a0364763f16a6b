"""Neighbour diversity terms of statnet ``ergm`` 4.6+ (kernel: :class:`._coreterms.
DiversityKernel`): Σ over nodes of the range of a numeric attribute over the node's
neighbours (0 with fewer than two), and Σ over nodes of the number of distinct levels of a
categorical attribute among its neighbours.

* ``nodecovrange``: every neighbour; on a directed network the range over the
  out-neighbours plus the range over the in-neighbours (statnet's definition);
* ``nodefactordistinct``: every neighbour (directed: the levels of the out- and
  in-neighbours together);
* ``nodeocovrange`` / ``nodeofactordistinct``: out-neighbours; ``nodeicovrange`` /
  ``nodeifactordistinct``: in-neighbours;
* ``b1covrange`` / ``b1factordistinct``: the mode-1 nodes, over their (mode-2) neighbours'
  values; ``b2covrange`` / ``b2factordistinct``: the mode-2 nodes over mode-1 values.

Labels ``<term>.<attr>``.  statnet 4.4 (the reference in statnet_ext.json) has none of these
terms; their values are checked against direct counts (tests/terms/test_compositions.py).
"""
from __future__ import annotations

import numpy as np

from ..exceptions import TermError
from ._coreterms import DiversityKernel
from .degfun import classes
from .dyadic import _nonempty, _numeric_attr
from .registry import BOTH, DIRECTED, UNDIRECTED, Param, Term, register

FAMILY = "neighbour diversity"

# name -> (count the tail's statistic, the head's, mode whose values are read or None)
_FORMS = {"node": (True, True, None), "nodeo": (True, False, None),
          "nodei": (False, True, None), "b1": (True, False, 2), "b2": (False, True, 1)}


def _values(net, term, attr, mode):
    if mode is None:
        return _numeric_attr(net, attr, term)
    if net.bipartite is None:
        raise TermError(f"term {term} is for two-mode networks (give bipartite=)")
    if not isinstance(attr, str):
        raise TermError(f"term {term}: attr must be the name of a numeric attribute")
    x = np.zeros(net.n)
    lo = 0 if mode == 1 else net.bipartite
    vals = net.mode_attribute(attr, mode, numeric=True)
    x[lo:lo + len(vals)] = vals
    return x


def _codes(net, term, attr, levels, mode):
    if mode is not None and net.bipartite is None:
        raise TermError(f"term {term} is for two-mode networks (give bipartite=)")
    lv, code = classes(net, attr, term, mode)
    sel = _nonempty(term, "levels", levels,
                    lv.select(term, "levels", levels), lv.listing())
    keep = np.zeros(len(lv), dtype=bool)
    keep[sel] = True
    out = np.where((code >= 0) & keep[np.maximum(code, 0)], code, -1).astype(np.intc)
    return lv, out


def _covrange(net, form, attr):
    term = f"{form}covrange"
    tail, head, mode = _FORMS[form]
    x = _values(net, term, attr, mode)
    # directed nodecovrange: the range over the out-neighbours plus that over the
    # in-neighbours (statnet's), so no "both" set here
    return Term(term, [f"{term}.{attr}"], DiversityKernel("range", x, tail, head, False))


def _distinct(net, form, attr, levels):
    term = f"{form}factordistinct"
    tail, head, mode = _FORMS[form]
    lv, code = _codes(net, term, attr, levels, mode)
    return Term(term, [f"{term}.{lv.name}"],
                DiversityKernel("distinct", code, tail, head, form == "node" and net.directed))


@register("nodecovrange", kinds=BOTH, params=[Param("attr")], family=FAMILY)
def nodecovrange(net, attr):
    """Σ over nodes of the range (max − min) of ``attr`` over the node's neighbours; directed:
    over its out-neighbours plus over its in-neighbours (label ``nodecovrange.<attr>``)."""
    return _covrange(net, "node", attr)


@register("nodeocovrange", kinds=DIRECTED, params=[Param("attr")], family=FAMILY)
def nodeocovrange(net, attr):
    """Σ over nodes of the range of ``attr`` over the node's out-neighbours."""
    return _covrange(net, "nodeo", attr)


@register("nodeicovrange", kinds=DIRECTED, params=[Param("attr")], family=FAMILY)
def nodeicovrange(net, attr):
    """Σ over nodes of the range of ``attr`` over the node's in-neighbours."""
    return _covrange(net, "nodei", attr)


@register("b1covrange", kinds=UNDIRECTED, params=[Param("attr")], family=FAMILY)
def b1covrange(net, attr):
    """Σ over mode-1 nodes of the range of the (mode-2) ``attr`` over their neighbours."""
    return _covrange(net, "b1", attr)


@register("b2covrange", kinds=UNDIRECTED, params=[Param("attr")], family=FAMILY)
def b2covrange(net, attr):
    """Σ over mode-2 nodes of the range of the (mode-1) ``attr`` over their neighbours."""
    return _covrange(net, "b2", attr)


_DISTINCT = [Param("attr"), Param("levels", True)]


@register("nodefactordistinct", kinds=BOTH, params=_DISTINCT, family=FAMILY)
def nodefactordistinct(net, attr, levels=True):
    """Σ over nodes of the number of distinct levels of ``attr`` among the node's neighbours
    (``levels``: the levels counted; label ``nodefactordistinct.<attr>``)."""
    return _distinct(net, "node", attr, levels)


@register("nodeofactordistinct", kinds=DIRECTED, params=_DISTINCT, family=FAMILY)
def nodeofactordistinct(net, attr, levels=True):
    """Σ over nodes of the number of distinct levels of ``attr`` among its out-neighbours."""
    return _distinct(net, "nodeo", attr, levels)


@register("nodeifactordistinct", kinds=DIRECTED, params=_DISTINCT, family=FAMILY)
def nodeifactordistinct(net, attr, levels=True):
    """Σ over nodes of the number of distinct levels of ``attr`` among its in-neighbours."""
    return _distinct(net, "nodei", attr, levels)


@register("b1factordistinct", kinds=UNDIRECTED, params=_DISTINCT, family=FAMILY)
def b1factordistinct(net, attr, levels=True):
    """Σ over mode-1 nodes of the number of distinct (mode-2) levels among their neighbours."""
    return _distinct(net, "b1", attr, levels)


@register("b2factordistinct", kinds=UNDIRECTED, params=_DISTINCT, family=FAMILY)
def b2factordistinct(net, attr, levels=True):
    """Σ over mode-2 nodes of the number of distinct (mode-1) levels among their neighbours."""
    return _distinct(net, "b2", attr, levels)
