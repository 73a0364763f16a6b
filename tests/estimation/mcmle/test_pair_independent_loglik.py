"""The exact log-likelihood of a STATIC model independent across dyad pairs (``edges +
mutual``, dyadic covariates): a method of the base model (``ERGM.exact_loglik``), which the
MCMC-MLE reports instead of a bridge-sampled value (#32)."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from support.enumeration import all_statistics, enumerated_loglik


def _four_node_network():
    g = nx.gnp_random_graph(4, 0.5, seed=3, directed=True)
    for k in g.nodes:
        g.nodes[k]["a"] = "x" if k % 2 else "y"
    g.graph["w"] = np.arange(16, dtype=float).reshape(4, 4) / 10.0    # a dyadic covariate
    return g


@pytest.mark.parametrize("formula", ["edges + mutual",
                                     "edges + mutual + nodematch('a')",
                                     "mutual + edgecov('w')"])
def test_static_exact_loglik_equals_enumeration(formula):
    # a 4-node directed network: its 2^12 networks enumerated
    m = ef.ERGM(_four_node_network(), formula)
    g_all = all_statistics(m)
    rng = np.random.default_rng(11)
    for _ in range(3):
        theta = rng.normal(0, 1.5, len(m.labels))
        assert m.exact_loglik(theta) == pytest.approx(enumerated_loglik(m, theta, g_all),
                                                      abs=1e-9)


def test_no_exact_loglik_where_the_model_is_not_pair_independent():
    g = _four_node_network()
    assert ef.ERGM(g, "edges + triangle").exact_loglik([0.0, 0.0]) is None
    assert ef.ERGM(g, "edges + mutual", tapered=True).exact_loglik([0.0, 0.0]) is None
    # a count model: no binary factorisation
    for u, v in g.edges:
        g.edges[u, v]["n"] = 2
    assert ef.ERGM(g, "sum", response="n").exact_loglik([0.0]) is None


@pytest.mark.parametrize("seed", [3, 4])
def test_mcmle_reports_the_exact_loglik_of_edges_mutual(seed):
    # statnet bridge-samples it; here it is exact (no Monte Carlo error), and AIC with it
    m = ef.ERGM(ef.datasets.load("samplike"), "edges + mutual")
    fit = m.fit(method="mcmle", random_state=seed)
    theta = np.asarray(fit.params, float)
    assert fit.loglik_kind == "exact"
    assert fit.loglik == pytest.approx(m.exact_loglik(theta), abs=1e-9)
    assert fit.aic == pytest.approx(-2 * m.exact_loglik(theta) + 2 * len(theta), abs=1e-8)


def test_the_gof_hook_is_a_model_method():
    # the base model has no gof of its own (None: ergmfit.gof.gof); a temporal one has
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    fit = m.fit(method="mple")
    assert m.gof_of_fit(fit) is None
    s = ef.NetSeries([nx.gnp_random_graph(8, 0.3, seed=k) for k in range(3)])
    tfit = ef.ERGM(s, "Form(~edges) + Persist(~edges)").fit(method="cmle")
    assert sorted(tfit.model.gof_of_fit(tfit, n_sim=3, random_state=1).waves) == [1, 2]
