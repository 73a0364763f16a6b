"""B(), For(), Exp(), Log(), Prod() over curved terms keep the curved parameters as statnet's
do (For is a macro writing the terms out; the others wrap the inner model with
wrap.ergm_model, Prod being Exp(~Sum(~Log(f)))); ':' interactions of curved terms are refused
("Interactions are undefined for curved terms at this time", statnet's check).  Before, all
of them silently gave one linear coefficient per canonical statistic (esp#k)."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import TermError

pytestmark = pytest.mark.filterwarnings("ignore::ergmfit.terms.curved.CutoffWarning")

FMH = "faux.mesa.high"
BASE = 'edges + nodematch("Grade") + '


def mple(formula, net=FMH):
    return np.asarray(ef.ERGM(net, formula).fit(method="mple").params)


@pytest.fixture(scope="module")
def plain():
    return mple(BASE + "gwesp(cutoff=6)")        # edges, nodematch, gwesp, gwesp.decay


@pytest.mark.parametrize("wrapped", ["For(~gwesp(cutoff=6), . = 1)",
                                     'B(~gwesp(cutoff=6), form="nonzero")',
                                     "B(~gwesp(cutoff=6), form=~atleast(1))"])
def test_for_and_b_fit_as_the_plain_formula(plain, wrapped):
    # ergmfit's networks are binary: B(form="nonzero"/~atleast(1)) has the inner statistics
    theta = mple(BASE + wrapped)
    assert theta.shape == plain.shape
    np.testing.assert_allclose(theta, plain, rtol=1e-8)


def test_for_is_the_formula_written_out():
    m = ef.ERGM(FMH, 'For(~nodematch(.) + gwesp(cutoff=3), . = c("Grade", "Sex"))')
    p = ef.ERGM(FMH, 'nodematch("Grade") + gwesp(cutoff=3) + nodematch("Sex") + '
                     "gwesp(cutoff=3)")
    assert m.labels == p.labels == ["nodematch.Grade", "gwesp", "gwesp.decay",
                                    "nodematch.Sex", "gwesp", "gwesp.decay"]
    assert m.curved and m.stat_labels == p.stat_labels
    th = np.array([0.3, 0.8, 0.6, -0.2, 0.1, 1.3])
    np.testing.assert_allclose(m.parameterisation.eta(th), p.parameterisation.eta(th),
                               rtol=1e-12)
    m = ef.ERGM(FMH, "For(~gwdegree(cutoff=4), . = 1)")
    assert m.labels == ["gwdegree", "gwdegree.decay"] and m.curved
    m = ef.ERGM("davis", "For(~gwb1degree(0.4, fixed=FALSE, cutoff=14), . = 1)")
    assert m.labels == ["gwb1degree", "gwb1degree.decay"] and m.curved


def test_b_labels():
    m = ef.ERGM(FMH, 'B(~edges + gwesp(cutoff=3), form="nonzero")')
    assert m.labels == ["B(nonzero)~edges", "B(nonzero)~gwesp", "B(nonzero)~gwesp.decay"]
    assert m.curved


@pytest.mark.parametrize("op", ["Exp", "Log"])
def test_exp_log_keep_the_map_over_the_transformed_statistics(op):
    m = ef.ERGM(FMH, f"{op}(~edges + gwesp(cutoff=3))")
    p = ef.ERGM(FMH, "edges + gwesp(cutoff=3)")
    assert m.labels == [f"{op}~edges", f"{op}~gwesp", f"{op}~gwesp.decay"] and m.curved
    assert m.stat_labels == [f"{op}~{lab}" for lab in p.stat_labels]
    th = np.array([-2.0, 0.7, 0.4])
    np.testing.assert_allclose(m.parameterisation.eta(th), p.parameterisation.eta(th),
                               rtol=1e-12)
    J = m.parameterisation.jacobian(th)
    np.testing.assert_allclose(J, p.parameterisation.jacobian(th), rtol=1e-12)


def test_prod_keeps_the_first_formulas_map():
    # statnet: Prod = Exp(~Sum(~Log(f), label)); Sum uses the first formula's map
    m = ef.ERGM(FMH, 'Prod(list(~gwesp(cutoff=3), 2 ~ gwdsp(cutoff=3)), "x")')
    assert m.labels == ["Exp~Sum~x1", "Exp~Sum~x2"] and m.curved
    assert m.stat_labels == ["Exp~Sum~x1", "Exp~Sum~x2", "Exp~Sum~x3"]
    g = ef.ERGM(FMH, "gwesp(cutoff=3)").parameterisation
    th = np.array([0.7, 0.4])
    np.testing.assert_allclose(m.parameterisation.eta(th), g.eta(th), rtol=1e-12)
    with pytest.raises(TermError, match=r"Prod: the first formula is curved \(gwesp\)"):
        ef.ERGM(FMH, 'Prod("prod" ~ gwesp(cutoff=3), "x")')


@pytest.mark.parametrize("formula", [
    'Curve(~edges + nodematch("Grade"), params=c("a"), map="rep"):nodematch("Sex")',
    'nodematch("Sex"):Label(~gwesp(cutoff=3), "L")',
    'Curve(~edges + nodematch("Grade"), params=c("a"), map="rep")*nodematch("Sex")'])
def test_interactions_of_curved_terms_are_refused(formula):
    with pytest.raises(TermError, match=r"undefined for curved terms.* is curved"):
        ef.ERGM(FMH, formula)


def test_cd_start_puts_a_wrapped_decay_at_its_start():
    from ergmfit.estimation.contrastive.cd import density_start
    for f, decay in [('edges + Label(~gwesp(cutoff=6), "L")', 0.5),
                     ("edges + For(~gwesp(0.3, cutoff=6), . = 1)", 0.3),
                     ("edges + gwesp(0.7, cutoff=6)", 0.7)]:
        m = ef.ERGM(FMH, f)
        theta = density_start(m)
        assert theta[2] == decay, f
        assert theta[1] == 0 and theta[0] < 0, f


@pytest.mark.parametrize("formula, hint", [
    # For(~Curve(...)) is the Curve() written out (test_terms_usage_s6b.py)
    ("Exp(~Offset(~edges, 1))", r"put Exp\(\) inside them"),
    ('B(~Curve(~edges, params=c("a"), map="rep"), form="nonzero")', r"put B\(\) inside")])
def test_curve_and_offset_inside_are_refused_not_dropped(formula, hint):
    # before: the map / the fixed value was silently dropped (a free linear coefficient)
    with pytest.raises(TermError, match=r"Curve\(\) or Offset\(\) inside .*" + hint):
        ef.ERGM(FMH, formula)


def test_interaction_with_offset_warns_that_the_offset_is_not_propagated():
    # statnet keeps the statistics of an interaction with Offset() and warns; ergmfit
    # dropped the offset silently
    with pytest.warns(UserWarning, match="do not propagate Offset"):
        m = ef.ERGM("faux.mesa.high", 'edges + nodematch("Sex"):Offset(~absdiff("Grade"), -1)')
    assert m.labels == ["edges", "nodematch.Sex:absdiff.Grade"]
