# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Dyads and change statistics of a compiled ERGM's variables, in bulk
(the constrained proposals' free dyads, the MPLE design of a restricted space)."""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t
from ergmfit.terms._ergm cimport ERGMModel

cnp.import_array()


def pairs_of(ERGMModel model, cnp.int64_t[::1] vars):
    """(i, j) of each variable, as an (m, 2) int array."""
    out = np.empty((vars.shape[0], 2), dtype=np.intc)
    cdef int[:, ::1] ov = out
    cdef int64_t r
    cdef int i, j
    for r in range(vars.shape[0]):
        model.dyad(vars[r], &i, &j)
        ov[r, 0] = i
        ov[r, 1] = j
    return out


def change_rows(ERGMModel model, vars):
    """Change statistics and values of the variables ``vars`` at the model's
    state: (X, y) with X[r] = g(x_v=1) - g(x_v=0) of v = vars[r]."""
    cdef cnp.int64_t[::1] vv = np.ascontiguousarray(vars, dtype=np.int64)
    cdef int64_t m = vv.shape[0], r
    cdef int p = model.n_stats
    X = np.zeros((m, max(p, 1)))
    y = np.zeros(m, dtype=np.int8)
    cdef double[:, ::1] Xv = X
    cdef cnp.int8_t[::1] yv = y
    if m and (np.min(vars) < 0 or np.max(vars) >= model.n_vars):
        raise ValueError("variable out of range")
    with nogil:
        for r in range(m):
            model.change(vv[r], &Xv[r, 0])
            yv[r] = model.get(vv[r])
    return X[:, :p], y
