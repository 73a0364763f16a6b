"""A panel of networks on the same nodes: tergm's ``NetSeries``.

``NetSeries([g0, g1, ..., gT])`` holds the waves; a temporal model is fitted to its
transitions y_{t-1} -> y_t, t = 1..T, stacked as the blocks of one block-diagonal network
(tergm 4 builds its ``NetSeries`` on ergm.multi's ``Networks`` the same way): block t holds
the nodes of wave t with wave t's node attributes and ties, and carries wave t-1's ties as
its *previous network* (``SeriesNetwork.previous_ties``), which the temporal operators
(``Form``, ``Persist``, ``Diss``, ``Cross``, ``Change``: :mod:`ergmfit.terms.temporal`) read.
The combined network is a :class:`~ergmfit.network.networks.Networks` (ergm.multi's
container, as tergm 4's NetSeries): only the dyads within a block vary in a fit.

Node sets: every wave must have the same nodes (compared as sets of node labels; their order
follows wave 0).  statnet's ``NetSeries`` of networks of different sizes needs
networkDynamic's vertex activity; ergmfit refuses such a panel with an error naming the wave
and the nodes that differ (add the absent nodes as isolates, or drop them, first).
"""
from __future__ import annotations

import os
import re
import warnings

import numpy as np

from ..exceptions import NetworkError
from ..utils.validation import checks_arguments
from .network import Network
from .networks import Networks

class SeriesNetwork(Networks):
    """The block-diagonal network of a NetSeries' transitions (a :class:`Networks` of the
    later waves, named by their wave numbers), with the previous network of every block
    (``previous_ties``: (m, 2) node indices of this network; none for wave 0's block)."""

    pilot_first_sample = False      # (the temporal fits set their own first interval)

    def __init__(self, waves, times, previous_ties=None, dyadic=None):
        super().__init__(waves, names=list(times), dyadic=dyadic)
        prev = np.zeros((0, 2), dtype=np.int64) if previous_ties is None else previous_ties
        self.previous_ties = np.asarray(prev, dtype=np.int64).reshape(-1, 2)
        #: the wave of each block (0-based; wave 0's block has no previous network)
        self.times = list(times)

    @property
    def n_transitions(self) -> int:
        """Blocks (modelled waves)."""
        return len(self.blocks)

    @property
    def block_size(self) -> int:
        """Nodes per block (the series' node count)."""
        return self.blocks[0].n

    def with_ties(self, ties):
        """The same nodes, attributes and previous networks with other ties."""
        base = Networks.with_ties(self, ties)
        out = SeriesNetwork.__new__(SeriesNetwork)
        out.__dict__.update(base.__dict__)
        out.previous_ties = self.previous_ties.copy()
        out.times = list(self.times)
        return out


class NetSeries:
    """A panel of networks on the same nodes (tergm's ``NetSeries``).

    Parameters
    ----------
    networks : list
        Two or more waves, oldest first: networkx graphs, :class:`Network` objects, file paths
        or bundled dataset names (anything :func:`ergmfit.as_network` reads), all directed or
        all undirected, on the same set of nodes.  Node attributes may change from wave to
        wave (each transition uses those of its later wave, as tergm's NetSeries).
    directed : bool, optional
        For edge-list files that do not say.
    nodes : path, DataFrame or list of them, optional
        Node file(s) of edge-list files: one for all waves or one per wave.
    missing : list, optional
        One entry per wave: that wave's unobserved dyads as ``ERGM(missing=...)`` takes
        them (pairs of node labels, a matrix with NaN, or an edge attribute name); ``None``
        for a fully observed wave.  A wave's missing dyads are unobserved in the transition
        that ends in it; as a previous network, an unobserved dyad counts as no tie (a
        choice of ergmfit's, not checked against tergm).
    edge_covariates : dict, optional
        Dyadic covariates ``{name: matrix or [matrix per wave]}`` (n x n, rows and columns
        in wave 0's node order): ``edgecov("name")`` reads each transition's own matrix.

    Examples
    --------
    >>> import networkx as nx
    >>> s = NetSeries([nx.path_graph(5), nx.cycle_graph(5), nx.star_graph(4)])
    >>> s.n_waves, s.n_nodes, s.n_transitions
    (3, 5, 2)
    """

    @checks_arguments
    def __init__(self, networks, directed=None, nodes=None, missing=None, edge_covariates=None):
        from .io import as_network
        if isinstance(networks, (str, bytes, os.PathLike)):
            networks = [networks]
        try:
            networks = list(networks)
        except TypeError:
            raise NetworkError(f"NetSeries takes a list of two or more waves, not "
                               f"{type(networks).__name__}") from None
        if len(networks) < 2:
            raise NetworkError(f"NetSeries needs at least two waves (one transition), got "
                               f"{len(networks)}")
        node_files = nodes if isinstance(nodes, (list, tuple)) else [nodes] * len(networks)
        if len(node_files) != len(networks):
            raise NetworkError(f"nodes: give one node file for all waves or one per wave "
                               f"({len(networks)}), got {len(node_files)}")
        waves = []
        for t, (g, nf) in enumerate(zip(networks, node_files)):
            try:
                waves.append(as_network(g, directed=directed, nodes=nf))
            except NetworkError as exc:
                raise NetworkError(f"wave {t}: {exc}") from None
        self.waves = _aligned(waves)
        if missing is not None:
            missing = list(missing)
            if len(missing) != len(self.waves):
                raise NetworkError(f"missing: give one entry per wave ({len(self.waves)}), "
                                   f"got {len(missing)}")
        self.missing = missing
        self.edge_covariates = {str(k): self._covariate(k, v)
                                for k, v in (edge_covariates or {}).items()}

    def _covariate(self, name, value):
        # one n x n matrix per wave (a single matrix: the same in every wave)
        n = self.n_nodes
        mats = value if isinstance(value, (list, tuple)) else [value] * self.n_waves
        if len(mats) != self.n_waves:
            raise NetworkError(f"edge covariate {name!r}: give one matrix for all waves or one "
                               f"per wave ({self.n_waves}), got {len(mats)}")
        out = []
        for t, m in enumerate(mats):
            try:
                arr = np.asarray(m.toarray() if hasattr(m, "toarray") else m, dtype=float)
            except (TypeError, ValueError):
                raise NetworkError(f"edge covariate {name!r}, wave {t}: not a numeric n x n "
                                   f"matrix ({type(m).__name__})") from None
            if arr.shape != (n, n):
                raise NetworkError(f"edge covariate {name!r}, wave {t}: shape {arr.shape}, "
                                   f"expected ({n}, {n}) (rows and columns in node order)")
            if not np.isfinite(arr).all():
                raise NetworkError(f"edge covariate {name!r}, wave {t}: missing or infinite "
                                   "values; fill them first")
            out.append(arr)
        return out

    # -- facts -----------------------------------------------------------------------------
    @property
    def n_waves(self) -> int:
        return len(self.waves)

    @property
    def n_transitions(self) -> int:
        return len(self.waves) - 1

    @property
    def n_nodes(self) -> int:
        return self.waves[0].n

    @property
    def directed(self) -> bool:
        return self.waves[0].directed

    @property
    def labels(self) -> list:
        """The node labels (wave 0's order)."""
        return list(self.waves[0].labels)

    def __len__(self):
        return len(self.waves)

    def __getitem__(self, t) -> Network:
        return self.waves[t]

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        ties = ", ".join(str(w.n_ties) for w in self.waves)
        return f"<NetSeries: {self.n_waves} {kind} waves of {self.n_nodes} nodes, ties {ties}>"

    # -- the transitions -------------------------------------------------------------------
    def transitions(self, times=None, first=1) -> list:
        """The waves (0-based) whose transitions from the wave before a model uses: all by
        default, or ``times`` (tergm's ``times=1:3`` spans networks 1 to 3: ``[1, 2]`` here).  ``first=0`` admits wave 0 (a block
        without a previous network: btergm's models without lagged terms)."""
        if times is None:
            return list(range(first, self.n_waves))
        ts = [int(t) for t in np.atleast_1d(times)]
        bad = [t for t in ts if not first <= t < self.n_waves]
        if bad:
            raise NetworkError(f"times: wave(s) {bad} have no previous wave in this series of "
                               f"{self.n_waves} waves (valid: {first}..{self.n_waves - 1})")
        if len(set(ts)) != len(ts):
            raise NetworkError(f"times: wave(s) repeated in {ts}")
        return ts

    def combined(self, times=None) -> SeriesNetwork:
        """The block-diagonal network of the transitions (see the module docstring): node
        (t, label) is ``label`` in the block of wave t; node attributes are wave t's, plus
        Networks' ``.NetworkID`` / ``.NetworkName`` (the wave number)."""
        ts = self.transitions(times, first=1 if times is None else 0)
        n = self.n_nodes
        prev = [self.waves[t - 1].ties + b * n for b, t in enumerate(ts) if t > 0]
        dyadic = {name: [mats[t] for t in ts] for name, mats in self.edge_covariates.items()}
        return SeriesNetwork([self.waves[t] for t in ts], ts,
                             previous_ties=np.concatenate(prev) if prev else None,
                             dyadic=dyadic or None)

    # -- readers ---------------------------------------------------------------------------
    @classmethod
    @checks_arguments
    def from_edgelist(cls, edges, wave="wave", source=None, target=None, directed=None,
                      nodes=None):
        """A series from one edge list with a wave column (CSV path or DataFrame).

        ``source``/``target`` default to the first two columns other than ``wave``; every
        wave value (sorted; text in natural order, ``"t2"`` before ``"t10"``) is one wave;
        the node set is that of ``nodes`` (a node CSV or
        DataFrame, its first column the id) or else every node named in any wave, so that a
        node without ties in a wave is an isolate there.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"wave": [1, 1, 2], "from": [1, 2, 1], "to": [2, 3, 3]})
        >>> NetSeries.from_edgelist(df, directed=False)
        <NetSeries: 2 undirected waves of 3 nodes, ties 2, 1>
        """
        import networkx as nx
        from .tables import read_table
        df = read_table(edges, "the panel's edge list")
        if wave not in df.columns:
            raise NetworkError(f"the edge list has no wave column {wave!r} (columns: "
                               f"{list(df.columns)})")
        others = [c for c in df.columns if c != wave]
        if source is None or target is None:
            if len(others) < 2:
                raise NetworkError(f"the edge list needs two node id columns beside the wave "
                                   f"column {wave!r} (columns: {list(df.columns)})")
            source = others[0] if source is None else source
            target = others[1] if target is None else target
        for c in (source, target):
            if c not in df.columns:
                raise NetworkError(f"the edge list has no column {c!r} (columns: "
                                   f"{list(df.columns)})")
        if directed is None:
            raise NetworkError("from_edgelist: say directed=True or directed=False")
        for c in (wave, source, target):
            empty = np.flatnonzero(df[c].isna().to_numpy())
            if len(empty):
                raise NetworkError(f"the edge list's data row {int(empty[0]) + 1} has no value "
                                   f"in column {c!r}: every tie needs a wave and two node ids")
        node_frame = None
        if nodes is not None:
            node_frame = read_table(nodes, "the panel's node file")
            _check_node_ids(node_frame)
            ids = list(node_frame.iloc[:, 0])
        else:
            ids = sorted(set(df[source]) | set(df[target]), key=lambda v: (str(type(v)), v))
        graphs = []
        for w, part in sorted(df.groupby(wave), key=lambda kv: _wave_order(kv[0])):
            w = w.item() if hasattr(w, "item") else w
            g = nx.DiGraph() if directed else nx.Graph()
            g.add_nodes_from(ids)
            if node_frame is not None:
                for row in node_frame.itertuples(index=False):
                    g.nodes[row[0]].update(dict(zip(node_frame.columns[1:], row[1:])))
            unknown = (set(part[source]) | set(part[target])) - set(ids)
            if unknown:
                raise NetworkError(f"wave {w!r}: nodes {sorted(map(repr, unknown))[:5]} "
                                   "are not in the node file")
            pairs = list(zip(part[source], part[target]))
            if len(set(pairs)) != len(pairs):
                raise NetworkError(f"wave {w!r}: {len(pairs) - len(set(pairs))} tie(s) are "
                                   "listed twice (as read_network's duplicates='error')")
            g.add_edges_from(pairs)
            if g.number_of_edges() != len(pairs):
                warnings.warn(f"wave {w!r}: {len(pairs) - g.number_of_edges()} tie(s) of the "
                              "undirected panel are listed in both directions; each was kept "
                              "once", stacklevel=2)
            graphs.append(g)
        return cls(graphs)


def _wave_order(w):
    """The sort key of a wave value: a number itself; text in natural order, its digit runs
    as numbers (``"t2"`` before ``"t10"``; plain sorting put wave t10 between t1 and t2 and
    so modelled transitions that never happened)."""
    if isinstance(w, str):
        return (1, tuple((0, int(p), "") if p.isdigit() else (1, 0, p)
                         for p in re.split(r"(\d+)", w) if p))
    return (0, w)


def _check_node_ids(frame):
    """A node file's first column: an id on every row, each once."""
    if frame.shape[1] < 1 or len(frame) < 1:
        raise NetworkError("the panel's node file has no nodes (its first column is the id)")
    ids = frame.iloc[:, 0]
    if ids.isna().any():
        raise NetworkError(f"the panel's node file: data row {int(np.flatnonzero(ids.isna())[0]) + 1} "
                           f"has no id (first column {frame.columns[0]!r})")
    if ids.duplicated().any():
        raise NetworkError(f"the panel's node file: the id {ids[ids.duplicated()].iloc[0]!r} "
                           f"appears more than once")


def _aligned(waves):
    """The waves with wave 0's node order; a clear error for differing node sets or kinds."""
    first = waves[0]
    index = {lab: i for i, lab in enumerate(first.labels)}
    out = [first]
    for t, w in enumerate(waves[1:], start=1):
        if w.directed != first.directed:
            raise NetworkError(f"wave {t} is {'directed' if w.directed else 'undirected'} but "
                               f"wave 0 is {'directed' if first.directed else 'undirected'}")
        if w.bipartite != first.bipartite:
            raise NetworkError(f"wave {t}'s two-mode layout differs from wave 0's")
        if set(w.labels) != set(first.labels):
            gained = [lab for lab in w.labels if lab not in index]
            lost = sorted(set(first.labels) - set(w.labels), key=str)
            raise NetworkError(
                f"wave {t} has other nodes than wave 0 ({w.n} vs {first.n} nodes; "
                + (f"new: {gained[:5]}" if gained else "")
                + ("; " if gained and lost else "")
                + (f"absent: {lost[:5]}" if lost else "")
                + "): a NetSeries needs the same nodes in every wave (statnet needs "
                  "networkDynamic's vertex activity for changing node sets); add the absent "
                  "nodes as isolates or drop them from every wave")
        if list(w.labels) != list(first.labels):
            perm = np.array([index[lab] for lab in w.labels], dtype=np.int64)
            ties = perm[w.ties] if len(w.ties) else w.ties
            order = np.argsort(perm)
            w = Network(w.n, ties, w.directed, labels=first.labels,
                        node_attrs={a: [v[k] for k in order] for a, v in w.node_attrs.items()},
                        graph_attrs=w.graph_attrs, bipartite=w.bipartite)
        out.append(w)
    return out


# -- a panel's settings as a results file keeps them (TemporalERGM.saved_spec) ----------

def panel_missing(waves, entries):
    """The waves' ``missing=`` from a results file's entries (``TemporalERGM.saved_spec``:
    index pairs become the wave's label pairs; an older file's raw values pass as they
    are)."""
    if entries is None:
        return None
    return [[(w.labels[i], w.labels[j]) for i, j in e["pairs"]]
            if isinstance(e, dict) and "pairs" in e else e for w, e in zip(waves, entries)]


def panel_constraints(entry):
    """The user's constraints from a results file's entry (``TemporalERGM.saved_spec``)."""
    if isinstance(entry, dict) and "formula" in entry:
        return (entry["formula"], {k: [tuple(_label(v) for v in p) for p in pairs]
                                   for k, pairs in entry.get("dyads", {}).items()})
    return entry


def _label(v):
    """A node label read back from JSON: a list was a tuple (a label is hashable), such as
    the combined network's (wave, node)."""
    return tuple(_label(x) for x in v) if isinstance(v, list) else v
