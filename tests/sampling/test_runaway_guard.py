"""The runaway guard of the compiled sampler (#24 item 10): a chain whose tie
count grows without bound stops with a DegenerateModelError naming the model;
a normal chain is unchanged (same seed, same draws)."""
import re

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import DegenerateModelError, SettingsError
from ergmfit.sampling import _mh
from ergmfit.sampling.chains import run_chains, runaway_guard
from support.valued_networks import random_count_graph


def _proposals_before_stop(message):
    found = re.search(r"ran away after ([0-9,]+) proposals", message)
    assert found, message
    return int(found.group(1).replace(",", ""))


@pytest.fixture(scope="module")
def model():
    return ef.ERGM(nx.gnm_random_graph(2000, 2000, seed=1), "edges + triangle")


def test_runaway_simulate_stops_quickly(model):
    with runaway_guard(min_ties=20_000):
        with pytest.raises(DegenerateModelError) as err:
            # degenerate: the chain fills the network (ties would grow to ~2 M)
            model.simulate([-1.0, 0.5], n=200, burnin=0, interval=100_000, output="stats",
                           random_state=1)
    msg = str(err.value)
    # stopped at the first check past the ceiling (checks every 2^16 proposals),
    # not after the 2 x 10^7 proposals asked for
    assert _proposals_before_stop(msg) <= 2 * 2**16
    assert "ran away" in msg and "edges + triangle" in msg and "2,000 observed ties" in msg
    assert "runaway_guard" in msg and "degenerate" in msg
    assert err.value.retryable           # MCMC-MLE falls back from it


def test_runaway_in_chains_and_cd_sampler(model):
    # run_chains (MCMC-MLE, gof) and a sampler made without the model's name
    with runaway_guard(min_ties=20_000):
        with pytest.raises(DegenerateModelError, match="ran away"):
            run_chains(model, np.array([-1.0, 0.5]), 10, 0, 100_000, random_state=2)
        sampler, _ = model.sampler([-1.0, 0.5], random_state=3)
        sampler.description = None
        with pytest.raises(DegenerateModelError, match="the Markov chain ran away"):
            sampler.run(np.array([-1.0, 0.5]), 10**7)


def test_default_ceiling(model):
    sampler, _ = model.sampler([-8.0, 0.0], random_state=1)
    assert sampler.reference_ties == 2000
    assert sampler.max_ties == 1_000_000                 # max(10^6, 4 x 2000)
    with runaway_guard(factor=4, min_ties=0, memory=None):
        s2, _ = model.sampler([-8.0, 0.0], random_state=1)
        assert s2.max_ties == 8000 and s2.max_rss_kb == 0
        s2.set_guard(reference_ties=10_000)
        assert s2.max_ties == 40_000
    with runaway_guard(factor=None):
        assert model.sampler([-8.0, 0.0], random_state=1)[0].max_ties == 0
    assert _mh.RUNAWAY_GUARD == {"factor": 4.0, "min_ties": 1_000_000, "memory": 4 * 2**30,
                                "min_value": 10_000, "min_total": 1_000_000}
    s3, _ = model.sampler([-8.0, 0.0], random_state=1)
    assert s3.max_rss_kb == 0 or s3.max_rss_kb >= _mh.peak_memory_kb() + 4 * 2**20 - 1
    with pytest.raises(SettingsError):
        with runaway_guard(factor=-1):
            pass


def test_guard_changes_no_draw(model):
    # a normal chain: the guard draws no random number and stops nothing
    theta = [-7.6, 0.2]
    a = model.simulate(theta, n=20, burnin=5000, interval=2000, output="stats", random_state=4)
    with runaway_guard(factor=None, memory=None):
        b = model.simulate(theta, n=20, burnin=5000, interval=2000, output="stats",
                           random_state=4)
    np.testing.assert_array_equal(a, b)
    with runaway_guard(factor=1.5, min_ties=0):        # a tight ceiling it never reaches
        c = model.simulate(theta, n=20, burnin=5000, interval=2000, output="stats",
                           random_state=4)
    np.testing.assert_array_equal(a, c)
    assert a[:, 0].max() < 3000


def test_guard_reaches_parallel_workers(model):
    with runaway_guard(min_ties=20_000):
        with pytest.raises(DegenerateModelError, match="ran away"):
            run_chains(model, np.array([-1.0, 0.5]), 4, 0, 100_000, n_chains=2, n_jobs=2,
                       random_state=2)


def test_default_ceiling_stops_a_filling_chain():
    # the defaults: 10^6 ties (2,000 nodes, 2 M dyads, edges = +1 fills 73% of them)
    m = ef.ERGM(nx.gnm_random_graph(2000, 2000, seed=1), "edges")
    with pytest.raises(DegenerateModelError, match=r"past the ceiling of 1,000,000") as err:
        m.simulate([1.0], n=10, burnin=0, interval=10**7, output="stats", random_state=1)
    # ~1.0 M ties take ~2.0 M proposals; stopped there, not after the 10^8 asked for
    assert _proposals_before_stop(str(err.value)) <= 2_100_000


# -- count-valued models: values that climb without bound (an improper model) -------------
def _valued(seed=1, n=10):
    return random_count_graph(n, True, seed, 0.3, 4)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_improper_count_model_stops_naming_the_cause(seed):
    # sum with a positive coefficient under Geometric: no normalising constant
    m = ef.ERGM(_valued(seed), "sum", response="w", reference="Geometric")
    with runaway_guard(min_value=200):
        with pytest.raises(DegenerateModelError) as err:
            m.simulate([0.5], n=100, burnin=0, interval=10**6, output="stats", random_state=seed)
    msg = str(err.value)
    assert "not proper" in msg and "Geometric" in msg and "'sum'" in msg
    assert "past the ceiling of 200" in msg and "min_value" in msg
    assert _proposals_before_stop(msg) < 10**7      # stopped long before the 10^8 asked for
    assert err.value.retryable and err.value.runaway


def test_count_total_ceiling_and_the_bounded_reference():
    g = _valued(4)
    m = ef.ERGM(g, "sum", response="w", reference="Poisson")
    with runaway_guard(min_value=10**12, min_total=2_000):
        s, cm = m.sampler([4.0], random_state=1)    # proper, but a mean of e^4 per dyad
        assert s.max_total == 2_000 and s.max_value == 10**12
        with pytest.raises(DegenerateModelError, match="sum of the values grew"):
            s.run(np.array([4.0]), 10**7)
    b = ef.ERGM(g, "sum", response="w", reference="Binomial(4)")
    s, _ = b.sampler([0.0], random_state=1)
    assert s.max_value == s.max_total == 2**63 - 1      # a bounded support cannot run away
    p, _ = m.sampler([0.0], random_state=1)
    assert p.start_max_value == max(d["w"] for _, _, d in g.edges(data=True))
    assert p.max_value == 10_000 and p.max_total == 1_000_000   # the defaults' floors


def test_count_guard_in_cd_sample_restores_the_state():
    m = ef.ERGM(_valued(5), "sum", response="w", reference="Geometric")
    with runaway_guard(min_value=100):
        s, cm = m.sampler([0.5], random_state=2)
        before = cm.state.nonzero()
        with pytest.raises(DegenerateModelError, match="not proper"):
            s.cd_sample(np.array([0.5]), 3, 10**6)
    after = cm.state.nonzero()
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])


def test_count_guard_changes_no_draw_of_a_proper_model():
    m = ef.ERGM(_valued(6), "sum + nonzero", response="w", reference="Poisson")
    a = m.simulate([0.2, -0.5], n=20, burnin=1000, interval=500, output="stats", random_state=3)
    with runaway_guard(factor=None):
        b = m.simulate([0.2, -0.5], n=20, burnin=1000, interval=500, output="stats",
                       random_state=3)
    np.testing.assert_array_equal(a, b)
