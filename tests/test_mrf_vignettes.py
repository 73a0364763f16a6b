"""Smoke tests: the MRF vignettes run end to end with ERGMFIT_QUICK=1.

Each runs in a subprocess whose cwd is outside the repository, importing the
same ``ergmfit`` package as this test session (the installed one in CI)."""
import os
import subprocess
import sys

import pytest

import ergmfit

HERE = os.path.dirname(os.path.abspath(__file__))
VIGNETTES = os.path.join(os.path.dirname(HERE), "vignettes")


@pytest.mark.parametrize("name", ["asuncion_vbm", "asuncion_crf", "dillon_lebanon_scl", "yasuda_rbm", "vickrey_chain",
                                  "borisenko_mrf"])
def test_vignette_quick(name, tmp_path):
    script = os.path.join(VIGNETTES, name + ".py")
    if not os.path.exists(script):
        pytest.skip(f"{name}.py not present")
    env = dict(os.environ, ERGMFIT_QUICK="1", ERGMFIT_FIGURES=str(tmp_path / "figs"),
               PYTHONPATH=os.path.dirname(os.path.dirname(ergmfit.__file__)),
               MPLBACKEND="Agg")
    work = tmp_path / "run"
    work.mkdir()
    r = subprocess.run([sys.executable, script], cwd=str(work), env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "| quantity | paper | ergmfit |" in r.stdout
    assert (tmp_path / "figs" / f"{name}.png").stat().st_size > 1000
    assert (tmp_path / "figs" / f"{name}.md").exists()
