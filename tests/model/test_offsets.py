"""Offset terms (fixed coefficients, -Inf structural zeros) and target statistics."""

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.terms.offsets import OffsetParameterisation
from ergmfit.terms.parameterisation import Identity

from support import constraints_reference as cr


def _entry(entry_id):
    return next(x for x in cr.entries() if x["id"] == entry_id)


@pytest.mark.parametrize("entry_id", ["s3.offset.flomarriage.MLE.s101",
                                      "s3.offset.samplike.MLE.s101",
                                      "s3.offset.mesa_dyadindep.MLE.s101",
                                      "s3.offset.mesa_na.MLE.s101",
                                      "s3.target.samplike_gwesp.MLE.s101",
                                      "s3.target.samplike_gwesp.MPLE"])
def test_offset_and_target_fits_match_statnet(entry_id):
    e = _entry(entry_id)
    for lab, ours, theirs, z, se_ratio in cr.compare(e, cr.fit(e, random_state=1)):
        if lab.startswith("offset("):
            assert ours == theirs
            continue
        assert z < 0.35, (lab, ours, theirs)
        assert 0.8 < se_ratio < 1.25, (lab, se_ratio)


def test_offset_parameterisation():
    par = OffsetParameterisation(Identity(["a", "b", "c"]), [False, True, False], [-np.inf])
    np.testing.assert_array_equal(par.eta(np.array([1.0, 2.0])), [1.0, -1e300, 2.0])
    assert par.jacobian(np.zeros(2)).shape == (3, 2)
    assert par.param_labels == ["a", "c"]


def test_fixed_coefficients_over_the_full_parameter_vector():
    """Identity and Curved maps fix nothing (θ is the full vector: None); an offset
    view gives its mask over the inner model's parameters and the values as given."""
    assert Identity(["a", "b"]).fixed_coefficients() is None
    curved = ef.ERGM(ef.datasets.load("samplike"), "edges + gwesp").parameterisation
    assert not curved.linear and curved.fixed_coefficients() is None
    mask, coef = OffsetParameterisation(Identity(["a", "b", "c"]), [False, True, False],
                                        [-np.inf]).fixed_coefficients()
    np.testing.assert_array_equal(mask, [False, True, False])
    np.testing.assert_array_equal(coef, [-np.inf])
    mask, coef = OffsetParameterisation(curved, [False, False, True], [0.7]).fixed_coefficients()
    np.testing.assert_array_equal(mask, [False, False, True])
    np.testing.assert_array_equal(coef, [0.7])


def _cross_sex_network():
    g = ef.datasets.load("faux.mesa.high")
    net = ef.ERGM(g, "edges").network
    sex = np.array(net.node_attrs["Sex"])
    keep = sex[net.ties[:, 0]] != sex[net.ties[:, 1]]
    return net.with_ties(net.ties[keep]), sex


def test_minus_inf_offset_is_a_structural_zero():
    net, sex = _cross_sex_network()
    m = ef.ERGM(net, "edges + offset(nodematch('Sex'))")
    S = m.simulate([-3.0, -np.inf], n=10, burnin=20000, output="stats", random_state=1)
    assert (S[:, 1] == 0).all() and S[:, 0].std() > 0
    i, j = np.triu_indices(net.n, 1)
    allowed = int((sex[i] != sex[j]).sum())
    p = net.n_ties / allowed
    r = m.fit(method="mple", offset_coef=[-np.inf])
    assert float(r.params[0]) == pytest.approx(np.log(p / (1 - p)), abs=1e-8)
    assert float(r.params[1]) == -np.inf
    r2 = m.fit(method="mcmle", offset_coef=[-np.inf], random_state=1)
    assert float(r2.params[0]) == pytest.approx(float(r.params[0]), abs=0.05)


def test_offset_needs_its_coefficient():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "offset(edges) + triangle")
    with pytest.raises(ef.exceptions.FormulaError, match="offset_coef"):
        m.fit(method="mcmle")
    with pytest.raises(ef.exceptions.FormulaError, match="offset_coef"):
        m.fit(method="mple", offset_coef=[1.0, 2.0])
