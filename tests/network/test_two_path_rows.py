"""AltTwoPathsT on demand (issue #35): the change of i->j reads M(i, v) for every v of out(j)
and M(v, j) for every v of in(i); ``NetworkState.otp_row`` counts each row from the cheaper
side: each v's list against the marks of the fixed end's list ("lists"), or the arcs from each
w of the fixed end's list ("arcs"), which is much cheaper at hubs.  Both sides must give the
same integers, hence the change statistics of the held and dense counts and the differences
of the full statistic, around hubs and after toggles."""
import numpy as np
from scipy import sparse

from ergmfit import ERGM
from ergmfit.network import Network, NetworkState
from ergmfit.terms._ergm import ERGMModel

N = 300
LAM = 2.0


def hub_arcs(seed):
    """Arcs on N nodes: 5 hubs receiving 80-200 arcs and sending 80-200 arcs to nodes of
    high in-degree, the rest of degree about 1-10: a hub's out-list then has long in-lists
    behind it (the "arcs" side is cheaper), a light node's short ones ("lists")."""
    rng = np.random.default_rng(seed)
    hubs = rng.choice(N, 5, replace=False)
    w = rng.pareto(1.5, N) + 1.0
    w[hubs] *= 30
    w /= w.sum()
    parts = [np.column_stack([rng.integers(0, N, 1200), rng.choice(N, 1200, p=w)])]
    for h in hubs:
        k = rng.integers(80, 200)
        parts.append(np.column_stack([rng.integers(0, N, k), np.full(k, h)]))
        k = rng.integers(80, 200)
        parts.append(np.column_stack([np.full(k, h), rng.choice(N, k, p=w)]))
    arcs = np.concatenate(parts)
    arcs = arcs[arcs[:, 0] != arcs[:, 1]]
    return np.unique(arcs, axis=0), hubs


def a2p_t(adj):
    """The full A2P-T statistic of a 0/1 adjacency matrix."""
    a = sparse.csr_matrix(adj)
    m = (a @ a).tocoo()
    keep = m.row != m.col                   # pairs with M = 0 add 1 - q^0 = 0
    return LAM * np.sum(1.0 - (1.0 - 1.0 / LAM) ** m.data[keep])


def states(arcs):
    kernels = ERGM(Network(N, arcs, directed=True), f"AltTwoPathsT({LAM})").kernels
    return {"held": ERGMModel(NetworkState(N, True, arcs, dense=False, cache_memory=2 ** 30),
                              kernels),
            "dense": ERGMModel(NetworkState(N, True, arcs, dense=True), kernels),
            "demand": ERGMModel(NetworkState(N, True, arcs, dense=False, cache_memory=0),
                                kernels)}


def dyads(rng, hubs, count):
    """Dyads with a hub at one end, both ends or neither."""
    out = []
    while len(out) < count:
        i, j = (int(hubs[rng.integers(len(hubs))]) if rng.random() < 0.5 else int(rng.integers(N))
                for _ in range(2))
        if i != j:
            out.append((i, j))
    return out


def test_rows_from_either_side_equal_the_matrix_counts():
    arcs, hubs = hub_arcs(1)
    st = states(arcs)["demand"].state
    adj = np.zeros((N, N), dtype=np.int64)
    adj[arcs[:, 0], arcs[:, 1]] = 1
    m = adj @ adj
    sides = set()
    for i, j in dyads(np.random.default_rng(1), hubs, 400):
        p = adj[i, j]
        for forward in (True, False):
            row, side = st.two_path_row(i, j, forward)
            sides.add(side)
            if forward:
                vl = np.nonzero(adj[j])[0]
                want = m[i, vl] - p
            else:
                vl = np.nonzero(adj[:, i])[0]
                want = m[vl, j] - p
            keep = vl != (i if forward else j)
            got = {int(v): int(c) for v, c in zip(st.out_neighbors(j) if forward
                                                  else st.in_neighbors(i), row)}
            assert [got[int(v)] for v in vl[keep]] == list(want[keep])
    assert sides == {"lists", "arcs"}


def test_change_statistics_equal_full_differences_in_every_count_mode():
    for seed in (1, 2):
        arcs, hubs = hub_arcs(seed)
        models = states(arcs)
        adj = np.zeros((N, N), dtype=np.int64)
        adj[arcs[:, 0], arcs[:, 1]] = 1
        rng = np.random.default_rng(seed)
        for step, (i, j) in enumerate(dyads(rng, hubs, 150)):
            got = {k: m.dyad_change_stats(i, j)[0] for k, m in models.items()}
            # the same integers and sums whichever side counted them
            assert got["demand"] == got["held"] == got["dense"]
            if step % 5 == 0:
                on, off = adj.copy(), adj.copy()
                on[i, j], off[i, j] = 1, 0
                np.testing.assert_allclose(got["demand"], a2p_t(on) - a2p_t(off), atol=1e-8)
            if step % 2 == 0:              # toggle it: marks and rows must follow the change
                for m in models.values():
                    m.toggle(i, j)
                adj[i, j] ^= 1


def test_memory_bytes_counts_the_two_path_row_buffers():
    # otp_row's zeroed count buffer (n ints), the candidates and the marks are allocated at
    # the first on-demand row: memory_bytes must report them (it did not: a state's figure
    # stayed the same while these n-sized buffers were held)
    arcs, hubs = hub_arcs(5)
    s = NetworkState(N, True, arcs, dense=False, cache_memory=0)
    before = s.memory_bytes()
    h = int(hubs[0])
    s.two_path_row(int(arcs[0, 0]), h, True)
    grown = s.memory_bytes() - before
    # the row buffer and the candidates: n ints each; three marks: a bitmap and a list each
    assert grown >= 2 * N * 4 + 3 * N * 4
    assert s.memory_bytes() == before + grown          # stable once allocated
    s.two_path_row(h, int(arcs[0, 0]), False)
    assert s.memory_bytes() - before == grown
