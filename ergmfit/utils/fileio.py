"""Writing files so that a failure never destroys what was there.

:func:`atomic_write` writes to a temporary file with a unique name in the
target's directory, flushes and fsyncs it, and only then renames it over
the target (``os.replace``, atomic on POSIX and Windows).  If anything
fails -- a full disk, a missing directory, an interrupted process -- the
temporary file is removed and an existing file at the target is left as it
was.

Only regular files are replaced.  A symbolic link is followed: the file it
points to is replaced and the link stays.  Anything else at the target (a
FIFO, a device such as ``/dev/full``, a socket, a directory) is refused with
:class:`NotRegularFileError` before anything is written: renaming over it
would put a regular file in its place (as root, over a device node).  The
check and the rename are not one atomic step; a FIFO created in between
would still be replaced.
"""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile

_KINDS = [(stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a directory")]


class NotRegularFileError(OSError):
    """The target of a write is there but is not a regular file (nor a link to one)."""


def replaceable_target(path):
    """The path :func:`atomic_write` replaces for ``path``: ``path`` itself, or
    the file a symbolic link there points to; :class:`NotRegularFileError`
    naming the kind of thing at ``path`` when it is not a regular file.

    >>> try:
    ...     replaceable_target("/dev/null")
    ... except NotRegularFileError as exc:
    ...     print(str(exc).split(":")[0])
    /dev/null is a character device, not a regular file
    """
    path = os.fspath(path)
    target = os.path.realpath(path) if os.path.islink(path) else path
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    if stat.S_ISREG(mode):
        return target
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    shown = path if target == path else f"{path} (a link to {target})"
    raise NotRegularFileError(f"{shown} is {kind}, not a regular file: ergmfit writes only "
                              "to regular files (or to new paths)")


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
    path = replaceable_target(path)
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

