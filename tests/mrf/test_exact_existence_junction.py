"""The Potts exact fit and the junction-tree exact fit (> 20 variables) check
that the MLE exists as the binary exact fit does (exact.require_mle, the one
message; option nonexistent="raise"/"ignore")."""
import networkx as nx
import numpy as np
import pytest

from ergmfit.exceptions import DegenerateModelError
from ergmfit.mrf import IsingModel, PottsModel, exact
from ergmfit.mrf.exact import ExactLikelihood
from ergmfit.mrf.junction import JunctionTree


def test_max_product_and_oracle_agree_with_enumeration():
    rng = np.random.default_rng(3)
    m = IsingModel(nx.cycle_graph(7), coding="01", tied=False, fields=True)
    G = exact.all_statistics(m.compiled())
    jt = JunctionTree(m)
    for _ in range(20):
        th = rng.normal(size=G.shape[1])
        x, best = jt.max_state(th)
        assert np.isclose(best, (G @ th).max()) and np.isclose(jt.statistics(x[None])[0] @ th, best)
    G = np.c_[G, G[:, 0] + G[:, 7], np.ones(len(G))]   # a dependent and a constant column
    n_none = 0
    for rep in range(12):                       # observed states: few, often on a face
        c = np.zeros(len(G))
        c[rng.choice(len(G), size=rng.integers(1, 40), replace=False)] = 1.0
        if rep == 0:
            c[:] = 1.0
        d0 = exact.mle_direction(G, c)
        d1 = exact.mle_direction_by_oracle(G[c > 0], c[c > 0],
                                           lambda th: G[np.argmax(G @ th)])
        assert (d0 is None) == (d1 is None)
        n_none += d0 is None
        if d1 is not None:
            gbar = c @ G / c.sum()
            v = (G - gbar) @ d1
            assert np.all(v <= 1e-9) and np.any(v < -1e-6)
    assert 0 < n_none < 12


def test_potts_exact_fit_checks_existence():
    m = PottsModel(nx.cycle_graph(5), q=3)
    X = np.array([[0] * 5, [1] * 5, [2] * 5] * 3)   # only the constant states
    with pytest.raises(DegenerateModelError, match="does not exist.*-> "):
        m.fit(X, method="exact")
    # asked to, the fit returns Newton's stopping point on the ridge (not an estimate)
    assert np.all(np.isfinite(m.fit(X, method="exact", nonexistent="ignore").coef_))
    Y = m.sample(300, theta=np.full(m.n_stats, 0.2), random_state=2)
    assert np.all(np.abs(m.fit(Y, method="exact").coef_) < 3)   # an existing MLE: fitted


def test_junction_tree_exact_fit_checks_existence():
    m = IsingModel(nx.path_graph(25), coding="01", tied=True, fields=True)
    assert m.n_vars > exact.MAX_EXACT_VARS
    X = np.array([[0] * 25] * 3 + [[1] * 25] * 5, dtype=np.uint8)
    with pytest.raises(DegenerateModelError, match="does not exist.*combination.*field.*coupling"):
        m.fit(X, method="exact")
    assert np.all(np.isfinite(ExactLikelihood(nonexistent="ignore").fit(m, X).params))
    # the model's fit takes the option too (both sizes)
    assert np.all(np.isfinite(m.fit(X, method="exact", nonexistent="ignore").coef_))
    small = IsingModel(nx.path_graph(5), coding="01", tied=True, fields=True)
    assert np.all(np.isfinite(small.fit(X[:, :5], method="exact", nonexistent="ignore").coef_))
    Z = X.copy()
    Z[:, 1::2] = 0                               # never two adjacent 1s: coupling -> -Inf
    Z[0] = 0
    with pytest.raises(DegenerateModelError, match="coupling -> -Inf"):
        m.fit(Z, method="exact")
    Y = m.sample(200, theta=np.array([-0.3, 0.6]), random_state=4)
    assert np.all(np.abs(m.fit(Y, method="exact").coef_ - [-0.3, 0.6]) < 0.4)


@pytest.mark.parametrize("nobs, seed", [(20, 1), (40, 1), (40, 2)])
def test_junction_tree_check_matches_the_tree_criterion(nobs, seed):
    """Untied 0/1 Ising on a 30-node path (59 statistics, more than the observations):
    the MLE of a tree model exists iff every edge's 2x2 table is positive."""
    m = IsingModel(nx.path_graph(30), coding="01", tied=False, fields=True)
    X = m.sample(nobs, theta=np.r_[np.zeros(30), np.full(29, 0.3)], random_state=seed)
    exists = all(len(set(zip(X[:, i], X[:, i + 1]))) == 4 for i in range(29))
    try:
        ExactLikelihood().fit(m, X)
        found = True
    except DegenerateModelError:
        found = False
    assert found == exists
