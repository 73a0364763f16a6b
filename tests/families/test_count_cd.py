"""Contrastive divergence on the count family (#33 item 4): CD runs the family's sampler
through the count sample space (no branch on the family in the estimator)."""
import numpy as np
import pytest

import ergmfit as ef
from support.valued_networks import samptot
from ergmfit.families.count import CountDyads
from ergmfit.sampling._mh import CountMHSampler


def test_count_model_space_runs_the_family_sampler():
    m = ef.ERGM(samptot(), "sum + nonzero", response="nominations", reference="Poisson")
    assert isinstance(m.sample_space, CountDyads)
    cm = m.compiled()
    prop = m.sample_space.proposal("auto", cm, m)
    s = m.sample_space.make_sampler(cm, prop, np.array([1, 2, 3, 4], dtype=np.uint64))
    assert isinstance(s, CountMHSampler)
    with pytest.raises(ef.exceptions.SettingsError):
        m.sample_space.resolve_proposal("triadic", m)


@pytest.mark.parametrize("formula, reference", [
    ("sum + nonzero", "Poisson"),
    ('sum + nonzero + nodematch("group", form="sum")', "Binomial(3)"),
])
def test_cd_near_the_exact_mle_on_dyad_independent_models(formula, reference):
    # dyad-independent: the count MPLE is the exact MLE.  CD's estimating equation is
    # that of the one-dyad Metropolis-Hastings moves, not the likelihood's, so CD is only
    # near it (statnet uses it as a start): seeds 0-5 on samptot give mean offsets of
    # 0.2-0.7 s.e. with a seed-to-seed sd below 0.4 s.e.; allow 1 s.e. for the mean
    m = ef.ERGM(samptot(), formula, response="nominations", reference=reference)
    mle = m.fit("mple")
    b, se = np.asarray(mle.params, dtype=float), np.asarray(mle.bse, dtype=float)
    est = np.array([np.asarray(m.fit("cd", random_state=s).params, dtype=float)
                    for s in range(6)])
    assert np.all(np.isfinite(est))
    assert np.all(np.abs(est.mean(axis=0) - b) < 1.0 * se), (est.mean(axis=0), b, se)


def test_cd_on_a_dyad_dependent_count_model_leaves_the_network():
    g = samptot()
    m = ef.ERGM(g, 'sum + nonzero + mutual(form="min") + transitiveweights("min","max","min")',
                response="nominations", reference="Binomial(3)")
    before = m.statistics_vector()
    fit = m.fit("cd", random_state=3)
    assert fit.converged and np.all(np.isfinite(np.asarray(fit.params, dtype=float)))
    assert np.array_equal(m.statistics_vector(), before)
    assert fit.info["acceptance"] > 0
