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


# -- Epinions: the bundled file is SNAP's soc-Epinions1.txt, losslessly compressed ---------------
SNAP_EPINIONS = "/work/shared/data/epinions/soc-Epinions1.txt"
SNAP_EPINIONS_SHA256 = "3e42b000e66cada74053ac7f8b24de291f9837264421dc2f3730b45cc58d17b1"


def _bundled_epinions_blob():
    from ergmfit.datasets import _EPINIONS_FILE, _open
    return _open(_EPINIONS_FILE).read_bytes()


def test_bundled_epinions_decodes_to_snaps_file_byte_for_byte():
    # the sha256 data/README.md gives for SNAP's uncompressed soc-Epinions1.txt
    import hashlib
    from ergmfit.datasets import _decode_arc_list
    text = _decode_arc_list(_bundled_epinions_blob())
    assert hashlib.sha256(text).hexdigest() == SNAP_EPINIONS_SHA256


def test_bundled_epinions_arcs_are_the_source_files():
    import os
    import numpy as np
    if not os.path.exists(SNAP_EPINIONS):
        pytest.skip(f"the SNAP source file {SNAP_EPINIONS} is not on this machine")
    source = np.loadtxt(SNAP_EPINIONS, dtype=np.int64, comments="#")
    net = ef.datasets.load_network("epinions")
    arcs = np.asarray(net.labels)[np.asarray(net.ties)]
    assert len(source) == 508837 and net.n == 75879 and arcs.shape == source.shape

    def by_rows(a):
        return a[np.lexsort((a[:, 1], a[:, 0]))]
    np.testing.assert_array_equal(by_rows(arcs), by_rows(source))


@pytest.mark.parametrize("text", [b"", b"# only a header\n", b"# h\r\n0\t4\r\n0\t5\r\n3\t1\r\n",
                                  b"1\t2\n1\t7\n0\t3\n"])
def test_arc_list_round_trips(text):
    from ergmfit.datasets import _decode_arc_list, _encode_arc_list
    assert _decode_arc_list(_encode_arc_list(text)) == text


@pytest.mark.parametrize("text", [b"0\t5\n0\t4\n", b"0\t1\n1\t2\n0\t3\n", b"0\t1\r\n0\t2\n"])
def test_arc_list_refuses_what_it_cannot_restore(text):
    from ergmfit.datasets import _encode_arc_list
    with pytest.raises(ef.ErgmfitError, match="arc list"):
        _encode_arc_list(text)
