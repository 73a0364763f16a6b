"""The valued (count) terms against their definitions written here in numpy (ergm's help
pages: mutual's forms, transitiveweights / cyclicalweights as Krivitsky 2012 eq. 13,
nodecovar / nodeocovar / nodeicovar, the value terms, the form="sum"/"nonzero" covariate
terms), the errors for binary-only terms, and simulated moments of a few new terms
against exact enumeration of every state of tiny networks."""
import itertools

import networkx as nx
import numpy as np
import pytest
from scipy.special import gammaln

import ergmfit as ef
from ergmfit.exceptions import TermError
from families.test_count_engine import check_against_exact


def random_valued(n, directed, seed, density=0.5, top=4):
    rng = np.random.default_rng(seed)
    g = nx.DiGraph() if directed else nx.Graph()
    for k in range(n):
        g.add_node(k, a=int(rng.integers(3)), x=float(rng.normal()))
    Y = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(n):
            if i != j and (directed or i < j) and rng.random() < density:
                Y[i, j] = rng.integers(1, top + 1)
                g.add_edge(i, j, w=int(Y[i, j]))
    if not directed:
        Y = Y + Y.T
    return g, Y


def dyad_mask(n, directed):
    return ~np.eye(n, dtype=bool) if directed else np.triu(np.ones((n, n), dtype=bool), 1)


def _pair(rule, a, b):
    return np.minimum(a, b) if rule == "min" else np.sqrt(a * b)


def weights(Y, directed, twopath, combine, affect, cyclical):
    """Σ_{a != b} affect(y_ab or y_ba, combine_k twopath(y_ak, y_kb)); over a < b when
    undirected."""
    n = len(Y)
    total = 0.0
    for a in range(n):
        for b in range(n):
            if a == b:
                continue
            legs = [_pair(twopath, float(Y[a, k]), float(Y[k, b])) for k in range(n)
                    if k not in (a, b)]
            c = (max(legs) if combine == "max" else sum(legs)) if legs else 0.0
            focus = float(Y[b, a] if cyclical else Y[a, b])
            total += _pair(affect, focus, c)
    return total if directed else total / 2


def covar(Y, directed, rows, center, root):
    n = len(Y)
    F = np.sqrt(Y) if root else Y.astype(float)
    mask = dyad_mask(n, directed)
    Z = F - (F[mask].mean() if center else 0.0)
    np.fill_diagonal(Z, 0.0)
    M = Z if rows != "in" else Z.T
    S, Q = M.sum(1), (M ** 2).sum(1)
    per_row = (S ** 2 - Q) / (2 if rows == "both" else 1)
    return per_row.sum() / (n - 2)


def definitions(Y, directed, attrs):
    """{formula term: a function giving its statistics} by the definitions."""
    n = len(Y)
    mask = dyad_mask(n, directed)
    v = Y[mask].astype(float)
    a, x = attrs["a"], attrs["x"]
    I, J = np.nonzero(mask)
    out = {
        "sum(pow=0.5)": lambda: [np.sqrt(v).sum()],
        "CMP": lambda: [gammaln(v + 1).sum()],
        "atleast(c(1, 3))": lambda: [(v >= 1).sum(), (v >= 3).sum()],
        "atmost(2)": lambda: [(v <= 2).sum()],
        "greaterthan(1)": lambda: [(v > 1).sum()],
        "smallerthan(2)": lambda: [(v < 2).sum()],
        "equalto(1, tolerance=1)": lambda: [(np.abs(v - 1) <= 1).sum()],
        "ininterval(1, 3)": lambda: [((v > 1) & (v < 3)).sum()],
        "ininterval(1, 3, open=c(FALSE, FALSE))": lambda: [((v >= 1) & (v <= 3)).sum()],
        "nodematch('a', form='sum')": lambda: [(v * (a[I] == a[J])).sum()],
        "nodecov('x', form='nonzero')": lambda: [((v != 0) * (x[I] + x[J])).sum()],
        "absdiff('x', form='sum')": lambda: [(v * np.abs(x[I] - x[J])).sum()],
    }
    for tp, cb, af in itertools.product(("min", "geomean"), ("max", "sum"), ("min", "geomean")):
        for cyc, name in ((False, "transitiveweights"), (True, "cyclicalweights")):
            out[f"{name}('{tp}', '{cb}', '{af}')"] = \
                (lambda tp=tp, cb=cb, af=af, cyc=cyc: [weights(Y, directed, tp, cb, af, cyc)])
    if directed:
        up = np.triu_indices(n, 1)
        p, q = Y[up].astype(float), Y.T[up].astype(float)
        out.update({
            "mutual(form='min')": lambda: [np.minimum(p, q).sum()],
            "mutual(form='nabsdiff')": lambda: [-np.abs(p - q).sum()],
            "mutual(form='product')": lambda: [(p * q).sum()],
            "mutual(form='geometric')": lambda: [np.sqrt(p * q).sum()],
            "mutual(form='threshold', threshold=1)": lambda: [((p > 1) & (q > 1)).sum()],
            "nodeocovar(center=TRUE)": lambda: [covar(Y, True, "out", True, False)],
            "nodeicovar(center=FALSE, transform='sqrt')":
                lambda: [covar(Y, True, "in", False, True)],
            "nodeosqrtcovar(TRUE)": lambda: [covar(Y, True, "out", True, True)],
        })
    else:
        out.update({
            "nodecovar(center=TRUE)": lambda: [covar(Y, False, "both", True, False)],
            "nodecovar(center=TRUE, transform='sqrt')":
                lambda: [covar(Y, False, "both", True, True)],
            "nodesqrtcovar(FALSE)": lambda: [covar(Y, False, "both", False, True)],
        })
    return out


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_statistics_equal_definitions(directed, seed):
    n = 7
    g, Y = random_valued(n, directed, seed, density=0.3 + 0.2 * seed)
    attrs = {k: np.array([g.nodes[i][k] for i in range(n)]) for k in ("a", "x")}
    want = definitions(Y, directed, attrs)
    m = ef.ERGM(g, " + ".join(want), response="w", reference="Poisson")
    got = m.statistics_vector()
    expected = np.concatenate([np.asarray(w(), float) for w in want.values()])
    assert len(got) == len(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)


def test_labels_are_ergm_counts():
    g, _ = random_valued(5, True, 0)
    m = ef.ERGM(g, "CMP + atleast(1) + equalto(2) + ininterval(1, 2) + mutual(form='product') "
                   "+ transitiveweights('geomean', 'sum', 'geomean') + cyclicalweights "
                   "+ nodematch('a', diff=TRUE, form='nonzero') + nodeocovar(center=TRUE)",
                response="w", reference="Poisson")
    assert m.labels[:7] == ["CMP", "atleast.1", "equalto.2.pm.0", "ininterval(1,2)",
                            "mutual.product", "transitiveweights.geomean.sum.geomean",
                            "cyclicalweights.min.max.min"]
    assert all(lab.startswith("nodematch.nonzero.a.") for lab in m.labels[7:-1])
    assert m.labels[-1] == "nodeocovar"


@pytest.mark.parametrize("formula, words", [
    ("triangle", ["'triangle'", "binary", "form='sum'"]),
    ("ttriple", ["'ttriple'", "binary", "B(~ttriple, form='nonzero')"]),
    ("nodematch('a', form='mean')", ["form must be 'sum' or 'nonzero'"]),
    ("mutual(form='max')", ["mutual: form must be one of"]),
    ("transitiveweights('max')", ["twopath must be 'min' or 'geomean'"]),
    ("nodeocovar", ["give center=TRUE or center=FALSE"]),
    ("nodeocovar(TRUE, 'log')", ["transform must be 'identity' or 'sqrt'"]),
])
def test_clear_errors(formula, words):
    g, _ = random_valued(5, True, 0)
    with pytest.raises(TermError) as err:
        ef.ERGM(g, formula, response="w", reference="Poisson")
    for w in words:
        assert w in str(err.value)


def test_triad_weights_run_on_a_large_sparse_network():
    # a change costs O(degree) (not O(n)): 2000 nodes, mean degree 4, 21000 proposals
    rng = np.random.default_rng(3)
    n = 2000
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    for _ in range(4 * n):
        i, j = rng.integers(n, size=2)
        if i != j:
            g.add_edge(int(i), int(j), w=int(rng.integers(1, 4)))
    m = ef.ERGM(g, "transitiveweights + cyclicalweights", response="w", reference="Poisson")
    S = m.simulate([0.0, 0.0], n=2, burnin=1000, interval=10000, output="stats",
                   random_state=1)
    assert S.shape == (2, 2)


# -- exact enumeration ---------------------------------------------------------------------
def exact_moments_of(n, directed, reference, terms, theta, top):
    """E[g], E[g g^T] over every network with values 0..top, g from ``definitions``."""
    mask = dyad_mask(n, directed)
    idx = np.argwhere(mask)
    values = np.arange(top + 1)
    attrs = {"a": np.zeros(n, int), "x": np.zeros(n)}
    G, logh = [], []
    for vals in itertools.product(values, repeat=len(idx)):
        Y = np.zeros((n, n), dtype=np.int64)
        Y[idx[:, 0], idx[:, 1]] = vals
        if not directed:
            Y = Y + Y.T
        d = definitions(Y, directed, attrs)
        G.append(np.concatenate([np.asarray(d[t](), float) for t in terms]))
        logh.append(reference.log_h(np.array(vals)).sum())
    G, logh = np.array(G), np.array(logh)
    lw = G @ theta + logh
    w = np.exp(lw - lw.max())
    w /= w.sum()
    return w @ G, (G * w[:, None]).T @ G


EXACT = [
    (True, "Binomial(2)", ["CMP", "mutual(form='nabsdiff')",
                           "transitiveweights('min', 'max', 'min')"], [0.4, 0.5, 0.3]),
    (False, "Binomial(2)", ["greaterthan(1)", "cyclicalweights('geomean', 'sum', 'geomean')",
                            "nodecovar(center=TRUE)"], [-0.3, 0.4, 0.5]),
    (True, "DiscUnif(0, 2)", ["ininterval(1, 3)", "nodeocovar(center=TRUE)",
                              "mutual(form='product')"], [0.2, 0.4, 0.3]),
]


@pytest.mark.parametrize("directed, reference, terms, theta", EXACT,
                         ids=[e[1] + ":" + "+".join(e[2]) for e in EXACT])
@pytest.mark.parametrize("seed", [51, 52])
def test_new_terms_simulate_the_exact_law(directed, reference, terms, theta, seed):
    n = 3 if directed else 4
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    m = ef.ERGM(g, " + ".join(terms), response="w", reference=reference)
    theta = np.array(theta)
    top = 2
    mean, second = exact_moments_of(n, directed, m.reference, terms, theta, top)
    check_against_exact(m, theta, mean, second, seed, "tnt", n=20000, interval=10)


def test_weights_dense_path_equals_the_general_path(monkeypatch):
    # transitiveweights/cyclicalweights with statnet's default rules take an integer path
    # on the dense value matrix; a state without the matrix takes the general path: every
    # change statistic of 8 random networks (directed and undirected) is the same
    import networkx as nx
    import ergmfit.network._countstate as countstate
    formula = ('transitiveweights("min","max","min") + cyclicalweights("min","max","min") + '
               'transitiveweights("min","sum","min")')
    for directed in (True, False):
        for seed in range(4):
            rng = np.random.default_rng(seed)
            g = nx.DiGraph() if directed else nx.Graph()
            g.add_nodes_from(range(10))
            g.add_edges_from((i, j, {"w": int(rng.integers(1, 4))}) for i in range(10)
                             for j in range(10) if i != j and rng.random() < 0.45)
            m = ef.ERGM(g, formula, response="w", reference="Binomial(3)")
            dense = m.compiled()
            monkeypatch.setattr(countstate, "DENSE_MAX_NODES", 0)
            general = m.compiled()
            monkeypatch.undo()
            for v in range(dense.n_vars):
                for y in range(4):
                    assert np.array_equal(dense.change_stats(v, y), general.change_stats(v, y))


def test_cmb_statistics_and_saturated_fit():
    # ergm.count's CMB(trials): sum log(y!) + log((trials - y)!) (coupled), or the two sums
    from scipy.special import gammaln
    from support.valued_networks import samptot
    g = samptot()
    m = ef.ERGM(g, "CMB(3) + CMB(3, coupled=FALSE)", response="nominations",
                reference="Binomial(3)")
    assert m.labels == ["CMB", "CMB.1", "CMB.2"]
    n = g.number_of_nodes()
    y = np.array([d["nominations"] for _, _, d in g.edges(data=True)]
                 + [0] * (n * (n - 1) - g.number_of_edges()), dtype=float)
    a, b = gammaln(y + 1).sum(), gammaln(4 - y).sum()
    assert np.allclose(m.statistics_vector(), [a + b, a, b], rtol=0, atol=1e-9)
    # sum + nonzero + CMB under Binomial(3) saturates the 4 values of a dyad: the MLE's
    # dyad law is the observed frequencies of 0..3
    fit = ef.ERGM(g, "sum + nonzero + CMB(3)", response="nominations",
                  reference="Binomial(3)").fit("mple")
    th = np.asarray(fit.params, dtype=float)
    k = np.arange(4.0)
    logp = (gammaln(4) - gammaln(k + 1) - gammaln(4 - k) + th[0] * k + th[1] * (k > 0)
            + th[2] * (gammaln(k + 1) + gammaln(4 - k)))
    p = np.exp(logp - logp.max())
    assert np.allclose(p / p.sum(), np.bincount(y.astype(int), minlength=4) / len(y),
                       atol=1e-8)


@pytest.mark.parametrize("reference", ["Poisson", "Geometric", "Binomial(4)"])
def test_cmb_needs_a_reference_within_its_trials(reference):
    from support.valued_networks import samptot
    with pytest.raises(TermError, match="defined for values up to 3"):
        ef.ERGM(samptot(), "sum + CMB(3)", response="nominations", reference=reference)
    with pytest.raises(TermError, match="positive integer"):
        ef.ERGM(samptot(), "sum + CMB(2.5)", response="nominations", reference="Binomial(3)")
