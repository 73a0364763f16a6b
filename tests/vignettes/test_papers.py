"""The paper reproductions' numbers, in quick mode, within their error bars.

``learning_with_blocks.py`` (Asuncion et al. 2010, Fig. 5, Lazega) and
``epinions_ee.py`` (Borisenko et al. 2019, Sec. 3.3) are run as a user runs
them, in a fresh process with ``ERGMFIT_QUICK=1``; each writes its numbers
as JSON next to its table, and the tests compare them with the vignettes'
full runs (the constants below) within Monte Carlo error bars.  The MRF
vignettes are checked the same way in ``tests/vignettes/test_mrf_vignettes.py``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ergmfit
from support.paths import VIGNETTES


#: learning_with_blocks.py, full run (5 seeds; limits of 4,000,000 iterations): the L1 error to
#: the MLE of Bn-CD1 run to convergence, and its standard error
LAZEGA_FULL_L1 = {1: (1.23125, 0.00220), 2: (1.23053, 0.00132), 3: (1.22793, 0.00095), 4: (1.22655, 0.00056)}


def _run(name, tmp_path, *args, timeout=600):
    env = dict(os.environ, ERGMFIT_QUICK="1", ERGMFIT_FIGURES=str(tmp_path / "figs"),
               PYTHONPATH=os.path.dirname(os.path.dirname(ergmfit.__file__)), MPLBACKEND="Agg")
    work = tmp_path / "run"
    work.mkdir()
    r = subprocess.run([sys.executable, os.path.join(VIGNETTES, name + ".py"), *args],
                       cwd=str(work), env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    with open(tmp_path / "figs" / f"{name}.json") as fh:
        return r.stdout, json.load(fh)


@pytest.mark.slow
def test_learning_with_blocks_quick(tmp_path):
    out, res = _run("learning_with_blocks", tmp_path)
    assert res["quick"] and res["n_seeds"] == 3
    lim = {int(k): v for k, v in res["limits"].items()}
    # B1-CD1 and B2-CD1 run to convergence reach the exact MPLE and MCLE of order 2
    # (standard errors of 3 seeds, floored at the 5-seed values: a 3-seed sd can be tiny)
    floor = np.array([0.01, 0.0008, 0.002])
    for n, exact in ((1, res["mple"]), (2, res["mcle2"])):
        se = np.maximum(lim[n]["theta_se"], floor)
        assert np.all(np.abs(np.subtract(lim[n]["theta"], exact)) < 4 * se), (n, lim[n], exact)
    # every converged L1 error is the full run's within the error bars, and far from 0
    for n, (full, full_se) in LAZEGA_FULL_L1.items():
        se = np.hypot(max(lim[n]["l1_se"], 0.003), full_se)
        assert abs(lim[n]["l1"] - full) < 4 * se, (n, lim[n]["l1"], full)
    assert res["verdict_close"] == "not reproduced"
    assert res["b4_max_z_to_mle"] > 5
    # the paper's 20,000-iteration protocol has not converged, and the table says so
    prot = {int(k): v for k, v in res["protocol"].items()}
    assert all(p["dist_to_limit"] > 1.0 for p in prot.values())
    assert "transient of the schedule" in out
    assert "| quantity | paper | ergmfit |" in out


@pytest.mark.slow
def test_epinions_quick(tmp_path):
    """A short run (1 chain, 10 x 100 iterations; ~30 CPU-s): the observed statistics, the
    deviation from the paper's learning rate named in the output, and the run reported as
    not converged (it is far from EstimNet's estimates, and must not claim otherwise)."""
    out, res = _run("epinions_ee", tmp_path, timeout=1800)
    assert "50 times the paper's" in out and "not estimates" in out
    assert res["quick"] and np.isclose(res["learning_rate"], 50 * res["paper_learning_rate"])
    stats = res["statistics"]
    assert stats["edges"] == 508837                 # Arc, in statnet's label
    for lab, v in (("AltInStars(2)", 868986.66), ("AltOutStars(2)", 846746.67),
                   ("AltKTrianglesT(2)", 597173.02)):
        assert abs(stats[lab] - v) < 0.01, (lab, stats[lab])
    assert not res["converged"]
    terms = res["terms"]
    assert all(np.isfinite(t["estimate"]) and t["se"] > 0 for t in terms.values())
    # the signs of EstimNet's estimates already (Algorithm S + 1,000 EE iterations)
    assert terms["edges"]["estimate"] < 0 < terms["AltKTrianglesT(2)"]["estimate"]


def _paper_trace(path, n_outer, drift, seed):
    """A trace.csv as ``epinions_ee.py --paper`` writes it: θ stationary about EstimNet's
    estimates (plus ``drift`` per outer iteration on AltKTrianglesT), dzA about 0."""
    rng = np.random.default_rng(seed)
    labels = ["edges", "AltInStars(2)", "AltOutStars(2)", "AltKTrianglesT(2)"]
    centre = np.array([-13.8, 1.3, 1.0, 3.2])
    with open(path, "w") as fh:
        fh.write(",".join(["outer", "iterations", "cpu_s", "acceptance"]
                          + [f"theta:{x}" for x in labels] + [f"dz:{x}" for x in labels]) + "\n")
        for o in range(1, n_outer + 1):
            th = centre + 0.02 * rng.standard_normal(4)
            th[3] += drift * o
            dz = 50 * rng.standard_normal(4)
            fh.write(",".join(str(v) for v in [o, o * 100, 0.3 * o, 0.28, *th, *dz]) + "\n")


def test_epinions_paper_report_in_process(tmp_path):
    """The same verdicts from ``paper_report`` called in this process (the fast check; the
    command line is checked by the slow test below)."""
    import importlib.util
    pytest.importorskip("matplotlib")
    spec = importlib.util.spec_from_file_location("epinions_ee_vignette",
                                                  os.path.join(VIGNETTES, "epinions_ee.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for name, drift, settled in (("still", 0.0, True), ("drift", 0.001, False)):
        ck = tmp_path / name
        ck.mkdir()
        _paper_trace(ck / "trace.csv", 400, drift, 3)
        terms = mod.paper_report(str(ck), str(ck), "stopped")
        table = (ck / "epinions_ee_paper.md").read_text()
        assert ("NOT settled" not in table) == settled and "40,000 of 500,000" in table
        assert (abs(terms["AltKTrianglesT(2)"]["drift_z"]) <= 3) == settled


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_epinions_paper_report_says_settled_only_without_drift(tmp_path, seed):
    """``--paper --report-only`` reads a checkpoint's trace: a stationary θ is "settled", a
    drifting one "NOT settled", and the table states how many of the planned steps ran."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ergmfit.__file__)),
               MPLBACKEND="Agg")
    for name, drift, verdict in (("still", 0.0, "settled:"), ("drift", 0.001, "NOT settled")):
        ck, out = tmp_path / name, tmp_path / (name + "_figs")
        ck.mkdir()
        _paper_trace(ck / "trace.csv", 400, drift, seed)
        r = subprocess.run([sys.executable, os.path.join(VIGNETTES, "epinions_ee.py"), "--paper",
                            "--report-only", "--checkpoint", str(ck), "--out", str(out)],
                           cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        table = (out / "epinions_ee_paper.md").read_text()
        assert verdict in table and "40,000 of 500,000" in table and "converge" not in table
        res = json.loads((out / "epinions_ee_paper.json").read_text())
        assert not res["finished"] and res["iterations"] == 40_000
        assert (out / "epinions_ee_paper.png").stat().st_size > 1000
        # a stationary θ about EstimNet's estimates agrees with them
        if drift == 0.0:
            assert all(abs(t["z_estimnet"]) < 2 for t in res["terms"].values())
