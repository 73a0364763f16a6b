"""Equilibrium Expectation for MRFs (ergmfit.mrf.ee): the product model and EE
on the shared engine, checked against exact enumeration and numpy."""
import itertools

import networkx as nx
import numpy as np
import pytest

from ergmfit.mrf import BoltzmannMachine, GridCRF, IsingModel
from ergmfit.exceptions import SettingsError
from ergmfit.mrf.ee import EquilibriumExpectation, ProductModel, default_sampler_steps


# ---------------------------------------------------------------------------
# the product model: statistics and change statistics are sums over copies
# ---------------------------------------------------------------------------
def _numpy_stats(n, monomials, stat, coef, pm1, X, p):
    """g of every row of X, straight from the monomial definition."""
    S = 2.0 * X - 1.0 if pm1 else X.astype(float)
    out = np.zeros((len(X), p))
    for m, k, c in zip(monomials, stat, coef):
        out[:, k] += c * np.prod(S[:, list(m)], axis=1)
    return out


@pytest.mark.parametrize("model", [
    IsingModel(nx.cycle_graph(5), coding="pm1"),
    IsingModel(nx.path_graph(4), coding="01", tied=False),
    BoltzmannMachine(4, higher_order=[(0, 1, 2), (0, 1, 2, 3)], coding="01"),
    BoltzmannMachine(4, higher_order=[(1, 2, 3)], coding="pm1"),
])
def test_product_statistics_are_sums_over_rows(model):
    rng = np.random.default_rng(0)
    X = (rng.random((7, model.n_vars)) < 0.5).astype(np.uint8)
    P = ProductModel(model._instances(X), model.labels)
    assert P.n_copies == 7 and P.n_vars == 7 * model.n_vars
    per_row = _numpy_stats(model.n_vars, model.monomials, model.stat, model.coef,
                           model.coding == "pm1", X, model.n_stats)
    bm = P.compiled()
    np.testing.assert_allclose(bm.statistics(), per_row.sum(axis=0), atol=1e-12)
    np.testing.assert_allclose(P.statistics_vector(), per_row.sum(axis=0), atol=1e-12)
    np.testing.assert_array_equal(bm.state(), X.ravel())
    # the change statistic of variable v of copy r is that of the single model at row r
    # (computed here by brute force: g(x_v=1) - g(x_v=0))
    for r, v in [(0, 0), (3, model.n_vars - 1), (6, 1)]:
        hi, lo = X[r].copy(), X[r].copy()
        hi[v], lo[v] = 1, 0
        d = _numpy_stats(model.n_vars, model.monomials, model.stat, model.coef,
                         model.coding == "pm1", np.array([hi, lo]), model.n_stats)
        np.testing.assert_allclose(bm.change_stats(r * model.n_vars + v), d[0] - d[1],
                                   atol=1e-12)
    # a flip in one copy changes G by that copy's change statistic only
    before = bm.statistics()
    delta = bm.change_stats(2 * model.n_vars + 1)
    on = bm.value(2 * model.n_vars + 1)
    bm.flip_var(2 * model.n_vars + 1)
    np.testing.assert_allclose(bm.statistics() - before, -delta if on else delta, atol=1e-12)
    # compiled() resets the state to the observations
    np.testing.assert_array_equal(P.compiled().state(), X.ravel())


def test_product_weights_replicate_rows():
    m = IsingModel(nx.cycle_graph(4))
    X = np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1]])
    P = ProductModel([(m.compiled(), X, [2, 0, 3])], m.labels)
    Q = ProductModel(m._instances(X[[0, 0, 2, 2, 2]]), m.labels)
    assert P.n_copies == 5
    np.testing.assert_allclose(P.statistics_vector(), Q.statistics_vector())
    np.testing.assert_array_equal(P.x_obs, Q.x_obs)


def test_product_of_crf_instances():
    crf = GridCRF((3, 4))
    rng = np.random.default_rng(1)
    Y = rng.normal(size=(3, 12))
    X = (rng.random((3, 12)) < 0.5).astype(np.uint8)
    insts = [(crf.conditional(y), x[None, :], None) for y, x in zip(Y, X)]
    P = ProductModel(insts, crf.labels)
    assert P.n_vars == 36
    # brute force from the CRF's definition: node [1, y_j] s_j, edge [1, c_ij] s_i s_j
    total = np.zeros(4)
    for y, x in zip(Y, X):
        s = 2.0 * x - 1.0
        c = crf.edge_features_of(y)
        total[0] += s.sum()
        total[1] += (y * s).sum()
        for e, (i, j) in enumerate(crf.edges):
            total[2] += s[i] * s[j]
            total[3] += c[e] * s[i] * s[j]
    np.testing.assert_allclose(P.compiled().statistics(), total, atol=1e-10)
    np.testing.assert_allclose(P.statistics_vector(), total, atol=1e-10)


def test_default_sampler_steps():
    m = IsingModel(nx.cycle_graph(6))
    P = ProductModel(m._instances(np.zeros((50, 6))), m.labels)
    assert default_sampler_steps(P) == 50                      # one proposal per observation
    crf = GridCRF((20, 20))
    y = np.zeros(400)
    P = ProductModel([(crf.conditional(y), np.zeros((1, 400)), None)] * 2, crf.labels)
    assert default_sampler_steps(P) == 8                       # 1% of a sweep of 800 variables


# ---------------------------------------------------------------------------
# EE against exact maximum likelihood
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bm_fit():
    """A 4-unit +-1 Boltzmann machine with a third-order potential (11
    parameters), 1,500 exact draws, exact MLE, and EE from theta = 0."""
    model = BoltzmannMachine(4, higher_order=[(0, 1, 2)], coding="pm1")
    rng = np.random.default_rng(11)
    theta0 = rng.uniform(-0.6, 0.6, model.n_stats)
    X = model.sample(1500, theta0, random_state=rng)
    model.fit(X, method="exact")
    mle, cov = model.coef_.copy(), model.cov_.copy()
    r = EquilibriumExpectation(random_state=3, init=np.zeros(model.n_stats)).fit(model, X)
    return model, X, mle, cov, r


def test_ee_matches_exact_mle(bm_fit):
    """Tolerance 0.3 standard errors of the MLE for every parameter.

    Why: with the t-ratio criterion |t_k| < 0.1 met, the chain's mean
    statistics differ from the observed ones by < 0.1 sd of G_k, and the
    EE average differs from the MLE by about I^-1 times that, i.e. ~0.1 s.e.
    per parameter (more along correlated directions); over five seeds the
    error measured on this model is 0.03-0.09 s.e.  The Monte-Carlo s.e. that
    EE reports (cov_mc, from the batch means of dzA) is ~0.03 s.e. here;
    0.3 s.e. is ten of those.  EE starts at theta = 0, 1-8 s.e. from the MLE."""
    model, X, mle, cov, r = bm_fit
    se = np.sqrt(np.diag(cov))
    assert np.max(np.abs(mle) / se) > 1.0          # the start (0) is far from the MLE
    err = np.abs(np.asarray(r.params) - mle) / se
    assert np.all(err < 0.3), err
    mcse = np.sqrt(np.diag(r.info["cov_mc"]))
    assert np.all(mcse < 0.1 * se)
    assert np.all(np.abs(np.asarray(r.params) - mle) < 10 * mcse + 0.05 * se)


def test_ee_standard_errors_match_exact(bm_fit):
    """The EE covariance (inverse Fisher information simulated at the
    estimate, plus the Monte-Carlo part) against the exact inverse Hessian:
    1,000 draws estimate a variance to ~5-10% (a standard deviation to
    about half that); tolerance 20% on the s.e."""
    model, X, mle, cov, r = bm_fit
    ratio = np.sqrt(np.diag(r.cov)) / np.sqrt(np.diag(cov))
    assert np.all(np.abs(ratio - 1) < 0.2), ratio


def test_ee_t_ratios_small_at_convergence(bm_fit):
    model, X, mle, cov, r = bm_fit
    t = r.info["t_ratios"]
    assert t.shape == (model.n_stats,)
    assert np.all(np.abs(t) < 0.1), t
    assert r.converged
    # the t-ratios are mean/sd of the kept dzA rows (recomputed here)
    e = r.info
    dz = e["dz_rows"][np.arange(len(e["dz_rows"])) * e["store_every"] >=
                      e["burnin_iterations"][0]]
    np.testing.assert_allclose(t, dz.mean(axis=0) / dz.std(axis=0, ddof=1), rtol=1e-10)
    # and the estimate is the mean of the kept theta rows
    th = e["theta_rows"][np.arange(len(e["theta_rows"])) * e["store_every"] >=
                         e["burnin_iterations"][0]]
    np.testing.assert_allclose(np.asarray(r.params), th.mean(axis=0), rtol=1e-12)


def test_ee_via_model_fit_and_reproducible():
    m = IsingModel(nx.cycle_graph(6))
    X = m.sample(400, theta=[0.2, 0.4], random_state=5)
    kw = dict(method="ee", ee_steps=30, ee_inner_steps=50, se="none")
    a = m.fit(X, random_state=7, **kw).coef_.copy()
    rows_a = m.theta_rows_.copy()
    assert m.method_ == "ee" and m.t_ratios_.shape == (2,) and m.cov_ is None
    b = m.fit(X, random_state=7, **kw).coef_.copy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(rows_a, m.theta_rows_)
    c = m.fit(X, random_state=8, **kw).coef_
    assert not np.array_equal(a, c)


def test_ee_adaptive_and_cd_start_run():
    m = IsingModel(nx.cycle_graph(5))
    X = m.sample(300, theta=[0.1, 0.5], random_state=2)
    r = EquilibriumExpectation(random_state=1, update="adaptive", ee_steps=20, ee_inner_steps=50,
                               se="none", init="cd", cd_iter=20).fit(m, X)
    assert np.all(np.isfinite(np.asarray(r.params))) and r.info["init_theta"].shape == (2,)


def test_gridcrf_fit_ee():
    crf = GridCRF((6, 6))
    rng = np.random.default_rng(4)
    x = np.where(np.arange(36) % 6 < 3, 1, -1)
    Y = x[None, :] + rng.normal(size=(3, 36))
    # noise-free labels: the MPLE does not exist (separation) -> CD-1 start, with a warning
    with pytest.warns(UserWarning, match="pseudo-likelihood"):
        crf.fit(Y, np.tile(x, (3, 1)), method="ee", random_state=1, ee_steps=20,
                ee_inner_steps=50, se="none")
    assert crf.coef_.shape == (4,) and np.all(np.isfinite(crf.coef_))
    assert crf.n_copies_ == 3


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
def test_bad_input():
    m = IsingModel(nx.cycle_graph(4))
    bm = m.compiled()
    X = np.array([[1, 0, 1, 1], [0, 0, 1, 0]])
    lab = m.labels
    with pytest.raises(ValueError, match="columns"):
        EquilibriumExpectation().fit_instances([(bm, X[:, :3], None)], lab)
    with pytest.raises(ValueError, match="0/1"):
        EquilibriumExpectation().fit_instances([(bm, X * 2, None)], lab)
    with pytest.raises(ValueError, match="integer"):
        EquilibriumExpectation().fit_instances([(bm, X, [0.5, 1.0])], lab)
    with pytest.raises(ValueError, match="one weight"):
        EquilibriumExpectation().fit_instances([(bm, X, [1])], lab)
    with pytest.raises(ValueError, match="no observations"):
        EquilibriumExpectation().fit_instances([(bm, X, [0, 0])], lab)
    with pytest.raises(ValueError, match="non-empty"):
        EquilibriumExpectation().fit_instances([], lab)
    with pytest.raises(ValueError, match="statistics"):
        EquilibriumExpectation().fit_instances([(bm, X, None)], lab + ["extra"])
    with pytest.raises(ValueError, match="MonomialModel"):
        EquilibriumExpectation().fit_instances([(object(), X, None)], lab)
    with pytest.raises(ValueError, match="coding"):
        m01 = IsingModel(nx.cycle_graph(4), coding="01")
        EquilibriumExpectation().fit_instances([(bm, X, None), (m01.compiled(), X, None)], lab)
    with pytest.raises(ValueError, match="update"):
        EquilibriumExpectation(update="younes").fit_instances([(bm, X, None)], lab)
    with pytest.raises(ValueError, match="proposal"):
        EquilibriumExpectation(proposal="ifd").fit_instances([(bm, X, None)], lab)
    with pytest.raises(ValueError, match="init"):
        EquilibriumExpectation(init="mple").fit_instances([(bm, X, None)], lab)
    with pytest.raises(ValueError, match="init"):
        EquilibriumExpectation(init=[0.1, 0.2, 0.3]).fit_instances([(bm, X, None)], lab)
    with pytest.raises(ValueError, match="learning_rate"):
        EquilibriumExpectation(init=[0.1, 0.2], learning_rate=-1.0)
    with pytest.raises(ValueError, match="ee_steps"):
        EquilibriumExpectation(init=[0.1, 0.2], ee_steps=0).fit_instances([(bm, X, None)], lab)
    with pytest.raises(SettingsError, match="no setting 'n_sweeps'"):
        EquilibriumExpectation(n_sweeps=3).fit_instances([(bm, X, None)], lab)


def test_product_matches_enumerated_likelihood_of_rows():
    """log p of the product state = sum of the rows' log p (the product model
    is the joint model of independent observations); by enumeration."""
    from ergmfit.mrf import exact
    m = IsingModel(nx.path_graph(3))
    X = np.array([[1, 0, 1], [0, 0, 1]])
    theta = np.array([0.3, -0.7])
    P = ProductModel(m._instances(X), m.labels)
    G = exact.all_statistics(P.compiled())                  # 2^6 states of the product
    lp_prod = P.statistics_vector() @ theta - exact.log_partition(G, theta)
    states = np.array(list(itertools.product([0, 1], repeat=3)))
    Gs = m.statistics(states)
    logZ = np.log(np.exp(Gs @ theta).sum())
    lp_rows = (m.statistics(X) @ theta - logZ).sum()
    assert abs(lp_prod - lp_rows) < 1e-10


def test_engine_settings_are_the_ergm_ees_with_mrf_defaults():
    """One declaration: the MRF EE takes the ERGM EE's Setting objects (their checks),
    with its own defaults and narrower named choices."""
    from ergmfit.estimation.ee.estimator import EE
    from ergmfit.mrf.ee import EquilibriumExpectation
    ergm = {s.name: s for s in EE.settings_table()}
    mrf = {s.name: s for s in EquilibriumExpectation.settings_table()}
    for name in ("ee_steps", "t_tol", "thin", "checkpoint_every", "n_chains", "callback"):
        assert mrf[name] is ergm[name]
    for name in ("learning_rate", "burnin", "polish", "sampler_steps"):
        assert mrf[name].default != ergm[name].default
    for name, value in [("update", "auto"), ("learning_rate", "auto"), ("burnin", "auto"),
                        ("polish", "auto"), ("se", "estimnet"), ("proposal", "ifd"),
                        ("proposal", None), ("init", "mple")]:
        with pytest.raises(SettingsError, match=repr(name)):
            EquilibriumExpectation(**{name: value})
    # values go to the ERGM check
    assert EquilibriumExpectation(learning_rate=[0.1, 0.01]).learning_rate == [0.1, 0.01]
    with pytest.raises(SettingsError, match="'learning_rate' must be a number in"):
        EquilibriumExpectation(learning_rate=1.5)
    assert EquilibriumExpectation(sampler_steps=None).sampler_steps is None
