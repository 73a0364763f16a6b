"""MCMC-MLE's per-statistic effective-size floor of a step's sample is a setting,
``min_ess_share`` (a share of ``target_ess``), whose ``"auto"`` is the model family's
declaration (``ModelFamily.min_ess_share``): 0.5 for binary ties, as the floor was before
it was a setting (faux.mesa.high's fits wandered without it); 0, statnet's multivariate
``MCMLE.effectiveSize`` rule alone, for counts (#33: on the issue-554 model the floor cost
430-640 CPU s per step sample; docs/valued_terms.md, session 20)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mcmle.estimator import MCMLE
from ergmfit.exceptions import SettingsError
from ergmfit.families import BINARY, CountFamily
from support.valued_networks import samptot


@pytest.mark.parametrize("bad", ["sometimes", -0.1, 1.5, float("nan"), True, None, [0.5]])
def test_a_bad_share_is_refused(bad):
    with pytest.raises(SettingsError, match=r"'min_ess_share' must be .*number.* \[0, 1\]"):
        MCMLE(min_ess_share=bad)


def test_the_setting_takes_auto_and_shares_in_0_1():
    assert MCMLE().min_ess_share == "auto"
    assert MCMLE(min_ess_share="AUTO").min_ess_share == "auto"
    assert MCMLE(min_ess_share=0).min_ess_share == 0.0
    assert MCMLE(min_ess_share=1).min_ess_share == 1.0


def test_the_families_declare_their_floor():
    assert BINARY.min_ess_share == 0.5
    assert CountFamily("Poisson").min_ess_share == 0.0
    assert CountFamily("Binomial(4)").min_ess_share == 0.0
    binary = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    count = ef.ERGM(samptot(), "sum", response="nominations", reference="Binomial(3)")
    assert MCMLE()._min_ess_share(binary) == 0.5
    assert MCMLE()._min_ess_share(count) == 0.0
    assert MCMLE(min_ess_share=0.25)._min_ess_share(binary) == 0.25
    assert MCMLE(min_ess_share=0.25)._min_ess_share(count) == 0.25


def _history(model, **settings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit("mcmle", random_state=1, eval_loglik=False, **settings)
    return [(h["interval"], h["samplesize"]) for h in fit.info["history"]], fit


def test_binary_auto_is_the_old_floor_of_one_half():
    # faux.mesa.high with gwesp: the interval after the first sample follows the floor
    # (608 with 0.5, 430 without); "auto" is 0.5 for binary ties, the fit of before the
    # setting
    m = ef.ERGM(ef.datasets.load("faux.mesa.high"),
                'edges + nodematch("Grade") + gwesp(0.5, fixed=True)')
    auto, fit = _history(m, maxit=1)
    half, fit_half = _history(m, maxit=1, min_ess_share=0.5)
    _, fit_none = _history(m, maxit=1, min_ess_share=0)
    assert auto == half
    assert fit.info["final_interval"] == fit_half.info["final_interval"] == 608
    assert fit_none.info["final_interval"] == 430
    assert np.array_equal(np.asarray(fit.params), np.asarray(fit_half.params))


def test_count_auto_is_statnets_multivariate_rule():
    # samptot under Poisson: the second sample, drawn in parts at the smallest interval,
    # stops at its first part (256 draws) once it has 64 multivariate effective draws; the
    # floor of 32 of every statistic (0.5) drew it on to 512
    m = ef.ERGM(samptot(), 'sum + nonzero + mutual(form="min")', response="nominations",
                reference="Poisson")
    auto, fit = _history(m)
    none, fit_none = _history(m, min_ess_share=0)
    half, _ = _history(m, min_ess_share=0.5)
    assert auto == none and auto != half
    assert auto[1] == (256, 256) and half[1] == (256, 512)
    assert np.array_equal(np.asarray(fit.params), np.asarray(fit_none.params))
