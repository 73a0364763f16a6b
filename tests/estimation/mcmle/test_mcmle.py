"""MCMC-MLE against statnet 4.4's fits, degeneracy handling, reproducibility."""
import ast
import warnings

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from support.paths import load_reference

FITS = load_reference("statnet_fits.json")["fits"]


def _d(x):
    return x if isinstance(x, dict) else ast.literal_eval(x)


def statnet_mle(prefix):
    """Mean coefficients and standard errors of statnet's converged MCMC-MLE runs."""
    runs = [f for f in FITS if f["name"].startswith(prefix) and f["estimator"].startswith("MCMC-MLE")
            and not f["error"] and _d(f["coef"])]
    assert runs, prefix
    labels = list(_d(runs[0]["coef"]))
    coef = np.array([[_d(r["coef"])[k] for k in labels] for r in runs]).mean(axis=0)
    se = np.array([[_d(r["stderr"])[k] for k in labels] for r in runs]).mean(axis=0)
    return runs[0], labels, coef, se


LAZEGA = ("edges + gwesp(log(3), fixed=TRUE) + nodecov('seniority') + nodecov('practice') + "
          "nodematch('practice') + nodematch('gender') + nodematch('office')")
CASES = [
    ("c2_flomarriage_edges_triangle", "flomarriage", "edges + triangle", [1, 2, 3]),
    ("c1_flomarriage_edges_kstar2_triangle", "flomarriage", "edges + kstar(2) + triangle", [1, 2]),
    ("e1_samplike_edges_mutual", "samplike", "edges + mutual", [1, 2, 3]),
    ("b1_lazega_sprh_gwesp_log3", "lazega", LAZEGA, [1, 2]),
    ("b2_lazega_sprh_gwesp_0.693", "lazega", LAZEGA.replace("log(3)", "0.693"), [3]),
    ("d_faux.mesa.high_grade_gwesp0.25", "faux.mesa.high",
     "edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE) + gwesp(0.25, fixed=TRUE)", [1]),
]


@pytest.mark.parametrize("prefix, data, formula, seeds", CASES, ids=[c[0] for c in CASES])
def test_matches_statnet_across_seeds(prefix, data, formula, seeds):
    ref, labels, coef, se = statnet_mle(prefix)
    m = ef.ERGM(ef.datasets.load_network(data), formula)
    assert m.labels == labels
    for seed in seeds:
        fit = m.fit(method="mcmle", random_state=seed, verbose=False)
        assert fit.converged
        dist = np.abs(np.asarray(fit.params) - coef) / se
        assert dist.max() < 0.25, (seed, dict(zip(labels, dist.round(3))))
        ratio = np.asarray(fit.bse) / se
        assert np.all((ratio > 0.8) & (ratio < 1.2)), (seed, dict(zip(labels, ratio.round(3))))
        # statnet prints the deviance from its bridge-sampled log-likelihood
        assert fit.deviance == pytest.approx(ref["residual_deviance"], abs=max(2.0, 0.002 * ref["residual_deviance"]))


def test_same_seed_same_fit():
    m = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + triangle")
    a = m.fit(method="mcmle", random_state=7, verbose=False)
    b = m.fit(method="mcmle", random_state=7, verbose=False)
    assert np.array_equal(np.asarray(a.params), np.asarray(b.params))
    assert np.array_equal(a.cov, b.cov) and a.loglik == b.loglik


def test_parallel_chains_reproducible():
    m = ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual")
    a = m.fit(method="mcmle", random_state=3, n_chains=2, n_jobs=1, verbose=False)
    b = m.fit(method="mcmle", random_state=3, n_chains=2, n_jobs=2, verbose=False)
    assert np.allclose(np.asarray(a.params), np.asarray(b.params))


def test_lazega_kstar_triangle_is_not_garbage():
    """statnet 4.4 fails here after minutes ("did not mix"); we either converge to an
    estimate that reproduces the observed statistics, or say the model is degenerate."""
    m = ef.ERGM(ef.datasets.load_network("lazega"), "edges + kstar(2) + triangle")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = m.fit(method="mcmle", random_state=1, verbose=False, maxit=20)
    except ef.DegenerateModelError as exc:
        assert "degenerate" in str(exc)
        return
    S = m.simulate(fit.params, n=400, burnin=20000, interval=2000, output="stats", random_state=2)
    obs = m.statistics_vector()
    assert np.all(np.abs(S.mean(axis=0) - obs) < 3 * S.std(axis=0) / np.sqrt(400) * 5)


def test_degenerate_specification_says_so():
    # a dense triangle model: the MPLE drives the chain to the complete graph
    g = nx.complete_graph(12)
    g.remove_edges_from(list(g.edges())[:10])
    m = ef.ERGM(g, "edges + triangle")
    with pytest.raises(ef.DegenerateModelError, match="degenerate|complete|empty|vary|exist"):
        m.fit(method="mcmle", init=[-2.0, 3.0], random_state=1, verbose=False, maxit=5)


def test_bistable_sample_after_a_swing_is_called_near_degenerate():
    # iterations far above, above, then far below the observed edges; the third
    # sample jumps between near-empty and 8x denser networks (a bistable chain)
    from ergmfit.estimation.mcmle.estimator import _check_oscillation
    m = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + triangle")
    g_obs = m.statistics_vector()
    rng = np.random.default_rng(0)

    def sample(edge_values):
        e = rng.choice(edge_values, 200)
        return np.column_stack([e, e / 2.0]) - g_obs

    far_above = sample(np.arange(100, 110))
    bistable = sample(np.r_[np.arange(2, 8), np.arange(150, 170)])
    far_below = sample(np.arange(2, 6))
    history = []
    for Z in (far_above, far_above):
        history.append({})
        _check_oscillation(m, history, Z, g_obs)
    history.append({})
    _check_oscillation(m, history, far_below, g_obs)      # one swing: not yet
    history.append({})
    with pytest.raises(ef.DegenerateModelError, match="near-degenerate"):
        _check_oscillation(m, history, bistable, g_obs)


def test_checkpoint_and_resume(tmp_path):
    m = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + triangle")
    ck = tmp_path / "fit.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = m.fit(method="mcmle", random_state=1, verbose=False, maxit=1, checkpoint=str(ck),
                      eval_loglik=False)
    assert ck.exists() and not first.converged
    fit = m.fit(method="mcmle", random_state=2, verbose=False, resume=str(ck))
    assert fit.converged and fit.info["init_method"].startswith("checkpoint")
    other = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges")
    with pytest.raises(ValueError, match="statistics"):
        other.fit(method="mcmle", resume=str(ck), verbose=False)


def test_ctrl_c_returns_what_was_done(monkeypatch):
    import ergmfit.estimation.mcmle.estimator as mc
    real = mc.hummel_step
    calls = {"n": 0}

    def interrupting(Z, margin=0.05, tol=1e-3):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(Z, margin, tol)

    monkeypatch.setattr(mc, "hummel_step", interrupting)
    m = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + triangle")
    with pytest.warns(ef.ConvergenceWarning, match="interrupted"):
        fit = m.fit(method="mcmle", random_state=1, verbose=False)
    assert not fit.converged and fit.info["interrupted"]
    assert any("interrupted" in w for w in fit.warnings)
    assert np.all(np.isfinite(np.asarray(fit.params)))


def test_boosted_last_sample_shortens_an_overshooting_interval():
    # flomarriage mixes fast: the sample before the last has far more than 64
    # effective draws, so the boosted last one runs at half its interval (the most
    # it may shorten), with fewer than 4 x 1024 draws: as many as 4 x 64 effective
    # draws need at that interval (interval.final_sample_size)
    from ergmfit.estimation.mcmle.interval import final_sample_size
    m = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + triangle")
    fit = m.fit(method="mcmle", random_state=1, verbose=False, interval=4096, min_interval=64,
                eval_loglik=False)
    hist = fit.info["history"]
    assert fit.converged and hist[-2]["samplesize"] == 1024
    assert hist[-1]["samplesize"] == final_sample_size(hist[-3:-1], hist[-1]["interval"],
                                                       1024, 4, 64) < 4096
    assert hist[-2]["min_ess"] > 128
    assert hist[-1]["interval"] == hist[-2]["interval"] // 2


def test_bridge_samplesize_is_checked_and_used():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with pytest.raises(ValueError, match="bridge_samplesize"):
        m.fit(method="mcmle", random_state=1, verbose=False, bridge_samplesize=2)
    a = m.fit(method="mcmle", random_state=1, verbose=False, bridge_samplesize=64)
    b = m.fit(method="mcmle", random_state=1, verbose=False, bridge_samplesize=512)
    # same fit, a different log-likelihood sample: the bigger one is more precise
    assert np.allclose(a.params, b.params)
    assert a.loglik != b.loglik
    assert b.info["loglik_mcse"] < a.info["loglik_mcse"]


def test_intervals_follow_the_effective_size_rule():
    # non-final samples aim at 64 multivariate effective draws (statnet's measure)
    # and 32 of every statistic; the boosted last one at 4 x 64 multivariate draws
    # (statnet's MCMLE.last.boost x MCMLE.effectiveSize), from the autocorrelation
    # time pooled over the two samples before it
    from ergmfit.estimation.mcmle.interval import quarter_octave as _quarter_octave
    m = ef.ERGM(ef.datasets.load("lazega"), "edges + gwesp(log(3), fixed=TRUE) + "
                "nodematch('practice') + nodematch('office')")
    fit = m.fit(method="mcmle", random_state=3, verbose=False, eval_loglik=False)
    hist = fit.info["history"]
    assert fit.converged and len(hist) >= 3
    lo, hi = 1024 // 4, 2 ** 20
    for prev, cur in zip(hist[:-2], hist[1:-1]):
        assert cur["samplesize"] == 1024
        ratio = max(64 / prev["ess"], 32 / prev["min_ess"])
        want = _quarter_octave(prev["interval"] * min(8.0, max(0.25, ratio)), lo, hi)
        assert cur["interval"] == want
    from ergmfit.estimation.mcmle.interval import final_sample_size, last_sample_key
    last, pool = hist[-1], hist[-3:-1]
    # (where the multivariate time asks for no more than the floor, the slowest statistic's)
    key = last_sample_key(pool, 1024, 64, lo)
    if last["interval"] > lo:
        assert last["samplesize"] == final_sample_size(pool, last["interval"], 1024, 4, 64, key)
    else:       # at the floor: drawn in parts of 256 until 4 x 64 draws of every statistic
        assert last["samplesize"] % 256 == 0 and 1024 <= last["samplesize"] <= 4096
        assert last["samplesize"] == 4096 or last["min_ess"] >= 256
    tau = sum(h["interval"] * h["samplesize"] for h in pool) / sum(h[key] for h in pool)
    before = hist[-2]["interval"]
    assert last["interval"] == _quarter_octave(min(4 * before, max(before / 2, 64 * tau / 1024)),
                                               lo, hi)
    # the multivariate size counts every direction, so it is at least the smallest one here
    assert all(h["ess"] >= h["min_ess"] for h in hist)


def test_last_sample_shrinks_when_its_interval_is_held_above_the_target():
    # the boosted last sample aims at 4 x 64 effective draws.  When min_interval holds
    # its interval above what tau asks for, 4096 draws would overshoot that target: at
    # the floor the sample is drawn in parts of 256 and stops after the first part with
    # 4 x 64 effective draws of every statistic (interval.step_sample_parts; above the
    # floor interval.final_sample_size sizes it by the multivariate target)
    m = ef.ERGM(ef.datasets.load("samplk3"), "edges + mutual")
    shrunk = 0
    for seed in (1, 2, 3):
        hist = m.fit(method="mcmle", random_state=seed, eval_loglik=False).info["history"]
        last = hist[-1]
        assert last["interval"] == 256 and last["samplesize"] % 256 == 0
        shrunk += last["samplesize"] < 4096
        if last["samplesize"] < 4096:       # it stopped at its target
            assert last["min_ess"] >= 256
    assert shrunk >= 2


def test_hull_test_agrees_with_the_linear_programme():
    # the facets' test (qhull, 1-4 dimensions) and the LP decide alike, on integer samples
    # with ties and on points on the boundary (sample points, midpoints of two)
    from ergmfit.estimation.common.stepping import hull_test, _in_hull_lp
    rng = np.random.default_rng(2)
    for _ in range(60):
        p = int(rng.integers(1, 6))
        Z = np.round(rng.normal(size=(int(rng.integers(p + 2, 200)), p)) * rng.integers(1, 6))
        test = hull_test(Z)
        points = [Z[0], (Z[1] + Z[2]) / 2] + [Z.mean(axis=0) + rng.normal(size=p) * Z.std(axis=0)
                                              * rng.uniform(0, 3) for _ in range(5)]
        for x in points:
            assert test(x) == _in_hull_lp(Z, x)


def test_samples_at_the_interval_floor_stop_at_their_effective_size_target():
    # Sampson's three waves mix in a few sweeps of their 918 dyads: at the smallest
    # interval (256) a sample of 1024 draws had 3-4 times the effective draws a step
    # asks (64 multivariate, 32 of every statistic).  A sample held at the floor is
    # drawn in parts of 256 and stops after the first part that has its target; the last
    # one (up to 4 x 1024 draws) once every statistic has 4 x 64 (interval.step_sample_parts)
    from ergmfit.estimation.common.curved import first_sample_ok
    from ergmfit.estimation.mcmle.interval import step_sample_parts
    from support.multi_networks import samplk3w
    assert step_sample_parts(1024, 256, 256) == 256
    assert step_sample_parts(1024, 362, 256) is None
    m = ef.ERGM(samplk3w(), "N(~edges + mutual)")
    shortened = 0
    for seed in (1, 2, 3):
        # force_main: the model's exact MLE (over node pairs) would run no chain
        fit = m.fit(method="mcmle", random_state=seed, eval_loglik=False, force_main=True)
        hist = fit.info["history"]
        assert fit.converged
        for h in hist:
            assert h["interval"] == 256 and h["samplesize"] % 256 == 0
        for h in hist[:-1]:
            assert h["samplesize"] <= 1024
            if h["samplesize"] < 1024:       # stopped early: it had its target
                assert h["ess"] >= 64 and h["min_ess"] >= 32
        last = hist[-1]
        assert last["samplesize"] <= 4096
        if last["samplesize"] < 4096:
            assert last["min_ess"] >= 256
        # the kept last sample is the one the rule judged
        assert first_sample_ok(m.parameterisation, np.asarray(fit.params, float),
                               fit.mcmc_sample["chains"], 256, 1.0) == (last["samplesize"] < 4096)
        shortened += sum(h["samplesize"] < 1024 for h in hist[:-1])
    assert shortened >= 3          # (all 1024 before the rule)
