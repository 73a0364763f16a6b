"""Parallel jobs for long runs.

* :func:`parallel_map` -- joblib (``backend="loky"`` processes by default,
  ``"dask"`` for a dask.distributed cluster, or the caller's
  ``joblib.parallel_config``);
* :func:`run_jobs` -- long jobs that report progress and stop cleanly on
  Ctrl-C through a :class:`JobControl` (files in a control directory) or,
  on a dask cluster, a :class:`DaskJobControl` (dask's own ``Variable`` and
  ``Event``, so that the jobs may run on other machines without a shared
  file system);
* :func:`inherit_in_workers` -- settings of this process that the workers
  must run with (the sampler registers its runaway guard here: the runtime
  knows nothing of the sampler).
"""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import uuid

from .checkpoint import _pid_alive
from .interrupts import catch_interrupt, lost_interrupts

__all__ = ["parallel_map", "run_jobs", "JobControl", "DaskJobControl", "inherit_in_workers"]


# ---------------------------------------------------------------------------
# parallel jobs
# ---------------------------------------------------------------------------
def _backend_context(backend):
    """A joblib context for ``backend`` (None: the caller's, or joblib's default)."""
    import joblib
    if backend is None:
        return contextlib.nullcontext()
    # parallel_config also registers the lazily loaded "dask" backend, which
    # Parallel(backend="dask") alone does not know
    return joblib.parallel_config(backend=backend)


# how often (seconds) a worker process looks whether its parent is still there
PARENT_POLL = 0.25
_watching = {"pid": None}
_TEMP_PREFIX = "ergmfit_run_"


def _watch_parent(parent_pid, directory=None):
    """In a worker process of ``parent_pid`` (loky, multiprocessing): start,
    once per process, a daemon thread that ends the process as soon as the
    parent is gone (killed, crashed), removing ``directory`` first; the
    compiled loops run without the GIL, so the thread gets to run within
    ``PARENT_POLL`` seconds.  Nothing in the parent itself (threads) or in
    a process that is not the parent's child (a dask worker)."""
    if parent_pid == os.getpid() or os.getppid() != parent_pid:
        return
    if directory is not None:
        _watching.setdefault("dirs", set()).add(directory)
    if _watching["pid"] == parent_pid:
        return
    _watching["pid"] = parent_pid

    def watch():
        import shutil
        import time
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL)
        for d in list(_watching.get("dirs", ())):
            for _ in range(50):         # another worker may still write into it
                shutil.rmtree(d, ignore_errors=True)
                if not os.path.exists(d):
                    break
                time.sleep(0.01)
        os._exit(1)      # the parent is gone: nobody wants the result

    threading.Thread(target=watch, name="ergmfit-parent-watch", daemon=True).start()


# (capture, install) pairs of settings every worker runs with: ``capture()``
# in this process gives a picklable value, ``install(value)`` in the worker
# puts it in force (both module-level functions, pickled by reference)
_INHERITED = []


def inherit_in_workers(capture, install):
    """Run every parallel job with this process's value of a setting.

    ``capture()`` is called when jobs are sent out and its value is passed to
    ``install(value)`` in each worker before the job runs.  A layer above the
    runtime registers its process-wide settings this way (the sampler its
    runaway guard, :func:`ergmfit.sampling.chains.runaway_guard`), so the
    runtime need not know it.  Registering the same pair again does nothing.
    """
    if (capture, install) not in _INHERITED:
        _INHERITED.append((capture, install))


def _inherited_now():
    return [(install, capture()) for capture, install in _INHERITED]


def _in_worker(parent_pid, inherited, directory, func, *args):
    """Run ``func(*args)`` in a worker: watch the parent, and put the
    parent's registered settings in force (:func:`inherit_in_workers`)."""
    _watch_parent(parent_pid, directory)
    for install, value in inherited:
        install(value)
    return func(*args)


def _make_temp_dir():
    """A control directory named after this process; directories of
    processes that no longer run (killed before they could remove theirs)
    are removed on the way."""
    import shutil
    tmp = tempfile.gettempdir()
    with contextlib.suppress(OSError):
        for name in os.listdir(tmp):
            if not name.startswith(_TEMP_PREFIX):
                continue
            try:
                pid = int(name[len(_TEMP_PREFIX):].split("_")[0])
            except ValueError:
                continue
            if pid != os.getpid() and not _pid_alive(pid):
                shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{_TEMP_PREFIX}{os.getpid()}_")


def parallel_map(func, jobs, n_jobs=1, backend=None):
    """``[func(*job) for job in jobs]``, in parallel with joblib when ``n_jobs != 1``.

    ``backend``: ``None`` (the caller's ``joblib.parallel_config``, else
    loky processes), ``"loky"``, ``"threading"``, ``"multiprocessing"`` or
    ``"dask"`` (needs a ``dask.distributed.Client``).  Ctrl-C aborts the
    jobs and raises ``KeyboardInterrupt``.  Worker processes end within
    ``PARENT_POLL`` seconds when this process is killed, and run with the
    settings registered by :func:`inherit_in_workers`.
    """
    jobs = list(jobs)
    if n_jobs == 1 or not jobs:
        return [func(*job) for job in jobs]
    me, inherited = os.getpid(), _inherited_now()
    if _is_dask(backend):
        return _dask_map(func, jobs, n_jobs, me, inherited)
    if len(jobs) == 1:
        return [func(*job) for job in jobs]
    from joblib import Parallel, delayed
    with _backend_context(backend):
        # max_nbytes=None: no read-only memory maps of the networks' arrays
        # (a network state needs writable buffers)
        return Parallel(n_jobs=n_jobs, max_nbytes=None)(
            delayed(_in_worker)(me, inherited, None, func, *job) for job in jobs)


def _dask_map(func, jobs, n_jobs, me, inherited):
    """``parallel_map`` on the current dask.distributed client, dynamically.

    Every job runs on a worker (with one worker too: the work belongs to the
    cluster, and the caller's process stays free), in the order given: at most
    as many jobs are out at once as the cluster has worker threads (or
    ``n_jobs`` if smaller), and the next one is sent when one finishes, so a
    worker that frees up takes the next job in line (jobs given longest first
    then end together: longest-processing-time order).  joblib's dask backend
    instead runs everything in this process when the cluster has one thread,
    and batches jobs it finds short.  Ctrl-C cancels the jobs still out and
    raises ``KeyboardInterrupt``.  Results come back in the jobs' order.
    """
    from distributed import as_completed, get_client
    client = get_client()
    slots = max(1, sum(client.nthreads().values()))
    if n_jobs is not None and n_jobs > 0:
        slots = min(slots, int(n_jobs))
    tag = uuid.uuid4().hex
    out = [None] * len(jobs)
    pending = iter(enumerate(jobs))
    which = {}
    running = as_completed()

    def send():
        nxt = next(pending, None)
        if nxt is None:
            return
        c, job = nxt
        fut = client.submit(_in_worker, me, inherited, None, func, *job, pure=False,
                            key=f"ergmfit-map-{tag}-{c}")
        which[fut.key] = c
        running.add(fut)

    try:
        for _ in range(slots):
            send()
        with lost_interrupts() as ctrl_c:
            for fut in running:
                out[which[fut.key]] = fut.result()
                ctrl_c.check()           # a Ctrl-C lost in a finalizer
                send()
    except BaseException:
        client.cancel(list(running.futures))
        raise
    return out


class JobControl:
    """What a long job sees of the run: :meth:`report` its progress and ask
    :meth:`stop_requested` (after Ctrl-C in the parent) between steps.

    In-process it calls ``on_report(index, done)``; in a worker it writes
    small files in a control directory that the parent polls.
    """

    def __init__(self, index, directory=None, on_report=None):
        self.index, self.directory, self.on_report = index, directory, on_report

    def report(self, done, total=None):
        if self.on_report is not None:
            self.on_report(self.index, done)
        if self.directory is not None:
            try:
                path = os.path.join(self.directory, f"progress_{self.index}.txt")
                with open(path + ".tmp", "w") as fh:
                    fh.write(f"{done} {total}\n")
                os.replace(path + ".tmp", path)
            except OSError:
                pass

    def stop_requested(self):
        return self.directory is not None and os.path.exists(os.path.join(self.directory,
                                                                          "stop"))

    def __getstate__(self):             # a worker gets no callback of the parent
        return {"index": self.index, "directory": self.directory, "on_report": None}


def run_jobs(func, jobs, n_jobs=1, backend=None, progress=None, is_interrupted=None):
    """Run ``func(*job, control)`` for every job; returns (results, interrupted).

    A job reports its progress through its :class:`JobControl` (the
    ``progress`` bar counts the sum over jobs) and, after Ctrl-C, finishes
    its current step and returns its work so far.  In this process
    (``n_jobs == 1``) the jobs run one after the other and the run stops
    after a job that ``is_interrupted(result)`` or that raised
    ``KeyboardInterrupt``; in parallel (joblib, ``backend`` as in
    :func:`parallel_map`) Ctrl-C asks every job to stop (a control file)
    and waits for their results.
    """
    jobs = list(jobs)
    is_interrupted = is_interrupted or (lambda res: False)
    if n_jobs == 1 or len(jobs) <= 1:
        return _run_here(func, jobs, progress, is_interrupted)
    if _is_dask(backend):
        # progress and stop through dask's Variable / Event: the jobs may run
        # on other machines, without a shared file system
        return run_dask(func, jobs, progress, is_interrupted)
    return _run_parallel(func, jobs, n_jobs, backend, progress, is_interrupted)


def _is_dask(backend):
    """``backend`` is dask's, named or (None) the caller's joblib context."""
    if backend is not None:
        return backend == "dask"
    from joblib.parallel import get_active_backend
    return type(get_active_backend()[0]).__name__ == "DaskDistributedBackend"


def _run_here(func, jobs, progress, is_interrupted):
    done = {}

    def on_report(index, n):
        done[index] = n
        if progress is not None:
            progress.update_to(sum(done.values()))
    out = []
    with catch_interrupt() as stop:          # Ctrl-C while a job starts up
        for c, job in enumerate(jobs):
            stop.check()                     # a Ctrl-C lost in a finalizer
            res = func(*job, JobControl(c, on_report=on_report))
            out.append(res)
            if is_interrupted(res):
                stop.interrupted = True
                break
    return out, stop.interrupted


def _run_parallel(func, jobs, n_jobs, backend, progress, is_interrupted):
    import shutil

    from joblib import Parallel, delayed
    from joblib.parallel import get_active_backend
    control_dir = _make_temp_dir()
    me, inherited = os.getpid(), _inherited_now()
    if backend is None:                # the caller's joblib context (thread-local)
        backend, _ = get_active_backend()
    result = {}
    finished = threading.Event()

    def target():
        try:
            calls = (delayed(_in_worker)(me, inherited, control_dir, func, *job,
                                         JobControl(c, control_dir))
                     for c, job in enumerate(jobs))
            with _backend_context(backend):
                result["out"] = Parallel(n_jobs=n_jobs, max_nbytes=None)(calls)
        except BaseException as exc:   # noqa: BLE001 - re-raised in the caller's thread
            result["err"] = exc
        finally:
            finished.set()

    def poll():
        if progress is None:
            return
        total = 0
        for c in range(len(jobs)):
            try:
                with open(os.path.join(control_dir, f"progress_{c}.txt")) as fh:
                    total += int(fh.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
        progress.update_to(total)

    th = threading.Thread(target=target, daemon=True)
    th.start()
    interrupted = False
    # wait on an Event, not Thread.join: a join interrupted by Ctrl-C can
    # return early afterwards (CPython), before the jobs have stopped
    try:
        try:
            with lost_interrupts() as ctrl_c:
                while not finished.wait(0.5):
                    ctrl_c.check()           # a Ctrl-C lost in a finalizer
                    poll()
                ctrl_c.check()
        except KeyboardInterrupt:
            interrupted = True
            with contextlib.suppress(OSError):
                open(os.path.join(control_dir, "stop"), "w").close()
            while True:                      # the jobs stop after their current step
                try:
                    while not finished.wait(0.5):
                        pass
                    break
                except KeyboardInterrupt:    # a second Ctrl-C: they are stopping already
                    print("ergmfit: stopping -- the jobs finish their current step",
                          file=sys.stderr)
    finally:
        shutil.rmtree(control_dir, ignore_errors=True)
    if "err" in result:
        err = result["err"]
        if isinstance(err, KeyboardInterrupt):
            raise RuntimeError("the parallel jobs were aborted; no results") from err
        raise err
    out = result.get("out", [])
    return out, interrupted or any(is_interrupted(o) for o in out)


# ---------------------------------------------------------------------------
# long jobs on a dask.distributed cluster
# ---------------------------------------------------------------------------
class DaskJobControl:
    """What a job running on a dask worker sees of the run: :meth:`report`
    sets its progress Variable, :meth:`stop_requested` reads the run's stop
    Event (set by the parent after Ctrl-C).  The handles are made lazily on
    the worker (they are named, so parent and workers share them)."""

    def __init__(self, index, run_id):
        self.index, self.run_id = index, run_id
        self._var = self._event = None

    def _handles(self):
        if self._event is None:
            from distributed import Event, Variable
            self._var = Variable(f"{self.run_id}-progress-{self.index}")
            self._event = Event(f"{self.run_id}-stop")
        return self._var, self._event

    def report(self, done, total=None):
        try:
            self._handles()[0].set(int(done))
        except Exception:        # noqa: BLE001 - progress is best effort
            pass

    def stop_requested(self):
        try:
            return bool(self._handles()[1].is_set())
        except Exception:        # noqa: BLE001 - no scheduler: go on
            return False

    def __getstate__(self):
        return {"index": self.index, "run_id": self.run_id}

    def __setstate__(self, state):
        self.index, self.run_id = state["index"], state["run_id"]
        self._var = self._event = None


def _call(func, job, control):
    return func(*job, control)


def run_dask(func, jobs, progress, is_interrupted):
    """Run ``func(*job, control)`` for every job on the current
    dask.distributed client; returns (results, interrupted).

    Ctrl-C sets the stop Event (each job finishes its current step and
    returns its work so far); a second Ctrl-C while they stop is absorbed:
    the finished work is still returned, marked as interrupted.
    """
    import sys

    from distributed import Event, Variable, get_client, wait
    client = get_client()
    run_id = f"ergmfit-{uuid.uuid4().hex}"
    stop = Event(f"{run_id}-stop", client=client)
    variables = [Variable(f"{run_id}-progress-{c}", client=client) for c in range(len(jobs))]
    futures = [client.submit(_call, func, job, DaskJobControl(c, run_id), pure=False,
                             key=f"{run_id}-job-{c}") for c, job in enumerate(jobs)]

    def poll():
        if progress is None:
            return
        total = 0
        for v in variables:
            try:
                total += int(v.get(timeout=0.05))
            except Exception:    # noqa: BLE001 - not set yet
                pass
        progress.update_to(total)

    def wait_all(timeout):
        done, pending = wait(futures, timeout=timeout, return_when="ALL_COMPLETED")
        return not pending

    interrupted = False
    try:
        try:
            with lost_interrupts() as ctrl_c:
                while True:
                    try:
                        if wait_all(0.5):
                            break
                    except TimeoutError:
                        pass
                    ctrl_c.check()           # a Ctrl-C lost in a finalizer
                    poll()
                ctrl_c.check()
        except KeyboardInterrupt:
            interrupted = True
            stop.set()
            while True:
                try:
                    try:
                        if wait_all(0.5):
                            break
                    except TimeoutError:
                        pass
                except KeyboardInterrupt:        # again: the jobs are stopping already
                    print("ergmfit: stopping -- the jobs finish their current step",
                          file=sys.stderr)
        poll()
        out = client.gather(futures)
    finally:
        for v in variables:
            try:
                v.delete()
            except Exception:    # noqa: BLE001 - best effort
                pass
        try:
            stop.clear()
        except Exception:        # noqa: BLE001
            pass
    return out, interrupted or any(is_interrupted(o) for o in out)
