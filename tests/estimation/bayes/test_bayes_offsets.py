"""The exchange algorithm (method="bayes") with offset terms against exact posteriors.

A model with ``offset()`` terms is fitted through its free-coefficient view
(``OffsetParameterisation``: η puts the fixed coefficients back), so the
auxiliary networks are drawn at the full η and the exchange ratio involves the
free statistics only.  On 5 nodes every network can be enumerated: the
posterior of the free coefficients, the offsets' contribution c·g_off(x) in every
graph's weight, is a grid sum.  The Monte Carlo tolerances come from the chains'
effective sample sizes (of the draws for the means, of their squared deviations
for the variances); each check also shows that the posterior which leaves the
offset's contribution out (offset coefficient 0) is far outside them."""
import itertools

import networkx as nx
import numpy as np
import pytest
from scipy.special import logsumexp

import ergmfit as ef
from ergmfit.exceptions import FormulaError, SettingsError
from ergmfit.results import ERGMResults
from ergmfit.results.bayes import chain_ess
from support.bayes import MISSING, missing_five_node_model

PRIOR_VAR = 9.0
DYADS = list(itertools.combinations(range(5), 2))
GRAPHS = [np.array([DYADS[k] for k in range(10) if mask >> k & 1],
                   dtype=np.int64).reshape(-1, 2) for mask in range(1 << 10)]


def _five_node_graph():
    g = nx.Graph()
    g.add_nodes_from(range(5))
    g.add_edges_from([(0, 1), (1, 2), (0, 2), (2, 3), (3, 4)])
    return g


def _exact_posterior(m, coef, missing=()):
    """Mean, sd and kurtosis of every free coefficient's exact marginal posterior under
    the N(0, PRIOR_VAR I) prior, the offsets at ``coef``: the likelihood of the observed
    dyads sums exp(θ·g_free(x) + coef·g_off(x)) over their completions (of the
    ``missing`` dyads), over all 1,024 graphs; on a grid over ±12 (4 prior sds)."""
    S = np.array([m.statistics_vector(t) for t in GRAPHS])
    off = np.asarray(m.offset, dtype=bool)
    fixed = S[:, off] @ np.atleast_1d(np.asarray(coef, dtype=float))
    miss = {tuple(sorted(d)) for d in missing}
    obs = {tuple(sorted(e)) for e in np.asarray(m.network.ties).tolist()}
    agree = np.array([all(((d in {tuple(e) for e in t.tolist()}) == (d in obs))
                          for d in DYADS if d not in miss) for t in GRAPHS])
    F = S[:, ~off]
    p = F.shape[1]
    a = np.linspace(-12, 12, 2401 if p == 1 else 241)
    T = np.stack(np.meshgrid(*[a] * p, indexing="ij"), -1).reshape(-1, p)
    def log_sum(rows):          # log sum of exp(θ·g_free + fixed) over graphs, by distinct rows
        u, k = np.unique(np.column_stack([F, fixed])[rows], axis=0, return_counts=True)
        return logsumexp(T @ u[:, :-1].T + u[:, -1] + np.log(k), axis=1)
    lp = log_sum(agree) - log_sum(slice(None)) - 0.5 * (T ** 2).sum(axis=1) / PRIOR_VAR
    w = np.exp(lp - lp.max())
    w /= w.sum()
    mean = w @ T
    sd = np.sqrt(w @ (T - mean) ** 2)
    kurt = (w @ (T - mean) ** 4) / sd ** 4
    return mean, sd, kurt


def _check_against(fit, m, coef, exact, wrong, z=4.0):
    """The posterior means and variances of the free coefficients within z Monte Carlo
    standard errors of the exact ones (from the effective sample sizes), the offsets
    held in every draw, and ``wrong`` (another posterior's means) outside 8 of them."""
    mean, sd, kurt = exact
    off = np.asarray(m.offset, dtype=bool)
    assert fit.labels == list(m.labels)
    assert fit.chains.shape[2] == len(off)
    np.testing.assert_array_equal(fit.draws[:, off],
                                  np.broadcast_to(coef, (fit.n_draws, int(off.sum()))))
    assert np.all(np.asarray(fit.bse)[off] == 0)
    c = fit.chains[:, :, ~off]
    got = c.reshape(-1, c.shape[2]).mean(axis=0)
    var = c.reshape(-1, c.shape[2]).var(axis=0, ddof=1)
    mcse = np.sqrt(var / chain_ess(c))
    # the sample variance's error: sqrt((kurtosis - 1) / n_eff) relative, n_eff the
    # effective size of the squared deviations
    var_rel = np.sqrt((kurt - 1) / chain_ess((c - got) ** 2))
    np.testing.assert_allclose(np.asarray(fit.params)[~off], got)
    assert np.all(np.abs(got - mean) < z * mcse), (got, mean, mcse)
    assert np.all(np.abs(var / sd ** 2 - 1) < z * var_rel), (np.sqrt(var), sd, var_rel)
    assert np.any(np.abs(wrong - mean) > 8 * mcse), (wrong, mean, mcse)
    assert np.all(fit.rhat < 1.1)


@pytest.mark.parametrize("settings", [{}, {"delayed": False, "aux_start": "last"}],
                         ids=["default", "plain-last"])
def test_one_free_coefficient_and_an_offset(settings):
    m = ef.ERGM(_five_node_graph(), "edges + offset(triangle)")
    exact = _exact_posterior(m, [0.5])
    fit = m.fit(method="bayes", offset_coef=[0.5], random_state=3, main_iters=3000,
                n_chains=6, prior_sigma=PRIOR_VAR, **settings)
    # the free view is not a linear model: delayed acceptance does not apply ('auto')
    assert fit.info["delayed"] is False
    _check_against(fit, m, [0.5], exact, _exact_posterior(m, [0.0])[0])


def test_two_free_coefficients_and_an_offset():
    m = ef.ERGM(_five_node_graph(), "edges + triangle + offset(kstar(2))")
    exact = _exact_posterior(m, [-0.3])
    fit = m.fit(method="bayes", offset_coef=[-0.3], random_state=5, main_iters=3000,
                n_chains=6, prior_sigma=PRIOR_VAR)
    _check_against(fit, m, [-0.3], exact, _exact_posterior(m, [0.0])[0])


def test_missing_dyads_and_an_offset():
    m = ef.ERGM(missing_five_node_model().network, "edges + offset(triangle)", missing=MISSING)
    assert m.sample_space.n_missing == 3
    exact = _exact_posterior(m, [0.5], MISSING)
    fit = m.fit(method="bayes", offset_coef=[0.5], random_state=7, main_iters=3000,
                n_chains=6, prior_sigma=PRIOR_VAR)
    assert fit.info["n_missing"] == 3
    _check_against(fit, m, [0.5], exact, _exact_posterior(m, [0.0], MISSING)[0])


def test_a_posterior_with_offsets_keeps_one_column_per_coefficient(tmp_path):
    # before: the draws held the free coefficient only, under both labels: ess, mcse,
    # rhat, quantiles, summary and save raised "2 labels for an array of shape (1,)"
    m = ef.ERGM(_five_node_graph(), "edges + offset(triangle)")
    for method in ("bayes", "bayes-pl"):
        fit = m.fit(method=method, offset_coef=[0.5], random_state=1, main_iters=60)
        assert fit.draws.shape[1] == 2 and fit.ess.shape == (2,)
        assert np.asarray(fit.quantiles())[1].tolist() == [0.5] * 5
        assert fit.prior_mean.tolist()[1] == 0.5 and fit.prior_cov[1].tolist() == [0.0, 0.0]
        assert "offset(triangle)" in str(fit.summary())
        fit.save(tmp_path / f"{method}.json")
        back = ERGMResults.load(tmp_path / f"{method}.json")
        np.testing.assert_array_equal(back.draws, fit.draws)


def test_refusals_and_an_all_offset_model():
    m = ef.ERGM(_five_node_graph(), "edges + offset(triangle)")
    # the first stages of delayed acceptance need the linear model of the compiled loop
    for delayed in (True, "pilot"):
        with pytest.raises(SettingsError, match="linear terms"):
            m.fit(method="bayes", offset_coef=[0.5], delayed=delayed, random_state=1,
                  main_iters=5)
    with pytest.raises(FormulaError, match="target_stats .* not 'bayes'"):
        m.fit(method="bayes", offset_coef=[0.5], target_stats=[4, 1], random_state=1)
    every = ef.ERGM(_five_node_graph(), "offset(edges) + offset(triangle)")
    with pytest.warns(UserWarning, match="nothing to estimate"):
        fit = every.fit(method="bayes", offset_coef=[-1.0, 0.5], random_state=1)
    assert fit.params.tolist() == [-1.0, 0.5] and fit.diagnostics.nothing_estimated
    with pytest.raises(FormulaError, match="offset_coef"):
        every.fit(method="bayes", random_state=1)


def test_an_infinite_offset_in_the_draws(tmp_path):
    # offset(kstar(3)) at -Inf: no node of degree 3; the column of -Inf draws has ESS =
    # draws, R-hat 1, quantiles -Inf, s.d. 0, without arithmetic warnings (-Inf - -Inf),
    # and a saved posterior loads with the same means and s.d.s
    import warnings
    m = ef.ERGM(_five_node_graph(), "edges + offset(kstar(3))")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fit = m.fit(method="bayes", offset_coef=[-np.inf], random_state=1, main_iters=60)
        assert fit.ess[1] == fit.n_draws and fit.rhat[1] == 1 and fit.mcse[1] == 0
        assert np.all(np.asarray(fit.quantiles())[1] == -np.inf)
        fit.save(tmp_path / "inf.json")
        back = ERGMResults.load(tmp_path / "inf.json")
    np.testing.assert_allclose(back.params, fit.params, rtol=1e-12)     # (-Inf == -Inf)
    np.testing.assert_allclose(back.bse, fit.bse, rtol=1e-12)
    assert back.params[1] == -np.inf and back.bse[1] == 0
