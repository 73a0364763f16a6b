"""ef.Networks: several networks as one block-diagonal network (ergm.multi's Networks())."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import NetworkError


def _waves():
    return [ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)]


def test_blocks_attributes_and_labels():
    g1 = nx.DiGraph([(0, 1), (1, 2)])
    g1.nodes[0]["x"] = 1.5
    g2 = nx.DiGraph([("a", "b"), ("b", "a")])
    g2.graph["wave"] = 7
    nets = ef.Networks([g1, g2], attrs={"size": ["s", "t"]})
    assert nets.n == 5 and nets.directed and nets.n_ties == 4
    assert [(b.start, b.stop, b.n) for b in nets.blocks] == [(0, 3, 3), (3, 5, 2)]
    assert nets.labels[3] == (2, "a")
    assert nets.node_attrs[".NetworkID"] == [1, 1, 1, 2, 2]
    assert nets.node_attrs["x"] == [1.5, None, None, None, None]
    assert nets.network_attrs == {"wave": [None, 7], "size": ["s", "t"]}
    assert nets.blocks[1].attrs == {"wave": 7, "size": "t"}
    assert nets.block_of.tolist() == [0, 0, 0, 1, 1]
    # the networks given are not modified
    assert "x" not in g1.nodes[1] and ".NetworkID" not in g2.nodes["a"]


def test_named_networks_from_a_dict():
    nets = ef.Networks({"w1": nx.path_graph(3), "w2": nx.path_graph(4)})
    assert [b.name for b in nets.blocks] == ["w1", "w2"]
    assert nets.node_attrs[".NetworkName"][-1] == "w2"
    assert not nets.directed


def test_sample_space_is_the_within_network_dyads():
    nets = ef.Networks(_waves())
    m = ef.ERGM(nets, "edges + mutual")
    assert m.sample_space.n_free == 3 * 18 * 17          # statnet's null df: 918
    free = m.sample_space.free_dyads()
    assert (nets.block_of[free[:, 0]] == nets.block_of[free[:, 1]]).all()


def test_statistics_are_the_sums_over_networks():
    waves = _waves()
    formula = "edges + mutual + transitiveties + cyclicalties + nodematch('group')"
    total = sum(np.array(list(ef.ERGM(g, formula).statistics().values())) for g in waves)
    got = ef.ERGM(ef.Networks(waves), formula).statistics()
    assert list(got.values()) == total.tolist()
    # the reference values of ergm.multi (summary(samplk3w ~ N(~transitiveties + ...)))
    assert got["transitiveties"] == 84 and got["cyclicalties"] == 75


@pytest.mark.parametrize("seed", [1, 2])
def test_simulation_never_ties_two_networks(seed):
    nets = ef.Networks([nx.path_graph(5), nx.cycle_graph(4), nx.complete_graph(3)])
    m = ef.ERGM(nets, "edges + triangle")
    sims = m.simulate([0.5, 0.2], n=5, burnin=2000, interval=200, random_state=seed)
    for g in sims:
        for u, v in g.edges():
            assert u[0] == v[0]
        parts = nets.split(g)
        assert [p.number_of_nodes() for p in parts] == [5, 4, 3]
        assert sum(p.number_of_edges() for p in parts) == g.number_of_edges()


def test_block_network_round_trip():
    waves = _waves()
    nets = ef.Networks(waves, attrs={"wave": [1, 2, 3]})
    sub = nets.block_network(1)
    assert sub.n == 18 and sub.n_ties == waves[1].number_of_edges()
    assert set(map(tuple, sub.to_networkx().edges())) == set(waves[1].edges())
    assert sub.graph_attrs["wave"] == 2 and ".NetworkID" not in sub.node_attrs


def test_per_network_dyadic_covariate():
    rng = np.random.default_rng(0)
    gs = [nx.gnp_random_graph(n, 0.4, seed=n, directed=True) for n in (4, 6)]
    mats = [rng.integers(0, 3, (g.number_of_nodes(),) * 2).astype(float) for g in gs]
    nets = ef.Networks(gs, dyadic={"w": mats})
    want = 0.0
    for g, M in zip(gs, mats):
        g2 = g.copy()
        g2.graph["w"] = M
        want += ef.ERGM(g2, "edgecov('w')").statistics()["edgecov.w"]
    assert ef.ERGM(nets, "edgecov('w')").statistics()["edgecov.w"] == want
    # the same from graph attributes of the networks
    gs2 = [g.copy() for g in gs]
    for g, M in zip(gs2, mats):
        g.graph["w"] = M
    assert ef.ERGM(ef.Networks(gs2), "edgecov('w')").statistics()["edgecov.w"] == want


@pytest.mark.parametrize("make, match", [
    (lambda: ef.Networks([]), "at least one network"),
    (lambda: ef.Networks([nx.Graph([(0, 1)]), nx.DiGraph([(0, 1)])]), "all directed"),
    (lambda: ef.Networks([nx.Graph([(0, 1)]), nx.Graph([(0, 1)])], attrs={"w": [1]}),
     "1 value"),
    (lambda: ef.Networks([nx.Graph([(0, 1)])], dyadic={"w": [np.eye(3)]}), "3x3"),
    (lambda: ef.Networks(nx.Graph([(0, 1)])), "list"),
])
def test_bad_input_is_a_clear_error(make, match):
    with pytest.raises(NetworkError, match=match):
        make()


def test_clashing_attribute_types_are_an_error():
    g1, g2 = nx.Graph([(0, 1)]), nx.Graph([(0, 1)])
    nx.set_node_attributes(g1, {0: 1, 1: 2}, "grade")
    nx.set_node_attributes(g2, {0: "a", 1: "b"}, "grade")
    with pytest.raises(NetworkError, match="'grade' has clashing types.*network 2"):
        ef.Networks([g1, g2])


def test_a_results_file_keeps_the_networks(tmp_path):
    from ergmfit.results.ergm import ERGMResults
    from support.multi_networks import lazega2l
    nets = ef.Networks(_waves(), names=["a", "b", "c"], attrs={"wave": [1, 2, 3]})
    for net, formula in ((nets, "edges + mutual"), (nets, "N(~edges + mutual, lm=~wave)"),
                         (lazega2l(), "L(~edges, ~advice&!friendship) + L(~mutual, ~advice)")):
        m = ef.ERGM(net, formula)
        fit = m.fit(method="mple")
        path = tmp_path / "fit.json"
        fit.save(path)
        back = ERGMResults.load(path).rebuild_model()
        assert back.sample_space.n_free == m.sample_space.n_free
        assert back.statistics() == m.statistics()
        np.testing.assert_allclose(np.asarray(back.fit(method="mple").params, float),
                                   np.asarray(fit.params, float), rtol=1e-10)


def test_n_inside_n_is_an_error():
    # ergm.multi evaluates N()'s formula on each network alone, where an inner N() has no
    # networks to combine; it was silently N() of the whole set again ('N(1)~N(1)~edges')
    nets = ef.Networks([nx.path_graph(5), nx.cycle_graph(4), nx.complete_graph(3)])
    for f in ("N(~N(~edges))", 'N(~Sum(~N(~edges), "x"))', "N(~edges + N(~triangle))"):
        with pytest.raises(ef.TermError, match=r"N\(\) inside another N\(\)'s formula"):
            ef.ERGM(nets, f)
    assert ef.ERGM(nets, "N(~edges) + N(~triangle)").statistics() == {
        "N(1)~edges": 11.0, "N(1)~triangle": 1.0}
