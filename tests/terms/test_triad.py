"""Undirected triad and shared-partner terms: triangle, twopath, esp/dsp/nsp,
gwesp/gwdsp/gwnsp (fixed decay) and cycle(k).

Every statistic is checked against an independent numpy / networkx
implementation computed from the adjacency matrix, both as a full statistic
and as change statistics on random states; then against statnet's values.
"""
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ergmfit as ef
from support.paths import load_reference
from ergmfit.exceptions import TermError
from ergmfit.network import Network

# ---------------------------------------------------------------------------
# independent reference implementation
# ---------------------------------------------------------------------------


def _matmul(A, B):
    # float BLAS product of small-integer matrices, exact, then back to integers
    return np.rint(A.astype(float) @ B.astype(float)).astype(np.int64)


def _sp_matrix(A):
    S = _matmul(A, A)
    iu = np.triu_indices(A.shape[0], 1)
    return S[iu], A[iu]


def _gw(alpha, k):
    k = np.asarray(k, dtype=float)
    return math.exp(alpha) * (1.0 - (1.0 - math.exp(-alpha)) ** k)


def _cycles(A, ks):
    """{k: number of simple cycles of length k} for k in ``ks``: networkx's cycles up to the
    longest, enumerated once (one enumeration per k took most of this file's time)."""
    lengths = [len(c) for c in nx.simple_cycles(nx.from_numpy_array(A), length_bound=max(ks))]
    return {k: lengths.count(k) for k in ks}


def ref_term(A, name, arg=None, sp_tie=None):
    """{label: value} of one term on the undirected adjacency matrix A (0/1 ints)."""
    A = np.asarray(A, dtype=np.int64)
    sp, tie = _sp_matrix(A) if sp_tie is None else sp_tie
    deg = A.sum(axis=1)
    if name == "triangle":
        return {"triangle": float(np.trace(_matmul(_matmul(A, A), A)) // 6)}
    if name == "twopath":
        return {"twopath": float((deg * (deg - 1) // 2).sum())}
    if name in ("esp", "dsp", "nsp"):
        mask = {"esp": tie == 1, "dsp": np.ones_like(tie, bool), "nsp": tie == 0}[name]
        return {f"{name}{d}": float(np.sum(mask & (sp == d))) for d in arg}
    if name in ("gwesp", "gwdsp", "gwnsp"):
        mask = {"gwesp": tie == 1, "gwdsp": np.ones_like(tie, bool), "gwnsp": tie == 0}[name]
        label = f"{name}.fixed.{ef.terms.registry.format_number(arg)}"
        return {label: float(np.sum(_gw(arg, sp[mask])))}
    if name == "cycle":
        counts = _cycles(A, arg)
        return {f"cycle{k}": float(counts[k]) for k in arg}
    raise KeyError(name)


# (formula text, [(name, arg), ...]) -- each term once, in label order
ALL = [
    ("triangle", ("triangle", None)),
    ("twopath", ("twopath", None)),
    ("esp(0:3)", ("esp", [0, 1, 2, 3])),
    ("dsp(c(2, 0, 1, 4))", ("dsp", [2, 0, 1, 4])),
    ("nsp(0:2)", ("nsp", [0, 1, 2])),
    ("gwesp(0.7, fixed=TRUE)", ("gwesp", 0.7)),
    ("gwdsp(log(2), fixed=TRUE)", ("gwdsp", math.log(2))),
    ("gwnsp(1.3, fixed=TRUE)", ("gwnsp", 1.3)),
    ("cycle(c(4, 3, 6, 5))", ("cycle", [4, 3, 6, 5])),
]
FORMULA = " + ".join(f for f, _ in ALL)


def ref_all(A, terms=ALL):
    out = {}
    sp_tie = _sp_matrix(A)
    for _, (name, arg) in terms:
        out.update(ref_term(A, name, arg, sp_tie))
    return out


def _net_from_adj(A):
    n = A.shape[0]
    iu = np.triu_indices(n, 1)
    ties = np.column_stack(iu)[A[iu] == 1]
    return Network(n, ties, directed=False)


def _adj_from_state(state, n):
    A = np.zeros((n, n), dtype=np.int64)
    t = state.ties()
    A[t[:, 0], t[:, 1]] = 1
    A[t[:, 1], t[:, 0]] = 1
    return A


def _random_adj(n, p, rng):
    U = np.triu((rng.random((n, n)) < p).astype(np.int64), 1)
    return U + U.T


def _assert_close(got, want):
    assert list(got) == list(want)
    for k in want:
        assert got[k] == pytest.approx(want[k], rel=1e-10, abs=1e-10), k


graphs = st.tuples(st.integers(6, 12), st.floats(0.0, 1.0), st.integers(0, 2**31 - 1))

# ---------------------------------------------------------------------------
# the reference itself on textbook graphs (so a wrong reference cannot hide)
# ---------------------------------------------------------------------------


def test_reference_on_known_graphs():
    K4 = nx.to_numpy_array(nx.complete_graph(4), dtype=np.int64)
    assert ref_term(K4, "triangle") == {"triangle": 4.0}
    assert ref_term(K4, "twopath") == {"twopath": 12.0}
    assert ref_term(K4, "cycle", [3, 4]) == {"cycle3": 4.0, "cycle4": 3.0}
    assert ref_term(K4, "esp", [2]) == {"esp2": 6.0}
    C5 = nx.to_numpy_array(nx.cycle_graph(5), dtype=np.int64)
    assert ref_term(C5, "cycle", [3, 4, 5]) == {"cycle3": 0.0, "cycle4": 0.0, "cycle5": 1.0}
    assert ref_term(C5, "dsp", [0, 1]) == {"dsp0": 5.0, "dsp1": 5.0}
    K33 = nx.to_numpy_array(nx.complete_bipartite_graph(3, 3), dtype=np.int64)
    assert ref_term(K33, "cycle", [4, 6]) == {"cycle4": 9.0, "cycle6": 6.0}


def test_known_graphs():
    K5 = nx.complete_graph(5)
    s = ef.ERGM(K5, "triangle + twopath + cycle(3:5) + esp(3) + dsp(3) + nsp(3)").statistics()
    assert s == {"triangle": 10.0, "twopath": 30.0, "cycle3": 10.0, "cycle4": 15.0,
                 "cycle5": 12.0, "esp3": 10.0, "dsp3": 10.0, "nsp3": 0.0}
    pete = nx.petersen_graph()     # girth 5: 12 five-cycles, 10 six-cycles
    s = ef.ERGM(pete, "cycle(3:6) + dsp(0:1)").statistics()
    assert s == {"cycle3": 0.0, "cycle4": 0.0, "cycle5": 12.0, "cycle6": 10.0,
                 "dsp0": 15.0, "dsp1": 30.0}


def test_long_cycles():
    # a 40-cycle with one chord: two 21-cycles and the 40-cycle (long paths leave the stack)
    g = nx.cycle_graph(40)
    g.add_edge(0, 20)
    s = ef.ERGM(g, "cycle(c(40, 21, 20, 4))").statistics()
    assert s == {"cycle40": 1.0, "cycle21": 2.0, "cycle20": 0.0, "cycle4": 0.0}
    m = ef.ERGM(g, "cycle(c(40, 21))").compiled()
    np.testing.assert_array_equal(m.dyad_change_stats(0, 20), [0.0, 2.0])   # the chord
    np.testing.assert_array_equal(m.dyad_change_stats(0, 1), [1.0, 1.0])
    np.testing.assert_array_equal(m.dyad_change_stats(10, 30), [0.0, 2.0])  # two 20-paths
    A = nx.to_numpy_array(g, dtype=np.int64)
    A[10, 30] = A[30, 10] = 1
    assert ref_term(A, "cycle", [40, 21, 22]) == {"cycle40": 1.0, "cycle21": 4.0, "cycle22": 2.0}


# ---------------------------------------------------------------------------
# full statistics
# ---------------------------------------------------------------------------


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs)
def test_statistics_match_reference(g):
    n, p, seed = g
    A = _random_adj(n, p, np.random.default_rng(seed))
    got = ef.ERGM(_net_from_adj(A), FORMULA).statistics()
    _assert_close(got, ref_all(A))


def test_empty_graph_values():
    A = np.zeros((7, 7), dtype=np.int64)
    got = ef.ERGM(_net_from_adj(A), FORMULA).statistics()
    _assert_close(got, ref_all(A))
    assert got["dsp0"] == 21.0 and got["nsp0"] == 21.0 and got["esp0"] == 0.0


@pytest.mark.parametrize("formula", ["triangle", "cycle(3)", "cycle(4)", "esp(1)", "dsp(2)",
                                     "gwesp(0.25, fixed=TRUE)"])
def test_each_term_alone(formula):
    # triangle and cycle(3) run without the shared-partner cache unless another term asks
    rng = np.random.default_rng(5)
    A = _random_adj(11, 0.45, rng)
    m = ef.ERGM(_net_from_adj(A), formula)
    name = formula.split("(")[0]
    arg = {"triangle": None, "cycle(3)": [3], "cycle(4)": [4], "esp(1)": [1], "dsp(2)": [2],
           "gwesp(0.25, fixed=TRUE)": 0.25}[formula]
    _assert_close(m.statistics(), ref_term(A, name, arg))
    c = m.compiled()
    assert c.state.caches == (0 if formula in ("triangle", "cycle(3)") else 1)
    for i, j in [(0, 1), (2, 7), (3, 10), (4, 5)]:
        A1 = A.copy(); A1[i, j] = A1[j, i] = 1
        A0 = A.copy(); A0[i, j] = A0[j, i] = 0
        want = np.array(list(ref_term(A1, name, arg).values())) - np.array(
            list(ref_term(A0, name, arg).values()))
        np.testing.assert_allclose(c.dyad_change_stats(i, j), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n,p,seed", [(60, 0.08, 1), (150, 0.02, 2), (40, 0.3, 3)])
def test_bigger_sparse_graphs(n, p, seed):
    A = _random_adj(n, p, np.random.default_rng(seed))
    terms = [t for t in ALL if t[1][0] != "cycle"] + [("cycle(3:5)", ("cycle", [3, 4, 5]))]
    formula = " + ".join(f for f, _ in terms)
    _assert_close(ef.ERGM(_net_from_adj(A), formula).statistics(), ref_all(A, terms))


def test_magnolia_full():
    net = ef.datasets.load_network("faux.magnolia.high")
    A = np.zeros((net.n, net.n), dtype=np.int64)
    A[net.ties[:, 0], net.ties[:, 1]] = 1
    A += A.T
    terms = [("triangle", ("triangle", None)), ("esp(0:4)", ("esp", [0, 1, 2, 3, 4])),
             ("dsp(0:2)", ("dsp", [0, 1, 2])), ("gwesp(0.25, fixed=TRUE)", ("gwesp", 0.25)),
             ("gwdsp(0.25, fixed=TRUE)", ("gwdsp", 0.25)), ("cycle(4:5)", ("cycle", [4, 5]))]
    formula = " + ".join(f for f, _ in terms)
    _assert_close(ef.ERGM(net, formula).statistics(), ref_all(A, terms))


# ---------------------------------------------------------------------------
# change statistics on random states
# ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs, st.integers(0, 2**31 - 1))
def test_change_statistics(g, seed2):
    n, p, seed = g
    rng = np.random.default_rng(seed2)
    A = _random_adj(n, p, np.random.default_rng(seed))
    m = ef.ERGM(_net_from_adj(A), FORMULA).compiled()
    for v in rng.integers(0, m.n_vars, size=rng.integers(0, 3 * n)):
        m.flip_var(int(v))                    # move to a random state (caches follow)
    A = _adj_from_state(m.state, n)
    for _ in range(6):
        i, j = sorted(rng.choice(n, size=2, replace=False).tolist())
        A1 = A.copy(); A1[i, j] = A1[j, i] = 1
        A0 = A.copy(); A0[i, j] = A0[j, i] = 0
        r1, r0 = ref_all(A1), ref_all(A0)
        want = np.array([r1[k] - r0[k] for k in r1])
        got = m.dyad_change_stats(i, j)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(m.dyad_change_stats(j, i), want, rtol=1e-10, atol=1e-10)
        v = m.var_of(i, j)
        np.testing.assert_allclose(m.change_stats(v), want, rtol=1e-10, atol=1e-10)
        before = m.state.has(i, j)
        m.flip_var(v)
        assert m.state.has(i, j) != before
        # same change statistic from the other side of the toggle
        np.testing.assert_allclose(m.dyad_change_stats(i, j), want, rtol=1e-10, atol=1e-10)
        m.flip_var(v)
        assert m.state.has(i, j) == before
        np.testing.assert_array_equal(_adj_from_state(m.state, n), A)


@pytest.mark.parametrize("n,p,seed", [(8, 1.0, 0), (22, 0.5, 1), (22, 0.3, 2), (16, 0.85, 3)])
def test_change_on_denser_states(n, p, seed):
    # degrees on both sides of the short-list threshold (scan vs hash paths); p = 1:
    # every pair present, so the correction for the toggled tie itself is everywhere
    rng = np.random.default_rng(seed)
    A = _random_adj(n, p, rng)
    terms = [t for t in ALL if t[1][0] != "cycle"] + [
        ("cycle(3:5)", ("cycle", [3, 4, 5])), ("esp(7:12)", ("esp", list(range(7, 13)))),
        ("dsp(7:12)", ("dsp", list(range(7, 13)))), ("nsp(7:12)", ("nsp", list(range(7, 13))))]
    m = ef.ERGM(_net_from_adj(A), " + ".join(f for f, _ in terms)).compiled()
    for _ in range(8):
        i, j = sorted(rng.choice(n, size=2, replace=False).tolist())
        A1 = A.copy(); A1[i, j] = A1[j, i] = 1
        A0 = A.copy(); A0[i, j] = A0[j, i] = 0
        r1, r0 = ref_all(A1, terms), ref_all(A0, terms)
        np.testing.assert_allclose(m.dyad_change_stats(i, j), [r1[k] - r0[k] for k in r1],
                                   rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# weights, limits and arguments
# ---------------------------------------------------------------------------


def test_gw_limits():
    rng = np.random.default_rng(7)
    A = _random_adj(12, 0.5, rng)
    net = _net_from_adj(A)
    s = ef.ERGM(net, "triangle + esp(0) + dsp(0) + gwesp(0, fixed=TRUE) + gwdsp(0, fixed=TRUE)"
                " + gwesp(40, fixed=TRUE) + gwnsp(0, fixed=TRUE)").statistics()
    sp, tie = _sp_matrix(A)
    # decay 0: every edge (pair) with at least one partner counts 1
    assert s["gwesp.fixed.0"] == A.sum() / 2 - s["esp0"]
    assert s["gwdsp.fixed.0"] == len(sp) - s["dsp0"]
    assert s["gwnsp.fixed.0"] == np.sum((tie == 0) & (sp > 0))
    # large decay: the weight of k partners tends to k, so gwesp -> 3 * triangle
    # (needs the cancellation-free form of e^a (1 - (1 - e^-a)^k))
    assert s["gwesp.fixed.40"] == pytest.approx(3 * s["triangle"], rel=1e-12)


def test_gw_weights_beyond_the_table():
    from ergmfit.network import NetworkState
    from ergmfit.terms._ergm import ERGMModel
    from ergmfit.terms._coreterms import GwdspKernel, GwespKernel, GwnspKernel
    k = GwespKernel(0.5, 10000)
    for c in (0, 1, 5, 4095, 4096, 9000):
        assert k.weight(c) == pytest.approx(_gw(0.5, c), rel=1e-13)
    # tables of length 1 and 2: every count beyond goes through the direct formula
    rng = np.random.default_rng(11)
    A = _random_adj(12, 0.6, rng)
    net = _net_from_adj(A)
    for size in (1, 2):
        for alpha in (0.0, 0.4, 2.0):
            kernels = [GwespKernel(alpha, 12, size), GwdspKernel(alpha, 12, size),
                       GwnspKernel(alpha, 12, size)]
            m = ERGMModel(NetworkState(12, False), kernels)
            got = m.add_ties_accumulate(net.ties)
            want = [ref_term(A, name, alpha).popitem()[1] for name in ("gwesp", "gwdsp", "gwnsp")]
            np.testing.assert_allclose(got, want, rtol=1e-12)


def test_labels():
    net = ef.datasets.load_network("flomarriage")
    s = ef.ERGM(net, "gwesp(log(2), fixed=TRUE) + gwdsp(0.25, fixed=TRUE) + "
                     "gwnsp(1, fixed=TRUE) + triangles + esp(c(1, 0)) + cycle(5:4)").statistics()
    assert list(s) == ["gwesp.fixed.0.693147180559945", "gwdsp.fixed.0.25", "gwnsp.fixed.1",
                       "triangle", "esp1", "esp0", "cycle5", "cycle4"]


@pytest.mark.parametrize("formula,needle", [
    ("gwesp(-0.5)", "decay must be at least 0"),
    ("gwnsp(fixed=TRUE)", "decay is required with fixed=TRUE"),
    ("gwesp(fixed=TRUE)", "decay is required"),
    ("gwesp(-1, fixed=TRUE)", "non-negative"),
    ("gwesp(0.5, fixed=TRUE, cutoff=0)", "cutoff"),
    ("gwesp(0.5, fixed=1)", "fixed"),
    ("esp(-1)", "esp"),
    ("dsp(c(1, 1))", "distinct"),
    ("nsp(1.5)", "integer"),
    ("cycle(2)", "at least 3"),
    ("cycle(17)", "at most the number of nodes"),
    ("cycle(4, semi='yes')", "semi"),
    ("triangle(diff=TRUE)", "need attr"),
])
def test_argument_errors(formula, needle):
    net = ef.datasets.load_network("flomarriage")
    with pytest.raises(TermError, match=None) as exc:
        ef.ERGM(net, formula)
    assert needle in str(exc.value)
    name = formula.split("(")[0]
    assert name in str(exc.value)


def test_cutoff_is_ignored_when_fixed():
    net = ef.datasets.load_network("lazega")
    a = ef.ERGM(net, "gwesp(0.5, fixed=TRUE, cutoff=2)").statistics()
    b = ef.ERGM(net, "gwesp(0.5, fixed=TRUE)").statistics()
    assert a == b


# ---------------------------------------------------------------------------
# statnet's values
# ---------------------------------------------------------------------------

_MINE = ("triangle", "twopath", "gwesp(", "gwdsp(", "gwnsp(", "esp(", "dsp(", "nsp(", "cycle(")
_EVALS = [e for e in load_reference("statnet_stats.json")["evaluations"]
          if not e["directed"] and e["term"].startswith(_MINE)]


def test_statnet_entries_present():
    assert {e["dataset"] for e in _EVALS} >= {"lazega", "flomarriage", "flobusiness",
                                               "faux.mesa.high"}
    assert len(_EVALS) >= 36


@pytest.mark.parametrize("entry", _EVALS, ids=[f"{e['dataset']}:{e['term']}" for e in _EVALS])
def test_statnet_values(entry):
    net = ef.datasets.load_network(entry["dataset"])
    got = ef.ERGM(net, entry["term"]).statistics()
    assert list(got) == list(entry["stats"])
    for label, want in entry["stats"].items():
        assert got[label] == pytest.approx(want, rel=1e-9, abs=1e-12), label


@pytest.mark.parametrize("formula, held", [
    ("edges + gwesp(0.25, fixed=TRUE)", False), ("edges + esp(1)", False),
    ("edges + gwdsp(0.25, fixed=TRUE)", True), ("edges + gwesp(0.5, fixed=TRUE) + dsp(2)", True),
    ("edges + gwnsp(0.5, fixed=TRUE)", True), ("edges + cycle(4)", True)])
def test_shared_partner_counts_held_or_counted_on_demand(formula, held):
    # on a sparse network, terms that read shared-partner counts only for the
    # partners of the toggled dyad count them on demand; any term reading them
    # per neighbour makes the state hold them (an O(degree^2) change otherwise)
    g = ef.datasets.load("faux.mesa.high")
    c = ef.ERGM(g, formula).compiled()
    assert c.state.caches == 1
    assert c.state.cached == (1 if held else 0)
    # the change statistics are the same either way: the same terms plus gwdsp
    # (which makes the state hold the counts) agree on every dyad tried
    ref = ef.ERGM(g, formula + " + gwdsp(0.1, fixed=TRUE)").compiled()
    assert ref.state.cached == 1
    p = c.n_stats
    for i, j in [(0, 1), (5, 17), (40, 41), (2, 100), (7, 190)]:
        assert np.allclose(c.dyad_change_stats(i, j), ref.dyad_change_stats(i, j)[:p])
