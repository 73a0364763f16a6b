"""Bayes where the data carry no information (#38 item 8): a statistic the constraints fix,
an empty or a complete network (no MLE: the likelihood keeps increasing along a direction,
and the posterior there is the prior's tail, which the chains do not explore) is refused
with the DegenerateModelError the other estimators give, not reported as a converged
posterior."""
import networkx as nx
import pytest

import ergmfit as ef
from ergmfit.exceptions import DegenerateModelError

SHORT = {"random_state": 1, "main_iters": 100, "burnin": 20}


def test_a_statistic_fixed_by_the_constraints_is_refused():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    with pytest.raises(DegenerateModelError, match=r"\['edges'\] never changed.*degrees"):
        m.fit(method="bayes", constraints="~degrees", **SHORT)


@pytest.mark.parametrize("graph, sign", [(nx.empty_graph(10), "-"), (nx.complete_graph(10), "+")])
def test_an_empty_or_complete_network_is_refused(graph, sign):
    with pytest.raises(DegenerateModelError, match=rf"does not exist.*'edges' -> \{sign}Inf"):
        ef.ERGM(graph, "edges").fit(method="bayes", **SHORT)


def test_a_dead_statistic_is_refused_as_mple_refuses_it():
    fl = ef.datasets.load_network("flomarriage")
    with pytest.raises(DegenerateModelError, match="no variation"):
        ef.ERGM(fl, "edges + degree(20)").fit(method="bayes", **SHORT)


@pytest.mark.slow
def test_a_dyad_dependent_model_without_an_mle_is_refused_after_the_run():
    # 30 nodes, 40 ties, no triangle: the posterior mean's sample has no triangle either
    g0 = nx.bipartite.gnmk_random_graph(15, 15, 40, seed=2)
    g = nx.Graph()
    g.add_nodes_from(range(30))
    g.add_edges_from(g0.edges())
    with pytest.raises(DegenerateModelError, match=r"'triangle' -> -Inf"):
        ef.ERGM(g, "edges + triangle").fit(method="bayes", random_state=1, main_iters=300)


def test_a_constrained_model_with_information_still_runs():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    fit = m.fit(method="bayes", constraints="~bd(maxout=6)", **SHORT)
    assert fit.chains.shape[1] == 100
