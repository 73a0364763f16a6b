"""docs/temporal_tutorial.md runs: its ``pycon`` blocks are one doctest (the page writes
panel.csv to the working directory, here a temporary one)."""
from front.test_doctests import _markdown_doctest, _run
from support.paths import ROOT


def test_temporal_tutorial_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    test = _markdown_doctest(ROOT / "docs" / "temporal_tutorial.md")
    assert len(test.examples) >= 20
    result, report = _run(test)
    assert result.failed == 0, report
    assert (tmp_path / "panel.csv").exists()
