"""``ergmfit ego``: egocentric statistics and fits from CSV files in egor's layout."""
import json

import numpy as np

import ergmfit as ef
from ergmfit.cli import main


def _write(tmp_path):
    ego = ef.EgoData.from_network(ef.datasets.load("faux.mesa.high"))
    ego.egos.to_csv(tmp_path / "egos.csv", index=False)
    ego.alters.to_csv(tmp_path / "alters.csv", index=False)
    ego.alter_ties.to_csv(tmp_path / "aaties.csv", index=False)
    return ego, [str(tmp_path / "egos.csv"), str(tmp_path / "alters.csv")]


def test_statistics_with_survey_se(tmp_path, capsys):
    ego, files = _write(tmp_path)
    f = "edges + degree(0:1) + esp(0:1)"
    assert main(["ego", *files, f, "--alter-ties", str(tmp_path / "aaties.csv"),
                 "--popsize", "205", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = ef.ego.statistics(ego, f, scaleto=205, se=True)
    assert list(out["stats"]) == want.labels
    np.testing.assert_allclose(list(out["se"].values()), want.se.values, atol=1e-12)
    assert out["stats"]["edges"] == 203


def test_fit_prints_statnets_table(tmp_path, capsys):
    _, files = _write(tmp_path)
    assert main(["ego", *files, "edges + nodematch('Sex')", "--popsize", "205", "--fit"]) == 0
    out = capsys.readouterr().out
    assert "offset(netsize.adj)" in out and "nodematch.Sex" in out


def test_bad_input_is_one_error_line(tmp_path, capsys):
    _, files = _write(tmp_path)
    assert main(["ego", *files, "esp(1)"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ergmfit: error:") and "alter_ties" in err
    assert main(["ego", files[0], str(tmp_path / "missing.csv"), "edges"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_ppop_wt_sample_on_the_command_line(tmp_path, capsys):
    # census of 205 egos, popsize 1000: rounding gives 5 copies each (1025 nodes), sampling
    # exactly 1000
    _, files = _write(tmp_path)
    base = ["ego", *files, "edges + nodematch('Sex')", "--popsize", "1000", "--fit", "--json",
            "--seed", "1"]
    assert main(base) == 0
    assert json.loads(capsys.readouterr().out)["ppopsize"] == 1025
    assert main(base + ["--ppop-wt", "sample"]) == 0
    assert json.loads(capsys.readouterr().out)["ppopsize"] == 1000
