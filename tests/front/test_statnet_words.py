"""statnet's words understood (#37 item 4): method="MLE", estimate=, control.ergm
names, "did you mean" for constraints, hints for common term mistakes."""
import re

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import FormulaError, SettingsError, TermError
from ergmfit.estimation import make_estimator
from ergmfit.statnet import CONTROL, resolve_method

from support.paths import DOCS  # noqa: E402


@pytest.fixture(scope="module")
def flo():
    return ef.datasets.load("flomarriage")


@pytest.fixture(scope="module")
def samplike():
    return ef.datasets.load("samplike")


# ---------------------------------------------------------------------------
# method names
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, method", [("MLE", "mcmle"), ("mle", "mcmle"), ("MPLE", "mple"),
                                          ("Mple", "mple"), ("CD", "cd"), ("MCMLE", "mcmle"),
                                          ("EE", "ee")])
def test_statnet_method_names(name, method):
    assert resolve_method(name) == method


def test_fit_takes_statnet_method_and_estimate(flo):
    m = ef.ERGM(flo, "edges")
    ref = m.fit(method="mple")
    for kw in ({"method": "MPLE"}, {"estimate": "MPLE"}, {"estimate": "mple", "method": "MPLE"}):
        fit = m.fit(**kw)
        assert fit.method == "mple" and np.allclose(fit.params, ref.params)
    with pytest.raises(SettingsError, match="contradicts"):
        m.fit(method="mple", estimate="CD")
    # statnet's main.method="Robbins-Monro" / "Stochastic-Approximation": method "sa"
    assert m.fit(method="Stochastic-Approximation", random_state=1).method == "sa"
    assert m.fit(method="Robbins-Monro", random_state=1).method == "sa"
    # statnet's default estimate="MLE" is the MCMC-MLE
    fit = m.fit(method="MLE", random_state=1, **{"MCMC.samplesize": 256, "MCMLE.maxit": 2})
    assert fit.info.get("call_method", fit.method) in ("mcmle", "mle")


def test_make_estimator_takes_statnet_names():
    est = make_estimator("MLE", **{"MCMC.samplesize": 4096, "MCMLE.maxit": 7, "seed": 3,
                                   "MCMC.interval": 512, "MCMC.burnin": 9000})
    assert type(est).__name__ == "MCMLE"
    assert (est.samplesize, est.maxit, est.random_state, est.interval, est.burnin) == \
        (4096, 7, 3, 512, 9000)
    est = make_estimator("mcmle", MCMC_samplesize=100, control={"MCMLE.termination": "Hotelling"})
    assert est.samplesize == 100 and est.termination == "hotelling"
    est = make_estimator("mple", **{"MPLE.covariance.method": "invHess", "MPLE.maxit": 20})
    assert est.cov == "naive" and est.maxiter == 20
    est = make_estimator("cd", **{"CD.nsteps": 4, "CD.maxit": 9})
    assert est.nsteps == 4 and est.maxit == 9


@pytest.mark.parametrize("method, settings, words", [
    ("mple", {"MCMC.samplesize": 10}, ["MCMC.samplesize", "'samplesize'", "'mple' does not"]),
    ("mcmle", {"MCMC.prop": "tnt"}, ["MCMC.prop", "'proposal'"]),
    ("mcmle", {"MCMLE.samplesize.min": 10}, ["'samplesize'", "fixed per iteration"]),
    ("mcmle", {"parallel": 4}, ["'n_jobs'", "'n_chains'"]),
    ("mple", {"MPLE.samplesize": 10}, ["'sample_size'", "'max_dyads'"]),
    ("ee", {"SA.nsubphases": 3}, ["'n_subphases'", "'sa'"]),
    ("mcmle", {"main.method": "MCMLE"}, ["'method'"]),
    ("mcmle", {"samplesize": 10, "MCMC.samplesize": 20}, ["given twice"]),
    ("mple", {"MPLE.covariance.method": "sandwich"}, ["'godambe'"]),
    ("mcmle", {"samplesiz": 10}, ["did you mean 'samplesize'"]),
    ("mcmle", {"control": 3}, ["control="]),
])
def test_statnet_names_without_a_counterpart_name_the_ergmfit_setting(method, settings, words):
    with pytest.raises(SettingsError) as info:
        make_estimator(method, **settings)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_fit_seed_is_random_state(flo):
    m = ef.ERGM(flo, "edges + triangle")
    a = m.fit(method="mple", cov="godambe", n_sim=20, seed=5)
    b = m.fit(method="mple", cov="godambe", n_sim=20, random_state=5)
    assert np.array_equal(a.cov, b.cov)
    with pytest.raises(SettingsError, match="twice"):
        m.fit(method="mple", seed=5, random_state=5)


@pytest.mark.parametrize("method", ["mple", "mcmle"])
def test_fit_takes_ergms_offset_coef_and_target_stats(flo, method):
    m = ef.ERGM(flo, "edges + offset(triangle)")
    a = m.fit(method=method, random_state=3, **{"offset.coef": [0.5]})
    b = m.fit(method=method, random_state=3, offset_coef=[0.5])
    assert np.array_equal(a.params, b.params) and float(a.params["offset(triangle)"]) == 0.5
    with pytest.raises(SettingsError, match="twice"):
        m.fit(method=method, offset_coef=[0.5], **{"offset.coef": [0.5]})
    e = ef.ERGM(flo, "edges")
    assert np.array_equal(e.fit(method="mple", **{"target.stats": [15]}).params,
                          e.fit(method="mple", target_stats=[15]).params)


def test_cli_takes_statnet_words(capsys):
    from ergmfit.cli import main
    code = main(["fit", "flomarriage", "edges", "--method", "MPLE", "--set", "MPLE.maxit=30",
                 "--json", "--quiet"])
    assert code in (0, None)
    assert '"method": "mple"' in capsys.readouterr().out


def _doc_rows():
    text = (DOCS / "statnet_mapping.md").read_text(encoding="utf-8")
    table = text[text.index("<!-- settings-table -->"):text.index("<!-- /settings-table -->")]
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].startswith("`"):
            continue
        names = [n for n in re.findall(r"`([^`]+)`", cells[0]) if "(" not in n]
        rows.append((names, re.findall(r"`([a-z-]+)`", cells[1]),
                     re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cells[2]), cells[3]))
    return rows


def test_the_mapping_doc_agrees_with_the_code_table():
    rows = _doc_rows()
    documented = set()
    for names, methods, keywords, taken in rows:
        for name in names:
            assert name in CONTROL, f"docs/statnet_mapping.md lists {name}; ergmfit.statnet.CONTROL does not"
            spec = CONTROL[name]
            documented.add(name)
            assert set(spec.methods) == set(methods), name
            assert set(spec.keywords) <= set(keywords), name
            assert spec.accept == taken.startswith("yes"), name
    assert documented == set(CONTROL), set(CONTROL) - documented
    # an accepted name is a real setting of every method it is listed for
    from ergmfit.estimation import get_estimator
    for spec in CONTROL.values():
        if spec.accept:
            for method in spec.methods:
                names = set(get_estimator(method).setting_names())
                assert spec.keywords[0] in names, (spec.name, method)


# ---------------------------------------------------------------------------
# constraints and terms
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("written, meant", [("~degree", "degrees"), ("~ edge", "edges"),
                                            ("~ blockdiagonal('x')", "blockdiag"),
                                            ("~ fixalbut(free)", "fixallbut")])
def test_misspelled_constraints_get_did_you_mean(flo, written, meant):
    with pytest.raises(FormulaError, match=f"Did you mean '{meant}'"):
        ef.ERGM(flo, "edges", constraints=written)


def test_kstar_on_a_directed_network_suggests_ostar_istar(samplike):
    with pytest.raises(TermError, match=r"ostar\(k\).*istar\(k\)"):
        ef.ERGM(samplike, "edges + kstar(2)")
    with pytest.raises(TermError, match="odegree"):
        ef.ERGM(samplike, "edges + degree(1)")


def test_directed_terms_on_an_undirected_network_suggest_the_undirected_one(flo):
    with pytest.raises(TermError, match=r"kstar\(k\)"):
        ef.ERGM(flo, "edges + istar(2)")
    with pytest.raises(TermError, match="mutual"):
        ef.ERGM(flo, "edges + mutual")


def test_nodecov_on_a_text_attribute_suggests_nodefactor_nodematch(samplike, flo):
    with pytest.raises(TermError, match=r"nodefactor\('group'\).*nodematch\('group'\)"):
        ef.ERGM(samplike, "edges + nodecov('group')")
    with pytest.raises(TermError, match=r"nodeifactor\('group'\)"):
        ef.ERGM(samplike, "edges + nodeicov('group')")
    with pytest.raises(TermError, match=r"nodematch\('name'\)"):
        ef.ERGM(flo, "edges + absdiff('name')")
