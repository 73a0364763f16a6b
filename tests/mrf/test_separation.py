"""The MRF pseudo-/composite-likelihood estimators detect an objective with no
finite maximiser (separation) and say so (issue #23 items 1 and 3)."""
import warnings

import numpy as np
import pytest

from ergmfit.exceptions import ConvergenceWarning, DegenerateModelError
from ergmfit.mrf import GridCRF, IsingModel, data
from ergmfit.mrf.contrastive import ContrastiveObjective, ccg

CHAIN = (5, [(0, 1), (1, 2), (2, 3), (3, 4)])


def constant_rows(n=5):
    return np.vstack([np.zeros((30, n), np.uint8), np.ones((70, n), np.uint8)])


def test_contrastive_objective_one_parameter():
    # log P(x | {x, x'}) with g(x') - g(x) = -1 for every example: theta -> +Inf
    obj = ContrastiveObjective(1)
    obj.add([[-1.0]], weight=3.0)
    obj.add([[-2.0]])
    np.testing.assert_array_equal(obj.separation_direction(), [1.0])
    with pytest.raises(DegenerateModelError, match=r"theta -> \+Inf"):
        obj.maximize(labels=["theta"])
    with pytest.warns(ConvergenceWarning, match="no finite maximiser"):
        th, _, r = obj.maximize(separation="warn", labels=["theta"])
    assert th[0] == np.inf and r["separation"][0] == 1.0
    th, _, r = obj.maximize(separation="ignore")                # where L-BFGS stopped
    assert np.isfinite(th[0]) and th[0] > 5
    # one example the other way round: a finite maximiser, log(3 / 1)
    obj.add([[1.0]])
    assert obj.separation_direction() is None
    th, _, r = ContrastiveObjective(1), None, None
    obj2 = ContrastiveObjective(1)
    obj2.add([[-1.0]], weight=3.0)
    obj2.add([[1.0]])
    th, _, r = obj2.maximize()
    assert r["separation"] is None and abs(th[0] - np.log(3)) < 1e-6
    with pytest.raises(ValueError, match="separation must be one of"):
        obj2.maximize(separation="off")


def test_combination_direction_is_an_error_even_with_warn():
    # only d = (1, 1) separates: neither coefficient alone does
    obj = ContrastiveObjective(2)
    obj.add([[-1.0, 0.5]])
    obj.add([[0.5, -1.0]])
    d = obj.separation_direction()
    assert d is not None and np.count_nonzero(d) == 2 and np.all(d > 0)
    with pytest.raises(DegenerateModelError, match="the combination"):
        obj.maximize(separation="warn", labels=["a", "b"])


@pytest.mark.parametrize("method,kw", [("pl", {}), ("cl", {"block_size": 2})])
def test_ising_fit_on_constant_states_says_no_estimate(method, kw):
    m = IsingModel(CHAIN, coding="01")
    with pytest.raises(DegenerateModelError, match="does not exist"):
        m.fit(constant_rows(), method=method, **kw)
    X = m.sample(300, theta=[0.2, 0.4], random_state=1)          # varied data: finite
    assert np.all(np.isfinite(m.fit(X, method=method, **kw).coef_))


def test_crf_with_clean_labels_has_no_pl_estimate():
    """asuncion_crf.py: with clean chessboard labels every pixel agrees with at
    least half of its neighbours, so the edge coupling has no finite estimate."""
    Y, X = data.chessboard_pairs(4, size=12, squares=2, sigma=1.0, random_state=0)
    with pytest.raises(DegenerateModelError, match=r"edge.*\+Inf|does not exist"):
        GridCRF((12, 12)).fit(Y, X, method="pl")


def test_ccg_warns_and_reports_the_direction():
    m = IsingModel(CHAIN, coding="01")
    with pytest.warns(ConvergenceWarning, match="CCG: .*no finite maximiser"):
        r = ccg(m, constant_rows(), map_method="max_product")
    assert r["separation"] is not None and r["separation"][1] > 0      # the coupling
    X = m.sample(300, theta=[0.2, 0.4], random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert ccg(m, X, map_method="max_product")["separation"] is None
