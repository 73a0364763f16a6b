"""Posterior predictive gof of a Bayesian fit (Bergm's bgof): every network
from its own chain started at the observed network, in parallel or not."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.gof import gof


@pytest.fixture(scope="module")
def fit():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    return m.fit(method="bayes", random_state=1, main_iters=100, aux_iters=300)


def test_every_network_has_its_own_chain_from_the_observed_network(fit):
    g = fit.gof(n_sim=12, random_state=4, statistics=["model", "degree"])
    rows, seeds, steps = fit._predictive_plan(12, 4, None)
    assert steps == 300 == g.interval and g.n_sim == 12
    model = fit.rebuild_model()
    for s in (0, 5, 11):        # network s: `steps` proposals at row s from the observed network
        one = gof(model, rows[s:s + 1], n_sim=1, burnin=0, interval=steps,
                  random_state=int(seeds[s]), statistics=["model", "degree"])
        np.testing.assert_array_equal(g["model"].sim[s], one["model"].sim[0])
        k = len(one["degree"].labels)
        np.testing.assert_array_equal(g["degree"].sim[s, :k], one["degree"].sim[0])
        assert not g["degree"].sim[s, k:].any()
    with pytest.raises(ValueError, match="steps="):
        fit.gof(n_sim=3, interval=10)


def test_parallel_gof_gives_the_same_networks(fit):
    a = fit.gof(n_sim=6, random_state=2, steps=200)
    b = fit.gof(n_sim=6, random_state=2, steps=200, n_jobs=2)
    for block in a:
        assert block.labels == b[block.name].labels
        np.testing.assert_array_equal(block.sim, b[block.name].sim)
        np.testing.assert_array_equal(block.pvalue, b[block.name].pvalue)
