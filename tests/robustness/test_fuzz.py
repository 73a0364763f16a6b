"""Fuzzing the front door: formulas built from the term table, and odd networks.

The contract: whatever a user writes, only ergmfit's own exceptions
(:class:`ergmfit.ErgmfitError` subclasses) escape -- never a TypeError,
IndexError, AttributeError, KeyError, ZeroDivisionError, OverflowError or
MemoryError from deep inside.

* :func:`test_fuzz_term_calls`: random calls of every registered term (random
  argument names, positions and values: attribute names that exist or not,
  numbers small and huge, lists, ranges, booleans, NULL, text) on small
  networks, directed and undirected, with numeric, categorical, boolean and
  unicode attributes and a dyadic covariate; each model that builds is asked
  for its statistics and change statistics.
* :func:`test_fuzz_formula_text`: arbitrary text in the formula alphabet.
* :func:`test_odd_networks`: every term with valid arguments on an empty
  graph, one node, two nodes, a complete graph, unicode attribute names,
  huge, tiny, NaN, infinite and mixed-type attribute values; statistics,
  change statistics, MPLE, simulation and gof.

Crashes found are listed in :data:`KNOWN_BUGS`; each has a minimal
reproducer below; they were fixed and the reproducers stay as regression
tests.
"""
from __future__ import annotations

import builtins
import math
import os
import subprocess
import tempfile
import sys
import traceback
import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ergmfit as ef
import ergmfit.formula as formula_module
from ergmfit.gof import gof
from ergmfit.labeled import make_unique
from ergmfit.terms.registry import DIRECTED, UNDIRECTED, all_terms

SPECS = all_terms()
MAX_RANGE = 100_000


# ---------------------------------------------------------------------------
# known bugs: (exception type, file the exception comes from) -> bug id
# ---------------------------------------------------------------------------
class HugeRange(Exception):
    """Raised by the guard below instead of building a list of millions of numbers."""


KNOWN_BUGS = {
    ("OverflowError", "_degree.pxi"): "kernel-huge-integer",  # degree(2147483648), kstar(1e300)
    ("OverflowError", "_triad.pxi"): "kernel-huge-integer",   # esp/dsp/nsp(1e300)
    ("OverflowError", "_dtriad.pxi"): "kernel-huge-integer",
    ("OverflowError", "network.py"): "attribute-huge-int",   # a node attribute 10**400
}


def _guarded_range(*args):
    r = builtins.range(*args)
    if len(r) > MAX_RANGE:
        raise HugeRange(f"a range of {len(r)} numbers")
    return r


@pytest.fixture(autouse=True)
def _guard_ranges(monkeypatch):
    # formula.py builds `0:N` with range(); a huge N must not take the test machine's memory
    monkeypatch.setattr(formula_module, "range", _guarded_range, raising=False)


def _origin(exc):
    frames = traceback.extract_tb(exc.__traceback__)
    return os.path.basename(frames[-1].filename) if frames else ""


def _check_exception(exc, what):
    """Fail unless ``exc`` is ergmfit's own (or a known, reported bug)."""
    if isinstance(exc, ef.ErgmfitError):
        return
    if isinstance(exc, HugeRange):      # bug parser-huge-range: 0:2147483648 -> MemoryError
        return
    key = (type(exc).__name__, _origin(exc))
    if key in KNOWN_BUGS:
        return
    raise AssertionError(f"{what} raised {type(exc).__name__}: {exc}") from exc


# ---------------------------------------------------------------------------
# networks
# ---------------------------------------------------------------------------
def _fuzz_network(directed, seed, n=7):
    rng = np.random.default_rng(seed)
    g = nx.gnp_random_graph(n, 0.35, seed=int(seed), directed=directed)
    for v in g.nodes:
        g.nodes[v]["x"] = float(rng.normal())
        g.nodes[v]["n"] = int(rng.integers(0, 4))
        g.nodes[v]["g"] = ["a", "b", "c"][int(rng.integers(0, 3))]
        g.nodes[v]["b"] = bool(rng.integers(0, 2))
        g.nodes[v]["größe"] = ["ü", "€", "日本"][int(rng.integers(0, 3))]
    for u, v in g.edges:
        g.edges[u, v]["w"] = float(rng.integers(1, 3))
    g.graph["M"] = rng.normal(size=(n, n)).tolist()
    return ef.as_network(g)


NETWORKS = {
    "undirected": _fuzz_network(False, 1),
    "directed": _fuzz_network(True, 2),
    "flomarriage": ef.datasets.load_network("flomarriage"),
    "samplike": ef.datasets.load_network("samplike"),
}

# argument texts: attribute names (present and absent), numbers, lists, constants
ATTRS = ["'x'", "'n'", "'g'", "'b'", "'größe'", "'wealth'", "'group'", "'nosuch'", "''", "'M'",
         "'w'", "x", "'日本語 名'"]
NUMBERS = ["0", "1", "2", "3", "-1", "0.25", "log(3)", "1e308", "1e400", "1" + "0" * 400,
           "exp(800)", "1e-300", "0.5", "1.5", "100000", "2147483648", "9223372036854775808",
           "-0", "sqrt(2)", "1/3", "-2.5", "4"]
LISTS = ["c(1, 2)", "0:3", "-c(1)", "c()", "[1, 2]", "c(0)", "1:40", "-(2:3)", "c('a', 'b')",
         "c(TRUE)", "c(1.5)", "2:0", "0:2147483648", "c(1, 'a')", "[]", "c(c(1), 2)"]
CONSTANTS = ["TRUE", "FALSE", "NULL", "T", "F", "'OTP'", "'ITP'", "'OSP'", "'ISP'", "'RTP'",
             "'xyz'", "OTP", "'a'", "''", "\"b\""]
VALUES = ATTRS + NUMBERS + LISTS + CONSTANTS


@st.composite
def term_calls(draw):
    """(network name, formula) with one random call of a registered term."""
    net_name = draw(st.sampled_from(sorted(NETWORKS)))
    net = NETWORKS[net_name]
    kind = DIRECTED if net.directed else UNDIRECTED
    # mostly terms the network accepts; sometimes the other kind (an error to report)
    fitting = [s for s in SPECS if s.kinds in (kind, "both")]
    spec = draw(st.sampled_from(fitting if draw(st.integers(0, 9)) else SPECS))
    parts = []
    positional = True
    for p in spec.params:
        mode = draw(st.sampled_from(["skip", "pos", "kw"]))
        if mode == "skip" and not p.required:
            positional = False
            continue
        value = draw(st.sampled_from(VALUES))
        if positional and mode == "pos":
            parts.append(value)
        else:
            positional = False
            parts.append(f"{draw(st.sampled_from([p.name, p.name.upper()]))}={value}")
    if draw(st.integers(0, 19)) == 0:
        parts.append(f"foo={draw(st.sampled_from(VALUES))}")
    name = draw(st.sampled_from([spec.name, *spec.aliases, spec.name.upper()]))
    call = f"{name}({', '.join(parts)})" if parts or draw(st.booleans()) else name
    prefix = draw(st.sampled_from(["edges + ", "", "~ edges + ", "y ~ "]))
    return net_name, prefix + call


def _exercise(net, formula):
    m = ef.ERGM(net, formula)
    stats = m.statistics()
    # canonical statistics (curved terms: w#k); a repeated label (statnet allows it) is made
    # unique in the dict as R's make.unique does
    assert list(stats) == make_unique(m.stat_labels)
    if m.network.n > 1:
        cm = m.compiled()
        d = cm.dyad_change_stats(0, 1)
        assert len(d) == len(m.stat_labels)
    return m


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(term_calls())
@example(("flomarriage", "edges + kstar('a')"))
@example(("samplike", "edges + dsp(NULL)"))
@example(("undirected", "edges + nodematch('größe', diff=TRUE) + nodefactor('größe')"))
def test_fuzz_term_calls(case):
    net_name, formula = case
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _exercise(NETWORKS[net_name], formula)
    except Exception as exc:  # noqa: BLE001
        _check_exception(exc, f"ERGM({net_name}, {formula!r})")


FORMULA_ALPHABET = "edgsktrianglwpfxo()+,=~'\"0123456789.:-*/[]cTRUEFNL _\\é日"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(FORMULA_ALPHABET, max_size=50))
@example("edges + gwesp(1/0)")
@example("edges + kstar(2")
@example("~")
@example("edges + 'a'")
def test_fuzz_formula_text(text):
    try:
        calls = ef.parse_formula(text)
    except Exception as exc:  # noqa: BLE001
        _check_exception(exc, f"parse_formula({text!r})")
        if isinstance(exc, ef.ErgmfitError):
            assert isinstance(exc, ef.FormulaError)
        return
    assert calls and all(c.name for c in calls)
    # and as a model: only our errors
    try:
        _exercise(NETWORKS["undirected"], text)
    except Exception as exc:  # noqa: BLE001
        _check_exception(exc, f"ERGM(undirected, {text!r})")


# ---------------------------------------------------------------------------
# odd networks
# ---------------------------------------------------------------------------
_VALID = {"d": "c(0, 1, 2)", "k": "2", "decay": "0.5", "fixed": "TRUE", "lambda": "2",
          "type": "'OTP'", "x": "'M'"}
_NUMERIC_ATTR_TERMS = {"nodecov", "nodeicov", "nodeocov", "absdiff"}


def _valid_call(spec, num, cat):
    parts = []
    for p in spec.params:
        if p.name == "attr":
            parts.append(f"attr='{num if spec.name in _NUMERIC_ATTR_TERMS else cat}'")
        elif p.name in _VALID and (p.required or p.name in ("fixed", "decay")):
            parts.append(f"{p.name}={_VALID[p.name]}")
    return f"{spec.name}({', '.join(parts)})" if parts else spec.name


def _with_attrs(g, num, cat, num_name="x", cat_name="g"):
    for i, v in enumerate(list(g.nodes)):
        g.nodes[v][num_name] = num(i)
        g.nodes[v][cat_name] = cat(i)
    g.graph["M"] = np.ones((g.number_of_nodes(),) * 2).tolist()
    return g


def _odd(directed):
    G = nx.DiGraph if directed else nx.Graph
    two = lambda i: "ab"[i % 2]  # noqa: E731
    return {
        "empty graph": (_with_attrs(G(nx.empty_graph(5)), float, two), "x", "g"),
        "one node": (_with_attrs(G(nx.empty_graph(1)), float, lambda i: "a"), "x", "g"),
        "two nodes, one tie": (_with_attrs(G([(0, 1)]), float, two), "x", "g"),
        "complete graph": (_with_attrs(G(nx.complete_graph(5)), float, two), "x", "g"),
        "unicode attribute names": (_with_attrs(G(nx.cycle_graph(5)), float,
                                                lambda i: ["ü", "日本", "€"][i % 3], "größe",
                                                "日本語 名"), "größe", "日本語 名"),
        "tiny numbers": (_with_attrs(G(nx.cycle_graph(5)), lambda i: 5e-324 * i, str), "x", "g"),
        "large numbers": (_with_attrs(G(nx.cycle_graph(5)), lambda i: 1e150 * (i + 1),
                                      lambda i: 10 ** 30 + i % 2), "x", "g"),
        "NaN and None": (_with_attrs(G(nx.cycle_graph(5)),
                                     lambda i: float("nan") if i == 2 else float(i),
                                     lambda i: None if i == 1 else "a"), "x", "g"),
        "infinite": (_with_attrs(G(nx.cycle_graph(5)),
                                 lambda i: float("inf") if i == 2 else float(i), two), "x", "g"),
        "booleans": (_with_attrs(G(nx.cycle_graph(5)), lambda i: bool(i % 2),
                                 lambda i: bool(i % 2)), "x", "g"),
        "mixed types": (_with_attrs(G(nx.cycle_graph(5)), lambda i: [1, "2", 3.5, True, 4][i],
                                    lambda i: [1, "1", 1.0, True, (1,)][i]), "x", "g"),
    }


ODD = [(f"{'directed' if d else 'undirected'}: {k}", v) for d in (False, True)
       for k, v in _odd(d).items()]


@pytest.mark.parametrize("name,case", ODD, ids=[n for n, _ in ODD])
def test_odd_networks(name, case):
    g, num, cat = case
    kind = DIRECTED if g.is_directed() else UNDIRECTED
    built = 0
    for spec in SPECS:
        if spec.kinds not in (kind, "both"):
            continue
        formula = "edges + " + _valid_call(spec, num, cat)
        where = f"{name}: {formula}"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = _exercise(g, formula)
                built += 1
                s = m.statistics_vector()
                assert np.all(np.isfinite(s)), f"{where}: non-finite statistics {m.statistics()}"
                try:
                    m.fit(method="mple")
                except ef.ErgmfitError:
                    pass
                theta = np.zeros(m.n_params)
                S = m.simulate(theta, n=2, burnin=20, interval=5, output="stats", random_state=1)
                assert S.shape == (2, m.n_params)
                gof(m, theta, n_sim=2, burnin=10, interval=5, random_state=1)
        except AssertionError:
            raise
        except Exception as exc:  # noqa: BLE001
            _check_exception(exc, where)
    if "NaN" not in name and "infinite" not in name and "mixed" not in name:
        assert built > 10, f"{name}: only {built} terms could be built"


def test_odd_networks_need_their_own_errors():
    # an attribute with missing values is a TermError naming the attribute, for every
    # term reading it
    g, _, _ = _odd(False)["NaN and None"]
    for formula in ("nodecov('x')", "nodematch('g')", "nodefactor('g')", "absdiff('x')"):
        with pytest.raises(ef.TermError, match="missing"):
            ef.ERGM(g, formula)


# ---------------------------------------------------------------------------
# minimal reproducers of the crashes found (reported to the owners)
# ---------------------------------------------------------------------------
def _raises_only_ours(fn):
    try:
        fn()
    except ef.ErgmfitError:
        return
    # any other exception propagates and fails the test (xfail while the bug is there)


def test_bug_parser_exp_overflow():
    with pytest.raises(ef.FormulaError):
        ef.parse_formula("gwesp(exp(800), fixed=TRUE)")


def test_bug_parser_huge_integer_literal():
    with pytest.raises(ef.FormulaError):
        ef.parse_formula("degree(1" + "0" * 400 + ")")


def test_bug_parser_huge_range():
    # run in a child process limited to ~1 GB so the bug cannot take this machine down
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
            "import ergmfit\n"
            "try:\n"
            "    ergmfit.parse_formula('degree(0:2147483648)')\n"
            "except ergmfit.FormulaError:\n"
            "    sys.exit(0)\n"
            "except MemoryError:\n"
            "    sys.exit(3)\n"
            "sys.exit(4)\n")
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(ef.__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    # cwd outside the checkout: `python -c` puts the cwd first on sys.path
    r = subprocess.run([sys.executable, "-c", code], env=env, timeout=120,
                       capture_output=True, cwd=tempfile.gettempdir())
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr.decode()[-300:]}"


def test_bug_degree_huge_d():
    _raises_only_ours(lambda: ef.ERGM("flomarriage", "edges + degree(2147483648)"))


def test_bug_kstar_huge_k():
    _raises_only_ours(lambda: ef.ERGM("flomarriage", "edges + kstar(1e300)"))


def test_bug_esp_huge_d():
    _raises_only_ours(lambda: ef.ERGM("flomarriage", "edges + esp(1e300)"))


def test_bug_directed_dsp_huge_d():
    _raises_only_ours(lambda: ef.ERGM("samplike", "edges + dsp(2147483648)"))


def test_bug_huge_integer_attribute():
    g = nx.path_graph(3)
    nx.set_node_attributes(g, {0: 10 ** 400, 1: 1, 2: 2}, "x")
    _raises_only_ours(lambda: ef.ERGM(g, "edges + nodecov('x')"))


def test_bug_statistic_overflows_silently():
    g = nx.path_graph(3)
    nx.set_node_attributes(g, {0: 1e308, 1: 1e308, 2: -1e308}, "x")
    try:
        s = ef.ERGM(g, "edges + nodecov('x')").statistics()
    except ef.TermError:
        return
    assert all(math.isfinite(v) for v in s.values()), s


def test_bug_integer_argument_message():
    for formula in ("edges + kstar('a')", "edges + degree(NULL)"):
        with pytest.raises(ef.TermError) as info:
            ef.ERGM("flomarriage", formula)
        assert "must be an integer" in str(info.value), str(info.value)


# ---------------------------------------------------------------------------
# #24: hostile formulas, files, saved results and checkpoints
# ---------------------------------------------------------------------------
_DIGITS = "0123456789２𝟐٢߂୨"                 # ASCII and look-alike digits


@st.composite
def hostile_formulas(draw):
    depth = draw(st.integers(0, 400))
    num = draw(st.one_of(
        st.text(_DIGITS, min_size=1, max_size=8),
        st.integers(-10**400, 10**400).map(str),
        st.sampled_from(["1e400", "-1e400", "1e-400", "Inf", "NaN", "0x10", "1_0", "2L"]),
        st.integers(0, 10**9).map(lambda k: f"c(0:{k})"),
        st.lists(st.integers(0, 10**7), min_size=1, max_size=5).map(
            lambda ks: "c(" + ", ".join(f"0:{k}" for k in ks) + ")")))
    text = draw(st.sampled_from(["'a'", "'\\x'", "'\\N{bogus}'", "'\\u12'", "'\\'", "'\x00'",
                                 "'\ufeffa'", "'é'", "\"b\\\"\""]))
    term = draw(st.sampled_from(["kstar({})", "degree({})", "gwesp({}, fixed=TRUE)",
                                 "nodematch({})", "nodematch('wealth', levels={})"]))
    arg = draw(st.sampled_from([num, text]))
    return "edges + " + term.format("(" * depth + arg + ")" * depth)


@settings(max_examples=150, deadline=None)
@given(hostile_formulas())
@example("edges + kstar(" + "(" * 300 + "2" + ")" * 300 + ")")
@example("edges + kstar(𝟐)")
@example("edges + degree(c(0:999999, 0:999999))")
def test_fuzz_hostile_formulas(text):
    try:
        ef.ERGM(NETWORKS["undirected"], text).statistics()
    except Exception as exc:  # noqa: BLE001 - HugeRange: a range the parser allows (<= 10^6)
        _check_exception(exc, f"ERGM(undirected, {text[:80]!r})")


_GOOD_FILES = {
    "csv": b"from,to,w\na,b,1\nb,c,1\n\"c\",d,1\n",
    "net": b"*Vertices 4\n1 \"a\"\n2 \"b\"\n3 \"c\"\n4 \"d\"\n*Edges\n1 2\n2 3\n3 4\n",
    "graphml": (b"<?xml version='1.0'?><graphml xmlns='http://graphml.graphdrawing.org/xmlns'>"
                b"<graph edgedefault='undirected'><node id='a'/><node id='b'/>"
                b"<edge source='a' target='b'/></graph></graphml>"),
    "gml": b"graph [\n node [ id 1 label \"a\" ]\n node [ id 2 label \"b\" ]\n"
           b" edge [ source 1 target 2 ]\n]\n",
}
_JUNK = [b"\x00", b"\xef\xbb\xbf", b"\xff\xfe", b"\n", b",", b"\"", b"*", b"<", b">", b"&",
         b"]", b"[", b"-1", b"99999999999999999999", b"\xe9", b"\r", b" ", b"\t", b"<!ENTITY"]


@st.composite
def damaged_files(draw):
    ext = draw(st.sampled_from(sorted(_GOOD_FILES)))
    data = bytearray(_GOOD_FILES[ext])
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 2))
        at = draw(st.integers(0, len(data)))
        if kind == 0:
            data[at:at] = draw(st.sampled_from(_JUNK))
        elif kind == 1:
            del data[at:at + draw(st.integers(1, 8))]
        else:
            data = data[:at]
    gz = draw(st.integers(0, 3))
    return ext, bytes(data), gz


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(damaged_files())
def test_fuzz_damaged_files(tmp_path, case):
    import gzip
    ext, data, gz = case
    if gz:                                   # compressed, and sometimes cut short
        data = gzip.compress(data)
        data = data[:len(data) - 4 * (gz - 1)] if gz > 1 else data
    path = tmp_path / (f"x.{ext}.gz" if gz else f"x.{ext}")
    path.write_bytes(data)
    for directed in (None, False):
        try:
            net = ef.read_network(str(path), directed=directed)
        except Exception as exc:  # noqa: BLE001
            assert isinstance(exc, ef.ErgmfitError), f"{data[:80]!r}: {type(exc).__name__}: {exc}"
        else:
            assert net.n >= 1


_JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30),
              st.floats(allow_nan=True), st.text(max_size=5)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=6)


@pytest.fixture(scope="module")
def saved_json(tmp_path_factory):
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + kstar(2)")
    path = tmp_path_factory.mktemp("saved") / "fit.json"
    m.fit(method="mple").save(path)
    return path.read_text()


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzz_saved_results(tmp_path, saved_json, data):
    import json
    from ergmfit.results import ERGMResults
    d = json.loads(saved_json)
    key = data.draw(st.sampled_from(sorted(d)))
    how = data.draw(st.sampled_from(["set", "drop", "cut"]))
    if how == "set":
        d[key] = data.draw(_JSON_VALUES)
        text = json.dumps(d)
    elif how == "drop":
        del d[key]
        text = json.dumps(d)
    else:
        text = saved_json[:data.draw(st.integers(0, len(saved_json) - 1))]
    path = tmp_path / "damaged.json"
    path.write_text(text)
    try:
        fit = ERGMResults.load(path)
        str(fit.summary())
    except Exception as exc:  # noqa: BLE001
        assert isinstance(exc, ef.ErgmfitError), f"{key} {how}: {type(exc).__name__}: {exc}"
        assert "damaged.json" in str(exc)


@pytest.fixture(scope="module")
def mcmle_checkpoint(tmp_path_factory):
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + kstar(2)")
    path = tmp_path_factory.mktemp("ck") / "ck.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(method="mcmle", random_state=1, checkpoint=str(path), samplesize=256)
    return m, path.read_text()


def _resume(m, path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return m.fit(method="mcmle", random_state=1, resume=str(path), samplesize=256, maxit=2)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzz_damaged_checkpoint(tmp_path, mcmle_checkpoint, data):
    # cut short, bytes flipped, or an entry other than the (reported) interval and
    # history set to any JSON value: resuming gives a fit or ergmfit's error naming the file
    import json
    m, text = mcmle_checkpoint
    d = json.loads(text)
    how = data.draw(st.sampled_from(["cut", "flip", "set", "drop"]))
    if how == "cut":
        text = text[:data.draw(st.integers(0, len(text) - 1))]
    elif how == "flip":
        at = data.draw(st.integers(0, len(text) - 1))
        text = text[:at] + data.draw(st.sampled_from("{}[],:\"0x")) + text[at + 1:]
    else:
        key = data.draw(st.sampled_from(sorted(set(d) - {"interval", "history"})))
        if how == "set":
            d[key] = data.draw(_JSON_VALUES)
        else:
            del d[key]
        text = json.dumps(d)
    path = tmp_path / "damaged_ck.json"
    path.write_text(text)
    try:
        _resume(m, path)
    except Exception as exc:  # noqa: BLE001
        assert isinstance(exc, ef.ErgmfitError), f"{how}: {type(exc).__name__}: {exc}"


@pytest.mark.parametrize("entry,value", [("interval", 0), ("interval", 1e308),
                                         ("history", "x")])
def test_tampered_checkpoint_entry(tmp_path, mcmle_checkpoint, entry, value):
    import json
    m, text = mcmle_checkpoint
    d = json.loads(text)
    d[entry] = value
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(d))
    with pytest.raises(ef.ErgmfitError, match="tampered.json"):
        _resume(m, path)
