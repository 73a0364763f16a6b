"""Stochastic approximation's Ctrl-C and checkpoint (#31: the runtime service, like the
other estimators): an interrupt in each phase returns the work finished, marked; a
checkpoint written before the interrupt resumes the fit."""
import json
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.sa import robbins_monro as rm
from support.interrupts import sa_interrupted_in_subphase
from ergmfit.exceptions import CheckpointError

SMALL = dict(burnin=512, interval=256, phase1=10, n_subphases=3, phase2_min=5, phase3=50)


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")


def _fit(model, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = model.fit(method="sa", random_state=5, **{**SMALL, **kw})
    return fit, [str(w.message) for w in caught]


@pytest.mark.parametrize("phase", ["_phase1", "_subphase", "_phase3"])
def test_an_interrupt_in_each_phase_returns_the_work_done(flo, phase, monkeypatch):
    real = getattr(rm.SA, phase)
    calls = {"n": 0}

    def interrupted(self, *args):
        calls["n"] += 1
        if phase != "_subphase" or calls["n"] == 2:       # the second subphase
            raise KeyboardInterrupt
        return real(self, *args)

    monkeypatch.setattr(rm.SA, phase, interrupted)
    fit, caught = _fit(flo)
    assert fit.info["interrupted"] and not fit.converged
    assert np.all(np.isfinite(np.asarray(fit.params))) and np.all(np.isnan(np.asarray(fit.cov)))
    assert len(fit.info["history"]) == {"_phase1": 0, "_subphase": 1, "_phase3": 3}[phase]
    assert any("interrupted by the user" in w for w in caught)


def test_checkpoint_of_an_interrupted_fit_resumes(flo, tmp_path, monkeypatch):
    ck = tmp_path / "sa.json"

    with sa_interrupted_in_subphase(monkeypatch, 2):      # in the third subphase
        cut, _ = _fit(flo, checkpoint=str(ck))
    saved = json.loads(ck.read_text())
    assert len(saved["history"]) == 2 and saved["theta"] == cut.info["history"][-1]["theta"]
    fit, _ = _fit(flo, resume=str(ck))
    assert not fit.info["interrupted"] and len(fit.info["history"]) == 3
    assert fit.info["start"].startswith("checkpoint")
    assert np.all(np.isfinite(np.asarray(fit.bse)))
    # near the MCMC-MLE (edges -1.67, triangle 0.16; s.e. 0.35, 0.59)
    assert abs(float(fit.params["edges"]) + 1.67) < 0.5
    saved["D_inv"] = [[1.0]]                  # tampered: the wrong shape
    ck.write_text(json.dumps(saved))
    with pytest.raises(CheckpointError, match="D_inv"):
        _fit(flo, resume=str(ck))
