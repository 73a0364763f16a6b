"""Equilibrium Expectation's proposals: the sample space's proposal for a chain,
and the density parameter that the Improved Fixed Density proposal holds."""
from __future__ import annotations

from ...exceptions import SettingsError
from ...sampling import make_proposal
from ..contrastive.cd import statistic_parameter


def _free_density(model, dens, proposal):
    """The density statistic's position for IFD, None if ``offset(edges)``
    fixes its coefficient (IFD, which estimates it from V, is then refused)."""
    if dens is not None and statistic_parameter(model, dens) is None:
        if proposal in ("ifd", "ifd-tnt"):
            raise SettingsError(f"proposal={proposal!r} estimates the edges coefficient "
                                "from its auxiliary parameter, but offset(edges) fixes it: use "
                                "proposal='tnt' (the default here)")
        return None
    return dens


def _constrained_space(model):
    """The model's constrained sample space (statnet's ``constraints=``), or None."""
    space = getattr(model, "sample_space", None)
    return space if space is not None and getattr(space, "constrained", False) else None


def _proposal(model, space, name, bm):
    """A compiled proposal by name; under constraints the space's own (it
    never leaves the constrained space: restricted tie/no-tie, or the degree
    preserving moves); else from the proposal table of the model's sample space
    (its family's: binary tie/no-tie, or the count family's moves of a dyad's value)."""
    if space is not None:
        return space.proposal("auto" if name in ("tnt", None) else name, bm, model)
    own = getattr(model, "sample_space", None)      # None: a spec without one (MRF)
    return make_proposal(name, bm) if own is None else own.proposal(name, bm, model)


def _sampler(model, bm, proposal, seed):
    """The Metropolis-Hastings sampler that runs ``proposal`` on the compiled ``bm``:
    the model's sample space makes it (its family's sampler; a constrained space's
    own), a plain binary one for a spec without a sample space (MRF)."""
    space = getattr(model, "sample_space", None)
    if space is None:
        from ...sampling._mh import MHSampler
        return MHSampler(bm, proposal, seed)
    return space.make_sampler(bm, proposal, seed)
