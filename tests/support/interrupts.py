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


class CtrlCInAFinalizer:
    """Garbage whose finalizer receives a real SIGINT: the KeyboardInterrupt of Python's
    default handler is raised inside ``__del__``, where CPython drops it ("Exception
    ignored in ...") -- what happens to a Ctrl-C that arrives while the garbage collector
    runs finalizers of earlier work.  :meth:`collect` makes one and collects it."""

    def __init__(self):
        self.cycle = self          # only the cyclic collector frees it

    def __del__(self):
        signal.raise_signal(signal.SIGINT)     # to this thread: handled in here
        total = 0
        for i in range(10000):     # bytecode runs: the handler raises in here
            total += i

    @classmethod
    def collect(cls):
        import gc
        cls()
        gc.collect()


def interrupt_the_second_bayes_block(monkeypatch):
    """The exchange algorithm sees a KeyboardInterrupt in its second block of draws (what a
    real Ctrl-C does there), through ``monkeypatch`` (undone after the test)."""
    from ergmfit.estimation.bayes import exchange
    real, calls = exchange.exchange_block, []

    def block(*args):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args)
    monkeypatch.setattr(exchange, "exchange_block", block)
