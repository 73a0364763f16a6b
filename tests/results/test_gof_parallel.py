"""gof and simulate over independent chains, serial or parallel (#22 item 3): the
same seed gives the same result whatever n_jobs (joblib, dask); one chain gives
what a plain run gives.  gof with missing dyads averages the observed summaries
over draws of the missing dyads, as statnet's gof (#18)."""
import numpy as np
import pytest

import ergmfit as ef

FAST = {"burnin": 2000, "interval": 300}


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")


def _same(a, b):
    assert list(a.blocks) == list(b.blocks)
    for name in a.blocks:
        assert np.array_equal(a[name].sim, b[name].sim), name
        assert np.array_equal(a[name].obs, b[name].obs), name


def test_gof_one_chain_is_the_plain_gof(flo):
    a = ef.gof.gof(flo, [-1.7, 0.2], n_sim=12, random_state=3, **FAST)
    b = ef.gof.gof(flo, [-1.7, 0.2], n_sim=12, random_state=3, n_chains=1, n_jobs=2,
                   backend="threading", **FAST)
    _same(a, b)


def test_gof_chains_same_result_serial_and_dask(flo):
    distributed = pytest.importorskip("distributed")
    ref = ef.gof.gof(flo, [-1.7, 0.2], n_sim=12, random_state=5, n_chains=3, **FAST)
    # processes=False: an in-process cluster (inproc:// transport, no network)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        par = ef.gof.gof(flo, [-1.7, 0.2], n_sim=12, random_state=5, n_chains=3, n_jobs=2,
                         backend="dask", **FAST)
        sim = flo.simulate([-1.7, 0.2], n=6, output="stats", random_state=5, n_chains=3,
                           n_jobs=2, backend="dask", **FAST)
    _same(ref, par)
    assert np.array_equal(sim, flo.simulate([-1.7, 0.2], n=6, output="stats", random_state=5,
                                            n_chains=3, **FAST))
    # three chains are not one chain
    one = ef.gof.gof(flo, [-1.7, 0.2], n_sim=12, random_state=5, **FAST)
    assert not np.array_equal(one["model"].sim, ref["model"].sim)


def test_simulate_chains(flo):
    plain = flo.simulate([-1.7, 0.2], n=4, output="networks", random_state=9, **FAST)
    one = flo.simulate([-1.7, 0.2], n=4, output="networks", random_state=9, n_jobs=2,
                       backend="threading", **FAST)
    assert [sorted(map(tuple, a.ties)) for a in plain] == [sorted(map(tuple, b.ties)) for b in one]
    two = flo.simulate([-1.7, 0.2], n=5, output="stats", random_state=9, n_chains=2, **FAST)
    thr = flo.simulate([-1.7, 0.2], n=5, output="stats", random_state=9, n_chains=2, n_jobs=2,
                       backend="threading", **FAST)
    assert two.shape == (5, 2) and np.array_equal(two, thr)
    g = flo.simulate([-1.7, 0.2], n=3, random_state=9, n_chains=2, **FAST)
    assert len(g) == 3 and g[0].number_of_nodes() == 16


def test_gof_with_missing_dyads_averages_over_imputations():
    g = ef.datasets.load("flomarriage")
    net = ef.ERGM(g, "edges").network
    # ten unobserved dyads; at a high edges coefficient most of them get filled
    missing = [(net.labels[i], net.labels[j]) for i, j in
               [(0, 3), (0, 5), (1, 4), (2, 9), (3, 7), (4, 11), (5, 12), (6, 14), (7, 15),
                (8, 10)]]
    m = ef.ERGM(g, "edges", missing=missing)
    observed_edges = m.statistics_vector()[0]
    res = ef.gof.gof(m, [3.0], n_sim=20, random_state=2, **FAST)
    obs = res["model"].obs[0]
    assert observed_edges + 6 < obs <= observed_edges + 10      # p = 0.95 per missing dyad
    assert obs != int(obs)                                      # an average of imputations
    deg = res["degree"].obs
    assert abs(deg.sum() - net.n) < 1e-9                        # a mean degree distribution
    # the simulated networks are unconditional: no observed dyad is kept
    assert res["model"].sim.mean() > 100
    again = ef.gof.gof(m, [3.0], n_sim=20, random_state=2, n_chains=2, n_jobs=2,
                       backend="threading", **FAST)
    ref = ef.gof.gof(m, [3.0], n_sim=20, random_state=2, n_chains=2, **FAST)
    _same(again, ref)
