"""Exact log Z, marginals and log-likelihood against independent brute force."""
import itertools

import networkx as nx
import numpy as np
import pytest
from scipy import special

from ergmfit.mrf import data, exact
from ergmfit.mrf.models import BoltzmannMachine, IsingModel, RBM


def brute_states(n):
    return np.array(list(itertools.product([0, 1], repeat=n)), dtype=np.uint8)


def ref_bm_stats(X, n, higher, coding):
    S = 2.0 * X - 1.0 if coding == "pm1" else X.astype(float)
    cols = [S[:, i] for i in range(n)]
    cols += [S[:, i] * S[:, j] for i in range(n) for j in range(i + 1, n)]
    cols += [np.prod(S[:, list(h)], axis=1) for h in higher]
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("coding", ["pm1", "01"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_log_partition_marginals_loglik(coding, seed):
    rng = np.random.default_rng(seed)
    n = 7
    higher = [(0, 1, 2), (3, 4, 5, 6)]
    m = BoltzmannMachine(n, higher_order=higher, coding=coding)
    theta = rng.normal(0, 0.6, m.n_stats)
    S = brute_states(n)                              # independent enumeration
    G = ref_bm_stats(S, n, higher, coding)
    w = G @ theta
    lz = special.logsumexp(w)
    P = np.exp(w - lz)
    assert np.isclose(m.log_partition(theta), lz, rtol=1e-12)
    assert np.allclose(m.marginals(theta), P @ S, atol=1e-12)
    assert np.allclose(exact.mean_statistics(m.compiled(), theta), P @ G, atol=1e-10)
    X = rng.integers(0, 2, (9, n))
    ref_ll = ref_bm_stats(X.astype(np.uint8), n, higher, coding) @ theta - lz
    assert np.allclose(m.score_samples(X, theta), ref_ll)
    assert np.isclose(exact.loglik(m.compiled(), theta, X), ref_ll.sum())


def test_all_statistics_state_order_and_state_restored():
    m = IsingModel((4, [(0, 1), (1, 2), (2, 3)]), tied=False)
    bm = m.compiled()
    x = np.array([1, 0, 1, 1], dtype=np.uint8)
    bm.set_state(x)
    G = exact.all_statistics(bm)
    assert np.array_equal(bm.state(), x)
    assert np.allclose(G, m.statistics(exact.state_matrix(4)))
    assert exact.state_index(x)[0] == 1 + 4 + 8


def test_exact_sample_reproducible_and_distributed():
    m = IsingModel((5, [(i, i + 1) for i in range(4)]))
    theta = np.array([0.3, 0.4])
    a = m.sample(20000, theta, random_state=7)
    b = m.sample(20000, theta, random_state=7)
    assert np.array_equal(a, b)
    assert np.allclose(a.mean(0), m.marginals(theta), atol=0.02)


def test_too_large_for_enumeration():
    from ergmfit.mrf import exact, junction
    chain = IsingModel((21, [(i, i + 1) for i in range(20)]))
    with pytest.raises(ValueError, match="at most 20 variables"):
        exact.all_statistics(chain.compiled())
    # the model falls back to the junction tree (a chain is thin) ...
    assert np.isclose(chain.log_partition([0.1, 0.1]),
                      junction.log_partition(chain, [0.1, 0.1]))
    # ... which refuses a dense model
    dense = IsingModel(nx.complete_graph(25))
    with pytest.raises(ValueError, match="treewidth"):
        dense.log_partition([0.1, 0.1])


def test_rbm_log_partition_against_joint_enumeration():
    rbm = RBM(4, 3)
    rng = np.random.default_rng(5)
    th = rng.normal(0, 0.5, rbm.n_params)
    a, b, W = rbm.unpack(th)
    tot = []
    for v in itertools.product([-1, 1], repeat=4):
        for h in itertools.product([-1, 1], repeat=3):
            v_, h_ = np.array(v), np.array(h)
            tot.append(a @ v_ + b @ h_ + v_ @ W @ h_)
    assert np.isclose(rbm.log_partition(th), special.logsumexp(tot))


def test_chessboard():
    y, x = data.chessboard(32, 4, 1.0, random_state=0)
    assert y.shape == x.shape == (1024,)
    X = x.reshape(32, 32)
    assert set(np.unique(x)) == {-1.0, 1.0}
    assert X[0, 0] == X[7, 7] == -X[0, 8] == -X[8, 0]
    assert abs(np.std(y - x) - 1.0) < 0.1
    y2, _ = data.chessboard(32, 4, 1.0, random_state=0)
    assert np.array_equal(y, y2)
