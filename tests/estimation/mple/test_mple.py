"""MPLE: statnet's reference fits, an independent logistic regression, the
compressed design, case-control sampling, degenerate models, and the
simulation-based standard errors."""
import ast
import decimal
import itertools
import math

import numpy as np
import pytest
from scipy import optimize, special

import ergmfit as ef
from ergmfit.estimation import fit, methods
from ergmfit.estimation.mple._mple import build_design, pseudo_score
from ergmfit.estimation.mple.pseudolikelihood import MPLE, fit_pseudolikelihood, pseudo_design
from ergmfit.exceptions import ConvergenceWarning, DegenerateModelError
from ergmfit.results import r_format
from ergmfit.utils.validation import seed_words


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _as_dict(v):
    return ast.literal_eval(v) if isinstance(v, str) else dict(v)


def _tolerance(ref, rel):
    """Relative tolerance, but never below half a unit of the last digit statnet printed."""
    exp = decimal.Decimal(repr(float(ref))).normalize().as_tuple().exponent
    return max(rel * abs(ref), 0.5 * 10.0 ** exp * (1 + 1e-9))


def _mple_refs():
    from support.paths import load_reference
    fits = load_reference("statnet_fits.json")["fits"]
    return [f for f in fits if f["estimator"] == "MPLE" and not f.get("error")]


_NETS = {}


def _net(name):
    if name not in _NETS:
        _NETS[name] = ef.datasets.load_network(name)
    return _NETS[name]


def _model(name, formula):
    return ef.ERGM(_net(name), formula)


# ---------------------------------------------------------------------------
# statnet's reference MPLE fits
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("ref", _mple_refs(), ids=lambda f: f["name"])
def test_reference_fit(ref):
    m = _model(ref["dataset"], ref["formula_python"])
    res = fit(m, "mple")
    coef, se = _as_dict(ref["coef"]), _as_dict(ref["stderr"])
    assert res.labels == list(coef), "labels differ from statnet's"
    assert res.converged and res.method == "mple"
    for lab in res.labels:
        assert abs(res.params[lab] - coef[lab]) <= _tolerance(coef[lab], 1e-4), \
            (lab, res.params[lab], coef[lab])
        assert abs(res.bse[lab] - se[lab]) <= _tolerance(se[lab], 1e-3), \
            (lab, res.bse[lab], se[lab])
    # deviances, AIC and BIC as statnet prints them (4 significant digits)
    for ours, theirs in ((res.deviance, ref["residual_deviance"]),
                         (res.null_deviance, ref["null_deviance"]),
                         (res.aic, ref["aic"]), (res.bic, ref["bic"])):
        assert float(r_format([ours], 4)[0]) == pytest.approx(theirs, rel=1e-12), (ours, theirs)
    assert res.nobs == m.network.n_dyads
    assert res.df_resid == m.network.n_dyads - len(res.labels)


def test_reference_fit_kinds():
    """Dyad-dependent fits are labelled pseudo-likelihood and carry statnet's warning;
    mutual makes a model dyad-dependent (x_ij's change depends on x_ji)."""
    r = fit(_model("flomarriage", "edges + triangle"), "mple")
    assert r.loglik_kind == "pseudo"
    assert any("naive pseudolikelihood and are suspect" in w for w in r.warnings)
    r = fit(_model("samplike", "edges + mutual"), "mple")
    assert r.loglik_kind == "pseudo"
    r = fit(_model("lazega", "edges + nodematch('practice')"), "mple")
    assert r.loglik_kind == "exact" and not r.warnings


# ---------------------------------------------------------------------------
# dyad-independent MPLE = ordinary logistic regression on the dyad indicators
# ---------------------------------------------------------------------------
def _logit_by_scipy(X, y):
    """Independent maximum likelihood logistic regression (BFGS, then Newton polish)."""
    def nll(b):
        eta = X @ b
        return float(np.sum(np.logaddexp(0, eta)) - y @ eta)

    def grad(b):
        return X.T @ (special.expit(X @ b) - y)

    b = optimize.minimize(nll, np.zeros(X.shape[1]), jac=grad, method="BFGS",
                          options={"gtol": 1e-10, "maxiter": 10000}).x
    for _ in range(5):                      # polish (BFGS stops around 1e-6)
        mu = special.expit(X @ b)
        H = X.T @ (X * (mu * (1 - mu))[:, None])
        b = b + np.linalg.solve(H, X.T @ (y - mu))
    mu = special.expit(X @ b)
    H = X.T @ (X * (mu * (1 - mu))[:, None])
    return b, np.sqrt(np.diag(np.linalg.inv(H))), -nll(b)


def test_dyad_independent_undirected_equals_logistic_regression():
    net = _net("lazega")
    sen = np.array(net.node_attribute("seniority", numeric=True))
    prac = np.array(net.node_attribute("practice"))
    age = np.array(net.node_attribute("age", numeric=True))
    A = np.zeros((net.n, net.n))
    A[net.ties[:, 0], net.ties[:, 1]] = A[net.ties[:, 1], net.ties[:, 0]] = 1
    rows, y = [], []
    for i, j in itertools.combinations(range(net.n), 2):
        rows.append([1.0, sen[i] + sen[j], float(prac[i] == prac[j]), abs(age[i] - age[j])])
        y.append(A[i, j])
    b, se, ll = _logit_by_scipy(np.array(rows), np.array(y))
    res = fit(ef.ERGM(net, "edges + nodecov('seniority') + nodematch('practice') + "
                           "absdiff('age')"), "mple")
    np.testing.assert_allclose(res.params, b, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(res.bse, se, rtol=1e-6)
    assert res.loglik == pytest.approx(ll, rel=1e-10)
    assert res.loglik_kind == "exact"
    assert "Maximum Likelihood Results:" in str(res.summary())


def test_dyad_independent_directed_equals_logistic_regression():
    net = _net("samplike")
    grp = np.array(net.node_attribute("group"))
    A = np.zeros((net.n, net.n))
    A[net.ties[:, 0], net.ties[:, 1]] = 1
    rows, y = [], []
    for i, j in itertools.permutations(range(net.n), 2):
        rows.append([1.0, float(grp[i] == grp[j])])
        y.append(A[i, j])
    b, se, ll = _logit_by_scipy(np.array(rows), np.array(y))
    res = fit(ef.ERGM(net, "edges + nodematch('group')"), "mple")
    np.testing.assert_allclose(res.params, b, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(res.bse, se, rtol=1e-6)
    assert res.loglik == pytest.approx(ll, rel=1e-10)
    assert res.nobs == net.n * (net.n - 1)


# ---------------------------------------------------------------------------
# the compressed design
# ---------------------------------------------------------------------------
def _brute_design(cm):
    v = np.arange(cm.n_vars, dtype=np.int64)
    X = cm.change_matrix(v)
    y = np.array([cm.value(int(k)) for k in v], dtype=float)
    return X, y


def _compress(X, y):
    rows = {}
    for x, t in zip(map(tuple, X), y):
        n, s = rows.get(x, (0.0, 0.0))
        rows[x] = (n + 1, s + t)
    return rows


@pytest.mark.parametrize("name,formula", [
    ("flomarriage", "edges + kstar(2) + triangle"),
    ("lazega", "edges + gwesp(0.693, fixed=TRUE) + nodematch('office')"),
    ("samplike", "edges + mutual + nodematch('group')"),
])
@pytest.mark.parametrize("fast", [True, False])
def test_design_equals_brute_force(name, formula, fast):
    cm = _model(name, formula).compiled()
    d = build_design(cm, -1, None, fast)
    X, y = _brute_design(cm)
    want = _compress(X, y)
    got = {tuple(x): (n, s) for x, n, s in zip(d["X"], d["n"], d["s"])}
    assert got == want
    assert d["n"].sum() == cm.n_vars and d["s"].sum() == len(cm.on_vars())


def test_pseudo_score_and_loglik():
    m = _model("lazega", "edges + kstar(2) + triangle")
    cm = m.compiled()
    X, y = _brute_design(cm)
    theta = np.array([-2.0, 0.05, 0.4])
    eta = X @ theta
    want_score = X.T @ (y - special.expit(eta))
    want_ll = float(y @ eta - np.logaddexp(0, eta).sum())
    score, ll = pseudo_score(cm, theta)
    np.testing.assert_allclose(score, want_score, rtol=1e-10, atol=1e-9)
    assert ll == pytest.approx(want_ll, rel=1e-12)
    d = pseudo_design(cm)
    np.testing.assert_allclose(d.score(theta), want_score, rtol=1e-10, atol=1e-9)
    assert d.loglik(theta) == pytest.approx(want_ll, rel=1e-12)
    # at the MPLE the pseudo-score vanishes
    res = fit(m, "mple")
    assert np.abs(pseudo_score(cm, np.asarray(res.params))[0]).max() < 1e-6


def test_generic_pseudolikelihood_entry_point():
    m = _model("flomarriage", "edges + triangle")
    lf = fit_pseudolikelihood(m.compiled(), labels=m.labels)
    np.testing.assert_allclose(lf.params, fit(m, "mple").params, rtol=1e-10)


def test_magnolia_design_is_compressed():
    # (its speed is printed by benchmarks/bench_mple.py, not asserted here)
    m = _model("faux.magnolia.high", "edges + nodematch('Grade') + gwesp(0.25, fixed=TRUE)")
    res = fit(m, "mple")
    assert res.nobs == 1_066_530
    assert res.info["design"]["unique_rows"] < 200 and not res.info["design"]["sampled"]


# ---------------------------------------------------------------------------
# case-control sampling
# ---------------------------------------------------------------------------
def test_case_control_sample_weights():
    cm = _model("faux.magnolia.high", "edges + nodematch('Grade')").compiled()
    d = build_design(cm, 50_000, seed_words(5))
    n_on = len(cm.on_vars())
    assert d["sampled"] and d["n_sampled"] == 50_000
    assert d["s"].sum() == n_on
    assert d["n"].sum() == pytest.approx(cm.n_vars, rel=1e-12)
    # same seed, same sample; another seed, another sample
    d2 = build_design(cm, 50_000, seed_words(5))
    np.testing.assert_array_equal(d["n"], d2["n"])
    d3 = build_design(cm, 50_000, seed_words(6))
    assert not np.array_equal(d["n"], d3["n"])


def test_case_control_recovers_full_mple():
    m = _model("faux.magnolia.high", "edges + nodematch('Grade') + gwesp(0.25, fixed=TRUE)")
    full = fit(m, "mple")
    samp = fit(m, "mple", sample_size=400_000, random_state=11)
    assert samp.info["design"]["sampled"]
    diff = np.abs(np.asarray(samp.params) - np.asarray(full.params))
    assert np.all(diff < 0.5 * np.asarray(full.bse)), diff
    np.testing.assert_allclose(samp.bse, full.bse, rtol=0.1)
    assert samp.loglik == pytest.approx(full.loglik, rel=0.02)
    assert any("case-control sample" in w for w in samp.warnings)
    # reproducible
    again = fit(m, "mple", sample_size=400_000, random_state=11)
    np.testing.assert_array_equal(again.params, samp.params)


def test_a_case_control_mple_without_random_state_is_reproducible():
    # without random_state the non-tie sample is a fixed one (seed 0): an MPLE that another
    # estimator runs as its start (EE, MCMC-MLE above 2**26 dyads) gives the same start every
    # run; before, each run drew a new sample
    m = _model("lazega", "edges + triangle")
    a, b = (fit(m, "mple", sample_size=100) for _ in range(2))
    assert a.info["design"]["sampled"]
    np.testing.assert_array_equal(a.params, b.params)
    np.testing.assert_array_equal(a.params, fit(m, "mple", sample_size=100,
                                                 random_state=0).params)
    assert not np.array_equal(a.params, fit(m, "mple", sample_size=100,
                                            random_state=1).params)


def test_sampling_switches_on_above_max_dyads():
    m = _model("lazega", "edges + triangle")
    res = fit(m, "mple", max_dyads=100, random_state=1)
    d = res.info["design"]
    # 630 dyads > 100: all 115 ties plus max(100000, 8 x 115) non-ties > half of them -> all
    assert not d["sampled"]
    res = fit(m, "mple", sample_size=100, random_state=1)
    assert res.info["design"]["sampled"] and res.info["design"]["n_sampled"] == 100
    with pytest.raises(ValueError, match="sample_size"):
        fit(m, "mple", sample_size=0)


# ---------------------------------------------------------------------------
# degenerate models
# ---------------------------------------------------------------------------
def _path_net():
    return ef.Network(6, [(0, 1), (1, 2), (2, 3), (3, 4)], directed=False)


def _helper_fit(model, **settings):
    """The MPLE's own fit of ``model`` as a fit run inside a prepared one sees it (an
    MCMC-MLE's start, btergm's point estimate): ``fit(model, "mple")`` and
    ``model.fit(method="mple")`` fit the face of an MLE at infinity first (#36,
    tests/estimation/mple/test_boundary.py), which these separations are."""
    from ergmfit.estimation.base import support_checked
    with support_checked():
        return fit(model, "mple", **settings)


def test_separation_is_an_error_naming_the_term():
    with pytest.raises(DegenerateModelError, match=r"'triangle'.*-Inf"):
        _helper_fit(ef.ERGM(_path_net(), "edges + triangle"))
    # a fit of the model: the face (triangle at its smallest value), as statnet
    with pytest.warns(ConvergenceWarning, match="boundary.*'triangle'"):
        res = fit(ef.ERGM(_path_net(), "edges + triangle"), "mple")
    assert res.params["triangle"] == -math.inf
    assert res.params["edges"] == pytest.approx(math.log(4 / 8), abs=1e-9)


def test_separation_warn_fixes_the_coefficient_as_statnet():
    with pytest.warns(ConvergenceWarning, match="triangle"):
        res = _helper_fit(ef.ERGM(_path_net(), "edges + triangle"), separation="warn")
    assert res.params["triangle"] == -math.inf and math.isnan(res.bse["triangle"])
    # the 3 non-ties closing a two-path are determined; 4 ties and 8 non-ties remain
    assert res.params["edges"] == pytest.approx(math.log(4 / 8), abs=1e-9)
    text = str(res.summary())
    assert "-Inf" in text and "NA" in text


def test_perfect_separation_by_a_covariate():
    # ties exactly between nodes of the same group, none between groups
    ties = [(0, 1), (2, 3), (4, 5), (0, 2), (1, 3)]
    g = ["a", "a", "a", "a", "b", "b"]
    net = ef.Network(6, ties, directed=False, node_attrs={"g": g})
    with pytest.raises(DegenerateModelError, match=r"nodematch\.g.*\+Inf"):
        fit(ef.ERGM(net, "edges + nodematch('g')"), "mple")


def test_no_variation_names_the_term():
    with pytest.raises(DegenerateModelError, match=r"'degree20'.*no variation"):
        fit(_model("flomarriage", "edges + degree(20)"), "mple")


def test_collinear_statistics_named():
    with pytest.raises(DegenerateModelError, match=r"'edges'.*'kstar1'.*linearly dependent"):
        fit(_model("flomarriage", "edges + kstar(1)"), "mple")


def test_no_silent_huge_estimate_on_empty_network():
    net = ef.Network(5, [], directed=False)
    with pytest.raises(DegenerateModelError, match="edges"):
        _helper_fit(ef.ERGM(net, "edges"))
    with pytest.warns(ConvergenceWarning, match="boundary.*'edges'"):     # the face (#36)
        assert fit(ef.ERGM(net, "edges"), "mple").params["edges"] == -math.inf


# ---------------------------------------------------------------------------
# Godambe and bootstrap standard errors
# ---------------------------------------------------------------------------
def test_godambe_reproducible_and_sane():
    m = _model("flomarriage", "edges + triangle")
    kw = dict(cov="godambe", n_sim=60, burnin=2000, interval=200)
    a = fit(m, "mple", random_state=7, **kw)
    b = fit(m, "mple", random_state=7, **kw)
    c = fit(m, "mple", random_state=8, **kw)
    np.testing.assert_array_equal(a.bse, b.bse)
    assert not np.array_equal(a.bse, c.bse)
    assert a.se_kind == "godambe" and np.all(np.isfinite(a.bse)) and np.all(a.bse > 0)
    np.testing.assert_array_equal(a.params, fit(m, "mple").params)
    assert a.info["godambe"]["n_sim"] == 60 and 0 < a.info["godambe"]["acceptance_rate"] <= 1
    assert not any("naive" in w for w in a.warnings)


def test_godambe_equals_naive_for_a_dyad_independent_model():
    """With no dependence the pseudo-likelihood is the likelihood: J estimates H."""
    m = _model("lazega", "edges")
    naive = fit(m, "mple")
    god = fit(m, "mple", cov="godambe", n_sim=300, burnin=5000, interval=600, random_state=3)
    assert god.bse["edges"] == pytest.approx(naive.bse["edges"], rel=0.15)


def test_bootstrap_reproducible_and_sane():
    m = _model("lazega", "edges")
    naive = fit(m, "mple")
    a = fit(m, "mple", bootstrap=150, burnin=5000, interval=600, random_state=5)
    b = fit(m, "mple", bootstrap=150, burnin=5000, interval=600, random_state=5)
    np.testing.assert_array_equal(a.bse, b.bse)
    assert a.se_kind == "bootstrap" and a.info["bootstrap"]["B"] == 150
    assert len(a.info["bootstrap"]["estimates"]) == 150 - a.info["bootstrap"]["n_failed"]
    assert a.bse["edges"] == pytest.approx(naive.bse["edges"], rel=0.2)


def test_bootstrap_dyad_dependent_runs():
    m = _model("lazega", "edges + gwesp(0.693, fixed=TRUE)")
    r = fit(m, "mple", bootstrap=20, burnin=3000, interval=300, random_state=1)
    assert np.all(np.isfinite(r.bse)) and np.all(r.bse > 0)


# ---------------------------------------------------------------------------
# the dispatcher and arguments
# ---------------------------------------------------------------------------
def test_fit_dispatch_and_unknown_method():
    assert "mple" in methods()
    m = _model("flomarriage", "edges")
    assert fit(m, "MPLE").method == "mple"
    with pytest.raises(ValueError, match=r"unknown method 'nope'.*'mple'"):
        fit(m, "nope")


def test_bad_arguments():
    m = _model("flomarriage", "edges")
    with pytest.raises(ValueError, match="cov"):
        fit(m, "mple", cov="sandwich")
    with pytest.raises(ValueError, match="separation"):
        fit(m, "mple", separation="ignore")
    with pytest.raises(ValueError, match="no setting 'no_such_setting'.*sample_size"):
        fit(m, "mple", no_such_setting=1)
    assert isinstance(MPLE(bootstrap=10).cov, str) and MPLE(bootstrap=10).cov == "bootstrap"
