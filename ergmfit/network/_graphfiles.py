"""GraphML and GML files, read with networkx and checked."""
from __future__ import annotations

import io as _io
import re

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
            g = _read_gml(raw)
    except Exception as exc:  # any parse failure of the file, reported as ours
        msg = str(exc) or type(exc).__name__
        kind = "GML" if fmt == "gml" else "GraphML"
        raise DataFormatError(f"{where} is not a valid {kind} file: {msg}") from None
    listings = _graphml_edges(raw, where) if fmt == "graphml" else None
    if g.is_multigraph():
        if listings is None:
            listings = _gml_edges(raw, g)
        if listings is not None:
            g = _merge_listings(g, listings, where, duplicates)
        else:
            if duplicates == "error":
                u, v = _a_repeated_pair(g)
                raise NetworkError(f"{where} lists the tie {u!r} - {v!r} (and possibly others) "
                                   "more than once; ergmfit models binary ties: remove the "
                                   "repeated ties, or pass duplicates='merge' (command line: "
                                   "--duplicates merge) to keep one")
            # the edge-list readers' rule: the first listing kept (networkx keeps a pair's
            # listings in file order), the same warning
            simple = nx.DiGraph() if g.is_directed() else nx.Graph()
            simple.graph.update(g.graph)
            simple.add_nodes_from(g.nodes(data=True))
            for u, v, data in g.edges(data=True):
                if not simple.has_edge(u, v):
                    simple.add_edge(u, v, **data)
            u, v = _a_repeated_pair(g)
            _warn(f"{g.number_of_edges() - simple.number_of_edges()} tie(s) are listed more "
                  f"than once (e.g. {u!r} - {v!r} in {where}); each was kept once, with the "
                  "first listing's attributes")
            g = simple
    if g.number_of_nodes() == 0:
        raise NetworkError(f"{where} has no nodes")
    net = Network.from_networkx(g, weights=weights)
    _agree(net.directed, directed, where)
    if all(isinstance(v, str) and _CANONICAL_INT.fullmatch(v) for v in net.labels):
        net.labels = [int(v) for v in net.labels]
    return net


def _read_gml(raw):
    """A GML file as networkx reads it (node labels, else ids); a tie listed twice in a file
    that does not declare ``multigraph 1`` (networkx refuses it as invalid GML) is read as
    a multigraph, for the caller's ``duplicates`` rule."""
    import networkx as nx

    def read(data):
        try:
            return nx.read_gml(_io.BytesIO(data), label="label")
        except nx.NetworkXError as exc:
            if "no 'label' attribute" not in str(exc):
                raise
            return nx.read_gml(_io.BytesIO(data), label="id")
    try:
        return read(raw)
    except nx.NetworkXError as exc:
        if not re.search(r"edge #\d+ \(.*\) is duplicated", str(exc)):
            raise
        # read as the multigraph it is: the caller applies ``duplicates`` to it
        return read(re.sub(rb"graph\s*\[", b"graph [ multigraph 1", raw, count=1))


#: a GML file's tokens: white space, comments, strings, brackets, words and numbers
_GML_TOKEN = re.compile(rb'\s+|#[^\n]*|"[^"]*"|\[|\]|[^\s\[\]"#]+')


def _gml_edges(raw, g):
    """The ``(source, target, line)`` of every ``edge [...]`` of a GML file in file order,
    source and target as ``str`` of networkx's node keys (labels, or ids without labels),
    so that repeated ties are named by line as in the other readers; None when the listing
    does not match the graph networkx read (an unusual file: the caller then names nodes)."""
    import html

    def value(tok):
        if tok.startswith(b'"'):
            return html.unescape(tok[1:-1].decode("ascii", "replace"))
        text = tok.decode("ascii", "replace")
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        return text
    # a list is [(key, value or sub-list, line of the key)]
    line, stack, key = 1, [[]], None
    try:
        for m in _GML_TOKEN.finditer(raw):
            tok = m.group()
            if tok[:1].isspace() or tok.startswith(b"#"):
                line += tok.count(b"\n")
                continue
            if key is None:
                if tok == b"]":
                    stack.pop()
                    continue
                key = (tok.decode("ascii", "replace"), line)
            elif tok == b"[":
                sub = []
                stack[-1].append((key[0], sub, key[1]))
                stack.append(sub)
                key = None
            else:
                stack[-1].append((key[0], value(tok), key[1]))
                key = None
                line += tok.count(b"\n")
        graph = next(v for k, v, _ in stack[0] if k == "graph" and isinstance(v, list))
    except (IndexError, StopIteration):
        return None
    nodes = [dict((k, v) for k, v, _ in item) for k, item, _ in graph
             if k == "node" and isinstance(item, list)]
    labelled = all("label" in d for d in nodes)
    name = {d.get("id"): str(d["label"] if labelled else d.get("id")) for d in nodes}
    out = []
    for k, item, at in graph:
        if k == "edge" and isinstance(item, list):
            d = dict((a, v) for a, v, _ in item)
            if d.get("source") not in name or d.get("target") not in name:
                return None
            out.append((name[d["source"]], name[d["target"]], at))
    known = {str(v) for v in g.nodes}
    if len(out) != g.number_of_edges() or any(s not in known or t not in known
                                              for s, t, _ in out):
        return None
    return out


def _graphml_edges(raw, where):
    """The ``(source, target, line)`` of every ``<edge>`` of a GraphML file, in file order;
    every edge must join declared nodes (networkx would silently add them)."""
    import xml.parsers.expat
    declared, edges = set(), []
    parser = xml.parsers.expat.ParserCreate(namespace_separator="}")

    def start(tag, attrs):
        tag = tag.rsplit("}", 1)[-1]
        if tag == "node":
            declared.add(attrs.get("id"))
        elif tag == "edge":
            edges.append((attrs.get("source"), attrs.get("target"), parser.CurrentLineNumber))
    parser.StartElementHandler = start
    parser.Parse(raw, True)              # networkx parsed it: well-formed
    for s, t, _ in edges:                # a node may be declared after its edges
        for end, v in (("source", s), ("target", t)):
            if v not in declared:
                raise NetworkError(f"{where}: the edge {s!r} -> {t!r} has a {end} {v!r} that is "
                                   "not declared as a <node>; declare the node or remove the "
                                   "edge")
    return edges


def _merge_listings(g, listings, where, duplicates):
    """A GraphML multigraph (a tie listed more than once) as a simple graph, by the edge-list
    readers' rule (:func:`._common._clean_ties`): a repeated listing is an error naming both
    lines unless ``duplicates="merge"``, which keeps the first listing's attributes and
    warns; undirected, a pair listed both ways is one tie (merged with a warning; an error
    if the two listings' attributes differ, unless "merge")."""
    import networkx as nx
    import numpy as np
    from ._common import _clean_ties, _Locs
    nodes = list(g.nodes)
    index = {str(v): k for k, v in enumerate(nodes)}
    # networkx keeps a pair's listings in file order (its keys: the edge ids, or 0, 1, ...;
    # two listings of one pair with the same id are one to it, the last one's attributes)
    seen, data = {}, []
    for s, t, _ in listings:
        pair = (s, t) if g.is_directed() else frozenset((s, t))
        k = seen.get(pair, 0)
        seen[pair] = k + 1
        values = list(g[nodes[index[s]]][nodes[index[t]]].values())
        data.append(values[min(k, len(values) - 1)])
    t = np.array([index[s] for s, _, _ in listings], dtype=np.int64)
    h = np.array([index[v] for _, v, _ in listings], dtype=np.int64)
    names = sorted({a for d in data for a in d}, key=str)
    attrs = [(a, [d.get(a) for d in data]) for a in names]
    # "d.graphml, line 9 (edge 3)": the line, and which <edge> (several may share a line)
    locs = _Locs(f"{where}, line", [f"{ln} (edge {k + 1})" for k, (_, _, ln)
                                     in enumerate(listings)])
    shown = ([int(v) for v in nodes] if all(isinstance(v, str) and _CANONICAL_INT.fullmatch(v)
                                            for v in nodes) else nodes)   # as the network's
    keep = _clean_ties(t, h, len(nodes), g.is_directed(), duplicates, locs, shown, attrs)
    out = nx.DiGraph() if g.is_directed() else nx.Graph()
    out.graph.update(g.graph)
    out.add_nodes_from(g.nodes(data=True))
    out.add_edges_from((nodes[t[k]], nodes[h[k]], data[k]) for k in keep.tolist())
    return out


def _a_repeated_pair(g):
    for u, v, k in g.edges(keys=True):
        if g.number_of_edges(u, v) > 1:
            return u, v
    return None, None
