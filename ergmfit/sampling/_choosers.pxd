# cython: language_level=3
cimport numpy as cnp
from libc.stdint cimport int64_t
from ergmfit.core._random cimport RNG


cdef class BlockChooser:
    """Chooses the block of a random-scan blocked Gibbs step.

    ``choose(rng, out)`` writes at most ``max_size`` distinct variables into
    out and returns how many (or -1 on failure).  The choice must not depend
    on the current state, so every blocked Gibbs step leaves p(x | theta)
    invariant.
    """
    cdef readonly int max_size
    cdef readonly int64_t n_vars
    cdef int choose(self, RNG* rng, int64_t* out) noexcept nogil


cdef class ListBlocks(BlockChooser):
    cdef readonly cnp.ndarray flat
    cdef readonly cnp.ndarray offsets
    cdef int64_t* _flat
    cdef int64_t* _off
    cdef readonly int64_t n_blocks
