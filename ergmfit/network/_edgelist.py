"""Edge-list tables: CSV/TSV text (streamed record by record) and pandas DataFrames.

The rules are in :mod:`ergmfit.network.io`'s documentation."""
from __future__ import annotations

from array import array
import math

import numpy as np

from ..exceptions import DataFormatError, NetworkError
from .network import Network
from .values import parse_value as _parse_value
from ._common import (_INT_TEXT, _LINE_BREAK, _Locs, _check_choice, _check_names, _check_visible,
                      _clean_ties, _handle_weights, _is_dataframe, _need_directed)


def from_edgelist(df, directed=None, nodes=None, weights="error", duplicates="error") -> Network:
    """A network from a pandas DataFrame edge list (never modified).

    Columns ``source`` and ``target`` (else the first two columns) are the
    tie's ends, other columns are edge attributes.  ``nodes`` may be a
    DataFrame whose first column is the node id and whose other columns
    are node attributes (node order = its row order, isolates kept).
    Same rules as a CSV edge list (see the module documentation);
    ``directed`` is required.
    """
    _check_choice(weights, "weights", ("error", "ignore", "keep"))
    _check_choice(duplicates, "duplicates", ("error", "merge"))
    if not _is_dataframe(df):
        raise NetworkError(f"expected a pandas DataFrame edge list, got {type(df).__name__}")
    directed = _need_directed(directed, "an edge-list DataFrame")
    header = [str(c) for c in df.columns]
    if len(header) < 2:
        raise DataFormatError(f"an edge-list DataFrame needs at least two columns (source, "
                              f"target); it has {header}")
    _check_names(header, "the edge-list DataFrame", None)
    src, dst = _endpoint_columns(header)
    index = list(df.index)
    columns = [[_py_cell(v) for v in df.iloc[:, k].tolist()] for k in range(len(header))]
    locs = _Locs("edge-list DataFrame row", index, as_repr=True)
    tails = [_py_id(v, locs, r) for r, v in enumerate(columns[src])]
    heads = [_py_id(v, locs, r) for r, v in enumerate(columns[dst])]
    attr_names = [h for k, h in enumerate(header) if k not in (src, dst)]
    attr_cols = [c for k, c in enumerate(columns) if k not in (src, dst)]
    node_table = None
    if nodes is not None:
        if not _is_dataframe(nodes):
            raise NetworkError("nodes= with a DataFrame edge list must be a DataFrame whose first "
                               "column is the node id")
        nheader = [str(c) for c in nodes.columns]
        if not nheader:
            raise DataFormatError("the node DataFrame has no columns; its first column must be "
                                  "the node id")
        _check_names(nheader, "the node DataFrame", None)
        ncols = [[_py_cell(v) for v in nodes.iloc[:, k].tolist()] for k in range(len(nheader))]
        nlocs = _Locs("node DataFrame row", list(nodes.index), as_repr=True)
        ids = [_py_id(v, nlocs, r) for r, v in enumerate(ncols[0])]
        node_table = (nheader[1:], ids, ncols[1:], nlocs)
    return _assemble_edgelist(tails, heads, attr_names, attr_cols, locs, directed, node_table,
                              weights, duplicates, "the edge-list DataFrame")


def _py_cell(v):
    if v is None:
        return None
    if type(v).__name__ in ("NAType", "NaTType"):
        return None
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _py_id(v, locs, r):
    if isinstance(v, str) and not (v.isascii() and v.isprintable()):
        _check_visible(v, f"{locs[r]}: node id")
    if isinstance(v, (int, str)) and not isinstance(v, bool):
        return v
    loc = locs[r]
    if v is None:
        raise DataFormatError(f"{loc}: missing node id")
    if isinstance(v, bool):
        raise DataFormatError(f"{loc}: node id {v!r} is a boolean; use integers or text")
    if isinstance(v, float):
        if v.is_integer():
            return int(v)
        raise DataFormatError(f"{loc}: node id {v!r} is not a whole number; use integers or text")
    try:
        hash(v)
    except TypeError:
        raise DataFormatError(f"{loc}: node id {v!r} is not hashable") from None
    return v


def _endpoint_columns(header):
    low = [h.strip().lower() for h in header]
    if "source" in low and "target" in low:
        return low.index("source"), low.index("target")
    return 0, 1


def _csv_id(text, quoted, locs, r):
    if not (text.isascii() and text.isprintable()):
        _check_visible(text, f"{locs[r]}: node id")
    if quoted:
        return text
    if text.isdigit() and text.isascii():
        return int(text)
    if text == "" or text == "NA":
        raise DataFormatError(f"{locs[r]}: missing node id")
    if _INT_TEXT.fullmatch(text):
        return int(text)
    return text


def _csv_cell(text, quoted):
    return text if quoted else _parse_value(text)


def read_records(lines, delim, where):
    """Yield ``(line_number, fields, quoted_flags or None)`` for each non-blank record.

    ``lines`` is an iterable of lines without their line breaks (a str is
    split at ``\\r\\n``, ``\\r`` and ``\\n``).  RFC 4180 quoting: a field that
    starts with ``"`` ends at the next lone ``"`` (``""`` is a literal
    quote) and may span lines.  Unquoted fields are stripped of surrounding
    white space.
    """
    if isinstance(lines, str):
        lines = _LINE_BREAK.split(lines)
    ws = " \t".replace(delim, "")
    it = iter(lines)
    lineno = 0
    for buf in it:
        lineno += 1
        start = lineno
        if '"' not in buf:
            if not buf or buf.isspace():
                continue
            yield start, [f.strip() for f in buf.split(delim)], None
            continue
        fields, quoted = [], []
        p = 0
        while True:
            while p < len(buf) and buf[p] in ws:
                p += 1
            if p < len(buf) and buf[p] == '"':
                p += 1
                parts = []
                while True:
                    q = buf.find('"', p)
                    if q == -1:
                        nxt = next(it, None)
                        if nxt is None:
                            raise DataFormatError(f"{where}, line {start}: a quoted field is "
                                                  "never closed (missing '\"')")
                        parts.append(buf[p:])
                        parts.append("\n")
                        buf = nxt
                        lineno += 1
                        p = 0
                        continue
                    parts.append(buf[p:q])
                    if q + 1 < len(buf) and buf[q + 1] == '"':
                        parts.append('"')
                        p = q + 2
                        continue
                    p = q + 1
                    break
                fields.append("".join(parts))
                quoted.append(True)
                while p < len(buf) and buf[p] in ws:
                    p += 1
                if p < len(buf) and buf[p] != delim:
                    raise DataFormatError(f"{where}, line {start}: unexpected text "
                                          f"{buf[p:p + 10]!r} after a closing quote")
            else:
                q = buf.find(delim, p)
                if q == -1:
                    q = len(buf)
                fields.append(buf[p:q].strip())
                quoted.append(False)
                p = q
            if p < len(buf) and buf[p] == delim:
                p += 1
                continue
            break
        yield start, fields, quoted


def _table(lines, delim, where, what):
    """Header and rows of a delimited text file; rows checked for length."""
    recs = read_records(lines, delim, where)
    first = next(recs, None)
    if first is None:
        raise DataFormatError(f"{where} is empty: {what}")
    hline, header, hquoted = first
    hquoted = hquoted or [False] * len(header)
    _check_names(header, where, hline)
    rows = []
    for lineno, fields, quoted in recs:
        if len(fields) != len(header):
            raise DataFormatError(f"{where}, line {lineno}: expected {len(header)} field(s) "
                                  f"({','.join(header)}), found {len(fields)}")
        rows.append((lineno, fields, quoted))
    return hline, header, hquoted, rows


def _read_node_csv(lines, where, delim):
    _, header, _, rows = _table(lines, delim, where,
                                "a node file starts with a header line: id[,attribute,...]")
    locs = _Locs(f"{where}, line", [ln for ln, _, _ in rows])
    ids = [_csv_id(f[0], q is not None and q[0], locs, r) for r, (_, f, q) in enumerate(rows)]
    cols = [[_csv_cell(f[k], q is not None and q[k]) for _, f, q in rows]
            for k in range(1, len(header))]
    return header[1:], ids, cols, locs


def _read_edge_csv(lines, where, delim, directed, node_table, weights, duplicates):
    """The network of an edge-list CSV, read record by record (never the whole text at once)."""
    recs = read_records(lines, delim, where)
    first = next(recs, None)
    if first is None:
        raise DataFormatError(f"{where} is empty: an edge-list file starts with a header line: "
                              "source,target[,...]")
    hline, header, hquoted = first
    hquoted = hquoted or [False] * len(header)
    _check_names(header, where, hline)
    if len(header) < 2:
        raise DataFormatError(f"{where}, line {hline}: an edge list needs at least two columns "
                              f"(source{delim}target), found the header {header[0]!r}")
    if not any(hquoted[:2]) and all(_looks_numeric(h) for h in header[:2]):
        raise DataFormatError(f"{where}, line {hline}: expected a header line naming the columns "
                              f"(source{delim}target[{delim}...]), found "
                              f"{delim.join(header)!r}; add a header line")
    directed = _need_directed(directed, f"{where} (an edge list)")
    src, dst = _endpoint_columns(header)
    linenos, tails, heads = array("q"), array("q"), array("q")
    locs = _Locs(f"{where}, line", linenos)
    nodes = _NodeIndex(node_table)
    attr_idx = [k for k in range(len(header)) if k not in (src, dst)]
    attr_cols = [[] for _ in attr_idx]
    width = len(header)
    for lineno, fields, quoted in recs:
        if len(fields) != width:
            raise DataFormatError(f"{where}, line {lineno}: expected {width} field(s) "
                                  f"({','.join(header)}), found {len(fields)}")
        r = len(linenos)
        linenos.append(lineno)
        if quoted is None:
            tails.append(nodes(_csv_id(fields[src], False, locs, r)))
            heads.append(nodes(_csv_id(fields[dst], False, locs, r)))
            for col, k in zip(attr_cols, attr_idx):
                col.append(_parse_value(fields[k]))
        else:
            tails.append(nodes(_csv_id(fields[src], quoted[src], locs, r)))
            heads.append(nodes(_csv_id(fields[dst], quoted[dst], locs, r)))
            for col, k in zip(attr_cols, attr_idx):
                col.append(_csv_cell(fields[k], quoted[k]))
    return _finish_edgelist(np.frombuffer(tails, dtype=np.int64),
                            np.frombuffer(heads, dtype=np.int64), nodes,
                            [header[k] for k in attr_idx], attr_cols, locs, directed, weights,
                            duplicates, where)


class _NodeIndex:
    """Node ids to indices as an edge list is read: the node file's, or first seen."""

    def __init__(self, node_table):
        self.fixed = node_table is not None
        self.index = {}
        self.missing = {}                   # ids not in the node file, in the order met
        if self.fixed:
            self.attr_names, ids, self.attr_cols, nlocs = node_table
            for r, nid in enumerate(ids):
                if nid in self.index:
                    raise DataFormatError(f"{nlocs[r]}: node id {nid!r} appears twice (first "
                                          f"at {nlocs[self.index[nid]]})")
                self.index[nid] = r
            self.labels = list(ids)
        else:
            self.labels = []

    def __call__(self, v):
        k = self.index.get(v)
        if k is None:
            if self.fixed:
                self.missing.setdefault(v, None)
                return -1
            k = self.index[v] = len(self.labels)
            self.labels.append(v)
        return k


def _looks_numeric(text):
    v = _parse_value(text)
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _assemble_edgelist(tails, heads, attr_names, attr_cols, locs, directed, node_table,
                       weights, duplicates, where):
    nodes = _NodeIndex(node_table)
    t = np.empty(len(tails), dtype=np.int64)
    h = np.empty(len(heads), dtype=np.int64)
    for r, (u, v) in enumerate(zip(tails, heads)):
        t[r] = nodes(u)
        h[r] = nodes(v)
    return _finish_edgelist(t, h, nodes, attr_names, attr_cols, locs, directed, weights,
                            duplicates, where)


def _finish_edgelist(t, h, nodes, attr_names, attr_cols, locs, directed, weights, duplicates,
                     where):
    labels = nodes.labels
    if nodes.fixed:
        if nodes.missing:
            missing = list(nodes.missing)
            shown = ", ".join(repr(v) for v in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            hint = ""
            as_text = {str(k): k for k in nodes.index}
            if any(str(v) in as_text for v in missing):
                hint = (" (some match node ids up to quoting: quote the ids in both files or "
                        "in neither)")
            raise NetworkError(f"{where}: {len(missing)} node id(s) in the edge list are not in "
                               f"the node file: {shown}{more}{hint}")
        node_attrs = dict(zip(nodes.attr_names, nodes.attr_cols))
    else:
        if not labels:
            raise NetworkError(f"{where} lists no ties, so the network has no nodes; pass a node "
                               "file (nodes=) to give the nodes")
        if all(isinstance(v, int) and not isinstance(v, bool) for v in labels):
            order = sorted(range(len(labels)), key=labels.__getitem__)
            rank = np.empty(len(labels), dtype=np.int64)
            rank[order] = np.arange(len(labels))
            t, h = rank[t], rank[h]
            labels = [labels[k] for k in order]
        node_attrs = {}
    attr_names, attr_cols = _handle_weights(attr_names, attr_cols, locs, weights)
    keep = _clean_ties(t, h, len(labels), directed, duplicates, locs, labels,
                       list(zip(attr_names, attr_cols)))
    ties = np.stack([t[keep], h[keep]], axis=1) if len(keep) else np.zeros((0, 2), np.int64)
    edge_attrs = {name: [col[k] for k in keep] for name, col in zip(attr_names, attr_cols)}
    return Network(len(labels), ties, directed, labels=labels, node_attrs=node_attrs,
                   edge_attrs=edge_attrs)
