"""The exchange algorithm's default delayed acceptance (a Gaussian first stage
fitted to the pilot chain) against an exact posterior, and the checkpoint of
the completions of missing dyads."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.bayes import exchange as bayes_mod
from support.bayes import missing_five_node_model


def _dyad_independent_model():
    """``edges + nodecov('x')`` on a 24-node graph drawn from it: its likelihood
    is a product of logistic terms, so the exact posterior is a grid sum, and
    its statistics are near-Gaussian, so ``delayed='auto'`` uses the Gaussian
    first stage."""
    rng = np.random.default_rng(11)
    n = 24
    x = rng.normal(size=n)
    g = nx.Graph()
    g.add_nodes_from((i, {"x": float(x[i])}) for i in range(n))
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < 1 / (1 + np.exp(1.2 - 0.7 * (x[i] + x[j]))):
                g.add_edge(i, j)
    return ef.ERGM(g, "edges + nodecov('x')"), x


def _exact_posterior(m, x):
    n = len(x)
    i, j = np.triu_indices(n, 1)
    y = _ties(m, i, j)
    c = x[i] + x[j]
    centre = np.asarray(m.fit(method="mple").params)

    def loglik(T):
        e = T[:, :1] + T[:, 1:] * c          # (grid, dyads)
        return e @ y - np.logaddexp(0, e).sum(axis=1)
    a = np.linspace(-3, 3, 241)
    T = np.stack(np.meshgrid(centre[0] + a, centre[1] + a / 2, indexing="ij"), -1).reshape(-1, 2)
    lp = loglik(T) - 0.5 * (T ** 2).sum(axis=1) / 100.0
    w = np.exp(lp - lp.max())
    w /= w.sum()
    mean = w @ T
    return mean, np.sqrt(w @ (T - mean) ** 2)


def _ties(m, i, j):
    on = {tuple(sorted(t)) for t in np.asarray(m.network.ties).tolist()}
    return np.array([(a, b) in on for a, b in zip(i, j)], dtype=float)


def test_delayed_acceptance_default_matches_the_exact_posterior():
    m, x = _dyad_independent_model()
    mean, sd = _exact_posterior(m, x)
    fit = m.fit(method="bayes", random_state=2, main_iters=3000)
    assert fit.info["delayed"] == "pilot"           # the Gaussian first stage was used
    rate = np.mean(fit.info["first_stage_rate"])
    assert fit.acceptance_rate < rate < 0.8
    z = (np.asarray(fit.params) - mean) / np.asarray(fit.mcse)
    assert np.all(np.abs(z) < 4), (fit.params, mean, fit.mcse)
    assert np.allclose(fit.bse, sd, rtol=0.1), (fit.bse, sd)
    assert np.all(fit.rhat < 1.1)


def test_auto_declines_a_far_from_gaussian_pilot():
    # the 5-node edges + triangle model's statistics are skewed (0.8): plain exchange
    g = nx.Graph()
    g.add_nodes_from(range(5))
    g.add_edges_from([(0, 1), (1, 2), (0, 2), (2, 3), (3, 4)])
    fit = ef.ERGM(g, "edges + triangle").fit(method="bayes", random_state=1, main_iters=20)
    assert fit.info["delayed"] is False
    forced = ef.ERGM(g, "edges + triangle").fit(method="bayes", random_state=1, main_iters=20,
                                                delayed="pilot")
    assert forced.info["delayed"] == "pilot"


def test_checkpoint_holds_the_completions_of_missing_dyads(tmp_path, monkeypatch):
    m = missing_five_node_model()
    ck = tmp_path / "state.npz"
    real = bayes_mod.exchange_block
    calls = {"n": 0}

    def interrupted_block(*args):
        calls["n"] += 1
        if calls["n"] == 25:                # missing dyads: one call per iteration
            raise KeyboardInterrupt
        return real(*args)
    history = []
    real_update = bayes_mod._Imputer.update

    def update(self, theta, eta=None):
        real_update(self, theta, eta)
        history.append({"ties": [np.asarray(st.ties()).tolist() for st in self.states],
                        "gx": self.gx.copy()})
    monkeypatch.setattr(bayes_mod, "exchange_block", interrupted_block)
    monkeypatch.setattr(bayes_mod._Imputer, "update", update)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        m.fit(method="bayes", random_state=1, burnin=10, main_iters=40, aux_iters=50,
              checkpoint=str(ck))
    # the Ctrl-C came in iteration 25, in the block of iterations 21-30, which is lost:
    # the checkpoint holds the completions after iteration 20, where that block began
    assert len(history) == 24
    seen = history[19]
    z = np.load(ck)
    counts = z["completion_counts"]
    assert counts.shape == (4,) and z["completion_gx"].shape == (4, 2)
    np.testing.assert_array_equal(z["completion_gx"], seen["gx"])
    saved = np.split(z["completion_ties"], np.cumsum(counts)[:-1])
    assert [sorted(map(tuple, t.tolist())) for t in saved] == \
        [sorted(map(tuple, t)) for t in seen["ties"]]
    # a resumed run starts every chain's completion where it was saved
    seen = dict(seen)
    monkeypatch.setattr(bayes_mod._Imputer, "update", real_update)
    starts = {}
    real_init = bayes_mod._Imputer.__init__

    def init(self, *args, **kw):
        real_init(self, *args, **kw)
        starts["ties"] = [np.asarray(st.ties()).tolist() for st in self.states]
        starts["gx"] = self.gx.copy()
    monkeypatch.setattr(bayes_mod, "exchange_block", real)
    monkeypatch.setattr(bayes_mod._Imputer, "__init__", init)
    done = m.fit(method="bayes", burnin=10, main_iters=40, aux_iters=50, resume=str(ck))
    assert not done.interrupted
    np.testing.assert_array_equal(starts["gx"], seen["gx"])
    assert [sorted(map(tuple, t)) for t in starts["ties"]] == \
        [sorted(map(tuple, t)) for t in seen["ties"]]
    # the completions differ between chains and from the network as given
    assert np.any(seen["gx"] != 0)


def test_kept_auxiliary_length_is_capped_at_six_per_dyad_with_a_note(monkeypatch):
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + gwesp(0.2, fixed=TRUE)")
    real = bayes_mod.auxiliary_length

    def slow(model, *args, **kw):       # a pilot that measures a long lag
        k, info = real(model, *args, **kw)
        info["pilot_lag"] = 5000
        return 5000, info
    monkeypatch.setattr(bayes_mod, "auxiliary_length", slow)
    fit = m.fit(method="bayes", random_state=1, burnin=20, main_iters=20)
    cap = bayes_mod.default_aux_iters(m)
    assert fit.info["aux_iters"] == cap == 1000
    assert fit.info["aux_rule"]["capped_from"] == 5000
    assert any("aux_iters=5000" in w for w in fit.warnings)


def test_default_proposal_is_a_random_walk_on_the_pilots_gaussian(monkeypatch):
    # gamma and v_proposal left None: the chains are independent random walks whose
    # covariance is (1.8^2 / p) x the pilot's Gaussian approximation of the posterior (the
    # first stage's); gamma=0.5 gives Bergm's ADS move with noise 0.2 x the MPLE's sds.  The
    # posterior is the same (the exact test above runs the default)
    m, _ = _dyad_independent_model()
    p = m.n_params
    seen = {}
    real = bayes_mod._GaussStage.fit

    def keep(prior, moments, mode="auto"):
        seen["stage"] = real(prior, moments, "pilot")
        return real(prior, moments, mode)
    monkeypatch.setattr(bayes_mod._GaussStage, "fit", keep)
    rw = m.fit(method="bayes", random_state=1, main_iters=30, burnin=10)
    monkeypatch.undo()
    assert rw.info["gamma"] == 0.0
    np.testing.assert_allclose(rw.info["proposal_cov"],
                               1.8 ** 2 / p * np.linalg.inv(seen["stage"].prec), rtol=1e-9)
    ads = m.fit(method="bayes", random_state=1, main_iters=30, burnin=10, gamma=0.5)
    assert ads.info["gamma"] == 0.5
    _, cov0 = bayes_mod.start_centre(m)
    np.testing.assert_allclose(ads.info["proposal_cov"], 0.2 ** 2 * cov0, rtol=1e-9)
    # a declined first stage (delayed=False is not 'auto') keeps Bergm's move
    plain = m.fit(method="bayes", random_state=1, main_iters=30, burnin=10, delayed=False)
    assert plain.info["gamma"] == 0.5


def test_auto_first_stage_takes_pilots_up_to_skewness_one_half():
    # the rule: 'auto' fits the Gaussian first stage when the pilot's whitened statistics have
    # |skewness| <= 0.5 and |excess kurtosis| <= 1 (Lazega gwesp's pilots: 0.30-0.40, declined
    # under the old limit 0.35; flomarriage gwesp's: 0.59-0.63, declined)
    from ergmfit.estimation.bayes.exchange import make_prior
    from ergmfit.estimation.bayes.state import _GaussStage
    prior = make_prior(2)
    moments = lambda skew, kurt: (np.zeros(2), np.zeros(2), np.eye(2), skew, kurt)  # noqa: E731
    assert _GaussStage.fit(prior, moments(0.45, 0.4)) is not None
    assert _GaussStage.fit(prior, moments(0.55, 0.4)) is None
    assert _GaussStage.fit(prior, moments(0.3, 1.2)) is None
    assert _GaussStage.fit(prior, moments(0.55, 1.2), "pilot") is not None


@pytest.mark.slow
def test_lazega_gwesp_uses_the_first_stage():
    # issue #35's benchmark model: its pilots' largest skewness is 0.30-0.40 over 20 seeds
    m = ef.ERGM(ef.datasets.load("lazega"), "edges + gwesp(0.2, fixed=TRUE)")
    fit = m.fit(method="bayes", random_state=3, main_iters=2, burnin=0)
    assert fit.info["delayed"] == "pilot"
    assert fit.info["gamma"] == 0.0             # the random walk on the same Gaussian


def test_persistent_auxiliary_networks_match_the_exact_posterior():
    # aux_start='chain' (the default with the random walk): every chain's auxiliary network
    # continues from its own last one.  At 400 proposals (about this model's lag of
    # autocorrelation 0.25, 380; the rule's 0.15 without the floor would be about 520) the
    # posterior is exact within the Monte Carlo error at every seed, where auxiliary chains
    # started from the observed network at 380 left nodecov 3-5 MC s.e. off and its sd
    # 11-15 % wide (bayes_algorithm.md, "Persistent auxiliary networks")
    m, x = _dyad_independent_model()
    mean, sd = _exact_posterior(m, x)
    for seed in (1, 2, 3):
        fit = m.fit(method="bayes", random_state=seed, main_iters=3000, aux_iters=400)
        assert fit.info["aux_start"] == "chain"
        z = (np.asarray(fit.params) - mean) / np.asarray(fit.mcse)
        assert np.all(np.abs(z) < 4), (seed, fit.params, mean, fit.mcse)
        assert np.allclose(fit.bse, sd, rtol=0.1), (seed, fit.bse, sd)


def test_each_chain_keeps_its_own_auxiliary_network(monkeypatch):
    # one sampler per chain: after the run, chain h's sampler holds the network whose
    # statistics minus the observed ones are the carried g(x_h) - g(y0); the chains' networks
    # differ from each other and from the observed network
    m, _ = _dyad_independent_model()
    seen = {}
    real = bayes_mod._ExchangeRun.iterate

    def iterate(self, *args):
        seen["run"] = self
        return real(self, *args)
    monkeypatch.setattr(bayes_mod._ExchangeRun, "iterate", iterate)
    fit = m.fit(method="bayes", random_state=1, main_iters=20, burnin=5, aux_iters=300)
    run = seen["run"]
    H = fit.info["n_chains"]
    assert fit.info["aux_start"] == "chain" and len(run.chain_samplers) == H
    g0 = m.statistics_vector()
    ties = []
    for h, smp in enumerate(run.chain_samplers):
        t = np.asarray(smp.model.state.ties(), dtype=np.int64).reshape(-1, 2)
        np.testing.assert_allclose(m.statistics_vector(t) - g0, run.gaux[h], atol=1e-9)
        ties.append(sorted(map(tuple, t.tolist())))
    obs = sorted(map(tuple, np.asarray(m.network.ties).tolist()))
    assert all(t != obs for t in ties) and len({tuple(t) for t in ties}) == H


def test_auxiliary_start_follows_the_proposal():
    m, _ = _dyad_independent_model()
    ads = m.fit(method="bayes", random_state=1, main_iters=5, burnin=0, gamma=0.5)
    assert ads.info["aux_start"] == "observed"          # ADS chains interact: Bergm's start
    kept = m.fit(method="bayes", random_state=1, main_iters=5, burnin=0, aux_start="observed")
    assert kept.info["aux_start"] == "observed" and kept.info["gamma"] == 0.0
    with pytest.raises(ef.exceptions.SettingsError, match="aux_start='chain'"):
        m.fit(method="bayes", random_state=1, main_iters=5, gamma=0.5, aux_start="chain")


def test_the_delayed_acceptance_surrogate_ranges_over_the_dyads_between_the_modes():
    # the first stage's pseudo-likelihood is over the sample space's dyads: on a two-mode
    # network the n1 x n2 dyads between the modes (before: every node pair, 36 x 35 / 2)
    from ergmfit.estimation.bayes.state import _Surrogate
    from support.change_stats import two_mode_graph
    g, n1 = two_mode_graph(3, 12, 24, p=0.15)
    sur = _Surrogate(ef.ERGM(g, "edges"), np.random.default_rng(1))
    assert sur.n.sum() == n1 * (g.number_of_nodes() - n1) == 288
    assert sur.s.sum() == g.number_of_edges()
