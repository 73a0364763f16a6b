"""Dyad-independent terms: edges, mutual, nodal and dyadic covariates."""
from ._dyadic import EdgesKernel
from .registry import BOTH, Term, register


@register("edges", kinds=BOTH, aliases=("Arc", "Edge"), family="dyad-independent")
def edges(net):
    """Number of ties (statnet ``edges``; EstimNet ``Arc`` / ``Edge``)."""
    return Term("edges", ["edges"], EdgesKernel(), dyad_independent=True)
