"""The contract every registered term keeps, checked over the whole term table
(``ergmfit.terms.registry.all_terms()``, what ``ergmfit terms`` lists): on random networks of
each kind the term accepts (undirected, directed, two-mode; with node attributes and dyadic
covariates), the change statistic of a toggle equals the difference of the full statistics
with and without the tie, whether the tie is present or not, and toggling twice restores the
state (:func:`support.change_stats.check_formula`).

A term with no required argument is called with the registry's defaults; the others with the
example arguments of ``EXAMPLES`` (usages of statnet's help pages, as in
``benchmarks/audit_statnet_usage.py``).  Every entry of the table must be covered on at least
one kind of network, or be listed in ``NOT_COVERED`` with the reason
(``test_every_registered_term_is_covered``).  The quick run checks one network per kind; more
random networks run in the slow part.
"""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError
from ergmfit.network import Network
from ergmfit.terms.registry import BOTH, DIRECTED, UNDIRECTED, all_terms
from support.change_stats import check_formula

#: example calls of the terms with required arguments (the attributes are those of
#: ``contract_network``: a levels, x numeric, b and c labels, y numeric; C a dyadic
#: covariate matrix, L a 0/1 matrix of "local" dyads)
EXAMPLES = {
    "absdiff": ["absdiff('x')", "absdiff('a', pow=2)"],
    "absdiffcat": ["absdiffcat('a')"],
    "attrcov": ["attrcov('a', matrix(c(1, 2, 3, 4, 5, 6, 7, 8, 9), 3, 3))"],
    "B": ["B(~edges + triangle, form='nonzero')"],
    "b1cov": ["b1cov('x')"],
    "b1covrange": ["b1covrange('y')"],
    "b1degrange": ["b1degrange(from=1, to=3)"],
    "b1degree": ["b1degree(0:2)", "b1degree(1:2, by='c')"],
    "b1dsp": ["b1dsp(0:2)"],
    "b1factor": ["b1factor('a')"],
    "b1factordistinct": ["b1factordistinct('b')"],
    "b1mindegree": ["b1mindegree(1:2)"],
    "b1nodematch": ["b1nodematch('c')", "b1nodematch('c', alpha=0.5, diff=TRUE)"],
    "b1star": ["b1star(2:3)"],
    "b1starmix": ["b1starmix(2, 'c')"],
    "b1twostar": ["b1twostar('a', 'b')"],
    "b2cov": ["b2cov('y')"],
    "b2covrange": ["b2covrange('x')"],
    "b2degrange": ["b2degrange(from=1, to=3)"],
    "b2degree": ["b2degree(0:2)"],
    "b2dsp": ["b2dsp(0:2)"],
    "b2factor": ["b2factor('b')"],
    "b2factordistinct": ["b2factordistinct('a')"],
    "b2mindegree": ["b2mindegree(1:2)"],
    "b2nodematch": ["b2nodematch('c')", "b2nodematch('c', beta=0.5)"],
    "b2star": ["b2star(2)"],
    "b2starmix": ["b2starmix(2, 'c')"],
    "b2twostar": ["b2twostar('a', 'b')"],
    "Curve": ["Curve(~triangle, params='t', map='rep')"],
    "cycle": ["cycle(2:4)", "cycle(3:4)"],
    "ddsp": ["ddsp(0:2)", "ddsp(1:2, type='ITP')"],
    "degrange": ["degrange(from=1, to=3)", "degrange(from=1, by='a', homophily=TRUE)"],
    "degree": ["degree(0:2)", "degree(1:2, by='a')"],
    "desp": ["desp(0:2)", "desp(1:2, type='OSP')"],
    "diff": ["diff('x')", "diff('x', pow=2, sign.action='abs')"],
    "dnsp": ["dnsp(0:2)"],
    "dsp": ["dsp(0:2)"],
    "dyadcov": ["dyadcov(C)"],
    "edgecov": ["edgecov(C)"],
    "esp": ["esp(0:2)"],
    "Exp": ["Exp(~edges + kstar(2))", "Exp(~edges + triangle)"],
    "F": ["F(~triangle + edges, ~nodematch('a'))"],
    "For": ["For(~nodematch(.), . = c('a', 'c'))"],
    "I": ["I(~edges + triangle)"],
    "idegrange": ["idegrange(from=1, to=3)"],
    "idegree": ["idegree(0:2)"],
    "istar": ["istar(2:3)"],
    "kstar": ["kstar(2:3)", "kstar(2, attr='a')"],
    "Label": ["Label(~edges + triangle, c('E', 'T'))"],
    "localtriangle": ["localtriangle(L)"],
    "Log": ["Log(~edges + triangle + isolates)"],
    "Taper": ["Taper(~edges + kstar(2) + triangle, coef=c(0.1, 0.01, 0.2), m=c(5, 10, 2))",
              "Taper(~edges + triangle)"],
    "mm": ["mm('a')", "mm('a' ~ 'c')"],
    "nodecov": ["nodecov('x')"],
    "nodecovrange": ["nodecovrange('x')"],
    "nodefactor": ["nodefactor('a')"],
    "nodefactordistinct": ["nodefactordistinct('a')"],
    "nodeicov": ["nodeicov('x')"],
    "nodeicovrange": ["nodeicovrange('x')"],
    "nodeifactor": ["nodeifactor('a')"],
    "nodeifactordistinct": ["nodeifactordistinct('a')"],
    "nodematch": ["nodematch('a')", "nodematch('a', diff=TRUE)"],
    "NodematchFilter": ["NodematchFilter(~triangle + kstar(2), 'a')",
                        "NodematchFilter(~triangle + edges, 'a')"],
    "nodemix": ["nodemix('a')"],
    "nodeocov": ["nodeocov('x')"],
    "nodeocovrange": ["nodeocovrange('x')"],
    "nodeofactor": ["nodeofactor('a')"],
    "nodeofactordistinct": ["nodeofactordistinct('a')"],
    "nsp": ["nsp(0:2)"],
    "odegrange": ["odegrange(from=1, to=3)"],
    "odegree": ["odegree(0:2)"],
    "Offset": ["Offset(~edges + triangle, c(-2, 0.5), which=1)"],
    "ostar": ["ostar(2:3)"],
    "Passthrough": ["Passthrough(~triangle)"],
    "Prod": ["Prod(list(~edges + kstar(2), 0.5 ~ triangle + isolates))",
             "Prod(list(~edges, 0.5 ~ triangle + isolates))"],
    "Proj1": ["Proj1(~transitiveweights + nodecovar(TRUE))"],
    "Proj2": ["Proj2(~sum + nonzero)"],
    "Project": ["Project(~absdiff('x'), 1)"],
    "S": ["S(~edges + triangle, ~a == a[1])"],
    "smalldiff": ["smalldiff('x', 0.5)"],
    "Sum": ["Sum(list(~edges + triangle, 2 ~ kstar(2:3)), label='s')",
            "Sum(list(~edges + triangle, 2 ~ isolates), label='s')"],
    "Symmetrize": ["Symmetrize(~edges + triangle + kstar(2), 'weak')"],
}

#: terms of the table left out, with the reason
NOT_COVERED = {
    # temporal terms read the previous wave of a NetSeries, which a single contract network
    # lacks: their change statistics are checked in tests/families/test_temporal.py
    **{name: "temporal: needs a NetSeries (tests/families/test_temporal.py)"
       for name in ("Form", "Persist", "Diss", "Cross", "Change", "memory", "delrecip",
                    "timecov")},
    "N": "needs ef.Networks (several networks); its change statistics are checked within "
         "the block-diagonal sample space in tests/families/test_multi_terms.py",
    **{name: "needs ef.Layer (a multilayer network); its change statistics are checked within "
             "the layers in tests/families/test_multi_terms.py"
       for name in ("L", "mutualL", "CMBL", "twostarL", "despL", "ddspL", "dnspL", "dgwespL",
                    "dgwdspL", "dgwnspL")},
}

KINDS = {UNDIRECTED: ("undirected", "two-mode"), DIRECTED: ("directed",),
         BOTH: ("undirected", "directed", "two-mode")}
QUICK_SEEDS = (0,)
SLOW_SEEDS = (1, 2, 3)


def contract_network(kind, seed, n=10, p=0.4):
    """A random :class:`Network` of ``kind`` ("undirected", "directed", "two-mode": 4 + 6
    nodes) with node attributes on every node (a: levels 0-2, x: numeric, b: "p"/"q",
    c: "u"/"v", y: integers 0-4) and dyadic covariates C (real) and L (0/1, symmetric)."""
    rng = np.random.default_rng(seed)
    attrs = {"a": [int(v) for v in rng.integers(3, size=n)], "x": list(rng.normal(size=n)),
             "b": [str("pq"[v]) for v in rng.integers(2, size=n)],
             "c": [str("uv"[v]) for v in rng.integers(2, size=n)],
             "y": [float(v) for v in rng.integers(5, size=n)]}
    if kind == "two-mode":
        n1 = 4
        ties = [(i, j) for i in range(n1) for j in range(n1, n) if rng.random() < p]
        return Network(n, ties, False, node_attrs=attrs, bipartite=n1,
                       graph_attrs={"C": rng.normal(size=(n1, n - n1))})
    directed = kind == "directed"
    ties = [(i, j) for i in range(n) for j in range(n)
            if i != j and (directed or i < j) and rng.random() < p]
    C = rng.normal(size=(n, n))
    L = np.triu((rng.random((n, n)) < 0.6).astype(float), 1)
    return Network(n, ties, directed, node_attrs=attrs,
                   graph_attrs={"C": C if directed else C + C.T, "L": L + L.T})


def _calls(spec):
    if spec.name in EXAMPLES:
        return EXAMPLES[spec.name]
    if any(p.required for p in spec.params):
        return []
    return [spec.name]                    # the registry's defaults


def _spec_id(spec):
    return f"{spec.name}[{spec.kinds}]"


def _accepted():
    """(spec id, call, kind) for every term call a network kind accepts; the refusals."""
    cases, refused = [], {}
    for spec in all_terms():
        for call in _calls(spec):
            for kind in KINDS[spec.kinds]:
                net = contract_network(kind, 0)
                try:
                    ef.ERGM(net, call)
                except ErgmfitError as exc:
                    refused[(_spec_id(spec), call, kind)] = str(exc)
                    continue
                cases.append((_spec_id(spec), call, kind))
    return cases, refused


CASES, REFUSED = _accepted()


def test_every_registered_term_is_covered():
    covered = {spec_id for spec_id, _, _ in CASES}
    missing = [_spec_id(s) for s in all_terms()
               if _spec_id(s) not in covered and s.name not in NOT_COVERED]
    assert not missing, ("terms with no change-statistic check (give them EXAMPLES or a "
                         f"NOT_COVERED reason): {missing}; refusals: "
                         f"{ {k: v for k, v in REFUSED.items() if k[0] in missing} }")
    assert not set(NOT_COVERED) & covered, "a NOT_COVERED term is covered: drop its entry"
    assert set(EXAMPLES) <= {s.name for s in all_terms()}, "EXAMPLES names an unknown term"


@pytest.mark.parametrize("spec_id, call, kind", CASES,
                         ids=[f"{kind}:{call}" for _, call, kind in CASES])
def test_change_statistic_is_the_difference_of_statistics(spec_id, call, kind):
    for seed in QUICK_SEEDS:
        check_formula(contract_network(kind, seed), call, seed)


@pytest.mark.slow
@pytest.mark.parametrize("spec_id, call, kind", CASES,
                         ids=[f"{kind}:{call}" for _, call, kind in CASES])
def test_change_statistic_on_more_random_networks(spec_id, call, kind):
    for seed in SLOW_SEEDS:
        dense = seed % 2 == 0
        check_formula(contract_network(kind, seed, n=12, p=0.6 if dense else 0.2), call, seed)


# -- the valued (count) terms ---------------------------------------------------------------
# The same contract for every term of the count table (``all_terms(state="count")``): on
# random count-valued networks, the change statistic of moving a dyad's value to another
# (0 included) equals the difference of the full statistics of the two networks, each
# accumulated from the empty network in the state's storage order (another path than the
# moves), and the statistics of the all-zero network are the terms' ``empty``.

#: example calls of the valued terms with required or interesting arguments
COUNT_EXAMPLES = {
    "absdiff": ["absdiff('x', form='sum')", "absdiff('a', pow=2, form='nonzero')"],
    "absdiffcat": ["absdiffcat('a', form='sum')"],
    "atleast": ["atleast(c(1, 3))"],
    # B(): the stateless dyad-independent kernel (DyadicFormKernel), several or stateful
    # (F) dyad-independent terms, and dyad-dependent terms on the kept binary network of
    # each form (BinaryViewKernel)
    "B": ["B(~nodecov('x'), form='sum')", "B(~edges + nodematch('a'), form='nonzero')",
          "B(~F(~edges, ~nodematch('a')), form='sum')",
          "B(~triangle + isolates + gwesp(0.5, fixed=TRUE), form='nonzero')",
          "B(~triangle + edges, form=~atleast(2))",
          "B(~gwesp(0.3, fixed=TRUE) + triangle, form=~ininterval(0, 3))",
          "B(~F(~triangle, ~nodematch('a')), form=~greaterthan(1))"],
    "atmost": ["atmost(2)"],
    "cyclicalweights": ["cyclicalweights", "cyclicalweights('geomean', 'sum', 'geomean')",
                        "cyclicalweights('min', 'sum', 'geomean')"],
    "edgecov": ["edgecov('C', form='sum')", "edgecov('C', form='nonzero')"],
    "equalto": ["equalto(2)", "equalto(1, tolerance=1)"],
    "greaterthan": ["greaterthan(1)"],
    "ininterval": ["ininterval(1, 3)", "ininterval(0, 2, open=c(FALSE, TRUE))"],
    "mm": ["mm('b', form='sum')"],
    "mutual": ["mutual(form='min')", "mutual(form='nabsdiff')", "mutual(form='product')",
               "mutual(form='geometric')", "mutual(form='threshold', threshold=1)"],
    "nodecov": ["nodecov('x', form='sum')", "nodecov('y', form='nonzero')"],
    "nodecovar": ["nodecovar(center=TRUE)", "nodecovar(FALSE, 'sqrt')"],
    "nodeicovar": ["nodeicovar(center=TRUE)", "nodeicovar(TRUE, 'sqrt')"],
    "nodeocovar": ["nodeocovar(center=FALSE)", "nodeocovar(TRUE, 'sqrt')"],
    "nodesqrtcovar": ["nodesqrtcovar(TRUE)"],
    "nodeisqrtcovar": ["nodeisqrtcovar(FALSE)"],
    "nodeosqrtcovar": ["nodeosqrtcovar(TRUE)"],
    "nodeicov": ["nodeicov('x', form='sum')"],
    "nodeocov": ["nodeocov('x', form='nonzero')"],
    "nodefactor": ["nodefactor('a', form='sum')", "nodefactor('b', form='nonzero')"],
    "nodeifactor": ["nodeifactor('a', form='sum')"],
    "nodeofactor": ["nodeofactor('a', form='nonzero')"],
    "nodematch": ["nodematch('a', form='sum')", "nodematch('a', diff=TRUE, form='nonzero')"],
    "nodemix": ["nodemix('b', form='sum')"],
    "sum": ["sum", "sum(pow=0.5)", "sum(pow=2)"],
    "CMB": ["CMB(5)", "CMB(5, coupled=FALSE)"],
    "transitiveweights": ["transitiveweights", "transitiveweights('geomean', 'sum', 'geomean')",
                          "transitiveweights('min', 'sum', 'min')",
                          "transitiveweights('geomean', 'max', 'min')"],
}
#: the reference of a term's count cases where Poisson does not fit it (the cases move
#: values up to 5)
COUNT_REFERENCES = {"CMB": "Binomial(5)"}
COUNT_KINDS = {UNDIRECTED: ("undirected",), DIRECTED: ("directed",),
               BOTH: ("undirected", "directed")}


def count_network(kind, seed, n=9, p=0.4, top=4):
    """A networkx graph of ``kind`` with integer edge values ``w`` in 1..top on a fraction p
    of the dyads and ``contract_network``'s node attributes and covariate C."""
    import networkx as nx
    base = contract_network(kind, seed, n=n)
    rng = np.random.default_rng(seed + 100)
    g = nx.DiGraph() if kind == "directed" else nx.Graph()
    for k in range(n):
        g.add_node(k, **{a: v[k] for a, v in base.node_attrs.items()})
    g.graph["C"] = base.graph_attrs["C"]
    for i in range(n):
        for j in range(n):
            if i != j and (kind == "directed" or i < j) and rng.random() < p:
                g.add_edge(i, j, w=int(rng.integers(1, top + 1)))
    return g


def _count_calls(spec):
    if spec.name in COUNT_EXAMPLES:
        return COUNT_EXAMPLES[spec.name]
    if any(p.required for p in spec.params):
        return []
    return [spec.name]


def _count_cases():
    cases = []
    for spec in all_terms(state="count"):
        for call in _count_calls(spec):
            for kind in COUNT_KINDS[spec.kinds]:
                cases.append((_spec_id(spec), call, kind))
    return cases


COUNT_CASES = _count_cases()


def check_count_formula(g, formula, seed, moves=8, top=5):
    m = ef.ERGM(g, formula, response="w",
                reference=COUNT_REFERENCES.get(formula.split("(")[0], "Poisson"))
    cm = m.compiled()
    rng = np.random.default_rng(seed)

    def stats():
        d, y = cm.state.nonzero()
        return m.statistics_vector(d, y)

    zero = m.statistics_vector(np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert np.allclose(zero, np.concatenate([t.on_empty() for t in m.terms]))
    assert np.allclose(stats(), m.statistics_vector(), rtol=1e-10, atol=1e-9)
    n_vars = g.number_of_nodes() * (g.number_of_nodes() - 1) // (1 if g.is_directed() else 2)
    for _ in range(moves):
        v = int(rng.integers(n_vars))
        y = int(rng.integers(0, top + 1)) if rng.random() < 0.7 else 0
        before = stats()
        change = cm.change_stats(v, y)
        cm.set_value(v, y)
        after = stats()
        assert np.allclose(change, after - before, rtol=1e-10, atol=1e-9), \
            (formula, cm.dyad_of(v), y, change, after - before)


def test_every_count_term_is_covered():
    covered = {spec_id for spec_id, _, _ in COUNT_CASES}
    missing = [_spec_id(s) for s in all_terms(state="count") if _spec_id(s) not in covered]
    assert not missing, f"count terms with no change-statistic check: {missing}"
    assert set(COUNT_EXAMPLES) <= {s.name for s in all_terms(state="count")}


@pytest.mark.parametrize("spec_id, call, kind", COUNT_CASES,
                         ids=[f"count:{kind}:{call}" for _, call, kind in COUNT_CASES])
def test_count_change_statistic_is_the_difference_of_statistics(spec_id, call, kind):
    check_count_formula(count_network(kind, 0), call, 0)


@pytest.mark.slow
@pytest.mark.parametrize("spec_id, call, kind", COUNT_CASES,
                         ids=[f"count:{kind}:{call}" for _, call, kind in COUNT_CASES])
def test_count_change_statistic_on_more_random_networks(spec_id, call, kind):
    for seed in SLOW_SEEDS:
        dense = seed % 2 == 0
        check_count_formula(count_network(kind, seed, n=11, p=0.7 if dense else 0.2), call,
                            seed, moves=20)
