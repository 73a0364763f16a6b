"""``a:b`` (and ``a*b``): interactions of dyad-independent terms, as statnet's formula
operators define them.  Set as :data:`.registry.INTERACTION`, the builder the formula
reader calls for ``:`` (the registry never imports a family)."""
from . import registry
from ._operators import ProductKernel
from .registry import Term, build_term
from ..exceptions import TermError
from ..utils.validation import warn


def interaction(net, left, right):
    """``a:b`` of two dyad-independent terms: one statistic per pair of their statistics,
    Σ_{ties} a_ij b_ij (labels ``<a>:<b>``, a's statistic varying fastest)."""
    ta = left if isinstance(left, Term) else _call(net, left)
    tb = right if isinstance(right, Term) else _call(net, right)
    for t in (ta, tb):
        if getattr(t, "curve", None) is not None or getattr(t, "curve_map", None) is not None:
            # statnet: "Interactions are undefined for curved terms at this time."
            raise TermError(f"interactions (':' and '*') are undefined for curved terms "
                            f"(statnet's rule): {t.name} is curved; use its fixed-decay "
                            "form (fixed=TRUE) or a linear term")
    for t in (ta, tb):
        if getattr(t, "fixed", None) is not None:
            # statnet keeps the statistics and warns that offsets are not propagated
            warn(f"interactions (':' and '*') do not propagate Offset(): the "
                 f"interaction of {t.name}() has a free coefficient")
    if not (ta.dyad_independent and tb.dyad_independent):
        raise TermError(f"interactions (':' and '*') need dyad-independent terms; "
                        f"{ta.name if not ta.dyad_independent else tb.name} is not")
    _check_overlap(ta, tb)
    labels = [f"{a}:{b}" for b in tb.labels for a in ta.labels]
    return Term(":", labels, ProductKernel(ta.kernel, tb.kernel), dyad_independent=True)


def _check_overlap(ta, tb):
    # terms declaring on which dyads (by the previous wave's state) they can change: the
    # product of change statistics of two terms changing on disjoint dyads is always zero
    on_a, on_b = (getattr(t, "changes_on_previous", None) for t in (ta, tb))
    if on_a is None or on_b is None or on_a == on_b:
        return
    state = {False: "absent from", True: "present in"}
    raise TermError(f"{ta.name}():{tb.name}() is zero on every network: "
                    f"{ta.name}() changes only on dyads {state[on_a]} the previous wave, "
                    f"{tb.name}() only on dyads {state[on_b]} it, so its coefficient does not "
                    f"exist; write {ta.name}(~...) + {tb.name}(~...), or interact terms inside "
                    f"one operator ({ta.name}(~a:b))")


def _call(net, call):
    if call.name == ":":
        return interaction(net, *call.args)
    return build_term(net, call.name, call.args, call.kwargs)


registry.INTERACTION = interaction
