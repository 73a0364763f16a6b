"""Regression tests for statnet usages ergmfit refused (issue #19, audit rows A-E, H, I, J
of benchmarks/audit_statnet_usage.py).  Each test asserts a usage that was refused (or
mislabelled) before its fix; expected values are statnet's printed test values where its
tests print them, else computed here from the help page's definition.
"""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError
from ergmfit.terms.curved import CutoffWarning


@pytest.fixture(scope="module")
def fmh():
    return ef.datasets.load("faux.mesa.high")


@pytest.fixture(scope="module")
def flo():
    return ef.datasets.load("flomarriage")


def stats(g, f):
    return ef.ERGM(g, f).statistics()


# -- A: gw*degree(decay, fixed, attr, cutoff, levels) ----------------------------------

def test_gwdegree_third_positional_argument_is_attr(fmh):
    """statnet's usage is gw*degree(decay, fixed=FALSE, attr=NULL, cutoff=30, levels=NULL):
    the third positional argument was read as cutoff ("cutoff must be an integer")."""
    sl = ef.datasets.load("samplike")
    # statnet's test-term-directed.R prints these
    got = stats(sl, 'gwidegree(.1, TRUE, "group")')
    assert list(got.values()) == pytest.approx([7.715119, 4.408762, 7.734290], abs=1e-6)
    got = stats(sl, "gwodegree(.1, TRUE, ~group)")
    assert list(got.values()) == pytest.approx([7.735906, 4.419631, 7.736070], abs=1e-6)
    # the definition: e^a sum over nodes of a level of 1 - (1 - e^-a)^d
    deg = dict(fmh.degree())
    want = [np.exp(.5) * sum(1 - (1 - np.exp(-.5)) ** deg[v] for v in fmh
                             if fmh.nodes[v]["Sex"] == s) for s in ("F", "M")]
    assert list(stats(fmh, 'gwdegree(0.5, TRUE, "Sex")').values()) == pytest.approx(want)
    # cutoff is the fourth
    with pytest.warns(CutoffWarning, match="gwdegree: .*above the cut-off 3"):
        assert stats(fmh, "gwdegree(0.5, FALSE, NULL, 3)").keys() == {"gwdegree#1", "gwdegree#2",
                                                                      "gwdegree#3"}


# -- B: sociality(attr=, levels=) --------------------------------------------------------

def test_sociality_attr_levels(fmh):
    """The help page: with attr, each node's statistic counts only its ties to nodes with
    the same value of attr, that value one of levels.  Was refused."""
    nodes = list(fmh)
    sex = [fmh.nodes[v]["Sex"] for v in nodes]
    idx = {v: k for k, v in enumerate(nodes)}
    same = np.zeros(len(nodes))
    for u, v in fmh.edges():
        if sex[idx[u]] == sex[idx[v]]:
            same[idx[u]] += 1
            same[idx[v]] += 1
    got = stats(fmh, 'sociality(attr="Sex", levels=2)')           # levels 2: "M"
    assert list(got) == [f"sociality{k}.Sex" for k in range(2, len(nodes) + 1)]
    assert list(got.values()) == [same[k] if sex[k] == "M" else 0.0
                                  for k in range(1, len(nodes))]
    got = stats(fmh, 'sociality("Sex", nodes=1:3)')
    assert list(got.values()) == list(same[:3])
    # on another set of ties (the first 60)
    m = ef.ERGM(fmh, 'sociality("Sex", nodes=1:5)')
    sub = m.network.ties[:60]
    want = np.zeros(5)
    for a, b in sub:
        if sex[a] == sex[b]:
            want[[k for k in (a, b) if k < 5]] += 1
    assert list(m.statistics_vector(sub)) == list(want)


# -- C, D: mixing-matrix cell selections and labels -----------------------------------

def test_levels2_matrices_and_cell_lists(fmh):
    """levels2 as statnet's logical matrix, two-column index matrix and list(row=, col=)
    were refused (and list() raised "unhashable type: 'dict'")."""
    # statnet's test-term-mm.R
    assert stats(fmh, 'mm("Race", levels2=cbind(2, 3))') == {"mm[Race=Hisp,Race=NatAm]": 41}
    race = [0, 8, 53, 13, 41, 46, 0, 1, 0, 0, 5, 22, 10, 0, 4]
    # M <- matrix(TRUE, 5, 5); M[1,1] <- M[3,2] <- M[2,3] <- FALSE: fmh.mm.Race[M[upper.tri]]
    M = "matrix(c(F,T,T,T,T, T,T,F,T,T, T,F,T,T,T, T,T,T,T,T, T,T,T,T,T), 5, 5)"
    got = stats(fmh, f'mm("Race", levels2={M})')
    assert list(got.values()) == [v for k, v in enumerate(race) if k not in (0, 4)]
    got = stats(fmh, 'nodemix("Sex", levels2=matrix(c(TRUE, FALSE, FALSE, TRUE), 2, 2))')
    assert list(got) == ["mix.Sex.F.F", "mix.Sex.M.M"]
    full = stats(fmh, 'nodemix("Sex", levels2=TRUE)')
    assert list(got.values()) == [full["mix.Sex.F.F"], full["mix.Sex.M.M"]]
    # directed: column-major over the whole matrix (statnet: samp.mm.Trinity[c(M)])
    sl = ef.ERGM(ef.datasets.load("samplike"), 'mm("group", levels2=TRUE)').statistics()
    got = stats(ef.datasets.load("samplike"),
                'mm("group", levels2=matrix(c(F,F,F, T,F,F, T,F,F), 3, 3))')
    assert got == {k: sl[k] for k in ("mm[group=Loyal,group=Outcasts]",
                                      "mm[group=Loyal,group=Turks]")}
    # cells by their levels' values, in the given order
    got = stats(fmh, 'mm(c("Sex", "Race"), levels2=I(list(list(row="F.Hisp", col="F.Hisp"), '
                     'list(row="F.Black", col="M.White"))))')
    assert list(got) == ["mm[Sex.Race=F.Hisp,Sex.Race=F.Hisp]",
                         "mm[Sex.Race=F.Black,Sex.Race=M.White]"]
    nodes = list(fmh)
    key = {v: (fmh.nodes[v]["Sex"], fmh.nodes[v]["Race"]) for v in nodes}
    pairs = [frozenset([key[u], key[v]]) if key[u] != key[v] else frozenset([key[u]])
             for u, v in fmh.edges()]
    assert list(got.values()) == [pairs.count(frozenset([("F", "Hisp")])),
                                  pairs.count(frozenset([("F", "Black"), ("M", "White")]))]
    # two-mode: rows the mode-1 levels, columns the mode-2 levels (no diagonal rule)
    rng = np.random.default_rng(5)
    g = nx.Graph()
    g.add_nodes_from(range(6), bipartite=0)
    g.add_nodes_from(range(6, 14), bipartite=1)
    for i in range(14):
        g.nodes[i]["c"] = "xyz"[rng.integers(3)] if i < 6 else "uv"[rng.integers(2)]
    g.add_edges_from((i, j) for i in range(6) for j in range(6, 14) if rng.random() < .4)
    full = stats(g, 'nodemix("c", levels2=TRUE)')
    assert list(full) == ["mix.c.x.u", "mix.c.y.u", "mix.c.z.u", "mix.c.x.v", "mix.c.y.v",
                          "mix.c.z.v"]
    got = stats(g, 'nodemix("c", levels2=matrix(c(T, F, F, F, T, T), 3, 2))')
    assert got == {k: full[k] for k in ("mix.c.x.u", "mix.c.y.v", "mix.c.z.v")}
    assert stats(g, 'nodemix("c", levels2=cbind(c(3, 1), c(1, 2)))') == \
        {k: full[k] for k in ("mix.c.z.u", "mix.c.x.v")}
    assert stats(g, 'mm("c", levels2=list(list(row="z", col="v")))') == \
        {"mm[c=z,c=v]": full["mix.c.z.v"]}
    for bad, msg in [('mm("Race", levels2=cbind(3, 2))', "below the diagonal"),
                     ('mm("Race", levels2=matrix(TRUE, 2, 2))', "2 x 2 logical matrix"),
                     ('mm("Race", levels2=cbind(9, 1))', "outside the 5 x 5"),
                     ('mm("Race", levels2=list(list(row="Hisp", col="Blue")))', "no col level"),
                     ('mm("Race", levels2=matrix(c("A", ""), 1, 2))', "character matrix")]:
        with pytest.raises(ErgmfitError, match=msg):
            stats(fmh, bad)


def test_mm_pasted_attribute_name(fmh):
    """mm(c("Sex", "Race")) was labelled mm[['Sex', 'Race']=F.Black,...] (a Python repr);
    statnet pastes the names: Sex.Race."""
    got = stats(fmh, 'mm(c("Sex", "Race"))')
    assert next(iter(got)) == "mm[Sex.Race=F.Black,Sex.Race=F.Hisp]"
    assert all(k.startswith("mm[Sex.Race=") for k in got)


# -- E: two-mode edgecov with statnet's n1 x n2 matrix --------------------------------

def test_two_mode_edgecov_n1_by_n2():
    """statnet's test-term-edgecov.R: 10 nodes, bip=4, m = matrix(c(-(1:12), 1:12), 4, 6);
    after its toggles the ties (1,5), (2,6), (4,10), (4,8), (3,7), (3,6) remain and the
    statistic is the sum of m over them.  ergmfit demanded a 10 x 10 matrix."""
    g = nx.Graph()
    g.add_nodes_from(range(4), bipartite=0)
    g.add_nodes_from(range(4, 10), bipartite=1)
    ties = [(1, 5), (2, 6), (4, 10), (4, 8), (3, 7), (3, 6)]
    g.add_edges_from((a - 1, b - 1) for a, b in ties)
    m = np.concatenate([-np.arange(1, 13), np.arange(1, 13)]).reshape(6, 4).T  # by column
    g.graph["m"] = m
    want = float(sum(m[a - 1, b - 5] for a, b in ties))
    assert want == -9.0
    assert stats(g, 'edgecov("m")') == {"edgecov.m": want}
    import scipy.sparse as sp
    g.graph["s"] = sp.csr_matrix(m)
    assert stats(g, 'edgecov("s")') == {"edgecov.s": want}
    # large networks get a sparse n x n matrix: the same statistic
    from ergmfit.terms import twomode
    old, twomode.DENSE_MAX_N = twomode.DENSE_MAX_N, 5
    try:
        assert stats(g, 'edgecov("m")') == {"edgecov.m": want}
    finally:
        twomode.DENSE_MAX_N = old
    # the MPLE design reads the same covariate on every between-mode dyad
    fit = ef.ERGM(g, 'edges + edgecov("m")').fit(method="mple")
    assert np.all(np.isfinite(fit.params))
    # a networkx two-mode graph as the covariate (statnet takes a network)
    h = nx.Graph()
    h.add_nodes_from(g.nodes(data=True))
    h.add_edges_from([(0, 4), (1, 5), (3, 9), (0, 9)])   # the first three are ties of g
    g.graph["h"] = h
    assert stats(g, 'edgecov("h")') == {"edgecov.h": 3.0}
    g.graph["bad"] = np.ones((6, 4))
    with pytest.raises(ErgmfitError, match="4 x 6"):
        stats(g, 'edgecov("bad")')


# -- H: Label() with gsub / sub -------------------------------------------------------

def test_label_gsub_sub(flo):
    """statnet's test-operators.R: Label(~edges + absdiff("wealth"), ~gsub(".", "!", .,
    fixed=TRUE)) gives edges, absdiff!wealth.  gsub/sub were refused."""
    f = 'Label(~edges + absdiff("wealth"), {})'
    assert list(stats(flo, f.format('~gsub(".", "!", ., fixed=TRUE)'))) == \
        ["edges", "absdiff!wealth"]
    # a regular expression: "." is any character
    assert list(stats(flo, f.format('~gsub(".", "!", .)'))) == ["!" * 5, "!" * 14]
    assert list(stats(flo, f.format(r'~sub("^(.)(.*)$", "\\2\\1", .)'))) == \
        ["dgese", "bsdiff.wealtha"]
    assert list(stats(flo, f.format('function(x) toupper(gsub("[[:punct:]]", "_", x))'))) == \
        ["EDGES", "ABSDIFF_WEALTH"]
    assert list(stats(flo, f.format('~sub(pattern="E", replacement="!", x=., '
                                    'ignore.case=TRUE)'))) == ["!dges", "absdiff.w!alth"]
    for bad, msg in [(r'~gsub("a", "\\U\\0", ., perl=TRUE)', "case conversion"),
                     ('~gsub("(", "b", .)', "not a regular expression"),
                     ('~gsub("a", "b", ., foo=TRUE)', "no argument 'foo'")]:
        with pytest.raises(ErgmfitError, match=msg):
            stats(flo, f.format(bad))


# -- I: repeated statistic names -------------------------------------------------------

def test_repeated_statistic_names(flo):
    """statnet's summary() allows a name twice (test-operators.R, test-term-Sum.R); ergmfit
    refused it ("appears twice").  statistics() makes the dict keys unique (.1, .2 as R's
    make.unique); stat_labels keeps statnet's names."""
    m = ef.ERGM(flo, 'edges*absdiff("wealth") + absdiff("wealth")*edges')
    assert m.stat_labels == ["edges", "absdiff.wealth", "edges:absdiff.wealth",
                             "absdiff.wealth", "edges", "absdiff.wealth:edges"]
    assert list(m.statistics_vector()) == [20, 1146, 1146, 1146, 20, 1146]
    assert list(m.statistics()) == ["edges", "absdiff.wealth", "edges:absdiff.wealth",
                                    "absdiff.wealth.1", "edges.1", "absdiff.wealth:edges"]
    m = ef.ERGM(flo, 'Sum("sum" ~ edges + absdiff("wealth"), "") + '
                     'Sum("mean" ~ edges + absdiff("wealth"), "")')
    assert m.stat_labels == ["Sum~", "Sum~"] and list(m.statistics_vector()) == [1166, 583]
    m = ef.ERGM(flo, 'Sum(c(~edges + absdiff("wealth"), 0.5 ~ edges + absdiff("wealth")), '
                     'c("a", "a"))')
    assert m.stat_labels == ["Sum~a", "Sum~a"]
    assert m.statistics() == {"Sum~a": 30.0, "Sum~a.1": 1719.0}


def test_repeated_names_fit_unless_identical(flo, capsys):
    """A fit with a repeated (not identical) statistic name works, as statnet's ergm() (its
    test-nonunique-names.R); identical statistics are refused as collinear, naming their
    positions; a dict of coefficients cannot address a repeated name."""
    from ergmfit.labeled import make_unique
    dup = ef.ERGM(flo, 'edges + Label(~absdiff("wealth"), "edges", "replace")')
    ref = ef.ERGM(flo, 'edges + absdiff("wealth")').fit(method="mple")
    fit = dup.fit(method="mple")
    assert fit.labels == ["edges", "edges"]
    assert np.allclose(fit.params, ref.params, rtol=1e-10)
    assert fit.to_dict()["coef"] == {"edges": ref.params[0], "edges.1": ref.params[1]}
    with pytest.raises(KeyError, match="repeats"):
        fit.params["edges"]
    with pytest.raises(ErgmfitError, match="cannot say which is which"):
        dup.simulate({"edges": -1.0}, n=1)
    same = ef.ERGM(flo, 'edges + kstar(2) + Label(~kstar(2), "kstar2", "replace")')
    with pytest.raises(ef.DegenerateModelError,
                       match=r"'kstar2' \(statistic 2 of the model\), 'kstar2' \(statistic 3"):
        same.fit(method="mple")
    # the command line's table prints statnet's names (JSON keys: unique)
    import json
    from ergmfit.cli import main
    f = "edges + Label(~triangle, 'edges', 'replace')"
    assert main(["stats", "flomarriage", f]) == 0
    table = capsys.readouterr().out.split()
    assert table == ["statistic", "value", "edges", "20", "edges", "3"]
    assert main(["stats", "flomarriage", f, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"edges": 20, "edges.1": 3}
    assert make_unique(["a", "b", "a", "a"]) == ["a", "b", "a.1", "a.2"]
    assert make_unique(["a", "a", "a.1"]) == ["a", "a.2", "a.1"]


# -- J: offset() inside Sum() ------------------------------------------------------------

def test_offset_inside_sum(flo):
    """statnet's test-term-Sum.R: an offset() inside Sum() of one formula with a weight per
    statistic makes that coefficient an offset (labels offset(Sum~...)); with several
    formulas or a weight matrix it is ignored with a warning.  Was refused ("offset(...)
    does not wrap one term of the formula")."""
    f = 'c(1, .5, rep(2, 4)) ~ edges + offset(absdiff("wealth")) + gwesp(cutoff=4)'
    vals = [20, 573, 14, 2, 0, 0]            # baseline 20, 1146; esp 7, 1, 0, 0 (x weights)
    got = stats(flo, f"Sum({f}, identity)")
    assert got == dict(zip(["Sum~edges", "offset(Sum~absdiff.wealth)", "Sum~esp#1",
                            "Sum~esp#2", "Sum~esp#3", "Sum~esp#4"], vals))
    got = stats(flo, f'Sum({f}, "x")')
    assert list(got) == ["Sum~x1", "offset(Sum~x2)", "Sum~x3", "Sum~x4", "Sum~x5", "Sum~x6"]
    got = stats(flo, f"Sum({f}, I)")
    assert list(got)[:2] == ["edges", "offset(absdiff.wealth)"]
    m = ef.ERGM(flo, 'Sum(c(1, .5) ~ edges + offset(absdiff("wealth")), identity)')
    assert list(m.offset) == [False, True]
    fit = m.fit(method="mple", offset_coef=[0.02])
    assert fit.params[1] == 0.02
    # the same model written with a top-level offset on the halved covariate
    ref = ef.ERGM(flo, 'edges + offset(Sum(0.5 ~ absdiff("wealth"), I))').fit(
        method="mple", offset_coef=[0.02])
    assert np.allclose(fit.params, ref.params, rtol=1e-10)
    # several formulas / a weight matrix: ignored, with statnet's warning
    with pytest.warns(UserWarning, match="does not propagate offset"):
        m = ef.ERGM(flo, 'Sum(c(~edges + offset(absdiff("wealth")), rbind(.5, 0) ~ edges), "")')
    assert m.statistics() == {"Sum~1": 30.0, "Sum~2": 1146.0} and not m.offset.any()
    # the operators that wrap their formula's model one statistic for one propagate it
    # (statnet's wrap.ergm_model: tests/terms/test_operator_offsets.py); those that
    # do not warn, naming the way to write it
    m = ef.ERGM(flo, 'Label(~edges + offset(triangle), "x")')
    assert m.offset.tolist() == [False, True]
    with pytest.warns(UserWarning, match=r"not propagated by this operator.*offset\(Op\("):
        m = ef.ERGM(flo, "Exp(~edges + offset(triangle))")
    assert not m.offset.any()
    # a top-level offset() next to an operator holding one
    m = ef.ERGM(flo, "offset(edges) + Sum(~offset(triangle) + kstar(2), I)")
    assert m.labels == ["offset(edges)", "offset(triangle)", "kstar2"]


# -- two-mode attribute expressions with values on one mode only ------------------------

def test_b1_attribute_expression_reads_mode_one_only():
    """statnet evaluates an attribute formula over every node and a b1 term keeps mode 1's
    values, so NA on mode 2 does not matter for b1cov(~age); ergmfit evaluated it over all
    nodes and refused the missing values."""
    g = nx.Graph()
    g.add_nodes_from(range(4), bipartite=0)
    for i in range(4):
        g.nodes[i]["age"] = 20 + i
    g.add_nodes_from(range(4, 7), bipartite=1)
    g.add_edges_from([(0, 4), (1, 4), (2, 5), (3, 6), (0, 6)])
    ties_of = [2, 1, 1, 1]                           # ties of mode-1 nodes 0..3
    age = np.array([20, 21, 22, 23])
    assert stats(g, "b1cov(~age)") == {"b1cov.age": float(ties_of @ age)}
    assert stats(g, "b1cov(~age^2)") == {"b1cov.age^2": float(ties_of @ age ** 2)}
    assert stats(g, 'b1cov(function(x) x %v% "age")') == {"b1cov.age": float(ties_of @ age)}
    assert stats(g, "b1factor(~age > 21)") == {"b1factor.age>21.TRUE": 2.0}
    # an aggregate over all nodes would be NA in statnet; mode 2 itself has no age
    with pytest.raises(ErgmfitError, match="would be NA"):
        stats(g, "b1cov(~age - mean(age))")
    with pytest.raises(ErgmfitError, match="missing"):
        stats(g, "b2cov(~age)")


# -- Project(): statnet's test-term-project.R form, and mm inside it ---------------------

def test_project_repeated_names_and_mm():
    """statnet's test-term-project.R sums Project(~absdiff("b1"), 1) + Proj1(~absdiff("b1"))
    (the same name twice; was refused) with b1 NA on mode 2 and b2 NA on mode 1; values
    from its definition (projection Y = B B' / B'B, half the sum over p != q).  mm() inside
    a projection: statnet's valued labels mm.sum[...] (test-term-mm.R)."""
    rng = np.random.default_rng(3)
    n, b = 20, 5
    g = nx.Graph()
    g.add_nodes_from(range(b), bipartite=0)
    g.add_nodes_from(range(b, n), bipartite=1)
    for i in range(n):
        g.nodes[i]["b1"] = float(rng.normal()) if i < b else None
        g.nodes[i]["b2"] = float(rng.normal()) if i >= b else float("nan")
    B = (rng.random((b, n - b)) < 0.5).astype(float)
    g.add_edges_from((i, b + j) for i, j in zip(*np.nonzero(B)))
    x1 = np.array([g.nodes[i]["b1"] for i in range(b)])
    x2 = np.array([g.nodes[i]["b2"] for i in range(b, n)])
    e1 = float((np.abs(np.subtract.outer(x1, x1)) * (B @ B.T)).sum() / 2)
    e2 = float((np.abs(np.subtract.outer(x2, x2)) * (B.T @ B)).sum() / 2)
    m = ef.ERGM(g, 'Project(~ absdiff("b1"), 1) + Proj1(~absdiff("b1")) + '
                   'Project(~absdiff("b2"), 2) + Proj2(~absdiff("b2"))')
    assert m.stat_labels == ["Proj1~absdiff.sum.b1"] * 2 + ["Proj2~absdiff.sum.b2"] * 2
    assert m.statistics_vector() == pytest.approx([e1, e1, e2, e2], rel=1e-12)
    # mm(form=) on the projection: sum over projected pairs of the cell indicator times y
    grp = ["a", "b", "a", "b", "b"]
    for i in range(b):
        g.nodes[i]["grp"] = grp[i]
    Y = B @ B.T
    cell = {}
    for p in range(b):
        for q in range(p + 1, b):
            key = tuple(sorted((grp[p], grp[q])))
            cell[key] = cell.get(key, [0.0, 0.0])
            cell[key][0] += Y[p, q]
            cell[key][1] += Y[p, q] != 0
    got = stats(g, 'Proj1(~mm("grp", levels2=TRUE) + mm("grp", form="nonzero"))')
    assert got == {"Proj1~mm.sum[grp=a,grp=a]": cell["a", "a"][0],
                   "Proj1~mm.sum[grp=a,grp=b]": cell["a", "b"][0],
                   "Proj1~mm.sum[grp=b,grp=b]": cell["b", "b"][0],
                   "Proj1~mm.nonzero[grp=a,grp=b]": cell["a", "b"][1],
                   "Proj1~mm.nonzero[grp=b,grp=b]": cell["b", "b"][1]}
