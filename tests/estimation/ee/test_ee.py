"""Equilibrium Expectation: the IFD proposal, Algorithm S, both EE updates,
statnet reference fits, chains (joblib and dask), interruption, results."""
import ast
import itertools
import os
import warnings

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.ee.chain import algorithm_s, batch_means_sigma, t_ratios
from ergmfit.estimation.ee.estimator import EE
from ergmfit.exceptions import ConvergenceWarning
from ergmfit.results import ERGMResults
from ergmfit.sampling._mh import MHSampler
from ergmfit.sampling._proposals import IFD, ifd_correction
from ergmfit.utils.validation import seed_words
from support.ee import SHORT, quiet_fit
from support.paths import load_reference

LAZEGA_GWESP = ("edges + gwesp(log(3), fixed=TRUE) + nodecov('seniority') + nodecov('practice') "
                "+ nodematch('practice') + nodematch('gender') + nodematch('office')")


def statnet(name):
    for f in load_reference("statnet_fits.json")["fits"]:
        if f["name"] == name:
            c, s = f["coef"], f["stderr"]
            c = ast.literal_eval(c) if isinstance(c, str) else c
            s = ast.literal_eval(s) if isinstance(s, str) else s
            return c, s
    raise KeyError(name)


# ---------------------------------------------------------------------------
# the IFD proposal
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, formula, theta", [
    ("samplike", "edges + mutual", [0.0, 2.3]),
    ("lazega", "edges + triangle + nodematch('practice')", [0.0, 0.4, 0.6]),
])
def test_ifd_keeps_tie_count_within_one(name, formula, theta):
    m = ef.ERGM(ef.datasets.load_network(name), formula)
    cm = m.compiled()
    L = len(cm.on_vars())
    prop = IFD(V=-1.0, K=0.5)
    s = MHSampler(cm, prop, seed_words(7))
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(600):
        s.run_batch(theta, int(rng.integers(1, 9)))
        seen.add(len(cm.on_vars()))
        assert s.delta[0] == len(cm.on_vars()) - L
    assert seen == {L, L + 1}                       # the flag starts on "add"
    assert prop.V != -1.0                           # V adapted


def test_ifd_stationary_distribution_by_enumeration():
    # with V fixed, IFD samples exp(theta.g) restricted to L and L+1 ties, the
    # layer L+1 weighted by (L+1)/(D-L) e^V
    g = nx.DiGraph()
    g.add_nodes_from(range(4))
    g.add_edges_from([(0, 1), (1, 0), (2, 3), (3, 1)])
    m = ef.ERGM(g, "edges + mutual + ttriple")
    th = np.array([0.0, 0.8, -0.4])
    V = 0.3
    D, L = 12, 4
    dyads = list(itertools.permutations(range(4), 2))
    stats, w = [], []
    for k in (L, L + 1):
        for sub in itertools.combinations(dyads, k):
            s = m.statistics_vector(np.array(sub))
            stats.append(s)
            w.append(np.exp(th @ s) * ((L + 1) / (D - L) * np.exp(V) if k == L + 1 else 1.0))
    w = np.array(w) / np.sum(w)
    exact = w @ np.array(stats)
    cm = m.compiled()
    s = MHSampler(cm, IFD(V=V, adapt=False), seed_words(3))
    S = m.statistics_vector() + s.sample(th, 40000, 1000, 25)
    se = S.std(axis=0) / np.sqrt(len(S) / 4)
    assert np.all(np.abs(S.mean(axis=0) - exact) < 5 * se + 1e-9), (S.mean(axis=0), exact)


def test_ifd_edges_only_recovers_logit_density():
    # edges only: V settles at 0 and theta_edges = V - log((D - L)/(L + 1)),
    # the logit of the density up to log((L + 1)/L)
    m = ef.ERGM(ef.datasets.load_network("lazega"), "edges")
    L, D = 115, 630
    corr = ifd_correction(D, L)
    assert corr == pytest.approx(np.log((D - L) / (L + 1)))
    fit = quiet_fit(m, random_state=3, init=[0.5], s_steps=0, ee_steps=60, ee_inner_steps=50,
                    sampler_steps=200, polish=False, se="none")
    exact = np.log(L / (D - L))
    assert abs(fit.params["edges"] - exact) < abs(np.log((L + 1) / L)) + 0.03
    V = np.array(fit.info["ifd"]["V"][0])
    assert abs(V[0] - (0.5 + corr)) < 0.2 and abs(V[-1]) < 0.05   # V moved from the start to 0


# ---------------------------------------------------------------------------
# Algorithm S and helpers
# ---------------------------------------------------------------------------
def test_algorithm_s_scores_without_moving(samplike):
    cm = samplike.compiled()
    before = np.sort(cm.on_vars())
    prop = IFD()
    s = MHSampler(cm, prop, seed_words(2))
    corr = ifd_correction(cm.n_vars, len(before))
    free = np.array([False, True])
    theta, D, rows = algorithm_s(s, 2, free, 60, 500, 0.1, prop, corr, 0)
    assert np.array_equal(np.sort(cm.on_vars()), before)
    assert rows.shape == (60, 2) and np.all(np.isfinite(D)) and D[1] > 0
    assert theta[0] == pytest.approx(prop.V - corr)
    assert 0.5 < theta[1] < 4.0            # CD-1-like: reciprocity is strongly positive


def test_helpers():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10000, 2))
    S = batch_means_sigma(X)
    assert np.allclose(S, np.eye(2), atol=0.35)
    ar = np.zeros(20000)
    for k in range(1, len(ar)):
        ar[k] = 0.9 * ar[k - 1] + rng.normal()
    # long-run variance of an AR(1): 1 / (1 - 0.9)^2 = 100
    assert 60 < batch_means_sigma(ar[:, None])[0, 0] < 140
    t = t_ratios(np.array([[1.0, 0.0], [3.0, 0.0], [2.0, 0.0]]))
    assert t[0] == pytest.approx(2.0) and t[1] == 0.0


# ---------------------------------------------------------------------------
# reference fits (statnet MCMC-MLE within 0.5 standard errors, |t| < 0.1)
# ---------------------------------------------------------------------------
def assert_close_to_statnet(fit, ref, tol=0.5):
    c, s = ref
    for lab in fit.labels:
        assert abs(fit.params[lab] - c[lab]) < tol * s[lab], (lab, fit.params[lab], c[lab], s[lab])
        assert abs(fit.info["t_ratios"][lab]) < 0.1, (lab, fit.info["t_ratios"])
        assert 0.8 < fit.bse[lab] / s[lab] < 1.25, (lab, fit.bse[lab], s[lab])


@pytest.mark.parametrize("update", ["newton", "borisenko"])
def test_ee_samplike_matches_statnet(samplike, update):
    fit = quiet_fit(samplike, random_state=1, ee_steps=100, update=update)
    assert_close_to_statnet(fit, statnet("e1_samplike_edges_mutual.MLE_veryprecise.seed404"))
    assert fit.converged and fit.method == "ee"
    # the pure EE average, before the final MCMC-MLE step, is close too
    c, s = statnet("e1_samplike_edges_mutual.MLE_veryprecise.seed404")
    ee = np.array(fit.info["ee_estimates"][0])
    assert abs(ee[1] - c["mutual"]) < 0.5 * s["mutual"]


@pytest.mark.slow
def test_ee_lazega_gwesp_covariates_matches_statnet():
    m = ef.ERGM(ef.datasets.load_network("lazega"), LAZEGA_GWESP)
    fit = quiet_fit(m, random_state=2, ee_steps=150)
    assert_close_to_statnet(fit, statnet("b1_lazega_sprh_gwesp_log3.MLE_veryprecise.seed404"))
    assert fit.converged
    info = fit.info
    assert info["ifd"]["L"] == 115 and info["ifd"]["D"] == 630
    assert len(info["trajectory"][0]["theta"]) == 150        # every 100th iteration
    assert abs(info["t_ratios_sim"]["edges"]) < 0.5
    text = str(fit.summary())
    assert "Equilibrium Expectation Results:" in text and "t ratio" in text


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_ee_faux_mesa_tutorial_model_matches_statnet(seed):
    # edges and the Grade nodefactors are nearly collinear: the sign updates
    # wander along that ridge (1.3 s.e. off, |t| up to 0.17 with seed 1); the
    # default preconditioned update stays on the MLE with |t| < 0.1
    m = ef.ERGM(ef.datasets.load_network("faux.mesa.high"),
                "edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE) "
                "+ gwesp(0.25, fixed=TRUE)")
    fit = quiet_fit(m, random_state=seed)
    assert fit.info["settings"]["update"] == "newton"
    c, s = statnet("d_faux.mesa.high_grade_gwesp0.25.MLE_precise.seed303")
    for lab in fit.labels:
        assert abs(fit.params[lab] - c[lab]) < 0.5 * s[lab], (lab, fit.params[lab], c[lab])
        assert abs(fit.info["t_ratios"][lab]) < 0.1, (lab, fit.info["t_ratios"])
        assert 0.75 < fit.bse[lab] / s[lab] < 1.25, (lab, fit.bse[lab], s[lab])
    # the final MCMC-MLE step was taken (the EE average itself, conditional on
    # the tie count under IFD, is up to 0.5 s.e. off for edges and nodefactor)
    assert fit.info["polish"][0] is not None
    assert fit.converged


def test_ee_adaptive_update_matches_statnet(samplike):
    fit = quiet_fit(samplike, random_state=3, update="adaptive", ee_steps=150)
    assert_close_to_statnet(fit, statnet("e1_samplike_edges_mutual.MLE_veryprecise.seed404"))
    d = fit.info["Dmean"][0]
    assert d[0] is None or np.isinf(d[0]) or d[0] > 0        # IFD column: not a free parameter
    assert d[1] > 0


def test_ee_estimnet_settings_tnt_without_polish(samplike):
    # EstimNetDirected's Borisenko constants (a = 0.001), TNT proposals, no final step:
    # the plain trajectory average
    fit = quiet_fit(samplike, random_state=4, proposal="tnt", learning_rate=0.001,
                    ee_steps=100, polish=False)
    c, s = statnet("e1_samplike_edges_mutual.MLE_veryprecise.seed404")
    for lab in fit.labels:
        assert abs(fit.params[lab] - c[lab]) < 0.5 * s[lab]
    assert fit.info["ifd"] is None and fit.info["polish"] == [None]


def test_same_seed_same_result(samplike):
    kw = dict(ee_steps=8, ee_inner_steps=20, sampler_steps=200, s_steps=20, se_samplesize=50)
    a = quiet_fit(samplike, random_state=9, **kw)
    b = quiet_fit(samplike, random_state=9, **kw)
    c = quiet_fit(samplike, random_state=10, **kw)
    assert np.array_equal(np.asarray(a.params), np.asarray(b.params))
    for key in ("theta", "dzA", "acceptance"):
        assert a.info["trajectory"][0][key] == b.info["trajectory"][0][key]
    assert not np.array_equal(np.asarray(a.params), np.asarray(c.params))


# ---------------------------------------------------------------------------
# chains, interruption, results
# ---------------------------------------------------------------------------
def test_two_chains_in_parallel_equal_sequential(samplike):
    a = quiet_fit(samplike, random_state=5, n_chains=2, n_jobs=1, **SHORT)
    b = quiet_fit(samplike, random_state=5, n_chains=2, n_jobs=2, **SHORT)
    assert np.array_equal(np.asarray(a.params), np.asarray(b.params))
    est = np.array(a.info["chain_estimates"])
    assert est.shape == (2, 2) and not np.array_equal(est[0], est[1])
    lo, hi = est.min(axis=0), est.max(axis=0)
    assert np.all(np.asarray(a.params) >= lo - 1e-12) and np.all(np.asarray(a.params) <= hi + 1e-12)


def test_two_chains_on_a_dask_local_cluster(samplike):
    distributed = pytest.importorskip("distributed")
    ref = quiet_fit(samplike, random_state=6, n_chains=2, n_jobs=1, **SHORT)
    # processes=False: an in-process cluster (inproc:// transport, no network)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        fit = quiet_fit(samplike, random_state=6, n_chains=2, n_jobs=2, backend="dask", **SHORT)
    assert np.array_equal(np.asarray(fit.params), np.asarray(ref.params))


def test_keyboard_interrupt_returns_the_trajectory_so_far(samplike):
    calls = []

    def stop_at_four(state):
        calls.append(state["outer"])
        if state["outer"] == 4:
            raise KeyboardInterrupt

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = EE(random_state=1, callback=stop_at_four, n_chains=2,
                 ee_steps=50, ee_inner_steps=20, sampler_steps=200).fit(samplike)
    assert calls == [1, 2, 3, 4]                     # the second chain never started
    assert not fit.converged and fit.info["interrupted"]
    assert fit.n_iter == 4 * 20
    assert len(fit.info["trajectory"]) == 1 and len(fit.info["trajectory"][0]["theta"]) == 4
    assert any(w.startswith("Interrupted") for w in fit.warnings)
    assert np.all(np.isfinite(np.asarray(fit.params)))
    assert "Interrupted" in str(fit.summary())


def test_summary_warns_on_large_t_ratios_and_results_serialise(samplike, tmp_path):
    with pytest.warns(ConvergenceWarning):
        fit = EE(random_state=2, ee_steps=2, ee_inner_steps=5, sampler_steps=20,
                 s_steps=5, se_samplesize=30, learning_rate=0.05).fit(samplike)
    assert not fit.converged
    text = str(fit.summary())
    assert "t ratio" in text
    big = [lab for lab, t in fit.info["t_ratios"].items() if not abs(t) < 0.1]
    if big:
        assert "|t-ratio| >= 0.1" in text
    path = tmp_path / "ee.json"
    fit.save(path)
    back = ERGMResults.load(path)
    assert back.method == "ee" and back.info["t_ratios"] == pytest.approx(fit.info["t_ratios"])
    assert str(back.summary()) == text


def test_warns_when_the_standard_error_simulation_has_not_settled(samplike):
    # without the final MCMC-MLE step the model s.e. come from the simulation
    # at the estimate; 40 draws one proposal apart barely move from the last
    # EE state, so the simulated statistics sit off the observed ones
    with pytest.warns(ConvergenceWarning):
        fit = EE(random_state=4, ee_steps=3, polish=False, se_samplesize=40,
                 se_interval=1, se_burnin=0).fit(samplike)
    off = [lab for lab, t in fit.info["t_ratios_sim"].items() if abs(t) > 0.3]
    assert off
    text = str(fit.summary())
    assert "standard errors are unreliable" in text and off[0] in text


def test_summary_t_ratio_column_layout():
    r = ERGMResults([1.0, -2.0], np.diag([0.04, 0.09]), ["a", "b"], method="ee",
                    info={"t_ratios": {"a": 0.0123, "b": -0.25}})
    lines = str(r.summary()).splitlines()
    head = next(ln for ln in lines if "Estimate" in ln)
    assert head.rstrip().endswith("t ratio")
    assert lines[lines.index(head) + 1].rstrip().endswith("0.012")
    assert lines[lines.index(head) + 2].rstrip().endswith("-0.250")
    assert r.summary().rows()[1]["t_ratio"] == -0.25
    plain = ERGMResults([1.0], np.eye(1), ["a"], method="mple")
    assert "t ratio" not in str(plain.summary())


def test_bad_settings(samplike):
    with pytest.raises(TypeError, match="has no setting 'bogus'"):
        EE(bogus=1).fit(samplike)
    with pytest.raises(ValueError, match="update"):
        EE(update="fast").fit(samplike)
    with pytest.raises(ValueError, match="learning_rate"):
        EE(learning_rate=-1).fit(samplike)
    m = ef.ERGM(ef.datasets.load_network("samplike"), "mutual")
    with pytest.raises(ValueError, match="density term"):
        EE(proposal="ifd").fit(m)
    assert set(EE.chain_defaults()) >= {"sampler_steps", "s_steps", "ee_steps",
                                        "ee_inner_steps", "aca_s", "aca_ee", "comp_c", "ifd_k", "learning_rate",
                                "min_theta"}


# ---------------------------------------------------------------------------
# checkpoint and resume
# ---------------------------------------------------------------------------
def _stop_after(n):
    def callback(state):
        if state["outer"] == n:
            raise KeyboardInterrupt
    return callback


@pytest.mark.parametrize("proposal", ["ifd", "ifd-tnt"])
def test_interrupted_run_resumes_from_its_checkpoint(samplike, tmp_path, proposal):
    ck = str(tmp_path / "ck")
    settings = dict(ee_steps=30, ee_inner_steps=20, sampler_steps=200, proposal=proposal)
    stop = 12 if proposal == "ifd" else 40          # ifd-tnt: inside the second phase
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        part = EE(random_state=3, checkpoint=ck, callback=_stop_after(stop),
                  n_chains=2, **settings).fit(samplike)
    assert part.info["interrupted"] and not part.converged
    assert sorted(os.listdir(ck)) == ["chain_0.npz", "meta.json"]   # chain 1 never started
    whole = quiet_fit(samplike, resume=ck)
    assert not whole.info["interrupted"]
    planned = 30 * 20 * (2 if proposal == "ifd-tnt" else 1)
    assert whole.n_iter == 2 * planned                 # both chains ran every iteration
    # the resumed chain 0 kept the trajectory it had before the interruption
    before = np.asarray(part.info["trajectory"][0]["theta"])
    after = np.asarray(whole.info["trajectory"][0]["theta"])
    k = min(len(before), len(after))
    if proposal == "ifd":
        np.testing.assert_array_equal(after[:k], before[:k])
    # and the estimate is as good as an uninterrupted run's (statnet: -1.8, 1.6)
    c, s = statnet("e1_samplike_edges_mutual.MLE_veryprecise.seed404")
    for lab in whole.labels:
        assert abs(whole.params[lab] - c[lab]) < 0.5 * s[lab], (lab, whole.params[lab])
    # each finished chain's standard-error simulation is kept (a resumed finished
    # run returns the same estimate)
    assert sorted(os.listdir(ck)) == ["chain_0.npz", "chain_0_sims.npz", "chain_1.npz",
                                      "chain_1_sims.npz", "meta.json"]


def test_resume_refuses_another_model_or_new_settings(samplike, tmp_path):
    ck = str(tmp_path / "ck")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        EE(random_state=3, checkpoint=ck, callback=_stop_after(2),
           ee_steps=10, ee_inner_steps=10, sampler_steps=100).fit(samplike)
    other = ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual + istar(2)")
    with pytest.raises(ValueError, match="is for the statistics"):
        EE(resume=ck).fit(other)
    with pytest.raises(ValueError, match="checkpoint's settings"):
        EE(resume=ck, ee_steps=20).fit(samplike)
    with pytest.raises(ValueError, match="not an EE checkpoint"):
        EE(resume=str(tmp_path)).fit(samplike)
    other_net = ef.ERGM(ef.datasets.load("faux.dixon.high"), "edges + mutual")
    with pytest.raises(ValueError, match="other observed statistics"):
        EE(resume=ck).fit(other_net)


def test_no_standard_errors_when_the_simulation_is_stuck():
    # Lazega edges + kstar(2) + triangle: at the EE estimate the simulated
    # networks are complete graphs; the s.e. must be NA with a warning that
    # says why, never 1/0 printed as a number
    from ergmfit.estimation.ee.pool import singular_information
    m = ef.ERGM(ef.datasets.load_network("lazega"), "edges + kstar(2) + triangle")
    fit = quiet_fit(m, random_state=1)
    assert np.all(np.isnan(np.asarray(fit.bse)))
    assert any("no standard errors (NA)" in w and "did not vary" in w for w in fit.warnings)
    assert "NA" in str(fit.summary())
    assert singular_information(np.zeros((2, 2)))
    assert singular_information(np.array([[1.0, 1.0], [1.0, 1.0]]))
    assert not singular_information(np.array([[2.0, 0.5], [0.5, 1.0]]))


def test_ctrl_c_in_the_standard_error_simulation_returns_the_trajectory(samplike):
    # issue 24 item 4: Ctrl-C was ignored for ~30 s during the simulation at
    # the estimate; the compiled sampler now looks for it every 2^16 proposals
    import signal
    import threading
    import time
    timers = []

    def arm(state):        # SIGINT 0.3 s after the last outer iteration
        if state["outer"] == state["n_outer"]:
            t = threading.Timer(0.3, signal.pthread_kill,
                                (threading.main_thread().ident, signal.SIGINT))
            t.start()
            timers.append(t)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = EE(random_state=1, ee_steps=5, callback=arm,
                     se_burnin=10**11).fit(samplike)     # hours of proposals unless it stops
    finally:
        signal.signal(signal.SIGINT, old)
        for t in timers:
            t.join()
    assert len(timers) == 1
    assert fit.info["interrupted"] and not fit.converged
    assert np.all(np.isfinite(np.asarray(fit.params)))
