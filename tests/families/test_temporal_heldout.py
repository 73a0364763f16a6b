"""btergm's goodness of fit on target waves, in and out of sample (ergmfit.temporal.heldout)."""
import networkx as nx
import numpy as np
import pytest
from scipy.special import expit

import ergmfit as ef
from ergmfit.exceptions import SettingsError
from ergmfit.temporal import heldout_gof
from ergmfit.temporal.heldout import average_precision, roc_auc

WAVES = [nx.gnp_random_graph(14, 0.2, seed=s) for s in range(5)]


@pytest.fixture(scope="module")
def memory_fit():
    # fitted on waves 0-3; wave 4 held out
    return ef.ERGM(ef.NetSeries(WAVES[:4]), "edges + memory").fit(
        method="btergm", R=20, random_state=1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auc_and_average_precision_are_their_definitions(seed):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 6, 40) / 5.0            # many equal scores
    y = rng.random(40) < 0.3
    pos, neg = scores[y], scores[~y]
    pairs = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    assert roc_auc(scores, y) == pytest.approx(pairs.mean(), abs=1e-12)
    # average precision: each tie scores the precision of the dyads scoring >= its score
    prec = [np.mean(y[scores >= s]) for s in pos]
    assert average_precision(scores, y) == pytest.approx(np.mean(prec), abs=1e-12)
    assert np.isnan(roc_auc(scores, np.zeros(40, bool)))
    assert roc_auc([1, 0], [1, 0]) == 1.0 and average_precision([1, 0], [1, 0]) == 1.0


def test_held_out_wave_is_compared_with_that_wave(memory_fit):
    panel = ef.NetSeries(WAVES)
    res = heldout_gof(memory_fit, target=4, series=panel, n_sim=10, random_state=3)
    assert list(res.waves) == [4] and res.fitted_times == []
    w = res[4]
    degrees = np.bincount([d for _, d in WAVES[4].degree()])
    obs = np.asarray(w.gof["degree"].obs)
    assert np.array_equal(obs[:len(degrees)], degrees) and not obs[len(degrees):].any()
    model4 = ef.ERGM(panel, "edges + memory", times=[4])
    assert np.allclose(w.gof["model"].obs, model4.statistics_vector())
    assert w.observed.sum() == WAVES[4].number_of_edges()
    assert w.pr_random == pytest.approx(WAVES[4].number_of_edges() / (14 * 13 / 2))
    assert "out" in res.prediction_table() and "== wave 4 ==" in str(res)


def test_default_is_in_sample_on_the_fitted_waves(memory_fit):
    res = memory_fit.gof(n_sim=5, random_state=4)
    assert list(res.waves) == [1, 2, 3] == res.fitted_times
    assert "in" in res.prediction_table()


def test_tie_probabilities_of_a_dyad_independent_model_are_exact(memory_fit):
    # edges + memory (stability) is dyad-independent given the previous wave: dyad ij's
    # probability is expit(edges + memory * (+1 if a previous tie, else -1)); the shares of
    # the simulated networks agree within their Monte Carlo error, group by group
    panel = ef.NetSeries(WAVES)
    n_sim = 300
    res = heldout_gof(memory_fit, target=4, series=panel, n_sim=n_sim,
                      statistics="model", random_state=5)
    w = res[4]
    a, b = np.asarray(memory_fit.params)
    prev = {tuple(sorted(e)) for e in WAVES[3].edges()}
    had = np.array([tuple(p) in prev for p in w.pairs.tolist()])
    for group, sign in ((had, 1.0), (~had, -1.0)):
        p = expit(a + sign * b)
        share = w.tie_probability[group].mean()
        # draws n_sim networks x group dyads; 2x for the chain's correlation
        se = np.sqrt(p * (1 - p) / (n_sim * group.sum()))
        assert abs(share - p) < 4 * 2 * se, (share, p, se)
    exact = np.where(had, expit(a + b), expit(a - b))
    assert w.roc_auc == pytest.approx(roc_auc(exact, w.observed), abs=0.08)


def test_bad_targets_are_refused(memory_fit):
    panel = ef.NetSeries(WAVES)
    with pytest.raises(SettingsError, match="target wave 5 is not a wave"):
        heldout_gof(memory_fit, target=5, series=panel)
    with pytest.raises(SettingsError, match="target wave 0 has no previous wave"):
        heldout_gof(memory_fit, target=0, series=panel)
    with pytest.raises(SettingsError, match="series must be a NetSeries"):
        heldout_gof(memory_fit, target=1, series=WAVES)
    directed = ef.NetSeries([nx.DiGraph(g) for g in WAVES])
    with pytest.raises(SettingsError, match="series is directed"):
        heldout_gof(memory_fit, target=1, series=directed)
    static = ef.ERGM(WAVES[0], "edges").fit(method="mple")
    with pytest.raises(SettingsError, match="needs the fit of a temporal model"):
        heldout_gof(static, target=1, series=panel)
    with pytest.raises(SettingsError, match="n_sim must be at least 1"):
        heldout_gof(memory_fit, target=1, n_sim=0)


def test_cmle_fit_on_a_held_out_wave():
    panel = ef.NetSeries(WAVES)
    fit = ef.ERGM(ef.NetSeries(WAVES[:4]), "Form(~edges) + Persist(~edges)").fit(
        method="cmle")
    res = heldout_gof(fit, target=[4, 3], series=panel, n_sim=5, random_state=6)
    assert list(res.waves) == [4, 3]
    assert np.allclose(res[4].gof["model"].obs,
                       ef.ERGM(panel, fit.model.formula, times=[4]).statistics_vector())


def test_a_series_with_other_covariates_is_refused():
    # nodefactor's levels come from the data: a target series without level 'c' gives the
    # formula other statistics than the fit's
    def labelled(graphs, levels):
        out = []
        for g in graphs:
            g = g.copy()
            nx.set_node_attributes(g, {v: levels[v % len(levels)] for v in g}, "g")
            out.append(g)
        return out
    fit = ef.ERGM(ef.NetSeries(labelled(WAVES[:3], "abc")), "edges + nodefactor('g')").fit(
        method="btergm", R=5, random_state=1)
    other = ef.NetSeries(labelled(WAVES, "ab"))
    with pytest.raises(SettingsError, match="the formula on wave 4 of series has the statistics"):
        heldout_gof(fit, target=4, series=other, n_sim=2)


def test_cmle_gof_is_per_transition():
    # fit.gof() of a CMLE checks each transition against networks simulated given the wave
    # before it (the pooled block-diagonal network's gof mixed the transitions)
    panel = ef.NetSeries([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)])
    m = ef.ERGM(panel, "Form(~edges) + Persist(~edges)")
    fit = m.fit(method="cmle")
    res = fit.gof(n_sim=5, random_state=1)
    assert sorted(res.waves) == [1, 2]
    for t in (1, 2):
        one = m.on_waves([t])
        assert np.allclose(res[t].gof["model"].obs, one.statistics_vector())
        assert res[t].gof["idegree"].obs is not None
    assert not np.allclose(res[1].gof["model"].obs, res[2].gof["model"].obs)
