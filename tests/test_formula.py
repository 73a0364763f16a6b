"""The formula parser: statnet syntax, never eval."""
import math

import pytest
from hypothesis import given, settings, strategies as st

import ergmfit as ef
from ergmfit.formula import parse_formula


def test_statnet_syntax():
    calls = parse_formula("nw ~ edges + gwesp(log(3), fixed=TRUE) + nodematch('Grade', diff=T)"
                          " + degree(0:2) + kstar(c(2, 3)) + dgwesp(0.5, type=OTP)")
    assert [c.name for c in calls] == ["edges", "gwesp", "nodematch", "degree", "kstar", "dgwesp"]
    assert calls[1].args == (math.log(3),) and calls[1].kwargs == {"fixed": True}
    assert calls[2].args == ("Grade",) and calls[2].kwargs == {"diff": True}
    assert calls[3].args == ([0, 1, 2],)
    assert calls[4].args == ([2, 3],)
    assert calls[5].kwargs == {"type": "OTP"}


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
    ("gwesp(decay=1, 2)", "positional argument follows"),
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


def test_term_twice_is_an_error():
    net = ef.datasets.load_network("lazega")
    with pytest.raises(ef.FormulaError, match="twice"):
        ef.ERGM(net, "edges + edges")
