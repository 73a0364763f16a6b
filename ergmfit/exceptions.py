"""Exceptions raised by ergmfit; each names what the user can change."""


class ErgmfitError(Exception):
    """Base class of ergmfit's own errors."""


class FormulaError(ErgmfitError, ValueError):
    """A model formula that does not parse, or names an unknown term."""


class TermError(ErgmfitError, ValueError):
    """A term that does not fit its arguments or the network."""


class NetworkError(ErgmfitError, ValueError):
    """A network that ergmfit cannot model as given (loops, weights, ...)."""


class DataFormatError(ErgmfitError, ValueError):
    """A file or table that does not parse as a network."""


class SettingsError(ErgmfitError, ValueError, TypeError):
    """An estimator setting that does not exist or lies out of its range
    (a TypeError too, as Python's own unknown-keyword error is)."""


class DegenerateModelError(ErgmfitError, RuntimeError):
    """A model whose fit or simulation is degenerate."""


class ReadOnlyError(ErgmfitError, TypeError):
    """A write to something ergmfit hands out to be read only (``fit.info``, the
    view of ``fit.diagnostics``); the message names where the write goes instead."""


class ConvergenceWarning(UserWarning):
    """A fit that did not converge."""


class ResultsFileError(ErgmfitError, ValueError):
    """A results file that cannot be read back: damaged, truncated, tampered
    with, or not a results file at all."""


class SaveError(ErgmfitError, OSError):
    """Results that could not be written (disk full, no such directory, no
    permission); a file already at the path is left unchanged."""


class CheckpointError(ErgmfitError, ValueError):
    """A checkpoint that cannot be used: damaged or not a checkpoint (the
    message names the file), written for another model, or being written
    by another run at the same time."""


class CheckpointWarning(UserWarning):
    """A checkpoint that could not be written (read-only directory, full
    disk): the run goes on without it."""


class FitInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a fit, and the script is to stop too: raised, with the partial fit as
    :attr:`result`, by ``fit.raise_if_interrupted()`` and by ``ERGM.fit`` inside
    ``with ergmfit.stop_on_interrupt():``.  A :class:`KeyboardInterrupt`, so an uncaught one
    ends the script as Ctrl-C does, and ``except KeyboardInterrupt`` catches it.

    Attributes
    ----------
    result : the partial fit (an :class:`~ergmfit.results.ERGMResults`, marked
        ``interrupted``), to keep or save before the script stops.
    """

    def __init__(self, result=None, message=None):
        super().__init__(message or "the fit was interrupted by the user (Ctrl-C); the partial "
                                    "fit is this exception's .result")
        self.result = result
