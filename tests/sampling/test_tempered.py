"""Parallel tempering (#36 item 2): the cold chain has the model's exact distribution
(enumeration on 4 and 6 nodes, a strongly bimodal edges + triangle model among them), the
setting reaches simulate through the model, bad settings are named."""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import SettingsError
from ergmfit.sampling.chains import batch_means_cov
from ergmfit.sampling.tempered import Tempering, TemperedSampler, with_tempering


def _graph(n, ties):
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(ties)
    return g


def _exact(n, theta):
    """{(edges, triangles): probability} of edges + triangle on n nodes, by enumeration."""
    pairs = list(itertools.combinations(range(n), 2))
    w = {}
    for bits in itertools.product([0, 1], repeat=len(pairs)):
        A = np.zeros((n, n))
        for (i, j), b in zip(pairs, bits):
            A[i, j] = A[j, i] = b
        key = (int(A.sum() / 2), int(round(np.trace(A @ A @ A) / 6)))
        w[key] = w.get(key, 0) + 1
    keys = list(w)
    logw = np.log([w[k] for k in keys]) + np.array(keys) @ theta
    p = np.exp(logw - logw.max())
    return dict(zip(keys, p / p.sum()))


@pytest.mark.parametrize("seed", [1, 2])
def test_cold_chain_equals_exact_enumeration_on_4_nodes(seed):
    """Every (edges, triangle) cell's frequency within 4.5 batch-means s.e. of its exact
    probability (4 temperatures down to 0.3: the swaps are exercised)."""
    theta = np.array([-1.0, 1.2])
    exact = _exact(4, theta)
    m = with_tempering(ef.ERGM(_graph(4, [(0, 1)]), "edges + triangle"), n_temps=4,
                       min_beta=0.3, sweep=10)
    S = m.simulate(theta, n=6000, burnin=200, interval=10, output="stats", random_state=seed)
    for key, p in exact.items():
        ind = np.all(S == key, axis=1).astype(float)[:, None]
        se = np.sqrt(batch_means_cov([ind], n_batches=30)[0, 0]) + np.sqrt(p * (1 - p) / 6000)
        assert abs(ind.mean() - p) <= 4.5 * se, (key, ind.mean(), p, se)


def _bimodal_check(seed, n_draws):
    # edges + triangle on 6 nodes at (-3, 2.3): P(>= 10 edges) = 0.570, P(5..9 edges) = 0.004
    theta = np.array([-3.0, 2.3])
    exact = _exact(6, theta)
    mean = sum(np.array(k) * p for k, p in exact.items())
    m = with_tempering(ef.ERGM(_graph(6, [(0, 1), (1, 2)]), "edges + triangle"), n_temps=6,
                       min_beta=0.3, sweep=30)
    S = m.simulate(theta, n=n_draws, burnin=300, interval=30, output="stats",
                   random_state=seed)
    se = np.sqrt(np.diag(batch_means_cov([S], n_batches=40)))
    z = (S.mean(axis=0) - mean) / se
    assert np.all(np.abs(z) < 4), (S.mean(axis=0), mean, se)
    # both modes visited, in the right proportion
    hi = sum(p for k, p in exact.items() if k[0] >= 10)
    assert 0.4 < hi < 0.7
    assert abs((S[:, 0] >= 10).mean() - hi) < 4 * se[0] / 10 + 0.05


def test_cold_chain_crosses_the_modes_of_a_bimodal_model():
    _bimodal_check(1, 2500)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3, 4])
def test_cold_chain_crosses_the_modes_long(seed):
    _bimodal_check(seed, 20000)


def test_sampler_interface_and_swap_rates():
    m = with_tempering(ef.ERGM(_graph(5, [(0, 1)]), "edges + triangle"), n_temps=3,
                       min_beta=0.5, sweep=20)
    sampler, cm = m.sampler([-1.0, 0.5], random_state=1)
    assert isinstance(sampler, TemperedSampler)
    S = sampler.sample(np.array([-1.0, 0.5]), 50, 100, 20)
    assert S.shape == (50, 2)
    # the returned compiled model is the cold chain's: its ties give the last draw
    np.testing.assert_allclose(m.statistics_vector(m.chain_end(cm)),
                               m.statistics_vector() + S[-1])
    assert np.all((sampler.swap_rates > 0) & (sampler.swap_rates <= 1))
    with pytest.raises(SettingsError, match="contrastive divergence"):
        sampler.cd_sample(np.zeros(2), 1, 1)
    # the original model is untouched
    assert getattr(ef.ERGM(_graph(5, [(0, 1)]), "edges").sampler([0.0])[0],
                   "swap_rates", None) is None


@pytest.mark.parametrize("settings, what", [
    ({"betas": [0.9, 0.5]}, "start at 1"), ({"betas": [1.0, 1.0]}, "decrease"),
    ({"betas": [1.0, -0.5]}, "> 0"), ({"n_temps": 0}, "n_temps"),
    ({"min_beta": 1.5}, "min_beta"), ({"sweep": 0}, "sweep")])
def test_bad_tempering_settings_are_named(settings, what):
    with pytest.raises(SettingsError, match=what):
        with_tempering(ef.ERGM(_graph(4, [(0, 1)]), "edges"), Tempering(**settings))


def test_tempered_model_in_multichain_simulate_and_gof():
    """simulate(n_chains=2) and gof reach the tempered sampler through the model."""
    m = with_tempering(ef.ERGM(_graph(6, [(0, 1), (1, 2), (0, 2)]), "edges + triangle"),
                       n_temps=3, sweep=50)
    S = m.simulate([-1.0, 0.5], n=10, burnin=200, interval=50, n_chains=2, output="stats",
                   random_state=1)
    assert S.shape == (10, 2)
    assert type(m.gof([-1.0, 0.5], n_sim=5, random_state=1)).__name__ == "GofResult"


def _exact_mle(n, ties):
    """The MLE of edges + triangle on n nodes and its standard errors, by enumeration."""
    p = _exact(n, np.zeros(2))                  # counts of each (edges, triangles) / 2^N
    keys = np.array(list(p), dtype=float)
    logc = np.log(np.array(list(p.values())))
    A = np.zeros((n, n))
    for i, j in ties:
        A[i, j] = A[j, i] = 1
    obs = np.array([A.sum() / 2, np.trace(A @ A @ A) / 6])
    th = np.zeros(2)
    for _ in range(100):                         # Newton on the exact log-likelihood
        lw = logc + keys @ th
        w = np.exp(lw - lw.max())
        w /= w.sum()
        mu = w @ keys
        cov = (keys - mu).T @ ((keys - mu) * w[:, None])
        step = np.linalg.solve(cov, obs - mu)
        th += step
        if np.abs(step).max() < 1e-12:
            break
    return th, np.sqrt(np.diag(np.linalg.inv(cov)))


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_tempered_mcmle_equals_the_exact_mle_and_travels_with_the_fit(seed, tmp_path):
    """fit(tempering=...): MCMC-MLE whose chains are tempered equals the enumerated MLE on
    6 nodes (within 0.1 s.e.; the Monte Carlo error is a few hundredths); the setting stays
    with the fit (its simulate and a saved and reloaded fit draw tempered)."""
    from ergmfit.results import ERGMResults
    ties = [(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (4, 5), (1, 4)]
    m = ef.ERGM(_graph(6, ties), "edges + triangle")
    fit = m.fit(method="mcmle", random_state=seed, tempering={"n_temps": 2}, eval_loglik=False)
    exact, se = _exact_mle(6, ties)
    assert np.all(np.abs(np.asarray(fit.params) - exact) <= 0.1 * se), (fit.params, exact, se)
    assert fit.model.tempering == Tempering(n_temps=2)
    assert isinstance(fit.model.sampler(fit.params)[0], TemperedSampler)
    assert m.__dict__.get("tempering") is None          # the user's model is not changed
    fit.save(tmp_path / "fit.json")
    back = ERGMResults.load(tmp_path / "fit.json")
    back.model = None
    assert back.rebuild_model().tempering == Tempering(n_temps=2)
    np.testing.assert_array_equal(back.simulate(n=4, output="stats", random_state=3),
                                  fit.simulate(n=4, output="stats", random_state=3))


def test_bad_tempering_fit_settings_are_named():
    m = ef.ERGM(_graph(4, [(0, 1)]), "edges")
    with pytest.raises(SettingsError, match="unknown setting.*n_temp"):
        m.fit(method="mcmle", tempering={"n_temp": 3})
    with pytest.raises(SettingsError, match="tempering must be True"):
        m.fit(method="mcmle", tempering="yes")
