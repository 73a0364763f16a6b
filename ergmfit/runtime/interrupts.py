"""Ctrl-C in parallel runs: worker processes deaf to SIGINT (their parent stops
them), and a main thread in which a second Ctrl-C waits for the finished work
to be collected instead of losing it.  Shared by MCMC-MLE and EE."""
from __future__ import annotations

import contextlib
import signal
import threading


@contextlib.contextmanager
def deaf_to_sigint(worker):
    """In a worker process (``worker``): ignore SIGINT.  A terminal's Ctrl-C
    reaches the workers too, but they stop when the parent asks (its control),
    after their current outer iteration; a second Ctrl-C would otherwise abort
    a worker while it returns its work, and the run would be lost.  A worker
    process (loky's, multiprocessing's) stays deaf afterwards: its pool's idle
    loop would otherwise die of that Ctrl-C with a traceback; the pool and the
    parent end it."""
    import multiprocessing
    old = None
    if worker and threading.current_thread() is threading.main_thread():
        with contextlib.suppress(ValueError, OSError):
            old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if old is not None and multiprocessing.parent_process() is None:
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signal.SIGINT, old)


@contextlib.contextmanager
def second_ctrl_c_waits():
    """In the main thread, while EE runs and builds its results: the first
    Ctrl-C raises KeyboardInterrupt as usual (the chains stop after their
    current step and their work is returned, marked as interrupted); a second
    one only says that this is happening -- it no longer lands in the middle
    of collecting or summarising the chains' work, which would lose it; a
    third aborts.  Nothing changes when SIGINT has a handler of the caller's."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    import sys
    count = [0]

    def handler(signum, frame):
        count[0] += 1
        if count[0] == 2:
            print("ergmfit: stopping -- the chains finish their current step and what is "
                  "finished is returned (Ctrl-C again aborts without results)", file=sys.stderr)
            return
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
