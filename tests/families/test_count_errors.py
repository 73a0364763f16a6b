"""Bad input to count-valued models: clear ergmfit errors naming the problem."""
import re

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError, NetworkError, SettingsError, TermError
from ergmfit.families import Binomial, DiscUnif, Geometric, Poisson, parse_reference
from ergmfit.families.reference import ReferenceError


def graph(values, directed=True):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(4))
    for (i, j), y in zip([(0, 1), (1, 2), (2, 3), (3, 0)], values):
        g.add_edge(i, j, n=y)
    return g


@pytest.mark.parametrize("spec,label", [("Poisson", "Poisson"), ("~Poisson", "Poisson"),
                                        ("Binomial(3)", "Binomial(3)"),
                                        ("~Binomial(trials=3)", "Binomial(3)"),
                                        ("Geometric", "Geometric"),
                                        (" ~ DiscUnif(1, 5) ", "DiscUnif(1, 5)"),
                                        ("binomial(3L)", "Binomial(3)")])
def test_reference_spellings(spec, label):
    assert parse_reference(spec).label == label


def test_reference_constructors():
    assert Poisson().hi is None and Geometric().lo == 0
    assert (Binomial(3).lo, Binomial(3).hi) == (0, 3)
    assert (DiscUnif(2, 5).lo, DiscUnif(2, 5).hi) == (2, 5)
    np.testing.assert_allclose(Binomial(3).log_h([0, 1, 2, 3, 4]),
                               [0, np.log(3), np.log(3), 0, -np.inf])
    r = Binomial(3).compiled()
    assert np.isclose(r.py_log_ratio(1, 3), np.log(1 / 3))
    assert np.isclose(Poisson().compiled().py_log_ratio(2, 5), np.log(2 / 120))


@pytest.mark.parametrize("spec", ["Poison", "Binomial", "Binomial(0)", "Binomial(2.5)",
                                  "DiscUnif(3, 1)", "Binomial(__import__('os'))",
                                  "Poisson(1)", 3, None.__class__])
def test_bad_reference(spec):
    with pytest.raises(ReferenceError):
        parse_reference(spec)
    if isinstance(spec, str):
        with pytest.raises(ReferenceError):
            ef.ERGM(graph([1, 2, 3, 4]), "sum", response="n", reference=spec)


@pytest.mark.parametrize("values,what", [([1, -2, 3, 1], "negative"),
                                         ([1, 2.5, 3, 1], "integer"),
                                         ([1, True, 3, 1], "integer"),
                                         ([1, "2", 3, 1], "integer"),
                                         ([1, float("nan"), 3, 1], "integer")])
def test_bad_values(values, what):
    with pytest.raises(NetworkError, match=what):
        ef.ERGM(graph(values), "sum", response="n", reference="Poisson")


def test_values_beyond_the_support():
    with pytest.raises(NetworkError, match="Binomial\\(3\\)"):
        ef.ERGM(graph([1, 4, 0, 1]), "sum", response="n", reference="Binomial(3)")
    with pytest.raises(NetworkError, match="excludes 0"):
        ef.ERGM(graph([1, 2, 3, 1]), "sum", response="n", reference="DiscUnif(1, 3)")
    # float values that are integers are accepted
    m = ef.ERGM(graph([1.0, 2.0, 0, 3]), "sum + nonzero", response="n")
    assert m.statistics() == {"sum": 6.0, "nonzero": 3.0}


def test_missing_response():
    with pytest.raises(NetworkError, match="no edge attribute 'weight'"):
        ef.ERGM(graph([1, 2, 3, 1]), "sum", response="weight", reference="Poisson")
    g = graph([1, 2, 3, 1])
    g.add_edge(1, 3)
    with pytest.raises(NetworkError, match="has no value"):
        ef.ERGM(g, "sum", response="n", reference="Poisson")
    with pytest.raises(NetworkError, match="response="):
        ef.ERGM(g, "sum", reference="Poisson")


def test_binary_terms_refused_on_valued_models():
    with pytest.raises(TermError, match="binary networks"):
        ef.ERGM(graph([1, 2, 3, 1]), "sum + triangle", response="n", reference="Poisson")
    with pytest.raises(TermError, match=r"B\(~triangle, form='nonzero'\)"):
        ef.ERGM(graph([1, 2, 3, 1]), "sum + triangle", response="n", reference="Poisson")
    # statnet's valued edges is nonzero (its help page; tests/families/test_count_terms.py)
    assert ef.ERGM(graph([1, 2, 3, 1]), "edges", response="n",
                   reference="Poisson").labels == ["nonzero"]
    with pytest.raises(TermError, match="unknown term 'summ'"):
        ef.ERGM(graph([1, 2, 3, 1]), "summ", response="n", reference="Poisson")
    with pytest.raises(TermError, match="directed"):
        ef.ERGM(graph([1, 2, 3, 1], directed=False), "mutual", response="n")
    # mutual's other forms exist now (tests/families/test_count_terms.py checks them)
    assert ef.ERGM(graph([1, 2, 3, 1]), "mutual(form='nabsdiff')",
                   response="n").labels == ["mutual.nabsdiff"]
    with pytest.raises(TermError, match="form must be"):
        ef.ERGM(graph([1, 2, 3, 1]), "mutual(form='max')", response="n")
    with pytest.raises(TermError, match="pow"):
        ef.ERGM(graph([1, 2, 3, 1]), "sum(pow=-1)", response="n")


def test_a_binary_operator_is_not_read_as_the_valued_term_of_another_case():
    # names are case-insensitive, but statnet's operator Sum(~f) spelt exactly so is the
    # binary operator, not the valued sum(pow): before, Sum(~atleast(-1)) in a count model
    # gave "term sum: sum: pow must be a number, got FormulaArg(text='atleast(-1)', ...)"
    g = graph([1, 2, 3, 1])
    for f in ("sum + Sum(~atleast(-1))", "Sum + nonzero"):
        with pytest.raises(TermError, match=r"term 'Sum' is a term of binary networks and "
                                            r"has no valued form"):
            ef.ERGM(g, f, response="n", reference="Poisson")
    # another case of a valued name, with no binary term so spelt, is still that term
    assert ef.ERGM(g, "SUM + cmp", response="n").labels == ["sum", "CMP"]


def test_valued_terms_not_in_the_binary_table():
    with pytest.raises(TermError, match="unknown term 'nonzero'"):
        ef.ERGM(nx.path_graph(4), "edges + nonzero")


def test_fit_refused_naming_the_family():
    m = ef.ERGM(graph([1, 2, 3, 1]), "sum + nonzero", response="n", reference="Binomial(3)")
    with pytest.raises(ErgmfitError, match="family 'count', reference Binomial\\(3\\)"):
        m.fit(method="mcle", random_state=1)


def test_bad_simulate_settings():
    m = ef.ERGM(graph([1, 2, 3, 1]), "sum + nonzero", response="n")
    with pytest.raises(SettingsError):
        m.simulate([0.0], n=2, output="stats")
    with pytest.raises(SettingsError, match="proposal"):
        m.simulate([0.0, 0.0], n=2, output="stats", proposal="triadic")
    with pytest.raises(ValueError, match="output"):
        m.simulate([0.0, 0.0], n=2, output="networks")
    with pytest.raises(ValueError):
        m.simulate([0.0, 0.0], n=2, interval=0)


def test_binary_only_settings_refused():
    g = graph([1, 2, 3, 1])
    with pytest.raises(SettingsError, match="constraints= not available"):
        ef.ERGM(g, "sum", response="n", constraints="~bd(maxout=2)")
    with pytest.raises(SettingsError, match="missing= not available"):
        ef.ERGM(g, "sum", response="n", missing=[(1, 2)])
    with pytest.raises(SettingsError, match="unknown argument"):
        ef.ERGM(g, "sum", response="n", colour="red")


@pytest.mark.parametrize("method", ["mple", "mcmle", "cd"])
def test_constraints_refused_at_fit_too(method):
    # CountERGM.null_loglik (and the count MPLE's rows) take every dyad free and
    # observed: constraints cannot reach a count model by fit() or configured() either
    m = ef.ERGM(graph([1, 2, 3, 1]), "sum + nonzero", response="n")
    with pytest.raises(SettingsError, match="constraints= not available"):
        m.fit(method=method, constraints="~bd(maxout=2)", random_state=1)
    with pytest.raises(SettingsError, match="constraints= not available"):
        m.configured(constraints="~edges")
    assert m.fit_features() == frozenset()
    assert m.sample_space.n_missing == 0 and not m.sample_space.constrained


def test_na_edges_refused_not_read_as_observed():
    # na=True marks a binary model's missing dyads; a count model read the edge's value
    # as observed (sum 6 with the unobserved edge's 3 in it), a silently wrong fit
    g = graph([1, 2, 3, 1])
    g[2][3]["na"] = True
    with pytest.raises(NetworkError, match=r"edge \(2, 3\) is marked unobserved.*count-valued"):
        ef.ERGM(g, "sum", response="n", reference="Poisson")
    g[2][3]["na"] = False                   # not marked: read as observed
    assert ef.ERGM(g, "sum", response="n").statistics() == {"sum": 7.0}


def test_a_count_model_is_an_ergm():
    m = ef.ERGM(graph([1, 2, 3, 1]), "sum + nonzero", response="n", reference="Binomial(3)")
    assert isinstance(m, ef.ERGM) and m.family.name == "count"
    assert not hasattr(ef.ERGM(nx.path_graph(3), "edges"), "response")


def test_mple_mcmle_cd_ee_bayes_and_sa_declare_the_count_family():
    from ergmfit.estimation.registry import methods_supporting, supports
    assert all("count" in supports(m)["families"]
               for m in ("mple", "mcmle", "cd", "ee", "bayes", "sa"))
    able = [m for m in methods_supporting("families") if "count" in supports(m)["families"]]
    assert sorted(able) == ["bayes", "cd", "ee", "mcmle", "mple", "sa"]


@pytest.mark.parametrize("method", ["bayes-pl", "mcle"])
def test_other_estimators_refuse_the_count_family_by_their_declaration(method):
    from ergmfit.estimation.registry import supports
    assert "count" not in supports(method)["families"]
    m = ef.ERGM(graph([1, 2, 3, 1]), "sum", response="n", reference="Poisson")
    with pytest.raises(SettingsError, match=f"method='{method}' does not fit .*family 'count'"):
        m.fit(method=method, random_state=1)


def test_simulate_has_the_binary_work_bounds():
    m = ef.ERGM(graph([1, 2, 3, 1]), "sum + nonzero", response="n")
    with pytest.raises(SettingsError, match="proposals, more than"):
        m.simulate([0.0, 0.0], n=10 ** 9, interval=10 ** 6, output="stats")
    with pytest.raises(SettingsError, match="\\bn\\b"):
        m.simulate([0.0, 0.0], n=-1, output="stats")
    with pytest.raises(SettingsError, match="not available for count-valued models"):
        m.simulate([0.0, 0.0], n=2, n_chains=2)
    with pytest.raises(ErgmfitError, match="not available for count-valued models"):
        m.predict([0.0, 0.0])
    with pytest.raises(SettingsError, match="constraints= not available"):
        m.gof([0.0, 0.0], n_sim=2, constraints="~bd(maxout=2)")


def test_pickle_and_copy_keep_the_count_model():
    import copy
    import pickle
    m = ef.ERGM(graph([1, 2, 3, 1]), "sum + nonzero", response="n", reference="Binomial(3)")
    for other in (pickle.loads(pickle.dumps(m)), copy.copy(m)):
        assert type(other) is type(m) and other.statistics() == m.statistics()
        assert other.reference == m.reference


@pytest.mark.parametrize("formula, reference, match", [
    # the same on every network of the reference's values: every dyad (or none) counts
    ("atleast(-1)", "Poisson", r"atleast\.-1 \(always 1\): the same for every dyad value "
                               r"the reference Poisson allows \(0, 1, \.\.\.\)"),
    ("atleast(0)", "Geometric", r"atleast\.0 \(always 1\)"),
    ("sum + atleast(c(2, -1))", "Poisson", r"^atleast\.-1 \(always 1\)"),
    ("atmost(3)", "Binomial(3)", r"atmost\.3 \(always 1\): the same for every dyad value "
                                 r"the reference Binomial\(3\) allows \(0\.\.3\)"),
    ("greaterthan(-0.5)", "Poisson", r"greaterthan\.-0\.5 \(always 1\)"),
    ("smallerthan(0)", "Poisson", r"smallerthan\.0 \(always 0\)"),
    ("equalto(-2)", "Poisson", r"equalto\.-2\.pm\.0 \(always 0\)"),
    ("ininterval()", "Poisson", r"ininterval\(-Inf,Inf\) \(always 1\)"),
    ("sum + ininterval(5, 9)", "Binomial(3)", r"ininterval\(5,9\) \(always 0\)"),
])
@pytest.mark.parametrize("method", ["mple", "cd", "sa", "bayes"])
def test_constant_value_statistics_cannot_be_fitted(formula, reference, match, method):
    # cd, sa and bayes fitted them (a coefficient of 0, or the prior's draws: wrong
    # numbers), mple and mcmle refused them from the data, EE only after its whole run;
    # now every estimator refuses before it starts, naming the statistic and the values.
    # statistics() keeps them, as statnet's summary does.
    m = ef.ERGM(graph([1, 2, 0, 3]), formula, response="n", reference=reference)
    assert len(m.statistics()) >= 1
    with pytest.raises(ef.DegenerateModelError, match=match):
        m.fit(method=method, random_state=1)


@pytest.mark.parametrize("formula, reference", [
    # B()'s binary network is the dyads passing its criterion: none under Binomial(2) for
    # atleast(3) or greaterthan(2), every dyad under DiscUnif(1, 3) for nonzero
    ("sum + B(~edges, form=~atleast(3))", "Binomial(2)"),
    ("sum + B(~edges + mutual, form=~atleast(3))", "Binomial(2)"),
    ("sum + B(~edges, form=~greaterthan(2))", "Binomial(2)"),
    ("sum + B(~mutual, form='nonzero')", "DiscUnif(1, 3)"),
])
@pytest.mark.parametrize("method", ["mple", "cd", "mcmle", "ee", "bayes", "sa"])
def test_a_b_criterion_constant_on_the_support_cannot_be_fitted(formula, reference, method):
    # cd and sa returned a coefficient 0, bayes the prior's draws, ee refused after its
    # whole run and mple/mcmle from the design's zero columns; now one check
    # (CountFamily.constant_statistics, Term.value_view) refuses it before every estimator
    g = graph([1, 2, 0, 2])
    if reference.startswith("DiscUnif"):            # no 0: every dyad has a value
        g = nx.complete_graph(4, nx.DiGraph)
        nx.set_edge_attributes(g, {e: 1 + k % 3 for k, e in enumerate(g.edges)}, "n")
    m = ef.ERGM(g, formula, response="n", reference=reference)
    assert len(m.statistics()) >= 2
    label = re.escape(m.labels[1])
    with pytest.raises(ef.DegenerateModelError,
                       match=rf"^{label} \(always \S+ on this network's nodes\).*: the same "
                             rf"for every dyad value the reference {re.escape(reference)} "):
        m.fit(method=method, random_state=1)


def test_a_b_criterion_that_varies_is_fitted():
    m = ef.ERGM(graph([1, 2, 0, 2]), "sum + B(~edges, form=~atleast(2))", response="n",
                reference="Binomial(2)")
    m.family.check_fit(m)           # atleast(2) varies on 0..2: no error
    m2 = ef.ERGM(graph([1, 2, 0, 2]), "sum + B(~edges, form=~atleast(3))", response="n",
                 reference="Binomial(3)")
    m2.family.check_fit(m2)


@pytest.mark.parametrize("formula, match", [
    # empty whatever the values: a constant 0, refused when the term is built
    ("ininterval(3, 1)", r"the interval \(3, 1\) is empty \(lower 3 is above upper 1\)"),
    ('ininterval(2, 2, "[)")', r"the interval \[2, 2\) is empty"),
    ("sum(pow=0)", r"pow=0 makes every dyad's value\^pow 1"),
])
def test_empty_value_statistics_are_errors(formula, match):
    with pytest.raises(TermError, match=match):
        ef.ERGM(graph([1, 2, 0, 3]), formula, response="n")


def test_value_statistics_that_vary_are_kept():
    g = graph([1, 2, 0, 3])
    m = ef.ERGM(g, 'atleast(c(1, 3)) + atmost(2) + ininterval(2, 2, "[]") + equalto(0) + '
                   "ininterval(0, 3)", response="n", reference="Binomial(3)")
    assert m.statistics() == {"atleast.1": 3.0, "atleast.3": 1.0, "atmost.2": 11.0,
                              "ininterval[2,2]": 1.0, "equalto.0.pm.0": 9.0,
                              "ininterval(0,3)": 2.0}
    m.family.check_fit(m)           # nothing constant: no error


def test_whole_fractions_and_decimals_are_counts():
    # on main Fraction(3, 1) and Decimal("2") were refused as "not integer values"
    from decimal import Decimal
    from fractions import Fraction
    m = ef.ERGM(graph([1, Fraction(3, 1), Decimal("2"), 0]), "sum", response="n")
    assert m.statistics() == {"sum": 6.0}
    for bad in (Fraction(5, 2), Decimal("2.5"), Decimal("NaN")):
        with pytest.raises(NetworkError, match="needs integer values"):
            ef.ERGM(graph([1, bad, 2, 0]), "sum", response="n")


@pytest.mark.parametrize("spec, words", [("Binomial(n=3)", "no argument 'n'; its arguments: "
                                                           "trials"),
                                         ("DiscUnif(lo=0, 3)", "no argument 'lo'"),
                                         ("DiscUnif(a=0, a=3)", "'a' given twice")])
def test_reference_arguments_have_statnets_names(spec, words):
    # on main any name was accepted (Binomial(n=3) was Binomial(3))
    with pytest.raises(ReferenceError, match=re.escape(words)):
        parse_reference(spec)
    assert parse_reference("DiscUnif(b=4, a=1)").label == "DiscUnif(1, 4)"
