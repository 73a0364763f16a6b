"""MCMC-MLE does not hand non-finite parameters to the sampler, and falls back
(a contrastive-divergence start, a longer chain, smaller steps) before giving up (#22)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mcmle import estimator as mcmle
from ergmfit.estimation.common.stepping import ellipsoid_step, hummel_step, in_convex_hull
from ergmfit.terms.parameter_steps import maximize_is_loglik
from ergmfit.exceptions import DegenerateModelError


def skewed_sample():
    """A skewed sample far from the observed statistics (the origin), as an MPLE
    start gave on faux.dixon.high: the ellipsoid's target lies outside its hull."""
    r = np.random.default_rng(0)
    E = np.column_stack([r.exponential(size=200), r.exponential(size=200)])
    return E @ np.array([[1.0, 0.9], [0.0, 0.5]]) + 2.0


def test_step_length_stays_in_the_hull():
    Z = skewed_sample()
    hull, ell = hummel_step(Z), ellipsoid_step(Z)
    assert ell > hull and not in_convex_hull(Z, (1 - ell) * Z.mean(axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        runaway = maximize_is_loglik(Z, (1 - ell) * Z.mean(axis=0))
    assert not np.all(np.abs(runaway) < 1e6)            # the old rule: Newton runs off
    gamma = mcmle._step_length(Z, 0.05)
    assert gamma == hull
    eta = maximize_is_loglik(Z, (1 - gamma) * Z.mean(axis=0))
    assert np.all(np.isfinite(eta)) and np.max(np.abs(eta)) < 50


def test_fallback_after_a_retryable_failure(monkeypatch):
    """A near-degenerate swing in the first attempt: the fit is redone from the
    CD estimate with a 4x longer interval and a tighter trust region, and says so."""
    calls = []
    real = mcmle.MCMLE._run

    def run(self, model):
        calls.append(self.get_params())
        if len(calls) == 1:
            raise mcmle._retryable(DegenerateModelError("swing"))
        return real(self, model)

    monkeypatch.setattr(mcmle.MCMLE, "_run", run)
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    fit = m.fit(method="mcmle", random_state=1, verbose=False, eval_loglik=False)
    assert fit.converged and abs(fit.params["edges"] + 1.67) < 0.3
    assert calls[1]["interval"] == 4 * calls[0]["interval"] and calls[1]["min_is_ess"] == 0.2
    assert calls[1]["init"] is not None
    assert "restarted from the contrastive-divergence estimate" in fit.info["fallback"]


def test_two_failures_give_advice(monkeypatch):
    def run(self, model):
        raise mcmle._retryable(DegenerateModelError("swing"))

    monkeypatch.setattr(mcmle.MCMLE, "_run", run)
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + gwesp(0.5, fixed=TRUE)")
    with pytest.raises(DegenerateModelError, match=r"failed twice.*smaller decay of gwesp"):
        m.fit(method="mcmle", random_state=1, verbose=False)


def test_other_errors_are_not_retried(monkeypatch):
    calls = []

    def run(self, model):
        calls.append(self.get_params())
        raise DegenerateModelError("singular information")

    monkeypatch.setattr(mcmle.MCMLE, "_run", run)
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with pytest.raises(DegenerateModelError, match="singular"):
        m.fit(method="mcmle", random_state=1, verbose=False)
    assert len(calls) == 1


def test_dyad_independent_mcmle_is_the_exact_mle():
    # statnet returns the MLE of a dyad-independent model without MCMC; so do we
    import ergmfit as ef
    m = ef.ERGM("flomarriage", "edges + nodecov('wealth')")
    fit = m.fit(method="mcmle", random_state=1)
    mple = m.fit(method="mple")
    assert fit.method == "mle" and fit.info["exact_mle"]
    assert list(fit.params) == list(mple.params) and fit.loglik == mple.loglik
    text = str(fit.summary())
    assert "Maximum Likelihood Results:" in text and "fit(method='mcmle')" in text
    assert "no MCMC was run" in text
    # a dyad-dependent model still runs MCMC
    assert ef.ERGM("flomarriage", "edges + triangle").fit(
        method="mcmle", random_state=1, eval_loglik=False).method == "mcmle"
