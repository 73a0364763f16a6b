"""The binary family: ERGMs of binary ties, as the engine has always run them."""
from __future__ import annotations

import numpy as np

from ..sampling._mh import MHSampler
from ..sampling.space import PROPOSALS
from ..terms._kernel import TermKernel
from .base import ModelFamily


class BinaryFamily(ModelFamily):
    """Binary ties: ``TermKernel`` change statistics (the 0 -> 1 change of a tie),
    the counting measure (no reference term in the MH ratio), the proposals of
    :mod:`ergmfit.sampling.space` (whose sample space, constraints included,
    picks and builds them: :meth:`ERGM.sampler`).  This object names what
    exists; it changes no number of the binary engine."""

    name = "binary"
    state = "binary ties"
    kernel_contract = TermKernel
    reference = None
    default_proposal = "auto"
    has_boundary_faces = True

    @property
    def proposals(self):
        """The names of the sample space's proposals (the compiled objects are built by
        the sample space, which adapts them to its constraints): name -> None."""
        return {name: None for name in PROPOSALS}

    def resolve_proposal(self, name) -> str:
        return name if name == "auto" else super().resolve_proposal(name)

    def make_proposal(self, name="auto"):
        raise NotImplementedError("binary proposals depend on the sample space: use "
                                  "ERGM.sampler() (model.sample_space.proposal(...))")

    fixed_density = True
    logistic_pseudo_likelihood = True

    def make_sampler(self, compiled, proposal, seed):
        return MHSampler(compiled, proposal, seed)

    def restore_state(self, compiled, arrays) -> None:
        """Flip the ties that differ from the saved ones (``arrays["x_on"]``)."""
        have = compiled.on_vars()
        # both are distinct variables: no np.unique pass (at Pokec's 30.6 M ties numpy's
        # hash-based unique of each took minutes of a resume's set-up)
        for v in np.setxor1d(have, np.asarray(arrays["x_on"], dtype=np.int64),
                             assume_unique=True):
            compiled.flip_var(int(v))


#: the binary family (one instance: it has no settings)
BINARY = BinaryFamily()
