"""Fault injection, issue 38 (session 7): a full disk under the checkpoint lock,
regular-expression blow-up in labels, saves onto FIFOs and devices, short inputs
that would build huge objects, and tampered checkpoint metadata."""
import errno
import os
import socket
import time
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import CheckpointError, CheckpointWarning


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + kstar(2)")


# ---------------------------------------------------------------------------
# item 2: checkpoint= on a full disk
# ---------------------------------------------------------------------------
@pytest.fixture
def full_disk(tmp_path, monkeypatch):
    """``tmp_path`` behaves as a full disk: files can be created there (the
    directory has inodes left) but every byte written to them fails with
    ENOSPC -- the opened descriptor is one of /dev/full."""
    real_open = os.open
    root = str(tmp_path)

    def open_(path, flags, mode=0o777, *args, **kwargs):
        fd = real_open(path, flags, mode, *args, **kwargs)
        if (flags & (os.O_WRONLY | os.O_RDWR)
                and os.path.abspath(os.fspath(path)).startswith(root)):
            os.close(fd)
            return real_open("/dev/full", os.O_WRONLY)
        return fd
    monkeypatch.setattr(os, "open", open_)
    return tmp_path


def test_the_full_disk_fixture_is_a_full_disk(full_disk):
    fd = os.open(full_disk / "x", os.O_CREAT | os.O_WRONLY)
    with pytest.raises(OSError) as info:
        os.write(fd, b"x")
    os.close(fd)
    assert info.value.errno == errno.ENOSPC


@pytest.mark.parametrize("directory", [False, True])
def test_a_lock_on_a_full_disk_warns_and_leaves_nothing(full_disk, directory):
    from ergmfit.utils.longrun import Checkpoint
    path = full_disk / ("ck" if directory else "ck.json")
    with pytest.warns(CheckpointWarning, match="No space left"):
        with Checkpoint(path, directory=directory) as ck:
            assert not ck.locked and ck.failed
            assert not ck.save_json({"a": 1}, name="x.json" if directory else None)
    left = os.listdir(path) if directory else os.listdir(full_disk)
    assert left == []                     # no empty lock file, no temporary file


def test_mcmle_checkpoint_on_a_full_disk_goes_on(full_disk, flo):
    ck = full_disk / "ck.json"
    with pytest.warns(CheckpointWarning, match="No space left"):
        fit = flo.fit(method="mcmle", random_state=1, checkpoint=str(ck), samplesize=256)
    assert np.all(np.isfinite(fit.params))
    assert os.listdir(full_disk) == []


def test_a_lock_file_that_names_no_process_is_stale_once_old(tmp_path):
    # an empty lock file (left by a full disk or a kill before its write) blocked
    # its checkpoint path for ever; it is taken over once LOCK_GRACE_SECONDS old,
    # and refused while younger (another run may be writing it right now)
    from ergmfit.utils import longrun
    path = tmp_path / "fit.json"
    lock = tmp_path / "fit.json.lock"
    for content in ["", "garbage\n", "0 host\n", "99999999999999999999 x\n"]:
        lock.write_text(content)
        with pytest.raises(CheckpointError, match="another run"):
            longrun.Checkpoint(path).acquire()
        old = time.time() - 2 * getattr(longrun, "LOCK_GRACE_SECONDS", 10.0)
        os.utime(lock, (old, old))
        with longrun.Checkpoint(path) as ck:
            assert ck.locked
            pid, host = lock.read_text().split()
            assert int(pid) == os.getpid() and host == socket.gethostname()
        assert not lock.exists()


def test_a_live_lock_of_this_host_is_still_refused(tmp_path):
    from ergmfit.utils import longrun
    lock = tmp_path / "fit.json.lock"
    lock.write_text(f"{os.getppid()} {socket.gethostname()}\n")
    old = time.time() - 3600
    os.utime(lock, (old, old))
    with pytest.raises(CheckpointError, match=f"process {os.getppid()}"):
        longrun.Checkpoint(tmp_path / "fit.json").acquire()
    lock.write_text("1234 some-other-host\n")      # another host's: cannot be checked
    os.utime(lock, (old, old))
    with pytest.raises(CheckpointError, match="some-other-host"):
        longrun.Checkpoint(tmp_path / "fit.json").acquire()
