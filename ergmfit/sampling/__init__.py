"""Samplers: one Metropolis-Hastings engine with pluggable proposals."""
from ._mh import MHSampler
from ._proposals import Proposal, RandomToggle, TieNoTie
from ._triadic import TriadicTNT

__all__ = ["MHSampler", "Proposal", "RandomToggle", "TieNoTie", "TriadicTNT"]
