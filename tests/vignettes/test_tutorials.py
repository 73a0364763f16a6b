"""The tutorial vignettes run end to end (a smoke test with small samples).

Each of ``vignettes/lazega_tutorial.py``, ``faux_mesa_tutorial.py`` and
``directed_tutorial.py`` is run as a user runs it -- ``python
vignettes/NAME.py`` in a fresh process -- with ``ERGMFIT_QUICK=1`` (small
samples) and ``ERGMFIT_FIGURES`` pointing at a temporary directory, once
each; each must exit with status 0, print its sections, and write its
figures as PNG files.
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

import ergmfit
from support.paths import ROOT, VIGNETTES
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

#: vignette -> (figures it always writes, text its output must contain)
EXPECTED = {
    "lazega_tutorial.py": (
        ["lazega_network.png", "lazega_mcmle_theta.png", "lazega_mcmc_statistics.png",
         "lazega_gof.png"],
        ["1. The network", "2. Observed statistics", "3. A degenerate model",
         "4. The classic covariate model", "statnet MLE", "Monte Carlo Maximum Likelihood Results",
         "Goodness-of-fit for degree", "7. Saving the fit", "prints the same summary: True"]),
    "faux_mesa_tutorial.py": (
        ["faux_mesa_network.png", "faux_mesa_simulated.png", "faux_mesa_gof.png"],
        ["mixingmatrix", "Maximum Likelihood Results", "nodematch.Grade.7", "gwesp.fixed.0.25",
         "4. Simulating from the fit", "Goodness-of-fit for edgewise shared partner"]),
    "directed_tutorial.py": (
        ["samplike_network.png", "samplike_gof.png", "faux_dixon_gof.png"],
        ["edges + mutual", "statnet MLE", "gwideg.fixed.1", "gwodeg.fixed.1",
         "gwesp.OTP.fixed.0.5", "Goodness-of-fit for in-degree",
         "Goodness-of-fit for out-degree", "faux.dixon.high"]),
}


def _env(figures):
    env = dict(os.environ)
    env["ERGMFIT_QUICK"] = "1"
    env["ERGMFIT_FIGURES"] = str(figures)
    env["MPLBACKEND"] = "Agg"
    # the ergmfit these tests import, also for the child processes
    src = str(pathlib.Path(ergmfit.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _run(name, figures):
    """Run one vignette as a user does; (returncode, stdout, stderr)."""
    p = subprocess.Popen([sys.executable, str(VIGNETTES / name)], cwd=str(ROOT),
                         env=_env(figures), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        stdout, stderr = p.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        p.kill()
        stdout, stderr = p.communicate()
    return p.returncode, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_vignette_runs_and_writes_its_figures(name, tmp_path):
    # one run per vignette for both checks (a module fixture ran all three at once for the
    # two tests of each vignette, and again on every xdist worker that got one of them)
    figures = tmp_path / name.replace(".py", "")
    figures.mkdir()
    code, stdout, stderr = _run(name, figures)
    assert code == 0, f"{name} exited with {code}:\n{stderr[-3000:]}"
    assert "Traceback" not in stderr, stderr[-3000:]
    for text in EXPECTED[name][1]:
        assert text in stdout, f"{name}: {text!r} not in its output"
    assert "ERGMFIT_QUICK" in stdout
    for fig in EXPECTED[name][0]:
        path = figures / fig
        assert path.exists(), f"{name} did not write {fig}"
        data = path.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 5000, f"{fig} is not a PNG figure"
        assert str(path) in stdout, f"{name} did not say where {fig} went"
    # the figures went to ERGMFIT_FIGURES
    written = {p.name for p in figures.iterdir()}
    assert set(EXPECTED[name][0]) <= written


def test_vignettes_are_documented():
    # each vignette says how to run it and what ERGMFIT_QUICK / ERGMFIT_FIGURES do
    for name in EXPECTED:
        text = (VIGNETTES / name).read_text(encoding="utf-8")
        assert f"python vignettes/{name}" in text
        assert "ERGMFIT_QUICK" in text and "ERGMFIT_FIGURES" in text
