"""ergm.ego's ego statistics and their survey variance against ergm.ego 1.0.1
(tests/reference/statnet_ego.json, from section 4_ego of the shared reference file).

The census is faux.mesa.high seen from every node (egor's ``as.egor``); the sample is 100 of
its egos (their ids are in the reference file), built from the bundled network, so no data
derived from faux.mesa.high is shipped.
"""
import pathlib

import numpy as np
import pandas as pd
import pytest

import ergmfit as ef
from ergmfit.ego.egostats import survey_vcov
from conftest import load_reference

REF = load_reference("statnet_ego.json")
SUMMARIES = [c for c in REF["cases"] if c["kind"] == "summary"]
# shared/ lies beside the repository (CI) or beside the folder of worktrees
SHARED = next((p / "shared" / "data" / "families" for p in pathlib.Path(__file__).resolve().parents
               if (p / "shared" / "data" / "families").is_dir()), pathlib.Path("/nonexistent"))


@pytest.fixture(scope="module")
def fmh():
    g = ef.datasets.load("faux.mesa.high")
    return {"fmh.census": ef.EgoData.from_network(g),
            "fmh.s100": ef.EgoData.from_network(g, egos=np.array(REF["s100_egos"]) - 1)}


def test_every_reference_summary_is_here():
    assert len(SUMMARIES) == 22


@pytest.mark.parametrize("case", SUMMARIES, ids=[c["id"] for c in SUMMARIES])
def test_summary_matches_ergm_ego(fmh, case):
    s = ef.ego.statistics(fmh[case["dataset"]], case["formula"].split("~", 1)[1],
                          scaleto=case["scaleto"], se=True)
    assert s.labels == list(case["stats"])
    np.testing.assert_allclose(s.stats.values, list(case["stats"].values()), rtol=0, atol=1e-9)
    np.testing.assert_allclose(s.se.values, list(case["se"].values()), rtol=0, atol=1e-8)
    np.testing.assert_allclose(s.vcov.values.ravel(), np.ravel(case["vcov"]), rtol=0, atol=1e-8)


@pytest.mark.skipif(not SHARED.exists(), reason="the shared egor files are not beside the repo")
@pytest.mark.parametrize("name", ["fmh.census", "fmh.s100"])
def test_csv_files_in_egors_layout_read_as_the_bundled_network(fmh, name):
    ego = ef.EgoData(SHARED / f"{name}.egos.csv", SHARED / f"{name}.alters.csv",
                     SHARED / f"{name}.aaties.csv")
    f = "edges + nodemix('Race') + degree(0:3) + esp(0:3) + gwesp(0.5, fixed=TRUE)"
    a, b = ef.ego.statistics(ego, f, se=True), ef.ego.statistics(fmh[name], f, se=True)
    np.testing.assert_allclose(a.stats, b.stats, atol=1e-12)
    np.testing.assert_allclose(a.vcov, b.vcov, atol=1e-12)


def test_individual_contributions_sum_to_the_census_network_statistics(fmh):
    # a census: Σ h(e_i) is the whole network's statistic, as ergm computes it
    g = ef.datasets.load("faux.mesa.high")
    f = "edges + nodefactor('Grade') + nodematch('Sex') + degree(0:2) + esp(0:2)"
    s = ef.ego.statistics(fmh["fmh.census"], f)
    net = ef.ERGM(g, f).statistics()
    np.testing.assert_allclose(s.individual.sum(axis=0), list(net.values()), atol=1e-9)
    assert s.labels == list(net)


def _toy(weights=None, strata=None):
    egos = pd.DataFrame({"egoID": [1, 2, 3, 4], "sex": ["F", "M", "F", "M"],
                         "w": [1.0, 2.0, 3.0, 1.0] if weights is None else weights,
                         "st": strata or ["a", "a", "b", "b"]})
    alters = pd.DataFrame({"egoID": [1, 1, 2, 3, 3, 3], "sex": ["M", "F", "F", "M", "M", "F"]})
    return egos, alters


def test_integer_weights_give_the_mean_of_replicated_egos():
    egos, alters = _toy()
    f = "edges + nodematch('sex') + nodefactor('sex') + degree(1)"
    weighted = ef.ego.statistics(ef.EgoData(egos, alters, weights="w"), f, scaleto=10)
    # each ego copied w times, with its alters
    rep_egos, rep_alters = [], []
    for _, e in egos.iterrows():
        for _ in range(int(e.w)):
            new = len(rep_egos) + 1
            rep_egos.append({"egoID": new, "sex": e.sex})
            rep_alters += [{"egoID": new, "sex": x} for x in alters.sex[alters.egoID == e.egoID]]
    replicated = ef.ego.statistics(ef.EgoData(pd.DataFrame(rep_egos), pd.DataFrame(rep_alters)),
                                   f, scaleto=10)
    np.testing.assert_allclose(weighted.stats, replicated.stats, atol=1e-12)
    # and the weights matter: the unweighted mean differs
    assert not np.allclose(ef.ego.statistics(ef.EgoData(egos, alters), f, scaleto=10).stats,
                           weighted.stats)


def test_survey_variance_by_hand():
    # the linearised variance of a weighted mean, with replacement within strata
    rng = np.random.default_rng(5)
    H, w = rng.normal(size=(9, 2)), rng.uniform(0.5, 2, size=9)
    strata = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2])
    m = (w[:, None] * H).sum(0) / w.sum()
    z = w[:, None] * (H - m) / w.sum()
    V = sum(len(z[strata == s]) / (len(z[strata == s]) - 1)
            * np.cov(z[strata == s].T, bias=True) * len(z[strata == s]) for s in range(3))
    np.testing.assert_allclose(survey_vcov(H, w, strata), V, atol=1e-14)
    # equal weights, no strata: var(h)/n, as svymean on an unweighted sample
    np.testing.assert_allclose(survey_vcov(H, np.ones(9)), np.cov(H.T) / 9, atol=1e-14)
    # weights scale-free
    np.testing.assert_allclose(survey_vcov(H, 3 * w, strata), V, atol=1e-14)


def test_strata_change_the_variance_not_the_mean():
    egos, alters = _toy()
    a = ef.ego.statistics(ef.EgoData(egos, alters, weights="w"), "edges", se=True)
    b = ef.ego.statistics(ef.EgoData(egos, alters, weights="w", strata="st"), "edges", se=True)
    assert a.stats["edges"] == pytest.approx(b.stats["edges"], abs=1e-12)
    assert a.se["edges"] != pytest.approx(b.se["edges"], abs=1e-6)


def test_inputs_are_not_modified():
    egos, alters = _toy()
    e0, a0 = egos.copy(), alters.copy()
    ego = ef.EgoData(egos, alters, weights="w", strata="st")
    ef.ego.statistics(ego, "edges + nodefactor('sex')", se=True)
    pd.testing.assert_frame_equal(egos, e0)
    pd.testing.assert_frame_equal(alters, a0)


def test_printing_shows_mean_and_se(fmh):
    text = str(ef.ego.statistics(fmh["fmh.census"], "edges + degree(0)", scaleto=205, se=True))
    assert text.splitlines()[0].split() == ["mean", "SE"]
    assert "edges" in text and "15.2" in text


@pytest.mark.parametrize("change, message", [
    (lambda e, a: (e, a.assign(egoID=[1, 1, 2, 3, 3, 9])), "not in egos"),
    (lambda e, a: (e.assign(egoID=[1, 1, 3, 4]), a), "more than once"),
    (lambda e, a: (e.assign(w=[1.0, -1.0, 1.0, 1.0]), a), "negative"),
    (lambda e, a: (e.assign(w=[1.0, np.nan, 1.0, 1.0]), a), "NaN"),
    (lambda e, a: (e.assign(w=[0.0, 0.0, 0.0, 0.0]), a), "all zero"),
])
def test_bad_input_is_a_clear_error(change, message):
    egos, alters = change(*_toy())
    with pytest.raises(ef.DataFormatError, match=message):
        ef.EgoData(egos, alters, weights="w")


def test_attribute_missing_for_alters_names_it():
    egos, alters = _toy()
    ego = ef.EgoData(egos, alters.drop(columns="sex"))
    with pytest.raises(ef.DataFormatError, match="alters have no attribute 'sex'"):
        ef.ego.statistics(ego, "nodematch('sex')")


def test_shared_partner_terms_need_alter_ties():
    ego = ef.EgoData(*_toy())
    with pytest.raises(ef.DataFormatError, match="alter_ties"):
        ef.ego.statistics(ego, "esp(1)")


def test_unknown_ego_term_and_curved_form_are_errors():
    ego = ef.EgoData(*_toy())
    with pytest.raises(ef.TermError, match="no egocentric form"):
        ef.ego.statistics(ego, "triangle")
    with pytest.raises(ef.TermError, match="fixed=TRUE"):
        ef.ego.statistics(ego, "gwdegree(0.5)")


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ef.DataFormatError, match="no such file"):
        ef.EgoData(tmp_path / "egos.csv", tmp_path / "alters.csv")


def _toy_ties():
    egos, alters = _toy()
    alters = alters.assign(alterID=[11, 12, 21, 31, 32, 33])
    ties = pd.DataFrame({"egoID": [1, 3], "srcID": [11, 31], "tgtID": [12, 33]})
    return egos, alters, ties


@pytest.mark.parametrize("change, message", [
    # alter ties of an ego that is not among the egos
    (lambda t: t.assign(egoID=[1, 7]), "alter_ties: 1 rows name egos that are not in egos"),
    # an alter id that the ego does not have (ids that do not match across the files)
    (lambda t: t.assign(tgtID=[12, 99]), "not among that ego's alters"),
    (lambda t: t.assign(srcID=[11, 33]), "joins an alter to itself"),
])
def test_alter_ties_whose_ids_do_not_match_are_clear_errors(change, message):
    egos, alters, ties = _toy_ties()
    with pytest.raises(ef.DataFormatError, match=message):
        ef.EgoData(egos, alters, change(ties))


def test_alters_with_one_alter_id_twice_for_an_ego_is_an_error():
    egos, alters, ties = _toy_ties()
    with pytest.raises(ef.DataFormatError, match="alter id appears twice"):
        ef.EgoData(egos, alters.assign(alterID=[11, 11, 21, 31, 32, 33]), ties)


@pytest.mark.parametrize("weights, message", [
    ([1.0, np.inf, 1.0, 1.0], "infinite"),
    ([1.0, 2.0, 3.0], "one value per ego"),
    (["a", "b", "c", "d"], "must be numbers"),
    ([1e308, 1e308, 1.0, 1.0], "overflows"),
    ([-0.0, 0.0, -0.0, 0.0], "all zero"),
])
def test_weights_that_do_not_sum_sensibly_are_clear_errors(weights, message):
    egos, alters = _toy()
    with pytest.raises(ef.DataFormatError, match=message):
        ef.EgoData(egos, alters, weights=np.array(weights, dtype=object))


def test_zero_weights_drop_egos_from_the_estimate():
    egos, alters = _toy()
    f = "edges + nodematch('sex') + degree(1)"
    w0 = ef.ego.statistics(ef.EgoData(egos, alters, weights=[1.0, 0.0, 1.0, 1.0]), f, scaleto=3)
    kept = ef.ego.statistics(ef.EgoData(egos[egos.egoID != 2], alters[alters.egoID != 2]), f,
                             scaleto=3)
    np.testing.assert_allclose(w0.stats.to_numpy(), kept.stats.to_numpy(), rtol=1e-12)


def test_directed_network_is_refused_by_name_and_left_unchanged():
    # ergm.ego documents no directed egocentric data (its template network is undirected):
    # a directed network is refused with the reason and the way out, not misread
    import networkx as nx
    g = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    before = sorted(g.edges())
    with pytest.raises(ef.DataFormatError, match="directed egocentric data are not supported"
                                                 ".*symmetrise"):
        ef.EgoData.from_network(g)
    assert sorted(g.edges()) == before and g.is_directed()
