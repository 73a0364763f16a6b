"""Reading networks: bundled names, files, matrices and edge-list tables.

Everything a user may hand to :class:`~ergmfit.ERGM` that is not already a
graph object goes through :func:`load_any`; files go through
:func:`read_network`.  Nothing the caller passes in is ever modified.

This module holds the entry points; the readers live beside it by family:
``_edgelist`` (CSV/TSV and DataFrames), ``_pajek``, ``_graphfiles``
(GraphML/GML), ``_matrix`` (adjacency matrices), ``_common`` (file reading,
checks, tie rules) and ``values`` (the cell-value rule the bundled data
shares).  Bundled names are resolved through :func:`register_bundled`
(``ergmfit.datasets`` registers itself), so this layer never imports the
datasets module.

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

Files ending in ``.gz``, ``.bz2`` or ``.xz`` are decompressed (at most
``MAX_DECOMPRESSED_BYTES``, 1 GiB); the format is taken from the extension
before that, or from ``fmt``.  Text must be UTF-8 (a byte-order mark is
allowed at the start; invisible characters -- a byte-order mark mid-file,
NUL, zero-width or bidi marks -- in a node id or column name are an error
naming the line).  CSV/TSV files are streamed: read a line at a time, never
held whole in memory.

Ties
----
* Self-loops are an error (ERGMs here have no loops).
* A tie listed twice is an error naming both lines, unless
  ``duplicates="merge"``, which keeps the first listing and warns (edge
  lists, Pajek and GraphML files alike; a GML file's repeated tie is named
  by its nodes, not by its lines).
* In an undirected edge list, ``i,j`` and ``j,i`` both listed are one tie:
  they are merged with a warning (statnet does the same: an undirected
  network has one tie per pair); the first listing and its edge attributes
  are kept.  If the two listings' edge attributes differ (``1,2,3`` and
  ``2,1,5``), that is an error naming the pair unless
  ``duplicates="merge"``, which keeps the first listing's values and warns.
* An edge attribute ``weight`` whose values are all 1 is dropped; any
  other value is an error, unless ``weights="ignore"``, which treats every
  listed edge (for matrices: every nonzero entry) as a tie and warns.
"""
from __future__ import annotations

import difflib
import os

import numpy as np

from ..exceptions import DataFormatError, NetworkError
from ..utils.optional import is_networkx_graph
from .network import MAX_NODES, Network  # noqa: F401 - MAX_NODES is part of this module's API
from .values import parse_value as _parse_value
from ._common import (_COMPRESSED, _LINE_BREAK, _agree, _check_choice, _check_names, _decode,
                      _is_dataframe, _is_sparse, _no_file_options, _read_bytes, _text_lines)
from ._edgelist import _read_edge_csv, _read_node_csv, from_edgelist
from ._graphfiles import _read_with_networkx
from ._matrix import from_adjacency
from ._pajek import _read_pajek

__all__ = ["as_network", "load_any", "read_network", "read_estimnet_attributes", "from_adjacency",
           "from_edgelist", "FORMATS", "MAX_DECOMPRESSED_BYTES", "MAX_NODES"]


#: format name -> file extensions (without the dot) that imply it
FORMATS = {
    "csv": ("csv",),
    "tsv": ("tsv", "tab"),
    "graphml": ("graphml",),
    "gml": ("gml",),
    "pajek": ("net", "paj", "pajek"),
}


_FMT_ALIASES = {"net": "pajek", "paj": "pajek", "xml": "graphml"}


#: the most bytes a compressed file may expand to (a guard against decompression bombs)
MAX_DECOMPRESSED_BYTES = 2 ** 30


def as_network(data, directed=None, weights="error", nodes=None) -> Network:
    """Anything a user may hold, as a :class:`Network`.

    Accepts a Network (returned as it is), a networkx graph, a path to a
    file (see :func:`read_network`), a bundled dataset name, an adjacency
    matrix or a pandas edge list (see :func:`load_any`); ``nodes`` is a node
    file (or node DataFrame) for an edge-list file (or DataFrame), as the
    command line's ``--nodes``.
    """
    if isinstance(data, Network) and nodes is None:
        return data
    return load_any(data, directed=directed, weights=weights, nodes=nodes)


#: where bundled dataset names are looked up: ergmfit.datasets registers itself here when it
#: is imported (the network layer never imports the datasets module)
_bundled = None


def register_bundled(source) -> None:
    """Make :func:`load_any` resolve names through ``source`` (an object with
    ``names()`` and ``load_network(name)``: :mod:`ergmfit.datasets` registers itself)."""
    global _bundled
    _bundled = source


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
    weights : {"error", "ignore", "keep"}
        ``"keep"``: a ``weight`` column stays an edge attribute (count-valued models).
    duplicates : {"error", "merge"}

    Examples
    --------
    >>> load_any("flomarriage")
    <Network: undirected, 16 nodes, 20 ties>
    >>> import numpy as np
    >>> load_any(np.array([[0, 1], [1, 0]]), directed=False)
    <Network: undirected, 2 nodes, 1 ties>
    """
    _check_choice(weights, "weights", ("error", "ignore", "keep"))
    _check_choice(duplicates, "duplicates", ("error", "merge"))
    if isinstance(data, Network):
        _no_file_options(nodes, fmt, "a Network")
        _agree(data.directed, directed, "the network")
        return data
    if is_networkx_graph(data):
        _no_file_options(nodes, fmt, "a networkx graph")
        net = Network.from_networkx(data, weights=weights)
        _agree(net.directed, directed, "the graph")
        return net
    if isinstance(data, str):
        names = _bundled.names() if _bundled is not None else []
        if data in names:
            _no_file_options(nodes, fmt, f"the bundled dataset {data!r}")
            net = _bundled.load_network(data)
            _agree(net.directed, directed, f"the bundled dataset {data!r}")
            return net
        if not os.path.exists(data):
            close = difflib.get_close_matches(data, names, n=3)
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
    weights : {"error", "ignore", "keep"}
        What to do with a ``weight`` column holding values other than 1 (``"keep"``:
        keep it as an edge attribute, for a count-valued model's ``response="weight"``).
    duplicates : {"error", "merge"}
        What to do with a tie listed twice.

    See the module documentation for the exact rules of each format.

    Examples
    --------
    >>> net = read_network("edges.csv", directed=True, nodes="nodes.csv")  # doctest: +SKIP
    """
    _check_choice(weights, "weights", ("error", "ignore", "keep"))
    _check_choice(duplicates, "duplicates", ("error", "merge"))
    path = os.fspath(path)
    fmt = _format_of(path, fmt)
    where = os.path.basename(path) or path
    if fmt in ("csv", "tsv"):
        # streamed: a line at a time, never the whole file (or its decompressed text) in memory
        if nodes is not None and not isinstance(nodes, (str, os.PathLike)):
            raise NetworkError("nodes= for an edge-list CSV is one node CSV file (first column "
                               "the node id)")
        delim = "," if fmt == "csv" else "\t"
        node_table = None
        if nodes is not None:
            npath = os.fspath(nodes)
            nwhere = os.path.basename(npath) or npath
            node_table = _read_node_csv(_text_lines(npath, nwhere, MAX_DECOMPRESSED_BYTES),
                                        nwhere, delim)
        return _read_edge_csv(_text_lines(path, where, MAX_DECOMPRESSED_BYTES), where, delim,
                              directed, node_table, weights, duplicates)
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
        # streamed: a line at a time, never the whole file (or its decompressed text) in memory
        return _read_pajek(_text_lines(path, where, MAX_DECOMPRESSED_BYTES), where, directed,
                           weights, duplicates, attr)
    raw = _read_bytes(path, MAX_DECOMPRESSED_BYTES)
    if not raw.strip():
        raise DataFormatError(f"{where} is empty")
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
    text = _decode(_read_bytes(path, MAX_DECOMPRESSED_BYTES), where)
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
