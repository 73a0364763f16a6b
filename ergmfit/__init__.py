"""ergmfit: exponential random graph models and Markov random fields in Python.

>>> import ergmfit as ef
>>> m = ef.ERGM(ef.datasets.load("lazega"), "edges + kstar(2) + triangle")
>>> m.statistics()
{'edges': 115.0, 'kstar2': 926.0, 'triangle': 120.0}
"""
from . import datasets
from .exceptions import (ConvergenceWarning, DataFormatError, DegenerateModelError,
                         ErgmfitError, FitInterrupted, FormulaError, NetworkError,
                         ResultsFileError, SaveError, TermError)
from .formula import parse_formula
from .model import ERGM, TaperedERGM
from .network import Layer, Layers, Network, Networks, NetworkState, as_network, read_network
from .network.series import NetSeries
from .runtime.interrupts import stop_on_interrupt
from .temporal import TemporalERGM  # noqa: F401  (registers ERGM(NetSeries) -> TemporalERGM)

from .version import __version__


#: names of the package imported from their module on first use (an EE fit of a network
#: needs none of them: their modules stay unimported, about 1 MB)
_LAZY = {"compare": "comparison", "EgoData": "ego", "ego": "ego",
         "fit_snowball": "snowball", "meta_analysis": "snowball",
         "snowball_sample": "snowball", "snowball_samples": "snowball"}


def __getattr__(name):
    import importlib
    # ef.gof, ef.plotting, ef.mrf, ... without importing matplotlib and friends up front
    if name in ("gof", "plotting", "mrf", "estimation", "sampling", "results", "terms"):
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY:
        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        value = module if name == _LAZY[name] else getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ergmfit' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

__all__ = ["ERGM", "TaperedERGM", "NetSeries", "compare", "Network", "Networks", "Layer", "Layers",
           "NetworkState", "as_network", "read_network", "datasets", "parse_formula", "EgoData",
           "ego", "snowball_sample", "snowball_samples", "fit_snowball", "meta_analysis",
           "ErgmfitError", "FormulaError", "TermError", "NetworkError", "DataFormatError",
           "DegenerateModelError", "ResultsFileError", "SaveError", "ConvergenceWarning",
           "FitInterrupted", "stop_on_interrupt",
           "__version__"]
