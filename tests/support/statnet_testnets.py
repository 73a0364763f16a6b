"""The small networks statnet's own term tests (statnet/ergm tests/testthat) build from R's
random numbers, rebuilt here so that their printed statistics can be compared.

R's ``set.seed(s); runif(k, a, b)``: R scrambles the seed with the congruential generator
x -> 69069 x + 1 (50 times, then once per word of the Mersenne-Twister state), starts the
generator at position 624 and maps each 32-bit output y to a + (b - a) * y * 2^-32.
(``set.seed(42); runif(3)`` gives 0.914806 0.9370754 0.2861395, as R prints.)
"""
import networkx as nx
import numpy as np


def r_runif(seed):
    """A function (k, a, b) -> R's runif(k, a, b) after set.seed(seed)."""
    s = seed & 0xFFFFFFFF
    for _ in range(50):
        s = (69069 * s + 1) & 0xFFFFFFFF
    key = []
    for _ in range(625):
        s = (69069 * s + 1) & 0xFFFFFFFF
        key.append(s)
    bg = np.random.MT19937()
    state = bg.state
    state["state"] = {"key": np.array(key[1:], dtype=np.uint32), "pos": 624}
    bg.state = state

    def runif(k, a=0.0, b=1.0):
        return a + (b - a) * (bg.random_raw(k).astype(np.float64) * 2.3283064365386963e-10)
    return runif


def bipnw():
    """test-term-bipartite.R's ``bipnw``: 60 random ties between 100 + 29 nodes,
    ``Letter`` = a, b, c and ``Cost`` = 3, 2, 1 recycled over all nodes."""
    ru = r_runif(143)
    b1 = np.floor(ru(60, 1, 100)).astype(int)
    b2 = np.floor(ru(60, 101, 130)).astype(int)
    g = nx.Graph()
    for v in range(1, int(max(b1.max(), b2.max())) + 1):
        g.add_node(v, bipartite=0 if v <= 100 else 1, Letter="abc"[(v - 1) % 3],
                   Cost=[3, 2, 1][(v - 1) % 3])
    g.add_edges_from(zip(b1.tolist(), b2.tolist()))
    return g


def unnw():
    """test-term-undirected.R's ``unnw``: 160 random pairs of 1..19 (self-pairs moved one
    on), undirected, ``Pet`` = dog, cat recycled."""
    t = np.trunc(r_runif(20)(160, 1, 20)).astype(int)
    h = np.trunc(r_runif(21)(160, 1, 20)).astype(int)
    h = np.where(h == t, h + 1, h)
    g = nx.Graph()
    for v in range(1, int(max(t.max(), h.max())) + 1):
        g.add_node(v, Pet=["dog", "cat"][(v - 1) % 2])
    g.add_edges_from(zip(t.tolist(), h.tolist()))
    return g


def bipnw2():
    """test-term-bipartite.R's ``bipnw2`` (bipartite=200): 150 random ties between 1..199 and
    201..399, ``Letter`` = a, b recycled (its ``Color`` comes from rbinom, not rebuilt)."""
    ru = r_runif(258)
    b1 = np.floor(ru(150, 1, 200)).astype(int)
    b2 = np.floor(ru(150, 201, 400)).astype(int)
    g = nx.Graph()
    for v in range(1, int(max(b1.max(), b2.max())) + 1):
        g.add_node(v, bipartite=0 if v <= 200 else 1, Letter="ab"[(v - 1) % 2])
    g.add_edges_from(zip(b1.tolist(), b2.tolist()))
    return g


def two_mode_covariates():
    """A small random two-mode network (6 + 8 nodes) with covariates for the hamming /
    dyadcov / edgecov forms: (graph, reference X and weights W as 6 x 8 matrices, and a
    networkx reference network whose ties carry 'w3' = 3).  X, W and the reference are
    also stored as the graph's attributes 'X', 'W' and 'R'."""
    rng = np.random.default_rng(4)
    g = nx.Graph()
    g.add_nodes_from((v, {"bipartite": int(v >= 6)}) for v in range(14))
    g.add_edges_from((i, j) for i in range(6) for j in range(6, 14) if rng.random() < 0.4)
    X = (rng.random((6, 8)) < 0.4).astype(float)
    W = rng.integers(1, 4, size=(6, 8)).astype(float)
    ref = nx.Graph()
    ref.add_nodes_from(range(14))
    ref.add_edges_from(((i, 6 + j, {"w3": 3.0}) for i in range(6) for j in range(8) if X[i, j]))
    g.graph.update(X=X, W=W, R=ref)
    return g, X, W, ref
