"""The triadic proposals' Hastings ratio on hash storage (networks above 4,096 nodes).

Above ``DENSE_MAX_NODES`` the state keeps its ties in a hash map, and the undirected
triadic sum S(a, b) merges the two short neighbour lists instead of probing the map for
each neighbour.  Both ways visit the same middles in the same order, so a chain on hash
storage must be the chain on the dense bitmap, draw for draw.  Storage is forced here on a
small network, so that both ways run on the same ties."""
import math

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.network import NetworkState
from ergmfit.sampling import LiftedTriadicTNT, MHSampler, TriadicTNT
from ergmfit.terms._ergm import ERGMModel
from ergmfit.utils.validation import seed_words

FORMULA = "edges + gwesp(0.5, fixed=TRUE) + esp(0:2)"


def _chains(proposal, directed, n=500, deg=6, seed=4, steps=40_000):
    g = nx.fast_gnp_random_graph(n, deg / (n - 1), seed=seed, directed=directed)
    ties = np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2)
    formula = FORMULA if not directed else "edges + mutual + AltKTrianglesT(2)"
    kernels = ef.ERGM(ef.Network(n, ties, directed=directed), formula).kernels
    p = deg / (n - 1)
    runs = []
    for dense in (True, False):
        model = ERGMModel(NetworkState(n, directed, ties, dense=dense), kernels)
        theta = np.zeros(model.n_stats)
        theta[0], theta[1] = math.log(p / (1 - p)), 0.3
        assert model.state.dense == dense
        sampler = MHSampler(model, proposal(), seed_words(seed))
        stats = sampler.sample(theta, 20, steps // 20, steps // 20)
        runs.append((np.asarray(model.state.ties()), stats, sampler.n_accepted))
    return runs


@pytest.mark.parametrize("proposal", [TriadicTNT, LiftedTriadicTNT])
@pytest.mark.parametrize("directed", [False, True])
def test_hash_storage_chain_is_the_dense_chain(proposal, directed):
    (ties_d, stats_d, acc_d), (ties_h, stats_h, acc_h) = _chains(proposal, directed)
    assert acc_d == acc_h > 2_000                  # the chain moved: removals left holes
    np.testing.assert_array_equal(stats_d, stats_h)
    np.testing.assert_array_equal(ties_d, ties_h)   # same ties, same tie-list order
