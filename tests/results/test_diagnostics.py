"""Typed per-method diagnostics (``fit.diagnostics``) and ``fit.info``, their dict view.

That every registered estimator reports only declared fields is checked over the estimator
table in ``tests/contracts/test_estimators.py``; here: the view, the saved form, and files
written by ergmfit before the results package (``saved_v1/``, written by commit d5d0a64).
"""
import json
import pathlib
import pickle
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.results import (BayesResults, Diagnostics, EEDiagnostics, ERGMResults,
                             ExchangeDiagnostics, MCMLEDiagnostics, MPLEDiagnostics,
                             diagnostics_class)

SAVED_V1 = pathlib.Path(__file__).resolve().parent / "saved_v1"


def _results(method="mcmle", info=None):
    return ERGMResults([0.5, -1.0], np.eye(2), ["edges", "triangle"], method=method, info=info)


def test_the_estimators_dict_becomes_the_methods_typed_fields():
    info = {"history": [{"iteration": 1}], "final_interval": 64, "fallback": None,
            "mcmc": {"interval": 64, "burnin": 1024}}
    res = _results("mcmle", info)
    d = res.diagnostics
    assert type(d) is MCMLEDiagnostics
    assert d.final_interval == 64 and d.history is info["history"] and d.extra == {}
    assert d.mcmc == {"interval": 64, "burnin": 1024}
    # the view gives back what was reported, in order, explicit None included
    assert dict(res.info) == info and list(res.info) == list(info)
    assert res.info["fallback"] is None and "fallback" in res.info
    # a field nobody reported is not in the view
    assert "init_method" not in res.info and res.info.get("init_method") is None
    with pytest.raises(KeyError):
        res.info["init_method"]


def test_fields_are_set_on_the_diagnostics_and_show_in_the_view():
    res = _results("mple", {"design": {"n_vars": 3}})
    res.diagnostics.set("exact_mle", True)          # as the estimators and the model layer do
    res.diagnostics.update({"call_method": "mcmle", "sample_space": {"constraints": "~ edges"}})
    assert res.diagnostics.exact_mle is True and res.diagnostics.call_method == "mcmle"
    assert res.diagnostics.sample_space == {"constraints": "~ edges"}
    assert list(res.info) == ["design", "exact_mle", "call_method", "sample_space"]
    res.diagnostics.curved_start = [1.0]            # and a typed write shows in the view
    assert res.info["curved_start"] == [1.0]
    res.diagnostics.unset("exact_mle")
    assert "exact_mle" not in res.info and res.diagnostics.exact_mle is None
    res.diagnostics.set("my_figure", 2.0)
    res.diagnostics.unset("my_figure")
    assert "my_figure" not in res.info
    with pytest.raises(KeyError):
        res.diagnostics.unset("never_reported")


@pytest.mark.parametrize("write", [
    lambda info: info.__setitem__("exact_mle", True),
    lambda info: info.__delitem__("design"),
    lambda info: info.update(call_method="mcmle"),
    lambda info: info.setdefault("exact_mle", True),
    lambda info: info.pop("design"),
    lambda info: info.popitem(),
    lambda info: info.clear(),
], ids=["setitem", "delitem", "update", "setdefault", "pop", "popitem", "clear"])
def test_fit_info_is_read_only_and_says_where_writes_go(write):
    from ergmfit.exceptions import ErgmfitError, ReadOnlyError
    res = _results("mple", {"design": {"n_vars": 3}})
    before = res.diagnostics.to_info()
    with pytest.raises(ReadOnlyError, match=r"read-only.*fit\.diagnostics\.set") as exc:
        write(res.info)
    assert isinstance(exc.value, ErgmfitError) and isinstance(exc.value, TypeError)
    assert res.diagnostics.to_info() == before      # nothing changed
    with pytest.raises(ReadOnlyError, match="read-only"):
        res.info = {"design": {}}
    assert res.diagnostics.to_info() == before
    copy = dict(res.info)                           # a copy is the user's to change
    copy["exact_mle"] = True
    assert "exact_mle" not in res.info


def test_an_undeclared_key_is_kept_in_extra_not_lost():
    res = _results("mcmle", {"final_interval": 8, "my_figure": 1.5})
    assert res.diagnostics.extra == {"my_figure": 1.5}
    assert res.info["my_figure"] == 1.5 and list(res.info) == ["final_interval", "my_figure"]
    # a method without a diagnostics class (a registered function) keeps everything in extra
    other = _results("my-method", {"a": 1})
    assert type(other.diagnostics) is Diagnostics and other.diagnostics.extra == {"a": 1}
    assert diagnostics_class("MY-METHOD") is Diagnostics


def test_the_summary_reads_the_typed_fields():
    res = _results("sa", {"t_ratios": {"edges": 0.0123, "triangle": -0.25}})
    assert "t ratio" in str(res.summary())
    pytest.importorskip("pandas")
    assert res.summary().to_frame()["t ratio"].tolist() == [0.0123, -0.25]
    called = _results("mle", {"call_method": "mcmle"})
    called.formula = "edges + triangle"
    assert "fit(method='mcmle')" in str(called.summary())


@pytest.mark.parametrize("ext", [".json", ".npz"])
def test_save_load_round_trips_the_typed_diagnostics(tmp_path, ext):
    g = ef.datasets.load("flomarriage")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = ef.ERGM(g, "edges + triangle").fit(method="mcmle", random_state=1, maxit=2,
                                                 samplesize=64, eval_loglik=False)
    fit.save(tmp_path / f"fit{ext}")
    back = ERGMResults.load(tmp_path / f"fit{ext}")
    assert type(back.diagnostics) is MCMLEDiagnostics
    assert back.diagnostics == fit.diagnostics
    assert list(back.info) == list(fit.info)
    assert back.diagnostics.final_interval == fit.diagnostics.final_interval > 0
    assert back.diagnostics.history[-1]["pvalue"] == fit.diagnostics.history[-1]["pvalue"]
    # the file stores the diagnostics under "info", as files always did
    stored = json.loads((tmp_path / "fit.json").read_text())["info"] if ext == ".json" else None
    if stored is not None:
        assert list(stored) == list(fit.info)


def test_diagnostics_pickle_and_compare():
    res = _results("ee", {"t_ratios": {"edges": float("nan")}, "proposals": 10})
    again = pickle.loads(pickle.dumps(res))
    assert type(again.diagnostics) is EEDiagnostics and again.diagnostics == res.diagnostics
    assert res.diagnostics != EEDiagnostics.from_info({"proposals": 11})
    assert "proposals=10" in repr(res.diagnostics)


# ---------------------------------------------------------------------------
# files written before the results package (format 1, "ergmfit.results_bayes" class name)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, cls, diag", [
    ("mcmle_v1.json", ERGMResults, MCMLEDiagnostics),
    ("mcmle_v1.npz", ERGMResults, MCMLEDiagnostics),
    ("bayes_v1.json", BayesResults, ExchangeDiagnostics),
    ("ee_v1.json", ERGMResults, EEDiagnostics),
    ("mple_constrained_v1.json", ERGMResults, MPLEDiagnostics),
])
def test_files_written_by_the_previous_version_load_typed(name, cls, diag, tmp_path):
    path = SAVED_V1 / name
    res = ERGMResults.load(path)
    assert type(res) is cls and type(res.diagnostics) is diag
    assert res.diagnostics.extra == {}
    if name.endswith(".json"):
        stored = json.loads(path.read_text())
        assert dict(res.info) == stored["info"] and list(res.info) == list(stored["info"])
        # saved again, the file holds the same diagnostics in the same form
        res.save(tmp_path / name)
        assert json.loads((tmp_path / name).read_text())["info"] == stored["info"]
    str(res.summary())
    if diag is MCMLEDiagnostics:
        assert res.diagnostics.mcmc["interval"] == res.diagnostics.final_interval
        assert res.mcmc_sample is not None
    if diag is ExchangeDiagnostics:
        assert res.diagnostics.aux_iters == 300 and res.n_chains == 2
    if diag is MPLEDiagnostics:
        assert res.diagnostics.sample_space["constraints"] == "~ bd(maxout=7)"
        assert "Constraints: ~ bd(maxout=7)" in str(res.summary())
        assert res.rebuild_model().sample_space.kind != "all"
