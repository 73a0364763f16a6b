"""Regenerate ``docs/api.md``, the API reference, from the numpydoc docstrings.

Run from the repository root::

    python docs/make_api.py            # rewrites docs/api.md
    python docs/make_api.py --check    # exit 1 if docs/api.md is out of date

What is documented: the public names of the modules in :data:`MODULES`
(their ``__all__``, or the names listed here), each with its signature and
docstring; each estimator module's docstring (the algorithm and its
settings); and the term table (``ergmfit.terms.registry.all_terms()``) with
every term's documentation.  A module that does not import (an estimator
being written) is listed as unavailable instead of failing the page.
"""
from __future__ import annotations

import importlib
import inspect
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
TARGET = HERE / "api.md"

#: (module, names or None for its ``__all__``, title, include the module docstring)
MODULES = [
    ("ergmfit", None, "Top level", False),
    ("ergmfit.datasets", ["load", "load_network", "names", "info", "DatasetInfo"], "Datasets", True),
    ("ergmfit.network", None, "Networks and files", False),
    ("ergmfit.network.io", ["from_adjacency", "from_edgelist", "FORMATS"], "Readers", True),
    ("ergmfit.results", ["ERGMResults", "Summary", "LabeledArray"], "Results", True),
    ("ergmfit.interpretation", ["odds_ratios", "predict", "marginal_effects",
                                "TieProbabilities"], "Interpretation", True),
    ("ergmfit.comparison", ["compare", "Comparison"], "Comparing fits", True),
    ("ergmfit.statnet", ["resolve_method", "translate_settings", "CONTROL", "StatnetName"],
     "statnet's words", True),
    ("ergmfit.gof", ["gof", "GofResult", "GofBlock", "GraphSummaries", "parse_gof_statistics",
                     "mc_pvalues", "degree_distribution", "esp_distribution", "dsp_distribution",
                     "geodesic_distribution"], "Goodness of fit", True),
    ("ergmfit.results_bayes", ["BayesResults", "BayesSummary", "split_rhat", "chain_ess"],
     "Posterior results", True),
    ("ergmfit.plotting", ["plot_gof", "trace_plot", "posterior_trace_plot",
                          "posterior_density_plot", "draw_network"], "Plots", True),
    ("ergmfit.exceptions", ["ErgmfitError", "FormulaError", "TermError", "NetworkError",
                            "DataFormatError", "DegenerateModelError", "ConvergenceWarning"],
     "Exceptions", False),
    ("ergmfit.formula", ["parse_formula", "TermCall"], "Formulas", True),
    ("ergmfit.estimation", ["fit", "methods", "methods_supporting", "supports", "register",
                            "get_estimator"], "Estimators", True),
    ("ergmfit.estimation.mcmle.missing", ["MissingDataMCMLE", "fit_missing_mcmle"],
     "MCMC-MLE with missing dyads", True),
    ("ergmfit.estimation.mple.pseudolikelihood", ["fit_mple", "MPLE", "pseudo_design"], "MPLE", True),
    ("ergmfit.estimation.mcmle.estimator", ["fit_mcmle", "mcmle_core"], "MCMC-MLE", True),
    ("ergmfit.estimation.contrastive.cd", ["fit_cd", "cd_core"], "Contrastive divergence", True),
    ("ergmfit.estimation.ee.estimator", ["fit_ee", "EE_DEFAULTS"], "Equilibrium Expectation", True),
    ("ergmfit.estimation.contrastive.bcd", ["fit_bcd", "BCD"], "Blocked contrastive divergence", True),
    ("ergmfit.estimation.contrastive.mcle", ["fit_mcle", "MCLE"], "Composite likelihood", True),
    ("ergmfit.estimation.bayes.exchange", ["Bayes", "make_prior", "NormalPrior"],
     "Bayesian ERGMs: the exchange algorithm", True),
    ("ergmfit.estimation.bayes.pseudo_posterior", ["BayesPL", "adjustment"], "Adjusted pseudo-posterior", True),
    ("ergmfit.mrf", ["IsingModel", "BoltzmannMachine", "GridCRF", "RBM", "PottsModel",
                     "LinearMRF"], "Markov random fields", True),
    ("ergmfit.mrf.scl", ["fit_scl", "scl_asymptotic_variance", "pl_mixture"],
     "Stochastic composite likelihood", True),
    ("ergmfit.mrf.ee", ["fit_ee"], "Equilibrium Expectation for MRFs", True),
    ("ergmfit.mrf.contrastive", ["ContrastiveObjective", "pseudo_likelihood_objective", "icm",
                                 "max_product", "ccg"], "Non-local contrastive objectives", True),
    ("ergmfit.mrf.junction", ["JunctionTree", "log_partition", "marginals", "mean_statistics",
                              "fit_ml"], "Junction tree", True),
    ("ergmfit.mrf.potts", ["PottsModel"], "Potts models", True),
]

#: modules whose every public name the tests require on the page
STABLE = ("ergmfit", "ergmfit.datasets", "ergmfit.network", "ergmfit.results", "ergmfit.gof",
          "ergmfit.plotting", "ergmfit.exceptions", "ergmfit.formula")

_SECTION_NAMES = {"Parameters", "Returns", "Yields", "Raises", "Warns", "Attributes", "Methods",
                  "Examples", "Notes", "See Also", "References", "Other Parameters", "Warnings"}


# ---------------------------------------------------------------------------
# collecting
# ---------------------------------------------------------------------------
def _import(modname):
    try:
        return importlib.import_module(modname), None
    except Exception as exc:  # noqa: BLE001 - a module being written must not break the page
        return None, f"{type(exc).__name__}: {exc}"


def public_names(stable_only=True) -> dict:
    """``{module: [names]}`` the page documents (only :data:`STABLE` modules by default)."""
    out = {}
    for modname, names, _, _ in MODULES:
        if stable_only and modname not in STABLE:
            continue
        mod, err = _import(modname)
        if mod is None:
            continue
        if names is None:
            names = [n for n in getattr(mod, "__all__", []) if not n.startswith("_")]
        out[modname] = [n for n in names if hasattr(mod, n)]
    return out


# ---------------------------------------------------------------------------
# rendering docstrings
# ---------------------------------------------------------------------------
def _clean(text: str) -> str:
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", text)
    return text


def _signature(name, obj) -> str:
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return name
    sig = re.sub(r"""(->\s*)["']+([^"']+)["']+""", r"\1\2", sig)
    sig = re.sub(r""":\s*'([^']+)'""", r": \1", sig)
    return _clean(f"{name}{sig}")


def _split_sections(doc: str):
    """(intro lines, [(section title, lines)]) of a numpydoc docstring."""
    lines = inspect.cleandoc(doc).splitlines()
    intro, sections = [], []
    cur = intro
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if (line.strip() and re.fullmatch(r"-{3,}", nxt.strip() or "x")
                and len(nxt.strip()) >= len(line.strip()) - 1):
            sections.append((line.strip(), []))
            cur = sections[-1][1]
            i += 2
            continue
        cur.append(line)
        i += 1
    return intro, sections


def _rst_inline(text: str) -> str:
    """Sphinx roles and reST literals as Markdown code spans."""
    text = re.sub(r":(?:class|func|meth|mod|attr|data|obj|exc):`~?([^`]+)`", r"`\1`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return text


def _prose(lines) -> list:
    """Docstring prose to Markdown: ``::`` blocks and doctest blocks fenced."""
    out = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            block = []
            while i < n and lines[i].strip():
                block.append(lines[i])
                i += 1
            out += ["```pycon", *inspect.cleandoc("\n".join(block)).splitlines(), "```"]
            continue
        if line.rstrip().endswith("::"):
            head = line.rstrip()[:-1]
            if head.strip() and head.rstrip().endswith(":"):
                head = head.rstrip()
            out.append(_rst_inline(head.rstrip() if head.strip() not in ("", ":") else ""))
            i += 1
            while i < n and not lines[i].strip():
                i += 1
            base = len(line) - len(line.lstrip())
            block = []
            while i < n and (not lines[i].strip() or
                             len(lines[i]) - len(lines[i].lstrip()) > base):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out += ["", "```text", *inspect.cleandoc("\n".join(block)).splitlines(), "```", ""]
            continue
        out.append(_rst_inline(line))
        i += 1
    return out


def _param_list(lines) -> list:
    """``name : type`` entries with indented descriptions, as a Markdown list."""
    out = []
    entry = None
    for line in lines:
        if not line.strip():
            if entry is not None:
                entry[1].append("")
            continue
        if not line.startswith((" ", "\t")):
            if entry is not None:
                out.append(entry)
            entry = [line.strip(), []]
        elif entry is not None:
            entry[1].append(line.strip())
        else:
            entry = ["", [line.strip()]]
    if entry is not None:
        out.append(entry)
    md = []
    for head, desc in out:
        if " : " in head:
            name, typ = head.split(" : ", 1)
            title = f"**`{name.strip()}`** : *{_rst_inline(typ.strip())}*"
        elif head:
            title = f"**`{head}`**" if re.fullmatch(r"[\w.*, ]+", head) else _rst_inline(head)
        else:
            title = ""
        text = " ".join(x for x in desc if x).strip()
        md.append(f"* {title}" + (f" — {_rst_inline(text)}" if text else ""))
    return md


def render_doc(doc: str, level: int = 4) -> list:
    if not doc:
        return ["*(no docstring)*", ""]
    intro, sections = _split_sections(_clean(doc))
    out = _prose(intro)
    for title, lines in sections:
        out += ["", f"{'#' * level} {title}" if title in _SECTION_NAMES else f"**{title}**", ""]
        if title in ("Parameters", "Returns", "Yields", "Raises", "Warns", "Attributes",
                     "Other Parameters"):
            out += _param_list(lines)
        else:
            out += _prose(lines)
    return _tidy(out) + [""]


def _tidy(lines) -> list:
    out = []
    for line in lines:
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line.rstrip())
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return out


def _members(cls):
    """Public methods and properties defined in ``cls`` itself, in source order."""
    out = []
    for name, val in cls.__dict__.items():
        if name.startswith("_"):
            continue
        if isinstance(val, property):
            out.append((name, val, "property"))
        elif isinstance(val, (classmethod, staticmethod)):
            out.append((name, val.__func__, "method"))
        elif inspect.isfunction(val) or inspect.isroutine(val):
            out.append((name, val, "method"))
    return out


def render_object(modname, name, obj) -> list:
    qual = f"{modname}.{name}"
    out = [f'<a id="{qual}"></a>', ""]
    if inspect.isclass(obj):
        kind = "exception" if issubclass(obj, BaseException) else "class"
        out += [f"### `{name}` ({kind})", "", "```python", _signature(f"class {name}", obj)
                if kind == "class" else f"class {name}({', '.join(b.__name__ for b in obj.__bases__)})",
                "```", ""]
        out += render_doc(inspect.getdoc(obj) or "", level=4)
        if kind == "class":
            for mname, mobj, mkind in _members(obj):
                doc = (mobj.fget.__doc__ if mkind == "property" else mobj.__doc__) or ""
                head = (f"`{name}.{mname}`" if mkind == "property"
                        else f"`{_signature(name + '.' + mname, mobj).replace('(self, ', '(').replace('(self)', '()').replace('(cls, ', '(').replace('(cls)', '()')}`")
                out += [f"* {head}" + (" (property)" if mkind == "property" else "")]
                body = render_doc(doc, level=5) if doc else []
                if body:
                    out += ["", *["  " + ln if ln else "" for ln in body]]
            out.append("")
    elif callable(obj):
        out += [f"### `{name}()`", "", "```python", _signature(name, obj), "```", ""]
        out += render_doc(inspect.getdoc(obj) or "", level=4)
    else:
        r = _clean(repr(obj))
        if len(r) > 600:
            r = r[:600] + " ..."
        out += [f"### `{name}`", "", "```python", f"{name} = {r}", "```", ""]
    return out


def render_terms() -> list:
    from ergmfit.terms.registry import all_terms
    specs = all_terms()
    out = ['<a id="terms"></a>', "", "## Terms", "",
           "Every term of the formula language (the one table in "
           "`ergmfit/terms/registry.py`; `ergmfit terms` prints the same).  *kinds* says which "
           "networks a term accepts; a name may have one entry per kind.", "",
           "| term | kinds | signature | aliases | description |", "| --- | --- | --- | --- | --- |"]
    for s in specs:
        first = _first_sentence(s.doc)
        out.append(f"| [{s.name}](#term-{_slug(s.name)}-{s.kinds}) | {s.kinds} "
                   f"| `{s.signature()}` | {', '.join(s.aliases) or '—'} "
                   f"| {first.replace('|', chr(92) + '|')} |")
    out.append("")
    for s in specs:
        out += [f'<a id="term-{_slug(s.name)}-{s.kinds}"></a>', "",
                f"### `{s.name}` ({s.kinds})", "", f"`{s.signature()}`" +
                (f" — aliases: {', '.join(f'`{a}`' for a in s.aliases)}" if s.aliases else "")
                + (f" — family: {s.family}" if s.family else ""), ""]
        out += render_doc(s.doc, level=4)
    return out


def _slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _first_sentence(doc) -> str:
    para = []
    for line in (doc or "").strip().splitlines():
        if not line.strip():
            break
        para.append(line.strip())
    text = _rst_inline(" ".join(para))
    m = re.search(r"(?<=[.:])\s", text)
    return text[:m.start()].rstrip(":") if m else text


def render_page() -> str:
    out = ["# API reference", "",
           "Generated from the docstrings by `python docs/make_api.py`; do not edit by hand.",
           "Every `>>>` example here runs in the test suite (`tests/front/test_doctests.py`).", "",
           "## Contents", ""]
    for modname, _, title, _ in MODULES:
        out.append(f"* [{title}](#{_slug(modname)}) — `{modname}`")
    out += ["* [Terms](#terms)", ""]
    for modname, names, title, with_doc in MODULES:
        out += [f'<a id="{_slug(modname)}"></a>', "", f"## {title}: `{modname}`", ""]
        mod, err = _import(modname)
        if mod is None:
            out += [f"*Not available in this build ({err}).*", ""]
            continue
        if with_doc and mod.__doc__:
            out += render_doc(mod.__doc__, level=3)
        if names is None:
            names = [n for n in getattr(mod, "__all__", []) if not n.startswith("_")]
        for name in names:
            obj = getattr(mod, name, None)
            if obj is None:
                continue
            out += render_object(modname, name, obj)
    out += render_terms()
    return "\n".join(_tidy(out)) + "\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    page = render_page()
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != page:
            print(f"{TARGET} is out of date: run python docs/make_api.py", file=sys.stderr)
            return 1
        print(f"{TARGET} is up to date")
        return 0
    TARGET.write_text(page, encoding="utf-8")
    print(f"wrote {TARGET} ({page.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    root = str(HERE.parent)
    try:
        import ergmfit  # noqa: F401
    except ImportError:
        sys.path.insert(0, root)
    sys.exit(main())
