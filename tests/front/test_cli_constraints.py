"""Constraints, missing dyads, offsets and target statistics on the command
line and in saved results."""
import json

import numpy as np

import ergmfit as ef
from ergmfit.cli import main
from ergmfit.results import ERGMResults


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_fit_json_carries_the_sample_space(capsys, tmp_path):
    miss = tmp_path / "na.csv"
    miss.write_text("source,target\n1,9\n2,6\n")
    save = tmp_path / "fit.json"
    code, out, err = run(capsys, "fit", "flomarriage", "offset(edges) + nodecov('wealth')",
                         "--method", "mple", "--offset-coef", "-2.5", "--constraints",
                         "~ bd(maxout=6)", "--missing", str(miss), "--json", "--save", str(save))
    assert code == 0, err
    d = json.loads(out)
    assert d["coef"]["offset(edges)"] == -2.5
    assert d["sample_space"]["missing"] == [[1, 9], [2, 6]]
    assert d["sample_space"]["constraints"] == "~ bd(maxout=6)"
    res = ERGMResults.load(str(save))
    model = res.rebuild_model()
    assert model.sample_space.describe() == "bd(maxout=6) (2 missing)"
    assert list(model.offset_coef) == [-2.5]
    # the rebuilt model fits to the same numbers
    again = model.fit(method="mple", offset_coef=[-2.5])
    np.testing.assert_allclose(np.asarray(again.params), np.asarray(res.params))


def test_simulate_and_gof_take_constraints(capsys):
    code, out, err = run(capsys, "simulate", "flomarriage", "edges + triangle", "--coef", "-1",
                         "0.5", "--constraints", "~ degrees", "--n", "3", "--seed", "1", "--json")
    assert code == 0, err
    rows = json.loads(out)["stats"]
    assert all(r[0] == 20 for r in rows)
    code, out, err = run(capsys, "gof", "flomarriage", "edges", "--coef", "-1.6",
                         "--constraints", "~ edges", "--n-sim", "5", "--seed", "1")
    assert code == 0, err


def test_bad_constraint_is_one_error_line(capsys):
    code, out, err = run(capsys, "fit", "flomarriage", "edges", "--constraints", "~ nonsense",
                         "--method", "mple")
    assert code != 0 and "unknown constraint" in err and "Traceback" not in err


def test_target_stats_on_the_command_line(capsys):
    code, out, err = run(capsys, "fit", "samplike", "edges + mutual", "--method", "mple",
                         "--target-stats", "100", "35", "--seed", "1", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert abs(d["coef"]["edges"] - (-1.76928661)) < 1e-6
    assert d["sample_space"]["target_stats"] == [100.0, 35.0]


def test_gof_of_a_constrained_fit_uses_its_space():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle", constraints="~ degrees")
    fit = m.fit(method="mple")
    gof = fit.gof(n_sim=5, random_state=1)
    assert gof is not None
    assert fit.rebuild_model().sample_space.preserve == "degrees"
