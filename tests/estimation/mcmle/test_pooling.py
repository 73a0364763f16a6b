"""MCMC-MLE's steps on the pooled draws of its last samples (``pool_samples``, mixture
importance sampling: :mod:`ergmfit.estimation.mcmle.pooling`)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mcmle.estimator import MCMLE
from ergmfit.estimation.mcmle.pooling import mixture_weights, pooled_sample
from ergmfit.exceptions import SettingsError


def _poisson_samples(rng, log_means, n=3000):
    return [rng.poisson(np.exp(m), (n, 1)).astype(float) for m in log_means]


def test_the_weights_are_those_of_the_exact_mixture():
    # Poisson draws (g(x) = x, Z(η) = exp(e^η)): the estimated normalising constants give
    # the weights the exact ones give, to the estimate's own error
    rng = np.random.default_rng(1)
    etas = [np.zeros(1), np.full(1, 0.4), np.full(1, 0.8)]
    samples = _poisson_samples(rng, [0.0, 0.4, 0.8])
    G = np.concatenate(samples)[:, 0]
    w = mixture_weights(etas, samples, np.full(1, 0.5))
    log_den = np.log(sum(len(s) * np.exp(e[0] * G - np.exp(e[0])) for e, s in zip(etas, samples)))
    exact = np.exp(0.5 * G - log_den)
    exact /= exact.sum()
    assert np.max(np.abs(w - exact)) < 1e-3 * np.max(exact) * 50
    assert abs(w @ G - exact @ G) < 0.01
    assert abs(w @ G - np.exp(0.5)) < 0.05            # E[x] at log-mean 0.5


def test_one_sample_weighs_as_ordinary_importance_sampling():
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(500, 2))
    eta = np.array([0.2, -0.1])
    a = Z @ eta
    plain = np.exp(a - a.max())
    assert np.allclose(mixture_weights([np.zeros(2)], [Z], eta), plain / plain.sum())


def test_far_samples_weigh_nothing():
    rng = np.random.default_rng(3)
    samples = _poisson_samples(rng, [3.0, 0.0], n=1000)
    w = mixture_weights([np.full(1, 3.0), np.zeros(1)], samples, np.zeros(1))
    assert w[:1000].sum() < 0.01 and w[1000:].sum() > 0.99


def test_the_resample_is_seeded_and_centred():
    etas = [np.zeros(1), np.full(1, 0.3)]
    samples = _poisson_samples(np.random.default_rng(4), [0.0, 0.3])
    a, ess_a = pooled_sample(etas, samples, np.full(1, 0.3), np.random.default_rng(5))
    b, ess_b = pooled_sample(etas, samples, np.full(1, 0.3), np.random.default_rng(5))
    assert np.array_equal(a, b) and ess_a == ess_b and len(a) == 6000
    assert abs(a.mean() - np.exp(0.3)) < 0.05 and 3000 < ess_a < 6000


@pytest.mark.parametrize("bad", [0, -1, 1.5, "four"])
def test_a_bad_pool_is_refused(bad):
    with pytest.raises(SettingsError, match="pool_samples"):
        MCMLE(pool_samples=bad)


def test_the_fit_steps_on_the_pooled_draws():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pooled = m.fit("mcmle", random_state=1, eval_loglik=False, pool_samples=3)
    recs = [h for h in pooled.info["history"] if "pooled" in h]
    assert recs and all(2 <= h["pooled"] <= 3 and h["pooled_ess"] > 0 for h in recs)
    # the last (boosted) sample is used alone: the estimate's standard errors are its own
    assert "pooled" not in pooled.info["history"][-1]
    assert pooled.converged
    # the fit without pooling (seed 1): edges -1.682, triangle 0.159 (s.e. ~0.35, ~0.6)
    assert np.allclose(np.asarray(pooled.params), [-1.682, 0.159], atol=0.1)


def test_auto_pools_as_the_model_family_declares():
    # 'auto' (the default): count families step on the last 4 samples' draws, binary ties
    # on the last sample alone (statnet's)
    from support.valued_networks import samptot
    assert MCMLE().pool_samples == "auto"
    counts = ef.ERGM(samptot(), "sum + nonzero", response="nominations",
                     reference="Binomial(3)")
    binary = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    rng = np.random.default_rng(0)
    assert MCMLE()._start(counts, rng).pool_samples == 4
    assert MCMLE()._start(binary, rng).pool_samples == 1
    assert MCMLE(pool_samples=2)._start(counts, rng).pool_samples == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = counts.fit("mcmle", random_state=1, maxit=4, eval_loglik=False, force_main=True)
    assert any("pooled" in h for h in fit.info["history"])
