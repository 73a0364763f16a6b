"""Temporal ERGMs (tergm, btergm): the model of a NetSeries' transitions."""
from .heldout import heldout_gof
from .model import TemporalERGM

__all__ = ["TemporalERGM", "heldout_gof"]
