"""Where the vignettes write (issue #22 item 7): ``--out DIR``, else
``$ERGMFIT_FIGURES``, else a fresh temporary directory -- never the figures
committed in ``vignettes/figures/`` unless asked explicitly."""
import importlib.util
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

import ergmfit
from support.paths import ROOT, VIGNETTES


@pytest.fixture(scope="module")
def output():
    spec = importlib.util.spec_from_file_location("vignette_output", VIGNETTES / "_output.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_out_argument_wins_over_the_environment(output, tmp_path):
    env = {"ERGMFIT_FIGURES": str(tmp_path / "env")}
    assert output.figures_dir("x", ["--out", str(tmp_path / "a")], env) == tmp_path / "a"
    assert output.figures_dir("x", [f"--out={tmp_path / 'b'}"], env) == tmp_path / "b"
    assert output.figures_dir("x", ["--quick"], env) == tmp_path / "env"
    assert (tmp_path / "a").is_dir() and (tmp_path / "env").is_dir()
    with pytest.raises(SystemExit, match="--out needs a directory"):
        output.figures_dir("x", ["--out"], env)


def test_default_is_a_fresh_temporary_directory(output):
    a = output.figures_dir("lazega_tutorial", [], {})
    b = output.figures_dir("lazega_tutorial", [], {})
    try:
        assert a != b and a.is_dir() and not any(a.iterdir())
        assert a.name.startswith("ergmfit-lazega_tutorial-")
        assert pathlib.Path(tempfile.gettempdir()).resolve() in a.resolve().parents
        assert ROOT.resolve() not in a.resolve().parents
    finally:
        a.rmdir()
        b.rmdir()


def committed_figures():
    return {p.name: p.stat().st_mtime_ns for p in (VIGNETTES / "figures").glob("*")}


@pytest.mark.slow
def test_a_vignette_run_without_settings_leaves_the_committed_figures_alone(tmp_path):
    """vickrey_chain in its quick mode, run from the repository root with
    neither --out nor ERGMFIT_FIGURES: its figure goes to a new temporary
    directory, which it names, and vignettes/figures/ is untouched."""
    before = committed_figures()
    env = {k: v for k, v in os.environ.items() if k != "ERGMFIT_FIGURES"}
    env.update(ERGMFIT_QUICK="1", MPLBACKEND="Agg", TMPDIR=str(tmp_path),
               PYTHONPATH=os.path.dirname(os.path.dirname(ergmfit.__file__)))
    r = subprocess.run([sys.executable, str(VIGNETTES / "vickrey_chain.py")], cwd=str(ROOT),
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    made = [p for p in tmp_path.iterdir() if p.name.startswith("ergmfit-vickrey_chain-")]
    assert len(made) == 1 and (made[0] / "vickrey_chain.png").stat().st_size > 1000
    assert str(made[0]) in r.stdout
    assert committed_figures() == before
