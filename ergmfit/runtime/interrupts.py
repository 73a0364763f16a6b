"""Ctrl-C for long runs.

* :class:`catch_interrupt` -- a ``with`` block that ends on
  ``KeyboardInterrupt`` and records it, so the caller returns the last
  finished work marked as interrupted instead of losing it (the compiled
  samplers check for a pending signal every 2^16 proposals, so Ctrl-C is
  seen within milliseconds);
* :class:`lost_interrupts` -- a Ctrl-C whose KeyboardInterrupt was raised
  inside a finalizer (``__del__``, a weakref callback, run by the garbage
  collector at any allocation), where CPython prints "Exception ignored"
  and drops it, is recorded and raised again at the loop's next
  :meth:`~lost_interrupts.check` (``catch_interrupt`` includes it);
* :class:`ctrl_c_flag` -- Ctrl-C as a flag for a loop of short compiled calls;
* :func:`deaf_to_sigint` -- worker processes deaf to SIGINT (their parent stops
  them);
* :func:`second_ctrl_c_waits` -- a main thread in which a second Ctrl-C waits
  for the finished work to be collected instead of losing it;
* :class:`GuardedPhases` -- one guarded region over the phases of a run
  (iterations, covariance, log-likelihood, ...): a Ctrl-C in any phase ends
  that phase, the later ones are skipped, and the caller returns what the
  finished phases made, marked with the phase interrupted;
* :func:`stop_on_interrupt` and :func:`stops_when_interrupted` -- the user's choice that a
  Ctrl-C also stops the script: the interrupted fit is built as usual, then handed to the
  caller inside a :class:`~ergmfit.FitInterrupted` (a KeyboardInterrupt)
  instead of being returned (docs/guide/python.md).
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import signal
import threading

__all__ = ["GuardedPhases", "catch_interrupt", "ctrl_c_flag", "deaf_to_sigint", "lost_interrupts",
           "second_ctrl_c_waits", "stop_on_interrupt", "stops_when_interrupted"]

# how many stop_on_interrupt() blocks are open, and how deep the fit calls are, in this
# thread / asyncio task (a fit calling another fit raises only at the outer call)
_stop_blocks = contextvars.ContextVar("ergmfit_stop_on_interrupt", default=0)
_fit_depth = contextvars.ContextVar("ergmfit_fit_depth", default=0)


@contextlib.contextmanager
def stop_on_interrupt():
    """Inside this block, a fit that Ctrl-C interrupted raises
    :class:`~ergmfit.FitInterrupted` (a ``KeyboardInterrupt``) once its partial
    result is built, instead of returning it: a loop of fits stops at the first Ctrl-C, as a
    statnet user expects of a script.  The partial fit is the exception's ``result``.

    Outside the block a fit returns its partial result marked ``fit.interrupted`` (and a
    loop goes on); ``fit.raise_if_interrupted()`` raises the same exception afterwards.

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    >>> fits = []
    >>> with ef.stop_on_interrupt():
    ...     for seed in (1, 2):
    ...         try:
    ...             fits.append(m.fit(method="cd", random_state=seed))
    ...         except ef.FitInterrupted as stop:
    ...             fits.append(stop.result)       # keep (or save) the partial fit, then stop
    ...             raise
    >>> len(fits)
    2
    """
    token = _stop_blocks.set(_stop_blocks.get() + 1)
    try:
        yield
    finally:
        _stop_blocks.reset(token)


def stops_when_interrupted(fit):
    """Decorate a public fit entry point (``ERGM.fit``, an estimator's ``fit``): inside
    :func:`stop_on_interrupt`, its interrupted result is raised in a
    :class:`~ergmfit.FitInterrupted` by the outermost such call."""
    @functools.wraps(fit)
    def wrapper(*args, **kwargs):
        token = _fit_depth.set(_fit_depth.get() + 1)
        try:
            result = fit(*args, **kwargs)
        finally:
            _fit_depth.reset(token)
        if _stop_blocks.get() and _fit_depth.get() == 0 and was_interrupted(result):
            from ..exceptions import FitInterrupted
            raise FitInterrupted(result)
        return result
    return wrapper


def was_interrupted(result) -> bool:
    """Whether a fit's result says Ctrl-C stopped it (``result.interrupted``, or its
    diagnostics' ``interrupted``)."""
    flag = getattr(result, "interrupted", None)
    if flag is None:
        flag = getattr(getattr(result, "diagnostics", None), "interrupted", None)
    return bool(flag)


@contextlib.contextmanager
def deaf_to_sigint(worker):
    """In a worker process (``worker``): ignore SIGINT.  A terminal's Ctrl-C
    reaches the workers too, but they stop when the parent asks (its control),
    after their current outer iteration; a second Ctrl-C would otherwise abort
    a worker while it returns its work, and the run would be lost.  A worker
    process (loky's, multiprocessing's) stays deaf afterwards: its pool's idle
    loop would otherwise die of that Ctrl-C with a traceback; the pool and the
    parent end it."""
    old = None
    if worker and threading.current_thread() is threading.main_thread():
        with contextlib.suppress(ValueError, OSError):
            old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if old is not None:
            import multiprocessing      # here: a fit in the main process never imports it
            if multiprocessing.parent_process() is None:
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


class lost_interrupts:
    """While open (in the main thread): a Ctrl-C lost in a finalizer is
    recorded, and :meth:`check` raises its ``KeyboardInterrupt``.

    Python runs a signal's handler at the next point where the main thread
    executes bytecode.  When that point is inside a finalizer -- a
    ``__del__`` or a weakref callback that the garbage collector runs at an
    arbitrary allocation, more often the more garbage earlier work left --
    the handler's ``KeyboardInterrupt`` cannot propagate: CPython passes it
    to ``sys.unraisablehook`` ("Exception ignored in ...") and the run goes
    on as if no Ctrl-C had come.  While this context is open, the hook
    records such an interrupt instead (and prints nothing); a loop calls
    :meth:`check` between its compiled calls, and ``lost`` tells afterwards
    whether one was lost and not raised again.  Other unraisable exceptions
    go to the previous hook.  Contexts may nest; they share the record, and
    one lost in an enclosing context is raised when an inner one is entered.

    >>> with lost_interrupts() as ctrl_c:
    ...     ctrl_c.check()          # nothing lost: no exception
    >>> ctrl_c.lost
    False
    """

    _depth = 0
    _lost = False
    _previous = None
    _active = lost = False

    def __enter__(self):
        import sys
        self.lost = False
        self._active = threading.current_thread() is threading.main_thread()
        if self._active:
            cls = lost_interrupts
            if cls._depth == 0:
                cls._lost, cls._previous = False, sys.unraisablehook
                sys.unraisablehook = cls._hook
            elif cls._lost:         # lost before this block (in an enclosing one): raise it
                cls._lost = False   # where it would have come through
                raise KeyboardInterrupt
            cls._depth += 1
        return self

    @staticmethod
    def _hook(unraisable):
        if (unraisable.exc_type is not None
                and issubclass(unraisable.exc_type, KeyboardInterrupt)):
            lost_interrupts._lost = True
            return
        previous = lost_interrupts._previous
        if previous is not None:
            previous(unraisable)

    def check(self):
        """Raise the ``KeyboardInterrupt`` of a Ctrl-C lost in a finalizer."""
        if self._active and lost_interrupts._lost:
            lost_interrupts._lost = False
            raise KeyboardInterrupt

    def __exit__(self, exc_type, exc, tb):
        import sys
        if not self._active:
            return False
        cls = lost_interrupts
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            cls._lost = False           # the Ctrl-C came through (or another one did)
        self.lost = cls._lost
        cls._depth -= 1
        if cls._depth == 0:
            if sys.unraisablehook is cls._hook:
                sys.unraisablehook = cls._previous
            cls._previous, cls._lost = None, False
        elif self.lost:
            cls._lost = False           # handed to this context's caller
        return False


class catch_interrupt(lost_interrupts):
    """A ``with`` block that ends quietly on Ctrl-C (``KeyboardInterrupt``).

    >>> with catch_interrupt() as stop:
    ...     raise KeyboardInterrupt
    >>> stop.interrupted
    True

    The caller then returns the work finished before the interrupt, marked
    as interrupted.  Other exceptions pass through.  A Ctrl-C lost in a
    finalizer (see :class:`lost_interrupts`) is raised again by
    :meth:`check`, which a loop calls between its steps; one still lost when
    the block ends marks it as interrupted too.  One object may be entered
    again (``interrupted`` then stays True once set).
    """

    def __init__(self):
        self.interrupted = False

    def __exit__(self, exc_type, exc, tb):
        super().__exit__(exc_type, exc, tb)
        caught = exc_type is not None and issubclass(exc_type, KeyboardInterrupt)
        if caught or (self.lost and exc_type is None):
            self.interrupted = True
        return caught


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

    def __exit__(self, exc_type, exc, tb):
        if self._old is not None:
            import signal
            signal.signal(signal.SIGINT, self._old)
        if self.hit and exc_type is None:
            # a Ctrl-C after the last check() (during the last compiled call, or after
            # it): raised here, not dropped with the flag
            self.hit = False
            raise KeyboardInterrupt
        return False


class GuardedPhases:
    """One guarded region over the phases of a long run: :meth:`run` runs a phase
    unless an earlier one was interrupted, and a Ctrl-C (``KeyboardInterrupt``)
    inside it ends that phase and is recorded in ``interrupted`` (the phase's
    name) instead of propagating, so that the caller returns the work of the
    finished phases, marked.  Other exceptions pass through.

    >>> guard = GuardedPhases()
    >>> def covariance():
    ...     raise KeyboardInterrupt
    >>> guard.run("iterations", lambda: None), guard.run("covariance", covariance)
    (True, False)
    >>> guard.run("loglik", print, "not run"), guard.interrupted
    (False, 'covariance')

    A short phase that assembles the finished work (the covariance of the last
    sample after interrupted iterations) runs even after an interrupt
    (``finishing=True``); ``interrupted_phases`` lists every phase a Ctrl-C
    ended, ``interrupted`` the first.
    """

    def __init__(self):
        self.interrupted = None
        self.interrupted_phases = []

    def run(self, phase, fn, *args, finishing=False, **kwargs) -> bool:
        """Run ``fn(*args, **kwargs)`` as the phase named ``phase``; True when it
        finished, False when it was interrupted or skipped (an earlier phase was,
        and the phase is not ``finishing``)."""
        if self.interrupted is not None and not finishing:
            return False
        before = len(self.interrupted_phases)
        with self.phase(phase):
            fn(*args, **kwargs)
        return len(self.interrupted_phases) == before

    @contextlib.contextmanager
    def phase(self, phase):
        """The phase named ``phase`` as a ``with`` block (a loop written inline): a
        Ctrl-C ends the block and is recorded.  Skipping the block after an earlier
        interrupt is the caller's (check ``interrupted``)."""
        try:
            with lost_interrupts() as lost:     # a Ctrl-C lost in a finalizer counts too
                yield
                lost.check()
        except KeyboardInterrupt:
            self.interrupted_phases.append(phase)
            if self.interrupted is None:
                self.interrupted = phase
