"""Fault injection (#24, re-attack): Ctrl-C in MCMC-MLE's first iteration and its
iteration count, MPLE on a huge sparse network, EE resume/settings, Bayes paths."""
import signal
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ConvergenceWarning, SettingsError


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + kstar(2)")


def _interrupt_chains(monkeypatch, on_call):
    """A real SIGINT (Ctrl-C) as run_chains starts its ``on_call``-th call."""
    from ergmfit.estimation.mcmle import estimator as mcmle
    real, calls = mcmle.run_chains, []

    def run_chains(*args, **kwargs):
        calls.append(1)
        if len(calls) == on_call:
            signal.raise_signal(signal.SIGINT)
        return real(*args, **kwargs)
    monkeypatch.setattr(mcmle, "run_chains", run_chains)


def test_mcmle_ctrl_c_in_the_first_iteration_returns_the_start(default_sigint, monkeypatch, flo):
    _interrupt_chains(monkeypatch, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = flo.fit(method="mcmle", random_state=1, verbose=False)
    mple = flo.fit(method="mple")
    assert np.allclose(fit.params, mple.params)
    assert fit.info["interrupted"] and not fit.converged and fit.n_iter == 0
    assert any("interrupted" in str(w.message) for w in caught
               if issubclass(w.category, ConvergenceWarning))
    assert any("interrupted" in w for w in fit.warnings)
    str(fit.summary())                           # the table prints (standard errors NA)


def test_mcmle_interrupted_counts_its_finished_iterations(default_sigint, monkeypatch, flo):
    _interrupt_chains(monkeypatch, 3)            # two iterations finished, the third not
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = flo.fit(method="mcmle", random_state=1, verbose=False)
    assert fit.n_iter == 2 and len(fit.info["history"]) == 2
    msgs = [str(w.message) for w in caught] + list(fit.warnings)
    assert any("after 2 iteration(s)" in m for m in msgs), msgs
    assert not any("after 3 iteration(s)" in m for m in msgs), msgs


def test_mcmle_a_second_quick_ctrl_c_keeps_the_fit(default_sigint, monkeypatch, flo):
    # the first Ctrl-C stops the chains; a second while the fit is put together
    # (here: as the progress bar closes) must not lose it
    from ergmfit.estimation.mcmle import estimator as mcmle
    real_progress = mcmle.Progress

    class Progress(real_progress):
        def close(self):
            signal.raise_signal(signal.SIGINT)
            super().close()
    monkeypatch.setattr(mcmle, "Progress", Progress)
    _interrupt_chains(monkeypatch, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = flo.fit(method="mcmle", random_state=1, verbose=False)
    assert fit.info["interrupted"] and not fit.converged


def test_cli_ctrl_c_in_the_first_mcmle_iteration_prints_the_table(default_sigint, monkeypatch, capsys):
    from ergmfit import cli
    _interrupt_chains(monkeypatch, 1)
    code = cli.main(["fit", "flomarriage", "edges + kstar(2)", "--method", "mcmle"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "edges" in out and "kstar2" in out
    assert "interrupted" in err


def test_mple_exists_for_a_huge_network_with_two_ties():
    # 10^7 nodes, 2 ties: a row of 5e13 dyads with 2 ties is not tie-free (the
    # MLE of edges is log(2 / (C(10^7, 2) - 2)) = -30.85, not -Inf)
    from math import comb, log

    from ergmfit.network.network import Network
    net = Network(10**7, [(0, 1), (2, 3)], directed=False)
    fit = ef.ERGM(net, "edges").fit(method="mple")
    assert fit.params["edges"] == pytest.approx(log(2 / (comb(10**7, 2) - 2)), abs=1e-6)


@pytest.mark.parametrize("name", ["checkpoint", "resume"])
@pytest.mark.parametrize("value", [5, 2.5, ["a.npz"]])
def test_bayes_non_path_checkpoint_is_a_settings_error(name, value):
    from ergmfit.estimation import make_estimator
    with pytest.raises(SettingsError, match=name):
        make_estimator("bayes", **{name: value})


@pytest.mark.parametrize("rate", [True, [1], float("inf"), 1.0, (0.01, 2.0), [[0.01]], []])
def test_ee_learning_rate_out_of_range_refused_when_built(rate):
    from ergmfit.estimation import make_estimator
    with pytest.raises(SettingsError, match="learning_rate"):
        make_estimator("ee", learning_rate=rate)


@pytest.mark.parametrize("rate", [0.01, (0.01, 0.001), [0.5], np.array([0.1, 0.01]), "auto"])
def test_ee_learning_rate_in_range_accepted(rate):
    from ergmfit.estimation import make_estimator
    make_estimator("ee", learning_rate=rate)


@pytest.mark.parametrize("method", ["mcmle", "ee"])
def test_negative_n_jobs_beyond_the_cpus_refused(method):
    from joblib import cpu_count

    from ergmfit.estimation import make_estimator
    make_estimator(method, n_jobs=-1)
    make_estimator(method, n_jobs=-cpu_count())          # joblib: one process
    with pytest.raises(SettingsError, match="n_jobs"):
        make_estimator(method, n_jobs=-cpu_count() - 3)


@pytest.fixture(scope="module")
def finished_ee(tmp_path_factory, flo):
    d = tmp_path_factory.mktemp("ee_ckpt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = flo.fit(method="ee", ee_steps=60, random_state=1, checkpoint=str(d))
    return fit, d


def test_resuming_a_finished_ee_run_returns_its_estimate(finished_ee, flo, tmp_path):
    import shutil
    fit, d = finished_ee
    copy = tmp_path / "c"
    shutil.copytree(d, copy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = flo.fit(method="ee", resume=str(copy))
    assert np.array_equal(np.asarray(fit.params), np.asarray(again.params))
    assert np.array_equal(fit.cov, again.cov)


@pytest.mark.parametrize("key,value", [
    ("se_interval", 10**12), ("se_burnin", 10**12), ("se_samplesize", 10**12),
    ("burnin", -3), ("burnin", "x"), ("t_tol", -1.0), ("thin", 0), ("dens", 99),
    ("dens", "a"), ("dens_theta", -1), ("init", "bogus"), ("init_theta", [1.0]),
    ("init_theta", "ab"), ("learning_rate", [5.0]), ("sampler_steps", 0)])
def test_tampered_ee_meta_is_a_checkpoint_error(finished_ee, flo, tmp_path, key, value):
    import json
    import shutil

    from ergmfit.exceptions import CheckpointError
    _, d = finished_ee
    copy = tmp_path / "c"
    shutil.copytree(d, copy)
    meta = json.loads((copy / "meta.json").read_text())
    meta["cfg"][key] = value
    if key == "init_theta":
        meta["cfg"]["init"] = "user"
    (copy / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="meta.json"):
        flo.fit(method="ee", resume=str(copy))


def test_cli_program_ignores_a_late_ctrl_c_on_its_way_out(default_sigint, monkeypatch, capsys):
    # as the `ergmfit` program (argv None) the output is shown: a second Ctrl-C
    # arriving after the fit returned must not end it with KeyboardInterrupt;
    # called from Python with argv, the caller's handler stays
    import sys

    from ergmfit import cli
    assert cli.main(["terms"]) == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    monkeypatch.setattr(sys, "argv", ["ergmfit", "terms"])
    assert cli.main() == 0
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    capsys.readouterr()


def test_mcmle_negative_n_jobs_runs_one_chain_per_cpu(monkeypatch):
    # joblib's n_jobs=-1 (every CPU) gives one chain per CPU, as a positive
    # n_jobs gives one per process (it ran a single chain before)
    import joblib
    from ergmfit.estimation.mcmle import estimator as mc
    monkeypatch.setattr(joblib, "effective_n_jobs", lambda n_jobs=-1: 2)
    seen = {}

    def fake_run_chains(model, theta, samplesize, burnin, interval, starts, n_chains=1, **kw):
        seen["n_chains"] = n_chains
        raise KeyboardInterrupt
    monkeypatch.setattr(mc, "run_chains", fake_run_chains)
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(method="mcmle", random_state=1, n_jobs=-1, eval_loglik=False)
    assert seen["n_chains"] == 2
