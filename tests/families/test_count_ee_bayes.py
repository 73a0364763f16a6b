"""Equilibrium Expectation and the Bayesian exchange algorithm on count-valued models
(#33 item 1): the estimators run the family's state, proposals and sampler through the
model's sample space and the family interface, with no branch on the family's name.

Tolerances come from the Monte Carlo error: EE's seed-to-seed sd on samptot is 0.03 of
the MLE's standard error (fast settings, 6 seeds) and 0.05 (defaults; with the mutual term
both 0.03-0.05); the exchange
algorithm's posterior moments are checked against the posterior computed by exact
enumeration, within 4 of its own Monte Carlo standard errors."""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from conftest import load_reference
from ergmfit.exceptions import SettingsError
from support.valued_networks import samptot

# a fast EE run (1.2 CPU s on samptot)
FAST_EE = dict(ee_steps=40, se_samplesize=300, polish=False)


def _samptot(formula, reference="Poisson"):
    return ef.ERGM(samptot(), formula, response="nominations", reference=reference)


def test_count_batch_sums_add_up_to_the_change_of_the_statistics():
    # run_batch's "add" and "delete" sums follow the binary convention (a delete's row
    # is the change of the reverse move), so add - delete is g(y_t) - g(y_0): what EE
    # accumulates.  Before: a decrease's row entered "delete" with its own sign.
    m = _samptot('sum + nonzero + mutual(form="min") + transitiveweights("min","max","min")',
                 "Binomial(3)")
    s, _ = m.sampler(np.array([0.2, -1.0, 0.5, 0.1]), random_state=3)
    add, dele = s.run_batch(np.array([0.2, -1.0, 0.5, 0.1]), 5000)
    assert np.all(dele >= 0) and dele[0] > 0            # sum drops by 1..3 in a decrease
    assert np.allclose(add - dele, np.asarray(s.delta), atol=1e-9)


def test_ee_on_a_dyad_independent_count_model_is_the_exact_mle():
    # dyad-independent: the count MPLE is the exact MLE (a Poisson GLM)
    m = _samptot("sum + nonzero")
    mle = m.fit("mple")
    b, se = np.asarray(mle.params, dtype=float), np.asarray(mle.bse, dtype=float)
    for seed in (0,):
        fit = m.fit("ee", random_state=seed, **FAST_EE)
        assert fit.method == "ee" and fit.converged
        z = (np.asarray(fit.params, dtype=float) - b) / se
        assert np.all(np.abs(z) < 0.25), z
        assert np.all(np.abs(np.asarray(fit.bse, dtype=float) / se - 1) < 0.15)


@pytest.mark.slow
def test_ee_matches_ergm_count_on_samptot():
    # statnet's fits of the reference model (ergm.count 4.1.1), averaged over its seeds:
    # EE's mean over 3 seeds within 0.1 statnet s.e., its s.e. within 15 %.  The fast
    # settings' fits (1.1 CPU s each, the defaults' 5.5) have the defaults' spread on this
    # model: over seeds 1-6, sd (0.033, 0.035, 0.046) statnet s.e. (defaults: 0.035, 0.026,
    # 0.045), mean (0.080, -0.047, -0.068) (defaults: 0.073, -0.045, -0.063)
    cases = [c for c in load_reference("statnet_valued_fits.json")["cases"]
             if c.get("model") == "v.fit.samptot_pois_mutual" and c.get("status") == "ok"]
    m = _samptot('sum + nonzero + mutual(form="min")')
    labels = m.labels
    want = np.mean([[c["coef"][k] for k in labels] for c in cases], axis=0)
    se_want = np.mean([[c["se"][k] for k in labels] for c in cases], axis=0)
    fits = [m.fit("ee", random_state=s, **FAST_EE) for s in (1, 2, 3)]
    got = np.mean([np.asarray(f.params, dtype=float) for f in fits], axis=0)
    se = np.mean([np.asarray(f.bse, dtype=float) for f in fits], axis=0)
    assert np.all(np.abs(got - want) < 0.1 * se_want), (got - want) / se_want
    assert np.all(np.abs(se / se_want - 1) < 0.15), se / se_want


def test_ee_refuses_ifd_on_counts():
    m = _samptot("sum + nonzero")
    with pytest.raises(SettingsError, match="binary ties.*count family"):
        m.fit("ee", proposal="ifd")


def test_ee_checkpoint_of_a_count_chain_resumes_its_values(tmp_path):
    m = _samptot("sum + nonzero")
    fit = m.fit("ee", random_state=4, checkpoint=str(tmp_path / "ck"), ee_steps=10,
                se_samplesize=100, polish=False)
    back = m.fit("ee", resume=str(tmp_path / "ck"))
    assert np.allclose(np.asarray(back.params), np.asarray(fit.params), atol=1e-12)
    saved = np.load(tmp_path / "ck" / "chain_0.npz")
    assert "x_values" in saved.files and saved["x_values"].min() >= 1


def test_count_family_state_round_trip():
    m = _samptot("sum + nonzero", "Binomial(3)")
    cm = m.compiled()
    saved = m.family.state_arrays(cm)
    before = m.statistics_vector()
    def as_dict(arrays):
        return dict(zip(arrays["x_on"].tolist(), arrays["x_values"].tolist()))

    s, cm2 = m.sampler(np.array([0.0, 0.0]), random_state=1)
    s.run(np.array([0.3, 0.2]), 20000)
    assert as_dict(m.family.state_arrays(cm2)) != as_dict(saved)
    m.family.restore_state(cm2, saved)
    assert as_dict(m.family.state_arrays(cm2)) == as_dict(saved)
    assert np.allclose(m.statistics_vector(*cm2.state.nonzero()), before)


# -- Bayes -------------------------------------------------------------------------
def _tiny():
    """3 nodes, directed, Binomial(2): 3^6 = 729 networks."""
    obs = {(0, 1): 2, (1, 0): 1, (1, 2): 0, (2, 1): 1, (0, 2): 2, (2, 0): 1}
    g = nx.DiGraph()
    g.add_nodes_from(range(3))
    g.add_edges_from((i, j, {"w": y}) for (i, j), y in obs.items() if y)
    return g, list(obs)


def _exact_posterior(gobs, dyads, prior_sd):
    """Posterior mean and sd of sum + mutual(min) under Binomial(2) with a N(0, sd^2 I)
    prior: Z(theta) by enumerating the 729 networks, the moments on a grid."""
    pair = {d: k for k, d in enumerate(dyads)}
    S, logh = [], []
    for ys in itertools.product(range(3), repeat=len(dyads)):
        mut = sum(min(ys[pair[(i, j)]], ys[pair[(j, i)]]) for (i, j) in dyads if i < j)
        S.append((sum(ys), mut))
        logh.append(sum(np.log((1.0, 2.0, 1.0)[y]) for y in ys))
    # the networks grouped by their statistics: log of the summed h per distinct row
    S, inverse = np.unique(np.array(S, dtype=float), axis=0, return_inverse=True)
    h = np.zeros(len(S))
    np.add.at(h, inverse.ravel(), np.exp(logh))
    logh = np.log(h)
    a = np.linspace(-5, 5, 301)
    th = np.stack([g.ravel() for g in np.meshgrid(a, a, indexing="ij")], axis=1)
    e = th @ S.T + logh
    top = e.max(axis=1, keepdims=True)
    log_z = top[:, 0] + np.log(np.exp(e - top).sum(axis=1))
    lp = th @ gobs - log_z - 0.5 * (th ** 2).sum(axis=1) / prior_sd ** 2
    w = np.exp(lp - lp.max())
    w /= w.sum()
    mean = w @ th
    return mean, np.sqrt(w @ (th - mean) ** 2)


def test_exchange_posterior_equals_exact_enumeration_on_a_tiny_count_network():
    g, dyads = _tiny()
    m = ef.ERGM(g, 'sum + mutual(form="min")', response="w", reference="Binomial(2)")
    gobs = np.asarray(m.statistics_vector(), dtype=float)
    assert np.array_equal(gobs, [7.0, 2.0])
    mean, sd = _exact_posterior(gobs, dyads, 1.0)
    fit = m.fit("bayes", random_state=0, prior_sigma=1.0, main_iters=1000)
    draws = fit.draws
    mcse, ess = np.asarray(fit.mcse, dtype=float), np.asarray(fit.ess, dtype=float)
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 4 * mcse), (draws.mean(axis=0), mean,
                                                                   mcse)
    # the sd's relative Monte Carlo error is about 1 / sqrt(2 ess)
    assert np.all(np.abs(draws.std(axis=0) / sd - 1) < 4 / np.sqrt(2 * ess)), (
        draws.std(axis=0), sd)


def test_exchange_refuses_the_logistic_first_stage_on_counts():
    g, _ = _tiny()
    m = ef.ERGM(g, 'sum + mutual(form="min")', response="w", reference="Binomial(2)")
    with pytest.raises(SettingsError, match="logistic pseudo-likelihood"):
        m.fit("bayes", delayed=True)
