"""The staged acceptance of multi-toggle constrained moves (issue #18, session 4):
the terms whose change statistic reads no tie (edges, dyadic covariates) are
scored first and exactly, the others by delayed acceptance.  Each case mixes
both kinds, forces the staged path on (by default it is used on sparse networks
of 50 nodes or more) and checks on an enumerated space that the simulated
frequency of every network matches its ERGM probability (chi-square) and that no
draw leaves the space."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef

from support.constrained_spaces import check_space, six_node_graph


def _digraph():
    # a directed 3-cycle (0 -> 1 -> 2 -> 0) and two more ties (7 networks keep the degrees)
    dg = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 1)])
    for i in dg:
        dg.nodes[i]["s"] = "m" if i < 2 else "f"
    return dg


# (network, formula, theta, constraints, number of tie-free terms)
CASES = [
    (six_node_graph(), "edges + nodematch('g') + gwesp(0.5, fixed=TRUE)", [0.0, 0.8, 0.6], "~ degrees", 2),
    (six_node_graph(), "nodematch('g') + triangle", [-0.9, 0.7], "~ edges", 1),
    (six_node_graph(), "nodematch('g') + kstar(2)", [0.8, -0.3], "~ degreedist", 1),
    # directed swaps and 3-cycle reversals; mutual reads the reverse tie, so it is
    # scored with the dependent terms (taking triangle or kstar as tie-free instead
    # makes the cases above fail, p < 1e-200)
    (_digraph(), "nodematch('s') + mutual", [0.6, 1.5], "~ degrees", 1),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_staged_acceptance_is_exact(case):
    g, formula, theta, cons, n_free = CASES[case]
    sampler = check_space(g, formula, theta, cons, case + 31, True)
    assert sampler.tie_free_terms == n_free
    assert 0 < sampler.n_moves <= sampler.n_proposed


def test_moves_are_counted_apart_from_no_moves():
    # a degree-preserving swap on a star proposes "no move" every time (the two
    # ties drawn always share the hub)
    m = ef.ERGM(nx.star_graph(4), "edges + triangle", constraints="~ degrees")
    sampler, _ = m.sampler(np.array([0.0, 0.5]), random_state=1)
    sampler.run(np.array([0.0, 0.5]), 500)
    assert sampler.n_proposed == 500 and sampler.n_moves == 0
