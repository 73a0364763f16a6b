"""Constrained sample spaces: exact proposals (enumeration), never leaving the
space, the restricted MPLE design, and statnet 4.4's constrained fits."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import FormulaError, NetworkError, SettingsError
from ergmfit.sampling.space import ConstrainedSpace, dyad_vars
from ergmfit.utils.validation import seed_words

from support import constraints_reference as cr
from support.constrained_spaces import check_exact, space_graphs


def _small_graphs():
    g = nx.Graph()
    g.add_nodes_from(range(5))
    g.add_edges_from([(0, 1), (1, 2), (2, 3), (3, 4), (0, 2)])
    for i in g:
        g.nodes[i]["b"] = "x" if i < 3 else "y"
    dg = nx.DiGraph()
    dg.add_nodes_from(range(4))
    dg.add_edges_from([(0, 1), (1, 2), (2, 0), (2, 3), (3, 1)])
    for i in dg:
        dg.nodes[i]["b"] = "x" if i < 2 else "y"
    return g, dg


G, DG = _small_graphs()
CASES = [
    (G, "edges + triangle", [-0.3, 0.4], "~ blockdiag('b')", None),
    (G, "edges + triangle", [-0.3, 0.4],
     ("~ fixallbut(fr)", {"fr": [(0, 1), (1, 3), (2, 4), (3, 4), (0, 4), (1, 2)]}), None),
    (G, "edges + triangle", [-0.3, 0.4], "~ fixedas(present=[[0,1]], absent=[[1,4]])", None),
    (G, "edges + triangle", [-0.3, 0.4], "~ bd(maxout=3)", None),
    (G, "edges + triangle", [-0.3, 0.4], "~ bd(minout=1, maxout=3) + blockdiag('b')", None),
    (G, "kstar(2) + triangle", [0.2, 0.3], "~ edges + bd(maxout=3, minout=1)", None),
    (nx.cycle_graph(6), "triangle", [0.7], "~ degrees", None),
    (G, "edges + triangle", [-0.3, 0.4], "~ observed", [(0, 3), (1, 4), (0, 1)]),
    (DG, "edges + mutual", [-0.2, 0.8], "~ bd(maxout=2, minin=1)", None),
    (DG, "mutual + ttriple", [0.6, 0.3], "~ degrees", None),
    (DG, "mutual + ttriple", [0.6, 0.3], "~ odegrees", None),
    (DG, "mutual + ttriple", [0.6, 0.3], "~ idegrees", None),
    (DG, "mutual", [0.6], "~ edges + blockdiag('b')", None),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_constrained_proposal_is_exact(case):
    g, formula, theta, cons, missing = CASES[case]
    m = ef.ERGM(g, formula, constraints=cons, missing=missing)
    sampler, cm = m.sampler(theta, random_state=case + 1)
    check_exact(m, space_graphs(m), theta, sampler, cm, 6000, 60)


def test_missing_conditional_space_is_exact():
    m = ef.ERGM(G, "edges + triangle", missing=[(0, 3), (1, 4), (0, 1)])
    sp = m.sample_space.conditional()
    assert sp.n_free == 3 and sp.kind == "constrained"
    cm = m.compiled()
    sampler = sp.make_sampler(cm, sp.proposal("auto", cm, m), seed_words(3))
    theta = np.array([-0.3, 0.4])
    seen = set()
    for _ in range(300):
        sampler.run(theta, 5)
        ties = cm.state.ties()
        sp.check(ties)
        seen.add(tuple(np.sort(dyad_vars(5, False, ties))))
    assert len(seen) == 8                   # 2^3 completions of the missing dyads


def test_degree_moves_keep_degrees_on_a_real_network():
    m = ef.ERGM(ef.datasets.load("faux.mesa.high"), "edges + gwesp(0.25, fixed=TRUE)",
                constraints="~ degrees")
    S = m.simulate([0.0, 0.5], n=20, burnin=1000, interval=500, output="networks",
                   random_state=2)
    deg0 = np.bincount(m.network.ties.ravel(), minlength=m.network.n)
    for net in S:
        assert (np.bincount(net.ties.ravel(), minlength=net.n) == deg0).all()
    assert any(len(set(map(tuple, net.ties)) ^ set(map(tuple, m.network.ties))) for net in S)


def test_restricted_mple_is_logistic_regression_on_free_dyads():
    g = ef.datasets.load("faux.mesa.high")
    m = ef.ERGM(g, "edges + nodematch('Sex')", constraints="~ blockdiag('Grade')")
    res = m.fit(method="mple")
    # the same fit by hand: a logistic regression on the within-grade dyads
    net = m.network
    grade = np.array(net.node_attrs["Grade"])
    sex = np.array(net.node_attrs["Sex"])
    i, j = np.triu_indices(net.n, 1)
    within = grade[i] == grade[j]
    A = np.zeros((net.n, net.n), bool)
    A[net.ties[:, 0], net.ties[:, 1]] = True
    A |= A.T
    y = A[i, j][within].astype(float)
    X = np.column_stack([np.ones(within.sum()), (sex[i] == sex[j])[within]])
    beta = np.zeros(2)
    for _ in range(30):
        mu = 1 / (1 + np.exp(-X @ beta))
        beta += np.linalg.solve(X.T @ (X * (mu * (1 - mu))[:, None]), X.T @ (y - mu))
    np.testing.assert_allclose(np.asarray(res.params, float), beta, atol=1e-8)
    assert m.sample_space.n_free == int(within.sum())


def test_missing_mple_is_logistic_regression_on_observed_dyads():
    g = ef.datasets.load("flomarriage")
    miss = [(1, 9), (2, 3), (5, 7), (10, 12)]
    m = ef.ERGM(g, "edges", missing=miss)
    assert m.sample_space.n_missing == 4
    net = m.network
    n_obs = net.n_dyads - 4
    ties_obs = len(net.ties)         # ties on missing dyads were dropped
    assert ties_obs == g.number_of_edges() - sum(g.has_edge(u, v) for u, v in miss)
    p = ties_obs / n_obs
    assert float(np.asarray(m.fit(method="mple").params)[0]) == pytest.approx(np.log(p / (1 - p)))


def test_missing_from_edge_attribute_and_matrix():
    g = nx.path_graph(5)
    g.edges[1, 2]["na"] = True
    m = ef.ERGM(g, "edges")
    assert m.missing_dyads == [[1, 2]] and m.network.n_ties == 3
    M = np.zeros((5, 5))
    M[0, 4] = M[4, 0] = np.nan
    assert ef.ERGM(nx.path_graph(5), "edges", missing=M).missing_dyads == [[0, 4]]


@pytest.mark.parametrize("entry_id", [
    "s2.bd.samplike.MPLE", "s2.bd.lazega.MPLE", "s2.degrees.faux.mesa.high.MPLE",
    "s2.odegrees.faux.desert.high.MPLE", "s2.edges.lazega.MPLE", "s2.blockdiag.samplike.MPLE",
    "s2.blockdiag.faux.mesa.high.MPLE", "s2.fixedas.flomarriage.MPLE",
    "s2.fixallbut2.flomarriage.MPLE", "s2.fixallbut_bipattr.samplike.MPLE",
    "s2.Dyads_fix.lazega.MPLE", "s2.Dyads_vary.samplike.MPLE", "s3.na.mesa_grade.MPLE",
    "s3.offset.flomarriage.MPLE", "s3.offset.samplike.MPLE", "s3.offset.mesa_dyadindep.MPLE",
    "s3.target.samplike_mutual.MPLE"])
def test_mple_equals_statnet(entry_id):
    e = next(x for x in cr.entries() if x["id"] == entry_id)
    for lab, ours, theirs, z, se_ratio in cr.compare(e, cr.fit(e, random_state=1)):
        assert ours == pytest.approx(theirs, abs=1e-6), lab
        if not lab.startswith("offset("):
            assert se_ratio == pytest.approx(1.0, abs=1e-4), lab


@pytest.mark.parametrize("entry_id", [
    "s2.bd.samplike.MLE.s101", "s2.degrees.samplike.MLE.s101", "s2.blockdiag.samplike.MLE.s101",
    "s2.edges.samplike.MLE.s101", "s3.target.flomarriage.MLE.s101",
    "s3.target.flomarriage.MPLE"])
def test_fits_within_statnet_tolerance(entry_id):
    e = next(x for x in cr.entries() if x["id"] == entry_id)
    res = cr.fit(e, random_state=1)
    for lab, ours, theirs, z, se_ratio in cr.compare(e, res):
        assert z < 0.25, (lab, ours, theirs)
        assert 0.8 < se_ratio < 1.2, (lab, se_ratio)
    # the null model's degrees of freedom: the dyads the constraints let vary (blockdiag: 96)
    assert res.nobs == e["null_df"]


def test_constraint_errors_are_clear():
    g = ef.datasets.load("flomarriage")
    with pytest.raises(FormulaError, match="unknown constraint"):
        ef.ERGM(g, "edges", constraints="~ nonsense")
    with pytest.raises(FormulaError, match="directed"):
        ef.ERGM(g, "edges", constraints="~ odegrees")
    with pytest.raises(NetworkError, match="bounds"):
        ef.ERGM(g, "edges", constraints="~ bd(maxout=2)")
    with pytest.raises(FormulaError, match="not implemented"):
        ef.ERGM(g, "edges", constraints="~ idegreedist")
    with pytest.raises(FormulaError, match="no dyad list"):
        ef.ERGM(g, "edges", constraints="~ fixallbut(free)")
    m = ef.ERGM(g, "edges + triangle", constraints="~ degrees")
    with pytest.raises(SettingsError, match="own proposal"):
        m.simulate([0, 0], proposal="triadic")
    with pytest.raises(FormulaError, match="missing dyads"):
        ef.ERGM(g, "edges", missing=[(1, 9)]).fit(method="bcd")    # (CD takes them since #18)
    with pytest.raises(NetworkError, match="fixed"):
        ef.ERGM(g, "edges", constraints="~ blockdiag('priorates')").simulate(
            [0], start=np.array([[0, 1]]))


def test_offsets_and_target_stats():
    g = ef.datasets.load("flomarriage")
    m = ef.ERGM(g, "offset(edges) + triangle")
    assert m.labels == ["offset(edges)", "triangle"]
    with pytest.raises(Exception, match="offset_coef"):
        m.fit(method="mple")
    r = m.fit(method="mple", offset_coef=[-1.7])
    assert float(np.asarray(r.params)[0]) == -1.7
    # a -Inf offset is a structural zero: those dyads leave the design
    g2 = ef.datasets.load("faux.mesa.high")
    m2 = ef.ERGM(g2, "edges + offset(nodematch('Sex'))")
    with pytest.raises(Exception, match="forbids"):
        m2.fit(method="mple", offset_coef=[-np.inf])
    with pytest.raises(FormulaError, match="target_stats"):
        ef.ERGM(g, "edges").fit(method="mple", target_stats=[1, 2])


def test_constraints_survive_pickling_and_simulate():
    import pickle
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges", constraints="~ bd(maxout=6) + edges",
                missing=[(1, 9)])
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.sample_space.describe() == m.sample_space.describe()
    assert m2.missing_dyads == m.missing_dyads
    S = m.simulate([0.0], n=5, output="stats", random_state=1)
    assert (S[:, 0] == m.statistics_vector()[0]).all()
    assert isinstance(m.with_constraints("~ blockdiag('priorates')").sample_space, ConstrainedSpace)


def test_contrastive_divergence_draws_undo_multi_toggle_moves():
    m = ef.ERGM(ef.datasets.load("faux.mesa.high"), "edges + gwesp(0.25, fixed=TRUE)",
                constraints="~ degrees")
    theta = np.array([0.0, 0.5])
    sampler, cm = m.sampler(theta, random_state=1)
    before = set(map(tuple, cm.state.ties()))
    Z = sampler.cd_sample(theta, 50, 200)
    assert (Z[:, 0] == 0).all() and Z[:, 1].std() > 0      # degrees kept, moves made
    assert set(map(tuple, cm.state.ties())) == before        # every run undone
    assert sampler.acceptance_rate > 0


def test_blocks_and_dyads_free_sets():
    g = ef.datasets.load("faux.mesa.high")
    net = ef.ERGM(g, "edges").network
    sex = ef.ERGM(g, "edges", constraints="~ blockdiag('Sex')").sample_space
    # two levels (F, M): nodemix order (F,F), (F,M), (M,M); fixing the mixed type is blockdiag
    blocks = ef.ERGM(g, "edges", constraints="~ blocks('Sex', levels2=2)").sample_space
    np.testing.assert_array_equal(blocks.free_vars(), sex.free_vars())
    vary = ef.ERGM(g, "edges", constraints="~ dyads(vary=~nodematch('Sex'))").sample_space
    np.testing.assert_array_equal(vary.free_vars(), sex.free_vars())
    fix = ef.ERGM(g, "edges", constraints="~ Dyads(fix=~nodematch('Sex'))").sample_space
    assert len(fix.free_vars()) + len(sex.free_vars()) == net.n_dyads
    assert ef.ERGM(g, "edges", constraints="~ blocks('Sex', levels2=TRUE)").sample_space.n_free == 0
