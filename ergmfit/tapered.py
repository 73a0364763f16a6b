"""Tapered ERGMs (Fellows & Handcock 2017; Blackburn & Handcock's ``ergm.tapered``).

``TaperedERGM(g, formula, r=2)`` (or ``ERGM(g, formula, tapered=True, r=2)``) is the ERGM of
``formula`` with the tapering penalty −Σ_k τ_k (g_k(y) − m_k)² in its log-density (see
:mod:`ergmfit.terms.tapering`): a model whose terms are those of ``formula`` plus
``Offset(~Taper(~formula), 1)``.  The penalty is a term of the model like any other, so
``simulate``, ``gof`` and every estimator working through the model get the tapered model
without knowing it; its coefficient is fixed, so the coefficients are those of ``formula``
(``ergm.tapered``'s labels).  ``statistics()`` gives the formula's statistics; the penalty's
value is in ``statistics_vector()`` (its last entry, ``offset(Taper_Penalty)``, 0 at the
observed network), not in ``simulate(output="stats")``, whose columns are ``labels``.  A saved
fit keeps τ, the centres and r, and reloads tapered.

``fit(method="mple")`` is ``ergm.tapered``'s ``estimate="MPLE"``: the pseudo-likelihood of the
tapered model (the penalty's change enters each dyad's log-odds as an offset).
"""
from __future__ import annotations

import copy

import numpy as np

from .terms.tapering import LABEL, default_tau, fixed_penalty, statistic_vector, taper_term


class TaperingMixin:
    """What makes :class:`ergmfit.model.TaperedERGM` tapered (the class itself is in
    :mod:`ergmfit.model`, beside :class:`ERGM`, so that the two modules import one way).

    A tapered ERGM: ``formula``'s ERGM with the penalty −Σ_k τ_k (g_k(y) − m_k)².

    Parameters
    ----------
    network, formula
        As :class:`ERGM` (every other :class:`ERGM` keyword is accepted too).
    r : float
        The tapering scale (``ergm.tapered``'s ``r``, default 2): τ_k = 1/(r² m_k).
    tau : float or sequence, optional
        The tapering coefficients, one per statistic (overrides ``r``).
    centers : sequence, optional
        The centres m (``ergm.tapered``'s ``tapering.centers``); default the observed
        statistics.

    Attributes
    ----------
    tau, centers : ndarray
        The tapering coefficients and centres, one per statistic of ``formula``.

    References
    ----------
    Fellows & Handcock (2017), Removing phase transitions from Gibbs measures, AISTATS.
    Blackburn & Handcock (2023), Practical network modeling via tapered ERGMs, JCGS.

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("lazega"), "edges + kstar(2) + triangle", tapered=True)
    >>> m.labels
    ['edges', 'kstar2', 'triangle']
    >>> [round(float(v), 4) for v in m.fit(method="mple").params]
    [-2.8669, 0.0056, 0.6655]
    """

    def __init__(self, network, formula, tapered=True, r=2.0, tau=None, centers=None,
                 **kwargs):
        super().__init__(network, formula, **kwargs)
        base = copy.copy(self)                      # the formula's model, before the penalty
        observed = base.statistics_vector()
        self.centers = observed if centers is None else statistic_vector(
            centers, len(observed), "m")
        self.tau = default_tau(self.centers, r) if tau is None else tau
        penalty = taper_term(base.terms, self.tau, self.centers)
        self.tau = penalty.args["tau"]
        self.centers = penalty.args["centers"]
        self.r = float(r)
        self.terms = list(self.terms) + [fixed_penalty(penalty)]
        self._term_offset = list(self._term_offset) + [False]
        self._empty = np.concatenate([t.empty for t in self.terms])
        self._set_structure()

    def statistics(self) -> dict:
        """The observed statistics of ``formula`` (statnet's labels; the penalty left out)."""
        return {k: v for k, v in super().statistics().items()
                if k not in (LABEL, f"offset({LABEL})")}

    def saved_spec(self) -> dict:
        """:meth:`ERGM.saved_spec` and the tapering (τ, centres, r): a results file
        rebuilds the tapered model (:func:`ergmfit.model.rebuild_from_info`)."""
        out = super().saved_spec()
        out["tapering"] = {"tau": [float(v) for v in self.tau],
                           "centers": [float(v) for v in self.centers], "r": self.r}
        return out

    def simulate(self, params, *args, **kwargs):
        """:meth:`ERGM.simulate` of the tapered model; ``output="stats"`` has the columns of
        ``labels`` (the formula's statistics, as :meth:`statistics`): the penalty, whose
        coefficient is fixed at 1, is not one of them (``ergm.tapered``'s coefficients are
        the formula's)."""
        out = super().simulate(params, *args, **kwargs)
        if isinstance(out, np.ndarray) and out.ndim == 2 \
                and out.shape[1] == len(self.stat_labels):
            return out[:, :-1]          # (a nested call -- constraints -- dropped it already)
        return out

    def __reduce__(self):
        # kernels are compiled objects: rebuilt from the network, formula and tapering
        _, _, state = super().__reduce__()
        return (rebuild_tapered, (type(self), self.network, self.formula, self.tau,
                                  self.centers, self.r, self.constraints, self._missing), state)

    def __repr__(self):
        return f"TaperedERGM({self.formula!r}, r={self.r:g})"


def rebuild_tapered(cls, network, formula, tau, centers, r, constraints=None, missing=None):
    """The tapered model ``cls`` again (what unpickling a :class:`TaperingMixin` model calls)."""
    from .formula import formula_rhs
    m = cls(network, formula_rhs(formula, None), tau=tau, centers=centers, r=r)
    if constraints is not None or missing is not None:
        m.constraints, m._missing = constraints, missing
        m._set_structure()
    return m
