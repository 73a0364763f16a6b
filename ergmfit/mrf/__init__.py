"""Markov random fields on the same engine as the ERGMs.

Ising and Potts fields, (visible) Boltzmann machines with higher-order potentials,
restricted Boltzmann machines and grid CRFs.  The linear-in-parameters
models compile to a :class:`~ergmfit.core._model.BinaryModel`
(``MonomialModel``), so the Metropolis-Hastings and blocked Gibbs samplers
and the pseudo-/composite-likelihood machinery of the ERGMs run on them
unchanged.  The estimators are classes on the ERGM estimators' protocol
(:mod:`ergmfit.mrf.fitting`): ``model.fit(X, method=...)`` goes through the
model's method table ``METHODS``.

>>> import networkx as nx
>>> from ergmfit.mrf import IsingModel
>>> m = IsingModel(nx.cycle_graph(4))
>>> X = m.sample(200, theta=[0.1, 0.4], random_state=0)
>>> m.fit(X, method="pl").coef_.shape
(2,)
"""
from . import chain_crf, contrastive, data, exact, junction, scl
from ._models import OneHotEnumeration, UniformGroupBlocks
from ._models import ForwardBackward, GridShapeBlocks
from .chain_crf import ChainCRF, ChainStochasticCompositeLikelihood
from .contrastive import ContrastiveConstraintGeneration
from .ee import EquilibriumExpectation
from .estimation import (CompositeLikelihood, ContrastiveDivergence,
                         PersistentContrastiveDivergence, PseudoLikelihood)
from .exact import ExactLikelihood
from .fitting import MRFResults
from .models import RBM, BoltzmannMachine, GridCRF, IsingModel, LinearMRF
from .potts import (PottsCompositeLikelihood, PottsExactLikelihood, PottsModel,
                    PottsPseudoLikelihood)
from .scl import SCLComponent, StochasticCompositeLikelihood, pl_mixture, scl_asymptotic_variance

__all__ = ["IsingModel", "BoltzmannMachine", "GridCRF", "RBM", "LinearMRF", "PottsModel",
           "OneHotEnumeration", "UniformGroupBlocks", "data", "exact", "junction", "scl",
           "scl_asymptotic_variance", "pl_mixture", "SCLComponent",
           "ForwardBackward", "GridShapeBlocks", "contrastive",
           "ExactLikelihood", "PseudoLikelihood", "CompositeLikelihood",
           "StochasticCompositeLikelihood", "ContrastiveDivergence",
           "PersistentContrastiveDivergence", "EquilibriumExpectation",
           "ContrastiveConstraintGeneration",
           "PottsPseudoLikelihood", "PottsCompositeLikelihood", "PottsExactLikelihood",
           "MRFResults", "chain_crf", "ChainCRF", "ChainStochasticCompositeLikelihood"]
