"""Samplers: one Metropolis-Hastings engine with pluggable proposals."""
from ._mh import MHSampler
from ._proposals import IFD, Proposal, RandomToggle, TieNoTie, ifd_correction
from ._triadic import TriadicTNT
from ._blocks import (BlockChooser, BlockGibbsSampler, BlockKernel, Enumeration, ListBlocks,
                      NodeTripleBlocks, StarBlocks, UniformBlocks)

__all__ = ["MHSampler", "IFD", "ifd_correction", "Proposal", "RandomToggle", "TieNoTie", "TriadicTNT",
           "BlockChooser", "BlockGibbsSampler", "BlockKernel", "Enumeration", "ListBlocks",
           "NodeTripleBlocks", "StarBlocks", "UniformBlocks"]
