"""Node records of the network state (issue #21): each node's degree, capacity and
neighbours in one record of 16, 32, 64 or 128 bytes chosen from the degrees, the
neighbours inline while they fit and in a heap block beyond; ties map to their
index in the tie list.  Every layout must keep the same neighbours, in the same
order (arrival order, a removal moving the last neighbour into the hole: the
sampler's draws depend on it), and the same tie list as a plain model of it."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ergmfit.network import NetworkState


def _ring_ties(n, mean_degree, directed):
    # a graph with the given mean degree per direction (out-degree if directed)
    k = max(1, int(round(mean_degree if directed else mean_degree / 2)))
    return np.array([(i, (i + d) % n) for i in range(n) for d in range(1, k + 1)])


@pytest.mark.parametrize("mean_degree,rec_bytes", [(4, 32), (6, 64), (8, 64), (12, 128),
                                                   (20, 128), (24, 16), (40, 16)])
@pytest.mark.parametrize("directed", [False, True])
def test_record_size_follows_the_mean_degree(mean_degree, rec_bytes, directed):
    n = 300
    s = NetworkState(n, directed, _ring_ties(n, mean_degree, directed), dense=False)
    assert s.rec_bytes == rec_bytes
    assert s.rec_inline == (rec_bytes - 16) // 4
    assert NetworkState(n, directed).rec_bytes == 64       # empty: one line


@pytest.mark.parametrize("directed", [False, True])
def test_heavy_tailed_networks_get_half_line_records(directed):
    # mean degree 6 as a Poisson graph (64 bytes: most lists longer than 4) and as a
    # heavy-tailed one whose hubs hold most ties and 90 % of whose lists have at most 4
    # entries (32 bytes: 4 inline, the hubs' lists in heap blocks), as Epinions (issue #35)
    n, m = 2000, 6000       # mean degree 6 per direction (directed) or in all (undirected)
    rng = np.random.default_rng(1)
    flat = np.unique(rng.integers(0, n, size=(2 * m, 2)), axis=0)
    flat = flat[flat[:, 0] != flat[:, 1]][:m]
    if not directed:
        flat = np.unique(np.sort(flat, axis=1), axis=0)
    hubs = rng.integers(0, 40, size=m)                  # 40 hubs, the other end uniform
    heavy = np.column_stack([hubs, rng.integers(40, n, size=m)])
    heavy = np.unique(heavy if directed else np.sort(heavy, axis=1), axis=0)
    poisson = NetworkState(n, directed, flat, dense=False)
    tailed = NetworkState(n, directed, heavy, dense=False)
    assert poisson.rec_bytes == 64
    assert tailed.rec_bytes == 32 and tailed.rec_inline == 4
    for s, t in ((tailed, heavy), (poisson, flat)):
        assert sorted(map(tuple, s.ties().tolist())) == sorted(map(tuple, t.tolist()))
    # half the records' memory, the hubs' blocks as before
    assert tailed.memory_bytes() < poisson.memory_bytes()


class _Model:
    """Neighbour lists and the tie list as the state keeps them, in plain Python."""

    def __init__(self, n, directed):
        self.directed = directed
        self.out = [[] for _ in range(n)]
        self.inn = self.out if not directed else [[] for _ in range(n)]
        self.ties = []

    @staticmethod
    def _drop(lst, w):
        p = lst.index(w)
        lst[p] = lst[-1]
        lst.pop()

    def toggle(self, i, j):
        if not self.directed and i > j:
            i, j = j, i
        if (i, j) in self.ties:
            self._drop(self.out[i], j)
            self._drop(self.inn[j], i)
            e = self.ties.index((i, j))
            self.ties[e] = self.ties[-1]
            self.ties.pop()
        else:
            self.out[i].append(j)
            self.inn[j].append(i)
            self.ties.append((i, j))


@settings(max_examples=30, deadline=None)
@given(directed=st.booleans(), mean_degree=st.sampled_from([2, 6, 12, 30]),
       dense=st.booleans(), seed=st.integers(0, 2**31 - 1), n_toggles=st.integers(0, 600))
def test_every_layout_keeps_neighbour_order_and_tie_list(directed, mean_degree, dense, seed,
                                                          n_toggles):
    n = 60
    rng = np.random.default_rng(seed)
    start = _ring_ties(n, mean_degree, directed)
    s = NetworkState(n, directed, start, dense=dense)
    m = _Model(n, directed)
    for i, j in start:
        m.toggle(int(i), int(j))
    hubs = 8                    # a few nodes gain and lose many ties: they leave the record
    for _ in range(n_toggles):
        i = int(rng.integers(0, hubs if rng.random() < 0.5 else n))
        j = int(rng.integers(0, n))
        if i != j:
            s.toggle_tie(i, j)
            m.toggle(i, j)
    assert [tuple(t) for t in s.ties()] == m.ties
    for v in range(n):
        assert s.out_neighbors(v).tolist() == m.out[v]
        assert s.in_neighbors(v).tolist() == m.inn[v]
    assert s.out_degrees().tolist() == [len(x) for x in m.out]
    for i, j in m.ties:
        assert s.has(i, j)
    c = s.copy()
    assert [tuple(t) for t in c.ties()] == m.ties


def test_full_lists_grow_by_an_eighth_not_twice():
    # a state is built with every list and the tie list exactly full; one more tie grows a
    # hub's block and the tie list by an eighth (at least 4 entries), not to twice their
    # size, so an EE run adding about as often as it removes keeps them nearly full (#35)
    n, hub = 3000, 0
    ties = np.array([(hub, j) for j in range(1, 2001)])
    s = NetworkState(n, True, ties, dense=False)
    before = s.memory_bytes()
    s.toggle_tie(1, 2)                     # a new tie: the tie list (2000 full) grows
    s.toggle_tie(hub, 2001)                # the hub's out-list (2000 full) grows
    grown = s.memory_bytes() - before
    # tie list 250 x 8 bytes, the hub's list 250 x 4 (doubling: 2000 x 8 + 2000 x 4)
    assert grown <= 250 * 8 + 250 * 4 + 64
    assert s.out_neighbors(hub).tolist() == list(range(1, 2002))
