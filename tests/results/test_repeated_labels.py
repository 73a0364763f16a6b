"""Repeated statistic names (statnet allows them) keep every statistic in gof, results,
save/load and the CLI's JSON: dict keys follow R's make.unique (name, name.1, ...)."""
import json

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.cli import main
from ergmfit.results import ERGMResults

# two names, each given to two different statistics (labels edges, edges, Sum~, Sum~)
FORMULA = ('edges + Label(~absdiff("wealth"), "edges", "replace") '
           '+ Sum("sum"~edges+kstar(2), "") + Sum("mean"~edges+triangle, "")')
KEYS = ["edges", "edges.1", "Sum~", "Sum~.1"]


@pytest.fixture(scope="module")
def fit():
    return ef.ERGM("flomarriage", FORMULA).fit(method="mple")


def test_labels_repeat_and_statistics_differ(fit):
    m = fit.model
    assert m.stat_labels == ["edges", "edges", "Sum~", "Sum~"]
    st = m.statistics()
    assert list(st) == KEYS
    # edges, absdiff(wealth), edges + kstar2, (edges + triangle) / 2 on flomarriage
    assert list(st.values()) == [20.0, 1146.0, 20 + 47, (20 + 3) / 2]
    assert fit.params.to_dict().keys() == set(KEYS) and len(fit.params) == 4
    text = str(fit.summary())
    assert sum(line.startswith("edges ") for line in text.splitlines()) == 2
    assert sum(line.startswith("Sum~ ") for line in text.splitlines()) == 2
    assert "'edges.1': " in repr(fit)


def test_gof_keeps_every_statistic(fit):
    res = fit.gof(n_sim=8, random_state=3, statistics="model")
    assert list(res.pvalues["model"]) == KEYS
    assert res.pvalues["model"] == dict(zip(KEYS, res["model"].pvalue.tolist()))
    assert list(res.params) == KEYS
    np.testing.assert_array_equal(list(res.params.values()), np.asarray(fit.params))
    d = res.to_dict()
    assert d["blocks"]["model"]["rows"] == ["edges", "edges", "Sum~", "Sum~"]
    assert d["blocks"]["model"]["obs"] == [20, 1146, 67, 11.5]
    assert list(d["params"]) == KEYS


@pytest.mark.parametrize("ext", [".json", ".npz"])
def test_save_load_and_gof_of_the_loaded_fit(fit, tmp_path, ext):
    fit.save(tmp_path / f"f{ext}")
    back = ERGMResults.load(tmp_path / f"f{ext}")
    assert back.labels == fit.labels
    np.testing.assert_array_equal(back.params, fit.params)
    assert json.loads(back.to_json())["coef"] == fit.params.to_dict()
    a = fit.gof(n_sim=6, random_state=1, statistics="model")
    b = back.gof(n_sim=6, random_state=1, statistics="model")
    assert a.pvalues == b.pvalues and list(b.pvalues["model"]) == KEYS


def test_cli_json_keeps_every_statistic(fit, capsys):
    coef = [str(v) for v in np.asarray(fit.params)]
    assert main(["gof", "flomarriage", FORMULA, "--coef", *coef, "--n-sim", "5", "--seed", "2",
                 "--statistics", "model", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert list(d["params"]) == KEYS
    assert d["blocks"]["model"]["rows"] == ["edges", "edges", "Sum~", "Sum~"]
    assert main(["fit", "flomarriage", FORMULA, "--method", "mple", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert list(d["coef"]) == KEYS


def test_offset_flags_keep_every_statistic():
    m = ef.ERGM("flomarriage", 'offset(edges) + offset(Label(~triangle, "edges", "replace")) '
                               '+ kstar(2)')
    r = m.fit(method="cd", offset_coef=[-2.0, 0.5], random_state=1)
    assert r.info["offset"] == {"offset(edges)": True, "offset(edges).1": True, "kstar2": False}
