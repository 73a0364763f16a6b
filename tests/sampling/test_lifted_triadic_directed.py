"""The lifted-triadic proposal on directed alternating-term models, against enumeration.

The default proposal of a directed model with AltKTrianglesT is lifted-triadic
(``LiftedTriadicTNT``): "add" moves close a random two-path i->j->k with probability
alpha, and the Hastings ratio needs S(a, b), the sum over middles w (a->w->b) of
1 / (out-degree of w minus the arc back to a).  Its directed branch skips the scan where
the held two-path counts say M(a, b) = 0, so the ratio is checked here on each way the
state can serve the counts: every pair's counts held (dense n x n, or hash maps), the
counts of arcs only (per-arc, ``CACHE_AOTP``: the Epinions default), and counted on
demand.  A 4-node directed network has 2^12 graphs: the exact means of the statistics
are enumerated, and a long chain must reproduce them within a few batch-means standard
errors (the lifted chain moves in runs: draws are not independent).
"""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.network import NetworkState
from ergmfit.network._state import CACHE_FLAGS
from ergmfit.sampling import LiftedTriadicTNT, MHSampler
from ergmfit.terms._ergm import ERGMModel
from ergmfit.utils.validation import seed_words
from support.enumeration import all_statistics

OTP, AOTP = CACHE_FLAGS["otp"], CACHE_FLAGS["aotp"]
N = 4
EPINIONS = "Arc + AltInStars(2) + AltOutStars(2) + AltKTrianglesT(2)"
SIX = "Arc + Reciprocity + AltInStars(2) + AltOutStars(2) + AltKTrianglesT(2) + AltTwoPathsT(2)"
# (formula, theta, storage keywords, the state's ``cached`` flags it must have)
CASES = {
    # the Epinions model: AltKTrianglesT reads arcs' counts only
    "epinions, per-arc counts": (EPINIONS, [-1.2, -0.4, 0.3, 0.9],
                                 dict(dense=False), AOTP),
    "epinions, dense pair counts": (EPINIONS, [-1.2, -0.4, 0.3, 0.9],
                                    dict(cache_degree=0.0), OTP | AOTP),
    "epinions, on demand": (EPINIONS, [-1.2, -0.4, 0.3, 0.9],
                            dict(dense=False, cache_memory=0), 0),
    # every pair's counts (AltTwoPathsT), on hash maps, dense, and on demand
    "six, hash pair counts": (SIX, [-1.0, 0.8, 0.2, -0.3, 0.7, -0.2],
                              dict(dense=False, cache_memory=2 ** 30), OTP | AOTP),
    "six, dense pair counts": (SIX, [-1.0, 0.8, 0.2, -0.3, 0.7, -0.2],
                               dict(cache_degree=0.0), OTP | AOTP),
    "six, on demand": (SIX, [-1.0, 0.8, 0.2, -0.3, 0.7, -0.2],
                       dict(cache_memory=0), 0),
}
_EXACT = {}


def _exact(formula, theta):
    key = (formula, tuple(theta))
    if key not in _EXACT:
        m = ef.ERGM(nx.empty_graph(N, create_using=nx.DiGraph), formula)
        G = all_statistics(m)
        w = G @ np.asarray(theta)
        p = np.exp(w - w.max())
        p /= p.sum()
        _EXACT[key] = (m, p @ G, np.sqrt(p @ (G - p @ G) ** 2))
    return _EXACT[key]


def _chain_means(m, theta, storage, cached, alpha, seed, n=60_000, interval=10, batches=40):
    state = NetworkState(N, True, np.zeros((0, 2), dtype=np.int64), **storage)
    model = ERGMModel(state, m.kernels)
    assert model.state.cached == cached                  # the counts are served as named
    sampler = MHSampler(model, LiftedTriadicTNT(alpha), seed_words(seed))
    S = np.asarray(sampler.sample(np.asarray(theta, dtype=float), n, 2000, interval))
    S = S + m.statistics_vector(np.zeros((0, 2), dtype=np.int64))
    means = S.reshape(batches, -1, S.shape[1]).mean(axis=1)
    return S.mean(axis=0), means.std(axis=0, ddof=1) / np.sqrt(batches)


@pytest.mark.parametrize("alpha", [0.3, 0.8])
@pytest.mark.parametrize("case", list(CASES))
def test_lifted_triadic_is_exact_on_directed_alternating_terms(case, alpha):
    formula, theta, storage, cached = CASES[case]
    m, mean, sd = _exact(formula, theta)
    got, se = _chain_means(m, theta, storage, cached, alpha, seed=3)
    # batch-means s.e., floored at the i.i.d. s.e. (a batch s.e. can come out small)
    se = np.maximum(se, sd / np.sqrt(60_000))
    z = (got - mean) / se
    assert np.all(np.abs(z) < 5), (z, got, mean)


def test_the_proposal_is_the_default_of_these_models():
    for formula in (EPINIONS, SIX):
        m = ef.ERGM(nx.empty_graph(N, create_using=nx.DiGraph), formula)
        assert m.default_proposal == "lifted-triadic"
