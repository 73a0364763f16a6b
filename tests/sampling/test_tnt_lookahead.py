"""Tie/no-tie's look-ahead on large networks (issue #21): each proposal prefetches
what the next two proposals will read, from a copy of the random generator.  It
must never change a draw: a chain with the look-ahead is the chain without it."""
import math

import networkx as nx
import numpy as np
import pytest
from scipy import sparse

import ergmfit as ef
from ergmfit.network import NetworkState
from ergmfit.sampling import MHSampler, TieNoTie
from ergmfit.terms._ergm import ERGMModel
from ergmfit.utils.validation import seed_words

FORMULA = "edges + gwesp(0.5, fixed=TRUE) + esp(0:2)"


def _model(n, deg=8, seed=3, directed=False, formula=FORMULA):
    g = nx.fast_gnp_random_graph(n, deg / (n - 1), seed=seed, directed=directed)
    ties = np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2)
    return ef.ERGM(ef.Network(n, ties, directed=directed), formula)


def _chain(model, ahead, steps=60_000, seed=11):
    bm = model.compiled()
    prop = TieNoTie()
    s = MHSampler(bm, prop, seed_words(seed))
    default = prop.ahead
    if ahead is not None:
        prop.ahead = ahead
    n = bm.state.n
    p = 8.0 / (n - 1)
    theta = np.zeros(bm.n_stats)
    theta[0] = math.log(p / (1 - p))
    theta[1:2] = 0.2
    stats = s.sample(theta, 10, steps // 10, steps // 10)
    return default, np.asarray(bm.state.ties()), stats, s.n_accepted


def _ring(n, k):
    # n nodes, each tied to its next k: mean degree 2k, built in no time
    ties = np.array([(i, (i + d) % n) for d in range(1, k + 1) for i in range(n)])
    return ef.ERGM(ef.Network(n, np.sort(ties, axis=1), directed=False), "edges")


def test_lookahead_only_on_a_large_hash_storage():
    # on where records, hash slots and tie list pass 8 MB (the caches are outgrown)
    assert _chain(_ring(100_000, 5), None, steps=10)[0]    # hash storage, ~33 MB: on
    assert not _chain(_model(5000), None, steps=10)[0]     # hash storage, ~1.5 MB: off
    assert not _chain(_model(400), None, steps=10)[0]      # dense bitmap: off


@pytest.mark.parametrize("directed", [False, True])
def test_lookahead_keeps_the_draws(directed):
    formula = FORMULA if not directed else "edges + AltKTrianglesT(2) + mutual"
    m = _model(5000, directed=directed, formula=formula)
    _, ties_on, st_on, acc_on = _chain(m, True)
    _, ties_off, st_off, acc_off = _chain(m, False)
    assert acc_on == acc_off > 10_000
    np.testing.assert_array_equal(ties_on, ties_off)       # same ties, same tie-list order
    np.testing.assert_array_equal(st_on, st_off)


def test_short_list_scan_equals_the_dense_storage():
    # the shared partners of two short neighbour lists are found by a vector scan on
    # hash storage; the dense storage looks them up in the bitmap: the same changes
    n = 600
    m = _model(n, deg=6, formula="edges + gwesp(0.5, fixed=TRUE) + esp(0:3) + triangle")
    ties = np.asarray(m.network.ties, dtype=np.int64)
    rng = np.random.default_rng(0)
    pairs = np.vstack([ties[rng.choice(len(ties), 200)],
                       rng.integers(0, n, size=(400, 2))])
    models = [ERGMModel(NetworkState(n, False, ties, dense=d), m.kernels) for d in (False, True)]
    assert not models[0].state.dense and models[1].state.dense
    for i, j in pairs:
        if i != j:
            np.testing.assert_allclose(models[0].dyad_change_stats(int(i), int(j)),
                                       models[1].dyad_change_stats(int(i), int(j)),
                                       rtol=1e-12, atol=1e-12)


def test_lookahead_with_few_ties_keeps_the_draws():
    # the look-ahead indexes the tie list by the count after the present proposal
    # (one more or one fewer): forced on where the chain passes through 0, 1 and 2
    # ties, it must read only present entries and change nothing
    n = 3000
    m = ef.ERGM(ef.Network(n, np.array([[0, 1], [2, 3]]), directed=False),
                "edges + gwesp(0.5, fixed=TRUE)")
    runs = []
    for ahead in (True, False):
        bm = m.compiled()
        prop = TieNoTie()
        s = MHSampler(bm, prop, seed_words(5))
        prop.ahead = ahead
        theta = np.array([math.log(1.5 / bm.n_vars), 0.3])     # about 1.5 ties
        stats = s.sample(theta, 20, 500, 500)
        runs.append((np.asarray(bm.state.ties()), stats, s.n_accepted))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert runs[0][2] == runs[1][2] > 1000
    assert runs[0][1][:, 0].min() <= 1 and runs[0][1][:, 0].max() <= 8


def _gwesp_esp(adj, alpha=0.5):
    # brute force: gwesp(alpha) and esp(0:2) of a 0/1 adjacency matrix (every pair's shared
    # partners counted again, by a sparse product: 300 nodes' dense one took 6 CPU s a test)
    S = sparse.csr_matrix(adj)
    sp = (S @ S).toarray()
    e = np.triu(adj, 1).astype(bool)
    k = sp[e]
    r = 1.0 - math.exp(-alpha)
    return np.array([math.exp(alpha) * np.sum(1.0 - r ** k)] + [np.sum(k == d) for d in range(3)])


def test_vector_scan_of_short_lists_after_removals():
    # hash storage: a list of at most 16 neighbours is compared in vector registers
    # read past the degree; the entries there are stale after removals (the last
    # neighbour moves into the hole) and must never count as shared partners
    n = 300
    m = _model(n, deg=14, seed=5, formula="edges + gwesp(0.5, fixed=TRUE) + esp(0:2)")
    bm = ERGMModel(NetworkState(n, False, np.asarray(m.network.ties, dtype=np.int64),
                                dense=False), m.kernels)
    rng = np.random.default_rng(1)
    ties = np.asarray(bm.state.ties())
    for e in rng.choice(len(ties), len(ties) // 5, replace=False):
        bm.toggle(int(ties[e, 0]), int(ties[e, 1]))          # stale entries everywhere
    adj = np.zeros((n, n))
    t = np.asarray(bm.state.ties())
    adj[t[:, 0], t[:, 1]] = adj[t[:, 1], t[:, 0]] = 1
    deg = adj.sum(1)
    assert deg.max() > 16 and (deg <= 16).mean() > 0.7     # both paths taken
    present = t[rng.choice(len(t), 60)]
    pairs = np.vstack([present, rng.integers(0, n, size=(120, 2))])
    for i, j in pairs:
        if i == j:
            continue
        on, off = adj.copy(), adj.copy()
        on[i, j] = on[j, i] = 1
        off[i, j] = off[j, i] = 0
        want = np.concatenate([[1.0], _gwesp_esp(on) - _gwesp_esp(off)])
        np.testing.assert_allclose(bm.dyad_change_stats(int(i), int(j)), want,
                                   rtol=1e-10, atol=1e-9)


def test_lookahead_learns_where_the_next_proposal_starts():
    # far above the equilibrium every removal is accepted without a uniform and
    # every addition needs one: the counters are sure of both (0 after a drawn tie,
    # 3 after a drawn dyad), so the look-ahead prefetches one start, not two
    m = _ring(100_000, 5)
    bm = m.compiled()
    prop = TieNoTie()
    s = MHSampler(bm, prop, seed_words(2))
    assert prop.ahead and prop.uniform_guess == (1, 1)      # unsure at first
    p = 10.0 / (100_000 - 1)
    s.run(np.array([math.log(p / (1 - p)) - 3.0]), 2000)
    assert prop.uniform_guess == (0, 3)
