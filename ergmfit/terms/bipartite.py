"""Two-mode (bipartite) terms: statnet's ``b1*`` / ``b2*`` terms.

A two-mode network has n1 mode-1 nodes (0..n1-1, statnet's "actors", ``b1``) and n2 mode-2
nodes (statnet's "events", ``b2``); ties join the modes.  Attributes may be defined on one
mode only (the other mode's values are ignored).  Degree-type terms use
:class:`._coreterms.DegreeFunctionKernel` (O(1) per change); shared partners, homophilous
two-paths and star mixing use the kernels of :mod:`._coreterms` (`_bipartite.pxi`) (O(degree)).  Labels and
arguments follow statnet ``ergm`` 4.4.
"""
from __future__ import annotations

import math

import numpy as np

from ..exceptions import TermError
from ..formula import AsIs
from ._coreterms import BipartiteMatchKernel, BipartiteSPKernel, BipartiteStarMixKernel
from ._coreterms import FactorKernel, NodeCovKernel
from . import degfun
from .degfun import INF, Stat, by_stats, classes, degree_term, range_label, ranges
from .curved import (GeometricWeights, degree_max, make_curved, partner_max, start_decay,
                     warn_beyond_cutoff)
from .degree import star_attr
from .dyadic import _nonempty, covariate_columns, select_levels
from .registry import UNDIRECTED, Param, Term, as_bool, as_float, as_int_list, format_number, \
    register

FAMILY = "two-mode (bipartite)"
_END = {1: "b1", 2: "b2"}
_KERNEL_END = {1: 2, 2: 1}      # FactorKernel/NodeCovKernel: tail (i, mode 1) / head (j, mode 2)


def _need_bipartite(net, term):
    if net.bipartite is None:
        raise TermError(f"term {term} is for two-mode (bipartite) networks; this network is "
                        "one-mode (give a networkx graph with the node attribute 'bipartite' "
                        "= 0/1, or Network(..., bipartite=n1))")


def _size(net, mode):
    return net.bipartite if mode == 1 else net.n - net.bipartite


def _no_levels(term, levels):
    if levels is not None:
        raise TermError(f"term {term}: levels selects levels of attr=; give attr= too")


# -- degrees -------------------------------------------------------------------------

def _bdegree(net, mode, d, by, levels):
    term = f"b{mode}degree"
    _need_bipartite(net, term)
    ds = as_int_list(d, f"term {term}: d", minimum=0)
    if by is None and levels is None:
        stats = [Stat(f"{term}{v}", "range", v, v + 1) for v in ds]
        return degree_term(net, term, stats, _END[mode])
    return degfun.degree_by(net, term, f"b{mode}deg", ds, by, False, _END[mode], mode, levels)


_BDEG = [Param("d"), Param("by", None), Param("levels", None)]


@register("b1degree", kinds=UNDIRECTED, params=_BDEG, family=FAMILY)
def b1degree(net, d, by=None, levels=None):
    """Mode-1 nodes of degree exactly d, one statistic per d (labels ``b1degree<d>``);
    ``by``: per level of a mode-1 attribute (``b1deg<d>.<by><level>``).

    Differs from statnet 4.4 for d = 0: statnet's b1degree(0) (and b1degrange(from=0))
    also counts the n2 mode-2 nodes on the empty graph, exceeding the true count by n2;
    ergmfit gives the true count (b2degree: by n1)."""
    return _bdegree(net, 1, d, by, levels)


@register("b2degree", kinds=UNDIRECTED, params=_BDEG, family=FAMILY)
def b2degree(net, d, by=None, levels=None):
    """Mode-2 nodes of degree exactly d (labels ``b2degree<d>``, ``b2deg<d>.<by><level>``)."""
    return _bdegree(net, 2, d, by, levels)


def _bstar(net, mode, k, attr, levels):
    term = f"b{mode}star"
    _need_bipartite(net, term)
    if attr is not None:
        # k-stars centred on the mode whose nodes all share the class: attr read on every
        # node, the levels not selected pooled into one class (statnet 4, see star_attr)
        return star_attr(net, term, k, attr, _END[mode], levels)
    _no_levels(term, levels)
    ks = as_int_list(k, f"term {term}: k", minimum=1)
    return degree_term(net, term, [Stat(f"{term}{v}", "choose", v) for v in ks], _END[mode])


_BSTAR = [Param("k"), Param("attr", None), Param("levels", None)]


@register("b1star", kinds=UNDIRECTED, params=_BSTAR, family=FAMILY)
def b1star(net, k, attr=None, levels=None):
    """k-stars centred on mode-1 nodes, Σ_{v in mode 1} C(d_v, k) (labels ``b1star<k>``);
    ``attr``: only stars whose centre and leaves share the level (``b1star<k>.<attr>``);
    ``levels``: the levels kept apart, every other level pooled into one class (as
    statnet 4's kstar/b1star recode them; the label stays ``b1star<k>.<attr>``)."""
    return _bstar(net, 1, k, attr, levels)


@register("b2star", kinds=UNDIRECTED, params=_BSTAR, family=FAMILY)
def b2star(net, k, attr=None, levels=None):
    """k-stars centred on mode-2 nodes (labels ``b2star<k>``, ``b2star<k>.<attr>``;
    ``levels`` as for b1star)."""
    return _bstar(net, 2, k, attr, levels)


def _bconcurrent(net, mode, by, levels):
    term = f"b{mode}concurrent"
    _need_bipartite(net, term)
    base = [Stat(term, "range", 2, INF)]
    stats, code, _ = by_stats(net, term, base, by, False, _END[mode], mode, levels=levels)
    return degree_term(net, term, stats, _END[mode], code)


@register("b1concurrent", kinds=UNDIRECTED, params=[Param("by", None), Param("levels", None)],
          family=FAMILY)
def b1concurrent(net, by=None, levels=None):
    """Mode-1 nodes with degree ≥ 2 (``b1concurrent``; ``by``: ``b1concurrent.<by><level>``)."""
    return _bconcurrent(net, 1, by, levels)


@register("b2concurrent", kinds=UNDIRECTED, params=[Param("by", None), Param("levels", None)],
          family=FAMILY)
def b2concurrent(net, by=None, levels=None):
    """Mode-2 nodes with degree ≥ 2 (``b2concurrent``; ``by``: ``b2concurrent.<by><level>``)."""
    return _bconcurrent(net, 2, by, levels)


def _bdegrange(net, mode, kw):
    term = f"b{mode}degrange"
    _need_bipartite(net, term)
    base = [Stat(range_label(f"b{mode}deg", a, b), "range", a, b)
            for a, b in ranges(term, kw["from"], kw["to"])]
    stats, code, hom = by_stats(net, term, base, kw["by"], kw["homophily"], _END[mode], mode,
                                levels=kw["levels"])
    return degree_term(net, term, stats, _END[mode], code, hom)


_BRANGE = [Param("from"), Param("to", None), Param("by", None), Param("homophily", False),
           Param("levels", None)]


@register("b1degrange", kinds=UNDIRECTED, params=_BRANGE, family=FAMILY)
def b1degrange(net, **kw):
    """Mode-1 nodes with degree in [from, to) (labels ``b1deg<from>to<to>``, ``b1deg<from>+``;
    ``by``/``homophily`` as for degrange).  With from = 0 statnet 4.4 adds n2 (see
    b1degree); ergmfit gives the true count."""
    return _bdegrange(net, 1, kw)


@register("b2degrange", kinds=UNDIRECTED, params=_BRANGE, family=FAMILY)
def b2degrange(net, **kw):
    """Mode-2 nodes with degree in [from, to) (labels ``b2deg<from>to<to>``, ``b2deg<from>+``)."""
    return _bdegrange(net, 2, kw)


def _bmindegree(net, mode, d, by, levels):
    term = f"b{mode}mindegree"
    _need_bipartite(net, term)
    ds = as_int_list(d, f"term {term}: d", minimum=0)
    base = [Stat(f"b{mode}mindeg{v}", "range", v, INF) for v in ds]
    stats, code, _ = by_stats(net, term, base, by, False, _END[mode], mode, levels=levels)
    return degree_term(net, term, stats, _END[mode], code)


@register("b1mindegree", kinds=UNDIRECTED, params=[Param("d"), Param("by", None),
                                                   Param("levels", None)], family=FAMILY)
def b1mindegree(net, d, by=None, levels=None):
    """Mode-1 nodes with degree ≥ d, one statistic per d (labels ``b1mindeg<d>``)."""
    return _bmindegree(net, 1, d, by, levels)


@register("b2mindegree", kinds=UNDIRECTED, params=[Param("d"), Param("by", None),
                                                   Param("levels", None)], family=FAMILY)
def b2mindegree(net, d, by=None, levels=None):
    """Mode-2 nodes with degree ≥ d, one statistic per d (labels ``b2mindeg<d>``)."""
    return _bmindegree(net, 2, d, by, levels)


def _gwb(net, mode, decay, fixed, attr, cutoff, levels):
    term = f"gwb{mode}degree"
    _need_bipartite(net, term)
    if attr is None:
        _no_levels(term, levels)
    fixed = as_bool(fixed, f"term {term}: fixed")
    cut = as_int_list(cutoff, f"term {term}: cutoff", minimum=1)[0]
    if not fixed:
        if attr is not None:
            # statnet refuses it too (ergm 4.4, for every gw*degree: "Using 'fixed=FALSE'
            # with an attribute is not implemented at this time. Use 'fixed=TRUE'."); its
            # 4.12 help page documents no curved form with attr
            raise TermError(f"term {term}: attr= with fixed=FALSE (the curved form) is not "
                            f"implemented, as in statnet; use fixed=TRUE with a decay, e.g. "
                            f"{term}(0.5, fixed=TRUE, attr={attr!r})")
        return _curved(net, term, decay, cut, mode, "degree")
    if decay is None:
        raise TermError(f"term {term}: fixed=TRUE needs the decay, e.g. {term}(0.5, fixed=TRUE)")
    decay = as_float(decay, f"term {term}: decay")
    if attr is not None:
        return degfun.gw_attr(net, term, f"gwb{mode}deg", decay, attr, _END[mode], mode, levels)
    r = 1.0 - math.exp(-decay)
    return degree_term(net, term, [Stat(f"gwb{mode}deg.fixed.{format_number(decay)}", "gw", r)],
                       _END[mode])


_GWB = [Param("decay", None), Param("fixed", False), Param("attr", None), Param("cutoff", 30),
        Param("levels", None)]


@register("gwb1degree", kinds=UNDIRECTED, params=_GWB, family=FAMILY)
def gwb1degree(net, decay=None, fixed=False, attr=None, cutoff=30, levels=None):
    """Geometrically weighted mode-1 degree, e^α Σ_{v in mode 1} {1 − (1 − e^−α)^d_v}
    (label ``gwb1deg.fixed.<α>``; ``attr``: per level, ``gwb1deg<α>.<attr><level>``).
    fixed=FALSE gives the curved term's statistics, the degree counts 1..min(cutoff, n2)
    (``gwb1degree#<k>``)."""
    return _gwb(net, 1, decay, fixed, attr, cutoff, levels)


@register("gwb2degree", kinds=UNDIRECTED, params=_GWB, family=FAMILY)
def gwb2degree(net, decay=None, fixed=False, attr=None, cutoff=30, levels=None):
    """Geometrically weighted mode-2 degree (label ``gwb2deg.fixed.<α>``; curved:
    ``gwb2degree#<k>``, k = 1..min(cutoff, n1))."""
    return _gwb(net, 2, decay, fixed, attr, cutoff, levels)


# -- nodal covariates ------------------------------------------------------------------

def _bfactor(net, mode, attr, base, levels):
    term = f"b{mode}factor"
    _need_bipartite(net, term)
    lv, code = classes(net, attr, term, mode)
    if base is not None and not (isinstance(base, int) and base == 1) and \
            isinstance(levels, int) and levels == -1:
        levels = [-int(b) for b in (base if isinstance(base, list) else [base])] if base else None
    sel = _nonempty(term, "levels", levels,
                    lv.select(term, "levels", levels), lv.listing())
    stat = np.full(len(lv), -1, dtype=np.intc)
    stat[sel] = np.arange(len(sel), dtype=np.intc)
    full = np.where(code >= 0, stat[np.maximum(code, 0)], -1).astype(np.intc)
    labels = [f"{term}.{lv.name}.{lv.labels[k]}" for k in sel]
    return Term(term, labels, FactorKernel(full, len(sel), _KERNEL_END[mode]),
                dyad_independent=True)


_BFACTOR = [Param("attr"), Param("base", 1), Param("levels", -1)]


@register("b1factor", kinds=UNDIRECTED, params=_BFACTOR, family=FAMILY,
          cell_attrs="attr")
def b1factor(net, attr, base=1, levels=-1):
    """Factor effect of a mode-1 attribute: per kept level ℓ, the ties of mode-1 nodes of
    level ℓ (labels ``b1factor.<attr>.<level>``; first level dropped by default)."""
    return _bfactor(net, 1, attr, base, levels)


@register("b2factor", kinds=UNDIRECTED, params=_BFACTOR, family=FAMILY,
          cell_attrs="attr")
def b2factor(net, attr, base=1, levels=-1):
    """Factor effect of a mode-2 attribute (labels ``b2factor.<attr>.<level>``)."""
    return _bfactor(net, 2, attr, base, levels)


def _bcov(net, mode, attr):
    term = f"b{mode}cov"
    _need_bipartite(net, term)

    def one(name):
        if not isinstance(name, str):
            raise TermError(f"term {term}: attr must be the name of a numeric attribute "
                            "(or several names)")
        x = np.zeros(net.n)
        vals = net.mode_attribute(name, mode, numeric=True)
        lo = 0 if mode == 1 else net.bipartite
        x[lo:lo + len(vals)] = vals
        return Term(term, [f"{term}.{name}"], NodeCovKernel(x, _KERNEL_END[mode]),
                    dyad_independent=True)
    return covariate_columns(term, attr, one)


@register("b1cov", kinds=UNDIRECTED, params=[Param("attr")], family=FAMILY,
          cell_attrs="attr")
def b1cov(net, attr):
    """Main effect of a numeric mode-1 attribute: Σ_{ties (u, v)} x_u (label ``b1cov.<attr>``)."""
    return _bcov(net, 1, attr)


@register("b2cov", kinds=UNDIRECTED, params=[Param("attr")], family=FAMILY,
          cell_attrs="attr")
def b2cov(net, attr):
    """Main effect of a numeric mode-2 attribute: Σ_{ties (u, v)} x_v (label ``b2cov.<attr>``)."""
    return _bcov(net, 2, attr)


def _bsociality(net, mode, nodes):
    term = f"b{mode}sociality"
    _need_bipartite(net, term)
    size = _size(net, mode)
    lo = 0 if mode == 1 else net.bipartite
    labels_all = [str(lo + k + 1) for k in range(size)]
    listing = f"mode {mode} has nodes {lo + 1}..{lo + size}"
    sel = _nonempty(term, "nodes", nodes,
                    select_levels(term, "nodes", labels_all, nodes, listing), listing)
    code = np.full(net.n, -1, dtype=np.intc)
    code[[lo + k for k in sel]] = np.arange(len(sel), dtype=np.intc)
    return Term(term, [f"{term}{labels_all[k]}" for k in sel],
                FactorKernel(code, len(sel), _KERNEL_END[mode]), dyad_independent=True)


_BSOC = [Param("nodes", -1), Param("attr", None), Param("levels", None)]


def _no_sociality_attr(term, attr, levels):
    if attr is not None or levels is not None:
        raise TermError(f"term {term}: attr= and levels= (statnet 3.x's form) are not "
                        f"supported; statnet 4 takes {term}(nodes=...) only")


@register("b1sociality", kinds=UNDIRECTED, params=_BSOC, family=FAMILY)
def b1sociality(net, nodes=-1, attr=None, levels=None):
    """Degree of each selected mode-1 node (labels ``b1sociality<k>``, k its 1-based index;
    ``nodes`` indexes mode 1; default -1: all but the first)."""
    _no_sociality_attr("b1sociality", attr, levels)
    return _bsociality(net, 1, nodes)


@register("b2sociality", kinds=UNDIRECTED, params=_BSOC, family=FAMILY)
def b2sociality(net, nodes=-1, attr=None, levels=None):
    """Degree of each selected mode-2 node (labels ``b2sociality<k>``, k its 1-based index in
    the whole network; ``nodes`` indexes mode 2; default -1: all but the first)."""
    _no_sociality_attr("b2sociality", attr, levels)
    return _bsociality(net, 2, nodes)


# -- shared partners -------------------------------------------------------------------

def _bdsp(net, mode, d):
    term = f"b{mode}dsp"
    _need_bipartite(net, term)
    ds = as_int_list(d, f"term {term}: d", minimum=0)
    size = _size(net, mode)
    empty = [size * (size - 1) / 2 if v == 0 else 0.0 for v in ds]
    return Term(term, [f"{term}{v}" for v in ds], BipartiteSPKernel(mode, ds), empty=empty)


@register("b1dsp", kinds=UNDIRECTED, params=[Param("d")], family=FAMILY)
def b1dsp(net, d):
    """Pairs of mode-1 nodes with exactly d common (mode-2) neighbours, one statistic per d
    (labels ``b1dsp<d>``)."""
    return _bdsp(net, 1, d)


@register("b2dsp", kinds=UNDIRECTED, params=[Param("d")], family=FAMILY)
def b2dsp(net, d):
    """Pairs of mode-2 nodes with exactly d common neighbours (labels ``b2dsp<d>``)."""
    return _bdsp(net, 2, d)


def _gwbdsp(net, mode, decay, fixed, cutoff):
    term = f"gwb{mode}dsp"
    _need_bipartite(net, term)
    fixed = as_bool(fixed, f"term {term}: fixed")
    if not fixed:
        cut = as_int_list(cutoff, f"term {term}: cutoff", minimum=1)[0]
        return _curved(net, term, None if decay == 0 else decay, cut, mode, "dsp")
    decay = as_float(decay, f"term {term}: decay")
    r = 1.0 - math.exp(-decay)
    # statnet 4.4 sums the weights over b*dsp(1:cutoff) also with fixed=TRUE (its test prints
    # gwb1dsp(.3, TRUE, 1) = 49 on bipnw: the pair with 2 shared partners adds nothing);
    # cutoff=Inf gives the untruncated sum of statnet >= 4.5, whose cutoff acts only when
    # fixed=FALSE (ergm issues #485, #506).
    cut = 0 if _is_inf(cutoff) else as_int_list(cutoff, f"term {term}: cutoff", minimum=1)[0]
    if 0 < cut < _size(net, 3 - mode):
        warn_beyond_cutoff(term, cut, partner_max(net, _END[mode]),
                           f"pair of mode-{mode} nodes", fixed=True)
    return Term(term, [f"gwb{mode}dsp.fixed.{format_number(decay)}"],
                BipartiteSPKernel(mode, None, r, True, cut))


def _curved(net, term, decay, cut, mode, kind):
    """The curved form of gwb<mode>degree / gwb<mode>dsp (fixed=FALSE): the counts of 1 ... K
    ties (shared partners), K = min(cutoff, size of the other mode), with the coefficients
    <term> and <term>.decay, as statnet's curved gw* terms (a warning when the observed
    network has a count above K: :func:`.curved.warn_beyond_cutoff`)."""
    top = _size(net, 3 - mode)
    K = min(int(cut), top)
    if K < 1:
        raise TermError(f"term {term}: the curved form needs nodes in mode {3 - mode}")
    if kind == "degree":
        counts = degfun.gw_curved_counts(net, term, term, K, top, _END[mode])
        seen, what = degree_max(net, _END[mode]), "ties"
    else:
        ds = list(range(1, K + 1))
        counts = Term(term, [f"b{mode}dsp#{v}" for v in ds], BipartiteSPKernel(mode, ds))
        seen, what = partner_max(net, _END[mode]), "shared partners"
    if K < top:
        warn_beyond_cutoff(term, K, seen, "pair of mode-1 nodes" if kind == "dsp" and mode == 1
                           else "pair of mode-2 nodes" if kind == "dsp"
                           else f"mode-{mode} node", what)
    return make_curved(term, counts, list(counts.labels), [term, f"{term}.decay"],
                       GeometricWeights(K), start_decay(term, decay))


def _is_inf(x):
    return isinstance(x, float) and math.isinf(x) and x > 0


_GWBDSP = [Param("decay", 0.0), Param("fixed", False), Param("cutoff", 30)]


@register("gwb1dsp", kinds=UNDIRECTED, params=_GWBDSP, family=FAMILY)
def gwb1dsp(net, decay=0.0, fixed=False, cutoff=30):
    """Geometrically weighted shared partners of mode-1 pairs,
    Σ_{pairs} e^α {1 − (1 − e^−α)^sp} over the pairs with 1 ≤ sp ≤ cutoff, as statnet 4.4
    (label ``gwb1dsp.fixed.<α>``; ``cutoff=Inf``: over all pairs, as statnet 4.12, where
    cutoff has no effect with fixed=TRUE); fixed=FALSE gives the counts b1dsp
    1..min(cutoff, n2) (``b1dsp#<k>``)."""
    return _gwbdsp(net, 1, decay, fixed, cutoff)


@register("gwb2dsp", kinds=UNDIRECTED, params=_GWBDSP, family=FAMILY)
def gwb2dsp(net, decay=0.0, fixed=False, cutoff=30):
    """Geometrically weighted shared partners of mode-2 pairs (label ``gwb2dsp.fixed.<α>``;
    pairs with more than ``cutoff`` shared partners add nothing, as in statnet 4.4, unless
    ``cutoff=Inf``; curved: ``b2dsp#<k>``, k = 1..min(cutoff, n1))."""
    return _gwbdsp(net, 2, decay, fixed, cutoff)


# -- homophily and mixing ----------------------------------------------------------------

def _bnodematch(net, mode, attr, diff, keep, alpha, beta, by_other, levels):
    term = f"b{mode}nodematch"
    _need_bipartite(net, term)
    diff = as_bool(diff, f"term {term}: diff")
    alpha = as_float(alpha, f"term {term}: alpha")
    beta = as_float(beta, f"term {term}: beta")
    for name, v in (("alpha", alpha), ("beta", beta)):
        if not 0 <= v <= 1:
            raise TermError(f"term {term}: {name}={format_number(v)}; statnet takes a discount "
                            f"between 0 and 1 inclusive")
    if alpha != 1 and beta != 1:
        # statnet's help: "only one should be set at one time"; statnet 4.4 then uses beta
        alpha = 1.0
    lv, code = classes(net, attr, term, mode)
    # statnet: levels selects; the deprecated keep indexes the levels only without levels
    argname, spec = ("levels", levels) if levels is not None or keep is None else ("keep", keep)
    sel = _nonempty(term, argname, spec, lv.select(term, argname, spec), lv.listing())
    stat = np.full(len(lv), -1, dtype=np.intc)
    stat[sel] = np.arange(len(sel), dtype=np.intc) if diff else 0
    full = np.where(code >= 0, stat[np.maximum(code, 0)], -1).astype(np.intc)
    if not diff:
        # every selected level is one class: the kernel compares levels, so keep them apart
        full = np.where(full >= 0, code, -1).astype(np.intc)
    kmode, p = (1, alpha) if alpha != 1 else (2, beta) if beta != 1 else (0, 1.0)
    if by_other is not None:
        olv, ocode = classes(net, by_other, term, 3 - mode)
        if len(olv) < 2:
            raise TermError(f"term {term}: byb{3 - mode}attr should have at least two levels "
                            f"(as statnet requires; {olv.listing()})")
        if diff:      # per (level, middle level), the middle level varying fastest
            labels = [f"{term}.{lv.name}.{lv.labels[k]}.{lab}" for k in sel
                      for lab in olv.labels]
            kernel = BipartiteMatchKernel(mode, full, len(labels), kmode, p, ocode, len(olv))
        else:
            labels = [f"{term}.{lv.name}.{lab}" for lab in olv.labels]
            kernel = BipartiteMatchKernel(mode, full, len(labels), kmode, p, ocode)
        return Term(term, labels, kernel)
    if diff:
        labels = [f"{term}.{lv.name}.{lv.labels[k]}" for k in sel]
        kernel = BipartiteMatchKernel(mode, full, len(labels), kmode, p)
    else:
        labels = [f"{term}.{lv.name}"]
        kernel = BipartiteMatchKernel(mode, full, 1, kmode, p)
    return Term(term, labels, kernel)


@register("b1nodematch", kinds=UNDIRECTED,
          params=[Param("attr"), Param("diff", False), Param("keep", None), Param("alpha", 1.0),
                  Param("beta", 1.0), Param("byb2attr", None), Param("levels", None)],
          family=FAMILY)
def b1nodematch(net, attr, diff=False, keep=None, alpha=1.0, beta=1.0, byb2attr=None,
                levels=None):
    """Homophily of mode 1 (Bomiriya et al.): two-paths u–v–w between mode-1 nodes of one
    level (label ``b1nodematch.<attr>``; ``diff``: per level). ``alpha``: Σ_{matching pairs}
    sp^α; ``beta``: ½ Σ_{ties (u, v)} m(u, v)^β, m the matching two-paths through the tie;
    ``byb2attr``: split by the middle node's level (``b1nodematch.<attr>.<b2level>``; with
    ``diff``: ``b1nodematch.<attr>.<level>.<b2level>``).  ``levels`` selects the levels
    counted (the deprecated ``keep`` indexes them when ``levels`` is not given);
    ``alpha``, ``beta`` in [0, 1] (0^0 counts 0, as statnet's); with ``byb2attr`` the
    ``alpha`` form counts, per b2 level L, the shared partners of level L (statnet's)."""
    return _bnodematch(net, 1, attr, diff, keep, alpha, beta, byb2attr, levels)


@register("b2nodematch", kinds=UNDIRECTED,
          params=[Param("attr"), Param("diff", False), Param("keep", None), Param("alpha", 1.0),
                  Param("beta", 1.0), Param("byb1attr", None), Param("levels", None)],
          family=FAMILY)
def b2nodematch(net, attr, diff=False, keep=None, alpha=1.0, beta=1.0, byb1attr=None,
                levels=None):
    """Homophily of mode 2: two-paths between mode-2 nodes of one level (label
    ``b2nodematch.<attr>``; ``diff``, ``alpha``, ``beta``, ``byb1attr`` as for b1nodematch)."""
    return _bnodematch(net, 2, attr, diff, keep, alpha, beta, byb1attr, levels)


def _selected_codes(term, argname, lv, code, spec):
    """Node codes recoded to positions among the selected levels (-1: not selected)."""
    sel = _nonempty(term, argname, spec, lv.select(term, argname, spec), lv.listing())
    pos = np.full(len(lv), -1, dtype=np.intc)
    pos[sel] = np.arange(len(sel), dtype=np.intc)
    return sel, np.where(code >= 0, pos[np.maximum(code, 0)], -1).astype(np.intc)


def _drop_base(term, base, n):
    """statnet's deprecated base: 1-based indices of the statistics to drop (0: none)."""
    vals = base if isinstance(base, (list, tuple)) else [base]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer()
               and 0 <= v <= n for v in vals):
        raise TermError(f"term {term}: base must be indices 1..{n} of the statistics to "
                        f"drop, got {base!r}")
    drop = {int(v) - 1 for v in vals if v}
    return [k for k in range(n) if k not in drop]


def _twostar(net, mode, cattr, lattr, clevels, llevels, levels2, base):
    term = f"b{mode}twostar"
    _need_bipartite(net, term)
    cname, lname = f"b{mode}levels", f"b{3 - mode}levels"
    clv, ccode = classes(net, cattr, term, mode)
    llv, lcode = classes(net, lattr, term, 3 - mode)
    csel, ccode = _selected_codes(term, cname, clv, ccode, clevels)
    lsel, lcode = _selected_codes(term, lname, llv, lcode, llevels)
    nc, nl = len(csel), len(lsel)
    # statnet's cells: (centre, leaf, leaf2) with leaf <= leaf2, the centre varying fastest
    cells = [(c, a, b) for b in range(nl) for a in range(b + 1) for c in range(nc)]
    names = [f"{term}.{clv.name}.{clv.labels[csel[c]]}.{llv.name}."
             f"{llv.labels[lsel[a]]}.{llv.labels[lsel[b]]}" for c, a, b in cells]
    if levels2 is None and base is not None:
        keep = _drop_base(term, base, len(cells))
    else:
        if isinstance(levels2, (str, AsIs)) or (isinstance(levels2, list) and any(
                isinstance(v, str) for v in levels2)):
            raise TermError(f"term {term}: levels2 by value is not supported; give indices "
                            f"(1..{len(cells)}, in the order of the labels) or TRUE/FALSE")
        listing = f"the {len(cells)} cells, in label order, are indexed 1..{len(cells)}"
        keep = _nonempty(term, "levels2", levels2,
                         select_levels(term, "levels2", names, levels2, listing), listing)
    cell = np.full((nc, nl, nl), -1, dtype=np.intc)
    for t, k in enumerate(keep):
        c, a, b = cells[k]
        cell[c, a, b] = cell[c, b, a] = t
    return Term(term, [names[k] for k in keep],
                BipartiteStarMixKernel(mode, 0, ccode, lcode, cell, nl, len(keep)))


_TWOSTAR = [Param("b1attr"), Param("b2attr", None), Param("base", None),
            Param("b1levels", None), Param("b2levels", None), Param("levels2", None)]


@register("b1twostar", kinds=UNDIRECTED, params=_TWOSTAR, family=FAMILY)
def b1twostar(net, b1attr, b2attr=None, base=None, b1levels=None, b2levels=None, levels2=None):
    """Two-stars centred on mode 1 by the centre's b1attr level and the leaves' (unordered)
    b2attr levels (labels ``b1twostar.<b1attr>.<c>.<b2attr>.<l1>.<l2>``).  ``b1levels`` /
    ``b2levels`` select the levels of each mode (nodes of other levels are not counted),
    ``levels2`` the cells (indices in label order, or TRUE/FALSE), the deprecated ``base``
    drops cells by index, as statnet does."""
    b2attr = b1attr if b2attr is None else b2attr
    return _twostar(net, 1, b1attr, b2attr, b1levels, b2levels, levels2, base)


@register("b2twostar", kinds=UNDIRECTED, params=_TWOSTAR, family=FAMILY)
def b2twostar(net, b1attr, b2attr=None, base=None, b1levels=None, b2levels=None, levels2=None):
    """Two-stars centred on mode 2 by the centre's b2attr level and the leaves' b1attr levels
    (labels ``b2twostar.<b2attr>.<c>.<b1attr>.<l1>.<l2>``; the level arguments as for
    b1twostar)."""
    b2attr = b1attr if b2attr is None else b2attr
    return _twostar(net, 2, b2attr, b1attr, b2levels, b1levels, levels2, base)


def _starmix(net, mode, k, attr, base, diff):
    term = f"b{mode}starmix"
    _need_bipartite(net, term)
    k = as_int_list(k, f"term {term}: k", minimum=1)
    if len(k) != 1:
        raise TermError(f"term {term}: k must be one integer")
    k = k[0]
    diff = as_bool(diff, f"term {term}: diff")
    clv, ccode = classes(net, attr, term, mode)
    llv, lcode = classes(net, attr, term, 3 - mode)
    nc, nl = len(clv), len(llv)
    cell = np.full((nc, nl, nl), -1, dtype=np.intc)
    labels = []
    if diff:
        # statnet's order: the centre's level varies fastest for b1starmix, the leaves' for
        # b2starmix
        pairs = ([(c, b) for b in range(nl) for c in range(nc)] if mode == 1 else
                 [(c, b) for c in range(nc) for b in range(nl)])
        keep = range(len(pairs)) if base is None else _drop_base(term, base, len(pairs))
        for c, b in (pairs[q] for q in keep):
            cell[c, b, b] = len(labels)
            labels.append(f"{term}.{k}.{clv.name}.{clv.labels[c]}.{llv.labels[b]}")
    else:
        for c in (range(nc) if base is None else _drop_base(term, base, nc)):
            cell[c, :, :] = len(labels)
            labels.append(f"{term}.{k}.{clv.name}.{clv.labels[c]}")
    if not labels:
        raise TermError(f"term {term}: base={base!r} drops every statistic")
    return Term(term, labels, BipartiteStarMixKernel(mode, k, ccode, lcode, cell, nl,
                                                      len(labels)))


_STARMIX = [Param("k"), Param("attr"), Param("base", None), Param("diff", True)]


@register("b1starmix", kinds=UNDIRECTED, params=_STARMIX, family=FAMILY)
def b1starmix(net, k, attr, base=None, diff=True):
    """k-stars centred on mode 1 whose leaves all share one level: per (centre level, leaf
    level) (labels ``b1starmix.<k>.<attr>.<c>.<l>``), or per centre level with diff=FALSE;
    the deprecated ``base`` drops statistics by index (label order), as statnet does.
    Each mode's levels are its own nodes' values (statnet reads attr on every node and
    refuses a missing value on either mode; ergmfit needs it only on the mode it uses)."""
    return _starmix(net, 1, k, attr, base, diff)


@register("b2starmix", kinds=UNDIRECTED, params=_STARMIX, family=FAMILY)
def b2starmix(net, k, attr, base=None, diff=True):
    """k-stars centred on mode 2 whose leaves share one level (labels
    ``b2starmix.<k>.<attr>.<c>.<l>``)."""
    return _starmix(net, 2, k, attr, base, diff)
