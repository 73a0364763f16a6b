"""Graphs ergmfit returns share no mutable object with the caller's graph (#24 item 2)."""
import networkx as nx
import numpy as np

import ergmfit as ef
from ergmfit.network import Network


def _graph():
    g = nx.path_graph(5)
    for v in g:
        g.nodes[v]["tags"] = [v, "x"]
        g.nodes[v]["info"] = {"age": 20 + v}
        g.nodes[v]["grade"] = v % 2
    for u, v in g.edges:
        g.edges[u, v]["hist"] = [u, v]
    g.graph["m"] = np.eye(5)
    g.graph["meta"] = {"source": ["survey"]}
    return g


def _snapshot(g):
    import copy
    return copy.deepcopy(dict(g.nodes(data=True))), copy.deepcopy(g.graph)


def _mutate(h):
    for v, d in h.nodes(data=True):
        d["tags"].append("changed")
        d["info"]["age"] = -1
    h.graph["m"][0, 1] = 99.0
    h.graph["meta"]["source"].append("changed")
    for _, _, d in h.edges(data=True):
        d.get("hist", []).append("changed")


def test_simulated_graphs_do_not_share_attributes_with_the_input():
    g = _graph()
    nodes0, graph0 = _snapshot(g)
    model = ef.ERGM(g, "edges + nodematch('grade')")
    sims = model.simulate([-0.5, 0.2], n=2, burnin=100, interval=10, random_state=1)
    for h in sims:
        _mutate(h)
    nodes1, graph1 = _snapshot(g)
    assert nodes1 == nodes0
    assert np.array_equal(graph1["m"], graph0["m"]) and graph1["meta"] == graph0["meta"]
    assert [d["hist"] for _, _, d in g.edges(data=True)] == [[u, v] for u, v in g.edges]
    # nor with each other, nor with the model's network
    assert sims[1].nodes[0]["tags"] == [0, "x", "changed"]
    assert model.network.node_attrs["tags"][0] == [0, "x"]


def test_network_does_not_hold_the_callers_objects():
    g = _graph()
    net = Network.from_networkx(g)
    g.nodes[0]["tags"].append("later")
    g.graph["m"][0, 0] = 7.0
    assert net.node_attrs["tags"][0] == [0, "x"] and net.graph_attrs["m"][0, 0] == 1.0
    h = net.to_networkx()
    _mutate(h)
    assert net.node_attrs["tags"][1] == [1, "x"] and net.graph_attrs["m"][0, 1] == 0.0
    assert net.edge_attrs["hist"][0] == [0, 1]
    w = net.with_ties([(0, 2)])
    w.node_attrs["info"][0]["age"] = 0
    w.graph_attrs["m"][2, 2] = 5.0
    assert net.node_attrs["info"][0] == {"age": 20} and net.graph_attrs["m"][2, 2] == 1.0


# ---------------------------------------------------------------------------
# warnings point at the caller's line (#22 item 6)
# ---------------------------------------------------------------------------
import warnings  # noqa: E402

import pytest  # noqa: E402


def test_warnings_point_at_the_users_line(tmp_path):
    g = nx.Graph()
    g.add_edge(1, 2, weight=3.0)
    g.add_edge(2, 3, weight=1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ef.as_network(g, weights="ignore")
    assert [w.filename for w in caught] == [__file__], [(w.filename, w.lineno) for w in caught]
    path = tmp_path / "ties.csv"
    path.write_text("source,target\n1,2\n1,2\n2,3\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ef.read_network(path, directed=True, duplicates="merge")
    assert caught and all(w.filename == __file__ for w in caught), \
        [(w.filename, w.lineno) for w in caught]


def test_warnings_through_the_model_point_at_the_users_line():
    g = nx.Graph()
    g.add_edge(1, 2, weight=3.0)
    with pytest.warns(UserWarning, match="weights are ignored") as rec:
        ef.ERGM(g, "edges", weights="ignore")          # ERGM -> as_network -> from_networkx
    assert [w.filename for w in rec] == [__file__]
