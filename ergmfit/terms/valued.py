"""Valued (count) terms, ergm.count's names and labels: ``sum``, ``nonzero``, ``mutual``.

They are registered with ``state="count"``: a count-valued model
(``ERGM(g, formula, response=..., reference=...)``) looks its terms up here,
and their kernels are ``CountKernel`` s (the change of the statistics when a
dyad's value moves from one count to another).
"""
from __future__ import annotations

from ..exceptions import TermError
from .registry import COUNT_STATE, DIRECTED, Param, Term, as_float, format_number, \
    register
from ._valued import MutualMinKernel, NonzeroKernel, SumKernel


@register("sum", params=(Param("pow", 1, "power of the values"),), family="valued",
          state=COUNT_STATE)
def sum_term(net, pow):
    """Sum of the dyad values (each to the power ``pow``): ergm.count's ``sum``.

    Label ``sum``, or ``sum<pow>`` for another power (``sum0.5``), as statnet."""
    p = as_float(pow, "sum: pow")
    if p <= 0:
        raise TermError(f"sum: pow must be positive, got {pow!r}")
    label = "sum" if p == 1 else f"sum{format_number(p)}"
    return Term("sum", [label], SumKernel(p), dyad_independent=True)


@register("nonzero", family="valued", state=COUNT_STATE)
def nonzero_term(net):
    """Number of dyads with a nonzero value: ergm.count's ``nonzero``."""
    return Term("nonzero", ["nonzero"], NonzeroKernel(), dyad_independent=True)


MUTUAL_FORMS = ("min", "nabsdiff", "threshold", "product", "geometric")


@register("mutual", kinds=DIRECTED, params=(Param("form", "min", "how the two values combine"),
                                            Param("threshold", 0)),
          family="valued", state=COUNT_STATE)
def mutual_term(net, form, threshold):
    """Reciprocity of a directed valued network: with ``form="min"`` the sum over
    the dyads i < j of min(y_ij, y_ji) (label ``mutual.min``, as ergm.count)."""
    if form not in MUTUAL_FORMS:
        raise TermError(f"mutual: form must be one of {MUTUAL_FORMS}, got {form!r}")
    if form != "min":
        raise TermError(f"mutual(form={form!r}) is not available yet for count-valued models; "
                        "form='min' is")
    return Term("mutual", ["mutual.min"], MutualMinKernel())
