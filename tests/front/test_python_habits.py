"""Python habits (#37 item 3): labelled results pandas keeps, warnings at the user's
line, ERGM(path, formula, nodes=...)."""
import pathlib
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ConvergenceWarning, NetworkError
from support.interrupts import interrupt_the_second_bayes_block
from support.paths import ROOT

pd = pytest.importorskip("pandas")

DATA = ROOT / "data"
HERE = pathlib.Path(__file__).resolve()


@pytest.fixture(scope="module")
def fit():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + nodecov('wealth')").fit(method="mple")


def test_to_frame_and_to_series_name_their_column(fit):
    df = fit.params.to_frame()
    assert df.columns.tolist() == ["coef"] and df.index.tolist() == fit.labels
    assert fit.bse.to_frame().columns.tolist() == ["stderr"]
    assert fit.params.to_series().name == "coef"
    assert fit.params.to_frame(name="estimate").columns.tolist() == ["estimate"]
    assert fit.conf_int().to_frame().columns.tolist() == ["2.5 %", "97.5 %"]
    both = pd.concat([fit.params.to_series(), fit.bse.to_series()], axis=1)
    assert both.columns.tolist() == ["coef", "stderr"]
    assert (2 * fit.params).name is None          # a derived array is no longer "coef"


def test_params_stay_labelled_after_an_offset_fit():
    g = ef.datasets.load("flomarriage")
    res = ef.ERGM(g, "offset(edges) + nodecov('wealth')").fit(method="mple", offset_coef=[-2.0])
    s = res.params.to_series()
    assert s.index.tolist() == ["offset(edges)", "nodecov.wealth"] and s.name == "coef"


def _fit_line():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m.fit(method="mcmle", random_state=1, maxit=1, samplesize=200)   # the user's line
        line = _lineno_of("the user's line")
    return caught, line


def _lineno_of(marker):
    for k, text in enumerate(HERE.read_text(encoding="utf-8").splitlines(), start=1):
        if text.rstrip().endswith("# " + marker) and "_lineno_of" not in text:
            return k
    raise AssertionError(marker)


def test_convergence_warning_from_fit_points_at_the_users_line():
    caught, line = _fit_line()
    conv = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert conv, [str(w.message) for w in caught]
    for w in caught:
        assert pathlib.Path(w.filename).resolve() == HERE, (w.filename, str(w.message))
        assert w.lineno == line


def test_warnings_from_an_estimator_object_point_at_the_users_line():
    from ergmfit.estimation import make_estimator
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    est = make_estimator("mcmle", random_state=1, maxit=1, samplesize=200)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(m)                                                       # estimator line
    line = _lineno_of("estimator line")
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert all(pathlib.Path(w.filename).resolve() == HERE and w.lineno == line for w in caught)


def test_warnings_still_obey_the_callers_filters():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.raises(ConvergenceWarning):
            m.fit(method="mcmle", random_state=1, maxit=1, samplesize=200)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        m.fit(method="mcmle", random_state=1, maxit=1, samplesize=200)
    assert caught == []


def test_ergm_takes_a_node_file_as_the_cli_does():
    m = ef.ERGM(str(DATA / "flomarriage.edges.csv"), "edges + nodecov('wealth')",
                directed=False, nodes=str(DATA / "flomarriage.nodes.csv"))
    ref = ef.ERGM(ef.datasets.load("flomarriage"), "edges + nodecov('wealth')")
    assert m.statistics() == ref.statistics()
    m2 = ef.ERGM(DATA / "flomarriage.edges.csv", "edges + nodecov('wealth')", directed=False,
                 nodes=DATA / "flomarriage.nodes.csv")
    assert m2.statistics() == ref.statistics()
    with pytest.raises(NetworkError):
        ef.ERGM("flomarriage", "edges", nodes=str(DATA / "flomarriage.nodes.csv"))
    with pytest.raises(ef.TermError, match="wealth"):
        ef.ERGM(str(DATA / "flomarriage.edges.csv"), "edges + nodecov('wealth')",
                directed=False)


def _samplk_series():
    return ef.NetSeries([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)])


def _samptot_model():
    from support.valued_networks import samptot
    return ef.ERGM(samptot(), "sum + nonzero", response="nominations", reference="Poisson")


# (estimator and family, model, fit settings that stop it early, warning class expected)
EARLY_STOPS = {
    "ee": (lambda: ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle"),
           dict(method="ee", ee_steps=2, min_ee_steps=1, se="none"), ConvergenceWarning),
    "cd": (lambda: ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle"),
           dict(method="cd", maxit=1, nsteps=1, conv_pval=0.999), ConvergenceWarning),
    "sa": (lambda: ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle"),
           dict(method="sa", phase3=20), ConvergenceWarning),
    "bayes": (lambda: ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle"),
              dict(method="bayes", burnin=10, main_iters=40, aux_iters=200), RuntimeWarning),
    "count-ee": (_samptot_model, dict(method="ee", ee_steps=2, min_ee_steps=1, se="none"),
                 ConvergenceWarning),
    "count-cd": (_samptot_model, dict(method="cd", maxit=1, nsteps=1, conv_pval=0.999),
                 ConvergenceWarning),
    "temporal-cmle": (lambda: ef.ERGM(_samplk_series(), "Form(~edges + mutual) + "
                                      "Persist(~edges + mutual)"),
                      # the model is independent across node pairs: force_main runs the chains
                      # (without it the CMLE is exact and has nothing to warn about)
                      dict(method="cmle", maxit=1, samplesize=200, force_main=True),
                      ConvergenceWarning),
}


@pytest.mark.parametrize("case", sorted(EARLY_STOPS))
def test_every_estimators_warnings_point_at_the_users_line(case, monkeypatch):
    make, settings, category = EARLY_STOPS[case]
    if case == "bayes":
        interrupt_the_second_bayes_block(monkeypatch)
    model = make()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(random_state=1, **settings)                            # every estimator
    line = _lineno_of("every estimator")
    assert any(issubclass(w.category, category) for w in caught), [str(w.message) for w in caught]
    for w in caught:
        assert pathlib.Path(w.filename).resolve() == HERE, (w.filename, str(w.message))
        assert w.lineno == line


def test_ergm_takes_node_and_edge_frames_and_names_a_mixed_pair():
    edges = pd.read_csv(DATA / "flomarriage.edges.csv")
    nodes = pd.read_csv(DATA / "flomarriage.nodes.csv")
    ref = ef.ERGM(ef.datasets.load("flomarriage"), "edges + nodecov('wealth')")
    m = ef.ERGM(edges, "edges + nodecov('wealth')", directed=False, nodes=nodes)
    assert m.statistics() == ref.statistics()
    with pytest.raises(NetworkError, match="nodes="):
        ef.ERGM(str(DATA / "flomarriage.edges.csv"), "edges", directed=False, nodes=nodes)


def test_pandas_reads_the_labels_of_params_bse_tvalues_and_pvalues(fit):
    for what, arr in [("params", fit.params), ("bse", fit.bse), ("tvalues", fit.tvalues),
                      ("pvalues", fit.pvalues)]:
        s = pd.Series(arr)
        assert s.index.tolist() == fit.labels, what
        assert s.tolist() == np.asarray(arr).tolist(), what
    table = pd.concat({"coef": pd.Series(fit.params), "stderr": pd.Series(fit.bse)}, axis=1)
    assert table.index.tolist() == fit.labels
    assert dict(fit.params) == fit.params.to_dict()


def test_labelled_results_keep_numpy_behaviour(fit):
    p = fit.params
    a = np.asarray(p)
    assert a.base is None or np.shares_memory(a, np.asarray(p))       # no copy
    assert isinstance(p * 2, type(p)) and (p * 2).labels == fit.labels and (p * 2).name is None
    assert np.exp(p)["edges"] == np.exp(a[0])
    assert p[0] == a[0] and p[-1] == a[-1] and list(p) == a.tolist() and len(p) == 2
    assert p[::-1].labels == fit.labels[::-1] and p[[1]].labels == [fit.labels[1]]
    assert p.shape == (2,) and p.ndim == 1 and p.dtype == float and p.size == 2
    assert p.sum() == a.sum() and np.mean(p) == a.mean() and float(p @ p) == float(a @ a)
    np.testing.assert_array_equal(p, a)
    np.testing.assert_array_equal(np.concatenate([p, [1.0]]), np.append(a, 1.0))
    ci = fit.conf_int()
    assert ci.shape == (2, 2) and ci[:, 0].tolist() == np.asarray(ci)[:, 0].tolist()
    assert (p == a).all() and (p > -np.inf).all()
    with pytest.raises(TypeError):
        hash(p)
    q = p.copy()
    q["edges"] = 0.0
    q[1] = 1.0
    assert q.tolist() == [0.0, 1.0] and p.tolist() == a.tolist()
    import copy
    import pickle
    back = pickle.loads(pickle.dumps(p))
    assert back.labels == p.labels and back.name == "coef" and back.tolist() == p.tolist()
    assert copy.deepcopy(p).labels == p.labels
    assert type(p.view(np.ndarray)) is np.ndarray


def test_statnet_argument_names_are_answered_with_ours():
    # simulate(nsim=) / gof(nsim=) / simulate(seed=) used to be Python's bare TypeError
    from ergmfit.exceptions import SettingsError
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    fit = m.fit(method="mple")
    with pytest.raises(SettingsError, match="statnet's 'nsim' is 'n' here"):
        m.simulate(fit.params, nsim=2)
    with pytest.raises(SettingsError, match="statnet's 'nsim' is 'n' here"):
        fit.simulate(nsim=2)
    with pytest.raises(SettingsError, match="statnet's 'nsim' is 'n_sim' here"):
        fit.gof(nsim=5)
    with pytest.raises(SettingsError, match="statnet's 'seed' is 'random_state' here"):
        m.simulate(fit.params, seed=1)
    with pytest.raises(SettingsError, match="did you mean 'n_sim'"):
        fit.gof(n_simm=5)
