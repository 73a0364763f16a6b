"""Bad input to the family front ends, as a statnet user writes it, named clearly: a count
model of several networks (its sample space took the dyads between the networks as observed
zeros: a silently wrong fit), response= with a series or an egocentric sample (the error
named the wrong thing), an alter naming an ego id of the other type."""
import networkx as nx
import pandas as pd
import pytest

import ergmfit as ef
from ergmfit.exceptions import DataFormatError, SettingsError


def _valued(seed, w):
    g = nx.gnp_random_graph(8, 0.3, seed=seed, directed=True)
    nx.set_edge_attributes(g, w, "w")
    return g


def test_a_count_model_of_several_networks_is_refused():
    nets = ef.Networks([_valued(1, 2), _valued(2, 1)])
    for formula in ("sum", "sum + nonzero"):
        with pytest.raises(SettingsError, match=r"count-valued models of several networks "
                           r"\(Networks, response='w'\) are not available yet.*N\(~"):
            ef.ERGM(nets, formula, response="w")
    # the binary multi-network model stays, on the dyads within the networks
    assert ef.ERGM(nets, "edges").fit(method="mple").nobs == 2 * 8 * 7


@pytest.mark.parametrize("kind", ["series", "ego"])
def test_response_with_a_series_or_an_egocentric_sample_is_named(kind):
    if kind == "series":
        data, name = ef.NetSeries([_valued(1, 2), _valued(2, 1)]), "a NetSeries"
    else:
        data = ef.EgoData(pd.DataFrame({"egoID": [1, 2], "sex": ["F", "M"]}),
                          pd.DataFrame({"egoID": [1, 2], "sex": ["M", "F"]}))
        name = "an EgoData"
    for kw in ({"response": "w"}, {"reference": "Poisson"}):
        with pytest.raises(SettingsError, match=f"a count-valued model .* of {name} is not "
                           "available: its models are binary"):
            ef.ERGM(data, "edges", **kw)


def test_unknown_ego_ids_are_python_values_and_a_type_mismatch_is_said():
    egos = pd.DataFrame({"egoID": ["1", "2"], "sex": ["F", "M"]})
    alters = pd.DataFrame({"egoID": [1, 2, 2], "sex": ["M", "F", "F"]})
    with pytest.raises(DataFormatError, match=r"3 rows name egos that are not in egos \(ids 1, "
                       r"2; they are numbers, the egos' ids text, e\.g\. '1': use one type\)"):
        ef.EgoData(egos, alters)
    with pytest.raises(DataFormatError, match=r"1 rows name egos that are not in egos \(ids '9'\)$"):
        ef.EgoData(egos, pd.DataFrame({"egoID": ["1", "9"], "sex": ["M", "F"]}))


def test_a_negative_seed_is_named():
    # numpy's own message was "expected non-negative integer", naming nothing
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    for call in (lambda: m.fit(method="mple", random_state=-1),
                 lambda: m.simulate([0.0], n=1, random_state=-1, output="stats")):
        with pytest.raises(SettingsError, match=r"random_state \(a seed\) must be a non-negative "
                           "integer, got -1"):
            call()


def test_a_non_numeric_attribute_names_the_value_and_node_once():
    # the example value was the first one (1, a number) and, in a count model, the hint twice
    g = nx.DiGraph([("a", "b"), ("b", "c")])
    nx.set_node_attributes(g, {"a": 1, "b": 2, "c": "x"}, "age")
    nx.set_edge_attributes(g, 1, "w")
    for kw in ({}, {"response": "w"}):
        with pytest.raises(ef.exceptions.TermError, match=r"values like 'x' \(node 'c'\)\. ") as e:
            ef.ERGM(g, "nodecov('age')", **kw)
        assert str(e.value).count("For a categorical") == 1


def test_text_waves_in_natural_order():
    # sorted as text, wave t10 came between t1 and t2: transitions that never happened
    df = pd.DataFrame({"source": [1, 2, 3, 1], "target": [2, 3, 1, 3],
                       "wave": ["t10", "t2", "t1", "t2"]})
    series = ef.NetSeries.from_edgelist(df, directed=True)
    assert [w.n_ties for w in series.waves] == [1, 2, 1]       # t1, t2, t10
    assert [sorted(map(tuple, w.ties.tolist())) for w in series.waves][0] == [(2, 0)]


def test_an_exact_cmle_takes_the_mcmc_settings_and_names_itself():
    # a dyad-independent CMLE is the MPLE: the MCMC-MLE's settings were refused by the MPLE
    # ("method 'mple' has no setting 'samplesize' (did you mean 'sample_size'?)")
    series = ef.NetSeries([nx.path_graph(6), nx.cycle_graph(6), nx.star_graph(5)])
    m = ef.ERGM(series, "Form(~edges) + Persist(~edges)")
    base = m.fit(method="cmle").params.tolist()
    for kw in ({"samplesize": 512}, {"MCMC.samplesize": 512},
               {"control": {"MCMC.samplesize": 512}}):
        fit = m.fit(method="cmle", **kw)
        assert fit.params.tolist() == base
        assert fit.warnings[-1].endswith(f"the MCMC setting(s) {next(iter(kw.get('control', kw)))!r}"
                                         " were not used")
    with pytest.raises(SettingsError, match="method 'cmle' has no setting 'bogus'; its settings "
                       "are those of 'mcmle': .*samplesize"):
        m.fit(method="cmle", bogus=1)


def test_a_missing_weights_column_is_not_called_an_id_column():
    egos = pd.DataFrame({"egoID": [1, 2], "sex": ["F", "M"]})
    alters = pd.DataFrame({"egoID": [1, 2], "sex": ["M", "F"]})
    for kw in ("weights", "strata"):
        with pytest.raises(DataFormatError, match=f"egos has no column 'w' .*; {kw}= names a "
                           "column of egos or gives one value per ego$"):
            ef.EgoData(egos, alters, **{kw: "w"})
    with pytest.raises(DataFormatError, match="name the id column with ego_id="):
        ef.EgoData(egos, alters, ego_id="id")


def test_gof_names_a_bad_number_of_networks():
    # n_sim=2.5 was cut to 2, n_sim="10" said "invalid literal for int() with base 10"
    from ergmfit.gof import gof
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    for kw, message in (({"n_sim": 2.5}, "n_sim must be a whole number, got 2.5"),
                        ({"n_sim": "10"}, "n_sim must be a whole number, got '10'"),
                        ({"n_sim": 0}, "n_sim must be at least 1, got 0"),
                        ({"n_chains": 1.5}, "n_chains must be a whole number, got 1.5")):
        with pytest.raises(SettingsError, match=message):
            gof(m, [-1.6], **kw)
