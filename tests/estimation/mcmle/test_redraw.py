"""MCMC-MLE's rule for a sample not fit to step on (:mod:`ergmfit.estimation.mcmle.burnin`,
#33, the issue-554 fit): a count chain from its MPLE drifts for millions of proposals,
and an importance-sampling step on a drifting sample of ~3 effective draws diverged.
Such a sample's burn-in now runs on within the iteration until it has ended (statnet's
burn-in test, :func:`~ergmfit.estimation.mcmle.burnin.burnin_cut`); a sample still unfit
after that is redrawn at the same parameters; and an interval that would pass
``max_interval`` stays there with a ConvergenceWarning that says why."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mcmle.burnin import (DRIFT_Z, MAX_REDRAWS, MAX_SETTLE, burnin_cut,
                                            drift_z, unfit_to_step)
from ergmfit.exceptions import ConvergenceWarning
from support.valued_networks import samptot


def _ar1(rng, n, p, rho):
    x = np.zeros((n, p))
    e = rng.standard_normal((n, p))
    for t in range(1, n):
        x[t] = rho * x[t - 1] + e[t]
    return x


@pytest.mark.parametrize("seed", range(8))
def test_drift_test_passes_stationary_chains(seed):
    # autocorrelated but stationary (AR(1), rho 0.9: ~20 draws per effective one): no
    # statistic's halves differ by DRIFT_Z Monte Carlo s.e.
    rng = np.random.default_rng(seed)
    chains = [_ar1(rng, 1024, 5, 0.9), _ar1(rng, 1024, 5, 0.9)]
    assert drift_z(chains).max() < DRIFT_Z


@pytest.mark.parametrize("seed", range(8))
def test_drift_test_catches_a_chain_still_burning_in(seed):
    # the issue-554 shape: one statistic climbs by ~3 sd of its stationary spread over the
    # sample (a relaxation towards equilibrium), the others stationary
    rng = np.random.default_rng(seed)
    x = _ar1(rng, 1024, 5, 0.9)
    sd = x[:, 0].std()
    x[:, 0] += 3 * sd * (1 - np.exp(-np.arange(1024) / 300.0))
    assert drift_z([x]).max() > DRIFT_Z
    assert "drift" in unfit_to_step([x], mess=500.0, min_ess=16)


def test_too_few_effective_draws_is_unfit():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((256, 3))
    assert unfit_to_step([x], mess=3.0, min_ess=16).startswith("3.0 effective draws")
    assert unfit_to_step([x], mess=200.0, min_ess=16) is None


def test_count_family_declares_the_rule_and_binary_does_not():
    from ergmfit.families.binary import BinaryFamily
    from ergmfit.families.count import CountFamily
    assert CountFamily("Poisson").min_step_ess_share > 0
    assert BinaryFamily().min_step_ess_share == 0


def _short_chain_fit(**settings):
    m = ef.ERGM(samptot(), 'sum + nonzero + mutual(form="min")', response="nominations",
                reference="Binomial(3)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = m.fit("mcmle", eval_loglik=False, **settings)
    return fit, caught


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_a_short_sample_is_redrawn_not_stepped_on(seed):
    # one proposal between draws of a 306-dyad count network: far fewer effective draws
    # than asked, so a sample is not stepped on as drawn: it runs on (its draws kept, up
    # to last_boost x its size: MCMLE._settle), and one still short is redrawn (theta
    # kept) -- at most MAX_REDRAWS in a row -- before a step is taken (drift_start=None:
    # without moving the start when these short chains look drifting).  Session 16: the
    # running on came first (the old rule redrew every short sample whole)
    fit, _ = _short_chain_fit(random_state=seed, interval=4, min_interval=1, samplesize=256,
                              min_step_ess=64, maxit=40, drift_start=None)
    hist = fit.info["history"]
    assert "redraw" in hist[0] or hist[0].get("burnin_parts", 0) >= 1
    assert hist[0]["samplesize"] > 256 or "redraw" in hist[0]
    run = 0
    for a, b in zip(hist, hist[1:]):
        if "redraw" in a:
            assert b["theta"] == a["theta"]          # the redrawn sample moved nothing
            run += 1
            assert run <= MAX_REDRAWS
        else:
            run = 0
    assert fit.converged
    # the same model by the default settings (no redraw needed there)
    ref, _ = _short_chain_fit(random_state=seed)
    dev = np.abs(np.asarray(fit.params, float) - np.asarray(ref.params, float))
    assert np.all(dev < 0.5 * np.asarray(ref.bse, float)), dev / np.asarray(ref.bse, float)


def test_interval_past_max_interval_is_capped_with_a_clear_warning():
    fit, caught = _short_chain_fit(random_state=1, interval=8, min_interval=8, max_interval=8,
                                   target_ess=10_000, min_step_ess=0, maxit=3)
    msgs = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)
            and "max_interval" in str(w.message)]
    assert len(msgs) == 1, msgs                   # said once, not per iteration
    assert "exceeds max_interval=8" in msgs[0] and "init=" in msgs[0]
    assert all(h["interval"] <= 8 for h in fit.info["history"])
    assert any(h.get("interval_capped") for h in fit.info["history"])


def test_a_redraw_record_does_not_feed_the_last_samples_interval_and_size():
    # a redraw does not end the Hummel streak (it is no step): with the records [step,
    # redraw, step] the streak's two samples are the two steps; the redrawn (drifting)
    # sample's 3 effective draws would ask for a 4x longer last interval (the old
    # history[-2:] read it)
    from types import SimpleNamespace
    from ergmfit.estimation.mcmle.estimator import MCMLE
    from ergmfit.estimation.mcmle.interval import final_sample_size
    step = {"gamma": 1.0, "min_ess": 80.0, "ess": 90.0, "interval": 256, "samplesize": 1024}
    redraw = {"redraw": "the chains still drift", "gamma": 0.0, "min_ess": 3.0, "ess": 3.0,
              "interval": 256, "samplesize": 1024}
    est = MCMLE()
    intervals = []
    for history in ([step, redraw, dict(step)], [step, dict(step)]):
        state = SimpleNamespace(final=True, interval=256, history=history)
        est._adapt_interval(state, np.array([80.0]), 80.0, 1024)
        intervals.append(state.interval)
    assert intervals[0] == intervals[1]
    from ergmfit.estimation.mcmle.burnin import streak_records
    sizes = [final_sample_size(streak_records(h), 256, 1024, 4, 64)
             for h in ([step, redraw, dict(step)], [step, dict(step)])]
    assert sizes[0] == sizes[1]


def test_the_redraw_rule_reads_the_model_familys_declaration():
    from ergmfit.estimation.mcmle.estimator import MCMLE
    count = ef.ERGM(samptot(), "sum", response="nominations", reference="Binomial(3)")
    binary = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    est = MCMLE()
    assert est._min_step_ess(count) == count.family.min_step_ess_share * est.target_ess > 0
    assert est._min_step_ess(binary) == 0


@pytest.mark.parametrize("seed", range(4))
def test_burnin_cut_finds_where_a_relaxing_chain_has_settled(seed):
    # stationary: nothing to drop; relaxing over its first ~15 % (time constant 40 of 1024
    # draws, from 30 sd away): a cut after the relaxation and before the middle; still
    # climbing over the whole sample: no cut ends the burn-in
    rng = np.random.default_rng(seed)
    x = _ar1(rng, 1024, 4, 0.5)
    assert burnin_cut([x]) == 0
    sd = x[:, 0].std()
    relaxing = x.copy()
    relaxing[:, 0] += 30 * sd * np.exp(-np.arange(1024) / 40.0)
    assert 0 < burnin_cut([relaxing]) <= 512
    climbing = x.copy()
    climbing[:, 0] += 30 * sd * np.arange(1024) / 1024
    assert burnin_cut([climbing]) is None


@pytest.mark.parametrize("seed", [1, 2])
def test_a_drifting_sample_burns_in_within_the_iteration(seed):
    # from a start whose chains leave the observed network (sum 168 -> far above), the
    # first sample drifts: its burn-in runs on (draws dropped, the chains going on at the
    # same theta) until the burn-in test passes, and the iteration steps on the settled
    # sample.  Before (#33, session 16), that sample was redrawn whole, unused, at a
    # doubled interval, and the iteration took no step.
    m = ef.ERGM(samptot(), "sum + nonzero", response="nominations", reference="Binomial(3)")
    init = np.asarray(m.fit("mple").params, dtype=float) + np.array([0.8, -0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit("mcmle", init=init, random_state=seed, eval_loglik=False, interval=8,
                    samplesize=256, maxit=1)
    first = fit.info["history"][0]
    assert "redraw" not in first, first["redraw"]
    assert first["burnin_parts"] >= 1 and first["burnin_draws"] > 0
    assert first["gamma"] > 0 and not np.allclose(np.asarray(fit.params, float), init)
    # settled, or stepped on after its MAX_SETTLE parts (a chain still relaxing)
    assert (drift_z(fit.mcmc_sample["chains"]).max() <= DRIFT_Z
            or first["burnin_parts"] == MAX_SETTLE)
