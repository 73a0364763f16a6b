"""The contract of the MRF estimators, over every method table the MRF models
fit through (``LinearMRF.METHODS``, ``PottsModel.METHODS``, ``RBM.METHODS``): the checks
``test_estimators.py`` runs over the ERGM estimators, where they apply to
estimators fitted to i.i.d. data.

* every entry is an estimator on the ERGM protocol (``Estimator``) named by its table key;
* its settings table is its constructor's signature; ``get_params``/``set_params`` round trip;
* a bad value of every typed setting is refused with a SettingsError naming the setting,
  when built and by ``set_params``; an unknown setting names the valid ones;
* the same seed gives the same result (an int or a Generator), ``model.fit(method=...)``
  gives what the estimator gives, and the estimator's own ``fit`` leaves the model unfitted;
* an unknown method names the methods.

A new MRF estimator gets every check by being put in a model's table; ``SMALL`` below
must name it when its defaults are slow (``test_the_tables_are_covered``).
"""
import warnings

import networkx as nx
import numpy as np
import pytest

from ergmfit.estimation.base import Estimator
from ergmfit.exceptions import SettingsError
from ergmfit.mrf import RBM, ChainCRF, IsingModel, PottsModel
from ergmfit.mrf.fitting import MRFResults, make_estimator
from support import estimator_contract as contract

#: the model families and their method tables; a model and data of each
FAMILIES = {"ising": IsingModel, "potts": PottsModel, "rbm": RBM, "chain": ChainCRF}


def _model(family):
    if family == "ising":
        return IsingModel(nx.cycle_graph(5))
    if family == "rbm":
        return RBM(3, 2)
    if family == "chain":
        return ChainCRF(3, 4)
    return PottsModel(nx.cycle_graph(4), q=3)


def _data(family):
    if family == "ising":
        return IsingModel(nx.cycle_graph(5)).sample(200, theta=[0.1, 0.4], random_state=0)
    if family == "chain":                 # documents as one ChainData (features and labels)
        from ergmfit.mrf.data import sentiment_documents
        F, Y = sentiment_documents(12, mean_sentences=5, n_states=3, vocabulary=3, lexicon=2,
                                   random_state=0)
        return ChainCRF(3, 4).observations(F, Y)
    if family == "rbm":
        return RBM(3, 2).sample(100, theta=np.linspace(-0.5, 0.5, 11), random_state=0,
                                coding="01")
    return PottsModel(nx.cycle_graph(4), q=3).sample(200, theta=[0.2, -0.1, 0.6],
                                                     random_state=0)


#: settings keeping each fit under a second (families, method): settings
SMALL = {("ising", "cd"): dict(n_iter=100, batch_size=20),
         ("ising", "pcd"): dict(n_iter=100, batch_size=20),
         ("ising", "ee"): dict(ee_steps=20, cd_iter=20),
         ("potts", "cd"): dict(n_iter=50, batch_size=20),
         ("potts", "pcd"): dict(n_iter=50, batch_size=20),
         ("rbm", "cd"): dict(n_iter=50)}
#: methods whose defaults are fast enough (no SMALL entry needed)
FAST = {"exact", "pl", "cl", "scl", "ccg"}

CASES = [(family, method) for family, cls in FAMILIES.items() for method in cls.METHODS]
IDS = [f"{f}-{m}" for f, m in CASES]


def _cls(family, method):
    return FAMILIES[family].METHODS[method]


@pytest.fixture(scope="module")
def data():
    return {family: _data(family) for family in FAMILIES}


def test_the_tables_are_covered():
    for family, method in CASES:
        cls = _cls(family, method)
        assert isinstance(cls, type) and issubclass(cls, Estimator), (family, method)
        assert cls.method == method
        assert (family, method) in SMALL or method in FAST, (family, method)


# ---------------------------------------------------------------------------
# settings
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("family, method", CASES, ids=IDS)
def test_settings_table_is_the_constructor_signature(family, method):
    contract.check_settings_table_is_the_signature(_cls(family, method))
    assert make_estimator(FAMILIES[family].METHODS, method).method == method


def _defaults():
    return [pytest.param(f, m, s.name, id=f"{f}-{m}-{s.name}") for f, m in CASES
            for s in _cls(f, m).settings_table()]


@pytest.mark.parametrize("family, method, name", _defaults())
def test_every_default_passes_its_own_check(family, method, name):
    contract.check_default_passes_its_own_check(_cls(family, method), name)


@pytest.mark.parametrize("family, method", CASES, ids=IDS)
def test_get_params_set_params_round_trip(family, method):
    contract.check_get_params_set_params_round_trip(_cls(family, method),
                                                    SMALL.get((family, method), {}))


def _typed_settings():
    return [pytest.param(f, m, s.name, id=f"{f}-{m}-{s.name}") for f, m in CASES
            for s in _cls(f, m).settings_table() if s.check is not None]


@pytest.mark.parametrize("family, method, name", _typed_settings())
def test_a_bad_value_of_a_typed_setting_is_refused(family, method, name):
    contract.check_a_bad_value_is_refused(_cls(family, method), name)


@pytest.mark.parametrize("family, method", CASES, ids=IDS)
def test_an_unknown_setting_names_the_valid_ones(family, method, data):
    table = FAMILIES[family].METHODS
    contract.check_an_unknown_setting_names_the_valid_ones(
        lambda **settings: make_estimator(table, method, **settings), _cls(family, method))
    # and through the model's fit, before any work
    with pytest.raises(SettingsError, match="no setting 'bogus'"):
        _model(family).fit(data[family], method=method, bogus=1)


# ---------------------------------------------------------------------------
# fits
# ---------------------------------------------------------------------------
def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("family, method", CASES, ids=IDS)
def test_the_same_seed_gives_the_same_result(family, method, data):
    cls, X = _cls(family, method), data[family]
    small = SMALL.get((family, method), {})
    model = _model(family)
    a = _quiet(cls(random_state=2, **small).fit, model, X)
    b = _quiet(cls(random_state=2, **small).fit, model, X)
    assert isinstance(a, MRFResults) and a.method == method
    assert a.params.shape == (len(model.labels),) and np.all(np.isfinite(a.params))
    assert a.params.labels == list(model.labels)
    np.testing.assert_array_equal(a.params, b.params)
    np.testing.assert_array_equal(a.bse, b.bse)
    assert not hasattr(model, "coef_")                 # the estimator does not fit the model
    # a Generator seeds the run as its integer does
    c = _quiet(cls(random_state=np.random.default_rng(3), **small).fit, model, X)
    d = _quiet(cls(random_state=np.random.default_rng(3), **small).fit, model, X)
    np.testing.assert_array_equal(c.params, d.params)
    # model.fit goes through the same table: the same numbers, copied to the model
    fitted = _quiet(_model(family).fit, X, method=method, random_state=2, **small)
    np.testing.assert_array_equal(fitted.coef_, np.asarray(a.params))
    assert fitted.method_ == method and fitted.results_.method == method


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_an_unknown_method_names_the_methods(family, data):
    with pytest.raises(SettingsError, match="unknown method 'bogus'") as err:
        _model(family).fit(data[family], method="bogus")
    for method in FAMILIES[family].METHODS:
        assert repr(method) in str(err.value)
