"""Degree and star terms: kstar, istar, ostar, degree, idegree, odegree, isolates,
gwdegree, gwidegree, gwodegree, altkstar, AltInStars, AltOutStars.

References are computed here from an adjacency matrix, independently of the kernels:
binomial sums with math.comb, degree distributions with np.bincount, statnet's gwdegree
formula on D_k, Snijders et al.'s alternating sum in exact rational arithmetic.
"""
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ergmfit as ef
from support.paths import load_reference

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# -- independent references ----------------------------------------------------------

def degrees(A, directed, which="all"):
    if not directed:
        return A.sum(axis=1).astype(int)
    return {"in": A.sum(axis=0), "out": A.sum(axis=1)}[which].astype(int)


def ref_stars(deg, k):
    return float(sum(math.comb(int(d), k) for d in deg))


def ref_degree_count(deg, d):
    return float(np.sum(deg == d))


def ref_isolates(A):
    return float(np.sum((A + A.T).sum(axis=1) == 0))


def ref_gw(deg, alpha):
    """statnet: e^a sum_k {1 - (1 - e^-a)^k} D_k over the degree distribution D."""
    D = np.bincount(deg)
    r = 1.0 - math.exp(-alpha)
    return math.exp(alpha) * sum((1.0 - r ** k) * D[k] for k in range(len(D)))


def ref_altkstar(deg, lam, n):
    """Snijders et al. (2006): sum_{k=2}^{n-1} (-1)^k S_k / lambda^(k-2), exactly."""
    lam = Fraction(lam)
    total = Fraction(0)
    for k in range(2, n):
        s_k = sum(math.comb(int(d), k) for d in deg)
        total += (-1) ** k * Fraction(s_k) / lam ** (k - 2)
    return float(total)


def ref_estimnet_alt(deg, lam):
    """EstimNetDirected (estimnet.md section 3): l^2 sum [q^d - 1 + d/l], q = 1 - 1/l."""
    q = 1.0 - 1.0 / lam
    return lam * lam * sum(q ** int(d) - 1.0 + d / lam for d in deg)


def undirected_spec(ks, ds, alpha, lam):
    formula = (f"kstar({ks}) + degree({ds}) + isolates + gwdegree({alpha!r}, fixed=TRUE)"
               f" + altkstar({lam!r}, fixed=TRUE)")

    def ref(A):
        n = A.shape[0]
        d = degrees(A, False)
        return np.array([ref_stars(d, k) for k in ks] + [ref_degree_count(d, v) for v in ds]
                        + [ref_isolates(A), ref_gw(d, alpha), ref_altkstar(d, lam, n)])
    return formula, ref


def directed_spec(ks, ds, alpha, alpha2, lam, lam2):
    formula = (f"istar({ks}) + ostar({ks}) + idegree({ds}) + odegree({ds}) + isolates"
               f" + gwidegree({alpha!r}, fixed=TRUE) + gwodegree({alpha2!r}, fixed=TRUE)"
               f" + AltInStars({lam!r}) + AltOutStars(lambda={lam2!r})")

    def ref(A):
        di, do = degrees(A, True, "in"), degrees(A, True, "out")
        return np.array([ref_stars(di, k) for k in ks] + [ref_stars(do, k) for k in ks]
                        + [ref_degree_count(di, v) for v in ds]
                        + [ref_degree_count(do, v) for v in ds]
                        + [ref_isolates(A), ref_gw(di, alpha), ref_gw(do, alpha2),
                           ref_estimnet_alt(di, lam), ref_estimnet_alt(do, lam2)])
    return formula, ref


# -- random graphs -------------------------------------------------------------------

def random_adjacency(n, p, seed, directed):
    rng = np.random.default_rng(seed)
    A = (rng.random((n, n)) < p).astype(int)
    np.fill_diagonal(A, 0)
    if not directed:
        A = np.triu(A, 1)
        A = A + A.T
    return A


def ties_of(A, directed):
    i, j = np.nonzero(A if directed else np.triu(A, 1))
    return np.column_stack([i, j]).astype(np.int64)


def adjacency_of(state, n, directed):
    A = np.zeros((n, n), dtype=int)
    for i, j in state.ties():
        A[i, j] = 1
        if not directed:
            A[j, i] = 1
    return A


graphs = st.tuples(st.integers(2, 12), st.sampled_from([0.0, 0.1, 0.3, 0.6, 0.9, 1.0]),
                   st.integers(0, 2 ** 31))
int_lists = st.lists(st.integers(1, 5), min_size=1, max_size=3, unique=True)
deg_lists = st.lists(st.integers(0, 6), min_size=1, max_size=3, unique=True)
decays = st.floats(0.0, 3.0, allow_nan=False)
lambdas_alt = st.floats(0.3, 6.0, allow_nan=False)
lambdas_en = st.floats(1.01, 8.0, allow_nan=False)


# -- 2. statistics() equals the reference --------------------------------------------

@SETTINGS
@given(graphs, int_lists, deg_lists, decays, lambdas_alt)
def test_undirected_statistics(g, ks, ds, alpha, lam):
    n, p, seed = g
    A = random_adjacency(n, p, seed, False)
    formula, ref = undirected_spec(ks, ds, alpha, lam)
    got = ef.ERGM(ef.Network(n, ties_of(A, False), False), formula).statistics_vector()
    np.testing.assert_allclose(got, ref(A), rtol=1e-9, atol=1e-9)


@SETTINGS
@given(graphs, int_lists, deg_lists, decays, decays, lambdas_en, lambdas_en)
def test_directed_statistics(g, ks, ds, alpha, alpha2, lam, lam2):
    n, p, seed = g
    A = random_adjacency(n, p, seed, True)
    formula, ref = directed_spec(ks, ds, alpha, alpha2, lam, lam2)
    got = ef.ERGM(ef.Network(n, ties_of(A, True), True), formula).statistics_vector()
    np.testing.assert_allclose(got, ref(A), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("directed", [False, True])
def test_bigger_sparse_graphs(directed):
    n = 300
    A = random_adjacency(n, 0.02, 7 + directed, directed)
    if directed:
        formula, ref = directed_spec([2, 3], [0, 1, 5], 0.5, 1.3, 2.0, 3.5)
        want = ref(A)
    else:
        formula, _ = undirected_spec([2, 3], [0, 1, 5], 0.5, 2.0)
        # Snijders' exact sum over k up to n-1 is slow for n = 300: use the closed form
        # lambda^2 sum [q^d - 1 + d/lambda] (checked against the sum on small graphs).
        d = degrees(A, False)
        want = np.array([ref_stars(d, 2), ref_stars(d, 3)]
                        + [ref_degree_count(d, v) for v in (0, 1, 5)]
                        + [ref_isolates(A), ref_gw(d, 0.5), ref_estimnet_alt(d, 2.0)])
    got = ef.ERGM(ef.Network(n, ties_of(A, directed), directed), formula).statistics_vector()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("directed", [False, True])
def test_empty_graph(directed):
    n = 7
    net = ef.Network(n, [], directed)
    if directed:
        f = ("idegree(0:1) + odegree(c(1, 0)) + isolates + istar(2) + gwidegree(0.5, fixed=TRUE)"
             " + AltInStars + AltOutStars")
        want = {"idegree0": 7, "idegree1": 0, "odegree1": 0, "odegree0": 7, "isolates": 7,
                "istar2": 0, "gwideg.fixed.0.5": 0, "AltInStars(2)": 0, "AltOutStars(2)": 0}
    else:
        f = "degree(0:1) + isolates + kstar(2) + gwdegree(0.5, fixed=TRUE) + altkstar(2, fixed=TRUE)"
        want = {"degree0": 7, "degree1": 0, "isolates": 7, "kstar2": 0, "gwdeg.fixed.0.5": 0,
                "altkstar.2": 0}
    assert ef.ERGM(net, f).statistics() == want


# -- 3. change statistics ------------------------------------------------------------

def check_change_statistics(n, p, seed, directed, formula, ref):
    rng = np.random.default_rng(seed)
    A0 = random_adjacency(n, p, seed, directed)
    m = ef.ERGM(ef.Network(n, ties_of(A0, directed), directed), formula).compiled()
    for v in rng.integers(0, m.n_vars, size=int(rng.integers(0, 2 * n))):
        m.flip_var(int(v))
    A = adjacency_of(m.state, n, directed)
    before = m.state.ties().tolist()
    dyads = [(i, j) for i in range(n) for j in range(n) if i != j and (directed or i < j)]
    seen_present = seen_absent = 0
    for i, j in dyads:
        A1, Am = A.copy(), A.copy()
        A1[i, j] = 1
        Am[i, j] = 0
        if not directed:
            A1[j, i] = 1
            Am[j, i] = 0
        want = ref(A1) - ref(Am)
        got = m.dyad_change_stats(i, j)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, err_msg=f"dyad {(i, j)}")
        if A[i, j]:
            seen_present += 1
        else:
            seen_absent += 1
        # the same change after toggling the dyad (present <-> absent), and twice restores
        m.state.toggle_tie(i, j)
        assert bool(m.state.has(i, j)) != bool(A[i, j])
        np.testing.assert_allclose(m.dyad_change_stats(i, j), want, rtol=1e-9, atol=1e-9)
        m.state.toggle_tie(i, j)
        assert bool(m.state.has(i, j)) == bool(A[i, j])
    assert sorted(map(tuple, m.state.ties().tolist())) == sorted(map(tuple, before))
    np.testing.assert_array_equal(adjacency_of(m.state, n, directed), A)
    return seen_present, seen_absent


@SETTINGS
@given(graphs, int_lists, deg_lists, decays, lambdas_alt)
def test_undirected_change_statistics(g, ks, ds, alpha, lam):
    n, p, seed = g
    n = min(n, 9)
    formula, ref = undirected_spec(ks, ds, alpha, lam)
    check_change_statistics(n, p, seed, False, formula, ref)


@SETTINGS
@given(graphs, int_lists, deg_lists, decays, decays, lambdas_en, lambdas_en)
def test_directed_change_statistics(g, ks, ds, alpha, alpha2, lam, lam2):
    n, p, seed = g
    n = min(n, 8)
    formula, ref = directed_spec(ks, ds, alpha, alpha2, lam, lam2)
    check_change_statistics(n, p, seed, True, formula, ref)


def test_change_statistics_see_present_and_absent_dyads():
    # guard: the loop above really exercises both kinds of dyads
    f, ref = directed_spec([2], [1], 0.5, 0.5, 2.0, 2.0)
    present, absent = check_change_statistics(8, 0.4, 3, True, f, ref)
    assert present > 5 and absent > 5
    f, ref = undirected_spec([2], [1], 0.5, 2.0)
    present, absent = check_change_statistics(9, 0.4, 3, False, f, ref)
    assert present > 5 and absent > 5


# -- relations between the parameterisations ----------------------------------------

@SETTINGS
@given(graphs, st.floats(1.01, 10.0, allow_nan=False))
def test_alt_stars_are_gw_degree_with_decay_log_lambda(g, lam):
    """AltInStars(l) = -l gwidegree(log l) + l edges (same for out); altkstar(l) with 2l edges."""
    n, p, seed = g
    A = random_adjacency(n, p, seed, True)
    a = math.log(lam)
    s = ef.ERGM(ef.Network(n, ties_of(A, True), True),
                f"edges + AltInStars({lam!r}) + AltOutStars({lam!r}) + gwidegree({a!r}, fixed=TRUE)"
                f" + gwodegree({a!r}, fixed=TRUE)").statistics_vector()
    edges, ain, aout, gwi, gwo = s
    assert ain == pytest.approx(-lam * gwi + lam * edges, rel=1e-9, abs=1e-9)
    assert aout == pytest.approx(-lam * gwo + lam * edges, rel=1e-9, abs=1e-9)
    U = random_adjacency(n, p, seed, False)
    s = ef.ERGM(ef.Network(n, ties_of(U, False), False),
                f"edges + altkstar({lam!r}, fixed=TRUE) + gwdegree({a!r}, fixed=TRUE)"
                ).statistics_vector()
    assert s[1] == pytest.approx(-lam * s[2] + 2 * lam * s[0], rel=1e-9, abs=1e-9)


def test_wrong_decay_does_not_match():
    # the decay log(l/(l-1)) (= -log q) is not the one that matches AltInStars(l)
    A = random_adjacency(10, 0.4, 1, True)
    lam = 2.5
    wrong = math.log(lam / (lam - 1))
    s = ef.ERGM(ef.Network(10, ties_of(A, True), True),
                f"edges + AltInStars({lam}) + gwidegree({wrong!r}, fixed=TRUE)").statistics_vector()
    assert abs(s[1] - (-lam * s[2] + lam * s[0])) > 1e-3


# -- 4. statnet's values ----------------------------------------------------------------

_OURS = re.compile(r"(kstar|degree|isolates|gwdegree|altkstar|istar|ostar|idegree|odegree|"
                   r"gwidegree|gwodegree)\b")
STATNET = [e for e in load_reference("statnet_stats.json")["evaluations"] if _OURS.match(e["term"])]
_NETS = {}


def _net(name):
    if name not in _NETS:
        _NETS[name] = ef.datasets.load_network(name)
    return _NETS[name]


def test_statnet_entries_found():
    terms = {re.match(r"\w+", e["term"]).group() for e in STATNET}
    assert terms == {"kstar", "degree", "isolates", "gwdegree", "altkstar", "istar", "ostar",
                     "idegree", "odegree", "gwidegree", "gwodegree"}
    assert len(STATNET) >= 50


@pytest.mark.parametrize("entry", STATNET, ids=[f"{e['dataset']}:{e['term']}" for e in STATNET])
def test_statnet_values(entry):
    net = _net(entry["dataset"])
    assert net.directed == entry["directed"]
    stats = ef.ERGM(net, entry["term"]).statistics()
    assert list(stats) == list(entry["stats"])
    for label, want in entry["stats"].items():
        assert stats[label] == pytest.approx(want, rel=1e-9, abs=1e-12), label


# -- EstimNetDirected on Epinions ------------------------------------------------------------

def test_epinions_alt_stars_as_estimnet_prints_them():
    net = ef.datasets.load_network("epinions")
    assert (net.n, net.n_ties, net.directed) == (75879, 508837, True)
    stats = ef.ERGM(net, "AltInStars + AltOutStars").statistics()
    assert list(stats) == ["AltInStars(2)", "AltOutStars(2)"]
    # EstimNetDirected prints with %g (6 significant digits): 868987 and 846747
    assert f"{stats['AltInStars(2)']:g}" == "868987"
    assert f"{stats['AltOutStars(2)']:g}" == "846747"
    # and from the degrees directly
    t = net.ties
    din = np.bincount(t[:, 1], minlength=net.n)
    dout = np.bincount(t[:, 0], minlength=net.n)
    assert stats["AltInStars(2)"] == pytest.approx(ref_estimnet_alt(din, 2.0), rel=1e-12)
    assert stats["AltOutStars(2)"] == pytest.approx(ref_estimnet_alt(dout, 2.0), rel=1e-12)


# -- labels and argument checking ------------------------------------------------------------

def test_labels():
    und = ef.Network(5, [(0, 1), (1, 2)], False)
    di = ef.Network(5, [(0, 1), (1, 2)], True)
    assert list(ef.ERGM(und, "kstar(2:3) + degree(c(0, 2)) + gwdegree(log(2), fixed=TRUE)"
                             " + altkstar(1.5, fixed=TRUE) + isolates").statistics()) == \
        ["kstar2", "kstar3", "degree0", "degree2", "gwdeg.fixed.0.693147180559945",
         "altkstar.1.5", "isolates"]
    assert list(ef.ERGM(di, "istar(2) + ostar(3) + idegree(0) + odegree(1:2) + isolates"
                            " + gwidegree(0.25, fixed=TRUE) + gwodegree(1, fixed=TRUE)"
                            " + AltInStars + AltOutStars(2.5)").statistics()) == \
        ["istar2", "ostar3", "idegree0", "odegree1", "odegree2", "isolates",
         "gwideg.fixed.0.25", "gwodeg.fixed.1", "AltInStars(2)", "AltOutStars(2.5)"]
    # EstimNet spells names case-insensitively
    assert list(ef.ERGM(di, "altinstars(3) + Isolates").statistics()) == ["AltInStars(3)", "isolates"]


@pytest.mark.parametrize("directed, formula, message", [
    (False, "gwdegree(-0.5)", r"gwdegree.*decay must be at least 0"),
    (True, "gwidegree(0.5, fixed=FALSE, cutoff=0)", r"gwidegree.*cutoff"),
    (False, "altkstar(-1)", r"altkstar.*lambda must be greater than 0"),
    (False, "altkstar(0, fixed=TRUE)", r"altkstar.*lambda"),
    (False, "gwdegree(fixed=TRUE)", r"gwdegree.*decay"),
    (False, "gwdegree('a', fixed=TRUE)", r"gwdegree.*decay"),
    (False, "gwdegree(0.5, fixed=TRUE, cutoff=c(3, 4))", r"gwdegree.*cutoff"),
    (False, "gwdegree(0.5, fixed=TRUE, cutoff=0)", r"gwdegree.*cutoff"),
    (True, "AltInStars(1)", r"AltInStars.*lambda.*greater than 1"),
    (True, "AltOutStars(0.5)", r"AltOutStars.*lambda.*greater than 1"),
    (False, "kstar(0)", r"kstar.*k"),
    (False, "kstar(2.5)", r"kstar.*integer"),
    (False, "degree(-1)", r"degree.*d"),
    (True, "idegree(c())", r"idegree"),
    (True, "kstar(2)", r"kstar.*undirected"),
    (False, "istar(2)", r"istar.*directed"),
    (False, "AltInStars", r"AltInStars.*directed"),
    (True, "degree(1)", r"degree.*undirected"),
    (True, "gwdegree(0.5, fixed=TRUE)", r"gwdegree.*undirected"),
])
def test_argument_errors(directed, formula, message):
    net = ef.Network(4, [(0, 1)], directed)
    with pytest.raises(ef.TermError, match=message):
        ef.ERGM(net, formula)


def test_registered_kinds():
    from ergmfit.terms.registry import BOTH, DIRECTED, UNDIRECTED, all_terms
    kinds = {(s.name, s.kinds) for s in all_terms() if s.family == "degree and star"}
    assert kinds == {("kstar", UNDIRECTED), ("degree", UNDIRECTED), ("gwdegree", UNDIRECTED),
                     ("altkstar", UNDIRECTED), ("isolates", BOTH), ("istar", DIRECTED),
                     ("ostar", DIRECTED), ("idegree", DIRECTED), ("odegree", DIRECTED),
                     ("gwidegree", DIRECTED), ("gwodegree", DIRECTED), ("AltInStars", DIRECTED),
                     ("AltOutStars", DIRECTED)}
