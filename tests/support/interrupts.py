"""A real Ctrl-C delivered to the test's main thread."""
import signal
import threading


def sigint_soon(delay):
    """A real SIGINT to the main thread after ``delay`` seconds (use the ``default_sigint``
    fixture, which installs the handler raising KeyboardInterrupt); returns the timer."""
    main = threading.main_thread().ident
    timer = threading.Timer(delay, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    return timer
