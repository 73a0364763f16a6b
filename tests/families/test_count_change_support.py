"""The whole-support change statistics of a count model (``CountModel.change_support``: every
value of a dyad at once, what the count MPLE asks for) equal one ``change`` per value exactly
(bit for bit: the MPLE's design merges equal rows), and equal the differences of the
definitions written in numpy (``test_count_terms.weights``), for every rule combination of
``transitiveweights`` / ``cyclicalweights``, directed and undirected, on networks with and
without the dense value matrix, with and without level two-path counts."""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from families.test_count_terms import weights
from support.valued_networks import random_count_graph as count_graph

RULES = list(itertools.product(("min", "geomean"), ("max", "sum"), ("min", "geomean")))
WEIGHT_TERMS = " + ".join(f"{name}('{tp}', '{cb}', '{af}')" for tp, cb, af in RULES
                          for name in ("transitiveweights", "cyclicalweights"))


def sparse_count_graph(n, directed, seed, nonzero, top):
    """``nonzero`` random dyads on n nodes, clustered on the first 30 nodes so that two-paths
    and triangles occur."""
    rng = np.random.default_rng(seed)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    while g.number_of_edges() < nonzero:
        i, j = (int(x) for x in rng.integers(0, 30 if rng.random() < 0.7 else n, size=2))
        if i != j:
            g.add_edge(i, j, w=int(rng.integers(1, top + 1)))
    return g


def check_support_equals_changes(cm, variables, lo, hi):
    for v in variables:
        v = int(v)
        whole = cm.change_support_stats(v, lo, hi - lo + 1)
        one_by_one = np.array([cm.change_stats(v, y) for y in range(lo, hi + 1)])
        assert np.array_equal(whole, one_by_one), (cm.dyad_of(v), whole - one_by_one)


def some_variables(cm, rng, count):
    nonzero = [cm.var_of(int(i), int(j)) for i, j in cm.state.nonzero()[0][:count]]
    return np.concatenate([nonzero, rng.integers(0, cm.n_vars, size=count)]).astype(int)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("reference", ["Poisson", "Binomial(4)", "Geometric"])
def test_small_dense_networks(directed, reference):
    # <= 1024 nodes: the dense matrix; Binomial(4) also keeps level two-path counts
    rng = np.random.default_rng(3)
    for seed, density in ((1, 0.3), (2, 0.7)):
        g = count_graph(9, directed, seed, density, 4)
        covar = "nodeocovar" if directed else "nodecovar"
        m = ef.ERGM(g, WEIGHT_TERMS + f" + sum + nonzero + {covar}(center=TRUE)",
                    response="w", reference=reference)
        cm = m.compiled()
        assert (cm.state.levels > 0) == (reference == "Binomial(4)")
        check_support_equals_changes(cm, some_variables(cm, rng, 15), 0, 4)
        # from every value of the dyad too (the MPLE asks from the observed value)
        v = int(cm.var_of(*(int(x) for x in cm.state.nonzero()[0][0])))
        for y in range(5):
            cm.set_value(v, y)
            check_support_equals_changes(cm, [v], 0, 4)


@pytest.mark.parametrize("directed", [True, False])
def test_support_equals_the_definitions(directed):
    g = count_graph(6, directed, 5, 0.6, 3)
    m = ef.ERGM(g, WEIGHT_TERMS, response="w", reference="Poisson")
    cm = m.compiled()
    rng = np.random.default_rng(5)
    for v in some_variables(cm, rng, 4):
        v = int(v)
        i, j = cm.dyad_of(v)
        whole = cm.change_support_stats(v, 0, 5)
        Y = cm.state.to_dense()
        want = []
        for y in range(5):
            Z = Y.copy()
            Z[i, j] = y
            if not directed:
                Z[j, i] = y
            want.append([weights(Z, directed, tp, cb, af, cyc) - weights(Y, directed, tp, cb, af,
                                                                          cyc)
                         for tp, cb, af in RULES for cyc in (False, True)])
        assert np.allclose(whole, np.array(want), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("directed", [True, False])
def test_large_sparse_networks_without_the_dense_matrix(directed):
    # > 1024 nodes: no dense matrix, so the default rules take the general path as well
    g = sparse_count_graph(1100, directed, 7, 400, 5)
    m = ef.ERGM(g, WEIGHT_TERMS + " + sum", response="w", reference="Poisson")
    cm = m.compiled()
    assert cm.state.to_dense().shape == (1100, 1100)
    rng = np.random.default_rng(7)
    near = [cm.var_of(i, j) for i in range(30) for j in range(30)
            if i != j and (directed or i < j)]
    variables = np.concatenate([some_variables(cm, rng, 40), rng.choice(near, 60)])
    check_support_equals_changes(cm, variables, 0, 12)
    check_support_equals_changes(cm, variables[:20], 3, 7)       # a window of the support
