"""Two exact shortcuts of the constrained sampler's multi-toggle moves (issue #18,
session 5):

* gwesp scored in one pass with no toggle applied (undirected models whose only
  terms that read ties are gwesp; moves of two toggles without delayed
  acceptance): the change of every tie whose shared-partner count moves,
  instead of toggling, scoring and undoing toggle by toggle;
* with delayed acceptance, a move none of whose toggles has ends with a common
  neighbour (nor can get one as the others are applied) has exact change 0:
  its stage 3 would accept, and is skipped;
* degreedist's neighbourhood exchange of two nodes is a relabelling of the
  network, so it leaves every term that reads no node label (gwesp, kstar,
  triangle, degree counts...) unchanged: only the tie-free terms are scored.

Both are checked on enumerated spaces (chi-square of every network's frequency
against its ERGM probability; no draw leaves the space), and the one-pass change
against the statistics of the networks before and after random toggle sets."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef

from support.constrained_spaces import check_space, six_node_graph


def test_one_pass_gwesp_change_equals_the_statistics_difference():
    rng = np.random.default_rng(0)
    g = nx.gnm_random_graph(12, 26, seed=3)
    m = ef.ERGM(g, "edges + gwesp(0.7, fixed=TRUE) + gwesp(0, fixed=TRUE)",
                constraints="~ degrees")
    theta = np.zeros(3)
    sampler, cm = m.sampler(theta, random_state=1)
    assert sampler.one_pass and sampler.dep_invariant
    checked = 0
    for _ in range(400):
        cur = set(map(tuple, np.sort(cm.state.ties(), axis=1)))
        # up to six toggles among a few nodes, so that they share ends and partners
        nodes = rng.choice(12, size=rng.integers(2, 6), replace=False)
        k = min(int(rng.integers(1, 7)), len(nodes) * (len(nodes) - 1) // 2)
        tog = set()
        while len(tog) < k:
            a, b = sorted(rng.choice(nodes, 2, replace=False))
            tog.add((int(a), int(b)))
        change = sampler._dependent_change(sorted(tog))
        new = np.array(sorted(cur ^ tog), dtype=np.int64).reshape(-1, 2)
        diff = m.statistics_vector(new) - m.statistics_vector(np.array(sorted(cur)))
        np.testing.assert_allclose(change, diff[1:], atol=1e-9)
        checked += diff[1] != 0
        sampler.run(theta, 40)
    assert checked > 50


# (network, formula, theta, constraints, delayed)
CASES = [
    # delayed acceptance off: swaps (toggle by toggle), tie-for-non-tie moves (one pass)
    (six_node_graph(), "edges + nodematch('g') + gwesp(0.5, fixed=TRUE)", [0.0, 0.8, 0.6], "~ degrees", False),
    (six_node_graph(), "nodematch('g') + gwesp(0.3, fixed=TRUE)", [-0.7, 0.9], "~ edges", False),
    # delayed acceptance on: stage 3 skipped when the toggles share no partner
    # (swaps: stages 2 and 3, by the swap shortcut of gw_apart_now; edges left out
    # of stage 1, its changes cancelling)
    (six_node_graph(), "edges + nodematch('g') + gwesp(0.5, fixed=TRUE)", [-0.4, 0.8, 0.6], "~ degrees", True),
    (six_node_graph(), "nodematch('g') + gwesp(0.3, fixed=TRUE)", [-0.7, 0.9], "~ edges", True),
    # neighbourhood exchanges scored by the tie-free terms only
    (six_node_graph(), "nodematch('g') + kstar(2) + gwesp(0.5, fixed=TRUE)", [0.8, -0.3, 0.5],
     "~ degreedist", True),
    (six_node_graph(), "nodematch('g') + kstar(2) + gwesp(0.5, fixed=TRUE)", [0.8, -0.3, 0.5],
     "~ degreedist", False),
    # degree(1, by=) reads the node attribute: an exchange changes it (no shortcut)
    (six_node_graph(), "nodematch('g') + degree(1, by='g')", [0.8, 0.9, -1.2], "~ degreedist", True),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_shortcuts_are_exact(case):
    g, formula, theta, cons, delayed = CASES[case]
    sampler = check_space(g, formula, theta, cons, case + 51, delayed)
    assert sampler.dep_invariant == ("by=" not in formula)
    assert sampler.one_pass == ("kstar" not in formula and "by=" not in formula)
    if delayed and sampler.one_pass:
        assert sampler.tie_free_terms == 1 + formula.startswith("edges")


@pytest.mark.parametrize("cons", ["~ degrees", "~ edges", "~ degreedist"])
def test_skipped_stage_three_is_the_one_it_would_accept(cons):
    # with delayed acceptance, moves whose toggles provably share no partner skip
    # stage 3 (which would accept them and draw no number): the chain is the same
    # as with every stage 3 run (one_pass off)
    m = ef.ERGM(ef.datasets.load("faux.mesa.high"),
                "edges + nodematch('Grade') + gwesp(0.5, fixed=TRUE)", constraints=cons)
    theta = np.array([-4.0, 1.5, -1.2])
    ties = []
    for one_pass in (True, False):
        sampler, cm = m.sampler(theta, random_state=7)
        assert sampler.proposal.delayed and sampler.one_pass
        sampler.one_pass = one_pass
        sampler.run(theta, 100000)
        ties.append(np.sort(cm.state.ties(), axis=0))
        assert sampler.n_accepted > 500
    np.testing.assert_array_equal(*ties)


def test_swap_shortcut_of_the_apart_check():
    # on a double-edge swap {a, b}, {c, d} -> {a, d}, {c, b}, "no toggle's ends have a
    # common neighbour" implies the rest of the check (no other tie between ends, no
    # triangle of toggles): the shortcut answers as the full check on every swap
    rng = np.random.default_rng(5)
    g = nx.gnm_random_graph(20, 22, seed=8)
    m = ef.ERGM(g, "edges + gwesp(0.5, fixed=TRUE)", constraints="~ degrees")
    sampler, cm = m.sampler(np.zeros(2), random_state=2)
    seen = {True: 0, False: 0}
    for _ in range(3000):
        ties = cm.state.ties()
        (a, b), (c, d) = ties[rng.choice(len(ties), 2, replace=False)]
        if rng.random() < 0.5:
            a, b = b, a
        if len({a, b, c, d}) < 4 or cm.state.has(a, d) or cm.state.has(c, b):
            continue
        tog = [(a, b), (c, d), (a, d), (c, b)]
        full = sampler._apart(tog, False)
        assert sampler._apart(tog, True) == full
        seen[full] += 1
        sampler.run(np.zeros(2), 5)
    assert min(seen.values()) > 100
