"""The count family's engine: state, change statistics, exact sampling, reproducibility.

The sampler is checked against exact enumeration of every state of tiny
networks: simulated means and second moments of the statistics equal the exact
expectations within a multiple of their Monte Carlo standard errors (batch
means), at several seeds and for both proposals.
"""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.families import CountFamily
from ergmfit.model import CountERGM
from ergmfit.network._countstate import CountState


# -- direct numpy definitions of the statistics ------------------------------------------
def dyad_list(n, directed):
    return [(i, j) for i in range(n) for j in range(n)
            if i != j and (directed or i < j)]


def direct_stats(labels, Y, directed, power=1.0):
    """Statistics of the value matrix Y, written from their definitions."""
    n = Y.shape[0]
    mask = ~np.eye(n, dtype=bool) if directed else np.triu(np.ones((n, n), dtype=bool), 1)
    vals = Y[mask].astype(float)
    out = []
    for lab in labels:
        if lab == "sum":
            out.append(vals.sum())
        elif lab.startswith("sum"):
            out.append((vals ** power).sum())
        elif lab == "nonzero":
            out.append(float((vals != 0).sum()))
        elif lab == "mutual.min":
            iu = np.triu_indices(n, 1)
            out.append(float(np.minimum(Y[iu], Y.T[iu]).sum()))
        else:
            raise AssertionError(lab)
    return np.array(out)


def valued_graph(n, directed, rng, density=0.5, top=4):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    for i, j in dyad_list(n, directed):
        if rng.random() < density:
            g.add_edge(i, j, w=int(rng.integers(1, top + 1)))
    return g


def matrix_of(g, n, attr="w"):
    Y = np.zeros((n, n), dtype=np.int64)
    for u, v, d in g.edges(data=True):
        Y[u, v] = d[attr]
        if not g.is_directed():
            Y[v, u] = d[attr]
    return Y


# -- statistics and change statistics ------------------------------------------------------
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_statistics_equal_definitions(directed, seed):
    rng = np.random.default_rng(seed)
    n = 7
    g = valued_graph(n, directed, rng)
    formula = "sum + nonzero + sum(pow=0.5)" + (" + mutual(form='min')" if directed else "")
    m = ef.ERGM(g, formula, response="w", reference="Poisson")
    assert isinstance(m, CountERGM)
    labels = ["sum", "nonzero", "sum0.5"] + (["mutual.min"] if directed else [])
    assert m.labels == labels
    Y = matrix_of(g, n)
    want = direct_stats(labels, Y, directed, power=0.5)
    np.testing.assert_allclose(m.statistics_vector(), want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [4, 5])
def test_change_statistics_are_differences(directed, seed):
    rng = np.random.default_rng(seed)
    n = 6
    g = valued_graph(n, directed, rng, density=0.4)
    formula = "sum + nonzero + sum(pow=2)" + (" + mutual" if directed else "")
    labels = ["sum", "nonzero", "sum2"] + (["mutual.min"] if directed else [])
    m = ef.ERGM(g, formula, response="w", reference="Geometric")
    cm = m.compiled()
    Y = matrix_of(g, n)
    for _ in range(300):
        v = int(rng.integers(cm.n_vars))
        i, j = cm.dyad_of(v)
        assert cm.var_of(i, j) == v
        y_new = int(rng.integers(0, 6))
        assert cm.value(v) == Y[i, j]
        before = direct_stats(labels, Y, directed, power=2)
        Y[i, j] = y_new
        if not directed:
            Y[j, i] = y_new
        after = direct_stats(labels, Y, directed, power=2)
        np.testing.assert_allclose(cm.change_stats(v, y_new), after - before, atol=1e-12)
        cm.set_value(v, y_new)
        assert cm.value(v) == y_new
        assert cm.state.nonzero_count == int((Y[~np.eye(n, dtype=bool)] != 0).sum()
                                             // (1 if directed else 2))
    d, y = cm.state.nonzero()
    np.testing.assert_array_equal(cm.state.to_dense(), Y)
    np.testing.assert_allclose(m.statistics_vector(d, y), direct_stats(labels, Y, directed, 2))


def test_count_state_basics():
    s = CountState(4, False, np.array([[2, 1], [0, 3]]), np.array([3, 0]))
    assert s.get(1, 2) == 3 and s.get(2, 1) == 3 and s.get(0, 3) == 0
    assert s.nonzero_count == 1 and s.total == 3
    s.set(0, 1, 2)
    s.set(1, 2, 0)
    assert s.nonzero_count == 1 and s.total == 2 and s.get(1, 0) == 2
    with pytest.raises(ValueError):
        CountState(3, True, np.array([[0, 1], [0, 1]]), np.array([1, 2]))
    with pytest.raises(IndexError):
        s.get(0, 0)


# -- exact enumeration ---------------------------------------------------------------------
def exact_moments(n, directed, reference, labels, theta, top):
    """E[g] and E[g g^T] by enumerating every value of every dyad in 0..top."""
    dyads = dyad_list(n, directed)
    ref = reference
    values = np.arange(top + 1)
    logh1 = ref.log_h(values)
    states = np.array(list(itertools.product(values, repeat=len(dyads))))
    G = np.zeros((len(states), len(labels)))
    for k, lab in enumerate(labels):
        if lab == "sum":
            G[:, k] = states.sum(1)
        elif lab == "nonzero":
            G[:, k] = (states != 0).sum(1)
        elif lab == "mutual.min":
            pos = {d: c for c, d in enumerate(dyads)}
            G[:, k] = sum(np.minimum(states[:, pos[(i, j)]], states[:, pos[(j, i)]])
                          for i, j in dyads if i < j)
    logw = G @ theta + logh1[states].sum(1)
    logw = np.where(np.isfinite(logw), logw, -np.inf)
    w = np.exp(logw - logw.max())
    w /= w.sum()
    mean = w @ G
    second = (G * w[:, None]).T @ G
    return mean, second


def check_against_exact(m, theta, mean, second, seed, proposal, n=40000, interval=12,
                        batches=40):
    S = m.simulate(theta, n=n, burnin=20000, interval=interval, output="stats",
                   random_state=seed, proposal=proposal)
    p = S.shape[1]
    # first and second moments (the products of each pair of statistics)
    feats = np.hstack([S] + [S[:, [a]] * S[:, [b]] for a in range(p) for b in range(a, p)])
    want = np.concatenate([mean] + [[second[a, b]] for a in range(p) for b in range(a, p)])
    bm = feats.reshape(batches, -1, feats.shape[1]).mean(1)
    se = bm.std(0, ddof=1) / np.sqrt(batches)
    z = (feats.mean(0) - want) / np.maximum(se, 1e-12)
    # 16 or fewer features per check: a |z| of 4.5 has chance ~1e-4 under the t(39) law
    assert np.all(np.abs(z) < 4.5), (z, feats.mean(0), want)


@pytest.mark.parametrize("proposal", ["tnt", "random"])
@pytest.mark.parametrize("seed", [11, 12])
def test_binomial_directed_matches_enumeration(proposal, seed):
    n, trials = 3, 2
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edge(0, 1, w=2)
    m = ef.ERGM(g, "sum + nonzero + mutual(form='min')", response="w",
                reference=f"Binomial({trials})")
    theta = np.array([-0.4, 0.3, 0.6])
    mean, second = exact_moments(n, True, m.reference, m.labels, theta, trials)
    check_against_exact(m, theta, mean, second, seed, proposal)


@pytest.mark.parametrize("seed", [21, 22])
def test_binomial3_undirected_matches_enumeration(seed):
    n, trials = 4, 3
    g = nx.Graph()
    g.add_nodes_from(range(n))
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="~Binomial(3)")
    theta = np.array([-0.6, 0.8])
    mean, second = exact_moments(n, False, m.reference, m.labels, theta, trials)
    check_against_exact(m, theta, mean, second, seed, "tnt")


@pytest.mark.parametrize("proposal", ["tnt", "random"])
@pytest.mark.parametrize("seed", [31, 32])
def test_poisson_dependent_matches_truncated_enumeration(proposal, seed):
    # values beyond 9 have probability below 1e-9 at these parameters
    n = 3
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edge(1, 2, w=1)
    m = ef.ERGM(g, "sum + nonzero + mutual(form='min')", response="w", reference="Poisson")
    theta = np.array([-0.5, -0.7, 0.4])
    mean, second = exact_moments(n, True, m.reference, m.labels, theta, 9)
    check_against_exact(m, theta, mean, second, seed, proposal)


@pytest.mark.parametrize("reference,theta", [("Poisson", 0.7), ("Geometric", -0.9),
                                             ("DiscUnif(0, 4)", -0.3)])
@pytest.mark.parametrize("seed", [41, 42])
def test_sum_alone_has_the_exact_dyad_law(reference, theta, seed):
    # sum alone: the dyads are independent with p(y) ~ h(y) e^{theta y}
    n = 5
    g = nx.Graph()
    g.add_nodes_from(range(n))
    m = ef.ERGM(g, "sum", response="w", reference=reference)
    top = 60 if m.reference.hi is None else m.reference.hi
    y = np.arange(top + 1)
    lw = m.reference.log_h(y) + theta * y
    p = np.exp(lw - lw.max())
    p /= p.sum()
    D = n * (n - 1) / 2
    mean1, var1 = p @ y, p @ y ** 2 - (p @ y) ** 2
    mean = np.array([D * mean1])
    second = np.array([[D * var1 + (D * mean1) ** 2]])
    if reference == "Poisson":
        assert np.isclose(mean[0], D * np.exp(theta))
    check_against_exact(m, np.array([theta]), mean, second, seed, "tnt")


# -- reproducibility and output --------------------------------------------------------------
def test_same_seed_same_draws():
    rng = np.random.default_rng(7)
    g = valued_graph(8, True, rng, density=0.3)
    m = ef.ERGM(g, "sum + nonzero + mutual(form='min')", response="w", reference="Poisson")
    a = m.simulate([-0.2, -0.5, 0.3], n=30, burnin=500, interval=50, output="stats",
                   random_state=5)
    b = m.simulate([-0.2, -0.5, 0.3], n=30, burnin=500, interval=50, output="stats",
                   random_state=5)
    c = m.simulate([-0.2, -0.5, 0.3], n=30, burnin=500, interval=50, output="stats",
                   random_state=6)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_graph_output_carries_the_counts():
    rng = np.random.default_rng(8)
    g = valued_graph(6, False, rng)
    before = [(u, v, dict(d)) for u, v, d in g.edges(data=True)]
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="Binomial(4)")
    graphs = m.simulate([0.1, -0.2], n=3, burnin=300, interval=100, random_state=2)
    stats = m.simulate([0.1, -0.2], n=3, burnin=300, interval=100, output="stats",
                       random_state=2)
    for h, s in zip(graphs, stats):
        assert set(h.nodes) == set(g.nodes)
        vals = [d["w"] for _, _, d in h.edges(data=True)]
        assert all(isinstance(v, int) and 1 <= v <= 4 for v in vals)
        np.testing.assert_allclose([sum(vals), len(vals)], s)
        assert ef.ERGM(h, "sum + nonzero", response="w",
                       reference="Binomial(4)").statistics() == {"sum": s[0], "nonzero": s[1]}
    assert [(u, v, dict(d)) for u, v, d in g.edges(data=True)] == before   # input untouched


def test_family_and_reference_objects():
    m = ef.ERGM(nx.empty_graph(3, create_using=nx.DiGraph), "sum", response="w")
    assert m.family == CountFamily("Poisson") and m.reference.label == "Poisson"
    assert ef.ERGM(nx.path_graph(3), "edges").family.name == "binary"
