"""vignettes/dillon_lebanon_crf.py (Dillon & Lebanon 2009, Sec. 7.2: stochastic composite
likelihood on a chain CRF): its numbers at several seeds.

Fast (default suite, a few seconds a seed): one quick-mode data draw (40 short documents,
a 300-word vocabulary) per base seed with the FL/PL1 mixtures at sigma^2 = 1, checking what
the vignette's train-side verdicts rest on: the train log-likelihood per sentence rises
with the selection probability lambda of the full likelihood (PL1 alone < lambda 0.5 <
lambda 1) and with its weight beta (0.25 < 1 < 4), the work per document rises with lambda,
and PL1 alone costs q per label.  More seeds (both mixtures, both sigma^2), and the whole
quick vignette at another base seed with its table and figures, are marked ``long``.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ergmfit
from support.paths import VIGNETTES, load_script

FAST_SEEDS = ["2009", "11"]
LONG_SEEDS = ["23", "5", "7"]
FAST_NAMES = ["FL:0.5,1|1", "FL:1,1|1", "FL:1,0.25|1", "FL:1,4|1"]


def _quick_vignette(monkeypatch, seed):
    monkeypatch.setenv("ERGMFIT_QUICK", "1")
    monkeypatch.setenv("ERGMFIT_SEED", seed)
    return load_script(VIGNETTES / "dillon_lebanon_crf.py", name=f"_dillon_crf_{seed}")


def _check_mixture(fits, mix, s2):
    def f(lam, beta=1.0):
        return fits[f"PL1|{s2:g}"] if lam == 0 else fits[f"{mix}:{lam:g},{beta:g}|{s2:g}"]
    for name, r in fits.items():
        assert np.isfinite(r["train"]) and np.isfinite(r["test"]) and r["converged"], (name, r)
        assert r["train"] < 0 and r["test"] < 0
    assert f(0)["train"] < f(0.5)["train"] < f(1)["train"], (f(0), f(0.5), f(1))
    assert f(1, 0.25)["train"] < f(1)["train"] < f(1, 4.0)["train"]
    assert f(0)["cost"] < f(0.5)["cost"] < f(1)["cost"]
    assert f(1)["cost"] == f(1, 4.0)["cost"]          # the cost depends on lambda only


@pytest.mark.parametrize("seed", FAST_SEEDS)
def test_quick_draw(seed, monkeypatch):
    v = _quick_vignette(monkeypatch, seed)
    r = v.run_draw(0, names=FAST_NAMES)
    assert set(r["fits"]) == set(FAST_NAMES) | {"PL1|1"}
    _check_mixture(r["fits"], "FL", 1.0)
    assert r["fits"]["PL1|1"]["cost"] == pytest.approx(5 * r["n_train_labels"] / 20)


@pytest.mark.long
@pytest.mark.parametrize("seed", LONG_SEEDS)
def test_quick_draw_more_seeds(seed, monkeypatch):
    v = _quick_vignette(monkeypatch, seed)
    for draw in range(2):
        r = v.run_draw(draw)
        for mix in v.MIXES:
            for s2 in v.SIGMA2S:
                _check_mixture(r["fits"], mix, s2)


def test_verdict_rules():
    """A claim needs MIN_DRAWS draws; beyond 2 s.e. in its direction it is reproduced
    (on k of m draws), beyond 2 s.e. the other way reversed, else within the error bars."""
    v = load_script(VIGNETTES / "dillon_lebanon_crf.py", name="_dillon_crf_rules")
    n = len(v.NAMES)
    a, b = "FL:1,1|1", "PL1|1"
    M = np.zeros((4, n))
    M[:, v.NAMES.index(a)] = [0.10, 0.12, 0.11, -0.01]
    assert v.verdict(M, a, b, "x")[0] == "reproduced on 3 of 4 draws"
    assert v.verdict(M, b, a, "x")[0].startswith("not reproduced: reversed")
    M[:, v.NAMES.index(a)] = [0.1, -0.1, 0.05, -0.06]
    assert v.verdict(M, a, b, "x")[0] == "not reproduced: difference within 2 s.e."
    assert v.verdict(M[:2], a, b, "x")[0].startswith("no verdict")


@pytest.mark.long
def test_whole_quick_vignette_at_another_seed(tmp_path):
    env = dict(os.environ, ERGMFIT_QUICK="1", ERGMFIT_SEEDS="3", ERGMFIT_SEED="11",
               ERGMFIT_FIGURES=str(tmp_path / "figs"), MPLBACKEND="Agg",
               PYTHONPATH=os.path.dirname(os.path.dirname(ergmfit.__file__)))
    work = tmp_path / "run"
    work.mkdir()
    r = subprocess.run([sys.executable, str(VIGNETTES / "dillon_lebanon_crf.py")],
                       cwd=str(work), env=env, capture_output=True, text=True, timeout=3600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "| quantity | paper | ergmfit |" in r.stdout
    for name in ("dillon_lebanon_crf.png", "dillon_lebanon_crf_fig3.png"):
        assert (tmp_path / "figs" / name).stat().st_size > 1000
    with open(tmp_path / "figs" / "dillon_lebanon_crf.json") as fh:
        res = json.load(fh)
    train_rows = [c for c in res["claims"] if c["claim"].startswith("train log-lik rises")]
    assert len(train_rows) == 12
    assert all(c["verdict"].startswith("reproduced") for c in train_rows), train_rows
