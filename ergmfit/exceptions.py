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


class DegenerateModelError(ErgmfitError, RuntimeError):
    """A model whose fit or simulation is degenerate."""


class ConvergenceWarning(UserWarning):
    """A fit that did not converge."""
