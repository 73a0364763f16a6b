"""N() and L() (ergm.multi 0.1.2): statnet's labels and values, change statistics, errors."""
import warnings

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from conftest import load_reference
from ergmfit.exceptions import ErgmfitError, TermError
from support.multi_networks import DATASETS, lazega_multiplex, samplk3w

CASES = load_reference("statnet_multi.json")["cases"]
SUMMARIES = [c for c in CASES if c["kind"] == "summary"]


def _formula(case):
    return case["formula"].split("~", 1)[1].strip()


@pytest.fixture(scope="module")
def data():
    return {k: make() for k, make in DATASETS.items()}


@pytest.mark.parametrize("case", SUMMARIES, ids=[c["id"] for c in SUMMARIES])
def test_summary_equals_ergm_multi(case, data):
    got = ef.ERGM(data[case["dataset"]], _formula(case)).statistics()
    assert list(got) == list(case["stats"])
    np.testing.assert_allclose(list(got.values()), list(case["stats"].values()),
                               rtol=0, atol=1e-9)


def test_n_is_the_lm_weighted_sum_over_networks():
    waves = [ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)]
    size = [3.5, -1.0, 2.0]
    nets = ef.Networks(waves, attrs={"wave": [1, 2, 3], "size": size,
                                     "kind": ["a", "b", "a"]})
    f = "edges + mutual + ttriple + nodematch('group') + isolates"
    per = np.array([list(ef.ERGM(g, f).statistics().values()) for g in waves])
    got = ef.ERGM(nets, f"N(~{f}, lm=~size + kind)").statistics()
    X = np.array([[1, s, k == "b"] for s, k in zip(size, ["a", "b", "a"])], dtype=float)
    want = (X.T @ per).T.reshape(-1)                    # statistic-major, as statnet
    assert list(got)[:3] == ["N(1)~edges", "N(size)~edges", "N(kindb)~edges"]
    np.testing.assert_allclose(list(got.values()), want, atol=1e-9)
    # no intercept, a factor of the network number: each network on its own
    got = ef.ERGM(nets, "N(~edges, lm=~0 + factor(.NetworkID))").statistics()
    assert got == {f"N(factor(.NetworkID){b})~edges": float(per[b - 1, 0]) for b in (1, 2, 3)}
    # a function of a numeric attribute (R's names for the column)
    got = ef.ERGM(nets, "N(~edges, lm=~log(wave))").statistics()
    assert list(got) == ["N(1)~edges", "N(log(wave))~edges"]
    np.testing.assert_allclose(list(got.values()),
                               [per[:, 0].sum(), np.log([1, 2, 3]) @ per[:, 0]], rtol=1e-12)
    # subset: the networks where the expression holds
    got = ef.ERGM(nets, "N(~edges, subset=~wave > 1)").statistics()
    assert got == {"N(1)~edges": float(per[1:, 0].sum())}


def _check_changes(model, seed, k=25):
    """Within the sample space: change = difference of full statistics, toggling restores."""
    rng = np.random.default_rng(seed)
    c = model.compiled()
    free = model.sample_space.free_dyads()
    ties = {tuple(t) for t in model.network.ties.tolist()}
    for i, j in free[rng.choice(len(free), k, replace=False)].tolist():
        def full(ts):
            arr = np.array(sorted(ts), dtype=np.int64).reshape(-1, 2)
            return model.statistics_vector(arr[rng.permutation(len(arr))])
        want = full(ties | {(i, j)}) - full(ties - {(i, j)})
        np.testing.assert_allclose(c.dyad_change_stats(i, j), want, atol=1e-9)
        c.toggle(i, j)
        np.testing.assert_allclose(c.dyad_change_stats(i, j), want, atol=1e-9)
        c.toggle(i, j)
    np.testing.assert_allclose(model.statistics_vector(c.state.ties()),
                               model.statistics_vector(), atol=1e-9)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_change_statistics_of_n(directed, seed):
    rng = np.random.default_rng(seed)
    gs = [nx.gnp_random_graph(n, 0.3, seed=int(rng.integers(1000)), directed=directed)
          for n in (5, 8, 6)]
    for g in gs:
        nx.set_node_attributes(g, {v: int(rng.integers(2)) for v in g}, "a")
    nets = ef.Networks(gs, attrs={"w": list(rng.normal(size=3))})
    f = ("N(~edges + triangle + kstar(2) + nodematch('a') + isolates, lm=~w)" if not directed
         else "N(~edges + mutual + ttriple + nodematch('a') + isolates, lm=~w)")
    _check_changes(ef.ERGM(nets, f), seed)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_change_statistics_of_l(seed, directed):
    rng = np.random.default_rng(seed)
    layers = {}
    for name in ("a", "b", "c"):
        g = nx.gnp_random_graph(9, 0.35, seed=int(rng.integers(1000)), directed=directed)
        nx.set_node_attributes(g, {v: v % 3 for v in g}, "k")
        layers[name] = g
    lay = ef.Layer(layers)
    f = ("L(~edges + mutual + ttriple + nodematch('k'), ~a&!b) + L(~edges + isolates, ~xor(a,c))"
         " + L(~edges, list(~a, ~b|c)) + L(~transitiveties, ~a)") if directed else (
        "L(~edges + triangle + kstar(2) + nodematch('k'), ~a&!b) + L(~edges + isolates, "
        "~xor(a,c)) + L(~edges, list(~a, ~b|c)) + L(~gwesp(0.5, fixed=TRUE), ~a|b)")
    _check_changes(ef.ERGM(lay, f), seed)


def test_layer_from_dict_attr_and_multigraph_agree():
    g = lazega_multiplex()
    by_columns = ef.Layer(g, ["advice", "friendship"])
    mg = nx.MultiDiGraph()
    mg.add_nodes_from(g.nodes(data=True))
    for u, v, d in g.edges(data=True):
        for name in ("advice", "friendship"):
            if d[name]:
                mg.add_edge(u, v, layer=name)
    by_attr = ef.Layer(mg, attr="layer")
    by_dict = {}
    for name in ("advice", "friendship"):
        layer = nx.DiGraph()
        layer.add_nodes_from(g)
        layer.add_edges_from((u, v) for u, v, d in g.edges(data=True) if d[name])
        by_dict[name] = layer
    by_dict = ef.Layer(by_dict)
    f = "L(~edges + mutual, ~advice&friendship) + L(~nodematch('office'), ~friendship)"
    want = ef.ERGM(by_columns, f).statistics()
    assert ef.ERGM(by_attr, f).statistics() == want
    # the dict's graphs have no node attributes: nodematch needs them
    assert ef.ERGM(by_dict, "L(~edges + mutual, ~advice&friendship)").statistics() == \
        {k: v for k, v in want.items() if "office" not in k}
    assert by_columns.layer_names == ["advice", "friendship"]


def test_layer_sample_space_and_simulation_keep_the_layers_apart():
    lay = ef.Layer({"x": nx.path_graph(5), "y": nx.cycle_graph(5)})
    m = ef.ERGM(lay, "L(~edges, ~x) + L(~edges, ~x&y)")
    assert m.sample_space.n_free == 2 * 10
    for g in m.simulate([-0.5, 1.0], n=3, burnin=2000, interval=100, random_state=4):
        parts = lay.layer_graphs(g)
        assert set(parts) == {"x", "y"}
        assert all(u[0] == v[0] for u, v in g.edges())


@pytest.mark.parametrize("net, formula, match", [
    (lambda: ef.datasets.load("samplk1"), "N(~edges)", "several networks"),
    (samplk3w, "N(~edges, lm=~size)", "unknown name 'size'"),
    (samplk3w, "N(~density)", "normalised by the network's size"),
    (samplk3w, "N(~edges, weights=2)", "weights= is reserved in statnet"),
    (samplk3w, "N(~edges + mutual, offset=c(1, 2))", "offset has 2 values"),
    (samplk3w, "N(~Offset(~edges, 1))", "Offset\\(\\) and Curve\\(\\) inside it"),
    (DATASETS["lazega2l"], "mutualL(Ls=c(~advice, ~trust))", "unknown name 'trust'"),
    (DATASETS["lazega2l"], "mutualL", "mutualL needs Ls"),
    (DATASETS["lazega2l"], "CMBL(Ls=c(~advice))", "at least two layer logics"),
    (lambda: ef.datasets.load("samplk1"), "CMBL", "multilayer"),
    (lambda: ef.datasets.load("samplk1"), "L(~edges, ~advice)", "multilayer"),
    (DATASETS["lazega2l"], "L(~edges, ~advice&coworker)",
     "unknown name 'coworker'.*layers are advice, friendship"),
    (DATASETS["lazega2l"], "L(~edges, ~!advice)", "no layer has a tie"),
])
def test_bad_input_is_a_clear_error(net, formula, match):
    with pytest.raises(TermError, match=match):
        ef.ERGM(net(), formula)


def test_layer_input_errors():
    with pytest.raises(ErgmfitError, match="same node set"):
        ef.Layer({"a": nx.path_graph(3), "b": nx.path_graph(4)})
    with pytest.raises(ErgmfitError, match="no edge attribute 'trust'"):
        ef.Layer(lazega_multiplex(), ["advice", "trust"])
    with pytest.raises(ErgmfitError, match="give layers=.* or attr="):
        ef.Layer(nx.path_graph(3))


# -- curved terms and offsets in N() and L() -------------------------------------------

def _dot(model, theta):
    return model.eta(theta) @ np.array(list(model.statistics().values()))


def test_curved_terms_in_n_keep_their_parameters_and_equal_the_pooled_model():
    nets = samplk3w()
    inside = ef.ERGM(nets, "N(~edges + gwesp(0.5, fixed=FALSE))")
    pooled = ef.ERGM(nets, "edges + gwesp(0.5, fixed=FALSE)")
    assert inside.labels == ["N(1)~edges", "N(1)~gwesp", "N(1)~gwesp.decay"]
    assert inside.curved
    for theta in ([-2.0, 0.3, 0.7], [-1.5, 0.8, 1.2]):
        assert _dot(inside, theta) == pytest.approx(_dot(pooled, theta), abs=1e-9)
    init = [-1.9, 0.25, 0.8]
    # samplk3w's pseudo-likelihood rises along the decay (a ridge, warned): both walk it alike
    warnings.simplefilter("ignore", ef.exceptions.ConvergenceWarning)
    a = inside.fit(method="mple", init=init).coef
    b = pooled.fit(method="mple", init=init).coef
    np.testing.assert_allclose(list(a.values()), list(b.values()), rtol=1e-8)


def test_curved_terms_in_n_with_lm_give_each_network_its_coefficients():
    nets = samplk3w()
    m = ef.ERGM(nets, "N(~edges + gwesp(fixed=FALSE), lm=~wave)")
    assert m.labels == ["N(1)~edges", "N(wave)~edges", "N(1)~gwesp", "N(wave)~gwesp",
                        "N(1)~gwesp.decay", "N(wave)~gwesp.decay"]
    theta = np.array([-2.0, 0.1, 0.3, -0.05, 0.6, 0.2])
    want = 0.0
    for b, wave in enumerate([1, 2, 3]):
        one = ef.ERGM(nets.block_network(b), "edges + gwesp(fixed=FALSE)")
        want += _dot(one, theta[0::2] + wave * theta[1::2])
    assert _dot(m, theta) == pytest.approx(want, abs=1e-9)
    _check_changes(m, 0, k=10)


def test_n_offset_shifts_every_networks_coefficients():
    nets = samplk3w()
    base = ef.ERGM(nets, "N(~edges + mutual)").fit(method="mple").coef
    shifted = ef.ERGM(nets, "N(~edges + mutual, offset=0.25)").fit(method="mple").coef
    assert list(shifted) == list(base)
    np.testing.assert_allclose(np.array(list(shifted.values())) + 0.25,
                               list(base.values()), atol=1e-7)
    # one offset per network, edges only: the MLE solves sum_b (y_b - D_b p(theta + o_b)) = 0
    offs = np.array([-0.5, 0.0, 0.7])
    m = ef.ERGM(nets, "N(~edges, offset=c(-0.5, 0, 0.7))")
    theta = m.fit(method="mple").coef["N(1)~edges"]
    ties = [nets.block_network(b).n_ties for b in range(3)]
    dyads = [b.n * (b.n - 1) for b in nets.blocks]
    score = sum(y - d / (1 + np.exp(-(theta + o))) for y, d, o in zip(ties, dyads, offs))
    assert abs(score) < 1e-6
    # a network outside subset= is not affected by the term, its offset included
    sub = ef.ERGM(nets, "N(~edges, subset=~wave > 1)").fit(method="mple").coef
    sub_model = ef.ERGM(nets, "N(~edges, subset=~wave > 1, offset=0.5)")
    sub_off = sub_model.fit(method="mple").coef
    assert sub_off["N(1)~edges"] == pytest.approx(sub["N(1)~edges"] - 0.5, abs=1e-7)
    np.testing.assert_allclose(sub_model.eta([-2.0]), [0.0, -1.5, -1.5])   # wave 1 untouched
    # a (networks x parameters) matrix, column by column as R's matrix()
    mat = ef.ERGM(nets, "N(~edges + mutual, offset=c(0, 0, 0, 0.5, 0.5, 0.5))")
    np.testing.assert_allclose(mat.eta([-2.0, 1.0]), [-2.0] * 3 + [1.5] * 3)


def test_curved_terms_in_l_keep_their_parameters():
    lay = DATASETS["lazega2l"]()
    m = ef.ERGM(lay, "L(~edges + gwesp(0.5, fixed=FALSE), ~advice)")
    assert m.labels == ["L(advice)~edges", "L(advice)~gwesp", "L(advice)~gwesp.decay"]
    advice = lay.block_network(0)
    one = ef.ERGM(advice, "edges + gwesp(0.5, fixed=FALSE)")
    for theta in ([-2.0, 0.3, 0.7], [-1.0, 0.5, 1.5]):
        assert _dot(m, theta) == pytest.approx(_dot(one, theta), abs=1e-9)


# -- cross-layer terms (ergm.multi's mutualL, CMBL): hand-computed values ----------------

def _layer_matrices(lay):
    return [nx.to_numpy_array(g, nodelist=list(lay.base_network.labels))
            for g in lay.layer_graphs().values()]


def test_mutual_l_by_hand():
    lay = DATASETS["lazega2l"]()
    A, F = _layer_matrices(lay)
    got = ef.ERGM(lay, "mutualL(Ls=c(~advice, ~friendship)) + mutualL(Ls=~advice) + "
                       "mutualL(Ls=list(~advice&!friendship, ~friendship))").statistics()
    AnF = A * (1 - F)
    assert got == {"mutualL(advice,friendship)": (A * F.T).sum(),
                   "mutualL(advice,advice)": (A * A.T).sum(),
                   "mutualL(advice&!friendship,friendship)": (AnF * F.T).sum()}
    # ergm.multi's reading: Ls=~a counts each mutual dyad of a twice
    assert (A * A.T).sum() == 2 * ef.ERGM(lay, "L(~mutual, ~advice)").statistics()[
        "L(advice)~mutual"]


@pytest.mark.parametrize("directed", [True, False])
def test_cmbl_by_hand(directed):
    rng = np.random.default_rng(3)
    layers = {k: nx.gnp_random_graph(8, 0.4, seed=int(rng.integers(1000)), directed=directed)
              for k in ("a", "b", "c")}
    lay = ef.Layer(layers)
    mats = _layer_matrices(lay)
    from math import lgamma
    def cmb(E, R):
        return lgamma(E + 1) + lgamma(R - E + 1) - lgamma(R + 1)
    pairs = [(i, j) for i in range(8) for j in range(8) if i != j and (directed or i < j)]
    want3 = sum(cmb(sum(M[i, j] for M in mats), 3) for i, j in pairs)
    want2 = sum(cmb(mats[0][i, j] * (1 - mats[1][i, j]) + mats[2][i, j], 2) for i, j in pairs)
    got = ef.ERGM(lay, "CMBL + CMBL(Ls=c(~a&!b, ~c))").statistics()
    assert got == pytest.approx({"CMBL(a,b,c)": want3, "CMBL(a&!b,c)": want2}, abs=1e-9)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_change_statistics_of_cross_layer_terms(seed, directed):
    rng = np.random.default_rng(seed)
    lay = ef.Layer({k: nx.gnp_random_graph(9, 0.35, seed=int(rng.integers(1000)),
                                           directed=directed) for k in ("a", "b", "c")})
    f = "CMBL + CMBL(Ls=c(~a&!b, ~c))" + (
        " + mutualL(Ls=c(~a, ~b|c)) + mutualL(Ls=~xor(a, c))" if directed else "")
    _check_changes(ef.ERGM(lay, f), seed)


# -- shared partners on layers (despL, ddspL, dnspL and the gw forms) ----------------------

def _random_layers(seed, directed, names=("a", "b"), n=9, p=0.35):
    rng = np.random.default_rng(seed)
    return ef.Layer({k: nx.gnp_random_graph(n, p, seed=int(rng.integers(1000)),
                                            directed=directed) for k in names})


@pytest.mark.parametrize("directed, sptype", [(True, "OTP"), (True, "ITP"), (True, "OSP"),
                                              (True, "ISP"), (False, "UTP")])
def test_shared_partner_layer_terms_are_ergms_on_one_layer(directed, sptype):
    lay = _random_layers(5, directed)
    for kind, plain in (("despL", "desp"), ("ddspL", "ddsp"), ("dnspL", "dnsp")):
        base = "" if kind == "ddspL" else ", L.base=~a"
        got = ef.ERGM(lay, f"{kind}(0:3, type='{sptype}'{base}, Ls.path=~a)").statistics()
        want = ef.ERGM(lay, f"L(~{plain}(0:3, type='{sptype}'), ~a)").statistics()
        assert list(got.values()) == list(want.values())
    got = ef.ERGM(lay, f"dgwnspL(0.7, fixed=TRUE, type='{sptype}', L.base=~a, "
                       "Ls.path=~a)").statistics()
    want = ef.ERGM(lay, f"L(~dgwnsp(0.7, fixed=TRUE, type='{sptype}'), ~a)").statistics()
    np.testing.assert_allclose(list(got.values()), list(want.values()), atol=1e-9)


def _two_paths(sptype, P, Q):
    """Partner indicators k of pair (i, j), [i, j, k], with the first tie in P, second in Q."""
    if sptype in ("OTP", "UTP"):
        return P[:, None, :] * Q.T[None, :, :]          # i->k (P), k->j (Q)
    if sptype == "ITP":
        return Q.T[:, None, :] * P[None, :, :]          # j->k (P), k->i (Q)
    if sptype == "OSP":
        return P[:, None, :] * Q[None, :, :]            # i->k (P), j->k (Q)
    return P.T[:, None, :] * Q.T[None, :, :]            # ISP: k->i (P), k->j (Q)


@pytest.mark.parametrize("directed, sptype", [(True, "OTP"), (True, "ITP"), (True, "OSP"),
                                              (True, "ISP"), (False, "UTP")])
@pytest.mark.parametrize("in_order", [False, True])
def test_shared_partners_across_layers_by_hand(directed, sptype, in_order):
    if in_order and not directed:
        pytest.skip("L.in_order needs directed layers")
    lay = _random_layers(11, directed, n=10, p=0.4)
    A, B = _layer_matrices(lay)
    n = len(A)
    part = _two_paths(sptype, A, B)
    if not in_order:
        part = np.maximum(part, _two_paths(sptype, B, A))
    idx = np.arange(n)
    part[idx, :, idx] = 0
    part[:, idx, idx] = 0
    sp = part.sum(axis=2)
    base = np.maximum(A, B)                              # L.base = ~a|b
    pairs = ~np.eye(n, dtype=bool) if directed else np.triu(np.ones((n, n), bool), 1)
    ds = [0, 1, 2, 3]
    want = {"esp": [int(((sp == d) & pairs & (base == 1)).sum()) for d in ds],
            "dsp": [int(((sp == d) & pairs).sum()) for d in ds],
            "nsp": [int(((sp == d) & pairs & (base == 0)).sum()) for d in ds]}
    order = ", L.in_order=TRUE" if in_order else ""
    for kind in ("esp", "dsp", "nsp"):
        base_arg = "" if kind == "dsp" else ", L.base=~a|b"
        got = ef.ERGM(lay, f"d{kind}L(0:3, type='{sptype}'{base_arg}, Ls.path=c(~a, ~b)"
                           f"{order})").statistics()
        assert list(got.values()) == want[kind], kind


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_change_statistics_of_shared_partner_layer_terms(seed, directed):
    lay = _random_layers(seed, directed, names=("a", "b", "c"))
    if directed:
        f = ("despL(0:2, L.base=~a|c, Ls.path=c(~a, ~b&!c)) + "
             "ddspL(1:2, type='OSP', Ls.path=c(~b, ~c), L.in_order=TRUE) + "
             "dgwnspL(0.4, fixed=TRUE, type='ISP', L.base=~b, Ls.path=~xor(a, c)) + "
             "dgwespL(type='ITP', L.base=~c, Ls.path=c(~a, ~b))")
    else:
        f = ("despL(0:2, L.base=~a|c, Ls.path=c(~a, ~b&!c)) + ddspL(1:2, Ls.path=~b) + "
             "dgwnspL(0.4, fixed=TRUE, L.base=~b, Ls.path=~xor(a, c)) + "
             "dgwespL(L.base=~c, Ls.path=c(~a, ~b))")
    _check_changes(ef.ERGM(lay, f), seed)


# -- twostarL ----------------------------------------------------------------------------

@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("distinct", [True, False])
def test_twostar_l_by_hand(directed, distinct):
    lay = _random_layers(7, directed, n=10, p=0.4)
    A, B = _layer_matrices(lay)
    A = A * (1 - B)                                      # L1 = a&!b, L2 = b
    types = ("out", "in", "path") if directed else ("any",)
    want = {"out": A.sum(1) @ B.sum(1) - distinct * (A * B).sum(),
            "in": A.sum(0) @ B.sum(0) - distinct * (A * B).sum(),
            "path": A.sum(0) @ B.sum(1) - distinct * (A.T * B).sum(),
            "any": A.sum(1) @ B.sum(1) - distinct * (A * B).sum()}
    flag = "TRUE" if distinct else "FALSE"
    for t in types:
        got = ef.ERGM(lay, f"twostarL(c(~a&!b, ~b), '{t}', distinct={flag})").statistics()
        assert list(got.values()) == [want[t]], t
    if not directed:      # one logic, replicated: twice the two-stars of the layer (kstar)
        got = ef.ERGM(lay, "twostarL(~a)").statistics()["twostarL(a,a).any"]
        assert got == 2 * ef.ERGM(lay, "L(~kstar(2), ~a)").statistics()["L(a)~kstar2"]


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_change_statistics_of_twostar_l(seed, directed):
    lay = _random_layers(seed, directed, names=("a", "b", "c"))
    f = ("twostarL(c(~a, ~b|c), 'out') + twostarL(c(~a&!c, ~b), 'in', distinct=FALSE) + "
         "twostarL(c(~xor(a, b), ~c), 'path') + twostarL(~a, 'path')") if directed else \
        "twostarL(c(~a, ~b|c)) + twostarL(c(~a&!c, ~b), distinct=FALSE) + twostarL(~c)"
    _check_changes(ef.ERGM(lay, f), seed)


# -- advice to fix a layer term's decay names the term's call, not its label ---------------
LAYER_GW_CURVED = {
    True: ["dgwespL(L.base=~a|c, Ls.path=c(~a, ~b&!c), fixed=FALSE)",
           "dgwdspL(type='OSP', Ls.path=c(~b, ~c), L.in_order=TRUE, fixed=FALSE)",
           "dgwnspL(type='ISP', L.base=~b, Ls.path=~xor(a, c), fixed=FALSE)"],
    False: ["dgwespL(L.base=~c, Ls.path=c(~a, ~b), fixed=FALSE)",
            "dgwnspL(L.base=~b, Ls.path=~xor(a, c), fixed=FALSE)"],
}


@pytest.mark.parametrize("directed", [True, False])
def test_fixed_decay_advice_of_layer_terms_is_the_fixed_term(directed):
    # the call the advice gives is the same term with the decay fixed: its statistic is
    # the curved term's counts weighted by η(1, decay)
    from ergmfit.terms.curved import fixed_term
    lay = _random_layers(3, directed, names=("a", "b", "c"))
    for f in LAYER_GW_CURVED[directed]:
        curved = ef.ERGM(lay, f)
        par = curved.parameterisation
        ((ps, _, curve),) = par.curved_terms
        call = fixed_term(curve, par.param_labels[ps.start], 0.7)
        fixed = ef.ERGM(lay, call)
        want = curve.eta(np.array([1.0, 0.7])) @ curved.statistics_vector()
        assert fixed.statistics_vector() == pytest.approx([want], abs=1e-9), call


LAZEGA_ALL_LAYER_TERMS = ("L(~edges, ~advice) + L(~edges, ~friendship) + "
                          "mutualL(Ls=c(~advice, ~friendship)) + CMBL + "
                          "dgwespL(L.base=~advice, Ls.path=~friendship, fixed=FALSE)")


def _advised_calls(text):
    """The 'fixed=TRUE' calls a message advises, as ERGM formulas."""
    import re
    return re.findall(r"(dgw\w+L\([^()]*(?:\([^()]*\)[^()]*)*fixed=TRUE[^()]*(?:\([^()]*\)"
                      r"[^()]*)*\))", text)


def test_mple_ridge_warning_on_all_layer_terms_advises_a_valid_call():
    # Lazega with the cross-layer terms and a curved dgwespL: the pseudo-likelihood rises
    # along the decay (ran off to ~200); the warning's advice was the label
    # 'gwespL.OTP(advice|friendship,friendship)(1, fixed=TRUE)', which does not parse
    lay = DATASETS["lazega2l"]()
    m = ef.ERGM(lay, LAZEGA_ALL_LAYER_TERMS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m.fit(method="mple")
    text = " ".join(str(w.message) for w in caught if "ran off" in str(w.message))
    calls = _advised_calls(text)
    assert calls == ['dgwespL(1, fixed=TRUE, type="OTP", L.base=~advice, '
                     'Ls.path=~friendship)'], text
    assert ef.ERGM(lay, calls[0]).labels == ["gwespL.OTP(advice|friendship,friendship)"
                                             ".fixed.1"]


@pytest.mark.slow
def test_mcmle_with_all_layer_terms_ends_in_a_clear_error_with_valid_advice():
    # ~5 CPU s: from the fixed-decay MPLE (the curved MPLE's decay ran off) the samples stay
    # far from the observed network and the steps towards it stall, twice (the restart
    # from decay 0.5 too): a DegenerateModelError whose advice can be pasted into a formula
    lay = DATASETS["lazega2l"]()
    m = ef.ERGM(lay, LAZEGA_ALL_LAYER_TERMS)
    with pytest.raises(ef.DegenerateModelError, match="stalled") as err:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.fit(method="mcmle", random_state=1, eval_loglik=False)
    calls = _advised_calls(str(err.value))
    assert calls
    for call in calls:
        assert ef.ERGM(lay, call).labels[0].startswith("gwespL.OTP(advice|friendship,")


@pytest.mark.parametrize("formula, advised", [
    ("N(~edges + gwesp(fixed=FALSE))", "N(~gwesp(0.7, fixed=TRUE))"),
    ("L(~edges + gwesp(fixed=FALSE), ~advice)", "L(~gwesp(0.7, fixed=TRUE), ~advice)"),
    ("L(~gwdsp(fixed=FALSE), c(~advice, ~friendship))",
     "L(~gwdsp(0.7, fixed=TRUE), c(~advice, ~friendship))"),
    ("L(~gwesp(fixed=FALSE), ~advice&!friendship)",
     "L(~gwesp(0.7, fixed=TRUE), ~advice&!friendship)")])
def test_fixed_decay_advice_inside_n_and_l_is_the_fixed_term(formula, advised):
    # a curved term inside N() or L(): the advice to fix its decay is that term with the
    # decay fixed, inside the operator (it was the label with arguments glued on,
    # 'N(1)~gwesp(0.7, fixed=TRUE)', which does not parse); its statistic is the curved
    # term's counts weighted by eta(1, decay)
    from ergmfit.terms.curved import fixed_term
    net = DATASETS["samplk3w" if formula.startswith("N") else "lazega2l"]()
    curved = ef.ERGM(net, formula)
    par = curved.parameterisation
    ((ps, ss, curve),) = par.curved_terms
    call = fixed_term(curve, par.param_labels[ps.start], 0.7)
    assert call == advised
    want = curve.eta(np.array([1.0, 0.7])) @ curved.statistics_vector()[ss]
    assert ef.ERGM(net, call).statistics_vector() == pytest.approx([want], abs=1e-9)


def test_mple_ridge_warning_inside_n_advises_a_valid_call():
    # Sampson's waves, gwesp's decay inside N() runs off along the pseudo-likelihood ridge
    net = DATASETS["samplk3w"]()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ef.ERGM(net, "N(~edges + mutual + gwesp(fixed=FALSE))").fit(method="mple")
    text = " ".join(str(w.message) for w in caught if "ran off" in str(w.message))
    assert "e.g. N(~gwesp(1, fixed=TRUE))," in text, text
    assert ef.ERGM(net, "N(~gwesp(1, fixed=TRUE))").labels == ["N(1)~gwesp.fixed.1"]


def test_layer_logic_of_tie_free_terms_keeps_no_logical_layer():
    # L(~edges, ~a&b) reads no tie of its logical layer: the kernel keeps none (not
    # stateful: no copy per model, nothing to follow on a toggle); a chain's running
    # statistics still equal those counted on the network it ends at
    a = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 1)])
    b = nx.DiGraph([(0, 1), (2, 0), (1, 3)])
    b.add_nodes_from(a)
    a.add_nodes_from(b)
    m = ef.ERGM(ef.Layer({"a": a, "b": b}),
                "L(~edges, ~a&b) + L(~edges, ~a&!b) + L(~mutual, ~a|b)")
    kinds = [(t.kernel.tie_free, t.kernel.stateful) for t in m.terms]
    assert kinds == [(True, False), (True, False), (False, True)]
    theta = np.array([1.0, -0.5, 0.8])
    sampler, cm = m.sampler(theta, random_state=3)
    delta = sampler.sample(theta, 1, 5000, 1)[0]
    assert np.allclose(m.statistics_vector() + delta, m.statistics_vector(cm.state.ties()))
