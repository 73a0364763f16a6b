"""IFD's reciprocating component (``ReciprocalIFD``, EE's ``reciprocation``): its
stationary distribution by enumeration, the mutual count it keeps, the setting, and an
EE fit of a sparse reciprocal network whose Reciprocity plain IFD cannot hold."""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.ee.proposals import mutual_counts, reciprocation_probability
from ergmfit.exceptions import SettingsError
from ergmfit.sampling._mh import MHSampler
from ergmfit.sampling._proposals import IFD, ReciprocalIFD
from ergmfit.sampling.space import sample_space_of
from ergmfit.utils.validation import seed_words
from support.ee import quiet_fit


def _mutual(cm, n):
    """M of the compiled model's current ties."""
    on = set(cm.dyad_of(int(v)) for v in cm.on_vars())
    return sum(1 for (i, j) in on if (j, i) in on) // 2


def _ifd_exact(model, theta, V, n):
    """IFD's stationary mean of the statistics: exp(θ·g) on the layers L, L + 1, the
    layer L + 1 weighted by (L + 1) / (D − L) e^V."""
    dyads = list(itertools.permutations(range(n), 2))
    D, L = len(dyads), len(model.network.ties)
    stats, w = [], []
    for k in (L, L + 1):
        for sub in itertools.combinations(dyads, k):
            s = model.statistics_vector(np.array(sub, dtype=np.int64).reshape(-1, 2))
            stats.append(s)
            w.append(np.exp(theta @ s) * ((L + 1) / (D - L) * np.exp(V) if k == L + 1 else 1.0))
    w = np.array(w) / np.sum(w)
    return w @ np.array(stats)


@pytest.mark.parametrize("p, edges, mutual, seed", [
    (0.5, [(0, 1), (1, 0), (2, 3), (3, 1)], 0.8, 3),
    (0.9, [(0, 1), (1, 0), (2, 3), (3, 1)], 0.8, 4),
    (0.7, [(0, 1), (1, 2), (2, 3)], 0.8, 5),         # no mutual dyad at the start
    # a negative mutual coefficient: reciprocating adds are accepted with probability
    # below 1, so the Hastings term of a uniformly drawn reverse of an arc counts too
    (0.3, [(0, 1), (1, 0), (2, 3), (3, 1)], -1.0, 1),
    (0.2, [(0, 1), (1, 2), (2, 3), (3, 0)], -1.5, 2),
])
def test_stationary_distribution_by_enumeration(p, edges, mutual, seed):
    # the mixture's Hastings term keeps IFD's stationary distribution (and so the
    # density correction V - log((D - L)/(L + 1))).  Checked to fail (means 3-21 s.e.
    # off) with the term dropped, with A for A + 1 on the delete of a mutual arc, with
    # a mutual arc's delete taken as a plain one, and with a uniformly drawn reverse
    # of an arc taken as a plain add
    g = nx.DiGraph()
    g.add_nodes_from(range(4))
    g.add_edges_from(edges)
    m = ef.ERGM(g, "edges + mutual + ttriple")
    th = np.array([0.0, mutual, -0.4 if mutual > 0 else 0.3])
    V = 0.3
    exact = _ifd_exact(m, th, V, 4)
    cm = m.compiled()
    prop = ReciprocalIFD(cm, p, V=V, adapt=False)
    s = MHSampler(cm, prop, seed_words(seed))
    S = m.statistics_vector() + s.sample(th, 40000, 1000, 25)
    se = S.std(axis=0) / np.sqrt(len(S) / 4)
    assert np.all(np.abs(S.mean(axis=0) - exact) < 5 * se + 1e-9), (S.mean(axis=0), exact, se)
    assert prop.n_recip > 0                      # the component was used
    assert prop.n_mutual == _mutual(cm, 4)


def test_zero_probability_is_the_ifd_chain():
    net = ef.datasets.load_network("samplike")
    th = np.array([0.0, 1.5])
    out = []
    for make in (lambda cm: IFD(V=-1.0), lambda cm: ReciprocalIFD(cm, 0.0, V=-1.0)):
        cm = ef.ERGM(net, "edges + mutual").compiled()
        s = MHSampler(cm, make(cm), seed_words(11))
        out.append(s.sample(th, 200, 50, 10))
    assert np.array_equal(out[0], out[1])


def test_mutual_count_follows_moves_scored_moves_and_outside_changes():
    net = ef.datasets.load_network("samplike")
    cm = ef.ERGM(net, "edges + mutual").compiled()
    prop = ReciprocalIFD(cm, 0.6, V=0.0)
    s = MHSampler(cm, prop, seed_words(2))
    n = net.n
    assert prop.n_mutual == _mutual(cm, n) == 28
    th = np.array([0.0, 1.0])
    for k in range(30):
        s.run_batch(th, 17, apply=(k % 3 != 0))       # scored moves leave the state alone
        assert prop.n_mutual == _mutual(cm, n)
        assert s.delta[1] == _mutual(cm, n) - 28       # the mutual statistic agrees
    # a toggle the proposal did not make (another sampler on the same model)
    other = MHSampler(cm, IFD(), seed_words(5))
    other.run_batch(th, 40)
    s.run_batch(th, 1)
    assert prop.n_mutual == _mutual(cm, n)


def test_needs_a_directed_ergm_and_a_probability_below_one():
    cm = ef.ERGM(ef.datasets.load_network("lazega"), "edges").compiled()
    with pytest.raises(ValueError, match="directed"):
        ReciprocalIFD(cm, 0.5)
    cm = ef.ERGM(ef.datasets.load_network("samplike"), "edges").compiled()
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        ReciprocalIFD(cm, 1.0)


def _sparse_reciprocal(n=3000, n_mutual=900, n_asym=1200, seed=1):
    """A sparse directed network with a high share of mutual arcs."""
    rng = np.random.default_rng(seed)
    seen, arcs = set(), []
    while len(seen) < n_mutual + n_asym:
        i, j = (int(x) for x in rng.integers(0, n, 2))
        if i == j or (i, j) in seen or (j, i) in seen:
            continue
        seen.add((i, j))
        arcs.append((i, j))
        if len(seen) <= n_mutual:
            arcs.append((j, i))
    return ef.Network(n, np.array(arcs, dtype=np.int64), True)


def test_the_setting():
    net = _sparse_reciprocal()
    m = ef.ERGM(net, "edges + mutual")
    space = sample_space_of(m)
    D, L, M = mutual_counts(net)
    assert (L, M) == (3000, 900)
    assert reciprocation_probability(m, "auto", "ifd", space) == pytest.approx(0.6)
    assert reciprocation_probability(m, True, "ifd-tnt", space) == pytest.approx(0.6)
    assert reciprocation_probability(m, 0.3, "ifd", space) == 0.3
    assert reciprocation_probability(m, False, "ifd", space) == 0.0
    assert reciprocation_probability(m, 0.3, "tnt", space) == 0.0
    # a small dense network: a uniform add reverses an arc often enough ("auto" leaves it)
    sl = ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual")
    assert reciprocation_probability(sl, "auto", "ifd", sample_space_of(sl)) == 0.0
    lz = ef.ERGM(ef.datasets.load_network("lazega"), "edges")
    assert reciprocation_probability(lz, "auto", "ifd", sample_space_of(lz)) == 0.0
    with pytest.raises(SettingsError, match="directed"):
        reciprocation_probability(lz, 0.5, "ifd", sample_space_of(lz))
    for bad in ("sometimes", 1.0, -0.1):
        with pytest.raises(SettingsError, match="reciprocation"):
            quiet_fit(m, reciprocation=bad, ee_steps=1)


def test_ee_holds_reciprocity_of_a_sparse_network():
    # 3,000 nodes, 3,000 arcs, 60 % of them mutual: a uniform add reverses an arc with
    # probability 4e-5, so plain IFD cannot rebuild the mutual dyads its deletes break
    # (Reciprocity's dzA stays far below 0 while θ grows); with the reciprocating
    # component ("auto") Reciprocity's dzA comes back to 0 and EE settles
    m = ef.ERGM(_sparse_reciprocal(), "edges + mutual")
    kw = dict(random_state=1, ee_steps=24, ee_inner_steps=25, sampler_steps=400, s_steps=20,
              se="none", polish=False, update="borisenko", learning_rate=0.01)
    fit = quiet_fit(m, **kw)
    assert fit.info["ifd"]["reciprocation"] == pytest.approx(0.6)
    dz = np.array(fit.info["trajectory"][0]["dzA"])[:, 1]
    tail = dz[len(dz) // 2:]
    assert np.abs(tail).mean() < 15 and abs(fit.info["t_ratios"]["mutual"]) < 0.3, \
        (tail, fit.info["t_ratios"])
    plain = quiet_fit(m, reciprocation=False, **kw)
    dz0 = np.array(plain.info["trajectory"][0]["dzA"])[:, 1]
    assert plain.info["ifd"]["reciprocation"] == 0.0
    assert dz0[len(dz0) // 2:].mean() < -50        # stuck below the observed M


@pytest.mark.slow
def test_a_resumed_chain_compiles_the_model_once(tmp_path, monkeypatch):
    # reading the chain's checkpoint compiled the model a second time only to learn its
    # number of variables: a second network state, about 2 GB of a resumed Pokec run's peak
    from ergmfit.estimation.ee.checkpoint import read_chain_state
    m = ef.ERGM(_sparse_reciprocal(n=300, n_mutual=60, n_asym=200), "edges + mutual")
    ck = str(tmp_path / "ck")
    kw = dict(ee_steps=4, ee_inner_steps=5, sampler_steps=100, s_steps=5, se="none",
              polish=False)
    quiet_fit(m, random_state=2, checkpoint=ck, **kw)
    n_vars = m.compiled().n_vars
    calls = []
    original = type(m).compiled

    def counted(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)
    monkeypatch.setattr(type(m), "compiled", counted)
    saved = read_chain_state(f"{ck}/chain_0.npz", m, 0, n_vars)
    assert calls == [] and len(saved["arrays"]["x_on"]) > 0
    read_chain_state(f"{ck}/chain_0.npz", m, 0)             # without n_vars it compiles
    assert calls == [1]
    calls.clear()
    quiet_fit(m, resume=ck)
    assert calls == [1]                                       # the chain's own model only
