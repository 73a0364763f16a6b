"""Valued networks of the count-family tests."""
import networkx as nx

import ergmfit as ef


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
