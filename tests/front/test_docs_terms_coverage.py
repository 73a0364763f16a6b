"""docs/terms_coverage.md (the statnet 4.12 term survey) agrees with the registry: every row
marked "supported" names a registered term (and its aliases) that takes every argument of
statnet's usage line; every "not supported" row names a term ergmfit does not have; the
counts at the top match the table."""
import re

import pytest

from ergmfit.terms.registry import _LOOKUP, load_all_families
from support.paths import DOCS

DOC = DOCS / "terms_coverage.md"
load_all_families()     # the whole table (a model's look-ups import only its families)


def _rows():
    rows = []
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0].startswith("`") and cells[1].startswith("`"):
            names = [n.strip() for n in cells[0].strip("`").split("/")]
            rows.append((names, cells[1].strip("`").replace("\\|", "|"), cells[3]))
    return rows


ROWS = _rows()


def _args(usage):
    m = re.match(r"^[^(]+\((.*)\)$", usage)
    if not m:
        return []
    return [p.split("=")[0].strip() for p in re.split(r",\s*", m.group(1))
            if p.split("=")[0].strip() not in ("", "...")]


@pytest.mark.parametrize("names, usage, status", ROWS, ids=[r[0][0] for r in ROWS])
def test_row_matches_the_registry(names, usage, status):
    specs = _LOOKUP.get(names[0].lower(), [])
    if status.startswith("not supported"):
        assert not specs
        return
    assert status == "supported", status
    assert specs, names[0]
    for alias in names[1:]:
        assert alias.lower() in _LOOKUP, alias
    params = {p.name.lower() for s in specs for p in s.params}
    assert [a for a in _args(usage) if a.lower() not in params] == []


def test_counts():
    assert len(ROWS) == 132
    assert sum(s == "supported" for _, _, s in ROWS) == 132
    text = DOC.read_text()
    assert "**132**" in text and "**132, all with every statnet argument**" in text
