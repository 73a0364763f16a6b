"""ContrastiveConstraintGeneration (method="ccg"): CCG on the compiled instances of the
estimators' protocol, so that a CRF's examples get instantiations from their own
conditional models."""
import warnings

import networkx as nx
import numpy as np
import pytest

from ergmfit.exceptions import SettingsError
from ergmfit.mrf import GridCRF, IsingModel, data
from ergmfit.mrf.contrastive import (ContrastiveConstraintGeneration, ContrastiveObjective,
                                     ccg, pseudo_likelihood_objective)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_on_one_instance_it_is_the_ccg_function(seed):
    """An MRF is one instance: the estimator's rounds are those of ccg() with ICM (same
    random draws), so the estimates agree to the last bit and so do the round counts."""
    m = IsingModel(nx.path_graph(6))
    X = m.sample(80, theta=[0.2, 0.6], random_state=seed)
    ref = ccg(m, X, random_state=seed + 10)
    res = ContrastiveConstraintGeneration(random_state=seed + 10).fit(m, X)
    assert np.array_equal(np.asarray(res.params), ref["theta"])
    assert res.n_iter == ref["n_rounds"] and res.converged == ref["converged"]
    assert np.isclose(res.loglik, ref["objective"])
    assert res.info["n_instantiations"] == sum(len(s) for s in ref["sets"])


def test_empty_init_without_new_states_is_the_zero_objective():
    """init='empty' and data that ICM always reproduces (every example is the model's only
    local maximum under theta0): no sub-objective, theta stays at theta0, converged."""
    m = IsingModel(nx.path_graph(4))
    X = np.ones((5, 4), dtype=int)
    res = ContrastiveConstraintGeneration(init="empty", theta0=[3.0, 1.0],
                                          random_state=0).fit(m, X)
    assert res.converged and res.n_iter == 1 and res.info["n_instantiations"] == 0
    assert np.allclose(res.params, [3.0, 1.0]) and res.loglik == 0.0


def test_crf_instantiations_come_from_each_examples_own_model():
    """On a GridCRF the objective at the estimate is PL plus one sub-objective per image
    whose set holds instantiations of that image's conditional model: rebuilding the PL
    part from the package's PL objective of each image, the CCG part is what remains and
    is < 0 (logs of conditional probabilities, some sets non-trivial)."""
    Y, X = data.segmentation_pairs(4, shape=(5, 5), random_state=3)
    crf = GridCRF((5, 5))
    res = ContrastiveConstraintGeneration(random_state=1, max_rounds=5).fit(crf, Y, X)
    theta = np.asarray(res.params)
    assert np.all(np.isfinite(theta)) and res.info["n_instantiations"] > 0
    pl = 0.0
    for (bm, x, _) in crf.observations(Y, X):
        model_like = _OneInstance(bm)
        pl += pseudo_likelihood_objective(model_like, x).value_and_grad(theta)[0]
    assert res.loglik < pl + 1e-9          # the CCG sub-objectives add log-probabilities <= 0


class _OneInstance:
    """The LinearMRF interface pseudo_likelihood_objective reads, around one compiled model."""

    def __init__(self, bm):
        self.bm, self.n_vars, self.n_stats = bm, bm.n_vars, len(bm.statistics())

    def compiled(self):
        return self.bm


def test_gibbs_instantiations_and_same_seed():
    # short-range regions: some pixels disagree with most neighbours (a finite maximiser)
    Y, X = data.segmentation_pairs(3, shape=(6, 6), length_scale=0.7, random_state=0)
    crf = GridCRF((6, 6))
    a = ContrastiveConstraintGeneration(instantiation="gibbs", n_sweeps=2, max_rounds=4,
                                        random_state=5).fit(crf, Y, X)
    b = ContrastiveConstraintGeneration(instantiation="gibbs", n_sweeps=2, max_rounds=4,
                                        random_state=5).fit(crf, Y, X)
    assert np.array_equal(np.asarray(a.params), np.asarray(b.params))
    assert a.info["n_instantiations"] > 0 and a.info["separation"] is None


def test_through_the_model_and_the_model_unchanged():
    Y, X = data.segmentation_pairs(3, shape=(6, 6), length_scale=0.7, random_state=1)
    Y0, X0 = Y.copy(), X.copy()
    crf = GridCRF((6, 6), random_state=2)
    crf.fit(Y, X, method="ccg", max_rounds=3)
    assert crf.method_ == "ccg" and crf.n_rounds_ >= 1 and crf.coef_.shape == (4,)
    assert np.array_equal(Y, Y0) and np.array_equal(X, X0)
    with pytest.raises(SettingsError, match="instantiation"):
        crf.fit(Y, X, method="ccg", instantiation="mp")


def test_separation_is_reported():
    """Only the two constant states observed on a path: PL and the CCG sets have no finite
    maximiser (coupling -> inf); a ConvergenceWarning says so and info names the direction."""
    m = IsingModel(nx.path_graph(4))
    X = np.array([[1, 1, 1, 1], [0, 0, 0, 0]] * 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = ContrastiveConstraintGeneration(random_state=0, max_rounds=5).fit(m, X)
    assert res.info["separation"] is not None
    assert any("no finite maximiser" in str(x.message) for x in w)
