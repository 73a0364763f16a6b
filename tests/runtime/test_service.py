"""The runtime service (ergmfit.runtime) and how MCMC-MLE and EE use it:
Ctrl-C keeps finished work, checkpoints are atomic, locked, and fail softly,
damaged checkpoint files raise one ergmfit error naming the file, and parallel
chains run on dask."""
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import CheckpointError, CheckpointWarning, ErgmfitError
from ergmfit import runtime


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + triangle")


def test_json_and_npz_round_trip_and_damaged_files_name_the_file(tmp_path):
    p = tmp_path / "a.json"
    runtime.write_json(p, {"kind": "k", "x": [1, 2]})
    data = runtime.read_json(p, kind="k")
    assert data["x"] == [1, 2] and data["ergmfit_version"] == ef.__version__
    assert [f for f in os.listdir(tmp_path)] == ["a.json"]          # no temporary left
    with pytest.raises(CheckpointError, match="is not a checkpoint"):
        runtime.read_json(p, kind="other")
    p.write_text('{"kind": "k", "x": [1, ')                          # truncated
    with pytest.raises(CheckpointError, match="a.json") as err:
        runtime.read_json(p, kind="k")
    assert isinstance(err.value, ErgmfitError) and "damaged" in str(err.value)
    q = tmp_path / "b.npz"
    runtime.write_npz(q, {"a": np.arange(3.0)}, {"n": 1})
    meta, arrays = runtime.read_npz(q)
    assert meta["n"] == 1 and arrays["a"].tolist() == [0.0, 1.0, 2.0]
    q.write_bytes(q.read_bytes()[:40])
    with pytest.raises(CheckpointError, match="b.npz"):
        runtime.read_npz(q)


def test_a_second_writer_is_refused_and_a_stale_lock_taken_over(tmp_path):
    path = tmp_path / "fit.json"
    with runtime.Checkpoint(path) as first:
        assert first.locked and os.path.exists(f"{path}.lock")
        with pytest.raises(CheckpointError, match="another run"):
            runtime.Checkpoint(path).acquire()
    assert not os.path.exists(f"{path}.lock")
    # a lock left by a process that has ended is taken over
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.split()[0]
    import socket
    (tmp_path / "fit.json.lock").write_text(f"{dead} {socket.gethostname()}\n")
    with runtime.Checkpoint(path) as ck:
        assert ck.locked


def test_mcmle_refuses_a_checkpoint_another_run_writes(tmp_path, flo):
    ck = tmp_path / "fit.json"
    with runtime.Checkpoint(ck):
        with pytest.raises(CheckpointError, match="being written by another run"):
            flo.fit(method="mcmle", random_state=1, checkpoint=str(ck), maxit=1)


def test_a_failed_checkpoint_write_warns_and_the_fit_goes_on(tmp_path, flo):
    where = tmp_path / "no" / "such" / "dir" / "fit.json"
    with pytest.warns(CheckpointWarning, match="could not write"):
        fit = flo.fit(method="mcmle", random_state=1, checkpoint=str(where))
    ref = flo.fit(method="mcmle", random_state=1)
    assert fit.converged and np.array_equal(np.asarray(fit.params), np.asarray(ref.params))


def test_a_damaged_mcmle_checkpoint_is_one_error_naming_the_file(tmp_path, flo):
    ck = tmp_path / "fit.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        flo.fit(method="mcmle", random_state=1, maxit=1, checkpoint=str(ck), eval_loglik=False)
    text = ck.read_text()
    assert json.loads(text)["kind"] == "ergmfit-mcmle-checkpoint"
    ck.write_text(text[: len(text) // 2])
    with pytest.raises(CheckpointError, match="fit.json"):
        flo.fit(method="mcmle", resume=str(ck))
    ck.write_text(json.dumps({"kind": "ergmfit-mcmle-checkpoint", "labels": flo.labels}))
    with pytest.raises(CheckpointError, match="fit.json"):
        flo.fit(method="mcmle", resume=str(ck))


def test_a_damaged_ee_checkpoint_is_one_error_naming_the_file(tmp_path):
    m = ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual")
    ck = tmp_path / "ck"

    def stop(state):
        if state["outer"] == 2:
            raise KeyboardInterrupt
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(method="ee", random_state=3, checkpoint=str(ck), callback=stop, ee_steps=5,
              ee_inner_steps=5, sampler_steps=50)
    assert sorted(os.listdir(ck)) == ["chain_0.npz", "meta.json"]      # lock released
    chain = ck / "chain_0.npz"
    chain.write_bytes(chain.read_bytes()[:100])
    with pytest.raises(CheckpointError, match="chain_0.npz"):
        m.fit(method="ee", resume=str(ck))


def test_ctrl_c_during_the_bridge_keeps_the_converged_fit(monkeypatch, flo):
    # issue 24 item 1: the interrupt used to escape fit() and lose the fit
    import ergmfit.estimation.mcmle.estimator as mc

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(mc, "bridge_loglik", interrupted)
    with pytest.warns(ef.ConvergenceWarning, match="log-likelihood"):
        fit = flo.fit(method="mcmle", random_state=1)
    assert fit.converged and fit.loglik is None and not fit.info["interrupted"]
    assert fit.info["loglik_interrupted"]
    assert any("log-likelihood is NA" in w for w in fit.warnings)
    ref = flo.fit(method="mcmle", random_state=1, eval_loglik=False)
    assert np.array_equal(np.asarray(fit.params), np.asarray(ref.params))


def test_catch_interrupt_passes_other_errors():
    with pytest.raises(ValueError):
        with runtime.catch_interrupt():
            raise ValueError("x")
    with runtime.catch_interrupt() as stop:
        pass
    assert not stop.interrupted


def test_progress_writes_when_not_a_terminal(monkeypatch, capsys):
    with runtime.Progress(3, "test", enabled=True) as bar:
        for _ in range(3):
            bar.update(1, step="1.00")
        bar.update_to(2)                  # never back
    assert bar.n == 3
    assert "test" in capsys.readouterr().err
    with runtime.Progress(3, "quiet", enabled=False) as bar:
        bar.update(1)
    assert "quiet" not in capsys.readouterr().err


def test_mcmle_chains_on_dask(flo):
    # issue 22 item 3: backend="dask" raised "Invalid backend: dask"
    distributed = pytest.importorskip("distributed")
    kw = dict(random_state=1, n_jobs=2, maxit=3, eval_loglik=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = flo.fit(method="mcmle", backend="threading", **kw)
        ee = dict(random_state=1, n_chains=2, n_jobs=2, ee_steps=5, ee_inner_steps=10,
                  sampler_steps=100, se="none")
        ref_ee = flo.fit(method="ee", backend="threading", **ee)
        with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) \
                as cluster, distributed.Client(cluster):
            fit = flo.fit(method="mcmle", backend="dask", **kw)
            fit_ee = flo.fit(method="ee", backend="dask", **ee)
    assert np.array_equal(np.asarray(fit.params), np.asarray(ref.params))
    assert np.array_equal(np.asarray(fit_ee.params), np.asarray(ref_ee.params))


def test_backend_is_checked(flo):
    with pytest.raises(ef.exceptions.SettingsError, match="backend"):
        flo.fit(method="mcmle", backend="spark")
    with pytest.raises(ef.exceptions.SettingsError, match="n_jobs"):
        flo.fit(method="mcmle", n_jobs=0)


def test_an_ee_checkpoint_that_cannot_be_written_warns_and_the_fit_goes_on(tmp_path):
    m = ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual")
    (tmp_path / "a_file").write_text("")
    where = tmp_path / "a_file" / "ck"            # a directory below a file: never writable
    kw = dict(random_state=1, ee_steps=5, ee_inner_steps=10, sampler_steps=100, se="none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ef.ConvergenceWarning)
        with pytest.warns(CheckpointWarning, match="could not write the EE checkpoint"):
            fit = m.fit(method="ee", checkpoint=str(where), checkpoint_every=0.0, **kw)
        ref = m.fit(method="ee", **kw)
    assert np.array_equal(np.asarray(fit.params), np.asarray(ref.params))
