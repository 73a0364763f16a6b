"""The cost of a curved MCMC-MLE fit (#17): where it differs from a linear fit's.

* A curved fit's first sample is drawn at the smallest interval (``min_interval``,
  by default a quarter of ``interval``), a pilot kept when it has the effective
  draws every sample aims at (else forgotten: same draws as without it): at 1024 the
  first sample of the Lazega model had ~450 effective draws where 64 are the target.
  A linear fit (and a curved one whose decays are all fixed, which is linear)
  keeps its first interval and with it its draws.
* The products by the Jacobian are matrix-vector products (``times_jacobian``),
  equal to Z @ J.
"""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.common.curved import first_interval, first_sample_ok
from ergmfit.terms.parameter_steps import times_jacobian

BASE = ("edges + {} + nodecov('seniority') + nodecov('practice') + nodematch('practice') + "
        "nodematch('gender') + nodematch('office')")


@pytest.fixture(scope="module")
def lazega():
    return ef.datasets.load("lazega")


def _first(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(method="mcmle", random_state=3, verbose=False, maxit=1,
                        eval_loglik=False, **kw)
    return fit.info["history"][0]["interval"]


def test_curved_fit_starts_at_the_smallest_interval(lazega):
    curved = ef.ERGM(lazega, BASE.format("gwesp(fixed=FALSE)"))
    assert _first(curved) == 256
    assert _first(curved, interval=2048) == 512
    # a pilot short of the effective draws every sample needs is burn-in: the
    # first sample is drawn again at the configured interval
    assert _first(curved, target_ess=10**6) == 1024


def test_a_forgotten_pilot_leaves_no_trace(lazega):
    # the pilot short of effective draws: the fit is the one without a pilot
    # (min_interval = interval), the same draws to rounding
    curved = ef.ERGM(lazega, BASE.format("gwesp(fixed=FALSE)"))
    kw = dict(method="mcmle", random_state=4, verbose=False, maxit=1, eval_loglik=False,
              target_ess=10**6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = curved.fit(**kw)
        b = curved.fit(min_interval=1024, **kw)
    assert a.info["history"][0]["interval"] == b.info["history"][0]["interval"] == 1024
    np.testing.assert_allclose(np.asarray(a.params), np.asarray(b.params), rtol=0, atol=1e-10)


def test_linear_and_decay_fixed_fits_keep_their_first_interval(lazega):
    fixed = ef.ERGM(lazega, BASE.format("gwesp(log(3), fixed=TRUE)"))
    assert _first(fixed) == 1024
    offset = ef.ERGM(lazega, BASE.format("offset(gwesp(fixed=FALSE), 2)"))
    assert _first(offset, offset_coef=[np.log(3)]) == 1024


def test_first_interval_and_pilot_rule(lazega):
    assert first_interval(1024, 256) == 256
    assert first_interval(100, 256) == 100
    m = ef.ERGM(lazega, BASE.format("gwesp(fixed=FALSE)"))
    rng = np.random.default_rng(2)
    theta = np.array([-7.3, 0.9, 0.78, 0.024, 0.41, 0.76, 0.71, 1.14])
    draws = [rng.normal(size=(1000, len(m.stat_labels)))]        # independent draws
    assert first_sample_ok(m.parameterisation, theta, draws, 64, 0.5)
    assert not first_sample_ok(m.parameterisation, theta, draws, 2000, 0.5)
    slow = [np.cumsum(d, axis=0) for d in draws]                  # a random walk
    assert not first_sample_ok(m.parameterisation, theta, slow, 64, 0.5)


def test_times_jacobian_is_the_matrix_product():
    rng = np.random.default_rng(1)
    Z, J = rng.normal(size=(300, 31)), rng.normal(size=(31, 8))
    np.testing.assert_allclose(times_jacobian(Z, J), Z @ J, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(times_jacobian(Z[0], J), Z[0] @ J, rtol=1e-12, atol=1e-12)
    assert times_jacobian(Z, J).shape == (300, 8)
