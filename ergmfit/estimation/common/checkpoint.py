"""The checkpoint state of an ERGM estimator: a
:class:`~ergmfit.runtime.checkpoint.CheckpointState` that also records the
model's sample space (constraints, missing dyads, offset coefficients, target
statistics: :func:`ergmfit.constraints.checkpoint_space`) and refuses to
resume a fit in another one."""
from __future__ import annotations

from ...runtime.checkpoint import CheckpointState

__all__ = ["ModelState"]


class ModelState(CheckpointState):
    """A :class:`~ergmfit.runtime.checkpoint.CheckpointState` of a fit of an
    ERGM: the coefficient labels, the formula and the sample space are
    recorded and checked when the state is read back."""

    @classmethod
    def fingerprint(cls, model):
        from ...constraints import checkpoint_space
        return {**super().fingerprint(model), "sample_space": checkpoint_space(model)}

    @classmethod
    def check_fingerprint(cls, saved, model, path):
        super().check_fingerprint(saved, model, path)
        from ...constraints import check_checkpoint_space
        space = saved.get("sample_space")
        if not isinstance(space, dict):
            from ...exceptions import CheckpointError
            raise CheckpointError(f"cannot resume from {path}: its field 'sample_space' is "
                                  f"{str(space)[:40]!r}, not a record of the sample space "
                                  f"(a damaged or tampered {cls.what})")
        check_checkpoint_space(space, model, path)
