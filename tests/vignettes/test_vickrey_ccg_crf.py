"""vignettes/vickrey_ccg_crf.py (Vickrey et al. 2010, Table 1: CCG against PL and CD-n on a
CRF): its numbers at several seeds.

Fast (default suite, a few seconds a seed): one quick-mode data draw (8x8 images, 12 + 12)
per base seed with PL, CD-1, CCG(ICM) and CCG(ICM+PL), checking what the vignette's
verdicts rest on and what held on every one of 12 quick seeds tried (0-11) and on every
one of the committed full run's 24 draws: every fitted CRF labels far better than sign(y)
(its error < 0.75 x sign(y)'s; observed at most 0.60 x), PL does NOT double CD-1's error
(the paper's "PL more than doubles the error" is not reproduced; observed PL/CD-1 ratio at
most 1.3 in quick mode, 1.00 ± 0.01 in the full run), and the edge coupling orders
PL > CCG(ICM+PL) > CCG(ICM) (PL over-couples; CCG from an empty objective with ICM
instantiations hardly couples).  More seeds, and the whole vignette at another base seed
with its verdicts, are marked ``long``.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ergmfit
from support.paths import VIGNETTES, load_script

FAST_SEEDS = ["2010", "11"]
LONG_SEEDS = ["23", "5", "7"]
QUICK_METHODS = ["PL", "CD-1", "CCG(ICM)", "CCG(ICM+PL)"]


def _quick_vignette(monkeypatch, seed):
    monkeypatch.setenv("ERGMFIT_QUICK", "1")
    monkeypatch.setenv("ERGMFIT_SEED", seed)
    return load_script(VIGNETTES / "vickrey_ccg_crf.py", name=f"_vickrey_ccg_crf_{seed}")


def _check_draw(v, draw):
    r = v.run_draw(draw, methods=QUICK_METHODS)
    fits, sign_err = r["fits"], r["sign_y_error"]
    assert set(fits) == set(QUICK_METHODS)
    for name, f in fits.items():
        assert np.all(np.isfinite(f["theta"])), (name, f)
        assert f["error"] < 0.75 * sign_err, (name, f["error"], sign_err)
    assert fits["PL"]["error"] < 2 * fits["CD-1"]["error"], fits
    edge = {name: f["theta"][2] for name, f in fits.items()}
    assert edge["PL"] > edge["CCG(ICM+PL)"] > edge["CCG(ICM)"], edge
    assert fits["CCG(ICM+PL)"]["rounds"] >= 1


@pytest.mark.parametrize("seed", FAST_SEEDS)
def test_quick_draw(seed, monkeypatch):
    _check_draw(_quick_vignette(monkeypatch, seed), 0)


@pytest.mark.long
@pytest.mark.parametrize("seed", LONG_SEEDS)
def test_quick_draw_more_seeds(seed, monkeypatch):
    v = _quick_vignette(monkeypatch, seed)
    for draw in range(2):
        _check_draw(v, draw)


def test_verdict_rules():
    """A claim needs MIN_DRAWS draws; beyond 2 s.e. in its direction it is reproduced,
    beyond 2 s.e. the other way reversed, else within the error bars."""
    v = load_script(VIGNETTES / "vickrey_ccg_crf.py", name="_vickrey_ccg_crf_rules")
    n = len(v.NAMES)
    a, b = v.NAMES.index("CCG(ICM+PL)"), v.NAMES.index("CD-1")
    E = np.full((6, n), 0.1)
    E[:, b] = 0.1 + np.array([0.010, 0.012, 0.011, 0.009, 0.010, 0.013])
    assert v.verdict(E, "CCG(ICM+PL)", "CD-1")[0] == "reproduced"
    assert v.verdict(E, "CD-1", "CCG(ICM+PL)")[0].startswith("not reproduced (reversed")
    E[:, b] = 0.1 + np.array([0.01, -0.01, 0.02, -0.02, 0.0, 0.001])
    assert "within 2 s.e." in v.verdict(E, "CCG(ICM+PL)", "CD-1")[0]
    assert v.verdict(E[:2], "CCG(ICM+PL)", "CD-1")[0].startswith("no verdict")
    E[:, v.NAMES.index("PL")] = 0.25
    assert v.ratio_verdict(E, "PL", "CD-1")[0] == "reproduced"
    assert v.ratio_verdict(E, "PL", "CCG(ICM+PL)", factor=3)[0] == "not reproduced"


@pytest.mark.long
def test_whole_vignette_at_another_seed(tmp_path):
    """The full vignette with 5 data draws at base seed 11: the verdicts the committed run
    (seed 2010, 10 draws) gives with clear margins hold."""
    env = dict(os.environ, ERGMFIT_SEEDS="5", ERGMFIT_SEED="11",
               ERGMFIT_FIGURES=str(tmp_path / "figs"), MPLBACKEND="Agg",
               PYTHONPATH=os.path.dirname(os.path.dirname(ergmfit.__file__)))
    env.pop("ERGMFIT_QUICK", None)
    work = tmp_path / "run"
    work.mkdir()
    r = subprocess.run([sys.executable, str(VIGNETTES / "vickrey_ccg_crf.py")], cwd=str(work),
                       env=env, capture_output=True, text=True, timeout=3600)
    assert r.returncode == 0, r.stderr[-3000:]
    with open(tmp_path / "figs" / "vickrey_ccg_crf.json") as fh:
        res = json.load(fh)
    assert (tmp_path / "figs" / "vickrey_ccg_crf.png").stat().st_size > 1000
    assert res["verdicts"]["pl_doubles"] == "not reproduced"
    E = np.array(res["errors"])
    assert np.all(E < 0.75 * np.array(res["sign_y_error"])[:, None])
