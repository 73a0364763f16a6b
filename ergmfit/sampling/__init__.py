"""Samplers: one Metropolis-Hastings engine with pluggable proposals."""
from ._mh import MHSampler
from ._proposals import IFD, Proposal, RandomToggle, TieNoTie, ifd_correction
from ._triadic import LiftedTriadicTNT, TriadicTNT
from ._blocks import (BlockChooser, BlockGibbsSampler, BlockKernel, Enumeration, ListBlocks,
                      NodeTripleBlocks, StarBlocks, UniformBlocks)

from .space import PROPOSALS, AllDyads, SampleSpace  # noqa: E402


def make_proposal(name, bm=None):
    """A fresh Metropolis-Hastings proposal by name.

    "tnt" (tie/no-tie), "random" (random toggle), "triadic" (tie/no-tie with
    triadic-closure moves), "lifted-tnt" and "lifted-triadic" (their lifted,
    non-reversible forms: :class:`LiftedTriadicTNT`).  The triadic and lifted
    ones walk a network, so they need an ERGM's compiled model; pass ``bm``
    to have that checked.
    """
    from ergmfit.terms._ergm import ERGMModel
    makers = {"tnt": TieNoTie, "random": RandomToggle, "triadic": TriadicTNT,
              "lifted-tnt": lambda: LiftedTriadicTNT(0.0), "lifted-triadic": LiftedTriadicTNT}
    if name not in makers:
        raise ValueError(f"proposal must be one of {', '.join(map(repr, PROPOSALS))}, got {name!r}")
    if name not in ("tnt", "random") and bm is not None and not isinstance(bm, ERGMModel):
        raise ValueError(f"proposal {name!r} needs a network model (an ERGM); "
                         "use 'tnt' or 'random'")
    return makers[name]()


__all__ = ["PROPOSALS", "SampleSpace", "AllDyads", "make_proposal", "MHSampler", "IFD", "ifd_correction", "Proposal", "RandomToggle", "TieNoTie", "TriadicTNT", "LiftedTriadicTNT",
           "BlockChooser", "BlockGibbsSampler", "BlockKernel", "Enumeration", "ListBlocks",
           "NodeTripleBlocks", "StarBlocks", "UniformBlocks"]
