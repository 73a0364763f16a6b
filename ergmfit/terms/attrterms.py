"""Attribute forms of dyad and triad terms (statnet ``ergm`` 4.4 labels), and the small
dyad-independent terms of statnet's index that are functions of the dyad:

* ``triangle(attr=, diff=)``, ``ttriple(attr=, diff=)``, ``ctriple(attr=, diff=)``: triads
  whose three nodes share a level (labels ``triangle.<attr>``, ``triangle.<attr>.<level>``);
* ``mutual(same=, diff=)``, ``mutual(by=)``, ``asymmetric(attr, diff)``;
* ``density``, ``meandeg``, ``smalldiff``, ``diff``, ``hamming``, ``dyadcov`` (undirected).

Kernels: :class:`._coreterms.AttrDyadTriadKernel` (O(degree) for triads, O(1) for dyads)
and the dyadic covariate kernels of :mod:`._coreterms` (`_dyadic.pxi`) (O(1)).
"""
from __future__ import annotations

import numpy as np

from ..exceptions import TermError
from ._coreterms import AttrDyadTriadKernel
from ._coreterms import DenseEdgeCovKernel, NodeCovKernel
from .dyadic import _codes, _nonempty, _numeric_attr, select_levels
from .registry import BOTH, DIRECTED, UNDIRECTED, Param, Term, as_bool, as_float, \
    format_number, register

FAMILY = "attribute forms and dyad functions"


def attr_triad(net, name, kind, attr, diff, levels):
    """triangle / ttriple / ctriple with attr (called by the triad families)."""
    diff = as_bool(diff, f"term {name}: diff")
    lv, code, labs = _codes(net, name, attr, diff, levels)
    labels = [f"{name}.{lv.name}.{lab}" for lab in labs] if diff else [f"{name}.{lv.name}"]
    return Term(name, labels, AttrDyadTriadKernel(code, len(labels), kind, diff))


@register("asymmetric", kinds=DIRECTED, params=[Param("attr", None), Param("diff", False),
                                                Param("keep", None), Param("levels", None)],
          family=FAMILY)
def asymmetric(net, attr=None, diff=False, keep=None, levels=None):
    """Asymmetric dyads (exactly one of i→j, j→i); with ``attr`` only those whose ends share
    a level (``asymmetric.<attr>``; ``diff``: per level, ``asymmetric.<attr>.<level>``)."""
    if attr is None:
        return Term("asymmetric", ["asymmetric"],
                    AttrDyadTriadKernel(np.zeros(net.n, dtype=np.intc), 1, "asym", False, True))
    diff = as_bool(diff, "term asymmetric: diff")
    lv, code, labs = _codes(net, "asymmetric", attr, diff, keep if keep is not None else levels)
    labels = [f"asymmetric.{lv.name}.{lab}" for lab in labs] if diff else \
        [f"asymmetric.{lv.name}"]
    return Term("asymmetric", labels, AttrDyadTriadKernel(code, len(labels), "asym", diff))


# -- functions of the dyad ------------------------------------------------------------

def _constant(net, name, per_tie):
    x = np.full(net.n, per_tie / 2.0)
    return Term(name, [name], NodeCovKernel(x, 0), dyad_independent=True)


@register("density", kinds=BOTH, family=FAMILY)
def density(net):
    """Ties divided by the number of dyads (n1·n2 on a two-mode network)."""
    return _constant(net, "density", 1.0 / net.n_dyads if net.n_dyads else 0.0)


@register("meandeg", kinds=BOTH, family=FAMILY)
def meandeg(net):
    """Mean degree, 2·ties / n (ties / n on a directed network)."""
    return _constant(net, "meandeg", (1.0 if net.directed else 2.0) / net.n)


def _matrix_term(net, name, label, M):
    M = np.array(M, dtype=float)
    if not net.directed:
        M = np.triu(M, 1) + np.triu(M, 1).T
    return Term(name, [label], DenseEdgeCovKernel(M), dyad_independent=True)


@register("smalldiff", kinds=BOTH, params=[Param("attr"), Param("cutoff")], family=FAMILY)
def smalldiff(net, attr, cutoff):
    """Ties whose ends differ by at most ``cutoff`` in a numeric attribute,
    Σ_{ties} [|x_i − x_j| ≤ cutoff] (label ``smalldiff.<attr><cutoff>``)."""
    x = _numeric_attr(net, attr, "smalldiff")
    c = as_float(cutoff, "term smalldiff: cutoff")
    return _matrix_term(net, "smalldiff", f"smalldiff.{attr}{format_number(c)}",
                        np.abs(x[:, None] - x[None, :]) <= c)


@register("diff", kinds=BOTH, params=[Param("attr"), Param("pow", 1), Param("dir", "t-h"),
                                      Param("sign.action", "identity")], family=FAMILY)
def diff_term(net, attr, pow=1, dir="t-h", **kw):
    """Σ_{ties i→j} f(x_i − x_j)^pow (``dir="t-h"``; "h-t": x_j − x_i), f by ``sign.action``:
    "identity", "abs", "posonly" (negatives 0), "negonly". Labels ``diff.<dir>.<attr>``,
    ``diff<pow>.<sign.action>.<attr>`` when pow ≠ 1 or the action is not identity."""
    action = kw["sign.action"]
    x = _numeric_attr(net, attr, "diff")
    p = as_float(pow, "term diff: pow")
    if dir not in ("t-h", "h-t"):
        raise TermError(f"term diff: dir must be 't-h' or 'h-t', got {dir!r}")
    if action not in ("identity", "abs", "posonly", "negonly"):
        raise TermError(f"term diff: sign.action must be 'identity', 'abs', 'posonly' or "
                        f"'negonly', got {action!r}")
    D = x[:, None] - x[None, :]
    if dir == "h-t":
        D = -D
    D = {"identity": D, "abs": np.abs(D), "posonly": np.where(D > 0, D, 0.0),
         "negonly": np.where(D < 0, D, 0.0)}[action]
    M = np.sign(D) * np.abs(D) ** p if action == "identity" else D ** p
    if net.directed is False and action == "identity":
        raise TermError("term diff: on an undirected network use sign.action='abs'")
    pw = "" if p == 1 else format_number(p)
    label = f"diff{pw}.{dir if action == 'identity' else action}.{attr}"
    return Term("diff", [label], DenseEdgeCovKernel(M), dyad_independent=True)


def _dyad_matrix(net, x, term, attrname=None):
    """(n x n matrix, name) of a dyadic covariate: a network attribute (or object) holding a
    matrix -- n x n, or on a two-mode network statnet's n1 x n2 (mode-1 rows, mode-2
    columns) -- or a network (ergmfit's or networkx's; its ties 1, or the values of its
    edge attribute ``attrname``)."""
    if isinstance(x, str):
        obj = net.graph_attrs.get(x)
        if obj is None:
            raise TermError(f"term {term}: no network attribute or covariate {x!r}")
        name = x
    else:
        obj, name = x, "x"
    if hasattr(obj, "ties") and hasattr(obj, "n"):          # a Network
        vals = obj.edge_attribute(attrname) if attrname is not None else None
        M = np.zeros((net.n, net.n))
        for k, (i, j) in enumerate(obj.ties):
            M[i, j] = 1.0 if vals is None else float(vals[k])
            if not obj.directed:
                M[j, i] = M[i, j]
        return M, name
    if hasattr(obj, "nodes") and hasattr(obj, "edges"):     # a networkx graph
        import networkx as nx
        try:
            M = nx.to_numpy_array(obj, nodelist=list(net.labels), weight=attrname,
                                  nonedge=0.0)
        except nx.NetworkXError as exc:
            raise TermError(f"term {term}: the network {name!r} does not have this "
                            f"network's nodes ({exc})") from None
        return M, name
    M = np.asarray(obj, dtype=float)
    n1 = net.bipartite
    if n1 is not None and M.shape == (n1, net.n - n1):
        full = np.zeros((net.n, net.n))
        full[:n1, n1:] = M
        full[n1:, :n1] = M.T
        return full, name
    if M.shape != (net.n, net.n):
        shape = f"{net.n} x {net.n}" + (f", or {n1} x {net.n - n1}" if n1 is not None else "")
        raise TermError(f"term {term}: the covariate must be an n x n matrix ({shape}), got "
                        f"{' x '.join(map(str, M.shape)) if M.ndim else 'a scalar'}")
    return M, name


@register("hamming", kinds=BOTH, params=[Param("x", None), Param("cov", None),
                                         Param("attrname", None)], family=FAMILY)
def hamming(net, x=None, cov=None, attrname=None):
    """Hamming distance to a reference network ``x`` (default: the observed one): dyads
    where the two differ (label ``hamming`` or ``hamming.<x>``).  With ``cov`` (a matrix of
    dyad weights, or a network whose ties weigh 1 or the value of their edge attribute
    ``attrname``) each differing dyad counts its weight, as statnet's weighted distance."""
    if attrname is not None and cov is None:
        raise TermError("term hamming: attrname names an edge attribute of cov; give cov")
    if x is None:
        M, label = np.zeros((net.n, net.n)), "hamming"
        for i, j in net.ties:
            M[i, j] = 1.0
            if not net.directed:
                M[j, i] = 1.0
    else:
        M, name = _dyad_matrix(net, x, "hamming")
        label = f"hamming.{name}"
    Wt = np.ones((net.n, net.n)) if cov is None else \
        _dyad_matrix(net, cov, "hamming", attrname)[0]
    if not net.directed:
        Wt = np.triu(Wt, 1) + np.triu(Wt, 1).T
    ref = (Wt * M).sum() if net.directed else np.triu(Wt * M, 1).sum()
    return Term("hamming", [label], DenseEdgeCovKernel(Wt * (1.0 - 2.0 * M)), empty=[ref],
                dyad_independent=True)


@register("dyadcov", kinds=BOTH, params=[Param("x"), Param("attrname", None)], family=FAMILY)
def dyadcov(net, x, attrname=None):
    """Dyadic covariate. Undirected: Σ_{ties} x_ij (as ``edgecov``; label ``dyadcov.<x>``).
    Directed: with c_ab = x_ab of the upper triangle (a < b; as statnet, an asymmetric x
    is read from its upper triangle), three statistics Σ c [a↔b] (``dyadcov.<x>.mutual``),
    Σ c [b→a only] (``.utri``), Σ c [a→b only] (``.ltri``), as statnet 4.4 computes them."""
    from ._coreterms import DirectedDyadCovKernel
    M, name = _dyad_matrix(net, x, "dyadcov")
    label = f"dyadcov.{attrname or name}"
    if not net.directed:
        return _matrix_term(net, "dyadcov", label, M)
    return Term("dyadcov", [f"{label}.mutual", f"{label}.utri", f"{label}.ltri"],
                DirectedDyadCovKernel(np.triu(M, 1)))


@register("opentriad", kinds=UNDIRECTED, family=FAMILY)
def opentriad(net):
    """Open triads: two-paths whose ends are not tied, kstar(2) − 3·triangle
    (label ``opentriad``)."""
    from ._coreterms import MODE_UND, StarKernel
    from ._operators import LinearKernel
    from ._coreterms import TriangleKernel
    return Term("opentriad", ["opentriad"],
                LinearKernel([StarKernel([2], MODE_UND), TriangleKernel()], [[1.0, -3.0]]))


@register("localtriangle", kinds=BOTH, params=[Param("x"), Param("attrname", None)],
          family=FAMILY)
def localtriangle(net, x, attrname=None):
    """Triangles whose three dyads are all "local" (x_ij ≠ 0 in the covariate network or
    matrix ``x``); directed: transitive and cyclic triples (label ``localtriangle.<x>``)."""
    from .registry import build_term
    from ._operators import SubnetKernel
    M, name = _dyad_matrix(net, x, "localtriangle")
    mask = (M != 0) | (M.T != 0) if not net.directed else (M != 0) | (M.T != 0)
    np.fill_diagonal(mask, False)
    inner = build_term(net, "triangle", (), {})
    kernel = SubnetKernel([inner.kernel], "filter", net.n, mask=mask.astype(np.uint8).ravel(),
                          aux_n=net.n, aux_directed=net.directed)
    return Term("localtriangle", [f"localtriangle.{attrname or name}"], kernel)


_TRAIL_TYPES = ("RRR", "RRL", "LRR", "LRL")


@register("threetrail", kinds=BOTH, aliases=("threepath",),
          params=[Param("keep", None), Param("levels", None)], family=FAMILY)
def threetrail(net, keep=None, levels=None):
    """3-trails: walks along three distinct ties (vertices may repeat: i–j–k–i is one).
    Undirected: Σ_{ties j–k} (d_j − 1)(d_k − 1) (label ``threetrail``).  Directed: one
    statistic per type of the outer arcs relative to the middle one, RRR, RRL, LRR, LRL
    (labels ``threetrail.RRR``, ...); ``levels`` (statnet ≥ 4) selects types by name or
    index, ``keep`` (statnet 3's spelling, indices 1..4) too; ``levels`` wins when both are
    given, as statnet says.  ``threepath`` is statnet's deprecated name (same labels)."""
    from ._coreterms import ThreeTrailKernel
    if not net.directed:
        if keep is not None or levels is not None:
            raise TermError("term threetrail: keep and levels apply to directed networks only")
        return Term("threetrail", ["threetrail"], ThreeTrailKernel([0]))
    arg, spec = ("levels", levels) if levels is not None else ("keep", keep)
    sel = list(range(4)) if spec is None else \
        _nonempty("threetrail", arg, spec, select_levels("threetrail", arg,
                                                         list(_TRAIL_TYPES), spec), "")
    return Term("threetrail", [f"threetrail.{_TRAIL_TYPES[t]}" for t in sel],
                ThreeTrailKernel(sel))


@register("isolatededges", kinds=UNDIRECTED, family=FAMILY)
def isolatededges(net):
    """Isolated ties: ties whose two ends have no other tie (label ``isolatededges``)."""
    from ._coreterms import IsolatedEdgesKernel
    return Term("isolatededges", ["isolatededges"], IsolatedEdgesKernel())


def _ties_in_triangles(net, name, attr, levels):
    from ._coreterms import TransitiveTiesKernel
    if attr is None:
        if levels is not None:
            raise TermError(f"term {name}: levels needs attr")
        return Term(name, [name], TransitiveTiesKernel(np.zeros(net.n, dtype=np.intc)))
    lv, code, _ = _codes(net, name, attr, False, levels)
    return Term(name, [f"{name}.{lv.name}"], TransitiveTiesKernel(code))


@register("transitiveties", kinds=UNDIRECTED, params=[Param("attr", None), Param("levels", None)],
          family=FAMILY)
def transitiveties_undirected(net, attr=None, levels=None):
    """Ties in at least one triangle on an undirected network; with ``attr`` only ties whose
    triangle has three nodes of one level (labels ``transitiveties``,
    ``transitiveties.<attr>``)."""
    return _ties_in_triangles(net, "transitiveties", attr, levels)


@register("cyclicalties", kinds=UNDIRECTED, params=[Param("attr", None), Param("levels", None)],
          family=FAMILY)
def cyclicalties_undirected(net, attr=None, levels=None):
    """``cyclicalties`` on an undirected network: ties in at least one triangle, as
    ``transitiveties`` (statnet 4.12 takes both there: 120 and, with ``"Race"``, 40 on
    faux.mesa.high in its test-term-undirected.R); labels ``cyclicalties``,
    ``cyclicalties.<attr>``."""
    return _ties_in_triangles(net, "cyclicalties", attr, levels)
