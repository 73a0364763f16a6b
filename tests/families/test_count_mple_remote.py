"""The count MPLE of dyad-dependent models with the zero dyads grouped by what their
change statistics read (``RemoteZeros`` in ergmfit/estimation/mple/count.py).

* The grouped design gives the dyad-by-dyad design's MPLE, standard errors and
  log pseudo-likelihood (directed and undirected; mutual, transitiveweights,
  cyclicalweights, nodecovar and its directed and square-root versions, valued forms
  of attribute terms, four references).
* It equals a direct maximisation of the pseudo-likelihood written independently in
  tests/families/test_count_mple.py (whole-network statistics per dyad and value).
* A declaration that does not hold changes the estimate (so the first check can fail).
"""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mple import count
from support.valued_networks import samptot
from families.test_count_mple import direct_mple, random_valued


def grouped_network(n, directed, density, seed):
    rng = np.random.default_rng(seed)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from((i, {"grp": int(rng.integers(0, 2))}) for i in range(n))
    for i in range(n):
        for j in range(n):
            if i != j and (directed or i < j) and rng.random() < density:
                g.add_edge(i, j, w=int(1 + rng.poisson(0.8)))
    return g


@pytest.fixture
def every_size(monkeypatch):
    # small networks: group the zero dyads even where it does not pay
    monkeypatch.setattr(count.RemoteZeros, "MAX_FRACTION", float("inf"))
    calls = []
    design = count.RemoteZeros.design

    def spy(self, cm, lo, hi):
        d = design(self, cm, lo, hi)
        calls.append(d is not None)
        return d
    monkeypatch.setattr(count.RemoteZeros, "design", spy)
    split = count.count_design

    def spy_split(*args, **kw):
        if kw.get("fixed") is not None:
            calls.append("split")
        return split(*args, **kw)
    monkeypatch.setattr(count, "count_design", spy_split)
    return calls


def by_dyad(m, monkeypatch, **kw):
    with monkeypatch.context() as mp:
        mp.setattr(count.RemoteZeros, "of", classmethod(lambda cls, model: None))
        return m.fit("mple", **kw)


CASES = [
    (False, 40, 0.06, "sum + nonzero + transitiveweights + nodecovar(center=TRUE)", "Poisson"),
    (False, 40, 0.06, "sum + nonzero + transitiveweights('geomean','sum','geomean') + "
                      "nodesqrtcovar(center=TRUE) + nodematch('grp', form='sum')", "Poisson"),
    (True, 30, 0.2, "sum + nonzero + mutual(form='min') + transitiveweights + "
                    "cyclicalweights", "Poisson"),
    (True, 30, 0.08, "sum + nonzero + mutual(form='nabsdiff') + nodeocovar(center=TRUE) + "
                     "nodeicovar(center=FALSE, transform='sqrt') + "
                     "nodefactor('grp', form='nonzero')", "Geometric"),
    (False, 30, 0.1, "sum + nonzero + transitiveweights + CMB(3)", "Binomial(3)"),
]


@pytest.mark.parametrize("directed, n, density, formula, reference", CASES)
def test_grouped_zero_dyads_give_the_dyad_by_dyad_mple(directed, n, density, formula,
                                                       reference, every_size, monkeypatch):
    g = grouped_network(n, directed, density, seed=n + len(formula))
    if reference.startswith("Binomial"):
        for _, _, d in g.edges(data=True):
            d["w"] = min(d["w"], 3)
    m = ef.ERGM(g, formula, response="w", reference=reference)
    assert count.RemoteZeros.of(m) is not None
    grouped = m.fit("mple")
    assert every_size and all(every_size)
    # the near dyads' class-reading terms are taken per class pair where both kinds are
    if not directed:       # (here every undirected case has near dyads sharing class pairs)
        assert "split" in every_size
    dyadwise = by_dyad(m, monkeypatch)
    assert grouped.info["design"]["n_vars"] == dyadwise.info["design"]["n_vars"]
    assert np.allclose(np.asarray(grouped.params), np.asarray(dyadwise.params), atol=1e-10)
    assert np.allclose(np.asarray(grouped.bse), np.asarray(dyadwise.bse), atol=1e-10)
    assert grouped.loglik == pytest.approx(dyadwise.loglik, abs=1e-8)


def test_samptot_grouped_equals_dyad_by_dyad(every_size, monkeypatch):
    m = ef.ERGM(samptot(), "sum + nonzero + mutual(form='min') + transitiveweights + "
                "nodeocovar(center=TRUE) + nodematch('group', form='sum')",
                response="nominations", reference="Binomial(3)")
    grouped = m.fit("mple")
    assert all(every_size)
    dyadwise = by_dyad(m, monkeypatch)
    assert np.allclose(np.asarray(grouped.params), np.asarray(dyadwise.params), atol=1e-10)


@pytest.mark.parametrize("directed, formula, reference, seed", [
    (True, "sum + nonzero + mutual(form='min') + transitiveweights", "Poisson", 1),
    (False, "sum + nonzero + transitiveweights + nodecovar(center=TRUE)", "Poisson", 5),
    (True, "sum + cyclicalweights + nodeocovar(center=FALSE)", "Binomial(3)", 3),
])
def test_grouped_mple_equals_direct_pseudolikelihood_maximum(directed, formula, reference,
                                                             seed, every_size):
    g = random_valued(7, directed, 0.35, 1.0, seed,
                      trials=3 if "Binomial" in reference else None)
    m = ef.ERGM(g, formula, response="weight", reference=reference)
    fit = m.fit("mple")
    assert every_size and all(every_size)
    ref = m.reference
    support = np.arange(0, 4) if ref.hi is not None else np.arange(0, 80)
    want = direct_mple(m, support, ref.log_h(support))
    assert np.allclose(np.asarray(fit.params), want, atol=1e-5), (fit.params, want)


def test_a_wrong_declaration_changes_the_estimate(every_size, monkeypatch):
    # transitiveweights declared as reading nothing near: its nonzero changes at the zero
    # dyads that close a two-path are replaced by the remote ones (0): a different MPLE
    # (seed 8: with seed 7 the wrong design's pseudo-likelihood has no maximum, which the
    # count MPLE now reports as an error instead of returning a point on the way to -Inf)
    g = grouped_network(40, False, 0.08, seed=8)
    m = ef.ERGM(g, "sum + nonzero + transitiveweights", response="w", reference="Poisson")
    right = m.fit("mple")
    monkeypatch.setattr(m.terms[2].zero_locality, "near", None)
    wrong = m.fit("mple")
    assert not np.allclose(np.asarray(right.params), np.asarray(wrong.params), atol=1e-3)


def test_only_declared_dependent_models_are_grouped():
    g = samptot()
    # dyad-independent: attribute cells (ZeroCells), not these groups
    assert count.RemoteZeros.of(ef.ERGM(g, "sum + nonzero", response="nominations")) is None
    assert count.RemoteZeros.of(ef.ERGM(g, "sum + mutual(form='min')",
                                        response="nominations")) is not None
    # edgecov's valued form reads a dyad covariate, not node classes: dyad by dyad
    n = g.number_of_nodes()
    g.graph["x"] = np.add.outer(np.arange(n), np.arange(n)) % 3 / 2.0
    m = ef.ERGM(g, "sum + mutual(form='min') + edgecov('x', form='sum')",
                response="nominations")
    assert count.RemoteZeros.of(m) is None


def test_near_dyads_too_many_fall_back_to_dyad_by_dyad(monkeypatch):
    # a dense network: the node pairs that share a neighbour are most dyads
    g = grouped_network(30, False, 0.5, seed=1)
    m = ef.ERGM(g, "sum + nonzero + transitiveweights", response="w", reference="Poisson")
    rz = count.RemoteZeros.of(m)
    assert rz is not None and rz.design(m.compiled(), 0, 10) is None
    fit = m.fit("mple")
    assert fit.info["design"]["n_vars"] == 30 * 29 // 2
