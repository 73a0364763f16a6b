"""Bayesian ERGMs with missing dyads (method="bayes", Bergm's ``bergmM``):
the exchange algorithm with data augmentation against the exact posterior."""
import itertools

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import SettingsError
from support.bayes import MISSING, grid_moments, log_sum_exp_stats, missing_five_node_model

PRIOR_VAR = 9.0


def _exact_posterior(m, missing=MISSING):
    """Posterior mean and sd by brute force: all 1,024 graphs on 5 nodes; the
    likelihood of the observed dyads sums exp(θ·g) over the 2^3 completions of
    the missing ones; N(0, 9 I) prior on a 301 x 301 grid over [-15, 15]^2.

    (The likelihood stays positive as the triangle coefficient goes to -inf, so
    the posterior has the prior's tail there; with Bergm's N(0, 100 I) it
    reaches near-degenerate coefficients where a 5-node auxiliary chain
    cannot mix and the approximate exchange algorithm is not exact.)"""
    dyads = list(itertools.combinations(range(5), 2))
    miss = {tuple(sorted(d)) for d in missing}
    obs = {tuple(sorted(e)) for e in m.network.ties.tolist()}
    stats, agree = [], []
    for mask in range(1 << len(dyads)):
        ties = [dyads[k] for k in range(len(dyads)) if mask >> k & 1]
        stats.append(m.statistics_vector(np.array(ties, dtype=np.int64).reshape(-1, 2)))
        agree.append(all((d in ties) == (d in obs) for d in dyads if d not in miss))
    S, agree = np.array(stats), np.array(agree)
    assert agree.sum() == 2 ** len(missing)
    return grid_moments(np.linspace(-15, 15, 301),
                        lambda T: log_sum_exp_stats(T, S[agree]) - log_sum_exp_stats(T, S),
                        PRIOR_VAR)


@pytest.mark.slow
def test_missing_dyads_posterior_matches_the_exact_one():
    # three runs pooled: the posterior sd from one 6 x 3,000 run has a Monte
    # Carlo error of 3-5 % (the triangle posterior has the prior's heavy tail),
    # so a single run against a fixed tolerance held only at a lucky seed
    m = missing_five_node_model()
    assert m.sample_space.n_missing == 3
    mean, sd = _exact_posterior(m)
    fits = [m.fit(method="bayes", random_state=seed, main_iters=3000, n_chains=6,
                  prior_sigma=PRIOR_VAR) for seed in (5, 6, 7)]
    for fit in fits:
        assert fit.info["n_missing"] == 3 and fit.info["missing_update"] == 3
    draws = np.vstack([np.asarray(fit.draws) for fit in fits])
    mcse = np.sqrt(sum(np.asarray(fit.mcse) ** 2 for fit in fits)) / len(fits)
    z = (draws.mean(axis=0) - mean) / mcse
    assert np.all(np.abs(z) < 4), (draws.mean(axis=0), mean, mcse)
    assert np.allclose(draws.std(axis=0, ddof=1), sd, rtol=0.1), (draws.std(axis=0), sd)
    # ignoring the missing dyads (treating them as absent ties) is another posterior
    naive_mean, _ = _exact_posterior(m, missing=[])
    assert np.any(np.abs(naive_mean - mean) > 8 * mcse), (naive_mean, mean)


def test_missing_dyads_compiled_loop_equals_the_python_loop(force_python_loop):
    from ergmfit.estimation import make_estimator
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle",
                missing=[(1, 9), (2, 6), (3, 12), (9, 13)])
    est = make_estimator("bayes", random_state=7, burnin=5, main_iters=15, aux_iters=300,
                         missing_update=10)
    a = est.fit(m)
    assert a.info["missing_update"] == 10
    force_python_loop()
    b = est.fit(m)
    np.testing.assert_array_equal(a.chains, b.chains)


def test_missing_dyads_refuse_delayed_acceptance():
    with pytest.raises(SettingsError, match="missing dyads"):
        missing_five_node_model().fit(method="bayes", delayed=True, main_iters=5, random_state=1)
