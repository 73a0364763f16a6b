"""The ``ergmfit`` command line, run in-process through ``main([...])``."""
import json
import os
import subprocess
import sys

import pytest

import ergmfit as ef
from ergmfit.cli import COMMANDS, format_value, json_value, main, summary_line


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_error_line(err, *needles):
    """Exactly one error line (warnings may precede it), naming the problem."""
    assert "Traceback" not in err
    lines = err.splitlines()
    errors = [ln for ln in lines if ln.startswith("ergmfit: error: ")]
    assert len(errors) == 1 and errors[0] == lines[-1], err
    assert all(ln.startswith("ergmfit: warning: ") for ln in lines[:-1]), err
    for needle in needles:
        assert needle in errors[0], errors[0]


# ---------------------------------------------------------------------------
# stats
# ---------------------------------------------------------------------------

def test_stats_json_lazega(capsys):
    code, out, err = run(capsys, "stats", "lazega", "edges + kstar(2) + triangle", "--json")
    assert code == 0 and err == ""
    assert out.count("\n") == 1                   # one JSON object, nothing else
    assert json.loads(out) == {"edges": 115, "kstar2": 926, "triangle": 120}
    assert list(json.loads(out)) == ["edges", "kstar2", "triangle"]      # formula order
    assert out.strip() == '{"edges": 115, "kstar2": 926, "triangle": 120}'   # whole numbers


def test_stats_table(capsys):
    code, out, err = run(capsys, "stats", "flomarriage", "edges")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["statistic", "value"]
    assert lines[1].split() == ["edges", "20"]     # no decimals for whole numbers


def test_stats_directed_dataset(capsys):
    code, out, _ = run(capsys, "stats", "samplike", "edges", "--json", "--directed")
    assert code == 0 and json.loads(out) == {"edges": 88}


def test_stats_from_csv_files(capsys, tmp_path):
    e = tmp_path / "edges.csv"
    n = tmp_path / "nodes.csv"
    e.write_text("source,target\na,b\nb,c\nc,a\n", encoding="utf-8")
    n.write_text("id,grade\na,7\nb,8\nc,7\nd,9\n", encoding="utf-8")
    code, out, err = run(capsys, "stats", str(e), "edges", "--json", "--directed",
                         "--nodes", str(n))
    assert code == 0 and err == "" and json.loads(out) == {"edges": 3}
    # directedness is never guessed for an edge list
    code, out, err = run(capsys, "stats", str(e), "edges", "--json")
    assert code == 2 and out == ""
    assert_one_error_line(err, "--directed or --undirected")
    # --format for an unknown extension
    t = tmp_path / "edges.txt"
    t.write_text("source,target\n1,2\n", encoding="utf-8")
    code, out, _ = run(capsys, "stats", str(t), "edges", "--json", "--undirected",
                       "--format", "csv")
    assert code == 0 and json.loads(out) == {"edges": 1}


def test_stats_from_pajek_with_attribute_files(capsys, tmp_path):
    p = tmp_path / "net.net"
    p.write_text("*vertices 3\n*arcs\n1 2\n2 3\n", encoding="utf-8")
    a = tmp_path / "binattr.txt"
    a.write_text("x\n1\n0\n1\n", encoding="utf-8")
    b = tmp_path / "catattr.txt"
    b.write_text("y\n2\n2\n3\n", encoding="utf-8")
    code, out, err = run(capsys, "stats", str(p), "edges", "--json", "--nodes", str(a),
                         "--nodes", str(b))
    assert code == 0 and err == "" and json.loads(out) == {"edges": 2}


def test_warnings_are_one_line(capsys, tmp_path):
    e = tmp_path / "edges.csv"
    e.write_text("source,target\n1,2\n2,1\n", encoding="utf-8")
    code, out, err = run(capsys, "stats", str(e), "edges", "--json", "--undirected")
    assert code == 0 and json.loads(out) == {"edges": 1}
    assert err.startswith("ergmfit: warning: ") and "both directions" in err
    assert len(err.splitlines()) == 1


def test_undirected_pair_both_ways_different_values_is_an_error(capsys, tmp_path):
    e = tmp_path / "edges.csv"
    e.write_text("source,target,value\n1,2,3\n2,1,5\n", encoding="utf-8")
    code, out, err = run(capsys, "stats", str(e), "edges", "--undirected",
                         "--duplicates", "error")
    assert code == 2 and out == ""
    assert err.startswith("ergmfit: error: ") and "the pair 2 -- 1" in err
    code, out, err = run(capsys, "stats", str(e), "edges", "--json", "--undirected",
                         "--duplicates", "merge")
    assert code == 0 and json.loads(out) == {"edges": 1} and "both directions" in err


def test_weights_and_duplicates_options(capsys, tmp_path):
    e = tmp_path / "edges.csv"
    e.write_text("source,target,weight\n1,2,3\n1,2,1\n", encoding="utf-8")
    code, _, err = run(capsys, "stats", str(e), "edges", "--directed")
    assert code == 2
    assert_one_error_line(err, "the weight 3 is not 1", "--weights ignore")
    code, _, err = run(capsys, "stats", str(e), "edges", "--directed", "--weights", "ignore")
    assert code == 2
    assert_one_error_line(err, "repeats the tie", "--duplicates merge")
    assert "weights are ignored" in err.splitlines()[0]
    code, out, _ = run(capsys, "stats", str(e), "edges", "--directed", "--weights", "ignore",
                       "--duplicates", "merge", "--json")
    assert code == 0 and json.loads(out) == {"edges": 1}


# ---------------------------------------------------------------------------
# errors: one line, exit 2, no traceback
# ---------------------------------------------------------------------------

def test_unknown_term(capsys):
    code, out, err = run(capsys, "stats", "lazega", "edges + edgs", "--json")
    assert code == 2 and out == ""
    assert_one_error_line(err, "unknown term 'edgs'", "Did you mean 'edges'")


def test_formula_syntax_error_is_one_line(capsys):
    code, out, err = run(capsys, "stats", "lazega", "edges + $")
    assert code == 2 and out == ""
    assert_one_error_line(err, "unexpected character '$'")


def test_unknown_dataset(capsys):
    code, out, err = run(capsys, "stats", "lazga", "edges")
    assert code == 2 and out == ""
    assert_one_error_line(err, "'lazga' is neither a bundled dataset nor an existing file",
                          "Did you mean 'lazega'")


def test_directedness_conflict(capsys):
    code, _, err = run(capsys, "stats", "lazega", "edges", "--directed")
    assert code == 2
    assert_one_error_line(err, "is undirected, but directed=True")


def test_term_for_the_other_kind_of_network(capsys):
    from ergmfit.terms.registry import all_terms
    directed_only = [s for s in all_terms()
                     if s.kinds == "directed" and not any(p.required for p in s.params)
                     and not any(t.name == s.name and t.kinds != "directed" for t in all_terms())]
    if not directed_only:
        pytest.fail("no directed-only term without required arguments (mutual is expected)")
    code, _, err = run(capsys, "stats", "lazega", f"edges + {directed_only[0].name}")
    assert code == 2
    assert_one_error_line(err, "is for directed networks")


def test_usage_errors_exit_2(capsys):
    assert main([]) == 2
    assert main(["stats", "lazega"]) == 2          # missing formula
    assert main(["stats", "lazega", "edges", "--directed", "--undirected"]) == 2
    assert main(["bogus"]) == 2
    capsys.readouterr()


def test_help_and_version(capsys):
    assert main(["--help"]) == 0
    out, _ = capsys.readouterr()
    for cmd in COMMANDS:
        assert cmd.name in out
    assert main(["--version"]) == 0
    out, _ = capsys.readouterr()
    assert out.strip() == f"ergmfit {ef.__version__}"
    assert main(["stats", "--help"]) == 0
    out, _ = capsys.readouterr()
    assert "--nodes" in out and "--directed" in out and "--format" in out


# ---------------------------------------------------------------------------
# datasets and terms
# ---------------------------------------------------------------------------

def test_datasets_table(capsys):
    code, out, err = run(capsys, "datasets")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:5] == ["name", "nodes", "ties", "directed", "description"]
    assert lines[0].rstrip().endswith("licence")
    rows = {ln.split()[0]: ln.split() for ln in lines[1:]}
    assert set(rows) == set(ef.datasets.names())
    assert rows["lazega"][1:4] == ["36", "115", "no"]
    assert rows["samplike"][1:4] == ["18", "88", "yes"]


def test_datasets_json(capsys):
    code, out, _ = run(capsys, "datasets", "--json")
    data = json.loads(out)
    assert code == 0 and [d["name"] for d in data] == ef.datasets.names()
    lz = next(d for d in data if d["name"] == "lazega")
    assert (lz["nodes"], lz["ties"], lz["directed"]) == (36, 115, False)
    assert lz["licence"] and lz["description"]


def test_terms_table(capsys):
    code, out, err = run(capsys, "terms")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["name", "kinds", "signature", "aliases", "description"]
    edges = next(ln for ln in lines if ln.split()[0] == "edges")
    assert edges.split()[1] == "both"
    assert "Arc, Edge" in edges and "Number of ties" in edges


@pytest.mark.parametrize("flag, allowed", [("--directed", {"directed", "both"}),
                                           ("--undirected", {"undirected", "both"})])
def test_terms_filter(capsys, flag, allowed):
    from ergmfit.terms.registry import all_terms
    code, out, _ = run(capsys, "terms", flag, "--json")
    rows = json.loads(out)
    assert code == 0 and "edges" in [r["name"] for r in rows]
    assert {r["kinds"] for r in rows} <= allowed
    want = [s.name for s in all_terms() if s.kinds in allowed]
    assert [r["name"] for r in rows] == want


def test_summary_line():
    assert summary_line("Number of ties (statnet ``edges``).\n\nMore.") == \
        "Number of ties (statnet ``edges``)."
    assert summary_line("A long first\nline. Second sentence.") == "A long first line."
    long = summary_line("word " * 60)
    assert len(long) <= 100 and long.endswith("…")
    assert summary_line("") == ""


def test_number_formatting():
    assert format_value(115.0) == "115"
    assert format_value(-3.0) == "-3"
    assert format_value(2 / 3) == "0.6666666667"
    assert format_value(123456.789012345) == "123456.789"
    assert format_value(1e-12) == "1e-12"
    assert format_value(7) == "7"
    assert format_value(float("nan")) == "nan"
    assert json_value(115.0) == 115 and isinstance(json_value(115.0), int)
    assert json_value(0.5) == 0.5
    assert json_value(float("inf")) is None


# ---------------------------------------------------------------------------
# python -m ergmfit
# ---------------------------------------------------------------------------

def test_python_dash_m(tmp_path):
    # run outside the checkout, so that the installed package is the one imported
    # (in a source tree without built extensions, ./ergmfit would shadow it)
    import ergmfit
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ergmfit.__file__)))
    res = subprocess.run([sys.executable, "-m", "ergmfit", "stats", "flomarriage", "edges",
                          "--json"], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env=env)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == {"edges": 20}
    res = subprocess.run([sys.executable, "-m", "ergmfit", "stats", "flomarriage", "edgs"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("ergmfit: error: unknown term 'edgs'")


# -- fit ----------------------------------------------------------------------

def test_fit_json_has_exactly_the_documented_fields(capsys):
    from ergmfit.cli import main
    assert main(["fit", "samplike", "edges + mutual", "--method", "mple", "--json"]) == 0
    out = capsys.readouterr().out
    d = json.loads(out)
    assert list(d) == ["model", "method", "n_nodes", "n_edges", "directed", "coef", "stderr",
                       "loglik", "aic", "bic", "converged", "seconds"]
    assert d["coef"]["mutual"] == pytest.approx(2.3196, abs=1e-4)
    assert d["n_nodes"] == 18 and d["directed"] is True


def test_fit_mcmle_prints_statnet_table(capsys):
    from ergmfit.cli import main
    assert main(["fit", "flomarriage", "edges + triangle", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Monte Carlo Maximum Likelihood Results:" in out
    assert "Residual Deviance:" in out and "AIC:" in out


def test_fit_bad_setting_is_one_line(capsys):
    from ergmfit.cli import main
    assert main(["fit", "flomarriage", "edges", "--method", "mple", "--set", "nonsense=1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ergmfit: error:") and "Traceback" not in err


def test_gof_fits_when_no_coef(capsys):
    from ergmfit.cli import main
    assert main(["gof", "flomarriage", "edges", "--method", "mple", "--n-sim", "10", "--seed", "2",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d


# -- fit --save: shown first, saved atomically after ------------------------------

def test_fit_save_to_a_bad_path_keeps_the_table(capsys, tmp_path):
    bad = tmp_path / "no-such-dir" / "fit.json"
    code, out, err = run(capsys, "fit", "flomarriage", "edges", "--method", "mple",
                         "--quiet", "--save", str(bad))
    assert code == 3                                      # documented: printed, not saved
    assert "Maximum Likelihood Results:" in out and "edges" in out
    assert_one_error_line(err, "not saved", str(bad))
    assert not bad.parent.exists()


def test_fit_save_failure_leaves_the_old_file(capsys, tmp_path, monkeypatch):
    import numpy as np
    path = tmp_path / "fit.json"
    assert run(capsys, "fit", "flomarriage", "edges", "--method", "mple",
               "--save", str(path))[0] == 0
    before = path.read_bytes()
    assert ef.results.ERGMResults.load(path).labels == ["edges"]

    def full_disk(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(json, "dump", full_disk)          # the write fails half-way
    code, out, err = run(capsys, "fit", "flomarriage", "edges + triangle", "--method", "mple",
                         "--save", str(path), "--json", "--quiet")
    assert code == 3 and "No space left on device" in err
    assert json.loads(out)["coef"]["triangle"] == pytest.approx(0.2208, abs=1e-3)
    assert path.read_bytes() == before                    # the earlier fit survives
    assert [p.name for p in tmp_path.iterdir()] == ["fit.json"]   # no temporary left behind
    assert np.isfinite(ef.results.ERGMResults.load(path).params).all()


def test_fit_save_unknown_extension_fails_before_fitting(capsys, tmp_path, monkeypatch):
    from ergmfit import model as model_mod
    monkeypatch.setattr(model_mod.ERGM, "fit", lambda *a, **k: pytest.fail("fitted"))
    code, out, err = run(capsys, "fit", "flomarriage", "edges", "--save",
                         str(tmp_path / "fit.pkl"))
    assert code == 2 and out == ""
    assert_one_error_line(err, "unknown results file type '.pkl'")
