"""Potts models on the binary engine: the one-hot block kernel (ergmfit.mrf._models)
and PottsModel (ergmfit.mrf.potts).

Every check compares with brute force over the states (numpy, written here
independently of the package) or with an independent code path (the Ising
model's logistic pseudo-likelihood and binary enumeration)."""
import itertools

import networkx as nx
import numpy as np
import pytest
from scipy import special

from ergmfit.mrf import IsingModel
from ergmfit.mrf.models import tied_pair
from ergmfit.mrf._models import MonomialModel
from ergmfit.mrf._models import OneHotEnumeration, UniformGroupBlocks, gray_levels
from ergmfit.mrf.potts import PottsModel, cd_hook_available
from ergmfit.estimation.contrastive.mcle import KernelComposite
from ergmfit.sampling._blocks import Enumeration, kernel_composite


# ---------------------------------------------------------------------------
# independent numpy reference
# ---------------------------------------------------------------------------
def np_stats(S, n, edges, q, fields=True, tied=(True, True)):
    """Potts statistics, written directly from the definition."""
    S = np.atleast_2d(S)
    rows = []
    for s in S:
        g = []
        if fields:
            if tied[0]:
                g += [sum(1 for i in range(n) if s[i] == a) for a in range(1, q)]
            else:
                g += [float(s[i] == a) for a in range(1, q) for i in range(n)]
        if edges:
            if tied[1]:
                g.append(sum(1 for i, j in edges if s[i] == s[j]))
            else:
                g += [float(s[i] == s[j]) for i, j in edges]
        rows.append(g)
    return np.array(rows, dtype=float)


def all_states(n, q):
    return np.array(list(itertools.product(range(q), repeat=n)), dtype=np.int64)


def brute_conditional(s, nodes, theta, stats):
    """log p(s_A | s_-A) and E[g | s_-A] - g(s) by evaluating every joint level of A."""
    confs = []
    for lv in itertools.product(*[range(stats.q)] * len(nodes)):
        t = s.copy()
        t[list(nodes)] = lv
        confs.append(t)
    G = stats(np.array(confs))
    g0 = stats(s[None, :])[0]
    w = G @ theta
    lz = special.logsumexp(w)
    P = np.exp(w - lz)
    return float(g0 @ theta - lz), P @ G - g0


class _Stats:
    def __init__(self, m):
        self.m, self.q = m, m.q

    def __call__(self, S):
        return np_stats(S, self.m.n_nodes, self.m.edges, self.m.q, self.m.fields, tied_pair(self.m.tied))


def small_graph():
    return (4, [(0, 1), (1, 2), (2, 3), (0, 2)])


# ---------------------------------------------------------------------------
# statistics and coding
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("tied", [True, False, (True, False), (False, True)])
@pytest.mark.parametrize("fields", [True, False])
def test_statistics_match_numpy(tied, fields):
    rng = np.random.default_rng(1)
    G = nx.gnm_random_graph(7, 11, seed=3)
    m = PottsModel(G, q=4, fields=fields, tied=tied)
    X = rng.integers(0, 4, (25, 7))
    tt = (tied, tied) if isinstance(tied, bool) else tied
    assert np.allclose(m.statistics(X), np_stats(X, 7, m.edges, 4, fields, tt))
    # the compiled model agrees with the monomials
    bm = m.compiled()
    for x in X[:5]:
        bm.set_state(m.onehot(x)[0])
        assert np.allclose(bm.statistics(), np_stats(x, 7, m.edges, 4, fields, tt)[0])
    assert np.array_equal(m.states(m.onehot(X)), X)


def test_labels():
    m = PottsModel((3, [(0, 1), (1, 2)]), q=3, tied=False)
    assert m.labels == ["field1[0]", "field1[1]", "field1[2]", "field2[0]", "field2[1]",
                        "field2[2]", "coupling0.1", "coupling1.2"]
    assert PottsModel((3, [(0, 1)]), q=3).labels == ["field1", "field2", "coupling"]
    assert m.n_vars == 9 and m.var(2, 1) == 7


def test_enumeration_lists_every_state_once():
    m = PottsModel(small_graph(), q=3, tied=(True, False))
    G, S, pos = m._enum()
    assert len(S) == 81
    assert len({tuple(r) for r in S}) == 81
    assert np.allclose(G, np_stats(S, 4, m.edges, 3, True, (True, False)))
    assert np.allclose(m.log_partition([0.2, -0.1, 0.3, 0.5, -0.4, 0.1]),
                       special.logsumexp(np_stats(all_states(4, 3), 4, m.edges, 3, True,
                                                  (True, False)) @
                                         [0.2, -0.1, 0.3, 0.5, -0.4, 0.1]))
    # consecutive configurations of the walk differ in one node (Gray code)
    assert np.all((np.diff(S, axis=0) != 0).sum(axis=1) == 1)


def test_gray_levels_mixed_radix():
    L = [3, 2, 4]
    lv = gray_levels(L, [1, 0, 3])
    assert lv.shape == (24, 3)
    assert len({tuple(r) for r in lv}) == 24
    assert np.all((np.diff(lv, axis=0) != 0).sum(axis=1) == 1)
    assert tuple(lv[0]) == (1, 0, 3)


# ---------------------------------------------------------------------------
# the block kernel
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_kernel_conditional_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    q = int(rng.integers(2, 5))
    G = nx.gnm_random_graph(6, 9, seed=seed)
    m = PottsModel(G, q=q, tied=bool(seed % 2))
    st = _Stats(m)
    theta = rng.normal(0, 1, m.n_stats)
    s = rng.integers(0, q, 6)
    bm = m.compiled()
    bm.set_state(m.onehot(s)[0])
    x0 = bm.state().copy()
    kern = m.kernel()
    for nodes in ([int(rng.integers(6))], list(rng.choice(6, 2, replace=False)),
                  list(rng.choice(6, 3, replace=False))):
        block = np.concatenate([rng.permutation(m.node_groups()[i]) for i in nodes])
        block = rng.permutation(block)              # any order of the indicators
        lp, e = kern.conditional(bm, block, theta)
        lp0, e0 = brute_conditional(s, nodes, theta, st)
        assert np.isclose(lp, lp0, atol=1e-10)
        assert np.allclose(e, e0, atol=1e-10)
        assert np.array_equal(bm.state(), x0)     # state untouched
        # the kernel's D matrix: every joint level of the block, statistics right
        D, lv, units = kern.differences(bm, block)
        assert len(D) == q ** len(nodes)
        g0 = st(s[None, :])[0]
        node_of_unit = units                       # group c = node c in the Potts kernel
        for r in range(len(D)):
            t = s.copy()
            t[node_of_unit] = lv[r]
            assert np.allclose(D[r], st(t[None, :])[0] - g0)


def test_kernel_draw_moves_to_a_valid_state():
    m = PottsModel(small_graph(), q=3)
    bm = m.compiled()
    s = np.array([0, 1, 2, 1])
    bm.set_state(m.onehot(s)[0])
    kern = m.kernel()
    th = np.array([0.2, -0.3, 0.7])
    for r in range(20):
        g_before = bm.statistics()
        d = kern.draw(bm, np.r_[m.node_groups()[1], m.node_groups()[3]], th, random_state=r)
        s2 = m.states(bm.state())[0]               # raises if not one-hot
        assert s2[0] == 0 and s2[2] == 2
        assert np.allclose(bm.statistics() - g_before, d)


def _random_monomial_model(rng, n_vars, groups, n_mono, n_stats):
    """0/1 monomials of size 1-3 on random variables, including pairs inside a group."""
    mons, stat = [], []
    for _ in range(n_mono):
        k = int(rng.integers(1, 4))
        mons.append(sorted(rng.choice(n_vars, k, replace=False).tolist()))
        stat.append(int(rng.integers(n_stats)))
    for g in groups:                                # a within-group interaction
        if len(g) >= 2:
            mons.append([int(g[0]), int(g[1])])
            stat.append(int(rng.integers(n_stats)))
    coef = rng.normal(0, 1, len(mons))
    return MonomialModel(n_vars, n_stats, mons, stat, coef, False)


@pytest.mark.parametrize("seed", range(5))
def test_kernel_general_groups_brute_force(seed):
    """Groups with and without "none" and free binary variables, on a model
    whose monomials join indicators of the same group: the kernel's conditional
    equals brute force over the valid block configurations (statistics()
    recomputed from the monomials for each)."""
    rng = np.random.default_rng(100 + seed)
    groups = [[0, 1, 2], [3, 4], [5, 6, 7, 8], [9, 10]]
    none = [False, True, False, True]
    n_vars = 13                                     # 11, 12 free binary
    bm = _random_monomial_model(rng, n_vars, groups, 25, 3)
    kern = OneHotEnumeration(n_vars, groups, none)
    # a valid random state
    x = np.zeros(n_vars, dtype=np.uint8)
    for g, nn in zip(groups, none):
        lv = int(rng.integers(len(g) + nn))
        if nn and lv == 0:
            continue
        x[g[lv - 1 if nn else lv]] = 1
    x[11:] = rng.integers(0, 2, 2)
    bm.set_state(x)
    theta = rng.normal(0, 1, 3)
    units = [groups[0], groups[1], [11], groups[2]]
    unit_none = [False, True, True, False]
    for pick in ([0], [1, 2], [0, 3], [0, 1, 2, 3]):
        block = np.concatenate([units[u] for u in pick]).astype(np.int64)
        block = rng.permutation(block)
        confs = []
        for lvs in itertools.product(*[range(len(units[u]) + unit_none[u]) for u in pick]):
            y = x.copy()
            for u, lv in zip(pick, lvs):
                y[units[u]] = 0
                if unit_none[u]:
                    if lv > 0:
                        y[units[u][lv - 1]] = 1
                else:
                    y[units[u][lv]] = 1
            confs.append(y)
        Gs = []
        for y in confs:
            bm.set_state(y)
            Gs.append(bm.statistics())
        bm.set_state(x)
        Gs = np.array(Gs)
        g0 = bm.statistics()
        w = Gs @ theta
        lz = special.logsumexp(w)
        P = np.exp(w - lz)
        lp, e = kern.conditional(bm, block, theta)
        assert np.isclose(lp, g0 @ theta - lz, atol=1e-10)
        assert np.allclose(e, P @ Gs - g0, atol=1e-10)
        assert np.array_equal(bm.state(), x)


def test_kernel_without_groups_is_enumeration():
    rng = np.random.default_rng(7)
    bm = _random_monomial_model(rng, 8, [], 20, 4)
    bm.set_state(rng.integers(0, 2, 8))
    kern = OneHotEnumeration(8)
    th = rng.normal(0, 1, 4)
    for block in ([3], [0, 5], [1, 2, 6, 7], list(range(8))):
        lp, e = kern.conditional(bm, block, th)
        lp0, e0 = Enumeration(8).conditional(bm, block, th)
        assert np.isclose(lp, lp0) and np.allclose(e, e0)


def test_kernel_composite_equals_design_and_brute_force():
    """Pseudo-likelihood of one observation three ways: the shared compiled
    kernel_composite / KernelComposite with this kernel, the model's design,
    and brute force."""
    m = PottsModel(small_graph(), q=3)
    st = _Stats(m)
    s = np.array([2, 0, 0, 1])
    theta = np.array([0.4, -0.2, 0.9])
    bm = m.compiled()
    bm.set_state(m.onehot(s)[0])
    blocks = m.node_groups()
    flat = np.concatenate(blocks)
    off = np.arange(0, 13, 3, dtype=np.int64)
    ll, sc = kernel_composite(bm, m.kernel(max_size=3), flat, off, theta)
    kc = KernelComposite(bm, m.kernel(max_size=3), {3: [np.array(blocks)]}, {})
    ll_b = sum(brute_conditional(s, [i], theta, st)[0] for i in range(4))
    sc_b = -sum(brute_conditional(s, [i], theta, st)[1] for i in range(4))
    assert np.isclose(ll, ll_b) and np.allclose(sc, sc_b)
    assert np.isclose(kc.loglik(theta), ll_b)
    ll_d, sc_d = m.composite_loglik(s, theta, grad=True)
    assert np.isclose(ll_d, ll_b) and np.allclose(sc_d, sc_b)


# ---------------------------------------------------------------------------
# sampling
# ---------------------------------------------------------------------------
def test_exact_sampling_frequencies():
    m = PottsModel(small_graph(), q=3)
    theta = np.array([0.3, -0.4, 0.6])
    S = all_states(4, 3)
    w = np_stats(S, 4, m.edges, 3) @ theta
    P = np.exp(w - special.logsumexp(w))
    N = 40000
    X = m.sample(N, theta, random_state=5)
    codes = X @ (3 ** np.arange(4))[::-1]           # itertools.product order
    f = np.bincount(codes, minlength=81) / N
    assert np.all(np.abs(f - P) <= 5 * np.sqrt(P * (1 - P) / N) + 1e-3)
    assert np.allclose(m.score_samples(S, theta), np.log(P))
    assert np.array_equal(m.sample(50, theta, random_state=9), m.sample(50, theta, random_state=9))


@pytest.mark.parametrize("block_size", [1, 2])
def test_block_gibbs_matches_enumeration(block_size):
    m = PottsModel(small_graph(), q=3, tied=(True, False))
    theta = np.array([0.3, -0.4, 0.8, -0.5, 0.6, 0.2])
    S = all_states(4, 3)
    Gall = np_stats(S, 4, m.edges, 3, True, (True, False))
    w = Gall @ theta
    P = np.exp(w - special.logsumexp(w))
    marg = np.array([[P @ (S[:, i] == a) for a in range(3)] for i in range(4)])
    assert np.allclose(m.marginals(theta), marg)
    # node marginals from draws of the chain (python level, thinned)
    X = m.sample(6000, theta, random_state=3, method="gibbs", burnin=20, thin=1,
                 block_size=block_size)
    emp = np.array([[np.mean(X[:, i] == a) for a in range(3)] for i in range(4)])
    assert np.max(np.abs(emp - marg)) < 0.03
    # mean statistics over a long compiled run
    sampler, bm = m.gibbs_sampler(block_size, random_state=4)
    g0 = bm.statistics()
    D = sampler.sample(theta, 100000, 1000, 1)
    assert np.all(np.abs((g0 + D).mean(axis=0) - P @ Gall) < 0.04)
    assert m.states(bm.state()).shape == (1, 4)   # still one-hot


def test_uniform_group_blocks_uniform():
    groups = [[0, 1], [2, 3], [4, 5], [6, 7]]
    ch = UniformGroupBlocks(groups, 2)
    assert ch.max_size == 4 and ch.n_vars == 8
    draws = ch.draw(6000, random_state=1)
    keys = [tuple(sorted(set(int(v) // 2 for v in b))) for b in draws]
    assert all(len(b) == 4 for b in draws)
    assert all(sorted(b.tolist()) == sorted(sum((groups[g] for g in k), [])) for b, k in
               zip(draws[:50], keys[:50]))
    counts = np.array([keys.count(c) for c in itertools.combinations(range(4), 2)])
    assert np.all(np.abs(counts / 6000 - 1 / 6) < 0.025)


# ---------------------------------------------------------------------------
# objectives and fits
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("order", [1, 2])
def test_composite_objective_and_gradient_brute_force(order):
    rng = np.random.default_rng(11)
    m = PottsModel(nx.cycle_graph(5), q=3, tied=(False, True))
    st = _Stats(m)
    X = rng.integers(0, 3, (12, 5))
    X[3] = X[0]                                     # repeated rows are merged: still counted
    theta = rng.normal(0, 0.7, m.n_stats)
    ll, sc = m.composite_loglik(X, theta, block_size=order, grad=True)
    ll_b, sc_b = 0.0, np.zeros(m.n_stats)
    for s in X:
        for A in itertools.combinations(range(5), order):
            lp, e = brute_conditional(s, list(A), theta, st)
            ll_b += lp
            sc_b -= e
    assert np.isclose(ll, ll_b, rtol=1e-10)
    assert np.allclose(sc, sc_b, atol=1e-9)
    # gradient = numerical derivative of the brute-force objective
    h = 1e-6
    for k in range(m.n_stats):
        e = np.zeros(m.n_stats)
        e[k] = h
        f = [sum(brute_conditional(s, list(A), theta + sg * e, st)[0] for s in X
                 for A in itertools.combinations(range(5), order)) for sg in (1, -1)]
        assert np.isclose(sc[k], (f[0] - f[1]) / (2 * h), atol=1e-5)
    # weights = repeated rows
    w = rng.integers(1, 4, len(X)).astype(float)
    ll_w = m.composite_loglik(np.repeat(X, w.astype(int), axis=0), theta, block_size=order)
    assert np.isclose(m.composite_loglik(X, theta, block_size=order, sample_weight=w), ll_w)


def test_fits_recover_truth():
    m = PottsModel(nx.cycle_graph(5), q=3)
    truth = np.array([0.4, -0.3, 0.9])
    X = m.sample(8000, truth, random_state=2)
    ex = PottsModel(nx.cycle_graph(5), q=3).fit(X, method="exact")
    assert ex.converged_
    # the MLE matches moments: E_theta[g] = mean g(data), by brute force
    S = all_states(5, 3)
    Gall = np_stats(S, 5, m.edges, 3)
    w = Gall @ ex.coef_
    P = np.exp(w - special.logsumexp(w))
    assert np.allclose(P @ Gall, m.statistics(X).mean(axis=0), atol=1e-8)
    se = np.sqrt(np.diag(ex.cov_))
    assert np.all(np.abs(ex.coef_ - truth) < 4 * se)
    for method, kw in (("pl", {}), ("cl", {"block_size": 2}), ("cl", {"blocks": "edges"})):
        f = PottsModel(nx.cycle_graph(5), q=3).fit(X, method=method, **kw)
        assert f.converged_
        assert np.all(np.abs(f.coef_ - truth) < 6 * se), (method, kw, f.coef_)
        assert np.all(np.abs(f.coef_ - ex.coef_) < 0.1)
    # the pseudo-likelihood maximum: score zero by brute force
    pl = PottsModel(nx.cycle_graph(5), q=3).fit(X, method="pl")
    st = _Stats(m)
    U, cnt = np.unique(X, axis=0, return_counts=True)
    sc = -sum(c * brute_conditional(s, [i], pl.coef_, st)[1] for s, c in zip(U, cnt)
              for i in range(5))
    assert np.max(np.abs(sc)) < 1e-6 * len(X)


@pytest.mark.parametrize("tied", [True, False])
def test_q2_potts_is_ising(tied):
    """q = 2: [s_i = s_j] = (1 + σ_i σ_j)/2 and [s_i = 1] = (1 + σ_i)/2 with
    σ = 2s - 1, so Potts(h, J) = Ising(field h/2, coupling J/2) in ±1 coding."""
    G = nx.Graph([(0, 1), (1, 2), (2, 3), (3, 0), (1, 3), (3, 4)])
    pm = PottsModel(G, q=2, tied=tied)
    im = IsingModel(G, coding="pm1", tied=tied)
    assert pm.n_stats == im.n_stats
    rng = np.random.default_rng(0)
    th = rng.normal(0, 0.8, pm.n_stats)
    S = all_states(5, 2)
    assert np.allclose(pm.score_samples(S, th), im.score_samples(S, th / 2))
    X = pm.sample(3000, th, random_state=1)
    # pseudo-likelihood: the Ising model's logistic MPLE is an independent code path
    f_p = PottsModel(G, q=2, tied=tied).fit(X, method="pl")
    f_i = IsingModel(G, coding="pm1", tied=tied).fit(X, method="pl")
    assert np.allclose(f_p.coef_, 2 * f_i.coef_, atol=1e-6)
    # exact likelihood: binary enumeration of the Ising model
    e_p = PottsModel(G, q=2, tied=tied).fit(X, method="exact")
    e_i = IsingModel(G, coding="pm1", tied=tied).fit(X, method="exact")
    assert np.allclose(e_p.coef_, 2 * e_i.coef_, atol=1e-6)
    assert np.isclose(e_p.loglik_, e_i.loglik_)


@pytest.mark.skipif(not cd_hook_available(),
                    reason="needs ContrastiveDivergence to accept a sampler factory")
@pytest.mark.parametrize("method", ["cd", "pcd"])
def test_cd_near_mle(method):
    m = PottsModel(nx.cycle_graph(5), q=3)
    truth = np.array([0.4, -0.3, 0.9])
    X = m.sample(3000, truth, random_state=2)
    mle = PottsModel(nx.cycle_graph(5), q=3).fit(X, method="exact").coef_
    f = PottsModel(nx.cycle_graph(5), q=3).fit(X, method=method, n_iter=200, batch_size=50,
                                               learning_rate=0.05, random_state=3)
    assert np.all(np.abs(f.coef_ - mle) < 0.15), f.coef_
    f2 = PottsModel(nx.cycle_graph(5), q=3).fit(X, method=method, n_iter=200, batch_size=50,
                                                learning_rate=0.05, random_state=3)
    assert np.array_equal(f.coef_, f2.coef_)


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------
def test_validation_errors():
    g = small_graph()
    for q in (1, 0, 2.5, True, "3"):
        with pytest.raises(ValueError, match="q"):
            PottsModel(g, q=q)
    with pytest.raises(ValueError, match="no statistics"):
        PottsModel((3, []), q=3, fields=False)
    m = PottsModel(g, q=3)
    with pytest.raises(ValueError, match=r"0\.\.2"):
        m.statistics([[0, 1, 3, 0]])
    with pytest.raises(ValueError, match=r"0\.\.2"):
        m.fit([[0, 1, -1, 0]])
    with pytest.raises(ValueError, match="non-integer"):
        m.statistics([[0, 1.5, 1, 0]])
    with pytest.raises(ValueError, match="non-integer"):
        m.statistics(np.array([[0, np.nan, 1, 0]]))
    with pytest.raises(ValueError, match="4 columns"):
        m.statistics([[0, 1, 1]])
    with pytest.raises(ValueError, match="integer states"):
        m.statistics([["a", "b", "c", "d"]])
    with pytest.raises(ValueError, match="2-D"):
        m.statistics(np.zeros((2, 2, 4), dtype=int))
    assert np.allclose(m.statistics(np.array([[0.0, 1.0, 2.0, 2.0]])),
                       np_stats([[0, 1, 2, 2]], 4, m.edges, 3))
    X = m.sample(100, [0.1, 0.1, 0.5], random_state=0)
    with pytest.raises(ValueError, match="unknown method"):
        m.fit(X, method="ee")
    with pytest.raises(ValueError, match="one block per node"):
        m.fit(X, method="pl", block_size=2)
    with pytest.raises(ValueError, match="theta"):
        m.log_partition([0.1, 0.2])
    with pytest.raises(ValueError, match="not fitted"):
        PottsModel(g, q=3).sample(3)
    with pytest.raises(ValueError, match="edges"):
        PottsModel((3, []), q=3).fit([[0, 1, 2]], method="cl", blocks="edges")
    with pytest.raises(ValueError, match="block_size"):
        m.fit(X, method="cl", block_size=5)
    with pytest.raises(ValueError, match="q\\^n"):
        PottsModel(nx.path_graph(14), q=3).log_partition([0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="one-hot"):
        m.states([[1, 1, 0] * 4])
    # the kernel refuses partial groups and invalid states
    bm = m.compiled()
    bm.set_state(m.onehot([0, 1, 2, 0])[0])
    kern = m.kernel()
    with pytest.raises(ValueError, match="whole one-hot"):
        kern.conditional(bm, [0, 1], [0.1, 0.1, 0.1])
    bm.flip_var(1)                                   # node 0 now has two indicators on
    with pytest.raises(ValueError, match="one-hot constraint"):
        kern.conditional(bm, [0, 1, 2], [0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match="overlap"):
        OneHotEnumeration(6, [[0, 1, 2], [2, 3]])
    with pytest.raises(ValueError, match="k must"):
        UniformGroupBlocks([[0, 1]], 2)


def test_separation_warns():
    from ergmfit.exceptions import ConvergenceWarning
    m = PottsModel(nx.cycle_graph(4), q=3)
    X = np.array([[0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]])   # state 2 never seen
    with pytest.warns(ConvergenceWarning, match="field2"):
        m.fit(X, method="pl")
