"""Property tests of the terms of issue #19's last part (ergmfit/terms/composed.py, the
directed cycle kernel, typed transitive/cyclical ties, Prod, tripercent): the change
statistic of a dyad equals the difference of the full statistics with and without the tie,
whether or not the dyad is present, and toggling twice restores the statistics (the checks
of support.change_stats.check_formula); plus independent counts for the new kernels' values."""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from support.change_stats import check_formula, random_network

UNDIRECTED = ["tripercent", "tripercent('a')", "tripercent('a', diff=TRUE)",
              "tripercent('a', diff=TRUE, levels=c(0, 2))", "Prod(list(~edges, ~triangle), label='p')",
              "Prod(list(~edges + kstar(2), 0.5 ~ triangle + isolates))",
              "Prod('geomean' ~ edges + kstar(2), label='g')",
              "B(~edges + nodematch('a'), form='sum')", "B(~kstar(2) + triangle, form='nonzero')",
              "B(~triangle + isolates, form=~atleast(2))", "B(~edges, form=~equalto(1))"]
DIRECTED = ["cycle(2:5)", "cycle(c(3, 5))", "cycle(3:4, semi=TRUE)", "simmelianties",
            "transitiveties(attr='a')", "cyclicalties(attr='a')",
            "cyclicalties(attr='a', levels=c(1, 2))", "Prod(list(~mutual, ~ttriple), label='m')"]
BIPARTITE = ["b2nodematch('c', alpha=0.5, beta=0.25)", "b1nodematch('c', alpha=0.3, beta=0.5)"]


@pytest.mark.parametrize("formula", UNDIRECTED)
def test_undirected_compositions(formula):
    for seed in range(3):
        check_formula(random_network(seed, "undirected", p=0.45), formula, seed)


@pytest.mark.parametrize("formula", DIRECTED)
def test_directed_compositions(formula):
    for seed in range(3):
        check_formula(random_network(seed, "directed", p=0.4), formula, seed)


@pytest.mark.parametrize("formula", BIPARTITE)
def test_bipartite_alpha_and_beta(formula):
    for seed in range(3):
        check_formula(random_network(seed, "bipartite"), formula, seed)


def _digraph(net):
    g = nx.DiGraph()
    g.add_nodes_from(range(net.n))
    g.add_edges_from(map(tuple, net.ties.tolist()))
    return g


def test_directed_cycles_equal_networkx_simple_cycles():
    for seed in range(4):
        net = random_network(seed, "directed", n=10, p=0.3)
        got = ef.ERGM(net, "cycle(2:6)").statistics()
        lengths = [len(c) for c in nx.simple_cycles(_digraph(net), length_bound=6)]
        assert [got[f"cycle{k}"] for k in range(2, 7)] == [lengths.count(k) for k in range(2, 7)]


def test_semicycles_are_cycles_without_directions():
    net = random_network(5, "directed", n=10, p=0.3)
    got = ef.ERGM(net, "cycle(3:5, semi=TRUE)").statistics()
    und = _digraph(net).to_undirected()
    lengths = [len(c) for c in nx.simple_cycles(und, length_bound=5)]
    assert [got[f"semicycle{k}"] for k in range(3, 6)] == [lengths.count(k) for k in range(3, 6)]


def test_tripercent_and_simmelianties_by_brute_force():
    net = random_network(1, "undirected", n=12, p=0.4)
    A = np.zeros((net.n, net.n), int)
    for i, j in net.ties:
        A[i, j] = A[j, i] = 1
    T = np.trace(A @ A @ A) / 6
    K2 = (A.sum(1) * (A.sum(1) - 1) / 2).sum()
    want = 100 * float(np.float32(T / (K2 - 2 * T)))        # statnet: single precision
    assert ef.ERGM(net, "tripercent").statistics()["tripercent"] == want
    d = random_network(2, "directed", n=12, p=0.5)
    D = np.zeros((d.n, d.n), int)
    for i, j in d.ties:
        D[i, j] = 1
    M = D * D.T
    simm = sum(1 for i, j in itertools.permutations(range(d.n), 2)
               if D[i, j] and M[i, j] and (M[i] * M[j]).sum() > 0)
    assert ef.ERGM(d, "simmelianties").statistics()["simmelianties"] == simm


def test_prod_is_the_exact_product():
    net = ef.datasets.load_network("faux.mesa.high")
    got = ef.ERGM(net, 'Prod(list(~edges, ~triangle), label="et")').statistics()
    assert got == {"Exp~Sum~et": 203.0 * 62.0}


def test_exp_overflow_is_inf_as_statnet_prints():
    model = ef.ERGM("faux.dixon.high", "Exp(~edges + triangle)")
    assert model.statistics() == {"Exp~edges": np.inf, "Exp~triangle": np.inf}
    from ergmfit.exceptions import TermError
    with pytest.raises(TermError, match="overflow .* cannot be fitted"):    # not a NaN fit
        model.statistics_vector()


def test_b_operator_on_binary_networks():
    # every tie of a binary network has value 1: B() gives the inner statistics (labels
    # B(<form>)~<label>), or their empty-network values when the form drops value 1
    m = ef.ERGM("faux.mesa.high", 'B(~edges + nodematch("Grade"), form="sum") + '
                                  'B(~triangle, form="nonzero") + '
                                  'B(~edges + isolates, form=~atleast(2))')
    assert m.statistics() == {"B(sum)~edges": 203.0, "B(sum)~nodematch.Grade": 163.0,
                              "B(nonzero)~triangle": 62.0, "B(atleast(2))~edges": 0.0,
                              "B(atleast(2))~isolates": 205.0}


@pytest.mark.parametrize("formula, msg", [
    ('B(~triangle, form="sum")', "dyad-independent"),
    ("B(~edges, form=~atmost(2))", "binary networks only"),
    ("B(~edges, form=~atleast(0))", "0-valued dyads"),
    ('B(~edges, form="max")', "form must be"),
])
def test_b_operator_errors(formula, msg):
    from ergmfit.exceptions import ErgmfitError
    with pytest.raises(ErgmfitError, match=msg):
        ef.ERGM("faux.mesa.high", formula)


def test_new_terms_are_listed_and_suggested():
    from ergmfit.exceptions import ErgmfitError
    from ergmfit.terms import all_terms
    names = {s.name for s in all_terms()}
    assert {"tripercent", "simmelianties", "Prod", "B"} <= names
    assert {s.kinds for s in all_terms() if s.name == "cycle"} == {"directed", "undirected"}
    for typo, want in (("tripercnt", "tripercent"), ("simmeliantie", "simmelianties"),
                       ("Prd", "Prod")):
        with pytest.raises(ErgmfitError, match=f"Did you mean '{want}'"):
            ef.ERGM("samplike", typo)


@pytest.mark.parametrize("kind, formula", [
    ("undirected", "edges + tripercent('a', diff=TRUE) + Prod(list(~edges, ~triangle), label='p')"),
    ("directed", "edges + simmelianties + cycle(2:4) + cycle(3:4, semi=TRUE) "
                 "+ transitiveties(attr='a')"),
])
def test_composed_state_follows_the_sampler(kind, formula):
    # the sampler's running statistics (observed + accepted changes) equal the statistics
    # recomputed from the simulated networks: the derived networks and running totals
    # inside the compositions follow every toggle
    net = random_network(7, kind, n=12, p=0.3)
    model = ef.ERGM(net, formula)
    theta = np.r_[-1.0, np.full(len(model.labels) - 1, 0.05)]
    kw = dict(n=4, burnin=400, interval=150, random_state=3)
    stats = model.simulate(theta, output="stats", **kw)
    nets = model.simulate(theta, output="networks", **kw)
    for row, g in zip(stats, nets):
        np.testing.assert_allclose(row, model.statistics_vector(g.ties), rtol=1e-9, atol=1e-9)


# -- neighbour diversity (statnet 4.6+: nodecovrange, nodefactordistinct and their forms) --

DIVERSITY = {
    "undirected": ["nodecovrange('x')", "nodefactordistinct('a')",
                   "nodefactordistinct('a', levels=c(0, 2))"],
    "directed": ["nodecovrange('x')", "nodeocovrange('x')", "nodeicovrange('x')",
                 "nodefactordistinct('a')", "nodeofactordistinct('a')",
                 "nodeifactordistinct('a', levels=c(1, 2))"],
    "bipartite": ["b1covrange('y')", "b2covrange('x')", "b1factordistinct('b')",
                  "b2factordistinct('a')"],
}


@pytest.mark.parametrize("kind, formula", [(k, f) for k, fs in DIVERSITY.items() for f in fs])
def test_diversity_kernels(kind, formula):
    for seed in range(3):
        check_formula(random_network(seed, kind), formula, seed)


def _neighbours(net, v, sense):
    out = {int(j) for i, j in net.ties if i == v}
    inn = {int(i) for i, j in net.ties if j == v}
    if not net.directed:
        return out | inn
    return {"out": out, "in": inn, "both": out | inn}[sense]


@pytest.mark.parametrize("kind", ["undirected", "directed", "bipartite"])
def test_diversity_by_brute_force(kind):
    net = random_network(4, kind)
    a = net.node_attrs
    forms = {"undirected": [("nodecovrange('x')", "x", "both", None, "range"),
                            ("nodefactordistinct('a')", "a", "both", None, "distinct")],
             "directed": [("nodecovrange('x')", "x", "out+in", None, "range"),
                          ("nodeocovrange('x')", "x", "out", None, "range"),
                          ("nodeicovrange('x')", "x", "in", None, "range"),
                          ("nodefactordistinct('a')", "a", "both", None, "distinct"),
                          ("nodeofactordistinct('a')", "a", "out", None, "distinct"),
                          ("nodeifactordistinct('a')", "a", "in", None, "distinct")],
             "bipartite": [("b1covrange('y')", "y", "both", range(5), "range"),
                           ("b2covrange('x')", "x", "both", range(5, 11), "range"),
                           ("b1factordistinct('b')", "b", "both", range(5), "distinct"),
                           ("b2factordistinct('a')", "a", "both", range(5, 11), "distinct")]}
    for formula, attr, sense, nodes, what in forms[kind]:
        want = 0.0
        for v in (nodes if nodes is not None else range(net.n)):
            if sense == "out+in":       # statnet: the out-range plus the in-range
                for part in ("out", "in"):
                    vals = [a[attr][u] for u in _neighbours(net, v, part)]
                    want += max(vals) - min(vals) if vals else 0.0
                continue
            vals = [a[attr][u] for u in _neighbours(net, v, sense)]
            if what == "range":
                want += max(vals) - min(vals) if vals else 0.0
            else:
                want += len(set(vals))
        got = ef.ERGM(net, formula).statistics()
        assert list(got.values()) == pytest.approx([want], abs=1e-12), formula


@pytest.mark.parametrize("kind", ["undirected", "directed"])
def test_attrcov_by_brute_force(kind):
    net = random_network(6, kind)
    M = np.arange(1.0, 10.0).reshape(3, 3)
    text = f"attrcov('a', matrix(c({', '.join(str(v) for v in M.T.ravel())}), 3, 3))"
    check_formula(net, text, 6)
    a = net.node_attrs["a"]
    want = sum(M[a[min(i, j) if not net.directed else i], a[max(i, j) if not net.directed else j]]
               for i, j in net.ties)
    assert ef.ERGM(net, text).statistics() == {"attrcov.a": want}
    from ergmfit.exceptions import ErgmfitError
    with pytest.raises(ErgmfitError, match="must be 3 x 3"):
        ef.ERGM(net, "attrcov('a', matrix(c(1, 2, 3, 4), 2, 2))")


@pytest.mark.parametrize("form, msg", [
    ("~ininterval(3, 1)", r"the interval \(3, 1\) is empty"),
    ('~ininterval(0, 2, open="[]")', "counts 0-valued dyads"),      # was read as "()"
    ('~ininterval(0, 2, open="<>")', "open must be"),
])
def test_b_operator_interval_forms(form, msg):
    from ergmfit.exceptions import ErgmfitError
    with pytest.raises(ErgmfitError, match=msg):
        ef.ERGM("faux.mesa.high", f"B(~edges, form={form})")
    assert ef.ERGM("faux.mesa.high", 'B(~edges, form=~ininterval(0, 2, open="(]"))'
                   ).statistics() == {'B(ininterval(0,2,open="(]"))~edges': 203.0}
