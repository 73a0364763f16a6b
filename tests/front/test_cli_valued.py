"""The command line on count-valued models: ``--response ATTR --reference REF`` for
stats, fit, simulate and gof (a valued edge list with a ``weight`` column)."""
import json

import pytest

from ergmfit.cli import main

EDGES = "source,target,weight\n1,2,3\n2,1,1\n2,3,2\n3,1,1\n4,1,2\n1,4,1\n"


@pytest.fixture
def valued_csv(tmp_path):
    p = tmp_path / "valued.csv"
    p.write_text(EDGES)
    return str(p)


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_stats(capsys, valued_csv):
    code, out, _ = run(capsys, "stats", valued_csv, "sum + nonzero + mutual(form='min')",
                       "--directed", "--response", "weight", "--reference", "Poisson", "--json")
    assert code == 0
    assert json.loads(out) == {"sum": 10, "nonzero": 6, "mutual.min": 2}


def test_without_response_the_weights_are_refused(capsys, valued_csv):
    code, _, err = run(capsys, "stats", valued_csv, "edges", "--directed")
    assert code != 0 and "weight" in err


def test_fit_mple_equals_the_python_fit(capsys, valued_csv):
    import ergmfit as ef
    from ergmfit.network.io import load_any
    code, out, _ = run(capsys, "fit", valued_csv, "sum + nonzero", "--directed", "--response",
                       "weight", "--reference", "Binomial(3)", "--method", "mple", "--json")
    assert code == 0
    got = json.loads(out)["coef"]
    m = ef.ERGM(load_any(valued_csv, directed=True, weights="keep"), "sum + nonzero",
                response="weight", reference="Binomial(3)")
    want = m.fit("mple").params
    assert abs(got["sum"] - float(want["sum"])) < 1e-9
    code, out, _ = run(capsys, "fit", valued_csv, "sum + nonzero", "--directed", "--response",
                       "weight", "--reference", "Binomial(3)", "--method", "mple")
    assert "response='weight', reference='Binomial(3)'" in out


def test_simulate_and_gof(capsys, valued_csv):
    code, out, _ = run(capsys, "simulate", valued_csv, "sum + nonzero", "--directed",
                       "--response", "weight", "--reference", "Binomial(3)", "--coef", "0", "0",
                       "--n", "2", "--seed", "1", "--output", "edgelist", "--interval", "50")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0] == "sim,tail,head,weight"
    assert all(1 <= int(x.split(",")[3]) <= 3 for x in lines[1:])
    code, out, _ = run(capsys, "gof", valued_csv, "sum + nonzero", "--directed", "--response",
                       "weight", "--coef", "0", "-1", "--n-sim", "10", "--seed", "1",
                       "--interval", "50", "--json")
    assert code == 0
    d = json.loads(out)
    assert "value" in json.dumps(d) and "model" in json.dumps(d)


def test_reference_without_response_names_the_missing_option(capsys, valued_csv):
    # on main the counts were read as binary weights: "the weight 3 is not 1; ... binary ties"
    code, _, err = run(capsys, "stats", valued_csv, "sum", "--directed", "--reference",
                       "Poisson")
    assert code == 2 and "needs --response ATTR" in err and "binary" not in err
