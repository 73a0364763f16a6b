# cython: language_level=3
"""The numbering of a network's dyads as variables (the one ``ERGMModel`` uses):
directed v = i*(n-1) + j - [j > i]; undirected the row-major index of (i, j), i < j."""
from libc.stdint cimport int64_t
from libc.math cimport sqrt


cdef inline int64_t dyad_var(int64_t n, bint directed, int i, int j) noexcept nogil:
    cdef int t
    if directed:
        return <int64_t>i * (n - 1) + j - (1 if j > i else 0)
    if i > j:
        t = i; i = j; j = t
    return <int64_t>i * n - <int64_t>i * (i + 1) // 2 + (j - i - 1)


cdef inline void var_dyad(int64_t n, bint directed, int64_t v, int* i, int* j) noexcept nogil:
    cdef int64_t a, b
    cdef double m
    if directed:
        a = v // (n - 1)
        b = v - a * (n - 1)
        if b >= a:
            b += 1
    else:
        # row a starts at a*n - a*(a+1)/2
        m = 2.0 * n - 1.0
        a = <int64_t>((m - sqrt(m * m - 8.0 * v)) / 2.0)
        if a < 0:
            a = 0
        while a > 0 and a * n - a * (a + 1) // 2 > v:
            a -= 1
        while (a + 1) * n - (a + 1) * (a + 2) // 2 <= v:
            a += 1
        b = v - (a * n - a * (a + 1) // 2) + a + 1
    i[0] = <int>a
    j[0] = <int>b
