"""Kernel fixes for the statnet-usage audit (benchmarks/audit_statnet_usage.py, issue #19):
rows F (gwb1dsp/gwb2dsp truncation at the cutoff), N (a nonlinear operator nested in
another), item 13 (linear operators over Log/Exp exact), K (S() with a tail and a head
node set; also S(f, tails ~ heads) on two-mode networks) and O (curved gwb1degree/gwb2degree
with attr).  Expected values are computed here from the definitions, or are the values
statnet's own tests print."""
import math
import warnings

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import TermError
from ergmfit.network import as_network
from ergmfit.terms.curved import CutoffWarning
from support.change_stats import check_formula, random_network, two_mode_graph
from support.statnet_testnets import bipnw


def stats(g, f):
    return ef.ERGM(g, f).statistics()


# -- F: gwb1dsp / gwb2dsp with fixed=TRUE truncate at the cutoff (statnet 4.4) -------------

def _sp_pairs(B):
    """Shared partners of each pair of rows of the biadjacency matrix B."""
    M = B @ B.T
    return M[np.triu_indices(B.shape[0], 1)]


def _gw_trunc(sp, decay, cut=None):
    sp = sp[(sp >= 1) & ((sp <= cut) if cut is not None else True)]
    return float(np.sum(math.exp(decay) * (1 - (1 - math.exp(-decay)) ** sp)))


def test_gwbdsp_fixed_truncates_at_the_cutoff_as_statnet_44():
    """statnet 4.4's test-term-bipartite.R prints gwb1dsp(.3, TRUE, 1) = 49 and
    gwb2dsp(.3, TRUE, 1) = 24 on bipnw (the pair with 2 shared partners adds nothing);
    ergmfit gave 50.259 and 25.259.  cutoff=Inf gives the untruncated sum (statnet 4.12,
    where cutoff has no effect with fixed=TRUE)."""
    b = bipnw()
    # the truncation is announced (a CutoffWarning at set-up, as statnet 4.4 does not)
    with pytest.warns(CutoffWarning, match="gwb1dsp: .*above the cut-off 1"):
        assert stats(b, "gwb1dsp(.3, TRUE, 1)") == {"gwb1dsp.fixed.0.3": 49.0}
    with pytest.warns(CutoffWarning, match="gwb2dsp: .*above the cut-off 1"):
        assert stats(b, "gwb2dsp(.3, TRUE, 1)") == {"gwb2dsp.fixed.0.3": 24.0}
    assert stats(b, "gwb1dsp(.3, TRUE)")["gwb1dsp.fixed.0.3"] == pytest.approx(50.25918, abs=1e-5)
    assert stats(b, "gwb1dsp(.3, TRUE, Inf)") == stats(b, "gwb1dsp(.3, TRUE)")


@pytest.mark.parametrize("cut", [1, 2])
def test_gwbdsp_truncated_values_and_changes(cut):
    """On denser random two-mode networks (pairs with more shared partners than the cutoff): the value is
    the definition's truncated sum, and every change statistic is the difference of the
    full statistics (both signs)."""
    for seed in range(3):
        net = random_network(seed, "bipartite", n=13, p=0.6)
        n1 = net.bipartite
        B = np.zeros((n1, net.n - n1))
        for i, j in net.ties.tolist():
            B[i, j - n1] = 1
        with pytest.warns(CutoffWarning, match=f"above the cut-off {cut}"):   # expected here
            got = ef.ERGM(net, f"gwb1dsp(0.7, TRUE, {cut}) + gwb2dsp(0.4, TRUE, {cut})").statistics()
        want = [_gw_trunc(_sp_pairs(B), 0.7, cut), _gw_trunc(_sp_pairs(B.T), 0.4, cut)]
        assert max(_sp_pairs(B).max(), _sp_pairs(B.T).max()) > cut
        assert list(got.values()) == pytest.approx(want, rel=1e-12)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CutoffWarning)       # the networks check_formula makes
            check_formula(net, f"gwb1dsp(0.7, TRUE, {cut}) + gwb2dsp(0.4, TRUE, {cut})", seed)


# -- N and item 13: nonlinear operators nested, linear operators over them ---------------

def test_nonlinear_operator_nested_in_another():
    """Exp(~Log(~edges)) gave 19 and Log(~Exp(~density)) 0.16539 on flomarriage: the outer
    kernel took the inner's change after the toggle but before the inner kernel followed
    it (so the first tie's change was lost).  Now edges and density, exactly."""
    g = ef.datasets.load("flomarriage")
    assert stats(g, "Exp(~Log(~edges))")["Exp~Log~edges"] == pytest.approx(20.0, rel=1e-14)
    assert stats(g, "Log(~Exp(~density))")["Log~Exp~density"] == pytest.approx(1 / 6, rel=1e-14)
    assert stats(g, "Log(~Log(~edges))")["Log~Log~edges"] == pytest.approx(
        math.log(math.log(20)), rel=1e-14)


def test_linear_operators_over_log_are_exact():
    """Sum(2 ~ Log(~edges)) equalled 2 log 20 only within 1.1e-8 relative (a sum of changes
    out of log0 = -2^26); the operator now gives W times the exact inner values, also for
    F() and S() over Log, and its value on the empty graph stays 2 log0."""
    g = ef.datasets.load("flomarriage")
    assert stats(g, "Sum(2 ~ Log(~edges))") == {"Sum~Sum": 2 * math.log(20)}
    assert stats(g, 'Sum(~Log(~edges) + isolates, "x")') == {"Sum~x1": math.log(20),
                                                            "Sum~x2": 1.0}
    w = np.array([d["wealth"] for _, d in g.nodes(data=True)])
    keep = [v for v, x in zip(g.nodes, w) if x > 20]
    assert stats(g, "S(~Log(~edges), ~wealth>20)") == {
        "S(wealth>20)~Log~edges": math.log(g.subgraph(keep).number_of_edges())}
    empty = stats(nx.empty_graph(16), 'Sum(2 ~ Log(~edges), "x") + S(~Log(~edges), ~c(1, 2, 3, 4))')
    assert list(empty.values()) == [-2.0 ** 27, -2.0 ** 26]


@pytest.mark.parametrize("kind", ["undirected", "directed", "bipartite"])
def test_nested_nonlinear_changes_equal_full_differences(kind):
    forms = ["Exp(~Log(~edges))", "Log(~Exp(~density))", "Sum(2 ~ Log(~edges))",
             'Log(~Sum(~Log(~edges) + edges, "q"))', "Sum(~Log(~edges) + isolates, 'x')"]
    if kind != "bipartite":
        forms += ['F(~Log(~edges), ~absdiff("x") > 0.5)', "S(~Log(~edges) + Exp(~density), ~x > 0)"]
    for seed in range(3):
        net = random_network(seed, kind)
        for f in forms:
            check_formula(net, f, seed)
        # and the values are the definition's, on the network and after toggles
        e = len(net.ties)
        got = ef.ERGM(net, "Exp(~Log(~edges)) + Sum(3 ~ Log(~edges))").statistics_vector()
        assert got == pytest.approx([e, 3 * math.log(e)], rel=1e-14)


# -- K: S(formula, tails ~ heads), the two-mode network from one node set to another -----

def _adj(net):
    A = np.zeros((net.n, net.n))
    for i, j in net.ties.tolist():
        A[i, j] = 1
        if not net.directed:
            A[j, i] = 1
    return A


def test_s_with_tail_and_head_sets_on_samplike():
    """statnet's test-operators.R: S(~edges, I(b1) ~ I(b2)) is sum(m[b1, b2]) (the ties from
    the tails to the heads); ergmfit refused the two-sided form."""
    g = ef.datasets.load("samplike")
    A = nx.to_numpy_array(g, nodelist=list(g.nodes))
    got = stats(g, "S(~edges, I(c(1, 2, 3, 4, 5)) ~ I(c(6, 7, 8, 9)))")
    assert got == {"S(I(c(1,2,3,4,5))~I(c(6,7,8,9)))~edges": A[:5, 5:9].sum()}
    assert A[:5, 5:9].sum() != A[5:9, :5].sum()       # the direction matters here
    with pytest.raises(ef.exceptions.TermError, match="overlap"):
        stats(g, "S(~edges, c(1, 2, 3) ~ c(3, 4))")


@pytest.mark.parametrize("kind", ["undirected", "directed"])
def test_s_two_mode_values_and_changes(kind):
    """Values from the definition (the two-mode network's b1/b2 degrees and stars), and
    every change statistic equals the difference of the full statistics."""
    f = ("S(~edges + b1degree(1:2) + b2star(2) + gwb1dsp(0.5, TRUE) + Log(~edges), "
         "c(1, 3, 5, 7) ~ c(2, 4, 6, 8, 10))")
    T, H = [0, 2, 4, 6], [1, 3, 5, 7, 9]
    for seed in range(3):
        net = random_network(seed, kind)
        A = _adj(net)[np.ix_(T, H)]
        d1, d2 = A.sum(1), A.sum(0)
        sp = (A @ A.T)[np.triu_indices(len(T), 1)]
        want = [A.sum(), np.sum(d1 == 1), np.sum(d1 == 2), np.sum(d2 * (d2 - 1) / 2),
                _gw_trunc(sp, 0.5), math.log(A.sum())]
        assert ef.ERGM(net, f).statistics_vector() == pytest.approx(want, rel=1e-12)
        check_formula(net, f, seed)


# -- O: curved gwb1degree/gwb2degree with attr ---------------------------------------------

@pytest.mark.parametrize("term", ["gwb1degree", "gwb2degree"])
def test_curved_gwbdegree_with_attr_is_refused_as_statnet_does(term):
    """statnet stops on fixed=FALSE with an attribute ("Using 'fixed=FALSE' with an
    attribute is not implemented at this time. Use 'fixed=TRUE'."); ergmfit says the same
    and shows the fixed form (before: "the curved form with attr is not supported")."""
    b = bipnw()
    with pytest.raises(ef.exceptions.TermError, match="fixed=FALSE.*not implemented, as in "
                                                      "statnet; use fixed=TRUE"):
        stats(b, f'{term}(fixed=FALSE, attr="Letter")')
    assert len(stats(b, f'{term}(0.1, fixed=TRUE, attr="Letter")')) == 3


# -- S(f, tails ~ heads) on a two-mode network -------------------------------------------
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
