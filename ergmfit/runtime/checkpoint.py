"""Checkpoints of long runs.

:class:`Checkpoint` is a file or directory owned by one run: JSON and ``.npz``
files (never pickle) written atomically (a temporary file in the same
directory, fsync, ``os.replace``), a lock file that refuses a second
concurrent writer with :class:`CheckpointError`, a failed write (read-only
directory, full disk) that warns (:class:`CheckpointWarning`) and lets the
run go on, and readers that turn a damaged file into one
:class:`CheckpointError` naming it.
"""
from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
import warnings

import numpy as np

from ..exceptions import CheckpointError, CheckpointWarning
from ..utils.fileio import NotRegularFileError, atomic_write, replaceable_target

__all__ = ["Checkpoint", "write_json", "read_json", "write_npz", "read_npz", "check_fields",
           "CheckpointState", "Field", "integer", "real", "flag", "text", "array", "record", "group",
           "generator"]


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
# the state of an estimator, declared once, written and read back checked
# ---------------------------------------------------------------------------
class Field:
    """One declared field of a :class:`CheckpointState`.

    Build fields with :func:`integer`, :func:`real`, :func:`flag`,
    :func:`text`, :func:`array` and :func:`record`; ``optional=True`` lets
    the field be missing or null (None).
    """

    def __init__(self, kind, low=None, high=None, choices=None, dtype=None, shape=None,
                 optional=False, check=None, members=None, doc=""):
        self.kind, self.low, self.high, self.choices = kind, low, high, choices
        self.members = members
        self.dtype, self.shape, self.optional, self.check, self.doc = (dtype, shape, optional,
                                                                       check, doc)

    def checked(self, value, name, dims):
        """``value`` as this field holds it; ValueError (the reason) if it does not fit."""
        if value is None:
            if self.optional:
                return None
            raise ValueError("missing")
        if self.kind == "array":
            return self._array(value, dims)
        if self.kind == "group":
            if not isinstance(value, dict):
                raise ValueError(f"{_short(value)}, not a record of {sorted(self.members)}")
            out = {}
            for member, spec in self.members.items():
                try:
                    out[member] = spec.checked(value.get(member), member, dims)
                except _FieldError as exc:
                    raise _FieldError(f"{member}.{exc.field}", exc.reason) from None
                except (ValueError, TypeError, KeyError, OverflowError, AttributeError) as exc:
                    raise _FieldError(member, str(exc)) from None
            return out
        if self.kind == "record":
            if self.check is not None:
                return self.check(value, dims)
            return value
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        ok = {"int": isinstance(value, int) and not isinstance(value, bool),
              "float": number and bool(np.isfinite(value)),
              "bool": isinstance(value, bool), "str": isinstance(value, str)}[self.kind]
        if not ok:
            what = {"int": "a whole number", "float": "a finite number", "bool": "true or false",
                    "str": "a string"}[self.kind]
            raise ValueError(f"{_short(value)}, not {what}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{_short(value)}, not one of {sorted(self.choices)}")
        size = len(value) if self.kind == "str" else value
        low, high = _bound(self.low, dims), _bound(self.high, dims)
        if (low is not None and size < low) or (high is not None and size > high):
            shown = f"of length {size}" if self.kind == "str" else _short(value)
            raise ValueError(f"{shown}, outside {low if low is not None else '-inf'}.."
                             f"{high if high is not None else 'inf'}")
        return float(value) if self.kind == "float" else value

    def plain(self, value, storage="json"):
        """``value`` as it is written (JSON; arrays of an ``"npz"`` state's top
        level stay arrays)."""
        if value is None:
            return None
        if self.kind == "array":
            arr = np.asarray(value, dtype=self.dtype)
            return arr if storage == "npz" else arr.tolist()
        if self.kind == "int":
            return int(value)
        if self.kind == "float":
            return float(value)
        if self.kind == "group":
            return {m: spec.plain(value.get(m)) for m, spec in self.members.items()}
        if isinstance(value, np.random.Generator):
            return value.bit_generator.state
        return json.loads(json.dumps(value, default=_plain))

    def _array(self, value, dims):
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError, OverflowError, MemoryError) as exc:
            raise ValueError(f"not an array ({type(exc).__name__})") from None
        want = np.dtype(self.dtype)
        if arr.size == 0 and arr.dtype.kind in "fO":       # an empty JSON list: float64
            arr = arr.astype(want)
        if arr.dtype.kind == "b" or arr.dtype.kind not in ("iu" if want.kind in "iu" else "iuf"):
            raise ValueError(f"an array of {arr.dtype}, not of {'whole' if want.kind in 'iu' else 'real'} "
                             "numbers")
        if want.kind == "f" and self.check != "nonfinite" and not np.all(np.isfinite(arr)):
            raise ValueError("an array with values that are not finite")
        if self.shape is not None:
            shape = tuple(_bound(s, dims) for s in self.shape)
            if arr.ndim != len(shape) or any(s is not None and a != s
                                             for a, s in zip(arr.shape, shape)):
                raise ValueError(f"an array of shape {arr.shape}, not "
                                 f"{tuple('any' if s is None else s for s in shape)}")
        if want.kind in "iu":
            low, high = _bound(self.low, dims), _bound(self.high, dims)
            if arr.size and ((low is not None and arr.min() < low)
                             or (high is not None and arr.max() > high)):
                raise ValueError(f"an array with values outside {low}..{high}")
        # no copy when it has the dtype already: it is the file's own fresh array (a copy
        # held both while the state was read: 245 MB more for a Pokec-size EE chain's ties)
        return np.asarray(arr, dtype=want)


def _plain(value):
    """JSON for numpy values inside records."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


class _FieldError(ValueError):
    """A member of a group of fields that does not fit: its (dotted) name and why."""

    def __init__(self, field, reason):
        super().__init__(f"{field}: {reason}")
        self.field, self.reason = field, reason


def _bound(b, dims):
    """A declared bound or size: a number, None, or the name of a dimension."""
    return dims[b] if isinstance(b, str) else b


def integer(low=None, high=None, optional=False, doc=""):
    """A whole number in ``low..high`` (a number or the name of a dimension)."""
    return Field("int", low, high, optional=optional, doc=doc)


def real(low=None, high=None, optional=False, doc=""):
    """A finite number in ``low..high``."""
    return Field("float", low, high, optional=optional, doc=doc)


def flag(optional=False, doc=""):
    """True or false."""
    return Field("bool", optional=optional, doc=doc)


def text(choices=None, max_len=256, optional=False, doc=""):
    """A string: one of ``choices``, or of at most ``max_len`` characters."""
    return Field("str", 0, max_len, choices=choices, optional=optional, doc=doc)


def array(dtype, shape=None, low=None, high=None, optional=False, finite=True, doc=""):
    """A numeric array of ``dtype`` ("float64": finite unless ``finite=False``;
    "int64": whole numbers in ``low..high``) and ``shape`` (a tuple of sizes,
    names of dimensions or None for any size)."""
    return Field("array", low, high, dtype=dtype, shape=shape, optional=optional,
                 check=None if finite else "nonfinite", doc=doc)


def record(check=None, optional=False, doc=""):
    """Any JSON value, passed to ``check(value, dims)``, which returns it as the
    state holds it or raises ValueError (the reason) when it does not fit."""
    return Field("record", check=check, optional=optional, doc=doc)


_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


def _generator_state(value, dims):
    if not isinstance(value, dict) or value.get("bit_generator") not in _BIT_GENERATORS:
        raise ValueError(f"{_short(value)}, not the state of a numpy random generator "
                         f"({', '.join(_BIT_GENERATORS)})")
    bg = getattr(np.random, value["bit_generator"])()
    try:
        bg.state = value
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise ValueError(f"not the state of a {value['bit_generator']} generator "
                         f"({type(exc).__name__}: {_short(str(exc))})") from None
    return np.random.Generator(bg)


def group(members, optional=False, doc=""):
    """A record of named fields (``members``: name -> :class:`Field`), each
    checked as a field of the state; an error names ``group.member``."""
    return Field("group", members=dict(members), optional=optional, doc=doc)


def generator(optional=False, doc=""):
    """The state of a numpy random generator (``Generator.bit_generator.state``);
    read back as a :class:`numpy.random.Generator` in that state."""
    return Field("record", check=_generator_state, optional=optional, doc=doc)


class CheckpointState:
    """The state an estimator saves to resume a run, declared once.

    A subclass sets ``kind`` (a name no other state uses), ``version``
    (raised when the fields change), ``what`` (how messages name the
    file), ``storage`` (``"json"``: one JSON file, arrays as lists;
    ``"npz"``: one ``.npz`` file, the other fields as JSON inside it) and
    ``fields`` (name -> :class:`Field`).  :meth:`write` writes it
    atomically through a :class:`Checkpoint` (never pickle); :meth:`read`
    reads it back and checks every field (type, bounds, dtype and shape,
    where sizes may name dimensions from :meth:`dims` or from integer fields
    declared before), the kind and version, and the model
    (:meth:`fingerprint`); anything that does not fit is a
    :class:`CheckpointError` naming the file and the field.  :meth:`validate`
    adds checks that involve several fields.

    >>> import os, tempfile
    >>> class Counter(CheckpointState):
    ...     kind, what = "example-counter", "example checkpoint"
    ...     fields = {"it": integer(0, 100), "x": array("float64", ("it",))}
    >>> class Model:
    ...     labels = ["edges"]
    >>> path = os.path.join(tempfile.mkdtemp(), "ck.json")
    >>> with Checkpoint(path) as store:
    ...     Counter(it=2, x=[0.5, 1.5]).write(store, Model())
    True
    >>> Counter.read(path, Model()).x
    array([0.5, 1.5])
    """

    kind = None
    version = 1
    what = "checkpoint"
    storage = "json"
    fields = {}

    def __init__(self, **values):
        unknown = sorted(set(values) - set(self.fields))
        if unknown:
            raise TypeError(f"{type(self).__name__} has no fields {unknown}")
        for name in self.fields:
            setattr(self, name, values.get(name))

    # -- the model it belongs to ------------------------------------------
    @classmethod
    def fingerprint(cls, model):
        """What the state records of ``model`` (checked when read back)."""
        return {"labels": [str(x) for x in model.labels],
                "formula": getattr(model, "formula", None)}

    @classmethod
    def check_fingerprint(cls, saved, model, path):
        labels = saved.get("labels")
        if labels != [str(x) for x in model.labels]:
            raise CheckpointError(f"cannot resume from {path}: the {cls.what} is for the "
                                  f"statistics (coefficients) {_short(labels, 200)}, this model "
                                  f"has {list(model.labels)}")

    @classmethod
    def dims(cls, model, context):
        """Named sizes the fields' bounds and shapes may use: ``p`` (the
        number of coefficients) and the read's ``context``."""
        return {"p": len(model.labels), **context}

    def validate(self, path, model, dims):
        """Checks across fields (subclasses); raise ValueError (the reason) or
        :class:`CheckpointError`."""

    # -- writing and reading ----------------------------------------------
    def write(self, store, model, name=None):
        """Write the state to ``store`` (a :class:`Checkpoint`; ``name``: the file
        in a checkpoint directory); True if written (a failed write warns)."""
        meta = {"kind": self.kind, "state_version": self.version,
                **self.fingerprint(model)}
        arrays = {}
        for field, spec in self.fields.items():
            value = spec.plain(getattr(self, field), self.storage)
            if isinstance(value, np.ndarray):
                arrays[field] = value
            else:
                meta[field] = value
        if self.storage == "npz":
            return store.save_npz(name, arrays, meta)
        return store.save_json(meta, name)

    @classmethod
    def read(cls, path, model, **context):
        """The state saved in ``path`` for ``model``; ``context``: named sizes
        and bounds of this run (see :meth:`dims`)."""
        path = os.fspath(path)
        if cls.storage == "npz":
            meta, arrays = read_npz(path, what=cls.what)
        else:
            meta, arrays = read_json(path, what=cls.what), {}
        if not isinstance(meta, dict) or meta.get("kind") != cls.kind:
            raise CheckpointError(f"cannot resume from {path}: it is not {_a(cls.what)} "
                                  f"{cls.what} of ergmfit")
        version = meta.get("state_version")
        if version is None:
            raise CheckpointError(
                f"cannot resume from {path}: the {cls.what} was written by an older ergmfit "
                f"(version {_short(meta.get('ergmfit_version'))}) in a format this version no "
                "longer reads; start the fit again without resume")
        if version != cls.version:
            raise CheckpointError(f"cannot resume from {path}: the {cls.what} has format "
                                  f"version {_short(version)}, this ergmfit reads version "
                                  f"{cls.version}; start the fit again without resume")
        cls.check_fingerprint(meta, model, path)
        dims = dict(cls.dims(model, context))
        values = {}
        for field, spec in cls.fields.items():
            raw = arrays.get(field) if field in arrays else meta.get(field)
            try:
                values[field] = spec.checked(raw, field, dims)
            except _FieldError as exc:
                raise CheckpointError(f"cannot resume from {path}: its field "
                                      f"'{field}.{exc.field}' is {exc.reason} (a damaged or "
                                      f"tampered {cls.what})") from None
            except (ValueError, TypeError, KeyError, OverflowError, AttributeError) as exc:
                raise CheckpointError(f"cannot resume from {path}: its field {field!r} is "
                                      f"{exc} (a damaged or tampered {cls.what})") from None
            if spec.kind == "int" and values[field] is not None:
                dims.setdefault(field, values[field])
        state = cls(**values)
        try:
            state.validate(path, model, dims)
        except CheckpointError:
            raise
        except (ValueError, TypeError, KeyError, OverflowError) as exc:
            raise CheckpointError(f"cannot resume from {path}: {exc} (a damaged or tampered "
                                  f"{cls.what})") from None
        return state
