"""Change statistics against differences of full statistics, on random networks.

``check_formula(net, formula, seed)``: for random dyads of ``net`` the compiled change
statistic equals the difference of the full statistics with and without the tie (each
accumulated from the empty graph in a shuffled tie order), whether or not the dyad is
present, and toggling twice restores the statistics.
"""
import networkx as nx
import numpy as np

import ergmfit as ef
from ergmfit.network import Network


def random_network(seed, kind, n=11, p=0.35):
    """A random :class:`Network` of ``kind`` "undirected", "directed", "bipartite" (5 nodes
    in mode 1) or "sparse" (undirected, p=0.1), with node attributes ``a`` (integer levels)
    and ``x`` (numeric), and on two-mode networks ``b``, ``y`` (mode 2) and ``c`` (both
    modes); one-mode networks carry an n x n graph attribute ``C``."""
    if kind == "sparse":        # many degree-0 and degree-1 nodes (isolatededges)
        return random_network(seed, "undirected", n=14, p=0.1)
    rng = np.random.default_rng(seed)
    if kind == "bipartite":
        n1 = 5
        ties = [(i, j) for i in range(n1) for j in range(n1, n) if rng.random() < p]
        attrs = {"a": [int(rng.integers(3)) if i < n1 else None for i in range(n)],
                 "x": [float(rng.normal()) if i < n1 else None for i in range(n)],
                 "b": [None if i < n1 else str("pq"[rng.integers(2)]) for i in range(n)],
                 "y": [None if i < n1 else float(rng.integers(5)) for i in range(n)],
                 "c": [str("uv"[rng.integers(2)]) for i in range(n)]}
        return Network(n, ties, False, node_attrs=attrs, bipartite=n1)
    directed = kind == "directed"
    ties = [(i, j) for i in range(n) for j in range(n) if i != j and (directed or i < j)
            and rng.random() < p]
    attrs = {"a": [int(rng.integers(3)) for _ in range(n)], "x": list(rng.normal(size=n))}
    return Network(n, ties, directed, node_attrs=attrs,
                   graph_attrs={"C": rng.normal(size=(n, n))})


def dyads(net, rng, k=12):
    """``k`` random dyads of ``net`` (between the modes of a two-mode network)."""
    out = []
    while len(out) < k:
        i, j = (int(v) for v in rng.choice(net.n, 2, replace=False))
        if not net.directed and i > j:
            i, j = j, i
        if net.bipartite is not None and not (i < net.bipartite <= j):
            continue
        out.append((i, j))
    return out


def full(model, ties, rng):
    """The statistics of ``ties``, accumulated from the empty graph in a random tie order."""
    ties = np.array(sorted(ties), dtype=np.int64).reshape(-1, 2)
    return model.statistics_vector(ties[rng.permutation(len(ties))])


def check_formula(net, formula, seed):
    """Assert that the change statistics of ``formula`` equal differences of full
    statistics on random dyads of ``net``, present or not, and that toggling restores."""
    rng = np.random.default_rng(seed)
    model = ef.ERGM(net, formula)
    c = model.compiled()
    ties = {tuple(t) for t in net.ties.tolist()}
    for i, j in dyads(net, rng):
        with_ij, without = ties | {(i, j)}, ties - {(i, j)}
        want = full(model, with_ij, rng) - full(model, without, rng)
        np.testing.assert_allclose(c.dyad_change_stats(i, j), want, rtol=1e-9, atol=1e-9,
                                   err_msg=f"{formula} dyad {(i, j)}")
        c.toggle(i, j)
        np.testing.assert_allclose(c.dyad_change_stats(i, j), want, rtol=1e-9, atol=1e-9,
                                   err_msg=f"{formula} dyad {(i, j)} toggled")
        c.toggle(i, j)
    np.testing.assert_allclose(model.statistics_vector(c.state.ties()), model.statistics_vector(),
                               rtol=1e-12, atol=1e-12)


def two_mode_graph(seed, n1=7, n2=9, p=0.45):
    """A random two-mode networkx graph (modes 0..n1-1 and n1..n1+n2-1, integer attribute
    ``a`` in 1..4) and n1."""
    rng = np.random.default_rng(seed)
    g = nx.Graph()
    for i in range(n1 + n2):
        g.add_node(i, bipartite=0 if i < n1 else 1, a=int(rng.integers(1, 5)))
    for i in range(n1):
        for j in range(n1, n1 + n2):
            if rng.random() < p:
                g.add_edge(i, j)
    return g, n1
