"""Samplers: one Metropolis-Hastings engine with pluggable proposals."""
from ._mh import MHSampler
from ._proposals import Proposal, RandomToggle, TieNoTie
from ._triadic import TriadicTNT
from ._blocks import (BlockChooser, BlockGibbsSampler, BlockKernel, Enumeration, ListBlocks,
                      NodeTripleBlocks, StarBlocks, UniformBlocks)

__all__ = ["MHSampler", "Proposal", "RandomToggle", "TieNoTie", "TriadicTNT",
           "BlockChooser", "BlockGibbsSampler", "BlockKernel", "Enumeration", "ListBlocks",
           "NodeTripleBlocks", "StarBlocks", "UniformBlocks"]
