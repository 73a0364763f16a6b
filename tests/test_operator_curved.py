"""Operators over curved terms keep the curved parameters, as statnet 4.x's do: Passthrough,
Label, F, S, NodematchFilter, Symmetrize and Sum (the first formula's map, statnet's help:
"the first model's etamap will be used")."""
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
    from ergmfit.estimation.ee.proposals import _density_param
    m = ef.ERGM(FMH, 'Label(~nodematch("Grade") + gwesp(cutoff=6), "L") + edges')
    assert m.labels[3] == "edges" and m.stat_labels[7] == "edges"
    assert _density_param(m, 7) == 3
