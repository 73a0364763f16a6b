"""The contract of the MRF estimators, over every method ``LinearMRF.fit`` knows
(``ergmfit.mrf.models._METHODS``, the MRF side's table until ERGM and MRF estimators
share one registry, issue #31 item 3): the same seed gives the same estimate, every
method gives a finite one of the model's size, and an unknown method names the methods."""
import networkx as nx
import numpy as np
import pytest

from ergmfit.mrf import IsingModel
from ergmfit.mrf.models import _METHODS

#: settings keeping each fit of a 5-node Ising cycle under a second
SMALL = {"cd": dict(n_iter=100, batch_size=20), "pcd": dict(n_iter=100, batch_size=20),
         "ee": dict(ee_steps=20, cd_iter=20)}


@pytest.fixture(scope="module")
def data():
    return IsingModel(nx.cycle_graph(5)).sample(200, theta=[0.1, 0.4], random_state=0)


@pytest.mark.parametrize("method", _METHODS)
def test_the_same_seed_gives_the_same_estimate(method, data):
    a = IsingModel(nx.cycle_graph(5)).fit(data, method=method, random_state=2,
                                          **SMALL.get(method, {}))
    b = IsingModel(nx.cycle_graph(5)).fit(data, method=method, random_state=2,
                                          **SMALL.get(method, {}))
    assert a.coef_.shape == (2,) and np.all(np.isfinite(a.coef_))
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.method_ == method


def test_an_unknown_method_names_the_methods(data):
    with pytest.raises(ValueError, match="unknown method 'bogus'") as err:
        IsingModel(nx.cycle_graph(5)).fit(data, method="bogus")
    for method in _METHODS:
        assert repr(method) in str(err.value)
