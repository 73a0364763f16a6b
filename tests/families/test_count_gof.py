"""Valued gof (count family): the dyad value distribution, degrees and shared partners
of the nonzero ties, model statistics; valued simulate outputs."""
import networkx as nx
import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

import ergmfit as ef
from ergmfit.exceptions import FormulaError
from ergmfit.gofgraph import ValuedGraphSummaries


def small_valued(directed=True, seed=0, n=9):
    rng = np.random.default_rng(seed)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    for i in range(n):
        for j in range(n):
            if i != j and (directed or i < j) and rng.random() < 0.35:
                g.add_edge(i, j, w=int(min(3, 1 + rng.poisson(1.0))))
    return g


@pytest.mark.parametrize("directed", [True, False])
def test_valued_summaries_follow_their_definitions(directed):
    g = small_valued(directed, 3)
    n = g.number_of_nodes()
    dyads = np.array([(u, v) for u, v in g.edges()], dtype=np.int64)
    vals = np.array([g.edges[u, v]["w"] for u, v in g.edges()])
    s = ValuedGraphSummaries(n, (dyads, vals), directed, max_value=3)
    n_dyads = n * (n - 1) // (1 if directed else 2)
    want = [n_dyads - len(vals)] + [int(np.sum(vals == k)) for k in (1, 2)] \
        + [int(np.sum(vals >= 3))]
    assert s.compute("value").tolist() == want
    if directed:
        indeg = np.bincount([v for _, v in g.edges()], minlength=n)
        assert s.compute("idegree").tolist() == np.bincount(indeg, minlength=n).tolist()
    else:
        deg = np.array([d for _, d in sorted(g.degree())])
        assert s.compute("degree").tolist() == np.bincount(deg, minlength=n).tolist()


def test_gof_of_a_count_model_has_the_valued_blocks():
    g = small_valued(True, 1)
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="Poisson")
    res = m.gof([0.0, -1.0], n_sim=30, interval=200, random_state=1)
    assert list(res.blocks) == ["value", "idegree", "odegree", "espartners", "model"]
    vals = np.array([d["w"] for _, _, d in g.edges(data=True)])
    obs = res["value"].obs
    assert obs[0] == 72 - len(vals) and obs[1] == np.sum(vals == 1)
    assert np.allclose(res["model"].obs, m.statistics_vector())
    # reproducible, and the binary gof does not know 'value'
    again = m.gof([0.0, -1.0], n_sim=30, interval=200, random_state=1)
    assert np.array_equal(res["value"].sim, again["value"].sim)
    with pytest.raises(FormulaError, match="unknown gof statistic"):
        ef.ERGM(nx.path_graph(4), "edges").gof([0.0], n_sim=2, statistics="value")


def test_simulated_value_distribution_matches_the_exact_one():
    # dyad-independent: each dyad's value has p(k) ∝ exp(θ1 k + θ2 1[k>0]) / k!
    g = small_valued(True, 2, n=12)
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="Poisson")
    theta = np.array([0.3, -1.2])
    k = np.arange(60)
    logp = -gammaln(k + 1) + theta[0] * k + theta[1] * (k > 0)
    p = np.exp(logp - logsumexp(logp))
    res = m.gof(theta, n_sim=400, interval=400, statistics="value", random_state=5)
    sim = res["value"].sim
    n_dyads = 12 * 11
    for v in range(3):
        mean = sim[:, v].mean()
        se = sim[:, v].std(ddof=1) / np.sqrt(len(sim)) * 2      # x2: autocorrelation margin
        assert abs(mean - n_dyads * p[v]) < 4 * se, (v, mean, n_dyads * p[v])


def test_simulate_returns_valued_graphs_and_stats():
    g = small_valued(False, 4)
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="Binomial(3)")
    graphs = m.simulate([0.0, 0.0], n=3, interval=100, random_state=1)
    assert len(graphs) == 3 and all(isinstance(h, nx.Graph) for h in graphs)
    for h in graphs:
        vals = [d["w"] for _, _, d in h.edges(data=True)]
        assert all(isinstance(v, int) and 1 <= v <= 3 for v in vals)
    S = m.simulate([0.0, 0.0], n=3, interval=100, output="stats", random_state=1)
    # the same chain: the statistics of the graphs
    for h, s in zip(graphs, S):
        vals = [d["w"] for _, _, d in h.edges(data=True)]
        assert s.tolist() == [sum(vals), len(vals)]


@pytest.mark.parametrize("ext", ["json", "npz"])
def test_a_saved_count_fit_rebuilds_its_count_model(tmp_path, ext):
    from ergmfit.results import ERGMResults
    g = small_valued(True, 6)
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="Binomial(3)")
    fit = m.fit("mple")
    path = tmp_path / f"fit.{ext}"
    fit.save(str(path))
    back = ERGMResults.load(str(path))
    assert "response='w', reference='Binomial(3)'" in str(back.summary())
    model = back.rebuild_model()
    assert model.family.name == "count" and model.reference.label == "Binomial(3)"
    assert np.array_equal(model.statistics_vector(), m.statistics_vector())
    assert "value" in back.gof(n_sim=3, interval=50, random_state=1).blocks
