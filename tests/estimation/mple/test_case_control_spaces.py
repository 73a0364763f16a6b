"""Case-control MPLE designs on restricted sample spaces: a two-mode network's dyads
between the modes, blockdiag / fixallbut constraints, missing dyads.

Before session 24 ``sample_size`` was silently ignored on these spaces (every design dyad
was visited, ``info['design']['sampled']`` False), and the simulated designs of the
Godambe / bootstrap covariances walked every pair of nodes, within-mode pairs and fixed
dyads included (mean pseudo-score -107 instead of ~0 on the two-mode ``edges`` model
below, Godambe s.e. 1.14 against the exact 0.103)."""
import networkx as nx
import numpy as np
import pytest
from scipy.special import logit

import ergmfit as ef
from ergmfit.estimation.common.restricted import case_control_vars
from ergmfit.estimation.mple.pseudolikelihood import pseudo_design
from support.change_stats import two_mode_graph
from support.memory import traced_peak

N_SEEDS = 8


def _two_mode(n1=120, n2=200, seed=7):
    """A two-mode graph whose tie probability depends on the mode-1 node's level of ``a``
    (x, y, z: 2, 4, 6 %), and n1."""
    g, _ = two_mode_graph(seed, n1, n2, p=0.0)
    rng = np.random.default_rng(seed)
    for i in range(n1 + n2):
        g.nodes[i]["a"] = "xyz"[i % 3]
    for i in range(n1):
        for j in range(n1, n1 + n2):
            if rng.random() < 0.02 + 0.02 * (i % 3):
                g.add_edge(i, j)
    return g, n1


def _case_control_spread(m, size, full):
    """(mean, standard error of the mean) of the case-control MPLE over N_SEEDS seeds,
    checking that each is a sampled design of the same space as ``full``'s."""
    est = []
    for seed in range(N_SEEDS):
        cc = m.fit("mple", sample_size=size, random_state=seed)
        d = cc.info["design"]
        assert d["sampled"] and d["n_sampled"] == size
        assert d["n_vars"] == full.info["design"]["n_vars"]
        assert d["n_on"] == full.info["design"]["n_on"]
        est.append(np.asarray(cc.params))
    est = np.array(est)
    return est.mean(axis=0), est.std(axis=0, ddof=1) / np.sqrt(N_SEEDS)


def test_case_control_vars_draws_only_the_space_and_weights_its_zeros():
    rng = np.random.default_rng(0)
    free = np.sort(rng.choice(10_000, size=3000, replace=False)).astype(np.int64)
    ones = free[::10]
    v, w = case_control_vars(ones, len(free), free, 500, rng)
    assert np.array_equal(v[:len(ones)], ones) and np.all(w[:len(ones)] == 1.0)
    zeros = v[len(ones):]
    assert len(np.unique(zeros)) == 500
    assert np.isin(zeros, free).all() and not np.isin(zeros, ones).any()
    assert w.sum() == pytest.approx(len(free), rel=1e-12)


def test_two_mode_case_control_design_is_between_the_modes():
    g, n1 = _two_mode()
    m = ef.ERGM(g, "edges + b1factor('a')")
    dvars = m.sample_space.design_vars()
    n_between = n1 * (g.number_of_nodes() - n1)
    assert len(dvars) == n_between
    cm = m.compiled()
    d = pseudo_design(cm, 2000, random_state=1, vars_=dvars)
    assert d.sampled and d.n_sampled == 2000 and d.n_vars == n_between
    # the weights stand for the dyads between the modes (not the n(n-1)/2 = 51,040 pairs)
    assert d.n.sum() == pytest.approx(n_between, rel=1e-12)
    assert d.s.sum() == g.number_of_edges() == d.n_on
    full = pseudo_design(cm, vars_=dvars)
    assert not full.sampled and full.n.sum() == n_between
    # b1factor's rows: a between-mode dyad's change statistic has edges = 1 and at most one
    # b1factor level; the rows of the sample are rows of the full design
    assert {tuple(r) for r in d.X} <= {tuple(r) for r in full.X}


def test_two_mode_dyad_independent_case_control_agrees_with_the_exact_mple():
    g, n1 = _two_mode()
    m = ef.ERGM(g, "edges + b1factor('a')")
    full = m.fit("mple")
    # the full MPLE of a dyad-independent model is the MLE: in closed form here
    n2 = g.number_of_nodes() - n1
    p = [sum(g.degree(i) for i in range(n1) if i % 3 == k) / (len(range(k, n1, 3)) * n2)
         for k in range(3)]
    exact = [logit(p[0]), logit(p[1]) - logit(p[0]), logit(p[2]) - logit(p[0])]
    np.testing.assert_allclose(full.params, exact, rtol=0, atol=1e-9)
    assert not full.info["design"]["sampled"]
    mean, sem = _case_control_spread(m, 6000, full)
    assert np.all(np.abs(mean - np.asarray(full.params)) < 3 * sem), (mean, full.params, sem)
    # the Monte-Carlo error is well below the estimate's own standard error
    assert np.all(sem * np.sqrt(N_SEEDS) < np.asarray(full.bse))


def test_two_mode_dyad_dependent_case_control_agrees_with_the_full_mple():
    g, _ = _two_mode()
    m = ef.ERGM(g, "edges + gwb1degree(0.5, fixed=True)")
    full = m.fit("mple")
    mean, sem = _case_control_spread(m, 6000, full)
    assert np.all(np.abs(mean - np.asarray(full.params)) < 3 * sem), (mean, full.params, sem)


@pytest.mark.parametrize("case", ["blockdiag", "fixallbut", "missing"])
def test_constrained_and_missing_case_control_agrees_with_the_full_mple(case):
    g = ef.datasets.load("faux.mesa.high")
    nodes = list(g.nodes)
    rng = np.random.default_rng(3)
    pairs = [(nodes[i], nodes[j]) for i, j in rng.integers(0, len(nodes), (6000, 2)) if i != j]
    if case == "blockdiag":
        kw = {"constraints": "~ blockdiag('Sex')"}
    elif case == "fixallbut":
        free = sorted({tuple(sorted(p)) for p in pairs}) + [tuple(e) for e in list(g.edges)[:150]]
        kw = {"constraints": ("~ fixallbut(fr)", {"fr": free})}
    else:
        kw = {"missing": pairs[:800]}
    m = ef.ERGM(g, "edges + nodematch('Grade')", **kw)
    full = m.fit("mple")
    assert full.info["design"]["n_vars"] == m.sample_space.n_free
    mean, sem = _case_control_spread(m, 1500, full)
    assert np.all(np.abs(mean - np.asarray(full.params)) < 3 * sem), (mean, full.params, sem)


def test_two_mode_godambe_simulates_the_dyads_between_the_modes():
    g, _ = _two_mode(30, 45, seed=1)
    m = ef.ERGM(g, "edges")
    naive = m.fit("mple")
    god = m.fit("mple", cov="godambe", n_sim=100, random_state=1)
    # dyad-independent: the Godambe matrix estimates the exact (naive) one, and the
    # pseudo-score of the simulated networks averages about 0
    assert god.bse[0] == pytest.approx(naive.bse[0], rel=0.2)
    score = np.asarray(god.info["godambe"]["mean_score"])
    assert np.all(np.abs(score) < 3 * np.sqrt(naive.cov.diagonal() ** -1 / 100))


def test_two_mode_case_control_godambe_resamples_between_the_modes():
    g, _ = _two_mode(30, 45, seed=1)
    m = ef.ERGM(g, "edges")
    naive = m.fit("mple")
    god = m.fit("mple", cov="godambe", n_sim=100, sample_size=300, random_state=1)
    assert god.info["design"]["sampled"]
    assert god.bse[0] == pytest.approx(naive.bse[0], rel=0.25)


# -- the exact path of dyad-independent attribute models: cells between the modes ----------
@pytest.mark.parametrize("formula", ["edges + b1factor('a')", "edges + b2factor('a') + b1cov('x')",
                                     "edges + nodematch('a')", "edges + nodefactor('a')"])
def test_two_mode_cell_design_gives_the_dyad_by_dyad_mple(formula):
    # above max_dyads a two-mode dyad-independent attribute model is counted by cells that
    # join a class of mode 1 to one of mode 2 (before: dyad by dyad, or a case-control
    # sample, whatever its size: cell_layout refused two-mode networks)
    from ergmfit.estimation.mple.cells import cell_design
    g, n1 = _two_mode()
    for i in range(g.number_of_nodes()):
        g.nodes[i]["x"] = float(i % 7)
    m = ef.ERGM(g, formula)
    X, n, s, n_vars, n_on = cell_design(m)
    assert n_vars == n.sum() == n1 * (g.number_of_nodes() - n1)
    assert n_on == s.sum() == g.number_of_edges()
    full = m.fit("mple")
    cells = m.fit("mple", max_dyads=1000)
    assert not cells.info["design"]["sampled"] and cells.info["design"]["n_vars"] == n_vars
    np.testing.assert_allclose(cells.params, full.params, rtol=0, atol=1e-9)
    np.testing.assert_allclose(cells.bse, full.bse, rtol=1e-9)
    assert cells.loglik == pytest.approx(full.loglik, rel=1e-12)


def test_two_mode_cells_refuse_a_restricted_space():
    from ergmfit.estimation.mple.cells import cell_layout
    g, n1 = _two_mode(6, 8, seed=2)
    assert cell_layout(ef.ERGM(g, "edges + b1factor('a')")) is not None
    assert cell_layout(ef.ERGM(g, "edges + b1factor('a')", missing=[(0, 6)])) is None
    assert cell_layout(ef.ERGM(g, "edges + b1factor('a')",
                               constraints=("~ fixallbut(fr)", {"fr": [(0, 6), (1, 7)]}))) is None
    assert cell_layout(ef.ERGM(g, "edges + gwb1degree(0.5, fixed=True)")) is None


def test_offsets_keep_the_dyad_count_of_a_case_control_design():
    # offset_design set n_vars to int(sum of the rows' weights): a case-control sample's
    # float weights summed to e.g. 434.99999999999994 for 435 dyads, and the fit reported 434
    for n in (30, 41):
        g = nx.gnp_random_graph(n, 0.08, seed=n)
        for i in g.nodes:
            g.nodes[i]["a"] = i % 3
        m = ef.ERGM(g, "edges + offset(nodematch('a'))")
        for size in (37, 51, 99, 113):
            d = m.fit("mple", sample_size=size, random_state=1, offset_coef=[0.5]).info["design"]
            assert d["sampled"] and d["n_sampled"] == size
            assert (d["n_vars"], d["n_on"]) == (n * (n - 1) // 2, g.number_of_edges())
            assert type(d["n_vars"]) is int and type(d["n_on"]) is int


def test_an_infinite_offset_removes_its_dyads_from_the_count():
    # every dyad visited: n_vars counts the dyads no offset decides, exactly; a case-control
    # sample estimates the decided non-ties by their weights (ties counted exactly)
    g = nx.gnp_random_graph(40, 0.1, seed=2)
    for i in g.nodes:
        g.nodes[i]["a"] = i % 2
    g.remove_edges_from([(i, j) for i, j in list(g.edges) if i % 2 != j % 2])
    m = ef.ERGM(g, "edges + offset(nodemix('a', levels2=[2]))")   # mix.a.0.1: no ties
    assert m.statistics_vector(m.network.ties)[1] == 0
    n_within = 2 * (20 * 19 // 2)
    full = m.fit("mple", offset_coef=[-np.inf]).info["design"]
    assert (full["n_vars"], full["n_on"]) == (n_within, g.number_of_edges())
    cc = m.fit("mple", offset_coef=[-np.inf], sample_size=60, random_state=3).info["design"]
    assert cc["sampled"] and cc["n_on"] == g.number_of_edges()
    assert type(cc["n_vars"]) is int and abs(cc["n_vars"] - n_within) < 0.5 * n_within


def test_all_vars_except_is_the_sorted_complement():
    from ergmfit.sampling.space import AllVarsExcept
    rng = np.random.default_rng(3)
    for n, k in ((1, 0), (10, 10), (50, 7), (1000, 300)):
        excluded = np.sort(rng.choice(n, size=k, replace=False)).astype(np.int64)
        v = AllVarsExcept(n, excluded)
        full = np.setdiff1d(np.arange(n), excluded)
        assert len(v) == len(full) and np.array_equal(np.asarray(v), full)
        idx = rng.integers(0, max(len(full), 1), size=50) if len(full) else np.zeros(0, int)
        assert np.array_equal(v[idx], full[idx])
    with pytest.raises(IndexError):
        AllVarsExcept(5, np.array([1]))[np.array([4])]


def test_missing_dyads_case_control_design_is_the_listed_spaces():
    # every dyad but the missing ones, never listed: the same design, draw for draw, as
    # the explicit list of the design dyads
    g = nx.gnp_random_graph(300, 0.03, seed=2, directed=True)
    rng = np.random.default_rng(4)
    miss = rng.integers(0, 300, size=(400, 2))
    m = ef.ERGM(g, "edges + mutual", missing=miss[miss[:, 0] != miss[:, 1]])
    lazy = m.sample_space.design_set()
    listed = m.sample_space.design_vars()
    assert type(lazy).__name__ == "AllVarsExcept" and len(lazy) == len(listed)
    for seed in range(3):
        a = pseudo_design(m.compiled(), sample_size=5000, random_state=seed, vars_=lazy)
        b = pseudo_design(m.compiled(), sample_size=5000, random_state=seed, vars_=listed)
        assert (a.n_vars, a.n_on) == (b.n_vars, b.n_on)
        assert np.array_equal(a.X, b.X) and np.array_equal(a.n, b.n) and np.array_equal(a.s, b.s)


def test_missing_dyads_mple_never_lists_every_dyad():
    # 8,500 nodes: 7.2 x 10^7 dyads, above DEFAULT_MAX_DYADS (a case-control design); the
    # design's dyads as an array were 578 MB (75 GB at 10^5 nodes: MemoryError), the
    # case-control MPLE itself needs a few MB
    n = 8500
    rng = np.random.default_rng(5)
    ties = np.unique(rng.integers(0, n, size=(30_000, 2)), axis=0)
    net = ef.Network(n, ties[ties[:, 0] != ties[:, 1]], True)
    miss = rng.integers(0, n, size=(500, 2))
    m = ef.ERGM(net, "edges + mutual", missing=miss[miss[:, 0] != miss[:, 1]])
    m.compiled()
    fit, peak = traced_peak(lambda: m.fit("mple", random_state=1))
    assert fit.info["design"]["n_vars"] == n * (n - 1) - m.sample_space.n_missing
    assert peak < 100e6, f"peak {peak / 1e6:.0f} MB"


def _case_control_vars_definition(nonzero, n_free, free, size, rng):
    # the draw as written before session 27 (np.isin and np.unique(return_index=True))
    nonzero = np.asarray(nonzero, dtype=np.int64)
    n_zero = int(n_free) - len(nonzero)
    size = int(min(size, n_zero))
    picked = np.zeros(0, dtype=np.int64)
    while len(picked) < size:
        draw = rng.integers(0, int(n_free), size=2 * (size - len(picked)) + 64)
        if free is not None:
            draw = free[draw]
        draw = draw[~np.isin(draw, nonzero)]
        both = np.concatenate([picked, draw])
        _, first = np.unique(both, return_index=True)
        picked = both[np.sort(first)][:size]
    return np.concatenate([nonzero, picked])


@pytest.mark.parametrize("seed", range(6))
def test_case_control_vars_is_the_definitions_draw(seed):
    # sparse and dense spaces, with and without a list of free variables: the same sample
    rng = np.random.default_rng(seed)
    n_free = int(rng.choice([40, 500, 100_000]))
    free = None if seed % 2 else np.sort(rng.choice(3 * n_free, n_free, replace=False))
    space = np.arange(n_free) if free is None else free
    ones = np.sort(rng.choice(space, size=int(rng.uniform(0, 0.6) * n_free), replace=False))
    size = int(rng.integers(1, n_free - len(ones) + 1))
    v, w = case_control_vars(ones, n_free, free, size, np.random.default_rng(seed + 100))
    want = _case_control_vars_definition(ones, n_free, free, size,
                                         np.random.default_rng(seed + 100))
    assert np.array_equal(v, want)


def test_in_sorted_is_isin():
    from ergmfit.utils.setops import in_sorted
    rng = np.random.default_rng(8)
    for hi, n, k in ((5, 0, 3), (5, 10, 0), (50, 200, 20), (10**12, 5000, 3000), (3000, 5000, 2500)):
        values = rng.integers(-3, hi, size=n)
        table = np.unique(rng.integers(-3, hi, size=k))
        assert np.array_equal(in_sorted(values, table), np.isin(values, table))
