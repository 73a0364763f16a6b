"""offset() in count models (statnet's ``offset(term)`` with ``offset.coef=``): the term's
coefficient is fixed at the given value and the others are fitted around it, by every count
estimator, through the binary models' offset machinery (``ERGM._set_offsets``,
``_fit_with_offsets``, :class:`~ergmfit.terms.offsets.OffsetParameterisation`; the count
MPLE takes the free view's affine map, ``CountDesign.free``).

Checked against the exact MLE of pair-separable models (``support.pair_separable``): with
an offset fixed at its own exact MLE, the free coefficients' MLE is the rest of the exact
MLE.  Before, ``offset()`` was refused as "a term of binary networks"."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import SettingsError
from families.test_count_ee_bayes import FAST_EE
from support.pair_separable import exact_mle
from support.valued_networks import random_count_graph


def network(seed=3, n=6):
    return random_count_graph(n, True, seed, 0.5, 3)


def test_offset_terms_are_labelled_and_counted():
    m = ef.ERGM(network(), "sum + offset(nonzero) + offset(atleast(c(1, 2)), 2)",
                response="w", reference="Poisson")
    assert m.labels == ["sum", "offset(nonzero)", "atleast.1", "offset(atleast.2)"]
    assert m.offset.tolist() == [False, True, False, True]
    assert list(m.statistics()) == m.labels               # statnet's summary keeps them
    with pytest.raises(ef.FormulaError, match="offset_coef"):
        m.fit("mple")


@pytest.mark.parametrize("reference", ["Poisson", "Binomial(3)"])
@pytest.mark.parametrize("fixed", [0, 1])
def test_mple_with_an_offset_is_the_rest_of_the_exact_mle(reference, fixed):
    # sum + nonzero: dyad-independent, so the count MPLE is the MLE; fixing either
    # coefficient at its exact MLE leaves the other's exact MLE
    g = network()
    full = ef.ERGM(g, "sum + nonzero", response="w", reference=reference)
    theta, _ = exact_mle(full, g, "w", reference, [0.0, 0.0])
    terms = ["sum", "nonzero"]
    terms[fixed] = f"offset({terms[fixed]})"
    m = ef.ERGM(g, " + ".join(terms), response="w", reference=reference)
    fit = m.fit("mple", offset_coef=[theta[fixed]])
    assert np.allclose(fit.params, theta, rtol=0, atol=1e-8)
    assert np.asarray(fit.params, dtype=float)[fixed] == theta[fixed]
    assert fit.cov[fixed, fixed] == 0 and fit.cov[1 - fixed, 1 - fixed] > 0


@pytest.mark.parametrize("reference", ["Poisson", "Binomial(3)"])
def test_mcmle_with_an_offset_is_the_rest_of_the_exact_mle(reference):
    # sum + nonzero + mutual: pair-separable (dyad-dependent), its exact MLE by Newton over
    # the node pairs; nonzero fixed at its exact MLE, MCMC-MLE finds the other two
    g = network()
    formula = "sum + nonzero + mutual(form='min')"
    full = ef.ERGM(g, formula, response="w", reference=reference)
    theta, se = exact_mle(full, g, "w", reference, [0.0, 0.0, 0.0])
    m = ef.ERGM(g, formula.replace("+ nonzero", "+ offset(nonzero)"), response="w",
                reference=reference)
    fit = m.fit("mcmle", offset_coef=[theta[1]], random_state=1)
    got = np.asarray(fit.params, dtype=float)
    assert got[1] == theta[1]
    # seeds 1-6 gave |error| <= 0.04 s.e.
    assert np.all(np.abs(got - theta)[[0, 2]] < 0.15 * se[[0, 2]]), (got, theta, se)


@pytest.mark.parametrize("method", ["cd", "ee", "bayes", "sa"])
def test_every_count_estimator_fits_around_an_offset(method):
    g = network()
    full = ef.ERGM(g, "sum + nonzero", response="w", reference="Poisson")
    theta, se = exact_mle(full, g, "w", "Poisson", [0.0, 0.0])
    m = ef.ERGM(g, "offset(sum) + nonzero", response="w", reference="Poisson")
    fit = m.fit(method, offset_coef=[theta[0]], random_state=2,
                **(FAST_EE if method == "ee" else {}))
    got = np.asarray(fit.params, dtype=float)
    assert got[0] == theta[0] and fit.labels == ["offset(sum)", "nonzero"]
    assert abs(got[1] - theta[1]) < 1.5 * se[1], (got, theta, se)


def test_an_all_offset_count_model_holds_its_coefficients():
    m = ef.ERGM(network(), "offset(sum)", response="w", reference="Poisson")
    fit = m.fit("mple", offset_coef=[0.25])
    assert fit.params.tolist() == [0.25] and np.isfinite(fit.loglik)


def test_an_infinite_offset_is_a_structural_zero():
    # Binomial(3) without the value 3 (offset(atleast(3)) = -Inf) is Binomial(2) reweighted:
    # C(3, y) / C(2, y) = 1, 3/2, 3 = exp(y log 2 + 1[y > 0] log(3/4)) on 0..2
    g = nx.DiGraph()
    g.add_nodes_from(range(4))
    for (i, j), y in {(0, 1): 2, (1, 0): 1, (1, 2): 1, (2, 3): 2, (3, 0): 1}.items():
        g.add_edge(i, j, w=y)
    m = ef.ERGM(g, "sum + nonzero + offset(atleast(3))", response="w", reference="Binomial(3)")
    two = ef.ERGM(g, "sum + nonzero", response="w", reference="Binomial(2)").fit("mple")
    got = np.asarray(m.fit("mple", offset_coef=[-np.inf]).params, dtype=float)
    assert np.allclose(got[:2] + [np.log(2), np.log(0.75)], np.asarray(two.params), atol=1e-8)
    assert got[2] == -np.inf
    S = m.simulate([0.0, 0.0, -np.inf], n=50, output="stats", random_state=1)
    assert S[:, 2].max() == 0                           # no dyad ever reaches 3
    # an unbounded reference: the truncation's tail bound cannot be read, a clear error
    p = ef.ERGM(g, "sum + nonzero + offset(atleast(3))", response="w", reference="Poisson")
    with pytest.raises(SettingsError, match="does not take an infinite offset"):
        p.fit("mple", offset_coef=[-np.inf])


@pytest.mark.parametrize("form", ["nonzero", "sum"])
def test_offset_inside_b_fixes_that_coefficient(form):
    # statnet's B() wraps its formula's model (wrap.ergm_model, which wraps the offset
    # indicators): offset() inside B() fixes that statistic's coefficient, as
    # offset(B(~term, form=)) does.  main: a TermError ("unknown function 'nodematch'")
    g = nx.Graph()
    rng = np.random.default_rng(1)
    g.add_nodes_from((i, {"x": i % 3}) for i in range(10))
    g.add_edges_from((i, j, {"w": int(rng.integers(1, 4))}) for i in range(10)
                     for j in range(i + 1, 10) if rng.random() < 0.4)
    m = ef.ERGM(g, f'sum + nonzero + B(~absdiff("x") + offset(nodematch("x")), form="{form}")',
                response="w", reference="Poisson")
    assert m.labels == ["sum", "nonzero", f"B({form})~absdiff.x",
                        f"offset(B({form})~nodematch.x)"]
    assert m.offset.tolist() == [False, False, False, True]
    ref = ef.ERGM(g, f'sum + nonzero + B(~absdiff("x"), form="{form}") + '
                     f'offset(B(~nodematch("x"), form="{form}"))', response="w",
                  reference="Poisson")
    assert np.allclose(m.statistics_vector(), ref.statistics_vector())
    fit, want = m.fit("mple", offset_coef=[0.4]), ref.fit("mple", offset_coef=[0.4])
    assert fit.params[3] == 0.4
    assert np.allclose(fit.params, want.params, atol=1e-10)
