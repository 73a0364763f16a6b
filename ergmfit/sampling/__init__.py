"""Samplers: one Metropolis-Hastings engine with pluggable proposals."""
from ._mh import MHSampler
from ._proposals import IFD, Proposal, RandomToggle, TieNoTie, ifd_correction
from ._triadic import LiftedTriadicTNT, TriadicTNT
from ._blocks import (BlockChooser, BlockGibbsSampler, BlockKernel, Enumeration, ListBlocks,
                      NodeTripleBlocks, StarBlocks, UniformBlocks)

from .space import PROPOSALS, AllDyads, SampleSpace, make_proposal  # noqa: E402


__all__ = ["PROPOSALS", "SampleSpace", "AllDyads", "make_proposal", "MHSampler", "IFD", "ifd_correction", "Proposal", "RandomToggle", "TieNoTie", "TriadicTNT", "LiftedTriadicTNT",
           "BlockChooser", "BlockGibbsSampler", "BlockKernel", "Enumeration", "ListBlocks",
           "NodeTripleBlocks", "StarBlocks", "UniformBlocks"]
