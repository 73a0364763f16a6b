"""Ctrl-C during gof (#24): the tables come back for the networks finished,
marked interrupted, instead of nothing."""
import warnings

import pytest

import ergmfit as ef
from ergmfit.gof import gof
from support.interrupts import sigint_soon


def test_gof_returns_the_networks_finished(default_sigint):
    m = ef.ERGM(ef.datasets.load_network("faux.magnolia.high"),
                "edges + nodematch('Grade') + gwesp(0.25, fixed=True)")
    theta = [-8.7299, 2.7508, 1.9033]
    timer = sigint_soon(1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = gof(m, theta, n_sim=10**5, burnin=1000, interval=200000,
                     statistics="model + degree", random_state=1)   # hours of work
    timer.join()
    assert res.interrupted and 0 < res.n_sim < 10**5
    assert res["model"].sim.shape[0] == res.n_sim
    assert any("interrupted" in str(w.message) for w in caught)
    assert "model" in str(res)                      # the tables print


def test_gof_interrupted_before_any_network_raises(default_sigint):
    m = ef.ERGM(ef.datasets.load_network("faux.magnolia.high"),
                "edges + gwesp(0.25, fixed=True)")
    timer = sigint_soon(0.3)
    with pytest.raises(KeyboardInterrupt):
        gof(m, [-8.0, 1.8], n_sim=2, burnin=10**9, interval=1, random_state=1)
    timer.join()


def test_uninterrupted_gof_is_not_marked():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    res = gof(m, [-1.7, 0.15], n_sim=5, random_state=1)
    assert not res.interrupted and res.n_sim == 5
