"""Property tests of the kernels added for statnet's long tail of terms (issue #19):
degree functions (``_degfun.pxi``), two-mode terms (``_bipartite``), the other new families and
the operators.

For random directed, undirected and two-mode graphs with attributes: the change statistic
of a dyad equals the difference of the full statistics with and without the tie (each full
statistic accumulated from the empty graph in a shuffled tie order), whether or not the
dyad is present; toggling twice restores the statistics.
"""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.network import Network
from support.change_stats import check_formula, random_network

UNDIRECTED = [
    "degrange(from=c(0, 2), to=c(2, Inf))", "degrange(from=1, to=3, by='a')",
    "degrange(from=1, by='a', homophily=TRUE)", "concurrent", "concurrent(by='a')",
    "concurrentties(by='a')", "degree1.5", "degree(0:2, by='a')",
    "degree(1:2, by='a', homophily=TRUE)", "kstar(2:3, attr='a')",
    "gwdegree(0.5, fixed=TRUE, attr='a')",
    "F(~triangle + degree(0:2) + isolates, ~nodematch('a'))",
    "F(~kstar(2) + gwesp(0.5, fixed=TRUE), ~!nodematch('a'))", "F(~edges + triangle, ~absdiff('x') > 0.5)",
    "S(~edges + triangle + isolates + degree(0:1), ~a == a[1])", "S(~kstar(2), ~x > median(x))",
    "NodematchFilter(~triangle + gwdsp(0.3, fixed=TRUE), 'a')",
    "Sum(list(~edges + triangle, 2 ~ kstar(2:3)), label='s')", "Sum('mean' ~ nodematch('a', diff=TRUE), label='m')",
    "Label(~edges + triangle, c('E', 'T'))", "Offset(~edges + triangle, c(-2, 0.5), which=1)",
    "Passthrough(~triangle)", "For(~nodematch(.), . = c('a', 'x'))",
    "nodecov('x'):nodematch('a')", "edges*nodefactor('a')",
    "F(~S(~triangle + edges, ~a == a[2]), ~nodematch('a'))",
    "triangle(attr='a')", "triangle(attr='a', diff=TRUE)", "density + meandeg",
    "smalldiff('x', 0.5)", "hamming", "diff('x', pow=2, sign.action='abs')",
    "triadcensus(0:3)", "balance", "opentriad", "mm('a')", "mm('a' ~ 'x')",
    "Log(~edges + triangle + isolates)", "Exp(~edges + kstar(2))", "degcrossprod", "degcor",
    "Log(~F(~triangle, ~nodematch('a')), log0=-3)", "threetrail", "isolatededges",
    "transitiveties", "transitiveties(attr='a')",
]
DIRECTED = [
    "odegrange(from=1, to=3, by='a')", "idegrange(from=2, by='a', homophily=TRUE)",
    "idegree1.5", "odegree1.5", "idegree(0:2, by='a')", "odegree(1:2, by='a', homophily=TRUE)",
    "istar(2, attr='a')", "ostar(2:3, attr='a')", "gwidegree(0.5, fixed=TRUE, attr='a')",
    "Symmetrize(~edges + triangle + kstar(2), 'weak')", "Symmetrize(~triangle + degree(1), 'strong')",
    "Symmetrize(~edges + kstar(2), 'upper')", "Symmetrize(~gwesp(0.5, fixed=TRUE), 'lower')",
    "F(~mutual + ttriple + idegree(1), ~!nodematch('a'))", "S(~edges + ctriple, ~a != a[1])",
    "Symmetrize(~F(~triangle, ~nodematch('a')), 'weak')",
    "triangle(attr='a', diff=TRUE)", "ttriple(attr='a')", "ctriple(attr='a', diff=TRUE)",
    "mutual(same='a')", "mutual(same='a', diff=TRUE)", "mutual(by='a')", "asymmetric",
    "asymmetric('a', diff=TRUE)", "diff('x')", "diff('x', dir='h-t')", "hamming",
    "triadcensus(0:15)", "balance + simmelian + nearsimmelian", "intransitive",
    "mm('a')", "mm('a' ~ 'x')", "Log(~mutual + ttriple)", "threetrail", "threepath(keep=c(2, 4))",
    "dyadcov(C)",
]
BIPARTITE = [
    "b1degree(0:3)", "b2degree(1:2, by='b')", "b1star(2:3)", "b2star(2, attr='c')",
    "b1factor('a', levels=TRUE)", "b2factor('b')", "b1cov('x')", "b2cov('y')",
    "b1nodematch('a')", "b1nodematch('a', diff=TRUE)", "b1nodematch('c', alpha=0.5)",
    "b2nodematch('c', beta=0.5)", "b1nodematch('c', byb2attr='b')", "b2nodematch('b', diff=TRUE)",
    "gwb1degree(0.7, fixed=TRUE)", "gwb2degree(0.5, fixed=TRUE, attr='b')",
    "gwb1degree(fixed=FALSE, cutoff=4)", "b1concurrent(by='a')", "b2concurrent",
    "b1twostar('a', 'b')", "b2twostar('a', 'b')", "b1starmix(2, 'c')",
    "b2starmix(2, 'c', diff=FALSE)", "gwb1dsp(0.5, fixed=TRUE)", "gwb2dsp(fixed=FALSE, cutoff=3)",
    "b1dsp(0:2)", "b2dsp(1:3)", "b1degrange(from=1, to=3, by='a')", "b2mindegree(1:2)",
    "b1sociality", "b2sociality(nodes=1:2)", "nodemix('c')", "degree(0:2)", "kstar(2)",
]


@pytest.mark.parametrize("formula", UNDIRECTED)
def test_undirected_kernels(formula):
    for seed in range(3):
        check_formula(random_network(seed, "undirected"), formula, seed)


def test_isolated_edges_on_sparse_graphs():
    for seed in range(6):
        check_formula(random_network(seed, "sparse"), "isolatededges + threetrail", seed)


@pytest.mark.parametrize("formula", DIRECTED)
def test_directed_kernels(formula):
    for seed in range(3):
        check_formula(random_network(seed, "directed"), formula, seed)


@pytest.mark.parametrize("formula", BIPARTITE)
def test_bipartite_kernels(formula):
    for seed in range(3):
        check_formula(random_network(seed, "bipartite"), formula, seed)


def test_bipartite_reference_counts():
    # b1dsp and b1nodematch from the biadjacency matrix, independently of the kernels
    net = random_network(5, "bipartite", n=14, p=0.5)
    n1 = net.bipartite
    B = np.zeros((n1, net.n - n1), dtype=int)
    for i, j in net.ties:
        B[i, j - n1] = 1
    sp = B @ B.T
    iu = np.triu_indices(n1, 1)
    stats = ef.ERGM(net, "b1dsp(0:3) + b1nodematch('a') + b1star(2) + b2star(2)").statistics()
    for d in range(4):
        assert stats[f"b1dsp{d}"] == np.sum(sp[iu] == d)
    a = np.array(net.node_attrs["a"][:n1])
    same = (a[:, None] == a[None, :])[iu]
    assert stats["b1nodematch.a"] == np.sum(sp[iu] * same)
    alpha = ef.ERGM(net, "b1nodematch('a', alpha=0.5)").statistics()["b1nodematch.a"]
    assert np.isclose(alpha, np.sum(np.sqrt(sp[iu]) * same))
    assert stats["b1star2"] == sum(int(d) * (int(d) - 1) // 2 for d in B.sum(axis=1))
    assert stats["b2star2"] == sum(int(d) * (int(d) - 1) // 2 for d in B.sum(axis=0))


def test_two_mode_network_checks():
    with pytest.raises(ef.exceptions.NetworkError, match="same mode"):
        Network(4, [(0, 1)], False, bipartite=2)
    with pytest.raises(ef.exceptions.TermError, match="two-mode"):
        ef.ERGM(random_network(0, "undirected"), "b1degree(1)")
    import networkx as nx
    g = nx.davis_southern_women_graph()
    net = ef.network.as_network(g)
    assert net.bipartite == 18 and net.n_dyads == 18 * 14
    assert ef.ERGM(net, "edges + b1star(2)").statistics() == \
        ef.ERGM("davis", "edges + b1star(2)").statistics()


def test_operator_state_follows_the_sampler():
    # the sampler's running statistics (observed + accepted changes) equal the statistics
    # recomputed from the simulated graphs: the derived networks follow every toggle
    net = random_network(3, "directed", n=12)
    model = ef.ERGM(net, "edges + Symmetrize(~triangle, 'weak') + F(~mutual, ~nodematch('a'))"
                         " + S(~edges, ~a == a[1]) + Log(~ttriple)")
    theta = [-1.0, 0.2, 0.5, 0.3, 0.1]
    stats = model.simulate(theta, n=4, burnin=500, interval=200, output="stats", random_state=1)
    nets = model.simulate(theta, n=4, burnin=500, interval=200, output="networks",
                          random_state=1)
    for row, g in zip(stats, nets):
        np.testing.assert_allclose(row, model.statistics_vector(g.ties), atol=1e-9)


def test_localtriangle_is_triangles_among_local_dyads():
    net = random_network(4, "undirected", n=12, p=0.5)
    rng = np.random.default_rng(0)
    L = np.triu((rng.random((12, 12)) < 0.6).astype(float), 1)
    L = L + L.T
    local = Network(net.n, net.ties, False, node_attrs=net.node_attrs, graph_attrs={"L": L})
    A = np.zeros((12, 12))
    for i, j in net.ties:
        A[i, j] = A[j, i] = 1
    B = A * L
    want = np.trace(B @ B @ B) / 6
    assert ef.ERGM(local, "localtriangle(L)").statistics() == {"localtriangle.L": want}
    check_formula(local, "localtriangle(L)", 1)
