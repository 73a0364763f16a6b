"""Same seed, same EE fit: on a network of more than ``max_dyads`` (2^26) dyads the MPLE
start (``init="mple"``) fits a case-control sample of the non-ties, which EE used to draw
unseeded, so two fits with the same ``random_state`` started apart and ended with other
estimates, standard errors and ``converged`` flags (session 16, Epinions model on a
10,000-node network)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.ee.start import mple_start
from ergmfit.estimation.mcmle.start import initial_estimate
from ergmfit.estimation.mple.pseudolikelihood import DEFAULT_MAX_DYADS

N_NODES = 9000          # 81 million ordered pairs > 2^26: the MPLE samples its non-ties


@pytest.fixture(scope="module")
def big_sparse():
    rng = np.random.default_rng(5)
    ties = np.unique(rng.integers(0, N_NODES, size=(20000, 2)), axis=0)
    net = ef.Network(N_NODES, ties[ties[:, 0] != ties[:, 1]], True)
    assert N_NODES * (N_NODES - 1) > DEFAULT_MAX_DYADS
    return net


def _fit(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(method="ee", random_state=1, init="mple", ee_steps=2, **kw)


@pytest.mark.parametrize("formula", [
    "Arc + AltInStars + AltOutStars + AltKTrianglesT",      # theta = eta: the MPLE
    "Arc + gwidegree(0.5, fixed=FALSE)",                    # curved: MCMC-MLE's start
])
def test_same_seed_same_mple_start_and_fit(big_sparse, formula):
    model = ef.ERGM(big_sparse, formula)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        starts = [mple_start(model, np.random.default_rng(1), initial_estimate)
                  for _ in range(2)]
    np.testing.assert_array_equal(starts[0], starts[1])
    a, b = _fit(model), _fit(model)
    np.testing.assert_array_equal(a.params, b.params)
    np.testing.assert_array_equal(a.bse, b.bse)
    assert a.converged == b.converged
