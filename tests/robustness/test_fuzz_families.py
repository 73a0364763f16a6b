"""The attack of #38 on the new families: valued/count ERGMs, temporal panels, several networks
and layers, egocentric samples, tapered models and the tempered sampler -- their formulas,
files, settings, checkpoints and interrupts, from Python and from the command line.

The promises are those of :mod:`tests.robustness.test_fuzz`: only ergmfit's own errors escape
(a message naming the problem), no hang (work is bounded or refused up front), no file
written that the user did not name, and a Ctrl-C returns the finished work.

* ``test_found_*``: each input the attack (session 10) found raising a raw exception,
  hanging or silently ignored, as a regression test; each failed on the code before.
* ``test_fuzz_*``: hypothesis over hostile text and files of each family (few examples in
  the default run; ``slow`` runs more).
* ``test_cli_*``: the command line on hostile files and settings of each family.
* ``test_*_ctrl_c``: a real SIGINT in a count MCMC-MLE, a CMLE and a btergm bootstrap.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ergmfit as ef
from ergmfit.cli import main
from ergmfit.exceptions import SettingsError
from ergmfit.sampling.tempered import with_tempering
from ergmfit.temporal.dynamics import simulate_dynamic
from support.interrupts import sigint_soon


def _ours(fn):
    """Run ``fn``; a non-ergmfit exception fails the test (the value or the error is
    returned)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    except ef.ErgmfitError as exc:
        return exc


def valued(weights=(3, 1, 2, 1, 2, 1), directed=True):
    g = nx.DiGraph() if directed else nx.Graph()
    for k, (u, v) in enumerate([(1, 2), (2, 1), (2, 3), (3, 1), (4, 1), (1, 4)]):
        g.add_edge(u, v, weight=weights[k % len(weights)])
    return g


def samplk():
    return ef.NetSeries([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)])


def stacked():
    return ef.Networks([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)],
                       attrs={"wave": [1, 2, 3]})


def layered():
    g = nx.DiGraph()
    for u, v, a, b in [(1, 2, 1, 0), (2, 3, 1, 1), (3, 1, 0, 1), (1, 3, 1, 1)]:
        g.add_edge(u, v, advice=a, friend=b)
    return ef.Layer(g, layers=["advice", "friend"])


def ego_frames():
    egos = pd.DataFrame({"egoID": [1, 2, 3, 4], "sex": ["F", "M", "F", "M"]})
    alters = pd.DataFrame({"egoID": [1, 1, 2, 3, 4], "alterID": [1, 2, 1, 1, 1],
                           "sex": ["M", "F", "F", "M", "F"]})
    aties = pd.DataFrame({"egoID": [1], "srcID": [1], "tgtID": [2]})
    return egos, alters, aties


# ---------------------------------------------------------------------------------------
# what the attack found (each raised a raw exception, hung or was ignored before)
# ---------------------------------------------------------------------------------------
def _count(weights=(3, 1, 2, 1, 2, 1), formula="sum + nonzero", reference="Poisson"):
    return ef.ERGM(valued(weights), formula, response="weight", reference=reference)


FOUND = {
    # count: a Python int beyond float (TypeError), trials beyond C long (OverflowError),
    # a support the MPLE design cannot hold (MemoryError / OverflowError), infinite
    # change statistics (scipy's ValueError)
    "count value 10^30": lambda: _count((10 ** 30,)).statistics(),
    "count trials 2^63": lambda: _count(reference="Binomial(9223372036854775808)"),
    "count trials of 400 digits": lambda: _count(reference="Binomial(" + "9" * 400 + ")"),
    "count MPLE of value 2^31": lambda: _count((2 ** 31,)).fit("mple"),
    "count MPLE of value 2^62": lambda: _count((np.int64(2 ** 62),)).fit("mple"),
    "count MPLE of Binomial(10^9)": lambda: _count(reference="Binomial(1000000000)").fit("mple"),
    "count MPLE of sum(pow=1e308)": lambda: _count(formula="sum + sum(pow=1e308)",
                                                   reference="Binomial(3)").fit("mple"),
    "count tempered (was silently untempered)": lambda: with_tempering(
        _count(formula="sum"), n_temps=3).simulate([0.0], n=2, burnin=10, interval=2,
                                                   random_state=1),
    # temporal
    "NetSeries(None)": lambda: ef.NetSeries(None),
    "NetSeries(3)": lambda: ef.NetSeries(3),
    "NetSeries edge covariate of text": lambda: ef.NetSeries(
        [nx.path_graph(3)] * 2, edge_covariates={"c": "abc"}),
    "simulate_dynamic n_steps NaN": lambda: simulate_dynamic(
        ef.ERGM(samplk(), "Form(~edges) + Persist(~edges)"), [-3.0, 1.0], n_steps=float("nan")),
    "simulate_dynamic n_steps 'a'": lambda: simulate_dynamic(
        ef.ERGM(samplk(), "Form(~edges) + Persist(~edges)"), [-3.0, 1.0], n_steps="a"),
    "simulate_dynamic burnin NaN": lambda: simulate_dynamic(
        ef.ERGM(samplk(), "Form(~edges) + Persist(~edges)"), [-3.0, 1.0], n_steps=1,
        burnin=float("nan")),
    "simulate_dynamic 10^12 steps (hung)": lambda: simulate_dynamic(
        ef.ERGM(samplk(), "Form(~edges) + Persist(~edges)"), [-3.0, 1.0], n_steps=10 ** 12),
    "btergm R=10^12 (MemoryError)": lambda: ef.ERGM(samplk(), "edges + memory").fit(
        "btergm", R=10 ** 12),
    "tapered NetSeries (misleading)": lambda: ef.ERGM(samplk(), "Form(~edges)", tapered=True),
    # several networks and layers
    "N() lm of wave/0 (scipy ValueError)": lambda: ef.ERGM(
        stacked(), "N(~edges, lm=~I(wave/0))").fit("mple"),
    "N() lm of exp(1000 wave)": lambda: ef.ERGM(stacked(), "N(~edges, lm=~exp(wave*1000))"),
    "N() lm nested 300 deep (RecursionError)": lambda: ef.ERGM(
        stacked(), "N(~edges, lm=~" + "(" * 300 + "wave" + ")" * 300 + ")"),
    "L() logic !x5000 (RecursionError)": lambda: ef.ERGM(layered(),
                                                         "L(~edges, ~" + "!" * 5000 + "advice)"),
    "L() logic nested 500 deep": lambda: ef.ERGM(
        layered(), "L(~edges, ~" + "(" * 500 + "advice" + ")" * 500 + ")"),
    # egocentric
    "ego alter ids of mixed types": lambda: ef.EgoData(
        *ego_frames()[:2], alter_ties=ego_frames()[2].assign(tgtID=["2"])),
    "ego gwdegree decay 1e308 (OverflowError)": lambda: ef.ego.statistics(
        ef.EgoData(*ego_frames()[:2]), "edges + gwdegree(1e308, fixed=TRUE)"),
    "ego gwesp decay -1e308": lambda: ef.ego.statistics(
        ef.EgoData(*ego_frames()), "edges + gwesp(-1e308, fixed=TRUE)"),
    "ego popsize 10^12 (MemoryError)": lambda: ef.ERGM(ef.EgoData(*ego_frames()[:2]), "edges",
                                                       popsize=10 ** 12),
    "ego ppopsize_mul 10^12": lambda: ef.ERGM(ef.EgoData(*ego_frames()[:2]), "edges",
                                              ppopsize_mul=1e12),
    "ego unknown argument": lambda: ef.ERGM(ef.EgoData(*ego_frames()[:2]), "edges", nosuch=1),
    "ego tapered": lambda: ef.ERGM(ef.EgoData(*ego_frames()[:2]), "edges", tapered=True),
    "ego egos file is a directory": lambda: ef.EgoData(os.getcwd(), ego_frames()[1]),
    "ego from_network egos=['x']": lambda: ef.EgoData.from_network(
        ef.datasets.load("flomarriage"), egos=["x"]),
    "ego from_network egos=[10^30]": lambda: ef.EgoData.from_network(
        ef.datasets.load("flomarriage"), egos=[10 ** 30]),
    "ego scaleto 1e300 (OverflowError)": lambda: ef.ego.statistics(
        ef.EgoData(*ego_frames()[:2]), "edges", scaleto=1e300, se=True),
    "ego weights whose sum overflows (NaN statistics)": lambda: ef.EgoData(
        ego_frames()[0].assign(w=1e308), ego_frames()[1], weights="w"),
    # tapered, tempered and the front door
    "tapered r='a'": lambda: ef.ERGM("flomarriage", "edges", tapered=True, r="a"),
    "tapered=False": lambda: ef.ERGM("flomarriage", "edges", tapered=False).statistics(),
    "ERGM unknown argument": lambda: ef.ERGM("flomarriage", "edges", nosuch=1),
    "tempering of 10^9 replicas (took 6 GB)": lambda: with_tempering(
        ef.ERGM(nx.cycle_graph(6), "edges"), n_temps=10 ** 9),
    "tempering of 10^5 betas": lambda: with_tempering(
        ef.ERGM(nx.cycle_graph(6), "edges"), betas=list(np.geomspace(1, 0.5, 10 ** 5))),
    "tempering of a number": lambda: with_tempering(3, n_temps=3),
}
# inputs that must now be refused (the rest must give a result)
MUST_WORK = {"tapered=False", "ego gwdegree decay 1e308 (OverflowError)"}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_found_by_the_attack(name):
    out = _ours(FOUND[name])
    if name in MUST_WORK:
        assert not isinstance(out, Exception), f"{name}: {out}"
    else:
        assert isinstance(out, ef.ErgmfitError), f"{name}: returned {out!r:.200}"
        assert len(str(out)) < 600, f"{name}: the message echoes the input: {str(out)[:200]}"


def test_found_big_counts_name_the_limit():
    assert "2^62" in str(_ours(lambda: _count((10 ** 30,)).statistics()))
    assert "65,536" in str(_ours(lambda: _count((2 ** 31,)).fit("mple")))
    assert "not finite" in str(_ours(FOUND["count MPLE of sum(pow=1e308)"]))


def test_found_ego_gw_decay_limit_equals_the_network_terms():
    # decay beyond exp's range: the limit, as the network's gwdegree gives (no overflow)
    ego = ef.EgoData.from_network(ef.datasets.load("flomarriage"))
    got = ef.ego.statistics(ego, "gwdegree(1e308, fixed=TRUE)", scaleto=ego.n_egos)
    want = ef.ERGM("flomarriage", "gwdegree(1e308, fixed=TRUE)").statistics()
    assert float(got.stats.iloc[0]) == pytest.approx(list(want.values())[0])


PANELS = {
    "a row without a wave": ("wave,from,to\n,a,b\n1,b,c\n2,a,c\n", "no value in column 'wave'"),
    "a row without an id": ("wave,from,to\n1,,b\n1,b,c\n2,a,c\n", "no value in column 'from'"),
    "a tie twice": ("wave,from,to\n1,a,b\n1,a,b\n2,a,c\n", "listed twice"),
    "one column": ("wave\n1\n2\n", "two node id columns"),
}


@pytest.mark.parametrize("case", sorted(PANELS))
def test_found_panel_files_are_refused(tmp_path, case):
    # before: silently dropped rows, a node called nan, merged duplicates, an IndexError
    text, message = PANELS[case]
    path = tmp_path / "panel.csv"
    path.write_text(text)
    with pytest.raises(ef.NetworkError, match=message):
        ef.NetSeries.from_edgelist(str(path), directed=False)


def test_found_panel_file_errors(tmp_path):
    for path in (tmp_path / "missing.csv", tmp_path, "/bin/sh"):
        with pytest.raises(ef.ErgmfitError, match="panel's edge list"):
            ef.NetSeries.from_edgelist(str(path), directed=False)
    nodes = tmp_path / "nodes.csv"
    for text, message in (("\n", "does not parse"), ("id,x\na,1\na,2\n", "more than once"),
                          ("id,x\n,1\na,2\n", "has no id")):
        nodes.write_text(text)
        (tmp_path / "p.csv").write_text("wave,from,to\n1,a,b\n2,a,b\n")
        with pytest.raises(ef.ErgmfitError, match=message):
            ef.NetSeries.from_edgelist(str(tmp_path / "p.csv"), directed=False, nodes=str(nodes))


def test_found_panel_of_both_directions_warns(tmp_path):
    path = tmp_path / "panel.csv"
    path.write_text("wave,from,to\n1,a,b\n1,b,a\n2,a,b\n")
    with pytest.warns(UserWarning, match="both directions"):
        s = ef.NetSeries.from_edgelist(str(path), directed=False)
    assert [w.n_ties for w in s.waves] == [1, 1]


# ---------------------------------------------------------------------------------------
# hypothesis: hostile text and files of each family
# ---------------------------------------------------------------------------------------
_NUMBERS = ["0", "1", "3", "-1", "2.5", "1e308", "1e400", "NaN", "Inf", "9" * 40, "2147483648",
            "9223372036854775808", "", "a", "0x10", "1_0", "3L"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["Poisson", "Geometric", "Binomial({})", "DiscUnif({}, {})", "~Binomial({})",
                        "Binomial(trials={})", "{}", "Binomial({}, {})", "DiscUnif({})"]),
       st.lists(st.sampled_from(_NUMBERS), min_size=2, max_size=2),
       st.lists(st.sampled_from([0, 1, 2, 3, 2 ** 40, -1, 1.5, float("nan"), 10 ** 25, None]),
                min_size=1, max_size=3))
@example("Binomial({})", ["9223372036854775808", "1"], [1])
def test_fuzz_count_references_and_values(template, args, weights):
    ref = template.format(*args)
    g = valued()
    for k, (u, v) in enumerate(g.edges):
        g.edges[u, v]["weight"] = weights[k % len(weights)]
    m = _ours(lambda: ef.ERGM(g, "sum + nonzero", response="weight", reference=ref))
    if not isinstance(m, Exception):
        _ours(m.statistics)
        _ours(lambda: m.fit("mple"))


_PANEL_CELLS = ["1", "2", "a", "b", "c", "", "NaN", "1e400", "日", "-1", "1.5", "x y", "\"q\""]


@st.composite
def panel_files(draw):
    header = draw(st.sampled_from(["wave,from,to", "wave,from", "from,to,wave", "wave,a,b,c",
                                   "wave", "x,from,to", ""]))
    rows = draw(st.lists(st.lists(st.sampled_from(_PANEL_CELLS), min_size=0, max_size=4),
                         max_size=6))
    return header + "\n" + "".join(",".join(r) + "\n" for r in rows)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(panel_files(), st.booleans())
@example("wave,from,to\n1,a,b\n2,a,c\n3,,b\n", False)
def test_fuzz_panel_files(tmp_path, text, directed):
    path = tmp_path / "panel.csv"
    path.write_text(text)
    s = _ours(lambda: ef.NetSeries.from_edgelist(str(path), directed=directed))
    if not isinstance(s, Exception):
        assert s.n_waves >= 2
        _ours(lambda: ef.ERGM(s, "Form(~edges) + Persist(~edges)").fit("cmple"))


_LOGIC = ["advice", "friend", "nosuch", "&", "|", "!", "(", ")", "^", "==", "1", "0", "TRUE",
          "xor(", ",", " ", "'", "&&", "-", "/", "log(", "1e400"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_LOGIC), max_size=12), st.integers(0, 300))
@example(["!"] * 5, 400)
def test_fuzz_layer_logic(tokens, depth):
    text = "(" * depth + "".join(tokens) + ")" * depth
    m = _ours(lambda: ef.ERGM(layered(), f"L(~edges + mutual, ~{text})"))
    if not isinstance(m, Exception):
        _ours(m.statistics)


_LM = ["wave", "1", "0", "+", "-", "*", "/", "^", ":", "(", ")", "log(", "exp(", "sqrt(", "I(",
       "nosuch", "1e308", "factor(", "abs("]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_LM), min_size=1, max_size=10), st.integers(0, 200))
def test_fuzz_lm_formulas(tokens, depth):
    text = "(" * depth + "".join(tokens) + ")" * depth
    m = _ours(lambda: ef.ERGM(stacked(), f"N(~edges + mutual, lm=~{text})"))
    if not isinstance(m, Exception):
        _ours(lambda: m.fit("mple"))


_EGO_CELLS = ["1", "2", "3", "4", "99", "", "NaN", "F", "M", "-1", "1e308", "a", "1.5"]


@st.composite
def ego_tables(draw):
    def table(columns, n):
        rows = [[draw(st.sampled_from(_EGO_CELLS)) for _ in columns] for _ in range(n)]
        return ",".join(columns) + "\n" + "".join(",".join(r) + "\n" for r in rows)
    egos = table(draw(st.sampled_from([["egoID", "sex", "w"], ["egoID", "sex"], ["sex"]])),
                 draw(st.integers(0, 5)))
    alters = table(draw(st.sampled_from([["egoID", "alterID", "sex"], ["egoID", "sex"],
                                         ["alterID"]])), draw(st.integers(0, 6)))
    aties = table(["egoID", "srcID", "tgtID"], draw(st.integers(0, 3)))
    return egos, alters, aties


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ego_tables(), st.sampled_from([None, "w"]),
       st.sampled_from(["edges + nodematch('sex')", "degree(0:2) + esp(0:1)",
                        "edges + gwesp(0.5, fixed=TRUE) + nodefactor('sex')"]))
def test_fuzz_ego_files(tmp_path, tables, weights, formula):
    paths = []
    for name, text in zip(("egos", "alters", "aties"), tables):
        paths.append(tmp_path / f"{name}.csv")
        paths[-1].write_text(text)
    ego = _ours(lambda: ef.EgoData(str(paths[0]), str(paths[1]), alter_ties=str(paths[2]),
                                   weights=weights))
    if not isinstance(ego, Exception):
        _ours(lambda: ef.ego.statistics(ego, formula, se=True, scaleto=1000))
        _ours(lambda: ef.ERGM(ego, formula, popsize=1000).fit("mple"))


# ---------------------------------------------------------------------------------------
# tampered checkpoints of the estimators the families use
# ---------------------------------------------------------------------------------------
def _count_model():
    rng = np.random.default_rng(1)
    g = nx.DiGraph()
    g.add_nodes_from(range(10))
    for i in range(10):
        for j in range(10):
            if i != j and rng.random() < 0.3:
                g.add_edge(i, j, weight=int(rng.integers(1, 4)))
    return ef.ERGM(g, "sum + nonzero + mutual(form='min')", response="weight",
                   reference="Binomial(3)")


CHECKPOINTED = {
    "count mcmle": (_count_model, "mcmle"),
    "cmle": (lambda: ef.ERGM(samplk(), "Form(~edges + mutual) + Persist(~edges)"), "cmle"),
}


@pytest.fixture(scope="module")
def family_checkpoints(tmp_path_factory):
    out = {}
    for name, (make, method) in CHECKPOINTED.items():
        path = tmp_path_factory.mktemp("ck") / "ck.json"
        m = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # force_main: the cmle model is independent across node pairs (exact CMLE)
            m.fit(method=method, random_state=1, checkpoint=str(path), samplesize=256,
                  force_main=True)
        out[name] = (m, method, path.read_text())
    return out


_JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-10 ** 20, 10 ** 20),
                               st.floats(allow_nan=True), st.text(max_size=4)),
                     lambda inner: st.lists(inner, max_size=3), max_leaves=5)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(CHECKPOINTED)), st.data())
def test_fuzz_tampered_family_checkpoints(tmp_path, family_checkpoints, which, data):
    m, method, text = family_checkpoints[which]
    d = json.loads(text)
    how = data.draw(st.sampled_from(["cut", "set", "drop"]))
    if how == "cut":
        text = text[:data.draw(st.integers(0, len(text) - 1))]
    else:
        key = data.draw(st.sampled_from(sorted(set(d) - {"history"})))
        if how == "set":
            d[key] = data.draw(_JSON)
        else:
            del d[key]
        text = json.dumps(d)
    path = tmp_path / "tampered.json"
    path.write_text(text)
    out = _ours(lambda: m.fit(method=method, random_state=1, resume=str(path), samplesize=256,
                              maxit=2))
    if isinstance(out, Exception):
        assert "tampered.json" in str(out) or how == "set", str(out)


@pytest.mark.parametrize("which", sorted(CHECKPOINTED))
@pytest.mark.parametrize("entry,value", [("interval", 10 ** 15), ("interval", 0),
                                         ("theta", [1e308, 1e308, 1e308]), ("kind", "bayes")])
def test_tampered_family_checkpoint_entries(tmp_path, family_checkpoints, which, entry, value):
    m, method, text = family_checkpoints[which]
    d = json.loads(text)
    d[entry] = value
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(d))
    # a start of 1e308 is a legal (if hopeless) start: the fit's own error; the rest are
    # refused as a damaged checkpoint, naming it
    with pytest.raises(ef.ErgmfitError, match="tampered.json" if entry != "theta" else None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.fit(method=method, random_state=1, resume=str(path), samplesize=256, maxit=2)


# ---------------------------------------------------------------------------------------
# a real Ctrl-C: the finished work comes back
# ---------------------------------------------------------------------------------------
def test_count_mcmle_honours_ctrl_c(default_sigint):
    m = _count_model()
    timer = sigint_soon(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit("mcmle", random_state=1, samplesize=10 ** 6, maxit=50)
    timer.join()
    assert fit.info["interrupted"] and not fit.converged
    assert np.all(np.isfinite(fit.params))


def test_cmle_honours_ctrl_c(default_sigint):
    m = ef.ERGM(samplk(), "Form(~edges + mutual) + Persist(~edges + mutual)")
    timer = sigint_soon(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # force_main: the model is independent across node pairs (its CMLE is exact)
        fit = m.fit("cmle", random_state=1, samplesize=10 ** 6, maxit=50, force_main=True)
    timer.join()
    assert fit.info["interrupted"] and not fit.converged
    assert np.all(np.isfinite(fit.params))


def _long_panel():
    return ef.NetSeries([nx.gnp_random_graph(12, 0.25, seed=s, directed=True)
                         for s in range(11)])


def test_btergm_bootstrap_returns_the_replicates_before_ctrl_c(default_sigint):
    # 10 transitions: 92,378 distinct multisets of waves, minutes of fits; a Ctrl-C after
    # 1.5 s returns the pooled MPLE and the first R' replicates (those whose multisets were
    # fitted), marked interrupted; before, KeyboardInterrupt and nothing
    m = ef.ERGM(_long_panel(), "edges + mutual + memory(type='stability')")
    timer = sigint_soon(1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit("btergm", R=10 ** 5, random_state=1)
    timer.join()
    kept = fit.info["btergm"]["R"]
    assert fit.info["interrupted"] and 0 <= kept < 10 ** 5 and fit.boot.shape[0] == kept
    assert any("interrupted" in w for w in fit.warnings)
    # the kept replicates are the first ones of the uninterrupted run (same draws)
    full = m.fit("btergm", R=kept, random_state=1) if kept else None
    if full is not None:
        np.testing.assert_array_equal(fit.boot, full.boot[:kept])


def test_btergm_bootstrap_unchanged_by_the_fit_order():
    # the multisets are fitted in the order of their first draw now: the replicates are
    # the same numbers as the fits of the sorted multisets (the old order)
    from ergmfit.estimation.btergm.estimator import _distinct_multisets
    rng = np.random.default_rng(3)
    for T in (2, 3, 7, 16):
        picks = rng.integers(0, T, size=(500, T))
        distinct, first, which = _distinct_multisets(picks, T)
        counts = np.apply_along_axis(np.bincount, 1, picks, minlength=T)
        np.testing.assert_array_equal(distinct[which], counts)
        assert np.all(np.diff(first) > 0) and np.all(which[first] == np.arange(len(first)))
        assert len(distinct) == len(np.unique(counts, axis=0))


# ---------------------------------------------------------------------------------------
# the command line of each family
# ---------------------------------------------------------------------------------------
def _cli(argv, cwd):
    before = set(os.listdir(cwd))
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings():
            code = main([str(a) for a in argv])
    finally:
        os.chdir(old)
    assert set(os.listdir(cwd)) == before, f"{argv}: wrote {set(os.listdir(cwd)) - before}"
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    files = {
        "valued": "source,target,weight\n1,2,3\n2,1,1\n2,3,2\n3,1,1\n",
        "valued_nan": "source,target,weight\n1,2,NaN\n2,1,1\n",
        "valued_huge": "source,target,weight\n1,2," + "9" * 30 + "\n2,1,1\n",
        "valued_big": "source,target,weight\n1,2,1000000000\n2,1,1\n",
        "valued_negative": "source,target,weight\n1,2,-1\n2,1,1\n",
        "panel": "wave,source,target\n1,a,b\n1,b,c\n2,a,c\n2,c,a\n3,b,a\n",
        "panel_dup": "wave,source,target\n1,a,b\n1,a,b\n2,a,c\n",
        "panel_onecol": "wave\n1\n2\n",
        "panel_nanwave": "wave,source,target\n,a,b\n1,a,c\n2,b,c\n",
        "egos": "egoID,sex,wt\n1,F,1\n2,M,1e308\n3,F,1e308\n",
        "egos_negw": "egoID,sex,wt\n1,F,-1\n2,M,1\n3,F,1\n",
        "alters": "egoID,alterID,sex\n1,1,M\n1,2,F\n2,1,F\n3,1,M\n",
        "alters_unknown": "egoID,alterID,sex\n9,1,M\n",
        "aaties_text": "egoID,srcID,tgtID\n1,1,x\n",
    }
    for name, text in files.items():
        (d / f"{name}.csv").write_text(text)
    work = tmp_path_factory.mktemp("cwd")
    return {k: str(d / f"{k}.csv") for k in files} | {"dir": str(d), "cwd": work}


CLI_CASES = {
    # (argv with {file} names, expected exit code, text in the error)
    "count reference 2^63": (["stats", "{valued}", "sum", "--directed", "--response", "weight",
                              "--reference", "Binomial(9223372036854775808)"], 2, "2^62"),
    "count NaN value": (["stats", "{valued_nan}", "sum", "--directed", "--response", "weight"],
                        2, "integer values"),
    "count value of 30 digits": (["stats", "{valued_huge}", "sum", "--directed", "--response",
                                  "weight"], 2, "2^62"),
    "count MPLE of 10^9": (["fit", "{valued_big}", "sum", "--directed", "--response", "weight",
                            "--method", "mple"], 2, "65,536"),
    "count negative": (["stats", "{valued_negative}", "sum", "--directed", "--response",
                        "weight"], 2, "negative"),
    "count unknown response": (["stats", "{valued}", "sum", "--directed", "--response", "x"],
                               2, "'x'"),
    "count sum(pow=1e308)": (["fit", "{valued}", "sum + sum(pow=1e308)", "--directed",
                              "--response", "weight", "--reference", "Binomial(3)", "--method",
                              "mple"], 2, "not finite"),
    "panel with --also": (["stats", "{panel}", "Form(~edges)", "--wave", "wave", "--directed",
                           "--also", "samplk1"], 2, "--also"),
    "panel with --layers": (["stats", "{panel}", "Form(~edges)", "--wave", "wave", "--directed",
                             "--layers", "a,b"], 2, "--layers"),
    "panel duplicate": (["stats", "{panel_dup}", "Form(~edges)", "--wave", "wave",
                         "--directed"], 2, "listed twice"),
    "panel one column": (["stats", "{panel_onecol}", "Form(~edges)", "--wave", "wave",
                          "--directed"], 2, "two node id columns"),
    "panel row without wave": (["stats", "{panel_nanwave}", "Form(~edges)", "--wave", "wave",
                                "--directed"], 2, "no value"),
    "panel nodes a directory": (["stats", "{panel}", "Form(~edges)", "--wave", "wave",
                                 "--directed", "--nodes", "{dir}"], 2, "directory"),
    "btergm R=10^12": (["fit", "{panel}", "edges + memory", "--wave", "wave", "--directed",
                        "--method", "btergm", "--set", "R=1e12"], 2, "R"),
    "stacked lm wave/0": (["fit", "samplk1", "N(~edges, lm=~I(wave/0))", "--also", "samplk2",
                           "--network-attr", "wave=1,2", "--method", "mple"], 2, "not finite"),
    "stacked lm 300 deep": (["stats", "samplk1", "N(~edges, lm=~" + "(" * 300 + "wave" + ")" * 300
                             + ")", "--also", "samplk2", "--network-attr", "wave=1,2"], 2,
                            "nested"),
    "ego weights overflow": (["ego", "{egos}", "{alters}", "edges", "--weights", "wt"], 2,
                             "overflows"),
    "ego negative weight": (["ego", "{egos_negw}", "{alters}", "edges", "--weights", "wt"], 2,
                            "negative"),
    "ego unknown ego": (["ego", "{egos_negw}", "{alters_unknown}", "edges"], 2, "not in egos"),
    "ego mixed alter ids": (["ego", "{egos_negw}", "{alters}", "esp(0:1)", "--alter-ties",
                             "{aaties_text}"], 2, "mix types"),
    "ego popsize 1e300": (["ego", "{egos_negw}", "{alters}", "edges", "--popsize", "1e300"],
                          2, "scaleto"),
    "ego popsize 1e12 fit": (["ego", "{egos_negw}", "{alters}", "edges", "--popsize", "1e12",
                              "--fit"], 2, "pseudo-population"),
    "ego egos a directory": (["ego", "{dir}", "{alters}", "edges"], 2, "directory"),
}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_cli_hostile_inputs_of_the_families(cli_files, case):
    argv, code, text = CLI_CASES[case]
    argv = [a.format(**cli_files) if "{" in a and "}" in a and "(" not in a else a
            for a in argv]
    got, _, err = _cli(argv, cli_files["cwd"])
    assert got == code, f"{case}: exit {got}: {err}"
    assert err.startswith("ergmfit: error:") and text in err, err
    assert "Traceback" not in err and len(err) < 800, err


def test_cli_families_write_nothing_unnamed(cli_files, tmp_path):
    # a count fit, a panel fit and an ego fit in an empty directory: only --save's file
    cwd = cli_files["cwd"]
    save = tmp_path / "fit.json"
    for argv in (["fit", cli_files["valued"], "sum + nonzero", "--directed", "--response",
                  "weight", "--reference", "Binomial(3)", "--method", "mple"],
                 ["fit", cli_files["panel"], "Form(~edges) + Persist(~edges)", "--wave", "wave",
                  "--directed", "--method", "cmple"],
                 ["ego", cli_files["egos_negw"].replace("egos_negw", "egos"), cli_files["alters"],
                  "edges"]):
        _cli(argv, cwd)
    code, _, err = _cli(["fit", cli_files["valued"], "sum + nonzero", "--directed",
                         "--response", "weight", "--reference", "Binomial(3)", "--method",
                         "mple", "--save", str(save)], cwd)
    assert code == 0 and save.exists(), err


@pytest.mark.parametrize("make, name", [
    (lambda: ef.Networks([nx.path_graph(3)], nosuch=1), "'nosuch'"),
    (lambda: ef.NetSeries([nx.path_graph(3)] * 2, directd=True), "did you mean 'directed'"),
    (lambda: ef.Layer(nx.path_graph(3), layer=["a"]), "did you mean 'layers'"),
    (lambda: ef.NetSeries.from_edgelist("panel.csv", wav="w"), "did you mean 'wave'"),
    (lambda: ef.EgoData(), "missing a required argument: 'egos'"),
])
def test_constructors_name_a_wrong_argument(make, name):
    with pytest.raises(SettingsError, match=name):
        make()


def test_an_ego_table_with_no_rows_is_refused(tmp_path):
    # found by test_fuzz_ego_files: an empty egos file reached np.stack with nothing to stack
    (tmp_path / "e.csv").write_text("egoID,sex\n")
    (tmp_path / "a.csv").write_text("egoID,alterID,sex\n")
    with pytest.raises(ef.exceptions.DataFormatError, match="egos: the table has no rows"):
        ef.EgoData(str(tmp_path / "e.csv"), str(tmp_path / "a.csv"))
