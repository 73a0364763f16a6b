"""Count-valued MCMC-MLE against every ergm.count 4.1.1 fit with a coefficient: the valued
section of the shared reference file (samptot and Lazega's layer counts) and the optional
count fits of statnet_ext.json (``samplike``: samptot's values on ergm's samplike nodes).

Issue #33's check: the estimates, averaged over seeds, within 0.1 of statnet's standard
error of statnet's (averaged over its seeds); the standard errors within 15 %.  Where the
model is pair-separable its exact MLE is known (support.pair_separable) and the fits are
compared with it too: that tells our Monte Carlo error from statnet's, whose two seeds
differ by up to 0.2 of its standard error (docs/valued_terms.md, "Every count reference
fit").
"""
import numpy as np
import pytest

import ergmfit as ef
from conftest import load_reference
from support.pair_separable import exact_mle, is_pair_separable
from support.valued_networks import layercount, samplike_valued, samptot

NETWORKS = {"samptot": (samptot, "nominations"), "lazega.layercount": (layercount, "value"),
            "samplike": (samplike_valued, "nominations")}
CASES = ([c for c in load_reference("statnet_valued_fits.json")["cases"] if c["kind"] == "fit"]
         + [c for c in load_reference("statnet_ext.json")["sections"]["6_optional"]
            if c["id"].startswith("s6.count.fit.")])
FITS = [c for c in CASES if c.get("status") == "ok" and c.get("estimate") == "MLE"]
MODELS = list(dict.fromkeys(c["model"] for c in FITS))
SEPARABLE = [m for m in MODELS
             if is_pair_separable([c for c in FITS if c["model"] == m][0]["coef_names"])]
#: our seeds, averaged (seeds 5-8 pass as well, but for the Lazega Poisson model's statnet
#: check: 0.106 s.e.; its exact-MLE check holds, 0.057 exact s.e.)
SEEDS = (1, 2, 3, 4)
#: the default settings but here: the Geometric model's estimate of `sum` varies by 0.108
#: statnet s.e. between seeds (0.015-0.089 elsewhere), and statnet's average is 0.055 from
#: the exact MLE, so a 4-seed average misses 0.1 with probability ~0.23; a last sample 16 x
#: 64 effective draws (4 x by default) cuts the spread to 0.028, the chance to ~0.001, at
#: 2.3 CPU s a fit instead of 0.47 (docs/valued_terms.md)
SETTINGS = {"v.fit.samptot_geom_nabsdiff": {"last_boost": 16}}
#: statnet's own averaged fit of this model is 0.136 of its s.e. from the exact MLE
#: (nodefactor.sum.group.Turks; its seeds 101 and 202 are 0.085 and 0.186 from it): no
#: estimator can be within 0.1 of it; checked against the exact MLE below instead
TOL = {"v.fit.samptot_binom3_atleast": 0.2}


def _model(case):
    make, response = NETWORKS[case["dataset"]]
    net = make()
    m = ef.ERGM(net, case["formula"].split("~", 1)[1].strip(), response=response,
                reference=case["reference"].lstrip("~"))
    assert m.labels == case["coef_names"]
    return m, net, response


def _statnet(model):
    cases = [c for c in FITS if c["model"] == model]
    labels = cases[0]["coef_names"]
    coef = np.mean([[c["coef"][k] for k in labels] for c in cases], axis=0)
    se = np.mean([[c["se"][k] for k in labels] for c in cases], axis=0)
    return cases[0], coef, se


def _exact(model):
    case, coef, _ = _statnet(model)
    m, net, response = _model(case)
    graph = net if hasattr(net, "nodes") else net.to_networkx()
    return exact_mle(m, graph, response, case["reference"].lstrip("~"), coef)


def test_every_reference_fit_is_compared():
    # every statnet count fit with a coefficient, on the three networks; statnet's one
    # failure (Lazega, Poisson, transitiveweights: no estimate) and MPLE refusal left out
    assert len(MODELS) == 9 and {c["dataset"] for c in FITS} == set(NETWORKS)
    a, b = (_statnet(m)[1] for m in ("v.fit.samptot_pois_mutual", "s6.count.fit.samplike_mutual"))
    assert np.array_equal(a, b)
    assert {c["model"] for c in CASES if c.get("status") != "ok"} == {
        "v.fit.lazega_pois_transw", "s6.count.fit.samplike_mutual"}
    assert set(MODELS) - set(SEPARABLE) == {
        "v.fit.samptot_binom3_triad", "v.fit.samptot_pois_cmp_group",
        "s6.count.fit.samplike_full"}


def test_samplike_count_statistics_equal_ergm_count():
    # the "samplike" network of statnet_ext's count section: its summaries to 1e-12
    cases = [c for c in load_reference("statnet_ext.json")["sections"]["6_optional"]
             if c["id"].startswith("s6.count.sum.") and c.get("status") == "ok"]
    assert len(cases) == 18
    g = samplike_valued()
    for case in cases:
        m = ef.ERGM(g, case["formula"].split("~", 1)[1].strip().replace("1/2", "0.5"),
                    response="nominations", reference="Poisson")
        got = list(m.statistics().values())
        want = list(case["stats"].values())
        assert np.allclose(got, want, rtol=1e-12, atol=1e-12), (case["id"], got, want)
        assert m.labels == list(case["stats"]), case["id"]
    fit = [c for c in FITS if c["model"] == "s6.count.fit.samplike_full"][0]
    m, _, _ = _model(fit)
    assert m.statistics() == pytest.approx(fit["observed_stats"], rel=1e-12)


@pytest.mark.parametrize("model", SEPARABLE)
def test_exact_mle_is_within_statnets_monte_carlo_error(model):
    # the exact MLE from statnet's definitions of the terms and reference measures: its
    # averaged fits lie within 0.14 of their s.e. of it (a wrong level, base or reference
    # measure would move it by several s.e.), their s.e. within 7 %
    _, coef, se = _statnet(model)
    theta, se_exact = _exact(model)
    assert np.all(np.abs(coef - theta) < 0.14 * se), (coef - theta) / se
    assert np.all(np.abs(se / se_exact - 1) < 0.07), se / se_exact


#: statnet_ext's samplike_mutual is samptot_pois_mutual again (the same values, terms,
#: reference and statnet estimates): fitted once
FITTED = [m for m in MODELS if m != "s6.count.fit.samplike_mutual"]


@pytest.mark.slow
@pytest.mark.parametrize("model", FITTED)
def test_mcmle_matches_ergm_count(model):
    case, want, se_want = _statnet(model)
    m, _, _ = _model(case)
    fits = [m.fit("mcmle", random_state=s, **SETTINGS.get(model, {})) for s in SEEDS]
    got = np.mean([np.asarray(f.params, dtype=float) for f in fits], axis=0)
    se = np.mean([np.asarray(f.bse, dtype=float) for f in fits], axis=0)
    tol = TOL.get(model, 0.1)
    assert np.all(np.abs(got - want) < tol * se_want), ((got - want) / se_want)
    assert np.all(np.abs(se / se_want - 1) < 0.15), se / se_want
    if model in SEPARABLE:
        # and the exact MLE: our 4-seed average within 0.1 of its s.e., our s.e. within 5 %
        theta, se_exact = _exact(model)
        assert np.all(np.abs(got - theta) < 0.1 * se_exact), (got - theta) / se_exact
        assert np.all(np.abs(se / se_exact - 1) < 0.05), se / se_exact


def test_count_mple_is_near_ergm_count_mle():
    # fast check: the count MPLE (MCMC-MLE's start) of the reference model lies within
    # half a statnet standard error of statnet's MLE
    case, want, se = _statnet("v.fit.samptot_pois_mutual")
    m, _, _ = _model(case)
    fit = m.fit("mple")
    assert np.all(np.abs(np.asarray(fit.params, dtype=float) - want) < 0.5 * se)
