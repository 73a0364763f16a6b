"""Directed triad and shared-partner terms, as statnet ``ergm`` 4.4 defines them.

Triads (x_ab = 1 if the tie a->b is present; sums over distinct nodes):

* ``ttriple`` (alias ``ttriad``) = Σ_{a,b,c} x_ab x_bc x_ac, transitive triples;
* ``ctriple`` (alias ``ctriad``) = (1/3) Σ_{a,b,c} x_ab x_bc x_ca, directed 3-cycles;
* ``triangle`` (alias ``triangles``) = ttriple + ctriple;
* ``transitive``: statnet 4.4's computed values equal ``ttriple`` (see its docstring);
* ``twopath`` = ``m2star`` = Σ_{a≠c} #{b: a->b->c}, directed two-paths;
* ``transitiveties`` = #{ties a->b: some a->k->b};  ``cyclicalties`` = #{ties a->b: some b->k->a}.

Shared partners of an ordered pair (a, b), k ranging over nodes other than a and b
(statnet's five types, Butts 2008):

* OTP(a, b) = #{k: a->k->b}        outgoing two-path ("transitive" partner)
* ITP(a, b) = #{k: b->k->a}        incoming two-path ("cyclical" partner)
* RTP(a, b) = #{k: a<->k<->b}      reciprocated two-path
* OSP(a, b) = #{k: a->k, b->k}     outgoing shared partner (a shared OUT-neighbour)
* ISP(a, b) = #{k: k->a, k->b}     incoming shared partner (a shared IN-neighbour)

EP_k = number of ties a->b with SP(a, b) = k; DP_k = number of ORDERED pairs (a, b),
a ≠ b, with SP(a, b) = k (statnet counts every pair in both orders, also for the
symmetric OSP / ISP / RTP: checked against its values on samplike, samplk1, ecoli1);
NP_k = DP_k − EP_k (ordered pairs without the tie a->b).  With α = decay,

    gwesp = e^α Σ_k {1 − (1 − e^−α)^k} EP_k,    gwdsp / gwnsp: the same over DP_k / NP_k.

Over all ordered pairs ITP(a, b) = OTP(b, a), so ``dgwdsp(type='ITP')`` equals OTP.
Plain ``gwesp``/``gwdsp``/``esp``/``dsp``/``gwnsp``/``nsp`` on a directed network use OTP
(statnet's default), with the undirected labels (``gwesp.fixed.0.5``, ``esp1``); the typed
``dgwesp``/``dgwdsp``/``dgwnsp``/``desp``/``ddsp``/``dnsp`` put the type in the label
(``gwesp.OTP.fixed.0.5``, ``esp.OTP1``).

With ``fixed=FALSE`` (statnet's default) the gw terms are curved (see :mod:`.curved`): their
statistics are the counts ``esp#1 … esp#K`` (typed: ``esp.OTP#1 …``; plain directed ``gwdsp``:
``gwdsp#1 …``), K = min(cutoff, n − 2), and their coefficients ``gwesp`` / ``gwesp.decay``
(typed: ``gwesp.OTP`` / ``gwesp.OTP.decay``).  With ``fixed=TRUE`` ``cutoff`` is ignored.  The statistic is exact for every count; statnet 4.x
evaluates ``dgwesp(fixed=TRUE)`` from the first ``cutoff`` ESP counts, so on networks where
some pair has more than ``cutoff`` (30) partners statnet under-counts (ergm issues
#484/#485) and the two disagree.

Change statistics read the state's two-path caches (O(degree) per dyad), RTP excepted
(O(degree²), no cache).  The undirected versions live in :mod:`.triad`.
"""
import numpy as np

from ._coreterms import (SP_KINDS, SP_TYPES, TRIAD_MODES, DSPKernel, DTriadKernel)
from ..exceptions import TermError
from .curved import (GeometricWeights, curve_length, make_curved, partner_max, start_decay,
                     warn_beyond_cutoff)
from .registry import (DIRECTED, Param, Term, as_bool, as_float, as_int_list, format_number,
                       register)

_FAMILY = "triad and shared-partner"
_TYPES = ("OTP", "ITP", "RTP", "OSP", "ISP")

_ATTR_PARAMS = [Param("attr", None, "count only triples whose nodes share this attribute"),
                Param("diff", False, "with attr: one statistic per level"),
                Param("levels", None, "with attr: the levels counted")]
_TIES_PARAMS = [Param("attr", None, "count only ties whose two ends and two-path node share "
                                    "this attribute's level"),
                Param("levels", None, "with attr: the levels counted")]
_GW_PARAMS = [Param("decay", None, "decay parameter alpha >= 0"),
              Param("fixed", False, "FALSE (statnet's default): curved, the decay is estimated"),
              Param("cutoff", 30, "counts of the curved form: min(cutoff, n - 2)")]
_TYPE_PARAM = Param("type", "OTP", "shared-partner type: OTP, ITP, RTP, OSP or ISP")
# statnet 4.12 spells d*sp(type=) as esp/dsp/nsp/gw*sp(type=): accepted, with the d* labels
_TYPE412 = Param("type", None, "statnet 4.12: shared-partner type (as desp etc.; labels "
                 "esp.OTP1, gwesp.OTP.fixed.0.5)")


def _no_attr(name, attr=None, diff=False, levels=None):
    if attr is not None or levels is not None or (diff is not False and diff is not None):
        raise TermError(f"term {name}: the attr/diff/levels arguments are not supported yet; "
                        f"use plain {name}")


def _triad(name, net, mode, attr=None, diff=False, levels=None, label=None):
    if attr is not None and name in ("triangle", "ttriple", "ctriple"):
        from .attrterms import attr_triad
        return attr_triad(net, name, "dtriangle" if name == "triangle" else name, attr, diff,
                          levels)
    _no_attr(name, attr, diff, levels)
    return Term(name, [label or name], DTriadKernel(TRIAD_MODES[mode]))


@register("triangle", kinds=DIRECTED, params=_ATTR_PARAMS, aliases=("triangles",),
          family=_FAMILY, bounds="increasing")
def dtriangle(net, attr=None, diff=False, levels=None):
    """Directed triangles: every transitive or cyclic triple, ttriple + ctriple.

    g = Σ_{a,b,c distinct} x_ab x_bc x_ac + (1/3) Σ x_ab x_bc x_ca.  Change for adding i->j:
    OTP(i,j) + OSP(i,j) + ISP(i,j) + OTP(j,i).  statnet ``triangle`` on a directed network
    (label ``triangle``); ``attr``/``diff``: triples whose nodes share a level.

    Example: ``edges + mutual + triangle``.
    """
    return _triad("triangle", net, "triangle", attr, diff, levels)


@register("ttriple", kinds=DIRECTED, params=_ATTR_PARAMS, aliases=("ttriad",),
          family=_FAMILY, bounds="increasing")
def ttriple(net, attr=None, diff=False, levels=None):
    """Transitive triples: Σ_{a,b,c distinct} x_ab x_bc x_ac (a->b->c with a->c).

    Each triple is counted once per (a, b, c) role assignment, so a complete triad (type
    300) holds 6.  Change for adding i->j: #{k: i->k->j} + #{k: i->k, j->k} +
    #{k: k->i, k->j}.  statnet ``ttriple`` (label ``ttriple``).

    Example: ``edges + ttriple``.
    """
    return _triad("ttriple", net, "ttriple", attr, diff, levels)


@register("ctriple", kinds=DIRECTED, params=_ATTR_PARAMS, aliases=("ctriad",),
          family=_FAMILY, bounds="increasing")
def ctriple(net, attr=None, diff=False, levels=None):
    """Cyclic triples: directed 3-cycles a->b->c->a, (1/3) Σ_{a,b,c} x_ab x_bc x_ca.

    Change for adding i->j: #{k: j->k->i}.  statnet ``ctriple`` (label ``ctriple``).

    Example: ``edges + ctriple``.
    """
    return _triad("ctriple", net, "ctriple", attr, diff, levels)


@register("transitive", kinds=DIRECTED, family=_FAMILY, bounds="increasing")
def transitive(net):
    """statnet's ``transitive``, as statnet 4.4 computes it: equal to ``ttriple``.

    statnet's help page describes "the number of triads of type 120D, 030T, 120U or 300",
    but the values statnet 4.4.0 prints are the transitive-triple count
    Σ x_ab x_bc x_ac: samplike 154 (34 such triads), samplk1 24 (9 triads), ecoli1 42.
    We reproduce statnet's numbers (label ``transitive``).  For the triad count use
    ``triadcensus``-style terms (not provided here).

    Example: ``edges + transitive``.
    """
    return Term("transitive", ["transitive"], DTriadKernel(TRIAD_MODES["ttriple"]))


@register("twopath", kinds=DIRECTED, family=_FAMILY, bounds="increasing")
def dtwopath(net):
    """Directed two-paths: Σ_{a≠c} #{b: a->b->c} (each a->b->c with a ≠ c once).

    Change for adding i->j: outdeg(j) + indeg(i) − 2 x_ji.  statnet ``twopath`` on a
    directed network (= ``m2star``; label ``twopath``).

    Example: ``edges + twopath``.
    """
    return Term("twopath", ["twopath"], DTriadKernel(TRIAD_MODES["twopath"]))


@register("m2star", kinds=DIRECTED, family=_FAMILY)
def m2star(net):
    """Mixed 2-stars: directed two-paths a->b->c, a ≠ c; the same statistic as ``twopath``.

    statnet ``m2star`` (label ``m2star``).  Example: ``edges + m2star``.
    """
    return Term("m2star", ["m2star"], DTriadKernel(TRIAD_MODES["twopath"]))


@register("transitiveties", kinds=DIRECTED, params=_TIES_PARAMS, family=_FAMILY)
def transitiveties(net, attr=None, levels=None):
    """Transitive ties: #{ties a->b such that a->k->b for some k}.

    statnet ``transitiveties`` (label ``transitiveties``); with ``attr`` only the ties whose
    two ends and two-path node share a level (``transitiveties.<attr>``).
    Change for adding i->j: [OTP(i,j) ≥ 1] plus the ties i->k (j->k) and k->j (k->i)
    whose only two-path is the one through i->j.

    Example: ``edges + transitiveties``.
    """
    if attr is not None:
        from .composed import typed_ties
        return typed_ties(net, "transitiveties", attr, levels, "transitiveties")
    _no_attr("transitiveties", attr, False, levels)
    return Term("transitiveties", ["transitiveties"], DTriadKernel(TRIAD_MODES["transitiveties"]))


@register("cyclicalties", kinds=DIRECTED, params=_TIES_PARAMS, family=_FAMILY)
def cyclicalties(net, attr=None, levels=None):
    """Cyclical ties: #{ties a->b such that b->k->a for some k} (the tie closes a 3-cycle).

    statnet ``cyclicalties`` (label ``cyclicalties``); with ``attr`` only the ties whose two
    ends and two-path node share a level (``cyclicalties.<attr>``).

    Example: ``edges + cyclicalties``.
    """
    if attr is not None:
        from .composed import typed_ties
        return typed_ties(net, "cyclicalties", attr, levels, "cyclicalties")
    _no_attr("cyclicalties", attr, False, levels)
    return Term("cyclicalties", ["cyclicalties"], DTriadKernel(TRIAD_MODES["cyclicalties"]))


# -- shared partners ---------------------------------------------------------------

def _sp_type(name, type):
    if not isinstance(type, str) or type.upper() not in _TYPES:
        raise TermError(f"term {name}: type must be one of {', '.join(_TYPES)}, got {type!r}")
    return type.upper()


def _gw_decay(name, decay, fixed, cutoff):
    if decay is None:
        raise TermError(f"term {name}: decay is required with fixed=TRUE, e.g. {name}(0.5, fixed=TRUE)")
    a = as_float(decay, f"term {name}: decay")
    if a < 0:
        raise TermError(f"term {name}: decay must be non-negative, got {format_number(a)}")
    as_int_list(cutoff, f"term {name}: cutoff", minimum=1)
    return a


_COUNT_PREFIX = {"edge": "esp", "dyad": "dsp", "nonedge": "nsp"}


def _gw(net, name, label_prefix, sptype, kind, decay, fixed, cutoff):
    if not as_bool(fixed, f"term {name}: fixed"):
        # the curved form: the counts of 1 ... K partners, coefficients <prefix>, <prefix>.decay
        K = curve_length(name, cutoff, net.n - 2)
        if K < net.n - 2:
            warn_beyond_cutoff(name, K, partner_max(net, kind, sptype),
                               {"edge": "tie", "dyad": "dyad",
                                "nonedge": "dyad without a tie"}[kind], f"{sptype} partners")
        typed = label_prefix != name
        stat = _COUNT_PREFIX[kind] + (f".{sptype}" if typed else "")
        if not typed and kind == "dyad":
            stat = "gwdsp"          # statnet's labels of the undirected curved gwdsp
        counts = _counts(net, name, stat, sptype, kind, list(range(1, K + 1)))
        return make_curved(name, counts, [f"{stat}#{v}" for v in range(1, K + 1)],
                           [label_prefix, f"{label_prefix}.decay"], GeometricWeights(K),
                           start_decay(name, decay))
    a = _gw_decay(name, decay, fixed, cutoff)
    kernel = DSPKernel(SP_TYPES[sptype], SP_KINDS[kind], net.n, a, None)
    return Term(name, [f"{label_prefix}.fixed.{format_number(a)}"], kernel)


def _counts(net, name, label_prefix, sptype, kind, d):
    ds = as_int_list(d, f"term {name}: d", minimum=0)
    if len(set(ds)) != len(ds):
        raise TermError(f"term {name}: the values of d must be distinct, got {ds}")
    kernel = DSPKernel(SP_TYPES[sptype], SP_KINDS[kind], net.n, 0.0, ds)
    # on the empty graph every ordered pair has 0 partners (and no tie)
    n_pairs = float(net.n) * (net.n - 1)
    empty = np.array([n_pairs if (v == 0 and kind != "edge") else 0.0 for v in ds])
    return Term(name, [f"{label_prefix}{v}" for v in ds], kernel, empty=empty)


@register("gwesp", kinds=DIRECTED, params=_GW_PARAMS + [_TYPE412], family=_FAMILY, bounds="count")
def dir_gwesp(net, decay=None, fixed=False, cutoff=30, type=None):
    """Geometrically weighted edgewise shared partners, directed: OTP partners.

    e^α Σ_k {1 − (1 − e^−α)^k} EP_k, α = decay, EP_k = #{ties a->b with k nodes
    a->k->b}.  Same as ``dgwesp(decay, fixed=TRUE, type='OTP')`` but statnet's plain label
    ``gwesp.fixed.<decay>``.  EstimNet's ``AltKTrianglesT(λ)`` equals it at decay = log λ.

    Example: ``edges + gwesp(0.5, fixed=TRUE)``.
    """
    if type is not None:        # statnet 4.12's spelling of dgwesp
        t = _sp_type("gwesp", type)
        return _gw(net, "gwesp", f"gwesp.{t}", t, "edge", decay, fixed, cutoff)
    return _gw(net, "gwesp", "gwesp", "OTP", "edge", decay, fixed, cutoff)


@register("gwdsp", kinds=DIRECTED, params=_GW_PARAMS + [_TYPE412], family=_FAMILY, bounds="count")
def dir_gwdsp(net, decay=None, fixed=False, cutoff=30, type=None):
    """Geometrically weighted dyadwise shared partners, directed: OTP partners.

    e^α Σ_k {1 − (1 − e^−α)^k} DP_k, DP_k = #{ordered pairs (a, b), a ≠ b, with k nodes
    a->k->b}.  Label ``gwdsp.fixed.<decay>``; EstimNet's ``AltTwoPathsT(λ)`` at decay = log λ.

    Example: ``edges + gwdsp(0.5, fixed=TRUE)``.
    """
    if type is not None:
        t = _sp_type("gwdsp", type)
        return _gw(net, "gwdsp", f"gwdsp.{t}", t, "dyad", decay, fixed, cutoff)
    return _gw(net, "gwdsp", "gwdsp", "OTP", "dyad", decay, fixed, cutoff)


@register("gwnsp", kinds=DIRECTED, params=_GW_PARAMS + [_TYPE412], family=_FAMILY)
def dir_gwnsp(net, decay=None, fixed=False, cutoff=30, type=None):
    """Geometrically weighted non-edgewise shared partners, directed: OTP partners.

    e^α Σ_k {1 − (1 − e^−α)^k} NP_k, NP_k = #{ordered pairs (a, b) without the tie a->b
    with k nodes a->k->b} = gwdsp − gwesp.  Label ``gwnsp.fixed.<decay>``.

    Example: ``edges + gwnsp(0.5, fixed=TRUE)``.
    """
    if type is not None:
        t = _sp_type("gwnsp", type)
        return _gw(net, "gwnsp", f"gwnsp.{t}", t, "nonedge", decay, fixed, cutoff)
    return _gw(net, "gwnsp", "gwnsp", "OTP", "nonedge", decay, fixed, cutoff)


@register("dgwesp", kinds=DIRECTED, params=_GW_PARAMS + [_TYPE_PARAM], family=_FAMILY)
def dgwesp(net, decay=None, fixed=False, cutoff=30, type="OTP"):
    """Geometrically weighted edgewise shared partners of a chosen type.

    e^α Σ_k {1 − (1 − e^−α)^k} EP_k with EP_k = #{ties a->b with SP(a, b) = k}, SP one of
    OTP (a->k->b), ITP (b->k->a), RTP (a<->k<->b), OSP (a->k, b->k), ISP (k->a, k->b).
    statnet ``dgwesp(decay, fixed=TRUE, type=...)``, label ``gwesp.OTP.fixed.0.5``.
    EstimNet: AltKTrianglesT/C/U/D(λ) = OTP/ITP/OSP/ISP at decay = log λ.

    Example: ``edges + dgwesp(log(2), fixed=TRUE, type='OSP')``.
    """
    t = _sp_type("dgwesp", type)
    return _gw(net, "dgwesp", f"gwesp.{t}", t, "edge", decay, fixed, cutoff)


@register("dgwdsp", kinds=DIRECTED, params=_GW_PARAMS + [_TYPE_PARAM], family=_FAMILY)
def dgwdsp(net, decay=None, fixed=False, cutoff=30, type="OTP"):
    """Geometrically weighted dyadwise shared partners of a chosen type.

    e^α Σ_k {1 − (1 − e^−α)^k} DP_k over ORDERED pairs a ≠ b (the symmetric OSP/ISP/RTP
    pairs count twice, as in statnet); ITP gives the same value as OTP.  statnet
    ``dgwdsp(decay, fixed=TRUE, type=...)``, label ``gwdsp.OTP.fixed.0.5``.  EstimNet:
    AltTwoPathsT(λ) = OTP, AltTwoPathsU/D(λ) = OSP/ISP divided by 2, at decay = log λ.

    Example: ``edges + dgwdsp(log(2), fixed=TRUE, type='ISP')``.
    """
    t = _sp_type("dgwdsp", type)
    return _gw(net, "dgwdsp", f"gwdsp.{t}", t, "dyad", decay, fixed, cutoff)


@register("dgwnsp", kinds=DIRECTED, params=_GW_PARAMS + [_TYPE_PARAM], family=_FAMILY)
def dgwnsp(net, decay=None, fixed=False, cutoff=30, type="OTP"):
    """Geometrically weighted non-edgewise shared partners of a chosen type: dgwdsp − dgwesp.

    Over ordered pairs (a, b) without the tie a->b.  statnet ``dgwnsp``, label
    ``gwnsp.OTP.fixed.0.5``.

    Example: ``edges + dgwnsp(0.5, fixed=TRUE, type='OTP')``.
    """
    t = _sp_type("dgwnsp", type)
    return _gw(net, "dgwnsp", f"gwnsp.{t}", t, "nonedge", decay, fixed, cutoff)


@register("esp", kinds=DIRECTED, params=[Param("d"), _TYPE412], family=_FAMILY, bounds="count")
def dir_esp(net, d, type=None):
    """Edgewise shared partners, directed (OTP): EP_k = #{ties a->b with k nodes a->k->b}.

    One statistic per k in d; statnet ``esp`` on a directed network, labels ``esp0``, ``esp1``.

    Example: ``esp(0:3)``.
    """
    if type is not None:        # statnet 4.12's spelling of desp
        t = _sp_type("esp", type)
        return _counts(net, "esp", f"esp.{t}", t, "edge", d)
    return _counts(net, "esp", "esp", "OTP", "edge", d)


@register("dsp", kinds=DIRECTED, params=[Param("d"), _TYPE412], family=_FAMILY, bounds="count")
def dir_dsp(net, d, type=None):
    """Dyadwise shared partners, directed (OTP): DP_k = #{ordered pairs (a, b), a ≠ b, with
    k nodes a->k->b}; dsp0 of the empty graph is n(n−1).

    statnet ``dsp`` on a directed network, labels ``dsp0``, ``dsp1``.  Example: ``dsp(0:3)``.
    """
    if type is not None:        # statnet 4.12's spelling of ddsp
        t = _sp_type("dsp", type)
        return _counts(net, "dsp", f"dsp.{t}", t, "dyad", d)
    return _counts(net, "dsp", "dsp", "OTP", "dyad", d)


@register("nsp", kinds=DIRECTED, params=[Param("d"), _TYPE412], family=_FAMILY)
def dir_nsp(net, d, type=None):
    """Non-edgewise shared partners, directed (OTP): NP_k = DP_k − EP_k, over ordered pairs
    (a, b) without the tie a->b.

    statnet ``nsp`` on a directed network, labels ``nsp0``, ``nsp1``.  Example: ``nsp(1:2)``.
    """
    if type is not None:        # statnet 4.12's spelling of dnsp
        t = _sp_type("nsp", type)
        return _counts(net, "nsp", f"nsp.{t}", t, "nonedge", d)
    return _counts(net, "nsp", "nsp", "OTP", "nonedge", d)


@register("desp", kinds=DIRECTED, params=[Param("d"), _TYPE_PARAM], family=_FAMILY)
def desp(net, d, type="OTP"):
    """Edgewise shared partners of a chosen type: EP_k = #{ties a->b with SP(a, b) = k}.

    statnet ``desp(d, type=...)``, labels ``esp.OTP0``, ``esp.OTP1``, ...
    Example: ``desp(0:2, type='RTP')``.
    """
    t = _sp_type("desp", type)
    return _counts(net, "desp", f"esp.{t}", t, "edge", d)


@register("ddsp", kinds=DIRECTED, params=[Param("d"), _TYPE_PARAM], family=_FAMILY)
def ddsp(net, d, type="OTP"):
    """Dyadwise shared partners of a chosen type, over ordered pairs a ≠ b.

    statnet ``ddsp(d, type=...)``, labels ``dsp.OTP0``, ...  Example: ``ddsp(0:2, type='OSP')``.
    """
    t = _sp_type("ddsp", type)
    return _counts(net, "ddsp", f"dsp.{t}", t, "dyad", d)


@register("dnsp", kinds=DIRECTED, params=[Param("d"), _TYPE_PARAM], family=_FAMILY)
def dnsp(net, d, type="OTP"):
    """Non-edgewise shared partners of a chosen type, over ordered pairs without the tie.

    statnet ``dnsp(d, type=...)``, labels ``nsp.OTP0``, ...  Example: ``dnsp(1, type='ISP')``.
    """
    t = _sp_type("dnsp", type)
    return _counts(net, "dnsp", f"nsp.{t}", t, "nonedge", d)
