"""No estimate, no convergence (#24 item 11): CD, blocked CD and MCLE detect
an MLE that does not exist (observed statistics on the boundary of the convex
hull), non-identifiable (collinear) and dead statistics, as MPLE does."""
import warnings

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mple.existence import observed_design, on_boundary
from ergmfit.exceptions import DegenerateModelError


@pytest.fixture(scope="module")
def triangle_free():
    # 30 nodes, 40 ties, no triangle (a bipartite graph without mode labels)
    g0 = nx.bipartite.gnmk_random_graph(15, 15, 40, seed=2)
    g = nx.Graph()
    g.add_nodes_from(range(30))
    g.add_edges_from(g0.edges())
    assert sum(nx.triangles(g).values()) == 0
    return g


FIT = {"cd": {}, "bcd": {"n_iter": 20000}, "mcle": {"cov": "naive"}}


@pytest.mark.parametrize("method", ["cd", "bcd", "mcle"])
def test_no_mle_is_an_error(triangle_free, method):
    m = ef.ERGM(triangle_free, "edges + triangle")
    with pytest.raises(DegenerateModelError, match="does not exist") as err:
        m.fit(method=method, random_state=1, **FIT[method])
    assert "triangle" in str(err.value)
    assert method == "mcle" or "-Inf" in str(err.value)       # MCLE: its own message


def test_cd_used_to_converge_there(triangle_free):
    # before: CD said converged=True with triangle about -6.3; the sample at
    # the end indeed never has a triangle, and no toggle removes one
    m = ef.ERGM(triangle_free, "edges + triangle")
    od = observed_design(m, m.compiled())
    d = od.direction
    assert d is not None and d[1] < 0 and d[0] == 0
    sampler, _ = m.sampler([-2.0, -6.3], proposal="tnt", random_state=1)
    Z = sampler.cd_sample(np.array([-2.0, -6.3]), 256, 8)
    assert on_boundary(Z, d)
    assert not on_boundary(np.array([[0.0, 1.0], [0.0, -1.0]]), d)


@pytest.mark.parametrize("method", ["cd", "bcd", "mcle"])
def test_collinear_and_dead_statistics_are_errors(method):
    fl = ef.datasets.load_network("flomarriage")
    with pytest.raises(DegenerateModelError, match="linearly dependent"):
        ef.ERGM(fl, "edges + kstar(1)").fit(method=method, random_state=1, **FIT[method])
    with pytest.raises(DegenerateModelError, match="no variation"):
        ef.ERGM(fl, "edges + degree(20)").fit(method=method, random_state=1, **FIT[method])


@pytest.mark.parametrize("method", ["cd", "bcd", "mcle"])
def test_a_model_with_an_mle_is_unaffected(method):
    fl = ef.datasets.load_network("flomarriage")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = ef.ERGM(fl, "edges + triangle").fit(method=method, random_state=1, **FIT[method])
    assert np.all(np.isfinite(fit.params)) and abs(fit.params[1]) < 1.5


def test_cd_with_the_decay_of_a_curved_term_as_an_offset():
    # the free-coefficient view has no free decay: the decay-step cap had an empty max()
    lazega = ef.datasets.load("lazega")
    m = ef.ERGM(lazega, "edges + offset(gwesp(fixed=FALSE), 2) + nodematch('practice')")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method="cd", random_state=1, offset_coef=[np.log(3)])
    assert np.all(np.isfinite(np.asarray(fit.params)))
