"""The tapering penalty of a tapered ERGM (Fellows & Handcock 2017; Blackburn & Handcock's
``ergm.tapered``).

A tapered ERGM has the log-density

    θ·g(y) − Σ_k τ_k (g_k(y) − m_k)²  − log κ(θ, τ),

the ERGM with a quadratic penalty on the distance of the statistics from their centres m
(the observed statistics by default).  The penalty is one statistic of the network,

    Taper(~f, coef=τ, m=m) = −Σ_k τ_k (g_k(y) − m_k)²     (label ``Taper_Penalty``),

with a fixed coefficient 1: a tapered model is the ERGM plus ``Offset(~Taper(...), 1)``.
Its kernel is :class:`._coreterms.TransformKernel` with the function ``"taper"`` (it follows
the running value S of the inner statistics and gives the change of −Σ τ (S − m)²), so the
sampler, the pseudo-likelihood and every estimator that works through the model see it as
any other term.

``default_tau(observed, r)`` is ``ergm.tapered``'s default scale τ_k = 1/(r² g_k(y_obs)): it
reproduces the tapered MPLE ``ergm.tapered`` prints for Lazega's ``edges + kstar(2) +
triangle`` (see tests/terms/test_tapering.py).

References
----------
Fellows, I. and Handcock, M. S. (2017). Removing phase transitions from Gibbs measures.
AISTATS, PMLR 54: 289-297.
Blackburn, B. and Handcock, M. S. (2023). Practical network modeling via tapered
exponential-family random graph models. J. Comput. Graph. Statist. 32(2): 388-401.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import TermError
from ._coreterms import TransformKernel
from .operators import _formula, build_formula
from .registry import BOTH, Param, Term, register
from .stacking import stack

FAMILY = "nonlinear"
LABEL = "Taper_Penalty"


def default_tau(observed, r=2.0) -> np.ndarray:
    """``ergm.tapered``'s default tapering coefficients τ_k = 1/(r² |g_k(y_obs)|).

    A statistic observed at 0 has no scale of its own: ergmfit takes 1 there
    (τ_k = 1/r²), a choice of its own (``ergm.tapered``'s documentation does not say).

    Parameters
    ----------
    observed : array_like
        The observed statistics (the tapering centres).
    r : float
        The tapering scale (``ergm.tapered``'s ``r``, default 2): a larger ``r`` tapers less.

    Examples
    --------
    >>> default_tau([115.0, 926.0, 120.0], r=2).round(6).tolist()
    [0.002174, 0.00027, 0.002083]
    """
    if isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, float, np.integer,
                                                                np.floating)) \
            or not np.isfinite(r) or r <= 0:
        raise TermError(f"the tapering scale r must be a positive number, got {r!r}")
    r = float(r)
    g = np.abs(np.asarray(observed, dtype=float))
    if not np.isfinite(g).all():
        raise TermError("the tapering centres must be finite")
    return 1.0 / (r * r * np.where(g > 0, g, 1.0))


def statistic_vector(value, n, what):
    """``value`` (a number, recycled, or ``n`` numbers) as ``n`` finite floats; the error
    names the Taper argument ``what``."""
    vals = value if isinstance(value, (list, tuple, np.ndarray)) else [value]
    if not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
               for v in vals):
        raise TermError(f"term Taper: {what} must be a number or a vector of numbers, "
                        f"got {value!r}")
    arr = np.asarray(vals, dtype=float)
    if arr.size == 1:
        arr = np.full(n, arr[0])
    if arr.shape != (n,) or not np.isfinite(arr).all():
        raise TermError(f"term Taper: {what} needs 1 or {n} finite value(s) (one per statistic "
                        f"of the formula), got {value!r}")
    return arr


def taper_term(terms, tau, centers) -> Term:
    """The penalty −Σ τ_k (g_k − m_k)² over the statistics of ``terms`` (one Term, label
    ``Taper_Penalty``; the terms' kernels become the kernel's inner statistics)."""
    q = sum(len(t.labels) for t in terms)
    tau = statistic_vector(tau, q, "coef")
    centers = statistic_vector(centers, q, "m")
    if (tau < 0).any():
        raise TermError(f"term Taper: the coefficients must be >= 0, got {tau.tolist()}")
    empty = np.concatenate([t.on_empty() for t in terms])
    kernel = TransformKernel([t.kernel for t in terms], "taper", empty, 0.0, 1,
                             np.vstack([tau, centers]))
    true = np.array([-np.sum(tau * (empty - centers) ** 2)])
    term = Term("Taper", [LABEL], kernel, empty=np.zeros(1), true_empty=true)
    term.args = {"tau": tau, "centers": centers}
    return term


def fixed_penalty(term) -> Term:
    """``term`` as ``Offset(~Taper(...), coef=1)``: a statistic whose coefficient is 1 and
    not estimated (the model's coefficients are the others)."""
    out = stack("Offset", [term])
    out.param_labels = []
    out.fixed = ([term], np.array([True]), [1.0])
    out.args = dict(term.args)
    return out


def observed_statistics(net, terms) -> np.ndarray:
    """The statistics of ``terms`` on the network ``net`` (accumulated from the empty graph,
    as the model's)."""
    from ._ergm import ERGMModel
    from ..network import NetworkState
    model = ERGMModel(NetworkState(net.n, net.directed), [t.kernel for t in terms])
    empty = np.concatenate([t.empty for t in terms])
    return empty + model.add_ties_accumulate(np.ascontiguousarray(net.ties, dtype=np.int64))


@register("Taper", kinds=BOTH, params=[Param("formula"), Param("coef", None), Param("m", None),
                                       Param("r", 2.0)], family=FAMILY)
def taper(net, formula, coef=None, m=None, r=2.0):
    """``ergm.tapered``'s tapering penalty −Σ_k coef_k (g_k(y) − m_k)² over the statistics of
    ``formula`` (one statistic, label ``Taper_Penalty``); ``m`` defaults to the observed
    statistics and ``coef`` to 1/(r² m_k).  Used as an offset with coefficient 1
    (``Offset(~Taper(~edges + triangle), 1)``), it makes the model tapered."""
    terms = build_formula(net, _formula("Taper", formula))
    centers = observed_statistics(net, terms) if m is None else m
    if isinstance(r, bool) or not isinstance(r, (int, float)):
        raise TermError(f"term Taper: r must be a positive number, got {r!r}")
    tau = default_tau(centers if m is None else statistic_vector(m, len(
        [lab for t in terms for lab in t.labels]), "m"), r) if coef is None else coef
    return taper_term(terms, tau, centers)
