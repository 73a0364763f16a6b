"""Equilibrium Expectation's proposals: the density parameter that the Improved
Fixed Density proposal holds (the other proposals are the sample space's:
:meth:`~ergmfit.sampling.space.SampleSpace.proposal`)."""
from __future__ import annotations

import numbers

import numpy as np

from ...exceptions import SettingsError
from ..common.density import statistic_parameter


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


#: ``reciprocation="auto"`` turns the reciprocating component on when the observed share
#: of mutual arcs, 2M/L, is at least this many times the chance that a uniform non-arc is
#: the reverse of an arc, A/N₀ (A = L − 2M asymmetric arcs, N₀ non-arcs)
AUTO_RECIPROCATION_RATIO = 10.0
#: ... and its probability is then 2M/L, at most this
MAX_RECIPROCATION = 0.9


def mutual_counts(network):
    """(D, L, M) of a directed network: ordered dyads, arcs, mutual dyads."""
    from ...terms._wholecount import mutual_count
    ties = np.asarray(network.ties, dtype=np.int64).reshape(-1, 2)
    n = int(network.n)
    # counted in O(n + m) from the in- and out-lists (np.isin's sorted copies took 20 MB and
    # 0.13 CPU s on Epinions)
    return n * (n - 1), len(ties), mutual_count(n, ties[:, 0], ties[:, 1])


def reciprocation_probability(model, setting, proposal, space):
    """The probability ``p`` that an IFD add is a reciprocating one
    (:class:`~ergmfit.sampling._proposals.ReciprocalIFD`), from EE's
    ``reciprocation`` setting: a number in [0, 1), False (0), True (the
    observed share of mutual arcs 2M/L, at most 0.9) or "auto" (that share when
    it is at least ``AUTO_RECIPROCATION_RATIO`` times A/N₀, the chance that a
    uniform add reverses an arc; else 0).  0 (plain IFD) for a proposal other
    than IFD, an undirected network, or ("auto") a dyad-set constraint; an
    explicit one there is an error.

    >>> import networkx as nx, ergmfit as ef
    >>> from ergmfit.sampling.space import sample_space_of
    >>> g = nx.DiGraph([(i, (i + 1) % 40) for i in range(40)])
    >>> g.add_edges_from([((i + 1) % 40, i) for i in range(0, 40, 2)])
    >>> m = ef.ERGM(g, "edges + mutual")
    >>> round(reciprocation_probability(m, "auto", "ifd", sample_space_of(m)), 3)
    0.667
    >>> reciprocation_probability(m, 0.25, "tnt", sample_space_of(m))
    0.0
    """
    if proposal not in ("ifd", "ifd-tnt"):
        return 0.0
    if setting is False or (not isinstance(setting, str) and not setting):
        return 0.0
    net = getattr(model, "network", None)
    explicit = not isinstance(setting, str)
    if net is None or not getattr(net, "directed", False) or space.free_vars() is not None:
        if explicit and setting is not False:
            raise SettingsError("reciprocation needs IFD on an unconstrained directed network "
                                "(it reverses arcs); use reciprocation=0")
        return 0.0
    if explicit and setting is not True:
        return float(setting)
    D, L, M = mutual_counts(net)
    share = 2.0 * M / L if L else 0.0
    if setting is True:
        return min(share, MAX_RECIPROCATION)
    A, N0 = L - 2 * M, D - L
    if M == 0 or A <= 0 or N0 <= 0 or share < AUTO_RECIPROCATION_RATIO * A / N0:
        return 0.0
    return min(share, MAX_RECIPROCATION)


def _reciprocation_setting(name, value):
    """EE's ``reciprocation`` setting: "auto", True/False or a number in [0, 1)."""
    if isinstance(value, str):
        if value.lower() != "auto":
            raise SettingsError(f"setting {name!r} must be 'auto', True, False or a probability "
                                f"in [0, 1), got {value!r}")
        return "auto"
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Real) and 0.0 <= float(value) < 1.0:
        return float(value)
    raise SettingsError(f"setting {name!r} must be 'auto', True, False or a probability in "
                        f"[0, 1), got {value!r}")
