"""Degree and star terms: k-stars, degree counts, isolates, geometrically weighted
degree and alternating k-stars (statnet ``ergm`` 4.4 definitions and labels), plus
EstimNetDirected's ``AltInStars`` / ``AltOutStars``.

Notation: d_i is the degree of node i (undirected), din_i / dout_i its in- / out-degree
(directed); D_k is the number of nodes with degree k; C(d, k) is a binomial coefficient.
Every change statistic here reads only the endpoints' degrees (O(1) per dyad).

How the geometrically weighted and alternating forms relate (λ > 0, q = 1 − 1/λ): with
decay α = log λ we have e^α = λ and 1 − e^−α = q, so

    gwdegree(log λ)  = λ Σ_i (1 − q^d_i)
    altkstar(λ)      = λ² Σ_i [q^d_i − 1 + d_i/λ] = −λ · gwdegree(log λ) + 2λ · edges
    AltInStars(λ)    = −λ · gwidegree(log λ) + λ · edges
    AltOutStars(λ)   = −λ · gwodegree(log λ) + λ · edges

(the decay is α = log λ, not log(λ/(λ−1)); the latter, −log q, is the rate at which the
weights' geometric factor q^k = e^{−k log(λ/(λ−1))} shrinks).
"""
import numpy as np

from ._coreterms import (MODE_IN, MODE_OUT, MODE_UND, AltStarKernel, DegreeKernel,
                      GWDegreeKernel, IsolatesKernel, StarKernel)
from . import degfun
from .dyadic import _nonempty
from .curved import (AlternatingStars, GeometricWeights, curve_length, degree_max, make_curved,
                     start_decay, warn_beyond_cutoff)
from .registry import (BOTH, DIRECTED, UNDIRECTED, Param, Term, TermError, as_bool, as_float,
                       as_int_list, format_number, register)

FAMILY = "degree and star"
_ENDS = {MODE_UND: "both", MODE_IN: "head", MODE_OUT: "tail"}

_STAR_PARAMS = [Param("k", doc="star size(s): an integer or a list of integers >= 1"),
                Param("attr", None, doc="count only stars whose nodes all share this attribute"),
                Param("levels", None, doc="with attr: the levels kept apart; the others are "
                      "pooled into one class, as statnet 4 does")]
_DEGREE_PARAMS = [Param("d", doc="degree(s): an integer or a list of integers >= 0"),
                  Param("by", None, doc="one set of counts per level of this attribute"),
                  Param("homophily", False, doc="with by: degree among same-level neighbours"),
                  Param("levels", None, doc="with by: which levels (statnet level selection)")]
# statnet's order (help page usage ``gwdegree(decay, fixed=FALSE, attr=NULL, cutoff=30,
# levels=NULL)``): the third positional argument is attr, as in gwdegree(0.5, TRUE, "Sex").
_GW_PARAMS = [Param("decay", None, doc="decay parameter alpha (the start when fixed=FALSE)"),
              Param("fixed", False, doc="FALSE (statnet's default): curved, the decay is estimated"),
              Param("attr", None, doc="with fixed=TRUE: one statistic per level of this attribute"),
              Param("cutoff", 30, doc="counts of the curved form: min(cutoff, n - 1)"),
              Param("levels", None, doc="with attr: which levels (statnet level selection)")]
_ALT_PARAMS = [Param("lambda", None, doc="lambda > 0 (the start when fixed=FALSE)"),
               Param("fixed", False, doc="FALSE (statnet's default): curved, lambda is estimated")]
_ESTIMNET_PARAMS = [Param("lambda", 2.0, doc="lambda > 1 (EstimNet's default 2)")]


def _curved_degrees(net, name, decay, cutoff, mode, curve_cls, limit, start_min=0.0):
    """The curved form: counts of degree 1 ... K, coefficients <name>, <name>.decay|lambda."""
    K = limit if cutoff is None else curve_length(name, cutoff, limit)
    if K < 1:
        raise TermError(f"term {name}: the curved form needs a network of at least 2 nodes")
    if K < limit:
        ends = {MODE_IN: "in", MODE_OUT: "out"}.get(mode, "all")
        warn_beyond_cutoff(name, K, degree_max(net, ends), "node",
                           {"in": "in-ties", "out": "out-ties"}.get(ends, "ties"))
    ds = list(range(1, K + 1))
    counts = Term(name, [f"{name}{v}" for v in ds], DegreeKernel(ds, mode))
    curve = curve_cls(K)
    return make_curved(name, counts, [f"{name}#{v}" for v in ds],
                       [name, f"{name}.{curve.decay_name}"], curve,
                       start_decay(name, decay, start_min, curve.decay_name,
                                   strict=curve.decay_name == "lambda"))


# -- k-stars -----------------------------------------------------------------

def _no_levels(name, levels):
    if levels is not None:
        raise TermError(f"term {name}: levels selects levels of attr=; give attr=")


def star_attr(net, term, k, attr, ends, levels=None):
    """k-stars whose centre and leaves all share a class of ``attr`` (kstar, istar, ostar,
    b1star, b2star with ``attr=``; labels ``<term><k>.<attr>`` with or without ``levels``).

    The classes are statnet 4's: ``attr`` is read on every node (a missing value anywhere
    is an error, as statnet's ``ergm_get_vattr``), the selected ``levels`` keep a class
    each and every other level is pooled into ONE more class, so stars whose nodes all lie
    outside the selection count too, even when their values differ.  That is how statnet
    4's ``InitErgmTerm.kstar`` (and istar, ostar, b1star, b2star) recodes the attribute:
    by position among the selected levels, one shared code for no match; the help page
    words it "levels specified which values of attr are included in the count".  A single
    selected level is allowed (statnet 3.x refused it: "only one value")."""
    ks = as_int_list(k, f"term {term}: k", minimum=1)
    lv, code = degfun.classes(net, attr, term)
    if levels is not None:
        sel = _nonempty(term, "levels", levels, lv.select(term, "levels", levels),
                        lv.listing())
        cls = np.full(len(lv), len(sel), dtype=np.intc)        # the rest: one pooled class
        cls[sel] = np.arange(len(sel), dtype=np.intc)
        code = cls[code].astype(np.intc)
    stats = [degfun.Stat(f"{term}{v}.{lv.name}", "choose", v) for v in ks]
    return degfun.degree_term(net, term, stats, ends, code, True)


def _stars(net, name, k, mode, attr=None, levels=None):
    if attr is not None:
        return star_attr(net, name, k, attr, _ENDS[mode], levels)
    _no_levels(name, levels)
    ks = as_int_list(k, f"term {name}: k", minimum=1)
    return Term(name, [f"{name}{v}" for v in ks], StarKernel(ks, mode))


@register("kstar", kinds=UNDIRECTED, params=_STAR_PARAMS, family=FAMILY, bounds="increasing")
def kstar(net, k, attr=None, levels=None):
    """k-stars: Σ_i C(d_i, k), one statistic per k (statnet ``kstar``; ``kstar(2)`` is
    EstimNet's ``TwoStars``). Labels ``kstar2``, ``kstar3``, ...

    Change for adding i–j: C(d_i, k−1) + C(d_j, k−1). Example: ``kstar(2:3)``.
    """
    return _stars(net, "kstar", k, MODE_UND, attr, levels)


@register("istar", kinds=DIRECTED, params=_STAR_PARAMS, family=FAMILY, bounds="increasing")
def istar(net, k, attr=None, levels=None):
    """In-k-stars: Σ_i C(din_i, k), one statistic per k (statnet ``istar``; ``istar(2)`` is
    EstimNet's ``InTwoStars``). Labels ``istar2``, ...

    Change for adding i→j: C(din_j, k−1). Example: ``istar(2)``.
    """
    return _stars(net, "istar", k, MODE_IN, attr, levels)


@register("ostar", kinds=DIRECTED, params=_STAR_PARAMS, family=FAMILY, bounds="increasing")
def ostar(net, k, attr=None, levels=None):
    """Out-k-stars: Σ_i C(dout_i, k), one statistic per k (statnet ``ostar``; ``ostar(2)`` is
    EstimNet's ``OutTwoStars``). Labels ``ostar2``, ...

    Change for adding i→j: C(dout_i, k−1). Example: ``ostar(2:3)``.
    """
    return _stars(net, "ostar", k, MODE_OUT, attr, levels)


# -- degree counts -----------------------------------------------------------

def _degrees(net, name, d, mode, by=None, homophily=False, levels=None):
    if by is not None or levels is not None:
        prefix = {"degree": "deg", "idegree": "ideg", "odegree": "odeg"}[name]
        return degfun.degree_by(net, name, prefix, d, by, homophily, _ENDS[mode],
                                levels=levels)
    ds = as_int_list(d, f"term {name}: d", minimum=0)
    empty = [float(net.n) if v == 0 else 0.0 for v in ds]
    return Term(name, [f"{name}{v}" for v in ds], DegreeKernel(ds, mode), empty=empty)


@register("degree", kinds=UNDIRECTED, params=_DEGREE_PARAMS, family=FAMILY, bounds="count")
def degree(net, d, by=None, homophily=False, levels=None):
    """Degree counts: D_d = #{i : d_i = d}, one statistic per d (statnet ``degree``).
    Labels ``degree0``, ``degree1``, ...; on the empty graph degree0 = n.

    Example: ``degree(0:4)``.
    """
    return _degrees(net, "degree", d, MODE_UND, by, homophily, levels)


@register("idegree", kinds=DIRECTED, params=_DEGREE_PARAMS, family=FAMILY, bounds="count")
def idegree(net, d, by=None, homophily=False, levels=None):
    """In-degree counts: #{i : din_i = d}, one statistic per d (statnet ``idegree``).
    Labels ``idegree0``, ...; on the empty graph idegree0 = n.

    Example: ``idegree(0:3)``.
    """
    return _degrees(net, "idegree", d, MODE_IN, by, homophily, levels)


@register("odegree", kinds=DIRECTED, params=_DEGREE_PARAMS, family=FAMILY, bounds="count")
def odegree(net, d, by=None, homophily=False, levels=None):
    """Out-degree counts: #{i : dout_i = d}, one statistic per d (statnet ``odegree``).
    Labels ``odegree0``, ...; on the empty graph odegree0 = n.

    Example: ``odegree(1)``.
    """
    return _degrees(net, "odegree", d, MODE_OUT, by, homophily, levels)


@register("isolates", kinds=BOTH, family=FAMILY, bounds="count")
def isolates(net):
    """Isolates: number of nodes with no tie (directed: din_i + dout_i = 0); statnet
    ``isolates``, EstimNet ``Isolates``. Equals ``degree(0)`` on undirected networks; n on the
    empty graph.

    Example: ``edges + isolates``.
    """
    return Term("isolates", ["isolates"], IsolatesKernel(), empty=[float(net.n)])


# -- geometrically weighted degree -----------------------------------------------

def _gw(net, name, short, decay, fixed, cutoff, mode, attr=None, levels=None):
    if attr is None:
        _no_levels(name, levels)
    if not as_bool(fixed, f"term {name}: fixed"):
        if attr is not None:
            # statnet 4.4 refuses it too: "Using 'fixed=FALSE' with an attribute is not
            # implemented at this time. Use 'fixed=TRUE'."
            raise TermError(f"term {name}: attr= with fixed=FALSE (the curved form) is not "
                            f"implemented, as in statnet; use fixed=TRUE with a decay, e.g. "
                            f"{name}(0.5, fixed=TRUE, attr={attr!r})")
        return _curved_degrees(net, name, decay, cutoff, mode, GeometricWeights, net.n - 1)
    if decay is None:
        raise TermError(f"term {name}: decay is required with fixed=TRUE, "
                        f"e.g. {name}(0.5, fixed=TRUE)")
    decay = as_float(decay, f"term {name}: decay")
    if decay < 0:
        raise TermError(f"term {name}: decay must be non-negative, got {format_number(decay)}")
    if len(as_int_list(cutoff, f"term {name}: cutoff", minimum=1)) != 1:
        raise TermError(f"term {name}: cutoff must be one integer, got {cutoff!r}")
    if attr is not None:
        return degfun.gw_attr(net, name, short, decay, attr, _ENDS[mode], levels=levels)
    return Term(name, [f"{short}.fixed.{format_number(decay)}"], GWDegreeKernel(decay, mode))


@register("gwdegree", kinds=UNDIRECTED, params=_GW_PARAMS, family=FAMILY, bounds="count")
def gwdegree(net, decay=None, fixed=False, attr=None, cutoff=30, levels=None):
    """Geometrically weighted degree with fixed decay α (statnet ``gwdegree(α, fixed=TRUE)``):

        e^α Σ_k {1 − (1 − e^−α)^k} D_k  =  e^α Σ_i {1 − (1 − e^−α)^d_i}.

    Label ``gwdeg.fixed.<α>``. Change for adding i–j: (1 − e^−α)^d_i + (1 − e^−α)^d_j.
    With fixed=FALSE (statnet's default) it is curved: statistics ``gwdegree#1 … #K``
    (K = min(cutoff, n − 1)), coefficients ``gwdegree``, ``gwdegree.decay``.
    ``altkstar(λ) = −λ·gwdegree(log λ) + 2λ·edges``. Example: ``gwdegree(0.5, fixed=TRUE)``.
    """
    return _gw(net, "gwdegree", "gwdeg", decay, fixed, cutoff, MODE_UND, attr, levels)


@register("gwidegree", kinds=DIRECTED, params=_GW_PARAMS, family=FAMILY, bounds="count")
def gwidegree(net, decay=None, fixed=False, attr=None, cutoff=30, levels=None):
    """Geometrically weighted in-degree with fixed decay α (statnet ``gwidegree(α, fixed=TRUE)``):
    e^α Σ_i {1 − (1 − e^−α)^din_i}. Label ``gwideg.fixed.<α>``.

    Change for adding i→j: (1 − e^−α)^din_j. ``AltInStars(λ) = −λ·gwidegree(log λ) + λ·edges``.
    Example: ``gwidegree(log(2), fixed=TRUE)``.
    """
    return _gw(net, "gwidegree", "gwideg", decay, fixed, cutoff, MODE_IN, attr, levels)


@register("gwodegree", kinds=DIRECTED, params=_GW_PARAMS, family=FAMILY, bounds="count")
def gwodegree(net, decay=None, fixed=False, attr=None, cutoff=30, levels=None):
    """Geometrically weighted out-degree with fixed decay α (statnet ``gwodegree(α, fixed=TRUE)``):
    e^α Σ_i {1 − (1 − e^−α)^dout_i}. Label ``gwodeg.fixed.<α>``.

    Change for adding i→j: (1 − e^−α)^dout_i. ``AltOutStars(λ) = −λ·gwodegree(log λ) + λ·edges``.
    Example: ``gwodegree(0.5, fixed=TRUE)``.
    """
    return _gw(net, "gwodegree", "gwodeg", decay, fixed, cutoff, MODE_OUT, attr, levels)


# -- alternating k-stars ---------------------------------------------------------

def _lambda(name, value, minimum):
    lam = as_float(value, f"term {name}: lambda")
    if not lam > minimum:
        raise TermError(f"term {name}: lambda must be greater than {format_number(minimum)}, "
                        f"got {format_number(lam)}")
    return lam


@register("altkstar", kinds=UNDIRECTED, params=_ALT_PARAMS, family=FAMILY)
def altkstar(net, **kw):
    """Alternating k-stars, Snijders et al. (2006) (statnet ``altkstar(λ, fixed=TRUE)``;
    EstimNet's undirected ``AltStars(λ)``):

        Σ_{k=2}^{n−1} (−1)^k S_k / λ^{k−2}  =  λ² Σ_i [q^d_i − 1 + d_i/λ],  q = 1 − 1/λ,

    with S_k = Σ_i C(d_i, k). Label ``altkstar.<λ>``. Change for adding i–j:
    λ(1 − q^d_i) + λ(1 − q^d_j). Equals −λ·gwdegree(log λ) + 2λ·edges. λ > 0.  With
    fixed=FALSE (statnet's default) it is curved: statistics ``altkstar#1 … #(n−1)``,
    coefficients ``altkstar``, ``altkstar.lambda``. Example: ``altkstar(2, fixed=TRUE)``.
    """
    if not as_bool(kw["fixed"], "term altkstar: fixed"):
        # every degree 1 ... n - 1 (statnet's curved altkstar has no cutoff)
        return _curved_degrees(net, "altkstar", kw["lambda"], None, MODE_UND, AlternatingStars,
                               net.n - 1, start_min=0.0)
    if kw["lambda"] is None:
        raise TermError("term altkstar: lambda is required with fixed=TRUE, "
                        "e.g. altkstar(2, fixed=TRUE)")
    lam = _lambda("altkstar", kw["lambda"], 0.0)
    return Term("altkstar", [f"altkstar.{format_number(lam)}"], AltStarKernel(lam, MODE_UND))


@register("AltInStars", kinds=DIRECTED, params=_ESTIMNET_PARAMS, family=FAMILY)
def alt_in_stars(net, **kw):
    """EstimNetDirected's alternating in-stars ``AltInStars(λ)`` (λ > 1, default 2):

        λ² Σ_j [q^din_j − 1 + din_j/λ],  q = 1 − 1/λ.

    Label ``AltInStars(<λ>)``. Change for adding i→j: λ(1 − q^din_j).
    Exactly ``AltInStars(λ) = −λ·gwidegree(log λ, fixed=TRUE) + λ·edges`` (decay α = log λ).
    Example: ``edges + AltInStars + AltOutStars(3)``.
    """
    lam = _lambda("AltInStars", kw["lambda"], 1.0)
    return Term("AltInStars", [f"AltInStars({format_number(lam)})"], AltStarKernel(lam, MODE_IN))


@register("AltOutStars", kinds=DIRECTED, params=_ESTIMNET_PARAMS, family=FAMILY)
def alt_out_stars(net, **kw):
    """EstimNetDirected's alternating out-stars ``AltOutStars(λ)`` (λ > 1, default 2):

        λ² Σ_i [q^dout_i − 1 + dout_i/λ],  q = 1 − 1/λ.

    Label ``AltOutStars(<λ>)``. Change for adding i→j: λ(1 − q^dout_i).
    Exactly ``AltOutStars(λ) = −λ·gwodegree(log λ, fixed=TRUE) + λ·edges`` (decay α = log λ).
    Example: ``edges + AltInStars(2) + AltOutStars(2)``.
    """
    lam = _lambda("AltOutStars", kw["lambda"], 1.0)
    return Term("AltOutStars", [f"AltOutStars({format_number(lam)})"], AltStarKernel(lam, MODE_OUT))
