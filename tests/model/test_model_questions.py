"""The questions estimators ask the model layer (issue #31, item 2) instead of reading
its feature flags: the sample space's ``check``, ``conditional``, ``moves_one_dyad``,
``proposal``/``make_sampler`` (also for a model without a sample space), and the
parameterisation's ``affine`` and ``fixed_by_columns``, the target (``target_of``), the
offsets (``model_offsets``) and the family's ``has_boundary_faces``."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import NetworkError
from ergmfit.sampling.space import AllDyads, AllVariables, sample_space_of
from ergmfit.terms.parameterisation import Identity, model_parameterisation


def _flo(formula="edges + triangle", **kwargs):
    return ef.ERGM(ef.datasets.load("flomarriage"), formula, **kwargs)


def test_the_unconstrained_space_answers_like_the_estimators_branches_did():
    m = _flo()
    space = m.sample_space
    assert isinstance(space, AllDyads) and space.moves_one_dyad
    assert space.conditional() is None                      # nothing to complete
    space.check(np.array([[0, 1], [2, 3]]))                 # every network lies in it
    assert type(space.proposal("tnt", m.compiled(), m)).__name__ == "TieNoTie"


def test_a_constrained_space_checks_networks_and_walks_with_its_own_moves():
    m = _flo(constraints="~ edges")
    space = m.sample_space
    assert not space.moves_one_dyad and space.conditional() is None
    with pytest.raises(NetworkError, match="does not keep the observed edges"):
        space.check(m.network.ties[:-1])
    space.check(m.network.ties)


def test_missing_dyads_give_a_conditional_space_of_them():
    m = _flo(missing=[(1, 9), (3, 4)])
    cond = m.sample_space.conditional()
    assert cond is not None and cond.n_free == 2 and not cond.moves_one_dyad
    assert _flo(missing=[]).sample_space.conditional() is None


def test_a_model_without_a_sample_space_gets_every_variable():
    class Field:
        labels = ["h"]
        default_proposal = "random"
    space = sample_space_of(Field())
    assert isinstance(space, AllVariables) and space.moves_one_dyad and space.dyad_independent
    assert space.conditional() is None and space.free_vars() is None
    assert space.resolve_proposal("auto", Field()) == "random"
    assert space.resolve_proposal("auto", object()) == "tnt"
    assert model_parameterisation(Field()).affine


@pytest.mark.parametrize("formula, offset_coef, curved", [
    ("edges + triangle", None, False),
    ("edges + gwesp(fixed=FALSE)", None, True),
    ("edges + gwesp(0.5, fixed=TRUE)", None, False),
])
def test_affine_is_the_parameterisations_answer_to_curved(formula, offset_coef, curved):
    m = ef.ERGM(ef.datasets.load("flomarriage"), formula)
    par = m.parameterisation
    assert par.affine is (not curved) and m.curved is curved
    assert model_parameterisation(m) is par
    assert Identity(["edges"]).affine and Identity(["edges"]).linear


def test_an_offset_view_is_affine_exactly_when_no_decay_is_free():
    from ergmfit.terms.offsets import OffsetParameterisation
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + gwesp(fixed=FALSE)")
    par = m.parameterisation
    keep_decay = OffsetParameterisation(par, np.array([True, False, False]), np.array([-2.0]))
    fix_decay = OffsetParameterisation(par, np.array([False, False, True]), np.array([0.5]))
    assert not keep_decay.affine and fix_decay.affine


# -- target statistics, offsets, boundary faces (issue #31, the last feature branches) ----

def test_the_target_says_whether_statistics_replace_the_network():
    from ergmfit.terms.targets import Target, target_of
    m = _flo()
    observed = target_of(m)
    assert not observed.given and observed.checks_observed_network
    assert not observed.needs_network_search(False) and not observed.solves_at_targets(True)
    targeted = target_of(m.configured(target_stats=[20.0, 3.0]))
    np.testing.assert_array_equal(targeted.statistics, [20.0, 3.0])
    assert targeted.given and not targeted.checks_observed_network
    # a dyad-dependent model needs a network with the targets (san); an independent one not
    assert targeted.needs_network_search(False) and not targeted.needs_network_search(True)
    assert targeted.solves_at_targets(True) and not targeted.solves_at_targets(False)
    empty = np.array([0.0, 0.0])
    calls = []
    assert targeted.statistics_over_empty(lambda: empty, lambda: calls.append(1)).tolist() \
        == [20.0, 3.0] and calls == []         # the observed statistics are not computed
    assert Target().statistics_over_empty(lambda: calls.append(1), lambda: "obs") == "obs"
    assert calls == []

    class Field:
        labels = ["h"]
    assert not target_of(Field()).given


def test_model_offsets_are_the_offset_terms_and_their_given_coefficients():
    from ergmfit.terms.offsets import model_offsets
    m = _flo("edges + offset(triangle)")
    mask, coef = model_offsets(m)
    assert mask.tolist() == [False, True] and coef is None
    mask, coef = model_offsets(m.configured(offset_coef=[-np.inf]))
    assert mask.tolist() == [False, True] and coef.tolist() == [-np.inf]
    mask, coef = model_offsets(_flo())
    assert mask.tolist() == [False, False] and coef is None


def test_fixed_by_columns_says_how_the_design_meets_the_offsets():
    from ergmfit.terms.offsets import OffsetParameterisation
    assert Identity(["edges"]).fixed_by_columns                  # the model's own offsets
    lin = _flo().parameterisation
    assert OffsetParameterisation(lin, np.array([False, True]), np.array([0.1])).fixed_by_columns
    cur = _flo("edges + gwesp(fixed=FALSE)").parameterisation
    assert cur.fixed_by_columns                                  # θ is every coefficient
    view = OffsetParameterisation(cur, np.array([False, False, True]), np.array([0.5]))
    assert not view.fixed_by_columns                             # through the map (A, c)
    curve = ef.ERGM(ef.datasets.load("flomarriage"),
                    "edges + Curve(~gwesp(fixed=FALSE), params=c('w', 'a'), map='rep', "
                    "minpar=c(-Inf, 0))").parameterisation
    assert not curve.fixed_by_columns


def test_only_binary_families_have_boundary_faces():
    from ergmfit.families import BINARY, CompositeFamily, CountFamily
    assert BINARY.has_boundary_faces
    assert not CountFamily("Poisson").has_boundary_faces
    assert not CompositeFamily({"Form": BINARY, "Persist": BINARY}).has_boundary_faces
