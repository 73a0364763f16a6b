"""The MCMC-MLE checkpoint: a JSON file of the fields of the loop's state
(:class:`~ergmfit.estimation.mcmle.state.MCMLEState`) declared ``saved`` --
the iteration's parameters, interval and history -- and of the model and
sample space it is for."""
from __future__ import annotations

from ..common.checkpoint import ModelState
from .state import MAX_HISTORY, MCMLEState, saved_fields  # noqa: F401 (MAX_HISTORY: its home)

__all__ = ["MCMLECheckpoint"]


class MCMLECheckpoint(ModelState):
    """Where an MCMC-MLE fit stands after an iteration: the saved fields of
    :class:`~ergmfit.estimation.mcmle.state.MCMLEState` (the estimate ``theta``,
    the sampling ``interval``, at most the run's ``max_interval``, and the
    iterations' ``history``)."""

    kind = "ergmfit-mcmle-checkpoint"
    what = "MCMC-MLE checkpoint"
    fields = saved_fields(MCMLEState)

    @classmethod
    def of(cls, state):
        """The checkpoint of a loop state (its saved fields)."""
        return cls(**{name: getattr(state, name) for name in cls.fields})

    @classmethod
    def dims(cls, model, context):
        return {"max_interval": 2 ** 20, **super().dims(model, context)}
