"""btergm with offset terms: the pooled MPLE and every bootstrap replicate hold an
``offset(term)`` coefficient at ``offset_coef``, its column a fixed part of each logistic
regression's linear predictor (statnet's offset: eta = X_free b + X_off theta_off).

The reference fits here are independent of ergmfit's design code: the dyads' rows are built
from the waves' adjacency matrices, and the logistic likelihood with the offset is maximised
by a few Newton steps in the test."""
import itertools
import warnings

import networkx as nx
import numpy as np
import pytest
from scipy.special import expit

import ergmfit as ef
from ergmfit.exceptions import SettingsError

N, T = 9, 3
FORMULA = 'edges + mutual + offset(edgecov("w"))'


def _waves(seed=5, forbid=False):
    # (seed 5: every wave has mutual ties, so every multiset's regression has a maximum)
    rng = np.random.default_rng(seed)
    graphs = [nx.gnp_random_graph(N, 0.3, seed=int(rng.integers(1 << 30)), directed=True)
              for _ in range(T)]
    w = rng.normal(size=(N, N))
    np.fill_diagonal(w, 0.0)
    if forbid:                      # w marks the dyads among nodes 0..2: never ties
        w = np.zeros((N, N))
        w[:3, :3] = 1.0
        np.fill_diagonal(w, 0.0)
        for g in graphs:
            g.remove_edges_from([(i, j) for i in range(3) for j in range(3) if i != j])
    return graphs, w


def _rows(graphs, w, coef):
    """Per wave: (X, y, offset) of the ordered pairs, the change statistics of edges and
    mutual (the reverse tie), the offset c * w[i, j]; the dyads an infinite offset decides
    left out."""
    out = []
    for g in graphs:
        A = nx.to_numpy_array(g, nodelist=range(N))
        i, j = np.nonzero(~np.eye(N, dtype=bool))
        X = np.column_stack([np.ones(len(i)), A[j, i]])
        on = w[i, j] != 0
        off = np.zeros(len(i))
        off[on] = coef * w[i, j][on]
        keep = np.isfinite(off)
        out.append((X[keep], A[i, j][keep], off[keep]))
    return out


def _logistic(X, y, off, weight):
    """The maximiser of sum weight * (y eta - log(1 + e^eta)), eta = X b + off (Newton)."""
    b = np.zeros(X.shape[1])
    for _ in range(100):
        mu = expit(X @ b + off)
        g = X.T @ (weight * (y - mu))
        H = X.T @ (X * (weight * mu * (1 - mu))[:, None])
        step = np.linalg.solve(H, g)
        b += step
        if np.abs(step).max() < 1e-12:
            break
    mu = expit(X @ b + off)
    assert np.abs(X.T @ (weight * (y - mu))).max() < 1e-8      # the score is 0
    assert np.abs(b).max() < 30                               # at a finite maximum
    return b


def _pooled(rows, counts):
    """The pooled logistic regression of the waves drawn ``counts[t]`` times."""
    X = np.concatenate([r[0] for r in rows])
    y = np.concatenate([r[1] for r in rows])
    off = np.concatenate([r[2] for r in rows])
    weight = np.concatenate([np.full(len(r[1]), float(c)) for r, c in zip(rows, counts)])
    return _logistic(X, y, off, weight)


def _fit(graphs, w, formula, R=60, seed=1, **kwargs):
    s = ef.NetSeries(graphs, edge_covariates={"w": w})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ef.ERGM(s, formula).fit(method="btergm", R=R, random_state=seed, **kwargs)


@pytest.mark.parametrize("coef", [0.7, -1.3])
def test_point_estimate_is_the_pooled_logistic_regression_with_the_offset(coef):
    graphs, w = _waves()
    fit = _fit(graphs, w, FORMULA, offset_coef=[coef])
    assert fit.info["btergm"]["times"] == [0, 1, 2]       # no term looks back: every wave
    assert list(fit.labels) == ["edges", "mutual", "offset(edgecov.w[[i]])"]
    want = _pooled(_rows(graphs, w, coef), [1] * T)
    np.testing.assert_allclose(np.asarray(fit.params)[:2], want, rtol=1e-8, atol=1e-10)
    assert fit.params["offset(edgecov.w[[i]])"] == coef
    assert fit.bse["offset(edgecov.w[[i]])"] == 0.0
    assert fit.diagnostics.offset == {"edges": False, "mutual": False,
                                      "offset(edgecov.w[[i]])": True}
    assert "offset(edgecov.w[[i]])" in fit.btergm_table()


def test_every_replicate_is_a_pooled_fit_with_the_offset_fixed():
    # T = 3: a replicate is the pooled regression of one of the 10 multisets of waves, the
    # offset held at its value (before this fix: refused; before that, the replicates
    # estimated the offset as a free coefficient)
    coef = 0.7
    graphs, w = _waves()
    fit = _fit(graphs, w, FORMULA, R=80, offset_coef=[coef])
    rows = _rows(graphs, w, coef)
    atoms = []
    for combo in itertools.combinations_with_replacement(range(T), T):
        atoms.append(_pooled(rows, [combo.count(t) for t in range(T)]))
    atoms = np.array(atoms)
    assert fit.n_boot_complete == 80
    for row in fit.boot:
        assert row[2] == coef
        assert np.min(np.abs(atoms - row[:2]).max(axis=1)) < 1e-7
    assert len({tuple(np.round(r, 8)) for r in fit.boot}) > 3      # not one atom only
    ci = np.asarray(fit.conf_int())
    assert ci[2].tolist() == [coef, coef]


def test_offset_zero_gives_the_model_without_the_term():
    graphs, w = _waves()
    with_term = _fit(graphs, w, FORMULA, R=50, seed=4, offset_coef=[0.0])
    without = _fit(graphs, w, "edges + mutual", R=50, seed=4)
    np.testing.assert_allclose(np.asarray(with_term.params)[:2], np.asarray(without.params),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(with_term.boot[:, :2], without.boot, rtol=1e-10, atol=1e-12)
    assert np.all(with_term.boot[:, 2] == 0.0)
    np.testing.assert_allclose(np.asarray(with_term.conf_int())[:2],
                               np.asarray(without.conf_int()), rtol=1e-10, atol=1e-12)


def test_the_offset_is_not_estimated_as_a_free_coefficient():
    # the same term fitted freely has another estimate and other intervals for every row
    graphs, w = _waves()
    fixed = _fit(graphs, w, FORMULA, R=60, offset_coef=[0.7])
    free = _fit(graphs, w, 'edges + mutual + edgecov("w")', R=60)
    assert free.params["edgecov.w[[i]]"] != pytest.approx(0.7, abs=0.05)
    ci_fixed, ci_free = np.asarray(fixed.conf_int()), np.asarray(free.conf_int())
    assert ci_free[2, 1] - ci_free[2, 0] > 0.1 and ci_fixed[2, 0] == ci_fixed[2, 1] == 0.7
    assert np.all(np.abs(ci_fixed[:2] - ci_free[:2]) > 1e-6)


def test_an_infinite_offset_leaves_its_dyads_out():
    # -Inf on the dyads among nodes 0..2 (never ties): the free estimates are the pooled
    # regression on the other dyads; every replicate is complete; a results file keeps it
    graphs, w = _waves(forbid=True)
    fit = _fit(graphs, w, FORMULA, R=40, offset_coef=[-np.inf])
    want = _pooled(_rows(graphs, w, -np.inf), [1] * T)
    np.testing.assert_allclose(np.asarray(fit.params)[:2], want, rtol=1e-8, atol=1e-10)
    assert fit.n_boot_complete == 40 and np.all(fit.boot[:, 2] == -np.inf)
    ci = np.asarray(fit.conf_int())
    assert np.all(np.isfinite(ci[:2])) and ci[2].tolist() == [-np.inf, -np.inf]
    from ergmfit.estimation.btergm.estimator import BTERGMResults
    back = BTERGMResults.from_dict(fit.to_dict())
    np.testing.assert_array_equal(np.asarray(back.conf_int()), ci)
    np.testing.assert_array_equal(back.boot, fit.boot)
    assert back.n_boot_complete == 40


def test_a_configured_model_keeps_its_offset_when_btergm_models_every_wave():
    # btergm rebuilds a model without look-back terms on every wave (TemporalERGM._estimate):
    # the rebuilt model keeps the configured offset coefficient
    graphs, w = _waves()
    s = ef.NetSeries(graphs, edge_covariates={"w": w})
    m = ef.ERGM(s, FORMULA).configured(offset_coef=[0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = m.fit(method="btergm", R=30, random_state=2)
    b = _fit(graphs, w, FORMULA, R=30, seed=2, offset_coef=[0.7])
    assert a.info["btergm"]["times"] == [0, 1, 2]
    np.testing.assert_array_equal(a.boot, b.boot)
    np.testing.assert_array_equal(np.asarray(a.params), np.asarray(b.params))


def test_missing_offset_coefficients_and_a_free_view_are_refused():
    graphs, w = _waves()
    s = ef.NetSeries(graphs, edge_covariates={"w": w})
    m = ef.ERGM(s, FORMULA)
    with pytest.raises(ef.exceptions.ErgmfitError, match="offset_coef"):
        m.fit(method="btergm", R=5, random_state=1)
    # what btergm still does not fit: a model whose parameterisation holds coefficients
    # fixed (the free-coefficient view other estimators are given; the transitions chosen,
    # so that btergm does not rebuild the model on every wave)
    from ergmfit.estimation.btergm import BTERGM
    from ergmfit.model import _fit_with_offsets
    m = ef.ERGM(s, FORMULA, times=[1, 2]).configured(offset_coef=[0.7])
    with pytest.raises(SettingsError, match="free-coefficient view"):
        _fit_with_offsets(m, BTERGM(R=5, random_state=1))
