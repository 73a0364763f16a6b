"""One ``nobs`` and one null log-likelihood per model, whichever estimator fits it.

statnet's ``nobs`` counts the dyads the model's sample space lets vary and observes (a
two-mode network's between its modes, the free dyads of ``fixallbut``/``blockdiag``/
``Dyads()``, a panel's transitions, without the unobserved ones; an infinite offset decides
dyads but does not remove them), and ``logLikNull`` is the log-likelihood over them at
θ = 0: -nobs log 2 for binary ties, the reference measure alone for counts.  Every
estimator that accepts a model reports the same two numbers
(:func:`ergmfit.estimation.common.nobs.fit_nobs`), checked here against hand counts.
"""
import itertools
import math
import warnings

import networkx as nx
import numpy as np
import pytest
from scipy.special import gammaln

import ergmfit as ef
from ergmfit.estimation import methods, supports
from support.estimator_contract import SMALL
from support.valued_networks import random_count_graph

LOG2 = math.log(2.0)


def _two_mode_2x3():
    g = nx.Graph()
    g.add_nodes_from(["a", "b"], bipartite=0)
    g.add_nodes_from(["x", "y", "z"], bipartite=1)
    g.add_edges_from([("a", "x"), ("a", "y"), ("b", "z")])
    return g


def _group_sizes(g, attr):
    sizes = {}
    for _, v in g.nodes(data=attr):
        sizes[v] = sizes.get(v, 0) + 1
    return list(sizes.values())


def _three_groups():
    """9 nodes in 3 groups, ties only between groups (offset(nodematch) at -Inf fits)."""
    g = nx.Graph()
    g.add_nodes_from(range(9))
    for v in g:
        g.nodes[v]["grp"] = v % 3
    g.add_edges_from((i, j) for i, j in itertools.combinations(range(9), 2)
                     if i % 3 != j % 3 and (i + 2 * j) % 3 != 1)
    return g


def _panel():
    return ef.NetSeries([nx.gnp_random_graph(10, 0.3, seed=s) for s in range(3)])


FLO = ef.datasets.load("flomarriage")
SAMP = ef.datasets.load("samplike")
FLO_NODES = list(FLO.nodes)
FREE = list(itertools.combinations(FLO_NODES[:10], 2))               # k = 45 free dyads
MISSING = [(FLO_NODES[0], FLO_NODES[1]), (FLO_NODES[2], FLO_NODES[3]),
           (FLO_NODES[4], FLO_NODES[5])]                                 # m = 3
WITHIN = sum(n * (n - 1) for n in _group_sizes(SAMP, "group"))          # directed, ordered
COUNTS = random_count_graph(8, False, 1, 0.5, 3)
VALUES = [w for _, _, w in COUNTS.edges(data="w")]

# name: (model builder, settings of every fit, hand-counted nobs, null log-likelihood)
SPACES = {
    "undirected": (lambda: ef.ERGM(FLO, "edges + triangle"), {}, 16 * 15 // 2, None),
    "directed": (lambda: ef.ERGM(SAMP, "edges + mutual"), {}, 18 * 17, None),
    "two-mode 2x3": (lambda: ef.ERGM(_two_mode_2x3(), "edges"), {}, 2 * 3, None),
    "fixallbut k=45": (lambda: ef.ERGM(FLO, "edges + kstar(2)",
                                       constraints=("~ fixallbut(free)", {"free": FREE})),
                       {}, 45, None),
    "blockdiag": (lambda: ef.ERGM(SAMP, "edges + mutual", constraints="~ blockdiag('group')"),
                  {}, WITHIN, None),
    "Dyads(fix=)": (lambda: ef.ERGM(SAMP, "edges + mutual",
                                    constraints="~ Dyads(fix=~nodematch('group'))"),
                    {}, 18 * 17 - WITHIN, None),
    "missing m=3": (lambda: ef.ERGM(FLO, "edges + triangle", missing=MISSING), {},
                    120 - 3, None),
    "offset -Inf": (lambda: ef.ERGM(_three_groups(), "edges + offset(nodematch('grp'))"),
                    {"offset_coef": [-np.inf]}, 9 * 8 // 2, None),
    # Poisson: h(y) = 1/y!, sum_y h(y) = e: the null is -sum log y! - nobs
    "count Poisson": (lambda: ef.ERGM(COUNTS, "sum + nonzero", response="w",
                                      reference="Poisson"),
                      {}, 8 * 7 // 2, -float(np.sum(gammaln(np.add(VALUES, 1)))) - 28.0),
    "panel 3 waves": (lambda: ef.ERGM(_panel(), "Form(~edges) + Persist(~edges)"), {},
                      2 * 45, None),
}

#: the estimators of a panel's transitions (tergm's and btergm's) beside the static ones
PANEL_METHODS = ("cmle", "cmple", "btergm")

#: (space, method) fits that fail today for a reason of their own (strict xfail: a fix makes
#: the case pass, and then it must leave this list)
KNOWN_FAILING = {}


def _accepts(method, model) -> bool:
    """Whether ``method`` declares what the model needs (family, constraints, missing)."""
    s = supports(method)
    if model.family.name not in s["families"]:
        return False
    if model.sample_space.constrained and not s["constraints"]:
        return False
    return not (model.sample_space.n_missing and not s["missing"])


def _egmme_model(space, model):
    """EGMME's model of the same network and sample space (tergm's ``Form(~f)``), or None
    where there is none: a count or panel model, missing dyads, offsets, a two-mode network
    (NetworkError: stacking two-mode networks is not implemented)."""
    if space in ("count Poisson", "panel 3 waves", "missing m=3", "offset -Inf",
                 "two-mode 2x3"):
        return None
    formula = f"Form(~{model.formula})"
    cons = model.constraints
    if isinstance(cons, tuple):
        # the cross-section's dyads are named as a panel's, by (time, node) labels
        t = ef.ERGM(model.network, formula).network.labels[0][0]
        spec, args = cons
        cons = (spec, {"free": [((t, u), (t, v)) for u, v in args["free"]]})
    return ef.ERGM(model.network, formula, constraints=cons)


def _cases():
    out = []
    for space, (build, _, _, _) in SPACES.items():
        model = build()
        for method in methods():
            if method == "egmme":
                if _egmme_model(space, model) is None:
                    continue
            elif not _accepts(method, model):
                continue
            marks = ()
            if (space, method) in KNOWN_FAILING:
                marks = pytest.mark.xfail(strict=True, raises=ValueError,
                                          reason=KNOWN_FAILING[(space, method)])
            out.append(pytest.param(space, method, id=f"{space}-{method}", marks=marks))
        if space.startswith("panel"):
            out += [pytest.param(space, m, id=f"{space}-{m}") for m in PANEL_METHODS]
    return out


def _fit(space, method):
    build, settings, _, _ = SPACES[space]
    model = build()
    if method == "egmme":
        model = _egmme_model(space, model)
    kwargs = dict(SMALL.get({"cmle": "mcmle", "cmple": "mple"}.get(method, method), {}))
    if method == "btergm":
        kwargs = {"R": 10}
    kwargs.update(settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(method=method, random_state=1, **kwargs)


@pytest.mark.parametrize("space,method", _cases())
def test_every_estimator_reports_the_sample_spaces_nobs_and_null(space, method):
    _, _, nobs, null = SPACES[space]
    fit = _fit(space, method)
    assert fit.nobs == nobs
    expected = -nobs * LOG2 if null is None else null
    assert fit.null_loglik == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert fit.df_null == nobs and fit.null_deviance == pytest.approx(-2.0 * expected)


def test_the_cases_cover_every_estimator_and_space():
    cases = {(p.values[0], p.values[1]) for p in _cases()}
    assert {m for _, m in cases} == set(methods()) | set(PANEL_METHODS)
    assert {s for s, _ in cases} == set(SPACES)
    # every estimator that fits counts is checked on the count model
    count = {m for s, m in cases if s == "count Poisson"}
    assert count == {m for m in methods() if "count" in supports(m)["families"]}


@pytest.mark.parametrize("method", ["exact", "mple"])
def test_an_egocentric_fit_counts_the_pseudo_populations_dyads(method):
    # ergm.ego fits the network model on a pseudo-population of N' = popsize nodes: the
    # exact solve on dyad classes counts the same N'(N' - 1)/2 dyads as the MPLE
    ego = ef.EgoData.from_network(ef.datasets.load("faux.mesa.high"))
    fit = ef.ERGM(ego, "edges + nodematch('Sex')", popsize=205).fit(method=method)
    assert fit.nobs == 205 * 204 // 2
    assert fit.null_loglik == pytest.approx(-fit.nobs * LOG2, rel=1e-12)
