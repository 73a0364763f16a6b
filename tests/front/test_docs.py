"""The documentation stays true: the error table, the statnet mapping.

* ``docs/errors.md``: every listed case, run again, raises (or warns, or
  exits with) the documented class, with a message containing the
  documented key phrase; the page lists exactly the cases of
  ``docs/make_errors_table.py``.
* ``docs/statnet_mapping.md``: every ergmfit keyword its settings table
  names is a real keyword of that estimator.

The documentation site (its API pages, term reference and guide examples) is
checked by ``tests/test_docs_site.py``.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys

import pytest

import ergmfit
from support.paths import DOCS



def _load_script(name):
    spec = importlib.util.spec_from_file_location(f"_docs_{name}", DOCS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod          # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


MET = _load_script("make_errors_table")
ROWS = MET.parse_page((DOCS / "errors.md").read_text(encoding="utf-8"))
CASES = {c.id: c for c in MET.CASES}


# ---------------------------------------------------------------------------
# errors.md
# ---------------------------------------------------------------------------
def test_error_table_lists_every_case():
    assert len(ROWS) >= 40
    missing = sorted(set(CASES) - set(ROWS))
    extra = sorted(set(ROWS) - set(CASES))
    assert not missing, f"cases not in docs/errors.md (run python docs/make_errors_table.py): {missing}"
    assert not extra, f"rows of docs/errors.md without a case: {extra}"


def test_error_table_covers_what_users_meet():
    # the situations the issue names, each present at least once
    needed = ["unknown-term", "too-many-arguments", "directed-term-undirected-graph",
              "missing-attribute", "self-loops", "multigraph", "edge-weights", "empty-graph",
              "nan-attribute", "graphml-malformed", "degenerate-mcmc", "not-converged",
              "missing-matplotlib"]
    assert not [k for k in needed if k not in ROWS]


@pytest.mark.parametrize("case_id", sorted(ROWS))
def test_documented_error_still_happens(case_id):
    cls, phrase, kind = ROWS[case_id]
    case = CASES[case_id]
    assert case.kind == kind
    outcome = MET.run_case(case)
    assert outcome.cls == cls, (f"{case_id}: documented {cls}, now {outcome.cls or 'nothing'}: "
                                f"{outcome.message!r}")
    assert phrase in outcome.message, f"{case_id}: {phrase!r} not in {outcome.message!r}"


def test_documented_ergmfit_errors_are_ergmfit_errors():
    # a class the table shows that ergmfit defines must derive from ErgmfitError,
    # so `except ergmfit.ErgmfitError` catches it
    for cid, (cls, _, kind) in ROWS.items():
        obj = getattr(ergmfit, cls, None)
        if kind == "error" and obj is not None and cls not in ("ConvergenceWarning",):
            assert issubclass(obj, ergmfit.ErgmfitError), (cid, cls)


def test_error_table_rows_parse_back():
    # the renderer and the parser agree, pipes and line breaks included
    case = MET.Case("x-z", "S", "a | b", "pass", "ValueError", "plain | phrase")
    page = MET.render([(case, MET.Outcome("ValueError", "msg | with\nlines"))])
    assert MET.parse_page(page) == {"x-z": ("ValueError", "plain | phrase", "error")}
    case = MET.Case("w", "S", "s", "pass", "ConvergenceWarning", "p", kind="warning")
    page = MET.render([(case, MET.Outcome("ConvergenceWarning", "m"))])
    assert MET.parse_page(page) == {"w": ("ConvergenceWarning", "p", "warning")}
    assert all("`" not in c.phrase for c in MET.CASES)


def test_check_reports_a_changed_message():
    case = MET.Case("c", "S", "s", "raise ValueError('something else')", "ValueError", "key")
    assert MET.check(case, MET.run_case(case))
    case = MET.Case("c", "S", "s", "raise ValueError('the key phrase')", "ValueError", "key")
    assert MET.check(case, MET.run_case(case)) == []
    case = MET.Case("c", "S", "s", "raise KeyError('key')", "ValueError", "key")
    assert MET.check(case, MET.run_case(case))


# ---------------------------------------------------------------------------
# statnet_mapping.md
# ---------------------------------------------------------------------------
def _mapping_rows():
    """Rows ``| `statnet` | `method` | `keyword` | ... |`` of the settings table."""
    text = (DOCS / "statnet_mapping.md").read_text(encoding="utf-8")
    start = text.index("<!-- settings-table -->")
    end = text.index("<!-- /settings-table -->")
    rows = []
    for line in text[start:end].splitlines():
        m = re.match(r"^\| `([^`]+)` \| ([^|]+) \| ([^|]+) \|", line)
        if m:
            methods = re.findall(r"`([a-z]+)`", m.group(2))
            kws = re.findall(r"`([A-Za-z_]+)`", m.group(3))
            rows.append((m.group(1), methods, kws))
    return rows


def _accepted_keywords(method):
    from ergmfit.estimation import get_estimator
    fn = get_estimator(method)
    names = set(inspect.signature(fn).parameters)
    names |= set(inspect.signature(ergmfit.ERGM.fit).parameters)   # method, random_state, ...
    mod = importlib.import_module(fn.__module__)
    # estimators that pass **kwargs on: the core function / settings class / defaults table
    for attr in ("MCMLE", "MPLE"):
        obj = getattr(mod, attr, None)
        if obj is None:
            continue
        if isinstance(obj, dict):
            names |= set(obj)
        else:
            names |= set(inspect.signature(obj).parameters)
    return names


def test_statnet_mapping_keywords_exist():
    rows = _mapping_rows()
    assert len(rows) >= 10
    checked = 0
    for statnet, methods, kws in rows:
        for method in methods:
            accepted = _accepted_keywords(method)
            for kw in kws:
                assert kw in accepted, (f"docs/statnet_mapping.md maps {statnet} to {method}'s "
                                        f"{kw!r}, which {method} does not take")
                checked += 1
    assert checked >= 10
