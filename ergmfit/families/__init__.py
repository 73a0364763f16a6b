"""Model families: what a model's state is, and what the engine needs to sample it.

A *family* says what a state is (binary ties, or integer counts), which kernel
contract its terms implement (``TermKernel``: the 0 -> 1 change of a tie;
``CountKernel``: the change of a dyad's value from one count to another), its
reference measure h(y) (the counting measure for binary ties; ``Poisson``,
``Binomial(trials)``, ``Geometric``, ``DiscUnif(a, b)`` for counts) and its
table of proposals.  Both families share one Metropolis-Hastings loop
(``ergmfit/sampling/_mh.pyx.tp`` renders the twin samplers) and the one term
registry (``register(..., state="count")`` for the valued terms).

* :data:`BINARY` (:class:`BinaryFamily`) -- the binary ERGM, as it always was;
* :class:`CountFamily` -- count-valued ERGMs (ergm.count), one per reference;
* :class:`CompositeFamily` -- a model made of several models (the two halves
  of a separable temporal model, the blocks of a multi-network model): the
  interface only, so far.

Examples
--------
>>> from ergmfit.families import CountFamily, parse_reference
>>> CountFamily(parse_reference("~Binomial(3)")).describe()
'count-valued dyads 0..3, reference Binomial(3), proposals: tnt (default), random, 0inflated, gibbs, strength, row'
"""
from .base import ModelFamily
from .binary import BINARY, BinaryFamily
from .composite import CompositeFamily
from .count import CountFamily
from .reference import (Binomial, DiscUnif, Geometric, Poisson, Reference, parse_reference)



def family_of(model) -> ModelFamily:
    """The family of ``model``: what its variables are, as every model spec declares it
    (its ``family`` attribute).

    Parameters
    ----------
    model : a model spec
        An :class:`~ergmfit.ERGM` (:data:`BINARY`; with ``response=``, its
        :class:`CountFamily`), an MRF of :mod:`ergmfit.mrf` or an MRF product model
        (:class:`~ergmfit.mrf.ee.ProductModel`), or anything else with a ``family``.

    Returns
    -------
    ModelFamily
        Not binary for every MRF: the Ising-type models (``LinearMRF`` and its
        subclasses) are :data:`BINARY`, a Potts model ``'one-hot'``
        (:class:`~ergmfit.mrf.potts.OneHotFamily`), a :class:`~ergmfit.mrf.ChainCRF`
        ``'chain'`` (its documents' label sequences), an :class:`~ergmfit.mrf.RBM`
        ``'rbm'`` (its visible units), and a ``ProductModel`` its factors' family (factors
        of different families are refused).

    Examples
    --------
    >>> import numpy as np, networkx as nx
    >>> import ergmfit as ef
    >>> from ergmfit.mrf import ChainCRF, IsingModel, PottsModel, RBM
    >>> from ergmfit.mrf.ee import ProductModel
    >>> g = nx.DiGraph([(0, 1), (1, 2)]); nx.set_edge_attributes(g, 2, "n")
    >>> family_of(ef.ERGM(g, "edges")).name, family_of(ef.ERGM(g, "sum", response="n")).name
    ('binary', 'count')
    >>> ising, potts = IsingModel(nx.cycle_graph(4)), PottsModel((3, [(0, 1), (1, 2)]), q=3)
    >>> family_of(ising).name, family_of(potts).name
    ('binary', 'one-hot')
    >>> family_of(ChainCRF(n_states=3, n_features=2)).name, family_of(RBM(3, 2)).name
    ('chain', 'rbm')
    >>> product = ProductModel(potts._instances(np.array([[0, 1, 2]])), potts.labels)
    >>> family_of(product).name                         # its factors' family
    'one-hot'
    """
    return model.family


__all__ = ["family_of", "ModelFamily", "BINARY", "BinaryFamily", "CountFamily", "CompositeFamily",
           "Reference", "Poisson", "Binomial", "Geometric", "DiscUnif", "parse_reference"]
