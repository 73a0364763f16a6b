"""The count MPLE (ergmfit/estimation/mple/count.py).

* It equals a direct maximisation of the pseudo-likelihood written here
  independently: each dyad's full conditional enumerated over k from the
  statistics of whole networks (``statistics_vector``), maximised by scipy.
* On dyad-independent models it is the exact MLE: a Poisson / binomial GLM
  (closed form for ``sum`` alone) and the likelihood of a hurdle model
  (``sum + nonzero``) maximised by scipy.
"""
import networkx as nx
import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import gammaln, logsumexp

import ergmfit as ef
from ergmfit.exceptions import DegenerateModelError
from support.valued_networks import random_valued, samptot


def values_of(m):
    """Dyad list and the observed value matrix of a CountERGM."""
    n, directed = m.network.n, m.network.directed
    Y = np.zeros((n, n), dtype=np.int64)
    d, v = m._dyads, m._values
    Y[d[:, 0], d[:, 1]] = v
    if not directed:
        Y[d[:, 1], d[:, 0]] = v
    dyads = [(i, j) for i in range(n) for j in range(n) if i != j and (directed or i < j)]
    return dyads, Y


def direct_pl_design(m, support):
    """For each dyad, the statistics of the network with that dyad set to each k of
    ``support`` (the rest as observed), from whole-network statistics."""
    dyads, Y = values_of(m)
    rows, obs = [], []
    for (i, j) in dyads:
        stats = []
        for k in support:
            Z = Y.copy()
            Z[i, j] = k
            if not m.network.directed:
                Z[j, i] = k
            idx = [(a, b) for (a, b) in dyads if Z[a, b] != 0]
            d = np.array(idx, dtype=np.int64).reshape(-1, 2)
            stats.append(m.statistics_vector(d, np.array([Z[a, b] for a, b in idx],
                                                         dtype=np.int64)))
        rows.append(np.array(stats))
        obs.append(list(support).index(Y[i, j]))
    return np.array(rows), np.array(obs)


def direct_mple(m, support, log_h):
    G, obs = direct_pl_design(m, support)

    def neg(theta):
        eta = G @ theta + log_h
        return -(eta[np.arange(len(obs)), obs] - logsumexp(eta, axis=1)).sum()

    res = minimize(neg, np.zeros(G.shape[2]), method="BFGS", options={"gtol": 1e-10})
    return res.x


@pytest.mark.parametrize("directed,formula,reference,seed", [
    (True, "sum + nonzero + mutual(form='min')", "Poisson", 1),
    (True, "sum + mutual(form='min')", "Binomial(3)", 2),
    (False, "sum + nonzero", "Geometric", 3),
])
def test_equals_direct_pseudolikelihood_maximum(directed, formula, reference, seed):
    g = random_valued(5, directed, 0.5, 1.0, seed, trials=3 if "Binomial" in reference else None)
    m = ef.ERGM(g, formula, response="weight", reference=reference)
    fit = m.fit("mple")
    ref = m.reference
    support = np.arange(0, 4) if ref.hi is not None else np.arange(0, 80)
    want = direct_mple(m, support, ref.log_h(support))
    assert np.allclose(np.asarray(fit.params), want, atol=1e-5), (fit.params, want)
    assert fit.info["truncation"]["tail_bound"] <= 1e-12


def _params(fit):
    return np.asarray(fit.params, dtype=float)


def test_sum_alone_is_the_glm_mle():
    # dyad-independent: the Poisson GLM without covariates, θ = log(mean y), s.e.
    # 1/sqrt(Σy); binomial(3): θ = logit(mean y / 3), s.e. 1/sqrt(n 3 p (1 - p))
    g = random_valued(12, True, 0.3, 1.5, 7)
    m = ef.ERGM(g, "sum", response="weight", reference="Poisson")
    _, Y = values_of(m)
    nd = 12 * 11
    total = Y.sum()
    fit = m.fit("mple")
    assert abs(_params(fit)[0] - np.log(total / nd)) < 1e-9
    assert abs(float(np.asarray(fit.bse)[0]) - 1 / np.sqrt(total)) < 1e-9
    assert fit.info.get("truncation")["tail_bound"] <= 1e-12
    g = random_valued(12, False, 0.4, 0.8, 8, trials=3)
    m = ef.ERGM(g, "sum", response="weight", reference="Binomial(3)")
    _, Y = values_of(m)
    nd = 12 * 11 // 2
    p = Y[np.triu_indices(12, 1)].mean() / 3
    fit = m.fit("mple")
    assert abs(_params(fit)[0] - np.log(p / (1 - p))) < 1e-9
    assert abs(float(np.asarray(fit.bse)[0]) - 1 / np.sqrt(nd * 3 * p * (1 - p))) < 1e-9


def test_sum_nonzero_is_the_hurdle_mle_with_exact_loglik():
    g = random_valued(14, True, 0.25, 2.0, 11)
    m = ef.ERGM(g, "sum + nonzero", response="weight", reference="Poisson")
    _, Y = values_of(m)
    y = Y[~np.eye(14, dtype=bool)]
    k = np.arange(0, 200)

    def negll(t):   # exact log-likelihood of independent dyads, h = 1/y!
        log_z = logsumexp(-gammaln(k + 1) + t[0] * k + t[1] * (k > 0))
        return -np.sum(-gammaln(y + 1) + t[0] * y + t[1] * (y > 0) - log_z)

    want = minimize(negll, np.zeros(2), method="BFGS", options={"gtol": 1e-10})
    fit = m.fit("mple")
    assert np.allclose(_params(fit), want.x, atol=1e-6)
    assert abs(fit.loglik - (-want.fun)) < 1e-6
    assert fit.info["truncation"]["tail_bound"] <= 1e-12
    # MCMC-MLE of a dyad-independent model is this exact MLE (as statnet's would be)
    mle = m.fit("mcmle", random_state=1)
    assert np.allclose(_params(mle), want.x, atol=1e-6)


def test_mple_that_does_not_exist_is_an_error():
    g = nx.DiGraph()
    g.add_nodes_from(range(3))
    for i in range(3):
        for j in range(3):
            if i != j:
                g.add_edge(i, j, weight=2)
    m = ef.ERGM(g, "sum + nonzero", response="weight", reference="Poisson")
    with pytest.raises(DegenerateModelError, match="does not exist"):
        m.fit("mple")


def test_separated_pseudolikelihood_is_an_error_naming_the_term():
    # On a triangle-free undirected network transitiveweights' change is 0 for every value
    # of a nonzero dyad and >= 0 for a zero one (> 0 where its ends share a neighbour), so
    # each dyad's observed value has the smallest change of its values: the pseudo-
    # likelihood keeps increasing as the coefficient -> -Inf.  The old check (run for
    # |θ| > 20 only) returned transitiveweights -11.1 with s.e. 2e6 for seed 2.
    separated = 0
    for seed in range(12):
        g = random_valued(7, False, 0.35, 1.0, seed)
        m = ef.ERGM(g, "sum + nonzero + transitiveweights", response="weight",
                    reference="Poisson")
        if sum(nx.triangles(g).values()) == 0:
            separated += 1
            with pytest.raises(DegenerateModelError,
                               match=r"does not exist: .*'transitiveweights.min.max.min' "
                                     r"\(term transitiveweights\) -> -Inf.*observed value"):
                m.fit("mple")
        else:
            fit = m.fit("mple")
            assert np.all(np.isfinite(_params(fit)))
            assert np.all(np.asarray(fit.bse, dtype=float) < 10)
    assert 3 <= separated <= 9          # both kinds of network are checked


@pytest.mark.parametrize("cov", ["godambe", pytest.param("bootstrap", marks=pytest.mark.slow)])
def test_simulated_standard_errors_are_reproducible_and_near_exact(cov):
    # dyad-independent: the naive s.e. are exact; the simulated ones estimate them
    g = random_valued(10, True, 0.4, 1.0, 5)
    m = ef.ERGM(g, "sum + nonzero", response="weight", reference="Poisson")
    naive = np.asarray(m.fit("mple").bse, dtype=float)
    a = m.fit("mple", cov=cov, n_sim=200, interval=300, random_state=3)
    b = m.fit("mple", cov=cov, n_sim=200, interval=300, random_state=3)
    se = np.asarray(a.bse, dtype=float)
    assert np.array_equal(se, np.asarray(b.bse, dtype=float))
    # 200 draws: the s.e. of a s.e. is about 1/sqrt(2 * 200) = 5 %; allow 25 %
    assert np.all(np.abs(se / naive - 1) < 0.25), (se, naive)


# -- MCMC-MLE on the count family -------------------------------------------------------
def exact_mle_by_enumeration(m, values=range(3)):
    """The MLE of a 3-node directed count model, by enumerating every state."""
    import itertools
    dyads, Y = values_of(m)
    G, LH = [], []
    for ys in itertools.product(values, repeat=len(dyads)):
        idx = [k for k, y in enumerate(ys) if y]
        d = np.array([dyads[k] for k in idx], dtype=np.int64).reshape(-1, 2)
        G.append(m.statistics_vector(d, np.array([ys[k] for k in idx], dtype=np.int64)))
        LH.append(float(np.sum(m.reference.log_h(np.array(ys)))))
    G, LH = np.array(G), np.array(LH)
    g_obs = m.statistics_vector()
    res = minimize(lambda t: -(t @ g_obs - logsumexp(LH + G @ t)), np.zeros(G.shape[1]),
                   method="BFGS", options={"gtol": 1e-10})
    return res.x


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_mcmle_equals_exact_mle_of_a_tiny_dyad_dependent_model(seed):
    g = nx.DiGraph()
    g.add_nodes_from(range(3))
    for (i, j), y in {(0, 1): 2, (1, 0): 1, (1, 2): 1, (2, 0): 2, (0, 2): 1}.items():
        g.add_edge(i, j, weight=y)
    m = ef.ERGM(g, "sum + mutual(form='min')", response="weight", reference="Binomial(2)")
    want = exact_mle_by_enumeration(m)
    fit = m.fit("mcmle", random_state=seed)
    assert fit.info["init_method"] == "MPLE"
    mc_se = np.sqrt(np.diag(fit.cov_mc)) if fit.cov_mc is not None else 0
    # the Monte Carlo error of the estimate only (the statistical s.e. is ~10 x larger)
    err = np.abs(_params(fit) - want)
    assert np.all(err < 5 * mc_se + 0.02), (err, mc_se)
    assert np.all(err < 0.15 * np.asarray(fit.bse, dtype=float))


def test_case_control_sample_of_zero_dyads():
    g = random_valued(40, True, 0.05, 1.0, 21)
    m = ef.ERGM(g, "sum + nonzero + mutual(form='min')", response="weight",
                reference="Poisson")
    full = m.fit("mple")
    assert full.info["design"]["n_sampled_zeros"] is None
    fits = [m.fit("mple", sample_size=400, random_state=s) for s in (1, 2)]
    assert all(f.info["design"]["n_sampled_zeros"] == 400 for f in fits)
    assert not np.array_equal(_params(fits[0]), _params(fits[1]))     # random, seeded
    assert np.array_equal(_params(fits[0]),
                          _params(m.fit("mple", sample_size=400, random_state=1)))
    # unbiased for the full pseudo-likelihood: close to the full MPLE (sampling error)
    se = np.asarray(full.bse, dtype=float)
    for f in fits:
        assert np.all(np.abs(_params(f) - _params(full)) < 0.5 * se)
    # a dyad-independent model without covariates: every zero dyad has the same row,
    # so the weighted sample is the full pseudo-likelihood exactly
    m2 = ef.ERGM(g, "sum + nonzero", response="weight", reference="Poisson")
    assert np.allclose(_params(m2.fit("mple", sample_size=300, random_state=3)),
                       _params(m2.fit("mple")), rtol=0, atol=1e-10)


def test_mcmle_fallback_starts_on_counts():
    # a failed first MCMC-MLE attempt restarts from EE's or CD's estimate: both fit
    # counts (their supports declarations), so both give a restart
    from ergmfit.estimation.mcmle.fallback import _cd_start, _ee_start
    g = random_valued(6, True, 0.5, 1.0, 4)
    m = ef.ERGM(g, "sum + nonzero", response="weight", reference="Poisson")
    cd = _cd_start(m, np.random.default_rng(1))
    assert cd is not None and np.asarray(cd).shape == (2,) and np.all(np.isfinite(cd))
    ee = _ee_start(m, np.random.default_rng(1))
    assert ee is not None and np.asarray(ee).shape == (2,) and np.all(np.isfinite(ee))


def test_bootstrap_standard_errors_fast_check():
    g = random_valued(8, True, 0.4, 1.0, 6)
    m = ef.ERGM(g, "sum + nonzero", response="weight", reference="Poisson")
    naive = np.asarray(m.fit("mple").bse, dtype=float)
    fit = m.fit("mple", cov="bootstrap", bootstrap=40, interval=200, random_state=2)
    se = np.asarray(fit.bse, dtype=float)
    assert fit.info["bootstrap"]["B"] == 40 and len(fit.info["bootstrap"]["estimates"]) \
        + fit.info["bootstrap"]["n_failed"] == 40
    # 40 refits: a s.e. of a s.e. of about 11 %; allow 50 %
    assert np.all(np.abs(se / naive - 1) < 0.5), (se, naive)


@pytest.mark.slow       # joblib's worker start: 1-30 s on a busy machine
def test_bootstrap_refits_in_parallel_equal_the_serial_ones():
    # the simulated networks and the case-control seeds are drawn before the refits, so
    # n_jobs changes where the refits run, not their numbers
    # (a sample of fewer than half the zero dyads, else every zero dyad is taken; and a
    # dyad-dependent term, else every zero dyad has the same row and the sample is moot)
    g = random_valued(20, True, 0.1, 1.0, 7)
    m = ef.ERGM(g, "sum + nonzero + mutual(form='min')", response="weight",
                reference="Poisson")
    kw = dict(cov="bootstrap", bootstrap=6, interval=200, sample_size=60, random_state=3)
    serial = m.fit("mple", **kw)
    assert serial.info["design"]["n_sampled_zeros"] == 60
    parallel = m.fit("mple", n_jobs=2, **kw)
    assert serial.info["bootstrap"]["estimates"] == parallel.info["bootstrap"]["estimates"]
    assert np.array_equal(np.asarray(serial.bse), np.asarray(parallel.bse))


# -- zero dyads counted by attribute cell (#33 item 4) ------------------------------------
@pytest.mark.parametrize("formula, reference", [
    ("sum + nonzero", "Poisson"),
    ('sum + nonzero + nodematch("group", form="sum")', "Binomial(3)"),
    ('sum + CMP + nodefactor("group", form="nonzero") + absdiff("cloisterville", form="sum")',
     "Poisson"),
    ("sum + atleast(2)", "Geometric"),
])
def test_zero_dyads_counted_by_cell_give_the_dyad_by_dyad_mple(formula, reference, monkeypatch):
    from ergmfit.estimation.mple import count
    m = ef.ERGM(samptot(), formula, response="nominations", reference=reference)
    assert count.ZeroCells.of(m) is not None
    by_cell = m.fit("mple")
    monkeypatch.setattr(count.ZeroCells, "of", classmethod(lambda cls, model: None))
    by_dyad = m.fit("mple")
    assert np.allclose(np.asarray(by_cell.params), np.asarray(by_dyad.params), atol=1e-10)
    assert np.allclose(np.asarray(by_cell.bse), np.asarray(by_dyad.bse), atol=1e-10)
    assert by_cell.loglik == pytest.approx(by_dyad.loglik, abs=1e-8)


def test_zero_cells_only_for_attribute_cell_models():
    from ergmfit.estimation.mple import count
    assert count.ZeroCells.of(ef.ERGM(samptot(), 'sum + mutual(form="min")',
                                      response="nominations")) is None


def test_a_sparse_large_network_needs_rows_per_nonzero_dyad_not_per_dyad():
    # 3,000 nodes (4.5 million dyads): the design has one row per distinct nonzero row
    # and one per cell, and the dyad-independent MPLE is the Poisson GLM's closed form
    rng = np.random.default_rng(5)
    n = 3000
    pairs = np.unique(np.sort(rng.integers(0, n, size=(6000, 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    g = nx.Graph()
    g.add_nodes_from(range(n))
    vals = 1 + rng.poisson(0.7, size=len(pairs))
    g.add_edges_from((int(i), int(j), {"w": int(y)}) for (i, j), y in zip(pairs, vals))
    fit = ef.ERGM(g, "sum + nonzero", response="w", reference="Poisson").fit("mple")
    assert fit.info["design"]["n_rows"] <= len(np.unique(vals)) + 1
    N, m1, total = n * (n - 1) // 2, len(pairs), int(vals.sum())
    # zero-truncated Poisson part: nonzero = log(m1 / (N - m1)) - log(e^mu - 1), sum = log mu
    # where mu solves mu / (1 - e^-mu) = total / m1
    from scipy.optimize import brentq
    mu = brentq(lambda u: u / (1 - np.exp(-u)) - total / m1, 1e-9, 50)
    want = [np.log(mu), np.log(m1 / (N - m1)) - np.log(np.expm1(mu))]
    assert np.allclose(np.asarray(fit.params, dtype=float), want, atol=1e-8)
