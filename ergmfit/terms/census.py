"""Triad census terms (statnet ``ergm`` 4.4): ``triadcensus``, ``balance``, ``simmelian``,
``nearsimmelian``, ``intransitive``, all counts of triads by type (kernel:
:class:`._coreterms.TriadCensusKernel`, O(n) per change as statnet's).

Directed triad types in statnet's order: 003, 012, 102, 021D, 021U, 021C, 111D, 111U,
030T, 030C, 201, 120D, 120U, 120C, 210, 300 (Holland & Leinhardt's MAN labels).
Undirected types: the number of ties among the three nodes, 0..3.
"""
from __future__ import annotations

import math

import numpy as np

from ..exceptions import TermError
from ._coreterms import TriadCensusKernel
from .registry import BOTH, DIRECTED, Param, Term, register

FAMILY = "triad census"
DIRECTED_TYPES = ("003", "012", "102", "021D", "021U", "021C", "111D", "111U", "030T", "030C",
                  "201", "120D", "120U", "120C", "210", "300")
# Batagelj & Mrvar's code -> type index (1-based, as networkx's TRICODES)
_TRICODES = (1, 2, 2, 3, 2, 4, 6, 8, 2, 6, 5, 7, 3, 8, 7, 11, 2, 6, 4, 8, 5, 9, 9, 13, 6, 10,
             9, 14, 7, 14, 12, 15, 2, 5, 6, 7, 6, 9, 10, 14, 4, 9, 9, 12, 8, 13, 14, 15, 3, 7,
             8, 11, 7, 12, 14, 15, 8, 14, 13, 15, 11, 15, 15, 16)


def _type_of_code(directed):
    if directed:
        return [t - 1 for t in _TRICODES]
    # undirected: the code uses bits 1, 4, 16 (x_ij, x_ik, x_jk); the type is their number
    return [bin(c & 0b010101).count("1") for c in range(64)]


def census_term(net, name, groups, labels):
    """A term whose statistic g counts the triads whose type is in ``groups[g]``."""
    types = _type_of_code(net.directed)
    stat_of_type = {}
    for g, grp in enumerate(groups):
        for t in grp:
            stat_of_type[t] = g
    table = np.array([stat_of_type.get(t, -1) for t in types], dtype=np.intc)
    empty = [float(math.comb(net.n, 3)) if 0 in grp else 0.0 for grp in groups]
    return Term(name, labels, TriadCensusKernel(table, len(groups)), empty=empty)


@register("triadcensus", kinds=BOTH, params=[Param("levels", None)], family=FAMILY)
def triadcensus(net, levels=None):
    """Triad census: the number of triads of each type (labels ``triadcensus.<type>``).
    Default: every type but the empty one (directed 012..300, undirected 1..3); ``levels``:
    type indices 0..15 (0..3 undirected) or directed type names (``c("021D", "300")``)."""
    names = DIRECTED_TYPES if net.directed else ("0", "1", "2", "3")
    if levels is None:
        chosen = list(range(1, len(names)))
    else:
        items = levels if isinstance(levels, list) else [levels]
        chosen = []
        for v in items:
            if isinstance(v, str) and v in names:
                chosen.append(names.index(v))
            elif isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(names):
                chosen.append(v)
            else:
                raise TermError(f"term triadcensus: unknown triad type {v!r}; the types are "
                                f"{', '.join(names)} (or their indices 0..{len(names) - 1})")
    return census_term(net, "triadcensus", [[t] for t in chosen],
                       [f"triadcensus.{names[t]}" for t in chosen])


@register("balance", kinds=BOTH, family=FAMILY)
def balance(net):
    """Balanced triads: directed types 102 and 300; undirected, triads with one or three
    ties (label ``balance``)."""
    grp = [2, 15] if net.directed else [1, 3]
    return census_term(net, "balance", [grp], ["balance"])


@register("simmelian", kinds=DIRECTED, family=FAMILY)
def simmelian(net):
    """Simmelian triads: three mutual dyads (type 300; label ``simmelian``)."""
    return census_term(net, "simmelian", [[15]], ["simmelian"])


@register("nearsimmelian", kinds=DIRECTED, family=FAMILY)
def nearsimmelian(net):
    """Near-simmelian triads: type 210, two mutual dyads and one asymmetric
    (label ``nearsimmelian``)."""
    return census_term(net, "nearsimmelian", [[14]], ["nearsimmelian"])


@register("intransitive", kinds=DIRECTED, family=FAMILY)
def intransitive(net):
    """Intransitive two-paths, as statnet 4.4 computes ``intransitive``: the ordered triples
    a→b→c without a→c (label ``intransitive``).  statnet's help page describes the count of
    triads of types 111D, 201, 111U, 021C and 030C; its code (and ergmfit) counts two-paths.
    Kernel: :class:`._coreterms.AttrDyadTriadKernel`, O(degree)."""
    from ._coreterms import AttrDyadTriadKernel
    return Term("intransitive", ["intransitive"],
                AttrDyadTriadKernel(np.zeros(net.n, dtype=np.intc), 1, "intransitive"))
