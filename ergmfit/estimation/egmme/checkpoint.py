"""The EGMME checkpoint: where an EGMME run stands after its burn-in or a Newton or
averaging iteration, in one JSON file written through the machinery the MCMC-MLE's
checkpoint uses (:class:`~ergmfit.runtime.checkpoint.Checkpoint`: atomic writes, a lock
against a second writer; :class:`~ergmfit.estimation.common.checkpoint.ModelState`: the
model's labels, formula and sample space, offsets included, recorded and checked;
:func:`~ergmfit.estimation.mcmle.checkpoint.read_ties`: the chain's network checked
against its sample space).

The dynamic chain is rebuilt from its network at every such boundary, with a seed drawn
from the run's random generator (also when no checkpoint is written), so the network, the
generator's state and the iteration's numbers are all a resumed run needs to go on exactly
as the uninterrupted run does.
"""
from __future__ import annotations

from ...exceptions import CheckpointError
from ...runtime.checkpoint import array, generator, integer, record, text
from ..common.checkpoint import ModelState
from ..mcmle.checkpoint import read_ties

__all__ = ["EGMMECheckpoint"]

#: the most iterations (burn-in included) a checkpoint may count
MAX_STAGES = 2 ** 20


#: the keys of an iteration's record that older checkpoints lack: the sign changes so far
#: (Kesten's rule), the θ the iteration ran at, whether it rejected the last step, its
#: weighted objective (the step-back rule's best point, :func:`taken_back`)
OPTIONAL_KEYS = frozenset({"changes", "start", "rejected", "objective"})


def _history(value, dims):
    """The Newton steps' records: {"theta", "gain", "deviation"} each, and "changes" (the
    sign changes so far, for the gains' Kesten rule; 0 when absent: older checkpoints)."""
    if not isinstance(value, list) or len(value) > MAX_STAGES:
        raise ValueError("not a list of the iterations' records")
    for h in value:
        if not isinstance(h, dict) or set(h) - OPTIONAL_KEYS != {"theta", "gain", "deviation"} \
                or not isinstance(h.get("changes", 0), int) or isinstance(h.get("changes"), bool) \
                or not isinstance(h["theta"], list) or len(h["theta"]) != dims["p"] \
                or not isinstance(h.get("start", h["theta"]), list) \
                or len(h.get("start", h["theta"])) != dims["p"] \
                or not isinstance(h["deviation"], list) \
                or not isinstance(h.get("objective", 0.0), (int, float)) \
                or isinstance(h.get("objective"), bool) \
                or not isinstance(h["gain"], (int, float)) or isinstance(h["gain"], bool):
            raise ValueError("not a list of the iterations' records (theta, gain, deviation)")
    return value


def _thetas(value, dims):
    """The averaging iterations' estimates so far: a list of p-vectors."""
    import numpy as np
    if not isinstance(value, list) or len(value) > MAX_STAGES:
        raise ValueError("not a list of estimates")
    out = []
    for v in value:
        arr = np.asarray(v, dtype=float) if isinstance(v, list) and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in v) else None
        if arr is None or arr.shape != (dims["p"],) or not np.all(np.isfinite(arr)):
            raise ValueError(f"not a list of estimates of {dims['p']} finite numbers")
        out.append(arr)
    return out


#: the settings that decide the run's stages and their draws: a resume must keep them
RUN_SETTINGS = ("burnin", "steps", "n_iter", "n_average", "max_step", "proposals")


def _settings(value, dims):
    """The run's settings (:data:`RUN_SETTINGS`): {name: number or None}."""
    if not isinstance(value, dict) or set(value) != set(RUN_SETTINGS) or not all(
            v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
            for v in value.values()):
        raise ValueError(f"not the run's settings ({', '.join(RUN_SETTINGS)})")
    return value


class EGMMECheckpoint(ModelState):
    """Where an EGMME run stands: ``stage`` (the burn-in and the iterations done: 1 after
    the burn-in, 1 + k after the k-th Newton or averaging iteration), the estimate
    ``theta``, the Newton steps' ``history``, the ``averaged`` estimates of the averaging
    iterations so far, the chain's network ``ties`` (node indices of the cross-section),
    its time ``step`` and ``proposals`` per step, the ``targets`` formula and the random
    generator ``rng`` (its state before the chain is rebuilt)."""

    kind = "ergmfit-egmme-checkpoint"
    what = "EGMME checkpoint"
    fields = {"stage": integer(1, MAX_STAGES),
              "theta": array("float64", ("p",)),
              "history": record(_history),
              "averaged": record(_thetas),
              "ties": record(),
              "step": integer(0, 2 ** 62),
              "proposals": integer(1, 2 ** 62),
              "targets": text(max_len=4096),
              "rng": generator(),
              "settings": record(_settings, optional=True)}

    def validate(self, path, model, dims):
        """The chain's network: ties between the cross-section's nodes, none twice, in the
        one-transition model's sample space (read back as an (m, 2) array)."""
        chain_model = model.transition_model(model.series.waves[-1], model.formula)
        self.ties = read_ties([self.ties], chain_model, chain_model.sample_space, 1,
                              "EGMME")[0]

    def check_settings(self, settings, path):
        """Refuse to resume with settings that change the run (:data:`RUN_SETTINGS`: the
        stages and their lengths), which would return neither run's result; ``proposals``
        not given (None) takes the checkpoint's."""
        saved = getattr(self, "settings", None)
        if not saved:
            return
        changed = [f"{k}={settings[k]!r} (the checkpoint's run: {saved[k]!r})"
                   for k in RUN_SETTINGS
                   if settings.get(k) is not None and settings[k] != saved[k]]
        if changed:
            raise CheckpointError(
                f"cannot resume from {path}: the {self.what} was written by a run with other "
                f"settings: {'; '.join(changed)}; these settings decide the run's iterations "
                f"and their draws, so resume with the checkpoint's values (or leave them "
                f"out), or start a new fit from its estimate (init=...)")

    def check_targets(self, targets, path):
        """Refuse to resume with other target statistics than the run was started with."""
        if self.targets != targets:
            raise CheckpointError(
                f"cannot resume from {path}: the {self.what} fits the targets "
                f"'{self.targets}', this fit '{targets}'; resume with the same targets")
