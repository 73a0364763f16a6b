# cython: language_level=3
"""The kernel table of a compiled formula, shared by every family's compiled model
(``ERGMModel``, ``CountERGMModel``): the terms' kernels as borrowed pointers (the
model's list holds the references) and the first statistic of each."""
from cpython.ref cimport PyObject
from libc.stdlib cimport malloc


cdef inline int kernel_table(list kernels, list n_stats, PyObject*** kern,
                             int** offsets) except -1:
    """Allocate kern[0 .. T-1] (the kernels of ``kernels``) and offsets[0 .. T-1]
    (term t's statistics start at offsets[t]; ``n_stats[t]`` of them); the
    caller frees both.  Returns the number of statistics."""
    cdef int t, off = 0, n_terms = len(kernels)
    kern[0] = <PyObject**>malloc(max(1, n_terms) * sizeof(PyObject*))
    offsets[0] = <int*>malloc(max(1, n_terms) * sizeof(int))
    if kern[0] == NULL or offsets[0] == NULL:
        raise MemoryError()
    for t in range(n_terms):
        kern[0][t] = <PyObject*>kernels[t]
        offsets[0][t] = off
        off += <int>n_stats[t]
    return off
