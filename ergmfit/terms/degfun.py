"""Functions of the degree distribution, with statnet's ``by``/``attr``/``homophily``
arguments: degree ranges (``degrange``, ``odegrange``, ``idegrange``), ``concurrent``,
``concurrentties``, ``degree1.5``, and the by-attribute forms of ``degree``, ``kstar``,
``gwdegree`` (and their directed siblings).  The two-mode forms (``b1degree``, ...) are in
:mod:`.bipartite`.  All use :class:`._coreterms.DegreeFunctionKernel` (statistics
Σ_v [class(v) = c] f(d_v); O(1) per statistic, O(degree) with ``homophily``).

Notation: d_v the degree (in-/out-degree for the ``i``/``o`` forms), a_v node v's level of
the ``by``/``attr`` attribute; with ``homophily=TRUE`` d_v counts only the neighbours of v's
own level.
"""
from __future__ import annotations

import math

import numpy as np

from ..exceptions import TermError
from ._coreterms import ENDS, FUNCS, DegreeFunctionKernel
from .dyadic import _levels, _nonempty
from .registry import DIRECTED, UNDIRECTED, Param, Term, as_bool, as_float, as_int_list, \
    format_number, register

FAMILY = "degree functions"
INF = float("inf")


class Stat:
    """One statistic: class code (-1 any node), function name and its parameters."""

    def __init__(self, label, func, a=0.0, b=0.0, cls=-1):
        self.label, self.func, self.a, self.b, self.cls = label, func, a, b, cls


def classes(net, attr, term, mode=None):
    """(levels, code of every node) of a categorical attribute; with ``mode`` (1 or 2) of a
    two-mode network only that mode's nodes have a level (the others get -2)."""
    if mode is None:
        lv = _levels(net, attr, term)
        return lv, np.asarray(lv.code, dtype=np.intc)
    lv = _levels(net._mode_view(mode), attr, term)
    code = np.full(net.n, -2, dtype=np.intc)
    lo = 0 if mode == 1 else net.bipartite
    code[lo:lo + len(lv.code)] = lv.code
    return lv, code


def degree_term(net, name, stats, ends, code=None, homophily=False, empty=None):
    """A Term of degree-function statistics (``empty``: value on the empty graph, computed
    from f(0) when not given)."""
    code = np.zeros(net.n, dtype=np.intc) if code is None else code
    cls = [s.cls for s in stats]
    if empty is None:
        empty = []
        for s in stats:
            nodes = int(np.sum(code == s.cls)) if s.cls >= 0 else _n_counted(net, ends)
            f0 = (1.0 if (s.func == "range" and s.a <= 0 < s.b) else
                  1.0 if (s.func == "pow" and s.a == 0) else
                  1.0 if (s.func == "choose" and s.a == 0) else 0.0)
            empty.append(nodes * f0)
    kernel = DegreeFunctionKernel(code, cls, [FUNCS[s.func] for s in stats],
                                  [s.a for s in stats], [min(s.b, 2.0 ** 31) for s in stats],
                                  ENDS[ends], homophily)
    return Term(name, [s.label for s in stats], kernel, empty=empty)


def _n_counted(net, ends):
    if ends == "b1":
        return net.bipartite
    if ends == "b2":
        return net.n - net.bipartite
    return net.n


def ranges(term, frm, to):
    """statnet's degrange from/to vectors (to recycled; Inf allowed)."""
    frm = as_int_list(frm, f"term {term}: from", minimum=0)
    if to is None:
        tos = [INF] * len(frm)
    else:
        tl = to if isinstance(to, (list, tuple)) else [to]
        tos = []
        for v in tl:
            if isinstance(v, str) and v.lower() == "inf":
                v = INF
            v = as_float(v, f"term {term}: to") if not (isinstance(v, float) and math.isinf(v)) \
                else v
            tos.append(v)
        if len(tos) == 1:
            tos = tos * len(frm)
        if len(frm) == 1 and len(tos) > 1:
            frm = frm * len(tos)
        if len(tos) != len(frm):
            raise TermError(f"term {term}: from and to have different lengths")
    for a, b in zip(frm, tos):
        if not b > a:
            raise TermError(f"term {term}: to ({format_number(b) if b < INF else 'Inf'}) must "
                            f"be greater than from ({a})")
    return list(zip(frm, tos))


def range_label(prefix, a, b):
    return f"{prefix}{a}+" if b == INF else f"{prefix}{a}to{format_number(b)}"


def by_stats(net, term, base_stats, by, homophily, ends, mode=None, sep="", levels=None):
    """Expand statistics over the levels of ``by`` (level outer), statnet's order and labels:
    ``<label>.<by><level>``; with homophily one set labelled ``<label>.homophily.<by>``.
    ``levels`` selects (and orders) the levels of ``by`` (statnet level selection; a level
    named by value that no node has gives statistics that are 0, as in statnet)."""
    if by is None:
        if levels is not None:
            raise TermError(f"term {term}: levels selects levels of the by= attribute; give by=")
        return base_stats, None, False
    homophily = as_bool(homophily, f"term {term}: homophily")
    # homophily compares a node's level with its neighbours' -- on a two-mode network those
    # are the other mode's nodes, so the levels are those of every node (statnet:
    # b1degrange(1:2, by="Letter", homophily=TRUE) counts same-Letter partners)
    lv, code = classes(net, by, term, None if homophily else mode)
    if homophily:
        if levels is not None:
            raise TermError(f"term {term}: levels= with homophily=TRUE is not supported "
                            "(statnet then pools the unselected levels into one class)")
        return [Stat(f"{s.label}.homophily.{lv.name}", s.func, s.a, s.b) for s in base_stats], \
            code, True
    sel = _nonempty(term, "levels", levels, lv.select(term, "levels", levels), lv.listing())
    out = []
    for k in sel:
        for s in base_stats:
            out.append(Stat(f"{s.label}.{lv.name}{sep}{lv.labels[k]}", s.func, s.a, s.b, k))
    return out, code, False


_UND_END = {UNDIRECTED: "both"}


def _degrange(net, term, prefix, frm, to, by, homophily, ends, mode=None, levels=None):
    base = [Stat(range_label(prefix, a, b), "range", a, b) for a, b in ranges(term, frm, to)]
    stats, code, hom = by_stats(net, term, base, by, homophily, ends, mode, levels=levels)
    return degree_term(net, term, stats, ends, code, hom)


_RANGE_PARAMS = [Param("from"), Param("to", None), Param("by", None),
                 Param("homophily", False), Param("levels", None)]


@register("degrange", kinds=UNDIRECTED, params=_RANGE_PARAMS, family=FAMILY)
def degrange(net, **kw):
    """Nodes whose degree is in [from, to): one statistic per (from, to) pair (statnet
    ``degrange``); labels ``deg<from>to<to>``, ``deg<from>+`` when to = Inf. ``by``: one set
    per level (``deg1to3.practice1``); ``homophily=TRUE``: degree counted among same-level
    neighbours (``deg1to3.homophily.Grade``).
    """
    return _degrange(net, "degrange", "deg", kw["from"], kw["to"], kw["by"], kw["homophily"],
                     "both", levels=kw["levels"])


@register("odegrange", kinds=DIRECTED, params=_RANGE_PARAMS, family=FAMILY)
def odegrange(net, **kw):
    """Nodes whose out-degree is in [from, to) (statnet ``odegrange``); labels ``odeg<from>to<to>``,
    ``odeg<from>+``; ``by`` and ``homophily`` as for degrange."""
    return _degrange(net, "odegrange", "odeg", kw["from"], kw["to"], kw["by"], kw["homophily"],
                     "tail", levels=kw["levels"])


@register("idegrange", kinds=DIRECTED, params=_RANGE_PARAMS, family=FAMILY)
def idegrange(net, **kw):
    """Nodes whose in-degree is in [from, to) (statnet ``idegrange``); labels ``ideg<from>to<to>``,
    ``ideg<from>+``; ``by`` and ``homophily`` as for degrange."""
    return _degrange(net, "idegrange", "ideg", kw["from"], kw["to"], kw["by"], kw["homophily"],
                     "head", levels=kw["levels"])


def _concurrent(net, term, by, ends, mode=None, prefix=None, levels=None):
    prefix = prefix or term
    base = [Stat(prefix, "range", 2, INF)]
    if by is None and levels is None:
        return degree_term(net, term, base, ends)
    stats, code, _ = by_stats(net, term, base, by, False, ends, mode, sep="", levels=levels)
    for s in stats:
        s.label = s.label.replace(f"{prefix}.", f"{prefix}.", 1)
    return degree_term(net, term, stats, ends, code)


@register("concurrent", kinds=UNDIRECTED, params=[Param("by", None), Param("levels", None)],
          family=FAMILY, bounds="increasing")
def concurrent(net, by=None, levels=None):
    """Nodes with degree ≥ 2 (statnet ``concurrent``); ``by``: per level
    (``concurrent.Grade7``)."""
    return _concurrent(net, "concurrent", by, "both", levels=levels)


@register("concurrentties", kinds=UNDIRECTED, params=[Param("by", None), Param("levels", None)],
          family=FAMILY)
def concurrentties(net, by=None, levels=None):
    """Ties beyond the first at each node, Σ_v max(d_v − 1, 0) (statnet ``concurrentties``);
    ``by``: per level (``concurrentties.Grade7``)."""
    base = [Stat("concurrentties", "excess")]
    stats, code, _ = by_stats(net, "concurrentties", base, by, False, "both", levels=levels)
    return degree_term(net, "concurrentties", stats, "both", code)


def _pow(net, term, ends):
    return degree_term(net, term, [Stat(term, "pow", 1.5)], ends)


def _register_pow(name, kinds, ends, doc):
    def build(net):
        return _pow(net, name, ends)
    build.__name__ = build.__qualname__ = "term_" + name.replace(".", "_")
    build.__doc__ = doc
    register(name, kinds=kinds, family=FAMILY)(build)


# Σ_v d_v^{3/2} and its directed forms, plus statnet ≤ 4.7's deprecated names of them
# (removed in 4.8) with their old labels, so 4.4-era formulas keep working.
for _args in (
        ("degree1.5", UNDIRECTED, "both", "Σ_v d_v^{3/2} (statnet ``degree1.5``)."),
        ("idegree1.5", DIRECTED, "head", "Σ_v din_v^{3/2} (statnet ``idegree1.5``)."),
        ("odegree1.5", DIRECTED, "tail", "Σ_v dout_v^{3/2} (statnet ``odegree1.5``)."),
        ("degreepopularity", UNDIRECTED, "both",
         "statnet's old (deprecated, removed in 4.8) name of ``degree1.5``; label "
         "``degreepopularity`` as statnet 4.4 printed it."),
        ("idegreepopularity", DIRECTED, "head",
         "statnet's old name of ``idegree1.5`` (label ``idegreepopularity``)."),
        ("odegreepopularity", DIRECTED, "tail",
         "statnet's old name of ``odegree1.5`` (label ``odegreepopularity``).")):
    _register_pow(*_args)


# -- by/attr forms of the terms of degree.py (called from there) ---------------------

def degree_by(net, term, prefix, d, by, homophily, ends, mode=None, levels=None):
    """degree(d, by=, homophily=, levels=): labels ``deg<d>.<by><level>`` /
    ``deg<d>.homophily.<by>``."""
    ds = as_int_list(d, f"term {term}: d", minimum=0)
    base = [Stat(f"{prefix}{v}", "range", v, v + 1) for v in ds]
    stats, code, hom = by_stats(net, term, base, by, homophily, ends, mode, levels=levels)
    return degree_term(net, term, stats, ends, code, hom)


def gw_attr(net, term, short, decay, attr, ends, mode=None, levels=None):
    """gwdegree(α, fixed=TRUE, attr=, levels=): one GW degree statistic per (selected) level
    of the node (labels ``gwdeg<α>.<attr><level>``)."""
    r = 1.0 - math.exp(-decay)
    stats, code, _ = by_stats(net, term, [Stat(f"{short}{format_number(decay)}", "gw", r)],
                              attr, False, ends, mode, levels=levels)
    return degree_term(net, term, stats, ends, code)


def gw_curved_counts(net, term, prefix, cutoff, n_max, ends):
    """The statistics of a curved GW degree term (fixed=FALSE): degree counts 1..K,
    K = min(cutoff, n_max), labels ``<prefix>#k``."""
    top = min(int(cutoff), int(n_max))
    stats = [Stat(f"{prefix}#{v}", "range", v, v + 1) for v in range(1, top + 1)]
    return degree_term(net, term, stats, ends)
