"""Nonlinear functions of other statistics: ``Exp``, ``Log``, ``degcor``,
``degcrossprod``, the tapering penalty ``Taper`` -- and the degree cross-product kernel
they need.

:class:`TransformKernel` keeps the running value S of its inner statistics (bound to the
model's state, updated on every toggle) and gives the change f(S without the tie + Δ) −
f(S without the tie).  A sum of such changes only approximates f(S) (rounding at every
step), so the model asks it for the exact f(S) at the end of
``ERGMModel.add_ties_accumulate`` (``exact_total``): observed statistics are f(S) itself,
S kept exact (an exact inner kernel gives its exact value after every toggle).
"""
from libc.math cimport exp, log, sqrt, INFINITY, NAN

import numpy as np

from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms._operators cimport CompoundKernel

cdef enum:
    _EXP = 0
    _LOG = 1
    _RATIO = 2        # S[0] / (2 S[1]) (0 when S[1] = 0): degcrossprod
    _DEGCOR = 3       # correlation of the degrees at the ends of the ties
    _TRIPCT = 4       # tripercent: 100 T / (K2 - 2 T) per pair (T, K2) of S, in single precision
    _PROD = 5         # Prod: out_t = Π_k S_k^W[t, k] (0^w = 0 for w > 0)
    _TAPER = 6        # Taper: −Σ_k W[0, k] (S_k − W[1, k])² (coefficients τ, centres m)

TRANSFORM_FUNCS = {"exp": _EXP, "log": _LOG, "ratio": _RATIO, "degcor": _DEGCOR,
         "tripercent": _TRIPCT, "prod": _PROD,
         "taper": _TAPER}


cdef class DegreeProductKernel(TermKernel):
    """Σ_{ties i–j} d_i d_j (undirected).  Adding i–j (degrees d_i, d_j without it) adds
    (d_i + 1)(d_j + 1) for the new tie and d_w for every other tie i–w and j–w: O(degree)."""

    def __cinit__(self):
        self.n_stats = 1

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int x = 1 if s.has_tie(i, j) else 0
        cdef int di = s.out_deg[i] - x, dj = s.out_deg[j] - x, k, w
        cdef double v = (di + 1.0) * (dj + 1.0)
        for k in range(s.out_deg[i]):
            w = s.out_nb[i][k]
            if w != j:
                v += s.out_deg[w]
        for k in range(s.out_deg[j]):
            w = s.out_nb[j][k]
            if w != i:
                v += s.out_deg[w]
        out[0] = v


cdef class TransformKernel(CompoundKernel):
    """out = f(S0 + Δ) − f(S0), S0 the inner statistics without the tie.

    S is the running inner statistics (``run``, exact mode of :class:`CompoundKernel`):
    bound to the model's state, updated after every toggle once the inner kernels have
    followed it (a nested nonlinear kernel's segment of S is its exact value)."""
    cdef int func
    cdef double log0
    cdef double[::1] S0
    cdef double[:, ::1] W

    def __init__(self, kernels, str func, empty, double log0=0.0, int n_out=0, W=None):
        self._args = (kernels, func, empty, log0, n_out, W)
        self.W = np.ascontiguousarray(W if W is not None else np.zeros((1, 1)), dtype=np.float64)
        self._set_inner(list(kernels))
        self.func = TRANSFORM_FUNCS[func]
        self.log0 = log0
        self._track(empty)
        self.S0 = np.array(self.run, dtype=np.float64)
        self.n_stats = n_out if n_out else self.n_in

    cdef double f(self, double* S, int t) noexcept nogil:
        cdef double e, m, var
        cdef int k
        if self.func == _EXP:
            return exp(S[t])
        if self.func == _LOG:
            return log(S[t]) if S[t] > 0 else self.log0
        if self.func == _RATIO:
            return S[0] / (2.0 * S[1]) if S[1] != 0 else 0.0
        if self.func == _TRIPCT:
            # statnet 4.4 rounds the ratio to single precision (float) before the 100 x
            e = S[2 * t + 1] - 2.0 * S[2 * t]
            return 100.0 * <double>(<float>(S[2 * t] / e)) if e > 0 else 0.0
        if self.func == _TAPER:
            m = 0.0
            for k in range(self.n_in):
                e = S[k] - self.W[1, k]
                m -= self.W[0, k] * e * e
            return m
        if self.func == _PROD:
            m = 0.0
            for k in range(self.n_in):
                if self.W[t, k] == 0:
                    continue
                if S[k] <= 0:
                    return (0.0 if self.W[t, k] > 0 else INFINITY) if S[k] == 0 else NAN
                m += self.W[t, k] * log(S[k])
            return exp(m)
        # degcor: S = [Σ_ties d_i d_j, Σ_v d², Σ_v d³, ties]
        e = S[3]
        if e == 0:
            return 0.0
        m = S[1] / (2.0 * e)
        var = S[2] / (2.0 * e) - m * m
        if var <= 0:
            return 0.0
        return (S[0] / e - m * m) / var

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int t
        cdef bint on = s.has_tie(i, j)
        self.inner_change(s, i, j, self.buf)
        for t in range(self.n_in):
            self.S0[t] = self.run[t] - (self.buf[t] if on else 0.0)
        for t in range(self.n_stats):
            out[t] = -self.f(&self.S0[0], t)
        for t in range(self.n_in):
            self.S0[t] += self.buf[t]
        for t in range(self.n_stats):
            out[t] += self.f(&self.S0[0], t)

    cdef void toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        self.track(s, i, j, added)

    cdef void exact_values(self, double* out) noexcept nogil:
        cdef int t
        for t in range(self.n_stats):
            out[t] = self.f(&self.run[0], t)

    def bind(self, NetworkState state):
        cdef TransformKernel new = TransformKernel(*self._args)
        new._set_inner([k.bind(state) for k in self.inner])
        new._bind_run(state)
        return new
