"""Samplers: one Metropolis-Hastings engine with pluggable proposals."""
from ._mh import MHSampler
from ._proposals import IFD, Proposal, RandomToggle, TieNoTie, ifd_correction
from ._proposals import LiftedTriadicTNT, TriadicTNT
from ._blocks import (BlockChooser, BlockGibbsSampler, BlockKernel, Enumeration, ListBlocks,
                      NodeTripleBlocks, StarBlocks, UniformBlocks)

from .space import PROPOSALS, AllDyads, SampleSpace, make_proposal  # noqa: E402
from ..runtime.parallel import inherit_in_workers  # noqa: E402


def _runaway_guard_now():
    from . import _mh
    return dict(_mh.RUNAWAY_GUARD)


def _set_runaway_guard(values):
    from . import _mh
    _mh.RUNAWAY_GUARD.update(values)


# parallel workers run with this process's runaway guard (sampling.chains.runaway_guard)
inherit_in_workers(_runaway_guard_now, _set_runaway_guard)


__all__ = ["PROPOSALS", "SampleSpace", "AllDyads", "make_proposal", "MHSampler", "IFD", "ifd_correction", "Proposal", "RandomToggle", "TieNoTie", "TriadicTNT", "LiftedTriadicTNT",
           "BlockChooser", "BlockGibbsSampler", "BlockKernel", "Enumeration", "ListBlocks",
           "NodeTripleBlocks", "StarBlocks", "UniformBlocks"]
