"""ERGMResults and Summary: statnet's layout, derived quantities, save/load."""
import json
import math
import pickle
import re

import numpy as np
import pytest
from scipy import stats

import ergmfit as ef
from ergmfit.estimation import fit
from ergmfit.results import (ERGMResults, LabeledArray, Summary, format_pvalues, r_format,
                             signif_stars)

STATNET_EXAMPLE = """\
Monte Carlo Maximum Likelihood Results:

         Estimate Std. Error MCMC % z value Pr(>|z|)    
edges     -1.6766     0.3521      0  -4.762   <1e-04 ***
triangle   0.1609     0.5537      0   0.291    0.771    
---
Signif. codes:  0 \u2018***\u2019 0.001 \u2018**\u2019 0.01 \u2018*\u2019 0.05 \u2018.\u2019 0.1 \u2018 \u2019 1

     Null Deviance: 166.4  on 120  degrees of freedom
 Residual Deviance: 108.1  on 118  degrees of freedom
 
AIC: 112.1  BIC: 117.6  (Smaller is better. MC Std. Err. = 0.001022)
"""


@pytest.fixture(scope="module")
def flo_fit():
    return fit(ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + triangle"), "mple")


# ---------------------------------------------------------------------------
# the printed table
# ---------------------------------------------------------------------------
def test_statnet_example_reproduced_verbatim():
    """statnet_output.md section 3, flomarriage ~ edges + triangle (MCMC-MLE)."""
    cov = np.diag([0.3521 ** 2, 0.5537 ** 2])
    res = ERGMResults([-1.6766, 0.1609], cov, ["edges", "triangle"], method="mcmle",
                      loglik=-108.07 / 2, loglik_kind="bridge", nobs=120,
                      loglik_mcse=0.001022)
    text = str(res.summary())
    assert text == STATNET_EXAMPLE


def test_mple_summary_layout(flo_fit):
    text = str(flo_fit.summary())
    lines = text.splitlines()
    assert "Maximum Pseudolikelihood Results:" in lines
    head = lines.index("Maximum Pseudolikelihood Results:")
    assert lines[head + 2] == "         Estimate Std. Error MCMC % z value Pr(>|z|)    "
    assert re.fullmatch(r"edges     -1\.7009     0\.3083      0  -5\.517   <1e-04 \*\*\*",
                        lines[head + 3])
    assert re.fullmatch(r"triangle   0\.2208     0\.4276      0   0\.516    0\.606    ",
                        lines[head + 4])
    assert lines[head + 5] == "---"
    assert lines[head + 6].startswith("Signif. codes:  0 \u2018***\u2019 0.001")
    assert "     Null Pseudo-deviance: 166.4  on 120  degrees of freedom" in lines
    assert " Residual Pseudo-deviance: 107.9  on 118  degrees of freedom" in lines
    assert "AIC: 111.9  BIC: 117.4  (Smaller is better. MC Std. Err. = 0)" in lines
    assert any(line.startswith("Warning: The standard errors are based on naive "
                               "pseudolikelihood and are suspect.") for line in lines)
    assert repr(flo_fit.summary()) == text


def test_summary_rows_and_frame(flo_fit):
    s = flo_fit.summary()
    rows = s.rows()
    assert [r["label"] for r in rows] == ["edges", "triangle"]
    assert rows[0]["stars"] == "***" and rows[1]["stars"] == ""
    assert rows[0]["estimate"] == pytest.approx(flo_fit.params["edges"])
    assert rows[1]["p"] == pytest.approx(flo_fit.pvalues["triangle"])
    assert all(r["mcmc_pct"] == 0 for r in rows)
    pd = pytest.importorskip("pandas")
    df = s.to_frame()
    assert list(df.columns[:5]) == ["Estimate", "Std. Error", "MCMC %", "z value", "Pr(>|z|)"]
    assert list(df.index) == ["edges", "triangle"]
    assert isinstance(df, pd.DataFrame)


def test_r_formatting_helpers():
    assert r_format([-1.6766, 0.1609], 5) == ["-1.6766", " 0.1609"]
    assert r_format([28987.4, 1433.37], 4) == ["28987", " 1433"]
    assert r_format([166.355], 4) == ["166.4"]
    assert r_format([7.98e9, 7.27e6], 4) == ["7.98e+09", "7.27e+06"]
    assert r_format([float("nan"), -math.inf], 4) == ["  NA", "-Inf"]
    assert format_pvalues([1e-6, 0.7713], 3, 1e-4) == ["<1e-04", "0.771"]
    assert format_pvalues([0.0123, 0.5], 3, 1e-4) == ["0.0123", "0.5000"]
    assert [signif_stars(p) for p in (0.0005, 0.005, 0.03, 0.07, 0.5)] == \
        ["***", "**", "*", ".", " "]


# ---------------------------------------------------------------------------
# derived quantities
# ---------------------------------------------------------------------------
def test_derived_quantities(flo_fit):
    r = flo_fit
    b, se = np.asarray(r.params), np.sqrt(np.diag(r.cov))
    np.testing.assert_allclose(r.bse, se)
    np.testing.assert_allclose(r.tvalues, b / se)
    np.testing.assert_allclose(r.pvalues, 2 * stats.norm.cdf(-np.abs(b / se)))
    ci = r.conf_int(0.1)
    np.testing.assert_allclose(ci[:, 0], b - stats.norm.ppf(0.95) * se)
    np.testing.assert_allclose(ci[:, 1], b + stats.norm.ppf(0.95) * se)
    assert ci["edges"][0] < r.params["edges"] < ci["edges"][1]
    D, p = 120, 2
    assert r.nobs == D and r.df_null == D and r.df_resid == D - p
    assert r.null_deviance == pytest.approx(2 * D * math.log(2))
    assert r.aic == pytest.approx(-2 * r.loglik + 2 * p)
    assert r.bic == pytest.approx(-2 * r.loglik + p * math.log(D))
    assert r.loglik_kind == "pseudo" and r.method == "mple" and r.converged
    assert r.n_iter > 0 and r.seconds > 0
    np.testing.assert_array_equal(r.mcmc_pct, [0, 0])
    assert r.coef == r.params.to_dict()


def test_mcmc_percent_from_the_monte_carlo_covariance():
    cov = np.diag([4.0, 1.0])
    cov_mc = np.diag([1.0, 0.0])
    r = ERGMResults([1.0, 2.0], cov, ["a", "b"], method="mcmle", cov_mc=cov_mc)
    # round(100 (2 - sqrt(3)) / 2) = 13
    np.testing.assert_array_equal(r.mcmc_pct, [13, 0])
    assert " 13 " in str(r.summary())
    assert "Log-likelihood was not estimated" in str(r.summary())
    assert r.aic is None and r.bic is None


def test_labeled_array():
    a = LabeledArray([1.0, -2.0], ["x", "y"])
    assert a["y"] == -2.0 and a.to_dict() == {"x": 1.0, "y": -2.0}
    np.testing.assert_array_equal(a * 2, [2.0, -4.0])
    assert (a * 2).labels == ["x", "y"]
    assert float(a.sum()) == -1.0
    with pytest.raises(KeyError, match="'z' is not a label"):
        a["z"]
    with pytest.raises(ValueError):
        LabeledArray([1.0], ["x", "y"])
    # params work as simulate()/check_params input
    from ergmfit.utils.validation import check_params
    np.testing.assert_array_equal(check_params(a, ["x", "y"]), [1.0, -2.0])


# ---------------------------------------------------------------------------
# serialisation
# ---------------------------------------------------------------------------
def _forbid_pickle(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("pickle used")
    monkeypatch.setattr(pickle, "dump", boom)
    monkeypatch.setattr(pickle, "dumps", boom)
    monkeypatch.setattr(pickle, "load", boom)
    monkeypatch.setattr(pickle, "loads", boom)


def _no_nonstandard_json(text):
    def bad(tok):
        raise AssertionError(f"non-standard JSON constant {tok}")
    return json.loads(text, parse_constant=bad)


@pytest.mark.parametrize("ext", [".json", ".npz"])
def test_save_load_round_trip(tmp_path, monkeypatch, ext):
    net = ef.datasets.load_network("lazega")
    m = ef.ERGM(net, "edges + gwesp(0.693, fixed=TRUE) + nodematch('practice')")
    r = fit(m, "mple", cov="godambe", n_sim=20, burnin=1000, interval=100, random_state=2)
    path = tmp_path / f"fit{ext}"
    _forbid_pickle(monkeypatch)
    r.save(path)
    if ext == ".json":
        _no_nonstandard_json(path.read_text())
    else:
        with np.load(path, allow_pickle=False) as z:
            assert all(z[k].dtype != object for k in z.files)
    back = ERGMResults.load(path)
    assert str(back.summary()) == str(r.summary())
    np.testing.assert_array_equal(back.params, r.params)
    np.testing.assert_array_equal(back.cov, r.cov)
    assert back.labels == r.labels and back.formula == r.formula
    for attr in ("loglik", "loglik_kind", "nobs", "method", "se_kind", "converged", "n_iter",
                 "seconds", "warnings", "aic", "bic", "dyad_independent"):
        assert getattr(back, attr) == getattr(r, attr), attr
    assert back.info["godambe"]["n_sim"] == 20
    # the network is stored: the model can be rebuilt for gof
    assert back.model is None
    m2 = back.rebuild_model()
    assert m2.statistics() == m.statistics()
    assert m2.network.node_attrs["practice"] == net.node_attrs["practice"]
    assert back.to_dict() == r.to_dict()


def test_non_finite_values_round_trip(tmp_path):
    net = ef.Network(6, [(0, 1), (1, 2), (2, 3), (3, 4)], directed=False)
    # the MPLE's own separation="warn" result (-Inf, NaN s.e.), as a fit run inside a
    # prepared one gets it: fit(m, "mple") itself fits the face of the MLE (#36; s.e. 0)
    from ergmfit.estimation.base import support_checked
    with pytest.warns(ef.ConvergenceWarning), support_checked():
        r = fit(ef.ERGM(net, "edges + triangle"), "mple", separation="warn")
    text = r.to_json()
    d = _no_nonstandard_json(text)
    assert d["coef"]["triangle"] == "-inf" and d["stderr"]["triangle"] is None
    for ext in (".json", ".npz"):
        r.save(tmp_path / f"r{ext}")
        back = ERGMResults.load(tmp_path / f"r{ext}")
        assert back.params["triangle"] == -math.inf and math.isnan(back.bse["triangle"])
        assert str(back.summary()) == str(r.summary())


def test_to_dict_has_the_cli_fields(flo_fit):
    d = flo_fit.to_dict()
    for key in ("model", "method", "n_nodes", "n_edges", "directed", "coef", "stderr", "loglik",
                "aic", "bic", "converged", "seconds"):
        assert key in d
    assert d["n_nodes"] == 16 and d["n_edges"] == 20 and d["directed"] is False
    assert d["model"] == "edges + triangle" and d["method"] == "mple"
    assert d["coef"] == flo_fit.params.to_dict()
    assert json.loads(flo_fit.to_json())["stderr"] == pytest.approx(flo_fit.bse.to_dict())
    assert "network" not in d and "network" in flo_fit.to_dict(include_network=True)


def test_save_rejects_unknown_extension(tmp_path, flo_fit):
    with pytest.raises(ValueError, match=r"\.json or \.npz"):
        flo_fit.save(tmp_path / "fit.pkl")
    with pytest.raises(ValueError, match=r"\.json or \.npz"):
        ERGMResults.load(tmp_path / "fit.pkl")


def test_summary_is_an_object_that_prints(flo_fit, capsys):
    s = flo_fit.summary()
    assert isinstance(s, Summary)
    print(s)
    assert "Maximum Pseudolikelihood Results:" in capsys.readouterr().out


def test_save_is_atomic(tmp_path, flo_fit, monkeypatch):
    from ergmfit.exceptions import ErgmfitError, SaveError
    for ext in (".json", ".npz"):
        path = tmp_path / f"fit{ext}"
        flo_fit.save(path)
        before = path.read_bytes()
        import ergmfit.utils.fileio as fio
        real_fsync = fio.os.fsync

        def full_disk(fd):
            raise OSError(28, "No space left on device")
        monkeypatch.setattr(fio.os, "fsync", full_disk)
        with pytest.raises(SaveError, match="No space left on device") as info:
            flo_fit.save(path)
        assert isinstance(info.value, ErgmfitError) and isinstance(info.value, OSError)
        monkeypatch.setattr(fio.os, "fsync", real_fsync)
        assert path.read_bytes() == before
        assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".tmp") == []
    with pytest.raises(SaveError, match="cannot save the results to"):
        flo_fit.save(tmp_path / "missing" / "fit.json")
    (tmp_path / "adir.json").mkdir()
    with pytest.raises(SaveError):
        flo_fit.save(tmp_path / "adir.json")


def test_notebook_friendly(flo_fit):
    pd = pytest.importorskip("pandas")
    s = flo_fit.params.to_series()
    assert list(s.index) == ["edges", "triangle"] and s["triangle"] == flo_fit.params["triangle"]
    ci = flo_fit.conf_int()
    assert ci.columns == ["2.5 %", "97.5 %"] and ci.labels == ["edges", "triangle"]
    assert repr(ci).splitlines()[0].split() == ["2.5", "%", "97.5", "%"]
    assert repr(ci).splitlines()[1].startswith("edges") and str(ci) == repr(ci)
    df = ci.to_frame()
    assert list(df.index) == ["edges", "triangle"] and list(df.columns) == ["2.5 %", "97.5 %"]
    assert df.loc["edges", "2.5 %"] == pytest.approx(ci["edges"][0])
    assert flo_fit.conf_int(0.1).columns == ["5 %", "95 %"]
    assert str(flo_fit.params).splitlines()[0].startswith("edges")
    frame = flo_fit.summary().to_frame()
    assert "" not in frame.columns and frame.loc["edges", "signif"] == "***"
    html = flo_fit._repr_html_()
    assert html.startswith("<pre>") and "Estimate" in html and "&lt;1e-04" in html
    assert flo_fit.summary()._repr_html_() == html
    assert ci._repr_html_().startswith("<pre>")


def test_convergence_is_reported(flo_fit):
    assert flo_fit.n_iter > 0
    assert f"Converged after {flo_fit.n_iter} iterations." in str(flo_fit.summary())
    assert f"converged after {flo_fit.n_iter} iterations" in repr(flo_fit)
    r = ERGMResults([1.0], np.eye(1), ["edges"], method="mcmle", converged=False, n_iter=60)
    assert "Did not converge after 60 iterations." in str(r.summary())
    assert "not converged after 60 iterations" in repr(r)
