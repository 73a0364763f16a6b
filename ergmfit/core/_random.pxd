# cython: language_level=3
"""A small, fast PRNG (xoshiro256**) for the compiled loops.

Seeded from numpy's SeedSequence (see ``ergmfit.utils.validation.seed_words``),
so every routine that takes ``random_state`` is reproducible.
"""
from libc.stdint cimport uint64_t, int64_t
from libc.math cimport log

cdef struct RNG:
    uint64_t s0, s1, s2, s3

cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))

cdef inline uint64_t rng_next(RNG* r) noexcept nogil:
    cdef uint64_t result = _rotl(r.s1 * 5, 7) * 9
    cdef uint64_t t = r.s1 << 17
    r.s2 ^= r.s0
    r.s3 ^= r.s1
    r.s1 ^= r.s2
    r.s0 ^= r.s3
    r.s2 ^= t
    r.s3 = _rotl(r.s3, 45)
    return result

cdef inline double word_uniform(uint64_t w) noexcept nogil:
    """The uniform on [0, 1) of the word w (what rng_uniform makes of it)."""
    return (w >> 11) * (1.0 / 9007199254740992.0)

cdef inline double rng_uniform(RNG* r) noexcept nogil:
    """Uniform on [0, 1)."""
    return word_uniform(rng_next(r))

cdef inline double rng_uniform_pos(RNG* r) noexcept nogil:
    """Uniform on (0, 1)."""
    return ((rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0)

cdef inline int64_t rng_below(RNG* r, int64_t n) noexcept nogil:
    """Uniform integer in 0..n-1 (n < 2^53; bias below n / 2^53)."""
    cdef int64_t k = <int64_t>(rng_uniform(r) * n)
    return k if k < n else n - 1

cdef inline void rng_seed(RNG* r, uint64_t a, uint64_t b, uint64_t c, uint64_t d) noexcept nogil:
    r.s0 = a; r.s1 = b; r.s2 = c; r.s3 = d
    if a == 0 and b == 0 and c == 0 and d == 0:
        r.s0 = 0x9E3779B97F4A7C15
