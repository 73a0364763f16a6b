"""Writing files so that a failure never destroys what was there.

:func:`atomic_write` writes to a temporary file with a unique name in the
target's directory, flushes and fsyncs it, and only then renames it over
the target (``os.replace``, atomic on POSIX and Windows).  If anything
fails -- a full disk, a missing directory, an interrupted process -- the
temporary file is removed and an existing file at the target is left as it
was.
"""
from __future__ import annotations

import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_write(path, mode="w", encoding="utf-8"):
    """Open a temporary file for writing that replaces ``path`` on success.

    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_write(p) as fh:
    ...     _ = fh.write("hello")
    >>> p.read_text()
    'hello'
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory)
    try:
        binary = "b" in mode
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else
                                                        {"encoding": encoding,
                                                         "newline": ""})) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        try:                                     # keep an existing file's permissions
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        except OSError:
            os.chmod(tmp, 0o644)                 # mkstemp's 0o600 would hide it from others
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise

