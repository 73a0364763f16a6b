"""The near-degeneracy guard (``_check_oscillation``) tells a swing of under-sampled
statistics (Monte Carlo noise of the steps) from a near-degenerate one.

It was added for binary models whose simulated networks jump from far fewer to far more
ties than observed (faux.mesa.high, faux.dixon.high: the fit is redone from the EE
estimate, :mod:`ergmfit.estimation.mcmle.fallback`).  On the issue-554 count model
(#33) the strength statistics ``nodeicovar``/``nodeocovar`` swung +-7 s.d. of samples
holding 5.7-19.8 effective draws of them, and the guard restarted the fit from the EE
estimate, throwing its progress away (docs/valued_terms.md, session 20).  Now only
samples with ``SWING_ESS_SHARE`` x ``target_ess`` effective draws of a statistic count
towards its swing (unless a bistable sample lies between); a swing of the others is
returned as noise, and the fit grows its samples instead."""
import json

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mcmle import estimator as mcmle
from ergmfit.estimation.mcmle.estimator import MCMLE, SWING_ESS_SHARE, _check_oscillation
from ergmfit.exceptions import CheckpointError, DegenerateModelError
from support.valued_networks import samptot

MIN_ESS = SWING_ESS_SHARE * 64


def _model():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")


def _swing_history(ess_each):
    # two samples far above and one far below the observed edges, with these effective
    # draws of each statistic; the next (current) sample lands far below again
    return [{"t_mean": [t, 0.0], "ess_each": list(ess_each)} for t in (7.0, -7.0, 7.0)] + [{}]


def _far_below(m, rng):
    return rng.normal(size=(200, 2)) * [2.0, 1.0] - [14.0, 0.0]


def test_an_under_sampled_swing_is_noise_not_degeneracy():
    m = _model()
    rng = np.random.default_rng(0)
    history = _swing_history([6.0, 80.0])
    noise = _check_oscillation(m, history, _far_below(m, rng), m.statistics_vector(),
                               ess=np.array([9.0, 80.0]), min_ess=MIN_ESS)
    assert noise == ["edges"]
    assert history[-1]["ess_each"] == [9.0, 80.0]       # recorded for the next checks


def test_a_well_sampled_swing_is_still_near_degenerate():
    m = _model()
    rng = np.random.default_rng(0)
    with pytest.raises(DegenerateModelError, match="near-degenerate") as err:
        _check_oscillation(m, _swing_history([60.0, 80.0]), _far_below(m, rng),
                           m.statistics_vector(), ess=np.array([50.0, 80.0]), min_ess=MIN_ESS)
    assert err.value.retryable and err.value.swing


def test_records_without_effective_sizes_count_as_before():
    # a checkpoint written before the rule: its records count towards a swing
    m = _model()
    rng = np.random.default_rng(0)
    history = [{"t_mean": [t, 0.0]} for t in (7.0, -7.0, 7.0)] + [{}]
    with pytest.raises(DegenerateModelError, match="near-degenerate"):
        _check_oscillation(m, history, _far_below(m, rng), m.statistics_vector(),
                           ess=np.array([50.0, 80.0]), min_ess=MIN_ESS)


def test_a_bistable_sample_is_near_degenerate_however_few_its_draws():
    m = _model()
    g_obs = m.statistics_vector()
    rng = np.random.default_rng(0)
    history = [{"t_mean": [t, 0.0], "ess_each": [3.0, 3.0]} for t in (7.0, 6.0, -8.0)] + [{}]
    e = rng.choice(np.r_[np.arange(2, 8), np.arange(150, 170)], 200)
    bistable = np.column_stack([e, e / 2.0]) - g_obs
    with pytest.raises(DegenerateModelError, match="near-degenerate"):
        _check_oscillation(m, history, bistable, g_obs, ess=np.array([2.0, 2.0]),
                           min_ess=MIN_ESS)


def test_curved_swings_follow_the_same_rule():
    m = ef.ERGM("flomarriage", "edges + gwesp")
    p = len(m.labels)
    Z = np.zeros((10, p))
    hist = [{"t_mean": [t] * p, "ess_each": [5.0] * p} for t in (8, -7, 6, -5)]
    assert _check_oscillation(m, hist, Z, np.zeros(p), counts=False, ess=np.full(p, 5.0),
                              min_ess=MIN_ESS) == list(m.labels)
    hist = [{"t_mean": [t] * p, "ess_each": [50.0] * p} for t in (8, -7, 6, -5)]
    with pytest.raises(DegenerateModelError, match="near-degenerate"):
        _check_oscillation(m, hist, Z, np.zeros(p), counts=False, ess=np.full(p, 50.0),
                           min_ess=MIN_ESS)


_SAVED = {}


def _checkpoint(tmp_path, model, history):
    """A checkpoint of ``model``'s fit after one iteration, its history replaced."""
    ck = tmp_path / "fit.json"
    if "data" not in _SAVED:
        model.fit("mcmle", random_state=1, maxit=1, eval_loglik=False, force_main=True,
                  samplesize=128, checkpoint=str(ck))
        _SAVED["data"] = json.loads(ck.read_text())
    ck.write_text(json.dumps(dict(_SAVED["data"], history=history)))
    return ck


@pytest.mark.filterwarnings("ignore")
def test_a_resumed_fit_keeps_the_grown_samples(tmp_path):
    # the noise's answer (every statistic's share of target_ess raised to SWING_ESS_SHARE)
    # is read back from the checkpoint's records, as the fit that wrote it had it
    m = ef.ERGM(samptot(), "sum + nonzero", response="nominations", reference="Binomial(3)")
    ck = _checkpoint(tmp_path, m, [])
    rng = np.random.default_rng(0)
    assert MCMLE(resume=str(ck))._start(m, rng).min_ess_share == 0.0
    ck = _checkpoint(tmp_path, m, [{"iteration": 1, "theta": [0.0, 0.0], "gamma": 0.3,
                                    "swing_noise": ["sum"]}])
    assert MCMLE(resume=str(ck), pool_samples=1)._start(m, rng).min_ess_share == SWING_ESS_SHARE


@pytest.mark.filterwarnings("ignore")
def test_a_checkpoint_with_bad_effective_sizes_is_refused(tmp_path):
    m = ef.ERGM(samptot(), "sum + nonzero", response="nominations", reference="Binomial(3)")
    ck = _checkpoint(tmp_path, m, [{"iteration": 1, "theta": [0.0, 0.0], "gamma": 0.3,
                                    "ess_each": [1.0, "many"]}])
    with pytest.raises(CheckpointError, match="ess_each"):
        MCMLE(resume=str(ck))._start(m, np.random.default_rng(0))


def test_the_fit_answers_noise_by_growing_its_samples(monkeypatch):
    # a count fit (unpooled, see below; no floor of every statistic: min_ess_share 0)
    # whose guard reports an under-sampled swing takes the floor SWING_ESS_SHARE from
    # then on, and is not restarted (no fall-back)
    m = ef.ERGM(samptot(), "sum + nonzero", response="nominations", reference="Binomial(3)")
    seen = []
    real = mcmle.MCMLE._adapt_interval

    def spy(self, state, *a):
        seen.append(state.min_ess_share)
        return real(self, state, *a)

    calls = []

    def noisy(model, history, *a, **kw):
        calls.append(kw)
        return ["sum"] if len(calls) == 1 else []
    monkeypatch.setattr(mcmle, "_check_oscillation", noisy)
    monkeypatch.setattr(mcmle.MCMLE, "_adapt_interval", spy)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit("mcmle", random_state=1, maxit=2, eval_loglik=False, force_main=True,
                    pool_samples=1)
    assert calls[0]["min_ess"] == MIN_ESS and len(calls[0]["ess"]) == 2
    assert seen[:2] == [SWING_ESS_SHARE, SWING_ESS_SHARE]
    assert fit.info["history"][0]["swing_noise"] == ["sum"]
    assert "fallback" not in fit.info


@pytest.mark.filterwarnings("ignore")
def test_pooled_steps_answer_noise_with_a_share_per_sample(tmp_path):
    # with pool_samples = K a step is taken on the last K samples' draws: the floor after
    # a swing of under-sampled statistics (SWING_ESS_SHARE of target_ess of every
    # statistic in the step's draws) asks each sample for 1/K of it
    m = ef.ERGM(samptot(), "sum + nonzero", response="nominations", reference="Binomial(3)")
    ck = _checkpoint(tmp_path, m, [{"iteration": 1, "theta": [0.0, 0.0], "gamma": 0.3,
                                    "swing_noise": ["sum"]}])
    rng = np.random.default_rng(0)
    state = MCMLE(resume=str(ck), pool_samples=4)._start(m, rng)
    assert state.min_ess_share == SWING_ESS_SHARE / 4
    assert MCMLE(resume=str(ck), pool_samples=1)._start(m, rng).min_ess_share == SWING_ESS_SHARE
