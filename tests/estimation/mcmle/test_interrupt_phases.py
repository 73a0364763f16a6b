"""Ctrl-C anywhere in an MCMC-MLE fit returns the finished work, marked (#38 item 1):
iterations, covariance and log-likelihood are one guarded region
(:class:`ergmfit.runtime.interrupts.GuardedPhases`).  Each phase is made to raise
KeyboardInterrupt; before, an interrupt in the covariance step (between the iterations'
handler and the bridge sampling's) escaped and the converged fit was lost."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
import ergmfit.estimation.mcmle.estimator as mc


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def _flomarriage(**kw):
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle", **kw)


def _fit(model, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = model.fit(method="mcmle", random_state=1, verbose=False, **kw)
    return fit, [str(w.message) for w in caught]


def test_interrupt_in_the_covariance_returns_the_estimate():
    m = _flomarriage()
    whole, _ = _fit(m, eval_loglik=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mc, "batch_means_cov", _interrupt)     # (inside the covariance step)
        fit, caught = _fit(m)
    # the iterations' estimate, marked; no standard errors, no log-likelihood
    assert np.array_equal(np.asarray(fit.params), np.asarray(whole.params))
    assert fit.info["interrupted"] and fit.loglik is None
    assert np.all(np.isnan(np.asarray(fit.cov)))
    assert any("while computing the covariance" in w for w in caught)
    assert any("while computing the covariance" in w for w in fit.warnings)


def test_interrupt_in_the_loglik_returns_the_converged_fit():
    m = _flomarriage()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mc, "bridge_loglik", _interrupt)
        fit, caught = _fit(m)
    assert fit.converged and not fit.info["interrupted"] and fit.info["loglik_interrupted"]
    assert fit.loglik is None and np.all(np.isfinite(np.asarray(fit.cov)))
    assert any("bridge-sampling" in w for w in caught)


def test_interrupt_in_the_iterations_returns_the_last_finished_one():
    m = _flomarriage()
    calls = {"n": 0}
    real = mc.MCMLE._iterate

    def second_interrupted(self, *args):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(self, *args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mc.MCMLE, "_iterate", second_interrupted)
        fit, caught = _fit(m)
    assert fit.info["interrupted"] and not fit.converged and fit.n_iter == 1
    assert fit.loglik is None and np.all(np.isfinite(np.asarray(fit.cov)))


def _missing_model():
    g = ef.datasets.load("flomarriage")
    nodes = list(g.nodes)
    return _flomarriage(missing=[(nodes[0], nodes[5]), (nodes[2], nodes[9])])


def test_missing_data_interrupt_in_the_covariance_returns_the_estimate():
    m = _missing_model()
    whole, _ = _fit(m, eval_loglik=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mc, "batch_means_cov", _interrupt)     # (the one loop's covariance step)
        fit, caught = _fit(m)
    assert np.array_equal(np.asarray(fit.params), np.asarray(whole.params))
    assert fit.info["interrupted"] and fit.loglik is None
    assert np.all(np.isnan(np.asarray(fit.cov)))
    assert any("while computing the covariance" in w for w in caught)


def test_missing_data_interrupt_in_the_loglik_returns_the_converged_fit():
    m = _missing_model()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mc, "bridge_loglik", _interrupt)
        fit, caught = _fit(m)
    assert fit.converged and fit.loglik is None
    assert any("bridge-sampling" in w for w in caught)


def test_cli_interrupt_in_the_covariance_saves_the_fit(tmp_path, monkeypatch, capsys):
    # the command line used to print "ergmfit: interrupted", exit 130 and save nothing
    from ergmfit import cli
    monkeypatch.setattr(mc, "batch_means_cov", _interrupt)
    out_file = tmp_path / "fit.json"
    code = cli.main(["fit", "flomarriage", "edges + triangle", "--method", "mcmle",
                     "--seed", "1", "--save", str(out_file)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out_file.exists() and "edges" in out
    assert "while computing the covariance" in err


def test_interrupt_while_the_fall_back_finds_its_start_stops_the_fit(monkeypatch):
    # the first attempt swings (a retryable failure), the fall-back starts EE, and Ctrl-C
    # lands in EE: EE returns its partial fit, which had become the second attempt's start
    # and a whole second MCMC-MLE ran on (session 20: > 10 minutes unanswered).  Now the
    # fit stops with the first attempt's last estimate, marked interrupted.
    from ergmfit.estimation.ee.chain import EEChain
    from ergmfit.exceptions import DegenerateModelError
    m = _flomarriage()
    real = mc._check_oscillation

    def swing_at_two(model, history, *a, **kw):
        real(model, history, *a, **kw)
        if len(history) == 2:
            raise mc._swing(mc._retryable(DegenerateModelError("swing")))
        return []
    monkeypatch.setattr(mc, "_check_oscillation", swing_at_two)
    monkeypatch.setattr(EEChain, "_report", _interrupt)           # Ctrl-C inside EE
    refits = []
    monkeypatch.setattr(mc.MCMLE, "_refit", lambda self, *a, **kw: refits.append(kw))
    fit, caught = _fit(m, eval_loglik=False)
    assert not refits                                 # no second attempt was run
    assert fit.info["interrupted"] and not fit.converged and fit.n_iter == 2
    assert np.allclose(np.asarray(fit.params), fit.info["history"][-1]["theta"])
    assert np.all(np.isnan(np.asarray(fit.cov)))
    assert any("while restarting" in w for w in caught)
    assert any("interrupted by the user" in w for w in fit.warnings)


def test_interrupt_while_the_fall_back_runs_cd_stops_the_fit(monkeypatch):
    # a failure other than a swing restarts from contrastive divergence: Ctrl-C there too
    from ergmfit.estimation.contrastive.cd import CD
    from ergmfit.exceptions import DegenerateModelError
    m = _flomarriage()
    calls = {"n": 0}
    real = mc.MCMLE._iterate

    def stuck_at_two(self, *args):
        calls["n"] += 1
        if calls["n"] == 2:
            raise mc._retryable(DegenerateModelError("stuck"))
        return real(self, *args)
    monkeypatch.setattr(mc.MCMLE, "_iterate", stuck_at_two)
    monkeypatch.setattr(CD, "start", _interrupt)
    fit, caught = _fit(m, eval_loglik=False)
    assert fit.info["interrupted"] and not fit.converged and fit.n_iter == 1
    assert any("while restarting" in w for w in caught)
