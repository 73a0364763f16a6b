"""Ctrl-C in a loop of fits stops the loop once the partial fit is kept (#37 item 3):
``fit.interrupted``, ``fit.raise_if_interrupted()`` and ``with ef.stop_on_interrupt():``
(docs/guide/python.md)."""
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

import ergmfit as ef
from ergmfit.estimation import make_estimator
from support.interrupts import interrupt_the_second_bayes_block


def _flomarriage():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")


BAYES = dict(method="bayes", random_state=1, burnin=10, main_iters=40, aux_iters=200)


def test_an_interrupted_fit_is_returned_marked_and_raise_if_interrupted_raises_it(monkeypatch):
    interrupt_the_second_bayes_block(monkeypatch)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        fit = _flomarriage().fit(**BAYES)
    assert fit.interrupted
    with pytest.raises(ef.FitInterrupted) as stop:
        fit.raise_if_interrupted()
    assert stop.value.result is fit
    assert isinstance(stop.value, KeyboardInterrupt) and not isinstance(stop.value, ef.ErgmfitError)


def test_a_finished_fit_is_not_interrupted():
    fit = _flomarriage().fit(method="mple")
    assert fit.interrupted is False
    assert fit.raise_if_interrupted() is None


def test_inside_stop_on_interrupt_the_fit_raises_with_its_partial_result(monkeypatch):
    interrupt_the_second_bayes_block(monkeypatch)
    fits = []
    with pytest.warns(RuntimeWarning, match="interrupted"), pytest.raises(ef.FitInterrupted) as stop:
        with ef.stop_on_interrupt():
            for seed in (1, 2, 3):
                fits.append(_flomarriage().fit(**dict(BAYES, random_state=seed)))
    assert fits == []                               # the first fit was the interrupted one
    partial = stop.value.result
    assert partial.interrupted and partial.method == "bayes" and partial.chains.shape == (4, 10, 2)


def test_stop_on_interrupt_leaves_finished_fits_and_estimator_objects_alone(monkeypatch):
    m = _flomarriage()
    with ef.stop_on_interrupt():
        assert not m.fit(method="mple").interrupted
    est = make_estimator("bayes", random_state=1, burnin=10, main_iters=40, aux_iters=200)
    interrupt_the_second_bayes_block(monkeypatch)
    with pytest.warns(RuntimeWarning), pytest.raises(ef.FitInterrupted):
        with ef.stop_on_interrupt():
            est.fit(m)
    interrupt_the_second_bayes_block(monkeypatch)
    with pytest.warns(RuntimeWarning):                   # outside the block: returned
        assert est.fit(m).interrupted


LOOP = '''
import sys
import ergmfit as ef
m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
fits = []
settings = dict(method="mcmle", samplesize=100000, maxit=60, interval=2048)   # minutes
m.fit(method="mcmle", random_state=0, samplesize=100, maxit=1)   # imports, caches: warm
print("READY", flush=True)
if sys.argv[1] == "stop_on_interrupt":
    with ef.stop_on_interrupt():
        for seed in range(1, 6):
            try:
                fits.append(m.fit(random_state=seed, **settings))
            except ef.FitInterrupted as stop:
                fits.append(stop.result)
                print("KEPT", len(fits), stop.result.interrupted, flush=True)
                raise
else:
    for seed in range(1, 6):
        fit = m.fit(random_state=seed, **settings)
        fits.append(fit)
        print("KEPT", len(fits), fit.interrupted, flush=True)
        fit.raise_if_interrupted()
print("THE LOOP WENT ON", flush=True)
'''


@pytest.mark.slow
@pytest.mark.parametrize("how", ["stop_on_interrupt", "raise_if_interrupted"])
def test_a_real_ctrl_c_stops_a_loop_of_fits_after_keeping_the_partial_fit(tmp_path, how):
    script = tmp_path / "loop.py"
    script.write_text(LOOP)
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(ef.__file__).resolve().parent.parent))
    # the child starts with SIGINT's default disposition, as a script started from a terminal:
    # a parent that ignores SIGINT (a pytest-xdist worker, a background job) would hand the
    # child an ignored SIGINT, and Python then installs no KeyboardInterrupt handler at all
    proc = subprocess.Popen([sys.executable, str(script), how], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline().strip() == "READY"
        time.sleep(1.5)                                   # inside the first fit's MCMC
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert out.splitlines() == ["KEPT 1 True"], (out, err)
    assert err.strip().splitlines()[-1].startswith("ergmfit.exceptions.FitInterrupted:"), err
    assert proc.returncode == 1


def test_a_temporal_fit_raises_its_finished_result_with_tergms_header(monkeypatch):
    """The fit that raises is the outermost one: TemporalERGM.fit adds tergm's header after
    ERGM.fit returns, and the partial result raised has it."""
    from ergmfit.model import ERGM
    real = ERGM._fit

    def interrupted(self, *args, **kwargs):
        res = real(self, *args, **kwargs)
        res.diagnostics.set("interrupted", True)            # as a Ctrl-C in the MCMC-MLE
        return res
    monkeypatch.setattr(ERGM, "_fit", interrupted)
    series = ef.NetSeries([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)])
    m = ef.ERGM(series, "Form(~edges + mutual) + Persist(~edges + mutual)")
    with pytest.warns(Warning), pytest.raises(ef.FitInterrupted) as stop:
        with ef.stop_on_interrupt():
            # force_main: the model is independent across node pairs (its CMLE is exact)
            m.fit(method="cmle", random_state=1, maxit=1, samplesize=200, force_main=True)
    assert stop.value.result.info["summary_header"].startswith("Monte Carlo Conditional")
