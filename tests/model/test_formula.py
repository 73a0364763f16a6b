"""The formula parser: statnet syntax, never eval."""
import math

import pytest
from hypothesis import given, settings, strategies as st

import ergmfit as ef
from ergmfit.formula import parse_formula


def test_statnet_syntax():
    calls = parse_formula("nw ~ edges + gwesp(log(3), fixed=TRUE) + nodematch('Grade', diff=T)"
                          " + degree(0:2) + kstar(c(2, 3)) + dgwesp(0.5, type=OTP)",
                          networks=["nw"])
    assert [c.name for c in calls] == ["edges", "gwesp", "nodematch", "degree", "kstar", "dgwesp"]
    assert calls[1].args == (math.log(3),) and calls[1].kwargs == {"fixed": True}
    assert calls[2].args == ("Grade",) and calls[2].kwargs == {"diff": True}
    assert calls[3].args == ([0, 1, 2],)
    assert calls[4].args == ([2, 3],)
    assert calls[5].kwargs == {"type": "OTP"}


def test_left_hand_side_must_name_the_given_network(tmp_path, capsys):
    # statnet's net ~ terms: the name is the network's; any other name was silently dropped,
    # so "edges ~ triangle" (a typo for "edges + triangle") fitted triangle alone
    from ergmfit.cli import main
    with pytest.raises(ef.FormulaError, match=r"left-hand side 'edges' is a term, not a "
                                              r"network's name: write 'edges \+ triangle'"):
        parse_formula("edges ~ triangle")
    with pytest.raises(ef.FormulaError, match=r"left-hand side 'Triangle' is a term"):
        parse_formula("Triangle ~ edges")
    with pytest.raises(ef.FormulaError, match=r"'edges' is not the network's name \('lazega' "
                                              r"given\)"):
        ef.ERGM("lazega", "edges ~ triangle")
    net = ef.datasets.load_network("lazega")
    # a network object has no name: statnet's "net ~ terms" is kept as written
    assert ef.ERGM(net, "lazega ~ edges").statistics() == {"edges": 115.0}
    assert [c.name for c in parse_formula("g ~ edges + mutual")] == ["edges", "mutual"]
    with pytest.raises(ef.FormulaError, match="left-hand side 'edges' is a term"):
        ef.ERGM(net, "edges ~ triangle")
    m = ef.ERGM("lazega", "lazega ~ edges + triangle")
    assert m.statistics() == ef.ERGM(net, "edges + triangle").statistics()
    assert m.formula == "edges + triangle"          # stored as it is rebuilt (pickling)
    p = tmp_path / "flo.csv"
    p.write_text("source,target,n\n1,2,3\n2,3,1\n", encoding="utf-8")
    assert ef.ERGM(str(p), "flo ~ edges", directed=False).statistics() == {"edges": 2.0}
    with pytest.raises(ef.FormulaError, match="left-hand side 'edges'"):
        ef.ERGM(str(p), "edges ~ sum", directed=False, response="n")
    assert ef.ERGM(str(p), "flo ~ sum", directed=False, response="n").statistics() == \
        {"sum": 4.0}
    assert main(["stats", "lazega", "edges ~ triangle"]) == 2
    assert "left-hand side 'edges'" in capsys.readouterr().err
    assert main(["stats", "lazega", "lazega ~ edges", "--json"]) == 0
    assert capsys.readouterr().out.strip() == '{"edges": 115}'


def test_python_syntax_and_arithmetic():
    c = parse_formula('~ gwesp(decay=-1/2 + 1, fixed=True) + kstar([2,3]) + absdiff("a", pow=2e0)')
    assert c[0].kwargs == {"decay": 0.5, "fixed": True}
    assert c[1].args == ([2, 3],)
    assert c[2].kwargs == {"pow": 2.0}


@pytest.mark.parametrize("text, where", [
    ("", "empty"),
    ("edges +", "term name"),
    ("edges triangle", "expected '\\+' between"),
    ("kstar(2", r"expected '\)'"),
    ("gwesp(0.5, fixed=TRUE, fixed=FALSE)", "given twice"),
    # ("gwesp(decay=1, 2)" parses now: R allows positional arguments after named ones;
    #  binding it is an error, tests/terms/test_attribute_specs.py)
    ("kstar(__import__('os'))", "unknown function"),
    ("edges + kstar(1/0)", "division by zero"),
    ("edges; import os", "unexpected character"),
    ("gwesp(log(-1))", "undefined"),
])
def test_errors_name_the_problem(text, where):
    with pytest.raises(ef.FormulaError, match=where):
        parse_formula(text)


def test_not_a_string():
    with pytest.raises(ef.FormulaError):
        parse_formula(None)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_fuzz_only_formula_errors(text):
    try:
        parse_formula(text)
    except ef.FormulaError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="edgsk()+,=~'\"0123456789.:-*/[]cTRUEF ", max_size=40))
def test_fuzz_formula_alphabet(text):
    try:
        parse_formula(text)
    except ef.FormulaError:
        pass


def test_unknown_term_suggests(lazega=None):
    net = ef.datasets.load_network("lazega")
    with pytest.raises(ef.TermError, match="did you mean|Did you mean") as e:
        ef.ERGM(net, "edges + triangel")
    assert "triangle" in str(e.value)


def test_wrong_arguments_name_the_term():
    net = ef.datasets.load_network("lazega")
    with pytest.raises(ef.TermError, match="edges"):
        ef.ERGM(net, "edges(3)")
    with pytest.raises(ef.TermError, match="edges"):
        ef.ERGM(net, "edges(foo=1)")


def test_term_twice_summarises_but_does_not_fit():
    # statnet's summary() allows a repeated statistic (issue #19); the fit refuses the
    # identical columns as collinear (was: FormulaError "appears twice")
    net = ef.datasets.load_network("lazega")
    m = ef.ERGM(net, "edges + edges")
    assert m.stat_labels == ["edges", "edges"]
    assert m.statistics() == {"edges": 115.0, "edges.1": 115.0}
    with pytest.raises(ef.DegenerateModelError, match="linearly dependent"):
        m.fit(method="mple")


# ---------------------------------------------------------------------------
# limits: nesting, number size, expansion, escapes, look-alike digits (#24)
# ---------------------------------------------------------------------------
from ergmfit.formula import MAX_DEPTH, MAX_VALUES  # noqa: E402


@pytest.mark.parametrize("text, where", [
    ("kstar(" + "(" * 200 + "2" + ")" * 200 + ")", "nests more than"),
    ("kstar(" + "(" * 1000 + "2" + ")" * 1000 + ")", "nests more than"),
    ("kstar(" + "c(" * 300 + "2" + ")" * 300 + ")", "nests more than"),
    ("kstar(" + "-" * 2000 + "2)", "nests more than"),
    ("kstar(" + "[" * 500 + "2" + "]" * 500 + ")", "nests more than"),
    ("kstar(" + "9" * 400 + ")", "too large"),
    ("kstar(" + "1" * 5000 + ")", "too large"),
    ("kstar(" + "*".join(["99999999999999999999"] * 20) + ")", "too large"),
    ("kstar(1e308*10)", "too large"),
    ("kstar(1e308+1e308)", "too large"),
    ("kstar(99999999999999999999999/1e-300)", "too large"),
    ("degree(c(" + ",".join(["0:999999"] * 40) + "))", "expand to more than"),
    (r"nodematch('\x')", r"incomplete escape '\\x'"),
    (r"nodematch('\N{bogus}')", "unknown character name"),
    (r"nodematch('\U00110000')", "is not a character"),
    (r"nodematch('\u12')", "incomplete escape"),
    ("kstar(\U0001d7d0)", "unexpected character .* numbers are written with 0-9"),
    ("kstar(\u0662)", "unexpected character"),              # ARABIC-INDIC DIGIT TWO
    ("kstar(2\u0663)", "unexpected character"),
    ("kstar(1e\u0662)", "unexpected character|expected"),
])
def test_limits_are_formula_errors(text, where):
    with pytest.raises(ef.FormulaError, match=where):
        parse_formula(text)


def test_limits_leave_ordinary_formulas_alone():
    deep = "kstar(" + "(" * (MAX_DEPTH - 2) + "2" + ")" * (MAX_DEPTH - 2) + ")"
    assert parse_formula(deep)[0].args == (2,)
    assert parse_formula("degree(0:999999)")[0].args[0][-1] == 999999
    assert parse_formula("kstar(9007199254740992)")[0].args == (9007199254740992,)
    assert parse_formula("kstar(99999999999999999999)")[0].args == (1e20,)   # as R: a double
    assert parse_formula("kstar(" + "9" * 300 + ")")[0].args == (float("9" * 300),)
    calls = parse_formula(r"nodematch('a\tb\x41\u00e9\N{GREEK SMALL LETTER ALPHA}\d\\', "
                          "levels='é')")
    assert calls[0].args == ("a\tbAéα\\d\\",)            # non-ASCII text survives escapes
    assert calls[0].kwargs == {"levels": "é"}
    assert MAX_VALUES >= 1_000_000


_nest = st.recursive(
    st.one_of(st.integers(-10 ** 30, 10 ** 30).map(str),
              st.floats(allow_nan=False, allow_infinity=False).map(repr),
              st.sampled_from(["2", "1e308", "9" * 30, "'a\\x'", "'\\N{x}'", "0:5", "TRUE"]),
              st.characters(categories=["Nd", "No"]).map(str)),
    lambda inner: st.one_of(
        inner.map(lambda x: f"({x})"), inner.map(lambda x: f"-{x}"),
        inner.map(lambda x: f"c({x})"), inner.map(lambda x: f"[{x}]"),
        st.tuples(inner, st.sampled_from("+-*/:,"), inner).map("".join),
        st.tuples(st.sampled_from(["log", "exp", "sqrt", "I"]), inner).map(
            lambda t: f"{t[0]}({t[1]})")),
    max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(_nest, st.integers(0, 400))
def test_fuzz_nesting_numbers_unicode(inner, depth):
    text = "kstar(" + "(" * depth + inner + ")" * depth + ")"
    try:
        parse_formula(text)
    except ef.FormulaError:
        pass


def test_saved_formulas_with_a_left_hand_side_still_rebuild(tmp_path):
    # results files and pickles written before left-hand sides were checked keep the
    # formula as the user wrote it ("lazega ~ edges", with a network object): they rebuild
    import json
    import pickle
    from ergmfit.model import _rebuild, rebuild_from_info
    fit = ef.ERGM("lazega", "edges").fit(method="mple")
    p = tmp_path / "fit.json"
    fit.save(p)
    d = json.loads(p.read_text())
    d["formula"] = "lazega ~ edges"
    p.write_text(json.dumps(d))
    from ergmfit.results import ERGMResults
    assert ERGMResults.load(p).rebuild_model().statistics() == {"edges": 115.0}
    net = ef.datasets.load_network("lazega")
    assert rebuild_from_info(net, "g ~ edges").statistics() == {"edges": 115.0}
    assert pickle.loads(pickle.dumps(_rebuild(net, "g ~ edges"))).formula == "edges"
