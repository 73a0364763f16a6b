"""Where the density statistic and its coefficient sit in a model: what EE, CD and the
other estimators that treat the density term apart look up (a module of its own, so that
an estimator asks without importing another's; an EE fit imports no CD code).

Examples
--------
>>> import ergmfit as ef
>>> from ergmfit.estimation.common.density import density_index, statistic_parameter
>>> m = ef.ERGM(ef.datasets.load("flomarriage"), "triangle + edges")
>>> density_index(m), statistic_parameter(m, density_index(m))
(1, 1)
"""
from __future__ import annotations


def density_index(model):
    """Index of the density statistic (``edges``/``Arc``: change statistic 1 for
    every variable), or None.

    A model spec may say so itself with a ``density_index`` attribute (the MRF
    models do); for an ERGM it is the ``edges`` term.
    """
    idx = getattr(model, "density_index", None)
    if idx is not None:
        return int(idx)
    terms = getattr(model, "terms", None)
    if terms is None:
        return None
    off = 0
    for t in terms:
        if getattr(t, "name", None) == "edges" and len(t.labels) == 1:
            return off
        off += len(t.labels)
    return None


def statistic_parameter(model, s):
    """Position in θ of the coefficient of the statistic at ``s`` (the first statistic
    of a term with one coefficient, as ``edges``), None when ``s`` is None or an offset
    fixes it; a model spec without terms (an MRF) has θ in its statistics' order."""
    if s is None or getattr(model, "terms", None) is None:
        return s
    off_s = off_t = 0
    for t in model.terms:
        if off_s == s:
            return model.parameterisation.free_position(off_t)
        off_s += len(t.labels)
        off_t += len(t.param_labels)      # a term's coefficients (curved, operator-wrapped)
    return None
