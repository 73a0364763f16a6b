"""Parallel workers die with their parent (#24 item 5): a run with n_jobs=2
whose main process is SIGKILLed leaves no worker computing and no control
directory behind."""
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from ergmfit.runtime import parallel as runtime_parallel

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")

import ergmfit

# the child imports the ergmfit this test imported (the checkout's in-place build, or
# the installed package when a clean clone's sources are not built); it runs in the
# temporary folder, since `python -c` puts its working directory first on sys.path and
# a clean clone's unbuilt sources would shadow the installed package
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(ergmfit.__file__)))

CHILD = textwrap.dedent("""
    import os
    import numpy as np, networkx as nx, ergmfit as ef
    from ergmfit.runtime.parallel import parallel_map, run_jobs
    from ergmfit.sampling.chains import run_chains

    def pid():
        return os.getpid()

    def job(k, control):
        while True:              # a long job of run_jobs (EE's chains)
            control.report(1)
            sum(range(10**5))

    print("PIDS", *sorted(set(parallel_map(pid, [()] * 8, n_jobs=2))), flush=True)
    print("GO", flush=True)
    if {kind!r} == "chains":
        m = ef.ERGM(nx.gnm_random_graph(200, 400, seed=1), "edges + triangle")
        run_chains(m, np.array([-4.0, 0.1]), 4, 0, 10**9, n_chains=2, n_jobs=2, random_state=1)
    else:
        run_jobs(job, [(0,), (1,)], n_jobs=2)
""")


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except (FileNotFoundError, IndexError):
        return False


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["chains", "jobs"])
def test_workers_die_with_killed_parent(kind):
    # Most workers are gone within 0.25-1 s; in this stress case (two workers
    # writing progress files in a tight loop) about 1 run in 3 on a quiet
    # 2-core machine a worker takes up to ~16 s (its watcher thread is late;
    # cause not found yet, see the #24 note), so the window is 30 s.  Without
    # the parent watch the workers compute on for ever and this fails.
    tmp = tempfile.gettempdir()
    before = {d for d in os.listdir(tmp) if d.startswith(runtime_parallel._TEMP_PREFIX)}
    p = subprocess.Popen([sys.executable, "-c", CHILD.format(kind=kind)],
                         env=dict(os.environ, PYTHONPATH=ROOT), cwd=tmp,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    pids = []
    try:
        for line in p.stdout:
            if line.startswith("PIDS"):
                pids = [int(x) for x in line.split()[1:]]
            if line.startswith("GO"):
                break
        assert pids
        time.sleep(0.5)                        # the workers are computing now
        assert any(_alive(q) for q in pids)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        t = time.time()
        while any(_alive(q) for q in pids) and time.time() - t < 30:
            time.sleep(0.05)
        assert not any(_alive(q) for q in pids), "a worker outlived its killed parent"
        left = {d for d in os.listdir(tmp) if d.startswith(f"{runtime_parallel._TEMP_PREFIX}{p.pid}_")}
        assert not left - before, f"control directories left behind: {left - before}"
        # loky's resource tracker removes its memory-map folders and semaphores once the
        # workers are gone (with workers computing on, they stayed for minutes)
        mine = (f"_{p.pid}_", f"-{p.pid}-")
        places = [d for d in ("/dev/shm", tmp) if os.path.isdir(d)]
        t = time.time()
        while True:
            rest = [f for d in places for f in os.listdir(d) if any(k in f for k in mine)]
            if not rest or time.time() - t > 5:
                break
            time.sleep(0.1)
        assert not rest, f"temporary files left behind: {rest}"
    finally:
        for q in pids + [p.pid]:
            if _alive(q):
                os.kill(q, signal.SIGKILL)


def test_stale_control_directory_is_removed():
    # a directory of a process that no longer runs goes when the next one is made
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tempfile.mkdtemp(prefix=f"{runtime_parallel._TEMP_PREFIX}{dead.pid}_")
    fresh = runtime_parallel._make_temp_dir()
    try:
        assert not os.path.exists(stale)
        assert os.path.basename(fresh).startswith(f"{runtime_parallel._TEMP_PREFIX}{os.getpid()}_")
    finally:
        os.rmdir(fresh)
