"""The MCMC-MLE checkpoint: a JSON file of the fields of the loop's state
(:class:`~ergmfit.estimation.mcmle.state.MCMLEState`) declared ``saved`` --
the iteration's parameters, interval and history -- and of the model and
sample space it is for."""
from __future__ import annotations

import numpy as np

from ...exceptions import NetworkError
from ...runtime.checkpoint import flag, generator, group, integer, record
from ...sampling.space import dyad_vars
from ..common.checkpoint import ModelState
from .state import MAX_HISTORY, MCMLEState, saved_fields  # noqa: F401 (MAX_HISTORY: its home)

__all__ = ["MCMLECheckpoint", "MissingMCMLECheckpoint"]


class MCMLECheckpoint(ModelState):
    """Where an MCMC-MLE fit stands after an iteration: the saved fields of
    :class:`~ergmfit.estimation.mcmle.state.MCMLEState` (the estimate ``theta``,
    the sampling ``interval``, at most the run's ``max_interval``, and the
    iterations' ``history``)."""

    kind = "ergmfit-mcmle-checkpoint"
    what = "MCMC-MLE checkpoint"
    fields = saved_fields(MCMLEState)

    @classmethod
    def of(cls, state, extra=None):
        """The checkpoint of a loop state (its saved fields and ``extra``: the
        target's, see :mod:`.target`)."""
        return cls(**{name: getattr(state, name) for name in MCMLECheckpoint.fields},
                   **(extra or {}))

    @classmethod
    def dims(cls, model, context):
        return {"max_interval": 2 ** 20, **super().dims(model, context)}


def _chain_states(value, dims):
    """The saved last states of the chains: a list of tie lists (checked against
    the network and the sample space by :func:`read_ties`)."""
    if not isinstance(value, list) or len(value) > 2 ** 16:
        raise ValueError("not a list of the chains' states")
    return value


def _floats(value, dims):
    if not isinstance(value, list) or not all(isinstance(x, (int, float))
                                              and not isinstance(x, bool) for x in value):
        raise ValueError("not a list of numbers")
    return value


class MissingMCMLECheckpoint(MCMLECheckpoint):
    """The checkpoint of an MCMC-MLE fit with missing dyads: the MCMC-MLE fields and
    ``missing_data_state``, what an exact resume needs (both chains' last states,
    the loop's step bookkeeping and the random generator), so that a resumed fit
    returns what the uninterrupted one would have."""

    what = "missing-data MCMC-MLE checkpoint"
    fields = {**MCMLECheckpoint.fields,
              "missing_data_state": group({
                  "obs_interval": integer(1, 2 ** 20, optional=True),
                  "streak": integer(0, 2 ** 20),
                  "final": flag(),
                  "burnin": integer(0, 2 ** 40),
                  "backtracks": integer(0, 2 ** 20),
                  "guard_theta": record(_floats, optional=True),
                  "guard_t": record(_floats, optional=True),
                  "starts_u": record(_chain_states, optional=True),
                  "starts_c": record(_chain_states, optional=True),
                  "rng": generator()})}


def read_ties(value, model, space, n_chains, what):
    """The saved last states of ``n_chains`` chains of ``model`` (None: start
    afresh); ``space``: the sample space they must lie in (None: the model's, whose
    missing dyads a state may fill)."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise ValueError(f"the {what} chains' states are not a list")
    if len(value) != n_chains:
        return None         # another number of chains: they start from the data
    net = model.network
    out = []
    for ties in value:
        t = np.asarray(ties if len(ties) else np.zeros((0, 2)), dtype=float)
        if t.ndim != 2 or t.shape[1] != 2 or not np.all(np.isfinite(t)) or \
                np.any(t != np.round(t)) or np.any((t < 0) | (t >= net.n)) or \
                np.any(t[:, 0] == t[:, 1]):
            raise ValueError(f"a {what} chain's state is not a list of ties between "
                             f"{net.n} nodes")
        t = t.astype(np.int64)
        if len(np.unique(dyad_vars(net.n, net.directed, t))) != len(t):
            raise ValueError(f"a {what} chain's state lists a tie twice")
        try:
            space.check(t)
        except NetworkError as exc:
            raise ValueError(f"a {what} chain's state is outside its sample space "
                             f"({exc})") from None
        out.append(t)
    return out
