"""Several networks as one: ergm.multi's ``Networks()`` (a block-diagonal network).

:class:`Networks` stacks networks (same or different sizes; all directed or all
undirected) into one combined :class:`~ergmfit.network.Network` whose nodes are
the networks' nodes, block after block.  Its sample space is the dyads *within*
the blocks (statnet's ``blockdiag(".NetworkID")``): a tie between two networks
never exists and never varies, so every term, estimator, ``simulate`` and
``gof`` work on it unchanged, and the ``N()`` operator
(:mod:`ergmfit.terms.multinet`) gives per-network statistics combined through a
network-level design.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import NetworkError
from ..utils.validation import checks_arguments
from .network import Network, _copy_value, _copy_values
from .values import is_missing

#: the node attribute holding each node's network (1-based, as statnet's)
NETWORK_ID = ".NetworkID"
#: the node attribute holding each node's network name
NETWORK_NAME = ".NetworkName"
#: the graph attributes holding the network-level attribute table and the layer names
NETWORK_TABLE = ".network_attrs"
LAYER_NAMES = ".layers"


@dataclass(frozen=True)
class Block:
    """One network of a :class:`Networks`: its position, name, node range
    ``start:stop`` in the combined network and its network-level attributes."""
    index: int
    name: object
    start: int
    stop: int
    attrs: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.stop - self.start


def _kind(v):
    """'number' / 'text' / None (missing) for a node attribute value."""
    if is_missing(v):
        return None
    if isinstance(v, (bool, np.bool_)):
        return "logical"
    if isinstance(v, numbers.Number):
        return "number"
    return "text"


def _is_scalar(v):
    return isinstance(v, (str, bool, numbers.Number, np.generic)) or v is None


class Networks(Network):
    """Several networks stacked into one block-diagonal network (ergm.multi's
    ``Networks()``).

    Parameters
    ----------
    networks : list or dict
        The networks: networkx graphs, :class:`~ergmfit.network.Network` objects or
        anything :func:`ergmfit.as_network` reads, all directed or all undirected (one-mode),
        of any sizes; a dict maps network names to networks.
    names : list, optional
        A name per network (default: the dict keys, else 1, 2, ...).
    attrs : dict of str -> sequence, or pandas.DataFrame, optional
        Network-level attributes, one value per network (``lm=~wave`` in ``N()`` reads
        them).  Scalar graph attributes of networkx graphs (``g.graph["wave"] = 1``) are
        network-level attributes too; ``attrs`` wins over them.
    dyadic : dict of str -> list of arrays, optional
        Per-network dyadic covariates: ``{"primary": [M1, M2, ...]}`` with ``M_b`` an
        ``n_b x n_b`` matrix for network ``b``.  They are joined into one block-diagonal
        matrix, a graph attribute of the combined network, so ``edgecov("primary")``
        reads it.  An ``n_b x n_b`` array held as the same graph attribute by every
        networkx graph is joined the same way.

    Attributes
    ----------
    blocks : list of Block
        One per network: ``index`` (0-based), ``name``, ``start``/``stop`` (its nodes are
        ``start..stop-1`` of the combined network), ``n`` and ``attrs`` (its network-level
        attributes).
    network_attrs : dict of str -> list
        The network-level attribute table: one value per network (None where missing).
    block_of : ndarray of int
        The 0-based network of every node.

    Methods: ``block_network(b)`` gives network ``b`` on its own (a
    :class:`~ergmfit.network.Network` with its original labels, attributes, network-level
    attributes and dyadic covariates as graph attributes); ``split(graph)`` cuts a combined
    graph (``simulate``'s output) into one networkx graph per network.

    The combined network's node labels are ``(name, label)`` pairs; its node attributes
    are those of the networks (None where a network lacks one; an attribute must hold
    numbers in every network or text in every network) plus ``.NetworkID`` (1-based
    network number) and ``.NetworkName``, as statnet's.  Edge attributes are kept the
    same way.  The sample space of any model of it is the dyads within networks.

    Raises
    ------
    NetworkError
        An empty list, networks of mixed directedness, two-mode networks, a node
        attribute that is numeric in one network and text in another, attribute tables
        of the wrong length, or a dyadic covariate of the wrong shape.

    References
    ----------
    Krivitsky, P. N., Coletti, P. and Hens, N. (2023). A tale of two datasets:
    representativeness and generalisability of inference for samples of networks.
    Journal of the American Statistical Association 118(544), 2213-2224.

    Examples
    --------
    >>> import networkx as nx
    >>> import ergmfit as ef
    >>> g1, g2 = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(0, 1), (1, 0)])
    >>> nets = ef.Networks([g1, g2], attrs={"wave": [1, 2]})
    >>> nets
    <Networks: 2 directed networks (3 + 2 nodes), 4 ties>
    >>> [(b.name, b.n, b.attrs["wave"]) for b in nets.blocks]
    [(1, 3, 1), (2, 2, 2)]
    >>> ef.ERGM(nets, "edges").sample_space.n_free    # dyads within the networks
    8
    """

    #: MCMC-MLE draws the first sample as a pilot at its smallest interval (kept when it
    #: has the target effective size, else redrawn as without it: ``ERGM.pilot_first_sample``).
    #: An ensemble of separate small networks mixes within each of them in a few sweeps
    #: over its few dyads: Sampson's three waves (918 dyads) reach 441-467 effective draws
    #: of the slowest statistic at the default interval of 1024, seven times the 64 aimed
    #: at, and 66-135 at 256 (docs/guide/multinetwork.md, "Speed").
    pilot_first_sample = True

    @checks_arguments
    def __init__(self, networks, names=None, attrs=None, dyadic=None):
        from .io import as_network
        if isinstance(networks, dict):
            if names is None:
                names = list(networks)
            networks = list(networks.values())
        if isinstance(networks, (Network, str)) or not hasattr(networks, "__iter__"):
            raise NetworkError("Networks() takes a list (or dict) of networks, got "
                               f"{type(networks).__name__}")
        nets = [as_network(g) for g in networks]
        if not nets:
            raise NetworkError("Networks() needs at least one network; got an empty list")
        directed = {bool(n.directed) for n in nets}
        if len(directed) > 1:
            which = [k + 1 for k, n in enumerate(nets) if n.directed]
            raise NetworkError("Networks(): the networks must be all directed or all undirected; "
                               f"network(s) {which} are directed, the others not")
        for k, n in enumerate(nets):
            if n.bipartite is not None:
                raise NetworkError(f"Networks(): network {k + 1} is two-mode; stacking two-mode "
                                   "networks is not implemented")
            for a in (NETWORK_ID, NETWORK_NAME):
                if a in n.node_attrs:
                    raise NetworkError(f"Networks(): network {k + 1} already has the node "
                                       f"attribute {a!r}, which Networks() sets")
        B = len(nets)
        names = list(range(1, B + 1)) if names is None else list(names)
        if len(names) != B:
            raise NetworkError(f"Networks(): {len(names)} names for {B} networks")
        if len(set(map(repr, names))) != B:
            raise NetworkError("Networks(): the network names must be distinct")
        sizes = np.array([n.n for n in nets], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)])
        ties = np.concatenate([n.ties + s for n, s in zip(nets, starts[:-1])]) \
            if B else np.zeros((0, 2), np.int64)
        labels = [(name, lab) for name, n in zip(names, nets) for lab in n.labels]
        node_attrs = _joined(nets, "node_attrs", lambda n: n.n, "node")
        node_attrs[NETWORK_ID] = [b + 1 for b in range(B) for _ in range(sizes[b])]
        node_attrs[NETWORK_NAME] = [names[b] for b in range(B) for _ in range(sizes[b])]
        edge_attrs = _joined(nets, "edge_attrs", lambda n: n.n_ties, "edge")
        table, dyad_mats = _network_level(nets, attrs, dyadic, B)
        graph_attrs = {name: _block_diagonal(mats, sizes, name) for name, mats in
                       dyad_mats.items()}
        # the network-level table travels with the network (a results file keeps it)
        graph_attrs[NETWORK_TABLE] = {a: list(v) for a, v in table.items()}
        super().__init__(int(starts[-1]), ties.reshape(-1, 2), directed.pop(), labels=labels,
                         node_attrs=node_attrs, edge_attrs=edge_attrs, graph_attrs=graph_attrs)
        self.network_attrs = table
        self.blocks = [Block(b, names[b], int(starts[b]), int(starts[b + 1]),
                             {a: v[b] for a, v in table.items()}) for b in range(B)]
        self.block_of = np.repeat(np.arange(B, dtype=np.int64), sizes)

    # -- what the model layer asks ----------------------------------------------------
    @property
    def n_networks(self) -> int:
        return len(self.blocks)

    # -- views ----------------------------------------------------------------------
    def block_network(self, b) -> Network:
        """Network ``b`` (0-based) on its own: its nodes (original labels), ties, node and
        edge attributes, network-level attributes and dyadic covariates as graph
        attributes."""
        blk = self.blocks[b]
        keep = (self.ties[:, 0] >= blk.start) & (self.ties[:, 0] < blk.stop)
        skip = (NETWORK_ID, NETWORK_NAME)
        graph = {a: _copy_value(v) for a, v in blk.attrs.items() if v is not None}
        for a, M in self.graph_attrs.items():
            if a not in (NETWORK_TABLE, LAYER_NAMES):
                graph[a] = np.array(np.asarray(M)[blk.start:blk.stop, blk.start:blk.stop])
        return Network(blk.n, self.ties[keep] - blk.start, self.directed,
                       labels=[lab for _, lab in self.labels[blk.start:blk.stop]],
                       node_attrs={a: _copy_values(v[blk.start:blk.stop])
                                   for a, v in self.node_attrs.items() if a not in skip},
                       edge_attrs={a: _copy_values(np.asarray(v, dtype=object)[keep])
                                   for a, v in self.edge_attrs.items()},
                       graph_attrs=graph)

    def split(self, graph):
        """A combined graph (as ``simulate`` returns for a model of these networks) as a
        list of networkx graphs, one per network, with the original node labels."""
        import networkx as nx
        out = []
        for blk in self.blocks:
            nodes = [lab for lab in self.labels[blk.start:blk.stop]]
            sub = graph.subgraph(nodes)
            g = nx.relabel_nodes(nx.DiGraph(sub) if self.directed else nx.Graph(sub),
                                 {lab: lab[1] for lab in nodes})
            g.graph.update({a: v for a, v in blk.attrs.items() if v is not None})
            out.append(g)
        return out

    def with_ties(self, ties):
        new = Network.with_ties(self, ties)
        out = Networks.__new__(Networks)
        out.__dict__.update(new.__dict__)
        out.network_attrs = {a: list(v) for a, v in self.network_attrs.items()}
        out.blocks = list(self.blocks)
        out.block_of = self.block_of.copy()
        return out

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        sizes = " + ".join(str(b.n) for b in self.blocks[:6]) + \
            (" + ..." if len(self.blocks) > 6 else "")
        return (f"<Networks: {len(self.blocks)} {kind} networks ({sizes} nodes), "
                f"{self.n_ties} ties>")


def within_network_vars(net):
    """The dyads (variable indices, sorted) joining two nodes of the same network of a
    stacked network: one with the node attribute ``.NetworkID`` (a :class:`Networks`, or
    the combined network read back from a results file); None for any other network."""
    from ..sampling.space import same_group_vars
    ids = net.node_attrs.get(NETWORK_ID)
    if ids is None:
        return None
    return same_group_vars(net.n, net.directed, np.asarray(ids))


def _joined(nets, what, size, word):
    """The attributes ``what`` of every network, joined (None where one lacks it); an
    attribute numeric in one network and text in another is an error."""
    names = sorted({a for n in nets for a in getattr(n, what)})
    out = {}
    for a in names:
        kinds = {}
        for k, n in enumerate(nets):
            for v in getattr(n, what).get(a, ()):
                kd = _kind(v)
                if kd is not None:
                    kinds.setdefault(kd, k + 1)
                    break
        if len(kinds) > 1:
            desc = ", ".join(f"{kd} in network {k}" for kd, k in sorted(kinds.items(),
                                                                        key=lambda t: t[1]))
            raise NetworkError(f"Networks(): the {word} attribute {a!r} has clashing types "
                               f"across the networks ({desc}); make it one type everywhere")
        out[a] = [v for n in nets for v in
                  (_copy_values(getattr(n, what)[a]) if a in getattr(n, what)
                   else [None] * size(n))]
    return out


def _network_level(nets, attrs, dyadic, B):
    """(network attribute table, {name: per-network dyadic matrices})."""
    table, mats = {}, {}
    graph_names = sorted({a for n in nets for a in n.graph_attrs})
    for a in graph_names:
        vals = [n.graph_attrs.get(a) for n in nets]
        if all(_is_scalar(v) for v in vals):
            table[a] = list(vals)
        elif all(isinstance(v, np.ndarray) and v.shape == (n.n, n.n)
                 for v, n in zip(vals, nets)):
            mats[a] = vals
    if attrs is not None:
        if hasattr(attrs, "to_dict") and hasattr(attrs, "columns"):   # a pandas DataFrame
            if len(attrs) != B:
                raise NetworkError(f"Networks(): the attrs table has {len(attrs)} rows for "
                                   f"{B} networks")
            attrs = {str(c): attrs[c].tolist() for c in attrs.columns}
        if not isinstance(attrs, dict):
            raise NetworkError("Networks(): attrs must be a dict {name: one value per network} "
                               f"or a DataFrame, got {type(attrs).__name__}")
        for a, vals in attrs.items():
            vals = list(vals) if not isinstance(vals, (str, bytes)) else [vals]
            if len(vals) != B:
                raise NetworkError(f"Networks(): the network attribute {a!r} has {len(vals)} "
                                   f"value(s) for {B} networks")
            kinds = {_kind(v) for v in vals} - {None}
            if len(kinds) > 1:
                raise NetworkError(f"Networks(): the network attribute {a!r} mixes "
                                   f"{' and '.join(sorted(kinds))} values")
            table[str(a)] = [_copy_value(v) for v in vals]
    for a, vals in (dyadic or {}).items():
        vals = list(vals)
        if len(vals) != B:
            raise NetworkError(f"Networks(): the dyadic covariate {a!r} has {len(vals)} "
                               f"matri(ces) for {B} networks")
        mats[str(a)] = vals
    return table, mats


def _block_diagonal(mats, sizes, name):
    n = int(sizes.sum())
    out = np.zeros((n, n))
    s = 0
    for b, (M, nb) in enumerate(zip(mats, sizes)):
        try:
            M = np.asarray(M, dtype=float)
        except (TypeError, ValueError):
            raise NetworkError(f"Networks(): the dyadic covariate {name!r} of network {b + 1} "
                               "is not numeric") from None
        if M.shape != (nb, nb):
            raise NetworkError(f"Networks(): the dyadic covariate {name!r} of network {b + 1} "
                               f"is {'x'.join(map(str, M.shape))}, the network has {nb} nodes")
        out[s:s + nb, s:s + nb] = M
        s += nb
    return out


class Layers(Networks):
    """Several tie layers on one node set (ergm.multi's ``Layer()``): a :class:`Networks`
    whose networks are the layers, each a copy of the same nodes.  Build it with
    :func:`Layer`.

    Attributes
    ----------
    layer_names : list of str
        The layers, in order (the names layer logic uses: ``L(~edges, ~advice&!friendship)``).
    base_network : Network
        The node set with its attributes and no ties (what the terms inside ``L()`` see).

    The combined network's nodes are ``(layer, label)``; terms outside ``L()`` sum their
    statistics over the layers, as statnet's do.
    """

    #: the layers share their nodes (dependence across them): no pilot (see Networks)
    pilot_first_sample = False

    @checks_arguments
    def __init__(self, layers):
        names = list(layers)
        nets = list(layers.values())
        super().__init__(nets, names=names)
        self.graph_attrs[LAYER_NAMES] = [str(n) for n in names]
        _set_layers(self)

    def with_ties(self, ties):
        out = Networks.with_ties(self, ties)
        new = Layers.__new__(Layers)
        new.__dict__.update(out.__dict__)
        new.layer_names = list(self.layer_names)
        new.base_network = self.base_network
        return new

    def layer_graphs(self, graph=None):
        """{layer: networkx graph} of the observed network (or of a combined ``graph`` as
        ``simulate`` returns), with the original node labels."""
        import networkx as nx
        g = self.to_networkx() if graph is None else graph
        return dict(zip(self.layer_names, self.split(g)))

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        ties = ", ".join(f"{name}: {int(((self.ties[:, 0] >= b.start) & (self.ties[:, 0] < b.stop)).sum())}"
                         for name, b in zip(self.layer_names, self.blocks))
        return (f"<Layers: {len(self.blocks)} {kind} layers on {self.base_network.n} nodes "
                f"({ties} ties)>")


@checks_arguments
def Layer(data, layers=None, attr=None):
    """Several tie layers on one node set, as one network (ergm.multi's ``Layer()``).

    Parameters
    ----------
    data : dict of name -> graph, or one networkx graph
        A dict of networks on the same nodes (networkx graphs or anything
        :func:`ergmfit.as_network` reads), one per layer; or one graph whose edges say their
        layers through ``layers`` or ``attr``.
    layers : list of str, optional
        With one graph: the edge attributes that are the layers (a tie is in layer ``a``
        when its attribute ``a`` is true/nonzero), statnet's
        ``Layer(nw, c("advice", "friendship"))``.
    attr : str, optional
        With one graph (a MultiGraph/MultiDiGraph allows a pair in several layers): the edge
        attribute naming each tie's layer (a name, or a list/set of names).

    Returns
    -------
    Layers
        The layers stacked block-diagonally (see :class:`Networks`); node attributes come
        from the nodes of the layers (they must agree where given).

    Raises
    ------
    NetworkError
        Layers on different node sets, mixed directedness, node attributes that disagree,
        an unknown or missing layer attribute.

    Examples
    --------
    >>> import networkx as nx
    >>> import ergmfit as ef
    >>> g = nx.DiGraph()
    >>> g.add_edge(1, 2, advice=1, friendship=0)
    >>> g.add_edge(2, 1, advice=1, friendship=1)
    >>> lay = ef.Layer(g, ["advice", "friendship"])
    >>> lay
    <Layers: 2 directed layers on 2 nodes (advice: 2, friendship: 1 ties)>
    >>> ef.ERGM(lay, "L(~edges, ~advice&!friendship) + L(~mutual, ~advice)").statistics()
    {'L(advice&!friendship)~edges': 1.0, 'L(advice)~mutual': 1.0}
    """
    import networkx as nx
    from .io import as_network
    if isinstance(data, dict):
        if layers is not None or attr is not None:
            raise NetworkError("Layer(): with a dict of layer networks, give neither layers= "
                               "nor attr=")
        if not data:
            raise NetworkError("Layer() needs at least one layer; got an empty dict")
        nets = {str(k): as_network(g) for k, g in data.items()}
        return Layers(_aligned(nets))
    if not isinstance(data, nx.Graph):
        raise NetworkError("Layer() takes a dict {layer: network} or one networkx graph with "
                           f"layers= or attr=, got {type(data).__name__}")
    if (layers is None) == (attr is None):
        raise NetworkError("Layer(g, ...): give layers=[edge attributes] or attr=<edge "
                           "attribute naming the layer>, one of them")
    edges = list(data.edges(data=True))
    if layers is not None:
        layers = [layers] if isinstance(layers, str) else list(layers)
        have = {k for _, _, d in edges for k in d}
        for a in layers:
            if a not in have:
                raise NetworkError(f"Layer(): the graph has no edge attribute {a!r}; its edge "
                                   f"attributes are {', '.join(map(repr, sorted(have))) or 'none'}")
        member = {a: [(u, v) for u, v, d in edges if _true(d.get(a))] for a in layers}
    else:
        member = {}
        for u, v, d in edges:
            if attr not in d:
                raise NetworkError(f"Layer(): the edge ({u!r}, {v!r}) has no attribute {attr!r}")
            val = d[attr]
            for a in ([val] if isinstance(val, (str, int)) else list(val)):
                member.setdefault(str(a), []).append((u, v))
        member = dict(sorted(member.items()))
    out = {}
    for a, ties in member.items():
        g = nx.DiGraph() if data.is_directed() else nx.Graph()
        g.add_nodes_from(data.nodes(data=True))
        g.add_edges_from(ties)
        out[a] = as_network(g)
    return Layers(out)


def _true(v):
    if v is None or is_missing(v):
        return False
    if isinstance(v, str):
        return v.strip().upper() not in ("", "0", "FALSE", "F")
    return bool(v)


def _aligned(nets):
    """The layer networks on one node order (the first layer's) with one set of node
    attributes."""
    names = list(nets)
    first = nets[names[0]]
    order = {lab: k for k, lab in enumerate(first.labels)}
    attrs = {a: list(v) for a, v in first.node_attrs.items()}
    out = {}
    for name in names:
        net = nets[name]
        if net.directed != first.directed:
            raise NetworkError("Layer(): the layers must be all directed or all undirected")
        if set(net.labels) != set(order) or net.n != first.n:
            raise NetworkError(f"Layer(): layer {name!r} is not on the same nodes as layer "
                               f"{names[0]!r}; every layer needs the same node set")
        perm = np.array([order[lab] for lab in net.labels], dtype=np.int64)
        for a, vals in net.node_attrs.items():
            cur = attrs.setdefault(a, [None] * first.n)
            for k, v in enumerate(vals):
                pos = perm[k]
                if is_missing(v):
                    continue
                if cur[pos] is not None and not is_missing(cur[pos]) and cur[pos] != v:
                    raise NetworkError(f"Layer(): node {net.labels[k]!r} has {a}={v!r} in layer "
                                       f"{name!r} but {cur[pos]!r} in another")
                cur[pos] = v
        out[name] = (perm[net.ties] if len(net.ties) else net.ties, net.edge_attrs)
    return {name: Network(first.n, ties, first.directed, labels=first.labels,
                          node_attrs={a: _copy_values(v) for a, v in attrs.items()},
                          edge_attrs=eattrs)
            for name, (ties, eattrs) in out.items()}


def stacked_from_cli(net, args, load):
    """The command line's ``--layers``, ``--also`` and ``--network-attr``: ``net`` as a
    multilayer network, or stacked with the other networks (``load(data, nodes)`` reads
    one; ``EDGES::NODES`` names an edge list's node file)."""
    from ..exceptions import DataFormatError
    if args.layers:
        if args.also or args.network_attrs:
            raise DataFormatError("--layers cannot be combined with --also / --network-attr")
        return Layer(net.to_networkx(), [a.strip() for a in args.layers.split(",")])
    nets = [net]
    for data in args.also or []:
        edges, _, nodes = str(data).partition("::")
        nets.append(load(edges, nodes or None))
    attrs = {}
    for item in args.network_attrs or []:
        name, eq, values = item.partition("=")
        if not eq or not name.strip():
            raise DataFormatError(f"--network-attr {item!r}: write NAME=V1,V2,... (one value "
                                  "per network)")
        from .values import parse_value
        attrs[name.strip()] = [parse_value(v.strip()) for v in values.split(",")]
    return Networks(nets, attrs=attrs or None)


def _set_layers(net):
    net.layer_names = list(net.graph_attrs[LAYER_NAMES])
    b = net.blocks[0]
    net.base_network = Network(b.n, np.zeros((0, 2), np.int64), net.directed,
                               labels=[lab[1] for lab in net.labels[b.start:b.stop]],
                               node_attrs={a: _copy_values(v[b.start:b.stop])
                                           for a, v in net.node_attrs.items()
                                           if a not in (NETWORK_ID, NETWORK_NAME)})


def stacked_view(net):
    """``net`` as the :class:`Networks` (or :class:`Layers`) it was made from: ``net``
    itself, or a plain :class:`Network` carrying ``.NetworkID`` (a combined network read
    back from a results file) with its blocks, network-level attributes and layers
    restored; None for any other network."""
    if isinstance(net, Networks):
        return net
    ids = net.node_attrs.get(NETWORK_ID)
    if ids is None:
        return None
    ids = np.asarray(ids, dtype=np.int64)
    if (np.diff(ids) < 0).any() or ids[0] != 1 or (np.diff(ids) > 1).any():
        raise NetworkError(f"the node attribute {NETWORK_ID!r} must number the networks "
                           "1, 2, ... in node order (as Networks() makes it)")
    layered = LAYER_NAMES in net.graph_attrs
    out = (Layers if layered else Networks).__new__(Layers if layered else Networks)
    out.__dict__.update(Network.with_ties(net, net.ties).__dict__)
    out.edge_attrs = {a: list(v) for a, v in net.edge_attrs.items()}
    out.labels = [tuple(lab) if isinstance(lab, list) else lab for lab in net.labels]
    table = {a: list(v) for a, v in net.graph_attrs.get(NETWORK_TABLE, {}).items()}
    names = net.node_attrs.get(NETWORK_NAME, list(ids))
    starts = np.concatenate([[0], np.flatnonzero(np.diff(ids)) + 1, [net.n]])
    out.network_attrs = table
    out.blocks = [Block(b, names[starts[b]], int(starts[b]), int(starts[b + 1]),
                        {a: v[b] for a, v in table.items()}) for b in range(len(starts) - 1)]
    out.block_of = ids - 1
    if layered:
        _set_layers(out)
    return out
