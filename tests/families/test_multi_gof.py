"""Layer-aware gof (gof_layers) and per-network gof (gofN)."""
from collections import Counter

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError
from ergmfit.gofmulti import gof_layers, gofN


def _layers():
    a = nx.gnp_random_graph(12, 0.25, seed=1, directed=True)
    b = nx.gnp_random_graph(12, 0.35, seed=2, directed=True)
    return ef.Layer({"a": a, "b": b}), a, b


def test_gof_layers_observed_rows_are_each_layers_distributions():
    lay, a, b = _layers()
    m = ef.ERGM(lay, "L(~edges, ~a) + L(~edges, ~b) + L(~edges, ~a&b)")
    res = gof_layers(m, [-1.2, -0.8, 0.5], layers=["a", "b", "a&b"], n_sim=15,
                     random_state=3)
    assert list(res.blocks) == [f"{x}: {s}" for x in ("a", "b", "a&b")
                                for s in ("idegree", "odegree", "espartners")]
    both = nx.DiGraph([(u, v) for u, v in a.edges() if b.has_edge(u, v)])
    both.add_nodes_from(a)
    for name, g in (("a", a), ("b", b), ("a&b", both)):
        blk = res[f"{name}: odegree"]
        counts = Counter(d for _, d in g.out_degree())
        assert blk.obs.tolist() == [counts.get(k, 0) for k in range(len(blk.obs))]
        # every simulated network has the layer's 12 nodes
        assert (blk.sim.sum(axis=1) <= 12).all() and res[f"{name}: idegree"].sim.sum(axis=1)[0] == 12
    assert res.n_sim == 15 and "in layer a&b" in res["a&b: espartners"].title


def test_gof_layers_of_a_fit_and_errors():
    lay, _, _ = _layers()
    fit = ef.ERGM(lay, "L(~edges, ~a) + L(~edges, ~b)").fit(method="mple")
    res = gof_layers(fit, n_sim=5, statistics=["espartners"], random_state=1)
    assert list(res.blocks) == ["a: espartners", "b: espartners"]
    with pytest.raises(ErgmfitError, match="multilayer"):
        gof_layers(ef.ERGM(ef.datasets.load("samplk1"), "edges"), [-1.0], n_sim=2)
    with pytest.raises(ErgmfitError, match="unknown name 'c'"):
        gof_layers(fit, layers=["c"], n_sim=2)


def test_gofN_rows_are_per_network_statistics():
    waves = [ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)]
    nets = ef.Networks(waves, names=["w1", "w2", "w3"], attrs={"wave": [1, 2, 3]})
    fit = ef.ERGM(nets, "N(~edges + mutual, lm=~wave)").fit(method="mple")
    res = gofN(fit, n_sim=30, random_state=5)
    t = res.table
    assert list(t["network"]) == ["w1", "w1", "w2", "w2", "w3", "w3"]
    want = [v for g in waves for v in ef.ERGM(g, "edges + mutual").statistics().values()]
    assert t["obs"].tolist() == want
    mean, sd = res.sims.mean(axis=0).ravel(), res.sims.std(axis=0, ddof=1).ravel()
    np.testing.assert_allclose(t["pearson"], (np.array(want) - mean) / sd)
    # each simulated network's statistics: its own ties only (no tie between networks)
    assert res.sims.shape == (30, 3, 2) and (res.sims[:, :, 0] <= 18 * 17).all()
    assert list(res.summary().index) == ["edges", "mutual"]
    res = gofN(fit, formula="edges + ttriple", n_sim=4, random_state=5)
    assert res.labels == ["edges", "ttriple"]


def test_gofN_needs_several_networks():
    with pytest.raises(ErgmfitError, match="several networks"):
        gofN(ef.ERGM(ef.datasets.load("samplk1"), "edges"), [-1.0], n_sim=2)
