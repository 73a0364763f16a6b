"""Snowball samples and their conditional estimation (Pattison et al. 2013; Stivala et
al. 2016): the waves, the ``snowball(zone)`` sample space (exact on enumerated spaces,
never left), the MPLE design, the meta-analysis and the parallel fits."""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import FormulaError, NetworkError, SettingsError, TermError
from ergmfit.network import Network
from ergmfit.sampling.space import dyad_vars, var_pairs

from support.constrained_spaces import check_exact, space_graphs


def _undirected5():
    # seed 0; wave 1: 1, 2; wave 2: 3, 4
    ties = [(0, 1), (0, 2), (1, 3), (2, 4), (3, 4), (1, 2)]
    return Network(5, ties, False, node_attrs={"zone": [0, 1, 1, 2, 2]})


def _undirected6():
    # seeds 0, 1; wave 1: 2, 3; wave 2: 4, 5 (six free dyads among waves 0 and 1)
    ties = [(0, 2), (1, 2), (0, 3), (2, 4), (3, 5), (4, 5)]
    return Network(6, ties, False, node_attrs={"zone": [0, 0, 1, 1, 2, 2]})


def _directed4():
    # seed 0; wave 1: 1, 2 (reached through arcs in either direction); wave 2: 3
    ties = [(0, 1), (2, 0), (1, 2), (1, 3), (3, 2)]
    return Network(4, ties, True, node_attrs={"zone": [0, 1, 1, 2]})


def _brute_force_space(net):
    """Every network that agrees with ``net`` outside the free dyads and keeps each node of
    wave w >= 1 tied (either direction) to wave w - 1, by its definition."""
    z = np.array(net.node_attrs["zone"])
    last = z.max()
    n_all = net.n * (net.n - 1) // (1 if net.directed else 2)
    allp = var_pairs(net.n, net.directed, np.arange(n_all))
    free = np.array([abs(z[i] - z[j]) <= 1 and max(z[i], z[j]) < last for i, j in allp])
    obs = set(dyad_vars(net.n, net.directed, net.ties).tolist())
    base = np.array([k in obs for k in range(n_all)])
    out = set()
    for bits in itertools.product([False, True], repeat=int(free.sum())):
        on = base.copy()
        on[free] = bits
        ties = allp[on]
        ok = all(any(z[a] == z[u] - 1 for i, j in ties for a, b in ((i, j), (j, i)) if b == u)
                 for u in range(net.n) if z[u] > 0)
        if ok:
            out.add(tuple(np.flatnonzero(on).tolist()))
    return out


@pytest.mark.parametrize("make", [_undirected6, _directed4])
def test_snowball_space_is_the_conditional_design(make):
    net = make()
    m = ef.ERGM(net, "edges", constraints='~ snowball("zone")')
    got = {k for k, _ in space_graphs(m)}
    assert got == _brute_force_space(net)
    assert len(got) >= 10


@pytest.mark.parametrize("make, formula, theta", [
    (_undirected6, "edges + triangle", [-0.4, 0.8]),
    (_directed4, "edges + mutual", [-0.3, 0.9]),
    # the Epinions model's directed alternating kernels (held two-path counts) under the
    # constraint's moves
    (_directed4, "Arc + Reciprocity + AltInStars + AltKTrianglesT + AltTwoPathsT",
     [-0.5, 0.8, -0.4, 0.6, -0.3]),
])
def test_snowball_proposal_is_exact(make, formula, theta):
    m = ef.ERGM(make(), formula, constraints='~ snowball("zone")')
    sampler, cm = m.sampler(theta, random_state=7)
    counts = check_exact(m, space_graphs(m), np.asarray(theta, float), sampler, cm, 5000, 40)
    assert (counts > 0).sum() > 5


def test_snowball_mple_design_leaves_out_pinned_ties():
    # node 2's only tie to wave 0 is 0-2 (1-2 is within wave 1): pinned; node 1 has 0-1
    # only: pinned; the last wave's ties (1-3, 2-4, 3-4) are fixed, not free
    m = ef.ERGM(_undirected5(), "edges", constraints='~ snowball("zone")')
    design = set(m.sample_space.design_vars().tolist())
    pinned = set(dyad_vars(5, False, [(0, 1), (0, 2)]).tolist())
    free = set(m.sample_space.free_vars().tolist())
    assert free == set(dyad_vars(5, False, [(0, 1), (0, 2), (1, 2)]).tolist())
    assert design == free - pinned
    # a second tie to the previous wave frees both
    net = Network(5, [(0, 2), (1, 2), (1, 3), (3, 4)], False,
                  node_attrs={"zone": [0, 0, 1, 1, 2]})
    m = ef.ERGM(net, "edges", constraints='~ snowball("zone")')
    design = set(m.sample_space.design_vars().tolist())
    assert set(dyad_vars(5, False, [(0, 2), (1, 2)]).tolist()) <= design
    assert not set(dyad_vars(5, False, [(1, 3), (3, 4), (2, 4)]).tolist()) & design


def _heavy_tailed_digraph(n, seed):
    rng = np.random.default_rng(seed)
    w = rng.pareto(2.0, n) + 1
    a, b = (rng.choice(n, 4 * n, p=w / w.sum()) for _ in range(2))
    return Network(n, np.unique(np.column_stack([a, b])[a != b], axis=0), True)


@pytest.mark.parametrize("seed", [1, 2])
def test_snowball_free_dyads_have_the_full_networks_change_statistics(seed):
    # Pattison et al. (2013): conditional estimation is exact because every free dyad's
    # change statistics are those of the full network; a dyad touching the last wave
    # would see that wave's ties to unsampled nodes missing (its degrees, two-paths)
    net = _heavy_tailed_digraph(800, seed)
    formula = "Arc + Reciprocity + AltInStars + AltOutStars + AltKTrianglesT + AltTwoPathsT"
    full = ef.ERGM(net, formula).compiled()
    checked = 0
    for s in ef.snowball_samples(net, 3, n_seeds=3, waves=2, random_state=seed):
        m = s.model(formula)
        v = m.sample_space.free_vars()
        pairs = var_pairs(s.network.n, True, v)
        assert (s.zones[pairs] < s.zones.max()).all()
        got = m.compiled().change_matrix(v)
        want = full.change_matrix(dyad_vars(net.n, True, s.nodes[pairs]))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
        checked += len(v)
    assert checked > 100


@pytest.mark.parametrize("net, match", [
    (Network(3, [(0, 1), (1, 2)], False, node_attrs={"zone": [0, 1, 3]}), "every wave"),
    (Network(3, [(0, 1), (0, 2)], False, node_attrs={"zone": [0, 1, 2]}), "joins waves 0 and 2"),
    (Network(4, [(0, 1), (2, 3)], False, node_attrs={"zone": [0, 1, 1, 2]}), "no tie to wave 0"),
    (Network(3, [(0, 1)], False, node_attrs={"zone": [0, 0, 0]}), "every node is a seed"),
    (Network(3, [(0, 1)], False, node_attrs={"zone": [0, "a", 1]}), "whole numbers"),
    (Network(3, [(0, 1)], False, node_attrs={"zone": [0, 1.5, 1]}), "whole numbers"),
])
def test_snowball_constraint_refuses_what_is_no_snowball_sample(net, match):
    with pytest.raises(NetworkError, match=match):
        ef.ERGM(net, "edges", constraints='~ snowball("zone")')


def test_snowball_constraint_argument_errors():
    net = _undirected5()
    with pytest.raises(FormulaError, match="snowball"):
        ef.ERGM(net, "edges", constraints="~ snowball()")
    with pytest.raises(TermError, match="no node attribute 'wave'"):
        ef.ERGM(net, "edges", constraints='~ snowball("wave")')
    with pytest.raises(FormulaError, match="snowball"):
        ef.ERGM(net, "edges", constraints=("~ snowball('zone') + bd(attribs=A, maxout=2)",
                                           {"A": np.ones((5, 1), bool)}))


@pytest.mark.parametrize("directed", [False, True])
def test_snowball_samples_have_the_design(directed):
    g = nx.gnm_random_graph(600, 1500, seed=3, directed=directed)
    samples = ef.snowball_samples(g, 4, n_seeds=3, waves=2, random_state=11)
    seeds = [set(s.nodes[s.zones == 0].tolist()) for s in samples]
    for k, s in enumerate(samples):
        z = np.asarray(s.network.node_attrs["zone"])
        assert (z == s.zones).all() and list(np.sort(z)) == list(z)
        assert s.n_waves == 3 and s.wave_sizes[0] == 3
        # the sample is the induced subnetwork, labels those of g
        full = {(a, b) for a, b in g.edges()}
        sub = {(s.network.labels[i], s.network.labels[j]) for i, j in s.network.ties}
        nodes = set(s.network.labels)
        want = {(a, b) for a, b in full if a in nodes and b in nodes}
        if not directed:
            want = {tuple(sorted(e)) for e in want}
            sub = {tuple(sorted(e)) for e in sub}
        assert sub == want
        # wave w is every neighbour of wave w - 1 not in an earlier wave
        und = g.to_undirected() if directed else g
        lab = dict(zip(s.network.labels, z))
        for w in (1, 2):
            prev = {u for u, zz in lab.items() if zz == w - 1}
            nxt = set().union(*(set(und[u]) for u in prev)) - {u for u, zz in lab.items()
                                                               if zz < w}
            assert nxt == {u for u, zz in lab.items() if zz == w}
        # the constraint accepts it; no node is a seed of two samples
        s.model("edges")
        for j in range(k):
            assert not seeds[k] & seeds[j]
    again = ef.snowball_samples(g, 4, n_seeds=3, waves=2, random_state=11)
    assert all((a.nodes == b.nodes).all() for a, b in zip(samples, again))
    other = ef.snowball_samples(g, 4, n_seeds=3, waves=2, random_state=12)
    assert any(len(a.nodes) != len(b.nodes) or (a.nodes != b.nodes).any()
               for a, b in zip(samples, other))


def test_snowball_seeds_are_drawn_from_every_node():
    # Stivala et al. (2016) / EstimNetDirected: n_samples * n_seeds distinct seeds drawn
    # uniformly among all nodes.  On K_8, one seed's first wave is every other node: drawing
    # later seeds outside the earlier samples would leave none (the old design raised here)
    g = nx.complete_graph(8)
    samples = ef.snowball_samples(g, 4, n_seeds=2, waves=1, random_state=5)
    seeds = [s.nodes[s.zones == 0].tolist() for s in samples]
    assert sorted(sum(seeds, [])) == sorted(set(sum(seeds, [])))
    assert all(s.wave_sizes == [2, 6] for s in samples)
    # every node is equally likely to be a seed of the first sample, hubs included: on a
    # star, the hub is among sample 1's 2 seeds (of 21 nodes) in 2/21 of draws, and so in
    # every sample; with seeds outside the earlier samples, a 1-wave sample from the hub
    # or a leaf takes the hub, and later samples never have it as a seed
    star = nx.star_graph(20)
    n_rep = 800
    hub_first = hub_later = hub_later_outside = 0
    for rep in range(n_rep):
        a = ef.snowball_samples(star, 3, n_seeds=2, waves=1, random_state=rep)
        hub_first += 0 in a[0].nodes[a[0].zones == 0]
        hub_later += 0 in a[2].nodes[a[2].zones == 0]
        if rep < 50:        # (no seed is left after a first sample with the hub as seed)
            try:
                b = ef.snowball_samples(star, 3, n_seeds=2, waves=1, random_state=rep,
                                        seeds_outside_samples=True)
            except SettingsError:
                continue
            hub_later_outside += sum(0 in s.nodes[s.zones == 0] for s in b[1:])
    p, sd = 2 / 21, (2 / 21 * 19 / 21 / n_rep) ** 0.5
    assert abs(hub_first / n_rep - p) < 4 * sd and abs(hub_later / n_rep - p) < 4 * sd
    assert hub_later_outside == 0
    with pytest.raises(SettingsError, match="distinct seeds"):
        ef.snowball_samples(g, 5, n_seeds=2, waves=1, random_state=1)
    with pytest.raises(SettingsError, match="seeds_outside_samples"):
        ef.snowball_samples(g, 2, n_seeds=2, waves=1, seeds_outside_samples="yes")


def test_snowball_sampling_errors_and_input_untouched():
    g = nx.path_graph(6)
    before = nx.to_dict_of_dicts(g)
    with pytest.raises(SettingsError, match="n_seeds"):
        ef.snowball_samples(g, 1, n_seeds=0, waves=1)
    with pytest.raises(SettingsError, match="waves"):
        ef.snowball_samples(g, 1, n_seeds=1, waves=1.5)
    with pytest.raises(SettingsError, match="nodes are left"):
        ef.snowball_samples(g, 3, n_seeds=3, waves=1, random_state=1,
                            seeds_outside_samples=True)
    nx.set_node_attributes(g, 1, "zone")
    with pytest.raises(SettingsError, match="zone_attr"):
        ef.snowball_sample(g, 1, 1)
    s = ef.snowball_sample(g, 1, 1, random_state=0, zone_attr="wave")
    assert s.constraints == '~ snowball("wave")'
    assert nx.to_dict_of_dicts(g) == before and all(d["zone"] == 1 for _, d in g.nodes(data=True))


def test_meta_analysis_is_inverse_variance_weighted():
    est = np.array([[1.0, 0.5], [2.0, 0.7], [4.0, np.nan], [3.0, 0.6]])
    se = np.array([[0.5, 0.1], [1.0, 0.2], [1.0, 0.1], [0.0, 0.1]])
    m = ef.meta_analysis(est, se, labels=["a", "b"])
    assert m.used.tolist() == [True, True, False, False]
    w = 1 / se[:2] ** 2
    theta = (w * est[:2]).sum(0) / w.sum(0)
    assert np.allclose(m.params, theta) and np.allclose(m.bse, w.sum(0) ** -0.5)
    assert np.allclose(m.q, (w * (est[:2] - theta) ** 2).sum(0))
    assert m.params.labels == ["a", "b"] and m.n_used == 2
    assert "2 of 4 samples" in m.summary() and "[3, 4]" in m.summary()
    assert m.left_out() == {"no finite estimate or standard error": [3, 4]}
    assert ef.meta_analysis(est, se, usable=[True, False, True, True]).left_out() == {
        "excluded by the caller": [2], "no finite estimate or standard error": [3, 4]}
    ci = m.conf_int()
    assert np.allclose(ci[:, 1] - ci[:, 0], 2 * 1.959964 * m.bse, rtol=1e-5)
    with pytest.raises(SettingsError, match="nothing to combine"):
        ef.meta_analysis([[1.0]], [[np.inf]])
    with pytest.raises(SettingsError, match="shape"):
        ef.meta_analysis([[1.0, 2.0]], [[1.0]])


def test_meta_analysis_random_effects_widen_the_se_of_disagreeing_samples():
    # DerSimonian-Laird by hand: estimates 0, 2, 4 with s.e. 1, 1, 2 (weights 1, 1, 1/4)
    est, se = np.array([[0.0], [2.0], [4.0]]), np.array([[1.0], [1.0], [2.0]])
    m = ef.meta_analysis(est, se)
    w = np.array([1.0, 1.0, 0.25])
    theta = (w * est[:, 0]).sum() / w.sum()
    q = (w * (est[:, 0] - theta) ** 2).sum()
    tau2 = (q - 2) / (w.sum() - (w ** 2).sum() / w.sum())
    w_re = 1 / (se[:, 0] ** 2 + tau2)
    assert np.isclose(m.q[0], q) and np.isclose(m.tau2[0], tau2) and tau2 > 0
    assert np.isclose(m.re_params[0], (w_re * est[:, 0]).sum() / w_re.sum())
    assert np.isclose(m.re_bse[0], w_re.sum() ** -0.5) and m.re_bse[0] > m.bse[0]
    assert "RE s.e." in m.summary()
    # samples that agree within their s.e. (Q < N - 1): tau^2 = 0, the fixed-effect figures
    m = ef.meta_analysis([[1.0], [1.2], [0.9]], [[1.0], [1.0], [1.0]])
    assert m.tau2[0] == 0 and np.isclose(m.re_params[0], m.params[0])
    assert np.isclose(m.re_bse[0], m.bse[0])


def _gnp_samples(seed):
    # 10 seeds: the free dyads are those among waves 0 and 1 only (about 70 nodes)
    g = nx.gnp_random_graph(1500, 0.004, seed=seed)
    return ef.snowball_samples(g, 6, n_seeds=10, waves=2, random_state=seed + 1)


def test_fit_snowball_recovers_density():
    # G(n, p) with p = 0.004: the conditional MPLE of edges, combined over 6 samples, against
    # the truth in combined s.e. (z), on 8 networks.  Measured over 30 networks (seeds 100-129):
    # mean z +0.6 (inverse-variance weights favour samples with more ties), sd 1.2, max |z|
    # 2.6; a single network's |z| reaches 3 now and then (network 31: 3.04), so the check is
    # on the mean over 8 networks (s.e. about 0.4) and a looser bound per network
    truth = np.log(0.004 / 0.996)
    z = []
    for seed in (21, 31, 41, 51, 61, 71, 81, 91):
        one = ef.fit_snowball(_gnp_samples(seed), "edges", method="mple", random_state=5)
        assert one.n_used == 6 and len(one.samples) == 6
        z.append((one.params[0] - truth) / one.bse[0])
    assert abs(np.mean(z)) < 1.6 and np.max(np.abs(z)) < 4


def test_fit_snowball_threads_equal_serial():
    samples = _gnp_samples(21)
    one = ef.fit_snowball(samples, "edges", method="mple", random_state=5)
    two = ef.fit_snowball(samples, "edges", method="mple", random_state=5, n_jobs=2,
                          backend="threading")
    assert np.allclose(one.params, two.params) and np.allclose(one.bse, two.bse)


@pytest.mark.slow
def test_fit_snowball_on_processes_and_dask_equals_serial():
    distributed = pytest.importorskip("distributed")
    samples = _gnp_samples(21)
    one = ef.fit_snowball(samples, "edges", method="mple", random_state=5)
    loky = ef.fit_snowball(samples, "edges", method="mple", random_state=5, n_jobs=2)
    assert np.allclose(one.params, loky.params) and np.allclose(one.bse, loky.bse)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        dask = ef.fit_snowball(samples, "edges", method="mple", random_state=5, n_jobs=2,
                               backend="dask")
    assert np.allclose(one.params, dask.params) and np.allclose(one.bse, dask.bse)
    assert len({r["pid"] for r in dask.samples}) >= 1


def test_fit_snowball_errors():
    with pytest.raises(SettingsError, match="SnowballSample"):
        ef.fit_snowball([], "edges")
    s = ef.snowball_samples(nx.path_graph(8), 1, 1, 1, random_state=1)
    with pytest.raises(SettingsError, match="formula"):
        ef.fit_snowball(s, 3)


def test_a_sample_without_information_is_left_out_not_fatal():
    # a 1-wave sample of one seed has no free dyad (its last wave is conditioned on), so
    # nothing can vary there (an error in that sample's fit)
    tree = nx.balanced_tree(3, 4)
    samples = ef.snowball_samples(tree, 2, n_seeds=1, waves=1, random_state=1)
    g = nx.gnp_random_graph(300, 0.03, seed=2)
    samples += ef.snowball_samples(g, 2, n_seeds=5, waves=2, random_state=3)
    fit = ef.fit_snowball(samples, "edges + triangle", method="mple", random_state=4)
    assert [r["error"] is not None for r in fit.samples][:2] == [True, True]
    assert not fit.used[:2].any() and "left out" in fit.summary()
    assert fit.left_out()["no information (the fit raised an error)"] == [1, 2]


def test_ee_auto_settings_read_the_free_dyads_not_the_whole_sample():
    # a seed, 5 nodes in wave 1 and 1,095 in the outermost wave: 1,211,100 ordered dyads,
    # of which only the 30 among waves 0 and 1 vary.  EE's "auto" settings are those of a
    # model of 30 variables (until session 15 they read the whole sample's dyads and
    # chose the Borisenko update, EstimNet's burn-in and s.e., and no polish)
    from ergmfit.estimation.ee.estimator import EE
    n = 1101
    ties = [(0, k) for k in range(1, 6)] + [(1 + k % 5, k) for k in range(6, n)]
    zone = [0] + [1] * 5 + [2] * (n - 6)
    net = Network(n, ties, True, node_attrs={"zone": zone})
    m = ef.ERGM(net, "edges + mutual", constraints='~ snowball("zone")')
    assert net.n_dyads > 10**6 and len(m.sample_space.free_vars()) == 30
    cfg = EE(ee_steps=200, ee_inner_steps=100).resolved_settings(m)
    assert cfg["update"] == "newton" and cfg["burnin"] == 0.2 and cfg["polish"] is True
    assert cfg["se"] == "simulate" and cfg["learning_rate"] == (0.01, 0.001)
    # the same network unconstrained is a large one
    cfg = EE(ee_steps=200, ee_inner_steps=100).resolved_settings(ef.ERGM(net, "edges + mutual"))
    assert cfg["update"] == "borisenko" and cfg["burnin"] == 10_001 and cfg["polish"] is False


def _no_free_triangle():
    # seeds 0, 1; wave 1: 2-5 (3 and 4 reached by one tie each: pinned); wave 2: 6-8.
    # No free tie lies in a triangle, so the triangle count is at its least over the
    # space: the conditional MLE of `triangle` is -Inf
    ties = [(0, 2), (1, 2), (0, 3), (1, 4), (0, 5), (1, 5), (3, 4), (3, 6), (4, 7), (2, 8)]
    return Network(9, ties, False, node_attrs={"zone": [0, 0, 1, 1, 1, 1, 2, 2, 2]})


def test_snowball_existence_checks_apply_to_dependent_models():
    """The existence checks (dead and collinear statistics, the separation direction that
    the chains confirm) apply on a snowball sample's space, whose design dyads' toggles
    are its moves from the observed network; until session 17 they were skipped there
    (the space has degree bounds, so it is not dyad-independent)."""
    from ergmfit.estimation.mple.existence import observed_design
    m = ef.ERGM(_no_free_triangle(), "edges + triangle", constraints='~ snowball("zone")')
    assert m.sample_space.toggles_design and not m.sample_space.dyad_independent
    od = observed_design(m, m.compiled())
    assert od is not None
    d = od.direction
    assert d is not None and d[1] < 0 and abs(d[0]) < 1e-9 * abs(d[1])
    # a dyad-independent model's MLE on this space is not its MPLE: left to the MPLE
    assert observed_design(ef.ERGM(_no_free_triangle(), "edges",
                                   constraints='~ snowball("zone")'), None) is None
    # a space with an upper degree bound: a design dyad's toggle may leave it
    bd = ef.ERGM(_no_free_triangle(), "edges + triangle", constraints="~ bd(maxout=3)")
    assert not bd.sample_space.toggles_design


def test_snowball_ee_without_an_mle_raises():
    """Conditional EE of a sample whose conditional MLE does not exist stops with the
    reason (the chains confirm the separation), instead of reporting where it stopped."""
    from ergmfit.exceptions import DegenerateModelError
    m = ef.ERGM(_no_free_triangle(), "edges + triangle", constraints='~ snowball("zone")')
    with pytest.raises(DegenerateModelError, match="does not exist"):
        m.fit(method="ee", init=[0.0, 0.0], random_state=1, ee_steps=10)
