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
'count-valued dyads 0..3, reference Binomial(3), proposals: tnt (default), random, 0inflated, gibbs'
"""
from .base import ModelFamily
from .binary import BINARY, BinaryFamily
from .composite import CompositeFamily
from .count import CountFamily
from .reference import (Binomial, DiscUnif, Geometric, Poisson, Reference, parse_reference)



def family_of(model) -> ModelFamily:
    """The family of ``model``: every model spec declares one (``ERGM.family``; the MRF
    models and the MRF product model: :data:`BINARY`, binary variables)."""
    return model.family


__all__ = ["family_of", "ModelFamily", "BINARY", "BinaryFamily", "CountFamily", "CompositeFamily",
           "Reference", "Poisson", "Binomial", "Geometric", "DiscUnif", "parse_reference"]
