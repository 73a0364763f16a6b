"""GraphML and GML files, read with networkx and checked."""
from __future__ import annotations

import io as _io

from ..exceptions import DataFormatError, NetworkError
from ..utils.validation import warn as _warn
from .network import Network
from ._common import _CANONICAL_INT, _agree


def _read_with_networkx(raw, where, fmt, directed, weights, duplicates):
    import networkx as nx
    try:
        if fmt == "graphml":
            g = nx.read_graphml(_io.BytesIO(raw))
        else:
            try:
                g = nx.read_gml(_io.BytesIO(raw), label="label")
            except nx.NetworkXError as exc:
                if "no 'label' attribute" not in str(exc):
                    raise
                g = nx.read_gml(_io.BytesIO(raw), label="id")
    except Exception as exc:  # any parse failure of the file, reported as ours
        msg = str(exc) or type(exc).__name__
        kind = "GML" if fmt == "gml" else "GraphML"
        raise DataFormatError(f"{where} is not a valid {kind} file: {msg}") from None
    if fmt == "graphml":
        _check_graphml_endpoints(raw, where)
    if g.is_multigraph():
        if duplicates == "error":
            u, v = _a_repeated_pair(g)
            raise NetworkError(f"{where} lists the tie {u!r} - {v!r} (and possibly others) more "
                               "than once; ergmfit models binary ties: remove the repeated ties, "
                               "or pass duplicates='merge' (command line: --duplicates merge) "
                               "to keep one")
        extra = g.number_of_edges()
        g = nx.DiGraph(g) if g.is_directed() else nx.Graph(g)
        _warn(f"{where}: {extra - g.number_of_edges()} repeated tie(s) were merged "
                      "(the last listing's attributes kept)")
    if g.number_of_nodes() == 0:
        raise NetworkError(f"{where} has no nodes")
    net = Network.from_networkx(g, weights=weights)
    _agree(net.directed, directed, where)
    if all(isinstance(v, str) and _CANONICAL_INT.fullmatch(v) for v in net.labels):
        net.labels = [int(v) for v in net.labels]
    return net


def _check_graphml_endpoints(raw, where):
    """Every edge of a GraphML file joins declared nodes (networkx would silently add them)."""
    import xml.etree.ElementTree as ET
    declared, pending = set(), []
    for _, el in ET.iterparse(_io.BytesIO(raw), events=("end",)):
        tag = el.tag.rsplit("}", 1)[-1]
        if tag == "node":
            declared.add(el.get("id"))
        elif tag == "edge":
            for end in ("source", "target"):
                if el.get(end) not in declared:     # or declared later: checked at the end
                    pending.append((end, el.get(end), el.get("source"), el.get("target")))
            el.clear()
    for end, v, s, t in pending:
        if v not in declared:
            raise NetworkError(f"{where}: the edge {s!r} -> {t!r} has a {end} {v!r} that is not "
                               "declared as a <node>; declare the node or remove the edge")


def _a_repeated_pair(g):
    for u, v, k in g.edges(keys=True):
        if g.number_of_edges(u, v) > 1:
            return u, v
    return None, None
