# cython: language_level=3
"""Transforms h(y) of one dyad value, shared by the valued terms of count-valued models
(``_valued.pyx``) and of ``Project()`` (``_projection.pxi`` in ``_coreterms``): statnet's valued terms of the
value alone are sums over the dyads of h(y_ij)."""
from libc.math cimport pow, fabs, lgamma

cdef enum:
    H_POW = 0          # y^p (p = 1: y)
    H_NONZERO = 1      # y != 0
    H_ATLEAST = 2      # y >= a
    H_ATMOST = 3       # y <= a
    H_GREATER = 4      # y > a
    H_SMALLER = 5      # y < a
    H_EQUAL = 6        # |y - a| <= b
    H_INTERVAL = 7     # a <(=) y <(=) b; c: lower open, d: upper open
    H_LFACT = 8        # log(y!) (statnet's CMP)
    H_LFACT_REST = 9   # log((a - y)!) (statnet's CMB, uncoupled)
    H_CMB = 10         # log(y!) + log((a - y)!) (statnet's CMB)


cdef inline double transform(int h, const double* a, double y) noexcept nogil:
    if h == H_POW:
        if a[0] == 1.0:
            return y
        return pow(y, a[0])
    if h == H_NONZERO:
        return 1.0 if y != 0.0 else 0.0
    if h == H_ATLEAST:
        return 1.0 if y >= a[0] else 0.0
    if h == H_ATMOST:
        return 1.0 if y <= a[0] else 0.0
    if h == H_GREATER:
        return 1.0 if y > a[0] else 0.0
    if h == H_SMALLER:
        return 1.0 if y < a[0] else 0.0
    if h == H_EQUAL:
        return 1.0 if fabs(y - a[0]) <= a[1] else 0.0
    if h == H_LFACT:
        return lgamma(y + 1.0)
    if h == H_LFACT_REST:
        return lgamma(a[0] - y + 1.0)
    if h == H_CMB:
        return lgamma(y + 1.0) + lgamma(a[0] - y + 1.0)
    # H_INTERVAL
    if (y <= a[0]) if a[2] != 0.0 else (y < a[0]):
        return 0.0
    if (y >= a[1]) if a[3] != 0.0 else (y > a[1]):
        return 0.0
    return 1.0
