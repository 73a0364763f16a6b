"""``python -m pytest`` from a fresh clone's root tests the installed package (#37 item 3).

The repository's ``conftest.py`` is copied into a temporary mock-up of a clone whose
``ergmfit/`` source tree is not compiled, beside a mock "installed" ergmfit on PYTHONPATH;
pytest runs there in a subprocess (never from the real repository root)."""
import importlib.machinery
import os
import shutil
import subprocess
import sys

import pytest

from support.paths import ROOT

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
TEST = ("import ergmfit\n\n"
        "def test_which_ergmfit():\n"
        "    assert ergmfit.WHERE == {expected!r}, ergmfit.__file__\n")


def _clone(tmp_path, *, installed, compiled, expected="installed"):
    repo = tmp_path / "clone"
    (repo / "ergmfit" / "core").mkdir(parents=True)
    (repo / "tests").mkdir()
    shutil.copy(ROOT / "conftest.py", repo / "conftest.py")
    (repo / "pyproject.toml").write_text(PYPROJECT)
    src = "ergmfit/__init__.py"
    if compiled:
        (repo / src).write_text("WHERE = 'source'\n")
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        (repo / "ergmfit" / "core" / ("_kernel" + suffix)).write_bytes(b"")
    else:
        (repo / src).write_text("raise ImportError('the uncompiled source tree was imported')\n")
    (repo / "ergmfit" / "core" / "_kernel.pyx").write_text("# compiled by setup.py\n")
    (repo / "tests" / "test_which.py").write_text(TEST.format(expected=expected))
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"       # a bare pytest: starts in a blink
    if installed:
        site = tmp_path / "site"
        (site / "ergmfit").mkdir(parents=True)
        (site / "ergmfit" / "__init__.py").write_text("WHERE = 'installed'\n")
        env["PYTHONPATH"] = str(site)
    return repo, env


def _pytest(repo, env, *args, python_flags=()):
    return subprocess.run([sys.executable, *python_flags, "-m", "pytest", "-q", "-p",
                           "no:cacheprovider", *args],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=120)


def _pytest_alone(tmp_path):
    """A directory holding pytest and the packages it imports, and nothing else of this
    environment's site-packages: with ``python -S`` (no site-packages) and this directory
    on PYTHONPATH, an ergmfit installed beside pytest (as in CI) is out of reach."""
    import importlib.util
    import pathlib
    alone = tmp_path / "pytest_alone"
    alone.mkdir()
    for name in ("pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pygments"):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        origin = pathlib.Path(spec.origin)
        source = origin.parent if origin.name == "__init__.py" else origin
        (alone / source.name).symlink_to(source)
    return alone


@pytest.mark.parametrize("how", [(), ("tests/test_which.py",)])
def test_python_m_pytest_in_a_fresh_clone_imports_the_installed_package(tmp_path, how):
    repo, env = _clone(tmp_path, installed=True, compiled=False)
    run = _pytest(repo, env, *how)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout


def test_without_an_installed_package_one_line_says_what_to_run(tmp_path):
    repo, env = _clone(tmp_path, installed=False, compiled=False)
    env["PYTHONPATH"] = str(_pytest_alone(tmp_path))
    run = _pytest(repo, env, python_flags=("-S",))
    assert run.returncode != 0
    out = run.stdout + run.stderr
    lines = [line for line in out.splitlines() if "not installed" in line]
    assert len(lines) == 1 and "pip install ." in lines[0], out
    assert "Traceback" not in out, out


def test_a_source_tree_compiled_in_place_is_tested_as_it_is(tmp_path):
    repo, env = _clone(tmp_path, installed=True, compiled=True, expected="source")
    run = _pytest(repo, env)
    assert run.returncode == 0, run.stdout + run.stderr
