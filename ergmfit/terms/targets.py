"""What a fit matches: the observed network's statistics, or target statistics.

statnet's ``target.stats`` (``ERGM.fit(target_stats=)``) replaces the observed
network's statistics by given values: the MLE is then the θ whose expected
statistics equal them (the moment equation E_θ g = t).  A model owns its
:class:`Target`; estimators ask it (:func:`target_of`) whether the data are the
observed network or statistics, instead of reading the model's attributes:

* :attr:`Target.given` -- statistics replace the network;
* :meth:`Target.needs_network_search` -- the pseudo-likelihood of a
  dyad-dependent model needs a network with the target statistics (statnet's
  ``san``), its change statistics depending on the network;
* :meth:`Target.solves_at_targets` -- a dyad-independent model's
  pseudo-likelihood (its exact likelihood) is solved at the targets directly,
  no network needed;
* :attr:`Target.checks_observed_network` -- checks of the observed network
  (does the MLE exist for it, has it a tie an infinite offset forbids) apply;
* :meth:`Target.statistics_over_empty` -- the statistics matched, net of the
  empty network's.

Examples
--------
>>> import numpy as np
>>> t = Target([10.0, 4.0])
>>> t.given, t.needs_network_search(dyad_independent=False), t.solves_at_targets(True)
(True, True, True)
>>> Target().checks_observed_network
True
>>> t.statistics_over_empty(lambda: np.array([0.0, 1.0]), None)
array([10.,  3.])
"""
from __future__ import annotations

import numpy as np


class Target:
    """The statistics a fit matches: ``statistics`` (target statistics, one per
    statistic label), or None for the observed network's own."""

    def __init__(self, statistics=None):
        self.statistics = None if statistics is None else np.asarray(statistics, dtype=float)

    @property
    def given(self) -> bool:
        """Target statistics replace the observed network's."""
        return self.statistics is not None

    @property
    def checks_observed_network(self) -> bool:
        """The observed network is the data: checks of it apply (with targets the
        network is not what is fitted)."""
        return self.statistics is None

    def needs_network_search(self, dyad_independent) -> bool:
        """A network with the target statistics is needed (statnet's ``san``): targets
        on a model that is not ``dyad_independent``."""
        return self.given and not dyad_independent

    def solves_at_targets(self, dyad_independent) -> bool:
        """The pseudo-likelihood is solved at the targets themselves (its score equation
        with the targets for the observed statistics): targets on a ``dyad_independent``
        model, whose change statistics do not depend on the network."""
        return self.given and bool(dyad_independent)

    def statistics_over_empty(self, empty_statistics, observed_over_empty):
        """The statistics matched minus the empty network's: the targets minus
        ``empty_statistics()``, else ``observed_over_empty()`` (the observed network's,
        already net of the empty network's).  Each callable is called only when needed."""
        if self.given:
            return self.statistics - empty_statistics()
        return observed_over_empty()


def target_of(model) -> Target:
    """The :class:`Target` of ``model``: its ``target_stats`` (``fit(target_stats=)``,
    :meth:`ergmfit.ERGM.configured`), else the observed network's statistics (also for
    a model without targets at all, an MRF).

    >>> class Field:
    ...     labels = ["h", "J"]
    >>> target_of(Field()).given
    False
    """
    return Target(getattr(model, "target_stats", None))
