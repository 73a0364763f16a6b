"""EGMME's checkpoint (#32): ``checkpoint=path`` writes that file only; ``resume=path``
continues an interrupted run to the uninterrupted run's result, bit for bit (the chain
is rebuilt from its network with a seed from the run's generator at every iteration, so
the network and the generator's state are all the run needs)."""
import json
import os
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.egmme.estimator import EGMME
from ergmfit.exceptions import CheckpointError

TUTORIAL = "Form(~edges + gwesp(0, fixed=TRUE)) + Persist(~offset(edges))"
SHORT = dict(method="egmme", proposals=240, burnin=10, steps=50, n_iter=3, n_average=2,
             final_steps=50, fd_steps=50)


@pytest.fixture(scope="module")
def model():
    return ef.ERGM(ef.datasets.load("flobusiness"), TUTORIAL)


def _fit(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(**{**SHORT, **kw})


def _interrupt_at(monkeypatch, call):
    """A Ctrl-C at the start of the ``call``-th iteration (Newton or averaging)."""
    original, calls = EGMME._iteration, []

    def iteration(self, run, s, gain):
        calls.append(gain)
        if len(calls) == call:
            raise KeyboardInterrupt
        return original(self, run, s, gain)
    monkeypatch.setattr(EGMME, "_iteration", iteration)


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a.params), np.asarray(b.params))
    np.testing.assert_array_equal(np.asarray(a.bse), np.asarray(b.bse))
    assert a.info["history"] == b.info["history"]
    assert a.info["time_steps"] == b.info["time_steps"]
    assert a.info["target_means"] == b.info["target_means"]


@pytest.mark.parametrize("seed,call", [(3, 3), (5, 4)])   # a Newton / an averaging step
def test_a_resumed_run_returns_the_uninterrupted_result(model, tmp_path, monkeypatch,
                                                        seed, call):
    whole = _fit(model, offset_coef=[np.log(9)], random_state=seed)
    path = tmp_path / "egmme.json"
    with monkeypatch.context() as mp:
        _interrupt_at(mp, call)
        cut = _fit(model, offset_coef=[np.log(9)], random_state=seed, checkpoint=path)
    assert cut.info["interrupted"] and len(cut.info["history"]) == call - 1
    assert json.loads(path.read_text())["stage"] == call       # burn-in + call - 1 steps
    # resume= alone restores the offsets; the checkpoint's generator replaces the seed
    resumed = _fit(model, resume=path, random_state=999)
    _same(resumed, whole)
    assert not resumed.info["interrupted"]


def test_checkpoint_writes_only_the_named_file_and_changes_nothing(model, tmp_path):
    plain = _fit(model, offset_coef=[np.log(9)], random_state=2)
    with_ck = _fit(model, offset_coef=[np.log(9)], random_state=2,
                   checkpoint=tmp_path / "ck.json")
    _same(plain, with_ck)
    assert os.listdir(tmp_path) == ["ck.json"]
    saved = json.loads((tmp_path / "ck.json").read_text())
    assert saved["kind"] == "ergmfit-egmme-checkpoint"
    assert saved["stage"] == 1 + SHORT["n_iter"] + SHORT["n_average"]
    assert saved["sample_space"]["offset_coef"] == [pytest.approx(np.log(9))]


def test_a_bad_checkpoint_is_refused_by_name(model, tmp_path):
    path = tmp_path / "ck.json"
    _fit(model, offset_coef=[np.log(9)], random_state=1, n_iter=1, n_average=0,
         checkpoint=path)
    with pytest.raises(CheckpointError, match="targets"):
        _fit(model, resume=path, targets="~edges + triangle")
    data = json.loads(path.read_text())
    data["ties"] = [[0, 99]]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="bad.json"):
        _fit(model, resume=bad)
    bad.write_text("{not json")
    with pytest.raises(CheckpointError, match="bad.json"):
        _fit(model, resume=bad, offset_coef=[np.log(9)])
    other = ef.ERGM(ef.datasets.load("flobusiness"), "edges")
    mc = tmp_path / "mcmle.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other.fit(method="mcmle", random_state=1, checkpoint=mc, maxit=1)
    with pytest.raises(CheckpointError, match="not an EGMME checkpoint"):
        _fit(model, resume=mc, offset_coef=[np.log(9)])


@pytest.mark.parametrize("change", [dict(n_iter=5), dict(steps=60), dict(n_average=1),
                                    dict(proposals=100)])
def test_resuming_with_settings_that_change_the_run_is_refused(model, tmp_path, monkeypatch,
                                                               change):
    # a resume with another n_iter (or steps, ...) would return neither run's result
    path = tmp_path / "egmme.json"
    with monkeypatch.context() as mp:
        _interrupt_at(mp, 2)
        _fit(model, offset_coef=[np.log(9)], random_state=3, checkpoint=path)
    with pytest.raises(CheckpointError) as err:
        _fit(model, resume=path, **change)
    (name, value), = change.items()
    assert f"{name}={value!r}" in str(err.value) and "resume with the checkpoint's" in \
        str(err.value)
    # settings that only change the final run are allowed
    resumed = _fit(model, resume=path, final_steps=60)
    assert not resumed.info["interrupted"]
