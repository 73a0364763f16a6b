"""Fault injection (#24, re-attack): Ctrl-C in MCMC-MLE's first iteration and its
iteration count, MPLE on a huge sparse network, EE resume/settings, Bayes paths."""
import signal
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ConvergenceWarning, SettingsError
from test_sampling import default_sigint  # noqa: F401 (a fixture)


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + kstar(2)")


def _interrupt_chains(monkeypatch, on_call):
    """A real SIGINT (Ctrl-C) as run_chains starts its ``on_call``-th call."""
    from ergmfit.estimation import mcmle
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
    from ergmfit.estimation import mcmle
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
