"""N() and L() (ergm.multi 0.1.2): statnet's labels and values, change statistics, errors."""
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
    (samplk3w, "N(~edges, weights=2)", "not supported"),
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
