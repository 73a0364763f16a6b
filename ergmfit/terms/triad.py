"""Undirected triad and shared-partner terms.

``triangle``, ``twopath``, ``esp``/``dsp``/``nsp``, ``gwesp``/``gwdsp``/``gwnsp``
(fixed decay) and ``cycle``, as statnet ``ergm`` 4.4 defines them for
undirected networks (the directed versions live in :mod:`.dtriad`).

Notation: ``sp(i, j)`` is the number of shared partners (common neighbours)
of nodes i and j; ``EP_k`` the number of edges with exactly k shared
partners, ``DP_k`` the number of dyads (unordered pairs, tie or not) with k,
``NP_k = DP_k - EP_k`` the number of non-tied pairs with k.
"""
from ._coreterms import (CycleKernel, DspKernel, EspKernel, GwdspKernel, GwespKernel,
                     GwnspKernel, NspKernel, TriangleKernel, TwopathKernel)
from ..exceptions import TermError
from .curved import (GeometricWeights, curve_length, make_curved, partner_max, start_decay,
                     warn_beyond_cutoff)
from .registry import (UNDIRECTED, Param, Term, as_bool, as_float, as_int_list,
                       format_number, register)

_FAMILY = "triad and shared-partner"


_TYPE412 = Param("type", None, "statnet 4.12's shared-partner type; on an undirected "
                 "network every type counts the same partners (accepted, ignored)")


def _undirected_type(name, type):
    """statnet 4.12's ``type=`` on an undirected network: every type is the same count."""
    if type is not None and str(type).upper() not in ("OTP", "ITP", "RTP", "OSP", "ISP", "UTP"):
        raise TermError(f"term {name}: type must be one of OTP, ITP, RTP, OSP, ISP (statnet "
                        f"4.12), got {type!r}")


@register("triangle", kinds=UNDIRECTED, aliases=("triangles",), family=_FAMILY,
          params=[Param("attr", None, "count only triangles whose nodes share this attribute"),
                  Param("diff", False, "with attr: one statistic per level"),
                  Param("levels", None, "with attr: the levels counted")], bounds="increasing")
def triangle(net, attr=None, diff=False, levels=None):
    """Number of triangles: sets {i, j, k} with all three ties present.

    Σ_{i<j<k} x_ij x_jk x_ik (statnet ``triangle`` on an undirected network;
    label ``triangle``).  Change statistic: sp(i, j).
    ``attr``: only triangles whose three nodes share a level (``triangle.<attr>``;
    ``diff=TRUE``: per level, ``triangle.<attr>.<level>``).

    Example: ``edges + triangle``.
    """
    if attr is not None:
        from .attrterms import attr_triad
        return attr_triad(net, "triangle", "triangle", attr, diff, levels)
    if levels is not None or (diff is not False and diff is not None):
        raise TermError("term triangle: diff and levels need attr")
    return Term("triangle", ["triangle"], TriangleKernel())


@register("twopath", kinds=UNDIRECTED, family=_FAMILY, bounds="increasing")
def twopath(net):
    """Number of two-paths i–k–j (unordered ends): Σ_k C(d_k, 2), equal to ``kstar(2)``.

    statnet ``twopath`` on an undirected network (label ``twopath``).

    Example: ``edges + twopath``.
    """
    return Term("twopath", ["twopath"], TwopathKernel())


def _sp_values(name, d):
    ds = as_int_list(d, what=f"term {name}: d", minimum=0)
    if len(set(ds)) != len(ds):
        raise TermError(f"term {name}: the values of d must be distinct, got {ds}")
    return ds


@register("esp", kinds=UNDIRECTED, params=[Param("d"), _TYPE412], family=_FAMILY, bounds="count")
def esp(net, d, type=None):
    """Edgewise shared partners: one statistic per value in ``d``, EP_d.

    EP_d = #{ties {i, j}: sp(i, j) = d} (statnet ``esp(d)``; labels ``esp0``,
    ``esp1``, ...).

    Example: ``edges + esp(0:3)``.
    """
    _undirected_type("esp", type)
    ds = _sp_values("esp", d)
    return Term("esp", [f"esp{v}" for v in ds], EspKernel(ds, net.n))


def _all_pairs_empty(net, ds):
    pairs = net.n * (net.n - 1) / 2.0
    return [pairs if v == 0 else 0.0 for v in ds]


@register("dsp", kinds=UNDIRECTED, params=[Param("d"), _TYPE412], family=_FAMILY, bounds="count")
def dsp(net, d, type=None):
    """Dyadwise shared partners: one statistic per value in ``d``, DP_d.

    DP_d = #{pairs i < j, tied or not: sp(i, j) = d} (statnet ``dsp(d)``;
    labels ``dsp0``, ...).  On the empty graph DP_0 = n(n-1)/2.

    Example: ``edges + dsp(1:2)``.
    """
    _undirected_type("dsp", type)
    ds = _sp_values("dsp", d)
    return Term("dsp", [f"dsp{v}" for v in ds], DspKernel(ds, net.n),
                empty=_all_pairs_empty(net, ds))


@register("nsp", kinds=UNDIRECTED, params=[Param("d"), _TYPE412], family=_FAMILY)
def nsp(net, d, type=None):
    """Non-edgewise shared partners: one statistic per value in ``d``, NP_d = DP_d - EP_d.

    NP_d = #{untied pairs i < j: sp(i, j) = d} (statnet ``nsp(d)``; labels
    ``nsp0``, ...).  On the empty graph NP_0 = n(n-1)/2.

    Example: ``edges + nsp(1)``.
    """
    _undirected_type("nsp", type)
    ds = _sp_values("nsp", d)
    return Term("nsp", [f"nsp{v}" for v in ds], NspKernel(ds, net.n),
                empty=_all_pairs_empty(net, ds))


_GW_PARAMS = [Param("decay", None), Param("fixed", False), Param("cutoff", 30)]


def _gw_decay(name, decay, fixed, cutoff):
    """The decay of the fixed form, checked (the curved form: see :func:`_curved_sp`)."""
    if decay is None:
        raise TermError(f"term {name}: decay is required with fixed=TRUE, "
                        f"e.g. {name}(0.5, fixed=TRUE)")
    decay = as_float(decay, f"term {name}: decay")
    if decay < 0:
        raise TermError(f"term {name}: decay must be non-negative, got {format_number(decay)}")
    cut = as_int_list(cutoff, what=f"term {name}: cutoff", minimum=1)
    if len(cut) != 1:
        raise TermError(f"term {name}: cutoff must be a single integer")
    return decay


def _curved_sp(net, name, decay, cutoff, kernel_cls, stat_prefix):
    """The curved form (statnet's default, fixed=FALSE): counts of 1 ... K partners (a
    warning when the observed network has more: :func:`.curved.warn_beyond_cutoff`)."""
    K = curve_length(name, cutoff, net.n - 2)
    if K < net.n - 2:
        kind = {EspKernel: "edge", DspKernel: "dyad", NspKernel: "nonedge"}[kernel_cls]
        warn_beyond_cutoff(name, K, partner_max(net, kind),
                           {"edge": "tie", "dyad": "dyad", "nonedge": "dyad without a tie"}[kind])
    ds = list(range(1, K + 1))
    counts = Term(name, [f"{stat_prefix}{v}" for v in ds], kernel_cls(ds, net.n))
    return make_curved(name, counts, [f"{stat_prefix}#{v}" for v in ds],
                       [name, f"{name}.decay"], GeometricWeights(K), start_decay(name, decay))


@register("gwesp", kinds=UNDIRECTED, params=_GW_PARAMS + [_TYPE412], family=_FAMILY, bounds="count")
def gwesp(net, decay=None, fixed=False, cutoff=30, type=None):
    """Geometrically weighted edgewise shared partners (fixed decay α).

    e^α Σ_{k≥1} {1 − (1 − e^{−α})^k} EP_k, summed over all k (statnet
    ``gwesp(decay, fixed=TRUE)``, label ``gwesp.fixed.<decay>``; EstimNet's
    alternating k-triangles ``AltKTriangles`` with λ = e^α).  Change statistic
    of the tie (i, j): w(sp(i, j)) + Σ_{k ∈ N(i)∩N(j)} [r^{sp⁻(i,k)} + r^{sp⁻(j,k)}],
    r = 1 − e^{−α}, sp⁻ = counts without the tie (i, j).

    With ``fixed=FALSE`` (statnet's default) the term is curved: its
    statistics are the counts ``esp#1 … esp#K`` (K = min(cutoff, n − 2)) and
    its coefficients ``gwesp`` and ``gwesp.decay`` (see :mod:`.curved`);
    ``cutoff`` matters only there.

    Example: ``edges + gwesp(0.25, fixed=TRUE)``.
    """
    _undirected_type("gwesp", type)
    if not as_bool(fixed, "term gwesp: fixed"):
        return _curved_sp(net, "gwesp", decay, cutoff, EspKernel, "esp")
    a = _gw_decay("gwesp", decay, fixed, cutoff)
    return Term("gwesp", [f"gwesp.fixed.{format_number(a)}"], GwespKernel(a, net.n))


@register("gwdsp", kinds=UNDIRECTED, params=_GW_PARAMS + [_TYPE412], family=_FAMILY, bounds="count")
def gwdsp(net, decay=None, fixed=False, cutoff=30, type=None):
    """Geometrically weighted dyadwise shared partners (fixed decay α).

    e^α Σ_{k≥1} {1 − (1 − e^{−α})^k} DP_k over all pairs, tied or not (statnet
    ``gwdsp(decay, fixed=TRUE)``, label ``gwdsp.fixed.<decay>``; EstimNet's
    alternating two-paths ``AltTwoPaths`` with λ = e^α).  ``cutoff`` is
    ignored, as in statnet with ``fixed=TRUE``.

    Example: ``edges + gwdsp(0.5, fixed=TRUE)``.
    """
    _undirected_type("gwdsp", type)
    if not as_bool(fixed, "term gwdsp: fixed"):
        return _curved_sp(net, "gwdsp", decay, cutoff, DspKernel, "gwdsp")
    a = _gw_decay("gwdsp", decay, fixed, cutoff)
    return Term("gwdsp", [f"gwdsp.fixed.{format_number(a)}"], GwdspKernel(a, net.n))


@register("gwnsp", kinds=UNDIRECTED, params=_GW_PARAMS + [_TYPE412], family=_FAMILY)
def gwnsp(net, decay=None, fixed=False, cutoff=30, type=None):
    """Geometrically weighted non-edgewise shared partners (fixed decay α).

    e^α Σ_{k≥1} {1 − (1 − e^{−α})^k} NP_k over untied pairs, i.e. gwdsp − gwesp
    (statnet ``gwnsp(decay, fixed=TRUE)``, label ``gwnsp.fixed.<decay>``).
    With ``fixed=FALSE`` (statnet's default) it is curved: statistics ``nsp#1 …
    nsp#K``, coefficients ``gwnsp`` and ``gwnsp.decay``.

    Example: ``edges + gwesp(0.5, fixed=TRUE) + gwnsp(0.5, fixed=TRUE)``.
    """
    _undirected_type("gwnsp", type)
    if not as_bool(fixed, "term gwnsp: fixed"):
        return _curved_sp(net, "gwnsp", decay, cutoff, NspKernel, "nsp")
    a = _gw_decay("gwnsp", decay, fixed, cutoff)
    return Term("gwnsp", [f"gwnsp.fixed.{format_number(a)}"], GwnspKernel(a, net.n))


# statnet 4.12 accepts the d-forms on undirected networks too (the UTP type: every type is
# the same count there), with the undirected labels: dgwesp(fixed=TRUE, decay=0.1) ->
# gwesp.fixed.0.1, desp(d=2) -> esp2, and the curved counts esp#k / dsp#k / nsp#k (statnet's
# test-term-gw-sp.R, "Undirect tests" on faux.mesa.high).
_D_GW_PARAMS = _GW_PARAMS + [Param("type", "OTP", "shared-partner type; no effect on an "
                                                  "undirected network")]


@register("dgwesp", kinds=UNDIRECTED, params=_D_GW_PARAMS, family=_FAMILY)
def dgwesp_undirected(net, decay=None, fixed=False, cutoff=30, type="OTP"):
    """``dgwesp`` on an undirected network: ``gwesp`` (labels ``gwesp.fixed.<decay>``,
    curved ``esp#k``)."""
    return gwesp(net, decay, fixed, cutoff, type)


@register("dgwdsp", kinds=UNDIRECTED, params=_D_GW_PARAMS, family=_FAMILY)
def dgwdsp_undirected(net, decay=None, fixed=False, cutoff=30, type="OTP"):
    """``dgwdsp`` on an undirected network: ``gwdsp`` (label ``gwdsp.fixed.<decay>``); its
    curved counts are labelled ``dsp#k`` (statnet 4.4's plain ``gwdsp`` says ``gwdsp#k``)."""
    _undirected_type("dgwdsp", type)
    if not as_bool(fixed, "term dgwdsp: fixed"):
        return _curved_sp(net, "gwdsp", decay, cutoff, DspKernel, "dsp")
    return gwdsp(net, decay, fixed, cutoff, type)


@register("dgwnsp", kinds=UNDIRECTED, params=_D_GW_PARAMS, family=_FAMILY)
def dgwnsp_undirected(net, decay=None, fixed=False, cutoff=30, type="OTP"):
    """``dgwnsp`` on an undirected network: ``gwnsp`` (labels ``gwnsp.fixed.<decay>``,
    curved ``nsp#k``)."""
    return gwnsp(net, decay, fixed, cutoff, type)


@register("desp", kinds=UNDIRECTED, params=[Param("d"), Param("type", "OTP")], family=_FAMILY)
def desp_undirected(net, d, type="OTP"):
    """``desp`` on an undirected network: ``esp(d)`` (labels ``esp<d>``)."""
    return esp(net, d, type)


@register("ddsp", kinds=UNDIRECTED, params=[Param("d"), Param("type", "OTP")], family=_FAMILY)
def ddsp_undirected(net, d, type="OTP"):
    """``ddsp`` on an undirected network: ``dsp(d)`` (labels ``dsp<d>``)."""
    return dsp(net, d, type)


@register("dnsp", kinds=UNDIRECTED, params=[Param("d"), Param("type", "OTP")], family=_FAMILY)
def dnsp_undirected(net, d, type="OTP"):
    """``dnsp`` on an undirected network: ``nsp(d)`` (labels ``nsp<d>``)."""
    return nsp(net, d, type)


@register("cycle", kinds=UNDIRECTED, params=[Param("k"), Param("semi", False)],
          family=_FAMILY, bounds="count")
def cycle(net, k, semi=False):
    """Number of k-cycles, one statistic per value in ``k`` (3 ≤ k ≤ n).

    A k-cycle is a set of k distinct nodes v_1..v_k with ties v_1v_2, ...,
    v_{k−1}v_k, v_kv_1, counted once as a subgraph (not necessarily induced);
    cycle(3) = triangle.  statnet ``cycle(k)`` (labels ``cycle4``, ...; ``semi``
    is accepted and, as in statnet, ignored for undirected networks); cycle(4)
    is EstimNet's ``FourCycles``.  The change statistic of (i, j) counts the
    simple (k−1)-paths from i to j; its cost grows like degree^(k−3), so k up
    to about 6 is practical on large networks.

    Example: ``edges + cycle(4)``.
    """
    as_bool(semi, "term cycle: semi")
    ks = as_int_list(k, what="term cycle: k", minimum=3)
    if len(set(ks)) != len(ks):
        raise TermError(f"term cycle: the values of k must be distinct, got {ks}")
    if max(ks) > net.n:
        raise TermError(f"term cycle: k must be at most the number of nodes ({net.n}), "
                        f"got {max(ks)}")
    return Term("cycle", [f"cycle{v}" for v in ks], CycleKernel(ks))
