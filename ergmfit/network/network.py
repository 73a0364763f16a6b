"""The Python view of a network: nodes, ties and attributes.

A :class:`Network` is what term builders validate against and what the
compiled :class:`~ergmfit.network._state.NetworkState` is made from.  It
never holds a reference to the caller's graph, so nothing the user passed
in is ever modified.
"""
from __future__ import annotations

import copy
import numbers

import numpy as np

from ..exceptions import NetworkError, TermError
from ..utils.optional import is_networkx_graph
from ..utils.validation import warn as _warn
from ._state import NetworkState
from .values import is_missing, missing_error


#: the largest number of nodes a network may have (its compiled state is O(n) memory)
MAX_NODES = 10_000_000

#: networks of at most this many nodes hold their two-path counts in the compiled
#: state (see ``ERGM.compiled``): they fit in the L1 cache
SMALL_NETWORK = 64



def _is_float(v) -> bool:
    try:
        float(v)
    except (TypeError, ValueError, OverflowError):
        return False
    return True

class Network:
    """Nodes 0..n-1 (with their original labels), ties and attributes.

    Parameters
    ----------
    n : int
        Number of nodes.
    ties : array_like of shape (m, 2)
        Ties as 0-based node indices; for undirected networks each tie once.  Kept as
        the attribute ``ties``, an (m, 2) int32 array (indices are below
        ``MAX_NODES``): a key ``i * n + j`` needs ``ties.astype(np.int64)`` first.
    directed : bool
    labels : list, optional
        Original node labels, in index order (default 0..n-1).
    node_attrs : dict of str -> sequence, optional
        Node attributes, one value per node (``None``/NaN for missing).
    edge_attrs : dict of str -> sequence, optional
        Tie attributes, aligned with ``ties``.
    bipartite : int, optional
        For a two-mode (bipartite) network, the number n1 of mode-1 nodes: nodes
        0..n1-1 are mode 1, the rest mode 2 (statnet's ``bipartite=n1``). The
        network must be undirected and every tie joins the two modes; only
        between-mode dyads exist.

    Examples
    --------
    >>> net = Network(3, [(0, 1), (1, 2)], directed=False)
    >>> net.n_ties
    2
    """

    def __init__(self, n, ties, directed, labels=None, node_attrs=None, edge_attrs=None,
                 graph_attrs=None, bipartite=None):
        n = int(n)
        if n < 1:
            raise NetworkError("the network has no nodes")
        if n > MAX_NODES:
            raise NetworkError(f"the network has {n:,} nodes, more than ergmfit handles (at "
                               f"most {MAX_NODES:,})")
        ties = np.asarray(ties, dtype=np.int64).reshape(-1, 2)
        bipartite = _check_bipartite(n, ties, directed, bipartite)
        if len(ties):
            if ties.min() < 0 or ties.max() >= n:
                raise NetworkError(f"a tie refers to a node outside 0..{n - 1}")
            loops = ties[:, 0] == ties[:, 1]
            if loops.any():
                k = int(np.flatnonzero(loops)[0])
                raise NetworkError(f"self-loop at node {labels[ties[k, 0]] if labels else ties[k, 0]!r}: "
                                   "ERGMs here have no loops; remove self-loops first")
            if not directed:
                ties = np.sort(ties, axis=1)
            keys = ties[:, 0] * n                         # sorted: linear-time check, no hashing
            keys += ties[:, 1]
            # ties listed by tail and head (SNAP's files, Epinions) have increasing keys: no
            # repeat, and no sort (0.01-0.04 CPU s of Epinions' loading)
            if not (keys[1:] > keys[:-1]).all():
                keys.sort()
            if (keys[1:] == keys[:-1]).any():
                raise NetworkError("the network has repeated ties (a multigraph); "
                                   "ergmfit models binary ties: remove the duplicates")
        self.n = n
        self.directed = bool(directed)
        # node indices below MAX_NODES < 2^31: 4 bytes each (Epinions' ties 7.8 -> 3.9 MiB
        # through a whole run, issue #35); a reader computing i * n + j converts first
        self.ties = ties.astype(np.int32)
        self.bipartite = bipartite
        if labels is None:
            self._label_ids = range(n)          # the list made at first use (see labels)
        elif isinstance(labels, np.ndarray) and labels.ndim == 1 and labels.dtype.kind in "iu":
            # 4 bytes a node where the ids fit (Epinions' 0.6 -> 0.3 MiB), else 8
            small = len(labels) == 0 or (labels.min() >= -2 ** 31 and labels.max() < 2 ** 31)
            self._label_ids = labels.astype(np.int32 if small else np.int64)
        else:
            self.labels = list(labels)
        if len(self._labels if self._label_ids is None else self._label_ids) != n:
            raise NetworkError("labels must have one entry per node")
        self.node_attrs = {}
        for name, vals in (node_attrs or {}).items():
            vals = list(vals)
            if len(vals) != n:
                raise NetworkError(f"node attribute {name!r} has {len(vals)} values for {n} nodes")
            self.node_attrs[str(name)] = vals
        self.edge_attrs = {}
        for name, vals in (edge_attrs or {}).items():
            vals = list(vals)
            if len(vals) != len(ties):
                raise NetworkError(f"edge attribute {name!r} has {len(vals)} values for "
                                   f"{len(ties)} ties")
            self.edge_attrs[str(name)] = vals
        # network-level attributes (e.g. an n x n dyadic covariate matrix for edgecov)
        self.graph_attrs = dict(graph_attrs or {})

    # -- labels ------------------------------------------------------------
    # Integer labels (0..n-1 by default, or an integer array such as a SNAP file's ids) are
    # kept as a range or an int64 array, 8 bytes a node, and become the list of Python ints
    # ``labels`` is only when it is first read: Epinions' 75,879 ids take 0.6 MB instead of
    # 2.9 MB through a whole EE run, which never reads them (issue #35).
    _labels = None
    _label_ids = None

    @property
    def labels(self) -> list:
        """The original node labels, in index order (a list)."""
        if self._label_ids is not None:
            ids = self._label_ids
            self._labels = ids.tolist() if isinstance(ids, np.ndarray) else list(ids)
            self._label_ids = None
        return self._labels

    def integer_labels(self):
        """The node labels as an int64 array when every one is an integer, else None;
        integer ids kept as a range or an array are read without listing them.

        >>> Network(3, [[0, 1]], False).integer_labels().tolist()
        [0, 1, 2]
        >>> Network(2, [[0, 1]], False, labels=["a", "b"]).integer_labels() is None
        True
        """
        ids = self._label_ids
        if ids is not None:
            return (np.arange(ids.start, ids.stop, ids.step, dtype=np.int64)
                    if isinstance(ids, range) else np.asarray(ids, dtype=np.int64))
        labels = self.labels
        if all(type(lab) is int for lab in labels):
            return np.array(labels, dtype=np.int64)
        return None

    @labels.setter
    def labels(self, value):
        self._labels = value
        self._label_ids = None

    # -- basic facts -------------------------------------------------------
    @property
    def n_ties(self) -> int:
        return len(self.ties)

    @property
    def n_dyads(self) -> int:
        if self.bipartite is not None:
            return self.bipartite * (self.n - self.bipartite)
        return self.n * (self.n - 1) if self.directed else self.n * (self.n - 1) // 2

    @property
    def is_bipartite(self) -> bool:
        return self.bipartite is not None

    def mode_attribute(self, name, mode, numeric=False) -> np.ndarray:
        """Values of node attribute ``name`` on the nodes of one mode (1 or 2) of a
        two-mode network (the other mode may leave it undefined)."""
        sub = self._mode_view(mode)
        return sub.node_attribute(name, numeric=numeric)

    def _mode_view(self, mode):
        n1 = self.bipartite
        idx = range(0, n1) if mode == 1 else range(n1, self.n)
        view = Network.__new__(Network)
        view.n = len(idx)
        view.labels = [self.labels[i] for i in idx]
        view.node_attrs = {a: [v[i] for i in idx] for a, v in self.node_attrs.items()}
        view.edge_attrs = {}
        return view

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        if self.bipartite is not None:
            kind = f"two-mode ({self.bipartite} + {self.n - self.bipartite} nodes)"
        return f"<Network: {kind}, {self.n} nodes, {self.n_ties} ties>"

    def state(self, empty=False) -> NetworkState:
        """A new compiled state holding these ties (or none)."""
        return NetworkState(self.n, self.directed, None if empty else self.ties)

    # -- attributes --------------------------------------------------------
    def _missing_attr(self, name, what="node"):
        have = sorted(self.node_attrs if what == "node" else self.edge_attrs)
        listing = ", ".join(repr(a) for a in have) if have else "none"
        return TermError(f"the network has no {what} attribute {name!r}; "
                         f"its {what} attributes are: {listing}")

    def node_attribute(self, name, numeric=False) -> np.ndarray:
        """Values of node attribute ``name``: a float array if ``numeric``.

        Raises a TermError naming the attribute if it is absent, has
        missing values, or is not numeric when it must be.
        """
        if name not in self.node_attrs:
            raise self._missing_attr(name)
        vals = self.node_attrs[name]
        missing = [i for i, v in enumerate(vals) if _is_missing(v)]
        if missing:
            raise missing_error(name, self.labels, missing, getattr(self, "bipartite", None))
        if numeric:
            try:
                arr = np.array([float(v) for v in vals], dtype=float)
            except OverflowError:
                raise TermError(f"node attribute {name!r} has values beyond the range of "
                                "floating-point numbers") from None
            except (TypeError, ValueError):
                k = next(k for k, v in enumerate(vals) if not _is_float(v))
                raise TermError(f"node attribute {name!r} must be numeric here, but it has "
                                f"values like {vals[k]!r} (node {self.labels[k]!r})") from None
            if not np.all(np.isfinite(arr)):
                raise TermError(f"node attribute {name!r} has infinite values")
            return arr
        return np.array(vals, dtype=object)

    def edge_attribute(self, name) -> np.ndarray:
        if name not in self.edge_attrs:
            raise self._missing_attr(name, "edge")
        return np.array(self.edge_attrs[name], dtype=object)

    # -- conversions -------------------------------------------------------
    @classmethod
    def from_networkx(cls, g, weights="error"):
        """Build from a networkx Graph or DiGraph without touching it.

        ``weights``: an edge attribute ``weight`` whose values are not all 1
        is an error (``"error"``, the default), dropped with a warning
        (``"ignore"``) or kept as an edge attribute like any other (``"keep"``:
        a count-valued model's response).
        """
        if not is_networkx_graph(g):
            raise NetworkError(f"expected a networkx Graph or DiGraph, got {type(g).__name__}")
        import networkx as nx

        if g.is_multigraph():
            raise NetworkError("multigraphs are not supported: ERGMs model binary ties; "
                               "convert with nx.Graph(g) or nx.DiGraph(g) to drop repeated ties")
        nodes = list(g.nodes())
        if not nodes:
            raise NetworkError("the network has no nodes")
        index = {v: k for k, v in enumerate(nodes)}
        loops = list(nx.selfloop_edges(g))
        if loops:
            raise NetworkError(f"the network has {len(loops)} self-loop(s), e.g. at node "
                               f"{loops[0][0]!r}; ERGMs here have no loops: remove them with "
                               "g.remove_edges_from(nx.selfloop_edges(g)) on a copy")
        edges = list(g.edges(data=True))
        ties = np.array([(index[u], index[v]) for u, v, _ in edges], dtype=np.int64).reshape(-1, 2)
        edge_attr_names = sorted({k for _, _, d in edges for k in d})
        edge_attrs = {}
        for a in edge_attr_names:
            vals = _copy_values(d.get(a) for _, _, d in edges)
            if a == "weight" and weights != "keep":
                if all(_is_one(v) for v in vals):
                    continue
                if weights == "ignore":
                    _warn("edge weights are ignored: ergmfit models binary ties")
                    continue
                raise NetworkError("the network has edge weights other than 1; ergmfit models "
                                   "binary ties. Threshold or drop the weights first, or pass "
                                   "weights='ignore' to treat every edge as a tie")
            edge_attrs[a] = vals
        attr_names = sorted({k for _, d in g.nodes(data=True) for k in d})
        node_attrs = {a: _copy_values(g.nodes[v].get(a) for v in nodes) for a in attr_names}
        n1 = None
        modes = node_attrs.get("bipartite")
        if modes is not None and not g.is_directed() and all(m in (0, 1) and not isinstance(m, str)
                                                             for m in modes):
            # networkx's two-mode convention: mode-1 nodes (bipartite=0) first, as statnet
            order = sorted(range(len(nodes)), key=lambda k: modes[k])
            if order != list(range(len(nodes))):
                inv = np.empty(len(nodes), dtype=np.int64)
                inv[order] = np.arange(len(nodes))
                ties = inv[ties] if len(ties) else ties
                nodes = [nodes[k] for k in order]
                node_attrs = {a: [v[k] for k in order] for a, v in node_attrs.items()}
            n1 = sum(1 for m in modes if m == 0)
            n1 = n1 if 0 < n1 < len(nodes) else None
        return cls(len(nodes), ties, g.is_directed(), labels=_copy_values(nodes),
                   node_attrs=node_attrs, edge_attrs=edge_attrs,
                   graph_attrs={k: _copy_value(v) for k, v in g.graph.items()}, bipartite=n1)

    def to_networkx(self):
        """A new networkx graph with the original labels and attributes.

        Attribute values are copies: editing the graph never edits this
        network (or the graph it was made from), nor the other way round.
        """
        import networkx as nx

        g = nx.DiGraph() if self.directed else nx.Graph()
        g.graph.update({k: _copy_value(v) for k, v in self.graph_attrs.items()})
        # attribute dicts, not keyword arguments: any attribute name works ('self', 'u', ...)
        g.add_nodes_from((lab, {a: _copy_value(vals[i]) for a, vals in self.node_attrs.items()
                                if not _is_missing(vals[i])})
                         for i, lab in enumerate(self.labels))
        if self.bipartite is not None:
            for i, lab in enumerate(self.labels):
                g.nodes[lab]["bipartite"] = 0 if i < self.bipartite else 1
        g.add_edges_from((self.labels[i], self.labels[j],
                          {a: _copy_value(vals[k]) for a, vals in self.edge_attrs.items()})
                         for k, (i, j) in enumerate(self.ties.tolist()))
        return g

    def with_ties(self, ties):
        """The same nodes and attributes with other ties (edge attributes dropped).

        The node and graph attribute values are copies, so the new network
        shares no mutable object with this one.
        """
        return Network(self.n, ties, self.directed, labels=self.labels,
                       node_attrs={a: _copy_values(v) for a, v in self.node_attrs.items()},
                       graph_attrs={k: _copy_value(v) for k, v in self.graph_attrs.items()},
                       bipartite=self.bipartite)


_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, np.generic, frozenset)


def _copy_value(v):
    """v itself if it cannot change, else a deep copy (lists, dicts, arrays, ...)."""
    if isinstance(v, _IMMUTABLE):
        return v
    if isinstance(v, tuple) and all(isinstance(x, _IMMUTABLE) for x in v):
        return v
    return copy.deepcopy(v)


def _copy_values(values) -> list:
    return [v if isinstance(v, _IMMUTABLE) else _copy_value(v) for v in values]


def _check_bipartite(n, ties, directed, n1):
    """statnet's ``bipartite=n1``: validated, or None for a one-mode network."""
    if n1 is None or n1 is False:
        return None
    if isinstance(n1, (bool, np.bool_)) or not isinstance(n1, numbers.Integral):
        raise NetworkError(f"bipartite must be the number of mode-1 nodes (an integer), got {n1!r}")
    n1 = int(n1)
    if not 0 < n1 < n:
        raise NetworkError(f"bipartite={n1}: a two-mode network needs 1..{n - 1} mode-1 nodes "
                           f"(it has {n} nodes)")
    if directed:
        raise NetworkError("two-mode (bipartite) networks are undirected here, as in statnet")
    if len(ties):
        lo, hi = np.minimum(ties[:, 0], ties[:, 1]), np.maximum(ties[:, 0], ties[:, 1])
        bad = np.flatnonzero((lo >= n1) | (hi < n1))
        if len(bad):
            i, j = ties[bad[0]]
            raise NetworkError(f"bipartite={n1}: the tie ({i}, {j}) joins two nodes of the same "
                               "mode; ties of a two-mode network join mode 1 (nodes 0..n1-1) "
                               "to mode 2")
    return n1


_is_missing = is_missing


def _is_one(v) -> bool:
    try:
        return float(v) == 1.0
    except (TypeError, ValueError):
        return False
