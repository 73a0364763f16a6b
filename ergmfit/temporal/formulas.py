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
    observed cross-section, shifted for the dissolution (:func:`dissolution_shift`), for the
    ``Form~`` coefficients; 0 for the other free coefficients (``model.labels`` order)."""
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
    return theta + dissolution_shift(model, theta)


def softplus(x):
    """log(1 + e^x), without overflow."""
    return np.logaddexp(0.0, x)


def persistence_coefficients(model, theta) -> dict:
    """{term label: its persistence log-odds coefficient} of the model at ``theta`` (free
    coefficients; offsets at their values): ``Persist~X`` as it is, ``Diss~X`` negated
    (tergm 4: Diss is the negated Persist)."""
    eta = np.asarray(model.parameterisation.eta(np.asarray(theta, dtype=float)), dtype=float)
    out = {}
    for lab, val in zip(model.stat_labels, eta):
        lab = str(lab)
        if lab.startswith("offset(") and lab.endswith(")"):
            lab = lab[len("offset("):-1]
        for op, sign in (("Persist~", 1.0), ("Diss~", -1.0)):
            if lab.startswith(op):
                key = lab[len(op):]
                out[key] = out.get(key, 0.0) + sign * float(val)
    return out


def dissolution_shift(model, theta) -> np.ndarray:
    """The change of the free ``Form~`` coefficients that turns a cross-sectional fit into
    the formation model of the same equilibrium (the edges-dissolution approximation of
    Carnegie et al. 2015; EpiModel's formation correction): ties of persistence log-odds c
    (mean duration D = 1 + e^c steps) form with the cross-sectional odds times
    1 / (1 + e^c) = 1 / D.  ``Form~edges`` moves by −log(1 + e^{c_edges}); a shared
    term ``Form~X`` (in the persistence formula too, e.g. ``nodematch``) by
    −(log(1 + e^{c_edges + c_X}) − log(1 + e^{c_edges})); others not at all.  For long
    durations this is EpiModel's −log(D − 1) = −c; it is exact for a dyad-independent
    model of rare ties (docs/egmme.md), and stays right for short ones (``Diss`` at log 9,
    D = 1.11: −0.11, where −log(D − 1) would be +2.2).

    Examples
    --------
    >>> import numpy as np, ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("flobusiness"), "Form(~edges) + Persist(~edges)")
    >>> np.round(dissolution_shift(m, [-2.0, np.log(9)]), 4)       # -log 10: D = 10
    array([-2.3026,  0.    ])
    """
    theta = np.asarray(theta, dtype=float)
    shift = np.zeros(len(model.labels))
    persist = persistence_coefficients(model, theta)
    c_edges = persist.get("edges", 0.0)
    base = softplus(c_edges)
    for k, lab in enumerate(model.labels):
        lab = str(lab)
        if not lab.startswith("Form~"):
            continue
        term = lab[len("Form~"):]
        if term == "edges":
            shift[k] = -base
        elif term in persist:
            shift[k] = -(softplus(c_edges + persist[term]) - base)
    return shift
