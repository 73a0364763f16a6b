"""Ctrl-C in blocked CD and MCLE (#24): the compiled BCD loop and the block
Gibbs sampler look for a pending signal every ~2^16 flips; a fit returns what
is finished, marked interrupted."""
import time
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.sampling._blocks import BlockGibbsSampler, Enumeration, UniformBlocks, bcd_loop
from support.interrupts import sigint_soon


@pytest.fixture(scope="module")
def mesa():
    return ef.ERGM(ef.datasets.load_network("faux.mesa.high"), "edges + gwesp(0.25, fixed=True)")


def test_bcd_loop_stops_on_ctrl_c(mesa, default_sigint):
    bm = mesa.compiled()
    chooser = UniformBlocks(bm.n_vars, 4)
    rates = np.full(10**8, 1e-6)                  # minutes of work
    before = bm.on_vars().copy()
    timer = sigint_soon(0.3)
    out = bcd_loop(bm, chooser, Enumeration(4), np.array([-6.0, 1.0]), rates, seed=1)
    timer.join()
    # stopped by the signal: far short of the 10^8 iterations (minutes of work)
    assert out["interrupted"] and 0 < out["n_iter"] < 10**7
    np.testing.assert_array_equal(np.sort(bm.on_vars()), np.sort(before))   # back at the data


def _arm_on_first_call(monkeypatch, module, name, delay):
    # SIGINT ``delay`` s after the first call of module.name (set-up is not timed)
    real, timers = getattr(module, name), []

    def wrapped(*args, **kwargs):
        if not timers:
            timers.append((sigint_soon(delay), time.perf_counter()))
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, wrapped)
    return timers


def test_bcd_fit_returns_finished_work_on_ctrl_c(mesa, default_sigint, monkeypatch):
    from ergmfit.sampling import _blocks
    timers = _arm_on_first_call(monkeypatch, _blocks, "bcd_loop", 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = mesa.fit(method="bcd", n_iter=10**7, random_state=1)   # ~10 s
    timers[0][0].join()
    assert fit.info["interrupted"] and not fit.converged
    assert 0 < fit.n_iter < 10**7 and np.all(np.isfinite(fit.params))
    assert any("interrupted" in w for w in fit.warnings)


def test_block_gibbs_sampler_honours_ctrl_c(mesa, default_sigint):
    bm = mesa.compiled()
    s = BlockGibbsSampler(bm, UniformBlocks(bm.n_vars, 3), None,
                          np.array([1, 2, 3, 4], dtype=np.uint64))
    timer = sigint_soon(0.3)
    with pytest.raises(KeyboardInterrupt):       # 10^10 steps: hours unless it stops
        s.run(np.array([-6.0, 1.0]), 10**10)
    timer.join()


def test_mcle_godambe_interrupted_keeps_the_fit(mesa, default_sigint, monkeypatch):
    from ergmfit.estimation.contrastive import mcle
    timers = _arm_on_first_call(monkeypatch, mcle, "_simulated_scores", 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = mesa.fit(method="mcle", blocks="uniform", n_blocks=5000, n_sim=10**6,
                       interval=4096, random_state=1)
    timers[0][0].join()
    assert fit.info["interrupted"] and fit.converged          # the estimate was finished
    assert 2 <= fit.info["godambe"]["n_sim"] < 10**6
    assert np.all(np.isfinite(fit.bse))
    assert any("interrupted" in w for w in fit.warnings)


def test_mcle_optimisation_interrupted(mesa, monkeypatch):
    # Ctrl-C inside the optimiser: the best point so far, marked interrupted
    from ergmfit.estimation.contrastive import mcle

    def boom(des, theta0, maxiter, tol, progress):
        progress["theta"] = np.asarray(theta0) + 0.5
        raise KeyboardInterrupt
    monkeypatch.setattr(mcle, "maximize_composite", boom)
    with pytest.warns(ef.exceptions.ConvergenceWarning, match="interrupted"):
        fit = mesa.fit(method="mcle", blocks="uniform", n_blocks=200, random_state=1)
    assert fit.info["interrupted"] and not fit.converged
    assert np.all(np.isfinite(fit.params)) and np.all(np.isnan(fit.bse))
