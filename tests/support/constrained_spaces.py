"""Enumerated constrained sample spaces: every network of a tiny model's space, and checks
that a constrained sampler draws each with its ERGM probability and never leaves the space."""
import itertools

import networkx as nx
import numpy as np
from scipy import stats

import ergmfit as ef
from ergmfit.estimation.contrastive.blocks import degree_feasibility
from ergmfit.exceptions import NetworkError
from ergmfit.sampling.space import dyad_vars, var_pairs


def space_graphs(m, members=None):
    """Every network of the model's sample space (over the dyads that exist: the
    between-mode ones of a two-mode network) with its statistics; ``members``: that
    space's networks already enumerated (:func:`space_members`)."""
    members = space_members(m) if members is None else members
    return [(key, m.statistics_vector(ties)) for key, ties in members]


def space_members(m):
    """(dyad-index key, ties) of every network of the model's sample space."""
    net, sp = m.network, m.sample_space
    if net.bipartite is not None:
        n1 = net.bipartite
        allp = np.array([(i, j) for i in range(n1) for j in range(n1, net.n)])
    else:
        n_all = net.n * (net.n - 1) // (1 if net.directed else 2)
        allp = var_pairs(net.n, net.directed, np.arange(n_all))
    out = []
    for bits in itertools.product([0, 1], repeat=len(allp)):
        ties = allp[np.array(bits, dtype=bool)]
        try:
            sp.check(ties)
        except NetworkError:
            continue
        out.append((tuple(np.sort(dyad_vars(net.n, net.directed, ties))), ties))
    return out


def check_exact(m, graphs, theta, sampler, cm, n_draws, interval):
    """Run ``sampler`` and compare the frequency of every network of the enumerated
    space (``graphs``: (dyad-index key, statistics) pairs) with its ERGM probability
    at ``theta`` (chi-square), asserting that no draw leaves the space; the counts."""
    keys = [k for k, _ in graphs]
    lw = np.array([np.dot(theta, s) for _, s in graphs])
    w = np.exp(lw - lw.max())
    w /= w.sum()
    index = {k: i for i, k in enumerate(keys)}
    net = m.network
    counts = np.zeros(len(keys))
    sampler.run(theta, 1000)
    for _ in range(n_draws):
        sampler.run(theta, interval)
        k = tuple(np.sort(dyad_vars(net.n, net.directed, cm.state.ties())))
        assert k in index, f"the chain left the space: {k}"      # property: never leaves
        counts[index[k]] += 1
    exp_ = w * n_draws
    big = exp_ >= 5
    obs, ex = np.append(counts[big], counts[~big].sum()), np.append(exp_[big], exp_[~big].sum())
    if ex[-1] == 0:
        obs, ex = obs[:-1], ex[:-1]
    assert stats.chisquare(obs, ex).pvalue > 1e-4
    return counts


def six_node_graph():
    """Two triangles joined by a tie, and two groups ("g": a/b) that cut across them."""
    g = nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 3), (1, 4)])
    for i in g:
        g.nodes[i]["g"] = "a" if i in (0, 3, 4) else "b"
    return g


# the enumerated spaces of check_space, by network (ties and node attributes) and constraints:
# the enumeration (2^15 sample-space checks on six nodes) is most of a check's time, and the
# cases share three spaces
_MEMBERS = {}


def check_space(g, formula, theta, cons, seed, delayed):
    """Run the constrained sampler (delayed acceptance on or off) on an enumerated
    space and check it (see check_exact); the sampler."""
    m = ef.ERGM(g, formula, constraints=cons)
    key = (type(g).__name__, tuple(sorted(g.edges)), cons,
           tuple(sorted((v, tuple(sorted(d.items()))) for v, d in g.nodes(data=True))))
    if key not in _MEMBERS:
        _MEMBERS[key] = space_members(m)
    graphs = space_graphs(m, _MEMBERS[key])
    assert len(graphs) >= 3
    sampler, cm = m.sampler(theta, random_state=seed)
    sampler.proposal.delayed = delayed
    counts = check_exact(m, graphs, np.asarray(theta, dtype=float), sampler, cm, 5000, 60)
    assert (counts > 0).sum() > 1
    return sampler


def assert_masks_match_space(m, k=3, n_blocks=30, seed=0):
    """degree_feasibility's mask of each configuration of random k-blocks is
    whether the network lies in the model's sample space (and both occur)."""
    f = degree_feasibility(m)
    bm = m.compiled()
    rng = np.random.default_rng(seed)
    blocks = np.array([rng.choice(bm.n_vars, k, replace=False) for _ in range(n_blocks)])
    F = f(bm, blocks)
    on = set(bm.on_vars().tolist())
    for c, block in enumerate(blocks):
        for s in range(1 << k):
            state = on ^ {int(block[b]) for b in range(k) if s >> b & 1}
            ties = var_pairs(m.network.n, m.network.directed,
                             np.array(sorted(state), dtype=np.int64))
            try:
                m.sample_space.check(ties)
                inside = True
            except NetworkError:
                inside = False
            assert F[c, s] == inside, (block, s)
    assert 0 < F.mean() < 1
