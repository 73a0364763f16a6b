"""The parts of a temporal formula: tergm's operators and the formulas inside them."""
from __future__ import annotations

import numpy as np

#: tergm's operators: a formula with one of them on one network is a dynamic model
OPERATORS = ("Form", "Persist", "Diss", "Cross", "Change")


def operator_formula(formula, operator) -> str:
    """The formula text inside ``operator(~...)`` of ``formula`` (the texts of several
    such operators joined with ``+``; empty when there is none)."""
    from ..formula import parse_formula
    from ..terms.offsets import split_offsets
    text, _ = split_offsets(formula)
    parts = [c.args[0].text for c in parse_formula(text) if c.name == operator and c.args]
    return " + ".join(parts)


def formation_start(model):
    """EGMME's default start: the cross-sectional MPLE of the Form() formula on the
    observed cross-section for the ``Form~`` coefficients (the equilibrium when ties
    dissolve slowly), 0 for the other free coefficients (``model.labels`` order)."""
    import warnings
    theta = np.zeros(len(model.labels))
    text = operator_formula(model.formula, "Form")
    if not text or "offset(" in text:
        return theta
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from ..model import ERGM
            fit = ERGM(model.series.waves[-1], text).fit("mple")
    except Exception:           # no usable MPLE (e.g. a separable network): start at 0
        return theta
    for lab, val in zip(fit.labels, np.asarray(fit.params, dtype=float)):
        key = f"Form~{lab}"
        if key in model.labels and np.isfinite(val):
            theta[model.labels.index(key)] = val
    return theta
