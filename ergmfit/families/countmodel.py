"""The input of a count-valued model: a network's nonzero dyads and their counts.

:class:`ergmfit.model.CountERGM` (``ergmfit.ERGM(g, formula, response=..., reference=...)``,
statnet's ``ergm(y ~ ..., response=, reference=~...)``) reads its network here.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import NetworkError
from ..network import as_network, is_matrix, valued_adjacency
from ..network.network import Network
from ..network.values import na_flags


def valued_network(network, response, reference, directed=None):
    """(network, dyads, values): the network (nodes and attributes; its ties the nonzero
    dyads), the nonzero dyads as an (m, 2) int64 array and their counts, checked
    against ``reference`` (a :class:`~ergmfit.families.Reference`): a NetworkError
    names a missing attribute, a missing, non-integer or out-of-support value.

    ``network``: a networkx graph (``response`` an edge attribute), a weighted adjacency
    matrix (numpy or scipy sparse; its entries are the values, whatever ``response``
    says), an edge-list file or DataFrame with a value column named ``response`` (a
    ``weight`` column included), or anything else :func:`~ergmfit.network.as_network`
    reads."""
    import networkx as nx
    if isinstance(network, nx.Graph):
        net = Network.from_networkx(network, weights="keep")
    elif is_matrix(network):
        net = valued_adjacency(network, directed, response)
    else:
        net = as_network(network, directed=directed, weights="keep")
    if response not in net.edge_attrs and net.n_ties == 0:     # no edges: every count is 0
        empty = np.zeros((0, 2), dtype=np.int64)
        if reference.lo > 0:
            raise NetworkError(f"the reference {reference.label} excludes 0, but the network "
                               "has no edges")
        return net, empty, np.zeros(0, dtype=np.int64)
    if response not in net.edge_attrs:
        have = sorted(net.edge_attrs)
        raise NetworkError(f"the network has no edge attribute {response!r} (response=); "
                           f"its edge attributes: {have if have else 'none'}")
    unobserved = na_flags(net)
    if unobserved.any():
        # the binary model's missing dyads (na=True, statnet's); a count model would read
        # the edge's value as observed: a silently wrong fit
        i, j = net.ties[int(np.argmax(unobserved))]
        raise NetworkError(f"the edge ({net.labels[i]!r}, {net.labels[j]!r}) is marked "
                           f"unobserved (edge attribute 'na'; {int(unobserved.sum())} edge(s)): "
                           "missing dyads are not available for count-valued models yet; "
                           "drop the attribute to read the values as observed")
    raw = net.edge_attrs[response]
    missing = [k for k, v in enumerate(raw) if v is None]
    if missing:
        i, j = net.ties[missing[0]]
        raise NetworkError(f"the edge ({net.labels[i]!r}, {net.labels[j]!r}) has no value of "
                           f"{response!r}: every edge of a count-valued network needs one")
    labels, ties = net.labels, net.ties
    values = reference.check_values(
        raw, what=f"the edge attribute {response!r}",
        where=lambda k: f"the edge ({labels[ties[k][0]]!r}, {labels[ties[k][1]]!r})")
    keep = values != 0
    n_dyads = net.n_dyads           # a two-mode network: the dyads between its modes
    if reference.lo > 0 and int(keep.sum()) < n_dyads:
        raise NetworkError(f"the reference {reference.label} excludes 0, but "
                           f"{n_dyads - int(keep.sum())} dyad(s) have no edge (value 0)")
    dyads = np.ascontiguousarray(net.ties[keep], dtype=np.int64).reshape(-1, 2)
    return net.with_ties(dyads), dyads, np.ascontiguousarray(values[keep])
