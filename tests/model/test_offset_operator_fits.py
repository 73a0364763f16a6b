"""Fitting with statnet's Offset() operator (issue #19 item 3): the parameters ``which``
selects are fixed at ``coef`` and the model's coefficients are the free ones, as statnet
lists them; the fit equals the one with offset() terms (same free estimates, bit for bit
with the same seed), also when Offset() and offset() are mixed."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError
from ergmfit.terms.curved import CutoffWarning


def test_offset_operator_labels_and_eta():
    m = ef.ERGM("faux.mesa.high", "Offset(~edges + triangle, c(-2, 0.5), which=1)")
    assert m.statistics() == {"edges": 203.0, "triangle": 62.0}      # statnet's summary
    assert m.labels == ["triangle"] and m.stat_labels == ["edges", "triangle"]
    np.testing.assert_array_equal(m.eta([0.3]), [-2.0, 0.3])         # coef recycled (rep_len)


@pytest.mark.parametrize("which", ["1", "TRUE", "c(TRUE, FALSE)", "'edges'"])
def test_offset_operator_which_forms(which):
    m = ef.ERGM("flomarriage", f"Offset(~edges + kstar(2), -1.5, which={which})")
    want = ["kstar2"] if which != "TRUE" else []
    assert m.labels == want


def test_offset_operator_mple_equals_offset_terms():
    a = ef.ERGM("faux.mesa.high", "Offset(~edges + triangle, -2, which=1) + nodematch('Grade')")
    b = ef.ERGM("faux.mesa.high", "offset(edges) + triangle + nodematch('Grade')")
    fa, fb = a.fit(method="mple"), b.fit(method="mple", offset_coef=[-2.0])
    assert list(fa.labels) == ["triangle", "nodematch.Grade"]
    np.testing.assert_allclose(np.asarray(fa.params), np.asarray(fb.params)[1:], rtol=1e-10)
    np.testing.assert_allclose(fa.cov, fb.cov[1:, 1:], rtol=1e-8)


def test_offset_operator_mcmle_equals_offset_terms():
    a = ef.ERGM("flomarriage", "Offset(~edges, -1.5) + triangle")
    b = ef.ERGM("flomarriage", "offset(edges) + triangle")
    fa = a.fit(method="mcmle", random_state=3)
    fb = b.fit(method="mcmle", random_state=3, offset_coef=[-1.5])
    assert list(fa.labels) == ["triangle"]
    assert float(np.asarray(fa.params)[0]) == float(np.asarray(fb.params)[1])


def test_offset_operator_with_offset_terms():
    # the two kinds of fixed coefficients combine into one view of the free ones
    a = ef.ERGM("flomarriage", "Offset(~edges + kstar(2), -1.5, which=1) + offset(triangle)")
    b = ef.ERGM("flomarriage", "offset(edges) + kstar(2) + offset(triangle)")
    fa = a.fit(method="mple", offset_coef=[0.2])
    fb = b.fit(method="mple", offset_coef=[-1.5, 0.2])
    assert list(fa.labels) == ["kstar2", "offset(triangle)"]
    np.testing.assert_allclose(np.asarray(fa.params), np.asarray(fb.params)[1:], rtol=1e-10)


@pytest.mark.parametrize("formula, msg", [
    ("Offset(~edges + triangle, 1, which=3)", "which"),
    ("Offset(~edges + triangle, 1, which='mutual')", "not a parameter"),
    ("Offset(~edges, 'a')", "coef must be"),
    ("Offset(~gwesp(fixed=FALSE), 1, which=1)", "with 'gwesp.decay' free"),
    ("Offset(~Offset(~edges, 1) + triangle, 1)", "inside Offset"),
])
def test_offset_operator_errors(formula, msg):
    with pytest.raises(ErgmfitError, match=msg):
        ef.ERGM("flomarriage", formula)


def test_offset_operator_with_curved_terms_labels_as_statnet():
    # statnet's own test of Offset() with curved terms (test-term-Offset.R): parameter
    # and canonical names
    with pytest.warns(CutoffWarning, match="gwesp: .*above the cut-off 3"):   # lazega: 7 partners
        m = ef.ERGM("lazega", "Offset(~edges + triangle + gwesp(0, fixed=TRUE) + "
                              "gwesp(fixed=FALSE, cutoff=3), which=1, coef=1)")
    assert m.labels == ["triangle", "gwesp.fixed.0", "gwesp", "gwesp.decay"]
    assert m.stat_labels == ["edges", "triangle", "gwesp.fixed.0", "esp#1", "esp#2", "esp#3"]


@pytest.mark.parametrize("which, coef, other, n_fixed", [
    ("c(1, 3)", "c(-3, 0.7)", "offset(edges) + offset(gwesp(fixed=FALSE), 2)", 2),   # decay fixed
    ("1", "-3", "offset(edges) + gwesp(fixed=FALSE)", 1),                             # decay free
])
def test_offset_operator_with_curved_terms_mple(which, coef, other, n_fixed):
    a = ef.ERGM("lazega", f"Offset(~edges + gwesp(fixed=FALSE), {coef}, which={which}) + "
                          "nodematch('practice')")
    b = ef.ERGM("lazega", other + " + nodematch('practice')")
    fa = a.fit(method="mple")
    fb = b.fit(method="mple", offset_coef=[-3.0, 0.7][:n_fixed])
    free = [not lab.startswith("offset(") for lab in fb.labels]
    assert list(fa.labels) == [lab for lab, f in zip(fb.labels, free) if f]
    np.testing.assert_allclose(np.asarray(fa.params), np.asarray(fb.params)[free], rtol=1e-8)


# -- Curve() / Parametrise() ------------------------------------------------------------

CURVE = ('Curve(~edges + triangle, params=list(a=0), map=function(x, n, ...) c(x, 2*x), '
         'gradient="linear")')


def test_curve_labels_and_map():
    m = ef.ERGM("lazega", 'Curve(~edges + kstar(2:3), params=c("a"), map="rep")')
    assert m.statistics() == {"edges": 115.0, "kstar2": 926.0, "kstar3": 2681.0}
    assert m.labels == ["a"]
    np.testing.assert_array_equal(m.eta([0.5]), [0.5, 0.5, 0.5])
    m = ef.ERGM("samplike", "Curve(~edges + mutual, params=list(a=0), map=function(x, n, ...) "
                            "c(x, -x), gradient=matrix(c(1, -1), 1, 2))")
    np.testing.assert_array_equal(m.eta([0.5]), [0.5, -0.5])
    m = ef.ERGM("flomarriage", 'Parametrise(~edges + triangle, params=c("a", "b"), '
                               'map=c(-1, 0.5)) + kstar(2)')
    np.testing.assert_array_equal(m.eta([7.0, 8.0, 0.2]), [-1.0, 0.5, 0.2])


@pytest.mark.parametrize("method", ["mple", "mcmle"])
def test_curve_fits_as_its_linear_combination(method):
    # η = (a, 2a): the same model as the statistic edges + 2 triangle with coefficient a
    kw = {"random_state": 2} if method == "mcmle" else {}
    a = ef.ERGM("flomarriage", CURVE + " + kstar(2)").fit(method=method, **kw)
    b = ef.ERGM("flomarriage", 'Sum(list(~edges, 2 ~ triangle), label="a") + kstar(2)').fit(
        method=method, **kw)
    assert list(a.labels) == ["a", "kstar2"]
    np.testing.assert_allclose(np.asarray(a.params), np.asarray(b.params), rtol=1e-9)
    np.testing.assert_allclose(a.cov, b.cov, rtol=1e-8)


def test_curve_with_offsets_and_offset_operator():
    a = ef.ERGM("flomarriage", CURVE + " + offset(kstar(2)) + Offset(~isolates, -1)")
    b = ef.ERGM("flomarriage", 'Sum(list(~edges, 2 ~ triangle), label="a") + offset(kstar(2))'
                               ' + offset(isolates)')
    fa = a.fit(method="mple", offset_coef=[-0.1])
    fb = b.fit(method="mple", offset_coef=[-0.1, -1.0])
    assert list(fa.labels) == ["a", "offset(kstar2)"]
    np.testing.assert_allclose(np.asarray(fa.params), np.asarray(fb.params)[:2], rtol=1e-9)


def test_curve_map_that_is_not_affine_gives_statistics_but_not_fits():
    m = ef.ERGM("flomarriage", 'Curve(~edges + triangle, params=c("a"), map=function(x, n, '
                               '...) c(x, x^2), gradient="linear")')
    assert m.statistics() == {"edges": 20.0, "triangle": 3.0}
    with pytest.raises(ErgmfitError, match="not affine"):
        m.fit(method="mple")


@pytest.mark.parametrize("formula, msg", [
    ('Curve(~edges, params=c("a"), map="seq")', "named maps"),
    ('Curve(~edges, params=c("a"), map="rep", minpar=2, maxpar=1)', "minpar exceeds maxpar"),
    ('Curve(~edges, params=c("a"), map="rep", maxpar="x")', "maxpar must be"),
    ('Curve(~Offset(~edges, -1), params=c("a"), map="rep")', "inside Curve"),
    ('Curve(~edges, map="rep")', "params"),
])
def test_curve_errors(formula, msg):
    with pytest.raises(ErgmfitError, match=msg):
        ef.ERGM("flomarriage", formula)


@pytest.mark.parametrize("formula", ["Offset(~edges, -1.5) + triangle",
                                     'Curve(~edges + triangle, params=c("a"), map="rep") + kstar(2)'])
def test_operator_views_fit_by_contrastive_divergence(formula):
    # a free-coefficient view without decays (no curved term left free): CD's decay step
    # bound has nothing to bound
    fit = ef.ERGM("flomarriage", formula).fit(method="cd", random_state=1)
    assert np.all(np.isfinite(np.asarray(fit.params, dtype=float)))


PRODMAP = ('Curve(~edges + triangle, params=c("a", "b"), map=function(x, n, ...) '
           'c(x[1], x[1]*x[2]), gradient=function(x, n, ...) rbind(c(1, x[2]), c(0, x[1])))')


def test_curve_nonlinear_map_mple_is_invariant():
    # η = (a, a b): a curved map; the MPLE of a reparameterisation maps onto the linear one's
    m = ef.ERGM("flomarriage", PRODMAP + " + kstar(2)")
    assert m.labels == ["a", "b", "kstar2"] and m.curved
    fit = m.fit(method="mple")
    lin = ef.ERGM("flomarriage", "edges + triangle + kstar(2)").fit(method="mple")
    np.testing.assert_allclose(m.eta(np.asarray(fit.params)), np.asarray(lin.params),
                               rtol=1e-5, atol=1e-6)
    # delta method: cov(η) = J cov(θ) J' is the linear model's covariance
    J = m.parameterisation.jacobian(np.asarray(fit.params))
    np.testing.assert_allclose(J @ fit.cov @ J.T, lin.cov, rtol=1e-4)


def test_curve_nonlinear_map_mcmle():
    m = ef.ERGM("flomarriage", PRODMAP + " + kstar(2)")
    fit = m.fit(method="mcmle", random_state=1)
    lin = ef.ERGM("flomarriage", "edges + triangle + kstar(2)").fit(method="mcmle",
                                                                     random_state=1)
    se = np.sqrt(np.diag(lin.cov))
    assert np.all(np.abs(m.eta(np.asarray(fit.params)) - np.asarray(lin.params)) < 0.25 * se)


def test_curve_gradient_must_match_the_map():
    m = ef.ERGM("flomarriage", 'Curve(~edges + triangle, params=c("a", "b"), '
                               'map=function(x, n, ...) c(x[1], x[1]*x[2]), '
                               'gradient=function(x, n, ...) cbind(c(1, x[2]), c(0, x[1])))')
    with pytest.raises(ErgmfitError, match="one row per parameter"):
        m.fit(method="mple")
