"""Node-pair moves on stacked networks and layers (``ConstrainedProposal``'s mode 8,
``proposal="pairs"``): a pair's dyads in a set of layers, in one direction, the other or
both, toggled at once.  On enumerated spaces the frequency of every network matches its
ERGM probability (chi-square), for layers (directed and undirected, 2 and 3 layers),
stacked networks, other direction chances and a free set that is not closed under pairs
(some of a pair's dyads fixed: every move is looked up); with the Hastings ratio's tie
counts left out (``_pair_chance`` without c / L) these fail."""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.sampling._constrained import ConstrainedProposal, ConstrainedSampler
from ergmfit.sampling.space import dyad_vars, var_pairs

from support.constrained_spaces import check_exact


def _free_space_graphs(m, free):
    """Every network that agrees with the observed one outside the free variables, keyed
    as check_exact wants, with its statistics."""
    net = m.network
    obs = set(dyad_vars(net.n, net.directed, net.ties).tolist()) - set(free.tolist())
    out = []
    for bits in itertools.product([0, 1], repeat=len(free)):
        on = sorted(obs | {int(v) for v, b in zip(free, bits) if b})
        ties = var_pairs(net.n, net.directed, np.array(on, dtype=np.int64)).reshape(-1, 2)
        out.append((tuple(on), m.statistics_vector(ties)))
    return out


def _layers(directed, k, edges):
    G = nx.DiGraph if directed else nx.Graph
    layers = {}
    for m in range(k):
        g = G()
        g.add_nodes_from(range(3))
        g.add_edges_from(edges[m])
        layers[f"l{m}"] = g
    return ef.Layer(layers)


def _run(m, theta, free, layers, directions, seed, n_draws=6000, interval=40, mode="pairs"):
    graphs = _free_space_graphs(m, free)
    cm = m.compiled(None)
    prop = ConstrainedProposal(cm, mode, free, layers=layers,
                               **({"directions": directions} if mode == "pairs" else {}))
    sampler = ConstrainedSampler(cm, prop, np.array([seed, 5], dtype=np.uint64))
    counts = check_exact(m, graphs, np.asarray(theta, dtype=float), sampler, cm, n_draws,
                         interval)
    assert (counts > 0).sum() > 10
    return prop, sampler


CASES = {
    # two directed layers on 3 nodes (12 dyads): the and-layer and mutual in one layer
    "directed 2 layers": (
        lambda: _layers(True, 2, [[(0, 1), (1, 0), (1, 2)], [(0, 1), (2, 0)]]),
        "L(~edges, ~l0) + L(~edges, ~l1) + L(~edges, ~l0&l1) + L(~mutual, ~l1)",
        [-0.8, -1.0, 1.6, 1.2], None),
    "directed 2 layers, other directions": (
        lambda: _layers(True, 2, [[(0, 1), (1, 0), (1, 2)], [(0, 1), (2, 0)]]),
        "L(~edges, ~l0) + L(~edges, ~l1) + L(~edges, ~l0&l1) + L(~mutual, ~l1)",
        [-0.8, -1.0, 1.6, 1.2], (0.2, 0.5, 0.3)),
    # three undirected layers on 3 nodes (9 dyads): 7 sets of layers per pair
    "undirected 3 layers": (
        lambda: _layers(False, 3, [[(0, 1)], [(0, 1), (1, 2)], [(0, 2)]]),
        "L(~edges, ~l0) + L(~edges, ~l1&l2) + L(~triangle, ~l0|l1) + L(~edges, ~xor(l0, l2))",
        [-0.5, 1.0, 0.6, -0.7], None),
    # two directed networks (3 + 2 nodes, 8 dyads) with a triadic term
    "stacked networks": (
        lambda: ef.Networks([nx.DiGraph([(0, 1), (1, 2), (2, 0)]), nx.DiGraph([(0, 1)])]),
        "edges + mutual + transitiveties",
        [-0.6, 1.3, 0.7], None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_pair_moves_are_exact(case):
    make, formula, theta, directions = CASES[case]
    m = ef.ERGM(make(), formula)
    space = m.sample_space
    # (a term couples a pair's directions in each case: the default is the lifted form)
    assert space.default_proposal(m) == "lifted-pairs"
    prop, sampler = _run(m, theta, space.free_vars(), space._pair_layers(), directions, 7)
    assert prop.pairs_closed
    assert 0 < sampler.n_moves <= sampler.n_proposed


def test_pair_moves_on_a_free_set_that_is_not_closed():
    # some dyads of some pairs fixed (a pair's move that would toggle one is no move):
    # the chances are counted over the free dyads, looked up move by move
    m = ef.ERGM(_layers(True, 2, [[(0, 1), (1, 0), (1, 2)], [(0, 1), (2, 0)]]),
                "L(~edges, ~l0) + L(~edges, ~l1) + L(~edges, ~l0&l1) + L(~mutual, ~l0)")
    free = m.sample_space.free_vars()
    free = np.delete(free, [1, 6, 8])
    prop, _ = _run(m, [-0.8, -1.0, 1.6, 1.2], free, 2, None, 3)
    assert not prop.pairs_closed


def test_the_default_is_pairs_only_where_it_moves_more_than_one_dyad():
    und = ef.Networks([nx.path_graph(3), nx.path_graph(4)])
    assert ef.ERGM(und, "edges").sample_space.default_proposal(None) == "tnt"
    di = ef.Networks([nx.DiGraph([(0, 1)]), nx.DiGraph([(1, 0)])])
    assert ef.ERGM(di, "edges").sample_space.proposals() == ("tnt", "pairs", "lifted-pairs")
    # a degree bound: the plain moves
    m = ef.ERGM(di, "edges", constraints="~ blockdiag('.NetworkID') + bd(maxout=1)")
    assert m.sample_space.default_proposal(m) == "tnt"
    with pytest.raises(ef.exceptions.SettingsError, match="pairs"):
        m.sampler([0.0], proposal="pairs")


def test_pair_move_settings_are_checked():
    m = ef.ERGM(_layers(True, 2, [[(0, 1)], [(1, 0)]]), "L(~edges, ~l0)")
    cm = m.compiled(None)
    free = m.sample_space.free_vars()
    with pytest.raises(ValueError, match="directions"):
        ConstrainedProposal(cm, "pairs", free, layers=2, directions=(0.5, 0.6, 0.0))
    with pytest.raises(ValueError, match="layers"):
        ConstrainedProposal(cm, "pairs", free, layers=4)
    with pytest.raises(ValueError, match="within the layers"):
        ConstrainedProposal(cm, "pairs", None, layers=2)
    across = np.append(free, dyad_vars(6, True, [(0, 4)]))       # layer 0's node 0 -> layer 1's 1
    with pytest.raises(ValueError, match="within a layer"):
        ConstrainedProposal(cm, "pairs", across, layers=2)


def test_the_drawn_direction_only_where_no_term_couples_the_two():
    di = ef.Networks([nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(1, 0)])])
    # stacked networks, no term coupling a pair's directions: tie/no-tie, which "pairs"
    # would equal
    m = ef.ERGM(di, "edges")
    assert m.sample_space.default_proposal(m) == "tnt"
    m = ef.ERGM(di, "edges + mutual")
    sampler, _ = m.sampler([-1.0, 1.0], random_state=1)
    assert sampler.proposal.mode == 9          # mutual couples them: the lifted moves
    sampler, _ = m.sampler([-1.0, 1.0], random_state=1, proposal="pairs")
    assert (sampler.proposal.mode, sampler.proposal.p_this) == (8, 0.5)     # PAIR_DIRECTIONS
    lay = _layers(True, 2, [[(0, 1)], [(1, 0)]])
    m = ef.ERGM(lay, "L(~edges, ~l0) + L(~edges, ~l0&l1)")
    assert [t.within_ordered_pair for t in m.terms] == [True, True]
    sampler, _ = m.sampler([-1.0, 1.0], random_state=1)
    assert (sampler.proposal.mode, sampler.proposal.p_this, sampler.proposal.n_layers) \
        == (8, 1.0, 2)
    m = ef.ERGM(lay, "L(~edges + mutual, ~l0) + L(~edges, ~l0&l1)")
    sampler, _ = m.sampler([-1.0, 1.0, 1.0], random_state=1, proposal="pairs")
    assert sampler.proposal.p_this == 0.5     # PAIR_DIRECTIONS
    assert m.sampler([-1.0, 1.0, 1.0], random_state=1)[0].proposal.mode == 9


@pytest.mark.parametrize("case", sorted(c for c in CASES if "other directions" not in c))
def test_lifted_pair_moves_are_exact(case):
    # the lifted (non-reversible) node-pair moves (mode 9, proposal="lifted-pairs"): going
    # up, a set of a pair's absent dyads added; going down, a set of its ties removed; the
    # walk turns after a rejection.  Skew detailed balance: the same frequencies
    make, formula, theta, _ = CASES[case]
    m = ef.ERGM(make(), formula)
    space = m.sample_space
    assert "lifted-pairs" in space.proposals()
    prop, sampler = _run(m, theta, space.free_vars(), space._pair_layers(), None, 11,
                         mode="lifted-pairs")
    assert prop.mode == 9 and prop.lift in (-1, 1)
    assert 0 < sampler.n_accepted < sampler.n_proposed


def test_lifted_pair_moves_on_a_free_set_that_is_not_closed():
    m = ef.ERGM(_layers(True, 2, [[(0, 1), (1, 0), (1, 2)], [(0, 1), (2, 0)]]),
                "L(~edges, ~l0) + L(~edges, ~l1) + L(~edges, ~l0&l1) + L(~mutual, ~l0)")
    free = np.delete(m.sample_space.free_vars(), [1, 6, 8])
    prop, _ = _run(m, [-0.8, -1.0, 1.6, 1.2], free, 2, None, 5, mode="lifted-pairs")
    assert not prop.pairs_closed
