"""Tapered ERGMs (#36 item 1): the Taper penalty, the tapered model's distribution by exact
enumeration, and ergm.tapered's MPLE on Lazega (tests/reference/statnet_tapered.json)."""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError
from support.paths import load_reference

N5_TIES = [(0, 1), (1, 2), (0, 2), (2, 3)]


def _small_graph():
    g = nx.Graph()
    g.add_nodes_from(range(5))
    g.add_edges_from(N5_TIES)
    return g


def _edges_triangles(A):
    return A.sum() / 2, np.trace(A @ A @ A) / 6


def _exact_distribution(n, theta, tau, centers):
    """P(edges, triangle) of the tapered edges + triangle model on n nodes, by enumeration."""
    pairs = list(itertools.combinations(range(n), 2))
    probs = {}
    for bits in itertools.product([0, 1], repeat=len(pairs)):
        A = np.zeros((n, n))
        for (i, j), b in zip(pairs, bits):
            A[i, j] = A[j, i] = b
        s = np.array(_edges_triangles(A))
        w = np.exp(theta @ s - np.sum(tau * (s - centers) ** 2))
        key = tuple(int(v) for v in s)
        probs[key] = probs.get(key, 0.0) + w
    z = sum(probs.values())
    return {k: v / z for k, v in probs.items()}


def test_tapered_model_labels_statistics_and_penalty():
    m = ef.ERGM(_small_graph(), "edges + triangle", tapered=True, r=1)
    assert isinstance(m, ef.TaperedERGM)
    assert m.labels == ["edges", "triangle"]
    assert m.statistics() == {"edges": 4.0, "triangle": 1.0}
    np.testing.assert_allclose(m.tau, [1 / 4, 1 / 1])       # 1/(r^2 g_obs)
    # the penalty on other networks: -sum tau (g - m)^2, accumulated by the kernel
    rng = np.random.default_rng(0)
    pairs = np.array(list(itertools.combinations(range(5), 2)))
    for _ in range(20):
        ties = pairs[rng.random(len(pairs)) < 0.5]
        A = np.zeros((5, 5))
        A[ties[:, 0], ties[:, 1]] = A[ties[:, 1], ties[:, 0]] = 1
        s = np.array(_edges_triangles(A))
        vec = m.statistics_vector(ties)
        np.testing.assert_allclose(vec[:2], s)
        np.testing.assert_allclose(vec[2], -np.sum(m.tau * (s - m.centers) ** 2), atol=1e-12)


def test_taper_term_in_a_formula():
    g = _small_graph()
    m = ef.ERGM(g, "edges + Taper(~edges + triangle, coef=c(0.5, 2), m=c(2, 0))")
    assert m.statistics() == {"edges": 4.0, "Taper_Penalty": -(0.5 * 4 + 2 * 1)}
    # as an offset with coefficient 1: the coefficients are the formula's
    m = ef.ERGM(g, "edges + triangle + Offset(~Taper(~edges + triangle), 1)")
    assert m.labels == ["edges", "triangle"]


@pytest.mark.parametrize("kwargs, what", [({"r": 0}, "r must be a positive"),
                                          ({"r": -1}, "r must be a positive"),
                                          ({"tau": [1, 2, 3]}, "coef needs 1 or 2"),
                                          ({"tau": [-1, 1]}, "must be >= 0"),
                                          ({"centers": [1.0, 2.0, 3.0]}, "m needs 1 or 2")])
def test_bad_tapering_settings_are_named(kwargs, what):
    with pytest.raises(ErgmfitError, match=what):
        ef.ERGM(_small_graph(), "edges + triangle", tapered=True, **kwargs)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tapered_simulation_equals_exact_enumeration(seed):
    """The sampler's draws from the tapered model: their (edges, triangle) frequencies
    equal the exact probabilities within 4.5 Monte Carlo standard errors (draws 50
    proposals apart on 10 dyads: nearly independent)."""
    g = _small_graph()
    m = ef.ERGM(g, "edges + triangle", tapered=True, r=1)
    theta = np.array([-0.5, 0.8])
    exact = _exact_distribution(5, theta, m.tau, m.centers)
    n = 8000
    S = m.simulate(theta, n=n, burnin=2000, interval=50, output="stats", random_state=seed)
    keys = [tuple(int(v) for v in row[:2]) for row in S]
    for key, p in exact.items():
        freq = sum(k == key for k in keys) / n
        assert abs(freq - p) <= 4.5 * np.sqrt(p * (1 - p) / n) + 1e-9, (key, freq, p)
    # the untapered model at the same θ is another distribution: the test can fail
    plain = _exact_distribution(5, theta, np.zeros(2), m.centers)
    assert max(abs(plain[k] - exact[k]) for k in exact) > 0.05


def test_tapered_mple_equals_ergm_tapered():
    """ergm.tapered(lazega ~ edges + kstar(2) + triangle, estimate="MPLE") with its default
    r = 2: every coefficient and s.e. within 0.01 of statnet's s.e. (the issue asks 0.1)."""
    ref = next(e for e in load_reference("statnet_tapered.json")["entries"]
               if e["status"] == "ok" and e["estimate"] == "MPLE")
    m = ef.ERGM(ef.datasets.load("lazega"), "edges + kstar(2) + triangle", tapered=True)
    fit = m.fit(method="mple")
    for lab in ref["coef_names"]:
        se = ref["se"][lab]
        assert abs(float(fit.params[lab]) - ref["coef"][lab]) < 0.01 * se, lab
        assert abs(float(fit.bse[lab]) - se) < 0.01 * se, lab
    # the untapered MPLE differs by more than that: the penalty is in the fit
    plain = ef.ERGM(ef.datasets.load("lazega"), "edges + kstar(2) + triangle").fit(method="mple")
    assert abs(float(plain.params["triangle"]) - ref["coef"]["triangle"]) > 0.1 * \
        ref["se"]["triangle"]
    assert abs(fit.aic - ref["aic"]) < 1e-3 and abs(fit.bic - ref["bic"]) < 1e-3


@pytest.mark.slow
def test_tapered_mcmle_reproduces_lazega():
    """The tapered MCMC-MLE of Lazega's near-degenerate model: 400 networks simulated from
    the tapered model at the estimate have mean statistics within 3 s.e. of the observed
    (issue 36's check), for two seeds."""
    g = ef.datasets.load("lazega")
    m = ef.ERGM(g, "edges + kstar(2) + triangle", tapered=True)
    obs = np.array([115.0, 926.0, 120.0])
    for seed in (1, 2):
        fit = m.fit(method="mcmle", random_state=seed)
        S = m.simulate(fit.params, n=400, burnin=20000, interval=2000, output="stats",
                       random_state=seed + 10)[:, :3]
        z = (S.mean(0) - obs) / (S.std(0, ddof=1) / np.sqrt(len(S)))
        assert np.all(np.abs(z) < 3), (seed, fit.params, z)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.long)])
def test_tapered_mcmle_with_tempered_chains_reproduces_lazega(seed):
    """Issue 36's check with the MLE method on the tempered sampler: MCMC-MLE whose chains
    are parallel-tempered (fit(tempering=True)), then 400 networks from the fit's own
    simulate (tempered too): mean statistics within 3 s.e. of (115, 926, 120).  Session 10:
    seed 1 z = (0.91, 0.72, 0.21), seed 2 z = (-0.81, 0.36, 1.89); fits 10-11 CPU s,
    simulations 2.5-3 CPU s.  Seed 2 repeats seed 1's check at another seed (the untempered
    test above keeps both seeds in the default run): ``long``."""
    m = ef.ERGM(ef.datasets.load("lazega"), "edges + kstar(2) + triangle", tapered=True)
    obs = np.array([115.0, 926.0, 120.0])
    fit = m.fit(method="mcmle", random_state=seed, tempering=True)
    assert fit.model.tempering is not None
    S = fit.simulate(n=400, burnin=20000, interval=2000, output="stats",
                     random_state=seed + 10)
    z = (S.mean(0) - obs) / (S.std(0, ddof=1) / np.sqrt(len(S)))
    assert np.all(np.abs(z) < 3), (seed, fit.params, z)


def test_a_tapered_tempered_model_survives_pickling():
    """Parallel chains (n_jobs > 1) pickle the model: it must stay tapered and tempered."""
    import pickle
    from ergmfit.sampling.tempered import TemperedSampler, with_tempering
    m = with_tempering(ef.ERGM(_small_graph(), "edges + triangle", tapered=True, r=1),
                       n_temps=3)
    back = pickle.loads(pickle.dumps(m))
    assert isinstance(back, ef.TaperedERGM) and back.tempering == m.tempering
    np.testing.assert_allclose(back.tau, m.tau)
    ties = np.array([[0, 1], [3, 4]])
    np.testing.assert_allclose(back.statistics_vector(ties), m.statistics_vector(ties))
    assert isinstance(back.sampler([-0.5, 0.8], random_state=1)[0], TemperedSampler)


def test_tapered_false_is_the_plain_model_and_stray_tapering_settings_are_named():
    m = ef.ERGM(_small_graph(), "edges + triangle", tapered=False)
    assert type(m) is ef.ERGM and m.stat_labels == ["edges", "triangle"]
    with pytest.raises(ErgmfitError, match="r: tapering settings.*tapered=True"):
        ef.ERGM(_small_graph(), "edges + triangle", r=2)


@pytest.mark.parametrize("ext", [".json", ".npz"])
def test_a_saved_tapered_fit_reloads_tapered(tmp_path, ext):
    from ergmfit.results import ERGMResults
    m = ef.ERGM(_small_graph(), "edges + triangle", tapered=True, r=1.5)
    fit = m.fit(method="mple")
    fit.save(tmp_path / f"fit{ext}")
    back = ERGMResults.load(tmp_path / f"fit{ext}")
    back.model = None
    re = back.rebuild_model()
    assert isinstance(re, ef.TaperedERGM) and re.r == 1.5
    np.testing.assert_allclose(re.tau, m.tau)
    np.testing.assert_allclose(re.centers, m.centers)
    ties = np.array([[0, 1], [3, 4]])
    np.testing.assert_allclose(re.statistics_vector(ties), m.statistics_vector(ties))
    # the reloaded fit simulates the tapered model: the same draws as the original
    np.testing.assert_array_equal(back.simulate(n=5, output="stats", random_state=4),
                                  fit.simulate(n=5, output="stats", random_state=4))


def test_simulated_statistics_of_a_tapered_model_are_the_formulas():
    m = ef.ERGM(_small_graph(), "edges + triangle", tapered=True, r=1)
    S = m.simulate([-0.5, 0.8], n=4, output="stats", random_state=1)
    assert S.shape == (4, 2)          # columns as labels / statistics(): no penalty column
    S2 = m.simulate([-0.5, 0.8], n=4, output="stats", random_state=1, n_chains=2)
    assert S2.shape == (4, 2)
    S3 = m.simulate([-0.5, 0.8], n=4, output="stats", random_state=1,
                    constraints="~ edges")
    assert S3.shape == (4, 2) and np.all(S3[:, 0] == 4)
