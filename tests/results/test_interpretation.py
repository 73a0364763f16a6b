"""Interpretation helpers (#37 item 5): odds ratios, predicted tie probabilities,
average marginal effects and the comparison of fits.

Tie probabilities are checked against the brute-force conditional probability
from full statistics (the network with and without the tie); marginal effects
against finite differences; likelihood-ratio tests against 2 * the
log-likelihood difference and the chi-square tail.
"""
import math

import networkx as nx
import numpy as np
import pytest
from scipy import special, stats

import ergmfit as ef
from support.paths import DOCS
from ergmfit.exceptions import ErgmfitError, NetworkError
from ergmfit.results import ERGMResults


# ---------------------------------------------------------------------------
# brute force
# ---------------------------------------------------------------------------
def brute_force_probability(model, params, u, v):
    """logistic(eta . (g(y + uv) - g(y - uv))) from full statistics."""
    net = model.network
    ties = {tuple(t) for t in net.ties.tolist()}
    i, j = net.labels.index(u), net.labels.index(v)
    key = (i, j) if net.directed else (min(i, j), max(i, j))
    with_tie = sorted(ties | {key})
    without = sorted(ties - {key})
    g1 = model.statistics_vector(np.array(with_tie, dtype=np.int64).reshape(-1, 2))
    g0 = model.statistics_vector(np.array(without, dtype=np.int64).reshape(-1, 2))
    return float(special.expit(model.eta(params) @ (g1 - g0)))


def _random_graph(n, p, directed, seed):
    g = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    rng = np.random.default_rng(seed)
    for k in g.nodes:
        g.nodes[k]["x"] = float(rng.normal())
        g.nodes[k]["grp"] = "ab"[int(rng.integers(2))]
    return g


CASES = [
    (False, "edges + triangle + kstar(2) + nodematch('grp') + nodecov('x')", [-1.0, 0.4, -0.1, 0.5, 0.3]),
    (False, "edges + gwesp(0.5, fixed=TRUE) + gwdegree(0.7, fixed=TRUE)", [-1.5, 0.6, -0.4]),
    (True, "edges + mutual + istar(2) + ostar(2) + ttriple + nodeifactor('grp')", [-1.2, 1.0, 0.1, -0.1, 0.2, 0.3]),
    (True, "edges + gwesp(fixed=FALSE) + nodematch('grp')", [-1.0, 0.5, 0.6, 0.4]),
]


@pytest.mark.parametrize("directed, formula, params", CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_predict_equals_the_brute_force_conditional_probability(directed, formula, params, seed):
    g = _random_graph(7, 0.35, directed, seed)
    m = ef.ERGM(g, formula)
    tp = m.predict(params)                          # every dyad
    n = 7
    assert len(tp) == (n * (n - 1) if directed else n * (n - 1) // 2)
    for (u, v), p in zip(tp.dyads, tp.probability):
        assert p == pytest.approx(brute_force_probability(m, params, u, v), rel=1e-10, abs=1e-14)
    # named dyads, in the order given, either orientation of an undirected dyad
    some = [(3, 1), (0, 6), (5, 2)]
    tp2 = m.predict(params, dyads=some)
    assert tp2.dyads == some
    for (u, v), p in zip(some, tp2.probability):
        assert p == pytest.approx(brute_force_probability(m, params, u, v), rel=1e-10)
    # the observed ties are reported
    ties = {tuple(t) for t in m.network.ties.tolist()}
    assert [bool(t) for t in tp.ties] == [tuple(pr) in ties for pr in tp.pairs.tolist()]


def test_predict_two_mode_network_predicts_between_mode_dyads_only():
    g = nx.Graph()
    g.add_nodes_from(["a", "b", "c"], bipartite=0)
    g.add_nodes_from(["X", "Y", "Z", "W"], bipartite=1)
    g.add_edges_from([("a", "X"), ("b", "Y"), ("a", "Z"), ("c", "X"), ("c", "W")])
    m = ef.ERGM(g, "edges + b1star(2) + b2star(2)")
    params = [-0.8, 0.3, -0.2]
    tp = m.predict(params)
    assert len(tp) == 12
    for (u, v), p in zip(tp.dyads, tp.probability):
        assert (u in "abc") != (v in "abc")
        assert p == pytest.approx(brute_force_probability(m, params, u, v), rel=1e-10)
    same_mode = m.predict(params, dyads=[("a", "b"), ("a", "Y")])
    assert math.isnan(same_mode.probability[0]) and not same_mode.free[0]
    assert same_mode.probability[1] == pytest.approx(
        brute_force_probability(m, params, "a", "Y"), rel=1e-10)


def test_predict_respects_constraints_and_missing_dyads():
    g = _random_graph(8, 0.3, False, 3)
    free = [(0, 1), (2, 5), (3, 7)]
    m = ef.ERGM(g, "edges + triangle", constraints=("~ fixallbut(free)", {"free": free}))
    tp = m.predict([-1.0, 0.3])
    assert sorted(tuple(sorted(d)) for d in tp.dyads) == sorted(free)
    mixed = m.predict([-1.0, 0.3], dyads=[(0, 1), (0, 2)])
    assert np.isfinite(mixed.probability[0]) and math.isnan(mixed.probability[1])
    # missing dyads are predicted too (given the observed ties)
    mm = ef.ERGM(g, "edges + triangle", missing=[(0, 4), (1, 6)])
    tp = mm.predict([-1.0, 0.3])
    assert len(tp) == 28
    assert {(0, 4), (1, 6)} <= {tuple(sorted(d)) for d in tp.dyads}
    flagged = {tuple(sorted(d)) for d, miss in zip(tp.dyads, tp.missing) if miss}
    assert flagged == {(0, 4), (1, 6)} and "missing" in tp.to_frame().columns


def test_predict_compressed_form_and_large_network_refusal():
    g = _random_graph(12, 0.3, False, 4)
    m = ef.ERGM(g, "edges + nodematch('grp') + kstar(2)")
    params = [-1.0, 0.7, 0.05]
    full = m.predict(params)
    comp = m.predict(params, compressed=True)
    assert comp.compressed and comp.count.sum() == len(full)
    assert comp.ties.sum() == full.ties.sum()
    assert comp.mean() == pytest.approx(full.mean(), rel=1e-12)
    assert len(comp) < len(full)
    with pytest.raises(ErgmfitError, match="compressed=True"):
        m.predict(params, max_dyads=10)
    with pytest.raises(ValueError):
        comp.to_matrix()
    M = full.to_matrix()
    assert np.allclose(M, M.T, equal_nan=True) and np.isnan(np.diag(M)).all()


def test_predict_bad_dyads_get_a_clear_error():
    m = ef.ERGM(nx.path_graph(4), "edges")
    with pytest.raises(NetworkError, match="not in the network"):
        m.predict([-1.0], dyads=[(0, 9)])
    with pytest.raises(NetworkError, match="itself"):
        m.predict([-1.0], dyads=[(1, 1)])


def test_fit_predict_uses_the_fitted_params():
    g = ef.datasets.load("flomarriage")
    fit = ef.ERGM(g, "edges + nodecov('wealth')").fit(method="mple")
    tp = fit.predict(dyads=[(9, 15), (1, 2)])
    for (u, v), p in zip(tp.dyads, tp.probability):
        assert p == pytest.approx(brute_force_probability(fit.model, fit.params, u, v), rel=1e-10)
    # dyad-independent MPLE is the MLE: the mean probability is the density
    assert fit.predict().mean() == pytest.approx(20 / 120, rel=1e-6)


# ---------------------------------------------------------------------------
# odds ratios
# ---------------------------------------------------------------------------
def test_odds_ratios_are_exp_params_and_exp_intervals():
    g = ef.datasets.load("flomarriage")
    fit = ef.ERGM(g, "edges + nodecov('wealth')").fit(method="mple")
    ors = fit.odds_ratios(alpha=0.1)
    assert ors.labels == fit.labels
    assert ors.columns == ["odds ratio", "5 %", "95 %"]
    assert np.allclose(ors[:, 0], np.exp(fit.params))
    assert np.allclose(ors[:, 1:], np.exp(np.asarray(fit.conf_int(0.1))))
    assert ors.to_frame().columns.tolist() == ["odds ratio", "5 %", "95 %"]


def test_odds_ratios_of_decay_and_offset_parameters_are_documented_nan():
    g = ef.datasets.load("flomarriage")
    fit = ef.ERGM(g, "edges + gwesp(fixed=FALSE)").fit(method="mple")
    ors = fit.odds_ratios()
    k = fit.labels.index("gwesp.decay")
    assert np.isnan(ors[k]).all()
    assert np.isfinite(ors["gwesp"]).all()
    off = ef.ERGM(g, "offset(edges) + nodecov('wealth')").fit(method="mple", offset_coef=[-2.0])
    ors = off.odds_ratios()
    assert ors[0, 0] == pytest.approx(math.exp(-2.0)) and np.isnan(ors[0, 1:]).all()
    assert np.isfinite(ors[1]).all()


# ---------------------------------------------------------------------------
# marginal effects
# ---------------------------------------------------------------------------
def _ame_by_finite_differences(model, theta, X, w, k, h=1e-6):
    """Mean over dyads of the change in probability per unit change statistic of
    coefficient k (linear model: column k of X), by central differences."""
    eta = model.eta(theta)
    e = np.zeros(X.shape[1])
    e[k] = h
    up = special.expit((X + e) @ eta)
    dn = special.expit((X - e) @ eta)
    return float(np.sum(w * (up - dn) / (2 * h)) / np.sum(w))


def test_marginal_effects_match_finite_differences_and_the_delta_method():
    from ergmfit.interpretation import _design_rows, ame_values
    g = ef.datasets.load("flomarriage")
    fit = ef.ERGM(g, "edges + nodecov('wealth') + kstar(2)").fit(method="mple")
    ame = fit.marginal_effects()
    assert ame.columns == ["AME", "Std. Error", "z value", "Pr(>|z|)"]
    X, w = _design_rows(fit.model, None, fit.params)
    theta = np.asarray(fit.params)
    for k, lab in enumerate(fit.labels):
        assert ame[lab][0] == pytest.approx(_ame_by_finite_differences(fit.model, theta, X, w, k),
                                            rel=1e-6)
    # the delta method's gradient equals a numerical derivative of AME(theta)
    _, G = ame_values(fit.model, theta, X, w)
    h = 1e-6
    G_num = np.column_stack([(ame_values(fit.model, theta + h * e, X, w)[0]
                              - ame_values(fit.model, theta - h * e, X, w)[0]) / (2 * h)
                             for e in np.eye(len(theta))])
    assert np.allclose(G, G_num, rtol=1e-5, atol=1e-9)
    se = np.sqrt(np.diag(G @ fit.cov @ G.T))
    assert np.allclose(ame[:, 1], se)
    # closed form for the edges-only model: theta p (1 - p)
    f0 = ef.ERGM(g, "edges").fit(method="mple")
    p = 20 / 120
    assert f0.marginal_effects()["edges"][0] == pytest.approx(float(f0.params[0]) * p * (1 - p),
                                                              rel=1e-6)


def test_marginal_effects_of_a_curved_weight_and_named_dyads():
    from ergmfit.interpretation import ame_values
    g = _random_graph(10, 0.3, False, 5)
    m = ef.ERGM(g, "edges + gwesp(fixed=FALSE)")
    theta = np.array([-1.0, 0.4, 0.7])
    res = ERGMResults(theta, np.eye(3) * 0.01, m.labels, method="mple", model=m)
    dyads = [(0, 1), (2, 3), (4, 9), (5, 6)]
    ame = res.marginal_effects(dyads=dyads)
    assert np.isnan(ame["gwesp.decay"]).all()
    # the weight's AME: derivative of p along its change statistic at the decay
    tp = m.predict(theta, dyads=dyads)
    J = m.parameterisation.jacobian(theta)
    x_w = tp.change_stats @ J[:, 1]
    h = 1e-6
    rest = tp.change_stats @ m.eta(theta) - theta[1] * x_w
    fd = np.mean((special.expit(rest + theta[1] * (x_w + h))
                  - special.expit(rest + theta[1] * (x_w - h))) / (2 * h))
    assert ame["gwesp"][0] == pytest.approx(fd, rel=1e-6)
    X, w = tp.change_stats, np.ones(len(dyads))
    assert ame["edges"][0] == pytest.approx(ame_values(m, theta, X, w)[0][0], rel=1e-12)


# ---------------------------------------------------------------------------
# comparison of fits
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def flo_fits():
    g = ef.datasets.load("flomarriage")
    f1 = ef.ERGM(g, "edges").fit(method="mple")
    f2 = ef.ERGM(g, "edges + nodecov('wealth')").fit(method="mple")
    f3 = ef.ERGM(g, "edges + nodecov('wealth') + nodecov('priorates')").fit(method="mple")
    return f1, f2, f3


def test_compare_likelihood_ratio_tests(flo_fits):
    f1, f2, f3 = flo_fits
    cmp = ef.compare(f1, f2, f3)
    assert [r["df"] for r in cmp.rows] == [1, 2, 3]
    assert [r["aic"] for r in cmp.rows] == [f.aic for f in flo_fits]
    for t, (a, b) in zip(cmp.lr_tests, [(f1, f2), (f2, f3)]):
        lr = 2 * (b.loglik - a.loglik)
        assert t["lr"] == pytest.approx(lr) and t["df"] == 1
        assert t["p"] == pytest.approx(stats.chi2.sf(lr, 1))
    t13 = cmp.lr_test(0, 2)
    assert t13["df"] == 2 and t13["lr"] == pytest.approx(2 * (f3.loglik - f1.loglik))
    assert "Pr(>Chi)" in str(cmp)


def _fake(labels, loglik, kind="exact", nobs=120, ties=((0, 1),), n=5):
    return ERGMResults(np.zeros(len(labels)), np.eye(len(labels)), labels, method="mple",
                       loglik=loglik, loglik_kind=kind, nobs=nobs,
                       network={"n": n, "directed": False, "ties": [list(t) for t in ties]})


def test_compare_refuses_what_a_likelihood_ratio_cannot_compare():
    a = _fake(["edges"], -60.0)
    cases = {
        "different networks": _fake(["edges", "triangle"], -55.0, ties=((0, 2),)),
        "pseudo": _fake(["edges", "triangle"], -55.0, kind="pseudo"),
        "no log-likelihood": _fake(["edges", "triangle"], None, kind=None),
        "not nested": _fake(["kstar2", "triangle"], -55.0),
        "numbers of dyads": _fake(["edges", "triangle"], -55.0, nobs=100),
    }
    for why, b in cases.items():
        cmp = ef.compare(a, b)
        t = cmp.lr_tests[0]
        assert math.isnan(t["p"]) and why in t["note"], (why, t)
        assert why in str(cmp)
        with pytest.raises(ErgmfitError, match=why):
            cmp.lr_test(0, 1)
    with pytest.raises(ErgmfitError, match="not a fit"):
        ef.compare(a, "edges")


def test_compare_table_formats(flo_fits):
    f1, f2, _ = flo_fits
    cmp = ef.compare(f1, f2, names=["null_model", "wealth & co"])
    for text in (cmp.to_text(), cmp.to_markdown(), cmp.to_html(), cmp.to_latex()):
        for lab in ("edges", "nodecov", "AIC", "BIC", "Log Likelihood", "120", "(0.245)",
                    "-1.609", "0.011"):
            assert lab in text, (lab, text)
    md = cmp.to_markdown().splitlines()
    assert md[0] == "|  | null_model | wealth & co |" and md[1] == "|---|---:|---:|"
    row = [ln for ln in md if ln.startswith("| nodecov.wealth")][0]
    assert row.split("|")[2].strip() == ""            # not in the first model: empty cell
    tex = cmp.to_latex()
    assert "null\\_model" in tex and "wealth \\& co" in tex and "nodecov.wealth" in tex
    assert tex.count("\\begin{tabular}") == 1 and tex.rstrip().endswith("\\end{tabular}")
    h = cmp.to_html()
    assert "wealth &amp; co" in h and h.count("<tr") == 1 + 4 + 4 + 1
    txt = cmp.to_text().splitlines()
    assert any(ln.startswith("edges") and "***" in ln for ln in txt)
    # the union of the labels, in order of first appearance
    assert cmp.labels == ["edges", "nodecov.wealth"]


def test_compare_is_exported():
    assert "compare" in ef.__all__ and ef.compare is ef.comparison.compare


def test_the_interpretation_page_runs():
    """docs/interpretation.md: its ``pycon`` blocks run as one doctest."""
    import doctest
    import re
    path = DOCS / "interpretation.md"
    blocks = re.findall(r"^```pycon\n(.*?)^```", path.read_text(encoding="utf-8"),
                        flags=re.S | re.M)
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, path.name, str(path), 0)
    assert len(test.examples) >= 10
    out = []
    result = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                   | doctest.ELLIPSIS).run(test, out=out.append)
    assert result.failed == 0, "".join(out)
