"""The Metropolis-Hastings engine against exact expectations on graphs small enough to enumerate."""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from support.interrupts import sigint_soon


def exact_mean(model, theta):
    """E_theta[g(X)] by enumerating every graph on the model's nodes."""
    net = model.network
    n = net.n
    dyads = (list(itertools.permutations(range(n), 2)) if net.directed
             else list(itertools.combinations(range(n), 2)))
    stats = []
    for bits in itertools.product((0, 1), repeat=len(dyads)):
        ties = np.array([d for d, b in zip(dyads, bits) if b], dtype=np.int64).reshape(-1, 2)
        stats.append(model.statistics_vector(ties))
    G = np.array(stats)
    w = G @ theta
    w = np.exp(w - w.max())
    w /= w.sum()
    mean = w @ G
    sd = np.sqrt(w @ (G - mean) ** 2)
    return mean, sd


CASES = [
    (nx.empty_graph(5), "edges + kstar(2) + triangle", [-0.5, 0.1, 0.3]),
    (nx.empty_graph(5), "edges + gwesp(0.5, fixed=TRUE) + isolates", [-0.3, 0.4, 0.5]),
    (nx.empty_graph(4, create_using=nx.DiGraph), "edges + mutual + ttriple", [-0.4, 1.0, 0.2]),
]


@pytest.mark.parametrize("proposal", ["tnt", "triadic", "random", "lifted-tnt", "lifted-triadic"])
@pytest.mark.parametrize("g, formula, theta", CASES)
def test_simulated_means_match_enumeration(g, formula, theta, proposal):
    m = ef.ERGM(g, formula)
    theta = np.array(theta)
    mean, sd = exact_mean(m, theta)
    n = 4000
    S = m.simulate(theta, n=n, burnin=2000, interval=30, output="stats", proposal=proposal,
                   random_state=11)
    # draws 30 proposals apart on <= 12 dyads are nearly independent; allow 5 standard errors
    # with a generous effective-sample-size discount
    se = sd / np.sqrt(n / 4)
    assert np.all(np.abs(S.mean(axis=0) - mean) < 5 * se + 1e-9), (S.mean(axis=0), mean, se)


def test_same_seed_same_draws():
    m = ef.ERGM(nx.empty_graph(8), "edges + triangle")
    a = m.simulate([-1, 0.2], n=20, burnin=100, interval=10, output="stats", random_state=5)
    b = m.simulate([-1, 0.2], n=20, burnin=100, interval=10, output="stats", random_state=5)
    c = m.simulate([-1, 0.2], n=20, burnin=100, interval=10, output="stats", random_state=6)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_tracked_statistics_equal_recomputed():
    g = ef.datasets.load("lazega")
    m = ef.ERGM(g, "edges + kstar(2) + triangle + nodematch('practice')")
    sims = m.simulate([-3, 0.05, 0.5, 0.3], n=5, burnin=500, interval=500, output="networks",
                      random_state=2)
    S = m.simulate([-3, 0.05, 0.5, 0.3], n=5, burnin=500, interval=500, output="stats",
                   random_state=2)
    for net, row in zip(sims, S):
        assert np.allclose(m.statistics_vector(net.ties), row)


def test_simulated_graphs_keep_nodes_and_attributes():
    g = ef.datasets.load("flomarriage")
    before = nx.to_dict_of_dicts(g)
    sims = ef.ERGM(g, "edges").simulate([-1.5], n=3, random_state=1)
    assert nx.to_dict_of_dicts(g) == before          # the caller's graph is untouched
    for s in sims:
        assert list(s.nodes) == list(g.nodes)
        assert s.nodes[1] == g.nodes[1]


def test_bad_simulate_arguments():
    m = ef.ERGM(nx.empty_graph(4), "edges")
    with pytest.raises(ValueError, match="1 value"):
        m.simulate([1, 2])
    with pytest.raises(ValueError, match="output"):
        m.simulate([0], output="bogus")
    with pytest.raises(ValueError, match="proposal"):
        m.simulate([0], proposal="bogus")
    with pytest.raises(ValueError, match="non-finite"):
        m.simulate([np.nan])


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.6])
@pytest.mark.parametrize("g, formula, theta", [
    (nx.empty_graph(5), "edges + gwesp(0.5, fixed=TRUE) + kstar(2)", [-0.8, 0.5, 0.1]),
    (nx.empty_graph(4, create_using=nx.DiGraph), "edges + mutual + gwesp(0.5, fixed=TRUE)",
     [-1.0, 0.8, 0.5]),
])
def test_lifted_proposal_is_exact(g, formula, theta, alpha):
    # the lifted chain is not reversible: only its Hastings ratio (q_down / q_up,
    # with the triadic share of the "up" moves) keeps the model invariant; a long
    # run must reproduce the enumerated means to within a few standard errors
    from ergmfit.sampling import LiftedTriadicTNT, MHSampler
    from ergmfit.utils.validation import seed_words
    m = ef.ERGM(g, formula)
    theta = np.array(theta)
    mean, sd = exact_mean(m, theta)
    s = MHSampler(m.compiled(np.zeros((0, 2), dtype=np.int64)), LiftedTriadicTNT(alpha),
                  seed_words(7))
    n = 100_000
    S = np.asarray(s.sample(theta, n, 1000, 10)) + m.statistics_vector(np.zeros((0, 2)))
    se = sd / np.sqrt(n / 4)
    assert np.all(np.abs(S.mean(axis=0) - mean) < 5 * se), ((S.mean(axis=0) - mean) / se)


def test_lifted_proposal_rejects_alpha_one():
    from ergmfit.sampling import LiftedTriadicTNT
    with pytest.raises(ValueError, match="alpha"):
        LiftedTriadicTNT(1.0)


def test_a_statistic_that_changes_once_has_a_tiny_effective_size():
    from ergmfit.sampling.chains import effective_sizes, integrated_autocorrelation_time
    rng = np.random.default_rng(5)
    n = 1000
    fast = rng.standard_normal(n)
    for k in (1, 3, 500):                   # one change: the last k draws differ
        step = np.zeros(n)
        step[n - k:] = 1.0
        ess = effective_sizes([np.column_stack([step, fast])])
        assert ess[0] == 2.0 and ess[1] > 0.5 * n        # (Geyer's alone: n / k)
        assert effective_sizes([step[::-1, None]])[0] == 2.0       # or the first k
    drift = np.repeat(np.arange(10.0), 100)          # ten runs, never back: at most ten
    assert effective_sizes([drift[:, None]])[0] <= 10
    # a value left and come back to is mixing: a rare spike or rare iid events keep Geyer's
    spike = np.zeros(n)
    spike[500] = 1.0
    rare = (rng.random(n) < 0.01).astype(float)
    for x in (spike, rare):
        assert effective_sizes([x[:, None]])[0] == n / integrated_autocorrelation_time(x) > 800
    # chains are summed: a stuck chain adds its two runs, a constant one its length
    two = effective_sizes([np.column_stack([step, fast]), np.ones((n, 2))])
    assert two[0] == 2.0 + n


def test_multivariate_ess():
    from ergmfit.sampling.chains import effective_sizes, multivariate_ess
    rng = np.random.default_rng(4)
    n = 20000
    # independent, correlated draws: every direction has about n effective draws
    iid = rng.multivariate_normal([0, 0, 0], [[1, .9, .5], [.9, 1, .4], [.5, .4, 1]], n)
    assert 0.9 * n < multivariate_ess([iid]) <= 1.1 * n
    # one slow direction (AR(1), phi = 0.9: n (1 - phi) / (1 + phi) effective draws)
    # among two fast ones: the geometric mean, far above the smallest univariate size
    ar = np.zeros(n)
    e = rng.standard_normal(n)
    for t in range(1, n):
        ar[t] = 0.9 * ar[t - 1] + e[t]
    X = np.column_stack([ar, rng.standard_normal(n), rng.standard_normal(n)])
    slow = n * 0.1 / 1.9
    want = (slow * n * n) ** (1 / 3)
    assert 0.8 * want < multivariate_ess([X]) < 1.2 * want
    assert multivariate_ess([X]) > 3 * effective_sizes([X]).min()
    # a statistic that never varies is left out; a constant sample gives its size
    Xc = np.column_stack([X[:, 1:], np.ones(n)])
    assert 0.9 * n < multivariate_ess([Xc]) <= 1.1 * n
    assert multivariate_ess([np.ones((50, 3))]) == 50
    # chains are summed, not concatenated into one series
    halves = [X[: n // 2], X[n // 2:]]
    assert 0.8 * want < multivariate_ess(halves) < 1.2 * want



def test_multivariate_ess_of_a_statistic_that_changes_once():
    # the rule of effective_sizes in the rotated directions: a principal component mixes the
    # step with the other statistics' noise, which hid the single change (about n before)
    from ergmfit.sampling.chains import effective_sizes, multivariate_ess
    rng = np.random.default_rng(5)
    n = 1000
    fast = rng.standard_normal((n, 2))
    want = (2.0 * effective_sizes([fast]).prod()) ** (1 / 3)   # its direction counts 2 draws
    for k in (1, 3, 500):
        step = np.zeros(n)
        step[n - k:] = 1.0
        for X in (np.column_stack([step, fast]),
                  np.column_stack([fast[:, 0], 3 * step, fast[:, 1]])):
            assert 0.9 * want < multivariate_ess([X]) < 1.1 * want < 0.2 * n
        assert multivariate_ess([step[:, None]]) == 2.0
    # two statistics that change together once: one direction, the other left out as constant
    both = np.column_stack([step, 2 * step + 1, fast])
    assert 0.9 * want < multivariate_ess([both]) < 1.1 * want
    # summed over chains: in its direction a stuck chain adds its two runs, a mixing chain
    # about n; about 2n in the other two (geometric mean (n (2n)^2)^(1/3) = 1.59 n, 2n before)
    mixing = rng.standard_normal((n, 3))
    assert 1.4 * n < multivariate_ess([np.column_stack([step, fast]), mixing]) < 1.75 * n

# ---------------------------------------------------------------------------
# Ctrl-C inside the compiled loops (issue 24 item 4)
# ---------------------------------------------------------------------------
def _magnolia_sampler():
    m = ef.ERGM(ef.datasets.load_network("faux.magnolia.high"),
                "edges + nodematch('Grade') + gwesp(0.25, fixed=True)")
    theta = np.array([-8.7299, 2.7508, 1.9033])
    s, cm = m.sampler(theta, proposal="tnt", random_state=1)
    return m, s, cm, theta


def test_ctrl_c_stops_a_long_sample(default_sigint):
    m, s, cm, theta = _magnolia_sampler()
    before = s.n_proposed
    timer = sigint_soon(0.3)
    with pytest.raises(KeyboardInterrupt):
        s.sample(theta, 10, 0, 10**8)              # 10^9 proposals: over a minute
    timer.join()
    # it stopped between two proposals: the state and delta agree
    assert 0 < s.n_proposed - before < 10**8
    np.testing.assert_allclose(m.statistics_vector(cm.state.ties()) - m.statistics_vector(),
                               s.delta)
    before = s.n_proposed
    timer = sigint_soon(0.3)
    with pytest.raises(KeyboardInterrupt):
        s.run(theta, 10**9)
    timer.join()
    assert 0 < s.n_proposed - before < 10**8


def test_ctrl_c_stops_the_compiled_ee_loop(default_sigint):
    from ergmfit.estimation.ee._ee import ee_iterations
    m, s, cm, theta = _magnolia_sampler()
    n, p = 10**6, 3                                 # 10^6 x 1000 proposals
    rows = np.zeros((n, p))
    timer = sigint_soon(0.3)
    with pytest.raises(KeyboardInterrupt):             # 10^9 proposals unless it stops
        ee_iterations(s, theta.copy(), np.zeros(p), n, 1000, 0, 0.001, 0.01, 0.0, np.ones(p), -1,
                      0.0, rows, rows.copy(), np.zeros(n), np.zeros(n))
    timer.join()


def test_ctrl_c_ends_a_multichain_simulation_with_the_finished_draws(default_sigint):
    """Chains run one after another (``n_chains`` > 1, ``n_jobs=1``): a Ctrl-C in the first
    chain returns its finished draws with simulate's warning, and the later chains do not
    start (before, the KeyboardInterrupt lost every draw)."""
    m, _, _, theta = _magnolia_sampler()
    timer = sigint_soon(0.3)
    with pytest.warns(UserWarning, match=r"interrupted by the user after \d+ of 30 draws"):
        S = m.simulate(theta, n=30, interval=10**6, output="stats", proposal="tnt",
                       random_state=1, n_chains=3)        # 3 x 10 draws of 10^6 proposals
    timer.join()
    assert S.shape[1] == 3 and S.shape[0] < 10


def test_a_chain_job_stops_when_its_run_asks(tmp_path):
    """A chain run as a job of ``runtime.run_jobs`` (parallel simulate) stops at the
    parent's request between draws, leaving the warning to the parent."""
    import warnings
    from ergmfit.runtime import JobControl
    from ergmfit.sampling.chains import chain_draws
    m, s, cm, theta = _magnolia_sampler()
    (tmp_path / "stop").write_text("")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nets = chain_draws(s, theta, 50, 0, 10, snapshot=cm.state.ties,
                           control=JobControl(0, str(tmp_path)))
        stats = chain_draws(s, theta, 2 ** 21, 0, 1, control=JobControl(0, str(tmp_path)))
    assert len(nets) == 1 and stats.shape == (2 ** 20, 3)
