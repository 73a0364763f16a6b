"""statnet's Project(formula, mode) / Proj1 / Proj2 (issue #19): valued terms on the one-mode
projection of a two-mode network (tie value y_pq = shared partners).  Values and labels
against numpy on the biadjacency matrix B (projection onto mode 1: B Bᵀ, onto mode 2: Bᵀ B),
the change statistics against differences of full statistics, the refusals, and an MPLE
against a logistic regression on change statistics computed here."""
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ergmfit as ef
from ergmfit.exceptions import TermError


def two_mode(n1, n2, p, seed):
    rng = np.random.default_rng(seed)
    B = (rng.random((n1, n2)) < p).astype(int)
    g = nx.Graph()
    x1, x2 = rng.normal(size=n1), rng.normal(size=n2)
    c1, c2 = rng.integers(0, 3, size=n1), rng.integers(0, 2, size=n2)
    for i in range(n1):
        g.add_node(i, bipartite=0, b1=float(x1[i]), c=["a", "b", "c"][c1[i]])
    for j in range(n2):
        g.add_node(n1 + j, bipartite=1, b2=float(x2[j]), c=["a", "b"][c2[j]])
    g.add_edges_from((int(i), n1 + int(j)) for i, j in zip(*np.nonzero(B)))
    return g, B, dict(x1=x1, x2=x2, c1=c1, c2=c2)


def graph_with(g, B, n1):
    h = nx.Graph()
    h.add_nodes_from(g.nodes(data=True))
    h.add_edges_from((int(i), n1 + int(j)) for i, j in zip(*np.nonzero(B)))
    h.graph.update(g.graph)
    return h


def stats(g, formula):
    return ef.ERGM(g, formula).statistics()


def upper(M):
    return M[np.triu_indices(M.shape[0], 1)]


def test_statnet_doc_example():
    """statnet's own test: n = 20, b = 5; Project(~absdiff("b1"), 1) and Proj1() both give
    Proj1~absdiff.sum.b1 = Σ_{i<j} |b1_i − b1_j| (B Bᵀ)_ij, and mode 2 with Bᵀ B."""
    for seed in (1, 2):
        g, B, a = two_mode(5, 15, 0.5, seed)
        v1 = upper(np.abs(np.subtract.outer(a["x1"], a["x1"])) * (B @ B.T)).sum()
        v2 = upper(np.abs(np.subtract.outer(a["x2"], a["x2"])) * (B.T @ B)).sum()
        for f, lab, v in [("Project(~absdiff('b1'), 1)", "Proj1~absdiff.sum.b1", v1),
                          ("Proj1(~absdiff('b1'))", "Proj1~absdiff.sum.b1", v1),
                          ("Project(~absdiff(\"b2\"), 2)", "Proj2~absdiff.sum.b2", v2),
                          ("Proj2(~absdiff('b2'))", "Proj2~absdiff.sum.b2", v2)]:
            s = stats(g, f)
            assert list(s) == [lab]
            assert s[lab] == pytest.approx(v, rel=1e-12)


VALUE_FORMULA = ("~sum + sum(pow=0.5) + sum(pow=2) + nonzero + atleast(c(1, 2)) + atmost(1) + "
                 "greaterthan(1) + smallerthan(2) + equalto(2) + equalto(2, 1) + "
                 "ininterval(0, 2) + ininterval(0, 2, open=c(FALSE, TRUE)) + "
                 "ininterval(1, 3, '[]')")


def value_stats(y):
    """The VALUE_FORMULA statistics of the projected values y (one per dyad p < q)."""
    return [y.sum(), np.sqrt(y).sum(), (y ** 2).sum(), (y != 0).sum(), (y >= 1).sum(),
            (y >= 2).sum(), (y <= 1).sum(), (y > 1).sum(), (y < 2).sum(), (y == 2).sum(),
            (np.abs(y - 2) <= 1).sum(), ((y > 0) & (y < 2)).sum(), ((y >= 0) & (y < 2)).sum(),
            ((y >= 1) & (y <= 3)).sum()]


VALUE_LABELS = ["sum", "sum0.5", "sum2", "nonzero", "atleast.1", "atleast.2", "atmost.1",
                "greaterthan.1", "smallerthan.2", "equalto.2.pm.0", "equalto.2.pm.1",
                "ininterval(0,2)", "ininterval[0,2)", "ininterval[1,3]"]


@pytest.mark.parametrize("seed, n1, n2, p", [(3, 8, 12, 0.3), (4, 15, 6, 0.5), (5, 20, 20, 0.15)])
def test_value_terms_both_modes(seed, n1, n2, p):
    g, B, _ = two_mode(n1, n2, p, seed)
    for mode, Y in ((1, B @ B.T), (2, B.T @ B)):
        s = stats(g, f"Proj{mode}({VALUE_FORMULA})")
        assert list(s) == [f"Proj{mode}~{lab}" for lab in VALUE_LABELS]
        np.testing.assert_allclose(list(s.values()), value_stats(upper(Y).astype(float)),
                                   rtol=1e-12)


def cov_stats(B, a, mode):
    """absdiff(pow=2), nodecov, nodematch, nodematch(diff), nodemix, nodefactor, edgecov,
    each form sum and nonzero, on the projection of B onto ``mode``."""
    Y = (B @ B.T if mode == 1 else B.T @ B).astype(float)
    x = a["x1"] if mode == 1 else a["x2"]
    c = a["c1"] if mode == 1 else a["c2"]
    m = len(x)
    E = np.arange(m * m, dtype=float).reshape(m, m) % 7 - 3.0
    E = E + E.T
    iu = np.triu_indices(m, 1)
    covs = [np.abs(np.subtract.outer(x, x)) ** 2, np.add.outer(x, x),
            (np.equal.outer(c, c)).astype(float)]
    levels = sorted(set(c.tolist()))
    covs += [((c[:, None] == k) & (c[None, :] == k)).astype(float) for k in levels]
    for l in levels:            # nodemix cells k <= l, column by column (statnet's order)
        for k in levels:
            if k <= l:
                covs.append((((c[:, None] == k) & (c[None, :] == l))
                             | ((c[:, None] == l) & (c[None, :] == k))).astype(float))
    covs += [(c[:, None] == k).astype(float) + (c[None, :] == k) for k in levels[1:]]
    covs.append(E)
    out = []
    for form in ("sum", "nonzero"):
        w = Y if form == "sum" else (Y != 0).astype(float)
        out += [(C * w)[iu].sum() for C in covs]
    return out, E


def test_covariate_terms_forms_and_labels():
    g, B, a = two_mode(12, 9, 0.35, 7)
    for mode in (1, 2):
        want, E = cov_stats(B, a, mode)
        g.graph["E"] = E
        att = f"b{mode}"
        parts = []
        for form in ("sum", "nonzero"):
            parts += [f"absdiff('{att}', pow=2, form='{form}')", f"nodecov('{att}', form='{form}')",
                      f"nodematch('c', form='{form}')", f"nodematch('c', diff=TRUE, form='{form}')",
                      f"nodemix('c', levels2=TRUE, form='{form}')",
                      f"nodefactor('c', form='{form}')", f"edgecov('E', form='{form}')"]
        s = stats(g, f"Proj{mode}(~" + " + ".join(parts) + ")")
        np.testing.assert_allclose(list(s.values()), want, rtol=1e-12, atol=1e-12)
        labs = list(s)
        assert f"Proj{mode}~absdiff2.sum.{att}" in labs
        assert f"Proj{mode}~nodecov.nonzero.{att}" in labs
        assert f"Proj{mode}~nodematch.sum.c" in labs and f"Proj{mode}~nodematch.sum.c.a" in labs
        assert f"Proj{mode}~mix.nonzero.c.a.a" in labs
        assert f"Proj{mode}~nodefactor.sum.c.b" in labs and f"Proj{mode}~edgecov.sum.E" in labs
    # the default form is "sum"
    assert stats(g, "Proj1(~nodecov('b1'))") == {
        "Proj1~nodecov.sum.b1": pytest.approx(cov_stats(B, a, 1)[0][1], rel=1e-12)}


def weights(Y, twopath, combine, affect):
    """statnet's transitiveweights on an undirected valued network, by brute force:
    Σ_{u<v} affect(y_uv, combine_{k ≠ u, v} twopath(y_uk, y_kv))."""
    n = Y.shape[0]
    f = {"min": np.minimum, "geomean": lambda a, b: np.sqrt(a * b)}
    tot = 0.0
    for u, v in zip(*np.triu_indices(n, 1)):
        k = np.array([w for w in range(n) if w not in (u, v)], dtype=int)
        s = f[twopath](Y[u, k], Y[k, v]) if len(k) else np.zeros(1)
        tot += f[affect](Y[u, v], s.max() if combine == "max" else s.sum())
    return tot


RULES = [("min", "max", "min"), ("min", "sum", "min"), ("geomean", "sum", "geomean"),
         ("geomean", "max", "min"), ("min", "sum", "geomean")]


@pytest.mark.parametrize("seed, n1, n2, p", [(3, 9, 7, 0.4), (8, 6, 12, 0.3)])
def test_transitive_and_cyclical_weights(seed, n1, n2, p):
    """On the undirected projection cyclicalweights (focus y_ji) equals transitiveweights."""
    g, B, _ = two_mode(n1, n2, p, seed)
    for mode, Y in ((1, B @ B.T), (2, B.T @ B)):
        terms = [f"transitiveweights('{a}', '{b}', '{c}')" for a, b, c in RULES]
        terms += ["cyclicalweights", "cyclicalweights(affected='geomean')"]
        s = stats(g, f"Proj{mode}(~" + " + ".join(terms) + ")")
        want = [weights(Y.astype(float), *r) for r in RULES]
        want += [want[0], weights(Y.astype(float), "min", "max", "geomean")]
        assert list(s)[:2] == [f"Proj{mode}~transitiveweights.min.max.min",
                               f"Proj{mode}~transitiveweights.min.sum.min"]
        assert list(s)[-2:] == [f"Proj{mode}~cyclicalweights.min.max.min",
                                f"Proj{mode}~cyclicalweights.min.max.geomean"]
        np.testing.assert_allclose(list(s.values()), want, rtol=1e-12)


FULL = ("edges + Proj1(~sum + nonzero + atleast(2) + absdiff('b1') + "
        "nodefactor('c', levels=TRUE, form='nonzero') + transitiveweights + atmost(1)) + "
        "Proj2(~sum(pow=2) + nodematch('c') + equalto(1) + "
        "cyclicalweights('geomean', 'sum', 'geomean'))")


def check_toggles(g, B, dyads):
    n1 = B.shape[0]
    cm = ef.ERGM(g, FULL).compiled()
    start = np.array(list(stats(g, FULL).values()))
    cur = B.copy()
    for i, a in dyads:
        d = cm.dyad_change_stats(i, n1 + a)
        on, off = cur.copy(), cur.copy()
        on[i, a], off[i, a] = 1, 0
        full_on = np.array(list(stats(graph_with(g, on, n1), FULL).values()))
        full_off = np.array(list(stats(graph_with(g, off, n1), FULL).values()))
        np.testing.assert_allclose(d, full_on - full_off, rtol=1e-10, atol=1e-10)
        cm.toggle(i, n1 + a)
        cm.toggle(i, n1 + a)                     # toggling twice restores
        np.testing.assert_allclose(cm.dyad_change_stats(i, n1 + a), d, rtol=1e-12, atol=1e-12)
        cm.toggle(i, n1 + a)
        cur[i, a] = 1 - cur[i, a]
    # the running network's statistics: observed + the toggles' changes = recomputed
    total = start.copy()
    cm2 = ef.ERGM(g, FULL).compiled()
    walk = B.copy()
    for i, a in dyads:
        sign = -1.0 if walk[i, a] else 1.0
        total += sign * cm2.dyad_change_stats(i, n1 + a)
        cm2.toggle(i, n1 + a)
        walk[i, a] = 1 - walk[i, a]
    np.testing.assert_allclose(total, list(stats(graph_with(g, walk, n1), FULL).values()),
                               rtol=1e-10, atol=1e-10)


def test_change_equals_difference():
    g, B, _ = two_mode(9, 7, 0.4, 11)
    rng = np.random.default_rng(0)
    check_toggles(g, B, [(int(rng.integers(9)), int(rng.integers(7))) for _ in range(25)])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 7), st.integers(2, 7),
       st.floats(0.1, 0.9), st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)),
                                     min_size=1, max_size=6))
def test_change_property(seed, n1, n2, p, moves):
    g, B, _ = two_mode(n1, n2, p, seed)
    check_toggles(g, B, [(i % n1, a % n2) for i, a in moves])


def test_held_and_on_demand_counts_agree():
    from ergmfit.terms import projection
    g, B, _ = two_mode(10, 8, 0.4, 13)
    v = []
    for flag in (False, True):
        projection.ON_DEMAND = flag
        try:
            cm = ef.ERGM(g, FULL).compiled()
            v.append(np.array([cm.dyad_change_stats(i, 10 + a)
                               for i in range(10) for a in range(8)]))
        finally:
            projection.ON_DEMAND = None
    np.testing.assert_array_equal(v[0], v[1])


@pytest.mark.parametrize("formula, message", [
    ("Project(~sum, 3)", "mode must be 1 or 2"),
    ("Proj1(~sum + triangle)", "'triangle' has no valued form"),
    ("Proj2(~triangle)", "'triangle' has no valued form"),
    ("Proj1(~absdiff('b1', form='max'))", "form must be 'sum' or 'nonzero'"),
    ("Proj1(~atleast(thresh=1))", "unknown argument"),
    ("Proj1(~transitiveweights('min', 'mean'))", "combine must be 'max' or 'sum'"),
    ("Proj1(~absdiff('b2'))", "attribute"),          # b2 is not defined on mode 1
])
def test_refusals(formula, message):
    g, _, _ = two_mode(5, 5, 0.5, 1)
    with pytest.raises(TermError, match=message):
        ef.ERGM(g, formula)


def test_refusals_of_the_network():
    with pytest.raises(TermError, match="two-mode"):
        ef.ERGM(ef.datasets.load("flomarriage"), "Proj1(~sum)")
    big = nx.Graph()
    big.add_nodes_from(range(1025), bipartite=0)
    big.add_nodes_from(range(1025, 1028), bipartite=1)
    big.add_edge(0, 1025)
    with pytest.raises(TermError, match="at most 1,024 nodes"):
        ef.ERGM(big, "Proj1(~transitiveweights)")


def test_terms_listing_has_project():
    from ergmfit.terms.registry import get_term
    for name in ("Project", "Proj1", "Proj2"):
        spec = get_term(name)
        assert "projection" in spec.doc.lower()


def logistic(X, y, iters=50):
    beta = np.zeros(X.shape[1])
    for _ in range(iters):
        mu = 1 / (1 + np.exp(-X @ beta))
        H = X.T @ (X * (mu * (1 - mu))[:, None])
        step = np.linalg.solve(H, X.T @ (y - mu))
        beta += step
        if np.max(np.abs(step)) < 1e-12:
            break
    return beta


def test_mple_equals_logistic_regression_on_hand_change_statistics():
    """MPLE of edges + Proj1(~sum + nonzero + absdiff('b1')): the change statistics of every
    between-mode dyad computed here from B (full statistics with the tie minus without)."""
    n1, n2 = 14, 9
    g, B, a = two_mode(n1, n2, 0.3, 21)
    x = a["x1"]
    D = np.abs(np.subtract.outer(x, x))

    def full(M):
        y = upper(M @ M.T).astype(float)
        return np.array([M.sum(), y.sum(), (y != 0).sum(), (upper(D) * y).sum()])

    X, resp = [], []
    for i in range(n1):
        for j in range(n2):
            on, off = B.copy(), B.copy()
            on[i, j], off[i, j] = 1, 0
            X.append(full(on) - full(off))
            resp.append(B[i, j])
    beta = logistic(np.array(X), np.array(resp, dtype=float))
    fit = ef.ERGM(g, "edges + Proj1(~sum + nonzero + absdiff('b1'))").fit(method="mple")
    np.testing.assert_allclose(np.asarray(fit.params), beta, rtol=1e-6, atol=1e-8)


def test_short_mcmle_runs():
    g, _, _ = two_mode(14, 9, 0.3, 21)
    fit = ef.ERGM(g, "edges + Proj1(~nonzero)").fit(method="mcmle", random_state=1)
    assert np.all(np.isfinite(np.asarray(fit.params)))
    assert fit.params.labels == ["edges", "Proj1~nonzero"]


def test_davis_against_networkx_weighted_projection():
    """Davis southern women: Proj1/Proj2 sum, nonzero and atleast(3) equal networkx's
    weighted projections (edge weight = shared partners), an independent implementation."""
    g = ef.datasets.load("davis")
    s = stats(g, "Proj1(~sum + nonzero + atleast(3)) + Proj2(~sum + nonzero + atleast(3))")
    got = list(s.values())
    want = []
    for side in (0, 1):
        P = nx.bipartite.weighted_projected_graph(
            g, [v for v, d in g.nodes(data=True) if d["bipartite"] == side])
        w = [d["weight"] for *_, d in P.edges(data=True)]
        want += [sum(w), len(w), sum(x >= 3 for x in w)]
    assert got == want == [322, 139, 46, 214, 66, 42]


@pytest.mark.parametrize("formula, match", [
    # a projected tie's value is 0..5 (the 5 mode-2 nodes) onto mode 1, 0..12 onto mode 2
    ("edges + Proj1(~atleast(0))", r"Proj1~atleast\.0 \(always 1\): the same for every "
                                   r"value a projected tie can take \(0\.\.5: "),
    ("edges + Project(~sum + atmost(5), 1)", r"^Proj1~atmost\.5 \(always 1\)"),
    ("edges + Proj2(~atmost(12))", r"Proj2~atmost\.12 \(always 1\).*\(0\.\.12: the mode-1"),
    ("edges + Proj1(~greaterthan(-1) + equalto(2, tolerance=3))",
     r"greaterthan\.-1 \(always 1\), Proj1~equalto\.2\.pm\.3 \(always 1\)"),
    ("edges + Proj1(~ininterval(-1, 5, open=c(FALSE, FALSE)))", r"ininterval\[-1,5\]"),
])
def test_constant_projected_value_statistics_are_refused(formula, match):
    # the family's check_fit (the count family's rule for its reference) reads Project()'s
    # value statistics on the projected values: before, nothing checked them ahead of a fit,
    # and with an offset or a curved term (no dead-statistic check) cd, ee and mple fitted
    g, _, _ = two_mode(12, 5, 0.35, 1)
    m = ef.ERGM(g, formula)
    assert len(m.statistics()) >= 2              # statistics() keeps them, as statnet's
    with pytest.raises(ef.DegenerateModelError, match=match):
        m.family.check_fit(m)


@pytest.mark.parametrize("formula, kw", [
    ("offset(edges) + Proj1(~atleast(0)) + b1star(2)", {"offset_coef": [-1.0]}),
    ("edges + Proj1(~atleast(0)) + gwb1degree(0.5, fixed=FALSE)", {}),
])
@pytest.mark.parametrize("method", ["cd", "mple"])
def test_constant_projected_statistic_is_refused_before_a_fit(formula, kw, method):
    g, _, _ = two_mode(12, 5, 0.35, 1)
    with pytest.raises(ef.DegenerateModelError, match=r"Proj1~atleast\.0 \(always 1\)"):
        ef.ERGM(g, formula).fit(method=method, random_state=1, **kw)


def test_projected_value_statistics_that_vary_or_are_offsets_pass():
    g, _, _ = two_mode(12, 5, 0.35, 1)
    for f in ("edges + Proj1(~atmost(4) + nonzero + sum(pow=2) + CMP)",
              "edges + offset(Proj1(~atleast(0)))", "edges + Proj2(~atmost(11))"):
        m = ef.ERGM(g, f)
        m.family.check_fit(m)


@pytest.mark.parametrize("formula, match", [
    # session 21: the check read top-level terms only; through these operators the
    # constant statistic reached the estimators
    ('edges + Label(~Proj1(~atleast(0)), "x")', r"x\(Proj1~atleast\.0\) \(always 1\): the "
                                                r"same for every value a projected tie"),
    ('edges + Label(~Label(~Proj1(~sum + atleast(0)), "a"), "b")',
     r"^b\(a\(Proj1~atleast\.0\)\) \(always 1\)"),
    ("edges + Passthrough(~Proj1(~atleast(0)))", r"^Proj1~atleast\.0 \(always 1\)"),
    # over a curved term too (the operator keeps gwb1degree's map, not a Curve() of its own)
    ('edges + Label(~Proj1(~atleast(0)) + gwb1degree(0.5), "q")',
     r"^q\(Proj1~atleast\.0\) \(always 1\)"),
    ('edges + B(~Proj1(~atleast(0)), form="nonzero")', r"^B\(nonzero\)~Proj1~atleast\.0"),
    ("edges + Offset(~Proj1(~atleast(0) + sum), 1, which=2)", r"^Proj1~atleast\.0 \(always 1\)"),
    # combinations: the value is the observed total (66 pairs of the 12 mode-1 nodes, 10 of the
    # 5 mode-2 nodes)
    ("edges + Sum(~Proj1(~atleast(0)))", r"^Sum~Sum \(always 66 on this network's nodes\)"),
    ('edges + Sum(list(~Proj1(~atleast(0)), 2~Proj2(~atmost(12))), label="t")',
     r"^Sum~t \(always 86 on this network's nodes\)"),
    ("edges + Log(~Proj1(~atleast(0)))", r"^Log~Proj1~atleast\.0 \(always 4\.18965 on"),
    ("edges + Prod(~Proj1(~atleast(0)))", r"^Exp~Sum~Prod \(always 66 on"),
])
@pytest.mark.parametrize("method", ["mple", "cd"])
def test_constant_projected_statistics_are_seen_through_operators(formula, match, method):
    # with an offset the dead-statistic check is skipped: main fitted these (mple, cd)
    g, _, _ = two_mode(12, 5, 0.35, 1)
    m = ef.ERGM(g, "offset(edges) + b1star(2) + " + formula.removeprefix("edges + "))
    with pytest.raises(ef.DegenerateModelError, match=match):
        m.fit(method=method, random_state=1, offset_coef=[-1.0])


def test_operators_over_varying_or_fixed_projected_statistics_pass():
    g, _, _ = two_mode(12, 5, 0.35, 1)
    for f in ('edges + Label(~Proj1(~sum + nonzero), "ok")',
              "edges + Sum(list(~Proj1(~atleast(0)), ~Proj1(~sum)))",   # a constant + a varying
              "edges + Offset(~Proj1(~atleast(0)), 1)",
              "edges + Offset(~Proj1(~atleast(0) + sum), 1, which=1)",  # the constant is fixed
              # Curve(): a's coefficient is identified by b1star(2)'s statistic
              'edges + Curve(~Proj1(~atleast(0)) + b1star(2), params=c("a"), map="rep")'):
        m = ef.ERGM(g, f)
        m.family.check_fit(m)


def test_valued_edges_inside_project_is_nonzero():
    # statnet's help of edges: "valued: nonzero", "valued: edges" (the projection is a valued
    # network); before, Proj2(~edges) was refused as a binary term
    m = ef.ERGM("davis", "Proj2(~edges) + Proj2(~nonzero) + Proj1(~edges)")
    assert m.labels == ["Proj2~nonzero", "Proj2~nonzero", "Proj1~nonzero"]
    s = m.statistics_vector()
    assert s[0] == s[1] > 0 and s[2] > 0
