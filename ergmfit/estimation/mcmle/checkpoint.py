"""The MCMC-MLE checkpoint (complete and missing data): a JSON file of the
iteration's parameters, interval and history, and of the sample space it is for."""
from __future__ import annotations

import numpy as np

from ...exceptions import CheckpointError
from ...runtime import read_json


_CKPT_KIND = "ergmfit-mcmle-checkpoint"


def write_checkpoint(store, model, theta, interval, history, extra=None):
    from ...constraints import checkpoint_space      # constraints, missing dyads, offsets (#18)
    store.save_json({"kind": _CKPT_KIND, "formula": model.formula, "labels": model.labels,
                     "theta": [float(t) for t in theta], "interval": int(interval),
                     "history": history, "sample_space": checkpoint_space(model),
                     **(extra or {})})      # extra: the missing-data fit's chains (missing.py)


class _OtherModel(Exception):
    """A checkpoint of another model's statistics."""


def read_checkpoint(path, model, max_interval=2**20):
    data = read_json(path, kind=_CKPT_KIND, what="MCMC-MLE checkpoint")
    try:
        labels, theta = list(data["labels"]), [float(t) for t in data["theta"]]
        if labels != list(model.labels) or len(theta) != len(labels):
            raise _OtherModel()
        interval, history = data["interval"], data["history"]
        if isinstance(interval, bool) or not isinstance(interval, int):
            raise ValueError(f"the interval {interval!r} is not a whole number")
        if not 1 <= interval <= max_interval:
            raise ValueError(f"the interval {interval} is outside 1..{max_interval} "
                             "(max_interval)")
        if not isinstance(history, list) or not all(isinstance(h, dict) for h in history):
            raise ValueError("the history is not a list of iteration records")
        p = len(model.labels)
        for h in history:        # what _check_oscillation reads back from a resumed history
            for key, kind in (("t_mean", float), ("bistable", bool)):
                v = h.get(key)
                if v is not None and (not isinstance(v, list) or len(v) != p or not all(
                        isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x)
                        if kind is float else isinstance(x, bool) for x in v)):
                    raise ValueError(f"a history record's {key!r} is not {p} "
                                     f"{'numbers' if kind is float else 'true/false values'}")
    except _OtherModel:
        raise CheckpointError(f"the checkpoint {path} is for the statistics {data['labels']}, "
                              f"not {model.labels}") from None
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise CheckpointError(f"cannot read {path}: an MCMC-MLE checkpoint with a missing or "
                              f"damaged entry ({type(exc).__name__}: {exc})") from None
    if not np.all(np.isfinite(theta)):
        raise CheckpointError(f"cannot read {path}: an MCMC-MLE checkpoint whose estimate "
                              f"{theta} is not finite (damaged)")
    from ...constraints import check_checkpoint_space
    check_checkpoint_space(data.get("sample_space"), model, path)
    return data
