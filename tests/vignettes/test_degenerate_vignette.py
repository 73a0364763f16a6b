"""vignettes/degenerate_lazega.py runs end to end in quick mode (#36 item 4): the plain
MCMC-MLE fails clearly, the tempered chain at the MPLE is at the complete graph, the
tapered fit reproduces the observed statistics within 3 s.e. with both samplers, and so does
its MCMC-MLE on tempered chains (fit(tempering=...))."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import ergmfit
from support.paths import VIGNETTES


@pytest.mark.slow
def test_degenerate_vignette_quick(tmp_path):
    env = dict(os.environ, ERGMFIT_QUICK="1", ERGMFIT_FIGURES=str(tmp_path), MPLBACKEND="Agg",
               PYTHONPATH=str(pathlib.Path(ergmfit.__file__).resolve().parent.parent))
    r = subprocess.run([sys.executable, os.path.join(VIGNETTES, "degenerate_lazega.py")],
                       cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "plain MCMC-MLE fails" in r.stdout
    res = json.loads((tmp_path / "degenerate_lazega.json").read_text())
    assert res["quick"] and res["plain_mcmle"] == "DegenerateModelError"
    assert res["tempered_at_mple"]["mean"][0] == 630.0          # the complete graph
    assert res["tapered_within_3_se"]       # also the tempered MCMC-MLE's fit.simulate (step 4)
    assert len(res["tempered_mcmle"]) == 1 and len(res["tempered_mcmle"][0]["params"]) == 3
    assert abs(res["tapered_mple"][2] - 0.665536) < 1e-3         # ergm.tapered's MPLE
    assert (tmp_path / "degenerate_lazega.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
