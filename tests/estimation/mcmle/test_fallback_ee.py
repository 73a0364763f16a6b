"""MCMC-MLE's fall-back after a near-degenerate swing starts from the EE estimate (#22 item 1).

faux.dixon.high ``edges + mutual + nodematch x3 + gwesp(0.5, fixed=TRUE)``: the MPLE
and the contrastive-divergence estimate lie on either side of a phase transition (a chain
from the observed network falls to ~400 ties at the one, climbs to ~2,700 at the other),
so both attempts swung and raised DegenerateModelError; from the EE estimate MCMC-MLE
converges (benchmarks/bench_dixon.py runs the full fits, too slow for the suite)."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mcmle import fallback as fb
from ergmfit.estimation.mcmle import estimator as mcmle
from ergmfit.exceptions import DegenerateModelError
from ergmfit.utils.validation import check_random_state

FORMULA = "edges + gwesp(0.5, fixed=TRUE)"


def _fall_back(monkeypatch, first, **settings):
    """The fall-back's second attempt: the settings it runs MCMC-MLE's iterations with, and
    its note (the iterations themselves are not run: the suite stays fast)."""
    calls = []
    m = ef.ERGM(ef.datasets.load("flomarriage"), FORMULA)
    s = mcmle.MCMLE(random_state=1, verbose=False, **settings).get_params()
    out, note = fb.fall_back(m, s, first, lambda model, **s: calls.append(s) or "fit")
    assert out == "fit" and len(calls) == 1
    return m, s, calls[0], note


def _a_swing():
    return mcmle._swing(mcmle._retryable(DegenerateModelError("swing")))


@pytest.mark.slow
def test_swing_restarts_from_the_ee_estimate(monkeypatch):
    ees, real = [], fb._ee_start
    monkeypatch.setattr(fb, "_ee_start", lambda model, rng: ees.append(real(model, rng)) or ees[-1])
    m, first, second, note = _fall_back(monkeypatch, _a_swing())
    assert len(ees) == 1 and ees[0] is not None and np.array_equal(second["init"], ees[0])
    assert abs(ees[0][0] + 1.7) < 0.3          # EE's estimate (edges), not a stand-in
    assert second["interval"] == 4 * first["interval"] and second["min_is_ess"] == 0.2
    assert "restarted from the equilibrium-expectation (EE) estimate" in note


def test_other_failures_restart_from_cd(monkeypatch):
    # a stuck chain or a runaway sampler (no swing): contrastive divergence, as before
    m, _, second, note = _fall_back(monkeypatch, mcmle._retryable(DegenerateModelError("stuck")))
    assert np.array_equal(second["init"], fb._cd_start(m, check_random_state(1)))
    assert "restarted from the contrastive-divergence estimate" in note


def test_swing_without_ee_uses_cd(monkeypatch):
    monkeypatch.setattr(fb, "_ee_start", lambda model, rng: None)
    _, _, second, note = _fall_back(monkeypatch, _a_swing())
    assert second["init"] is not None
    assert "restarted from the contrastive-divergence estimate" in note


def test_a_user_start_is_kept(monkeypatch):
    _, _, second, note = _fall_back(monkeypatch, _a_swing(), init=[-2.0, 0.5])
    assert list(second["init"]) == [-2.0, 0.5] and "estimate" not in note


def test_the_oscillation_guard_marks_a_swing():
    """The guard's error is the one that sends the fall-back to EE."""
    m = ef.ERGM(ef.datasets.load("flomarriage"), FORMULA)
    g_obs = m.statistics_vector()
    rng = np.random.default_rng(0)
    history = [{"t_mean": [t, t]} for t in (-30.0, 50.0, -30.0)] + [{}]
    Z = rng.normal(size=(200, 2)) + 50.0            # the sample far above again
    with pytest.raises(DegenerateModelError, match="near-degenerate") as err:
        mcmle._check_oscillation(m, history, Z, g_obs)
    assert err.value.retryable and err.value.swing
