"""Operators over curved terms keep the curved parameters, as statnet 4.x's do: Passthrough,
Label, F, S, NodematchFilter, Symmetrize and Sum (the first formula's map, statnet's help:
"the first model's etamap will be used"); B(), For(), Exp(), Log(), Prod() too (For is a
macro writing the terms out; the others wrap the inner model with wrap.ergm_model, Prod being
Exp(~Sum(~Log(f)))). ':' interactions of curved terms are refused ("Interactions are undefined
for curved terms at this time", statnet's check).  Before, all of them silently gave one linear
coefficient per canonical statistic (esp#k)."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import TermError

# faux.mesa.high has ties with 5 shared partners: gwesp(cutoff=3) warns (test_cutoff_warning)
pytestmark = pytest.mark.filterwarnings("ignore::ergmfit.terms.curved.CutoffWarning")

FMH = "faux.mesa.high"
BASE = 'edges + nodematch("Grade") + '


def mple(formula, net=FMH, **kw):
    return np.asarray(ef.ERGM(net, formula).fit(method="mple", **kw).params)


@pytest.fixture(scope="module")
def plain():
    return mple(BASE + "gwesp(cutoff=6)")        # edges, nodematch, gwesp, gwesp.decay


def test_labels_keep_the_curved_parameters():
    cases = {
        "Passthrough(~gwesp(cutoff=3))": ["gwesp", "gwesp.decay"],
        'Label(~edges + gwesp(cutoff=3), "L")': ["L(edges)", "L(gwesp)", "L(gwesp.decay)"],
        "Label(~gwesp(cutoff=3), toupper)": ["GWESP", "GWESP.DECAY"],
        'Label(~gwesp(cutoff=3), list(c("a", "b"), NULL), "replace")': ["a", "b"],
        'F(~gwesp(cutoff=3), ~nodematch("Sex"))': ['F(nodematch("Sex"))~gwesp',
                                                   'F(nodematch("Sex"))~gwesp.decay'],
        'S(~gwdsp(cutoff=3), ~Sex == "F")': ['S(Sex=="F")~gwdsp', 'S(Sex=="F")~gwdsp.decay'],
        'NodematchFilter(~gwnsp(cutoff=3), "Sex")': ["NodematchFilter(Sex)~gwnsp",
                                                     "NodematchFilter(Sex)~gwnsp.decay"],
        "Sum(~edges + gwesp(cutoff=3), identity)": ["Sum~edges", "Sum~gwesp", "Sum~gwesp.decay"],
        "Sum(2 ~ gwesp(cutoff=3), I)": ["gwesp", "gwesp.decay"],
        'Label(~Passthrough(~edges + gwesp(cutoff=3)), "q")': ["q(edges)", "q(gwesp)",
                                                              "q(gwesp.decay)"],
    }
    for f, labels in cases.items():
        m = ef.ERGM(FMH, f)
        assert m.labels == labels, f
        assert m.curved, f
        assert len(m.stat_labels) == len(m.statistics()) > len(labels), f


def test_sum_labels_and_offsets_as_statnet_test_term_sum():
    # test-term-Sum.R: param_names Sum~x1, offset(Sum~x2), Sum~x3, Sum~x4; the statistics
    # keep their six names (gwesp(cutoff=4) is curved: fixed=FALSE by default)
    f = 'Sum(c(1, .5, rep(2, 4)) ~ edges + offset(absdiff("wealth")) + gwesp(cutoff=4), {})'
    m = ef.ERGM("flomarriage", f.format('"x"'))
    assert m.labels == ["Sum~x1", "offset(Sum~x2)", "Sum~x3", "Sum~x4"]
    assert m.stat_labels == ["Sum~x1", "offset(Sum~x2)"] + [f"Sum~x{k}" for k in range(3, 7)]
    assert list(m.statistics().values()) == [20, 573, 14, 2, 0, 0]
    m = ef.ERGM("flomarriage", f.format("identity"))
    assert m.labels == ["Sum~edges", "offset(Sum~absdiff.wealth)", "Sum~gwesp",
                        "Sum~gwesp.decay"]


def test_fits_equal_the_plain_curved_model(plain):
    # the statistics unchanged: the same estimates
    np.testing.assert_allclose(mple(BASE + "Passthrough(~gwesp(cutoff=6))"), plain, rtol=1e-8)
    np.testing.assert_allclose(mple('Label(~edges + nodematch("Grade") + gwesp(cutoff=6), '
                                    'toupper)'), plain, rtol=1e-8)
    np.testing.assert_allclose(mple(BASE + 'Label(~Passthrough(~gwesp(cutoff=6)), "q")'), plain,
                               rtol=1e-8)
    # twice the statistics, the same map: half the weight, the same decay
    half = plain * [1, 1, 0.5, 1]
    assert plain[3] > 0.1                                # an interior decay
    np.testing.assert_allclose(mple(BASE + "Sum(2 ~ gwesp(cutoff=6), I)"), half, rtol=1e-7)
    np.testing.assert_allclose(
        mple('Sum(c(1, 1, rep(2, 6)) ~ edges + nodematch("Grade") + gwesp(cutoff=6), '
             'identity)'), half, rtol=1e-7)


def test_offset_inside_sum_over_a_curved_term(plain):
    r = ef.ERGM(FMH, 'Sum(c(1, .5, rep(2, 6)) ~ edges + offset(nodematch("Grade")) + '
                     'gwesp(cutoff=6), identity)').fit(method="mple", offset_coef=[4.0])
    p = ef.ERGM(FMH, 'edges + offset(nodematch("Grade")) + gwesp(cutoff=6)').fit(
        method="mple", offset_coef=[2.0])
    assert r.labels[1] == "offset(Sum~nodematch.Grade)"
    np.testing.assert_allclose(np.asarray(r.params), np.asarray(p.params) * [1, 2, 0.5, 1],
                               rtol=1e-7)


def test_the_map_is_the_inner_one():
    theta = np.array([0.7, 0.4])
    gw = ef.ERGM(FMH, "gwesp(cutoff=3)").parameterisation
    for f in ['F(~gwesp(cutoff=3), ~nodematch("Sex"))', "Symmetrize(~gwesp(cutoff=3))",
              'Sum(c(~gwesp(cutoff=3), ~gwdsp(cutoff=3)), "")']:
        net = "samplike" if f.startswith("Symmetrize") else FMH
        par = ef.ERGM(net, f).parameterisation
        np.testing.assert_allclose(par.eta(theta), gw.eta(theta), rtol=1e-12)
        np.testing.assert_allclose(par.jacobian(theta), gw.jacobian(theta), rtol=1e-12)
    # several formulas: the statistics summed, the first formula's map
    m = ef.ERGM(FMH, 'Sum(c(~gwesp(cutoff=3), ~gwdsp(cutoff=3)), "")')
    esp = ef.ERGM(FMH, "esp(1:3)").statistics_vector()
    dsp = ef.ERGM(FMH, "dsp(1:3)").statistics_vector()
    np.testing.assert_array_equal(m.statistics_vector(), esp + dsp)
    assert m.labels == ["Sum~1", "Sum~2"]


def test_refused_forms_say_why():
    with pytest.raises(TermError, match=r"first formula is curved \(gwesp\).*one statistic per"):
        ef.ERGM(FMH, 'Sum("sum" ~ gwesp(cutoff=3))')
    with pytest.raises(TermError, match="\"curved\" attribute"):
        ef.ERGM(FMH, 'Sum(~gwesp(cutoff=2), c("a", "b"))')
    with pytest.raises(TermError, match=r"Curve\(\) or Offset\(\) inside Passthrough"):
        ef.ERGM(FMH, 'Passthrough(~Curve(~edges, "a", map="rep"))')
    # a linear first formula: linear (statnet's "first model's etamap"), as before
    m = ef.ERGM(FMH, 'Sum(c(~esp(1:3), ~gwdsp(cutoff=3)), "")')
    assert not m.curved and m.labels == ["Sum~1", "Sum~2", "Sum~3"]


def test_density_position_counts_the_wrapped_coefficients():
    """The stochastic-approximation estimator finds edges among the coefficients: after an
    operator over a curved term it is at its coefficients' count, not its statistics'."""
    from ergmfit.estimation.contrastive.cd import statistic_parameter
    m = ef.ERGM(FMH, 'Label(~nodematch("Grade") + gwesp(cutoff=6), "L") + edges')
    assert m.labels[3] == "edges" and m.stat_labels[7] == "edges"
    assert statistic_parameter(m, 7) == 3


# ---------------------------------------------------------------------------
# B(), For(), Exp(), Log(), Prod() and interactions over curved terms
# ---------------------------------------------------------------------------
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
    # For(~Curve(...)) is the Curve() written out (tests/terms/test_for_macro.py)
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
