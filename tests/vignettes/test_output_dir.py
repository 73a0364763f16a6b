"""Where the vignettes write (issue #22 item 7): ``--out DIR``, else
``$ERGMFIT_FIGURES``, else a fresh temporary directory -- never the figures
committed in ``vignettes/figures/`` unless asked explicitly."""
import importlib.util
import pathlib
import tempfile

import pytest

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


# A real vignette run with neither --out nor ERGMFIT_FIGURES (its figure goes to a new
# temporary directory, which it names; vignettes/figures/ untouched) is checked on the quick
# vickrey_chain run of test_mrf_vignettes.py::test_vignette_quick, which runs it anyway.
