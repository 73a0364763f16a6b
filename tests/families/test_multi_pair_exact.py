"""The exact MLE of models independent across node pairs (terms declaring the dyads they
read, ``Term.locality``; ergmfit.estimation.common.pairstates): against a direct
maximisation written here, full enumeration, the MCMC-MLE and ergm.multi's fits."""
import itertools

import networkx as nx
import numpy as np
import pytest
from scipy.optimize import minimize

import ergmfit as ef
from ergmfit.exceptions import ConvergenceWarning
from conftest import load_reference
from ergmfit.estimation.common.pairstates import pair_state_loglik, pair_states
from ergmfit.sampling.space import dyad_vars, var_pairs
from support.multi_networks import DATASETS, lazega_multiplex

FITS = [c for c in load_reference("statnet_multi.json")["cases"] if c["kind"] == "fit"]
EDGES_AND = "L(~edges, ~advice) + L(~edges, ~friendship) + L(~edges, ~advice&friendship)"


def test_terms_declare_what_their_change_statistics_read():
    g = ef.datasets.load("samplk1")
    loc = [t.locality for t in ef.ERGM(g, "edges + mutual + triangle + gwesp(0.5, fixed=TRUE)"
                                       " + nodematch('group') + mutual(same='group')").terms]
    assert loc == ["dyad", "pair", None, None, "dyad", "pair"]
    lay = DATASETS["lazega2l"]()
    loc = {t.labels[0]: t.locality for t in ef.ERGM(
        lay, "L(~edges, ~advice) + L(~mutual, ~friendship) + L(~edges, ~advice&friendship)"
             " + L(~triangle, ~advice) + mutualL(Ls=c(~advice, ~friendship))").terms}
    assert loc == {"L(advice)~edges": "dyad", "L(friendship)~mutual": "node pair",
                   "L(advice&friendship)~edges": "node pair", "L(advice)~triangle": None,
                   "mutualL(advice,friendship)": "node pair"}
    nets = DATASETS["samplk3w"]()
    assert [t.locality for t in ef.ERGM(nets, "N(~edges + mutual) + N(~triangle)").terms] \
        == ["pair", None]
    assert ef.ERGM(nets, "N(~edges + mutual, lm=~wave)").pair_independent
    for f in ("N(~edges + mutual) + N(~triangle)", "N(~gwesp(0.5, fixed=TRUE))",
              "N(~edges + mutual + transitiveties)"):
        assert not ef.ERGM(nets, f).pair_independent
        assert pair_states(ef.ERGM(nets, f)) is None
    assert not ef.ERGM(lay, EDGES_AND + " + L(~gwesp(0.5, fixed=TRUE), ~advice)").pair_independent


def test_edges_and_equals_its_closed_form_and_the_fit_says_exact():
    # each ordered pair's (advice, friendship) is one of four states on its own: the MLE of
    # edges(advice), edges(friendship), edges(advice&friendship) is their log-odds
    g = lazega_multiplex()
    n = g.number_of_nodes()
    counts = np.zeros((2, 2))
    for i, j in itertools.permutations(g.nodes, 2):
        d = g.get_edge_data(i, j) or {}
        counts[d.get("advice", 0), d.get("friendship", 0)] += 1
    assert counts.sum() == n * (n - 1)
    want = [np.log(counts[1, 0] / counts[0, 0]), np.log(counts[0, 1] / counts[0, 0]),
            np.log(counts[1, 1] * counts[0, 0] / (counts[1, 0] * counts[0, 1]))]
    fit = ef.ERGM(DATASETS["lazega2l"](), EDGES_AND).fit(method="mcmle", random_state=1)
    np.testing.assert_allclose(np.asarray(fit.params, float), want, atol=1e-9)
    # the s.e. of a multinomial's log-odds: sqrt(1/n_a + 1/n_b (+ ...))
    se = [np.sqrt(1 / counts[1, 0] + 1 / counts[0, 0]),
          np.sqrt(1 / counts[0, 1] + 1 / counts[0, 0]),
          np.sqrt((1 / counts).sum())]
    np.testing.assert_allclose(np.asarray(fit.bse, float), se, rtol=1e-9)
    assert fit.method == "mle" and fit.info["exact_mle"] and fit.loglik_kind == "exact"
    assert fit.info["pair_states"]["states"] == 16
    text = str(fit.summary())
    assert "Maximum Likelihood Results:" in text and "Monte Carlo" not in text
    assert "method='mcmle'" in text
    assert any("exact" in w and "node pair" in w for w in fit.warnings)


def _two_layer_network(seed, n=7):
    rng = np.random.default_rng(seed)
    layers = {}
    for name, p in (("a", 0.35), ("b", 0.25)):
        g = nx.DiGraph()
        g.add_nodes_from(range(n))
        g.add_edges_from((i, j) for i in range(n) for j in range(n)
                         if i != j and rng.random() < p)
        layers[name] = g
    return ef.Layer(layers), layers


def test_layered_mutual_model_equals_a_direct_maximisation():
    # L(~edges + mutual, ~a) + L(~edges, ~a&b) + L(~mutual, ~b): each node pair's 16 joint
    # states (a_ij, a_ji, b_ij, b_ji) with their statistics written out here
    net, layers = _two_layer_network(3)
    f = "L(~edges + mutual, ~a) + L(~edges, ~a&b) + L(~mutual, ~b)"
    states = np.array(list(itertools.product((0, 1), repeat=4)))
    aij, aji, bij, bji = states.T
    stats = np.stack([aij + aji, aij * aji, aij * bij + aji * bji, bij * bji], axis=1)
    seen = np.zeros(16)
    n = net.base_network.n
    for i, j in itertools.combinations(range(n), 2):
        x = [layers["a"].has_edge(i, j), layers["a"].has_edge(j, i),
             layers["b"].has_edge(i, j), layers["b"].has_edge(j, i)]
        seen[int(np.dot(x, [8, 4, 2, 1]))] += 1

    def nll(t):
        a = stats @ t
        return -(seen @ a - seen.sum() * np.log(np.exp(a).sum()))
    direct = minimize(nll, np.zeros(4), method="BFGS", options={"gtol": 1e-11}).x
    m = ef.ERGM(net, f)
    fit = m.fit(method="mcmle", random_state=1)
    assert fit.info["exact_mle"]
    np.testing.assert_allclose(np.asarray(fit.params, float), direct, atol=1e-5)
    assert fit.loglik == pytest.approx(-nll(direct), abs=1e-8)
    # the information in closed form: the node pairs are independent draws of one of 16
    # states, so the Hessian of the negative log-likelihood is (pairs) x Cov(statistics) under
    # the states' probabilities at the fit's estimate (second differences of nll carry a
    # rounding error of about 1e-4 relative here, too coarse for this check)
    a = stats @ np.asarray(fit.params, float)
    p = np.exp(a - a.max())
    p /= p.sum()
    mean = p @ stats
    info = seen.sum() * ((stats * p[:, None]).T @ stats - np.outer(mean, mean))
    np.testing.assert_allclose(np.asarray(fit.bse, float),
                               np.sqrt(np.diag(np.linalg.inv(info))), rtol=1e-7)


def test_loglik_equals_full_enumeration_with_fixed_dyads():
    # 3 nodes, 2 directed layers: 12 dyads, 4,096 networks; two dyads fixed by fixedas
    g = {k: nx.DiGraph() for k in "ab"}
    for k in g:
        g[k].add_nodes_from(range(3))
    g["a"].add_edges_from([(0, 1), (1, 0), (2, 0)])
    g["b"].add_edges_from([(0, 1), (1, 2)])
    net = ef.Layer(g)
    f = "L(~edges + mutual, ~a) + L(~edges, ~a&b) + L(~mutual, ~b) + L(~edges, ~b&!a)"
    theta = np.array([-0.3, 0.8, 0.5, -0.6, 0.2])
    fixed = [[("a", 2), ("a", 0)], [("b", 0), ("b", 2)]]     # present, absent
    for cons in (None, ("~ fixedas(present, absent)", {"present": [fixed[0]],
                                                          "absent": [fixed[1]]})):
        m = ef.ERGM(net, f) if cons is None else ef.ERGM(net, f).with_constraints(cons)
        within = np.asarray(m.sample_space.design_vars())
        obs_vars = set(dyad_vars(net.n, True, net.ties).tolist())
        fixed_on = sorted(obs_vars - set(within.tolist()))
        assert len(within) == (12 if cons is None else 10)
        logs, obs = [], None
        for bits in itertools.product((0, 1), repeat=len(within)):
            on = [v for v, b in zip(within, bits) if b] + fixed_on
            ties = var_pairs(net.n, True, np.array(sorted(on), dtype=np.int64))
            s = m.statistics_vector(ties)
            logs.append(s @ theta)
            if set(on) == obs_vars:
                obs = s @ theta
        want = obs - np.logaddexp.reduce(logs)
        assert pair_state_loglik(m, theta) == pytest.approx(want, abs=1e-9)


@pytest.mark.slow
def test_exact_mle_equals_the_mcmc_mle_within_its_error():
    # the same model by MCMC (force_main, statnet's force.main): within 4 Monte Carlo s.e.
    m = ef.ERGM(DATASETS["samplk3w"](), "N(~edges + mutual, lm=~wave)")
    exact = m.fit(method="mcmle")
    assert exact.info["exact_mle"]
    runs = [m.fit(method="mcmle", random_state=s, force_main=True, eval_loglik=False)
            for s in (1, 2)]
    assert all(r.method == "mcmle" and r.info["history"] for r in runs)
    est = np.mean([np.asarray(r.params, float) for r in runs], axis=0)
    mc = np.sqrt(np.mean([np.diag(r.cov_mc) for r in runs], axis=0) / len(runs))
    se = np.asarray(exact.bse, float)
    assert np.all(np.abs(est - np.asarray(exact.params, float)) <= np.maximum(4 * mc, 0.05 * se))
    np.testing.assert_allclose(np.mean([np.asarray(r.bse, float) for r in runs], axis=0), se,
                               rtol=0.15)


@pytest.mark.parametrize("model", ["m.fit.lazega2l_edges_and", "m.fit.lazega2l_mutual"])
def test_exact_mle_within_a_tenth_of_statnets_mean(model):
    cases = [c for c in FITS if c["model"] == model and c["estimate"] == "MLE"]
    labels = cases[0]["coef_names"]
    ref = np.mean([[c["coef"][k] for k in labels] for c in cases], axis=0)
    ref_se = np.mean([[c["se"][k] for k in labels] for c in cases], axis=0)
    m = ef.ERGM(DATASETS["lazega2l"](), cases[0]["formula"].split("~", 1)[1].strip())
    fit = m.fit(method="mcmle", random_state=1)
    assert fit.info["exact_mle"]
    assert np.all(np.abs(np.asarray(fit.params, float) - ref) <= 0.1 * ref_se)
    assert np.all(np.abs(np.asarray(fit.bse, float) / ref_se - 1) <= 0.15)


def test_not_pair_independent_or_forced_runs_the_mcmc():
    m = ef.ERGM(DATASETS["samplk3w"](), "N(~edges + mutual + transitiveties)")
    assert not m.pair_independent
    m2 = ef.ERGM(DATASETS["samplk3w"](), "N(~edges + mutual)")
    with pytest.warns(ConvergenceWarning):
        fit = m2.fit(method="mcmle", random_state=1, force_main=True, eval_loglik=False,
                     maxit=1, samplesize=64)
    assert fit.method == "mcmle" and not fit.info.get("exact_mle")
    assert m2.fit(method="mcmle", **{"force.main": False}).info["exact_mle"]
