"""The exact MRF fit (method="exact") detects an MLE that does not exist
(issue #23): a linear program over all states (exact.mle_direction, the one
check asuncion_vbm and vickrey_chain also use) raises DegenerateModelError,
as the ERGM estimators do (ergmfit.estimation.mple.existence)."""
import numpy as np
import pytest

from ergmfit.exceptions import DegenerateModelError
from ergmfit.mrf import IsingModel, exact


def _chain():
    return IsingModel((4, [(0, 1), (1, 2), (2, 3)]), coding="01", tied=True, fields=True)


def _counts(X):
    return np.bincount(exact.state_index(X), minlength=16).astype(float)


def test_only_the_constant_states_observed_no_mle():
    """(field, coupling) of 0000 and 1111 are (0, 0) and (4, 3): their mean is on the
    boundary of the hull of all 16 states; before, Newton returned a point on the ridge."""
    m = _chain()
    X = np.array([[0, 0, 0, 0]] * 3 + [[1, 1, 1, 1]] * 5, dtype=np.uint8)
    G = exact.all_statistics(m.compiled())
    d = exact.mle_direction(G, _counts(X))
    assert d is not None
    gbar = _counts(X) @ G / len(X)
    assert np.all((G - gbar) @ d <= 1e-9) and np.any((G - gbar) @ d < -1e-6)
    with pytest.raises(DegenerateModelError, match="does not exist.*combination.*field.*coupling"):
        m.fit(X, method="exact")
    # asked to, the exact fit returns Newton's stopping point on the ridge (not an estimate)
    assert np.all(np.isfinite(exact.ExactLikelihood(nonexistent="ignore").fit(m, X).params))


def test_a_statistic_at_its_extreme_is_named():
    m = _chain()
    X = np.array([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 1], [1, 0, 1, 0], [0, 0, 1, 0]],
                 dtype=np.uint8)                      # never two adjacent 1s: coupling = 0
    with pytest.raises(DegenerateModelError, match="'coupling' -> -Inf|coupling -> -Inf"):
        m.fit(X, method="exact")


def test_an_existing_mle_is_fitted_as_before():
    m = _chain()
    X = m.sample(400, theta=np.array([0.2, 0.5]), random_state=1)
    G = exact.all_statistics(m.compiled())
    c = _counts(X)
    c[5] = 0.0                                        # an inner state unobserved: still exists
    assert exact.mle_direction(G, c) is None
    th = m.fit(X, method="exact").coef_
    assert np.all(np.abs(th - [0.2, 0.5]) < 0.5)
