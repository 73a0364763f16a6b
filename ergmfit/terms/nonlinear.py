"""Nonlinear statistics: ``Exp(~f)``, ``Log(~f, log0)`` (statnet's operators) and the
degree correlations ``degcrossprod`` and ``degcor`` (kernel:
:class:`._coreterms.TransformKernel`, which follows the running value of its inner
statistics; observed values are computed exactly as f of the inner statistics).

Not supported: ``Prod`` (statnet 4.4 prints exp(Σ log) with its own rounding, e.g.
12585.99987 for 203 × 62) and ``tripercent`` (statnet 4.4 prints it in single precision).
"""
from __future__ import annotations

import numpy as np

from ._coreterms import ENDS, FUNCS, DegreeFunctionKernel
from ._coreterms import EdgesKernel
from ._coreterms import DegreeProductKernel, TransformKernel
from .operators import _formula, build_formula, keep_curvature
from .registry import BOTH, UNDIRECTED, Param, Term, as_float, register

FAMILY = "nonlinear"
LOG0 = float(-1.0 / np.sqrt(np.finfo(float).eps))     # statnet's default log0, -2^26


def _transform(net, name, formula, func, log0=0.0):
    terms = build_formula(net, _formula(name, formula))
    inner = np.concatenate([t.on_empty() for t in terms])
    kernel = TransformKernel([t.kernel for t in terms], func,
                             np.concatenate([t.empty for t in terms]), log0)
    labels = [f"{name}~{lab}" for t in terms for lab in t.labels]
    # the kernel gives its exact value at the top level (empty 0 there); nested in another
    # term the value on the empty graph is f(inner's)
    with np.errstate(divide="ignore", over="ignore"):
        true = np.exp(inner) if func == "exp" else \
            np.where(inner > 0, np.log(np.where(inner > 0, inner, 1.0)), log0)
    term = Term(name, labels, kernel, empty=np.zeros(len(labels)), true_empty=true,
                parts=(terms, None, (func,) if func == "exp" else (func, log0)))
    # statnet wraps the inner model (wrap.ergm_model): curved terms keep their parameters,
    # their map η(θ) over the transformed statistics
    return keep_curvature(name, term, terms, lambda labs: [f"{name}~{lab}" for lab in labs])


@register("Exp", kinds=BOTH, params=[Param("formula")], family=FAMILY)
def exp_operator(net, formula):
    """exp of each statistic of ``formula`` (labels ``Exp~<label>``)."""
    return _transform(net, "Exp", formula, "exp")


@register("Log", kinds=BOTH, params=[Param("formula"), Param("log0", LOG0)], family=FAMILY)
def log_operator(net, formula, log0=LOG0):
    """log of each statistic of ``formula``, ``log0`` where it is 0 or negative (statnet's
    default −1/√ε); labels ``Log~<label>``."""
    return _transform(net, "Log", formula, "log", as_float(log0, "term Log: log0"))


@register("degcrossprod", kinds=UNDIRECTED, family=FAMILY)
def degcrossprod(net):
    """Σ_{ties i–j} d_i d_j / (2 · ties), as statnet 4.4 computes ``degcrossprod`` (half the
    mean over ties of the product of the two ends' degrees; 0 without ties)."""
    kernel = TransformKernel([DegreeProductKernel(), EdgesKernel()], "ratio", [0.0, 0.0],
                             0.0, 1)
    return Term("degcrossprod", ["degcrossprod"], kernel)


@register("degcor", kinds=UNDIRECTED, family=FAMILY)
def degcor(net):
    """Correlation of the degrees at the two ends of the ties (each tie in both
    orientations; label ``degcor``)."""
    code = np.zeros(net.n, dtype=np.intc)
    powers = DegreeFunctionKernel(code, [-1, -1], [FUNCS["pow"], FUNCS["pow"]], [2.0, 3.0],
                                  [0.0, 0.0], ENDS["both"])
    kernel = TransformKernel([DegreeProductKernel(), powers, EdgesKernel()], "degcor",
                             [0.0, 0.0, 0.0, 0.0], 0.0, 1)
    return Term("degcor", ["degcor"], kernel)
