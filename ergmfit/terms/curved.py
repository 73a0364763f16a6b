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
start (see :func:`ergmfit.terms.parameter_steps.start_values`).
"""
from __future__ import annotations

import numpy as np

from .registry import Term, TermError, as_float, as_int_list, format_number


class CurvedMap:
    """η(θ) of one curved term: θ = (weight, decay) -> η_1 … η_K."""

    decay_name = "decay"
    decay_lower = 0.0          # statnet: a "nonnegative decay parameter"
    #: the term as the user writes it with a fixed decay, with ``{decay}`` in its place,
    #: for terms whose label is not their call (see :func:`fixed_term`); None: the label
    fixed_form = None

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


def fixed_term(curve, weight_label, decay):
    """The curved term ``curve`` (weight labelled ``weight_label``) written with its decay
    fixed at ``decay``, as advice to the user: ``gwesp(0.5, fixed=TRUE)`` from the label,
    or the curve's ``fixed_form`` where the label is not the call (ergm.multi's layer
    terms: label ``gwespL.OTP(advice|friendship,friendship)``, call
    ``dgwespL(0.5, fixed=TRUE, type="OTP", L.base=~advice, Ls.path=~friendship)``).

    >>> fixed_term(GeometricWeights(3), "gwesp", 0.5)
    'gwesp(0.5, fixed=TRUE)'
    """
    text = f"{decay:.3g}" if isinstance(decay, float) else str(decay)
    if getattr(curve, "fixed_form", None) is not None:
        return curve.fixed_form.format(decay=text)
    return f"{weight_label}({text}, fixed=TRUE)"


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


class CutoffWarning(UserWarning):
    """The observed network has a count above a curved term's cut-off (see
    :func:`warn_beyond_cutoff`)."""


def _adjacency(net):
    from scipy import sparse
    t = np.asarray(net.ties, dtype=np.int64).reshape(-1, 2)
    i, j = t[:, 0], t[:, 1]
    if not net.directed:
        i, j = np.concatenate([i, j]), np.concatenate([j, i])
    return sparse.csr_matrix((np.ones(len(i), dtype=np.int64), (i, j)), shape=(net.n, net.n))


def partner_max(net, kind, sptype="OTP") -> int:
    """The largest shared-partner count of the observed network over its ties (``kind``
    "edge"), all dyads ("dyad") or the dyads without a tie ("nonedge"); on a directed
    network of the partner type ``sptype`` (OTP, ITP, RTP, OSP, ISP: see .dtriad); on a
    two-mode one, ``kind`` "b1"/"b2": the pairs of mode-1 / mode-2 nodes.  One sparse
    product (O(sum of squared degrees))."""
    A = _adjacency(net)
    if kind in ("b1", "b2"):
        n1 = int(net.bipartite)
        B = A[:n1, n1:]
        S = (B @ B.T) if kind == "b1" else (B.T @ B)
        S = S.tolil()
        S.setdiag(0)
        S = S.tocsr()
        return int(S.max()) if S.nnz else 0
    if not net.directed or sptype == "OTP":
        S = A @ A
    elif sptype == "ITP":
        S = (A @ A).T
    elif sptype == "OSP":
        S = A @ A.T
    elif sptype == "ISP":
        S = A.T @ A
    else:                                             # RTP: reciprocated two-paths
        R = A.multiply(A.T).tocsr()
        S = R @ R
    S = S.tocsr()
    if kind == "edge":
        t = np.asarray(net.ties, dtype=np.int64).reshape(-1, 2)
        return int(np.asarray(S[t[:, 0], t[:, 1]]).max()) if len(t) else 0
    S = S.tolil()
    S.setdiag(0)
    S = S.tocsr()
    if kind == "nonedge":
        S = S - S.multiply(A)
    S.eliminate_zeros()
    return int(S.max()) if S.nnz else 0


def degree_max(net, ends="all") -> int:
    """The largest degree of the observed network: ``ends`` "all", "in", "out", or "b1" /
    "b2" (the nodes of one mode of a two-mode network)."""
    t = np.asarray(net.ties, dtype=np.int64).reshape(-1, 2)
    if not len(t):
        return 0
    if ends == "in":
        d = np.bincount(t[:, 1], minlength=net.n)
    elif ends == "out":
        d = np.bincount(t[:, 0], minlength=net.n)
    else:
        d = np.bincount(t.ravel(), minlength=net.n)
        if ends in ("b1", "b2"):
            n1 = int(net.bipartite)
            d = d[:n1] if ends == "b1" else d[n1:]
    return int(d.max()) if len(d) else 0


def warn_beyond_cutoff(name, K, observed, unit, what="shared partners", fixed=False):
    """Warn (once, when the model is set up) that a ``unit`` (tie, dyad, node) of the
    observed network has ``observed`` ``what``, above the curved term's cut-off ``K``.

    The curved statistics count 1 ... K only, so a tie (pair, node) with more than K
    partners (ties) adds nothing to them: statnet 4.4 truncates the same way without a
    word; statnet >= 4.5 stops with "exceeded the cut-off" (ergm issue #485).  ergmfit
    gives 4.4's values and this warning; a larger ``cutoff`` gives 4.12's model.  Only the
    observed network is checked: the simulated ones are truncated alike, without a
    warning per network.  ``fixed``: the fixed-decay gwb1dsp/gwb2dsp, which statnet 4.4
    also truncates at ``cutoff`` and statnet >= 4.5 does not (``cutoff=Inf``)."""
    if observed > K:
        from ..utils.validation import warn       # points at the user's ERGM(...) line
        if fixed:
            warn(f"term {name}: a {unit} of the observed network has {observed} "
                 f"{what}, above the cut-off {K}: with fixed=TRUE it adds nothing, as "
                 f"statnet 4.4 computes it; statnet >= 4.5 ignores cutoff with "
                 f"fixed=TRUE (cutoff=Inf gives that value)", CutoffWarning)
            return
        warn(f"term {name}: a {unit} of the observed network has {observed} {what}, "
             f"above the cut-off {K}; the curved statistics count 1..{K} only, so those beyond "
             f"it add nothing (as statnet 4.4; statnet >= 4.5 stops: 'exceeded the "
             f"cut-off'). Give cutoff={observed} or more for the full statistic",
             CutoffWarning)


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
