"""The count family's proposal table: each proposal samples the exact law of tiny networks
(moments against exact enumeration, for each reference measure), ergm.count's "0inflated"
with a given p0 and with its default (the starting network's surplus of zeros), and the
node-strength move ("strength": several dyads of a node's row or column at once)."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.families import CountFamily
from ergmfit.sampling._proposals import CountRowResample, CountStrength, CountZeroInflated
from ergmfit.utils.validation import seed_words
from families.test_count_engine import exact_moments
from families.test_count_terms import exact_moments_of


def batch_check(S, mean, second, batches=40):
    p = S.shape[1]
    feats = np.hstack([S] + [S[:, [a]] * S[:, [b]] for a in range(p) for b in range(a, p)])
    want = np.concatenate([mean] + [[second[a, b]] for a in range(p) for b in range(a, p)])
    bm = feats.reshape(batches, -1, feats.shape[1]).mean(1)
    se = bm.std(0, ddof=1) / np.sqrt(batches)
    z = (feats.mean(0) - want) / np.maximum(se, 1e-12)
    assert np.all(np.abs(z) < 4.5), (z, feats.mean(0), want)


def draws(m, theta, proposal, seed, n=20000, burnin=20000, interval=10):
    sampler = m.family.make_sampler(m.compiled(), proposal, seed_words(seed))
    return m.statistics_vector() + sampler.sample(np.asarray(theta, float), n, burnin, interval)


def tiny(directed, edges=(), n=3):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    for i, j, w in edges:
        g.add_edge(i, j, w=w)
    return g


@pytest.mark.parametrize("reference, n, top", [("Poisson", 2, 30), ("Geometric", 2, 40),
                                               ("Binomial(3)", 3, 3), ("DiscUnif(0, 3)", 3, 3)])
@pytest.mark.parametrize("p0", [0.3, 0.7])
def test_zero_inflated_matches_enumeration(reference, n, top, p0):
    # unbounded references on one mutual pair, values beyond ``top`` negligible (< 1e-12)
    g = tiny(True, [(0, 1, 2)] + ([(2, 1, 1)] if n == 3 else []), n=n)
    m = ef.ERGM(g, "sum + nonzero + mutual(form='min')", response="w", reference=reference)
    theta = np.array([-1.2 if reference == "Geometric" else -0.5, 0.4, 0.3])
    mean, second = exact_moments(n, True, m.reference, m.labels, theta, top)
    seed = 61 + int(10 * p0)
    batch_check(draws(m, theta, CountZeroInflated(p0), seed), mean, second)


def test_zero_inflated_default_p0_is_the_zero_surplus():
    # 6 dyads, 2 nonzero, values 3 and 3: f0 = 4/6, mean 1, surplus 2/3 - exp(-1)
    g = tiny(True, [(0, 1, 3), (1, 2, 3)])
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="Poisson")
    prop = m.family.make_proposal("0inflated")
    m.family.make_sampler(m.compiled(), prop, seed_words(1))
    assert prop.p0 == pytest.approx(4 / 6 - np.exp(-1.0))
    S = m.simulate([-0.3, -0.4], n=4, burnin=100, interval=10, output="stats",
                   proposal="0inflated", random_state=2)
    assert S.shape == (4, 2)


@pytest.mark.parametrize("reference, n, top", [("Poisson", 2, 30), ("Geometric", 2, 40),
                                               ("Binomial(3)", 3, 3), ("DiscUnif(1, 3)", 3, 3)])
def test_gibbs_matches_enumeration(reference, n, top):
    # the heat-bath step: a dyad's value from its full conditional at theta (every move
    # accepted); unbounded references summed until the weights fall e^-40 below the top
    g = tiny(True, [(0, 1, 2)] + ([(2, 1, 1)] if n == 3 else []), n=n)
    if reference.startswith("DiscUnif"):
        g = tiny(True, [(i, j, 1 + (i + j) % 3) for i in range(n) for j in range(n) if i != j],
                 n=n)
    m = ef.ERGM(g, "sum + nonzero + mutual(form='min')", response="w", reference=reference)
    theta = np.array([-1.2 if reference == "Geometric" else -0.5, 0.4, 0.3])
    mean, second = exact_moments(n, True, m.reference, m.labels, theta, top)
    batch_check(draws(m, theta, m.family.make_proposal("gibbs"), 83, n=10000), mean, second)


@pytest.mark.parametrize("proposal", ["tnt", "random", "0inflated", "gibbs"])
def test_every_proposal_samples_a_dependent_undirected_law(proposal):
    # undirected 4 nodes, Binomial(2): transitiveweights + CMP by enumeration
    g = nx.Graph()
    g.add_nodes_from(range(4))
    g.add_edge(0, 1, w=2)
    g.add_edge(1, 2, w=1)
    terms = ["sum(pow=0.5)", "CMP", "transitiveweights('min', 'max', 'min')"]
    m = ef.ERGM(g, " + ".join(terms), response="w", reference="Binomial(2)")
    theta = np.array([0.3, -0.4, 0.5])
    mean, second = exact_moments_of(4, False, m.reference, terms, theta, 2)
    S = m.simulate(theta, n=20000, burnin=20000, interval=10, output="stats",
                   proposal=proposal, random_state=71)
    batch_check(S, mean, second)


def test_proposal_table():
    fam = CountFamily("Poisson")
    assert set(fam.proposals) == {"tnt", "random", "0inflated", "gibbs", "strength", "row"}
    with pytest.raises(ValueError):
        CountZeroInflated(1.0)


STRENGTH_CASES = [
    # directed, 3 nodes: rows and columns of 2 dyads, one dyad per move (C(c, 1) = c: the
    # Hastings term is log c - log c'); undirected, 4 nodes: 3 dyads per node, two per move
    (True, 3, "Binomial(3)", ["sum(pow=0.5)", "mutual(form='min')",
                              "nodeicovar(center=FALSE, transform='sqrt')"], [-0.4, 0.3, 0.5], 1),
    (False, 4, "Binomial(2)", ["sum(pow=0.5)", "CMP", "nodecovar(center=TRUE, transform='sqrt')"],
     [0.3, -0.4, 0.6], 2),
]


@pytest.mark.parametrize("directed, n, reference, terms, theta, size", STRENGTH_CASES,
                         ids=["directed-size1", "undirected-size2"])
@pytest.mark.parametrize("kind", ["strength", "row"])
def test_group_moves_match_enumeration(kind, directed, n, reference, terms, theta, size):
    # strength: mostly group moves (share 0.7), the rest tie/no-tie; a Hastings term without
    # the candidates' C(c, k) / C(c', k) fails this.  row: mostly whole-group resamples
    # (share 0.5) at tilts up to 2; a Hastings term without the reverse conditionals (at the
    # new network, tilted by -lambda) fails this
    g = tiny(directed, n=n)
    g.add_edge(0, 1, w=1)
    m = ef.ERGM(g, " + ".join(terms), response="w", reference=reference)
    theta = np.array(theta)
    top = 3 if reference == "Binomial(3)" else 2
    mean, second = exact_moments_of(n, directed, m.reference, terms, theta, top)
    prop, seed = ((CountStrength(share=0.7, size=size), 91) if kind == "strength"
                  else (CountRowResample(share=0.5, tilt=2.0), 93))
    sampler = m.family.make_sampler(m.compiled(), prop, seed_words(seed))
    S = m.statistics_vector() + sampler.sample(theta, 20000, 20000, 10)
    assert sampler.n_accepted > 0.1 * sampler.n_proposed
    batch_check(S, mean, second)


def test_strength_move_arguments_and_name():
    with pytest.raises(ValueError, match="share"):
        CountStrength(share=1.5)
    with pytest.raises(ValueError, match="size"):
        CountStrength(size=0)
    prop = CountFamily("Binomial(2)").make_proposal("strength")
    assert (prop.share, prop.size, type(prop.base).__name__) == (0.1, 4, "CountTNT")
    # by name through simulate, and the same draws from the same seed
    g = tiny(True, [(0, 1, 1), (2, 0, 2)], n=6)
    m = ef.ERGM(g, "sum + nodeocovar(center=TRUE)", response="w", reference="Binomial(2)")
    a, b = (m.simulate([-0.5, 0.2], n=5, burnin=200, interval=50, output="stats",
                       proposal="strength", random_state=3) for _ in range(2))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("make", [lambda: CountStrength(share=1.0, size=2),
                                  lambda: CountRowResample(share=1.0, tilt=1.0)],
                         ids=["strength", "row"])
def test_group_moves_scored_without_applying_leave_the_state(make):
    # run_batch(apply=False) scores every move against the present network (EE's use):
    # a group move is applied to be scored and undone; accepted changes are still summed
    g = tiny(True, [(0, 1, 1), (1, 2, 2), (3, 0, 1)], n=5)
    m = ef.ERGM(g, "sum + nodeocovar(center=TRUE) + mutual(form='min')", response="w",
                reference="Binomial(2)")
    cm = m.compiled()
    sampler = m.family.make_sampler(cm, make(), seed_words(5))
    before = cm.state.to_dense().copy()
    add, dele = sampler.run_batch(np.array([-0.5, 0.3, 0.2]), 500, apply=False)
    assert np.array_equal(cm.state.to_dense(), before)
    assert np.all(sampler.delta == 0)
    assert sampler.n_accepted > 0 and np.abs(add).sum() + np.abs(dele).sum() > 0
    # applied, the tracked change equals the statistics' change
    sampler.run_batch(np.array([-0.5, 0.3, 0.2]), 500)
    assert np.allclose(m.statistics_vector() + sampler.delta,
                       ef.ERGM(_graph_of(cm.state.to_dense()), m.formula, response="w",
                               reference="Binomial(2)").statistics_vector())


def _graph_of(Y):
    g = nx.DiGraph()
    g.add_nodes_from(range(len(Y)))
    for i, j in zip(*np.nonzero(Y)):
        g.add_edge(int(i), int(j), w=int(Y[i, j]))
    return g
