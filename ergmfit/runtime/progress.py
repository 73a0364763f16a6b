"""Progress bars for long runs: :class:`Progress`, a tqdm bar that also behaves
when the output is not a terminal (a log file or a CI job: a line every 30 s
instead of a carriage-return animation), and in a notebook without ipywidgets (a
text bar, with no warning; with ipywidgets installed, tqdm's widget bar)."""
from __future__ import annotations

import sys

__all__ = ["Progress"]


class Progress:
    """A progress bar of ``total`` steps (nothing when ``enabled`` is false).

    On a terminal it is tqdm's bar; otherwise tqdm writes a plain line at
    most every 30 seconds, which reads well in log files.
    """

    def __init__(self, total, desc, unit="it", enabled=True):
        self.bar = None
        self.n = 0
        if enabled:
            tqdm = progress_bar_class()
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


def progress_bar_class():
    """tqdm's bar for where we run: ``tqdm.auto``'s (a widget in a notebook) when ipywidgets
    is installed, else tqdm's text bar -- which works in a notebook too, where
    ``tqdm.auto`` without ipywidgets warns "IProgress not found" before falling back to it."""
    import importlib.util
    if importlib.util.find_spec("ipywidgets") is None:
        from tqdm.std import tqdm
        return tqdm
    from tqdm.auto import tqdm
    return tqdm
