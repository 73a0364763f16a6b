"""A real Ctrl-C delivered to the test's main thread."""
import contextlib
import signal
import threading


def sigint_soon(delay):
    """A real SIGINT to the main thread after ``delay`` seconds (use the ``default_sigint``
    fixture, which installs the handler raising KeyboardInterrupt); returns the timer."""
    main = threading.main_thread().ident
    timer = threading.Timer(delay, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    return timer


def sigint_when(ready, timeout=60.0, poll=0.0005):
    """A real SIGINT to the main thread as soon as ``ready()`` is true (checked by a
    watching thread every ``poll`` seconds, for at most ``timeout`` seconds): for a Ctrl-C
    inside a compiled loop that releases the Python lock, once the loop has visibly begun
    (``ready`` reads its progress), never before it (a timer's signal could land in the
    set-up instead).  Returns the thread; ``thread.sent`` is set when the signal went."""
    main = threading.main_thread().ident
    sent = threading.Event()

    def watch():
        import time
        end = time.monotonic() + timeout
        while not ready():
            if time.monotonic() > end:
                return
            time.sleep(poll)
        signal.pthread_kill(main, signal.SIGINT)
        sent.set()
    thread = threading.Thread(target=watch, daemon=True)
    thread.sent = sent
    thread.start()
    return thread


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
    real Ctrl-C does there), through ``monkeypatch`` (undone after the test): in the first
    compiled call after the first block is done (a block is one compiled call, or one per
    chain with persistent auxiliary networks); only once."""
    from ergmfit.estimation.bayes import exchange
    real, real_progress, done = exchange.exchange_block, exchange.Progress, []

    class Counting(real_progress):
        def update(self, n=1, **postfix):
            if n > 0:
                done.append(n)          # iterations finished (after every block)
            return super().update(n, **postfix)

    def block(*args):
        if len(done) == 1:
            done.append(0)              # once
            raise KeyboardInterrupt
        return real(*args)
    monkeypatch.setattr(exchange, "Progress", Counting)
    monkeypatch.setattr(exchange, "exchange_block", block)


@contextlib.contextmanager
def sa_interrupted_in_subphase(monkeypatch, k):
    """Inside the block, stochastic approximation sees a KeyboardInterrupt at the start of
    its subphase ``k`` (0-based), as a real Ctrl-C there would; undone after the block."""
    from ergmfit.estimation.sa import robbins_monro
    real = robbins_monro.SA._subphase

    def stop(self, model, run, s, subphase):
        if subphase == k:
            raise KeyboardInterrupt
        return real(self, model, run, s, subphase)
    with monkeypatch.context() as mp:
        mp.setattr(robbins_monro.SA, "_subphase", stop)
        yield
