"""The network summaries of :func:`ergmfit.gof.gof`, computed with sparse matrices.

Degree, in/out-degree, degree by mode (two-mode networks), edgewise and dyadwise shared
partner and geodesic distance distributions of one network (definitions:
:mod:`ergmfit.gof`).  Split out of ``gof.py``, which re-exports every name here.

>>> GraphSummaries(4, [(0, 1), (1, 2), (2, 0)], False).degree().tolist()
[1.0, 0.0, 3.0, 0.0]
"""
from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

__all__ = ["GraphSummaries", "degree_distribution", "esp_distribution", "dsp_distribution",
           "geodesic_distribution", "BFS_MIN_COMPONENT", "BFS_MAX_ECCENTRICITY",
           "BFS_BLOCK_ENTRIES"]

class GraphSummaries:
    """The gof summaries of one network, computed with sparse matrices.

    Parameters
    ----------
    n : int
    ties : array of shape (m, 2)
        0-based ties (each undirected tie once).
    directed : bool
    bipartite : int, optional
        A two-mode network's number n1 of mode-1 nodes (nodes 0..n1-1; the rest are
        mode 2): for the degrees by mode, ``b1degree`` and ``b2degree``.

    Every method returns a full-length count vector (no trimming).

    On a two-mode network the other summaries read it as a graph on all its nodes, as
    statnet's ``gof`` does (ergm's ``ergm.geodistdist`` counts "pairs" of the n nodes,
    length n: n - 1 distances and Inf): ``distance`` counts every pair of nodes, the pairs
    within a mode too (at an even distance or unreachable); ``dspartners`` every pair
    (shared partners exist only within a mode); ``espartners`` counts ties, which have
    no shared partner (a two-mode network has no triangle).

    >>> s = GraphSummaries(5, [(0, 2), (0, 3), (1, 3)], False, bipartite=2)
    >>> s.degree("b1degree").tolist(), s.degree("b2degree").tolist()
    ([0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0])
    >>> s.distance().tolist()   # 10 node pairs: 3 ties, 2 at 2, 1 at 3, 4 unreachable
    [3.0, 2.0, 1.0, 0.0, 4.0]
    """

    def __init__(self, n, ties, directed, bipartite=None):
        self.n = int(n)
        self.directed = bool(directed)
        self.bipartite = None if bipartite is None else int(bipartite)
        self.ties = np.asarray(ties, dtype=np.int64).reshape(-1, 2)
        self._A = None
        self._A2 = None

    @classmethod
    def of(cls, network):
        """From a :class:`~ergmfit.network.Network` (or anything ``as_network`` takes)."""
        from .network import as_network
        net = as_network(network)
        return cls(net.n, net.ties, net.directed)

    @property
    def n_dyads(self) -> int:
        return self.n * (self.n - 1) if self.directed else self.n * (self.n - 1) // 2

    @property
    def adjacency(self):
        """Sparse 0/1 adjacency (CSR, symmetric if undirected)."""
        if self._A is None:
            t, h = self.ties[:, 0], self.ties[:, 1]
            if not self.directed:
                t, h = np.concatenate([t, h]), np.concatenate([h, t])
            self._A = sparse.csr_matrix((np.ones(len(t), dtype=np.int64), (t, h)),
                                        shape=(self.n, self.n))
        return self._A

    @property
    def two_paths(self):
        """A @ A: entry (i, j) = #{k: i->k->j} (undirected: common neighbours)."""
        if self._A2 is None:
            A = self.adjacency
            self._A2 = (A @ A).tocsr()
        return self._A2

    def degree(self, kind="degree") -> np.ndarray:
        """Counts of nodes with degree 0..n-1 (``kind``: degree, idegree, odegree); on a
        two-mode network ``b1degree`` (``b2degree``): the mode-1 (mode-2) nodes with degree
        0..n2 (0..n1), statnet's ``b1degree(0:n2)`` (``b2degree(0:n1)``)."""
        if kind in ("b1degree", "b2degree"):
            if self.bipartite is None:
                raise ValueError(f"{kind} is a summary of two-mode networks")
            d = np.bincount(self.ties.ravel(), minlength=self.n)
            n1 = self.bipartite
            d, top = (d[:n1], self.n - n1) if kind == "b1degree" else (d[n1:], n1)
            return np.bincount(d, minlength=top + 1)[:top + 1].astype(float)
        if kind == "degree":
            d = np.bincount(self.ties.ravel(), minlength=self.n)
        elif kind == "idegree":
            d = np.bincount(self.ties[:, 1], minlength=self.n)
        elif kind == "odegree":
            d = np.bincount(self.ties[:, 0], minlength=self.n)
        else:
            raise ValueError(f"unknown degree kind {kind!r}")
        return np.bincount(d, minlength=self.n)[:self.n].astype(float)

    def espartners(self) -> np.ndarray:
        """Counts of ties with 0..n-2 shared partners (directed: OTP partners)."""
        size = max(self.n - 1, 1)
        if len(self.ties) == 0:
            return np.zeros(size)
        sp = np.asarray(self.two_paths[self.ties[:, 0], self.ties[:, 1]]).ravel()
        return np.bincount(sp, minlength=size)[:size].astype(float)

    def dspartners(self) -> np.ndarray:
        """Counts of dyads (all of them) with 0..n-2 shared partners (directed: OTP)."""
        size = max(self.n - 1, 1)
        A2 = self.two_paths.tocoo()
        keep = (A2.row < A2.col) if not self.directed else (A2.row != A2.col)
        vals = A2.data[keep]
        vals = vals[vals > 0]
        out = np.bincount(vals, minlength=size)[:size].astype(float)
        out[0] = self.n_dyads - len(vals)
        return out

    def distance(self) -> np.ndarray:
        """Counts of dyads at geodesic distance 1..n-1, then unreachable (length n).

        Undirected: unordered pairs; directed: ordered pairs and directed paths.
        """
        n = self.n
        out = np.zeros(n)
        if n < 2:
            return out
        A = self.adjacency
        _, comp = csgraph.connected_components(A, directed=self.directed, connection="weak")
        size = np.bincount(comp)
        node_size = size[comp]
        counts = np.zeros(n - 1)
        small = np.flatnonzero((node_size > 1) & (node_size < BFS_MIN_COMPONENT))
        if len(small):
            counts += _dijkstra_counts(A[small][:, small], self.directed, n)
        for c in np.flatnonzero(size >= BFS_MIN_COMPONENT):
            nodes = np.flatnonzero(comp == c)
            counts += _component_counts(A[nodes][:, nodes], self.directed, n)
        if not self.directed:
            counts /= 2
        out[:n - 1] = counts
        out[n - 1] = self.n_dyads - counts.sum()
        return out

    def compute(self, name) -> np.ndarray:
        if name in ("degree", "idegree", "odegree", "b1degree", "b2degree"):
            return self.degree(name)
        if name == "espartners":
            return self.espartners()
        if name == "dspartners":
            return self.dspartners()
        if name == "distance":
            return self.distance()
        raise ValueError(f"unknown gof statistic {name!r}")


#: components at least this large use the blocked breadth-first search below
BFS_MIN_COMPONENT = 128
#: ... unless a breadth-first search from one node needs more levels than this
BFS_MAX_ECCENTRICITY = 32
#: matrix entries per block of sources (memory: about 6 bytes each)
BFS_BLOCK_ENTRIES = 1 << 22


def _dijkstra_counts(A, directed, n_total, sources=None) -> np.ndarray:
    """Counts of (source, target) pairs at distance 1..n_total-1 (scipy's csgraph)."""
    m = A.shape[0]
    out = np.zeros(n_total - 1)
    sources = np.arange(m) if sources is None else np.asarray(sources)
    block = max(1, BFS_BLOCK_ENTRIES // max(m, 1))
    for start in range(0, len(sources), block):
        D = csgraph.shortest_path(A, method="D", directed=directed, unweighted=True,
                                  indices=sources[start:start + block])
        d = D[np.isfinite(D)]
        d = d[d > 0].astype(np.int64)
        out += np.bincount(d - 1, minlength=n_total - 1)[:n_total - 1]
    return out


def _component_counts(A, directed, n_total) -> np.ndarray:
    """Distance counts within one (weakly) connected component.

    A breadth-first search from all sources of a block at once, as products
    of the sparse adjacency with a dense frontier matrix (one product per
    level).  For long, thin components (many levels) scipy's per-source
    search is faster and is used instead.
    """
    m = A.shape[0]
    ecc = csgraph.shortest_path(A, method="D", directed=False, unweighted=True, indices=0)
    ecc = int(ecc[np.isfinite(ecc)].max())
    if ecc > BFS_MAX_ECCENTRICITY:
        return _dijkstra_counts(A, directed, n_total)
    max_levels = 4 * ecc + 8        # undirected diameter <= 2 ecc; directed may be longer
    AT = A.T.tocsr().astype(np.float32)
    out = np.zeros(n_total - 1)
    block = max(1, min(m, BFS_BLOCK_ENTRIES // m))
    for start in range(0, m, block):
        src = np.arange(start, min(m, start + block))
        b = len(src)
        cnt = np.zeros(n_total - 1)
        visited = np.zeros((m, b), dtype=bool)
        visited[src, np.arange(b)] = True
        frontier = np.zeros((m, b), dtype=np.float32)
        frontier[src, np.arange(b)] = 1.0
        level, done = 0, True
        while frontier.shape[1]:
            level += 1
            if level > max_levels:
                done = False
                break
            new = (AT @ frontier) > 0
            new &= ~visited
            k = int(np.count_nonzero(new))
            if k == 0:
                break
            cnt[level - 1] += k
            visited |= new
            alive = new.any(axis=0)
            if alive.sum() < 0.7 * len(alive):     # sources whose search is over
                new, visited = new[:, alive], visited[:, alive]
            frontier = new.astype(np.float32)
        if not done:
            cnt = _dijkstra_counts(A, directed, n_total, sources=src)
        out += cnt
    return out


def degree_distribution(network, kind="degree") -> np.ndarray:
    """Number of nodes with (in/out-)degree 0..n-1."""
    return GraphSummaries.of(network).degree(kind)


def esp_distribution(network) -> np.ndarray:
    """Number of ties with 0..n-2 edgewise shared partners (directed: OTP)."""
    return GraphSummaries.of(network).espartners()


def dsp_distribution(network) -> np.ndarray:
    """Number of dyads with 0..n-2 dyadwise shared partners (directed: OTP, ordered dyads)."""
    return GraphSummaries.of(network).dspartners()


def geodesic_distribution(network) -> np.ndarray:
    """Number of dyads at geodesic distance 1..n-1, then the unreachable ones."""
    return GraphSummaries.of(network).distance()


class ValuedGraphSummaries(GraphSummaries):
    """The gof summaries of a count-valued network: the distribution of the dyad
    values, and the graph summaries (degrees, shared partners, distances) of its
    nonzero ties.

    Parameters
    ----------
    n : int
    state : (dyads, values)
        The nonzero dyads, an (m, 2) array (each undirected dyad once), and their values.
    directed : bool
    max_value : int
        The value distribution counts the dyads with value 0, 1, ..., ``max_value``;
        the last entry counts every value >= ``max_value``.
    n_dyads : int, optional
        The dyads whose values the distribution counts (the model's free dyads: a two-mode
        network's between its modes); default every node pair.
    bipartite : int, optional
        A two-mode network's number of mode-1 nodes (see :class:`GraphSummaries`: the
        graph summaries of the nonzero ties follow the binary conventions on two-mode
        networks, ``distance`` over every pair of nodes).

    Examples
    --------
    >>> import numpy as np
    >>> s = ValuedGraphSummaries(3, (np.array([[0, 1], [1, 2]]), np.array([2, 5])), False, 4)
    >>> s.compute("value").tolist()
    [1.0, 0.0, 1.0, 0.0, 1.0]
    >>> s.compute("degree").tolist()
    [0.0, 2.0, 1.0]
    """

    def __init__(self, n, state, directed, max_value, n_dyads=None, bipartite=None):
        dyads, values = state
        super().__init__(n, dyads, directed, bipartite)
        self.values = np.asarray(values, dtype=np.int64).reshape(-1)
        self.max_value = int(max_value)
        self.n_value_dyads = None if n_dyads is None else int(n_dyads)

    def value_distribution(self) -> np.ndarray:
        """How many dyads have the value 0, 1, ..., max_value (the last: or more)."""
        out = np.bincount(np.minimum(self.values, self.max_value),
                          minlength=self.max_value + 1).astype(float)
        dyads = self.n_dyads if self.n_value_dyads is None else self.n_value_dyads
        out[0] += dyads - len(self.values)
        return out

    def compute(self, name) -> np.ndarray:
        if name == "value":
            return self.value_distribution()
        return super().compute(name)
