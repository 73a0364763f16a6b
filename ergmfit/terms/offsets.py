"""Offset terms: coefficients fixed at given values (statnet's ``offset()``).

:class:`OffsetParameterisation` wraps a model's parameterisation so that an
estimator sees only the free coefficients: η(θ_free) = inner.η(θ with the
offsets put back), ∂η/∂θ_free the inner Jacobian's free columns.  It is not
``linear`` (η is affine in θ_free), so the MCMC-MLE takes its general
(curved) path, with no change to it.  An infinite offset (a structural
zero, −Inf) enters the sampler as ±1e300: a proposal that changes its
statistic is then always rejected, and 0 × 1e300 stays 0 where a toggle
does not change it (where −Inf × 0 would be NaN).

Examples
--------
>>> import numpy as np
>>> from ergmfit.terms.parameterisation import Identity
>>> par = OffsetParameterisation(Identity(["edges", "triangle"]), [True, False], [-1.5])
>>> par.eta(np.array([0.2]))
array([-1.5,  0.2])
"""
from __future__ import annotations

import numpy as np

from .parameterisation import Parameterisation

BIG = 1e300


class OffsetParameterisation(Parameterisation):
    """The free coefficients of ``inner`` (offsets at ``coef``)."""

    linear = False
    affine = True          # not curved: the MPLE folds the offsets into its design

    def __init__(self, inner, mask, coef):
        self.inner = inner
        self.mask = np.asarray(mask, dtype=bool)
        self.offset_coef = np.asarray(coef, dtype=float)      # as given (may be -Inf)
        self.coef = np.clip(self.offset_coef, -BIG, BIG)
        free = [lab for lab, o in zip(inner.param_labels, self.mask) if not o]
        super().__init__(free, inner.stat_labels)
        self.curved_terms = []

    def full(self, theta) -> np.ndarray:
        """θ with the offset coefficients put back (in the inner model's order)."""
        theta = np.asarray(theta, dtype=float)
        out = np.empty(theta.shape[:-1] + (len(self.mask),))
        out[..., self.mask] = self.coef
        out[..., ~self.mask] = theta
        return out

    def eta(self, theta) -> np.ndarray:
        return self.inner.eta(self.full(theta))

    def jacobian(self, theta) -> np.ndarray:
        return self.inner.jacobian(self.full(theta))[:, ~self.mask]

    def lower_bounds(self) -> np.ndarray:
        lb = getattr(self.inner, "lower_bounds", None)
        return (lb()[~self.mask] if lb is not None
                else np.full(int((~self.mask).sum()), -np.inf))

    def decay_indices(self) -> list:
        return []
