"""The binary family: ERGMs of binary ties, as the engine has always run them."""
from __future__ import annotations

import numpy as np

from ..sampling._mh import MHSampler
from ..sampling.space import PROPOSALS
from ..terms._kernel import TermKernel
from .base import ModelFamily


#: variables per block when a checkpoint's ties are restored (``restore_state``)
RESTORE_BLOCK = 1 << 16


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
        """Flip the ties that differ from the saved ones (``arrays["x_on"]``, distinct
        variables, sorted here in place: a set's order means nothing), in ascending order
        of the variable (the order fixes the state's tie list, which IFD draws from: a
        resumed chain's draws depend on it).

        Memory is the point at Pokec's size (30.6 M ties): beside the saved array, one
        sorted array of the current ties (8 bytes a tie), walked together with the saved
        one in windows of at most :data:`RESTORE_BLOCK` of each.  (``np.setxor1d`` of the
        two, the same flips in the same order, had built a sorted concatenation and its
        masks, about 31 bytes a tie: most of the ~1 GB more a resumed full-size run
        peaked at.)"""
        saved = arrays["x_on"]
        if not (isinstance(saved, np.ndarray) and saved.dtype == np.int64
                and saved.ndim == 1 and saved.flags.writeable and saved.flags.c_contiguous):
            saved = np.array(saved, dtype=np.int64).reshape(-1)
        saved.sort()
        have = compiled.on_vars()
        have.sort()
        block = RESTORE_BLOCK
        i = j = 0
        while i < len(have) or j < len(saved):
            # the window ends before the next block's first value of either array: at most
            # a block of each, and every variable of the window's range in both
            ends = [a[k + block] for a, k in ((have, i), (saved, j)) if k + block < len(a)]
            i2, j2 = ((np.searchsorted(have, min(ends)), np.searchsorted(saved, min(ends)))
                      if ends else (len(have), len(saved)))
            now, want = have[i:i2], saved[j:j2]
            flips = np.concatenate([now[~_members(now, want)], want[~_members(want, now)]])
            flips.sort()
            for v in flips.tolist():
                compiled.flip_var(v)
            i, j = int(i2), int(j2)


def _members(values, sorted_set):
    """Which of ``values`` are in the sorted array ``sorted_set`` (binary search)."""
    if not len(sorted_set):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return sorted_set[at] == values


#: the binary family (one instance: it has no settings)
BINARY = BinaryFamily()
