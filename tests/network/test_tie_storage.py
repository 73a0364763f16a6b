"""A Network keeps its ties as 4-byte node indices (issue #35: Epinions' tie array 7.8 -> 3.9
MiB through a whole run), and the compiled state and the statistics read them as they are."""
import numpy as np

import ergmfit as ef
from ergmfit.network import Network, NetworkState


def test_ties_are_int32_and_the_state_reads_them_as_int64_ones():
    rng = np.random.default_rng(3)
    n = 50_000                                   # i * n + j overflows int32 here
    pairs = np.unique(rng.integers(0, n, size=(3000, 2)), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    net = Network(n, pairs, True)
    assert net.ties.dtype == np.int32 and net.ties.nbytes == 8 * len(pairs)
    assert np.array_equal(net.ties, pairs)
    a = NetworkState(n, True, net.ties)
    b = NetworkState(n, True, pairs.astype(np.int64))
    assert np.array_equal(np.sort(a.ties(), axis=0), np.sort(b.ties(), axis=0))
    i, j = (int(x) for x in pairs[-1])
    assert a.has(i, j) and a.num_ties == len(pairs)


def test_statistics_and_with_ties_from_int32_ties():
    g = ef.datasets.load_network("samplk1")
    assert g.ties.dtype == np.int32
    m = ef.ERGM(g, "edges + mutual + ttriple + gwesp(0.5, fixed=TRUE)")
    stats = m.statistics_vector()
    wide = m.statistics_vector(np.asarray(g.ties, dtype=np.int64))
    assert np.array_equal(stats, wide)
    h = g.with_ties(np.asarray(g.ties, dtype=np.int64)[:5])
    assert h.ties.dtype == np.int32 and h.n_ties == 5


def test_accumulate_takes_a_networks_ties():
    g = ef.datasets.load_network("samplk1")
    m = ef.ERGM(g, "edges + mutual")
    empty = m.compiled(ties=np.zeros((0, 2), dtype=np.int64))
    got = empty.add_ties_accumulate(g.ties)          # int32: no "Buffer dtype mismatch"
    assert np.array_equal(got, m.statistics_vector())
