"""Count models on two-mode networks: only the dyads between the modes vary (statnet's
bipartite networks have no within-mode dyads), in every proposal, the count MPLE's design,
the estimators that run chains, and the valued gof's value distribution.

Before the fix, the count family's sample space and compiled state ignored the modes: a
3 + 4 node model's ``nonzero`` reached 21 (every node pair) in simulation when only 12
dyads exist, and the MPLE counted 21 dyads."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.sampling._proposals import CountRowResample, CountStrength
from ergmfit.utils.validation import seed_words
from families.test_count_proposals import batch_check
from support.enumeration import count_moments

PROPOSALS = ["tnt", "random", "0inflated", "gibbs", "strength", "row"]


def two_mode(n1, n2, edges):
    g = nx.Graph()
    g.add_nodes_from(range(n1), bipartite=0)
    g.add_nodes_from(range(n1, n1 + n2), bipartite=1)
    for i, j, w in edges:
        g.add_edge(i, j, w=w)
    return g


def between(n1, n2):
    return [(i, j) for i in range(n1) for j in range(n1, n1 + n2)]


@pytest.mark.parametrize("reference", ["Poisson", "Binomial(3)"])
@pytest.mark.parametrize("proposal", PROPOSALS)
def test_simulated_values_stay_between_the_modes(proposal, reference):
    g = two_mode(3, 4, [(0, 3, 2), (1, 4, 1), (2, 6, 3)])
    m = ef.ERGM(g, "sum + nonzero", response="w", reference=reference)
    assert m.sample_space.n_free == 12
    S = m.simulate([1.0, 2.0], n=100, burnin=2000, interval=50, output="stats",
                   proposal=proposal, random_state=5)
    assert S[:, 1].max() <= 12 and S[:, 1].max() == 12     # every allowed dyad, none more
    for h in m.simulate([1.0, 2.0], n=5, burnin=2000, interval=50, proposal=proposal,
                        random_state=6):
        modes = nx.get_node_attributes(h, "bipartite")
        assert all(modes[u] != modes[v] for u, v in h.edges())


CASES = [
    # dependent terms (a node's dyads interact): the group moves draw their groups' free dyads
    ("Binomial(2)", "sum + nonzero + nodecovar(center=FALSE, transform='sqrt')", [-0.3, 0.4, 0.5]),
    ("Poisson", "sum + nonzero", [-0.4, 0.5]),
]


@pytest.mark.parametrize("reference, formula, theta", CASES, ids=["binomial-nodecovar", "poisson"])
@pytest.mark.parametrize("proposal", ["tnt", "random", "0inflated", "gibbs", "strength", "row"])
def test_two_mode_moments_equal_enumeration_over_the_allowed_dyads(reference, formula, theta,
                                                                   proposal):
    n1, n2 = 2, 3                                        # 6 dyads between the modes
    m = ef.ERGM(two_mode(n1, n2, [(0, 2, 1)]), formula, response="w", reference=reference)
    theta = np.array(theta)
    # Binomial(2): every state of the 6 dyads (3^6); Poisson: the i.i.d. dyads' exact law
    mean, second = count_moments(m, theta, between(n1, n2), 2) if reference != "Poisson" \
        else _poisson_sum_nonzero(theta, n1 * n2)
    prop = {"strength": CountStrength(share=0.7, size=1),
            "row": CountRowResample(share=0.5, tilt=2.0)}.get(proposal) \
        or m.family.make_proposal(proposal)
    sampler = m.family.make_sampler(m.compiled(), prop, seed_words(97))
    S = m.statistics_vector() + sampler.sample(theta, 20000, 20000, 10)
    batch_check(S, mean, second)


def _poisson_sum_nonzero(theta, D):
    """E[(sum, nonzero)] and second moments of D i.i.d. dyads with law h(y) e^(a y + b 1[y>0])
    (Poisson h): exact, the dyads independent."""
    from scipy.special import gammaln
    y = np.arange(200)
    lw = -gammaln(y + 1) + theta[0] * y + theta[1] * (y > 0)
    p = np.exp(lw - lw.max())
    p /= p.sum()
    f = np.stack([y, (y > 0) * 1.0], 1)
    m1 = p @ f
    c1 = (f * p[:, None]).T @ f - np.outer(m1, m1)
    mean = D * m1
    return mean, D * c1 + np.outer(mean, mean)


def test_two_mode_mple_is_the_mle_over_the_allowed_dyads():
    # sum + nonzero under Poisson: dyad-independent, the MLE in closed form over the 12
    # dyads between the modes: P(y > 0) = 3/12, E[y | y > 0] = lam / (1 - e^-lam) = 2
    from scipy.optimize import brentq
    g = two_mode(3, 4, [(0, 3, 2), (1, 4, 1), (2, 6, 3)])
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="Poisson")
    lam = brentq(lambda x: x / (1 - np.exp(-x)) - 2.0, 0.1, 5.0)
    b = np.log((3 / 9) / np.expm1(lam))
    fit = m.fit("mple")
    assert fit.info["design"]["n_vars"] == 12
    assert np.allclose(fit.params, [np.log(lam), b], atol=1e-8)
    # a case-control sample draws its zero dyads between the modes only
    cc = m.fit("mple", sample_size=4, random_state=3)
    assert cc.info["design"]["n_vars"] == 12
    mc = m.fit("mcmle", random_state=1)
    assert np.allclose(mc.params, [np.log(lam), b], atol=0.1)


def test_two_mode_gof_counts_the_zeros_between_the_modes():
    g = two_mode(3, 4, [(0, 3, 2), (1, 4, 1), (2, 6, 3)])
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="Poisson")
    res = m.gof([0.4, -2.4], n_sim=5, statistics=["value"], random_state=1)
    block = res.blocks["value"]
    assert block.obs[0] == 12 - 3 and block.obs.sum() == 12
    assert np.all(block.sim.sum(axis=1) == 12)          # each simulated network's 12 dyads


@pytest.mark.parametrize("method", ["cd", pytest.param("ee", marks=pytest.mark.slow),
                                    pytest.param("bayes", marks=pytest.mark.slow), "sa"])
def test_chain_estimators_fit_the_two_mode_dyads_only(method):
    # sum + nonzero under Poisson, 4 + 6 nodes: the MLE over the 24 dyads between the modes
    # in closed form; every dyad pair of the 10 nodes (45) put nonzero's coefficient about
    # 1.0 too low (1.6 s.e.) in each of these estimators; now within 0.13 (seeds 1-3)
    from scipy.optimize import brentq
    from families.test_count_ee_bayes import FAST_EE
    rng = np.random.default_rng(1)
    edges = [(i, j, int(rng.integers(1, 4))) for i in range(4) for j in range(4, 10)
             if rng.random() < 0.5]
    m = ef.ERGM(two_mode(4, 6, edges), "sum + nonzero", response="w", reference="Poisson")
    L, S = len(edges), sum(w for *_, w in edges)
    lam = brentq(lambda x: x / (1 - np.exp(-x)) - S / L, 1e-6, 20)
    exact = np.array([np.log(lam), np.log((L / (24 - L)) / np.expm1(lam))])
    fit = m.fit(method, random_state=1, **(FAST_EE if method == "ee" else {}))
    assert np.all(np.abs(np.asarray(fit.params, dtype=float) - exact) < 0.4), fit.params


def test_a_start_with_a_within_mode_value_is_refused():
    m = ef.ERGM(two_mode(2, 3, [(0, 2, 1)]), "sum", response="w")
    with pytest.raises(ValueError, match=r"the dyad \(0, 1\) has a value but lies outside the "
                                         r"model's sample space \(two-mode\)"):
        m.sampler([0.0], start=(np.array([[0, 1]]), np.array([2])))
    assert m.compiled().n_free_vars() == 6


@pytest.mark.parametrize("method", ["cd", "sa"])
def test_chain_estimators_report_the_count_null_over_the_two_mode_dyads(method):
    # the null deviance of a count fit is that of the reference measure over the 12 dyads
    # between the modes: Σ log h(y) - 12 log Σ_k h(k) (Poisson: Σ -log y! - 12); cd and sa
    # reported the binary -12 log 2 (and ee: the same code, checked by hand, 1 CPU s)
    from scipy.special import gammaln
    g = two_mode(3, 4, [(0, 3, 2), (1, 4, 1), (2, 6, 3)])
    m = ef.ERGM(g, "nonzero + sum", response="w", reference="Poisson")
    direct = -float(gammaln(3) + gammaln(2) + gammaln(4)) - 12.0
    assert m.null_loglik() == pytest.approx(direct, abs=1e-12)
    fit = m.fit(method, random_state=1)
    assert fit.nobs == 12
    assert fit.null_loglik == pytest.approx(direct, abs=1e-12)
    assert fit.null_deviance == pytest.approx(-2 * direct, abs=1e-12)


def test_exact_fits_count_aic_bic_over_the_two_mode_dyads():
    # the MPLE (= MLE: dyad-independent) and the MCMC-MLE's exact path: loglik, AIC and BIC
    # over the 12 dyads between the modes, from the closed-form MLE written here
    from scipy.optimize import brentq
    from scipy.special import gammaln
    g = two_mode(3, 4, [(0, 3, 2), (1, 4, 1), (2, 6, 3)])
    m = ef.ERGM(g, "sum + nonzero", response="w", reference="Poisson")
    lam = brentq(lambda x: x / (1 - np.exp(-x)) - 2.0, 0.1, 5.0)
    a, b = np.log(lam), np.log((3 / 9) / np.expm1(lam))
    log_z = np.log(1 + np.exp(b) * np.expm1(np.exp(a)))        # Σ_y e^(a y + b[y>0]) / y!
    loglik = a * 6 + b * 3 - float(gammaln(3) + gammaln(2) + gammaln(4)) - 12 * log_z
    for fit in (m.fit("mple"), m.fit("mcmle", random_state=1)):
        assert fit.nobs == 12
        assert fit.loglik == pytest.approx(loglik, abs=1e-7)
        assert fit.aic == pytest.approx(-2 * loglik + 4, abs=1e-6)
        assert fit.bic == pytest.approx(-2 * loglik + 2 * np.log(12), abs=1e-6)


def test_a_reference_without_zero_needs_values_between_the_modes_only():
    # DiscUnif(1, 3) excludes 0: every dyad that may vary needs a value, the 6 between the
    # modes of a 2 + 3 node network, not its 10 node pairs (main: a NetworkError, "4 dyad(s)
    # have no edge")
    g = two_mode(2, 3, [(i, j, 1 + (i + j) % 3) for i in range(2) for j in range(2, 5)])
    m = ef.ERGM(g, "sum", response="w", reference="DiscUnif(1, 3)")
    fit = m.fit("mple")
    assert fit.info["design"]["n_vars"] == 6 and fit.nobs == 6
    assert np.allclose(fit.params, [0.0], atol=1e-8)        # mean value 2: the uniform law
    assert fit.null_loglik == pytest.approx(-6 * np.log(3), abs=1e-12)
