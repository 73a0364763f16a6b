"""Temporal ERGMs (tergm, btergm): the model of a NetSeries' transitions."""
from .heldout import heldout_gof
from .model import TemporalERGM
from .equilibrium import CrossSectionTERGM    # registers ERGM(network, "Form(~...)")

__all__ = ["TemporalERGM", "CrossSectionTERGM", "heldout_gof"]
