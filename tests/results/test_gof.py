"""Goodness of fit (ergmfit.gof) and the ``simulate`` / ``gof`` subcommands."""
import csv
import io
import json
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import ergmfit as ef
import ergmfit.gof as gofmod
import ergmfit.gofgraph as gofgraph
from ergmfit.cli import main
from ergmfit.gof import (GofBlock, GofResult, GraphSummaries, gof, mc_pvalues,
                         parse_gof_statistics)

FLO_MLE = [-1.6766, 0.1609]      # statnet MCMC-MLE of flomarriage ~ edges + triangle


# ---------------------------------------------------------------------------
# independent references (networkx, plain Python)
# ---------------------------------------------------------------------------
def to_nx(n, ties, directed):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((int(i), int(j)) for i, j in ties)
    return g


def ref_degree(g, kind="degree"):
    n = g.number_of_nodes()
    deg = {"degree": g.degree, "idegree": getattr(g, "in_degree", None),
           "odegree": getattr(g, "out_degree", None)}[kind]
    out = np.zeros(n)
    for _, d in deg:
        out[d] += 1
    return out


def partners(g, i, j):
    """Shared partners of the (ordered, if directed) pair: OTP i->k->j if directed."""
    if g.is_directed():
        return len((set(g.successors(i)) & set(g.predecessors(j))) - {i, j})
    return len((set(g[i]) & set(g[j])) - {i, j})


def ref_esp(g):
    n = g.number_of_nodes()
    out = np.zeros(max(n - 1, 1))
    for i, j in g.edges:
        out[partners(g, i, j)] += 1
    return out


def ref_dsp(g):
    n = g.number_of_nodes()
    out = np.zeros(max(n - 1, 1))
    for i in range(n):
        for j in range(n):
            if i == j or (not g.is_directed() and j < i):
                continue
            out[partners(g, i, j)] += 1
    return out


def ref_distance(g):
    n = g.number_of_nodes()
    out = np.zeros(n)
    for _, lengths in nx.all_pairs_shortest_path_length(g):
        for _, d in lengths.items():
            if d > 0:
                out[d - 1] += 1
    if not g.is_directed():
        out /= 2
    out[n - 1] = (n * (n - 1) if g.is_directed() else n * (n - 1) // 2) - out[:n - 1].sum()
    return out


def check_all(n, ties, directed):
    g = to_nx(n, ties, directed)
    S = GraphSummaries(n, ties, directed)
    kinds = ["idegree", "odegree"] if directed else ["degree"]
    for kind in kinds:
        np.testing.assert_array_equal(S.degree(kind), ref_degree(g, kind), err_msg=kind)
    np.testing.assert_array_equal(S.espartners(), ref_esp(g))
    np.testing.assert_array_equal(S.dspartners(), ref_dsp(g))
    np.testing.assert_array_equal(S.distance(), ref_distance(g))


def random_ties(rng, n, p, directed):
    A = rng.random((n, n)) < p
    np.fill_diagonal(A, False)
    if not directed:
        A = np.triu(A, 1)
    return np.argwhere(A)


# ---------------------------------------------------------------------------
# the summaries against networkx
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["lazega", "flomarriage", "samplike", "faux.desert.high"])
def test_summaries_match_networkx_on_data(name):
    net = ef.datasets.load_network(name)
    check_all(net.n, net.ties, net.directed)


def test_samplike_known_values():
    net = ef.datasets.load_network("samplike")
    S = GraphSummaries(net.n, net.ties, net.directed)
    assert S.degree("odegree").sum() == 18 and S.degree("idegree").sum() == 18
    assert S.espartners().sum() == 88                  # one entry per arc
    assert S.dspartners().sum() == 18 * 17             # ordered dyads
    d = S.distance()
    assert d[0] == 88 and d.sum() == 18 * 17


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 12), p=st.floats(0.0, 0.8), directed=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_summaries_match_networkx_random(n, p, directed, seed):
    check_all(n, random_ties(np.random.default_rng(seed), n, p, directed), directed)


@pytest.mark.parametrize("directed", [False, True])
def test_blocked_bfs_path_matches_networkx(monkeypatch, directed):
    """Force the blocked breadth-first search (and its fallbacks) on small graphs."""
    monkeypatch.setattr(gofgraph, "BFS_MIN_COMPONENT", 2)
    monkeypatch.setattr(gofgraph, "BFS_BLOCK_ENTRIES", 60)          # several blocks
    rng = np.random.default_rng(5)
    for n, p in [(30, 0.08), (25, 0.2), (40, 0.05)]:
        check_all(n, random_ties(rng, n, p, directed), directed)
    # a long path: eccentricity above the limit -> per-source search
    n = 80
    path = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    check_all(n, path, directed)
    # directed wheel: short undirected, long directed paths -> level limit, fallback
    if directed:
        n = 60
        ring = np.column_stack([np.arange(n), (np.arange(n) + 1) % n])
        hub = np.column_stack([np.zeros(n - 3, int), np.arange(2, n - 1)])
        ties = np.unique(np.vstack([ring, hub]), axis=0)
        check_all(n, ties, directed)


def test_bigger_sparse_network():
    net = ef.datasets.load_network("faux.mesa.high")     # 205 nodes, many components
    g = to_nx(net.n, net.ties, False)
    S = GraphSummaries(net.n, net.ties, False)
    np.testing.assert_array_equal(S.distance(), ref_distance(g))
    np.testing.assert_array_equal(S.espartners(), ref_esp(g))


def test_public_helpers():
    g = nx.path_graph(4)
    np.testing.assert_array_equal(gofmod.degree_distribution(g), [0, 2, 2, 0])
    np.testing.assert_array_equal(gofmod.esp_distribution(g), [3, 0, 0])
    np.testing.assert_array_equal(gofmod.dsp_distribution(g), [4, 2, 0])
    np.testing.assert_array_equal(gofmod.geodesic_distribution(g), [3, 2, 1, 0])


# ---------------------------------------------------------------------------
# p-values, trimming, tables
# ---------------------------------------------------------------------------
def test_pvalue_rule_by_hand():
    sim = np.array([[1, 0, 5], [2, 0, 5], [3, 0, 5], [4, 0, 5], [5, 1, 5]], float)
    obs = np.array([2, 0, 7])
    # col 0: P(sim<=2)=0.4, P(sim>=2)=0.8 -> 0.8; col 1: 1.0 and 0.8 -> min(1, 1.6)=1
    # col 2: P(sim<=7)=1, P(sim>=7)=0 -> 0
    np.testing.assert_allclose(mc_pvalues(obs, sim), [0.8, 1.0, 0.0])
    # the observed value is not counted in: 100 sims give multiples of 0.02
    rng = np.random.default_rng(0)
    p = mc_pvalues(rng.integers(0, 5, 3), rng.integers(0, 5, (100, 3)))
    np.testing.assert_allclose(p * 50, np.round(p * 50))
    # a simulated value equal to obs up to rounding is equal
    assert mc_pvalues([0.3], [[0.1 + 0.2]] * 4)[0] == 1.0


def test_rows_trimmed_and_inf_kept():
    res = gof(ef.ERGM("flomarriage", "edges"), [-1.7], n_sim=10, random_state=3)
    deg, dist = res["degree"], res["distance"]
    assert deg.labels[0] == "degree0"
    last = deg.table()[-1]
    assert last[0] > 0 or last[3] > 0                    # the last row is informative
    assert len(deg) < 16
    assert dist.labels[-1] == "Inf" and dist.labels[0] == "1"
    assert dist.labels[:-1] == [str(k) for k in range(1, len(dist))]
    body = dist.table()[:-1]
    assert body[-1, 0] > 0 or body[-1, 3] > 0
    # dropped columns were all zero: every simulated distance row still sums to the dyads
    np.testing.assert_array_equal(dist.sim.sum(axis=1), 120)
    np.testing.assert_array_equal(deg.sim.sum(axis=1), 16)


def test_table_layout_as_statnet():
    b = GofBlock("degree", ["degree0", "degree1", "degree10"],
                 [57, 51, 0], [[36, 31, 0], [82, 62, 1], [52, 48, 0], [57, 47, 0]])
    text = b.text().splitlines()
    assert text[0] == "Goodness-of-fit for degree " and text[1] == ""
    assert text[2] == "         obs min  mean max MC p-value"
    assert text[3] == "degree0   57  36 56.75  82        1.0"
    assert text[4] == "degree1   51  31 47.00  62        0.5"
    assert text[5] == "degree10   0   0  0.25   1        1.0"
    # R prints up to 7 significant digits, with a common number of decimals per column
    b = GofBlock("model", ["edges", "gwesp.fixed.0.5"], [203, 123.4567891],
                 [[200, 120.5], [201, 125.0], [210, 130.25]])
    text = b.text().splitlines()
    assert text[2:] == [
        "                     obs   min     mean    max MC p-value",
        "edges           203.0000 200.0 203.6667 210.00  0.6666667",
        "gwesp.fixed.0.5 123.4568 120.5 125.2500 130.25  0.6666667"]


def test_summary_prints_statnet_headers():
    res = gof(ef.ERGM("flomarriage", "edges + triangle"), FLO_MLE, n_sim=10, random_state=1)
    text = str(res)
    assert text == str(res.summary()) == repr(res.summary())
    heads = [ln for ln in text.splitlines() if ln.startswith("Goodness-of-fit for")]
    assert heads == ["Goodness-of-fit for degree ", "Goodness-of-fit for edgewise shared partner ",
                     "Goodness-of-fit for minimum geodesic distance ",
                     "Goodness-of-fit for model statistics "]
    lines = text.splitlines()
    assert lines[2].split() == ["obs", "min", "mean", "max", "MC", "p-value"]
    assert any(ln.startswith("Inf ") for ln in lines)
    assert any(ln.startswith("triangle ") for ln in lines)

    dres = gof(ef.ERGM("samplike", "edges + mutual"), [-1.0, 1.0], n_sim=5, random_state=1)
    heads = [ln.strip() for ln in str(dres).splitlines() if ln.startswith("Goodness-of-fit")]
    assert heads == ["Goodness-of-fit for in-degree", "Goodness-of-fit for out-degree",
                     "Goodness-of-fit for edgewise shared partner",
                     "Goodness-of-fit for minimum geodesic distance",
                     "Goodness-of-fit for model statistics"]
    assert dres["idegree"].labels[0] == "idegree0" and dres["odegree"].labels[0] == "odegree0"


# ---------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------
def _strip(d):
    d = dict(d)
    d.pop("seconds")
    return d


def test_same_seed_same_result():
    m = ef.ERGM("flomarriage", "edges + triangle")
    a = gof(m, FLO_MLE, n_sim=15, random_state=7)
    b = gof(m, FLO_MLE, n_sim=15, random_state=7)
    c = gof(m, FLO_MLE, n_sim=15, random_state=8)
    assert _strip(a.to_dict()) == _strip(b.to_dict())
    assert str(a) == str(b)
    assert _strip(a.to_dict()) != _strip(c.to_dict())


@pytest.mark.parametrize("name,formula,params", [
    ("flomarriage", "edges + triangle", FLO_MLE),
    ("samplike", "edges + mutual", [-1.2, 1.5]),
])
def test_blocks_agree_with_each_other(name, formula, params):
    """Per simulated network: the model's edges (from change statistics) = ties
    counted from the degree, ESP and distance blocks (from the network itself)."""
    res = gof(ef.ERGM(name, formula), params, n_sim=25, burnin=2000, interval=300,
              random_state=2)
    edges = res["model"].sim[:, 0]
    assert edges.std() > 0
    deg = "odegree" if res.directed else "degree"
    k = np.arange(len(res[deg]))
    ties_from_degree = res[deg].sim @ k / (1 if res.directed else 2)
    np.testing.assert_array_equal(ties_from_degree, edges)
    np.testing.assert_array_equal(res["espartners"].sim.sum(axis=1), edges)
    np.testing.assert_array_equal(res["distance"].sim[:, 0], edges)
    if res.directed:
        ki = np.arange(len(res["idegree"]))
        np.testing.assert_array_equal(res["idegree"].sim @ ki, edges)
    # observed column = the observed network
    assert res["model"].obs[0] == ef.datasets.load_network(name).n_ties


def test_bernoulli_degree_distribution_matches_binomial():
    """Edges-only model: mean simulated degree counts = n * Binomial(n-1, p)."""
    n, p = 16, 0.25
    m = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges")
    res = gof(m, [math.log(p / (1 - p))], n_sim=400, burnin=4000, interval=400,
              statistics="degree + model", random_state=11)
    assert list(res.blocks) == ["degree", "model"]
    deg = res["degree"]
    k = np.arange(len(deg))
    expected = n * stats.binom.pmf(k, n - 1, p)
    se = deg.sim.std(axis=0) / math.sqrt(res.n_sim) + 1e-9
    assert np.all(np.abs(deg.mean - expected) < 5 * se + 0.02), (deg.mean, expected)
    assert abs(res["model"].mean[0] - p * 120) < 5 * res["model"].sim.std() / 20


def test_flomarriage_mle_degree_not_rejected():
    """At statnet's MLE the observed degree distribution fits: over 40 seeds no
    row had p <= 0.05 in development; allow one row for safety."""
    m = ef.ERGM("flomarriage", "edges + triangle")
    res = gof(m, FLO_MLE, n_sim=100, random_state=2024)
    p = res["degree"].pvalue
    assert len(p) >= 7
    assert np.sum(p <= 0.05) <= 1, res["degree"].text()
    assert np.all(res["model"].pvalue > 0.05)
    # ... while a model with far too few ties is rejected
    bad = gof(m, [-3.5, 0.0], n_sim=100, random_state=2024)
    assert np.sum(bad["degree"].pvalue <= 0.05) >= 2, bad["degree"].text()
    assert bad["model"].pvalue[0] <= 0.05


def test_mcmc_settings_inherited_and_defaults():
    m = ef.ERGM("flomarriage", "edges")
    r = gof(m, [-1.7], n_sim=2, statistics="model", random_state=1)
    assert (r.burnin, r.interval) == (16 * 1024, 1024)
    r = gof(m, [-1.7], n_sim=2, statistics="model", random_state=1,
            mcmc={"burnin": 500, "interval": 50})
    assert (r.burnin, r.interval) == (500, 50)
    r = gof(m, [-1.7], n_sim=2, statistics="model", random_state=1, interval=10)
    assert (r.burnin, r.interval) == (160, 10)
    r = gof(m, [-1.7], n_sim=2, statistics="model", random_state=1,
            mcmc={"MCMC.burnin": 300, "MCMC.interval": 30}, burnin=100)
    assert (r.burnin, r.interval) == (100, 30)


def test_results_object_delegation():
    """What ERGMResults.gof will do: pass the fit itself (params and MCMC settings)."""
    class FakeFit:
        def __init__(self, model):
            self.model = model
            self.params = np.array(FLO_MLE)
            self.info = {"mcmc": {"burnin": 1000, "interval": 100}}

        def rebuild_model(self):
            return self.model

    m = ef.ERGM("flomarriage", "edges + triangle")
    fit = FakeFit(m)
    a = gof(fit, n_sim=10, random_state=4)
    b = gof(m, FLO_MLE, n_sim=10, random_state=4, mcmc={"burnin": 1000, "interval": 100})
    assert (a.burnin, a.interval) == (1000, 100)
    assert _strip(a.to_dict()) == _strip(b.to_dict())
    assert a.params == {"edges": FLO_MLE[0], "triangle": FLO_MLE[1]}
    # dict parameters work too
    c = gof(m, {"triangle": FLO_MLE[1], "edges": FLO_MLE[0]}, n_sim=10, random_state=4,
            mcmc={"burnin": 1000, "interval": 100})
    assert _strip(c.to_dict()) == _strip(b.to_dict())


def test_statistics_parsing_and_errors():
    assert parse_gof_statistics(None, False) == ["degree", "espartners", "distance", "model"]
    assert parse_gof_statistics(None, True) == ["idegree", "odegree", "espartners",
                                                "distance", "model"]
    assert parse_gof_statistics("~ deg + dsp + dist", False) == ["degree", "dspartners",
                                                                 "distance"]
    assert parse_gof_statistics(["model", "esp"], True) == ["model", "espartners"]
    with pytest.raises(ef.FormulaError, match="unknown gof statistic 'triads'"):
        parse_gof_statistics("degree + triads", False)
    with pytest.raises(ef.FormulaError, match="idegree"):
        parse_gof_statistics("degree", True)
    with pytest.raises(ef.FormulaError, match="undirected"):
        parse_gof_statistics("odegree", False)
    m = ef.ERGM("flomarriage", "edges")
    with pytest.raises(ValueError, match="1 value"):
        gof(m, [1.0, 2.0], n_sim=2)
    with pytest.raises(ValueError, match="n_sim"):
        gof(m, [1.0], n_sim=0)


def test_dspartners_block_and_outputs():
    pd = pytest.importorskip("pandas")
    m = ef.ERGM("lazega", "edges + triangle")
    res = gof(m, [-2.5, 0.3], n_sim=8, statistics="degree + dspartners + model",
              random_state=1)
    dsp = res["dspartners"]
    assert dsp.title == "dyadwise shared partner" and dsp.labels[0] == "dsp0"
    np.testing.assert_array_equal(dsp.sim.sum(axis=1), 36 * 35 / 2)
    assert "Goodness-of-fit for dyadwise shared partner " in str(res)
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["blocks"]["dspartners"]["rows"] == dsp.labels
    assert len(d["blocks"]["degree"]["sim"]) == 8
    assert "sim" not in res.to_dict(include_sim=False)["blocks"]["degree"]
    assert res.pvalues["model"].keys() == {"edges", "triangle"}
    f = res.to_frame()
    assert isinstance(f, pd.DataFrame)
    assert list(f.columns) == ["block", "statistic", "obs", "min", "mean", "max", "MC p-value"]
    assert len(f) == sum(len(b) for b in res)
    assert "dsp" in res and "dspartners" in res and "esp" not in res and "distance" not in res
    with pytest.raises(KeyError, match="blocks are"):
        res["distance"]
    assert isinstance(res, GofResult) and "GofResult" in repr(res)


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------
def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_gof_json(capsys):
    code, out, err = run(capsys, "gof", "flomarriage", "edges + triangle", "--coef", "-1.6766",
                         "0.1609", "--n-sim", "20", "--seed", "1", "--json")
    assert code == 0 and err == ""
    assert out.count("\n") == 1
    d = json.loads(out)
    assert list(d["blocks"]) == ["degree", "espartners", "distance", "model"]
    assert d["n_sim"] == 20 and d["seed"] == 1
    assert d["params"] == {"edges": -1.6766, "triangle": 0.1609}
    assert d["blocks"]["model"]["obs"] == [20, 3]
    assert len(d["blocks"]["degree"]["sim"]) == 20
    # the same as the library with the same seed
    lib = gof(ef.ERGM("flomarriage", "edges + triangle"), FLO_MLE, n_sim=20, random_state=1)
    assert d["blocks"] == json.loads(json.dumps(lib.to_dict()))["blocks"]


def test_cli_gof_table_and_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "gof.png"
    code, out, err = run(capsys, "gof", "samplike", "edges + mutual", "--coef", "-1", "1",
                         "--n-sim", "5", "--seed", "2", "--burnin", "1000", "--interval", "100",
                         "--plot", str(png))
    assert code == 0 and err == ""
    assert "Goodness-of-fit for in-degree " in out and "Goodness-of-fit for model statistics" in out
    assert out.rstrip().endswith(f"Plot written to {png}")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_gof_errors(capsys):
    code, _, err = run(capsys, "gof", "flomarriage", "edges + triangle", "--coef", "-1.6")
    assert code == 2 and err.startswith("ergmfit: error: --coef needs 2 value(s)")
    assert "edges, triangle" in err and "Traceback" not in err
    code, _, err = run(capsys, "gof", "flomarriage", "edges", "--coef", "-1.6",
                       "--statistics", "idegree")
    assert code == 2 and "ergmfit: error: gof statistic 'idegree'" in err
    code, _, err = run(capsys, "gof", "flomarriage", "edges", "--coef", "-1.6",
                       "--plot", "out.nosuchtype")
    assert code == 2 and "unknown figure type 'nosuchtype'" in err
    code, _, err = run(capsys, "gof", "flomarriage", "edges", "--coef", "-1.6", "--n-sim", "0")
    assert code == 2 and "--n-sim" in err


def test_cli_gof_missing_matplotlib(capsys, monkeypatch, tmp_path):
    import sys
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run(capsys, "gof", "flomarriage", "edges", "--coef", "-1.6",
                         "--n-sim", "2", "--plot", str(tmp_path / "x.png"))
    assert code == 2 and out == ""
    assert err.strip() == "ergmfit: error: plotting needs matplotlib: pip install 'ergmfit[plot]'"


def test_cli_simulate_stats(capsys):
    code, out, err = run(capsys, "simulate", "flomarriage", "edges + triangle", "--coef",
                         "-1.6766", "0.1609", "--n", "4", "--seed", "3", "--json")
    assert code == 0 and err == "" and out.count("\n") == 1
    d = json.loads(out)
    assert d["labels"] == ["edges", "triangle"] and len(d["stats"]) == 4
    lib = ef.ERGM("flomarriage", "edges + triangle").simulate(
        FLO_MLE, n=4, burnin=16384, interval=1024, output="stats", random_state=3)
    np.testing.assert_array_equal(np.array(d["stats"]), lib)
    code, out, err = run(capsys, "simulate", "flomarriage", "edges + triangle", "--coef",
                         "-1.6766", "0.1609", "--n", "4", "--seed", "3")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["sim", "edges", "triangle"] and len(lines) == 5
    assert [float(x) for x in lines[1].split()[1:]] == list(lib[0])


def test_cli_simulate_edgelist(capsys):
    code, out, err = run(capsys, "simulate", "samplike", "edges + mutual", "--coef", "-1", "1",
                         "--n", "2", "--seed", "5", "--output", "edgelist", "--burnin", "2000",
                         "--interval", "200")
    assert code == 0 and err == ""
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["sim", "tail", "head"]
    assert {r[0] for r in rows[1:]} == {"1", "2"}
    nets = ef.ERGM("samplike", "edges + mutual").simulate(
        [-1, 1], n=2, burnin=2000, interval=200, output="networks", random_state=5)
    labels = nets[0].labels
    assert sum(r[0] == "1" for r in rows[1:]) == nets[0].n_ties
    first = {(str(labels[i]), str(labels[j])) for i, j in nets[0].ties}
    assert {(r[1], r[2]) for r in rows[1:] if r[0] == "1"} == first
    code, out, err = run(capsys, "simulate", "samplike", "edges + mutual", "--coef", "-1", "1",
                         "--n", "2", "--seed", "5", "--output", "edgelist", "--burnin", "2000",
                         "--interval", "200", "--json")
    d = json.loads(out)
    assert code == 0 and d["directed"] is True and len(d["networks"]) == 2
    assert d["networks"][0]["n_edges"] == nets[0].n_ties
    assert {tuple(e) for e in d["networks"][0]["edges"]} == \
        {(labels[i], labels[j]) for i, j in nets[0].ties}


# ---------------------------------------------------------------------------
# two-mode networks: statnet's b1degree/b2degree, distances over every node pair
# ---------------------------------------------------------------------------
def _two_mode(n1, n2, edges, w=None):
    g = nx.Graph()
    g.add_nodes_from(range(n1), bipartite=0)
    g.add_nodes_from(range(n1, n1 + n2), bipartite=1)
    for i, j in edges:
        g.add_edge(i, j, **({} if w is None else {"w": w}))
    return g


def test_two_mode_gof_has_statnets_degrees_by_mode():
    # statnet's gof on a bipartite network: b1degree + b2degree + espartners + distance +
    # model (main: degree over all nodes, and b1degree/b2degree unknown)
    g = _two_mode(3, 4, [(0, 3), (0, 4), (1, 4), (2, 6)])
    m = ef.ERGM(g, "edges")
    res = gof(m, [-1.0], n_sim=10, burnin=500, interval=20, random_state=1)
    assert list(res.blocks) == ["b1degree", "b2degree", "espartners", "distance", "model"]
    b1, b2 = res["b1degree"], res["b2degree"]
    assert b1.labels[:3] == ["b1degree0", "b1degree1", "b1degree2"]
    assert b1.obs.tolist()[:3] == [0, 2, 1] and b2.obs.tolist()[:3] == [1, 2, 1]
    assert np.all(b1.sim.sum(axis=1) == 3) and np.all(b2.sim.sum(axis=1) == 4)
    # every tie of a two-mode network has 0 edgewise shared partners
    assert np.array_equal(res["espartners"].sim[:, 0], res["model"].sim[:, 0])
    # distance: every pair of the 7 nodes (21), within a mode too, as ergm.geodistdist
    assert res["distance"].obs.sum() == 21 and np.all(res["distance"].sim.sum(axis=1) == 21)
    with pytest.raises(ef.FormulaError, match="two-mode"):
        gof(ef.ERGM("flomarriage", "edges"), [-1.6], n_sim=2, statistics="b1degree")
    # asked for, degree still counts every node
    res = gof(m, [-1.0], n_sim=2, statistics="degree", random_state=1)
    assert res["degree"].obs.sum() == 7


def test_two_mode_valued_gof_degrees_by_mode():
    g = _two_mode(2, 3, [(0, 2), (0, 3), (1, 3)], w=2)
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="Poisson")
    res = gof(m, [0.3, -1.0], n_sim=5, burnin=500, interval=20, random_state=1)
    assert list(res.blocks) == ["value", "b1degree", "b2degree", "espartners", "model"]
    assert res["b1degree"].obs.tolist()[:3] == [0, 1, 1]
    assert np.all(res["b2degree"].sim.sum(axis=1) == 3)
    assert res["value"].obs.sum() == 6                     # the 6 dyads between the modes
