"""Issue #19 leftovers: b1star/b2star(levels=), missing attribute values (statnet refuses
them: the error names the attribute and the nodes), the kstar-family level rule, Label()'s
R lambda forms, and the bipartite terms' remaining statnet arguments.  Every value is
checked against a direct numpy count."""
from decimal import Decimal
from itertools import combinations
from math import comb

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError, TermError
from ergmfit.network.values import is_missing

N1, N2 = 9, 7
COLORS = ["red", "blue", "green"]


def _two_mode(seed=3, p=0.45):
    rng = np.random.default_rng(seed)
    ties = [(i, N1 + j) for i in range(N1) for j in range(N2) if rng.random() < p]
    color = [COLORS[int(c)] for c in rng.integers(0, 3, N1 + N2)]
    kind = [["x", "y"][int(c)] for c in rng.integers(0, 2, N1)] + [None] * N2
    place = [None] * N1 + [["p", "q", "r"][int(c)] for c in rng.integers(0, 3, N2)]
    net = ef.Network(N1 + N2, ties, directed=False, bipartite=N1,
                     node_attrs={"color": color, "kind": kind, "place": place})
    A = np.zeros((N1 + N2, N1 + N2), dtype=int)
    for i, j in ties:
        A[i, j] = A[j, i] = 1
    return net, A, np.array(color, dtype=object)


def _stats(net, formula):
    return ef.ERGM(net, formula).statistics()


# -- b1star / b2star(levels=) ---------------------------------------------------------

def _pooled(values, selected):
    index = {v: k for k, v in enumerate(selected)}
    return np.array([index.get(v, len(selected)) for v in values])


@pytest.mark.parametrize("levels, selected", [("'red'", ["red"]),
                                              ("c('green', 'blue')", ["green", "blue"]),
                                              ("I('purple')", ["purple"]),
                                              ("-1", ["green", "red"])])
def test_bstar_levels_pool_the_unselected_levels(levels, selected):
    net, A, color = _two_mode()
    cls = _pooled(color, selected)
    same = cls[:, None] == cls[None, :]
    got = _stats(net, f"b1star(2:3, 'color', levels={levels})")
    want1 = [sum(comb(int(np.sum(A[v] * same[v])), k) for v in range(N1)) for k in (2, 3)]
    assert list(got) == ["b1star2.color", "b1star3.color"]
    assert list(got.values()) == want1
    got2 = _stats(net, f"b2star(2, 'color', levels={levels})")
    assert got2 == {"b2star2.color": sum(comb(int(np.sum(A[v] * same[v])), 2)
                                         for v in range(N1, N1 + N2))}


def test_bstar_levels_every_level_is_no_selection_and_levels_needs_attr():
    net, _, _ = _two_mode()
    assert _stats(net, "b1star(2, 'color', levels=TRUE)") == _stats(net, "b1star(2, 'color')")
    with pytest.raises(TermError, match="give attr="):
        _stats(net, "b2star(2, levels=1)")


# -- missing attribute values ---------------------------------------------------------

def test_is_missing_values():
    import pandas as pd
    assert all(is_missing(v) for v in [None, float("nan"), np.float32("nan"), Decimal("NaN"),
                                       pd.NA, pd.NaT, np.datetime64("NaT"), "NA", " ", "nan"])
    assert not any(is_missing(v) for v in [0, 0.0, False, "x", "N/A-ish", np.int64(3),
                                           Decimal("1.5"), 10 ** 400, np.array([1.0, 2.0])])


@pytest.mark.parametrize("term", ["nodefactor('a')", "nodematch('a', diff=TRUE)",
                                  "nodemix('a')", "nodecov('x')", "absdiff('x')",
                                  "kstar(2, 'a')", "degree(1, by='a')", "gwdegree(0.5, "
                                  "fixed=TRUE, attr='a')", "mm('a')", "absdiffcat('x')",
                                  "triangle(attr='a')", "nodematch(c('a', 'b'))"])
@pytest.mark.parametrize("missing", [None, float("nan"), "NA", "pd.NA", "absent"])
def test_missing_values_are_refused_naming_attribute_and_nodes(term, missing):
    import networkx as nx
    import pandas as pd
    g = nx.path_graph(6)
    for i in g:
        g.nodes[i].update(a="uv"[i % 2], b="st"[i % 2], x=float(i))
    for node in (2, 5):
        for name in ("a", "x"):
            if missing == "absent":
                del g.nodes[node][name]
            else:
                g.nodes[node][name] = pd.NA if missing == "pd.NA" else missing
    with pytest.raises(TermError, match=r"node attribute '[ax]' is missing .* for 2 node\(s\): "
                                        r"2, 5\. statnet refuses"):
        _stats(g, term)


def test_missing_on_the_other_mode_is_fine_for_b_terms_and_named_for_the_rest():
    net, A, _ = _two_mode()
    kind = np.array(net.node_attrs["kind"][:N1])
    got = _stats(net, "b1factor('kind', levels=TRUE) + b2factor('place')")
    assert got["b1factor.kind.x"] == A[:N1][kind == "x"].sum()
    assert got["b1factor.kind.y"] == A[:N1][kind == "y"].sum()
    with pytest.raises(TermError, match=r"'kind' is missing .* for 7 node\(s\): 9, 10, 11, "
                                        r"12, 13 and 2 more\..*defined on mode 1 only: on a "
                                        r"two-mode network use a b1\* term"):
        _stats(net, "nodefactor('kind')")
    with pytest.raises(TermError, match="'place' is missing"):
        _stats(net, "b1star(2, 'place')")      # statnet reads b1star's attr on every node


def test_numeric_covariate_never_gives_a_nan_statistic():
    g = ef.Network(4, [(0, 1), (1, 2), (2, 3)], directed=False,
                   node_attrs={"x": [1.0, np.nan, 2.0, 3.0], "y": [1, 2, np.inf, 3]})
    for term in ("nodecov('x')", "absdiff('x')", "edgecov('x')"):
        with pytest.raises(ErgmfitError):
            _stats(g, term)
    with pytest.raises(TermError, match="infinite"):
        _stats(g, "nodecov('y')")


# -- Label() with R's function forms ------------------------------------------------------

@pytest.mark.parametrize("label, want", [
    (r"\(x) toupper(x)", ["EDGES", "TRIANGLE"]),
    (r"\(x) paste(x, 'b', sep = '_')", ["edges_b", "triangle_b"]),
    (r"\(y) {toupper(paste0(y, '.z'))}", ["EDGES.Z", "TRIANGLE.Z"]),
    (r"function(x) {paste0('a.', x)}", ["a.edges", "a.triangle"]),
    (r"function (x) paste0('a.', x)", ["a.edges", "a.triangle"]),
    (r"~paste0('a.', .)", ["a.edges", "a.triangle"]),
    (r"~paste0('a.', .x)", ["a.edges", "a.triangle"]),
    ("tolower", ["edges", "triangle"]),
])
def test_label_function_forms(label, want):
    got = _stats("flomarriage", f"Label(~edges + triangle, {label})")
    assert list(got) == want
    assert list(got.values()) == [20, 3]


def test_label_lambda_refusals_name_the_supported_forms():
    # (sub/gsub are supported since session 6: test_terms_usage_s6; substr is not)
    with pytest.raises(TermError, match=r"'substr' is not supported.*lambda \\\(x\)"):
        _stats("flomarriage", r"Label(~edges, \(x) substr(x, 1, 2))")
    with pytest.raises(ErgmfitError, match=r"unexpected '\\\\'"):
        _stats("flomarriage", r"Label(~edges, \ x)")


# -- the bipartite terms' remaining statnet arguments ----------------------------------------

def _twostar_counts(A, ccls, lcls, centres):
    """(centre class, leaf class, leaf class) -> number of two-stars, leaves unordered."""
    out = {}
    for v in centres:
        nb = [w for w in np.flatnonzero(A[v]) if lcls[w] is not None]
        if ccls[v] is None:
            continue
        for w1, w2 in combinations(nb, 2):
            a, b = sorted((lcls[w1], lcls[w2]))
            out[(ccls[v], a, b)] = out.get((ccls[v], a, b), 0) + 1
    return out


def test_twostar_levels_levels2_and_base():
    net, A, color = _two_mode(seed=5, p=0.55)
    kind = net.node_attrs["kind"]
    # b1levels keeps kind 'y' only, b2levels drops the first colour (blue): green, red
    got = _stats(net, "b1twostar('kind', 'color', b1levels='y', b2levels=-1)")
    ccls = [k if k == "y" else None for k in kind[:N1]] + [None] * N2
    lcls = [None] * N1 + [c if c != "blue" else None for c in color[N1:]]
    counts = _twostar_counts(A, ccls, lcls, range(N1))
    cells = [("y", "green", "green"), ("y", "green", "red"), ("y", "red", "red")]
    assert list(got) == [f"b1twostar.kind.{c}.color.{a}.{b}" for c, a, b in cells]
    assert list(got.values()) == [counts.get(c, 0) for c in cells]
    # levels2 and base pick cells by index in label order (base only without levels2)
    whole = _stats(net, "b2twostar('kind', 'color')")
    names = list(whole)
    assert len(names) == 3 * 3           # 3 colours at the centre x 3 unordered kind pairs
    assert list(_stats(net, "b2twostar('kind', 'color', levels2=c(2, 5))")) == \
        [names[1], names[4]]
    assert list(_stats(net, "b2twostar('kind', 'color', base=c(1, 9))")) == names[1:8]
    assert list(_stats(net, "b2twostar('kind', 'color', base=1, levels2=-2)")) == \
        names[:1] + names[2:]
    ccls2 = [None] * N1 + list(color[N1:])
    lcls2 = list(kind[:N1]) + [None] * N2
    counts2 = _twostar_counts(A, ccls2, lcls2, range(N1, N1 + N2))
    for name, value in whole.items():
        c, a, b = name.split(".")[2], name.split(".")[4], name.split(".")[5]
        assert value == counts2.get((c, a, b), 0), name
    with pytest.raises(TermError, match="levels2 by value is not supported"):
        _stats(net, "b1twostar('kind', 'color', levels2=I('y'))")


def test_starmix_base_drops_statistics_by_index():
    net, A, color = _two_mode(seed=7, p=0.6)
    whole = _stats(net, "b1starmix(2, 'color')")
    names = list(whole)
    got = _stats(net, "b1starmix(2, 'color', base=c(2, 4))")
    assert got == {k: whole[k] for k in names if k not in (names[1], names[3])}
    homo = _stats(net, "b2starmix(2, 'color', diff=FALSE)")
    assert _stats(net, "b2starmix(2, 'color', diff=FALSE, base=1)") == \
        {k: homo[k] for k in list(homo)[1:]}
    # diff=FALSE by brute force: stars at a mode-2 centre of colour c, both leaves one colour
    for c in sorted(set(color[N1:]), key=str.casefold):
        want = sum(comb(int(np.sum((A[v, :N1] == 1) & (color[:N1] == lc))), 2)
                   for v in range(N1, N1 + N2) if color[v] == c for lc in COLORS)
        assert homo[f"b2starmix.2.color.{c}"] == want
    with pytest.raises(TermError, match="base must be indices"):
        _stats(net, "b1starmix(2, 'color', base=99)")


def test_bnodematch_diff_by_other_mode_alpha_range_and_keep():
    net, A, color = _two_mode(seed=11, p=0.5)
    place = net.node_attrs["place"]
    got = _stats(net, "b1nodematch('color', diff=TRUE, byb2attr='place')")
    want = {}
    for u, w in combinations(range(N1), 2):
        if color[u] != color[w]:
            continue
        for v in range(N1, N1 + N2):
            if A[u, v] and A[w, v]:
                key = f"b1nodematch.color.{color[u]}.{place[v]}"
                want[key] = want.get(key, 0) + 1
    levels = sorted(set(color[:N1]), key=str.casefold)
    assert list(got) == [f"b1nodematch.color.{c}.{p}" for c in levels for p in "pqr"]
    assert got == {k: want.get(k, 0) for k in got}
    # summed over the colours: the diff=FALSE byb2attr statistics
    nodiff = _stats(net, "b1nodematch('color', byb2attr='place')")
    assert nodiff == {f"b1nodematch.color.{p}": sum(got[f"b1nodematch.color.{c}.{p}"]
                                                    for c in levels) for p in "pqr"}
    with pytest.raises(TermError, match="between 0 and 1"):
        _stats(net, "b1nodematch('color', alpha=1.5)")
    one = ef.Network(net.n, net.ties, directed=False, bipartite=N1,
                     node_attrs={**net.node_attrs, "one": [None] * N1 + ["p"] * N2})
    with pytest.raises(TermError, match="at least two levels"):
        _stats(one, "b1nodematch('color', byb2attr='one')")


def test_bnodematch_levels_overrides_keep():
    net, _, _ = _two_mode(seed=11, p=0.5)
    assert _stats(net, "b1nodematch('color', diff=TRUE, keep=1, levels=c(2, 3))") == \
        _stats(net, "b1nodematch('color', diff=TRUE, levels=c(2, 3))")
    assert list(_stats(net, "b1nodematch('color', diff=TRUE, keep=c(1, 3))")) == \
        ["b1nodematch.color.blue", "b1nodematch.color.red"]


@pytest.mark.parametrize("formula", [
    "b1star(2:3, 'c', levels='u')", "b2star(2, 'c', levels=I('w'))",
    "b1twostar('a', 'b', b1levels=-1, levels2=-1)", "b2twostar('a', 'b', base=2)",
    "b1starmix(2, 'c', base=1)", "b1nodematch('c', diff=TRUE, byb2attr='b')",
    "b2nodematch('b', diff=TRUE, byb1attr='c')"])
def test_new_argument_kernels_change_statistics(formula):
    from support.change_stats import check_formula, random_network
    for seed in range(3):
        check_formula(random_network(seed, "bipartite"), formula, seed)


def test_numeric_covariates_over_several_attributes():
    got = _stats("lazega", "nodecov(c('seniority', 'age'))")
    net = ef.datasets.load_network("lazega")
    A = np.zeros((net.n, net.n))
    for i, j in net.ties:
        A[i, j] = A[j, i] = 1
    deg = A.sum(axis=1)
    assert got == {f"nodecov.{a}": float(deg @ net.node_attribute(a, numeric=True))
                   for a in ("seniority", "age")}
    net2, B, _ = _two_mode()
    x = np.arange(N1 + N2, dtype=float)
    two = ef.Network(net2.n, net2.ties, directed=False, bipartite=N1,
                     node_attrs={"u": list(x[:N1]) + [None] * N2, "w": list(x[:N1] ** 2) +
                                 [None] * N2, "z": [None] * N1 + list(-x[N1:])})
    got2 = _stats(two, "b1cov(c('u', 'w')) + b2cov(c('z'))")
    assert got2 == {"b1cov.u": float(B[:N1].sum(axis=1) @ x[:N1]),
                    "b1cov.w": float(B[:N1].sum(axis=1) @ x[:N1] ** 2),
                    "b2cov.z": float(B[N1:].sum(axis=1) @ -x[N1:])}


def test_readers_turn_na_cells_into_missing_values(tmp_path):
    import pandas as pd
    (tmp_path / "nodes.csv").write_text("id,sex,age\n1,F,20\n2,NA,\n3,M,31\n4,F,NA\n")
    (tmp_path / "edges.csv").write_text("from,to\n1,2\n2,3\n3,4\n1,3\n")
    net = ef.network.io.read_network(str(tmp_path / "edges.csv"), directed=False,
                                     nodes=str(tmp_path / "nodes.csv"))
    assert net.node_attrs == {"sex": ["F", None, "M", "F"], "age": [20, None, 31, None]}
    with pytest.raises(TermError, match=r"'age' is missing .* 2 node\(s\): 2, 4\."):
        _stats(net, "nodecov('age')")
    nodes = pd.DataFrame({"id": [1, 2, 3, 4],
                          "g": pd.array(["a", None, "b", "a"], dtype="string")})
    net2 = ef.network.io.load_any(pd.DataFrame({"from": [1, 2, 3], "to": [2, 3, 4]}),
                                  directed=False, nodes=nodes)
    with pytest.raises(TermError, match=r"'g' is missing .* 1 node\(s\): 2\."):
        _stats(net2, "nodematch('g')")


def test_label_replace_keeps_the_inner_name_under_na():
    # statnet >= 4.7's Label help: with pos="replace", elements for which is.na(label) keep
    # their names; the string "NA" is a label like any other
    assert list(_stats("flomarriage", "Label(~edges + triangle, c('E', NA), pos='replace')")) \
        == ["E", "triangle"]
    assert list(_stats("flomarriage", "Label(~edges + triangle, c('E', 'NA'), pos='replace')")) \
        == ["E", "NA"]


def _pw(x, p):
    return 0.0 if x == 0 else float(x) ** p


@pytest.mark.parametrize("alpha, beta", [(0.5, 1), (0, 1), (1, 0.5), (1, 0)])
@pytest.mark.parametrize("by", [False, True])
def test_bnodematch_discounts_by_definition(alpha, beta, by):
    """statnet's b1nodematch: alpha, Σ_{matching pairs} sp^α (with byb2attr, per b2 level L
    the shared partners of level L); beta, ½ Σ_{ties (u, v)} m(u, v)^β; 0^0 counts 0."""
    net, A, color = _two_mode(seed=13, p=0.55)
    place = net.node_attrs["place"]
    levels = ["p", "q", "r"] if by else [None]
    want = {L: 0.0 for L in levels}
    mids = range(N1, N1 + N2)
    if alpha != 1:
        for u, w in combinations(range(N1), 2):
            if color[u] == color[w]:
                for L in levels:
                    sp = sum(A[u, z] * A[w, z] for z in mids if L is None or place[z] == L)
                    want[L] += _pw(sp, alpha)
    else:
        for u in range(N1):
            for v in mids:
                if A[u, v]:
                    m = sum(1 for w in range(N1) if w != u and A[w, v] and color[w] == color[u])
                    want[place[v] if by else None] += 0.5 * _pw(m, beta)
    formula = f"b1nodematch('color', alpha={alpha}, beta={beta}" + \
        (", byb2attr='place')" if by else ")")
    got = _stats(net, formula)
    keys = [f"b1nodematch.color.{L}" for L in levels] if by else ["b1nodematch.color"]
    assert list(got) == keys
    np.testing.assert_allclose(list(got.values()), [want[L] for L in levels], rtol=1e-12)
    from support.change_stats import check_formula, random_network
    check_formula(random_network(1, "bipartite"), formula.replace("'color'", "'c'").replace(
        "'place'", "'b'"), 1)


def test_bsociality_attr_is_refused_with_the_statnet4_form():
    net, A, _ = _two_mode()
    assert list(_stats(net, "b1sociality(nodes=2:3)").values()) == list(A[1:3].sum(axis=1))
    with pytest.raises(TermError, match=r"statnet 4 takes b2sociality\(nodes=...\) only"):
        _stats(net, "b2sociality(attr='place')")
