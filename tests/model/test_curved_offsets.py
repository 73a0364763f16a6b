"""Offsets on curved terms (#17) and statnet's ``offset(term, which)``.

statnet fixes a curved term's parameters with ``offset(gwesp(fixed=FALSE))``
(weight and decay, ``offset.coef`` has both) or only the decay with
``offset(gwesp(fixed=FALSE), 2)``.  The estimators are written once through
the model's map θ -> η(θ), so a curved fit whose decay is fixed must be the
fixed-decay fit itself: same statistics η·g, same chains, same steps.
"""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import FormulaError
from ergmfit.terms.offsets import split_which, which_mask

BASE = ("edges + {} + nodecov('seniority') + nodecov('practice') + nodematch('practice') + "
        "nodematch('gender') + nodematch('office')")


@pytest.fixture(scope="module")
def lazega():
    return ef.datasets.load("lazega")


@pytest.mark.parametrize("method", ["mple", "mcmle"])
def test_fixing_the_decay_gives_the_fixed_decay_fit_exactly(lazega, method):
    fixed = ef.ERGM(lazega, BASE.format("gwesp(log(3), fixed=TRUE)"))
    curved = ef.ERGM(lazega, BASE.format("offset(gwesp(fixed=FALSE), 2)"))
    assert curved.labels[:3] == ["edges", "gwesp", "offset(gwesp.decay)"]
    a = fixed.fit(method=method, random_state=1, verbose=False)
    b = curved.fit(method=method, random_state=1, verbose=False, offset_coef=[np.log(3)])
    assert b.params[2] == np.log(3) and b.cov[2, 2] == 0.0
    np.testing.assert_allclose(np.delete(np.asarray(b.params), 2), np.asarray(a.params),
                               rtol=0, atol=1e-8)
    np.testing.assert_allclose(np.delete(np.delete(b.cov, 2, 0), 2, 1), a.cov, rtol=0,
                               atol=1e-8)
    # the log-likelihood too (bridge sampling along the same path), and AIC's
    # degrees of freedom leave the offset out, as statnet's do
    assert abs(b.loglik - a.loglik) < 1e-8
    assert abs(b.aic - a.aic) < 1e-8


def test_offset_on_a_whole_curved_term(lazega, method="mple"):
    # offset(gwesp(fixed=FALSE)) fixes weight and decay: the fixed-decay term as an offset
    both = ef.ERGM(lazega, BASE.format("offset(gwesp(fixed=FALSE))"))
    one = ef.ERGM(lazega, BASE.format("offset(gwesp(log(3), fixed=TRUE))"))
    c = both.fit(method=method, random_state=2, verbose=False, offset_coef=[0.8, np.log(3)])
    d = one.fit(method=method, random_state=2, verbose=False, offset_coef=[0.8])
    assert c.labels[1:3] == ["offset(gwesp)", "offset(gwesp.decay)"]
    np.testing.assert_allclose(np.delete(np.asarray(c.params), 2), np.asarray(d.params),
                               rtol=0, atol=1e-8)
    assert c.n_free == d.n_free == 6


def test_linear_offset_beside_a_free_decay(lazega):
    # the curved MPLE with edges held at its own estimate: the others do not move
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = ef.ERGM(lazega, BASE.format("gwesp(fixed=FALSE)")).fit(method="mple")
        m = ef.ERGM(lazega, BASE.format("gwesp(fixed=FALSE)").replace("edges", "offset(edges)",
                                                                         1))
        off = m.fit(method="mple", offset_coef=[free.params[0]])
    assert off.labels[0] == "offset(edges)" and off.labels[2] == "gwesp.decay"
    np.testing.assert_allclose(np.asarray(off.params)[1:], np.asarray(free.params)[1:],
                               atol=2e-5)


def test_fixed_weight_with_a_free_decay_is_refused(lazega):
    m = ef.ERGM(lazega, BASE.format("offset(gwesp(fixed=FALSE), 1)"))
    with pytest.raises(FormulaError, match="only the decay"):
        m.fit(method="mple", offset_coef=[0.5])


def test_offset_which_of_a_linear_term():
    # statnet's test-offsets.R: offset(nodematch("group", diff=TRUE), 2) at 0 is the
    # model without that level
    g = ef.datasets.load("samplike")
    a = ef.ERGM(g, "edges + nodematch('group', diff=TRUE, levels=-2)").fit(method="mple")
    m = ef.ERGM(g, "edges + offset(nodematch('group', diff=TRUE), c(FALSE, TRUE, FALSE))")
    assert m.labels[2] == "offset(nodematch.group.Outcasts)"
    b = m.fit(method="mple", offset_coef=[0.0])
    np.testing.assert_allclose(np.delete(np.asarray(b.params), 2), np.asarray(a.params),
                               atol=1e-10)


def test_which_parsing():
    assert split_which("gwesp(fixed=FALSE, cutoff=c(1, 2)), 2") == ("gwesp(fixed=FALSE, "
                                                                     "cutoff=c(1, 2))", "2")
    assert split_which("nodematch('a,b')") == ("nodematch('a,b')", None)
    assert which_mask("2:3", 3).tolist() == [False, True, True]
    assert which_mask(None, 2).tolist() == [True, True]
    with pytest.raises(FormulaError):
        which_mask("4", 2)
