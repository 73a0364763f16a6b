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


from ergmfit.sampling._choosers cimport BlockChooser, ListBlocks  # noqa (re-exported)
