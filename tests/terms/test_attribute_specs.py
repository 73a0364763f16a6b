"""Regression tests for the defects found by benchmarks/audit_statnet_usage.py (issue #19):
statnet's nodal attribute and level specifications (its ``nodal_attributes`` help page).

Before the fix ``levels=LARGEST`` was read as a level *named* "LARGEST" (a silent 0 with
the label ``nodefactor.Grade.LARGEST``), ``-LARGEST``/``LARGEST(2)``/``SMALLEST``/
``COLLAPSE_SMALLEST`` were refused, and attributes given as a formula (``~Grade > 9``) or
as ``function(x) x %v% "a"`` were refused by every term.  Expected values are computed
here from the definitions; the tie order of LARGEST/SMALLEST follows statnet's own test
(``tests/testthat/test-level-select.R`` of statnet/ergm).
"""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError, FormulaError, TermError
from ergmfit.formula import CollapseSmallest, LevelSelector, parse_formula


@pytest.fixture(scope="module")
def fmh():
    return ef.datasets.load("faux.mesa.high")


@pytest.fixture(scope="module")
def flo():
    g = ef.datasets.load("flomarriage")
    # node counts per level: 1 -> 2, 2 -> 6, 3 -> 3, 11 -> 5 (11 numerically after 3)
    for i, v in enumerate(g.nodes):
        g.nodes[v]["x"] = [1, 11, 2, 3, 2, 11, 2, 11, 3, 1, 2, 11, 2, 11, 2, 3][i]
    return g


def stats(g, f):
    return ef.ERGM(g, f).statistics()


def degsum(g, attr, level):
    return float(sum(d for v, d in g.degree() if g.nodes[v][attr] == level))


def test_parse_level_selectors():
    (c,) = parse_formula('nodefactor("x", levels=-LARGEST(2))')
    assert c.kwargs["levels"] == LevelSelector("LARGEST", 2, negate=True)
    (c,) = parse_formula('nodefactor("x", levels=SMALLEST)')
    assert c.kwargs["levels"] == LevelSelector("SMALLEST", 1)
    (c,) = parse_formula('nodefactor("x" %>% COLLAPSE_SMALLEST(2, 5))')
    assert c.args[0] == CollapseSmallest("x", 2, 5)
    with pytest.raises(FormulaError):
        parse_formula('nodefactor("x", levels=LARGEST(0))')


@pytest.mark.parametrize("spec, keep", [
    ("SMALLEST", [1]), ("SMALLEST(2)", [1, 3]), ("LARGEST", [2]), ("LARGEST(2)", [2, 11]),
    ("-SMALLEST", [2, 3, 11]), ("-LARGEST", [1, 3, 11]), ("-LARGEST(2)", [1, 3])])
def test_largest_smallest(flo, spec, keep):
    got = stats(flo, f'nodefactor("x", levels={spec})')
    assert got == {f"nodefactor.x.{k}": degsum(flo, "x", k) for k in keep}


def test_largest_ties_follow_statnet(flo):
    # levels 11 and 2 after collapsing 1 and 3 into 5: counts 5 -> 5, 11 -> 5, 2 -> 6.
    # statnet ranks by count with ties in sorted order; SMALLEST takes the first, LARGEST
    # the last of that ranking
    got = stats(flo, 'nodefactor(COLLAPSE_SMALLEST("x", 2, 5), levels=SMALLEST(2))')
    assert list(got) == ["nodefactor.x.5", "nodefactor.x.11"]
    got = stats(flo, 'nodefactor(COLLAPSE_SMALLEST("x", 2, 5), levels=LARGEST(2))')
    assert list(got) == ["nodefactor.x.2", "nodefactor.x.11"]


def test_collapse_smallest(flo, fmh):
    got = stats(flo, 'nodefactor("x" %>% COLLAPSE_SMALLEST(2, 5), levels=TRUE)')
    assert got == {"nodefactor.x.2": degsum(flo, "x", 2),
                   "nodefactor.x.5": degsum(flo, "x", 1) + degsum(flo, "x", 3),
                   "nodefactor.x.11": degsum(flo, "x", 11)}
    got = stats(fmh, 'nodefactor(COLLAPSE_SMALLEST("Race", 3, "BWO"), levels=TRUE)')
    assert got == {"nodefactor.Race.BWO": sum(degsum(fmh, "Race", r) for r in
                                              ("Black", "Other", "White")),
                   "nodefactor.Race.Hisp": degsum(fmh, "Race", "Hisp"),
                   "nodefactor.Race.NatAm": degsum(fmh, "Race", "NatAm")}


def test_nodematch_largest(fmh):
    # Grade 7 has the most students: nodematch over the other grades
    got = stats(fmh, 'nodematch("Grade", diff=TRUE, levels=-LARGEST)')
    assert list(got) == [f"nodematch.Grade.{k}" for k in (8, 9, 10, 11, 12)]


def test_attribute_formula(fmh):
    grade = {v: fmh.nodes[v]["Grade"] for v in fmh.nodes}
    ties = list(fmh.edges)
    got = stats(fmh, "nodefactor(~Grade>9) + nodematch(~Grade>9) + nodecov(~Grade^2)"
                     " + absdiff(~abs(Grade-mean(Grade)))")
    m = np.mean(list(grade.values()))
    assert got == pytest.approx({
        "nodefactor.Grade>9.TRUE": sum(d for v, d in fmh.degree() if grade[v] > 9),
        "nodematch.Grade>9": sum((grade[a] > 9) == (grade[b] > 9) for a, b in ties),
        "nodecov.Grade^2": sum(grade[a] ** 2 + grade[b] ** 2 for a, b in ties),
        "absdiff.abs(Grade-mean(Grade))": sum(abs(abs(grade[a] - m) - abs(grade[b] - m))
                                              for a, b in ties)}, rel=1e-12)
    deg = dict(fmh.degree())
    got = stats(fmh, "degree(1, by=~Grade>9)")
    assert got == {f"deg1.Grade>9{t}": sum(1 for v in fmh.nodes if deg[v] == 1 and
                                           (grade[v] > 9) == (t == "TRUE"))
                   for t in ("FALSE", "TRUE")}


def test_attribute_function(fmh):
    # statnet's own tests write attributes as function(x) x %v% "name"
    assert stats(fmh, 'absdiff(function(x) x %v% "Grade")') == {"absdiff.Grade": 79.0}
    assert list(stats(fmh, 'nodefactor(function(x) x %v% "Sex", levels=-(4:5))').values()) \
        == [235.0, 171.0]
    samplike = ef.datasets.load("samplike")
    assert list(stats(samplike, 'mutual(same=function(x) x %v% "group")').values()) == [23.0]
    assert list(stats(samplike, 'ctriad(~group, diff=TRUE)').values()) == [8.0, 4.0, 22.0]
    dotted = stats(fmh, 'nodecov(~(.%v%"Grade")^2)')
    assert list(dotted) == ['nodecov.(.%v%"Grade")^2']
    assert list(dotted.values()) == list(stats(fmh, "nodecov(~Grade^2)").values())


def test_attribute_spec_errors(fmh):
    with pytest.raises(ErgmfitError, match="function"):
        stats(fmh, "nodecov(function(x) degree(x))")
    with pytest.raises(ErgmfitError, match="not understood"):
        stats(fmh, "nodecov(~poly(Grade, 2))")


def test_operators_keep_their_formulas(fmh):
    # S()'s node expression and mm()'s two-sided formula are read by those terms themselves
    assert stats(fmh, "S(~edges, ~Grade>9)") == {"S(Grade>9)~edges": 43.0}
    assert "mm[Sex=F,Race=Hisp]" in stats(fmh, "mm(Sex~Race)")


def test_b1factor_largest_counts_mode_one():
    davis = ef.datasets.load("davis")       # 'group' is defined on the women (mode 1) only
    women = [v for v in davis.nodes if davis.nodes[v]["bipartite"] == 0]
    groups = [davis.nodes[v]["group"] for v in women]
    assert groups.count(1) == groups.count(2) == 9
    big = 2          # a tie: LARGEST takes the later level in sorted order, as statnet
    got = stats(davis, 'b1factor("group", levels=LARGEST)')
    assert got == {f"b1factor.group.{big}": float(sum(davis.degree(v) for v in women
                                                      if davis.nodes[v]["group"] == big))}


# statnet 4.12 takes the d-forms of the shared-partner terms on undirected networks too;
# values, labels and MPLE coefficients from statnet's tests/testthat/test-term-gw-sp.R
# ("Undirect tests", faux.mesa.high).  Before: "term dgwesp is for directed networks".
@pytest.mark.parametrize("formula, expected", [
    ("dgwdsp(fixed=F, cutoff=6)", dict(zip([f"dsp#{k}" for k in range(1, 7)],
                                           [431, 75, 23, 1, 1, 0]))),
    ("dgwesp(fixed=F, cutoff=6)", dict(zip([f"esp#{k}" for k in range(1, 7)],
                                           [70, 36, 13, 0, 1, 0]))),
    ("dgwnsp(fixed=F, cutoff=5)", dict(zip([f"nsp#{k}" for k in range(1, 6)],
                                           [361, 39, 10, 1, 0]))),
    ("ddsp(d=2)", {"dsp2": 75}), ("desp(d=2)", {"esp2": 36}), ("dnsp(d=2)", {"nsp2": 39}),
    ('desp(2, type="ISP")', {"esp2": 36}),
])
def test_d_sp_terms_undirected_counts(fmh, formula, expected):
    assert stats(fmh, formula) == expected


@pytest.mark.parametrize("term, label, value, coefs", [
    ("dgwdsp", "gwdsp.fixed.0.1", 540.7445, (-4.89690639, 0.06665661)),
    ("dgwesp", "gwesp.fixed.0.1", 124.8859, (-5.295790, 1.730727)),
    ("dgwnsp", "gwnsp.fixed.0.1", 415.8586, (-4.2641998, -0.1072723)),
])
def test_d_gw_terms_undirected(fmh, term, label, value, coefs):
    got = stats(fmh, f"{term}(fixed=T, decay=0.1)")
    assert list(got) == [label] and got[label] == pytest.approx(value, abs=1e-3)
    fit = ef.ERGM(fmh, f"edges + {term}(fixed=T, decay=0.1)").fit(method="mple")
    assert np.asarray(fit.params) == pytest.approx(coefs, abs=1e-5)


# -- statnet's own test networks (rebuilt from R's random numbers: tests/support/statnet_testnets.py)

def test_bipartite_degrange_homophily():
    """b1degrange/b2degrange(by=, homophily=TRUE) count same-level partners, which are the
    other mode's nodes; before, the other mode had no level and every count was 0.
    statnet's test-term-bipartite.R prints 19, 3 for both."""
    from support.statnet_testnets import bipnw
    g = bipnw()
    for mode in (1, 2):
        got = stats(g, f'b{mode}degrange(from=c(1, 2), to=c(Inf, Inf), by="Letter", '
                       'homophily=TRUE)')
        assert got == {f"b{mode}deg1+.homophily.Letter": 19.0,
                       f"b{mode}deg2+.homophily.Letter": 3.0}
    # the same from the definition, and the change statistics agree with the totals
    m = ef.ERGM(g, 'b1degrange(1:2, by="Letter", homophily=TRUE)')
    c = m.compiled()
    nodes = list(g.nodes)
    rng = np.random.default_rng(3)
    for _ in range(40):
        i = int(rng.integers(0, 100))
        j = int(rng.integers(100, len(nodes)))
        before = m.statistics_vector(c.state.ties())
        delta = c.dyad_change_stats(i, j)
        c.toggle(i, j)
        after = m.statistics_vector(c.state.ties())
        np.testing.assert_allclose(np.abs(after - before), np.abs(delta), atol=1e-12)
    ties = c.state.ties()
    same = {k: 0 for k in range(100)}
    for a, b in ties:
        a, b = min(a, b), max(a, b)
        same[a] += g.nodes[nodes[a]]["Letter"] == g.nodes[nodes[b]]["Letter"]
    want = [sum(v >= 1 for v in same.values()), sum(v >= 2 for v in same.values())]
    assert list(m.statistics_vector(ties)) == want


def test_cyclicalties_undirected(fmh):
    """statnet takes cyclicalties on undirected networks (= transitiveties there):
    test-term-undirected.R prints 120 and, with "Race", 40.  Before: refused."""
    assert stats(fmh, "cyclicalties + cyclicalties('Race')") == {
        "cyclicalties": 120.0, "cyclicalties.Race": 40.0}
    fit = ef.ERGM(fmh, "cyclicalties").fit(method="mple")
    assert float(np.asarray(fit.params)[0]) == pytest.approx(-0.4868, abs=1e-3)


def test_s_operator_node_numbers_and_logical_attributes():
    """statnet's S(~f, ~i) takes node numbers (its test-operators.R: sum(m[i, i])); a logical
    attribute selects by itself and is TRUE/FALSE in labels (before: read as 1/0)."""
    import networkx as nx
    g = ef.datasets.load("samplike")
    m = nx.to_numpy_array(g, nodelist=list(g.nodes))
    i = [1, 4, 5, 9, 13]
    got = stats(g, f"S(~edges, ~c({', '.join(map(str, i))}))")
    assert got == {f"S(c({','.join(map(str, i))}))~edges": m[np.ix_([k - 1 for k in i],
                                                                      [k - 1 for k in i])].sum()}
    cl = [bool(g.nodes[v]["cloisterville"]) for v in g.nodes]
    keep = [k for k in range(len(cl)) if cl[k]]
    assert stats(g, 'S(~edges, "cloisterville")') == {
        "S(cloisterville)~edges": m[np.ix_(keep, keep)].sum()}
    assert list(stats(g, "nodefactor(~cloisterville)")) == ["nodefactor.cloisterville.TRUE"]
    with pytest.raises(ErgmfitError, match="whole numbers from 1 to 18"):
        stats(g, "S(~edges, ~c(0, 2))")


def test_mm_attribute_expression(fmh):
    """statnet's test-term-mm.R: mm(~Grade >= 10, levels=-1, levels2=NULL) is
    mm[Grade>=10=TRUE,Grade>=10=TRUE] = 43 (before: 'no node attribute Grade >= 10')."""
    assert stats(fmh, "mm(~Grade >= 10, levels=-1, levels2=NULL)") == {
        "mm[Grade>=10=TRUE,Grade>=10=TRUE]": 43.0}


def test_poly_raw_attribute_matrix():
    """statnet's tests: b1cov(~poly(Cost, 2, raw=TRUE)) = 121, 283 and b2cov 129, 317 on
    test-term-bipartite.R's bipnw (before: refused). One statistic per column."""
    from support.statnet_testnets import bipnw
    got = stats(bipnw(), "b1cov(~poly(Cost, 2, raw=TRUE)) + b2cov(~poly(Cost, 2, raw=TRUE))")
    assert list(got.values()) == [121.0, 283.0, 129.0, 317.0]
    assert list(got)[:2] == ["b1cov.poly(Cost,2,raw=TRUE).1", "b1cov.poly(Cost,2,raw=TRUE).2"]
    ef_stats = stats(ef.datasets.load("faux.mesa.high"), "nodecov(~poly(Grade, 2, raw=TRUE))")
    assert list(ef_stats.values()) == list(stats(ef.datasets.load("faux.mesa.high"),
                                                 "nodecov('Grade') + nodecov(~Grade^2)").values())


def test_attrcov_two_mode_matrix():
    """statnet's attrcov on a two-mode network takes a (mode-1 levels) x (mode-2 levels)
    matrix (its test-term-attrcov.R: a 30 x 50 matrix); before: a square matrix of all
    levels was demanded."""
    import networkx as nx
    rng = np.random.default_rng(1)
    g = nx.Graph()
    g.add_nodes_from((v, {"bipartite": int(v >= 20)}) for v in range(50))
    while g.number_of_edges() < 80:
        g.add_edge(int(rng.integers(0, 20)), int(rng.integers(20, 50)))
    a = [int(v) for v in rng.permutation(np.resize([1, 2, 3], 20))] + \
        [int(v) for v in rng.permutation(np.resize([1, 2, 3, 4, 5], 30))]
    for v in g.nodes:
        g.nodes[v]["a"] = a[v]
    M = np.arange(1.0, 16.0).reshape(3, 5)
    g.graph["M"] = M
    want = sum(M[a[min(i, j)] - 1, a[max(i, j)] - 1] for i, j in g.edges)
    assert stats(g, 'attrcov("a", M)') == {"attrcov.a": pytest.approx(want, rel=1e-12)}
    with pytest.raises(ErgmfitError, match="must be 3 x 5"):
        stats(g, 'attrcov("a", matrix(1, 5, 5))')


def test_sum_labels_as_statnet():
    """statnet's test-term-Sum.R label forms on flomarriage (weights c(1, .5, rep(2, 4));
    before: rep() was refused, label=I gave 'Sum~I1', a vector or a function leaked Python
    reprs such as "Sum~['a', 'b']1")."""
    flo = ef.datasets.load("flomarriage")
    f = 'c(1, .5, rep(2, 4)) ~ edges + absdiff("wealth") + gwesp(cutoff=4)'
    values = [20.0, 573.0, 14.0, 2.0, 0.0, 0.0]
    inner = ["edges", "absdiff.wealth", "esp#1", "esp#2", "esp#3", "esp#4"]
    assert stats(flo, f"Sum({f}, identity)") == dict(zip(["Sum~" + v for v in inner], values))
    assert stats(flo, f"Sum({f}, I)") == dict(zip(inner, values))
    assert stats(flo, f'Sum({f}, "x")') == dict(zip([f"Sum~x{k}" for k in range(1, 7)], values))
    got = stats(flo, 'Sum(c(~edges + absdiff("wealth"), ~edges + absdiff("wealth")), '
                     'function(x) I(paste(x[[1]], x[[2]])))')
    assert got == {"edges edges": 40.0, "absdiff.wealth absdiff.wealth": 2292.0}
    assert stats(flo, 'Sum(~edges + triangle, c("e", "t"))') == {"Sum~e": 20.0, "Sum~t": 3.0}
    assert parse_formula("a(rep(c(1, 2), each=2, length.out=5))")[0].args == ([1, 1, 2, 2, 1],)


def test_prod_label_follows_sums_rules():
    """Prod(f, label) is statnet's Exp(~Sum(~Log(f), label)): the label is Sum's (a string,
    strings, I, identity, a label function), so a number is refused as Sum refuses it
    (before: Prod(~edges, 0) was labelled 'Exp~Sum~0' and a vector "Exp~Sum~['a', 'b']1")."""
    flo = ef.datasets.load("flomarriage")
    for bad in ("0", "1.5", "TRUE"):
        with pytest.raises(TermError, match=r"term Prod: label must be a string"):
            stats(flo, f"Prod(~edges, {bad})")
    with pytest.raises(TermError, match=r"term Prod: label must be one string or 2 strings"):
        stats(flo, 'Prod(~edges + triangle, c("a", "b", "c"))')
    assert list(stats(flo, 'Prod(~edges + triangle, c("e", "t"))')) == ["Exp~Sum~e", "Exp~Sum~t"]
    assert list(stats(flo, 'Prod(~edges + triangle, "x")')) == ["Exp~Sum~x1", "Exp~Sum~x2"]
    assert list(stats(flo, "Prod(~edges)")) == ["Exp~Sum~Prod"]
    assert list(stats(flo, "Prod(~edges, I)")) == ["Exp~Log~edges"]
    assert list(stats(flo, "Prod(~edges, identity)")) == ["Exp~Sum~Log~edges"]


def test_r_argument_matching_and_for_loops():
    """Positional arguments after named ones fill the unnamed parameters, as R matches them
    (statnet's test-term-For.R writes For(. = 1:3, a = c(...), ~absdiff(a, pow=.)); before:
    refused by the parser), and For() takes several loop variables, the first named the
    outermost, and function(nw) sort(unique(nw %v% "a")) values."""
    flo = ef.datasets.load("flomarriage")
    one = stats(flo, 'For(~absdiff(a, pow=.), a = c("wealth", "priorates"), . = 1:3)')
    two = stats(flo, 'For(. = 1:3, a = c("wealth", "priorates"), ~absdiff(a, pow=.))')
    direct = stats(flo, " + ".join(f'absdiff("{a}", pow={k})' for a in ("wealth", "priorates")
                                   for k in (1, 2, 3)))
    assert one == direct
    assert list(two) == [list(direct)[i] for i in (0, 3, 1, 4, 2, 5)] and \
        all(two[k] == direct[k] for k in two)
    sl = ef.datasets.load("samplike")
    assert stats(sl, 'For(~nodematch("group", levels=., diff=TRUE), . = function(nw) '
                     'sort(unique(nw %v% "group")))') == stats(sl, 'nodematch("group", diff=TRUE)')
    # a positional argument on a parameter also named stays an error
    with pytest.raises(ErgmfitError, match="given twice"):
        stats(flo, "gwesp(decay=1, 2)")
    assert stats(flo, 'nodematch(diff=TRUE, "priorates", levels=I(c(0)))') == \
        stats(flo, 'nodematch("priorates", diff=TRUE, levels=I(c(0)))')


def test_labels_print_strings_in_double_quotes():
    """statnet's labels deparse R code: F(~f, ~nodematch('g')) is labelled
    F(nodematch("g"))~edges, also when the formula was typed with single quotes (Python
    users do); before, the quotes were kept as typed."""
    g = ef.datasets.load("samplike")
    got = stats(g, "F(~edges, ~nodematch('group')) + S(~edges, ~group == 'Turks') + "
                   "nodematch(~group == 'Turks')")
    assert list(got) == ['F(nodematch("group"))~edges', 'S(group=="Turks")~edges',
                         'nodematch.group=="Turks"']


def test_nodematchfilter_takes_statnets_argument_name():
    """statnet's usage line is NodematchFilter(formula, attrname); before, only attr= was
    known, so NodematchFilter(~edges, attrname="group") was refused."""
    g = ef.datasets.load("samplike")
    assert stats(g, 'NodematchFilter(~edges, attrname="group")') == \
        stats(g, 'NodematchFilter(~edges, "group")') == {"NodematchFilter(group)~edges": 63.0}


def test_offset_which_negative_indices():
    """Offset(which=) indexes as R does: negative numbers keep all parameters but those
    (before: refused)."""
    g = ef.datasets.load("flomarriage")
    assert ef.ERGM(g, "Offset(~edges + triangle + kstar(2), c(-2, 1), which=-2)").labels == \
        ["triangle"]
    with pytest.raises(ErgmfitError, match="which must be"):
        ef.ERGM(g, "Offset(~edges + triangle, -2, which=-3)")


def test_linear_operators_over_nonlinear_terms():
    """A Sum()/Passthrough()/F() over Log()/Exp()/Prod() added the inner changes from 0
    instead of from the inner terms' value on the empty graph: Sum(2 ~ Log(~edges)) on
    flomarriage gave 134217733.99 (= 2 log 20 + 2^27) instead of 2 log 20."""
    import math
    import networkx as nx
    g = ef.datasets.load("flomarriage")
    got = stats(g, 'Sum(2 ~ Log(~edges), "x") + Passthrough(~Log(~edges) + edges) + '
                   'Sum(~Prod(list(~edges, ~triangle), "p") + edges, "z")')
    want = [2 * math.log(20), math.log(20), 20.0, 60.0, 20.0]
    # the inner changes of Log are of size 2^26 (log(0) is -2^26): summing them loses ~1e-8
    assert list(got.values()) == pytest.approx(want, rel=1e-7)
    empty = stats(nx.empty_graph(16), 'Sum(2 ~ Log(~edges), "x") + Exp(~edges)')
    assert list(empty.values()) == [-2.0 ** 27, 1.0]


def test_hamming_weights_and_two_mode_matrices():
    """hamming(x, cov, attrname) took cov/attrname by name but refused them ("not supported
    yet"); two-mode covariates had to be n x n where statnet takes n1 x n2.  Values from
    statnet's definition (its test-term-hamming.R forms)."""
    import networkx as nx
    # statnet's 5-node directed example: 2 dyads differ
    a, b = nx.DiGraph(), nx.DiGraph()
    a.add_nodes_from(range(5))
    b.add_nodes_from(range(5))
    a.add_edges_from([(0, 1), (1, 2), (0, 2), (0, 4)])
    b.add_edges_from([(0, 1), (1, 2), (0, 2), (1, 4)])
    a.graph["net2"] = nx.to_numpy_array(b, nodelist=range(5))
    assert stats(a, 'hamming("net2")') == {"hamming.net2": 2.0}
    # two-mode: reference and weights as n1 x n2 matrices or networkx graphs
    from support.statnet_testnets import two_mode_covariates
    g, X, Wm, _ = two_mode_covariates()
    Y = nx.to_numpy_array(g, nodelist=range(14))[:6, 6:]
    assert stats(g, 'hamming("X")') == {"hamming.X": float(np.sum(X != Y))}
    assert stats(g, 'hamming("X", "W")') == {"hamming.X": float(np.sum(Wm * (X != Y)))}
    # weights from a network's ties (1) or its edge attribute: only its ties weigh
    assert stats(g, 'hamming("X", cov="R")')["hamming.X"] == float(np.sum(X * (X != Y)))
    assert stats(g, 'hamming("X", "R", "w3")')["hamming.X"] == float(np.sum(3 * X * (X != Y)))
    assert stats(g, 'dyadcov("W")') == {"dyadcov.W": float(np.sum(Wm * Y))}
