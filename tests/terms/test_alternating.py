"""EstimNetDirected's directed alternating statistics (AltKTriangles*, AltTwoPaths*).

Checked against: an independent numpy reference of each full statistic; change
statistics = differences of the reference on random states (present and absent
dyads); statnet's printed values via the identities with dgwesp / dgwdsp; an
own implementation of statnet's gwesp / gwdsp definition; and EstimNetDirected's
printed AltKTrianglesT on Epinions (597173).
"""
import math
import resource
import time

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ergmfit as ef
from support.paths import load_reference
from ergmfit.exceptions import TermError
from ergmfit.network import NetworkState

NAMES = ["AltKTrianglesT", "AltKTrianglesC", "AltKTrianglesD", "AltKTrianglesU",
         "AltTwoPathsT", "AltTwoPathsD", "AltTwoPathsU", "AltTwoPathsTD"]
CACHE = {"otp": 2, "osp": 4, "isp": 8, "aotp": 16}


# ---------------------------------------------------------------------------
# independent reference (dense adjacency matrix, numpy only)
# ---------------------------------------------------------------------------

def reference_all(A, lam):
    """Full statistics in NAMES order, from the definitions (Robins, Pattison & Wang 2009)."""
    A = np.array(A, dtype=float)          # float products use BLAS; counts stay exact
    np.fill_diagonal(A, 0)
    n = A.shape[0]
    q = 1.0 - 1.0 / lam
    M = A @ A          # M[a, b] = #{w: a->w->b}
    O = A.T @ A        # O[a, b] = #{w: w->a, w->b}
    I = A @ A.T        # I[a, b] = #{w: a->w, b->w}
    off = ~np.eye(n, dtype=bool)
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    arcs = A > 0
    wM, wO, wI = (lam * (1.0 - q ** C) for C in (M, O, I))
    t2, d2 = wM[off].sum(), wO[upper].sum()
    return np.array([
        wM[arcs].sum(),          # AltKTrianglesT: arcs a->b, M(a, b)
        wM.T[arcs].sum(),        # AltKTrianglesC: arcs a->b, M(b, a)
        wO[arcs].sum(),          # AltKTrianglesD: arcs a->b, O(a, b)
        wI[arcs].sum(),          # AltKTrianglesU: arcs a->b, I(a, b)
        t2,                      # AltTwoPathsT: ordered pairs
        d2,                      # AltTwoPathsD: unordered pairs
        wI[upper].sum(),         # AltTwoPathsU: unordered pairs
        0.5 * (t2 + d2),         # AltTwoPathsTD
    ])


def formula(lam):
    return " + ".join(f"{nm}({lam!r})" for nm in NAMES)


def adjacency(n, ties):
    A = np.zeros((n, n), dtype=np.int64)
    for i, j in ties:
        A[i, j] = 1
    return A


def digraphs(max_n=12):
    @st.composite
    def build(draw):
        n = draw(st.integers(2, max_n))
        p = draw(st.sampled_from([0.1, 0.25, 0.5, 0.8]))
        seed = draw(st.integers(0, 2**31 - 1))
        rng = np.random.default_rng(seed)
        A = (rng.random((n, n)) < p).astype(np.int64)
        np.fill_diagonal(A, 0)
        return A
    return build()


lambdas = st.one_of(st.just(2.0), st.floats(1.05, 6.0))


def network(A):
    return ef.network.Network(A.shape[0], np.argwhere(A), directed=True)


# ---------------------------------------------------------------------------
# observed statistics
# ---------------------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(A=digraphs(), lam=lambdas)
def test_statistics_match_reference(A, lam):
    m = ef.ERGM(network(A), formula(lam))
    assert np.allclose(m.statistics_vector(), reference_all(A, lam), rtol=1e-10, atol=1e-10)


def _hub_graph(n=300, seed=5):
    # sparse, heavy-tailed, with reciprocity: exercises both iteration branches
    rng = np.random.default_rng(seed)
    g = nx.scale_free_graph(n, seed=seed)
    A = np.zeros((n, n), dtype=np.int64)
    for a, b in g.edges():
        if a != b:
            A[a, b] = 1
    for a, b in np.argwhere(A):
        if rng.random() < 0.3:
            A[b, a] = 1
    return A


def test_sparse_hub_graph_statistics_and_changes():
    A = _hub_graph()
    lam = 2.7
    m = ef.ERGM(network(A), formula(lam))
    assert np.allclose(m.statistics_vector(), reference_all(A, lam), rtol=1e-10)
    c = m.compiled()
    rng = np.random.default_rng(3)
    n = A.shape[0]
    hubs = np.argsort(-(A.sum(0) + A.sum(1)))[:5]
    arcs = np.argwhere(A)
    dyads = [tuple(arcs[k]) for k in rng.integers(0, len(arcs), 15)]
    dyads += [(int(h), int(rng.integers(n))) for h in hubs] + [(int(rng.integers(n)), int(h)) for h in hubs]
    dyads += [(int(a), int(b)) for a in hubs[:3] for b in hubs[:3]]
    for i, j in dyads:
        if i == j:
            continue
        A1 = A.copy(); A1[i, j] = 1
        A0 = A.copy(); A0[i, j] = 0
        want = reference_all(A1, lam) - reference_all(A0, lam)
        assert np.allclose(c.dyad_change_stats(i, j), want, rtol=1e-9, atol=1e-9), (i, j, A[i, j])


# ---------------------------------------------------------------------------
# change statistics on random states
# ---------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(A=digraphs(10), lam=lambdas, seed=st.integers(0, 2**31 - 1))
def test_change_statistics_on_random_states(A, lam, seed):
    n = A.shape[0]
    rng = np.random.default_rng(seed)
    c = ef.ERGM(network(A), formula(lam)).compiled()
    for v in rng.integers(0, c.n_vars, 3 * n):      # random walk away from A
        c.flip_var(int(v))
    B = adjacency(n, c.state.ties())
    for _ in range(12):
        i, j = rng.choice(n, 2, replace=False)
        B1 = B.copy(); B1[i, j] = 1
        B0 = B.copy(); B0[i, j] = 0
        want = reference_all(B1, lam) - reference_all(B0, lam)
        before = c.dyad_change_stats(i, j)
        assert np.allclose(before, want, rtol=1e-9, atol=1e-9), (i, j, B[i, j])
        # toggling twice restores state and change statistics
        v = c.var_of(int(i), int(j))
        c.flip_var(v)
        assert c.state.has(int(i), int(j)) != bool(B[i, j])
        assert np.allclose(c.dyad_change_stats(i, j), want, rtol=1e-9, atol=1e-9)
        c.flip_var(v)
        assert (adjacency(n, c.state.ties()) == B).all()
        # (neighbour order may change, so sums may differ in the last bits)
        assert np.allclose(c.dyad_change_stats(i, j), before, rtol=1e-12, atol=1e-12)


def test_reciprocated_and_hub_configurations_exhaustively():
    # every dyad of a small dense graph with many mutual dyads, present and absent
    rng = np.random.default_rng(11)
    n = 7
    A = (rng.random((n, n)) < 0.6).astype(np.int64)
    np.fill_diagonal(A, 0)
    A = A | A.T * (rng.random((n, n)) < 0.5)
    np.fill_diagonal(A, 0)
    lam = 1.7
    c = ef.ERGM(network(A), formula(lam)).compiled()
    for i in range(n):
        for j in range(n):
            if i != j:
                A1 = A.copy(); A1[i, j] = 1
                A0 = A.copy(); A0[i, j] = 0
                want = reference_all(A1, lam) - reference_all(A0, lam)
                assert np.allclose(c.dyad_change_stats(i, j), want, atol=1e-10)


# ---------------------------------------------------------------------------
# statnet: own implementation of gwesp / gwdsp, and statnet's printed values
# ---------------------------------------------------------------------------

def _partners(G, i, j, kind):
    """statnet's shared-partner types for the ordered pair (i, j)."""
    out_i, in_i = set(G.successors(i)), set(G.predecessors(i))
    out_j, in_j = set(G.successors(j)), set(G.predecessors(j))
    if kind == "OTP":                  # i -> k -> j
        s = out_i & in_j
    elif kind == "ITP":                # j -> k -> i
        s = out_j & in_i
    elif kind == "OSP":                # i -> k, j -> k
        s = out_i & out_j
    elif kind == "ISP":                # k -> i, k -> j
        s = in_i & in_j
    else:
        raise KeyError(kind)
    return len(s - {i, j})


def statnet_gw(G, decay, kind, edgewise):
    """statnet: e^decay * sum_k (1 - (1 - e^-decay)^k) * SP_k, SP_k over arcs (gwesp)
    or over all ordered pairs i != j (gwdsp)."""
    pairs = G.edges() if edgewise else ((i, j) for i in G for j in G if i != j)
    hist = {}
    for i, j in pairs:
        k = _partners(G, i, j, kind)
        hist[k] = hist.get(k, 0) + 1
    r = 1.0 - math.exp(-decay)
    return math.exp(decay) * sum((1.0 - r ** k) * cnt for k, cnt in hist.items())


@settings(max_examples=30, deadline=None)
@given(A=digraphs(9), lam=st.floats(1.1, 5.0))
def test_identities_with_own_statnet_gwesp_gwdsp(A, lam):
    G = nx.from_numpy_array(A, create_using=nx.DiGraph)
    s = dict(zip(NAMES, ef.ERGM(network(A), formula(lam)).statistics_vector()))
    d = math.log(lam)
    approx = lambda x: pytest.approx(x, rel=1e-10, abs=1e-10)   # noqa: E731
    assert s["AltKTrianglesT"] == approx(statnet_gw(G, d, "OTP", True))
    assert s["AltKTrianglesC"] == approx(statnet_gw(G, d, "ITP", True))
    assert s["AltKTrianglesD"] == approx(statnet_gw(G, d, "ISP", True))
    assert s["AltKTrianglesU"] == approx(statnet_gw(G, d, "OSP", True))
    assert s["AltTwoPathsT"] == approx(statnet_gw(G, d, "OTP", False))
    assert s["AltTwoPathsD"] == approx(statnet_gw(G, d, "ISP", False) / 2)
    assert s["AltTwoPathsU"] == approx(statnet_gw(G, d, "OSP", False) / 2)
    assert s["AltTwoPathsTD"] == approx(statnet_gw(G, d, "OTP", False) / 2
                                        + statnet_gw(G, d, "ISP", False) / 4)


def test_decay_is_log_lambda_not_log_lambda_over_lambda_minus_one():
    # a graph where an arc has 3 transitive two-paths tells the two mappings apart
    A = np.zeros((5, 5), dtype=np.int64)
    A[0, 4] = 1
    for w in (1, 2, 3):
        A[0, w] = A[w, 4] = 1
    G = nx.from_numpy_array(A, create_using=nx.DiGraph)
    lam = 3.0
    got = ef.ERGM(network(A), "AltKTrianglesT(3)").statistics()["AltKTrianglesT(3)"]
    # by hand: lambda (1 - q^3) for the arc 0->4, the others have no two-path
    assert got == pytest.approx(3 * (1 - (2 / 3) ** 3), rel=1e-14)
    assert got == pytest.approx(statnet_gw(G, math.log(lam), "OTP", True), rel=1e-12)
    assert got != pytest.approx(statnet_gw(G, math.log(lam / (lam - 1)), "OTP", True), rel=1e-3)


_STATNET_MAP = {   # statnet label prefix -> [(our term, factor)]
    "gwesp.OTP": [("AltKTrianglesT", 1.0)],
    "gwesp.ITP": [("AltKTrianglesC", 1.0)],
    "gwesp.ISP": [("AltKTrianglesD", 1.0)],
    "gwesp.OSP": [("AltKTrianglesU", 1.0)],
    "gwdsp.OTP": [("AltTwoPathsT", 1.0)],
    "gwdsp.ISP": [("AltTwoPathsD", 2.0)],
    "gwdsp.OSP": [("AltTwoPathsU", 2.0)],
}
_STATNET_CASES = [
    (e["dataset"], label, value)
    for e in load_reference("statnet_stats.json")["evaluations"] if e["directed"]
    for label, value in e["stats"].items()
    if label.rsplit(".fixed.", 1)[0] in _STATNET_MAP
]


def test_statnet_cases_present():
    assert {d for d, _, _ in _STATNET_CASES} >= {"samplike", "samplk1", "ecoli1"}
    assert {lab.rsplit(".fixed.", 1)[0] for _, lab, _ in _STATNET_CASES} == set(_STATNET_MAP)


@pytest.mark.parametrize("dataset,label,value", _STATNET_CASES,
                         ids=[f"{d}:{lab}" for d, lab, _ in _STATNET_CASES])
def test_statnet_values(dataset, label, value):
    prefix, decay = label.rsplit(".fixed.", 1)
    lam = math.exp(float(decay))
    ((name, factor),) = _STATNET_MAP[prefix]
    net = ef.datasets.load_network(dataset)
    got = ef.ERGM(net, f"{name}({lam!r})").statistics_vector()[0]
    assert factor * got == pytest.approx(value, rel=1e-9, abs=1e-12)


def test_statnet_alt_two_paths_td():
    ref = {(e["dataset"], lab): v for e in load_reference("statnet_stats.json")["evaluations"]
           for lab, v in e["stats"].items()}
    key = "fixed.0.693147180559945"
    for ds in ("samplike", "samplk1", "ecoli1"):
        got = ef.ERGM(ef.datasets.load_network(ds), "AltTwoPathsTD").statistics()["AltTwoPathsTD(2)"]
        want = ref[(ds, f"gwdsp.OTP.{key}")] / 2 + ref[(ds, f"gwdsp.ISP.{key}")] / 4
        assert got == pytest.approx(want, rel=1e-9)


# ---------------------------------------------------------------------------
# the term table: labels, arguments, caches
# ---------------------------------------------------------------------------

def test_labels_and_lambda_argument():
    net = network(_hub_graph(30))
    s = ef.ERGM(net, "AltKTrianglesT + AltTwoPathsT(2.5) + AltKTrianglesC(lambda=3)"
                     " + altkTrianglesD(1.5) + AltTwoPathsTD(2.0)").statistics()
    assert list(s) == ["AltKTrianglesT(2)", "AltTwoPathsT(2.5)", "AltKTrianglesC(3)",
                       "AltKTrianglesD(1.5)", "AltTwoPathsTD(2)"]
    m = ef.ERGM(net, "AltKTrianglesU")
    assert m.terms[0].args == {"lambda": 2.0}
    assert not m.terms[0].dyad_independent
    assert np.array_equal(m.terms[0].empty, [0.0])


@pytest.mark.parametrize("bad", ["1", "0.5", "-2", "'a'", "TRUE"])
def test_lambda_must_exceed_one(bad):
    net = network(_hub_graph(20))
    for name in NAMES:
        with pytest.raises(TermError, match=name):
            ef.ERGM(net, f"{name}({bad})")


def test_undirected_network_rejected():
    g = nx.path_graph(5)
    for name in NAMES:
        with pytest.raises(TermError, match="directed"):
            ef.ERGM(g, name)


def test_kernels_declare_their_caches():
    net = network(_hub_graph(20))
    # AltKTrianglesT reads the counts of arcs only (and of the toggled pair): per-arc counts
    want = {"AltKTrianglesT": CACHE["aotp"], "AltKTrianglesC": CACHE["otp"],
            "AltKTrianglesD": CACHE["osp"], "AltKTrianglesU": CACHE["isp"],
            "AltTwoPathsT": CACHE["otp"], "AltTwoPathsD": CACHE["osp"],
            "AltTwoPathsU": CACHE["isp"], "AltTwoPathsTD": CACHE["otp"] | CACHE["osp"]}
    for name, flags in want.items():
        m = ef.ERGM(net, name)
        assert m.terms[0].kernel.caches == flags, name
        assert m.compiled().state.caches & flags == flags


def test_large_counts_beyond_power_table():
    # 2100 two-paths a->w->b: q^k beyond the tabulated range (2048) is still right
    k = 2100
    n = k + 2
    ties = [(0, 1)] + [(0, w) for w in range(2, n)] + [(w, 1) for w in range(2, n)]
    net = ef.network.Network(n, ties, directed=True)
    lam = 1.001
    s = ef.ERGM(net, f"AltKTrianglesT({lam!r}) + AltTwoPathsT({lam!r})").statistics_vector()
    q = 1 - 1 / lam
    # AKT-T: arc 0->1 has k two-paths; A2P-T: pair (0,1) has k, no other pair has any
    assert s[0] == pytest.approx(lam * (1 - q ** k), rel=1e-12)
    assert s[1] == pytest.approx(lam * (1 - q ** k), rel=1e-12)
    c = ef.ERGM(net, f"AltKTrianglesT({lam!r})").compiled()
    assert c.dyad_change_stats(0, 1)[0] == pytest.approx(lam * (1 - q ** k), rel=1e-12)


# ---------------------------------------------------------------------------
# Epinions: EstimNetDirected's value, time and memory
# ---------------------------------------------------------------------------

def test_epinions_alt_k_triangles_t_matches_estimnet():
    net = ef.datasets.load_network("epinions")
    assert (net.n, len(net.ties)) == (75879, 508837)
    m = ef.ERGM(net, "AltKTrianglesT + AltTwoPathsT")
    t0 = time.perf_counter()
    s = m.statistics()
    seconds = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nEpinions AltKTrianglesT + AltTwoPathsT: {seconds:.2f} s, max RSS {rss_mb:.0f} MB, {s}")
    akt = s["AltKTrianglesT(2)"]
    # EstimNetDirected prints 597173 (C %g, 6 significant digits)
    assert float(f"{akt:.6g}") == 597173.0
    # independent check of both values at this scale with sparse products
    sp = pytest.importorskip("scipy.sparse")
    A = sp.csr_matrix((np.ones(len(net.ties)), (net.ties[:, 0], net.ties[:, 1])), shape=(net.n, net.n))
    P = (A @ A).tocsr()                      # P[a, b] = M(a, b)
    coo = P.tocoo()
    off = coo.row != coo.col
    assert s["AltTwoPathsT(2)"] == pytest.approx((2.0 * (1.0 - 0.5 ** coo.data[off])).sum(), rel=1e-10)
    on_arcs = P.multiply(A).tocsr().data     # M(a, b) on the arcs (no loops, so no diagonal)
    assert akt == pytest.approx((2.0 * (1.0 - 0.5 ** on_arcs)).sum(), rel=1e-10)
