"""The MCMC-MLE checkpoint: a JSON file of the iteration's parameters,
interval and history, and of the model and sample space it is for."""
from __future__ import annotations

import numpy as np

from ...runtime.checkpoint import array, integer, record
from ..common.checkpoint import ModelState

__all__ = ["MCMLECheckpoint"]

#: the most iterations a checkpoint's history may hold
MAX_HISTORY = 2 ** 20


def _history(value, dims):
    """The iteration records of a resumed fit: what ``_check_oscillation`` reads back."""
    if not isinstance(value, list) or not all(isinstance(h, dict) for h in value):
        raise ValueError("not a list of iteration records")
    if len(value) > MAX_HISTORY:
        raise ValueError(f"a list of {len(value)} iteration records, more than {MAX_HISTORY}")
    p = dims["p"]
    for h in value:
        for key, kind in (("t_mean", float), ("bistable", bool)):
            v = h.get(key)
            if v is not None and (not isinstance(v, list) or len(v) != p or not all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x)
                    if kind is float else isinstance(x, bool) for x in v)):
                raise ValueError(f"a list of iteration records one of whose {key!r} is not "
                                 f"{p} {'numbers' if kind is float else 'true/false values'}")
    return value


class MCMLECheckpoint(ModelState):
    """Where an MCMC-MLE fit stands after an iteration: the estimate ``theta``,
    the sampling ``interval`` (at most the run's ``max_interval``) and the
    iterations' ``history``."""

    kind = "ergmfit-mcmle-checkpoint"
    what = "MCMC-MLE checkpoint"
    fields = {"theta": array("float64", ("p",)),
              "interval": integer(1, "max_interval"),
              "history": record(_history)}

    @classmethod
    def dims(cls, model, context):
        return {"max_interval": 2 ** 20, **super().dims(model, context)}
