"""Dyad-independent terms: mutual, nodal covariates and factors, homophily, mixing,
node effects and dyadic covariates.

Every statistic is checked against a plain reference computed from the adjacency
matrix (never through the kernels), its change statistics against differences of
that reference, and the observed values against statnet 4.4.
"""
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import ergmfit as ef
from support.paths import load_reference
from ergmfit.exceptions import TermError
from ergmfit.terms.dyadic import r_double

# --------------------------------------------------------------------------
# reference implementation (adjacency matrix, plain Python)
# --------------------------------------------------------------------------

# the string levels of the test data in R's (English locale) order, written out
STRING_ORDER = ["a", "b", "C", "d"]


def ties_of(A, directed):
    n = len(A)
    return [(i, j) for i in range(n) for j in range(n)
            if i != j and A[i, j] and (directed or i < j)]


def sorted_levels(vals):
    u = set(vals)
    if all(isinstance(v, str) for v in u):
        return [s for s in STRING_ORDER if s in u]
    return sorted(u)          # numbers numerically, False < True


def lab(v):
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    return str(v)


def r_edges(A, d):
    return [("edges", len(ties_of(A, d)))]


def r_mutual(A, d):
    n = len(A)
    return [("mutual", sum(A[i, j] * A[j, i] for i in range(n) for j in range(i + 1, n)))]


def r_cov(name, x, which="both"):
    def f(A, d):
        tot = 0.0
        for i, j in ties_of(A, d):
            tot += {"both": x[i] + x[j], "in": x[j], "out": x[i]}[which]
        prefix = {"both": "nodecov", "in": "nodeicov", "out": "nodeocov"}[which]
        return [(f"{prefix}.{name}", tot)]
    return f


def r_absdiff(name, x, p=1, label=None):
    def f(A, d):
        return [(label or f"absdiff.{name}", sum(abs(x[i] - x[j]) ** p for i, j in ties_of(A, d)))]
    return f


def r_factor(name, vals, which="both", keep=None, term=None):
    levels = sorted_levels(vals)
    keep = levels[1:] if keep is None else keep
    term = term or {"both": "nodefactor", "in": "nodeifactor", "out": "nodeofactor"}[which]

    def f(A, d):
        out = []
        for lv in keep:
            c = 0
            for i, j in ties_of(A, d):
                c += (which != "in" and vals[i] == lv) + (which != "out" and vals[j] == lv)
            out.append((f"{term}.{name}.{lab(lv)}", c))
        return out
    return f


def r_match(name, vals, diff=False, keep=None):
    levels = sorted_levels(vals) if keep is None else keep

    def f(A, d):
        T = ties_of(A, d)
        if not diff:
            return [(f"nodematch.{name}",
                     sum(vals[i] == vals[j] and vals[i] in levels for i, j in T))]
        return [(f"nodematch.{name}.{lab(lv)}", sum(vals[i] == vals[j] == lv for i, j in T))
                for lv in levels]
    return f


def r_mix(name, vals, directed, drop_first=True):
    levels = sorted_levels(vals)
    k = len(levels)
    if directed:
        cells = [(levels[r], levels[c]) for c in range(k) for r in range(k)]
    else:
        cells = [(levels[r], levels[c]) for c in range(k) for r in range(c + 1)]
    if drop_first:
        cells = cells[1:]

    def f(A, d):
        out = []
        for a, b in cells:
            c = 0
            for i, j in ties_of(A, d):
                if (vals[i], vals[j]) == (a, b) or (not d and (vals[j], vals[i]) == (a, b)):
                    c += 1
            out.append((f"mix.{name}.{lab(a)}.{lab(b)}", c))
        return out
    return f


def r_absdiffcat(name, x):
    diffs = sorted({abs(a - b) for a in x for b in x} - {0})

    def f(A, d):
        T = ties_of(A, d)
        return [(f"absdiff.{name}.{lab(v)}", sum(abs(x[i] - x[j]) == v for i, j in T))
                for v in diffs]
    return f


def r_node(term, nodes):
    def f(A, d):
        out = []
        for k in nodes:
            deg = {"sender": A[k].sum(), "receiver": A[:, k].sum(), "sociality": A[k].sum()}[term]
            out.append((f"{term}{k + 1}", deg))
        return out
    return f


def r_edgecov(label, D):
    def f(A, d):
        return [(label, sum(D[i, j] for i, j in ties_of(A, d)))]
    return f


# --------------------------------------------------------------------------
# random test networks with attributes
# --------------------------------------------------------------------------

def make_data(n, directed, p, seed):
    rng = np.random.default_rng(seed)
    A = (rng.random((n, n)) < p).astype(np.int64)
    np.fill_diagonal(A, 0)
    if not directed:
        A = np.triu(A, 1)
        A = A + A.T

    def cover(levels):      # every level present, then random, shuffled
        v = list(levels) + list(rng.choice(levels, n - len(levels)))
        rng.shuffle(v)
        return [type(levels[0])(a) if not isinstance(levels[0], bool) else bool(a) for a in v]

    attrs = {
        "x": [int(a) for a in cover([1, 2, 3, 11])],          # 11 sorts after 3
        "c": [str(a) for a in cover(["b", "a", "C", "d"])],
        "flag": [bool(a) for a in cover([True, False])],
        "w": list(np.round(rng.normal(size=n), 3)),
    }
    D = np.round(rng.normal(size=(n, n)), 2)
    if not directed:
        D = np.triu(D, 1)
        D = D + D.T
    g = nx.DiGraph() if directed else nx.Graph()
    for i in range(n):
        g.add_node(i, **{a: v[i] for a, v in attrs.items()})
    g.add_edges_from(ties_of(A, directed))
    g.graph["D"] = D
    g.graph["S"] = sp.csr_matrix(np.where(np.abs(D) > 0.7, D, 0.0))
    return g, A, attrs, D


def model_pieces(directed, attrs, D, n):
    x, c, flag, w = attrs["x"], attrs["c"], attrs["flag"], attrs["w"]
    S = np.where(np.abs(D) > 0.7, D, 0.0)
    both = [
        ("edges", r_edges),
        ("nodecov('w')", r_cov("w", w)),
        ("absdiff('x')", r_absdiff("x", x)),
        ("absdiff('w', pow=2)", r_absdiff("w", w, 2, "absdiff2.w")),
        ("nodefactor('c')", r_factor("c", c)),
        ("nodefactor('flag')", r_factor("flag", flag)),
        ("nodematch('c')", r_match("c", c)),
        ("nodematch('x', diff=TRUE)", r_match("x", x, diff=True)),
        ("nodematch('flag', keep=c(2))", r_match("flag", flag, keep=[True])),
        ("nodemix('c')", r_mix("c", c, directed)),
        ("absdiffcat('x')", r_absdiffcat("x", x)),
        ("edgecov('D')", r_edgecov("edgecov.D", D)),
        ("edgecov('S')", r_edgecov("edgecov.S", S)),
    ]
    if directed:
        return both + [
            ("mutual", r_mutual),
            ("nodeicov('x')", r_cov("x", x, "in")),
            ("nodeocov('w')", r_cov("w", w, "out")),
            ("nodeifactor('x', levels=TRUE)", r_factor("x", x, "in", keep=[1, 2, 3, 11])),
            ("nodeofactor('c', levels=c(4, 2))", r_factor("c", c, "out", keep=["d", "b"])),
            ("nodemix('flag', levels2=NULL)", r_mix("flag", flag, True, drop_first=False)),
            ("sender", r_node("sender", range(1, n))),
            ("receiver(nodes=c(3, 1))", r_node("receiver", [2, 0])),
        ]
    return both + [
        ("nodefactor('x', levels=c(-2, -3))", r_factor("x", x, keep=[1, 11], term="nodefactor")),
        ("nodemix('x', levels2=TRUE)", r_mix("x", x, False, drop_first=False)),
        ("sociality", r_node("sociality", range(1, n))),
    ]


def _check_duplicates(pieces):
    # nodefactor('x', ...) twice would repeat labels; every formula here is unique
    return " + ".join(f for f, _ in pieces)


def reference(pieces, A, directed):
    return [lv for _, f in pieces for lv in f(A, directed)]


graphs = dict(n=st.integers(4, 12), directed=st.booleans(),
              p=st.sampled_from([0.0, 0.1, 0.3, 0.6, 1.0]), seed=st.integers(0, 2**31 - 1))


@settings(max_examples=50, deadline=None)
@given(**graphs)
def test_statistics_equal_reference(n, directed, p, seed):
    g, A, attrs, D = make_data(n, directed, p, seed)
    pieces = model_pieces(directed, attrs, D, n)
    m = ef.ERGM(g, _check_duplicates(pieces))
    want = reference(pieces, A, directed)
    assert m.labels == [lab_ for lab_, _ in want]
    np.testing.assert_allclose(m.statistics_vector(), [v for _, v in want], rtol=1e-12, atol=1e-9)
    # every covariate term is dyad-independent; mutual is not (x_ij's change depends on x_ji)
    assert all(t.dyad_independent == (t.name != "mutual") for t in m.terms)


@settings(max_examples=40, deadline=None)
@given(**graphs, flips=st.lists(st.integers(0, 10**6), max_size=40),
       probes=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)),
                       min_size=1, max_size=12))
def test_change_statistics_are_differences_of_the_reference(n, directed, p, seed, flips, probes):
    g, A, attrs, D = make_data(n, directed, p, seed)
    pieces = model_pieces(directed, attrs, D, n)
    m = ef.ERGM(g, _check_duplicates(pieces))
    cm = m.compiled()
    A = A.copy()
    for f in flips:                      # a random state reached by flips
        v = f % cm.n_vars
        i, j = cm.dyad_of(v)
        cm.flip_var(v)
        A[i, j] ^= 1
        if not directed:
            A[j, i] = A[i, j]
    # the statistics of the current state agree with the reference too
    np.testing.assert_allclose(m.statistics_vector(cm.state.ties()),
                               [v for _, v in reference(pieces, A, directed)], atol=1e-9)
    for a, b in probes:
        i, j = a % n, b % n
        if i == j:
            continue
        A1, A0 = A.copy(), A.copy()
        A1[i, j], A0[i, j] = 1, 0
        if not directed:
            A1[j, i], A0[j, i] = 1, 0
        want = (np.array([v for _, v in reference(pieces, A1, directed)], dtype=float)
                - np.array([v for _, v in reference(pieces, A0, directed)], dtype=float))
        got = cm.dyad_change_stats(i, j)
        np.testing.assert_allclose(got, want, atol=1e-9)
        v = cm.var_of(i, j)
        np.testing.assert_allclose(cm.change_stats(v), want, atol=1e-9)
        before = cm.value(v)
        assert before == bool(A[i, j])
        cm.flip_var(v)
        assert cm.value(v) != before
        np.testing.assert_allclose(cm.dyad_change_stats(i, j), want, atol=1e-9)
        cm.flip_var(v)
        assert cm.value(v) == before and cm.state.has(i, j) == bool(A[i, j])


@pytest.mark.parametrize("directed", [False, True])
def test_bigger_sparse_networks(directed):
    n = 400
    g, A, attrs, D = make_data(n, directed, 3.0 / n, 12345 + directed)
    pieces = model_pieces(directed, attrs, D, n)
    m = ef.ERGM(g, _check_duplicates(pieces))
    want = reference(pieces, A, directed)
    assert m.labels == [lab_ for lab_, _ in want]
    np.testing.assert_allclose(m.statistics_vector(), [v for _, v in want], rtol=1e-12, atol=1e-9)


# --------------------------------------------------------------------------
# statnet's values
# --------------------------------------------------------------------------

MINE = {"edges", "mutual", "nodecov", "nodeicov", "nodeocov", "nodefactor", "nodeifactor",
        "nodeofactor", "nodematch", "absdiff", "edgecov", "nodemix", "sender", "receiver",
        "sociality", "absdiffcat"}
STATNET = [e for e in load_reference("statnet_stats.json")["evaluations"]
           if e["term"].split("(")[0].strip() in MINE]
_NETS = {}


def _net(name):
    if name not in _NETS:
        _NETS[name] = ef.datasets.load_network(name)
    return _NETS[name]


def test_statnet_entries_found():
    terms = {e["term"].split("(")[0] for e in STATNET}
    assert {"mutual", "nodecov", "nodefactor", "nodeifactor", "nodeofactor", "nodematch",
            "absdiff"} <= terms
    assert len(STATNET) >= 40


@pytest.mark.parametrize("entry", STATNET, ids=[f"{e['dataset']}:{e['term']}" for e in STATNET])
def test_statnet_values(entry):
    stats = ef.ERGM(_net(entry["dataset"]), entry["term"]).statistics()
    assert list(stats) == list(entry["stats"])
    for label, want in entry["stats"].items():
        assert stats[label] == pytest.approx(want, rel=1e-9, abs=1e-12), label


def test_nodemix_statnet_values():
    # statnet's own nodemix test values (faux.mesa.high Grade mixing matrix, samplike groups)
    m = np.array([75, 0, 0, 1, 1, 1, 0, 33, 2, 4, 2, 1, 0, 2, 23, 7, 6, 4, 1, 4, 7, 9, 1, 5,
                  1, 2, 6, 1, 17, 5, 1, 1, 4, 5, 5, 6]).reshape(6, 6).T
    got = ef.ERGM(_net("faux.mesa.high"), "nodemix('Grade', levels2=TRUE)").statistics()
    grades = [7, 8, 9, 10, 11, 12]
    want = {f"mix.Grade.{grades[r]}.{grades[c]}": m[r, c] for c in range(6) for r in range(c + 1)}
    assert got == want and list(got) == list(want)
    got = ef.ERGM(_net("samplike"), "nodemix('group')").statistics()
    assert got == {"mix.group.Outcasts.Loyal": 1, "mix.group.Turks.Loyal": 5,
                   "mix.group.Loyal.Outcasts": 2, "mix.group.Outcasts.Outcasts": 10,
                   "mix.group.Turks.Outcasts": 1, "mix.group.Loyal.Turks": 9,
                   "mix.group.Outcasts.Turks": 7, "mix.group.Turks.Turks": 30}
    assert list(got)[0] == "mix.group.Outcasts.Loyal"
    assert ef.ERGM(_net("faux.mesa.high"), "nodemix('Sex')").labels == ["mix.Sex.F.M",
                                                                         "mix.Sex.M.M"]


def test_sociality_statnet_values():
    s = ef.ERGM(_net("faux.mesa.high"), "sociality").statistics()
    assert list(s.values())[:6] == [4, 0, 0, 1, 0, 0] and list(s)[0] == "sociality2"
    s = ef.ERGM(_net("faux.mesa.high"), "sociality(nodes=c(1, 204, 205))").statistics()
    assert s == {"sociality1": 13, "sociality204": 3, "sociality205": 1}


def test_aliases():
    samp = _net("samplike")
    assert ef.ERGM(samp, "Reciprocity").statistics() == {"mutual": 28}
    assert ef.ERGM(samp, "Arc + Reciprocity").labels == ["edges", "mutual"]
    assert ef.ERGM(samp, "match('group')").statistics() == {"nodematch.group": 63}
    assert ef.ERGM(samp, "Matching('group')").statistics() == {"nodematch.group": 63}
    laz = _net("lazega")
    assert ef.ERGM(laz, "nodemain('seniority')").statistics() == {"nodecov.seniority": 4687}
    g = nx.DiGraph()
    g.add_nodes_from([(0, {"a": 1.5}), (1, {"a": 2.0}), (2, {"a": -1.0})])
    g.add_edges_from([(0, 1), (2, 1), (1, 2)])
    s = ef.ERGM(g, "ContinuousSender('a') + ContinuousReceiver('a')").statistics()
    assert s == {"nodeocov.a": 1.5 - 1.0 + 2.0, "nodeicov.a": 2.0 + 2.0 - 1.0}


# --------------------------------------------------------------------------
# levels, labels, arguments
# --------------------------------------------------------------------------

def _graph(vals, ties, directed=False, name="x", **graph_attrs):
    g = nx.DiGraph() if directed else nx.Graph()
    for i, v in enumerate(vals):
        g.add_node(i, **({name: v} if v is not None else {}))
    g.add_edges_from(ties)
    g.graph.update(graph_attrs)
    return g


STAR = [(0, k) for k in range(1, 6)] + [(1, 2), (3, 4)]


def test_numeric_levels_sort_numerically_and_selection_forms():
    g = _graph([11, 1, 2, 3, 11, 2], STAR)
    lab_ = lambda f: ef.ERGM(g, f).labels            # noqa: E731
    assert lab_("nodefactor('x')") == ["nodefactor.x.2", "nodefactor.x.3", "nodefactor.x.11"]
    full = ["nodefactor.x.1", "nodefactor.x.2", "nodefactor.x.3", "nodefactor.x.11"]
    assert lab_("nodefactor('x', levels=TRUE)") == full
    assert lab_("nodefactor('x', levels=NULL)") == full
    assert lab_("nodefactor('x', levels=c(4, 1))") == ["nodefactor.x.11", "nodefactor.x.1"]
    assert lab_("nodefactor('x', levels=c(-1, -4))") == ["nodefactor.x.2", "nodefactor.x.3"]
    assert lab_("nodefactor('x', levels=c('11', '2'))") == ["nodefactor.x.11", "nodefactor.x.2"]
    assert lab_("nodefactor('x', levels=c(TRUE, FALSE))") == ["nodefactor.x.1", "nodefactor.x.3"]
    assert lab_("nodematch('x', diff=TRUE, levels=-1)") == [
        "nodematch.x.2", "nodematch.x.3", "nodematch.x.11"]
    s = ef.ERGM(g, "nodefactor('x', levels=TRUE)").statistics()
    # ties 0-1 .. 0-5 (node 0 has 11), 1-2, 3-4
    assert s == {"nodefactor.x.1": 2, "nodefactor.x.2": 3, "nodefactor.x.3": 2,
                 "nodefactor.x.11": 7}


def test_string_and_logical_levels():
    g = _graph(["b", "B", "a", "A", "b", "a"], STAR)
    assert ef.ERGM(g, "nodefactor('x', levels=TRUE)").labels == [
        "nodefactor.x.a", "nodefactor.x.A", "nodefactor.x.b", "nodefactor.x.B"]
    g = _graph([True, False, True, True, False, False], STAR)
    assert ef.ERGM(g, "nodefactor('x')").statistics() == {"nodefactor.x.TRUE": 9}
    assert ef.ERGM(g, "nodematch('x', diff=TRUE)").labels == ["nodematch.x.FALSE",
                                                              "nodematch.x.TRUE"]
    g = _graph([7.0, 7.5, 100000.0, 0.1, 7.0, 7.5], STAR)
    assert ef.ERGM(g, "nodefactor('x', levels=TRUE)").labels == [
        "nodefactor.x.0.1", "nodefactor.x.7", "nodefactor.x.7.5", "nodefactor.x.1e+05"]


def test_pasted_attributes():
    g = _graph([1, 1, 2, 2, 1, 2], STAR)
    for i, s_ in enumerate("FMFMMF"):
        g.nodes[i]["s"] = s_
    s = ef.ERGM(g, "nodefactor(c('s', 'x'), levels=TRUE)").statistics()
    assert list(s) == ["nodefactor.s.x.F.1", "nodefactor.s.x.F.2", "nodefactor.s.x.M.1",
                       "nodefactor.s.x.M.2"]
    assert sum(s.values()) == 2 * len(STAR)


def test_r_double_formatting():
    assert [r_double(v) for v in (7.0, 2.5, 0.1, 1e5, 123456.0, 1e-4, 0.00012, 1 / 3, -2.0,
                                  0.0, 1e15, 0.6931471805599453)] == [
        "7", "2.5", "0.1", "1e+05", "123456", "1e-04", "0.00012", "0.333333333333333", "-2",
        "0", "1e+15", "0.693147180559945"]


def test_absdiff_labels_and_pow():
    g = _graph([1.0, 3.0, 0.5, 2.0, 4.0, 1.0], STAR)
    s = ef.ERGM(g, "absdiff('x') + absdiff('x', pow=2) + absdiff('x', pow=0.5)").statistics()
    d = [abs([1.0, 3.0, 0.5, 2.0, 4.0, 1.0][i] - [1.0, 3.0, 0.5, 2.0, 4.0, 1.0][j])
         for i, j in STAR]
    assert s["absdiff.x"] == pytest.approx(sum(d))
    assert s["absdiff2.x"] == pytest.approx(sum(v ** 2 for v in d))
    assert s["absdiff0.5.x"] == pytest.approx(sum(v ** 0.5 for v in d))


def test_absdiffcat_labels():
    g = _graph([7, 9, 12, 7, 8, 9], STAR)
    assert ef.ERGM(g, "absdiffcat('x')").labels == [
        "absdiff.x.1", "absdiff.x.2", "absdiff.x.3", "absdiff.x.4", "absdiff.x.5"]
    assert ef.ERGM(g, "absdiffcat('x', levels=c(-1, -2))").labels == [
        "absdiff.x.3", "absdiff.x.4", "absdiff.x.5"]


def test_deprecated_base_and_keep():
    samp = _net("samplike")
    with pytest.warns(DeprecationWarning, match="base"):
        labels = ef.ERGM(samp, "nodefactor('group', base=2)").labels
    assert labels == ["nodefactor.group.Loyal", "nodefactor.group.Turks"]
    with pytest.warns(DeprecationWarning):
        assert len(ef.ERGM(samp, "nodefactor('group', base=0)").labels) == 3
    with pytest.warns(DeprecationWarning):
        assert ef.ERGM(samp, "sender(base=0)").labels[0] == "sender1"
    assert ef.ERGM(samp, "nodematch('group', diff=TRUE, keep=c(1, 3))").statistics() == {
        "nodematch.group.Loyal": 23, "nodematch.group.Turks": 30}
    assert ef.ERGM(samp, "nodematch('group', keep=c(1, 3))").statistics() == {
        "nodematch.group": 53}


@pytest.mark.parametrize("formula, match", [
    ("nodefactor('x', levels=c(9))", "out of range 1..4"),
    ("nodefactor('x', levels=c(1, -2))", "cannot mix"),
    ("nodefactor('x', levels=c(1, 1))", "twice"),
    ("nodefactor('x', levels=1.5)", "whole numbers"),
    ("nodefactor('x', levels=c(-1, -2, -3, -4))", "leaves no level"),
    ("nodematch('x', keep=c(1), levels=c(2))", "not both"),
    ("nodematch('x', diff=1)", "True or False"),
    ("nodefactor('nope')", "no node attribute 'nope'.*'x'"),
    ("nodecov('nope')", "no node attribute 'nope'.*'x'"),
    ("nodefactor('s')", "missing"),
    ("nodecov('s')", "missing"),
    ("nodecov('name')", "numeric"),
    ("absdiff('name')", "numeric"),
    ("absdiff('x', pow='a')", "pow"),
    ("absdiffcat('one')", "single value"),
    ("mutual", "directed networks"),
    ("nodeicov('x')", "directed networks"),
    ("sender", "directed networks"),
    ("nodefactor('x', bogus=1)", "unknown argument"),
])
def test_argument_errors(formula, match):
    g = _graph([11, 1, 2, 3, 11, 2], STAR)
    g.nodes[0]["s"] = 1.0
    for i in range(1, 6):
        g.nodes[i]["s"] = float("nan") if i == 3 else 2.0
    for i in range(6):
        g.nodes[i]["name"] = f"n{i}"
        g.nodes[i]["one"] = 4
    with pytest.raises(TermError, match=match):
        ef.ERGM(g, formula)


def test_missing_attribute_value_none():
    g = _graph([1, 2, None, 3, 4, 5], STAR)
    with pytest.raises(TermError, match="missing"):
        ef.ERGM(g, "nodematch('x')")


def test_mutual_diff_needs_same_or_by():
    with pytest.raises(TermError, match="need same= or by="):
        ef.ERGM(_net("samplike"), "mutual(diff=TRUE)")


def test_minus_vector_drops_levels_as_in_statnet():
    # statnet writes levels=-(2:3) to drop the 2nd and 3rd levels
    g = _graph([1, 2, 3, 4, 5, 6], STAR)
    a = ef.ERGM(g, "nodefactor('x', levels=-(2:3))")
    b = ef.ERGM(g, "nodefactor('x', levels=c(-2, -3))")
    assert a.labels == b.labels and len(a.labels) == 4
    assert np.array_equal(a.statistics_vector(), b.statistics_vector())


# --------------------------------------------------------------------------
# edgecov
# --------------------------------------------------------------------------

def _cov_matrix(n, seed=0, sym=True):
    D = np.round(np.random.default_rng(seed).normal(size=(n, n)), 2)
    return (np.triu(D, 1) + np.triu(D, 1).T) if sym else D


@pytest.mark.parametrize("kind", ["dense", "list", "csr", "coo", "bool"])
@pytest.mark.parametrize("directed", [False, True])
def test_edgecov_matrix_forms(kind, directed):
    D = _cov_matrix(6, sym=not directed)
    if kind == "bool":
        D = D > 0
    obj = {"dense": D, "list": D.tolist(), "csr": sp.csr_matrix(D), "coo": sp.coo_matrix(D),
           "bool": D}[kind]
    g = _graph([1] * 6, STAR, directed=directed, dist=obj)
    s = ef.ERGM(g, "edgecov('dist')").statistics()
    assert s == {"edgecov.dist": pytest.approx(sum(float(D[i, j]) for i, j in STAR))}


def test_edgecov_edge_attribute_and_graph():
    g = _graph([1] * 6, [], directed=True)
    for k, (i, j) in enumerate(STAR):
        g.add_edge(i, j, w=k + 0.5)
    m = ef.ERGM(g, "edgecov('w')")
    assert m.statistics() == {"edgecov.w": sum(k + 0.5 for k in range(len(STAR)))}
    cm = m.compiled()
    assert cm.dyad_change_stats(0, 1)[0] == 0.5          # observed tie: its value
    assert cm.dyad_change_stats(1, 0)[0] == 0.0          # elsewhere 0
    assert cm.dyad_change_stats(3, 4)[0] == len(STAR) - 1 + 0.5
    # a networkx graph held as a network attribute, with or without an edge attribute
    h = nx.Graph()
    h.add_edge(0, 1, strength=2.0)
    h.add_edge(4, 5, strength=-1.0)
    g2 = _graph([1] * 6, STAR, directed=True, other=h)
    assert ef.ERGM(g2, "edgecov('other', 'strength')").statistics() == {
        "edgecov.strength": 2.0}
    assert ef.ERGM(g2, "edgecov('other')").statistics() == {"edgecov.other": 1.0}
    cm = ef.ERGM(g2, "edgecov('other', 'strength')").compiled()
    assert cm.dyad_change_stats(1, 0)[0] == 2.0 and cm.dyad_change_stats(5, 4)[0] == -1.0


def test_edgecov_undirected_uses_upper_triangle_and_warns():
    D = _cov_matrix(6, sym=False)
    g = _graph([1] * 6, STAR, dist=D)
    with pytest.warns(UserWarning, match="not symmetric"):
        s = ef.ERGM(g, "edgecov('dist')").statistics()
    assert s["edgecov.dist"] == pytest.approx(sum(D[min(i, j), max(i, j)] for i, j in STAR))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ef.ERGM(_graph([1] * 6, STAR, dist=_cov_matrix(6)), "edgecov('dist')")


@pytest.mark.parametrize("obj, match", [
    (np.zeros((5, 6)), "shape"),
    (np.zeros((5, 5)), r"6 x 6"),
    (sp.csr_matrix(np.zeros((7, 7))), "shape"),
    (np.array([["a"] * 6] * 6), "numeric"),
    ([["a"] * 6] * 6, "numeric"),
    (np.where(np.eye(6, k=1) > 0, np.nan, 1.0), "NaN"),
    (sp.csr_matrix(np.where(np.eye(6, k=1) > 0, np.nan, 1.0)), "NaN"),
])
def test_edgecov_bad_matrices(obj, match):
    g = _graph([1] * 6, STAR, directed=True, dist=obj)
    with pytest.raises(TermError, match=match):
        ef.ERGM(g, "edgecov('dist')")


def test_edgecov_missing_name_lists_what_exists():
    g = _graph([1] * 6, [], directed=True, dist=np.zeros((6, 6)))
    g.add_edge(0, 1, w=1.0)
    with pytest.raises(TermError, match="'nope'.*'dist'.*'w'"):
        ef.ERGM(g, "edgecov('nope')")
    g.add_edge(1, 2, w=float("nan"))
    with pytest.raises(TermError, match="NaN"):
        ef.ERGM(g, "edgecov('w')")
    g.add_edge(2, 3, w="x")
    with pytest.raises(TermError, match="numeric"):
        ef.ERGM(g, "edgecov('w')")
    with pytest.raises(TermError, match="attrname"):
        ef.ERGM(g, "edgecov('dist', 'w')")
