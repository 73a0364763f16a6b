"""The MRF vignettes run end to end with ERGMFIT_QUICK=1, and their quick-mode
numbers are checked within their error bars, at several base seeds (ERGMFIT_SEED):
the committed one and four others (marked ``long``) for the vignettes whose verdicts a
single seed once carried (Vickrey, Borisenko, the CRF), so a check that holds at one seed
only fails.  ``test_paper_seeds.py`` checks every paper vignette's verdict at several seeds
in seconds.

Each runs in a subprocess whose cwd is outside the repository, importing the
same ``ergmfit`` package as this test session (the installed one in CI)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ergmfit
from support.paths import VIGNETTES, load_script



#: base seeds of the quick runs: "" is the vignette's own (the committed figures' seed)
OTHER_SEEDS = ["11", "23", "5", "37"]
#: quick-mode checks known to fail at a seed (strict: they must keep failing until fixed)
KNOWN_FAILURES = {
    ("asuncion_crf", "37"): "quick mode's 60-iteration B1-CD1 errs 31.3% on the test images, "
                            "worse than sign(y) (15.9%): that the quick fits denoise at all is "
                            "seed-dependent (the full run's 4-5% is the claim)",
}
QUICK_RUNS = ([(name, "") for name in ["asuncion_vbm", "asuncion_crf", "dillon_lebanon_scl",
                                       "yasuda_rbm", "vickrey_chain", "borisenko_mrf"]]
              + [pytest.param(name, seed, marks=[pytest.mark.long] + (
                  [pytest.mark.xfail(reason=KNOWN_FAILURES[name, seed], strict=True)]
                  if (name, seed) in KNOWN_FAILURES else []))
                 for name in ["vickrey_chain", "borisenko_mrf", "asuncion_crf"]
                 for seed in OTHER_SEEDS])


@pytest.mark.slow
@pytest.mark.parametrize("name,seed", QUICK_RUNS)
def test_vignette_quick(name, seed, tmp_path):
    script = os.path.join(VIGNETTES, name + ".py")
    if not os.path.exists(script):
        pytest.skip(f"{name}.py not present")
    env = dict(os.environ, ERGMFIT_QUICK="1", ERGMFIT_FIGURES=str(tmp_path / "figs"),
               PYTHONPATH=os.path.dirname(os.path.dirname(ergmfit.__file__)),
               MPLBACKEND="Agg", ERGMFIT_SEED=seed)
    # the committed-seed vickrey_chain run is also issue #22's check (item 7) that a run
    # without --out or ERGMFIT_FIGURES writes to a new temporary directory, which it names,
    # and leaves vignettes/figures/ alone (one quick run for both: it was two)
    default_out = (name, seed) == ("vickrey_chain", "")
    if default_out:
        del env["ERGMFIT_FIGURES"]
        env["TMPDIR"] = str(tmp_path / "tmp")
        (tmp_path / "tmp").mkdir()
        before = committed_figures()
    work = tmp_path / "run"
    work.mkdir()
    r = subprocess.run([sys.executable, script], cwd=str(work), env=env, capture_output=True,
                       text=True, timeout=1200)      # wall time on a loaded machine
    assert r.returncode == 0, r.stderr[-3000:]
    figs = tmp_path / "figs"
    if default_out:
        made = [p for p in (tmp_path / "tmp").iterdir() if p.name.startswith(f"ergmfit-{name}-")]
        assert len(made) == 1 and not figs.exists(), made
        figs = made[0]
        assert str(figs) in r.stdout
        assert committed_figures() == before
        assert not any(work.iterdir()), list(work.iterdir())
    assert "| quantity | paper | ergmfit |" in r.stdout
    assert (figs / f"{name}.png").stat().st_size > 1000
    assert (figs / f"{name}.md").exists()
    check = CHECKS.get(name)
    if check is not None:
        path = figs / f"{name}.json"
        res = None
        if path.exists():
            with open(path) as fh:
                res = json.load(fh)
        check(res, r.stdout)


def committed_figures():
    return {p.name: p.stat().st_mtime_ns for p in (VIGNETTES / "figures").glob("*")}


def _vbm(res, out):
    """Fig. 2a: models are classified only beyond their own noise (every model refit with
    further seeds); limits only with a finite MLE."""
    n = res["n_models"]
    assert sum(res["cls_sto"]) == n and sum(res["cls_ode"]) == n
    assert sum(res["cls_lim"]) == res["n_lim"] <= n - res["n_no_mle"]
    assert np.isfinite(res["sd_seed"]) and res["sd_seed"] > 0
    assert res["n_refit"] >= 1 and len(res["sd_model"]) == n and res["t_crit"] > 2
    assert "performs as well or better than B1-CD4 over 100 different models" in out
    assert "(nearly) all" not in out


def _borisenko(res, out):
    """Quick mode (10 spins, 300 observations, 3 data draws x 2 algorithm seeds): EE finds
    the exact MLE of the 1-D Ising fit (within 4 s.e. or 0.001 per observation); a CD-1 run
    that has not converged (300 steps on the VBM: on some draws) is reported as such, never
    as 'after convergence'; Fig. 3a looks at EE too (max |t| <= 0.1, the paper's criterion);
    the Figs. 3a/3b verdicts count the data draws they hold on ('reproduced on k of m data
    draws', reproduced only on all)."""
    i = res["ising"]
    assert abs(i["ll_ee"] - i["ll_mle"]) < max(4 * i["ll_ee_se"], 1e-3), i
    m = res["n_draws"]
    assert m >= 2 and len(res["per_draw"]) == m
    for d in res["per_draw"]:
        assert d["vbm_cd_converged"] or "CD-1 not converged" in d["v3a"], d
        assert d["vbm_t_max"] <= 0.1 or "EE max |t|" in d["v3a"], d
        assert d["ising_cd_converged"] or "CD-1 not converged" in d["v3b"], d
    k = sum(d["v3a"] == "reproduced" for d in res["per_draw"])
    assert res["v3a"].endswith(f"reproduced on {k} of {m} data draws")
    k = sum(d["v3b"] == "reproduced" for d in res["per_draw"])
    assert res["v3b"].endswith(f"reproduced on {k} of {m} data draws")
    assert res["v3b"].startswith("reproduced" if k == m else "not reproduced")
    assert res["v4a"].startswith(("reproduced", "not reproduced"))


def _yasuda(res, out):
    """The two explanations of the paper's log-likelihoods, numerically: a {0,1} visible
    coding of the stated generator has entropy 1.694 (70 draws ~1.52); the +-1 one 0.791."""
    assert abs(res["pm"]["H_true"] - 0.791) < 1e-3
    assert abs(res["c01"]["H_true"] - 1.694) < 1e-3
    c = res["c01"]
    assert abs(c["H"] - 1.52) < 4 * max(c["H_se"], 0.18 / np.sqrt(res["n_trials"])), c
    for key in ("pm", "alt", "c01"):         # no L_ML above -entropy of the data
        assert max(res[key]["ll"].values()) <= -res[key]["H"] + 1e-6
        # 'MAD falls with k' is a paired test: z of the per-trial differences, per step and group
        z = np.array(res[key]["falls_z"])
        assert z.shape == (2, 3) and res[key]["falls"] == bool(np.all(z > 2)), z


def _crf(res, out):
    """Item 1: with clean training labels there is no finite estimate, and the table says so;
    over the quick mode's data sets (mean ± Monte Carlo s.e.) sign(y) errs at P(Z > 1) =
    15.87% (binomial s.e. over the 2 x 2 test images of 16 x 16 pixels: 1.14%; the s.e. of 2
    data sets is no error bar), no fitted CRF does worse than no model beyond that error
    (the quick fits stop after 60 iterations: at seeds 11 and 23 their mean error is 13.8%
    and 16.1%, so denoising beyond the error bars is a full-run claim: 4-5% there), the edge
    coupling grows, and each claim gets a verdict (a 'not reproduced' names its reason)."""
    assert "no: the pseudo-likelihood has no finite maximiser" in out
    assert "the error rates above compare truncated runs" in out
    assert res["n_seeds"] >= 2 and res["n_no_estimate"] == res["n_seeds"]
    node, node_se = res["node"]
    binom_se = 100 * np.sqrt(0.1587 * 0.8413 / (res["n_seeds"] * 2 * 16 * 16))
    assert abs(node - 15.87) < 4 * max(node_se, binom_se), res["node"]
    errs = [res["b1"][0]] + [res["b"][n][0] for n in res["b"]] + [res["c"][n][0] for n in res["c"]]
    assert np.mean(errs) < 15.87 + 2 * binom_se and max(errs) < 15.87 + 5 * binom_se, errs
    assert 0.5 < res["edge"][0] <= res["edge"][1] < 10, res["edge"]
    for key in ("v1", "v2"):
        assert res[key].startswith(("reproduced", "not reproduced")), res[key]
        if res[key].startswith("not"):
            assert "most likely reason: no finite estimate" in res[key]
    assert "deviations from the paper" in out


def _dillon(res, out):
    """Exact asymptotic variances (no Monte Carlo): PL1 > PL2 > PL3 > PL4 > FL; the Monte
    Carlo selection noise (seeds: mean ± s.e.) is > 0 and matches the exact formula's excess
    over eq. 14 (0.1647 at alpha = 0.3), so claim (d) is an error in the paper; the SCL fits
    are consistent (z-scores' chi-square)."""
    assert "trace ratio PL1 1.0432 > PL2 1.0221 > PL3 1.0080 > PL4 1.0012 > FL 1.0000" in out
    assert res["n_seeds"] >= 2
    q = res["mc"]["0.3"]
    sel, se = q["sel"]
    assert abs(q["exact"] - q["paper"] - 0.1647) < 1e-3
    assert sel > 2 * se and abs(sel - 0.1647) < 3 * se + 0.02, q
    assert abs(q["scl"][0] - q["exact"]) < 4 * q["scl"][1] + 0.1, q
    v = res["verdicts"]
    assert v["c"] == "reproduced" and v["e"] == "reproduced"
    assert v["d"].startswith("not reproduced: an error in the paper"), v["d"]
    assert res["p_chi2"] > 0.001 and v["consistency"] == "reproduced", res["p_chi2"]


def _vickrey(res, out):
    """Quick mode (2 replicates of 6 data sets, lambda1 = 0, 6, 10).  What holds at every
    seed, checked on the medians pooled over the 12 data sets (the s.e. of 2 replicates is
    no error bar): Simple Contrastive and ML stay on lambda0 = 0.139 at every lambda1 (a
    pooled median of 12 has sd ~0.006; tolerance 0.025), Contrastive is biased low at
    lambda1 = 0 (0.098 in the full run, 0.04 below lambda0); PL has a finite maximiser in
    every data set at lambda1 = 0 and in few at lambda1 = 10 (full run: 11%); PL medians
    over fewer than MIN_FINITE finite estimates never count for its verdict."""
    assert res["l1"] == [0.0, 6.0, 10.0] and res["n_seeds"] >= 2
    pooled = np.array(res["pooled_median"])                           # (n_l1, n_methods)
    for j in (1, 4):                                                   # Simple Contrastive, ML
        assert np.all(np.abs(pooled[:, j] - 0.139) < 0.025), (j, pooled[:, j])
    assert pooled[0, 2] < 0.139 - 0.02, pooled[:, 2]
    no_max = np.array(res["no_max"])
    assert no_max[0, 0] == 0 and no_max[-1, 0] >= 0.5, no_max[:, 0]
    assert res["pl_enough"] == [n >= res["min_finite"] for n in res["pl_n_finite"]]
    assert not res["pl_enough"][-1], res["pl_n_finite"]               # lambda1 = 10: few finite
    assert res["verdicts"]["pl"].startswith(("reproduced", "not reproduced"))
    row = next(line for line in out.splitlines()
               if line.startswith("| Simple Contrastive: max over"))
    assert float(row.split("|")[3]) < 0.025


CHECKS = {"asuncion_vbm": _vbm, "borisenko_mrf": _borisenko, "yasuda_rbm": _yasuda,
          "asuncion_crf": _crf, "dillon_lebanon_scl": _dillon, "vickrey_chain": _vickrey}


def test_vbm_detects_a_missing_mle():
    """asuncion_vbm's converged limits are computed only where the exact MLE exists: data
    that never show the all-ones state (the 8th-order statistic stays at its minimum) have
    no finite MLE; data with every state do."""
    v = load_script(VIGNETTES / "asuncion_vbm.py")
    _, G, _ = v.setup()
    p = np.full(256, 1 / 256)
    assert v.mle_exists(G, p)
    p[255] = 0.0
    p /= p.sum()
    assert not v.mle_exists(G, p)
