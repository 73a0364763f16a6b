"""The ``Examples`` of the public modules' docstrings run as doctests.

Every module of the package is imported (``pkgutil.walk_packages``) and
every docstring example found by :class:`doctest.DocTestFinder` is run with
``NORMALIZE_WHITESPACE | ELLIPSIS``, one test per docstring.  Examples that
are wrong or too slow are listed in :data:`SKIP` with the reason (they are
reported to the module's owner; the test names them so they stay visible).
``docs/quickstart.md`` runs too: its ``>>>`` blocks are a doctest file.
"""
from __future__ import annotations

import doctest
import importlib
import os
import pkgutil
import re
import tempfile
import warnings

import pytest

import ergmfit
from support.paths import ROOT

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS

#: modules whose import fails are reported by test_every_module_imports;
#: here: fully qualified docstring name -> reason it is not run
SKIP: dict = {}

#: modules not searched for examples (none: every module is public enough to keep its
#: examples true); private helpers start with "_" and are searched too
EXCLUDE_MODULES: tuple = ()


def _module_names():
    names = ["ergmfit"]
    for info in pkgutil.walk_packages(ergmfit.__path__, "ergmfit."):
        if not any(info.name == m or info.name.startswith(m + ".") for m in EXCLUDE_MODULES):
            names.append(info.name)
    return sorted(set(names))


MODULES = _module_names()


def _import(name):
    try:
        return importlib.import_module(name), None
    except Exception as exc:  # noqa: BLE001 - reported by test_every_module_imports
        return None, exc


def _collect():
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = {}
    for name in MODULES:
        mod, _ = _import(name)
        if mod is None:
            continue
        for t in finder.find(mod, name):
            if t.examples and t.name not in tests:
                tests[t.name] = t
    return tests


DOCTESTS = _collect()


def test_every_module_imports():
    failed = {}
    for name in MODULES:
        mod, exc = _import(name)
        if mod is None:
            failed[name] = f"{type(exc).__name__}: {exc}"
    assert not failed, failed


def test_examples_were_found():
    # the public entry points keep runnable examples
    for name in ("ergmfit", "ergmfit.model.ERGM", "ergmfit.datasets", "ergmfit.formula"):
        assert name in DOCTESTS, f"no docstring example in {name}"
    assert sum(len(t.examples) for t in DOCTESTS.values()) >= 20


def test_skips_are_current():
    # a skip whose docstring no longer exists must go
    stale = [name for name in SKIP if name not in DOCTESTS]
    assert not stale, f"SKIP names docstrings that no longer have examples: {stale}"


def _run(test):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out = []
    # a fresh copy of the globals: examples must not leak into each other
    test.globs = dict(test.globs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = os.environ.get("MPLBACKEND")
        os.environ["MPLBACKEND"] = "Agg"
        try:
            result = runner.run(test, out=out.append, clear_globs=True)
        finally:
            if old is None:
                os.environ.pop("MPLBACKEND", None)
            else:
                os.environ["MPLBACKEND"] = old
    return result, "".join(out)


@pytest.mark.parametrize("name", sorted(DOCTESTS))
def test_docstring_examples(name, tmp_path, monkeypatch):
    if name in SKIP:
        pytest.skip(SKIP[name])
    # examples that make a scratch directory (tempfile.mkdtemp(): atomic_write's,
    # CheckpointState's) make it here, not in the system's /tmp, where they stayed
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    result, report = _run(DOCTESTS[name])
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed:\n{report}"


def _markdown_doctest(path):
    """The ``pycon`` blocks of a Markdown file as one doctest."""
    text = path.read_text(encoding="utf-8")
    blocks = re.findall(r"^```pycon\n(.*?)^```", text, flags=re.S | re.M)
    source = "\n".join(blocks)
    return doctest.DocTestParser().get_doctest(source, {"__name__": path.stem}, path.name,
                                               str(path), 0)


def test_quickstart_runs(tmp_path, monkeypatch):
    # the quickstart writes its figure and its saved fit to the working directory
    monkeypatch.chdir(tmp_path)
    test = _markdown_doctest(ROOT / "docs" / "quickstart.md")
    assert len(test.examples) >= 15
    result, report = _run(test)
    assert result.failed == 0, report
    assert (tmp_path / "gof.png").stat().st_size > 1000
