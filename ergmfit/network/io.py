"""Reading networks: bundled names, files, matrices and edge-list tables.

Everything a user may hand to :class:`~ergmfit.ERGM` that is not already a
graph object goes through :func:`load_any`; files go through
:func:`read_network`.  Nothing the caller passes in is ever modified.

Formats
-------
``csv`` / ``tsv`` (``.csv``, ``.tsv``, ``.tab``)
    Edge list with a header line: ``source,target[,edge attributes...]``
    (columns named ``source`` and ``target`` are used wherever they stand,
    otherwise the first two columns are the tie's two ends).  Node ids may
    be any labels: an unquoted whole number becomes an ``int``, anything
    else (quoted fields, ``1.5``, ``TRUE``, names) stays text.  Other
    cells are parsed like the bundled data: integers, floats,
    ``TRUE``/``FALSE``, ``NA`` or an empty cell for missing; quoted cells
    stay text.  A CSV cannot say whether its ties are directed, so
    ``directed=True`` or ``directed=False`` is required.

    With ``nodes=`` a node CSV whose first column is the node id (header
    ``id``) and whose other columns are node attributes: the nodes are
    those of the node file, in its order, isolates included; an id in the
    edge list that is not in the node file is an error.  Without a node
    file the nodes are the ids seen in the edge list, sorted if they are
    all integers, otherwise in the order first seen (so isolates cannot
    be expressed without a node file).
``graphml`` (``.graphml``), ``gml`` (``.gml``)
    Read with networkx; directedness, node and edge attributes come from
    the file.  Node ids that are all whole numbers written in canonical
    form (``"1"``, ``"-3"``, not ``"01"``) become ints.
``pajek`` (``.net``, ``.paj``, ``.pajek``)
    As EstimNetDirected writes them: ``*vertices N``, optional vertex lines
    ``k ["label" ...]``, then ``*arcs`` (directed) or ``*edges``
    (undirected) with one ``i j [weight]`` pair per line, vertices numbered
    ``1..N``; ``*arcslist`` / ``*edgeslist`` lines ``i j k ...`` are read
    too.  ``%`` starts a comment; blank lines are skipped.  Node labels are
    the vertex labels when every vertex has a distinct one, else ``1..N``.
    In a ``.paj`` project file, ``*partition NAME`` / ``*vector NAME``
    blocks after the network become node attributes, and only the first
    network is read.  Node attributes may also come from EstimNet
    attribute files (``binattrFile`` and friends): pass them as ``nodes=``
    (a path or a list of paths), see :func:`read_estimnet_attributes`.
    Two-mode (``*vertices N N1``) and ``*matrix`` files are not supported.

Files ending in ``.gz``, ``.bz2`` or ``.xz`` are decompressed; the format
is taken from the extension before that, or from ``fmt``.  Text must be
UTF-8 (a byte-order mark is allowed).

Ties
----
* Self-loops are an error (ERGMs here have no loops).
* A tie listed twice is an error naming both lines, unless
  ``duplicates="merge"``, which keeps the first listing and warns.
* In an undirected edge list, ``i,j`` and ``j,i`` both listed are one tie:
  they are merged with a warning whatever ``duplicates`` says (statnet
  does the same: an undirected network has one tie per pair).  The first
  listing and its edge attributes are kept.
* An edge attribute ``weight`` whose values are all 1 is dropped; any
  other value is an error, unless ``weights="ignore"``, which treats every
  listed edge (for matrices: every nonzero entry) as a tie and warns.
"""
from __future__ import annotations

import bz2
import difflib
import gzip
import io as _io
import lzma
import math
import numbers
import os
import re

import numpy as np

from ..exceptions import DataFormatError, NetworkError
from ..utils.validation import warn as _warn
from .network import MAX_NODES, Network  # noqa: F401 - MAX_NODES is part of this module's API

__all__ = ["load_any", "read_network", "read_estimnet_attributes", "from_adjacency",
           "from_edgelist", "FORMATS"]

#: format name -> file extensions (without the dot) that imply it
FORMATS = {
    "csv": ("csv",),
    "tsv": ("tsv", "tab"),
    "graphml": ("graphml",),
    "gml": ("gml",),
    "pajek": ("net", "paj", "pajek"),
}
_FMT_ALIASES = {"net": "pajek", "paj": "pajek", "xml": "graphml"}
_COMPRESSED = {"gz": gzip.open, "bz2": bz2.open, "xz": lzma.open}

#: the most bytes a compressed file may expand to (a guard against decompression bombs)
MAX_DECOMPRESSED_BYTES = 2 ** 30

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_CANONICAL_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
#: characters that do not show: controls, format characters (BOM, zero-width, bidi marks)
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f"
                        "\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]")


def _parse_value(text):
    # the bundled loader's rule (ints, floats, TRUE/FALSE, NA -> None), imported lazily
    from ..datasets import _parse_value as parse
    return parse(text)


# ---------------------------------------------------------------------------
# entry points
# ---------------------------------------------------------------------------

def load_any(data, directed=None, nodes=None, fmt=None, weights="error", duplicates="error"):
    """Anything a user may hold, as a :class:`~ergmfit.network.Network`.

    Parameters
    ----------
    data : str, path, numpy array, scipy sparse matrix, pandas DataFrame, Network or networkx graph
        A bundled dataset name (:func:`ergmfit.datasets.names`; a name wins
        over a file of the same name, write ``./lazega`` for the file), a
        file path (see :func:`read_network`), a square 0/1 adjacency matrix
        (see :func:`from_adjacency`) or an edge-list DataFrame (see
        :func:`from_edgelist`).
    directed : bool, optional
        Required for edge lists and matrices, which cannot say; for
        everything else it must agree with the data if given (directedness
        is never converted).
    nodes, fmt : optional
        For files, see :func:`read_network`; for a DataFrame, ``nodes`` may
        be a node DataFrame whose first column is the node id.
    weights : {"error", "ignore"}
    duplicates : {"error", "merge"}

    Examples
    --------
    >>> load_any("flomarriage")
    <Network: undirected, 16 nodes, 20 ties>
    >>> import numpy as np
    >>> load_any(np.array([[0, 1], [1, 0]]), directed=False)
    <Network: undirected, 2 nodes, 1 ties>
    """
    _check_choice(weights, "weights", ("error", "ignore"))
    _check_choice(duplicates, "duplicates", ("error", "merge"))
    import networkx as nx

    if isinstance(data, Network):
        _no_file_options(nodes, fmt, "a Network")
        _agree(data.directed, directed, "the network")
        return data
    if isinstance(data, nx.Graph):
        _no_file_options(nodes, fmt, "a networkx graph")
        net = Network.from_networkx(data, weights=weights)
        _agree(net.directed, directed, "the graph")
        return net
    if isinstance(data, str):
        from .. import datasets
        if data in datasets.names():
            _no_file_options(nodes, fmt, f"the bundled dataset {data!r}")
            net = datasets.load_network(data)
            _agree(net.directed, directed, f"the bundled dataset {data!r}")
            return net
        if not os.path.exists(data):
            close = difflib.get_close_matches(data, datasets.names(), n=3)
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            raise NetworkError(f"{data!r} is neither a bundled dataset nor an existing file.{hint} "
                               "`ergmfit datasets` lists the bundled ones")
        return read_network(data, directed=directed, nodes=nodes, fmt=fmt, weights=weights,
                            duplicates=duplicates)
    if isinstance(data, os.PathLike):
        return read_network(data, directed=directed, nodes=nodes, fmt=fmt, weights=weights,
                            duplicates=duplicates)
    if isinstance(data, np.ndarray) or _is_sparse(data):
        _no_file_options(nodes, fmt, "an adjacency matrix")
        return from_adjacency(data, directed=directed, weights=weights)
    if _is_dataframe(data):
        if fmt is not None:
            raise NetworkError("fmt= applies to files only, not to a DataFrame")
        return from_edgelist(data, directed=directed, nodes=nodes, weights=weights,
                             duplicates=duplicates)
    raise NetworkError(
        f"cannot make a network from a {type(data).__name__}: pass a bundled dataset name, a "
        "file path, a networkx graph, a square 0/1 numpy array or scipy sparse matrix "
        "(adjacency), or a pandas DataFrame edge list (source, target columns)")


def read_network(path, directed=None, nodes=None, fmt=None, weights="error",
                 duplicates="error") -> Network:
    """Read a network file: edge-list CSV/TSV, GraphML, GML or Pajek.

    Parameters
    ----------
    path : str or path
    directed : bool, optional
        Required for CSV/TSV (and for a Pajek file with no tie section);
        must agree with GraphML, GML and Pajek files if given.
    nodes : path or list of paths, optional
        CSV: a node CSV (first column the id, header ``id``; other columns
        node attributes).  Pajek: EstimNet attribute file(s).
    fmt : {"csv", "tsv", "graphml", "gml", "pajek"}, optional
        Default: from the file extension.
    weights : {"error", "ignore"}
        What to do with a ``weight`` column holding values other than 1.
    duplicates : {"error", "merge"}
        What to do with a tie listed twice.

    See the module documentation for the exact rules of each format.

    Examples
    --------
    >>> net = read_network("edges.csv", directed=True, nodes="nodes.csv")  # doctest: +SKIP
    """
    _check_choice(weights, "weights", ("error", "ignore"))
    _check_choice(duplicates, "duplicates", ("error", "merge"))
    path = os.fspath(path)
    fmt = _format_of(path, fmt)
    raw = _read_bytes(path)
    where = os.path.basename(path) or path
    if not raw.strip():
        raise DataFormatError(f"{where} is empty")
    if fmt in ("csv", "tsv"):
        if nodes is not None and not isinstance(nodes, (str, os.PathLike)):
            raise NetworkError("nodes= for an edge-list CSV is one node CSV file (first column "
                               "the node id)")
        edges_text = _decode(raw, where)
        node_table = None
        if nodes is not None:
            npath = os.fspath(nodes)
            node_table = _read_node_csv(_decode(_read_bytes(npath), os.path.basename(npath)),
                                        os.path.basename(npath), "," if fmt == "csv" else "\t")
        return _read_edge_csv(edges_text, where, "," if fmt == "csv" else "\t", directed,
                              node_table, weights, duplicates)
    if fmt == "pajek":
        attr = None
        if nodes is not None:
            paths = [nodes] if isinstance(nodes, (str, os.PathLike)) else list(nodes)
            attr = {}
            for p in paths:
                for name, vals in read_estimnet_attributes(p).items():
                    if name in attr:
                        raise DataFormatError(f"node attribute {name!r} is given in more than one "
                                              "attribute file")
                    attr[name] = (os.path.basename(os.fspath(p)), vals)
        return _read_pajek(_decode(raw, where), where, directed, weights, duplicates, attr)
    if nodes is not None:
        raise NetworkError(f"nodes= is for edge-list CSV and Pajek files; a {fmt} file holds "
                           "its node attributes itself")
    return _read_with_networkx(raw, where, fmt, directed, weights, duplicates)


def read_estimnet_attributes(path) -> dict:
    """Read an EstimNet(Directed) node attribute file.

    The format of ``binattrFile``, ``catattrFile``, ``contattrFile`` and
    ``setattrFile``: a header line of attribute names separated by white
    space, then one line per node (node 1 first) with one value per
    attribute; ``NA`` marks a missing value.  Values are parsed like the
    bundled data (ints, floats, TRUE/FALSE; set attributes such as
    ``1,3`` stay text).

    Returns
    -------
    dict
        ``{name: [value of node 1, value of node 2, ...]}``, usable as the
        ``node_attrs`` of a :class:`~ergmfit.network.Network`.

    Examples
    --------
    >>> read_estimnet_attributes("binattr.txt")  # doctest: +SKIP
    {'gender': [0, 1, 1, None]}
    """
    path = os.fspath(path)
    where = os.path.basename(path) or path
    text = _decode(_read_bytes(path), where)
    names = None
    cols = None
    for lineno, line in enumerate(_LINE_BREAK.split(text), start=1):
        tokens = line.split()
        if not tokens:
            continue
        if names is None:
            names = tokens
            _check_names(names, where, lineno)
            cols = [[] for _ in names]
            continue
        if len(tokens) != len(names):
            raise DataFormatError(f"{where}, line {lineno}: expected {len(names)} value(s) "
                                  f"({' '.join(names)}), found {len(tokens)}")
        for col, tok in zip(cols, tokens):
            col.append(_parse_value(tok))
    if names is None:
        raise DataFormatError(f"{where} is empty: an attribute file starts with a header line "
                              "of attribute names")
    return dict(zip(names, cols))


# ---------------------------------------------------------------------------
# adjacency matrices
# ---------------------------------------------------------------------------

def from_adjacency(a, directed=None, weights="error") -> Network:
    """A network from a square 0/1 adjacency matrix (numpy or scipy sparse).

    ``a[i, j]`` nonzero means a tie i -> j; nodes are 0..n-1.  Entries must
    be 0/1 (or bool); with ``weights="ignore"`` any finite nonzero entry
    is a tie (with a warning).  The diagonal must be zero.  ``directed``
    is required: an asymmetric matrix with ``directed=False`` is an error,
    a symmetric one with ``directed=True`` is a directed network with
    mutual ties.  The matrix is never modified.
    """
    _check_choice(weights, "weights", ("error", "ignore"))
    directed = _need_directed(directed, "an adjacency matrix")
    if _is_sparse(a):
        return _from_sparse(a, directed, weights)
    arr = np.asarray(a)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise NetworkError(f"an adjacency matrix must be square (n x n), got shape {arr.shape}")
    n = arr.shape[0]
    if n == 0:
        raise NetworkError("the adjacency matrix is empty: the network has no nodes")
    if arr.dtype == bool:
        nz = arr.copy()
    else:
        vals = _numeric_matrix(arr)
        bad = ~np.isfinite(vals)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise NetworkError(f"the adjacency matrix has the non-binary value "
                               f"{_scalar(arr[i, j])!r} at [{i}, {j}]; entries must be 0 or 1")
        nz = vals != 0
        nonbinary = nz & (vals != 1)
        if nonbinary.any():
            i, j = np.argwhere(nonbinary)[0]
            _weights_problem(weights, f"the adjacency matrix has the non-binary value "
                                      f"{_scalar(arr[i, j])!r} at [{i}, {j}]", matrix=True)
    diag = np.flatnonzero(np.diagonal(nz))
    if len(diag):
        k = int(diag[0])
        raise NetworkError(f"the adjacency matrix has a nonzero diagonal entry [{k}, {k}] (a "
                           "self-loop); ERGMs here have no loops: set the diagonal to 0")
    if not directed:
        asym = nz != nz.T
        if asym.any():
            i, j = np.argwhere(asym)[0]
            raise NetworkError(f"the adjacency matrix is not symmetric ([{i}, {j}] is "
                               f"{int(nz[i, j])} but [{j}, {i}] is {int(nz[j, i])}), so it cannot "
                               "be undirected: pass directed=True, or symmetrise it first")
        ties = np.argwhere(np.triu(nz, 1))
    else:
        ties = np.argwhere(nz)
    return Network(n, ties, directed)


def _numeric_matrix(arr):
    kind = arr.dtype.kind
    if kind in "iu":
        return arr
    if kind == "f":
        return arr
    if kind == "O":
        out = np.empty(arr.shape, dtype=float)
        for idx, v in np.ndenumerate(arr):
            if isinstance(v, (bool, np.bool_)):
                out[idx] = float(v)
                continue
            if not isinstance(v, numbers.Real):
                raise NetworkError(f"the adjacency matrix has the non-numeric value {v!r} at "
                                   f"[{idx[0]}, {idx[1]}]; entries must be 0 or 1")
            try:
                out[idx] = float(v)
            except OverflowError:
                raise NetworkError(f"the adjacency matrix has the non-binary value {v!r} at "
                                   f"[{idx[0]}, {idx[1]}]; entries must be 0 or 1") from None
        return out
    raise NetworkError(f"an adjacency matrix must hold numbers (0/1) or booleans, got dtype "
                       f"{arr.dtype}")


def _from_sparse(a, directed, weights):
    shape = a.shape
    if len(shape) != 2 or shape[0] != shape[1]:
        raise NetworkError(f"an adjacency matrix must be square (n x n), got shape {shape}")
    n = int(shape[0])
    if n == 0:
        raise NetworkError("the adjacency matrix is empty: the network has no nodes")
    coo = a.tocoo(copy=True)
    coo.sum_duplicates()
    data = np.asarray(coo.data)
    rows = np.asarray(coo.row, dtype=np.int64)
    cols = np.asarray(coo.col, dtype=np.int64)
    if data.dtype != bool:
        vals = _numeric_matrix(data.reshape(1, -1)).ravel() if data.size else data.astype(float)
        bad = ~np.isfinite(vals)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise NetworkError(f"the adjacency matrix has the non-binary value "
                               f"{_scalar(data[k])!r} at [{rows[k]}, {cols[k]}]; entries must "
                               "be 0 or 1")
        nonbinary = (vals != 0) & (vals != 1)
        if nonbinary.any():
            k = int(np.flatnonzero(nonbinary)[0])
            _weights_problem(weights, f"the adjacency matrix has the non-binary value "
                                      f"{_scalar(data[k])!r} at [{rows[k]}, {cols[k]}]",
                             matrix=True)
        keep = vals != 0
    else:
        keep = data
    rows, cols = rows[keep], cols[keep]
    loops = np.flatnonzero(rows == cols)
    if len(loops):
        k = int(rows[loops[0]])
        raise NetworkError(f"the adjacency matrix has a nonzero diagonal entry [{k}, {k}] (a "
                           "self-loop); ERGMs here have no loops: set the diagonal to 0")
    if not directed:
        fwd = rows * n + cols
        rev = cols * n + rows
        missing = ~np.isin(rev, fwd)
        if missing.any():
            k = int(np.flatnonzero(missing)[0])
            i, j = int(rows[k]), int(cols[k])
            raise NetworkError(f"the adjacency matrix is not symmetric ([{i}, {j}] is 1 but "
                               f"[{j}, {i}] is 0), so it cannot be undirected: pass "
                               "directed=True, or symmetrise it first")
        up = rows < cols
        rows, cols = rows[up], cols[up]
    order = np.lexsort((cols, rows))
    ties = np.stack([rows[order], cols[order]], axis=1)
    return Network(n, ties, directed)


# ---------------------------------------------------------------------------
# edge-list tables (CSV text and pandas DataFrames)
# ---------------------------------------------------------------------------

def from_edgelist(df, directed=None, nodes=None, weights="error", duplicates="error") -> Network:
    """A network from a pandas DataFrame edge list (never modified).

    Columns ``source`` and ``target`` (else the first two columns) are the
    tie's ends, other columns are edge attributes.  ``nodes`` may be a
    DataFrame whose first column is the node id and whose other columns
    are node attributes (node order = its row order, isolates kept).
    Same rules as a CSV edge list (see the module documentation);
    ``directed`` is required.
    """
    _check_choice(weights, "weights", ("error", "ignore"))
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


class _Locs:
    """Lazy "where" strings for rows (built only for an error message)."""

    def __init__(self, prefix, keys, as_repr=False):
        self.prefix, self.keys, self.as_repr = prefix, keys, as_repr

    def __getitem__(self, r):
        key = self.keys[r]
        return f"{self.prefix} {key!r}" if self.as_repr else f"{self.prefix} {key}"

    def __len__(self):
        return len(self.keys)


def _csv_cell(text, quoted):
    return text if quoted else _parse_value(text)


def _records(text, delim, where):
    """Yield ``(line_number, fields, quoted_flags or None)`` for each non-blank record.

    RFC 4180 quoting: a field that starts with ``"`` ends at the next lone
    ``"`` (``""`` is a literal quote) and may span lines.  Unquoted fields
    are stripped of surrounding white space.
    """
    lines = _LINE_BREAK.split(text)
    ws = " \t".replace(delim, "")
    if '"' not in text:     # fast path: no quoting anywhere
        strip = any(c.isspace() for c in set(text) - {"\n", "\r"})
        for lineno, buf in enumerate(lines, start=1):
            if not buf or (strip and buf.isspace()):
                continue
            fields = buf.split(delim)
            yield lineno, ([f.strip() for f in fields] if strip else fields), None
        return
    n = len(lines)
    i = 0
    while i < n:
        buf = lines[i]
        lineno = i + 1
        i += 1
        if '"' not in buf:
            if not buf.strip():
                continue
            yield lineno, [f.strip() for f in buf.split(delim)], None
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
                        if i >= n:
                            raise DataFormatError(f"{where}, line {lineno}: a quoted field is "
                                                  "never closed (missing '\"')")
                        parts.append(buf[p:])
                        parts.append("\n")
                        buf = lines[i]
                        i += 1
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
                    raise DataFormatError(f"{where}, line {lineno}: unexpected text "
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
        yield lineno, fields, quoted


def _table(text, delim, where, what):
    """Header and rows of a delimited text file; rows checked for length."""
    recs = _records(text, delim, where)
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


def _read_node_csv(text, where, delim):
    _, header, _, rows = _table(text, delim, where,
                                "a node file starts with a header line: id[,attribute,...]")
    locs = _Locs(f"{where}, line", [ln for ln, _, _ in rows])
    ids = [_csv_id(f[0], q is not None and q[0], locs, r) for r, (_, f, q) in enumerate(rows)]
    cols = [[_csv_cell(f[k], q is not None and q[k]) for _, f, q in rows]
            for k in range(1, len(header))]
    return header[1:], ids, cols, locs


def _read_edge_csv(text, where, delim, directed, node_table, weights, duplicates):
    hline, header, hquoted, rows = _table(
        text, delim, where, "an edge-list file starts with a header line: source,target[,...]")
    if len(header) < 2:
        raise DataFormatError(f"{where}, line {hline}: an edge list needs at least two columns "
                              f"(source{delim}target), found the header {header[0]!r}")
    if not any(hquoted[:2]) and all(_looks_numeric(h) for h in header[:2]):
        raise DataFormatError(f"{where}, line {hline}: expected a header line naming the columns "
                              f"(source{delim}target[{delim}...]), found "
                              f"{delim.join(header)!r}; add a header line")
    directed = _need_directed(directed, f"{where} (an edge list)")
    src, dst = _endpoint_columns(header)
    locs = _Locs(f"{where}, line", [ln for ln, _, _ in rows])
    tails = [_csv_id(f[src], q is not None and q[src], locs, r) for r, (_, f, q) in enumerate(rows)]
    heads = [_csv_id(f[dst], q is not None and q[dst], locs, r) for r, (_, f, q) in enumerate(rows)]
    attr_names, attr_cols = [], []
    for k, name in enumerate(header):
        if k in (src, dst):
            continue
        attr_names.append(name)
        attr_cols.append([_csv_cell(f[k], q is not None and q[k]) for _, f, q in rows])
    return _assemble_edgelist(tails, heads, attr_names, attr_cols, locs, directed, node_table,
                              weights, duplicates, where)


def _looks_numeric(text):
    v = _parse_value(text)
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _assemble_edgelist(tails, heads, attr_names, attr_cols, locs, directed, node_table,
                       weights, duplicates, where):
    if node_table is not None:
        node_names, ids, node_cols, nlocs = node_table
        index = {}
        for r, nid in enumerate(ids):
            if nid in index:
                raise DataFormatError(f"{nlocs[r]}: node id {nid!r} appears twice (first at "
                                      f"{nlocs[index[nid]]})")
            index[nid] = r
        labels = list(ids)
        missing = []
        seen_missing = set()
        for v in (x for pair in zip(tails, heads) for x in pair):
            if v not in index and v not in seen_missing:
                seen_missing.add(v)
                missing.append(v)
        if missing:
            shown = ", ".join(repr(v) for v in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            hint = ""
            as_text = {str(k): k for k in index}
            if any(str(v) in as_text for v in missing):
                hint = (" (some match node ids up to quoting: quote the ids in both files or "
                        "in neither)")
            raise NetworkError(f"{where}: {len(missing)} node id(s) in the edge list are not in "
                               f"the node file: {shown}{more}{hint}")
        node_attrs = dict(zip(node_names, node_cols))
    else:
        order = {}
        for v in (x for pair in zip(tails, heads) for x in pair):
            if v not in order:
                order[v] = len(order)
        labels = list(order)
        if labels and all(isinstance(v, int) and not isinstance(v, bool) for v in labels):
            labels.sort()
        index = {v: k for k, v in enumerate(labels)}
        node_attrs = {}
        if not labels:
            raise NetworkError(f"{where} lists no ties, so the network has no nodes; pass a node "
                               "file (nodes=) to give the nodes")
    t = np.fromiter((index[v] for v in tails), dtype=np.int64, count=len(tails))
    h = np.fromiter((index[v] for v in heads), dtype=np.int64, count=len(heads))
    attr_names, attr_cols = _handle_weights(attr_names, attr_cols, locs, weights)
    keep = _clean_ties(t, h, len(labels), directed, duplicates, locs, labels)
    ties = np.stack([t[keep], h[keep]], axis=1) if len(keep) else np.zeros((0, 2), np.int64)
    edge_attrs = {name: [col[k] for k in keep] for name, col in zip(attr_names, attr_cols)}
    return Network(len(labels), ties, directed, labels=labels, node_attrs=node_attrs,
                   edge_attrs=edge_attrs)


def _is_one(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and v == 1


def _handle_weights(names, cols, locs, weights):
    out_names, out_cols = [], []
    for name, col in zip(names, cols):
        if name.strip().lower() != "weight":
            out_names.append(name)
            out_cols.append(col)
            continue
        bad = next((r for r, v in enumerate(col) if not _is_one(v)), None)
        if bad is not None:
            _weights_problem(weights, f"{locs[bad]}: the weight {col[bad]!r} is not 1")
    return out_names, out_cols


def _weights_problem(weights, what, matrix=False):
    if weights == "ignore":
        tie = "every nonzero entry" if matrix else "every listed edge"
        _warn(f"{what}; weights are ignored ({tie} is a tie): ergmfit models binary "
                      "ties")
        return
    tie = "every nonzero entry" if matrix else "every listed edge"
    raise NetworkError(f"{what}; ergmfit models binary ties. Threshold or drop the weights "
                       f"first, or pass weights='ignore' (command line: --weights ignore) to "
                       f"treat {tie} as a tie")


def _clean_ties(t, h, n, directed, duplicates, locs, labels):
    """Indices of the ties to keep after the loop and duplicate checks."""
    m = len(t)
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    loops = np.flatnonzero(t == h)
    if len(loops):
        k = int(loops[0])
        raise NetworkError(f"{locs[k]}: self-loop at node {labels[t[k]]!r}; ERGMs here have no "
                           "loops: remove the line")
    arrow = "->" if directed else "--"
    keys = t * n + h
    first = _first_occurrences(keys)
    if len(first) < m:
        dup = _first_repeat(keys)
        if duplicates == "error":
            k, j = dup
            raise NetworkError(f"{locs[k]} repeats the tie {labels[t[k]]!r} {arrow} "
                               f"{labels[h[k]]!r} of {locs[j]}; ergmfit models binary ties: "
                               "remove the repeated lines, or pass duplicates='merge' "
                               "(command line: --duplicates merge) to keep one")
        _warn(f"{m - len(first)} tie(s) are listed more than once (e.g. {locs[dup[0]]}); "
                      "each was kept once, with the first listing's attributes")
    keep = first
    if not directed:
        lo = np.minimum(t[keep], h[keep])
        hi = np.maximum(t[keep], h[keep])
        ukeys = lo * n + hi
        ufirst = _first_occurrences(ukeys)
        if len(ufirst) < len(keep):
            k, j = _first_repeat(ukeys)
            _warn(f"{len(keep) - len(ufirst)} tie(s) of the undirected network are listed "
                          f"in both directions (e.g. {locs[keep[j]]} and {locs[keep[k]]}); an "
                          "undirected network has one tie per pair, so each was kept once, with "
                          "the first listing's attributes")
            keep = keep[ufirst]
    return keep


def _first_occurrences(keys):
    _, idx = np.unique(keys, return_index=True)
    return np.sort(idx)


def _first_repeat(keys):
    """(position of the earliest repeated key, position of its first occurrence)."""
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    same = np.flatnonzero(sk[1:] == sk[:-1]) + 1
    reps = order[same]
    k = int(reps.min())
    key = keys[k]
    j = int(np.flatnonzero(keys == key)[0])
    return k, j


# ---------------------------------------------------------------------------
# Pajek
# ---------------------------------------------------------------------------

_PAJ_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')


def _pajek_tokens(line):
    return [(m.group(1), True) if m.group(1) is not None else (m.group(2), False)
            for m in _PAJ_TOKEN.finditer(line)]


def _pajek_int(tok, loc, what):
    if not _INT_TEXT.fullmatch(tok):
        raise DataFormatError(f"{loc}: expected {what} (a whole number), found {tok!r}")
    return int(tok)


def _read_pajek(text, where, directed, weights, duplicates, attr_files):
    lines = _LINE_BREAK.split(text)
    n = None
    section = None
    kinds = set()
    vlabels = {}
    tails, heads, linenos, wvals = [], [], [], []
    node_attrs = {}
    i = 0

    def loc(lineno):
        return f"{where}, line {lineno}"

    def vertex(tok, lineno):
        v = int(tok) if tok.isdigit() and tok.isascii() else _pajek_int(tok, loc(lineno),
                                                                         "a vertex number")
        if not 1 <= v <= n:
            raise DataFormatError(f"{loc(lineno)}: vertex {v} is outside 1..{n} (the file has "
                                  f"*vertices {n})")
        return v - 1

    while i < len(lines):
        lineno = i + 1
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("%"):
            continue
        if line.startswith("*"):
            parts = line[1:].split(None, 1)
            key = parts[0].lower() if parts else ""
            rest = parts[1] if len(parts) > 1 else ""
            if key == "network":
                if n is None:
                    continue
                _warn(f"{loc(lineno)}: the file holds more than one network; only the "
                              "first was read")
                break
            if key == "vertices":
                if n is not None:
                    raise DataFormatError(f"{loc(lineno)}: a second *vertices line")
                toks = rest.split()
                if not toks:
                    raise DataFormatError(f"{loc(lineno)}: *vertices needs the number of vertices")
                n = _pajek_int(toks[0], loc(lineno), "the number of vertices")
                if len(toks) > 1:
                    raise NetworkError(f"{loc(lineno)}: '*vertices {rest}' declares a two-mode "
                                       "(bipartite) network, which ergmfit does not support yet")
                if n < 1:
                    raise NetworkError(f"{loc(lineno)}: *vertices {n}: the network has no nodes")
                if n > MAX_NODES:
                    raise NetworkError(f"{loc(lineno)}: *vertices {n} is more nodes than ergmfit "
                                       f"handles (at most {MAX_NODES:,})")
                section = "vertices"
                continue
            if key in ("arcs", "edges", "arcslist", "edgeslist"):
                if n is None:
                    raise DataFormatError(f"{loc(lineno)}: *{parts[0]} before *vertices")
                section = key
                kinds.add("arcs" if key.startswith("arcs") else "edges")
                continue
            if key in ("partition", "vector"):
                if n is None:
                    raise DataFormatError(f"{loc(lineno)}: *{parts[0]} before the network")
                name = rest.strip().strip('"').strip() or f"{key}{len(node_attrs) + 1}"
                name = re.sub(r"\.(clu|vec)$", "", name, flags=re.I)
                i = _read_pajek_block(lines, i, n, name, key, node_attrs, where)
                section = None
                continue
            if key == "matrix":
                raise DataFormatError(f"{loc(lineno)}: Pajek *matrix sections are not supported; "
                                      "write the ties as *arcs or *edges")
            raise DataFormatError(f"{loc(lineno)}: unknown Pajek section {line.split()[0]!r} "
                                  "(expected *vertices, *arcs or *edges)")
        if section is None:
            raise DataFormatError(f"{loc(lineno)}: expected '*vertices N' before {line[:20]!r}")
        toks = _pajek_tokens(line) if '"' in line else [(t, False) for t in line.split()]
        if section == "vertices":
            v = vertex(toks[0][0], lineno)
            if v in vlabels:
                raise DataFormatError(f"{loc(lineno)}: vertex {v + 1} is listed twice")
            if len(toks) > 1:
                tok, quoted = toks[1]
                lab = tok if quoted or not _INT_TEXT.fullmatch(tok) else int(tok)
            else:
                lab = v + 1
            vlabels[v] = lab
        elif section in ("arcs", "edges"):
            if len(toks) < 2:
                raise DataFormatError(f"{loc(lineno)}: expected two vertex numbers 'i j', found "
                                      f"{line[:40]!r}")
            tails.append(vertex(toks[0][0], lineno))
            heads.append(vertex(toks[1][0], lineno))
            linenos.append(lineno)
            if len(toks) > 2:
                wtok = toks[2][0]
                if wtok != "1":
                    try:
                        w = float(wtok)
                    except ValueError:
                        raise DataFormatError(f"{loc(lineno)}: expected a weight after 'i j', "
                                              f"found {wtok!r}") from None
                    if w != 1:
                        wvals.append((len(tails) - 1, w))
        else:  # arcslist / edgeslist
            a = vertex(toks[0][0], lineno)
            for tok, _ in toks[1:]:
                tails.append(a)
                heads.append(vertex(tok, lineno))
                linenos.append(lineno)
    if n is None:
        raise DataFormatError(f"{where}: no '*vertices N' line: not a Pajek network file")
    if len(kinds) > 1:
        raise DataFormatError(f"{where} mixes *arcs and *edges; ergmfit needs all ties of one "
                              "kind (arcs: directed, edges: undirected)")
    if kinds:
        file_directed = kinds == {"arcs"}
        _agree(file_directed, directed, f"{where} (it has *{kinds.pop()})")
        directed = file_directed
    else:
        directed = _need_directed(directed, f"{where} (it has no *arcs or *edges section)")
    locs = _Locs(f"{where}, line", linenos)
    bad = wvals[0] if wvals else None
    if bad is not None:
        _weights_problem(weights, f"{locs[bad[0]]}: the weight {_scalar(bad[1])!r} is not 1")
    labels = list(range(1, n + 1))
    if len(vlabels) == n and len(set(vlabels.values())) == n:
        labels = [vlabels[k] for k in range(n)]
    elif vlabels and len(set(vlabels.values())) < len(vlabels):
        _warn(f"{where}: vertex labels are not unique, so the nodes are labelled 1..{n}")
    if attr_files:
        for name, (fname, vals) in attr_files.items():
            if len(vals) != n:
                raise DataFormatError(f"{fname}: attribute {name!r} has {len(vals)} value(s) for "
                                      f"the {n} vertices of {where}")
            if name in node_attrs:
                raise DataFormatError(f"node attribute {name!r} is given both in {where} and in "
                                      f"{fname}")
            node_attrs[name] = vals
    t = np.asarray(tails, dtype=np.int64)
    h = np.asarray(heads, dtype=np.int64)
    keep = _clean_ties(t, h, n, directed, duplicates, locs, labels)
    ties = np.stack([t[keep], h[keep]], axis=1) if len(keep) else np.zeros((0, 2), np.int64)
    return Network(n, ties, directed, labels=labels, node_attrs=node_attrs)


def _read_pajek_block(lines, i, n, name, key, node_attrs, where):
    """A *partition / *vector block: '*vertices N' then N values; returns the next line index."""
    vals = []
    count = None
    while i < len(lines):
        lineno = i + 1
        line = lines[i].strip()
        if not line or line.startswith("%"):
            i += 1
            continue
        if count is None:
            toks = line.split()
            if len(toks) < 2 or toks[0].lower() != "*vertices":
                raise DataFormatError(f"{where}, line {lineno}: expected '*vertices {n}' after "
                                      f"*{key} {name}")
            count = _pajek_int(toks[1], f"{where}, line {lineno}", "the number of vertices")
            if count != n:
                raise DataFormatError(f"{where}, line {lineno}: *{key} {name} has {count} "
                                      f"vertices, the network {n}")
            i += 1
            continue
        if len(vals) == n or line.startswith("*"):
            break
        vals.append(_parse_value(line.split()[0]))
        i += 1
    if len(vals) != n:
        raise DataFormatError(f"{where}: *{key} {name} has {len(vals)} value(s) for {n} vertices")
    if name in node_attrs:
        raise DataFormatError(f"{where}: two *{key} blocks named {name!r}")
    node_attrs[name] = vals
    return i


# ---------------------------------------------------------------------------
# GraphML / GML (networkx)
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------

def _format_of(path, fmt):
    if fmt is not None:
        key = str(fmt).lower().lstrip(".")
        key = _FMT_ALIASES.get(key, key)
        if key not in FORMATS:
            raise NetworkError(f"unknown file format {fmt!r}; use one of {', '.join(FORMATS)}")
        return key
    name = os.path.basename(path).lower()
    parts = name.split(".")
    if len(parts) > 1 and parts[-1] in _COMPRESSED:
        parts = parts[:-1]
    ext = parts[-1] if len(parts) > 1 else ""
    for key, exts in FORMATS.items():
        if ext in exts:
            return key
    raise NetworkError(f"cannot tell the format of {os.path.basename(path)!r} from its extension; "
                       f"pass fmt= (command line: --format) with one of {', '.join(FORMATS)}")


def _read_bytes(path):
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise DataFormatError(f"no such file: {path!r}") from None
    except OSError as exc:
        raise DataFormatError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    ext = path.rsplit(".", 1)[-1].lower() if "." in os.path.basename(path) else ""
    if ext in _COMPRESSED:
        raw = _decompress(raw, ext, os.path.basename(path))
    return raw


def _decompress(raw, ext, where):
    """The bytes of a compressed file, read in chunks and capped at MAX_DECOMPRESSED_BYTES."""
    cap = MAX_DECOMPRESSED_BYTES
    out = bytearray()
    try:
        with _COMPRESSED[ext](_io.BytesIO(raw), "rb") as fh:
            while True:
                chunk = fh.read(min(1 << 20, cap + 1 - len(out)))
                if not chunk:
                    break
                out += chunk
                if len(out) > cap:
                    raise DataFormatError(
                        f"{where} expands to more than {cap // 2 ** 20:,} MiB when decompressed "
                        "(ergmfit.network.io.MAX_DECOMPRESSED_BYTES); decompress it yourself "
                        "if it really is that large")
    except DataFormatError:
        raise
    except Exception as exc:  # corrupt archive of any kind
        raise DataFormatError(f"{where} is not a valid .{ext} file: {exc}") from None
    return bytes(out)


def _decode(raw, where):
    if not raw.strip():
        raise DataFormatError(f"{where} is empty")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise DataFormatError(f"{where}, line {line}: not UTF-8 text (byte "
                              f"0x{raw[exc.start]:02x}); save the file as UTF-8") from None


def _check_visible(text, what):
    """An error naming ``what`` if ``text`` holds a character one cannot see (BOM, NUL, ...)."""
    m = _INVISIBLE.search(text)
    if m is not None:
        import unicodedata
        c = m.group()
        name = unicodedata.name(c, "a control character")
        hint = (" (a file pasted into another leaves its byte-order mark)" if c == "\ufeff"
                else "")
        raise DataFormatError(f"{what} {text!r} contains an invisible character, {name} "
                              f"(U+{ord(c):04X}); remove it{hint}")


def _check_names(names, where, lineno):
    at = f"{where}, line {lineno}" if lineno is not None else where
    seen = set()
    for k, name in enumerate(names):
        if not str(name).strip():
            raise DataFormatError(f"{at}: column {k + 1} of the header has no name")
        if isinstance(name, str):
            _check_visible(name, f"{at}: the column name")
        if name in seen:
            raise DataFormatError(f"{at}: the column name {name!r} appears twice in the header")
        seen.add(name)


def _check_choice(value, what, allowed):
    if value not in allowed:
        raise NetworkError(f"{what} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


def _need_directed(directed, what):
    if directed is None:
        raise NetworkError(f"{what} does not say whether the network is directed: pass "
                           "directed=True or directed=False (command line: --directed or "
                           "--undirected)")
    if isinstance(directed, (bool, np.bool_)) or directed in (0, 1):
        return bool(directed)
    raise NetworkError(f"directed must be True or False, got {directed!r}")


def _agree(actual, directed, what):
    if directed is None:
        return
    want = _need_directed(directed, what)
    if want != actual:
        kind = "directed" if actual else "undirected"
        raise NetworkError(f"{what} is {kind}, but directed={want} was given; directedness is "
                           "never converted silently")


def _no_file_options(nodes, fmt, what):
    if nodes is not None or fmt is not None:
        raise NetworkError(f"nodes= and fmt= apply to files only, not to {what}")


def _is_sparse(x):
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover - scipy is a dependency
        return False
    return sp.issparse(x)


def _is_dataframe(x):
    return type(x).__name__ == "DataFrame" and type(x).__module__.startswith("pandas")


def _scalar(v):
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return int(v)
    return v
