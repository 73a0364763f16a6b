"""The steps every likelihood estimator takes through the model's parameterisation
(issue #31): ``par.is_step``, ``par.eta_change``, ``par.projector`` and
``par.times_jacobian`` are the identity's plain importance-sampling step and the
curved map's step through η(θ), so that an estimator never asks which it has."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.terms.parameter_steps import MAX_DECAY_STEP, weighted_moments
from ergmfit.terms.parameterisation import Identity


def _sample(q, seed, n=400):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, q)) @ rng.normal(size=(q, q)) + 0.1 * rng.normal(size=q)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_identity_step_solves_the_importance_sampling_equation(seed):
    # the maximiser of η·ξ − log mean exp(η·z_i): the weighted mean of z equals ξ
    Z = _sample(3, seed)
    target = 0.5 * Z.mean(axis=0)
    par = Identity(["a", "b", "c"])
    step, capped = par.is_step(Z, target, np.zeros(3))
    _, mu, _ = weighted_moments(Z @ step, Z)
    assert not capped and np.allclose(mu, target, atol=1e-5 * Z.std())
    assert par.eta_change(np.ones(3), step) is step
    assert par.projector(np.ones(3))(Z) is Z and par.times_jacobian(Z, np.ones(3)) is Z


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_curved_step_solves_the_equation_in_theta(seed):
    # a curved map: at an uncapped step the score in θ, J(θ)'(ξ − μ_w), is zero
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + gwesp(fixed=FALSE)")
    par = m.parameterisation
    theta = np.array([-2.0, 0.3, 0.7])
    Z = _sample(par.n_stats, seed)
    Z[:, 1 + par.n_stats // 2:] = 0.0           # high shared-partner counts: none
    target = 0.9 * Z.mean(axis=0)
    step, capped = par.is_step(Z, target, theta)
    d = par.eta_change(theta, step)
    assert np.allclose(d, par.eta(theta + step) - par.eta(theta))
    _, mu, _ = weighted_moments(Z @ d, par.times_jacobian(Z, theta + step))
    score = par.jacobian(theta + step).T @ target - mu
    if capped:
        assert abs(step[2]) == pytest.approx(MAX_DECAY_STEP)
    else:
        assert np.max(np.abs(score)) < 1e-6 * (1 + np.max(np.abs(mu)))


def test_a_linear_model_has_no_decays_to_report():
    par = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle").parameterisation
    assert par.curved_terms == () and par.decay_indices() == []
    assert par.decay_messages(np.array([-1.0, 0.2])) == []
