"""Blocked CD under degree bounds (``bd``, #18): the compiled block kernel
(sampling._blocks.DegreeBounded) gives probability 0 to the configurations of
a block that put a degree outside its bounds, so the blocked Gibbs sampler is
exact on the constrained space and never leaves it, and BCD with one block of
every dyad converges to the constrained MLE (checked against enumerating the
768 graphs of the 5-node bd(maxout=3) space).  Without bounds the kernel's
arithmetic and random numbers are those of plain Enumeration."""
import warnings

import networkx as nx
import numpy as np
import pytest
from scipy import optimize, special, stats

import ergmfit as ef
from ergmfit.estimation.contrastive.blocks import bounded_kernel
from ergmfit.exceptions import FormulaError, NetworkError, SettingsError
from ergmfit.sampling._blocks import BlockGibbsSampler, Enumeration, UniformBlocks
from ergmfit.sampling._bounded import DegreeBounded
from ergmfit.sampling.space import var_pairs
from ergmfit.utils.validation import seed_words
from support.constrained_spaces import assert_masks_match_space


def _five():
    g = nx.Graph()
    g.add_nodes_from(range(5))
    g.add_edges_from([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (1, 3)])
    return g


def _space(m):
    """{bit mask of the on variables: statistics} over the constrained space."""
    M = m.compiled().n_vars
    out = {}
    for bits in range(1 << M):
        ties = var_pairs(m.network.n, m.network.directed,
                         np.array([v for v in range(M) if bits >> v & 1], np.int64))
        try:
            m.sample_space.check(ties)
        except NetworkError:
            continue
        out[bits] = m.statistics_vector(ties)
    return out


@pytest.fixture(scope="module")
def five():
    m = ef.ERGM(_five(), "edges + triangle", constraints="~ bd(maxout=3)")
    space = _space(m)
    S, g_obs = np.array(list(space.values())), m.statistics_vector()
    mle = optimize.minimize(lambda th: -(th @ g_obs - special.logsumexp(S @ th)), np.zeros(2),
                            method="BFGS", options={"gtol": 1e-10}).x
    return m, space, mle


def test_bounded_gibbs_is_exact_and_stays_in_the_space(five):
    m, space, mle = five
    assert len(space) == 768
    keys = list(space)
    lw = np.array([space[k] @ mle for k in keys])
    p = np.exp(lw - special.logsumexp(lw))
    bm = m.compiled()
    s = BlockGibbsSampler(bm, UniformBlocks(bm.n_vars, 3), bounded_kernel(m, 3), seed_words(4))
    N = 12000
    counts = dict.fromkeys(keys, 0)
    for _ in range(N):
        s.run(mle, 40)
        bits = int(sum(1 << int(v) for v in bm.on_vars()))
        assert bits in counts, "the sampler left the constrained space"
        counts[bits] += 1
    assert stats.chisquare(np.array([counts[k] for k in keys]), p * N).pvalue > 1e-3


@pytest.mark.parametrize("directed,cons", [
    (False, "~ bd(maxout=3, minout=1)"),
    (True, "~ bd(maxout=2, minout=1, maxin=2, minin=1)"),
    (True, "~ bd(maxout=2) + blockdiag('b')"),
    (False, "~ bd(attribs='b', maxout=2) + bd(maxout=4)"),
    (True, "~ bd(attribs='b', maxin=2, maxout=2)"),
])
def test_property_no_block_update_leaves_the_bounds(directed, cons):
    rng = np.random.default_rng(7)
    for rep in range(4):
        n = 7
        for _ in range(5000):      # a random network inside the bounds
            g = nx.gnp_random_graph(n, 0.35, seed=int(rng.integers(1 << 30)), directed=directed)
            for i in g:
                g.nodes[i]["b"] = i % 2
            try:
                m = ef.ERGM(g, "edges + mutual" if directed else "edges + triangle",
                            constraints=cons)
                break
            except (NetworkError, FormulaError):
                continue
        else:
            raise AssertionError("no random network inside the bounds")
        bm = m.compiled()
        free = m.sample_space.free_vars()
        k = 4
        s = BlockGibbsSampler(bm, UniformBlocks(bm.n_vars, k, None if free is None else
                                                np.sort(np.asarray(free, np.int64))),
                              bounded_kernel(m, k), seed_words(rep))
        theta = rng.normal(0, 1.5, 2)
        for _ in range(300):
            s.run(theta, 1)
            m.sample_space.check(var_pairs(n, directed, np.asarray(bm.on_vars(), np.int64)))


@pytest.mark.slow
def test_bcd_under_bd_converges_to_the_constrained_mle(five):
    m, space, mle = five
    M = m.compiled().n_vars
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = np.array([m.fit(method="bcd", block_size=M, n_iter=8000, random_state=s).params
                        for s in (1, 5)])
        plain = ef.ERGM(_five(), "edges + triangle").fit(method="bcd", block_size=M,
                                                         n_iter=4000, random_state=1)
    # seeds 1-5 at 8,000 iterations: at most 0.037 off (0.003 at 100,000); exact s.e. 1.28, 1.06
    assert np.max(np.abs(est - mle)) < 0.06, (est, mle)
    # the bounds matter: the unconstrained fit is far from the constrained MLE
    assert np.max(np.abs(np.asarray(plain.params) - mle)) > 0.5


def test_bcd_under_bd_rao_blackwell_godambe_and_settings(five):
    m, space, mle = five
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = m.fit(method="bcd", block_size=3, rao_blackwell=True, n_iter=3000, cov="godambe",
                  n_sim=200, random_state=2)
    assert np.all(np.isfinite(np.asarray(f.params)))
    assert np.all(np.isfinite(np.sqrt(np.diag(f.cov))))
    with pytest.raises(SettingsError, match="kernel= cannot be used"):
        m.fit(method="bcd", kernel=Enumeration(3), random_state=1)
    with pytest.raises(FormulaError, match="point mass"):
        ef.ERGM(_five(), "edges", constraints="~ degrees").fit(method="bcd", random_state=1)


ATTRIBS = np.array([[1, 0], [0, 0], [1, 0], [0, 1], [1, 1]], dtype=bool)


@pytest.mark.parametrize("directed,cons", [
    (False, "~ bd(attribs='s', maxout=2, minout=0)"),
    (False, ("~ bd(attribs=A, maxout=M) + bd(maxout=3)",
             {"A": ATTRIBS, "M": [[2, 1], [2, 1], [1, 2], [2, 1], [1, 1]]})),
    (True, ("~ bd(attribs=A, maxout=2, maxin=1)", {"A": np.array([[1], [0], [1], [1], [0]])})),
])
def test_feasible_configurations_under_bd_attribs_are_those_inside(directed, cons):
    """bd(attribs=): bounds on each node's ties to (from) each class of alters."""
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(5))
    g.add_edges_from([(0, 1), (1, 2), (2, 3), (3, 4), (0, 2)]
                     + ([(4, 0), (1, 0)] if directed else []))
    for i in g:
        g.nodes[i]["s"] = "m" if i in (0, 3) else "f"
    m = ef.ERGM(g, "edges + triangle" if not directed else "edges + mutual", constraints=cons)
    assert_masks_match_space(m, k=4, n_blocks=40, seed=1)
    fit = m.fit(method="bcd", block_size=3, n_iter=500, random_state=1)
    assert np.all(np.isfinite(np.asarray(fit.params)))


def test_masked_kernel_with_wide_bounds_is_plain_enumeration():
    """The masked path draws the same random numbers and does the same
    arithmetic as Enumeration: with bounds that never bind, a fixed-seed BCD
    fit is bit-identical."""
    g = nx.Graph(nx.karate_club_graph().edges())
    m = ef.ERGM(g, "edges + triangle")
    n = g.number_of_nodes()
    wide = DegreeBounded(3, np.zeros(n), np.full(n, n), np.zeros(n), np.full(n, n), False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = m.fit(method="bcd", block_size=3, n_iter=3000, rao_blackwell=True, random_state=9)
        b = m.fit(method="bcd", block_size=3, n_iter=3000, rao_blackwell=True, random_state=9,
                  kernel=wide)
    assert np.array_equal(np.asarray(a.params), np.asarray(b.params))


def test_bd_attribs_whole_block_mcle_and_bcd_reach_the_constrained_mle():
    """bd(attribs='s', maxout=2) on the 5-node graph: 784 of 1024 graphs."""
    g = _five()
    for i in g:
        g.nodes[i]["s"] = "m" if i in (0, 4) else "f"
    m = ef.ERGM(g, "edges + triangle", constraints="~ bd(attribs='s', maxout=2)")
    S, g_obs = np.array(list(_space(m).values())), m.statistics_vector()
    assert len(S) == 784
    mle = optimize.minimize(lambda th: -(th @ g_obs - special.logsumexp(S @ th)), np.zeros(2),
                            method="BFGS", options={"gtol": 1e-10}).x
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = m.fit(method="mcle", blocks=[list(range(10))], block_size=10, cov="none")
        bcd = m.fit(method="bcd", block_size=10, n_iter=8000, random_state=2)
    np.testing.assert_allclose(np.asarray(whole.params), mle, atol=1e-6)
    # seeds 1-3 at 20,000 iterations: within 0.015
    assert np.max(np.abs(np.asarray(bcd.params) - mle)) < 0.06
