# cython: language_level=3
"""Small numeric helpers shared by the kernels."""


cdef inline double choose(int d, int r) noexcept nogil:
    """Binomial coefficient C(d, r) as a double (exact below 2**53); 0 outside 0 <= r <= d."""
    cdef double res = 1.0
    cdef int t
    if r < 0 or r > d:
        return 0.0
    if r > d - r:
        r = d - r
    for t in range(1, r + 1):
        res = res * (d - r + t) / t     # res = C(d - r + t, t): exact integer steps
    return res
