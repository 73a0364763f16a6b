# cython: language_level=3
cimport numpy as cnp
from libc.stdint cimport int64_t
from ergmfit.core._model cimport BinaryModel
from ergmfit.core._random cimport RNG
from ergmfit.terms._ergm cimport ERGMModel


cdef int64_t conditional_draw(const double* D, double* w, int64_t n, int p,
                              const double* theta, RNG* rng, double* delta, double* expect,
                              double* logp) noexcept nogil
cdef int64_t conditional_draw_masked(const double* D, double* w, int64_t n, int p,
                                     const double* theta, const unsigned char* ok, RNG* rng,
                                     double* delta, double* expect, double* logp) noexcept nogil


cdef class BlockKernel:
    """Exact draws and expectations of a block x_A given the rest, x_-A.

    ``update(m, block, k, theta, rng, delta, expect, logp)`` works on the
    variables block[0..k-1] (distinct) of the model m at its current state x:

    * ``logp``   (if not NULL): log p(x_A | x_-A, theta) of the current x_A;
    * ``expect`` (if not NULL): E[g(X) | x_-A, theta] - g(x);
    * ``rng``    (if not NULL): draws x_A' from p(. | x_-A, theta) and leaves
      the model there, writing g(x') - g(x) into ``delta`` (if not NULL);
      with rng == NULL the state is left as it was.

    Returns 0, -1 (out of memory) or -2 (block larger than ``max_size``).
    Subclasses: :class:`Enumeration` (any BinaryModel, 2^k configurations
    by Gray-code flips); the MRF submodule adds forward-backward over
    chain/tree blocks of a pairwise model with the same signature.
    """
    cdef readonly int max_size
    cdef int update(self, BinaryModel m, const int64_t* block, int k, const double* theta,
                    RNG* rng, double* delta, double* expect, double* logp) noexcept nogil


cdef class Enumeration(BlockKernel):
    cdef double* D          # 2^k x p statistic differences g(x_A = x_A XOR s) - g(x)
    cdef double* w          # 2^k weights
    cdef double* buf        # p
    cdef int cap_k
    cdef int cap_p
    cdef int _ensure(self, int p, int k) noexcept nogil
    cdef int64_t walk(self, BinaryModel m, const int64_t* block, int k, int p) noexcept nogil
    cdef int update_with(self, BinaryModel m, const int64_t* block, int k, const double* theta,
                         const unsigned char* ok, RNG* rng, double* delta, double* expect,
                         double* logp) noexcept nogil


# the block choosers (_choosers.pxi, included in _blocks.pyx)

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
