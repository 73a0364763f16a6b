"""statnet's ``B(formula, form)`` in count-valued models, and the valued ``edges``.

ergm's help page of B: form "sum" is Σ x_ij y_ij over dyad-independent terms
(``B(~nodecov("a"), form="sum")`` equals ``nodecov("a", form="sum")``), form "nonzero" and
a one-sided value criterion evaluate any binary term on the binary network of the dyads
that are nonzero / pass the criterion (a valued term counting 0 or 1 per dyad, 0 at
value 0).  Checked here against independent paths: the binary engine on the thresholded
network, a sum over the dyads written in the test, the ``form=`` terms, and exact
enumeration of a tiny network's law.  The change statistics of B (every form) equal
differences of full statistics in tests/contracts/test_terms.py (``COUNT_EXAMPLES``).
"""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import TermError
from families.test_count_engine import check_against_exact


def valued(n, directed, seed, density=0.5, top=4):
    rng = np.random.default_rng(seed)
    g = nx.DiGraph() if directed else nx.Graph()
    for k in range(n):
        g.add_node(k, a=int(rng.integers(3)), x=float(rng.normal()))
    for i in range(n):
        for j in range(n):
            if i != j and (directed or i < j) and rng.random() < density:
                g.add_edge(i, j, w=int(rng.integers(1, top + 1)))
    return g


def thresholded(g, keep):
    """The binary graph of the dyads of ``g`` whose value passes ``keep``."""
    b = g.__class__()
    b.add_nodes_from(g.nodes(data=True))
    b.add_edges_from((i, j) for i, j, w in g.edges(data="w") if keep(w))
    return b


FORMS = [("'nonzero'", "nonzero", lambda w: w != 0),
         ("~edges", "edges", lambda w: w != 0),          # the valued edges: nonzero
         ("~atleast(2)", "atleast(2)", lambda w: w >= 2),
         ("~greaterthan(2)", "greaterthan(2)", lambda w: w > 2),
         ("~ininterval(0, 3)", "ininterval(0,3)", lambda w: 0 < w < 3),
         ("~equalto(1)", "equalto(1)", lambda w: w == 1),
         ("~ininterval(1, 3, open=c(FALSE, FALSE))", "ininterval(1,3,open=c(FALSE,FALSE))",
          lambda w: 1 <= w <= 3)]
INNER = {True: "edges + mutual + ttriple + gwesp(0.5, fixed=TRUE) + isolates + idegree(1)"
               " + nodematch('a')",
         False: "edges + triangle + kstar(2) + gwesp(0.5, fixed=TRUE) + isolates + degree(1)"
                " + absdiff('x')"}


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("form, name, keep", FORMS, ids=[f[1] for f in FORMS])
def test_b_is_the_binary_terms_on_the_thresholded_network(directed, form, name, keep):
    for seed in (1, 2):
        g = valued(9, directed, seed)
        m = ef.ERGM(g, f"B(~{INNER[directed]}, form={form})", response="w",
                    reference="Poisson")
        binary = ef.ERGM(thresholded(g, keep), INNER[directed])
        assert m.labels == [f"B({name})~{lab}" for lab in binary.labels]
        np.testing.assert_allclose(m.statistics_vector(), binary.statistics_vector(),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("directed", [True, False])
def test_b_sum_is_the_sum_over_dyads_and_the_form_terms(directed):
    g = valued(8, directed, 3)
    n = g.number_of_nodes()
    a = np.array([g.nodes[k]["a"] for k in range(n)])
    x = np.array([g.nodes[k]["x"] for k in range(n)])
    ys = [(i, j, w) for i, j, w in g.edges(data="w")]
    # Σ x_ij y_ij written out
    want = [sum(w for _, _, w in ys), sum(w * (x[i] + x[j]) for i, j, w in ys),
            sum(w * (a[i] == a[j]) for i, j, w in ys), sum(w * abs(x[i] - x[j]) for i, j, w in ys)]
    inner = "edges + nodecov('x') + nodematch('a') + absdiff('x')"
    m = ef.ERGM(g, f"B(~{inner}, form='sum')", response="w", reference="Poisson")
    assert m.labels == ["B(sum)~edges", "B(sum)~nodecov.x", "B(sum)~nodematch.a",
                        "B(sum)~absdiff.x"]
    np.testing.assert_allclose(m.statistics_vector(), want, rtol=1e-12)
    # statnet's help: B(~nodecov("a"), form="sum") is nodecov("a", form="sum"); the same for
    # "nonzero", and the one-term B uses the form= term's kernel
    for form in ("sum", "nonzero"):
        b = ef.ERGM(g, f"B(~nodecov('x'), form='{form}') + B(~nodematch('a'), form='{form}')",
                    response="w", reference="Poisson")
        f = ef.ERGM(g, f"nodecov('x', form='{form}') + nodematch('a', form='{form}')",
                    response="w", reference="Poisson")
        np.testing.assert_allclose(b.statistics_vector(), f.statistics_vector(), rtol=1e-12)
        assert type(b.terms[0].kernel) is type(f.terms[0].kernel)
    # the valued edges is nonzero (ergm's help page of edges: "valued: nonzero", "valued:
    # edges", the number of nonzero values), label nonzero
    e = ef.ERGM(g, "edges + B(~edges, form='nonzero')", response="w", reference="Poisson")
    assert e.labels == ["nonzero", "B(nonzero)~edges"]
    assert e.statistics_vector().tolist() == [len(ys), len(ys)]


def _exact_moments(m, n, directed, top, theta):
    mask = ~np.eye(n, dtype=bool) if directed else np.triu(np.ones((n, n), dtype=bool), 1)
    idx = np.argwhere(mask).astype(np.int64)
    G, logh = [], []
    for vals in itertools.product(range(top + 1), repeat=len(idx)):
        v = np.array(vals, dtype=np.int64)
        on = v != 0
        G.append(m.statistics_vector(idx[on], v[on]))
        logh.append(m.reference.log_h(v).sum())
    G, logh = np.array(G), np.array(logh)
    lw = G @ theta + logh
    w = np.exp(lw - lw.max())
    w /= w.sum()
    return w @ G, (G * w[:, None]).T @ G


@pytest.mark.parametrize("seed", [61, 62])
def test_b_simulates_the_exact_law(seed):
    # the sampler's moves go through B's kept binary network (updated after each accepted
    # change): the simulated moments equal exact enumeration of every state (3 directed
    # nodes, values 0..2: 729 networks)
    g = nx.DiGraph()
    g.add_nodes_from(range(3))
    m = ef.ERGM(g, "sum + B(~ttriple + mutual, form=~atleast(2)) + B(~isolates, form='nonzero')",
                response="w", reference="Binomial(2)")
    theta = np.array([-0.2, 0.5, 0.4, 0.3])
    mean, second = _exact_moments(m, 3, True, 2, theta)
    check_against_exact(m, theta, mean, second, seed, "tnt", n=20000, interval=10)


def test_b_models_fit():
    # a dyad-independent B model's MPLE is the form= model's (the same statistics), and a
    # dyad-dependent one fits by the count MPLE dyad by dyad
    from ergmfit.estimation.mple.count import ZeroCells
    g = valued(12, True, 5, density=0.3)
    bm = ef.ERGM(g, "sum + B(~nodematch('a') + nodecov('x'), form='nonzero')", response="w",
                 reference="Poisson")
    # its zero dyads are counted by attribute cell, as the form= terms' (the B term
    # declares its inner terms' cell attributes)
    assert bm.terms[1].cell_attrs == ["a", "x"] and ZeroCells.of(bm) is not None
    b = bm.fit(estimate="MPLE")
    f = ef.ERGM(g, "sum + nodematch('a', form='nonzero') + nodecov('x', form='nonzero')",
                response="w", reference="Poisson").fit(estimate="MPLE")
    np.testing.assert_allclose(np.asarray(b.params), np.asarray(f.params), rtol=1e-8)
    d = ef.ERGM(g, "sum + B(~mutual + gwesp(0.5, fixed=TRUE), form='nonzero')", response="w",
                reference="Poisson").fit(estimate="MPLE")
    assert np.all(np.isfinite(np.asarray(d.params)))


@pytest.mark.parametrize("formula, words", [
    ("B(~triangle, form='sum')", ["form='sum'", "dyad-independent", "triangle",
                                  "form='nonzero'"]),
    ("B(~edges, form='mean')", ["form must be 'sum', 'nonzero' or a one-sided formula",
                                "'mean'"]),
    ("B(~edges, form=~sum)", ["form ~sum must be one valued term that counts each dyad 0 or "
                              "1", "atleast"]),
    ("B(~edges, form=~atmost(2))", ["counts 0-valued dyads", "0 for a 0-valued dyad"]),
    ("B(~edges, form=~atleast(0))", ["counts 0-valued dyads"]),
    ("B(~edges, form=~atleast(1) + atleast(2))", ["must be one valued term", "got atleast + "
                                                                             "atleast"]),
    ("B(~edges, form=~atleast(c(1, 2)))", ["2 statistics", "single threshold"]),
    ("B(~edges, form=~nodematch('a'))", ["must be one valued term", "got nodematch"]),
    ("B(~transitiveweights, form='nonzero')", ["transitiveweights", "valued term",
                                               "outside B()"]),
    ("B(~sum, form='nonzero')", ["'sum'", "valued term", "outside B()"]),
    ("B(~Log(~edges), form='nonzero')", ["nonlinear", "Log"]),
    # statnet keeps a curved term's parameters; count models here have none yet (before,
    # B(~gwesp) gave the esp#k statistics as if linear, then a degenerate-model error)
    ("B(~edges + gwesp, form='nonzero')", ["gwesp is curved", "fixed=TRUE"]),
    ("B(~gwodegree(0.5), form=~atleast(2))", ["gwodegree is curved"]),
    ("B(~Curve(~edges + mutual, params=c('a'), map='rep'), form='nonzero')",
     ["Curve() or Offset() inside B()"]),
    ("B(edges, form='nonzero')", ["must be a formula such as ~edges"]),
    ("B(~B(~edges, form='sum'), form='nonzero')", ["B() inside B()", "binary network"]),
    ("B(~nodematch('a', form='sum'), form='sum')", ["nodematch(form=...) inside B()",
                                                    "give it to B()"]),
    ("B(~edges, form=2)", ["form must be"]),
])
def test_b_bad_input_is_a_clear_error(formula, words):
    g = valued(6, True, 0)
    with pytest.raises(TermError) as err:
        ef.ERGM(g, formula, response="w", reference="Poisson")
    for w in words:
        assert w in str(err.value), (w, str(err.value))


@pytest.mark.parametrize("threshold", [0, 1, 2.5])
def test_mutual_threshold_is_binary_mutuality_after_thresholding(threshold):
    # ergm's help: form="threshold" "simply computes the binary mutuality after thresholding
    # at threshold" -- B(~mutual) on the dyads above it.  Labels: min, nabsdiff, product and
    # geom.mean are statnet's (samplike summaries in statnet_ext.json); statnet's help names
    # no label for threshold and no reference print has one: ours is mutual.threshold
    g = valued(10, True, 7, density=0.6)
    m = ef.ERGM(g, f"mutual(form='threshold', threshold={threshold}) + "
                   f"B(~mutual, form=~greaterthan({threshold}))", response="w",
                reference="Poisson")
    assert m.labels == ["mutual.threshold", f"B(greaterthan({threshold}))~mutual"]
    s = m.statistics_vector()
    assert s[0] == s[1] > 0
    forms = ef.ERGM(g, " + ".join(f"mutual(form='{f}')" for f in
                                  ("min", "nabsdiff", "product", "geometric", "threshold")),
                    response="w", reference="Poisson")
    assert forms.labels == ["mutual.min", "mutual.nabsdiff", "mutual.product",
                            "mutual.geom.mean", "mutual.threshold"]
