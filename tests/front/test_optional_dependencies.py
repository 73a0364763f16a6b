"""ergmfit imports, fits and runs its command line without its optional dependencies
(pandas, matplotlib, dask, arviz): they are imported only where a feature needs them, and
that feature's absence is an ImportError naming it."""
import os
import subprocess
import sys
import textwrap

import pytest

import ergmfit

BLOCK = textwrap.dedent("""
    import sys

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {"pandas", "matplotlib", "dask", "distributed", "arviz"}:
                raise ImportError(f"No module named {name!r}")

    sys.meta_path.insert(0, Block())
""")


def run_without_optional(code, cwd):
    # the ergmfit under test (installed, or the source tree with its compiled modules), from
    # a directory where no source tree shadows it
    here = os.path.dirname(os.path.dirname(os.path.abspath(ergmfit.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [here] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    out = subprocess.run([sys.executable, "-c", BLOCK + textwrap.dedent(code)],
                         capture_output=True, text=True, timeout=300, cwd=cwd, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.slow
def test_import_fit_and_cli_need_no_optional_dependency(tmp_path):
    out = run_without_optional("""
        import ergmfit as ef
        import ergmfit.cli, ergmfit.gof, ergmfit.mrf, ergmfit.estimation, ergmfit.temporal
        fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit()
        print(round(float(fit.params["edges"]), 4))
        assert "pandas" not in sys.modules
        for make in (lambda: ef.EgoData("egos.csv", "alters.csv"),
                     lambda: ef.NetSeries.from_edgelist("panel.csv")):
            try:
                make()
            except ImportError as err:
                assert "needs pandas" in str(err) and "ergmfit[pandas]" in str(err), err
            else:
                raise AssertionError("no ImportError without pandas")
        print("ok")
    """, cwd=tmp_path)
    assert out.split() == ["-1.6094", "ok"]
