"""EE's update rule and EstimNetDirected's (issue #35): the Borisenko step of the
compiled loop iteration by iteration, and the rows EstimNet's R script averages."""
import networkx as nx
import numpy as np

import ergmfit as ef
from ergmfit.estimation.ee._ee import ee_iterations
from ergmfit.estimation.ee.estimator import EE, ESTIMNET_BURNIN
from ergmfit.estimation.ee.pool import _chain_summary
from ergmfit.sampling._mh import MHSampler
from ergmfit.sampling._proposals import IFD, ifd_correction
from ergmfit.utils.validation import seed_words


def test_borisenko_step_is_eq14_after_every_batch_of_m_proposals(samplike):
    # one iteration = m proposals at a fixed θ, then θ_k -= a max(|θ_k|, c) sign(dzA_k)
    # with dzA = g(x_t) - g(x_obs) accumulated from t = 0 (sign(0) = 0); the density
    # parameter is V - log((D - L) / (L + 1)) with V moved once per batch
    a, c, m, n = 0.05, 0.3, 40, 60
    for seed in (1, 2, 3):
        bm = samplike.compiled()                        # a fresh copy of the observed ties
        L0 = len(bm.on_vars())
        corr = ifd_correction(bm.n_vars, L0)
        prop = IFD(V=-1.0, K=0.1)
        s = MHSampler(bm, prop, seed_words(seed))
        theta = np.array([-1.0 - corr, 0.1])          # |θ_mutual| < c: the c branch too
        dzA = np.zeros(2)
        th, dz, acc, v = np.zeros((n, 2)), np.zeros((n, 2)), np.zeros(n), np.zeros(n)
        ee_iterations(s, theta, dzA, n, m, 0, a, c, 1e-9, np.ones(2), 0, corr, th, dz, acc, v)
        prev = 0.1
        for t in range(n):
            want = prev - a * max(abs(prev), c) * np.sign(dz[t, 1])
            assert th[t, 1] == want
            assert th[t, 0] == v[t] - corr
            prev = want
        # dzA is the chain's statistics minus the observed ones, never reset
        assert dzA[0] == len(bm.on_vars()) - L0
        np.testing.assert_array_equal(dzA, s.delta)
        assert dz[-1, 1] == dzA[1]


def _chain(n_done, inner, store_every=1):
    it = np.arange(0, n_done, store_every)
    rows = np.column_stack([it, 2.0 * it]).astype(float)
    return {"labels": ["a", "b"], "theta_rows": rows, "dz_rows": rows - rows.mean(axis=0),
            "store_every": store_every, "n_done": n_done, "stage_start": 0, "sims": None}


def test_estimnet_estimate_averages_the_rows_estimnet_writes():
    # EstimNet writes θ at t = 0, 100, 200, ... and its R script keeps t > 10,000:
    # on a run to t = 21,700 that is t = 10,100 .. 21,700 (117 rows)
    assert ESTIMNET_BURNIN == 10_001
    res = _chain_summary(_chain(21_701, 100), ESTIMNET_BURNIN, 100)
    want = np.arange(10_100, 21_701, 100)
    assert res["estimnet"]["rows"] == len(want) == 117
    np.testing.assert_array_equal(res["estimnet"]["estimate"], [want.mean(), 2 * want.mean()])
    # stored rows thinned to every 50th iteration: the same rows
    res = _chain_summary(_chain(21_701, 100, 50), ESTIMNET_BURNIN, 100)
    assert res["estimnet"]["rows"] == 117
    np.testing.assert_array_equal(res["estimnet"]["estimate"], [want.mean(), 2 * want.mean()])
    # a fractional burn-in that is no multiple of the outer iteration: still t = 0 mod inner
    res = _chain_summary(_chain(1000, 30), 0.2, 30)
    want = np.arange(210, 1000, 30)
    np.testing.assert_array_equal(res["estimnet"]["estimate"], [want.mean(), 2 * want.mean()])


def test_burnin_beyond_a_million_dyads_is_the_r_scripts():
    g = nx.DiGraph()
    g.add_nodes_from(range(1001))                      # 1,001,000 ordered dyads
    g.add_edges_from((i, (i + 1) % 1001) for i in range(1001))
    model = ef.ERGM(ef.Network.from_networkx(g), "edges + mutual")
    cfg = EE(ee_steps=200, ee_inner_steps=100).resolved_settings(model)
    assert cfg["burnin"] == 10_001
    cfg = EE(ee_steps=1000, ee_inner_steps=100).resolved_settings(model)
    assert cfg["burnin"] == 20_000
