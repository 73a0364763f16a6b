"""Reading networks: round trips of the bundled data through every format, every bad input
and its error, caller objects left alone, and fuzzing of the text readers."""
import gzip
import os
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ergmfit as ef
from ergmfit.exceptions import DataFormatError, ErgmfitError, NetworkError
from ergmfit.network import Network
from ergmfit.network.io import (from_adjacency, load_any, read_estimnet_attributes,
                                read_network)
from support.memory import traced_peak


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def lazega():
    return ef.datasets.load_network("lazega")


@pytest.fixture(scope="module")
def samplike():
    return ef.datasets.load_network("samplike")


def tie_set(net):
    """Ties as label pairs (unordered for undirected networks)."""
    pairs = [(net.labels[i], net.labels[j]) for i, j in net.ties]
    return {p if net.directed else frozenset(p) for p in pairs}


def node_table(net, attrs=None):
    """{label: {attr: value}} for the chosen attributes."""
    names = list(net.node_attrs) if attrs is None else attrs
    return {lab: {a: net.node_attrs[a][k] for a in names} for k, lab in enumerate(net.labels)}


def edge_table(net):
    out = {}
    for k, (i, j) in enumerate(net.ties):
        key = (net.labels[i], net.labels[j])
        out[key if net.directed else frozenset(key)] = {a: v[k] for a, v in net.edge_attrs.items()}
    return out


def assert_same(got, want, attrs=True, edge_attrs=True, labels=True):
    assert got.directed == want.directed
    assert got.n == want.n
    if labels:
        assert got.labels == want.labels
    assert tie_set(got) == tie_set(want)
    if attrs:
        assert node_table(got) == node_table(want)
    if edge_attrs:
        assert edge_table(got) == edge_table(want)


def csv_cell(v):
    if v is None:
        return "NA"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return '"' + v.replace('"', '""') + '"'
    return repr(v) if isinstance(v, float) else str(v)


def write_csv(net, tmp_path, stem="net"):
    """Edge and node CSV files of a Network, written by hand."""
    enames = list(net.edge_attrs)
    elines = [",".join(["source", "target"] + enames)]
    for k, (i, j) in enumerate(net.ties):
        elines.append(",".join([csv_cell(net.labels[i]), csv_cell(net.labels[j])]
                               + [csv_cell(net.edge_attrs[a][k]) for a in enames]))
    nnames = list(net.node_attrs)
    nlines = [",".join(["id"] + nnames)]
    for k, lab in enumerate(net.labels):
        nlines.append(",".join([csv_cell(lab)] + [csv_cell(net.node_attrs[a][k]) for a in nnames]))
    epath, npath = tmp_path / f"{stem}.edges.csv", tmp_path / f"{stem}.nodes.csv"
    epath.write_text("\n".join(elines) + "\n", encoding="utf-8")
    npath.write_text("\n".join(nlines) + "\n", encoding="utf-8")
    return epath, npath


def write(tmp_path, name, text):
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


# ---------------------------------------------------------------------------
# round trips
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["lazega", "samplike"])
def test_csv_round_trip_with_node_file(name, tmp_path):
    net = ef.datasets.load_network(name)
    e, n = write_csv(net, tmp_path)
    got = read_network(e, directed=net.directed, nodes=n)
    assert_same(got, net)
    # the node file's order is the node order, even when shuffled
    lines = n.read_text().splitlines()
    n.write_text("\n".join([lines[0]] + lines[1:][::-1]) + "\n")
    got = read_network(e, directed=net.directed, nodes=n)
    assert got.labels == net.labels[::-1]
    assert tie_set(got) == tie_set(net)
    assert node_table(got) == node_table(net)


def test_csv_round_trip_tsv_and_gzip(samplike, tmp_path):
    e, n = write_csv(samplike, tmp_path)
    tsv_e = write(tmp_path, "e.tsv", e.read_text().replace(",", "\t"))
    tsv_n = write(tmp_path, "n.tsv", n.read_text().replace(",", "\t"))
    assert_same(read_network(tsv_e, directed=True, nodes=tsv_n), samplike)
    gz = tmp_path / "e.csv.gz"
    gz.write_bytes(gzip.compress(e.read_bytes()))
    assert_same(read_network(gz, directed=True, nodes=n), samplike)


def test_csv_without_node_file_sorts_integer_ids(tmp_path):
    p = write(tmp_path, "e.csv", "source,target\n10,2\n2,3\n3,10\n")
    net = read_network(p, directed=True)
    assert net.labels == [2, 3, 10]
    assert tie_set(net) == {(10, 2), (2, 3), (3, 10)}
    assert net.node_attrs == {}


def test_csv_without_node_file_keeps_first_seen_order_for_text(tmp_path):
    p = write(tmp_path, "e.csv", 'from,to\nzoe,adam\nadam,"7"\nmia,zoe\n')
    net = read_network(p, directed=False)
    assert net.labels == ["zoe", "adam", "7", "mia"]   # a quoted id stays text
    assert tie_set(net) == {frozenset(p) for p in [("zoe", "adam"), ("adam", "7"), ("mia", "zoe")]}


def test_csv_named_columns_anywhere_and_edge_attributes(tmp_path):
    p = write(tmp_path, "e.csv", 'kind,target,source,w8\n"x",2,1,1.5\nNA,3,2,TRUE\n')
    net = read_network(p, directed=True)
    assert tie_set(net) == {(1, 2), (2, 3)}
    assert net.edge_attrs == {"kind": ["x", None], "w8": [1.5, True]}


def test_csv_isolates_from_node_file(tmp_path):
    e = write(tmp_path, "e.csv", "source,target\na,b\n")
    n = write(tmp_path, "n.csv", "id,size\nc,3\nb,2\na,1\n")
    net = read_network(e, directed=False, nodes=n)
    assert net.labels == ["c", "b", "a"]
    assert net.node_attrs == {"size": [3, 2, 1]}
    assert tie_set(net) == {frozenset(("a", "b"))}


def test_csv_quoting_rules(tmp_path):
    e = write(tmp_path, "e.csv",
              'source,target,note\n1,2,"a, ""quoted""\nnote"\n 2 , 3 ,  plain  \n')
    net = read_network(e, directed=True)
    assert net.edge_attrs["note"] == ['a, "quoted"\nnote', "plain"]
    assert tie_set(net) == {(1, 2), (2, 3)}


def test_csv_crlf_and_bom(tmp_path):
    p = write(tmp_path, "e.csv", "\ufeffsource,target\r\n1,2\r\n\r\n2,3\r\n".encode("utf-8"))
    net = read_network(p, directed=True)
    assert tie_set(net) == {(1, 2), (2, 3)}


@pytest.mark.parametrize("name", ["lazega", "samplike"])
def test_graphml_round_trip(name, tmp_path):
    net = ef.datasets.load_network(name)
    p = tmp_path / "g.graphml"
    nx.write_graphml(net.to_networkx(), p)
    got = read_network(p)
    assert_same(got, net)
    assert read_network(p, directed=net.directed).n == net.n


@pytest.mark.parametrize("name", ["lazega", "samplike"])
def test_gml_round_trip(name, tmp_path):
    net = ef.datasets.load_network(name)
    p = tmp_path / "g.gml"
    nx.write_gml(net.to_networkx(), p)
    got = read_network(p)
    assert_same(got, net, attrs=False)
    # GML has no booleans: networkx writes TRUE as 1
    want = {lab: {a: (int(v) if isinstance(v, bool) else v) for a, v in row.items()}
            for lab, row in node_table(net).items()}
    assert node_table(got) == want


def test_gml_without_labels_uses_ids(tmp_path):
    p = write(tmp_path, "g.gml", 'graph [\n directed 1\n node [ id 3 ]\n'
                                 ' node [ id 5 color "red" ]\n edge [ source 3 target 5 ]\n]\n')
    net = read_network(p)
    assert net.directed and net.labels == [3, 5]
    assert tie_set(net) == {(3, 5)} and net.node_attrs == {"color": [None, "red"]}


def estimnet_pajek(net):
    lines = [f"*vertices {net.n}", "*arcs" if net.directed else "*edges"]
    lines += [f"{i + 1} {j + 1}" for i, j in net.ties]
    return "\n".join(lines) + "\n"


def test_pajek_round_trip_lazega_with_estimnet_attributes(lazega, tmp_path):
    p = write(tmp_path, "lazega.net", estimnet_pajek(lazega))
    names = list(lazega.node_attrs)
    rows = [" ".join(names)] + [" ".join(str(lazega.node_attrs[a][k]) for a in names)
                                for k in range(lazega.n)]
    attr = write(tmp_path, "catattr.txt", "\n".join(rows) + "\n")
    got = read_network(p, nodes=attr)
    assert_same(got, lazega, edge_attrs=False)
    got = read_network(p, directed=False, nodes=[attr])
    assert_same(got, lazega, edge_attrs=False)


def test_pajek_round_trip_samplike_with_several_attribute_files(samplike, tmp_path):
    p = write(tmp_path, "samplike.net", estimnet_pajek(samplike))
    clo = samplike.node_attrs["cloisterville"]
    grp = samplike.node_attrs["group"]
    b = write(tmp_path, "binattr.txt", "cloisterville\n" + "\n".join(str(int(v)) for v in clo))
    c = write(tmp_path, "catattr.txt", "group\n" + "\n".join(grp) + "\n")
    got = read_network(p, nodes=[b, c])
    assert got.directed and tie_set(got) == tie_set(samplike)
    assert got.labels == samplike.labels
    assert got.node_attrs == {"cloisterville": [int(v) for v in clo], "group": grp}


def test_pajek_round_trip_networkx_writer(samplike, tmp_path):
    g = nx.DiGraph()
    g.add_nodes_from(samplike.labels)
    g.add_edges_from((samplike.labels[i], samplike.labels[j]) for i, j in samplike.ties)
    p = tmp_path / "s.net"
    nx.write_pajek(g, p)            # vertex lines "k label x y shape", weights "1.0"
    got = read_network(p)
    assert got.directed
    assert got.labels == samplike.labels
    assert tie_set(got) == tie_set(samplike)


def test_pajek_labels_comments_lists_and_partitions(tmp_path):
    text = ("% a comment\n*Network test\n*Vertices 4\n1 \"Ann Lee\" 0.1 0.2\n2 \"Bob\"\n"
            "3 \"Cy\"\n4 \"Di\"\n*Edgeslist\n1 2 3\n\n*Edges\n3 4 1\n"
            "*Partition sex.clu\n*Vertices 4\n1\n2\n2\n1\n*Vector age\n*Vertices 4\n30.5\n"
            "40\nNA\n22\n")
    net = read_network(write(tmp_path, "t.paj", text))
    assert not net.directed
    assert net.labels == ["Ann Lee", "Bob", "Cy", "Di"]
    assert tie_set(net) == {frozenset(p) for p in
                            [("Ann Lee", "Bob"), ("Ann Lee", "Cy"), ("Cy", "Di")]}
    assert net.node_attrs == {"sex": [1, 2, 2, 1], "age": [30.5, 40, None, 22]}


def test_pajek_without_ties_needs_directed(tmp_path):
    p = write(tmp_path, "e.net", "*vertices 3\n")
    with pytest.raises(NetworkError, match="--directed or --undirected"):
        read_network(p)
    net = read_network(p, directed=True)
    assert net.n == 3 and net.n_ties == 0 and net.labels == [1, 2, 3]


def test_estimnet_attribute_file(tmp_path):
    p = write(tmp_path, "a.txt", "gender  age\tset\n1 30 1,2\nNA 2.5 none\n0 NA 3\n")
    assert read_estimnet_attributes(p) == {"gender": [1, None, 0], "age": [30, 2.5, None],
                                           "set": ["1,2", "none", 3]}


def test_unicode_attribute_names(tmp_path):
    e = write(tmp_path, "e.csv", "source,target,Stärke\nä,ö,1.5\n")
    n = write(tmp_path, "n.csv", "id,Größe,年龄\nä,1,\"日本\"\nö,2,NA\n")
    net = read_network(e, directed=False, nodes=n)
    assert net.labels == ["ä", "ö"]
    assert net.node_attrs == {"Größe": [1, 2], "年龄": ["日本", None]}
    assert net.edge_attrs == {"Stärke": [1.5]}
    a = write(tmp_path, "a.txt", "Größe 年龄\n1 2\n3 4\n")
    assert read_estimnet_attributes(a) == {"Größe": [1, 3], "年龄": [2, 4]}
    g = nx.Graph()
    g.add_node("x", **{"Größe": 3})
    g.add_node("y", **{"Größe": 4})
    g.add_edge("x", "y")
    nx.write_graphml(g, tmp_path / "u.graphml")
    assert read_network(tmp_path / "u.graphml").node_attrs == {"Größe": [3, 4]}
    # and they reach the terms
    m = ef.ERGM(net, "edges")
    assert m.statistics() == {"edges": 1.0}


def test_huge_integers(tmp_path):
    big = 10 ** 30
    e = write(tmp_path, "e.csv", f"source,target,x\n{big},1,{big * 7}\n1,{-big},1\n")
    net = read_network(e, directed=True)
    assert net.labels == [-big, 1, big]
    assert tie_set(net) == {(big, 1), (1, -big)}
    assert net.edge_attrs["x"] == [big * 7, 1]
    p = write(tmp_path, "h.net", "*vertices 99999999999999999999999\n")
    with pytest.raises(NetworkError, match="more nodes than ergmfit handles"):
        read_network(p, directed=True)
    p = write(tmp_path, "v.net", "*vertices 3\n*arcs\n1 99999999999999999999999\n")
    with pytest.raises(DataFormatError, match=r"line 3: vertex 9+ is outside 1\.\.3"):
        read_network(p)
    a = np.array([[0, big], [0, 0]], dtype=object)
    with pytest.raises(NetworkError, match="non-binary value 1000000000000000000000000000000"):
        from_adjacency(a, directed=True)


# ---------------------------------------------------------------------------
# bad inputs: each with its error
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["e.csv", "e.net", "e.graphml", "e.gml"])
@pytest.mark.parametrize("content", ["", "  \n\n"])
def test_empty_file(name, content, tmp_path):
    with pytest.raises(DataFormatError, match="is empty"):
        read_network(write(tmp_path, name, content), directed=True)


def test_empty_node_and_attribute_files(tmp_path):
    e = write(tmp_path, "e.csv", "source,target\n1,2\n")
    with pytest.raises(DataFormatError, match="n.csv is empty"):
        read_network(e, directed=True, nodes=write(tmp_path, "n.csv", ""))
    with pytest.raises(DataFormatError, match="a.txt is empty"):
        read_estimnet_attributes(write(tmp_path, "a.txt", "\n"))


def test_header_only_edge_list_without_node_file(tmp_path):
    with pytest.raises(NetworkError, match="no nodes"):
        read_network(write(tmp_path, "e.csv", "source,target\n"), directed=True)


def test_missing_columns(tmp_path):
    with pytest.raises(DataFormatError, match="at least two columns"):
        read_network(write(tmp_path, "e.csv", "source\n1\n2\n"), directed=True)


def test_missing_header(tmp_path):
    with pytest.raises(DataFormatError, match="line 1: expected a header line"):
        read_network(write(tmp_path, "e.csv", "1,2\n2,3\n"), directed=True)


def test_header_problems(tmp_path):
    with pytest.raises(DataFormatError, match="'a' appears twice"):
        read_network(write(tmp_path, "e.csv", "source,target,a,a\n1,2,3,4\n"), directed=True)
    with pytest.raises(DataFormatError, match="column 3 of the header has no name"):
        read_network(write(tmp_path, "e.csv", "source,target,\n1,2,3\n"), directed=True)


@pytest.mark.parametrize("text, match", [
    ("source,target\n1,2\n2,3,4\n", r"line 3: expected 2 field\(s\) \(source,target\), found 3"),
    ("source,target\n\n1\n", r"line 3: expected 2 field"),
    ('source,target\n1,"2\n3,4\n', r"line 2: a quoted field is never closed"),
    ('source,target\n1,"2"x\n', r"line 2: unexpected text 'x' after a closing quote"),
    ("source,target\n1,NA\n", r"line 2: missing node id"),
    ("source,target\n,2\n", r"line 2: missing node id"),
])
def test_csv_line_that_does_not_parse(text, match, tmp_path):
    with pytest.raises(DataFormatError, match=match):
        read_network(write(tmp_path, "e.csv", text), directed=True)


@pytest.mark.parametrize("text, match", [
    ("*vertices 3\n*arcs\n1 x\n", r"line 3: expected a vertex number \(a whole number\), "
                                 r"found 'x'"),
    ("*vertices 3\n*arcs\n1\n", r"line 3: expected two vertex numbers"),
    ("*vertices 3\n*arcs\n1 4\n", r"line 3: vertex 4 is outside 1\.\.3"),
    ("*vertices 3\n*arcs\n0 1\n", r"line 3: vertex 0 is outside 1\.\.3"),
    ("*vertices 3\n*arcs\n1 2 heavy\n", r"line 3: expected a weight"),
    ("*vertices x\n", r"line 1: expected the number of vertices"),
    ("*vertices\n", r"line 1: \*vertices needs the number"),
    ("1 2\n", r"line 1: expected '\*vertices N'"),
    ("*arcs\n1 2\n", r"line 1: \*arcs before \*vertices"),
    ("*vertices 2\n*vertices 2\n", r"line 2: a second \*vertices"),
    ("*vertices 2\n1 a\n1 b\n", r"line 3: vertex 1 is listed twice"),
    ("*vertices 2\n*matrix\n0 1\n1 0\n", r"\*matrix sections are not supported"),
    ("*vertices 2\n*bogus\n", r"unknown Pajek section '\*bogus'"),
    ("*vertices 2\n*arcs\n1 2\n*edges\n1 2\n", r"mixes \*arcs and \*edges"),
    ("*vertices 2\n*arcs\n*partition p\n*vertices 3\n1\n1\n1\n", r"has 3 vertices, the network 2"),
    ("*vertices 2\n*arcs\n*partition p\n*vertices 2\n1\n", r"has 1 value\(s\) for 2 vertices"),
    ("% nothing\n", r"no '\*vertices N' line"),
])
def test_pajek_line_that_does_not_parse(text, match, tmp_path):
    with pytest.raises(DataFormatError, match=match):
        read_network(write(tmp_path, "e.net", text))


def test_pajek_bipartite_and_no_nodes(tmp_path):
    with pytest.raises(NetworkError, match="two-mode"):
        read_network(write(tmp_path, "b.net", "*vertices 10 4\n*edges\n1 5\n"))
    with pytest.raises(NetworkError, match="no nodes"):
        read_network(write(tmp_path, "z.net", "*vertices 0\n*arcs\n"))


def test_not_utf8(tmp_path):
    with pytest.raises(DataFormatError, match=r"line 2: not UTF-8 text \(byte 0xff\)"):
        read_network(write(tmp_path, "e.csv", b"source,target\n\xff,1\n"), directed=True)


def test_invalid_graphml_and_gml(tmp_path):
    with pytest.raises(DataFormatError, match="not a valid GraphML file"):
        read_network(write(tmp_path, "g.graphml", "<graphml><graph><node"))
    with pytest.raises(DataFormatError, match="not a valid GML file"):
        read_network(write(tmp_path, "g.gml", "graph [ node [ id 1 "))


def test_unknown_format_and_fmt_override(tmp_path):
    p = write(tmp_path, "edges.txt", "source,target\n1,2\n")
    with pytest.raises(NetworkError, match="cannot tell the format of 'edges.txt'.*--format"):
        read_network(p, directed=True)
    assert read_network(p, directed=True, fmt="csv").n_ties == 1
    with pytest.raises(NetworkError, match="unknown file format 'xls'"):
        read_network(p, directed=True, fmt="xls")


def test_missing_file_and_unknown_name(tmp_path):
    with pytest.raises(DataFormatError, match="no such file"):
        read_network(tmp_path / "nope.csv", directed=True)
    with pytest.raises(NetworkError, match="Did you mean 'lazega'"):
        load_any("lazga")
    with pytest.raises(DataFormatError, match="cannot read"):
        read_network(tmp_path, fmt="csv", directed=True)   # a directory


def test_csv_requires_directedness(tmp_path):
    p = write(tmp_path, "e.csv", "source,target\n1,2\n")
    with pytest.raises(NetworkError, match=r"pass directed=True or directed=False \(command line: "
                                           r"--directed or --undirected\)"):
        read_network(p)
    with pytest.raises(NetworkError, match="directed must be True or False"):
        read_network(p, directed="yes")


def test_directedness_must_agree(tmp_path, lazega):
    with pytest.raises(NetworkError, match="'samplike' is directed, but directed=False"):
        load_any("samplike", directed=False)
    p = tmp_path / "g.graphml"
    nx.write_graphml(lazega.to_networkx(), p)
    with pytest.raises(NetworkError, match="is undirected, but directed=True"):
        read_network(p, directed=True)
    q = write(tmp_path, "a.net", "*vertices 2\n*arcs\n1 2\n")
    with pytest.raises(NetworkError, match=r"has \*arcs\) is directed, but directed=False"):
        read_network(q, directed=False)
    with pytest.raises(NetworkError, match="is undirected, but directed=True"):
        load_any(lazega, directed=True)
    with pytest.raises(NetworkError, match="is directed, but directed=False"):
        load_any(nx.DiGraph([(1, 2)]), directed=False)


def test_self_loops(tmp_path):
    with pytest.raises(NetworkError, match=r"e.csv, line 3: self-loop at node 'b'"):
        read_network(write(tmp_path, "e.csv", "source,target\na,b\nb,b\n"), directed=True)
    with pytest.raises(NetworkError, match=r"e.net, line 3: self-loop at node 2"):
        read_network(write(tmp_path, "e.net", "*vertices 2\n*arcs\n2 2\n"))
    with pytest.raises(NetworkError, match=r"diagonal entry \[1, 1\]"):
        from_adjacency(np.array([[0, 1], [1, 1]]), directed=True)
    with pytest.raises(NetworkError, match=r"diagonal entry \[0, 0\]"):
        from_adjacency(sp.csr_matrix(np.eye(2)), directed=True)
    g = nx.Graph([(1, 1), (1, 2)])
    nx.write_graphml(g, tmp_path / "l.graphml")
    with pytest.raises(NetworkError, match="self-loop"):
        read_network(tmp_path / "l.graphml")


def test_duplicate_ties_directed(tmp_path):
    p = write(tmp_path, "e.csv", "source,target,w\n1,2,a\n2,1,b\n1,2,c\n")
    with pytest.raises(NetworkError, match=r"line 4 repeats the tie 1 -> 2 of e.csv, line 2; .*"
                                           r"duplicates='merge'"):
        read_network(p, directed=True)
    with pytest.warns(UserWarning, match=r"1 tie\(s\) are listed more than once"):
        net = read_network(p, directed=True, duplicates="merge")
    assert edge_table(net) == {(1, 2): {"w": "a"}, (2, 1): {"w": "b"}}


def test_duplicate_ties_undirected(tmp_path):
    # i-j and j-i both listed with the same values: one tie, merged with a warning (as
    # statnet does)
    p = write(tmp_path, "e.csv", "source,target,w\n1,2,a\n2,3,b\n2,1,a\n")
    with pytest.warns(UserWarning, match=r"1 tie\(s\) of the undirected network are listed in "
                                         r"both directions \(e.g. e.csv, line 2 and e.csv, "
                                         r"line 4\)"):
        net = read_network(p, directed=False)
    assert edge_table(net) == {frozenset((1, 2)): {"w": "a"}, frozenset((2, 3)): {"w": "b"}}
    # the same orientation twice is a repeated line: an error
    q = write(tmp_path, "f.csv", "source,target\n1,2\n1,2\n")
    with pytest.raises(NetworkError, match=r"line 3 repeats the tie 1 -- 2"):
        read_network(q, directed=False)
    r = write(tmp_path, "g.net", "*vertices 3\n*edges\n1 2\n2 1\n")
    with pytest.warns(UserWarning, match="both directions"):
        assert read_network(r).n_ties == 1
    s = write(tmp_path, "h.net", "*vertices 3\n*arcs\n1 2\n1 2\n")
    with pytest.raises(NetworkError,
                       match=r"h.net, line 4 repeats the tie 1 -> 2 of h.net, line 3"):
        read_network(s)


def test_undirected_pair_both_ways_with_different_values(tmp_path):
    # 1,2,3 and 2,1,5: one pair, two values; keeping the first would silently drop one, so
    # duplicates='error' (the default) refuses it naming the pair; 'merge' keeps the first
    p = write(tmp_path, "e.csv", "source,target,value\n1,2,3\n2,3,1\n2,1,5\n")
    with pytest.raises(NetworkError, match=r"e.csv, line 4 lists the pair 2 -- 1 of e.csv, "
                                           r"line 2 the other way round with a different "
                                           r"'value' \(5, there 3\)"):
        read_network(p, directed=False)
    with pytest.warns(UserWarning, match="both directions"):
        net = read_network(p, directed=False, duplicates="merge")
    assert edge_table(net) == {frozenset((1, 2)): {"value": 3}, frozenset((2, 3)): {"value": 1}}
    # a kept weight column (count-valued models) is a value like any other
    q = write(tmp_path, "w.csv", "source,target,weight\n1,2,3\n2,1,5\n")
    with pytest.raises(NetworkError, match="different 'weight'"):
        read_network(q, directed=False, weights="keep")
    # both missing is the same value
    r = write(tmp_path, "m.csv", "source,target,value\n1,2,NA\n2,1,NA\n")
    with pytest.warns(UserWarning, match="both directions"):
        assert read_network(r, directed=False).n_ties == 1


def test_duplicate_ties_graphml(tmp_path):
    g = nx.MultiDiGraph([(1, 2), (1, 2), (2, 3)])
    nx.write_graphml(g, tmp_path / "m.graphml")
    with pytest.raises(NetworkError, match=r"m.graphml, line 8 \(edge 2\) repeats the tie 1 -> 2 "
                                           r"of m.graphml, line 7 \(edge 1\)"):
        read_network(tmp_path / "m.graphml")
    with pytest.warns(UserWarning, match=r"1 tie\(s\) are listed more than once"):
        assert read_network(tmp_path / "m.graphml", duplicates="merge").n_ties == 2


def graphml(directed, edges):
    """A GraphML file by hand: nodes 1, 2, 3; ``edges`` (source, target, w) one a line from
    line 7 on, in this order."""
    head = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
            '<key id="w" for="edge" attr.name="w" attr.type="int"/>\n'
            f'<graph edgedefault="{"directed" if directed else "undirected"}">\n'
            '<node id="1"/><node id="2"/>\n<node id="3"/>\n')
    body = "".join(f'<edge source="{s}" target="{t}"><data key="w">{w}</data></edge>\n'
                   for s, t, w in edges)
    return head + body + "</graph>\n</graphml>\n"


def test_graphml_repeated_ties_follow_the_edge_list_rule(tmp_path):
    # a tie listed twice: the CSV reader's error naming both lines, and with
    # duplicates='merge' its warning and the FIRST listing's attributes (before: "lists the
    # tie '1' - '2' (and possibly others)", and the merge kept the last listing's)
    p = write(tmp_path, "d.graphml", graphml(True, [(1, 2, 1), (2, 3, 2), (1, 2, 5)]))
    with pytest.raises(NetworkError, match=r"d.graphml, line 9 \(edge 3\) repeats the tie "
                                           r"1 -> 2 of d.graphml, line 7 \(edge 1\); "
                                           r".*duplicates='merge'"):
        read_network(p)
    with pytest.warns(UserWarning, match=r"1 tie\(s\) are listed more than once \(e.g. "
                                         r"d.graphml, line 9 \(edge 3\)\); each was kept "
                                         r"once, with the first listing's attributes"):
        net = read_network(p, duplicates="merge")
    assert edge_table(net) == {(1, 2): {"w": 1}, (2, 3): {"w": 2}}
    # undirected: a pair listed both ways is one tie (a warning), an error if the values
    # differ, unless 'merge' (the first kept), as for an edge list
    q = write(tmp_path, "u.graphml", graphml(False, [(1, 2, 3), (2, 3, 1), (2, 1, 3)]))
    with pytest.warns(UserWarning, match=r"listed in both directions \(e.g. u.graphml, line 7 "
                                         r"\(edge 1\) and u.graphml, line 9 \(edge 3\)\)"):
        assert edge_table(read_network(q)) == {frozenset((1, 2)): {"w": 3},
                                               frozenset((2, 3)): {"w": 1}}
    r = write(tmp_path, "v.graphml", graphml(False, [(1, 2, 3), (2, 3, 1), (2, 1, 5)]))
    with pytest.raises(NetworkError, match=r"v.graphml, line 9 \(edge 3\) lists the pair 2 -- 1 "
                                           r"of v.graphml, line 7 \(edge 1\) the other way "
                                           r"round with a different 'w' \(5, there 3\)"):
        read_network(r)
    with pytest.warns(UserWarning, match="both directions"):
        net = read_network(r, duplicates="merge")
    assert edge_table(net) == {frozenset((1, 2)): {"w": 3}, frozenset((2, 3)): {"w": 1}}


def test_gml_repeated_ties_follow_the_edge_list_rule(tmp_path):
    # before: a repeated edge in a GML file without "multigraph 1" was "not a valid GML
    # file" even under duplicates='merge', and with it the merge kept the LAST listing
    for head in ("", "multigraph 1\n"):
        p = write(tmp_path, "d.gml", "graph [\ndirected 1\n" + head +
                  'node [ id 1 label "a" ]\nnode [ id 2 label "b" ]\n'
                  "edge [ source 1 target 2 w 1 ]\nedge [ source 1 target 2 w 5 ]\n]\n")
        # session 21: named by line, as the CSV and GraphML readers do (before: "d.gml lists
        # the tie 'a' - 'b' (and possibly others) more than once")
        at = 6 + head.count("\n")
        with pytest.raises(NetworkError, match=rf"d.gml, line {at} \(edge 2\) repeats the tie "
                                               rf"'a' -> 'b' of d.gml, line {at - 1} \(edge 1\); "
                                               r".*duplicates='merge'"):
            read_network(p)
        with pytest.warns(UserWarning, match=rf"1 tie\(s\) are listed more than once \(e.g. "
                                             rf"d.gml, line {at} \(edge 2\)\); .*first "
                                             r"listing's attributes"):
            net = read_network(p, duplicates="merge")
        assert edge_table(net) == {("a", "b"): {"w": 1}}


def test_gml_repeated_ties_are_named_by_line_ids_comments_and_both_ways(tmp_path):
    # nodes without labels (networkx's keys: the ids), a comment line, an edge over several
    # lines (its line is that of "edge"); undirected, a pair listed both ways with another
    # value is the edge-list reader's error naming both lines
    p = write(tmp_path, "u.gml", "graph [\nnode [ id 1 ]\nnode [ id 2 ]\nnode [ id 3 ]\n"
              "# a comment [ with brackets ]\nedge [ source 1 target 2 w 1 ]\n"
              "edge [ source 2 target 3 w 1 ]\nedge [\n  source 2\n  target 1\n  w 4\n]\n]\n")
    with pytest.raises(NetworkError, match=r"u.gml, line 8 \(edge 3\) lists the pair 2 -- 1 of "
                                           r"u.gml, line 6 \(edge 1\) the other way round with "
                                           r"a different 'w' \(4, there 1\)"):
        read_network(p)
    with pytest.warns(UserWarning, match=r"both directions \(e.g. u.gml, line 6 \(edge 1\) "
                                         r"and u.gml, line 8 \(edge 3\)\)"):
        assert edge_table(read_network(p, duplicates="merge")) == {
            frozenset((1, 2)): {"w": 1}, frozenset((2, 3)): {"w": 1}}


def test_ids_missing_from_node_file(tmp_path):
    e = write(tmp_path, "e.csv", "source,target\na,b\nb,c\nd,a\n")
    n = write(tmp_path, "n.csv", "id,x\na,1\nb,2\n")
    with pytest.raises(NetworkError, match=r"2 node id\(s\) in the edge list are not in the node "
                                           r"file: 'c', 'd'"):
        read_network(e, directed=True, nodes=n)
    # quoted "1" in one file and 1 in the other: named as the likely cause
    e2 = write(tmp_path, "e2.csv", "source,target\n1,2\n")
    n2 = write(tmp_path, "n2.csv", 'id\n"1"\n"2"\n')
    with pytest.raises(NetworkError, match="quote the ids in both files or in neither"):
        read_network(e2, directed=True, nodes=n2)


def test_node_file_problems(tmp_path):
    e = write(tmp_path, "e.csv", "source,target\na,b\n")
    with pytest.raises(DataFormatError, match=r"n.csv, line 3: node id 'a' appears twice "
                                              r"\(first at n.csv, line 2\)"):
        read_network(e, directed=True, nodes=write(tmp_path, "n.csv", "id\na\na\nb\n"))
    with pytest.raises(DataFormatError, match=r"m.csv, line 3: expected 2 field"):
        read_network(e, directed=True, nodes=write(tmp_path, "m.csv", "id,x\na,1\nb\n"))
    with pytest.raises(NetworkError, match="one node CSV file"):
        read_network(e, directed=True, nodes=["n.csv", "m.csv"])
    g = tmp_path / "g.graphml"
    nx.write_graphml(nx.path_graph(3), g)
    with pytest.raises(NetworkError, match="nodes= is for edge-list CSV and Pajek files"):
        read_network(g, nodes=e)


def test_estimnet_attribute_problems(tmp_path):
    with pytest.raises(DataFormatError, match=r"a.txt, line 3: expected 2 value\(s\) \(x y\), "
                                              r"found 1"):
        read_estimnet_attributes(write(tmp_path, "a.txt", "x y\n1 2\n3\n"))
    p = write(tmp_path, "p.net", "*vertices 3\n*arcs\n1 2\n")
    short = write(tmp_path, "b.txt", "x\n1\n0\n")
    with pytest.raises(DataFormatError, match=r"b.txt: attribute 'x' has 2 value\(s\) for the 3 "
                                              r"vertices"):
        read_network(p, nodes=short)
    other = write(tmp_path, "c.txt", "x\n1\n0\n1\n")
    with pytest.raises(DataFormatError, match="'x' is given in more than one attribute file"):
        read_network(p, nodes=[other, other])


def test_weights(tmp_path):
    ones = write(tmp_path, "o.csv", "source,target,weight\n1,2,1\n2,3,1.0\n")
    net = read_network(ones, directed=True)
    assert net.edge_attrs == {}                   # all-1 weights carry no information
    w = write(tmp_path, "w.csv", "source,target,weight\n1,2,1\n2,3,2.5\n")
    with pytest.raises(NetworkError, match=r"w.csv, line 3: the weight 2.5 is not 1; .*"
                                           r"weights='ignore'"):
        read_network(w, directed=True)
    with pytest.warns(UserWarning, match="weights are ignored"):
        net = read_network(w, directed=True, weights="ignore")
    assert net.n_ties == 2 and net.edge_attrs == {}
    nan = write(tmp_path, "nan.csv", "source,target,weight\n1,2,NaN\n")
    with pytest.raises(NetworkError, match=r"line 2: the weight nan is not 1"):
        read_network(nan, directed=True)
    na = write(tmp_path, "na.csv", "source,target,Weight\n1,2,NA\n")
    with pytest.raises(NetworkError, match=r"line 2: the weight None is not 1"):
        read_network(na, directed=True)
    p = write(tmp_path, "w.net", "*vertices 2\n*arcs\n1 2 3\n")
    with pytest.raises(NetworkError, match=r"w.net, line 3: the weight 3 is not 1"):
        read_network(p)
    assert read_network(write(tmp_path, "o.net", "*vertices 2\n*arcs\n1 2 1.0\n")).n_ties == 1
    g = nx.Graph()
    g.add_edge(1, 2, weight=4)
    nx.write_graphml(g, tmp_path / "w.graphml")
    with pytest.raises(NetworkError, match="edge weights other than 1"):
        read_network(tmp_path / "w.graphml")
    with pytest.raises(NetworkError, match="weights must be one of"):
        read_network(ones, directed=True, weights="sum")


# ---------------------------------------------------------------------------
# adjacency matrices
# ---------------------------------------------------------------------------

def test_adjacency_dense():
    a = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    und = from_adjacency(a, directed=False)
    assert und.directed is False and tie_set(und) == {frozenset((0, 1)), frozenset((1, 2))}
    d = from_adjacency(a, directed=True)      # symmetric but directed: mutual arcs
    assert d.directed and tie_set(d) == {(0, 1), (1, 0), (1, 2), (2, 1)}
    b = from_adjacency(a.astype(bool), directed=False)
    assert tie_set(b) == tie_set(und)
    f = from_adjacency(a.astype(float), directed=False)
    assert tie_set(f) == tie_set(und)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        m = np.asmatrix(a)
    assert tie_set(load_any(m, directed=False)) == tie_set(und)


def test_adjacency_sparse():
    a = np.array([[0, 1, 1], [0, 0, 0], [1, 0, 0]])
    for fmt in (sp.csr_matrix, sp.coo_matrix, sp.lil_matrix, sp.csr_array):
        net = load_any(fmt(a), directed=True)
        assert tie_set(net) == {(0, 1), (0, 2), (2, 0)}
    s = sp.csr_matrix(((a + a.T) > 0).astype(int))
    assert tie_set(from_adjacency(s, directed=False)) == {frozenset((0, 1)), frozenset((0, 2))}
    with pytest.raises(NetworkError, match=r"not symmetric \(\[0, 1\] is 1 but \[1, 0\] is 0\)"):
        from_adjacency(sp.csr_matrix(a), directed=False)
    z = sp.csr_matrix((np.array([0]), (np.array([0]), np.array([1]))), shape=(2, 2))
    assert z.nnz == 1                            # an explicit zero is no tie
    assert from_adjacency(z, directed=True).n_ties == 0
    with pytest.raises(NetworkError, match="non-binary value 2"):
        from_adjacency(sp.csr_matrix(np.array([[0, 2], [0, 0]])), directed=True)
    with pytest.raises(NetworkError, match=r"must be square"):
        from_adjacency(sp.csr_matrix(np.zeros((2, 3))), directed=True)


@pytest.mark.parametrize("a, match", [
    (np.array([[0, 2], [2, 0]]), r"non-binary value 2 at \[0, 1\]"),
    (np.array([[0, 0.5], [0.5, 0]]), r"non-binary value 0.5 at \[0, 1\]"),
    (np.array([[0, np.nan], [0, 0]]), r"non-binary value nan at \[0, 1\]"),
    (np.array([[0, -1], [-1, 0]]), r"non-binary value -1 at \[0, 1\]"),
    (np.array([[0, 1], [0, 0]]), r"not symmetric \(\[0, 1\] is 1 but \[1, 0\] is 0\)"),
    (np.zeros((2, 3)), r"must be square \(n x n\), got shape \(2, 3\)"),
    (np.zeros(4), r"must be square"),
    (np.zeros((0, 0)), r"no nodes"),
    (np.array([["0", "1"], ["1", "0"]]), r"must hold numbers .* got dtype <U1"),
    (np.array([[0, "x"], [1, 0]], dtype=object), r"non-numeric value 'x' at \[0, 1\]"),
    (np.array([[0, 1j], [1j, 0]]), r"got dtype complex"),
])
def test_adjacency_bad(a, match):
    with pytest.raises(NetworkError, match=match):
        from_adjacency(a, directed=False)


def test_adjacency_requires_directedness_and_weights_option():
    a = np.array([[0, 3], [3, 0]])
    with pytest.raises(NetworkError, match="pass directed=True or directed=False"):
        load_any(a)
    with pytest.warns(UserWarning, match="every nonzero entry is a tie"):
        net = from_adjacency(a, directed=False, weights="ignore")
    assert net.n_ties == 1
    with pytest.raises(NetworkError, match="nan"):      # NaN is never a weight
        from_adjacency(np.array([[0, np.nan], [np.nan, 0]]), directed=False, weights="ignore")


def test_caller_arrays_untouched():
    a = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    a.flags.writeable = False                    # any write would raise
    keep = a.copy()
    net = from_adjacency(a, directed=False)
    assert np.array_equal(a, keep) and not a.flags.writeable
    s = sp.coo_matrix((np.array([1, 1, 1, 1]), (np.array([0, 1, 0, 0]), np.array([1, 0, 2, 2]))),
                      shape=(3, 3))             # duplicate (0, 2) entries sum to 2
    before = (s.data.copy(), s.row.copy(), s.col.copy())
    with pytest.raises(NetworkError, match=r"non-binary value 2 at \[0, 2\]"):
        from_adjacency(s, directed=True)
    assert all(np.array_equal(x, y) for x, y in zip(before, (s.data, s.row, s.col)))
    net.ties[0, 0] = 99                          # the network owns its arrays
    assert np.array_equal(a, keep)


# ---------------------------------------------------------------------------
# pandas (optional dependency) and other inputs
# ---------------------------------------------------------------------------

def test_dataframe_edge_list():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"source": [1, 2, 3], "target": [2, 3, 1], "kind": ["a", None, "c"]})
    keep = df.copy()
    with pytest.raises(NetworkError, match="pass directed=True or directed=False"):
        load_any(df)
    net = load_any(df, directed=True)
    pd.testing.assert_frame_equal(df, keep)
    assert net.labels == [1, 2, 3]
    assert tie_set(net) == {(1, 2), (2, 3), (3, 1)}
    assert net.edge_attrs == {"kind": ["a", None, "c"]}
    nodes = pd.DataFrame({"id": [3, 2, 1, 4], "age": [30.0, np.nan, 22.5, 1.0]})
    keepn = nodes.copy()
    net = load_any(df, directed=False, nodes=nodes)
    pd.testing.assert_frame_equal(nodes, keepn)
    assert net.labels == [3, 2, 1, 4] and net.node_attrs == {"age": [30.0, None, 22.5, 1.0]}
    # an int column with a missing value is float in pandas: ids stay whole numbers
    df2 = pd.DataFrame({"from": [1.0, np.nan], "to": [2, 3]})
    with pytest.raises(DataFormatError, match=r"row 1: missing node id"):
        load_any(df2, directed=True)
    df3 = pd.DataFrame({"a": ["x", "y"], "b": ["y", "x"], "weight": [1, 2]})
    with pytest.raises(NetworkError, match=r"row 1: the weight 2 is not 1"):
        load_any(df3, directed=True)
    with pytest.raises(DataFormatError, match="at least two columns"):
        load_any(pd.DataFrame({"a": [1]}), directed=True)


def test_io_does_not_import_pandas():
    import ast
    import inspect
    from ergmfit.network import io as io_module
    tree = ast.parse(inspect.getsource(io_module))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {a.name for n in top for a in n.names} | {getattr(n, "module", None) for n in top}
    assert "pandas" not in names


@pytest.mark.parametrize("bad", [[[0, 1], [1, 0]], 42, {"a": 1}, None, b"lazega"])
def test_load_any_rejects_other_types(bad):
    with pytest.raises(NetworkError, match="cannot make a network from a"):
        load_any(bad)


def test_load_any_dispatch(tmp_path, lazega):
    assert load_any(lazega) is lazega
    assert tie_set(load_any("lazega")) == tie_set(lazega)
    g = nx.path_graph(3)
    assert load_any(g).n_ties == 2
    with pytest.raises(NetworkError, match="apply to files only"):
        load_any("lazega", nodes="x.csv")
    p = write(tmp_path, "e.csv", "source,target\n1,2\n")
    assert load_any(str(p), directed=True).n_ties == 1
    assert load_any(p, directed=True).n_ties == 1          # pathlib.Path
    # through the public entry points
    assert ef.ERGM(str(p), "edges", directed=True).statistics() == {"edges": 1.0}
    assert ef.as_network(p, directed=False).n_ties == 1


# ---------------------------------------------------------------------------
# fuzzing: the text readers raise only ergmfit's own errors
# ---------------------------------------------------------------------------

_FUZZ = settings(max_examples=60, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz"))


def _read_fuzz(fuzz_dir, data, suffix, **kw):
    path = os.path.join(fuzz_dir, "fuzz" + suffix)
    with open(path, "wb") as fh:
        fh.write(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            net = read_network(path, **kw)
    except ErgmfitError:
        return None
    assert isinstance(net, Network)
    assert net.ties.shape[1] == 2 and len(net.labels) == net.n
    return net


_CSV_ALPHABET = st.sampled_from(list('0123456789,"\n\r \tabNA-.TRUEFALS#é'))
_PAJ_PIECES = st.sampled_from(["*vertices ", "*arcs\n", "*edges\n", "*arcslist\n", "*partition p\n",
                               "*network x\n", "% c\n", "\n", " ", '"', "0", "1", "2", "3", "5",
                               "99", "-1", "1.5", "NA", "x", "*matrix\n", "*Vertices 3\n"])


@_FUZZ
@given(st.text(_CSV_ALPHABET, max_size=120), st.booleans(), st.booleans())
def test_fuzz_csv_text(fuzz_dir, text, header, directed):
    _read_fuzz(fuzz_dir, ("source,target\n" if header else "") + text, ".csv", directed=directed)


@_FUZZ
@given(st.lists(st.lists(st.sampled_from(["1", "2", "3", "a", '"b"', "NA", "", "1.5", "1", "-7"]),
                         min_size=0, max_size=4), max_size=8), st.booleans())
def test_fuzz_csv_rows(fuzz_dir, rows, directed):
    text = "source,target\n" + "\n".join(",".join(r) for r in rows)
    _read_fuzz(fuzz_dir, text, ".csv", directed=directed)


@_FUZZ
@given(st.binary(max_size=200))
def test_fuzz_csv_bytes(fuzz_dir, data):
    _read_fuzz(fuzz_dir, data, ".csv", directed=True)


@_FUZZ
@given(st.lists(_PAJ_PIECES, max_size=40), st.sampled_from([None, True, False]))
def test_fuzz_pajek_tokens(fuzz_dir, pieces, directed):
    _read_fuzz(fuzz_dir, "".join(pieces), ".net", directed=directed)


@_FUZZ
@given(st.text(max_size=150))
def test_fuzz_pajek_text(fuzz_dir, text):
    _read_fuzz(fuzz_dir, text, ".net")
    _read_fuzz(fuzz_dir, "*vertices 4\n*arcs\n" + text, ".net")


@_FUZZ
@given(st.binary(max_size=200))
def test_fuzz_pajek_bytes(fuzz_dir, data):
    _read_fuzz(fuzz_dir, data, ".net", directed=False)
    _read_fuzz(fuzz_dir, b"*vertices 3\n*edges\n" + data, ".net")


@_FUZZ
@given(st.integers(2, 6), st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), max_size=12),
       st.booleans())
def test_fuzz_pajek_agrees_with_csv(fuzz_dir, n, pairs, directed):
    """Valid random edge lists read the same as Pajek and as CSV (or fail alike)."""
    pairs = [(i, j) for i, j in pairs if i <= n and j <= n]
    paj = f"*vertices {n}\n{'*arcs' if directed else '*edges'}\n" + "".join(
        f"{i} {j}\n" for i, j in pairs)
    csv = "source,target\n" + "".join(f"{i},{j}\n" for i, j in pairs)
    nodes = os.path.join(fuzz_dir, "nodes.csv")
    with open(nodes, "w") as fh:
        fh.write("id\n" + "".join(f"{k}\n" for k in range(1, n + 1)))
    a = _read_fuzz(fuzz_dir, paj, ".net")
    b = _read_fuzz(fuzz_dir, csv, ".csv", directed=directed, nodes=nodes)
    assert (a is None) == (b is None)
    if a is not None:
        assert a.labels == b.labels == list(range(1, n + 1))
        assert tie_set(a) == tie_set(b)
        expect = {(i, j) if directed else frozenset((i, j)) for i, j in pairs}
        assert tie_set(a) == expect


# ---------------------------------------------------------------------------
# #24 item 5: decompression cap, invisible characters, undeclared GraphML nodes, huge n
# ---------------------------------------------------------------------------
import gzip as _gzip  # noqa: E402

import ergmfit.network.io as _netio  # noqa: E402


def test_decompression_is_capped(tmp_path, monkeypatch):
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(_gzip.compress(b"source,target\n" + b"1,2\n" * 200_000))
    monkeypatch.setattr(_netio, "MAX_DECOMPRESSED_BYTES", 100_000)
    with pytest.raises(DataFormatError, match="expands to more than 0 MiB when decompressed"):
        read_network(path, directed=True)
    monkeypatch.setattr(_netio, "MAX_DECOMPRESSED_BYTES", 10_000_000)
    with pytest.raises(NetworkError, match="repeats the tie"):    # read whole when allowed
        read_network(path, directed=True)


@pytest.mark.parametrize("text, line, char", [
    ("source,target\n1,2\n\ufeff1,3\n", 3, "U+FEFF"),              # a BOM mid-file
    ("source,target\n1,2\n2,3\x00\n", 3, "U+0000"),                # a NUL
    ('source,target\n1,2\n"a\u200b",3\n', 3, "U+200B"),             # zero-width space, quoted
    ("source,target\n1,2\n2,\u202e3\n", 3, "U+202E"),               # right-to-left override
])
def test_invisible_characters_in_ids(tmp_path, text, line, char):
    path = tmp_path / "e.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataFormatError, match=f"line {line}: node id .* invisible character.*{char.replace('+', '[+]')}"):
        read_network(path, directed=True)
    nodes = tmp_path / "n.csv"
    nodes.write_text("id,x\n1,a\n\ufeff2,b\n", encoding="utf-8")
    (tmp_path / "ok.csv").write_text("source,target\n1,2\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="n.csv, line 3: node id"):
        read_network(tmp_path / "ok.csv", directed=True, nodes=nodes)


def test_leading_bom_is_still_fine(tmp_path):
    path = tmp_path / "e.csv"
    path.write_bytes("\ufeffsource,target\n1,2\n".encode("utf-8"))
    assert read_network(path, directed=True).n == 2


def test_graphml_edge_to_an_undeclared_node(tmp_path):
    head = ('<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
            '<graph edgedefault="undirected">')
    path = tmp_path / "g.graphml"
    path.write_text(head + '<node id="a"/><node id="b"/><edge source="a" target="b"/>'
                    '<edge source="b" target="c"/></graph></graphml>')
    with pytest.raises(NetworkError, match="target 'c' that is not declared"):
        read_network(path)
    path.write_text(head + '<edge source="a" target="b"/><node id="a"/><node id="b"/>'
                    '</graph></graphml>')                 # declared after the edge: fine
    assert read_network(path).n_ties == 1


def test_too_many_nodes_is_a_clear_error():
    import scipy.sparse as sp
    with pytest.raises(NetworkError, match="more than ergmfit handles"):
        ef.Network(2 ** 40, [], directed=False)
    with pytest.raises(NetworkError, match="more than ergmfit handles"):
        ef.as_network(sp.coo_matrix((2 ** 40, 2 ** 40)), directed=True)


def _random_pairs(m, n, seed):
    """m distinct ordered pairs of distinct nodes 1..n, sorted."""
    rng = np.random.default_rng(seed)
    pairs = set()
    while len(pairs) < m:
        a, b = rng.integers(1, n + 1, 2)
        if a != b:
            pairs.add((int(a), int(b)))
    return sorted(pairs)


def test_csv_is_streamed_not_loaded_whole(tmp_path):
    # the whole text, its lines and a row list per line used to be held at once (a 69 MB CSV
    # took 3.2 GB); now each record is turned into two node indices as it is read
    pairs = _random_pairs(30_000, 1999, seed=0)
    path = tmp_path / "e.csv.gz"
    text = "source,target\n" + "".join(f"{a},{b}\n" for a, b in pairs)
    path.write_bytes(_gzip.compress(text.encode()))
    net, peak = traced_peak(read_network, path, directed=True)
    assert net.n_ties == 30_000
    assert peak < 25 * len(text), (peak, len(text))        # was ~60x the text


def test_reader_modules_are_small_and_never_import_datasets():
    # #16: io.py was 1,171 lines and imported ergmfit.datasets, which imports it back
    import ast
    import pathlib
    import ergmfit.network as pkg
    for path in pathlib.Path(pkg.__file__).parent.glob("*.py"):
        src = path.read_text(encoding="utf-8")
        assert src.count("\n") < 800, path.name
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.ImportFrom):
                mod = "." * node.level + (node.module or "")
                names = [a.name for a in node.names]
                assert "datasets" not in mod and "datasets" not in names, (path.name, mod, names)
    import ergmfit.network.io as io
    for name in io.__all__:                  # the public names are where they were
        assert getattr(io, name) is not None
    assert io.load_any("flomarriage").n == 16


def test_pajek_is_streamed(tmp_path):
    # lines decoded and parsed one at a time, ties in int64 arrays: no bytes, text and line
    # list copies of the file, no Python int lists per tie (the peak was ~29x the file, now ~13x)
    pairs = _random_pairs(30_000, 3000, seed=1)
    path = tmp_path / "g.net"
    text = "*vertices 3000\n*arcs\n" + "".join(f"{a} {b}\n" for a, b in pairs)
    path.write_text(text)
    net, peak = traced_peak(read_network, path)
    assert net.n_ties == 30_000 and net.directed
    assert peak < 21 * len(text), (peak / len(text))
