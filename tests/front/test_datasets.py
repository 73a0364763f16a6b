"""Bundled datasets load, as networkx graphs and as Networks."""
import networkx as nx
import pytest

import ergmfit as ef
from ergmfit.network import Network


@pytest.mark.parametrize("name", [n for n in ef.datasets.names() if n != "epinions"])
def test_every_dataset_loads_as_networkx(name):
    info = ef.datasets.info(name)
    g = ef.datasets.load(name)
    assert g.number_of_nodes() == info.n_nodes and g.number_of_edges() == info.n_edges
    assert g.is_directed() == info.directed
    net = ef.datasets.load(name, as_network=True)
    assert net.n == info.n_nodes and net.n_ties == info.n_edges


def test_ecoli_self_attribute():
    # ecoli's node attribute 'self' (self-regulation) collided with add_node's own argument
    g = ef.datasets.load("ecoli1")
    assert "self" in g.nodes[1]
    assert sum(1 for _, d in g.nodes(data=True) if d["self"] is True) > 0
    assert ef.datasets.load("ecoli2").number_of_nodes() == 418


def test_any_attribute_name_survives_to_networkx():
    names = ["self", "n", "node_for_adding", "u", "v", "u_of_edge", "v_of_edge", "attr", "key"]
    net = Network(3, [(0, 1), (1, 2)], directed=False,
                  node_attrs={a: [1, 2, 3] for a in names},
                  edge_attrs={a: ["x", "y"] for a in names})
    g = net.to_networkx()
    assert g.nodes[2] == {a: 3 for a in names}
    assert g.edges[1, 2] == {a: "y" for a in names}
    back = Network.from_networkx(g)
    assert back.node_attrs == net.node_attrs and back.edge_attrs == net.edge_attrs
    assert isinstance(g, nx.Graph)
