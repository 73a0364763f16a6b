"""Curved terms: statnet's ``gwesp(fixed=FALSE)`` and its kin (Hunter & Handcock 2006).

A curved term has two parameters θ = (weight, decay) and a vector of
canonical statistics g_1 … g_K, the shared-partner or degree counts that
statnet's ``summary()`` prints (``esp#1 … esp#30``, ``gwdegree#1 …``).  Its
natural parameters are

    gw* terms (Hunter 2007):   η_k = w e^α {1 − (1 − e^{−α})^k},        k = 1 … K
    altkstar (Snijders 2006):  η_k = w λ² {(1 − 1/λ)^k − 1 + k/λ},      k = 1 … K

so that η·g is the fixed-decay statistic (``gwesp(α, fixed=TRUE)``,
``altkstar(λ, fixed=TRUE)``) with every count above K left out.  The value
of the statistic at a given decay is therefore ``gwesp(α, fixed=TRUE)``
itself, or ``model.eta(θ) @ model.statistics_vector()`` for a fitted θ.

K follows statnet: ``cutoff`` (default 30) but at most n − 2 for shared
partners and n − 1 for degrees; ``altkstar`` uses every degree 1 … n − 1.
A ``decay`` given with ``fixed=FALSE`` is the starting value of the decay
(statnet ignores it with a warning); without it the estimators choose the
start (see :func:`ergmfit.estimation.curved.start_values`).
"""
from __future__ import annotations

import numpy as np

from .registry import Term, TermError, as_float, as_int_list, format_number


class CurvedMap:
    """η(θ) of one curved term: θ = (weight, decay) -> η_1 … η_K."""

    decay_name = "decay"
    decay_lower = 0.0          # statnet: a "nonnegative decay parameter"

    def __init__(self, K: int):
        self.K = int(K)
        self.k = np.arange(1, self.K + 1, dtype=float)

    def eta(self, theta) -> np.ndarray:
        raise NotImplementedError

    def jacobian(self, theta) -> np.ndarray:
        """(K, 2): ∂η/∂weight, ∂η/∂decay."""
        raise NotImplementedError

    def check_decay(self, value) -> float:
        return float(value)


STABLE_FROM = 3.0      # GeometricWeights: above this decay, the cancellation-free form


class GeometricWeights(CurvedMap):
    """η_k = w e^α (1 − (1 − e^{−α})^k): gwesp, gwdsp, gwnsp, gwdegree and their forms.

    e^α (1 − r^k), r = 1 − e^{−α}, is computed as −expm1(k log1p(−u)) / u with
    u = e^{−α} above α = ``STABLE_FROM``: finite for every α (it tends to k as
    α → ∞, where the plain form loses digits, e.g. 2e-4 at α = 30, then overflows:
    e^α = inf times 1 − r^k = 0 gave NaN once α > 709)."""

    def _base(self, a):
        k = self.k
        if not a > STABLE_FROM:               # the plain form: accurate to ~1e-15 here
            with np.errstate(all="ignore"):
                r = -np.expm1(-a)
                return np.exp(a) * (1.0 - r ** k), r
        u = np.exp(-a)                        # in (0, 1); 0 once α > 745
        if u == 0.0:
            return k.copy(), 1.0
        with np.errstate(all="ignore"):
            base = -np.expm1(k * np.log1p(-u)) / u
        return base, -np.expm1(-a)

    def eta(self, theta):
        w, a = float(theta[0]), float(theta[1])
        return w * self._base(a)[0]

    def jacobian(self, theta):
        w, a = float(theta[0]), float(theta[1])
        base, r = self._base(a)
        with np.errstate(all="ignore"):
            dbase = base - self.k * r ** (self.k - 1.0)
        return np.column_stack([base, w * dbase])


class AlternatingStars(CurvedMap):
    """η_k = w λ² ((1 − 1/λ)^k − 1 + k/λ): altkstar with λ estimated.

    Near λ = 0 the powers (1 − 1/λ)^k overflow: η is then ±inf (a value the
    estimators reject, stepping back), never a floating-point warning."""

    decay_name = "lambda"
    decay_lower = 1e-6         # λ > 0

    def eta(self, theta):
        w, lam = float(theta[0]), float(theta[1])
        with np.errstate(all="ignore"):
            q = 1.0 - 1.0 / lam
            return w * lam * lam * (q ** self.k - 1.0 + self.k / lam)

    def jacobian(self, theta):
        w, lam = float(theta[0]), float(theta[1])
        with np.errstate(all="ignore"):
            q = 1.0 - 1.0 / lam
            base = lam * lam * (q ** self.k - 1.0 + self.k / lam)
            # d/dλ [λ² (q^k − 1 + k/λ)] with dq/dλ = 1/λ²
            dbase = 2.0 * lam * (q ** self.k - 1.0 + self.k / lam) \
                + self.k * q ** (self.k - 1.0) - self.k
        return np.column_stack([base, w * dbase])


def curve_length(name, cutoff, limit) -> int:
    """K = min(cutoff, limit) as statnet computes it (limit: n − 2 or n − 1)."""
    cut = as_int_list(cutoff, what=f"term {name}: cutoff", minimum=1)
    if len(cut) != 1:
        raise TermError(f"term {name}: cutoff must be a single integer, got {cutoff!r}")
    K = min(cut[0], int(limit))
    if K < 1:
        raise TermError(f"term {name}: the curved form needs at least one count, but the "
                        f"network has too few nodes (K = min(cutoff, {limit}) = {K})")
    return K


def start_decay(name, decay, minimum=0.0, what="decay", strict=False):
    """The starting decay of a curved term: the ``decay`` given, or None (estimator's choice)."""
    if decay is None:
        return None
    d = as_float(decay, f"term {name}: {what}")
    if (strict and not d > minimum) or d < minimum:
        raise TermError(f"term {name}: {what} must be {'greater than' if strict else 'at least'}"
                        f" {format_number(minimum)}, got {format_number(d)}")
    return d


def make_curved(name, counts: Term, stat_labels, param_labels, curve: CurvedMap, init_decay):
    """The curved form of ``name`` from the term of its canonical ``counts``."""
    if len(stat_labels) != curve.K or counts.kernel.n_stats != curve.K:
        raise AssertionError(f"term {name}: {curve.K} counts expected")
    term = Term(name, list(stat_labels), counts.kernel, empty=counts.empty,
                dyad_independent=counts.dyad_independent)
    term.param_labels = list(param_labels)
    term.curve = curve
    term.init_decay = init_decay
    return term
