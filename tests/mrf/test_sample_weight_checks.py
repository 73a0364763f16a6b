"""The MRF estimators check ``sample_weight`` once (``mrf._base.row_weights``): a negative
weight or all weights 0 gave an estimate (0 for every parameter with "exact" and "cl")
without a word, and NaN or a wrong length failed deep inside (bincount, linprog)."""
import networkx as nx
import numpy as np
import pytest

from ergmfit.mrf import IsingModel


@pytest.mark.parametrize("method", ["pl", "exact", "cl"])
def test_bad_weights_are_named(method):
    m = IsingModel(nx.cycle_graph(4))
    X = m.sample(50, theta=[0.1, 0.3], random_state=0)
    for w, message in ((-np.ones(50), r"non-negative: weight 0 is -1"),
                       (np.r_[np.ones(49), np.nan], r"weight 49 is nan"),
                       (np.ones(49), r"one weight per observation \(50\), got shape \(49,\)"),
                       (np.ones((50, 2)), r"got shape \(50, 2\)"),
                       (np.zeros(50), "every weight is 0")):
        with pytest.raises(ValueError, match="sample_weight.*" + message):
            m.fit(X, method=method, sample_weight=w)
    # integer weights are replicated rows
    w = np.r_[np.full(25, 2.0), np.zeros(25)]
    np.testing.assert_allclose(m.fit(X, method=method, sample_weight=w).coef_,
                               m.fit(np.repeat(X[:25], 2, axis=0), method=method).coef_,
                               atol=1e-6)


def test_chain_crf_documents_with_no_weight_are_refused():
    # all weights 0 gave 0 for every parameter (the prior's maximum) without a word
    from ergmfit.mrf.chain_crf import ChainCRF
    rng = np.random.default_rng(0)
    F = [rng.random((n, 3)) for n in (4, 6, 5)]
    Y = [rng.integers(0, 2, len(f)) for f in F]
    with pytest.raises(ValueError, match="sample_weight: every weight is 0"):
        ChainCRF(2, 3).fit(F, Y, method="pl", sample_weight=[0, 0, 0])
    with pytest.raises(ValueError, match="sample_weight must be finite and non-negative"):
        ChainCRF(2, 3).fit(F, Y, method="pl", sample_weight=[1, -1, 1])


def test_a_non_finite_theta_is_named():
    # sample() failed with numpy's "Probabilities contain NaN", score() gave nan
    m = IsingModel(nx.cycle_graph(4))
    for call in (lambda th: m.sample(2, theta=th, random_state=0),
                 lambda th: m.score(np.array([[1, 0, 1, 1]]), theta=th),
                 lambda th: m.log_partition(th)):
        with pytest.raises(ValueError, match=r"theta must be finite; not \['coupling'\]"):
            call([0.1, np.nan])


def test_sample_counts_are_whole_numbers():
    # 2.5 samples were 2, a negative burn-in none, and burnin=0 meant 100 sweeps
    from ergmfit.mrf.potts import PottsModel
    small, large = IsingModel(nx.cycle_graph(4)), IsingModel(nx.grid_2d_graph(5, 5))
    potts = PottsModel(nx.cycle_graph(4), q=3)
    for m in (small, large, potts):
        th = np.zeros(m.n_stats)
        for n in (2.5, -1, True):
            with pytest.raises(ValueError, match=r"n_samples must be a whole number >= 0"):
                m.sample(n, theta=th, random_state=0)
        assert m.sample(3.0, theta=th, random_state=0).shape[0] == 3
    for m in (large, potts):
        th = np.zeros(m.n_stats)
        with pytest.raises(ValueError, match=r"burnin must be a whole number >= 0, got -5"):
            m.sample(3, theta=th, random_state=0, burnin=-5)
        with pytest.raises(ValueError, match=r"thin must be a whole number >= 1, got 0"):
            m.sample(3, theta=th, random_state=0, thin=0)
    # burnin=0: no burn-in (the first draw one sweep from the start), not 100 sweeps
    a = large.sample(1, theta=[0.1, 0.1], random_state=0, burnin=0)
    b = large.sample(1, theta=[0.1, 0.1], random_state=0, burnin=100)
    assert not np.array_equal(a, b)
