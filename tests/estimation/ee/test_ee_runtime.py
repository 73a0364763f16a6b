"""Equilibrium Expectation: its final sample for mcmc_diagnostics (#22 item 2),
progress and stop through dask (#22 item 3), a second Ctrl-C (#24 item 5),
non-existence / non-identifiability / dead statistics (#24 item 11), the
adaptive update on curved models (#17), constraints (#18)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ConvergenceWarning, SettingsError

from support.ee import SHORT, quiet_fit
from support.memory import traced_peak


# ---------------------------------------------------------------------------
# #22 item 2: EE keeps its final sample
# ---------------------------------------------------------------------------
def test_ee_fit_keeps_its_final_sample_for_mcmc_diagnostics(samplike):
    fit = quiet_fit(samplike, random_state=3, n_chains=2, **SHORT)
    d = fit.mcmc_diagnostics()
    assert d.method == "ee" and len(d.chains) == 2 and d.n == 200
    assert d.labels == ["edges", "mutual"]
    assert np.allclose(d.observed, samplike.statistics_vector())
    assert d.interval == fit.info["mcmc"]["interval"]
    # the draws are networks' statistics (integers near the observed ones)
    Z = np.concatenate(d.chains)
    assert np.allclose(Z, np.round(Z)) and np.all(Z >= 0)
    assert "Sample statistics summary (ee" in d.summary()


def test_ee_without_simulation_says_why_there_is_no_sample(samplike):
    fit = quiet_fit(samplike, random_state=3, se="none", **SHORT)
    with pytest.raises(ef.ErgmfitError, match="method='ee'"):
        fit.mcmc_diagnostics()


# ---------------------------------------------------------------------------
# #24 item 11: dead statistics, collinear terms, a missing MLE
# ---------------------------------------------------------------------------
def _two_groups(n=20, seed=1):
    import networkx as nx
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for i in range(n):
        g.nodes[i]["grp"] = i % 2
    rng = np.random.default_rng(seed)
    for i in range(n):
        for j in range(i + 1, n):
            if i % 2 == j % 2 and rng.random() < 0.4:      # ties only within groups
                g.add_edge(i, j)
    return g


def test_ee_refuses_a_statistic_that_cannot_vary():
    # degree(30) on 16 nodes is 0 in every network: EE used to report it
    # converged with coefficient 0
    m = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + degree(30)")
    with pytest.raises(ef.DegenerateModelError, match=r"degree30.*no variation"):
        quiet_fit(m, random_state=1, **SHORT)


def test_the_chain_check_finds_a_statistic_that_never_changed():
    # networks beyond the design check's 10^6 dyads: the chains' own check
    from ergmfit.estimation.ee.pool import check_identifiable
    rng = np.random.default_rng(0)
    dz = np.hstack([rng.normal(size=(10, 1)), np.zeros((10, 1))])
    sims = np.hstack([rng.normal(size=(30, 1)), np.zeros((30, 1))])
    ch = {"phases": [{"dz_rows": dz, "n_done": 10}], "sims": sims}
    with pytest.raises(ef.DegenerateModelError, match=r"\['b'\] never changed in 10 EE"):
        check_identifiable([ch], ["a", "b"], {"dens": None, "proposal": "tnt",
                                              "sampler_steps": 10})


def test_ee_refuses_collinear_terms():
    m = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + kstar(1)")
    with pytest.raises(ef.DegenerateModelError, match="linearly dependent.*not identifiable"):
        quiet_fit(m, random_state=1, **SHORT)


def test_ee_collinear_simulation_is_detected_by_the_chain_check():
    # the chain's own check (networks too large for the MPLE check): simulated
    # statistics with an exact linear relation
    from ergmfit.estimation.ee.pool import check_identifiable
    rng = np.random.default_rng(0)
    e = rng.integers(20, 40, size=(50, 1)).astype(float)
    sims = np.hstack([e, 2 * e, rng.normal(size=(50, 1))])
    ch = {"phases": [{"dz_rows": rng.normal(size=(10, 3)), "n_done": 10}], "sims": sims}
    cfg = {"dens": 0, "proposal": "tnt", "sampler_steps": 10}
    with pytest.raises(ef.DegenerateModelError, match=r"\['a', 'b'\] are linearly dependent"):
        check_identifiable([ch], ["a", "b", "c"], cfg)
    ch["sims"] = np.hstack([e, 2 * e + rng.integers(0, 2, size=(50, 1)), sims[:, 2:]])
    check_identifiable([ch], ["a", "b", "c"], cfg)          # no exact relation: fine


def test_ee_refuses_a_separated_dyad_independent_model():
    # all ties within groups: edges -> -Inf, nodematch -> +Inf (EE used to
    # report about -1e7 marked only "not converged")
    m = ef.ERGM(_two_groups(), "edges + nodematch('grp')")
    with pytest.raises(ef.DegenerateModelError,
                       match="does not exist, so Equilibrium Expectation.*nodematch.grp"):
        quiet_fit(m, random_state=1, **SHORT)


def test_existence_check_counts_the_free_dyads_not_the_network():
    # 1,208,900 dyads, 80 free (fixallbut): the check's size limit is the sample space's
    # (as the "auto" settings count it), so the separated free dyads (every within-group
    # one a tie, every between-group one empty) are refused at once; it read the
    # network's n_dyads and reported estimates marked only "not converged"
    from ergmfit.network import Network
    n = 1100
    ties = [(i, (i + 2) % n) for i in range(n)] + [(i, (i + 4) % n) for i in range(0, n, 3)]
    net = Network(n, ties, True, node_attrs={"grp": [k % 2 for k in range(n)]})
    free = [(i, (i + 2) % n) for i in range(40)] + [(i, (i + 1) % n) for i in range(40)]
    m = ef.ERGM(net, "edges + nodematch('grp')",
                constraints=("~ fixallbut(free)", {"free": free}))
    assert net.n_dyads > 10**6
    with pytest.raises(ef.DegenerateModelError,
                       match="does not exist, so Equilibrium Expectation.*nodematch.grp"):
        quiet_fit(m, random_state=1, **SHORT)


def test_ee_confirms_a_missing_mle_of_a_dependent_model_with_its_sample():
    # the separation of the observed design is only necessary for a
    # dyad-dependent model; the simulation at the estimate confirms it
    m = ef.ERGM(_two_groups(), "edges + nodematch('grp') + gwesp(0.5, fixed=TRUE)")
    with pytest.raises(ef.DegenerateModelError, match="does not exist.*it stopped at edges"):
        quiet_fit(m, random_state=1, **SHORT)


# ---------------------------------------------------------------------------
# #22 item 3: progress and stop through dask's primitives
# #24 item 5: a second Ctrl-C still returns what is finished
# ---------------------------------------------------------------------------
def test_dask_chains_report_and_stop_through_dask_primitives(samplike, monkeypatch, default_sigint):
    distributed = pytest.importorskip("distributed")
    import signal
    import threading

    from ergmfit.runtime import parallel as runtime_parallel

    def no_files(*a, **k):
        raise AssertionError("the file-based control was used with backend='dask'")
    monkeypatch.setattr(runtime_parallel, "_run_parallel", no_files)
    seen = []

    class Bar:
        n = 0

        def update_to(self, done):
            seen.append(done)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        # a short run: progress arrives through the Variables
        from ergmfit.estimation.ee.chain import ee_chain
        from ergmfit.estimation.ee.estimator import EE
        cfg = EE(**SHORT).resolved_settings(samplike)
        out, interrupted = runtime_parallel.run_jobs(
            ee_chain, [(samplike, cfg, s, c, None) for c, s in enumerate([11, 12])],
            n_jobs=2, backend="dask", progress=Bar(), is_interrupted=lambda r: r["interrupted"])
        assert not interrupted and len(out) == 2 and all(not r["interrupted"] for r in out)
        # a long run stopped by Ctrl-C: the worker threads never see the signal,
        # only the stop Event; the trajectories so far come back.  The Ctrl-C is
        # sent once chain 0 has done 3 outer iterations (not after a fixed wall
        # time, which a loaded machine may reach before any iteration is done)
        # (the callback is shipped to the dask worker by value: it keeps no state)
        main = threading.main_thread().ident

        def ctrl_c_after_three(state):
            if state["chain"] == 0 and state["outer"] == 3:
                signal.pthread_kill(main, signal.SIGINT)
        fit = quiet_fit(samplike, random_state=2, n_chains=2, n_jobs=2, backend="dask",
                        ee_steps=400, ee_inner_steps=20, sampler_steps=300,
                        callback=ctrl_c_after_three)
    assert seen and max(seen) > 0
    assert fit.info["interrupted"] and not fit.converged
    # stopped long before the 10^5 outer iterations asked for
    assert all(0 < n < 10**4 for n in fit.info["iterations"])
    assert np.all(np.isfinite(np.asarray(fit.params)))


def test_two_quick_ctrl_c_on_parallel_ee_return_the_work_marked_interrupted(samplike, default_sigint):
    import glob
    import os
    import signal
    import tempfile
    parent = os.getpid()

    def two_ctrl_c(state):           # runs in a worker: Ctrl-C twice at the parent
        import os as _os
        import time as _time
        if state["chain"] == 0 and state["outer"] == 3:
            _os.kill(parent, signal.SIGINT)
            _time.sleep(0.05)
            _os.kill(parent, signal.SIGINT)
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "ergmfit_run_*")))
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        fit = quiet_fit(samplike, random_state=4, n_chains=2, n_jobs=2, callback=two_ctrl_c,
                        ee_steps=400, ee_inner_steps=20, sampler_steps=300)
    finally:
        signal.signal(signal.SIGINT, old)
    assert fit.info["interrupted"] and not fit.converged
    assert any(w.startswith("Interrupted") for w in fit.warnings)
    assert len(fit.info["trajectory"]) == 2 and fit.info["iterations"][0] >= 3 * 20
    assert fit.info["iterations"][0] < 400 * 20
    assert np.all(np.isfinite(np.asarray(fit.params)))
    after = set(glob.glob(os.path.join(tempfile.gettempdir(), "ergmfit_run_*")))
    assert after <= before                   # the control directory is gone


# ---------------------------------------------------------------------------
# #17: the adaptive update on a curved model
# ---------------------------------------------------------------------------
LAZEGA_CURVED = ("edges + gwesp + nodecov('seniority') + nodecov('practice') + "
                 "nodematch('practice') + nodematch('gender') + nodematch('office')")
# ergmfit's MCMC-MLE of that model (random_state=1; statnet 4.4: edges -7.35 (0.78),
# gwesp 0.90 (0.30), gwesp.decay 0.785 (0.22))
LAZEGA_CURVED_MLE = ([-7.340, 0.895, 0.787, 0.0230, 0.412, 0.757, 0.707, 1.148],
                     [0.789, 0.299, 0.218, 0.0070, 0.122, 0.194, 0.251, 0.194])


def test_adaptive_update_fits_a_curved_model():
    m = ef.ERGM("lazega", LAZEGA_CURVED)
    fit = quiet_fit(m, update="adaptive", random_state=1, ee_steps=60)
    assert fit.info["settings"]["update"] == "adaptive"
    assert fit.labels[:3] == ["edges", "gwesp", "gwesp.decay"]
    est, se = (np.array(v) for v in LAZEGA_CURVED_MLE)
    d = np.abs(np.asarray(fit.params) - est) / se
    assert np.all(d < 0.25), d
    # the scales were learned in the parameters' directions (IFD's density: none)
    D = fit.info["Dmean"][0]
    assert D[0] is None or not np.isfinite(D[0])
    assert all(np.isfinite(x) and x > 0 for x in D[1:])
    assert fit.converged


# ---------------------------------------------------------------------------
# #18: EE under constraints
# ---------------------------------------------------------------------------
def test_restricted_ifd_samples_the_constrained_space_exactly():
    # IFD on 6 free dyads of a 4-node directed network with V fixed: the
    # fixed dyads never change, the free ties stay at L_f or L_f + 1, and the
    # draws follow exp(theta.g) on those two layers (the upper one weighted by
    # (L_f + 1)/(D_f - L_f) e^V), by enumeration
    import itertools

    import networkx as nx

    from ergmfit.estimation.ee._ee import RestrictedIFD
    from ergmfit.sampling._mh import MHSampler
    from ergmfit.sampling.space import dyad_vars
    from ergmfit.utils.validation import seed_words
    g = nx.DiGraph()
    g.add_nodes_from(range(4))
    ties = [(0, 1), (1, 0), (2, 3), (3, 1)]
    g.add_edges_from(ties)
    m = ef.ERGM(g, "edges + mutual + ttriple")
    free_pairs = [(0, 1), (1, 2), (2, 1), (0, 2), (3, 1), (1, 3)]
    cm = m.compiled()
    free = dyad_vars(4, True, np.array(free_pairs))
    fixed_on = [t for t in ties if t not in free_pairs]
    Lf = sum(t in free_pairs for t in ties)
    Df = len(free_pairs)
    th = np.array([0.0, 0.8, -0.4])
    V = 0.3
    stats, w = [], []
    for k in (Lf, Lf + 1):
        for sub in itertools.combinations(free_pairs, k):
            s = m.statistics_vector(np.array(fixed_on + list(sub)))
            stats.append(s)
            w.append(np.exp(th @ s) * ((Lf + 1) / (Df - Lf) * np.exp(V) if k == Lf + 1 else 1.0))
    w = np.array(w) / np.sum(w)
    exact = w @ np.array(stats)
    prop = RestrictedIFD(free, cm.n_vars, V=V, adapt=False)
    s = MHSampler(cm, prop, seed_words(5))
    S = m.statistics_vector() + s.sample(th, 40000, 1000, 25)
    se = S.std(axis=0) / np.sqrt(len(S) / 4)
    assert np.all(np.abs(S.mean(axis=0) - exact) < 5 * se + 1e-9), (S.mean(axis=0), exact)
    on = set(cm.on_vars().tolist())
    fixed = set(range(cm.n_vars)) - set(free.tolist())
    assert on & fixed == set(dyad_vars(4, True, np.array(fixed_on)).tolist())
    assert prop.n_on_free in (Lf, Lf + 1) and prop.n_free == Df


def test_restricted_ifd_memory_is_in_its_free_dyads_not_in_n_vars():
    # 100 free dyads of a network of 10^5 nodes (10^10 dyads): an array per dyad, as the
    # proposal once held (its place in the list of free ties), would take 80 GB
    from ergmfit.estimation.ee._ee import RestrictedIFD
    free = np.arange(100, dtype=np.int64) * 7919
    prop, peak = traced_peak(lambda: RestrictedIFD(free, 10 ** 10))
    assert prop.n_free == 100
    assert peak < 2 ** 20, f"peak {peak:,} bytes"


@pytest.mark.slow
@pytest.mark.parametrize("entry_id, proposal", [
    ("s2.blockdiag.samplike.MLE.s101", "ifd"),       # a dyad-set constraint: IFD on the free dyads
    ("s2.fixallbut_bipattr.samplike.MLE.s101", "ifd"),
    ("s2.bd.samplike.MLE.s101", "tnt"),              # degree bounds: the constrained moves
])
def test_ee_under_constraints_agrees_with_the_mcmc_mle(entry_id, proposal):
    from support import constraints_reference as cr
    e = next(x for x in cr.entries() if x["id"] == entry_id)
    m = cr.model(e)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mle = cr.fit(e, random_state=1)                  # MCMC-MLE under the same constraint
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = m.fit(method="ee", random_state=1, ee_steps=100)    # ERGM.fit takes it
    assert fit.info["settings"]["proposal"] == proposal
    d = np.abs(np.asarray(fit.params) - np.asarray(mle.params)) / np.asarray(mle.bse)
    assert np.all(d < 0.25), d
    for lab, ours, theirs, z, se_ratio in cr.compare(e, fit):     # and statnet's
        assert z < 0.25, (lab, ours, theirs)
    assert fit.converged
    # its final sample stayed in the constrained space
    m.sample_space.check(m.network.ties)
    assert fit.mcmc_sample is not None


def test_ee_refuses_the_wrong_proposal_under_constraints():
    # (IFD with missing dyads is no longer refused since #18: tests/estimation/ee/test_ee_missing.py)
    m = ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual",
                constraints="~ bd(maxout=6)")
    with pytest.raises(SettingsError, match="constrained proposal"):
        quiet_fit(m, random_state=1, proposal="ifd", **SHORT)


# ---------------------------------------------------------------------------
# #22 item 4: the simulation at the estimate reports progress and stops
# ---------------------------------------------------------------------------
def test_standard_error_simulation_reports_progress_and_stops_on_request(samplike):
    from ergmfit.estimation.ee.chain import ee_chain, sim_plan
    from ergmfit.estimation.ee.estimator import EE
    cfg = EE(**dict(SHORT, se_samplesize=400, se_interval=3000)).resolved_settings(samplike)
    units = sim_plan(cfg, samplike.network.n_ties)[4]
    assert units > 5

    class Control:
        def __init__(self, stop_after=None):
            self.seen, self.stop_after = [], stop_after

        def report(self, done, total=None):
            self.seen.append(done)

        def stop_requested(self):
            return self.stop_after is not None and self.seen[-1] >= self.stop_after

    c = Control()
    out = ee_chain(samplike, cfg, 7, 0, None, c)
    assert out["sims"] is not None and not out["interrupted"]
    assert max(c.seen) == cfg["ee_steps"] + units        # the bar goes on through the simulation
    # a stop request two pieces into the simulation ends it there (a parallel
    # run's Ctrl-C), returning the trajectory without a sample
    c = Control(stop_after=cfg["ee_steps"] + 2)
    out = ee_chain(samplike, cfg, 7, 0, None, c)
    assert out["interrupted"] and out["sims"] is None and len(out["theta_rows"]) > 0
    assert max(c.seen) == cfg["ee_steps"] + 2


def test_estimnet_standard_errors_show_their_monte_carlo_part(samplike):
    # se="estimnet" (the default beyond 10^6 dyads): the "MCMC %" column is the
    # share of the formula's Monte-Carlo term (batch-means variance of the mean
    # theta), not "no Monte-Carlo error"
    fit = quiet_fit(samplike, random_state=2, se="estimnet", polish=False, **SHORT)
    assert fit.se_kind == "estimnet" and fit.cov_mc is not None
    mc = np.square(fit.info["estimnet"]["chains"][0]["se_mc"])
    assert np.all(mc > 0)
    np.testing.assert_allclose(np.diag(fit.cov_mc), mc)
    assert np.all(np.diag(fit.cov_mc) < np.diag(fit.cov))


def test_a_worker_ignores_sigint_while_its_chain_runs():
    # a terminal's Ctrl-C reaches the worker processes too; they stop through
    # their control instead (else a second Ctrl-C could abort one while it
    # returns its work); in-process runs keep Ctrl-C
    import signal
    import time

    from ergmfit.runtime.interrupts import deaf_to_sigint
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with deaf_to_sigint(True):
            signal.raise_signal(signal.SIGINT)
            time.sleep(0.05)                        # no KeyboardInterrupt here
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with pytest.raises(KeyboardInterrupt):
            with deaf_to_sigint(False):
                signal.raise_signal(signal.SIGINT)
                time.sleep(0.05)
    finally:
        signal.signal(signal.SIGINT, old)


def test_a_stuck_simulation_is_not_called_collinear():
    # two distinct simulated states satisfy a linear relation by themselves: a
    # near-degenerate chain, not collinear terms (the s.e. warning says so)
    from ergmfit.estimation.ee.pool import check_identifiable
    rng = np.random.default_rng(1)
    flip = rng.integers(0, 2, size=(60, 1)).astype(float)
    sims = np.hstack([flip, 3 * flip, np.zeros((60, 1)) + flip])
    ch = {"phases": [{"dz_rows": rng.normal(size=(10, 3)), "n_done": 10}], "sims": sims}
    check_identifiable([ch], ["a", "b", "c"], {"dens": 0, "proposal": "tnt",
                                               "sampler_steps": 10})


def test_a_second_ctrl_c_does_not_interrupt_collecting_the_results():
    import signal
    import time

    from ergmfit.runtime.interrupts import second_ctrl_c_waits
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with second_ctrl_c_waits():
            with pytest.raises(KeyboardInterrupt):          # the first stops the chains
                signal.raise_signal(signal.SIGINT)
                time.sleep(0.05)
            signal.raise_signal(signal.SIGINT)              # the second only says so
            time.sleep(0.05)
            with pytest.raises(KeyboardInterrupt):          # a third aborts
                signal.raise_signal(signal.SIGINT)
                time.sleep(0.05)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, old)
