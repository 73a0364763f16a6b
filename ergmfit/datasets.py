"""Bundled network datasets.

>>> import ergmfit as ef
>>> g = ef.datasets.load("flomarriage")
>>> g.number_of_nodes(), g.number_of_edges()
(16, 20)
>>> sorted(ef.datasets.names())[:3]
['bipsim1', 'bipsim2', 'davis']
"""
from __future__ import annotations

import io
import lzma
import sys
from dataclasses import dataclass
from importlib import resources

import numpy as np

from .exceptions import ErgmfitError
from .network import io as _network_io
from .network._edgelist import read_records
from .network.values import parse_value as _parse_value


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    n_nodes: int
    n_edges: int
    directed: bool
    description: str
    source: str
    licence: str


_ERGM = "R package ergm 4.4.0 (statnet), data/{}.RData"
_FAUX = "CC BY-NC-ND 2.5 (as stated by the ergm help page); redistributed unchanged, attribution: statnet / Add Health"
_GPL_DATA = "factual research data, redistributed by GPL-3 R packages; cite the original authors"

_INFO = {
    "lazega": DatasetInfo("lazega", 36, 115, False,
                          "Lazega law firm: co-work ties among 36 partners (mutual nominations)",
                          "Lazega (2001); as sand::elist.lazega / amen::lazegalaw", _GPL_DATA),
    "flomarriage": DatasetInfo("flomarriage", 16, 20, False, "Florentine families, marriage ties",
                               "Padgett (1994); " + _ERGM.format("florentine"), _GPL_DATA),
    "flobusiness": DatasetInfo("flobusiness", 16, 15, False, "Florentine families, business ties",
                               "Padgett (1994); " + _ERGM.format("florentine"), _GPL_DATA),
    "faux.mesa.high": DatasetInfo("faux.mesa.high", 205, 203, False,
                                  "simulated school friendship network (Add Health based)",
                                  _ERGM.format("faux.mesa.high"), _FAUX),
    "faux.magnolia.high": DatasetInfo("faux.magnolia.high", 1461, 974, False,
                                      "simulated school friendship network (Add Health based)",
                                      _ERGM.format("faux.magnolia.high"), _FAUX),
    "faux.desert.high": DatasetInfo("faux.desert.high", 107, 439, True,
                                    "simulated directed school friendship network",
                                    _ERGM.format("faux.desert.high"), _FAUX),
    "faux.dixon.high": DatasetInfo("faux.dixon.high", 248, 1197, True,
                                   "simulated directed school friendship network",
                                   _ERGM.format("faux.dixon.high"), _FAUX),
    "samplike": DatasetInfo("samplike", 18, 88, True,
                            "Sampson's monks, cumulative liking over three waves",
                            "Sampson (1968); " + _ERGM.format("sampson"), _GPL_DATA),
    "samplk1": DatasetInfo("samplk1", 18, 55, True, "Sampson's monks, liking, wave 1",
                           "Sampson (1968); " + _ERGM.format("samplk"), _GPL_DATA),
    "samplk2": DatasetInfo("samplk2", 18, 57, True, "Sampson's monks, liking, wave 2",
                           "Sampson (1968); " + _ERGM.format("samplk"), _GPL_DATA),
    "samplk3": DatasetInfo("samplk3", 18, 56, True, "Sampson's monks, liking, wave 3",
                           "Sampson (1968); " + _ERGM.format("samplk"), _GPL_DATA),
    "kapferer": DatasetInfo("kapferer", 39, 158, False, "Kapferer's tailor shop, time 1",
                            "Kapferer (1972); " + _ERGM.format("kapferer"), _GPL_DATA),
    "kapferer2": DatasetInfo("kapferer2", 43, 190, False, "Kapferer's tailor shop, 43 workers",
                             "Kapferer (1972); " + _ERGM.format("kapferer"), _GPL_DATA),
    "molecule": DatasetInfo("molecule", 20, 28, False, "synthetic molecule-like network",
                            _ERGM.format("molecule"), "GPL-3 (ergm package example data)"),
    "ecoli1": DatasetInfo("ecoli1", 423, 519, True, "E. coli transcriptional regulation network",
                          "Salgado et al. (2001), Shen-Orr et al. (2002); " + _ERGM.format("ecoli"),
                          _GPL_DATA),
    "ecoli2": DatasetInfo("ecoli2", 418, 519, False,
                          "E. coli network, undirected, without isolates",
                          "Salgado et al. (2001), Shen-Orr et al. (2002); " + _ERGM.format("ecoli"),
                          _GPL_DATA),
    "g4": DatasetInfo("g4", 4, 5, True, "Goodreau's 4-node toy network", _ERGM.format("g4"),
                      "GPL-3 (ergm package example data)"),
    "davis": DatasetInfo("davis", 32, 89, False,
                         "Davis southern women: 18 women (mode 1) x 14 events (mode 2), two-mode",
                         "Davis, Gardner & Gardner (1941); networkx davis_southern_women_graph()",
                         "factual research data (public domain); cite Davis, Gardner & Gardner (1941)"),
    "bipsim1": DatasetInfo("bipsim1", 50, 124, False,
                           "simulated two-mode network, 30 + 20 nodes, attributes by mode",
                           "simulated with ergm 4.4.0 for ergmfit's reference values",
                           "CC0 (simulated for ergmfit)"),
    "bipsim2": DatasetInfo("bipsim2", 85, 154, False,
                           "simulated two-mode network, 60 + 25 nodes, attributes by mode",
                           "simulated with ergm 4.4.0 for ergmfit's reference values",
                           "CC0 (simulated for ergmfit)"),
    "epinions": DatasetInfo("epinions", 75879, 508837, True,
                            "Epinions who-trusts-whom network (SNAP soc-Epinions1)",
                            "Richardson, Agrawal & Domingos (2003); Stanford SNAP soc-Epinions1",
                            "SNAP dataset, free for research use with citation"),
}


def names() -> list:
    """Names of the bundled datasets."""
    return sorted(_INFO)


def info(name: str) -> DatasetInfo:
    """Size, source and licence of a bundled dataset."""
    return _INFO[_check(name)]


def _check(name):
    if name not in _INFO:
        import difflib
        close = difflib.get_close_matches(str(name), list(_INFO), n=3)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ErgmfitError(f"no bundled dataset {name!r}.{hint} Available: {', '.join(names())}")
    return name


def _open(filename):
    try:
        return resources.files("ergmfit.data").joinpath(filename)
    except ModuleNotFoundError:
        # running from a source checkout: data/ sits beside ergmfit/
        import pathlib
        return pathlib.Path(__file__).resolve().parent.parent / "data" / filename


def _read_csv(path_obj):
    """Header and rows of a bundled CSV: unquoted cells parsed (numbers, TRUE/FALSE, NA),
    quoted cells kept as text -- the rules of the edge-list reader, with its parser."""
    with path_obj.open("r", encoding="utf-8", newline="") as fh:
        recs = read_records((line.rstrip("\r\n") for line in fh), ",", path_obj.name)
        _, header, _ = next(recs)
        rows = [[v if (quoted is not None and quoted[k]) else _parse_value(v)
                 for k, v in enumerate(fields)] for _, fields, quoted in recs]
    return header, rows


def load_network(name: str):
    """A bundled dataset as a :class:`~ergmfit.network.Network` (fast, no networkx graph)."""
    from .network import Network
    name = _check(name)
    meta = _INFO[name]
    if name == "epinions":
        return _load_epinions()
    eh, erows = _read_csv(_open(f"{name}.edges.csv"))
    nh, nrows = _read_csv(_open(f"{name}.nodes.csv"))
    n = len(nrows)
    ids = [row[0] for row in nrows]
    if ids != list(range(1, n + 1)):
        raise ErgmfitError(f"dataset {name}: node ids are not 1..n")
    ties = np.array([(row[0] - 1, row[1] - 1) for row in erows], dtype=np.int64).reshape(-1, 2)
    node_attrs = {a: [row[k] for row in nrows] for k, a in enumerate(nh) if k > 0}
    edge_attrs = {a: [row[k] for row in erows] for k, a in enumerate(eh) if k > 1}
    n1 = None
    if "mode" in node_attrs:        # a two-mode network: mode-1 nodes first (statnet's bipartite=n1)
        n1 = sum(1 for m in node_attrs.pop("mode") if m == 1)
    net = Network(n, ties, meta.directed, labels=ids, node_attrs=node_attrs, edge_attrs=edge_attrs,
                  bipartite=n1)
    return net


_EPINIONS_FILE = "epinions.arcs.npz.xz"


def _encode_arc_list(text: bytes) -> bytes:
    r"""Compress a SNAP arc list losslessly (what ``data/epinions.arcs.npz.xz`` holds).

    The text is ``#`` header lines, then one ``tail<TAB>head`` line per arc, the arcs of one
    tail contiguous and their heads ascending (SNAP's layout). Stored: the header bytes, the
    tail of each run of arcs in file order, the run lengths, the head gaps within each run
    (the first head of a run as it is) and the line break, as an uncompressed ``.npz``
    compressed with xz; :func:`_decode_arc_list` gives the text back byte for byte.

    Parameters
    ----------
    text : bytes
        The arc list file's content.

    Returns
    -------
    bytes
        The xz-compressed ``.npz``.

    Examples
    --------
    >>> text = b"# toy\n0\t4\n0\t5\n2\t1\n"
    >>> _decode_arc_list(_encode_arc_list(text)) == text
    True
    """
    lines = text.splitlines(keepends=True)
    n_header = next((k for k, line in enumerate(lines) if not line.startswith(b"#")), len(lines))
    header = b"".join(lines[:n_header])
    body = lines[n_header:]
    newline = body[0][len(body[0].rstrip(b"\r\n")):] if body else b"\n"
    if any(line[len(line) - len(newline):] != newline or line[:-len(newline)].endswith(b"\r")
           for line in body):
        raise ErgmfitError("arc list: every arc line must end with the same line break")
    arcs = np.array([line.split() for line in body], dtype=np.int64).reshape(-1, 2)
    tails, heads = arcs[:, 0], arcs[:, 1]
    starts = np.flatnonzero(np.r_[True, tails[1:] != tails[:-1]]) if len(arcs) else np.array([], int)
    gaps = np.diff(heads, prepend=0)
    gaps[starts] = heads[starts]
    if (gaps < 0).any() or len(np.unique(tails[starts])) != len(starts):
        raise ErgmfitError("arc list: the arcs of a tail must be contiguous with ascending heads")
    buffer = io.BytesIO()
    np.savez(buffer, header=np.frombuffer(header, np.uint8),
             newline=np.frombuffer(newline, np.uint8), run_tails=tails[starts].astype("<u4"),
             run_lengths=np.diff(np.r_[starts, len(arcs)]).astype("<u4"),
             head_gaps=gaps.astype("<u4"))
    return lzma.compress(buffer.getvalue(), preset=9)


def _decode_arcs(blob):
    """Header bytes, line break and the ``(n_arcs, 2)`` int64 arcs, in file order, of an
    :func:`_encode_arc_list` blob."""
    # written straight into the one (n_arcs, 2) array returned: no column copies (the
    # temporaries are one column's worth at most)
    with np.load(io.BytesIO(lzma.decompress(blob)), allow_pickle=False) as parts:
        header = parts["header"].tobytes()
        newline = parts["newline"].tobytes()
        lengths = parts["run_lengths"].astype(np.int64)
        run_tails = parts["run_tails"]
        gaps = parts["head_gaps"]
    arcs = np.empty((len(gaps), 2), dtype=np.int64)
    arcs[:, 0] = np.repeat(run_tails, lengths)
    heads = arcs[:, 1]
    heads[:] = gaps
    starts = np.cumsum(lengths) - lengths
    first = heads[starts]                   # each run's first head, as stored
    np.cumsum(heads, out=heads)
    heads -= np.repeat(heads[starts] - first, lengths)
    return header, newline, arcs


def _decode_arc_list(blob: bytes) -> bytes:
    """The arc list text of an :func:`_encode_arc_list` blob, byte for byte.

    Parameters
    ----------
    blob : bytes
        What :func:`_encode_arc_list` returned.

    Returns
    -------
    bytes
        The original text.
    """
    header, newline, arcs = _decode_arcs(blob)
    return header + b"".join(b"%d\t%d%s" % (t, h, newline) for t, h in arcs.tolist())


def _load_epinions():
    from .network import Network
    with _open(_EPINIONS_FILE).open("rb") as fh:
        _, _, ties = _decode_arcs(fh.read())
    n, ties, labels = _relabel_in_place(ties, as_list=False)
    return Network(n, ties, True, labels=labels)


def _relabel_in_place(ties, chunk=1 << 16, as_list=True):
    """``(n, ties, labels)``: the ids in ``ties`` (non-negative integers) replaced, in place,
    by their ranks 0..n-1 among the distinct ids, and the ids themselves (ascending) as
    labels, a list (or with ``as_list=False`` an int64 array, which a
    :class:`~ergmfit.network.Network` lists only when its labels are read: 0.6 instead of
    2.9 MB for Epinions); what ``np.unique(ties, return_inverse=True)`` gives, without its
    sorted copies.

    Examples
    --------
    >>> t = np.array([[10, 3], [3, 7]])
    >>> _relabel_in_place(t)
    (3, array([[2, 0],
           [0, 1]]), [3, 7, 10])
    """
    present = np.zeros(int(ties.max()) + 1 if ties.size else 0, dtype=bool)
    present[ties.ravel()] = True
    rank = np.cumsum(present) - 1
    ids = np.flatnonzero(present)
    del present
    for a in range(0, len(ties), chunk):
        ties[a:a + chunk] = rank[ties[a:a + chunk]]
    return len(ids), ties, ids.tolist() if as_list else ids


def load(name: str, as_network: bool = False):
    """Load a bundled dataset.

    Parameters
    ----------
    name : str
        One of :func:`names` (``"lazega"``, ``"faux.mesa.high"``, ``"epinions"``, ...).
    as_network : bool
        Return ergmfit's light :class:`~ergmfit.network.Network` instead of a
        networkx graph (much faster and smaller for epinions).

    Returns
    -------
    networkx.Graph or networkx.DiGraph
        Nodes are the 1-based ids of the data (SNAP ids for epinions), in
        file order, with the node attributes (``name`` holds vertex names
        where the data has them).
    """
    net = load_network(name)
    return net if as_network else net.to_networkx()


# bundled names resolve in ERGM("flomarriage", ...), as_network, the command line: the
# network layer looks them up here without importing this module (no import circle)
_network_io.register_bundled(sys.modules[__name__])
