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
    with pytest.raises(TermError, match=r"'sub' is not supported.*lambda \\\(x\)"):
        _stats("flomarriage", r"Label(~edges, \(x) sub('e', 'E', x))")
    with pytest.raises(ErgmfitError, match=r"unexpected '\\\\'"):
        _stats("flomarriage", r"Label(~edges, \ x)")
