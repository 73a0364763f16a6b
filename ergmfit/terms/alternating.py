"""EstimNetDirected's directed alternating statistics (Robins, Pattison & Wang 2009).

Notation, for a directed graph x without loops (w ranges over nodes other than a, b):

* M(a, b) = #{w: a->w->b}        mixed two-paths from a to b (ordered);
* O(a, b) = #{w: w->a, w->b}     out-two-paths, a shared *in*-neighbour (symmetric);
* I(a, b) = #{w: a->w, b->w}     in-two-paths, a shared *out*-neighbour (symmetric);
* q = 1 - 1/lambda, lambda > 1 (default 2, as in EstimNetDirected).

The weight lambda (1 - q^k) of a configuration with k two-paths is the alternating sum
sum_{m=1..k} (-1)^(m+1) C(k, m) / lambda^(m-1): the first two-path counts 1, the second
q, the third q^2, ...  All statistics are 0 on the empty graph.

Relation to statnet (``ergm``): ``dgwesp(decay, fixed=TRUE, type=T)`` is
e^decay * sum_k (1 - (1 - e^-decay)^k) ESP_k, where ESP_k counts arcs whose ordered pair
has k shared partners of type T.  With decay = log(lambda), e^decay = lambda and
1 - e^-decay = q, so its weight is exactly lambda (1 - q^k): every alternating k-triangle
statistic *equals* a gwesp, with no scale factor, at decay = log(lambda) (not
log(lambda/(lambda-1)), which is the gwdegree <-> alternating k-star relation; the two
coincide only at lambda = 2).  ``dgwdsp`` sums the same weight over *ordered* pairs
a != b for every type, so A2P-T equals gwdsp OTP while the unordered-pair A2P-D/U are
half of gwdsp ISP/OSP:

===================  ==========================================================
AltKTrianglesT(l)    dgwesp(log(l), fixed=TRUE, type='OTP')
AltKTrianglesC(l)    dgwesp(log(l), fixed=TRUE, type='ITP')
AltKTrianglesD(l)    dgwesp(log(l), fixed=TRUE, type='ISP')
AltKTrianglesU(l)    dgwesp(log(l), fixed=TRUE, type='OSP')
AltTwoPathsT(l)      dgwdsp(log(l), fixed=TRUE, type='OTP')
AltTwoPathsD(l)      dgwdsp(log(l), fixed=TRUE, type='ISP') / 2
AltTwoPathsU(l)      dgwdsp(log(l), fixed=TRUE, type='OSP') / 2
AltTwoPathsTD(l)     dgwdsp OTP / 2 + dgwdsp ISP / 4  (decay log(l))
===================  ==========================================================

(statnet's "OSP" is a shared out-neighbour, i.e. EstimNet's in-two-path I, and "ISP" a
shared in-neighbour, EstimNet's out-two-path O.)  The tests check all of these against
statnet's own values (samplike, samplk1, ecoli1; decay 0.5 and log 2).

Change statistics are EstimNetDirected's (``changeStatisticsDirected.c``), computed in
O(degree) from the state's two-path caches (see ``_alternating.pxi``).
"""
from ._coreterms import (
    AltKTrianglesCKernel, AltKTrianglesDKernel, AltKTrianglesTKernel, AltKTrianglesUKernel,
    AltTwoPathsDKernel, AltTwoPathsTDKernel, AltTwoPathsTKernel, AltTwoPathsUKernel,
)
from ..exceptions import TermError
from .registry import DIRECTED, Param, Term, as_float, format_number, register

_FAMILY = "directed alternating"
_LAMBDA = [Param("lambda", 2.0, "decay weight lambda > 1; q = 1 - 1/lambda")]


def _build(name, kernel_cls, args):
    lam = as_float(args["lambda"], f"{name}: lambda")
    if not lam > 1.0:
        raise TermError(f"term {name}: lambda must be greater than 1, got {args['lambda']!r}")
    label = f"{name}({format_number(lam)})"
    return Term(name, [label], kernel_cls(lam))


@register("AltKTrianglesT", kinds=DIRECTED, params=_LAMBDA, family=_FAMILY)
def alt_k_triangles_t(net, **args):
    """Alternating transitive k-triangles, AKT-T (path closure).

    g(x) = lambda * sum_{arcs a->b} (1 - q^M(a,b)),  q = 1 - 1/lambda.

    Change for adding i->j (counts without the arc i->j):
    lambda (1 - q^M(i,j)) + sum_{v: i->v, j->v} q^M(i,v) + sum_{v: v->i, v->j} q^M(v,j).

    EstimNet ``AltKTrianglesT``; statnet ``dgwesp(log(lambda), fixed=TRUE, type='OTP')``
    (equal, no scale factor).  Label ``AltKTrianglesT(2)``.

    Example: ``ERGM(g, "edges + AltKTrianglesT(2)")``.
    """
    return _build("AltKTrianglesT", AltKTrianglesTKernel, args)


@register("AltKTrianglesC", kinds=DIRECTED, params=_LAMBDA, family=_FAMILY)
def alt_k_triangles_c(net, **args):
    """Alternating cyclic k-triangles, AKT-C (cyclic closure).

    g(x) = lambda * sum_{arcs a->b} (1 - q^M(b,a)): the base arc a->b closes the cycles
    a->b->w->a.

    Change for adding i->j: lambda (1 - q^M(j,i)) + sum_{v: v->i, j->v} (q^M(i,v) + q^M(v,j)).

    EstimNet ``AltKTrianglesC``; statnet ``dgwesp(log(lambda), fixed=TRUE, type='ITP')``.

    Example: ``ERGM(g, "edges + AltKTrianglesC(2)")``.
    """
    return _build("AltKTrianglesC", AltKTrianglesCKernel, args)


@register("AltKTrianglesD", kinds=DIRECTED, params=_LAMBDA, family=_FAMILY)
def alt_k_triangles_d(net, **args):
    """Alternating popularity-closure k-triangles, AKT-D ("down").

    g(x) = lambda * sum_{arcs a->b} (1 - q^O(a,b)), O(a,b) = #{w: w->a, w->b}.

    Change for adding i->j: lambda (1 - q^O(i,j)) + sum_{v: i->v, v != j} (x_jv + x_vj) q^O(j,v).

    EstimNet ``AltKTrianglesD``; statnet ``dgwesp(log(lambda), fixed=TRUE, type='ISP')``.

    Example: ``ERGM(g, "edges + AltKTrianglesD(2)")``.
    """
    return _build("AltKTrianglesD", AltKTrianglesDKernel, args)


@register("AltKTrianglesU", kinds=DIRECTED, params=_LAMBDA, family=_FAMILY)
def alt_k_triangles_u(net, **args):
    """Alternating activity-closure k-triangles, AKT-U ("up").

    g(x) = lambda * sum_{arcs a->b} (1 - q^I(a,b)), I(a,b) = #{w: a->w, b->w}.

    Change for adding i->j: lambda (1 - q^I(i,j)) + sum_{v: v->j, v != i} (x_iv + x_vi) q^I(i,v).

    EstimNet ``AltKTrianglesU``; statnet ``dgwesp(log(lambda), fixed=TRUE, type='OSP')``.

    Example: ``ERGM(g, "edges + AltKTrianglesU(2)")``.
    """
    return _build("AltKTrianglesU", AltKTrianglesUKernel, args)


@register("AltTwoPathsT", kinds=DIRECTED, params=_LAMBDA, family=_FAMILY)
def alt_two_paths_t(net, **args):
    """Alternating transitive (mixed) two-paths, A2P-T (multiple two-paths).

    g(x) = lambda * sum_{ordered pairs a != b} (1 - q^M(a,b)).

    Change for adding i->j: sum_{v: j->v, v != i} q^M(i,v) + sum_{v: v->i, v != j} q^M(v,j).

    EstimNet ``AltTwoPathsT``; statnet ``dgwdsp(log(lambda), fixed=TRUE, type='OTP')``
    (equal, no scale factor).

    Example: ``ERGM(g, "edges + AltKTrianglesT + AltTwoPathsT")``.
    """
    return _build("AltTwoPathsT", AltTwoPathsTKernel, args)


@register("AltTwoPathsD", kinds=DIRECTED, params=_LAMBDA, family=_FAMILY)
def alt_two_paths_d(net, **args):
    """Alternating out-two-paths, A2P-D (shared popularity).

    g(x) = lambda * sum_{unordered pairs {a, b}} (1 - q^O(a,b)), O(a,b) = #{w: w->a, w->b}.

    Change for adding i->j: sum_{v: i->v, v != j} q^O(j,v).

    EstimNet ``AltTwoPathsD``; statnet ``dgwdsp(log(lambda), fixed=TRUE, type='ISP')`` / 2
    (statnet sums over ordered pairs, counting each pair twice).

    Example: ``ERGM(g, "edges + AltTwoPathsD(2)")``.
    """
    return _build("AltTwoPathsD", AltTwoPathsDKernel, args)


@register("AltTwoPathsU", kinds=DIRECTED, params=_LAMBDA, family=_FAMILY)
def alt_two_paths_u(net, **args):
    """Alternating in-two-paths, A2P-U (shared activity).

    g(x) = lambda * sum_{unordered pairs {a, b}} (1 - q^I(a,b)), I(a,b) = #{w: a->w, b->w}.

    Change for adding i->j: sum_{v: v->j, v != i} q^I(i,v).

    EstimNet ``AltTwoPathsU``; statnet ``dgwdsp(log(lambda), fixed=TRUE, type='OSP')`` / 2
    (statnet sums over ordered pairs, counting each pair twice).

    Example: ``ERGM(g, "edges + AltTwoPathsU(2)")``.
    """
    return _build("AltTwoPathsU", AltTwoPathsUKernel, args)


@register("AltTwoPathsTD", kinds=DIRECTED, params=_LAMBDA, family=_FAMILY)
def alt_two_paths_td(net, **args):
    """Alternating two-paths A2P-TD (shared popularity + multiple two-paths).

    g(x) = (AltTwoPathsT(lambda) + AltTwoPathsD(lambda)) / 2, halved as EstimNet does
    to adjust for counting the configurations twice.

    Change for adding i->j: half the sum of the two changes.

    EstimNet ``AltTwoPathsTD``; statnet
    ``dgwdsp(log(lambda), fixed=TRUE, type='OTP') / 2 + dgwdsp(log(lambda), fixed=TRUE, type='ISP') / 4``.

    Example: ``ERGM(g, "edges + AltTwoPathsTD(2)")``.
    """
    return _build("AltTwoPathsTD", AltTwoPathsTDKernel, args)
