"""Every MRF model and product model declares the family its variables have, and the
estimators that read ``model.family`` refuse or accept it clearly.

* ``ProductModel`` (EE's product of the observations) said BINARY whatever its factors were:
  EE on a Potts model's instances ran single-indicator flips on one-hot states.
* ``ChainCRF`` had no ``family``: a binary-variable estimator failed with an AttributeError.
"""
import networkx as nx
import numpy as np
import pytest

from ergmfit.exceptions import SettingsError
from ergmfit.mrf import IsingModel
from ergmfit.mrf.chain_crf import ChainCRF, ChainLikelihood, ChainPseudoLikelihood
from ergmfit.mrf.ee import EquilibriumExpectation, ProductModel
from ergmfit.mrf.estimation import ContrastiveDivergence, PseudoLikelihood
from ergmfit.mrf.exact import ExactLikelihood
from ergmfit.mrf.fitting import compiled_family
from ergmfit.mrf.potts import PottsModel


def _potts():
    m = PottsModel(nx.cycle_graph(4), q=2)          # 2 statistics, as the Ising model's
    return m, m.sample(20, theta=[0.1, 0.5], random_state=0)


def test_product_model_has_its_factors_family():
    ising = IsingModel(nx.cycle_graph(4))
    X = np.array([[1, 0, 1, 1], [0, 0, 1, 0]])
    P = ProductModel(ising._instances(X), ising.labels)
    assert P.family.name == "binary" and compiled_family(P.compiled()).name == "binary"
    potts, S = _potts()
    Q = ProductModel(potts._instances(S), potts.labels)
    assert Q.family.name == "one-hot"
    assert compiled_family(Q.compiled()).name == "one-hot"     # the product's compiled model too
    with pytest.raises(ValueError, match=r"instance 1: .*one-hot.* instance 0 .*binary.*one kind"):
        ProductModel(ising._instances(X) + potts._instances(S), ising.labels)


def test_ee_refuses_one_hot_instances_given_without_the_model():
    potts, S = _potts()
    with pytest.raises(SettingsError, match=r"binary variables without their model; these are "
                                            r"categorical .*'one-hot'"):
        EquilibriumExpectation(ee_steps=2, se="none").fit_instances(potts._instances(S),
                                                                    potts.labels)
    with pytest.raises(SettingsError, match=r"a PottsModel's are categorical .*own methods"):
        EquilibriumExpectation(ee_steps=2, se="none").fit(potts, S)


@pytest.mark.parametrize("est", [PseudoLikelihood(), ExactLikelihood(),
                                 ContrastiveDivergence(n_iter=5, random_state=0)])
def test_binary_estimators_refuse_one_hot_instances_without_their_model(est):
    # they ran on the indicators as if they were free binary variables (CD: single flips)
    potts, S = _potts()
    with pytest.raises(SettingsError, match=r"without their model; these are categorical"):
        est.fit_instances(potts._instances(S), potts.labels)
    ising = IsingModel(nx.cycle_graph(4))
    X = ising.sample(50, theta=[0.1, 0.3], random_state=0)
    assert est.fit_instances(ising._instances(X), ising.labels).params.shape == (2,)


def test_cd_still_fits_a_potts_model_through_its_hook():
    potts, S = _potts()
    assert ContrastiveDivergence(n_iter=5, random_state=0).fit(potts, S).params.shape == (2,)


def _documents():
    rng = np.random.default_rng(0)
    F = [rng.random((n, 3)) for n in (4, 6, 5)]
    return F, [rng.integers(0, 2, len(f)) for f in F]


def test_chain_crf_has_a_family_its_own_estimators_accept():
    crf = ChainCRF(n_states=2, n_features=3)
    assert crf.family.name == "chain"
    F, Y = _documents()
    for est in (ChainLikelihood(), ChainPseudoLikelihood()):
        assert est.fit(crf, F, Y).params.shape == (crf.n_params,)


def test_binary_estimators_refuse_a_chain_crf_and_chain_estimators_an_ising_model():
    F, Y = _documents()
    with pytest.raises(SettingsError, match=r"PseudoLikelihood fits models of binary variables; "
                                            r"a ChainCRF's are label sequences .*'chain'.*"
                                            r"\['exact', 'pl', 'scl'\]"):
        PseudoLikelihood().fit(ChainCRF(2, 3), F, Y)
    with pytest.raises(SettingsError, match=r"ChainLikelihood fits models of chain variables; "
                                            r"an IsingModel's are .*'binary'"):
        ChainLikelihood().fit(IsingModel(nx.path_graph(3)), np.zeros((3, 3)))
    data = ChainCRF(2, 3).observations(F, Y)
    with pytest.raises(SettingsError, match=r"without their model; these are label sequences"):
        PseudoLikelihood().fit_instances(data, ["x"] * 10)
    assert ChainLikelihood().fit_instances(data, ChainCRF(2, 3).labels).params.shape == (10,)
    with pytest.raises(SettingsError, match="not sampled by proposals"):
        ChainCRF(2, 3).family.resolve_proposal("tnt")


def test_rbm_has_a_family_and_its_estimators_refuse_other_models():
    # an RBM had none (a binary estimator failed with AttributeError 'family'), and its own
    # estimators failed on another model with AttributeError '_check_V'
    from ergmfit.mrf.models import RBM, RBMContrastiveDivergence, RBMLikelihood
    rbm = RBM(3, 2)
    V = np.array([[1, -1, 1], [1, 1, 1], [-1, -1, 1]])
    assert rbm.family.name == "rbm"
    with pytest.raises(SettingsError, match=r"binary variables; a RBM's are visible units .*"
                                            r"'rbm'.*\['cd', 'cl', 'exact', 'pl'\]"):
        PseudoLikelihood().fit(rbm, V)
    for est in (RBMLikelihood(), RBMContrastiveDivergence(n_iter=3, random_state=0)):
        with pytest.raises(SettingsError, match=r"fits models of rbm variables; an IsingModel's"):
            est.fit(IsingModel(nx.path_graph(3)), np.zeros((3, 3)))
        assert est.fit(rbm, V).params.shape == (rbm.n_params,)
