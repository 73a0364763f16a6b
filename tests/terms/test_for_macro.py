"""statnet term usages ergmfit refused (issue #19, session 6b).

1. ``For()`` is statnet's macro ("evaluates the formula given to it, substituting the
   specified loop counter variable with each element in a sequence"): ``For(~Offset(...))``,
   ``For(~Curve(...))`` and ``For(~offset(...))`` behave exactly as their terms written out.
   Before: refused ("write its terms out"), or the offset() inside silently estimated.
2. ``nodecovar(center, transform)`` inside ``Project()``/``Proj1``/``Proj2``: statnet's valued
   term on the projection (help page: Σ_{i,j<k} y_ij y_ik / (n − 2); the expected values are
   the R expressions of statnet's test-valued-terms.R, written in numpy).  Before: refused.
"""
import warnings

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import TermError
from ergmfit.network import as_network
from support.change_stats import check_formula, two_mode_graph

pytestmark = pytest.mark.filterwarnings("ignore::ergmfit.terms.curved.CutoffWarning")

FMH = "faux.mesa.high"


def same_model(a, b, theta):
    """``a`` and ``b`` (formulas on faux.mesa.high) are the same model."""
    ma, mb = ef.ERGM(FMH, a), ef.ERGM(FMH, b)
    assert ma.labels == mb.labels
    assert ma.stat_labels == mb.stat_labels
    assert ma.offset.tolist() == mb.offset.tolist()
    assert ma.statistics() == mb.statistics()
    assert ma.curved == mb.curved
    np.testing.assert_array_equal(ma.eta(theta), mb.eta(theta))
    np.testing.assert_array_equal(ma.parameterisation.jacobian(theta),
                                  mb.parameterisation.jacobian(theta))
    return ma, mb


def test_for_offset_is_the_offsets_written_out():
    ma, mb = same_model('edges + For(~Offset(~nodematch(.), -1), . = c("Sex", "Race"))',
                        'edges + Offset(~nodematch("Sex"), -1) + '
                        'Offset(~nodematch("Race"), -1)', np.array([-4.0]))
    assert ma.labels == ["edges"]
    assert ma.stat_labels == ["edges", "offset(nodematch.Sex)", "offset(nodematch.Race)"]
    np.testing.assert_array_equal(ma.eta([-4.0]), [-4.0, -1.0, -1.0])
    fa, fb = ma.fit(method="mple"), mb.fit(method="mple")
    np.testing.assert_allclose(np.asarray(fa.params), np.asarray(fb.params), rtol=1e-12)


def test_for_offset_with_which_and_several_loop_variables():
    # which=2 of each written-out Offset; the first loop variable is the outermost
    same_model('For(~Offset(~edges + absdiff(a, pow=.), 0.5, which=2), a = c("Grade"), '
               '. = 1:2)',
               'Offset(~edges + absdiff("Grade", pow=1), 0.5, which=2) + '
               'Offset(~edges + absdiff("Grade", pow=2), 0.5, which=2)',
               np.array([-3.0, -2.5]))


def test_for_curve_is_the_curves_written_out():
    rep = 'params=c("h"), map="rep"'
    ma, _ = same_model(f'edges + For(~Curve(~nodematch(.) + nodefactor(.), {rep}), '
                       f'. = c("Sex", "Race"))',
                       f'edges + Curve(~nodematch("Sex") + nodefactor("Sex"), {rep}) + '
                       f'Curve(~nodematch("Race") + nodefactor("Race"), {rep})',
                       np.array([-4.0, 0.5, -0.3]))
    assert ma.labels == ["edges", "h", "h"]
    np.testing.assert_array_equal(ma.eta([-4.0, 0.5, -0.3]),
                                  [-4.0, 0.5, 0.5, -0.3, -0.3, -0.3, -0.3, -0.3])


def test_for_curve_over_a_curved_term_fits_as_written_out():
    gw = 'params=c("w", "d"), map="rep", minpar=c(-Inf, 0)'
    a = f'edges + For(~Curve(~gwesp(cutoff=.), {gw}), . = 4)'
    b = f'edges + Curve(~gwesp(cutoff=4), {gw})'
    ma, mb = same_model(a, b, np.array([-5.0, 1.0, 0.4]))
    assert ma.curved
    fa, fb = ma.fit(method="mple"), mb.fit(method="mple")
    np.testing.assert_allclose(np.asarray(fa.params), np.asarray(fb.params), rtol=1e-10)


def test_offset_inside_for_fixes_the_written_out_terms():
    # before: For() built its formula as an operator's, warned and estimated the coefficient
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same_model('edges + For(~offset(nodematch(.)), . = c("Sex", "Race"))',
                   'edges + offset(nodematch("Sex")) + offset(nodematch("Race"))',
                   np.array([-4.0, 1.0, 2.0]))


def test_for_inside_for_and_inside_an_operator_is_written_out_there():
    same_model('For(~For(~Offset(~nodematch(a, diff=.), -1), . = c(TRUE, FALSE)), '
               'a = c("Sex"))',
               'Offset(~nodematch("Sex", diff=TRUE), -1) + Offset(~nodematch("Sex", diff=FALSE), '
               '-1)', np.zeros(0))
    # Sum() of one formula propagates offset(): also when For() writes it
    m = ef.ERGM(FMH, 'Sum(~For(~edges + offset(nodematch(.)), . = "Sex"), identity)')
    assert m.labels == ["Sum~edges", "offset(Sum~nodematch.Sex)"]
    assert m.stat_labels == ["Sum~edges", "offset(Sum~nodematch.Sex)"]
    # an operator that refuses Curve()/Offset() inside it still does, For() or not
    with pytest.raises(TermError, match=r"inside Passthrough\(\)"):
        ef.ERGM(FMH, 'Passthrough(~For(~Curve(~edges, params="a", map="rep"), . = 1))')


@pytest.mark.parametrize("formula", ["Exp(~Offset(~edges, 1))", 'Log(~Curve(~edges, '
                                     'params="a", map="rep"))'])
def test_exp_and_log_still_refuse_curve_and_offset_inside(formula):
    # statnet's Exp/Log help pages say nothing of Offset()/Curve() inside: still refused
    with pytest.raises(TermError, match=r"Curve\(\) or Offset\(\) inside"):
        ef.ERGM(FMH, formula)


# -- 2. nodecovar inside Project() ----------------------------------------------------------

def nodecovar_by_definition(Y, center, root):
    """statnet's test-valued-terms.R: sum(apply(m, 1, function(r) (sum(r %o% r) - sum(r^2))
    / 2 / (length(r) - 1))), r a row without its diagonal NA, m the (square-rooted)
    values, less their mean over the off-diagonal cells when centred."""
    n = len(Y)
    m = np.sqrt(Y) if root else Y.astype(float)
    off = ~np.eye(n, dtype=bool)
    if center:
        m = m - m[off].mean()
    rows = [m[i, off[i]] for i in range(n)]
    return sum((np.outer(r, r).sum() - (r ** 2).sum()) / 2 / (len(r) - 1) for r in rows)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mode", [1, 2])
def test_project_nodecovar_values_by_definition(seed, mode):
    g, n1 = two_mode_graph(seed)
    A = nx.to_numpy_array(g, nodelist=range(g.number_of_nodes()))
    B = A[:n1, n1:]
    Y = B @ B.T if mode == 1 else B.T @ B
    st = ef.ERGM(g, f'Proj{mode}(~nodecovar(FALSE) + nodecovar(TRUE) + sum + '
                    f'nodecovar(FALSE, "sqrt") + nodecovar(center=TRUE, transform="sqrt"))'
                 ).statistics()
    want = [nodecovar_by_definition(Y, c, r) for c, r in ((False, False), (True, False))] + \
        [Y[np.triu_indices(len(Y), 1)].sum()] + \
        [nodecovar_by_definition(Y, c, r) for c, r in ((False, True), (True, True))]
    labels = list(st)
    assert labels[0] == f"Proj{mode}~nodecovar" and labels[2] == f"Proj{mode}~sum"
    np.testing.assert_allclose(list(st.values()), want, rtol=1e-12, atol=1e-12)
    # Project(f, mode) is Proj<mode>(f)
    assert ef.ERGM(g, f"Project(~nodecovar(TRUE), {mode})").statistics() == \
        {f"Proj{mode}~nodecovar": st[labels[1]]}


@pytest.mark.parametrize("seed", range(2))
def test_project_nodecovar_change_statistics_equal_full_differences(seed):
    g, _ = two_mode_graph(20 + seed)
    check_formula(as_network(g), 'Proj1(~nodecovar(TRUE) + nodecovar(FALSE, "sqrt")) + '
                                 'Proj2(~sum + nodecovar(TRUE, "sqrt") + nodecovar(FALSE))', seed)


def test_project_nodecovar_follows_a_long_run_of_toggles():
    # the kernel keeps each projected node's sum of values: after many toggles the
    # accumulated changes still equal the statistics of the network reached
    g, n1 = two_mode_graph(5, n1=12, n2=15, p=0.3)
    m = ef.ERGM(g, 'Proj1(~nodecovar(TRUE, "sqrt")) + Proj2(~nodecovar(TRUE))')
    c = m.compiled()
    rng = np.random.default_rng(1)
    total = m.statistics_vector()
    for _ in range(400):
        i, j = int(rng.integers(n1)), int(rng.integers(n1, g.number_of_nodes()))
        d = np.asarray(c.dyad_change_stats(i, j))
        total = total + (-d if c.state.has(i, j) else d)
        c.toggle(i, j)
    np.testing.assert_allclose(total, m.statistics_vector(c.state.ties()), rtol=1e-10)


def test_project_nodecovar_arguments():
    g, _ = two_mode_graph(0)
    with pytest.raises(TermError, match="give center=TRUE or center=FALSE"):
        ef.ERGM(g, "Proj1(~nodecovar)")
    with pytest.raises(TermError, match="transform must be 'identity' or 'sqrt'"):
        ef.ERGM(g, 'Proj1(~nodecovar(TRUE, "log"))')
    tiny, _ = two_mode_graph(0, n1=2, n2=4, p=1.0)
    with pytest.raises(TermError, match="at least 3 nodes"):
        ef.ERGM(tiny, "Proj1(~nodecovar(FALSE))")


# -- 3. S(f, tails ~ heads) on a two-mode network -------------------------------------------
# statnet's S help: the selections "must evaluate either to a logical vector equal in length
# to the number of tails (for LHS) and heads (for RHS) ... or a numeric vector giving their
# indices ... the logical vector will be recycled to the size of the network or the size of
# the appropriate bipartition, and negative indices will deselect vertices"; "A one-sided
# formula (e.g., ~A) is symmetrized (e.g., A~A)".  Before: refused (two-sided) or evaluated
# on a one-mode subgraph (one-sided: b1 terms refused, aggregates over both modes).

def s_two_mode_net(seed=3, n1=6, n2=8):
    g, n1 = two_mode_graph(seed, n1, n2, 0.5)
    rng = np.random.default_rng(seed)
    for v in g.nodes:
        g.nodes[v]["a"] = int(rng.integers(1, 5))
        g.nodes[v]["t"] = bool(rng.random() < 0.6)
    return g, n1


def test_s_tails_heads_on_a_two_mode_network_by_definition():
    g, n1 = s_two_mode_net()
    B = nx.to_numpy_array(g, nodelist=range(g.number_of_nodes()))[:n1, n1:]
    a = np.array([g.nodes[v]["a"] for v in range(g.number_of_nodes())])
    a1, a2 = a[:n1], a[n1:]
    t1 = np.array([g.nodes[v]["t"] for v in range(n1)])
    cases = [   # formula selection, mode-1 rows, mode-2 columns (0-based within the mode)
        ("I(c(1,2,3)) ~ c(1,2)", [0, 1, 2], [0, 1]),
        ("c(1,2,3) ~ -1", [0, 1, 2], list(range(1, 8))),
        ("c(TRUE,FALSE) ~ c(FALSE,TRUE,TRUE,TRUE)", [0, 2, 4], [1, 2, 3, 5, 6, 7]),
        # attribute expressions read on each mode's own nodes (mean over that mode)
        ("t ~ a > mean(a)", list(np.flatnonzero(t1)), list(np.flatnonzero(a2 > a2.mean()))),
        ("~a > mean(a)", list(np.flatnonzero(a1 > a1.mean())),     # one-sided: A ~ A
         list(np.flatnonzero(a2 > a2.mean()))),
    ]
    for sel, rows, cols in cases:
        st = ef.ERGM(g, f"S(~edges + b1star(2) + b2degree(1), {sel})").statistics()
        sub = B[np.ix_(rows, cols)]
        d1, d2 = sub.sum(axis=1), sub.sum(axis=0)
        want = [sub.sum(), (d1 * (d1 - 1) / 2).sum(), (d2 == 1).sum()]
        np.testing.assert_array_equal(list(st.values()), want, err_msg=sel)
    assert list(st) == ["S(a>mean(a))~edges", "S(a>mean(a))~b1star2", "S(a>mean(a))~b2degree1"]
    one = ef.ERGM(g, "S(~edges, ~t)").statistics()
    two = ef.ERGM(g, "S(~edges, t ~ t)").statistics()
    assert list(one.values()) == list(two.values()) and list(two) == ["S(t~t)~edges"]


def test_s_on_a_two_mode_network_change_statistics_equal_full_differences():
    g, _ = s_two_mode_net(4)
    check_formula(as_network(g), "S(~edges + b1star(2) + gwb2dsp(0.5, fixed=TRUE), "
                                 "c(1,3,4,6) ~ a > 1) + S(~b2degree(0:2), ~a >= 2)", 4)


def test_s_on_a_two_mode_network_refuses_selections_outside_the_mode():
    g, _ = s_two_mode_net()
    with pytest.raises(TermError, match="select among the 6 nodes of mode 1"):
        ef.ERGM(g, "S(~edges, c(1,9) ~ 1)")
    with pytest.raises(TermError, match="select among the 8 nodes of mode 2"):
        ef.ERGM(g, "S(~edges, 1 ~ c(2,-3))")
