"""Long jobs on a dask.distributed cluster: progress and stop through dask's
own primitives (a ``distributed.Variable`` per job for its progress, one
``distributed.Event`` for the stop request), so that they work when the jobs
run on other machines (the file-based :class:`~.longrun.JobControl` needs
one shared file system).  Used by :func:`.longrun.run_jobs` for
``backend="dask"``.
"""
from __future__ import annotations

import uuid


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
            while True:
                try:
                    if wait_all(0.5):
                        break
                except TimeoutError:
                    pass
                poll()
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
