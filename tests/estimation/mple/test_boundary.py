"""Infinite estimates on the face of the convex hull (#36 item 3): statnet's
fauxmodel.01 on faux.mesa.high, checked against a dyad-by-dyad logistic
regression on the face written here from the node attributes alone."""
import math
import warnings

import networkx as nx
import numpy as np
import pytest
from scipy import special

import ergmfit as ef
from ergmfit.exceptions import ConvergenceWarning, DegenerateModelError
from ergmfit.estimation.mple.boundary import boundary_face, design_face

FAUX01 = ("edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE) + nodefactor('Race') "
          "+ nodematch('Race', diff=TRUE)")


def _face_logit(g):
    """fauxmodel.01's MLE on its face, from scratch: every dyad of faux.mesa.high
    but the Black-Black and Other-Other ones (on the face they are non-ties),
    columns built from the attributes, Newton on the dyad log-likelihood."""
    nodes = list(g.nodes)
    grade = np.array([g.nodes[v]["Grade"] for v in nodes])
    race = np.array([g.nodes[v]["Race"] for v in nodes])
    n = len(nodes)
    i, j = np.triu_indices(n, 1)
    pos = {v: k for k, v in enumerate(nodes)}
    adj = np.zeros((n, n), bool)
    for u, v in g.edges:
        adj[pos[u], pos[v]] = adj[pos[v], pos[u]] = True
    y = adj[i, j].astype(float)
    cols = [np.ones(len(i))]
    for lv in (8, 9, 10, 11, 12):
        cols.append((grade[i] == lv).astype(float) + (grade[j] == lv))
    for lv in (7, 8, 9, 10, 11, 12):
        cols.append(((grade[i] == lv) & (grade[j] == lv)).astype(float))
    for lv in ("Hisp", "NatAm", "Other", "White"):
        cols.append((race[i] == lv).astype(float) + (race[j] == lv))
    for lv in ("Hisp", "NatAm", "White"):
        cols.append(((race[i] == lv) & (race[j] == lv)).astype(float))
    X = np.column_stack(cols)
    free = ~(((race[i] == "Black") & (race[j] == "Black"))
             | ((race[i] == "Other") & (race[j] == "Other")))
    X, y = X[free], y[free]
    # dyads with equal rows share their probability: sum them (k dyads, s ties per row)
    X, inv = np.unique(X, axis=0, return_inverse=True)
    k = np.bincount(inv.ravel()).astype(float)
    s = np.bincount(inv.ravel(), weights=y)
    b = np.zeros(X.shape[1])
    for _ in range(50):
        mu = special.expit(X @ b)
        H = X.T @ ((k * mu * (1 - mu))[:, None] * X)
        step = np.linalg.solve(H, X.T @ (s - k * mu))
        b += step
        if np.abs(step).max() < 1e-12:
            break
    mu = special.expit(X @ b)
    H = X.T @ ((k * mu * (1 - mu))[:, None] * X)
    ll = float(s @ np.log(mu) + (k - s) @ np.log1p(-mu))
    return b, np.sqrt(np.diag(np.linalg.inv(H))), ll


@pytest.fixture(scope="module")
def faux():
    return ef.datasets.load("faux.mesa.high")


@pytest.mark.parametrize("method", ["mple", "mcmle"])
def test_fauxmodel01_fits_on_the_face_with_two_minus_inf(faux, method):
    m = ef.ERGM(faux, FAUX01)
    with pytest.warns(ConvergenceWarning, match="'nodematch.Race.Black' is at its smallest"):
        fit = m.fit(method=method, random_state=1)
    labels = list(m.labels)
    inf = ["nodematch.Race.Black", "nodematch.Race.Other"]
    b, se, ll = _face_logit(faux)
    finite = [k for k, lab in enumerate(labels) if lab not in inf]
    params, bse = np.asarray(fit.params), np.asarray(fit.bse)
    for lab in inf:
        k = labels.index(lab)
        assert params[k] == -math.inf and bse[k] == 0.0
    np.testing.assert_allclose(params[finite], b, rtol=0, atol=1e-6)
    np.testing.assert_allclose(bse[finite], se, rtol=1e-6)
    assert fit.loglik == pytest.approx(ll, abs=1e-6)
    # statnet's deviances count every dyad (20,910 on faux.mesa.high) and every coefficient
    assert fit.nobs == 205 * 204 // 2 and fit.df_resid == 20910 - 21
    text = str(fit.summary())
    assert "nodematch.Race.Black      -Inf     0.0000      0    -Inf" in text
    assert ("The following terms have infinite coefficient estimates:\n"
            "  nodematch.Race.Black nodematch.Race.Other") in text
    assert "offset(" not in text
    assert fit.info["infinite"] == {"nodematch.Race.Black": "-Inf",
                                    "nodematch.Race.Other": "-Inf"}


def test_a_statistic_at_its_maximum_gets_plus_inf():
    # every within-group dyad of group 'a' is a tie: nodematch.g.a at its maximum
    g = nx.Graph()
    groups = ["a"] * 4 + ["b"] * 5 + ["c"] * 5
    for k, gr in enumerate(groups):
        g.add_node(k, g=gr)
    g.add_edges_from((i, j) for i in range(4) for j in range(i + 1, 4))
    g.add_edges_from([(4, 5), (5, 6), (9, 10), (4, 11), (6, 12), (0, 7)])
    m = ef.ERGM(g, "edges + nodematch('g', diff=TRUE)")
    with pytest.warns(ConvergenceWarning, match="boundary.*'nodematch.g.a' is at its largest"):
        fit = m.fit(method="mple")
    assert fit.params["nodematch.g.a"] == math.inf
    assert np.isfinite(np.asarray(fit.params)[[0, 2, 3]]).all()
    # on the face the 'a' dyads are ties: the rest is the MLE without them
    X = []
    n = len(groups)
    for i in range(n):
        for j in range(i + 1, n):
            if groups[i] == groups[j] == "a":
                continue
            X.append((1.0, float(groups[i] == groups[j] == "b"),
                      float(groups[i] == groups[j] == "c"), float(g.has_edge(i, j))))
    X = np.array(X)
    # closed form: each cell's log-odds is logit(its density)
    between = X[(X[:, 1] == 0) & (X[:, 2] == 0), 3].mean()
    within_b = X[X[:, 1] == 1, 3].mean()
    assert fit.params["edges"] == pytest.approx(special.logit(between), abs=1e-8)
    assert fit.params["nodematch.g.b"] == pytest.approx(
        special.logit(within_b) - special.logit(between), abs=1e-8)


def test_a_combination_that_diverges_is_still_refused():
    # every tie within a group, no tie between: edges -> -Inf and nodematch -> +Inf
    # together (no coefficient alone diverges), which statnet does not report either
    g = nx.Graph()
    for k in range(12):
        g.add_node(k, g=k % 3)
    g.add_edges_from([(0, 3), (3, 6), (1, 4), (2, 5), (5, 8)])
    m = ef.ERGM(g, "edges + nodematch('g')")
    with pytest.raises(DegenerateModelError, match="combination"):
        m.fit(method="mple")


def test_interior_models_have_no_face(faux):
    assert boundary_face(ef.ERGM(faux, "edges + nodematch('Grade')")) is None
    assert boundary_face(ef.ERGM(faux, "edges + triangle")) is None
    assert boundary_face(ef.ERGM(faux, "triangle")) is None     # no dyad-independent term


def test_design_face_with_targets_names_the_zero_cell():
    # two cells; the second's target is 0: its coefficient is -Inf, the first is free
    X = np.array([[1.0, 0.0], [1.0, 1.0]])
    n = np.array([100.0, 50.0])
    face = design_face(X, n, np.array([20.0, 0.0]), ["edges", "cell2"])
    assert face.coef[1] == -math.inf and np.isnan(face.coef[0])
    assert list(face.keep) == [True, False]
    # a target above the largest attainable value is an error
    with pytest.raises(DegenerateModelError, match="outside the range"):
        design_face(X, n, np.array([200.0, 10.0]), ["edges", "cell2"])


_DEP = ("edges + {}nodematch('Race', diff=TRUE, levels=I(['Black'])){} + "
        "nodematch('Race', diff=TRUE, levels=I(['Hisp'])) + gwesp(0.25, fixed=TRUE)")


def _face_and_offset_fits(faux, method):
    """The face fit of a dyad-dependent model whose dyad-independent part has a
    statistic at its minimum, and the same model with that statistic an explicit
    offset at -Inf (what the face is)."""
    m = ef.ERGM(faux, _DEP.format("", ""))
    off = ef.ERGM(faux, _DEP.format("offset(", ")"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method=method, random_state=1)
        ref = off.fit(method=method, random_state=1, offset_coef=[-math.inf])
    return fit, ref


def test_dyad_dependent_model_with_a_dyad_independent_extreme_mple(faux):
    fit, ref = _face_and_offset_fits(faux, "mple")
    assert fit.params["nodematch.Race.Black"] == -math.inf
    np.testing.assert_array_equal(np.asarray(fit.params), np.asarray(ref.params))
    assert fit.labels[1] == "nodematch.Race.Black" and ref.labels[1].startswith("offset(")


@pytest.mark.slow
def test_dyad_dependent_model_with_a_dyad_independent_extreme_mcmle(faux):
    # MCMC-MLE on the face: the same chain as the explicit -Inf offset's
    fit, ref = _face_and_offset_fits(faux, "mcmle")
    assert fit.params["nodematch.Race.Black"] == -math.inf
    np.testing.assert_array_equal(np.asarray(fit.params), np.asarray(ref.params))
    assert "infinite coefficient estimates" in str(fit.summary())
