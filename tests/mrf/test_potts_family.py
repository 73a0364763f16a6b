"""A Potts model declares the family of its states: categorical variables coded one-hot, not
the binary variables of LinearMRF, and the estimators for binary variables refuse it."""
import networkx as nx
import numpy as np
import pytest

from ergmfit.exceptions import SettingsError
from ergmfit.families import BINARY, family_of
from ergmfit.mrf import IsingModel, PottsModel
from ergmfit.mrf.models import LinearMRF


def test_potts_is_one_hot_and_binary_estimators_refuse_it():
    m = PottsModel(nx.cycle_graph(5), q=3)
    assert family_of(m).name == "one-hot" and m.family is not BINARY
    assert IsingModel(nx.cycle_graph(5)).family is BINARY
    X = m.sample(200, theta=[0.3, -0.3, 0.8], random_state=0)
    # single-variable moves or conditionals (EE, the binary pseudo-likelihood) would leave
    # or misread the one-hot states: refused, naming the family and the model's own methods
    for method in ("ee", "pl", "ccg"):
        with pytest.raises(SettingsError, match=r"binary variables; a PottsModel's are "
                                                r"categorical .*one-hot.*\['cd', 'cl'"):
            LinearMRF.METHODS[method]().fit(m, X)
    with pytest.raises(SettingsError, match="one-hot"):
        m.family.make_proposal("auto")
    # its own estimators (and contrastive divergence, through its blocked Gibbs hook) fit it
    for method, kw in (("pl", {}), ("cl", {}), ("cd", {"n_iter": 20, "random_state": 1})):
        coef = m.fit(X, method=method, **kw).coef_
        assert np.all(np.isfinite(coef)) and len(coef) == 3
