"""The long-run service: what every computation that runs for minutes needs.

MCMC-MLE, Equilibrium Expectation (and any later sampler) use one service for

* **progress** -- :class:`Progress`, a tqdm bar that also behaves when the
  output is not a terminal (a log file or a CI job: a line every 30 s
  instead of a carriage-return animation);
* **Ctrl-C** -- :class:`catch_interrupt`, a ``with`` block that ends on
  ``KeyboardInterrupt`` and records it, so the caller returns the last
  finished work marked as interrupted instead of losing it (the compiled
  samplers check for a pending signal every 2^16 proposals, so Ctrl-C is
  seen within milliseconds);
* **checkpoints** -- :class:`Checkpoint`, a file or directory owned by one
  run: JSON and ``.npz`` files (never pickle) written atomically (a
  temporary file in the same directory, fsync, ``os.replace``), a lock file
  that refuses a second concurrent writer with :class:`CheckpointError`, a
  failed write (read-only directory, full disk) that warns
  (:class:`CheckpointWarning`) and lets the run go on, and readers that turn
  a damaged file into one :class:`CheckpointError` naming it;
* **parallel jobs** -- :func:`parallel_map` (joblib; ``backend="loky"``
  processes by default, ``"dask"`` for a dask.distributed cluster, or the
  caller's ``joblib.parallel_config``) and :func:`run_jobs`, which runs
  long jobs that report progress and stop cleanly on Ctrl-C through a
  :class:`JobControl`.
"""
from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import tempfile
import threading
import warnings

import numpy as np

from ..exceptions import CheckpointError, CheckpointWarning
from .fileio import NotRegularFileError, atomic_write, replaceable_target

__all__ = ["Progress", "catch_interrupt", "Checkpoint", "write_json", "read_json", "write_npz",
           "read_npz", "check_fields", "parallel_map", "run_jobs", "JobControl"]


# ---------------------------------------------------------------------------
# progress
# ---------------------------------------------------------------------------
class Progress:
    """A progress bar of ``total`` steps (nothing when ``enabled`` is false).

    On a terminal it is tqdm's bar; otherwise tqdm writes a plain line at
    most every 30 seconds, which reads well in log files.
    """

    def __init__(self, total, desc, unit="it", enabled=True):
        self.bar = None
        self.n = 0
        if enabled:
            from tqdm.auto import tqdm
            tty = bool(getattr(sys.stderr, "isatty", lambda: False)())
            self.bar = tqdm(total=total, desc=desc, unit=unit, leave=False, file=sys.stderr,
                            mininterval=0.1 if tty else 30.0, dynamic_ncols=tty,
                            ncols=None if tty else 80, ascii=None if tty else True)

    def update(self, n=1, **postfix):
        """Advance by ``n`` steps, showing ``postfix`` (name=value) beside the bar."""
        self.n += n
        if self.bar is not None:
            if postfix:
                self.bar.set_postfix(**postfix, refresh=False)
            self.bar.update(n)

    def update_to(self, done):
        """Move the bar to ``done`` steps (never back)."""
        if done > self.n:
            self.update(done - self.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


# ---------------------------------------------------------------------------
# Ctrl-C
# ---------------------------------------------------------------------------
class catch_interrupt:
    """A ``with`` block that ends quietly on Ctrl-C (``KeyboardInterrupt``).

    >>> with catch_interrupt() as stop:
    ...     raise KeyboardInterrupt
    >>> stop.interrupted
    True

    The caller then returns the work finished before the interrupt, marked
    as interrupted.  Other exceptions pass through.
    """

    def __init__(self):
        self.interrupted = False

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            self.interrupted = True
            return True
        return False


# ---------------------------------------------------------------------------
# files: atomic JSON / npz writers (fileio.atomic_write: a temporary file in
# the same directory, fsync, os.replace) and readers that name damaged files
# ---------------------------------------------------------------------------
def _stamp(data):
    from ..version import __version__
    return {**data, "ergmfit_version": data.get("ergmfit_version", __version__)}


def write_json(path, data, indent=None):
    """Write ``data`` (JSON-able, with the ergmfit version added) atomically."""
    with atomic_write(path) as fh:
        json.dump(_stamp(data), fh, indent=indent)


def write_npz(path, arrays, meta):
    """Write numeric ``arrays`` and a JSON ``meta`` dict to an ``.npz`` file
    atomically (no pickle: the metadata is stored as a JSON string)."""
    with atomic_write(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(_stamp(meta))), **arrays)


def _a(what):
    return "an" if what[:1] in "aeiouAEIOUMS" else "a"


def _damaged(path, what, exc):
    from ..version import __version__
    return CheckpointError(f"{path} is not {_a(what)} {what} of ergmfit that can be read: "
                           f"damaged, truncated or missing ({type(exc).__name__}: {exc}; this "
                           f"is ergmfit {__version__})")


# the largest checkpoint JSON file read, and the most bytes the arrays of an .npz
# checkpoint may unpack to (checked from the archive's directory before anything is read)
MAX_JSON_BYTES = 256 * 2 ** 20
MAX_NPZ_BYTES = 8 * 2 ** 30


def read_json(path, kind=None, what="checkpoint"):
    """The JSON file ``path``; :class:`CheckpointError` naming it when it is
    missing, damaged, larger than :data:`MAX_JSON_BYTES`, nested beyond what
    Python's parser takes, or (with ``kind``) not of that kind."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(MAX_JSON_BYTES + 1)
            if len(text) > MAX_JSON_BYTES:
                raise ValueError(f"larger than {MAX_JSON_BYTES} bytes")
            data = json.loads(text)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError, MemoryError) as exc:
        raise _damaged(path, what, exc) from None
    if kind is not None and (not isinstance(data, dict) or data.get("kind") != kind):
        raise CheckpointError(f"{path} is not {_a(what)} {what} of ergmfit")
    return data


def read_npz(path, what="checkpoint"):
    """(meta, arrays) of an ``.npz`` file written by :func:`write_npz`."""
    try:
        with np.load(path, allow_pickle=False) as z:
            unpacked = sum(info.file_size for info in z.zip.infolist())
            if unpacked > MAX_NPZ_BYTES:
                raise ValueError(f"its arrays unpack to {unpacked:,} bytes, more than the "
                                 f"{MAX_NPZ_BYTES:,} a checkpoint may hold")
            meta = json.loads(str(z["__meta__"]))
            arrays = {k: z[k] for k in z.files if k != "__meta__"}
    except Exception as exc:     # noqa: BLE001 - zip, OS and format errors alike
        raise _damaged(path, what, exc) from None
    return meta, arrays


def check_fields(meta, spec, path, what="checkpoint"):
    """The fields of checkpoint metadata ``meta`` checked against ``spec``;
    :class:`CheckpointError` naming the file and the field otherwise.

    ``spec`` maps a field name to ``(kind, low, high)``: ``kind`` one of
    ``"int"`` (a whole number, not a bool), ``"float"`` (a finite number),
    ``"bool"``, ``"str"`` or ``"list"``; ``low``/``high`` bound the value (or
    the length of a string or list; None: unbounded).  A name ending in
    ``"?"`` may be missing or null.  Estimators bound here what a tampered
    file could otherwise use to ask for unbounded work (iterations, seeds,
    chain counts).

    >>> check_fields({"it": 3, "seeds": [1, 2]}, {"it": ("int", 0, 10),
    ...                                           "seeds": ("list", 1, 64)}, "ck.npz")
    {'it': 3, 'seeds': [1, 2]}
    >>> check_fields({"it": 2 ** 40}, {"it": ("int", 0, 10)}, "ck.npz")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ergmfit.exceptions.CheckpointError: ...field 'it' is 1099511627776, outside 0..10 ...
    """
    if not isinstance(meta, dict):
        raise CheckpointError(f"cannot resume from {path}: its metadata is not a mapping "
                              f"(a damaged or tampered {what})")
    out = {}
    for key, (kind, low, high) in spec.items():
        name, optional = key.rstrip("?"), key.endswith("?")
        value = meta.get(name)
        if value is None:
            if optional:
                out[name] = None
                continue
            raise CheckpointError(f"cannot resume from {path}: its field {name!r} is missing "
                                  f"(a damaged or tampered {what})")
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        ok = {"int": isinstance(value, int) and not isinstance(value, bool),
              "float": number and np.isfinite(value),
              "bool": isinstance(value, bool), "str": isinstance(value, str),
              "list": isinstance(value, list)}.get(kind)
        if ok is None:
            raise ValueError(f"unknown field kind {kind!r}")
        if not ok:
            raise CheckpointError(f"cannot resume from {path}: its field {name!r} is "
                                  f"{_short(value)}, not {_a(kind)} {kind} (a damaged or "
                                  f"tampered {what})")
        size = len(value) if kind in ("str", "list") else value
        if (low is not None and size < low) or (high is not None and size > high):
            shown = f"of length {size}" if kind in ("str", "list") else _short(value)
            raise CheckpointError(f"cannot resume from {path}: its field {name!r} is {shown}, "
                                  f"outside {low if low is not None else '-inf'}.."
                                  f"{high if high is not None else 'inf'} (a damaged or "
                                  f"tampered {what})")
        out[name] = value
    return out


def _short(value, n=40):
    text = repr(value)
    return text if len(text) <= n else text[:n] + "..."


# ---------------------------------------------------------------------------
# checkpoints owned by one run
# ---------------------------------------------------------------------------
def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


# a lock file whose content is not "<pid> <host>" counts as being written for
# this many seconds after its last change, and as stale (left by a run that
# died or by a full disk) afterwards
LOCK_GRACE_SECONDS = 10.0


def _create_lock(lock_path):
    """Create ``lock_path`` holding "<pid> <host>" in one step; False when it
    exists.  The content goes to a temporary file first, which is then
    hard-linked to the lock path (``os.link`` fails if the path exists), so a
    lock file is never seen empty and a full disk leaves none behind; where
    the file system has no hard links, ``O_CREAT | O_EXCL`` and a write (the
    lock removed again if the write fails).  OSError when neither can be
    written."""
    me = f"{os.getpid()} {socket.gethostname()}\n".encode()
    directory = os.path.dirname(os.path.abspath(lock_path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(lock_path)}.", suffix=".tmp",
                               dir=directory)
    try:
        try:
            _write_all(fd, me)
        finally:
            os.close(fd)
        try:
            os.link(tmp, lock_path)
            return True
        except FileExistsError:
            return False
        except OSError:                    # no hard links here (FAT, some network shares)
            pass
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    try:
        fd = os.open(lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    try:
        try:
            _write_all(fd, me)
        finally:
            os.close(fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
        raise
    return True


def _write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def _lock_owner(lock_path):
    """(pid, host) written in a lock file; (-1, "") when it cannot be read or
    does not hold them."""
    try:
        with open(lock_path, "rb") as fh:
            words = fh.read(256).decode("utf-8", "replace").split()
        pid, host = int(words[0]), (words[1] if len(words) > 1 else "")
    except (OSError, ValueError, IndexError):
        return -1, ""
    return (pid, host) if 0 < pid < 2 ** 31 else (-1, "")


def _lock_is_stale(lock_path, pid, host):
    """A lock of a process of this host that no longer runs, or a lock file
    that does not name its process (empty or damaged: a run killed or out of
    disk space while writing it, or an older ergmfit) and has not changed
    for :data:`LOCK_GRACE_SECONDS`.  A lock of another host is never stale
    (its process cannot be checked from here)."""
    import time
    if pid > 0:
        return host == socket.gethostname() and not _pid_alive(pid)
    try:
        age = time.time() - os.stat(lock_path).st_mtime
    except FileNotFoundError:
        return True                      # gone meanwhile: try again
    except OSError:
        return False
    return age > LOCK_GRACE_SECONDS


class Checkpoint:
    """A checkpoint file (``directory=False``) or directory written by one run.

    :meth:`acquire` takes its lock file (``<file>.lock`` or ``<dir>/.lock``,
    holding the process id and host, written in one step so that it is
    never seen empty): a second run writing to the same checkpoint at the
    same time gets a :class:`CheckpointError`.  A stale lock is taken over:
    one naming a process of this host that no longer runs, or one that names
    no process (empty or damaged: a kill or a full disk while an older
    ergmfit wrote it) and is older than :data:`LOCK_GRACE_SECONDS`; a lock
    of another host is never taken over (its process cannot be checked).
    A lock that cannot be written (read-only directory, full disk) warns
    and the run goes on without checkpoints, leaving no file behind.  A
    checkpoint file path where something other than a regular file is (a
    FIFO, a device) is refused with :class:`CheckpointError` before the run.  :meth:`save_json`
    and :meth:`save_npz` write atomically; a write that fails (read-only
    directory, full disk) warns once with :class:`CheckpointWarning` and the
    run goes on.  Use it as a context manager (the lock is released at the
    end, also on errors).
    """

    def __init__(self, path, directory=False, what="checkpoint"):
        self.path = os.fspath(path)
        self.directory = bool(directory)
        self.what = what
        self.lock_path = (os.path.join(self.path, ".lock") if self.directory
                          else self.path + ".lock")
        self.locked = False
        self.failed = False

    def acquire(self):
        if not self.directory:
            try:
                replaceable_target(self.path)
            except NotRegularFileError as exc:    # a FIFO, a device: never replaced
                raise CheckpointError(f"cannot use {self.path} as the {self.what}: {exc}; "
                                      "choose the path of a file") from None
            except OSError:
                pass                              # a link loop etc.: the save warns
        if self.directory:
            try:
                os.makedirs(self.path, exist_ok=True)
            except OSError as exc:
                self._warn(exc)
                return self
        for _ in range(2):
            try:
                created = _create_lock(self.lock_path)
            except OSError as exc:            # read-only directory, full disk: no lock, no files
                self._warn(exc)
                return self
            if created:
                self.locked = True
                return self
            pid, host = _lock_owner(self.lock_path)
            if _lock_is_stale(self.lock_path, pid, host):
                with contextlib.suppress(OSError):     # a stale lock: take it over
                    os.unlink(self.lock_path)
                continue
            raise CheckpointError(
                f"the {self.what} {self.path} is being written by another run "
                f"(process {pid if pid > 0 else 'unknown'} on {host or 'an unknown host'}, "
                f"lock file {self.lock_path}): wait for it to finish or choose another "
                "checkpoint; delete the lock file if that run no longer exists")
        return self

    def release(self):
        if self.locked:
            with contextlib.suppress(OSError):
                os.unlink(self.lock_path)
            self.locked = False

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()
        return False

    def file(self, name=None):
        return os.path.join(self.path, name) if self.directory else self.path

    def _warn(self, exc):
        if not self.failed:
            warnings.warn(f"could not write the {self.what} {self.path} ({exc}); the run goes "
                          "on without saving it", CheckpointWarning, stacklevel=3)
        self.failed = True

    def save_json(self, data, name=None, indent=None):
        """Write ``data`` to the checkpoint (file ``name`` of a directory); True if written."""
        try:
            write_json(self.file(name), data, indent=indent)
            return True
        except OSError as exc:
            self._warn(exc)
            return False

    def save_npz(self, name, arrays, meta):
        """Write ``arrays`` and ``meta`` to the file ``name``; True if written."""
        try:
            write_npz(self.file(name), arrays, meta)
            return True
        except OSError as exc:
            self._warn(exc)
            return False


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


def _in_worker(parent_pid, guard, directory, func, *args):
    """Run ``func(*args)`` in a worker: watch the parent, and use the
    parent's runaway guard (see :func:`ergmfit.sampling.chains.runaway_guard`)."""
    _watch_parent(parent_pid, directory)
    if guard is not None:
        from ..sampling import _mh
        _mh.RUNAWAY_GUARD.update(guard)
    return func(*args)


def _guard_now():
    import sys as _sys
    mh = _sys.modules.get("ergmfit.sampling._mh")
    return dict(mh.RUNAWAY_GUARD) if mh is not None else None


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
    ``PARENT_POLL`` seconds when this process is killed, and run with its
    runaway guard.
    """
    jobs = list(jobs)
    if n_jobs == 1 or len(jobs) <= 1:
        return [func(*job) for job in jobs]
    from joblib import Parallel, delayed
    me, guard = os.getpid(), _guard_now()
    with _backend_context(backend):
        # max_nbytes=None: no read-only memory maps of the networks' arrays
        # (a network state needs writable buffers)
        return Parallel(n_jobs=n_jobs, max_nbytes=None)(
            delayed(_in_worker)(me, guard, None, func, *job) for job in jobs)


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
        from ._dask_jobs import run_dask
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
    me, guard = os.getpid(), _guard_now()
    if backend is None:                # the caller's joblib context (thread-local)
        backend, _ = get_active_backend()
    result = {}
    finished = threading.Event()

    def target():
        try:
            calls = (delayed(_in_worker)(me, guard, control_dir, func, *job,
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
            while not finished.wait(0.5):
                poll()
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


class ctrl_c_flag:
    """Ctrl-C as a flag for a loop of short compiled calls: while the context
    is open (in the main thread, under Python's default SIGINT handler) a
    Ctrl-C only sets ``hit``, and :meth:`check`, called between the calls,
    raises the KeyboardInterrupt.  A KeyboardInterrupt raised by the default
    handler can land in a garbage-collector callback, where CPython prints
    "Exception ignored" and drops it; a flag cannot be lost that way."""

    def __enter__(self):
        import signal
        import threading
        self.hit, self._old = False, None
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def _handler(self, signum, frame):
        self.hit = True

    def check(self):
        if self.hit:
            self.hit = False
            raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self._old is not None:
            import signal
            signal.signal(signal.SIGINT, self._old)
        return False
