"""Progress bars for long runs: :class:`Progress`, a tqdm bar that also behaves
when the output is not a terminal (a log file or a CI job: a line every 30 s
instead of a carriage-return animation)."""
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
            from tqdm.auto import tqdm
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
