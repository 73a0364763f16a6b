"""The documentation site (Sphinx, ``docs/``) builds without warnings and covers the package.

* The site builds with ``-W --keep-going -n`` (warnings, unresolved Python
  references included, are errors) -- the README's command, into ``tmp_path``.
* Its API pages name every public name of every public module, and its term
  reference every entry of the term registry; the public names are computed
  here, independently of ``docs/docgen.py``: a module's ``__all__``, else the
  classes and functions it defines whose names do not start with ``_``.
* Every vignette has a gallery page with its committed figures.
* The ``>>>`` examples of the user-guide pages run (doctest; the quick
  start's run in ``tests/test_doctests.py``), and so do the ``python`` code
  blocks of every Markdown page (errors.md's run in ``tests/test_docs.py``).

The build test needs ``sphinx`` and ``myst-parser`` (the ``docs`` and ``test``
extras) and is skipped, saying so, without them.
"""
from __future__ import annotations

import doctest
import html
import importlib
import importlib.util
import inspect
import pathlib
import pkgutil
import re
import subprocess
import sys

import pytest

import ergmfit

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS

#: modules the issue names: they must have API pages
REQUIRED_MODULES = ("ergmfit", "ergmfit.estimation", "ergmfit.diagnostics", "ergmfit.constraints",
                    "ergmfit.mrf", "ergmfit.datasets", "ergmfit.network", "ergmfit.network.io",
                    "ergmfit.results", "ergmfit.results.bayes", "ergmfit.gof", "ergmfit.plotting",
                    "ergmfit.exceptions", "ergmfit.formula",
                    "ergmfit.estimation.mple.pseudolikelihood", "ergmfit.estimation.mcmle.estimator",
                    "ergmfit.estimation.contrastive.cd", "ergmfit.estimation.ee.estimator",
                    "ergmfit.estimation.contrastive.bcd", "ergmfit.estimation.contrastive.mcle",
                    "ergmfit.estimation.bayes.exchange",
                    "ergmfit.estimation.bayes.pseudo_posterior", "ergmfit.families")


def _docgen():
    spec = importlib.util.spec_from_file_location("_docs_docgen", DOCS / "docgen.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


DOCGEN = _docgen()


def _public_names(modname):
    mod = importlib.import_module(modname)
    if hasattr(mod, "__all__"):
        return [n for n in mod.__all__ if not n.startswith("_")]
    return [n for n, obj in vars(mod).items()
            if not n.startswith("_") and (inspect.isclass(obj) or inspect.isfunction(obj))
            and getattr(obj, "__module__", None) == modname]


def _documented_modules():
    names = ["ergmfit"] + [m.name for m in pkgutil.walk_packages(ergmfit.__path__, "ergmfit.")]
    return sorted(m for m in set(names) if DOCGEN.excluded_reason(m) is None)


# ---------------------------------------------------------------------------
# what the generator documents (no Sphinx needed)
# ---------------------------------------------------------------------------
def test_every_module_is_documented_or_excluded_with_a_reason():
    documented = set(DOCGEN.api_modules())
    assert set(REQUIRED_MODULES) <= documented, sorted(set(REQUIRED_MODULES) - documented)
    names = ["ergmfit"] + [m.name for m in pkgutil.walk_packages(ergmfit.__path__, "ergmfit.")]
    for modname in names:
        reason = DOCGEN.excluded_reason(modname)
        assert (modname in documented) != bool(reason), modname
    # the exclusions stay few and explained
    assert len(DOCGEN.EXCLUDED) <= 12 and all(DOCGEN.EXCLUDED.values())


def test_api_pages_list_every_public_name():
    pages = DOCGEN.api_pages()
    checked = 0
    for modname in _documented_modules():
        text = pages[f"{modname}.rst"]
        for name in _public_names(modname):
            full = f"{modname}.{name}"
            assert (re.search(rf"^\.\. (auto\w+:: {re.escape(full)}|py:data:: {name})$", text,
                              re.M)
                    or f"* ``{name}``: " in text), f"{full} is not on the API page of {modname}"
            checked += 1
    assert checked > 300


def test_term_reference_lists_every_registered_term():
    from ergmfit.terms.registry import all_terms
    text = DOCGEN.terms_page()
    for spec in all_terms():
        assert f"{spec.name} ({spec.kinds})" in text, spec.name
        assert f"``{spec.signature()}``" in text, spec.name
        for alias in spec.aliases:
            assert f"``{alias}``" in text, (spec.name, alias)


def test_every_vignette_and_committed_figure_is_in_the_gallery():
    pages = DOCGEN.gallery_pages()
    vignettes = sorted(p.stem for p in (ROOT / "vignettes").glob("*.py")
                       if not p.name.startswith("_"))
    assert vignettes and all(f"{v}.rst" in pages for v in vignettes)
    shown = "\n".join(pages.values())
    for fig in (ROOT / "vignettes" / "figures").iterdir():
        assert f"vignettes/figures/{fig.name}" in shown, f"{fig.name} is on no gallery page"
    for v in vignettes:
        assert f".. literalinclude:: ../../vignettes/{v}.py" in pages[f"{v}.rst"]


def test_formula_text_is_escaped_outside_literals_only():
    lines = ["|x_i - x_j| over ties (i, j_)", "``|a|`` and :func:`f_` stay", "Example::", "",
             "    |kept| x_", ">>> abs(-1)  # |x|"]
    out = DOCGEN.escape_formula_text(lines)
    assert out[0] == r"\|x_i - x_j\| over ties (i, j\_)"
    assert out[1] == lines[1]
    assert out[3:] == lines[3:]


# ---------------------------------------------------------------------------
# the guide's examples
# ---------------------------------------------------------------------------
GUIDE = sorted((DOCS / "guide").rglob("*.md"))


@pytest.mark.parametrize("page", GUIDE, ids=lambda p: str(p.relative_to(DOCS)))
def test_guide_examples_run(page):
    result = doctest.testfile(str(page), module_relative=False, optionflags=FLAGS,
                              raise_on_error=False, verbose=False)
    assert result.failed == 0, f"{page.name}: {result.failed} of {result.attempted} failed"


#: the ``python`` code blocks of the Markdown pages run too (errors.md's are the error cases
#: of docs/make_errors_table.py, run by tests/test_docs.py); a page whose blocks continue a
#: session the page describes in words gets that session first
PYTHON_BLOCK_PAGES = sorted(p for p in list(DOCS.glob("*.md")) + GUIDE if p.name != "errors.md")
SESSION = {"statnet_mapping.md": ("import ergmfit as ef\n"
                                  "m = ef.ERGM(ef.datasets.load('flomarriage'), 'edges + triangle')\n"
                                  "fit = m.fit(method='mcmle', random_state=1)\n")}


def _python_blocks(text):
    return re.findall(r"^```python[ \t]*\n(.*?)^```[ \t]*$", text, re.M | re.S)


@pytest.mark.parametrize("page", [p for p in PYTHON_BLOCK_PAGES
                                  if _python_blocks(p.read_text(encoding="utf-8"))],
                         ids=lambda p: str(p.relative_to(DOCS)))
def test_python_blocks_run(page, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    monkeypatch.chdir(tmp_path)           # the examples' files (gof.png, ...) land here
    namespace = {"__name__": "__docs__"}
    exec(compile(SESSION.get(page.name, ""), f"<session {page.name}>", "exec"), namespace)
    try:
        for i, block in enumerate(_python_blocks(page.read_text(encoding="utf-8"))):
            exec(compile(block, f"<{page.name} python block {i + 1}>", "exec"), namespace)
    finally:
        plt.close("all")


def test_guide_pages_are_in_the_table_of_contents():
    toc = (DOCS / "index.rst").read_text(encoding="utf-8")
    toc += (DOCS / "guide" / "estimators" / "index.md").read_text(encoding="utf-8")
    for page in GUIDE:
        stem = page.relative_to(DOCS / "guide").with_suffix("").as_posix()
        assert (f"guide/{stem}" in toc or page.parent.name == "estimators"
                and page.stem in toc or f"../{page.stem}" in toc), stem


# ---------------------------------------------------------------------------
# the build
# ---------------------------------------------------------------------------
@pytest.mark.slow
def test_site_builds_without_warnings_and_covers_every_name(tmp_path):
    pytest.importorskip("sphinx", reason="sphinx is not installed (pip install '.[docs]')")
    pytest.importorskip("myst_parser", reason="myst-parser is not installed (pip install '.[docs]')")
    out = tmp_path / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q",
                           "-b", "html", "-d", str(tmp_path / "doctrees"), str(DOCS), str(out)],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-5000:]
    assert "WARNING" not in proc.stderr and "ERROR" not in proc.stderr, proc.stderr[-5000:]
    # every public name has an entry (an anchor) on its module's page, or a link to where
    # the object is documented
    for modname in _documented_modules():
        page = html.unescape((out / "api" / f"{modname}.html").read_text(encoding="utf-8"))
        for name in _public_names(modname):
            obj = getattr(importlib.import_module(modname), name)
            if inspect.ismodule(obj):
                assert f"{obj.__name__}.html" in page, f"{modname}.{name}"
                continue
            assert (f'id="{modname}.{name}"' in page
                    or re.search(rf'<a class="reference internal" href="[^"]*#ergmfit(\.\w+)*'
                                 rf'\.{re.escape(name)}"', page)), f"{modname}.{name}"
    terms = (out / "api" / "terms.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", terms))      # literals are split into spans
    from ergmfit.terms.registry import all_terms
    for spec in all_terms():
        assert f'id="{DOCGEN._term_anchor(spec)}"' in terms, spec.name
        assert spec.signature() in text, spec.name
    for v in sorted(p.stem for p in (ROOT / "vignettes").glob("*.py")
                    if not p.name.startswith("_")):
        assert (out / "gallery" / f"{v}.html").exists(), v
    assert (out / "_images" / "lazega_gof.png").exists()
