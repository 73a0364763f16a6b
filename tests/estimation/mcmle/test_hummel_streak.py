"""The stopping rule counts Hummel's step length, not the step the trust region let the
estimate take (statnet's ``MCMLE.termination="Hummel"`` has no importance-weight trust
region; docs/valued_terms.md, session 22)."""
import warnings

import ergmfit as ef
from ergmfit.estimation.mcmle.estimator import MCMLE


def _fit(**kw):
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MCMLE(random_state=1, maxit=8, eval_loglik=False, **kw).fit(m)


def test_a_step_the_trust_region_shortens_still_counts_its_hummel_gamma():
    # a trust region this tight halves every step from the MPLE, whose Hummel γ is 1: the
    # records say both (the step taken 0.5, Hummel's 1) and the streak of Hummel's γ = 1
    # ends the fit as without the trust region (before: γ 0.5 eight times, not converged)
    fit = _fit(min_is_ess=0.999)
    hist = fit.info["history"]
    assert fit.converged
    assert len(hist) == 3
    assert all(h["gamma"] == 0.5 and h["hummel_gamma"] == 1.0 for h in hist)


def test_without_the_trust_region_acting_the_step_is_hummels():
    fit = _fit()
    hist = fit.info["history"]
    assert fit.converged
    assert all(h["gamma"] == h["hummel_gamma"] for h in hist)
