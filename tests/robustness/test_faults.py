"""Fault injection (#24): Ctrl-C in contrastive divergence, a full disk during a
save or a checkpoint, and bad settings that reach the estimators' own checks."""
import errno
import os
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import SaveError, SettingsError
from support.interrupts import sigint_soon


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + kstar(2)")


def test_cd_honours_ctrl_c_in_a_draw(default_sigint, monkeypatch):
    # a real SIGINT 0.3 s into the first CD draw of a long run (10^6 draws): the fit
    # comes back from inside that draw, not converged, marked interrupted, at its start
    from ergmfit.estimation.contrastive import cd
    m = ef.ERGM(ef.datasets.load_network("faux.mesa.high"), "edges + gwesp(0.25, fixed=True)")
    real, armed = cd.observed_design, []

    def observed_design(*args, **kwargs):      # called just before the first draw
        out = real(*args, **kwargs)
        armed.append(sigint_soon(0.3))
        return out
    monkeypatch.setattr(cd, "observed_design", observed_design)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = m.fit(method="cd", samplesize=10**6, random_state=1)
    armed[0].join()
    assert fit.info["interrupted"] and not fit.converged and fit.n_iter == 0
    assert np.all(np.isfinite(fit.params))
    assert any("interrupted" in str(w.message) for w in caught)


def test_cd_keeps_the_finished_iterations_on_ctrl_c(monkeypatch, flo):
    from ergmfit.estimation.contrastive import cd
    real, calls = cd.hotelling_iid, []

    def hotelling_iid(*args):                  # Ctrl-C during the second iteration
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args)
    monkeypatch.setattr(cd, "hotelling_iid", hotelling_iid)
    with pytest.warns(ef.exceptions.ConvergenceWarning, match="interrupted"):
        fit = flo.fit(method="cd", random_state=1, conv_pval=1.0)
    assert fit.n_iter == 1 and fit.info["interrupted"] and not fit.converged
    first = fit.info["history"][0]
    assert len(fit.info["history"]) == 1 and not np.allclose(fit.params, first["theta"])


def test_cd_as_a_start_passes_ctrl_c_on(default_sigint, monkeypatch, flo):
    # inside another estimator (MCMC-MLE's init='cd') the interrupt is not swallowed
    from ergmfit.estimation.contrastive import cd
    from ergmfit.estimation.contrastive.cd import CD

    def interrupted(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(cd, "hotelling_iid", interrupted)
    with pytest.raises(KeyboardInterrupt):
        CD(random_state=1).start(flo)
    assert CD(random_state=1).run(flo, keep_interrupted=True)["interrupted"]


@pytest.mark.parametrize("method", ["cd", "bcd", "mcle", "mcmle", "ee"])
@pytest.mark.parametrize("init", ["x", [1.0], [1.0, 2.0, 3.0], [np.nan, 0.0], [1.0, "y"]])
def test_bad_init_is_a_settings_error(flo, method, init):
    with pytest.raises(SettingsError, match="init"):
        flo.fit(method=method, init=init, random_state=1)


@pytest.mark.parametrize("settings", [dict(blocks="x"), dict(learning_rate="x"),
                                      dict(learning_rate=-5.0), dict(precondition=-5),
                                      dict(block_size=10**6)])
def test_bad_bcd_settings_are_settings_errors(flo, settings):
    with pytest.raises(SettingsError):
        flo.fit(method="bcd", random_state=1, **settings)


def test_bad_random_state_is_a_settings_error(flo):
    with pytest.raises(SettingsError, match="random_state"):
        flo.fit(method="mple", random_state="seed")


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("ext", ["json", "npz"])
def test_full_disk_keeps_the_old_results_file(tmp_path, monkeypatch, flo, ext):
    fit = flo.fit(method="mple")
    path = tmp_path / f"fit.{ext}"
    fit.save(path)
    before = path.read_bytes()
    monkeypatch.setattr(os, "fsync", _no_space)
    with pytest.raises(SaveError, match="No space left"):
        fit.save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before and os.listdir(tmp_path) == [path.name]


def test_full_disk_during_a_checkpoint_is_a_warning(tmp_path, monkeypatch, flo):
    from ergmfit.exceptions import CheckpointWarning
    ck = tmp_path / "ck.json"
    monkeypatch.setattr(os, "fsync", _no_space)
    with pytest.warns(CheckpointWarning):
        fit = flo.fit(method="mcmle", random_state=1, checkpoint=str(ck), samplesize=256)
    assert np.all(np.isfinite(fit.params)) and fit.converged
    assert os.listdir(tmp_path) == []            # no temporary file, no lock left


@pytest.mark.parametrize("output", ["stats", "networks"])
def test_simulate_returns_the_finished_draws_on_ctrl_c(default_sigint, flo, output):
    n = 10**6                                    # minutes of draws
    timer = sigint_soon(0.5)
    with pytest.warns(UserWarning, match="interrupted by the user"):
        out = flo.simulate([-1.5, 0.05], n=n, interval=2048, output=output, random_state=1)
    timer.join()
    assert 0 < len(out) < n
    if output == "stats":                        # the same draws as an uninterrupted run
        again = flo.simulate([-1.5, 0.05], n=len(out), interval=2048, output="stats",
                             random_state=1)
        np.testing.assert_array_equal(out, again)


@pytest.mark.parametrize("exc", [MemoryError(), OverflowError("value too large to convert to int")])
def test_cli_reports_sizes_beyond_the_machine_without_a_traceback(capsys, monkeypatch, exc):
    from ergmfit import cli

    def too_big(*args, **kwargs):
        raise exc
    monkeypatch.setattr(cli, "_fit", too_big)
    assert cli.main(["fit", "flomarriage", "edges", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ergmfit: error:") and "Traceback" not in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("method,settings", [("bcd", dict(batch_size=2**62)),
                                             ("bcd", dict(steps=2**40)),
                                             ("bcd", dict(kernel="x")),
                                             ("mcle", dict(kernel="x"))])
def test_block_settings_checked_when_built(method, settings):
    from ergmfit.estimation.registry import estimator_class
    with pytest.raises(SettingsError, match=next(iter(settings))):
        estimator_class(method)(**settings)


def test_bcd_ctrl_c_while_the_schedule_is_set_up(monkeypatch, flo):
    # a callable's n_iter=10^7 learning rates take seconds to set up: Ctrl-C there (in the
    # schedule's set-up, whatever the rates) returns the start
    from ergmfit.estimation.contrastive import bcd

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(bcd, "rate_schedule", interrupted)
    with pytest.warns(ef.exceptions.ConvergenceWarning, match="interrupted"):
        fit = flo.fit(method="bcd", random_state=1, n_iter=10**7)
    assert fit.info["interrupted"] and fit.n_iter == 0 and not fit.converged
    np.testing.assert_array_equal(fit.params, fit.info["init_params"])


@pytest.mark.parametrize("name,head,row", [
    ("bomb.csv.gz", b"from,to\n", b"a,b\n"),
    ("bomb.graphml.gz", b"<graphml><graph edgedefault='undirected'>", b"<node id='a'/>")])
def test_decompression_bomb_refused_early(tmp_path, name, head, row):
    # 2 MiB from ~2 kB: refused once 1 MiB is out (was: read whole; 200 MB of such a
    # csv.gz took 103 CPU s and 3.5 GB before its duplicate-tie error)
    import gzip
    from ergmfit.exceptions import DataFormatError
    path = tmp_path / name
    path.write_bytes(gzip.compress(head + row * (2 * 2 ** 20 // len(row))))
    # the bomb is named (read whole, the file would fail on its duplicate ties instead)
    with pytest.raises(DataFormatError, match="decompression bomb"):
        ef.read_network(str(path), directed=False)


def test_a_compressed_edge_list_reads(tmp_path):
    import gzip
    rng = np.random.default_rng(1)
    ties = {tuple(sorted(rng.choice(20000, 2, replace=False))) for _ in range(30000)}
    text = "from,to\n" + "".join(f"n{i},n{j}\n" for i, j in sorted(ties))
    path = tmp_path / "real.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    assert ef.read_network(str(path), directed=False).n_ties == len(ties)


def test_mcle_ctrl_c_while_the_blocks_are_built(monkeypatch, flo):
    from ergmfit.estimation.contrastive import mcle

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(mcle, "composite_design", interrupted)
    with pytest.warns(ef.exceptions.ConvergenceWarning, match="interrupted"):
        fit = flo.fit(method="mcle", random_state=1)
    assert fit.info["interrupted"] and not fit.converged
    np.testing.assert_allclose(fit.params, flo.fit(method="mple").params)   # the start
