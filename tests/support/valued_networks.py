"""Valued networks of the count-family tests."""
import networkx as nx
import numpy as np

import ergmfit as ef
from ergmfit.network import read_network
from support.paths import REFERENCE


def samptot():
    """ergm.count's samptot: how many of Sampson's three waves i named j in (1..3), as the
    edge attribute ``nominations``; node attributes of the first wave."""
    waves = [ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)]
    g = nx.DiGraph()
    g.add_nodes_from(waves[0].nodes(data=True))
    for w in waves:
        for u, v in w.edges():
            if g.has_edge(u, v):
                g.edges[u, v]["nominations"] += 1
            else:
                g.add_edge(u, v, nominations=1)
    return g


def samplike_valued():
    """samptot's values on ergm's ``samplike`` nodes: the network statnet's reference file
    calls ``samplike`` in its optional count section (``s6.count.*``: the same ties and
    ``nominations`` as samptot, but ``group`` of ergm's samplike, three levels, the
    Waverers placed in the other groups, where samptot's has four)."""
    g = samptot()
    for v, attrs in ef.datasets.load("samplike").nodes(data=True):
        g.nodes[v].clear()
        g.nodes[v].update(attrs)
    return g


def layercount():
    """ergm.multi's Lazega as counts: in how many of the layers advice, coworker,
    friendship i names j (1..3), as the edge attribute ``value`` (statnet's ``layers``);
    read from tests/reference/ext, a copy of the shared data file."""
    ext = REFERENCE / "ext"
    return read_network(ext / "lazega.layercount.edges.csv", directed=True,
                        nodes=ext / "lazega.layercount.nodes.csv")


def random_count_graph(n, directed, seed, density, top):
    """A random count network on nodes 0..n-1: each dyad (each pair once when undirected)
    nonzero with probability ``density``, its value ``w`` uniform on 1..top."""
    rng = np.random.default_rng(seed)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    for i in range(n):
        for j in range(n):
            if i != j and (directed or i < j) and rng.random() < density:
                g.add_edge(i, j, w=int(rng.integers(1, top + 1)))
    return g


def random_valued(n, directed, density, mean, seed, trials=None):
    """A random count network on nodes 0..n-1: each dyad nonzero with probability
    ``density``, its ``weight`` 1 + Poisson(``mean``) (at most ``trials`` if given)."""
    rng = np.random.default_rng(seed)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    for i in range(n):
        for j in range(n):
            if i == j or (not directed and j < i) or rng.random() > density:
                continue
            y = 1 + rng.poisson(mean)
            g.add_edge(i, j, weight=int(min(y, trials) if trials else y))
    return g
