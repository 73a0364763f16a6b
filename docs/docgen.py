"""Generate the site's reference pages from the package: API, terms, vignette gallery.

``docs/conf.py`` runs :func:`generate` before Sphinx reads the sources, so the
generated pages can never go stale (they are git-ignored, never committed):

* ``api/<module>.rst``: one page per documented module, an autodoc entry for
  every public name (:func:`public_names`: the module's ``__all__``, else the
  classes and functions the module defines whose names do not start with
  ``_``).  An object re-exported by several modules is documented once, at
  the first of :func:`api_modules` that exposes it, and the others link to it.
* ``api/terms.rst``: the term reference, from the one term table
  (``ergmfit.terms.registry.all_terms()``, what ``ergmfit terms`` prints),
  grouped by family, every term with its signature, kinds, aliases and
  documentation.
* ``gallery/<vignette>.rst``: one page per vignette (``vignettes/*.py`` not
  starting with ``_``): its docstring, its committed figures and results
  tables from ``vignettes/figures/`` (the files its source names), and its
  source.  Vignettes are never run during the build.

The test ``tests/test_docs_site.py`` compares these pages with the package.
"""
from __future__ import annotations

import importlib
import inspect
import pathlib
import pkgutil
import re

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
VIGNETTES = ROOT / "vignettes"
FIGURES = VIGNETTES / "figures"

#: modules not documented in the API reference, with the reason (every other module whose
#: dotted name has no component starting with "_" is documented)
EXCLUDED = {
    "ergmfit.__main__": "runs the command line (python -m ergmfit)",
    "ergmfit.cli": "the command line; `ergmfit --help` documents it",
    "ergmfit.core": "the compiled binary-model interface (Cython), no Python API",
    "ergmfit.terms.*": "term builders: documented in the term reference, generated from the "
                       "term registry",
    "ergmfit.utils.fileio": "private file helpers",
    "ergmfit.utils.validation": "private argument checks",
    "ergmfit.utils.optimize": "private optimisation helpers",
    "ergmfit.rformat": "private number formatting in statnet's style",
    "ergmfit.labeled": "LabeledArray, re-exported and documented in ergmfit.results",
    "ergmfit.gofgraph": "graph summaries, re-exported and documented in ergmfit.gof",
}

#: term modules documented anyway (the registry's and the public term classes)
TERM_MODULES_DOCUMENTED = ("ergmfit.terms", "ergmfit.terms.registry")

#: the order of the API pages (modules not named here follow, sorted)
ORDER = ["ergmfit", "ergmfit.datasets", "ergmfit.network", "ergmfit.network.io",
         "ergmfit.formula", "ergmfit.model", "ergmfit.constraints", "ergmfit.results",
         "ergmfit.results.ergm", "ergmfit.results.bayes", "ergmfit.results.diagnostics",
         "ergmfit.results.io", "ergmfit.diagnostics", "ergmfit.gof", "ergmfit.plotting",
         "ergmfit.exceptions", "ergmfit.estimation"]


def excluded_reason(modname: str):
    """Why ``modname`` is left out of the API reference, or None when it is documented."""
    if modname in EXCLUDED:
        return EXCLUDED[modname]
    if any(part.startswith("_") for part in modname.split(".")):
        return "private module"
    if modname.startswith("ergmfit.core."):
        return EXCLUDED["ergmfit.core"]
    if modname.startswith("ergmfit.terms.") and modname not in TERM_MODULES_DOCUMENTED:
        return EXCLUDED["ergmfit.terms.*"]
    return None


def all_modules() -> list:
    """Every module of the package (``pkgutil.walk_packages``), ``ergmfit`` first."""
    import ergmfit
    names = ["ergmfit"] + [m.name for m in pkgutil.walk_packages(ergmfit.__path__, "ergmfit.")]
    return sorted(set(names))


def api_modules() -> list:
    """The documented modules, in page order."""
    mods = [m for m in all_modules() if excluded_reason(m) is None]
    first = [m for m in ORDER if m in mods]
    return first + sorted(m for m in mods if m not in first)


def public_names(modname: str) -> list:
    """A module's public names: its ``__all__``, else what it defines (classes, functions)."""
    mod = importlib.import_module(modname)
    names = getattr(mod, "__all__", None)
    if names is not None:
        return [n for n in names if not n.startswith("_")]
    out = []
    for name, obj in vars(mod).items():
        if name.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if getattr(obj, "__module__", None) == modname:
            out.append(name)
    return out


def _kind(obj) -> str:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "data"


def _title(text: str, char: str = "=") -> list:
    return [text, char * max(len(text), 3), ""]


def _first_line(doc) -> str:
    doc = inspect.cleandoc(doc or "")
    return doc.split("\n\n")[0].replace("\n", " ").strip()


def api_pages() -> dict:
    """``{filename: rst text}`` of the API reference (``api/``)."""
    pages = {}
    where = {}              # id(object) -> the documented dotted name
    mods = api_modules()
    for modname in mods:
        mod = importlib.import_module(modname)
        lines = _title(f"``{modname}``") + [f".. automodule:: {modname}", "   :no-members:", ""]
        entries = []
        for name in public_names(modname):
            if not hasattr(mod, name):
                raise AttributeError(f"{modname}.__all__ names {name!r}, which it lacks")
            obj = getattr(mod, name)
            kind = _kind(obj)
            full = f"{modname}.{name}"
            if kind == "module":
                entries += [f"* ``{name}``: the module :mod:`{obj.__name__}`", ""]
                continue
            key = id(obj) if kind != "data" else (modname, name)
            if kind != "data" and key in where:
                entries += [f"* ``{name}``: see :py:obj:`{where[key]}`", ""]
                continue
            where[key] = full
            if kind in ("class", "exception"):
                entries += [f".. autoclass:: {full}", "   :members:", "   :show-inheritance:",
                            ""]
                if kind == "class":
                    entries.insert(-1, "   :special-members: __call__")
            elif kind == "function":
                entries += [f".. autofunction:: {full}", ""]
            else:           # a constant: its value, not the docstring of its type
                value = repr(obj)
                entries += [f".. py:data:: {name}", f"   :module: {modname}", ""]
                entries += ([f"   ``{value}``", ""] if len(value) <= 200 and "``" not in value
                            else [f"   A ``{type(obj).__name__}``.", ""])
        if entries:
            lines += [".. currentmodule:: " + modname, ""] + entries
        else:
            lines += ["No public names besides the module's documentation.", ""]
        pages[f"{modname}.rst"] = "\n".join(lines)
    index = _title("API reference") + [
        "Generated from the docstrings of every public module (``docs/docgen.py``); each page "
        "lists every public name of its module (its ``__all__``, else the classes and "
        "functions it defines).  The term language has its own page, generated from the term "
        "registry.", "", ".. toctree::", "   :maxdepth: 1", "", "   terms"]
    index += [f"   {m}" for m in mods]
    index += ["", "Not documented here (with the reason):", ""]
    for key, reason in EXCLUDED.items():
        index.append(f"* ``{key}``: {reason}")
    pages["index.rst"] = "\n".join(index) + "\n"
    pages["terms.rst"] = terms_page()
    return pages


def _term_anchor(spec) -> str:
    return "term-" + re.sub(r"[^a-z0-9]+", "-", f"{spec.name}-{spec.kinds}".lower()).strip("-")


def terms_page() -> str:
    """The term reference, from ``ergmfit.terms.registry.all_terms()``."""
    from ergmfit.terms.registry import all_terms
    specs = all_terms()
    families = {}
    for s in specs:
        families.setdefault(s.family or "other", []).append(s)
    lines = _title("Term reference") + [
        f"Every term of the formula language: {len(specs)} entries of the one term table "
        "(``ergmfit/terms/registry.py``; ``ergmfit terms`` prints the same table, "
        "``ergmfit terms --json`` with the full documentation).  *kinds* says which networks "
        "a term accepts; a name may have one entry per kind.  Arguments without a default are "
        "required.  Which statnet terms are supported: :doc:`../terms_coverage`.", "",
        ".. contents:: Families", "   :local:", "   :depth: 1", ""]
    for family in sorted(families):
        group = families[family]
        lines += _title(family[:1].upper() + family[1:], "-")
        lines += [".. list-table::", "   :header-rows: 1", "   :widths: 20 12 68", "",
                  "   * - term", "     - kinds", "     - signature"]
        for s in group:
            lines += [f"   * - :ref:`{s.name} <{_term_anchor(s)}>`", f"     - {s.kinds}",
                      f"     - ``{s.signature()}``"]
        lines.append("")
        for s in group:
            lines += [f".. _{_term_anchor(s)}:", ""]
            lines += _title(f"{s.name} ({s.kinds})", "~")
            lines += [f"``{s.signature()}``", ""]
            if s.aliases:
                lines += ["Aliases: " + ", ".join(f"``{a}``" for a in s.aliases), ""]
            lines += [".. py:currentmodule:: " + s.builder.__module__, ""]
            lines += escape_formula_text(inspect.cleandoc(s.doc).splitlines()) if s.doc else [
                "*(no documentation)*"]
            lines.append("")
    return "\n".join(lines) + "\n"


def vignette_names() -> list:
    """The vignettes (``vignettes/*.py`` whose names do not start with ``_``)."""
    return sorted(p.stem for p in VIGNETTES.glob("*.py") if not p.name.startswith("_"))


def vignette_figures(name: str) -> list:
    """Committed files of ``vignettes/figures/`` that vignette ``name``'s source names."""
    source = (VIGNETTES / f"{name}.py").read_text(encoding="utf-8")
    out = []
    for path in sorted(FIGURES.iterdir()):
        if re.search(r"[\"'/]" + re.escape(path.name) + r"[\"']", source) or (
                path.stem == name and path.suffix in (".png", ".md")):
            out.append(path)
    return out


def _vignette_docstring(name: str) -> str:
    import ast
    tree = ast.parse((VIGNETTES / f"{name}.py").read_text(encoding="utf-8"))
    return ast.get_docstring(tree) or ""


def gallery_pages() -> dict:
    """``{filename: rst text}`` of the vignette gallery (``gallery/``)."""
    pages = {}
    index = _title("Vignette gallery") + [
        "The tutorials and paper reproductions of ``vignettes/``, each with its "
        "documentation, the committed figures and tables of its last full run "
        "(``vignettes/figures/``) and its source.  Run one with ``python vignettes/NAME.py`` "
        "(``--out DIR`` for the figures, ``ERGMFIT_QUICK=1`` for a quick run); the site's build "
        "does not run them.", "", ".. toctree::", "   :maxdepth: 1", ""]
    for name in vignette_names():
        index.append(f"   {name}")
        # the vignettes' own functions are not API: their roles become code
        doc = re.sub(r":(?:func|class|meth|mod|data|attr|obj):`~?([^`]+)`", r"``\1``",
                     _vignette_docstring(name))
        head, _, body = doc.partition("\n")
        lines = _title(f"{name}: {head.strip()}") if head else _title(name)
        lines += escape_formula_text(inspect.cleandoc(body).splitlines()) + [""] if body.strip() else []
        figs = vignette_figures(name)
        if figs:
            lines += _title("Results of the committed full run", "-")
            for f in figs:
                rel = f"../../vignettes/figures/{f.name}"
                if f.suffix == ".png":
                    lines += [f".. figure:: {rel}", "   :width: 100%", "",
                              f"   ``vignettes/figures/{f.name}``", ""]
                elif f.suffix == ".md":
                    lines += [f".. include:: {rel}", "   :parser: myst_parser.sphinx_", ""]
                else:
                    lines += [f"Also: ``vignettes/figures/{f.name}``.", ""]
        lines += _title("Source", "-")
        lines += [f"``vignettes/{name}.py``:", "", f".. literalinclude:: ../../vignettes/{name}.py",
                  "   :language: python", ""]
        pages[f"{name}.rst"] = "\n".join(lines)
    pages["index.rst"] = "\n".join(index) + "\n"
    return pages


def _write(folder: pathlib.Path, pages: dict) -> None:
    folder.mkdir(exist_ok=True)
    for old in folder.glob("*.rst"):
        if old.name not in pages:
            old.unlink()
    for fname, text in pages.items():
        path = folder / fname
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def generate(srcdir=HERE) -> None:
    """Write ``api/`` and ``gallery/`` under ``srcdir`` (unchanged files are left alone)."""
    srcdir = pathlib.Path(srcdir)
    _write(srcdir / "api", api_pages())
    _write(srcdir / "gallery", gallery_pages())


# ---------------------------------------------------------------------------
# resolving references to re-exported and private names
# ---------------------------------------------------------------------------
def _resolve_dotted(name: str):
    """The object a dotted name denotes (longest importable module prefix, then attributes)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001 - not a module: try a shorter prefix
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def documented_names() -> dict:
    """``{id(object): documented dotted name}`` of every object the API pages document."""
    where = {}
    for modname in api_modules():
        mod = importlib.import_module(modname)
        for name in public_names(modname):
            obj = getattr(mod, name, None)
            if _kind(obj) in ("class", "exception", "function"):
                where.setdefault(id(obj), f"{modname}.{name}")
    return where


def _build_memo(env) -> dict:
    """What :func:`missing_reference` looks up, once per build: the documented modules, the
    documented names and a memo of :func:`_resolve_dotted` (walking the package and trying
    imports for every unresolved reference was a tenth of the build's time)."""
    config = env.app.config
    memo = getattr(config, "_ergmfit_memo", None)
    if memo is None:
        memo = {"modules": api_modules(), "where": documented_names(), "resolved": {}}
        config._ergmfit_memo = memo
    return memo


def missing_reference(app, env, node, contnode):
    """Resolve a Python reference Sphinx did not find: a re-export (``ergmfit.network.Network``
    for the documented ``ergmfit.Network``), a name relative to the current module or class, or
    a real but private/compiled object (rendered as code, without a link).  A name that denotes
    no object at all stays unresolved, so ``-n`` reports it."""
    if node.get("refdomain") != "py":
        return None
    memo = _build_memo(env)
    where, resolved = memo["where"], memo["resolved"]

    def resolve(name):
        if name not in resolved:
            resolved[name] = _resolve_dotted(name)
        return resolved[name]

    target = node["reftarget"].lstrip("~.")
    modname, clsname = node.get("py:module"), node.get("py:class")
    cands = [target]
    if modname:
        cands += [f"{modname}.{target}"]
        if clsname:
            cands += [f"{modname}.{clsname}.{target}"]
        owner = resolve(f"{modname}.{clsname}") if clsname else None
        if owner is not None and getattr(owner, "__module__", None):
            cands += [f"{owner.__module__}.{target}", f"{owner.__module__}.{clsname}.{target}"]
    cands += [f"{m}.{target}" for m in memo["modules"]]
    domain = env.get_domain("py")
    for cand in cands:
        obj = resolve(cand)
        if obj is None:
            continue
        parts = cand.split(".")
        # the documented name of the object, or of its class plus the attribute
        for i in range(len(parts), 0, -1):
            owner = resolve(".".join(parts[:i]))
            if owner is not None and id(owner) in where:
                name = ".".join([where[id(owner)], *parts[i:]])
                ref = domain.resolve_xref(env, node.get("refdoc"), app.builder, "obj", name,
                                          node, contnode)
                if ref is not None:
                    return ref
        return contnode          # a real object that is not documented: code, no link
    return None


# ---------------------------------------------------------------------------
# plain-text formulas in docstrings
# ---------------------------------------------------------------------------
_LITERAL = re.compile(r"(``.+?``|:[\w:]+:`[^`]*`|`[^`]+`_{0,2})")


def escape_formula_text(lines: list) -> list:
    """Escape what reST would misread in the docstrings' plain-text formulas.

    The docstrings write formulas in Unicode text: ``|x_i − x_j|`` is an absolute value, not a
    substitution, and ``x_`` in ``(x_, y)`` is not a link target.  Outside inline literals,
    roles, literal blocks (after ``::``), doctest lines and tables, ``|`` becomes ``\\|`` and a
    word's trailing ``_`` becomes ``\\_``.  (Nothing in the package uses reST substitutions or
    named hyperlink targets in a docstring.)
    """
    out = []
    literal_indent = None
    for line in lines:
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if literal_indent is not None:
            if stripped and indent <= literal_indent:
                literal_indent = None
            else:
                out.append(line)
                continue
        if (stripped.startswith((">>>", "... ", "+-", "+=", "| ", "|-")) or stripped == "..."
                or stripped.startswith(".. ")):
            out.append(line)
            continue
        parts = _LITERAL.split(line)
        for i in range(0, len(parts), 2):
            text = parts[i].replace("|", r"\|")
            parts[i] = re.sub(r"(\w)_(?=[^\w]|$)", r"\1\\_", text)
        new = "".join(parts)
        out.append(new)
        if line.rstrip().endswith("::"):
            literal_indent = indent
    return out


def process_docstring(app, what, name, obj, options, lines):
    lines[:] = escape_formula_text(lines)
