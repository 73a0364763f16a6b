"""``python -m pytest`` from the repository root tests the installed ergmfit.

``python -m`` puts the current directory first on ``sys.path``, and pytest puts this file's
directory there to import this file, so a clone's ``ergmfit/`` -- Python sources without the
compiled modules that ``pip install .`` built elsewhere -- would shadow the installed package
and collection would fail on the first compiled import.  When the source tree has not been
compiled in place (``python setup.py build_ext --inplace``), this file takes the repository root
off ``sys.path`` so that ``import ergmfit`` finds the installed package; when nothing is
installed either, the run stops with one line saying what to run.  A tree compiled in place is
tested as it is (the developer's set-up).  See docs/guide/python.md, "Running the tests from a
clone".
"""
import importlib.machinery
import importlib.util
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent
SOURCE = ROOT / "ergmfit"


def _source_tree_is_compiled() -> bool:
    """True when every ``.pyx`` module of the source tree has its compiled module beside it."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    for pyx in SOURCE.rglob("*.pyx"):
        if not any(pyx.with_name(pyx.stem + s).exists() for s in suffixes):
            return False
    return True


def _is_root(entry) -> bool:
    try:
        return pathlib.Path(entry or os.getcwd()).resolve() == ROOT
    except OSError:
        return False


def _use_the_installed_package():
    sys.path[:] = [p for p in sys.path if not _is_root(p)]
    for name in [m for m in sys.modules if m == "ergmfit" or m.startswith("ergmfit.")]:
        del sys.modules[name]          # imported from the source tree before this file ran
    spec = importlib.util.find_spec("ergmfit")
    if spec is None or spec.origin is None:
        import pytest
        raise pytest.UsageError(
            f"ergmfit is not installed and its source tree {SOURCE} is not compiled: run "
            f"`pip install .` (or `python setup.py build_ext --inplace`) first")


if SOURCE.is_dir() and not _source_tree_is_compiled():
    _use_the_installed_package()
