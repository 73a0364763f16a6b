"""A model made of several models: the family of composite models (interface only)."""
from __future__ import annotations

from .base import ModelFamily


class CompositeFamily(ModelFamily):
    """The family of a model made of named sub-models, each with its own family.

    Meant for the two halves of a separable temporal model (``Form`` and
    ``Persist`` / ``Diss`` on consecutive networks) and the blocks of a
    multi-network model (``N(...)`` over several networks): a state is a tuple
    of the parts' states, the statistics are the parts' stacked, and a
    proposal picks a part and proposes within it.

    Only the interface exists so far: it holds and describes its parts;
    sampling raises ``NotImplementedError`` (the temporal and multi-network
    issues build it).

    Parameters
    ----------
    parts : dict
        Part name -> :class:`ModelFamily`.

    Examples
    --------
    >>> from ergmfit.families import BINARY, CompositeFamily
    >>> CompositeFamily({"Form": BINARY, "Persist": BINARY}).describe()
    'composite of Form (binary ties), Persist (binary ties)'
    """

    name = "composite"

    def __init__(self, parts):
        if not parts or not all(isinstance(f, ModelFamily) for f in parts.values()):
            raise TypeError("a composite family needs a dict of part name -> ModelFamily")
        self.parts = dict(parts)
        self.state = "tuple of " + ", ".join(f.state for f in self.parts.values())

    @property
    def proposals(self):
        """None of its own: a composite samples through its parts (not implemented yet)."""
        return {}

    def describe(self) -> str:
        return "composite of " + ", ".join(f"{k} ({f.state})" for k, f in self.parts.items())

    def make_proposal(self, name="auto"):
        raise NotImplementedError("sampling a composite model is not implemented yet")

    def make_sampler(self, compiled, proposal, seed):
        raise NotImplementedError("sampling a composite model is not implemented yet")
