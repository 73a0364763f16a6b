"""``For()`` is statnet's macro ("evaluates the formula given to it, substituting the
specified loop counter variable with each element in a sequence"): ``For(~Offset(...))``,
``For(~Curve(...))`` and ``For(~offset(...))`` behave exactly as their terms written out
(before: refused, "write its terms out", or the offset() inside silently estimated); Exp()
and Log() still refuse Curve() and Offset() inside.
"""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import TermError

pytestmark = pytest.mark.filterwarnings("ignore::ergmfit.terms.curved.CutoffWarning")

FMH = "faux.mesa.high"


def same_model(a, b, theta):
    """``a`` and ``b`` (formulas on faux.mesa.high) are the same model."""
    ma, mb = ef.ERGM(FMH, a), ef.ERGM(FMH, b)
    assert ma.labels == mb.labels
    assert ma.stat_labels == mb.stat_labels
    assert ma.offset.tolist() == mb.offset.tolist()
    assert ma.statistics() == mb.statistics()
    assert ma.curved == mb.curved
    np.testing.assert_array_equal(ma.eta(theta), mb.eta(theta))
    np.testing.assert_array_equal(ma.parameterisation.jacobian(theta),
                                  mb.parameterisation.jacobian(theta))
    return ma, mb


def test_for_offset_is_the_offsets_written_out():
    ma, mb = same_model('edges + For(~Offset(~nodematch(.), -1), . = c("Sex", "Race"))',
                        'edges + Offset(~nodematch("Sex"), -1) + '
                        'Offset(~nodematch("Race"), -1)', np.array([-4.0]))
    assert ma.labels == ["edges"]
    assert ma.stat_labels == ["edges", "offset(nodematch.Sex)", "offset(nodematch.Race)"]
    np.testing.assert_array_equal(ma.eta([-4.0]), [-4.0, -1.0, -1.0])
    fa, fb = ma.fit(method="mple"), mb.fit(method="mple")
    np.testing.assert_allclose(np.asarray(fa.params), np.asarray(fb.params), rtol=1e-12)


def test_for_offset_with_which_and_several_loop_variables():
    # which=2 of each written-out Offset; the first loop variable is the outermost
    same_model('For(~Offset(~edges + absdiff(a, pow=.), 0.5, which=2), a = c("Grade"), '
               '. = 1:2)',
               'Offset(~edges + absdiff("Grade", pow=1), 0.5, which=2) + '
               'Offset(~edges + absdiff("Grade", pow=2), 0.5, which=2)',
               np.array([-3.0, -2.5]))


def test_for_curve_is_the_curves_written_out():
    rep = 'params=c("h"), map="rep"'
    ma, _ = same_model(f'edges + For(~Curve(~nodematch(.) + nodefactor(.), {rep}), '
                       f'. = c("Sex", "Race"))',
                       f'edges + Curve(~nodematch("Sex") + nodefactor("Sex"), {rep}) + '
                       f'Curve(~nodematch("Race") + nodefactor("Race"), {rep})',
                       np.array([-4.0, 0.5, -0.3]))
    assert ma.labels == ["edges", "h", "h"]
    np.testing.assert_array_equal(ma.eta([-4.0, 0.5, -0.3]),
                                  [-4.0, 0.5, 0.5, -0.3, -0.3, -0.3, -0.3, -0.3])


def test_for_curve_over_a_curved_term_fits_as_written_out():
    gw = 'params=c("w", "d"), map="rep", minpar=c(-Inf, 0)'
    a = f'edges + For(~Curve(~gwesp(cutoff=.), {gw}), . = 4)'
    b = f'edges + Curve(~gwesp(cutoff=4), {gw})'
    ma, mb = same_model(a, b, np.array([-5.0, 1.0, 0.4]))
    assert ma.curved
    fa, fb = ma.fit(method="mple"), mb.fit(method="mple")
    np.testing.assert_allclose(np.asarray(fa.params), np.asarray(fb.params), rtol=1e-10)


def test_offset_inside_for_fixes_the_written_out_terms():
    # before: For() built its formula as an operator's, warned and estimated the coefficient
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same_model('edges + For(~offset(nodematch(.)), . = c("Sex", "Race"))',
                   'edges + offset(nodematch("Sex")) + offset(nodematch("Race"))',
                   np.array([-4.0, 1.0, 2.0]))


def test_for_inside_for_and_inside_an_operator_is_written_out_there():
    same_model('For(~For(~Offset(~nodematch(a, diff=.), -1), . = c(TRUE, FALSE)), '
               'a = c("Sex"))',
               'Offset(~nodematch("Sex", diff=TRUE), -1) + Offset(~nodematch("Sex", diff=FALSE), '
               '-1)', np.zeros(0))
    # Sum() of one formula propagates offset(): also when For() writes it
    m = ef.ERGM(FMH, 'Sum(~For(~edges + offset(nodematch(.)), . = "Sex"), identity)')
    assert m.labels == ["Sum~edges", "offset(Sum~nodematch.Sex)"]
    assert m.stat_labels == ["Sum~edges", "offset(Sum~nodematch.Sex)"]
    # an operator that refuses Curve()/Offset() inside it still does, For() or not
    with pytest.raises(TermError, match=r"inside Passthrough\(\)"):
        ef.ERGM(FMH, 'Passthrough(~For(~Curve(~edges, params="a", map="rep"), . = 1))')


@pytest.mark.parametrize("formula", ["Exp(~Offset(~edges, 1))", 'Log(~Curve(~edges, '
                                     'params="a", map="rep"))'])
def test_exp_and_log_still_refuse_curve_and_offset_inside(formula):
    # statnet's Exp/Log help pages say nothing of Offset()/Curve() inside: still refused
    with pytest.raises(TermError, match=r"Curve\(\) or Offset\(\) inside"):
        ef.ERGM(FMH, formula)
