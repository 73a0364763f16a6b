"""Equilibrium Expectation's proposals: the density parameter that the Improved
Fixed Density proposal holds (the other proposals are the sample space's:
:meth:`~ergmfit.sampling.space.SampleSpace.proposal`)."""
from __future__ import annotations

from ...exceptions import SettingsError
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
