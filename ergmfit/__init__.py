"""ergmfit: exponential random graph models and Markov random fields in Python.

>>> import ergmfit as ef
>>> m = ef.ERGM(ef.datasets.load("lazega"), "edges + kstar(2) + triangle")
>>> m.statistics()
{'edges': 115.0, 'kstar2': 926.0, 'triangle': 120.0}
"""
from . import datasets
from .comparison import compare
from .exceptions import (ConvergenceWarning, DataFormatError, DegenerateModelError,
                         ErgmfitError, FitInterrupted, FormulaError, NetworkError,
                         ResultsFileError, SaveError, TermError)
from .ego import EgoData
from .formula import parse_formula
from .model import ERGM, TaperedERGM
from .network import Layer, Layers, Network, Networks, NetworkState, as_network, read_network
from .network.series import NetSeries
from .runtime.interrupts import stop_on_interrupt
from .snowball import fit_snowball, meta_analysis, snowball_sample, snowball_samples
from .temporal import TemporalERGM  # noqa: F401  (registers ERGM(NetSeries) -> TemporalERGM)

from .version import __version__


def __getattr__(name):
    # ef.gof, ef.plotting, ef.mrf, ... without importing matplotlib and friends up front
    if name in ("gof", "plotting", "mrf", "estimation", "sampling", "results", "terms"):
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ergmfit' has no attribute {name!r}")

__all__ = ["ERGM", "TaperedERGM", "NetSeries", "compare", "Network", "Networks", "Layer", "Layers",
           "NetworkState", "as_network", "read_network", "datasets", "parse_formula", "EgoData",
           "ego", "snowball_sample", "snowball_samples", "fit_snowball", "meta_analysis",
           "ErgmfitError", "FormulaError", "TermError", "NetworkError", "DataFormatError",
           "DegenerateModelError", "ResultsFileError", "SaveError", "ConvergenceWarning",
           "FitInterrupted", "stop_on_interrupt",
           "__version__"]
