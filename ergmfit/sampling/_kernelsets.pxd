# cython: language_level=3
"""Subsets of a compiled ERGM's term kernels, evaluated without the model's
loop over all of them (the constrained sampler's staged acceptance)."""
from cpython.ref cimport PyObject
from libc.stdlib cimport malloc, free
from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms._ergm cimport ERGMModel


cdef struct KernelSet:
    # some of a model's term kernels: each one's kernel (NULL: a kernel whose one
    # change statistic is always 1, edges), its first statistic and its number
    # of statistics
    int n
    PyObject** kern
    int* off
    int* ns


cdef inline void ks_changes(const KernelSet* ks, NetworkState st, int i, int j,
                            double* row) noexcept nogil:
    """The change statistics of the kernels of ks for the dyad (i, j), into their columns of row."""
    cdef int t
    for t in range(ks.n):
        if ks.kern[t] == NULL:
            row[ks.off[t]] = 1.0
        else:
            (<TermKernel>ks.kern[t]).change(st, i, j, row + ks.off[t])


cdef inline double ks_dot(const KernelSet* ks, const double* theta, const double* row) noexcept nogil:
    """theta . row over the columns of the kernels of ks."""
    cdef double s = 0.0
    cdef int t, c
    for t in range(ks.n):
        for c in range(ks.off[t], ks.off[t] + ks.ns[t]):
            s += theta[c] * row[c]
    return s


cdef inline int ks_init(KernelSet* ks, ERGMModel em, which, unit) except -1:
    """ks: the kernels t of em with which[t] true (free with ks_free); those with
    unit[t] true have one change statistic, always 1 (not called)."""
    cdef int t, m = 0
    ks.kern = <PyObject**>malloc(max(1, em._n_terms) * sizeof(PyObject*))
    ks.off = <int*>malloc(max(1, em._n_terms) * sizeof(int))
    ks.ns = <int*>malloc(max(1, em._n_terms) * sizeof(int))
    if ks.kern == NULL or ks.off == NULL or ks.ns == NULL:
        raise MemoryError()
    for t in range(em._n_terms):
        if which[t]:
            ks.kern[m] = NULL if unit[t] else em._kernels[t]
            ks.off[m] = em._offsets[t]
            ks.ns[m] = (<TermKernel>em._kernels[t]).n_stats
            m += 1
    ks.n = m
    return 0


cdef inline void ks_free(KernelSet* ks) noexcept:
    free(ks.kern)
    free(ks.off)
    free(ks.ns)
    ks.kern = NULL
    ks.off = NULL
    ks.ns = NULL
    ks.n = 0
