"""Does the maximum pseudo-likelihood estimate exist?  The separation check shared by the
binary MPLE (:mod:`.pseudolikelihood`: ties against non-ties) and the count MPLE
(:mod:`ergmfit.estimation.mple.count`: each dyad's observed value against its other values),
and its message.

The log pseudo-likelihood keeps increasing along a direction d exactly when d . z >= 0 for
every row z of its design oriented to the observed side (binary: a tie's change statistic,
minus a non-tie's; counts: Δ_v(y_v) − Δ_v(k) for every other value k), with > 0 for some
(perfect or quasi-complete separation); one linear program finds such a d or shows there is
none.
"""
from __future__ import annotations

import numpy as np
from scipy import optimize

from ...exceptions import DegenerateModelError


def _names(labels, term_of):
    def name(k):
        lab = labels[k]
        if list(labels).count(lab) > 1:        # a repeated label: say which one
            return f"'{lab}' (statistic {k + 1} of the model)"
        t = term_of.get(lab) if term_of else None
        return f"'{lab}'" + (f" (term {t})" if t and t != lab else "")
    return name


def _term_map(model) -> dict:
    out = {}
    for t in getattr(model, "terms", ()) or ():
        for lab in getattr(t, "labels", ()):
            out[lab] = getattr(t, "name", None)
    return out


def _separation_direction(Z, n, s):
    """A direction d (scaled columns) along which the pseudo-likelihood rises
    without bound, or None when the MPLE exists (a linear program)."""
    # s sums the weights of the ties alone: it is 0 exactly when a row has none
    # (a relative tolerance called a row of 5e13 dyads with 2 ties tie-free);
    # n - s is a difference, exact up to the rounding of n
    pos = s > 0.0
    neg = (n - s) > 4.0 * np.finfo(float).eps * n
    p = Z.shape[1]
    A = np.vstack([-Z[pos], Z[neg]])
    c = -(Z[pos].sum(axis=0) - Z[neg].sum(axis=0))
    res = optimize.linprog(c, A_ub=A, b_ub=np.zeros(len(A)), bounds=[(-1.0, 1.0)] * p,
                           method="highs")
    if res.status != 0 or -res.fun <= 1e-7:
        return None
    d = np.asarray(res.x)
    d[np.abs(d) < 1e-7] = 0.0
    if not np.any(d):
        return None
    return d


def separation_message(d, labels, name_of=None,
                       separated="the observed ties from the non-ties"):
    """Why the maximum pseudo-likelihood estimate does not exist, for the direction ``d``
    (:func:`_separation_direction`) over the statistics ``labels``; ``name_of(k)`` names
    statistic k (default its quoted label), ``separated`` says what the change statistics
    separate (binary: ties from non-ties; counts: each dyad's observed value from its
    other values)."""
    name_of = name_of or (lambda k: f"'{labels[k]}'")
    sup = np.flatnonzero(d)
    if len(sup) == 1:
        what = f"{name_of(sup[0])} -> {'+Inf' if d[sup[0]] > 0 else '-Inf'}"
    else:
        parts = " + ".join(f"{d[k]:.3g}*{labels[k]}" for k in sup)
        what = (f"the combination {parts} -> +Inf (statistics "
                f"{', '.join(name_of(k) for k in sup)})")
    return (f"the maximum pseudo-likelihood estimate does not exist: the pseudo-likelihood "
            f"keeps increasing as {what}, i.e. the change statistics separate {separated} "
            f"(perfect or quasi-complete separation; e.g. an observed statistic at its "
            f"smallest or largest attainable value).")


def separation_error(msg, single, warn_option=True):
    """The DegenerateModelError of :func:`separation_message`'s ``msg``: remove the terms
    (or, for a single statistic with ``warn_option``, fix it at +/-Inf with
    ``separation='warn'``)."""
    return DegenerateModelError(
        msg + " Remove the term(s) from the formula"
        + (", or pass separation='warn' to fix the coefficient at +/-Inf as statnet does."
           if single and warn_option else "."))
