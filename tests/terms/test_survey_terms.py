"""Terms and arguments added by the statnet 4.12 term survey (docs/terms_coverage.md):
``threetrail(levels=)``, ``nodemix(b1levels=, b2levels=)``, the ``I()`` term and statnet
4.4's ``degreepopularity`` names.  Property checks as in support.change_stats.check_formula
(change statistic = difference of full statistics, toggling twice restores) plus values
against independent counts."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError
from support.change_stats import check_formula, random_network

PROPERTY = [
    ("directed", "threetrail(levels=c('RRL', 'LRL'))"),
    ("directed", "threetrail(levels=-1)"),
    ("directed", "threetrail(keep=2, levels=c(4, 1))"),
    ("bipartite", "nodemix('c', b1levels='v')"),
    ("bipartite", "nodemix('c', b1levels=c('v', 'u'), b2levels='u', levels2=-2)"),
    ("undirected", "degreepopularity + I(~kstar(2) + I('triangle'))"),
    ("directed", "idegreepopularity + odegreepopularity"),
]


@pytest.mark.parametrize("kind, formula", PROPERTY)
def test_change_statistics(kind, formula):
    for seed in range(3):
        check_formula(random_network(seed, kind), formula, seed)


def test_threetrail_levels_select_types_by_name_or_index():
    net = random_network(1, "directed")
    every = ef.ERGM(net, "threetrail").statistics()
    assert ef.ERGM(net, "threetrail(levels=c('LRL', 'RRR'))").statistics() == \
        {k: every[k] for k in ("threetrail.LRL", "threetrail.RRR")}
    assert list(ef.ERGM(net, "threetrail(levels=-1)").statistics()) == \
        ["threetrail.RRL", "threetrail.LRR", "threetrail.LRL"]
    # statnet: levels overrides keep
    assert list(ef.ERGM(net, "threetrail(keep=1, levels=3)").statistics()) == ["threetrail.LRR"]
    with pytest.raises(ErgmfitError, match="directed networks only"):
        ef.ERGM(random_network(1, "undirected"), "threetrail(levels=1)")


def test_nodemix_b1levels_b2levels_select_cells():
    net = random_network(2, "bipartite")
    every = ef.ERGM(net, "nodemix('c', levels2=TRUE)").statistics()
    assert list(every) == ["mix.c.u.u", "mix.c.v.u", "mix.c.u.v", "mix.c.v.v"]
    got = ef.ERGM(net, "nodemix('c', b1levels='v', levels2=TRUE)").statistics()
    assert got == {k: every[k] for k in ("mix.c.v.u", "mix.c.v.v")}
    got = ef.ERGM(net, "nodemix('c', b1levels=c('v', 'u'), b2levels='v', levels2=TRUE)")
    assert got.statistics() == {k: every[k] for k in ("mix.c.v.v", "mix.c.u.v")}
    # independent count
    c = net.node_attrs["c"]
    assert got.statistics()["mix.c.u.v"] == sum(1 for i, j in net.ties
                                                 if c[i] == "u" and c[j] == "v")
    with pytest.raises(ErgmfitError, match="two-mode networks"):
        ef.ERGM(random_network(2, "undirected"), "nodemix('a', b1levels=1)")
    with pytest.raises(ErgmfitError, match="b1levels and b2levels"):
        ef.ERGM(net, "nodemix('c', levels=1)")


def test_I_splices_terms_in_place():
    want = ef.ERGM("faux.mesa.high", "degree(0:1) + edges + kstar(2) + triangle").statistics()
    for f in ('I(c("degree(0)", "degree(1)")) + edges + I(~kstar(2) + triangle)',
              'I("degree(0) + degree(1)") + I(~edges + I(~kstar(2) + I("triangle")))'):
        got = ef.ERGM("faux.mesa.high", f).statistics()
        assert list(got) == list(want) and got == want
    # curved terms keep their parameters through I()
    m = ef.ERGM("faux.mesa.high", "edges + I(~gwesp(0.5, fixed=FALSE))")
    plain = ef.ERGM("faux.mesa.high", "edges + gwesp(0.5, fixed=FALSE)")
    assert (m.labels, m.stat_labels) == (plain.labels, plain.stat_labels)
    assert m.n_params == 3
    with pytest.raises(ErgmfitError, match="I\\(\\) takes one formula"):
        ef.ERGM("faux.mesa.high", "I(3)")


def test_degreepopularity_is_statnet_44s_degree15():
    net = random_network(3, "directed")
    s = ef.ERGM(net, "idegreepopularity + odegreepopularity + idegree1.5 + odegree1.5")
    v = s.statistics()
    assert v["idegreepopularity"] == v["idegree1.5"] and v["odegreepopularity"] == v["odegree1.5"]
    g = nx.DiGraph(list(map(tuple, net.ties.tolist())))
    assert v["idegree1.5"] == pytest.approx(sum(d ** 1.5 for _, d in g.in_degree()))


def test_survey_terms_are_listed_and_suggested():
    from ergmfit.terms import all_terms
    names = {s.name for s in all_terms()}
    assert {"I", "degreepopularity", "idegreepopularity", "odegreepopularity"} <= names
    with pytest.raises(ErgmfitError, match="Did you mean 'degreepopularity'"):
        ef.ERGM("faux.mesa.high", "degreepopularty")


# -- Curve() with curved terms inside (statnet: the map's outputs are the inner curved
# terms' parameters) ---------------------------------------------------------------------

REP = 'Curve(~gwesp(fixed=FALSE, cutoff=10), params=c("w", "a"), map="rep", minpar=c(-Inf, 0))'


def test_curve_over_a_curved_term_is_that_term():
    plain = ef.ERGM("flomarriage", "edges + gwesp(fixed=FALSE, cutoff=10)")
    m = ef.ERGM("flomarriage", "edges + " + REP)
    assert m.labels == ["edges", "w", "a"] and m.stat_labels == plain.stat_labels
    th = np.array([-1.5, 0.7, 0.4])
    np.testing.assert_allclose(m.eta(th), plain.eta(th), rtol=1e-12)
    np.testing.assert_allclose(m.parameterisation.jacobian(th),
                               plain.parameterisation.jacobian(th), rtol=1e-12)
    for kw in ({"method": "mple"}, {"method": "mcmle", "random_state": 1}):
        a, b = plain.fit(**kw), m.fit(**kw)
        np.testing.assert_allclose(np.asarray(b.params), np.asarray(a.params), rtol=1e-5,
                                   atol=1e-7)


def test_curve_map_feeds_the_inner_parameters():
    # ψ = (x, 0.5): gwesp's weight is the Curve parameter, its decay fixed at 0.5
    m = ef.ERGM("faux.mesa.high", 'edges + Curve(~gwesp(fixed=FALSE, cutoff=10), params="w", '
                                  'map=function(x, n, ...) c(x[1], 0.5), gradient="linear")')
    fixed = ef.ERGM("faux.mesa.high", "edges + gwesp(0.5, fixed=TRUE, cutoff=10)")
    np.testing.assert_allclose(np.asarray(m.fit(method="mple").params),
                               np.asarray(fixed.fit(method="mple").params), rtol=1e-7)
    # ∂η/∂w: gwesp's geometric weights at decay 0.5, e^0.5 (1 - (1 - e^-0.5)^k)
    k = np.arange(1, 11)
    np.testing.assert_allclose(m.parameterisation.jacobian(np.array([-5.0, 1.0]))[1:, 1],
                               np.exp(0.5) * (1 - (1 - np.exp(-0.5)) ** k), rtol=1e-12)


def test_curve_takes_a_finite_maxpar_and_a_curved_term_beside_it():
    # both were refused before (tests/model/test_curve_bounds.py checks the fits)
    m = ef.ERGM("flomarriage", 'Curve(~edges, params="a", map="rep", maxpar=3)')
    assert list(m.parameterisation.upper_bounds()) == [3.0]
    m = ef.ERGM("flomarriage", 'Curve(~triangle, params="t", map="rep") + gwesp(fixed=FALSE)')
    assert m.labels == ["t", "gwesp", "gwesp.decay"] and m.curved


def test_R_inf_and_unary_plus_in_arguments():
    got = ef.ERGM("faux.mesa.high", "degrange(1, to=+Inf)").statistics()
    assert got == ef.ERGM("faux.mesa.high", "degrange(1)").statistics()
    from ergmfit.formula import parse_formula
    assert parse_formula("f(minpar=-Inf, x=+2, y=c(+1, -Inf))")[0].kwargs == \
        {"minpar": -np.inf, "x": 2, "y": [1, -np.inf]}


def test_passthrough_takes_statnets_submodel_switch():
    want = ef.ERGM("flomarriage", "edges + degree(0)").statistics()
    for flag in ("TRUE", "FALSE"):
        got = ef.ERGM("flomarriage", f"Passthrough(~edges + degree(0), submodel={flag})")
        assert got.statistics() == want
    with pytest.raises(ErgmfitError, match="submodel must be True or False"):
        ef.ERGM("flomarriage", "Passthrough(~edges, submodel=2)")


SUM_WEIGHTS = ['Sum(list(c(1, 2) ~ edges + triangle, ~kstar(2) + isolates), label="v")',
               'Sum(list(matrix(c(1, 0, 2, 1, 0, 3), 3, 2) ~ edges + triangle), label="m")']


@pytest.mark.parametrize("formula", SUM_WEIGHTS)
def test_sum_vector_and_matrix_weights_change_statistics(formula):
    for seed in range(2):
        check_formula(random_network(seed, "undirected"), formula, seed)


def test_sum_vector_and_matrix_weights_values():
    s = ef.ERGM("flomarriage", "edges + triangle + kstar(2) + isolates").statistics()
    got = ef.ERGM("flomarriage", SUM_WEIGHTS[0]).statistics()
    assert got == {"Sum~v1": s["edges"] + s["kstar2"], "Sum~v2": 2 * s["triangle"] + s["isolates"]}
    # R's matrix() fills by column: columns (1, 0, 2) and (1, 0, 3), rows (1, 1), (0, 0), (2, 3)
    got = ef.ERGM("flomarriage", SUM_WEIGHTS[1]).statistics()
    e, t = s["edges"], s["triangle"]
    assert got == {"Sum~m1": e + t, "Sum~m2": 0.0, "Sum~m3": 2 * e + 3 * t}
    for bad, msg in (("Sum(list(c(1, 2, 3) ~ edges + triangle))", "3 value"),
                     ("Sum(list(matrix(c(1, 1, 1), 1, 3) ~ edges + triangle))", "needs 2")):
        with pytest.raises(ErgmfitError, match=msg):
            ef.ERGM("flomarriage", bad)


def test_sum_rbind_and_cbind_weights():
    s = ef.ERGM("flomarriage", "edges + triangle + kstar(2)").statistics()
    e, t, k = s["edges"], s["triangle"], s["kstar2"]
    want = {"Sum~w1": e + t, "Sum~w2": 2 * k}
    for w in ("rbind(c(1, 1, 0), c(0, 0, 2))", "cbind(c(1, 0), c(1, 0), c(0, 2))",
              "matrix(c(1, 0, 1, 0, 0, 2), 2, 3)"):
        got = ef.ERGM("flomarriage", f"Sum({w} ~ edges + triangle + kstar(2), label='w')")
        assert got.statistics() == want, w
    assert ef.ERGM("flomarriage", "Prod(list(rbind(c(1, 1)) ~ edges + triangle), label='p')"
                   ).statistics()["Exp~Sum~p"] == pytest.approx(e * t)
    with pytest.raises(ErgmfitError, match="needs 3"):
        ef.ERGM("flomarriage", "Sum(rbind(c(1, 1)) ~ edges + triangle + kstar(2))")
    check_formula(random_network(1, "undirected"),
                  "Sum(rbind(c(1, 0, 2), c(0, 1, 1)) ~ edges + triangle + kstar(2), label='w')", 1)


# -- R's I() in level arguments: values, not indices ------------------------------------

def test_I_in_levels_selects_by_value():
    net = random_network(5, "undirected")             # attribute 'a' has levels 0, 1, 2
    by_value = ef.ERGM(net, "nodefactor('a', levels=I(c(1, 2)))").statistics()
    assert by_value == ef.ERGM(net, "nodefactor('a', levels=c(2, 3))").statistics()
    assert list(by_value) == ["nodefactor.a.1", "nodefactor.a.2"]
    assert list(ef.ERGM(net, "nodematch('a', diff=TRUE, levels=I(0))").statistics()) == \
        ["nodematch.a.0"]
    # a level no node has: statnet's statistic 0 with its label (tests/terms/test_level_selection.py)
    assert ef.ERGM(net, "nodefactor('a', levels=I(7))").statistics() == {"nodefactor.a.7": 0}


# -- mm() margins: mm(a ~ .) and mm(. ~ a) ----------------------------------------------

MARGINS = [("undirected", "mm(a~.) + mm(.~a, levels2=TRUE)"),
           ("directed", "mm(a~., levels=I(c(2, 0)), levels2=TRUE) + mm(.~a)"),
           ("bipartite", "mm(c~., levels2=TRUE) + mm(.~c, levels2=-2)")]


@pytest.mark.parametrize("kind, formula", MARGINS)
def test_mm_margins_change_statistics(kind, formula):
    for seed in range(2):
        check_formula(random_network(seed, kind), formula, seed)


def test_mm_margins_values_and_labels():
    # statnet's own test (ergm tests/testthat/test-term-mm.R): summary(fmh ~ mm(.~Grade))
    got = ef.ERGM("faux.mesa.high", "mm(.~Grade)").statistics()
    assert got == {"mm[.,Grade=8]": 75, "mm[.,Grade=9]": 65, "mm[.,Grade=10]": 36,
                   "mm[.,Grade=11]": 49, "mm[.,Grade=12]": 28}
    s = ef.ERGM("samplike", "mm(group~.) + mm(.~group) + nodeofactor('group') + "
                            "nodeifactor('group')").statistics()
    for lev in ("Outcasts", "Turks"):
        assert s[f"mm[group={lev},.]"] == s[f"nodeofactor.group.{lev}"]
        assert s[f"mm[.,group={lev}]"] == s[f"nodeifactor.group.{lev}"]
    b = random_network(3, "bipartite")
    s = ef.ERGM(b, "mm(c~., levels2=TRUE) + mm(.~c, levels2=TRUE) + b1factor('c', levels=TRUE)"
                   " + b2factor('c', levels=TRUE)").statistics()
    for lev in ("u", "v"):
        assert s[f"mm[c={lev},.]"] == s[f"b1factor.c.{lev}"]
        assert s[f"mm[.,c={lev}]"] == s[f"b2factor.c.{lev}"]


# -- Label() with a function (statnet: a function or an as_mapper formula of the names) -----

@pytest.mark.parametrize("label, want", [
    ("toupper", ["EDGES", "KSTAR2"]),
    ("tolower", ["edges", "kstar2"]),
    ("~toupper(.)", ["EDGES", "KSTAR2"]),
    ("~paste0('net.', .x)", ["net.edges", "net.kstar2"]),
    ("~paste(., 'b', sep = '_')", ["edges_b", "kstar2_b"]),
    ("~paste('a', ..1)", ["a edges", "a kstar2"]),
    ("function(x) toupper(paste0(x, '.s'))", ["EDGES.S", "KSTAR2.S"]),
])
def test_label_function_forms(label, want):
    m = ef.ERGM("flomarriage", f"Label(~edges + kstar(2), {label}, pos='append')")
    plain = ef.ERGM("flomarriage", "edges + kstar(2)").statistics()
    assert m.statistics() == dict(zip(want, plain.values()))


def test_label_string_named_like_a_function_is_a_string():
    # quoted, 'toupper' is a character label, as in R
    assert list(ef.ERGM("flomarriage", "Label(~edges, 'toupper')").statistics()) == \
        ["toupper(edges)"]


@pytest.mark.parametrize("label, match", [
    ("~substr(., 1, 2)", "'substr' is not supported"),     # (sub/gsub: supported, s6)
    ("function(x, y) x", "one argument"),
    ("~toupper", "expected '\\('"),
    ("~paste0(., y)", "'y' is not supported"),
    ("2 ~ toupper(.)", "left-hand side"),
])
def test_label_function_refused_forms_name_the_supported_ones(label, match):
    with pytest.raises(ErgmfitError, match=match) as err:
        ef.ERGM("flomarriage", f"Label(~edges, {label})")
    assert "toupper, tolower" in str(err.value)


def test_passthrough_label_is_statnets_logical_name_wrap():
    # statnet's Passthrough(formula, label=FALSE, submodel=TRUE): TRUE wraps the names as
    # its standard operator name wrap, Passthrough~<name>; main accepted and ignored label
    m = ef.ERGM("flomarriage", "Passthrough(~edges + degree(0), label=TRUE)")
    assert m.labels == ["Passthrough~edges", "Passthrough~degree0"]
    assert m.statistics() == {"Passthrough~edges": 20.0, "Passthrough~degree0": 1.0}
    curved = ef.ERGM("flomarriage", "Passthrough(~gwesp(cutoff=3), TRUE)")
    assert curved.labels == ["Passthrough~gwesp", "Passthrough~gwesp.decay"]
    assert ef.ERGM("flomarriage", "Passthrough(~edges, label=FALSE)").labels == ["edges"]
    for bad in ('"x"', "1"):
        with pytest.raises(ErgmfitError, match=r"label must be TRUE or FALSE .* use "
                                               r"Label\(~\.\.\., label\)"):
            ef.ERGM("flomarriage", f"Passthrough(~edges, label={bad})")
