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


@pytest.mark.parametrize("reference", ["Poisson", "Geometric", "Binomial(3)", "DiscUnif(0, 3)"])
@pytest.mark.parametrize("formula", ["sum + nonzero", 'sum + nonzero + nodematch("group", form="sum")'])
def test_cd_is_centred_on_the_exact_mle_under_every_reference(formula, reference):
    # dyad-independent: the count MPLE is the exact MLE.  CD draws each dyad from its full
    # conditional (a Gibbs step at theta), so its estimating equation is the likelihood's
    # and its estimates scatter around the MLE: the mean over 12 seeds within 4 Monte Carlo
    # s.e. of it.  With one-dyad Metropolis-Hastings jumps (the old CD) the fixed point was
    # another: under Geometric the mean over seeds was 1.41 and -1.26 MLE s.e. off
    # (seed-to-seed sd 0.41 and 0.27 s.e.)
    m = ef.ERGM(samptot(), formula, response="nominations", reference=reference)
    mle = m.fit("mple")
    b, se = np.asarray(mle.params, dtype=float), np.asarray(mle.bse, dtype=float)
    z = np.array([(np.asarray(m.fit("cd", random_state=s).params, dtype=float) - b) / se
                  for s in range(12)])
    assert np.all(np.isfinite(z))
    mc_se = z.std(axis=0, ddof=1) / np.sqrt(len(z))
    assert np.all(np.abs(z.mean(axis=0)) < 4 * mc_se + 0.05), (z.mean(axis=0), mc_se)
    assert np.all(np.abs(z.mean(axis=0)) < 0.5), z.mean(axis=0)


def test_cd_starts_a_count_model_at_the_reference_law_of_the_mean_value():
    # the count analogue of the binary density start: under Geometric a start of 0 is
    # improper (the chain from it runs away); sum's coefficient solves E[y] = mean
    from ergmfit.estimation.contrastive.cd import density_start
    g = samptot()
    for reference, want in (("Poisson", np.log), ("Geometric", lambda m: np.log(m / (1 + m))),
                            ("Binomial(3)", lambda m: np.log(m / (3 - m)))):
        m = ef.ERGM(g, "nonzero + sum", response="nominations", reference=reference)
        mean = sum(d["nominations"] for _, _, d in g.edges(data=True)) / (18 * 17)
        np.testing.assert_allclose(density_start(m), [0.0, want(mean)], rtol=1e-12)


def test_cd_takes_a_count_proposal_by_name():
    m = ef.ERGM(samptot(), "sum + nonzero", response="nominations", reference="Poisson")
    for name in ("gibbs", "random", "tnt"):
        fit = m.fit("cd", random_state=1, proposal=name)
        assert np.all(np.isfinite(np.asarray(fit.params, dtype=float)))
    assert isinstance(m.sample_space.contrastive_proposal("auto", None, m),
                      type(m.family.make_proposal("gibbs")))


def test_cd_on_a_dyad_dependent_count_model_leaves_the_network():
    g = samptot()
    m = ef.ERGM(g, 'sum + nonzero + mutual(form="min") + transitiveweights("min","max","min")',
                response="nominations", reference="Binomial(3)")
    before = m.statistics_vector()
    fit = m.fit("cd", random_state=3)
    assert fit.converged and np.all(np.isfinite(np.asarray(fit.params, dtype=float)))
    assert np.array_equal(m.statistics_vector(), before)
    assert fit.info["acceptance"] > 0
