"""Temporal ERGMs (issue #32): NetSeries, tergm 4.1.1's operators Form/Persist/Diss/Cross/
Change, CMLE/CMPLE, and btergm 1.10.12 (tests/reference/statnet_temporal.json)."""
import itertools
import math
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import ergmfit as ef
from ergmfit.exceptions import SettingsError, FormulaError, NetworkError, TermError
from conftest import load_reference
from support.enumeration import all_statistics, enumerated_loglik
from support.paths import REFERENCE

CASES = load_reference("statnet_temporal.json")["cases"]
EXT = REFERENCE / "ext"


def samplk():
    return ef.NetSeries([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)])


def knecht(waves=(1, 2, 3, 4)):
    """btergm's knecht panel as its example builds it (delinquency per wave)."""
    nodes = pd.read_csv(EXT / "knecht.nodes.csv")
    prim = pd.read_csv(EXT / "knecht.primary.csv")
    n = len(nodes)
    primary = np.zeros((n, n))
    primary[prim.source - 1, prim.target - 1] = prim.value
    graphs = []
    for w in waves:
        e = pd.read_csv(EXT / f"knecht.w{w}.edges.csv")
        g = nx.DiGraph()
        for r in nodes.itertuples():
            g.add_node(r.id, sex=r.sex, delinquency=getattr(r, f"delinquency_t{w}"))
        g.add_edges_from(zip(e.source, e.target))
        graphs.append(g)
    return ef.NetSeries(graphs, edge_covariates={"primary": primary})


def formula(case):
    text = case["formula"].split("~", 1)[1].strip()
    return (text.replace("TRUE", "True").replace("FALSE", "False")
            .replace("edgecov(primary)", 'edgecov("primary")'))


# -- summaries -------------------------------------------------------------------------

SUMMARIES = [c for c in CASES if c["kind"] == "summary"]


def test_reference_cases_present():
    assert len(SUMMARIES) == 20
    assert sum(c["feature"] == "temporal_cmle" for c in CASES) == 16
    assert sum(c["feature"] == "btergm" for c in CASES) == 3


@pytest.mark.parametrize("case", SUMMARIES, ids=[c["id"] for c in SUMMARIES])
def test_summary_equals_tergm(case):
    got = ef.ERGM(samplk(), formula(case)).statistics()
    assert list(got) == list(case["stats"])
    for k, v in case["stats"].items():
        assert got[k] == pytest.approx(v, abs=1e-9), k


# -- the operators against their definitions on random panels ---------------------------

def _derived(prev, cur, op):
    a, b = set(prev.edges()), set(cur.edges())
    if not cur.is_directed():
        a = {tuple(sorted(e)) for e in a}
        b = {tuple(sorted(e)) for e in b}
    ties = {"Form": a | b, "Persist": a & b, "Diss": a & b, "Cross": b, "Change": a ^ b}[op]
    g = cur.__class__()
    g.add_nodes_from(cur.nodes(data=True))
    g.add_edges_from(ties)
    return g


def _panel(directed, seed, n=9):
    rng = np.random.default_rng(seed)
    graphs = []
    for t in range(3):
        g = nx.gnp_random_graph(n, 0.3, seed=int(rng.integers(1 << 30)), directed=directed)
        nx.set_node_attributes(g, {v: int(rng.integers(2)) for v in g}, "a")
        graphs.append(g)
    return graphs


INNER = {False: ["edges", "triangle", "kstar(2)", "gwesp(0.5, fixed=True)", 'nodematch("a")',
                 "degree(1)", "isolates"],
         True: ["edges", "mutual", "transitiveties", "cyclicalties", "gwesp(0.5, fixed=True)",
                "istar(2)", 'nodematch("a")']}


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("op", ["Form", "Persist", "Diss", "Cross", "Change"])
def test_operator_is_the_term_on_the_derived_network(directed, op):
    # the operator's statistics equal the static term on y⁻ ∪ y, y⁻ ∩ y, y, y⁻ △ y (Diss:
    # negated), summed over the transitions; and its change statistics are differences
    for seed in (1, 2):
        graphs = _panel(directed, seed)
        series = ef.NetSeries(graphs)
        for inner in INNER[directed]:
            m = ef.ERGM(series, f"{op}(~{inner})")
            want = sum(np.asarray(ef.ERGM(_derived(graphs[t - 1], graphs[t], op),
                                          inner).statistics_vector()) for t in (1, 2))
            want = -want if op == "Diss" else want
            np.testing.assert_allclose(m.statistics_vector(), want, atol=1e-9,
                                       err_msg=f"{op}(~{inner})")
            cm = m.compiled()
            ties = {tuple(e) for e in m.network.ties.tolist()}
            n = series.n_nodes
            for i, j in [(0, 1), (2, 5), (n + 1, n + 3), (n + 7, n + 2)]:
                if not directed and i > j:
                    i, j = j, i
                on = ties | {(i, j)}
                off = ties - {(i, j)}
                diff = (m.statistics_vector(np.array(sorted(on)))
                        - m.statistics_vector(np.array(sorted(off)).reshape(-1, 2)))
                np.testing.assert_allclose(cm.dyad_change_stats(i, j), diff, atol=1e-9,
                                           err_msg=f"{op}(~{inner}) change at {(i, j)}")


def test_curved_inner_term_keeps_its_parameters():
    m = ef.ERGM(samplk(), "Form(~edges + gwesp(fixed=False))")
    assert m.labels == ["Form~edges", "Form~gwesp", "Form~gwesp.decay"]
    assert m.curved


def test_plain_terms_are_cross_sectional():
    s = samplk()
    a = ef.ERGM(s, "edges + mutual").statistics_vector()
    b = ef.ERGM(s, "Cross(~edges + mutual)").statistics_vector()
    np.testing.assert_array_equal(a, b)


# -- NetSeries --------------------------------------------------------------------------

def test_netseries_aligns_node_order_and_keeps_attributes():
    g0 = nx.Graph(); g0.add_nodes_from(["a", "b", "c"], x=1); g0.add_edge("a", "b")
    g1 = nx.Graph(); g1.add_nodes_from(["c", "a", "b"]); g1.add_edge("c", "a")
    nx.set_node_attributes(g1, {"a": 5, "b": 6, "c": 7}, "x")
    s = ef.NetSeries([g0, g1])
    assert s.labels == ["a", "b", "c"]
    net = s.combined()
    assert net.node_attrs["x"] == [5, 6, 7]          # the later wave's attributes
    assert ef.ERGM(s, "Form(~edges) + Persist(~edges) + Cross(~nodecov('x'))").statistics() \
        == {"Form~edges": 2.0, "Persist~edges": 0.0, "Cross~nodecov.x": 12.0}
    assert g1.nodes["a"]["x"] == 5 and list(g1.nodes) == ["c", "a", "b"]   # input untouched


def test_netseries_from_edgelist_with_wave_column(tmp_path):
    df = pd.DataFrame({"wave": [1, 1, 2, 2, 3], "from": [1, 2, 1, 3, 4], "to": [2, 3, 2, 4, 1]})
    path = tmp_path / "panel.csv"
    df.to_csv(path, index=False)
    s = ef.NetSeries.from_edgelist(path, directed=True)
    assert (s.n_waves, s.n_nodes) == (3, 4)
    assert [w.n_ties for w in s.waves] == [2, 2, 1]
    assert ef.ERGM(s, "Persist(~edges)").statistics() == {"Persist~edges": 1.0}


def test_missing_dyads_of_a_wave():
    g = [nx.path_graph(6), nx.cycle_graph(6), nx.star_graph(5)]
    s = ef.NetSeries(g, missing=[None, [(0, 3)], None])
    m = ef.ERGM(s, "Form(~edges) + Persist(~edges)")
    assert m.sample_space.n_missing == 1
    fit = m.fit(method="cmle", random_state=1)
    assert np.all(np.isfinite(fit.params))


def test_different_node_sets_name_the_wave():
    g0, g1, g2 = nx.path_graph(5), nx.path_graph(5), nx.path_graph(4)
    with pytest.raises(NetworkError, match="wave 2 has other nodes than wave 0.*absent: \\[4\\]"):
        ef.NetSeries([g0, g1, g2])
    with pytest.raises(NetworkError, match="wave 1 is directed"):
        ef.NetSeries([g0, nx.DiGraph(g1)])
    with pytest.raises(NetworkError, match="at least two waves"):
        ef.NetSeries([g0])


def test_operator_errors_name_the_term():
    s = ef.NetSeries([nx.path_graph(5), nx.cycle_graph(5)])
    with pytest.raises(TermError, match=r"Persist\(\) inside Form\(\)"):
        ef.ERGM(s, "Form(~Persist(~edges))")
    with pytest.raises(TermError, match="memory inside Persist"):
        ef.ERGM(s, "Persist(~memory())")
    # one network with tergm's operators is the dynamic model of one cross-section (EGMME);
    # the estimators of observed transitions refuse it by name
    one = ef.ERGM(nx.path_graph(5), "Form(~edges)")
    assert type(one).__name__ == "CrossSectionTERGM"
    with pytest.raises(SettingsError, match="cross-section.*NetSeries"):
        one.fit(method="cmle")
    with pytest.raises(TermError, match="memory is a btergm temporal term"):
        ef.ERGM(nx.path_graph(5), "memory")
    with pytest.raises(TermError, match="needs a directed network"):
        ef.ERGM(s, "delrecip")
    with pytest.raises(TermError, match="type must be one of"):
        ef.ERGM(s, "memory(type='sticky')")


@pytest.mark.parametrize("formula, first, second", [
    ("Form(~edges) * Persist(~edges)", "Form", "Persist"),
    ("Diss(~edges):Form(~edges)", "Diss", "Form")])
def test_interaction_of_formation_and_dissolution_is_refused(formula, first, second):
    # Form() changes only on dyads absent from y⁻, Persist()/Diss() only on those present:
    # their product is identically zero (its coefficient does not exist)
    s = ef.NetSeries([nx.path_graph(5), nx.cycle_graph(5)])
    with pytest.raises(TermError, match=rf"{first}\(\):{second}\(\) is zero on every network"):
        ef.ERGM(s, formula)
    # operators changing on the same or on all dyads interact
    stats = ef.ERGM(s, "Form(~edges):Cross(~edges) + Persist(~edges):Diss(~edges)").statistics()
    assert stats == {"Form~edges:Cross~edges": 1.0, "Persist~edges:Diss~edges": -4.0}


def test_dissolution_model_on_waves_without_ties():
    s = ef.NetSeries([nx.empty_graph(5), nx.path_graph(5)])
    m = ef.ERGM(s, "Form(~edges) + Diss(~edges)")
    assert m.statistics() == {"Form~edges": 4.0, "Diss~edges": 0.0}
    with pytest.raises(FormulaError, match=r"Diss\(\) models the dissolution.*wave\(s\) 0"):
        m.fit(method="cmle")


# -- CMLE / CMPLE -----------------------------------------------------------------------

CMPLE = [c for c in CASES if c["feature"] == "temporal_cmle" and c["estimate"] == "MPLE"]
EXACT = [c for c in CASES if c["feature"] == "temporal_cmle" and c["estimate"] == "MLE"
         and c["dyad_independent_model"]]


@pytest.mark.parametrize("case", CMPLE + EXACT, ids=[c["id"] for c in CMPLE + EXACT])
def test_cmple_and_dyad_independent_cmle_equal_tergm(case):
    method = "cmple" if case["estimate"] == "MPLE" else "cmle"
    fit = ef.ERGM(samplk(), formula(case)).fit(method=method)
    assert list(fit.labels) == case["coef_names"]
    for k in case["coef_names"]:
        assert fit.params[k] == pytest.approx(case["coef"][k], abs=1e-6), k
        assert fit.bse[k] == pytest.approx(case["se"][k], rel=1e-3), k
    assert fit.loglik == pytest.approx(case["loglik"], abs=1e-6)
    header = ("Conditional Maximum Likelihood Results:" if method == "cmle"
              else "Conditional Maximum Pseudolikelihood Results:")
    assert header in str(fit.summary())
    if method == "cmle":
        assert fit.info.get("exact_mle")            # no MCMC for a dyad-independent model


MCMC_REFS = {}
for c in CASES:
    if c["feature"] == "temporal_cmle" and c["estimate"] == "MLE" \
            and not c["dyad_independent_model"]:
        MCMC_REFS.setdefault(c["formula"], []).append(c)


def _check_cmle(form, refs, seeds, base_tol, se_rtol=0.15):
    fits = [ef.ERGM(samplk(), formula(refs[0])).fit(method="cmle", random_state=s)
            for s in seeds]
    names = refs[0]["coef_names"]
    ours = np.array([[f.params[k] for k in names] for f in fits])
    ours_se = np.array([[f.bse[k] for k in names] for f in fits]).mean(axis=0)
    ref = np.array([[r["coef"][k] for k in names] for r in refs])
    ref_se = np.array([[r["se"][k] for k in names] for r in refs]).mean(axis=0)
    # the allowed gap: base_tol tergm s.e. plus twice the Monte Carlo error of the two means
    # (ours over the seeds; tergm's over its two seeds, from their spread)
    mc = np.sqrt((ours.var(axis=0, ddof=1) / len(seeds) if len(seeds) > 1 else 0)
                 + ref.var(axis=0, ddof=1) / len(refs))
    gap = np.abs(ours.mean(axis=0) - ref.mean(axis=0))
    assert np.all(gap <= base_tol * ref_se + 2 * mc), dict(zip(names, gap / ref_se))
    np.testing.assert_allclose(ours_se, ref_se, rtol=se_rtol)
    # tergm's null model counts the transitions' dyads, not the stacked network's: it
    # prints "Null Deviance: 848.4 on 612 degrees of freedom" for every Sampson CMLE
    for f in fits:
        assert f.nobs == 612
        assert -2 * f.null_loglik == pytest.approx(848.412149005373, abs=1e-6)


def test_cmle_dyad_dependent_fast():
    # one fit: its Monte Carlo error is about 0.1 tergm s.e. (seeds 1-6 spread), so 0.5 s.e.
    form = next(f for f in MCMC_REFS if "Persist(~edges + mutual)" in f)
    _check_cmle(form, MCMC_REFS[form], seeds=(7,), base_tol=0.5, se_rtol=0.25)


@pytest.mark.slow
@pytest.mark.parametrize("form", sorted(MCMC_REFS))
def test_cmle_equals_tergm_seeds_averaged(form):
    _check_cmle(form, MCMC_REFS[form], seeds=range(1, 7), base_tol=0.1)


def test_cmle_samples_as_tergm_does():
    # tergm's CMLE is ergm 4's MCMC-MLE with control.ergm()'s sample sizes: max(256, 32 p)
    # draws per iteration, the last at most twice that (the static MCMC-MLE draws 1024 and
    # 4096); settings given to fit() win
    m = ef.ERGM(samplk(), "Form(~edges + mutual) + Persist(~edges + mutual)")
    assert m.cmle_sampling() == {"samplesize": 256, "last_boost": 2, "interval": 256}
    # force_main: the model is independent across node pairs, so its CMLE is exact
    assert m.fit(method="cmle", random_state=3).info["exact_mle"]
    hist = m.fit(method="cmle", random_state=3, eval_loglik=False,
                 force_main=True).info["history"]
    assert hist[0]["samplesize"] == 256 and hist[0]["interval"] == 256
    assert hist[-1]["samplesize"] == 512
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # (one iteration: not converged)
        hist = m.fit(method="cmle", random_state=3, samplesize=300, maxit=1,
                     eval_loglik=False, force_main=True).info["history"]
    assert hist[0]["samplesize"] == 300
    big = ef.ERGM(samplk(), "Form(~edges + mutual + cyclicalties + transitiveties + "
                  "nodematch('group') + gwesp(0, fixed=True) + ttriple + ctriple + "
                  "istar(2))")
    assert big.cmle_sampling()["samplesize"] == 32 * 9


def test_static_estimators_work_on_the_transitions():
    m = ef.ERGM(samplk(), "Form(~edges + mutual) + Persist(~edges)")
    fit = m.fit(method="mple")
    ref = m.fit(method="cmple")
    np.testing.assert_allclose(fit.params, ref.params)


# -- btergm -----------------------------------------------------------------------------

BTERGM = [c for c in CASES if c["feature"] == "btergm"]


@pytest.mark.parametrize("case", BTERGM, ids=[c["id"] for c in BTERGM])
def test_btergm_point_estimates_equal(case):
    fit = ef.ERGM(knecht(), formula(case)).fit(method="btergm", R=20, random_state=1)
    assert list(fit.labels) == case["coef_names"]
    for k in case["coef_names"]:
        assert fit.params[k] == pytest.approx(case["coef"][k], abs=1e-6), k
    assert fit.boot.shape == (20, len(case["coef_names"]))


def _exact_bootstrap(case):
    """Each multiset of time steps (T = 3) with its probability and its pooled MPLE, the
    latter fitted independently of the bootstrap code: a NetSeries repeating the waves."""
    waves = [1, 2, 3, 4]                   # knecht; modelled: 2, 3, 4 (1-based)
    out = []
    for combo in itertools.combinations_with_replacement([1, 2, 3], 3):
        counts = [combo.count(t) for t in (1, 2, 3)]
        prob = math.factorial(3) / np.prod([math.factorial(c) for c in counts]) / 27
        pairs = [w for t in combo for w in (waves[t - 1], waves[t])]
        s = knecht(pairs)
        fit = ef.ERGM(s, formula(case), times=list(range(1, len(pairs), 2))).fit(method="cmple")
        out.append((combo, prob, np.asarray(fit.params)))
    return out


def test_btergm_bootstrap_is_the_time_step_bootstrap():
    # knecht's dyad-independent model: every replicate is one of the 10 multisets' fits,
    # and btergm's reference bootstrap mean and sd agree with the exact bootstrap
    # distribution within Monte Carlo error (R = 200)
    case = next(c for c in BTERGM if c["id"] == "b.fit.knecht_dyadindep.MPLE")
    atoms = _exact_bootstrap(case)
    probs = np.array([p for _, p, _ in atoms])
    values = np.array([v for _, _, v in atoms])
    assert probs.sum() == pytest.approx(1.0)
    fit = ef.ERGM(knecht(), formula(case)).fit(method="btergm", R=200, random_state=3)
    for row in fit.boot:
        assert np.min(np.max(np.abs(values - row), axis=1)) < 1e-6
    mean = probs @ values
    sd = np.sqrt(probs @ (values - mean) ** 2)
    names = case["coef_names"]
    ref_mean = np.array([case["boot_mean"][k] for k in names])
    ref_sd = np.array([case["boot_sd"][k] for k in names])
    assert np.all(np.abs(ref_mean - mean) <= 4 * sd / np.sqrt(case["R"]) + 1e-9)
    assert np.all(np.abs(fit.boot.mean(axis=0) - mean) <= 4 * sd / np.sqrt(200) + 1e-9)
    np.testing.assert_allclose(ref_sd, sd, rtol=0.25)
    # the percentile interval lies within the atoms' range and contains most of the mass
    ci = np.asarray(fit.conf_int())
    assert np.all(ci[:, 0] >= values.min(axis=0) - 1e-9)
    assert np.all(ci[:, 1] <= values.max(axis=0) + 1e-9)


def test_btergm_replicates_refit_the_pooled_rows():
    # a replicate's design is the pooled table's rows weighted by the waves drawn: the same
    # pseudo-likelihood as the drawn waves' designs stacked (each as often as drawn)
    from ergmfit.estimation.btergm.estimator import PooledRows
    from ergmfit.estimation.mple.pseudolikelihood import (Design, fit_design,
                                                          restricted_design)
    from ergmfit.sampling.space import var_pairs
    m = ef.ERGM(knecht(), 'edges + mutual + ttriple + nodematch("sex") + delrecip')
    net, bm, dvars = m.network, m.compiled(), m.sample_space.design_vars()
    block = var_pairs(net.n, net.directed, dvars)[:, 0] // net.block_size
    designs = [restricted_design(bm, dvars[block == b]) for b in range(net.n_transitions)]
    rows = PooledRows(designs)
    assert rows.X.shape[0] < sum(d.n_rows for d in designs)
    for counts in ([1, 1, 1], [3, 0, 0], [0, 2, 1]):
        chosen = [(d, c) for d, c in zip(designs, counts) if c]
        stacked = Design(np.concatenate([d.X for d, _ in chosen]),
                         np.concatenate([d.n * c for d, c in chosen]),
                         np.concatenate([d.s * c for d, c in chosen]),
                         sum(d.n_vars * c for d, c in chosen),
                         sum(d.n_on * c for d, c in chosen))
        pooled = rows.design(counts)
        assert (pooled.n_vars, pooled.n_on) == (stacked.n_vars, stacked.n_on)
        a = fit_design(stacked, list(m.labels), separation="warn")
        b = fit_design(pooled, list(m.labels), separation="warn")
        np.testing.assert_allclose(b.params, a.params, rtol=1e-9, atol=1e-9)


def test_btergm_drops_replicates_without_all_coefficients():
    # timecov is constant when one wave is drawn three times (probability 1/9): btergm's
    # glm gives NA there (179 of 200 complete in the reference); ours drops those too
    case = next(c for c in BTERGM if "timecov" in c["formula"])
    fit = ef.ERGM(knecht(), formula(case)).fit(method="btergm", R=450, random_state=2)
    dropped = 450 - fit.n_boot_complete
    assert abs(dropped - 50) <= 4 * math.sqrt(450 * (1 / 9) * (8 / 9))
    assert any("dropped" in w for w in fit.warnings)


def test_btergm_replicates_do_not_depend_on_n_jobs():
    s = ef.NetSeries([nx.gnp_random_graph(10, 0.3, seed=k, directed=True) for k in range(4)])
    m = ef.ERGM(s, "edges + mutual + memory(type='autoregression') + delrecip")
    a = m.fit(method="btergm", R=40, chunk=10, random_state=5)
    b = m.fit(method="btergm", R=40, chunk=10, n_jobs=2, backend="threading", random_state=5)
    np.testing.assert_array_equal(a.boot, b.boot)
    assert "Bootstrapped TERGM" in a.btergm_table()


def test_percentile_interval_is_boots_rule():
    from ergmfit.estimation.btergm import percentile_interval
    t = np.arange(1.0, 200.0)                       # R = 199: (R+1)·0.025 = 5 exactly
    assert percentile_interval(t, 0.025) == 5.0
    t = np.arange(1.0, 201.0)                       # R = 200: 5.025, normal interpolation
    from scipy.special import ndtri
    q = ndtri([0.025, 5 / 201, 6 / 201])
    assert percentile_interval(t, 0.025) == pytest.approx(5 + (q[0] - q[1]) / (q[2] - q[1]))


def test_btergm_without_lagged_terms_models_every_wave():
    s = ef.NetSeries([nx.gnp_random_graph(8, 0.3, seed=k, directed=True) for k in range(3)])
    fit = s and ef.ERGM(s, "edges + mutual").fit(method="btergm", R=10, random_state=1)
    assert fit.info["btergm"]["times"] == [0, 1, 2]
    fit = ef.ERGM(s, "edges + memory").fit(method="btergm", R=10, random_state=1)
    assert fit.info["btergm"]["times"] == [1, 2]


# -- dynamic simulation -------------------------------------------------------------------

@pytest.mark.parametrize("directed", [False, True])
def test_dynamic_simulation_of_independent_dyads(directed):
    # Form(~edges) + Persist(~edges): every dyad is a two-state Markov chain, forming with
    # probability expit(θ_F) and persisting with expit(θ_P); the simulated steps' formation
    # and persistence shares must match within 4 binomial standard errors
    from scipy.special import expit
    n, steps = 30, 25
    g = [nx.gnp_random_graph(n, 0.28, seed=k, directed=directed) for k in range(2)]
    m = ef.ERGM(ef.NetSeries(g), "Form(~edges) + Persist(~edges)")
    sim = m.simulate_dynamic([-3.0, 2.0], n_steps=steps, random_state=4, keep_networks=True)
    p_form, p_persist = expit(-3.0), expit(2.0)
    n_dyads = n * (n - 1) // (1 if directed else 2)
    prev = sim.n_ties[:-1]
    kept = (sim.persistence * prev).sum()
    formed = (sim.formation * (n_dyads - prev)).sum()
    assert abs(kept / prev.sum() - p_persist) < 4 * np.sqrt(p_persist * (1 - p_persist)
                                                            / prev.sum())
    assert abs(formed / (n_dyads - prev).sum() - p_form) < 4 * np.sqrt(
        p_form * (1 - p_form) / (n_dyads - prev).sum())
    assert sim.stats.shape == (steps, 2) and len(sim.networks) == steps
    # the statistics of a step: Form~edges = ties of y_{t-1} ∪ y_t, Persist~edges = kept
    a = {tuple(e) for e in sim.networks[3].ties.tolist()}
    b = {tuple(e) for e in sim.networks[4].ties.tolist()}
    assert tuple(sim.stats[4]) == (len(a | b), len(a & b))
    assert np.all(sim.durations >= 1)


@pytest.mark.parametrize("term", ["memory(type='stability')", "memory(type='autoregression')",
                                  "memory(type='innovation')", "memory(type='loss')",
                                  "delrecip", "delrecip(mutuality=TRUE)",
                                  "timecov(transform=function(t) t^2)"])
def test_btergm_terms_are_their_covariates(term):
    # the statistic is Σ over the ties of y of the covariate built from y⁻ (or the time), and
    # the change of a toggle is the covariate's value on the dyad
    graphs = _panel(True, 3, n=7)
    series = ef.NetSeries(graphs)
    m = ef.ERGM(series, term)
    n = series.n_nodes
    want, cm = 0.0, m.compiled()
    for b, t in enumerate((1, 2)):
        prev = nx.to_numpy_array(graphs[t - 1], nodelist=series.labels)
        if term.startswith("memory"):
            kind = term.split("'")[1]
            on, off = {"stability": (1, -1), "autoregression": (1, 0), "innovation": (0, 1),
                       "loss": (-1, 0)}[kind]
            cov = np.where(prev == 1, on, off)
        elif term.startswith("delrecip"):
            cov = np.where(prev.T == 1, 1, -1 if "TRUE" in term else 0)
        else:
            cov = np.full((n, n), float(t + 1) ** 2)
        np.fill_diagonal(cov, 0)
        cur = nx.to_numpy_array(graphs[t], nodelist=series.labels)
        want += (cov * cur).sum()
        for i, j in [(0, 1), (2, 5), (6, 3)]:
            assert cm.dyad_change_stats(b * n + i, b * n + j)[0] == pytest.approx(cov[i, j])
    assert m.statistics_vector()[0] == pytest.approx(want)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["ee", "bayes"])
def test_other_estimators_fit_the_transitions(method):
    # EE and Bayes (posterior means) on the conditional model agree with tergm's CMLE
    # within 0.3 of its standard errors (their own Monte Carlo error is about 0.1)
    refs = next(r for f, r in MCMC_REFS.items() if "Persist(~edges + mutual)" in f)
    fit = ef.ERGM(samplk(), formula(refs[0])).fit(method=method, random_state=1)
    for k in refs[0]["coef_names"]:
        ref = np.mean([r["coef"][k] for r in refs])
        assert abs(fit.params[k] - ref) < 0.3 * refs[0]["se"][k], k


def test_panel_settings_belong_to_the_series():
    s = ef.NetSeries([nx.path_graph(4), nx.cycle_graph(4)])
    with pytest.raises(ef.ErgmfitError, match="give a panel's missing dyads"):
        ef.ERGM(s, "Form(~edges)", missing=[(0, 1)])
    with pytest.raises(ef.ErgmfitError, match=r"does not take \['foo'\]"):
        ef.ERGM(s, "Form(~edges)", foo=1)


# -- command line -------------------------------------------------------------------------

def test_command_line_panel(tmp_path, capsys):
    import json
    from ergmfit.cli import main
    rows = []
    for k in (1, 2, 3):
        g = ef.datasets.load(f"samplk{k}")
        rows += [(k, u, v) for u, v in g.edges()]
    path = tmp_path / "panel.csv"
    pd.DataFrame(rows, columns=["wave", "source", "target"]).to_csv(path, index=False)
    panel = [str(path), "--wave", "wave", "--directed"]
    assert main(["stats", panel[0], "Form(~edges) + Persist(~mutual)", *panel[1:],
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"Form~edges": 150, "Persist~mutual": 16}
    case = next(c for c in CMPLE if c["formula"].endswith("Form(~edges) + Persist(~edges)"))
    assert main(["fit", panel[0], "Form(~edges) + Persist(~edges)", *panel[1:],
                 "--method", "cmle", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    for k, v in case["coef"].items():
        assert abs(res["coef"][k] - v) < 1e-6
    assert main(["fit", panel[0], "edges + memory", *panel[1:], "--method", "btergm",
                 "--set", "R=20", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Bootstrapped TERGM" in out and "edgecov.memory[[i]]" in out


@pytest.mark.parametrize("form", ["Cross(~edges + mutual) + Change(~edges)",
                                  "Form(~edges + mutual) + Persist(~edges + mutual)"])
def test_pair_independent_loglik_equals_enumeration(form):
    # one transition of 4 directed nodes: the 2^12 networks of its free dyads enumerated
    rng = np.random.default_rng(5)
    waves = [nx.gnp_random_graph(4, 0.5, seed=s, directed=True) for s in (1, 2)]
    m = ef.ERGM(ef.NetSeries(waves), form)
    g = all_statistics(m)
    for _ in range(3):
        theta = rng.normal(0, 1.5, len(m.labels))
        assert m.exact_loglik(theta) == pytest.approx(enumerated_loglik(m, theta, g), abs=1e-9)


def test_cmle_loglik_exact_when_pair_independent():
    # tergm bridge-samples every dyad-dependent CMLE's log-likelihood; a model independent
    # across dyad pairs has it exactly (no Monte Carlo error), a triadic one does not
    s = samplk()
    m = ef.ERGM(s, "Cross(~edges + mutual) + Change(~edges)")
    fit = m.fit(method="cmle", random_state=2)
    assert fit.loglik_kind == "exact"
    assert fit.loglik == pytest.approx(m.exact_loglik(np.asarray(fit.params, float)), abs=1e-9)
    assert ef.ERGM(s, "Form(~edges + mutual + transitiveties) + Persist(~edges)") \
        .exact_loglik([0.0] * 4) is None


def test_exact_steps_counts_follow_their_binomial_laws():
    # the exact (thinning) steps, per step given y⁻: dissolutions Bin(M_match, d1) +
    # Bin(M_other, d0), formations Bin(free_match, p1) + Bin(free_other, p0); the
    # standardized counts have mean 0 and variance 1 over 2,000 steps (z within 4).
    # Dropping with d instead of d / d_max (or d_max for every tie) fails by far.
    from scipy.special import expit
    from ergmfit.temporal.chain import DynamicChain
    g = nx.empty_graph(40)
    nx.set_node_attributes(g, {i: i % 2 for i in range(40)}, "grp")
    g.add_edges_from([(i, (i + 2) % 40) for i in range(0, 40, 3)])
    m = ef.ERGM(ef.NetSeries([g, g]),
                "Form(~edges + nodematch('grp')) + Persist(~edges + nodematch('grp'))")
    theta = np.array([-2.0, 1.0, 1.0, 1.5])
    chain = DynamicChain(m, cross="edges + nodematch('grp')", random_state=3, exact=True)
    eta = m.eta(theta)
    chain.run(eta, 20, ages=True)
    before = chain.run(eta, 1, ages=True).cross[-1]
    T = 2000
    r = chain.run(eta, T, ages=True)
    prev = np.vstack([before, r.cross[:-1]])            # (edges, matched) before each step
    M1, M0 = prev[:, 1], prev[:, 0] - prev[:, 1]
    d1, d0 = 1 - expit(1.0 + 1.5), 1 - expit(1.0)
    p1, p0 = expit(-2.0 + 1.0), expit(-2.0)
    F1, F0 = 2 * 190 - M1, 400 - M0                     # free dyads within / across groups
    for obs, mean, var in [
            (r.dissolved, M1 * d1 + M0 * d0, M1 * d1 * (1 - d1) + M0 * d0 * (1 - d0)),
            (r.formed, F1 * p1 + F0 * p0, F1 * p1 * (1 - p1) + F0 * p0 * (1 - p0))]:
        z = (obs - mean) / np.sqrt(var)
        assert abs(z.mean()) * np.sqrt(T) < 4, z.mean()
        z2 = z ** 2
        assert abs(z2.mean() - 1) / (z2.std() / np.sqrt(T)) < 4, z2.mean()
    # the counts agree with the statistics' changes
    assert np.array_equal(r.formed - r.dissolved, r.cross[:, 0] - prev[:, 0])


def test_exact_steps_advance_by_their_flips_as_by_the_full_comparison(monkeypatch):
    # the advance given the step's flipped dyads (O(flips)) leaves the same y⁻ and the
    # same transition statistics as the O(ties) comparison of y and y⁻
    from ergmfit.temporal.chain import DynamicChain
    g = nx.empty_graph(40)
    nx.set_node_attributes(g, {i: i % 2 for i in range(40)}, "grp")
    g.add_edges_from([(i, (i + 2) % 40) for i in range(0, 40, 3)])
    m = ef.ERGM(ef.NetSeries([g, g]),
                "Form(~edges + nodematch('grp')) + Persist(~edges + nodematch('grp'))")
    eta = m.eta(np.array([-2.0, 1.0, 1.0, 1.5]))
    runs = []
    for full in (False, True):
        chain = DynamicChain(m, cross="edges + nodematch('grp')", random_state=5, exact=True)
        if full:
            step = chain._exact_step

            def compare_all(e, ages=False, step=step, chain=chain):
                out = step(e, ages)
                chain._changed = None
                return out
            monkeypatch.setattr(chain, "_exact_step", compare_all)
        r = chain.run(eta, 60)
        assert full or chain._changed is not None
        runs.append((r.stats, r.cross))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


@pytest.fixture(scope="module")
def saved_panel_fits():
    # fitted once for both file formats (each fit took half of the test's time; the rest of
    # a cold run, 2-7 s, was the worker's first import of scipy.optimize and networkx)
    s = samplk()
    m = ef.ERGM(s, "nw ~ Form(~edges + mutual) + Persist(~edges)")
    b = ef.ERGM(s, "nw ~ edges + mutual").fit(method="btergm", R=20, random_state=1)
    return m, m.fit(method="cmle", random_state=1), b


@pytest.mark.parametrize("ext", [".json", ".npz"])
def test_saved_temporal_fits_rebuild_their_model(tmp_path, ext, saved_panel_fits):
    # a results file of a panel fit held the combined network only: rebuilding gave a
    # TypeError deep in NetSeries (its (wave, node) labels come back as lists), and a btergm
    # file did not load ('no attribute boot').  Now the file keeps the panel (the static
    # models' saved_spec / rebuild_from_info path), and a left-hand side ("nw ~", as a file
    # written before they were checked could hold) is dropped there as for a static model
    import json
    m, fit, b = saved_panel_fits
    fit.save(tmp_path / f"c{ext}")
    back = ef.results.ERGMResults.load(tmp_path / f"c{ext}")
    rebuilt = back.rebuild_model()
    assert type(rebuilt).__name__ == "TemporalERGM" and rebuilt.statistics() == m.statistics()
    if ext == ".json":
        d = json.loads((tmp_path / "c.json").read_text())
        d["formula"] = "nw ~ " + d["formula"]
        (tmp_path / "lhs.json").write_text(json.dumps(d))
        old = ef.results.ERGMResults.load(tmp_path / "lhs.json").rebuild_model()
        assert old.statistics() == m.statistics()
    b.save(tmp_path / f"b{ext}")
    bb = ef.results.ERGMResults.load(tmp_path / f"b{ext}")
    assert type(bb).__name__ == "BTERGMResults"
    np.testing.assert_array_equal(np.asarray(bb.conf_int()), np.asarray(b.conf_int()))
    assert type(bb.rebuild_model()).__name__ == "TemporalERGM"
    assert bb.rebuild_model().statistics() == b.model.statistics()


def test_saved_panel_keeps_missing_dyads_and_dyad_constraints(tmp_path):
    # main kept a wave's missing= and the user's constraints only when json.dumps took them
    # as given: a NaN or boolean matrix, numpy labels or (wave, node) labels in a
    # constraint's pairs made the file say "could not keep the panel's missing (not JSON):
    # refit the model".  Now they are kept in JSON's terms (index pairs; formula + pairs)
    import itertools
    waves = [ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)]
    n = waves[0].number_of_nodes()
    nan = np.zeros((n, n))
    nan[0, 1] = nan[2, 3] = np.nan
    boolean = np.zeros((n, n), dtype=bool)
    boolean[4, 5] = True
    labels = list(waves[1].nodes)
    # (wave 0's dyads are in no transition, but its entry is saved all the same)
    s = ef.NetSeries(waves, missing=[[(np.int64(labels[6]), labels[7])], nan, boolean])
    m = ef.ERGM(s, "Form(~edges) + Persist(~edges)")
    fixed = ef.ERGM(ef.NetSeries(waves), "Form(~edges)")
    pairs = list(itertools.permutations(fixed.network.labels[:18], 2))[:200]
    c = ef.ERGM(ef.NetSeries(waves), "Form(~edges)", constraints=("~fixallbut(free)",
                                                                   {"free": pairs}))
    for model in (m, c):
        fit = model.fit(method="cmle", random_state=1)
        for ext in (".json", ".npz"):
            fit.save(tmp_path / f"f{ext}")
            back = ef.results.ERGMResults.load(tmp_path / f"f{ext}").rebuild_model()
            assert back.statistics() == model.statistics()
            np.testing.assert_array_equal(back.sample_space.free_vars(),
                                          model.sample_space.free_vars())
            assert back.sample_space.n_missing == model.sample_space.n_missing
    assert m.sample_space.n_missing == 3 and c.sample_space.n_free == 200


def test_saved_cross_section_fit_rebuilds_its_model(tmp_path):
    # EGMME's one cross-section: rebuilt as that model (before: TypeError, as for panels)
    m = ef.ERGM(ef.datasets.load("flobusiness"), "g ~ Form(~edges) + Persist(~offset(edges))")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method="egmme", offset_coef=[np.log(9)], random_state=1, proposals=240,
                    burnin=10, steps=50, n_iter=3, n_average=2, final_steps=50, fd_steps=50)
    fit.save(tmp_path / "e.json")
    back = ef.results.ERGMResults.load(tmp_path / "e.json").rebuild_model()
    assert type(back).__name__ == "CrossSectionTERGM"
    assert back.statistics() == m.statistics() and list(back.offset_coef) == [np.log(9)]


def test_saved_ego_fit_with_a_left_hand_side_rebuilds(tmp_path):
    # checked, not changed: an ego fit's file and pickle rebuild with "g ~ terms"
    import pickle
    ego = ef.EgoData.from_network(ef.datasets.load("flomarriage"))
    m = ef.ERGM(ego, "g ~ edges + degree(1)", popsize=100)
    fit = m.fit(method="mple", random_state=1)
    fit.save(tmp_path / "e.json")
    back = ef.results.ERGMResults.load(tmp_path / "e.json").rebuild_model()
    assert back.formula == "edges + degree(1)"
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(m)).statistics().stats,
                                  m.statistics().stats)
