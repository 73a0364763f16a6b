"""``import ergmfit`` and an EE fit of a directed alternating model import none of the heavy
optional libraries (scipy, networkx, pandas, matplotlib, dask, joblib): they cost memory
(scipy.optimize alone about 50 MB of resident memory, networkx 20 MB) that the EE path at scale
does not need (issue #35: EE at EstimNetDirected's memory).  Features that need them import
them where they are used.  Run in a subprocess, from a temporary directory."""
import os
import subprocess
import sys
import textwrap

import ergmfit

HEAVY = ("scipy", "networkx", "pandas", "matplotlib", "dask", "distributed", "joblib", "tqdm")


def run_fresh(code, cwd):
    # the ergmfit under test (installed, or the source tree with its compiled modules), from
    # a directory where no source tree shadows it
    here = os.path.dirname(os.path.dirname(os.path.abspath(ergmfit.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [here] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                         capture_output=True, text=True, timeout=300, cwd=cwd, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def loaded_heavy(stdout):
    return [line.split()[1] for line in stdout.splitlines() if line.startswith("loaded ")]


def test_import_ergmfit_imports_no_heavy_module(tmp_path):
    out = run_fresh(f"""
        import sys
        import ergmfit as ef
        for name in {HEAVY!r}:
            if name in sys.modules:
                print("loaded", name)
        # the public API is unchanged: every exported name resolves
        missing = [name for name in ef.__all__ if not hasattr(ef, name)]
        print("missing", len(missing), *missing)
    """, cwd=tmp_path)
    assert loaded_heavy(out) == []
    assert "missing 0" in out


def test_ee_fit_of_directed_alternating_model_imports_no_heavy_module(tmp_path):
    out = run_fresh(f"""
        import sys, warnings
        import numpy as np
        import ergmfit as ef
        rng = np.random.default_rng(1)
        # above 10^6 dyads, as Epinions: no existence check by the MPLE's design
        ties = np.unique(rng.integers(0, 1100, size=(4000, 2)), axis=0)
        net = ef.Network(1100, ties[ties[:, 0] != ties[:, 1]], True)
        m = ef.ERGM(net, "Arc + AltInStars + AltOutStars + AltKTrianglesT")
        warnings.simplefilter("ignore")
        # EstimNet's update and start (Algorithm S), as on Epinions (above 10^6 dyads)
        fit = m.fit(method="ee", random_state=1, n_chains=1, n_jobs=1, ee_steps=2,
                    update="borisenko", proposal="ifd", sampler_steps=200, se_samplesize=20, se_interval=100)
        print("fitted", len(fit.params))
        for name in {HEAVY!r}:
            if name in sys.modules:
                print("loaded", name)
    """, cwd=tmp_path)
    assert "fitted 4" in out
    assert loaded_heavy(out) == []


def test_networkx_graphs_still_recognised_after_lazy_import(tmp_path):
    # the front door recognises a networkx graph without importing networkx itself
    out = run_fresh("""
        import networkx as nx
        import ergmfit as ef
        g = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
        print("stats", ef.ERGM(g, "edges + mutual").statistics())
        print("back", type(ef.as_network(g).to_networkx()).__name__)
    """, cwd=tmp_path)
    assert "stats {'edges': 3.0, 'mutual': 0.0}" in out
    assert "back DiGraph" in out
