"""Fitting with statnet's Offset() operator (issue #19 item 3): the parameters ``which``
selects are fixed at ``coef`` and the model's coefficients are the free ones, as statnet
lists them; the fit equals the one with offset() terms (same free estimates, bit for bit
with the same seed), also when Offset() and offset() are mixed."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError


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
    ("Offset(~gwesp(fixed=FALSE), 1, which=1)", "curved terms"),
])
def test_offset_operator_errors(formula, msg):
    with pytest.raises(ErgmfitError, match=msg):
        ef.ERGM("flomarriage", formula)
