"""The constraints added in session 3 (#18): degreedist, b1degrees / b2degrees on
two-mode networks, bd(attribs=): each proposal is exact (the simulated frequency
of every network of an enumerated 4-6 node space matches its ERGM probability,
chi-square) and never leaves the space."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import FormulaError, NetworkError
from ergmfit.network import Network

from support.constrained_spaces import check_exact, space_graphs


def _two_mode():
    # 3 + 3 nodes, ties between the modes only
    ties = np.array([[0, 3], [0, 4], [1, 4], [2, 5], [1, 5]])
    return Network(6, ties, False, node_attrs={"g": ["a", "b", "a", "b", "a", "b"]},
                   bipartite=3)


def _graph5():
    g = nx.Graph()
    g.add_nodes_from(range(5))
    g.add_edges_from([(0, 1), (1, 2), (2, 3), (3, 4), (0, 2)])
    for i in g:
        g.nodes[i]["s"] = "m" if i in (0, 3) else "f"
    return g


def _digraph4():
    dg = nx.DiGraph()
    dg.add_nodes_from(range(4))
    dg.add_edges_from([(0, 1), (1, 2), (2, 0), (2, 3)])
    for i in dg:
        dg.nodes[i]["s"] = "m" if i < 2 else "f"
    return dg


def _attribs5():
    # two classes of alters; node 4 in both, node 1 in none
    return np.array([[1, 0], [0, 0], [1, 0], [0, 1], [1, 1]], dtype=bool)


def _two_triangles():
    g = nx.Graph()
    g.add_edges_from([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 3), (1, 4)])
    return g


CASES = [
    (_graph5(), "edges + triangle", [0.0, 0.6], "~ degreedist"),
    (_graph5(), "kstar(2) + triangle", [0.3, 0.5], "~ degreedist + bd(maxout=3)"),
    (_two_mode(), "b2star(2) + edges", [0.5, -0.2], "~ b1degrees"),
    (_two_mode(), "b1star(2) + edges", [0.5, -0.2], "~ b2degrees"),
    (_two_mode(), "b1star(2) + b2star(2)", [0.4, 0.3], "~ b1degrees + b2degrees"),
    (_graph5(), "edges + triangle", [-0.3, 0.5], ("~ bd(attribs=A, maxout=M)",
                                                 {"A": _attribs5(),
                                                  "M": [[2, 1], [2, 1], [1, 2], [2, 1], [1, 1]]})),
    (_graph5(), "edges + triangle", [0.2, 0.3], "~ bd(attribs='s', maxout=2, minout=0)"),
    (_digraph4(), "edges + mutual", [-0.2, 0.7], ("~ bd(attribs=A, maxout=2, maxin=1)",
                                                 {"A": np.array([[1], [0], [1], [1]])})),
]

# The same with delayed acceptance forced on (by default it is used on sparse networks of
# 50 nodes or more only): strongly interacting toggles, where its second stage matters
# (without the reverse move's first-stage term the first case fails, p ~ 1e-130).
DELAYED = [
    (_two_triangles(), "kstar(2) + triangle", [0.5, -1.5], "~ edges"),
    (nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 1)]), "mutual + ttriple", [0.6, 0.3],
     "~ degrees"),
    (_graph5(), "edges + triangle", [0.0, 0.6], "~ degreedist"),
    (_two_mode(), "b2star(2) + edges", [0.5, -0.2], "~ b1degrees"),
    (_graph5(), "edges + triangle", [-0.3, 0.5], ("~ bd(attribs=A, maxout=M) + edges",
                                                 {"A": _attribs5(),
                                                  "M": [[2, 1], [2, 1], [1, 2], [2, 1], [1, 1]]})),
]


@pytest.mark.parametrize("case", [("plain", k) for k in range(len(CASES))]
                         + [("delayed", k) for k in range(len(DELAYED))])
def test_new_constrained_proposals_are_exact(case):
    kind, k = case
    g, formula, theta, cons = (CASES if kind == "plain" else DELAYED)[k]
    m = ef.ERGM(g, formula, constraints=cons)
    graphs = space_graphs(m)
    assert len(graphs) >= 3
    sampler, cm = m.sampler(theta, random_state=k + 11)
    assert not sampler.proposal.delayed                 # small networks: plain by default
    sampler.proposal.delayed = kind == "delayed"
    counts = check_exact(m, graphs, theta, sampler, cm, 5000, 40 if kind == "plain" else 100)
    assert (counts > 0).sum() > 1                 # the chain moved


def test_degreedist_changes_degree_sequence_but_not_distribution():
    m = ef.ERGM(ef.datasets.load("faux.mesa.high"), "edges + gwesp(0.25, fixed=TRUE)",
                constraints="~ degreedist")
    deg0 = np.bincount(m.network.ties.ravel(), minlength=m.network.n)
    nets = m.simulate([0.0, 0.3], n=5, burnin=2000, interval=2000, output="networks",
                      random_state=4)
    for net in nets:
        d = np.bincount(net.ties.ravel(), minlength=net.n)
        assert (np.sort(d) == np.sort(deg0)).all()
    assert any((np.bincount(net.ties.ravel(), minlength=net.n) != deg0).any() for net in nets)


def test_constraint_errors_name_the_problem():
    g = _graph5()
    with pytest.raises(FormulaError, match="two-mode"):
        ef.ERGM(g, "edges", constraints="~ b1degrees")
    with pytest.raises(FormulaError, match="undirected"):
        ef.ERGM(_digraph4(), "edges", constraints="~ degreedist")
    with pytest.raises(FormulaError, match="cannot be combined"):
        ef.ERGM(_two_mode(), "edges", constraints="~ b1degrees + degreedist")
    with pytest.raises(FormulaError, match="shape"):
        ef.ERGM(g, "edges", constraints=("~ bd(attribs=A, maxout=2)", {"A": np.ones((3, 2))}))
    with pytest.raises(NetworkError, match="class 1"):
        ef.ERGM(g, "edges", constraints="~ bd(attribs='s', maxout=0)")
    # b1degrees + b2degrees is degrees
    assert ef.ERGM(_two_mode(), "edges",
                   constraints="~ b1degrees + b2degrees").sample_space.preserve == "degrees"


def test_mcmle_starts_by_cd_under_a_degree_constraint():
    # the MPLE ignores ~degrees (its start was nodematch -3.3 against the MLE's 2.2, and the
    # fit took 23-24 iterations against statnet's 5); CD runs the constrained chain
    from ergmfit.estimation.mcmle.start import initial_estimate
    m = ef.ERGM(ef.datasets.load("faux.mesa.high"),
                "nodematch('Grade') + gwesp(0.25, fixed=TRUE)", constraints="~ degrees")
    theta, how = initial_estimate(m, 1)
    assert how == "CD" and theta[0] > 1.0
    free = ef.ERGM(ef.datasets.load("faux.mesa.high"), "edges + nodematch('Grade')",
                   constraints="~ blockdiag('Sex')")
    assert initial_estimate(free, 1)[1] != "CD"


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_degrees_constrained_mcmle_converges_in_few_iterations(seed):
    m = ef.ERGM(ef.datasets.load("faux.mesa.high"),
                "nodematch('Grade') + gwesp(0.25, fixed=TRUE)", constraints="~ degrees")
    fit = m.fit(method="mcmle", random_state=seed)
    assert len(fit.info["history"]) <= 10
