"""Temporal ERGMs (tergm, btergm): the model of a NetSeries' transitions."""
from .model import TemporalERGM

__all__ = ["TemporalERGM"]
