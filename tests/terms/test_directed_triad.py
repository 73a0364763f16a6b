"""Directed triad and shared-partner terms (ergmfit/terms/dtriad.py, _dtriad.pxi).

Checked against: an independent numpy reference of every full statistic (and a
set-based brute force of the partner definitions); change statistics = differences of
the reference, on every dyad of small dense digraphs with many mutual dyads (present and
absent, with and without the reciprocal tie) and on random MCMC-like states; statnet
4.4's printed values for the bundled directed datasets; and small hand-checked examples
(including the ones in statnet's issue tracker for RTP).
"""
import math
import pickle

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ergmfit as ef
from support.paths import load_reference
from ergmfit.exceptions import TermError

TYPES = ["OTP", "ITP", "RTP", "OSP", "ISP"]


# ---------------------------------------------------------------------------
# independent reference (dense adjacency matrix)
# ---------------------------------------------------------------------------

def sp_matrix(A, t):
    """SP[a, b] = number of shared partners of type t of the ordered pair (a, b)."""
    A = np.array(A, dtype=float)          # float products use BLAS; the counts stay exact
    np.fill_diagonal(A, 0)
    if t == "OTP":          # a->k->b
        M = A @ A
    elif t == "ITP":        # b->k->a
        M = (A @ A).T
    elif t == "OSP":        # a->k, b->k
        M = A @ A.T
    elif t == "ISP":        # k->a, k->b
        M = A.T @ A
    elif t == "RTP":        # a<->k<->b
        R = A * A.T
        M = R @ R
    else:
        raise KeyError(t)
    M = np.rint(M).astype(np.int64)
    np.fill_diagonal(M, 0)
    return M


def sp_all(A):
    return {t: sp_matrix(A, t) for t in TYPES}


def pair_mask(A, kind):
    n = A.shape[0]
    off = ~np.eye(n, dtype=bool)
    if kind == "edge":
        return (A > 0) & off
    if kind == "dyad":
        return off
    return off & (A == 0)      # nonedge


def _masked(A, t, kind, sp):
    sp = sp if sp is not None else sp_all(A)
    if (t, kind) not in sp:
        sp[t, kind] = sp[t][pair_mask(A, kind)]
    return sp[t, kind]


def ref_gw(A, decay, t, kind, sp=None):
    M = _masked(A, t, kind, sp)
    r = 1.0 - math.exp(-decay)
    return math.exp(decay) * float(np.sum(1.0 - r ** M.astype(float)))


def ref_counts(A, ds, t, kind, sp=None):
    M = _masked(A, t, kind, sp)
    return [float(np.sum(M == d)) for d in ds]


def ref_triads(A, sp=None):
    A = np.array(A, dtype=np.int64)
    otp = (sp if sp is not None else sp_all(A))["OTP"]
    A2 = otp                # = A @ A off the diagonal (no loops)
    tt = int(np.sum(A2 * A))
    ct = int(np.sum(A2 * A.T)) // 3
    return {
        "ttriple": tt, "ctriple": ct, "triangle": tt + ct, "transitive": tt,
        "twopath": int(A2.sum()), "m2star": int(A2.sum()),
        "transitiveties": int(np.sum((otp > 0) & (A > 0))),
        "cyclicalties": int(np.sum((otp.T > 0) & (A > 0))),
    }


def brute_partners(A, a, b, t):
    """Partner count straight from statnet's wording (sets, no matrix algebra)."""
    G = nx.from_numpy_array(np.asarray(A), create_using=nx.DiGraph)
    out_a, in_a = set(G.successors(a)), set(G.predecessors(a))
    out_b, in_b = set(G.successors(b)), set(G.predecessors(b))
    s = {"OTP": out_a & in_b, "ITP": out_b & in_a, "OSP": out_a & out_b,
         "ISP": in_a & in_b, "RTP": out_a & in_a & out_b & in_b}[t]
    return len(s - {a, b})


# ---------------------------------------------------------------------------
# a model with every term, and its reference
# ---------------------------------------------------------------------------

TRIADS = ["triangle", "ttriple", "ctriple", "transitive", "twopath", "m2star",
          "transitiveties", "cyclicalties"]
DS = [0, 1, 2, 3, 5]     # a gap (4) and values beyond most counts


def full_model(decay):
    """(formula, reference function A -> vector) with every directed term of this module."""
    parts, refs = list(TRIADS), [lambda A, sp, nm=nm: [ref_triads(A, sp)[nm]] for nm in TRIADS]
    dstr = "c(" + ", ".join(map(str, DS)) + ")"
    for name, t, kind in [("gwesp", "OTP", "edge"), ("gwdsp", "OTP", "dyad"),
                          ("gwnsp", "OTP", "nonedge")]:
        parts.append(f"{name}({decay!r}, fixed=TRUE)")
        refs.append(lambda A, sp, t=t, kind=kind: [ref_gw(A, decay, t, kind, sp)])
    for t in TYPES:
        for name, kind in [("dgwesp", "edge"), ("dgwdsp", "dyad"), ("dgwnsp", "nonedge")]:
            parts.append(f"{name}({decay!r}, fixed=TRUE, type='{t}')")
            refs.append(lambda A, sp, t=t, kind=kind: [ref_gw(A, decay, t, kind, sp)])
        for name, kind in [("desp", "edge"), ("ddsp", "dyad"), ("dnsp", "nonedge")]:
            parts.append(f"{name}({dstr}, type='{t}')")
            refs.append(lambda A, sp, t=t, kind=kind: ref_counts(A, DS, t, kind, sp))
    for name, kind in [("esp", "edge"), ("dsp", "dyad"), ("nsp", "nonedge")]:
        parts.append(f"{name}({dstr})")
        refs.append(lambda A, sp, kind=kind: ref_counts(A, DS, "OTP", kind, sp))
    formula = " + ".join(parts)

    def reference(A):
        sp = sp_all(A)
        return np.array([v for f in refs for v in f(A, sp)], dtype=float)
    return formula, reference


def network(A):
    return ef.network.Network(A.shape[0], np.argwhere(A), directed=True)


def adjacency(n, ties):
    A = np.zeros((n, n), dtype=np.int64)
    for i, j in ties:
        A[i, j] = 1
    return A


def digraphs(max_n=12, min_n=2):
    @st.composite
    def build(draw):
        n = draw(st.integers(min_n, max_n))
        p = draw(st.sampled_from([0.1, 0.3, 0.5, 0.8]))
        recip = draw(st.sampled_from([0.0, 0.5, 1.0]))
        rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
        A = (rng.random((n, n)) < p).astype(np.int64)
        A = A | (A.T * (rng.random((n, n)) < recip))       # extra mutual dyads
        np.fill_diagonal(A, 0)
        return A
    return build()


decays = st.one_of(st.just(0.0), st.just(math.log(2)), st.floats(0.05, 2.5))

_MODELS = {}


def model_for(decay):
    if decay not in _MODELS:
        _MODELS[decay] = full_model(decay)
    return _MODELS[decay]


# ---------------------------------------------------------------------------
# the reference itself
# ---------------------------------------------------------------------------

def test_reference_partner_matrices_match_statnet_wording():
    rng = np.random.default_rng(0)
    A = (rng.random((7, 7)) < 0.55).astype(np.int64)
    A = A | (A.T * (rng.random((7, 7)) < 0.5))
    np.fill_diagonal(A, 0)
    for t in TYPES:
        M = sp_matrix(A, t)
        for a in range(7):
            for b in range(7):
                if a != b:
                    assert M[a, b] == brute_partners(A, a, b, t), (t, a, b)


# ---------------------------------------------------------------------------
# observed statistics
# ---------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(A=digraphs(), decay=decays)
def test_statistics_match_reference(A, decay):
    formula, reference = model_for(decay)
    m = ef.ERGM(network(A), formula)
    got = m.statistics_vector()
    want = reference(A)
    assert np.allclose(got, want, rtol=1e-10, atol=1e-9), \
        [(lab, g, w) for lab, g, w in zip(m.labels, got, want) if not np.isclose(g, w)]


def test_empty_graph_statistics():
    formula, reference = model_for(0.5)
    A = np.zeros((6, 6), dtype=np.int64)
    m = ef.ERGM(network(A), formula)
    got = dict(zip(m.labels, m.statistics_vector()))
    assert np.allclose(m.statistics_vector(), reference(A))
    assert got["dsp0"] == 30 and got["nsp0"] == 30 and got["esp0"] == 0
    assert got["dsp.OSP0"] == 30 and got["gwdsp.fixed.0.5"] == 0


def test_labels_as_statnet_prints_them():
    A = np.zeros((4, 4), dtype=np.int64)
    A[0, 1] = 1
    labels = ef.ERGM(network(A), "triangles + ttriad + ctriad + transitive + twopath + m2star"
                     " + transitiveties + cyclicalties + gwesp(0.5, fixed=TRUE)"
                     " + dgwesp(log(2), fixed=TRUE, type='OTP') + dgwdsp(0.25, fixed=TRUE, type='isp')"
                     " + gwdsp(1, fixed=TRUE) + dgwnsp(0.5, fixed=TRUE, type='RTP')"
                     " + esp(0:1) + dsp(2) + desp(1, type='ITP') + ddsp(0, type='OSP')"
                     " + nsp(3) + dnsp(1, type='RTP') + gwnsp(0.1, fixed=TRUE)").labels
    assert labels == ["triangle", "ttriple", "ctriple", "transitive", "twopath", "m2star",
                      "transitiveties", "cyclicalties", "gwesp.fixed.0.5",
                      "gwesp.OTP.fixed.0.693147180559945", "gwdsp.ISP.fixed.0.25",
                      "gwdsp.fixed.1", "gwnsp.RTP.fixed.0.5", "esp0", "esp1", "dsp2",
                      "esp.ITP1", "dsp.OSP0", "nsp3", "nsp.RTP1", "gwnsp.fixed.0.1"]


def test_hand_checked_triads():
    # complete triad (type 300): 6 transitive triples, 2 cycles, 6 two-paths
    A = np.ones((3, 3), dtype=np.int64) - np.eye(3, dtype=np.int64)
    s = ef.ERGM(network(A), "ttriple + ctriple + triangle + transitive + twopath"
                " + transitiveties + cyclicalties").statistics()
    assert s == {"ttriple": 6, "ctriple": 2, "triangle": 8, "transitive": 6, "twopath": 6,
                 "transitiveties": 6, "cyclicalties": 6}
    # 030T: 0->1->2, 0->2
    A = adjacency(3, [(0, 1), (1, 2), (0, 2)])
    s = ef.ERGM(network(A), "ttriple + ctriple + twopath + transitiveties + cyclicalties"
                " + dgwesp(0, fixed=TRUE, type='OSP')").statistics()
    assert s == {"ttriple": 1, "ctriple": 0, "twopath": 1, "transitiveties": 1,
                 "cyclicalties": 0, "gwesp.OSP.fixed.0": 1}


def test_rtp_examples_from_statnet_issue_tracker():
    # statnet/ergm#215: 1<->2, 2<->3, 1->3; the ESP part was right there: esp.RTP0 = 4, esp.RTP1 = 1
    A = adjacency(3, [(0, 1), (1, 0), (1, 2), (2, 1), (0, 2)])
    s = ef.ERGM(network(A), "desp(0:1, type='RTP') + ddsp(0:1, type='RTP')").statistics()
    assert s["esp.RTP0"] == 4 and s["esp.RTP1"] == 1
    assert s["dsp.RTP0"] == 4 and s["dsp.RTP1"] == 2       # (1,3) and (3,1) have partner 2
    # statnet/ergm#656 (statnet's cached RTP was wrong here; the uncached value is 1)
    A = adjacency(4, [(0, 1), (1, 0), (1, 2), (2, 0), (2, 1), (3, 0), (3, 2)])
    assert ef.ERGM(network(A), "desp(1, type='RTP')").statistics() == {"esp.RTP1": 1}


def test_sparse_hub_graph_statistics_and_changes():
    rng = np.random.default_rng(5)
    n = 250
    g = nx.scale_free_graph(n, seed=5)
    A = np.zeros((n, n), dtype=np.int64)
    for a, b in g.edges():
        if a != b:
            A[a, b] = 1
    for a, b in np.argwhere(A):
        if rng.random() < 0.3:
            A[b, a] = 1
    formula, reference = model_for(0.7)
    m = ef.ERGM(network(A), formula)
    assert np.allclose(m.statistics_vector(), reference(A), rtol=1e-10, atol=1e-8)
    c = m.compiled()
    hubs = np.argsort(-(A.sum(0) + A.sum(1)))[:4]
    arcs = np.argwhere(A)
    dyads = [tuple(arcs[k]) for k in rng.integers(0, len(arcs), 6)]
    dyads += [(int(a), int(b)) for a in hubs for b in hubs if a != b]
    dyads += [(int(h), int(rng.integers(n))) for h in hubs]
    for i, j in dyads:
        if i == j:
            continue
        A1 = A.copy(); A1[i, j] = 1
        A0 = A.copy(); A0[i, j] = 0
        assert np.allclose(c.dyad_change_stats(i, j), reference(A1) - reference(A0),
                           rtol=1e-9, atol=1e-8), (i, j, A[i, j], A[j, i])


# ---------------------------------------------------------------------------
# change statistics
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_change_statistics_every_dyad_of_dense_digraphs(seed):
    rng = np.random.default_rng(100 + seed)
    n = 7
    A = (rng.random((n, n)) < [0.5, 0.65, 0.8, 0.4][seed]).astype(np.int64)
    A = A | (A.T * (rng.random((n, n)) < 0.5))
    np.fill_diagonal(A, 0)
    decay = [0.0, 0.4, math.log(2), 1.7][seed]
    formula, reference = model_for(decay)
    m = ef.ERGM(network(A), formula)
    c = m.compiled()
    cases = set()
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            A1 = A.copy(); A1[i, j] = 1
            A0 = A.copy(); A0[i, j] = 0
            want = reference(A1) - reference(A0)
            got = c.dyad_change_stats(i, j)
            assert np.allclose(got, want, rtol=1e-9, atol=1e-9), \
                (i, j, A[i, j], A[j, i],
                 [(lab, g, w) for lab, g, w in zip(m.labels, got, want) if not np.isclose(g, w)])
            cases.add((int(A[i, j]), int(A[j, i])))
    assert cases == {(0, 0), (0, 1), (1, 0), (1, 1)}      # every tie / reciprocal combination


@settings(max_examples=30, deadline=None)
@given(A=digraphs(10, min_n=3), decay=decays, seed=st.integers(0, 2**31 - 1))
def test_change_statistics_on_random_states(A, decay, seed):
    n = A.shape[0]
    rng = np.random.default_rng(seed)
    formula, reference = model_for(decay)
    c = ef.ERGM(network(A), formula).compiled()
    for v in rng.integers(0, c.n_vars, 3 * n):      # walk away from A; caches follow
        c.flip_var(int(v))
    B = adjacency(n, c.state.ties())
    for _ in range(8):
        i, j = (int(x) for x in rng.choice(n, 2, replace=False))
        if rng.random() < 0.5 and B[j, i] == 0:       # make reciprocal ties common
            c.flip_var(c.var_of(j, i))
            B[j, i] = 1
        B1 = B.copy(); B1[i, j] = 1
        B0 = B.copy(); B0[i, j] = 0
        want = reference(B1) - reference(B0)
        before = c.dyad_change_stats(i, j)
        assert np.allclose(before, want, rtol=1e-9, atol=1e-9), (i, j, B[i, j], B[j, i])
        v = c.var_of(i, j)
        c.flip_var(v)                                  # the change is the same from both sides
        assert c.state.has(i, j) != bool(B[i, j])
        assert np.allclose(c.dyad_change_stats(i, j), want, rtol=1e-9, atol=1e-9)
        c.flip_var(v)                                  # and toggling twice restores the state
        assert (adjacency(n, c.state.ties()) == B).all()
        assert np.allclose(c.dyad_change_stats(i, j), before, rtol=1e-12, atol=1e-12)


def test_changes_sum_to_statistics_in_any_order():
    # adding the ties in a random order from the empty graph telescopes to g(x)
    rng = np.random.default_rng(8)
    A = (rng.random((9, 9)) < 0.5).astype(np.int64)
    A = A | (A.T * (rng.random((9, 9)) < 0.5))
    np.fill_diagonal(A, 0)
    formula, reference = model_for(0.9)
    m = ef.ERGM(network(A), formula)
    c = m.compiled(ties=np.zeros((0, 2), dtype=np.int64))
    total = reference(np.zeros_like(A)).copy()
    for i, j in rng.permutation(np.argwhere(A)):
        total += c.dyad_change_stats(int(i), int(j))
        c.flip_var(c.var_of(int(i), int(j)))
    assert np.allclose(total, reference(A), rtol=1e-10, atol=1e-9)


def test_kernels_pickle():
    rng = np.random.default_rng(2)
    A = (rng.random((8, 8)) < 0.5).astype(np.int64)
    np.fill_diagonal(A, 0)
    formula, _ = model_for(0.3)
    m = ef.ERGM(network(A), formula)
    k2 = [pickle.loads(pickle.dumps(k)) for k in m.kernels]
    from ergmfit.network import NetworkState
    from ergmfit.terms._ergm import ERGMModel
    c1 = m.compiled()
    c2 = ERGMModel(NetworkState(8, True, m.network.ties), k2)
    for i, j in [(0, 1), (3, 2), (7, 5)]:
        assert np.array_equal(c1.dyad_change_stats(i, j), c2.dyad_change_stats(i, j))


# ---------------------------------------------------------------------------
# statnet 4.4's printed values
# ---------------------------------------------------------------------------

MY_TERMS = {"triangle", "triangles", "ttriple", "ttriad", "ctriple", "ctriad", "transitive",
            "twopath", "m2star", "transitiveties", "cyclicalties", "gwesp", "gwdsp", "gwnsp",
            "dgwesp", "dgwdsp", "dgwnsp", "esp", "dsp", "nsp", "desp", "ddsp", "dnsp"}
STATNET = [e for e in load_reference("statnet_stats.json")["evaluations"]
           if e["directed"] and e["term"].split("(")[0].strip() in MY_TERMS]


def test_statnet_reference_covers_the_directed_triad_terms():
    names = {e["term"].split("(")[0] for e in STATNET}
    assert names >= {"ttriple", "ctriple", "transitive", "twopath", "m2star", "dgwesp", "dgwdsp"}
    assert {e["dataset"] for e in STATNET} >= {"samplike", "samplk1", "ecoli1"}


@pytest.mark.parametrize("entry", STATNET, ids=[f"{e['dataset']}:{e['term']}" for e in STATNET])
def test_statnet_values(entry):
    net = ef.datasets.load_network(entry["dataset"])
    stats = ef.ERGM(net, entry["term"]).statistics()
    assert list(stats) == list(entry["stats"])
    for label, want in entry["stats"].items():
        assert stats[label] == pytest.approx(want, rel=1e-9, abs=1e-12), label


def test_transitive_is_statnets_computed_value_not_the_triad_count():
    # statnet's help page says "triads of type 030T/120D/120U/300"; samplike has 34 such
    # triads, but statnet 4.4 prints 154 = ttriple.  We follow the printed value.
    net = ef.datasets.load_network("samplike")
    s = ef.ERGM(net, "transitive + ttriple").statistics()
    assert s["transitive"] == s["ttriple"] == 154


def test_plain_directed_terms_are_the_otp_versions():
    net = ef.datasets.load_network("samplk1")
    s = ef.ERGM(net, "gwesp(0.5, fixed=TRUE) + dgwesp(0.5, fixed=TRUE, type='OTP')"
                " + gwdsp(0.5, fixed=TRUE) + dgwdsp(0.5, fixed=TRUE, type='OTP')"
                " + dgwdsp(0.5, fixed=TRUE, type='ITP')"
                " + esp(0:2) + desp(0:2, type='OTP')").statistics()
    assert s["gwesp.fixed.0.5"] == s["gwesp.OTP.fixed.0.5"]
    assert s["gwdsp.fixed.0.5"] == s["gwdsp.OTP.fixed.0.5"] == s["gwdsp.ITP.fixed.0.5"]
    assert [s[f"esp{d}"] for d in range(3)] == [s[f"esp.OTP{d}"] for d in range(3)]


def test_identities_with_estimnet_alternating_statistics():
    net = ef.datasets.load_network("samplike")
    lam = 2.5
    d = repr(math.log(lam))
    s = ef.ERGM(net, f"AltKTrianglesT({lam}) + AltKTrianglesC({lam}) + AltKTrianglesU({lam})"
                f" + AltKTrianglesD({lam}) + AltTwoPathsT({lam}) + AltTwoPathsU({lam})"
                f" + dgwesp({d}, fixed=TRUE, type='OTP') + dgwesp({d}, fixed=TRUE, type='ITP')"
                f" + dgwesp({d}, fixed=TRUE, type='OSP') + dgwesp({d}, fixed=TRUE, type='ISP')"
                f" + dgwdsp({d}, fixed=TRUE, type='OTP') + dgwdsp({d}, fixed=TRUE, type='OSP')"
                ).statistics_vector()
    assert np.allclose(s[:6], s[6:] * np.array([1, 1, 1, 1, 1, 0.5]), rtol=1e-12)


# ---------------------------------------------------------------------------
# arguments and errors
# ---------------------------------------------------------------------------

def _net():
    return network(adjacency(4, [(0, 1), (1, 2), (2, 0)]))


@pytest.mark.parametrize("term", ["gwesp(0.5)", "dgwesp(0.5, type='OSP')", "gwdsp(0.5)",
                                  "dgwdsp(0.5)", "gwnsp(0.5)", "dgwnsp(0.5)"])
def test_curved_version_is_statnets_default(term):
    # fixed=FALSE (the default): the shared-partner counts 1 ... n - 2, a weight and a decay
    m = ef.ERGM(_net(), term)
    assert m.curved and len(m.stat_labels) == 2 and m.labels[1].endswith(".decay")


@pytest.mark.parametrize("term, msg", [
    ("dgwesp(0.5, fixed=TRUE, type='XTP')", "type must be one of"),
    ("ddsp(1, type=3)", "type must be one of"),
    ("dgwesp(-0.5, fixed=TRUE)", "non-negative"),
    ("gwesp(fixed=TRUE)", "decay is required"),
    ("dgwdsp('a', fixed=TRUE)", "decay must be a number"),
    ("esp(c(1, 1))", "distinct"),
    ("dsp(-1)", "at least 0"),
    ("transitiveties('group')", "no node attribute 'group'"),
    ("gwesp(0.5, fixed=TRUE, cutoff=0)", "cutoff"),
])
def test_argument_errors_name_the_term(term, msg):
    with pytest.raises(TermError, match=msg) as err:
        ef.ERGM(_net(), term)
    assert term.split("(")[0] in str(err.value)


def test_directed_only_terms_on_undirected_network():
    g = nx.path_graph(4)
    # (dgwesp & co. are statnet 4.12 terms on undirected networks too: tests/terms/test_attribute_specs.py)
    for term in ["ttriple", "ctriple", "m2star", "transitive"]:
        with pytest.raises(TermError, match="directed"):
            ef.ERGM(g, term)


def test_cutoff_is_ignored_with_fixed_decay():
    rng = np.random.default_rng(4)
    A = (rng.random((12, 12)) < 0.8).astype(np.int64)
    np.fill_diagonal(A, 0)
    a = ef.ERGM(network(A), "dgwesp(0.5, fixed=TRUE, cutoff=2)").statistics_vector()
    b = ef.ERGM(network(A), "dgwesp(0.5, fixed=TRUE)").statistics_vector()
    assert a == pytest.approx(b, rel=0) and a[0] == pytest.approx(ref_gw(A, 0.5, "OTP", "edge"))


# ---------------------------------------------------------------------------
# a real network: the cached change statistics equal full-statistic differences
# (their speed is printed by benchmarks/bench_kernels.py, not asserted here)
# ---------------------------------------------------------------------------

def test_change_statistics_on_a_real_network_equal_differences():
    net = ef.datasets.load_network("faux.dixon.high")
    m = ef.ERGM(net, "gwesp(0.5, fixed=TRUE) + dgwesp(0.5, fixed=TRUE, type='OSP')"
                " + dgwdsp(0.5, fixed=TRUE, type='ISP') + ttriple + transitiveties")
    c = m.compiled()
    rng = np.random.default_rng(1)
    before = m.statistics_vector(c.state.ties())
    for v in rng.integers(0, c.n_vars, 25):
        v = int(v)
        sign = -1.0 if c.value(v) else 1.0
        change = np.asarray(c.change_stats(v), dtype=float)
        c.flip_var(v)
        after = m.statistics_vector(c.state.ties())
        np.testing.assert_allclose(sign * change, after - before, rtol=1e-12, atol=1e-9)
        before = after
