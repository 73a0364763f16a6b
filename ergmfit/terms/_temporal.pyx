# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernel of tergm's temporal operators (``Form``, ``Persist``, ``Diss``, ``Cross``,
``Change``): the inner terms on a network derived from the previous network y⁻ and the
model's network y, the previous network held as a dyadic indicator (a NetworkState: O(1)
lookup).

===========  ===================  ==========================================================
operator     derived network      a toggle of (i, j) in y
===========  ===================  ==========================================================
``Form``     y⁻ ∪ y               toggles (i, j) in it unless (i, j) ∈ y⁻ (then no change)
``Persist``  y⁻ ∩ y               toggles (i, j) in it if (i, j) ∈ y⁻ (else no change)
``Diss``     y⁻ ∩ y, negated      as ``Persist``, statistics times −1
``Cross``    y                    toggles (i, j)
``Change``   y⁻ △ y               toggles (i, j) the other way when (i, j) ∈ y⁻
===========  ===================  ==========================================================

The derived network starts (``bind``) from the operator's network for the empty y (y⁻ for
``Form`` and ``Change``, the empty graph otherwise) and follows every toggle in O(1) plus
what its inner kernels do.
"""
import numpy as np

from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms._operators cimport CompoundKernel
from ergmfit.terms._operators import inner_cache_flags

cdef enum:
    _FORM = 0
    _PERSIST = 1
    _CROSS = 2
    _CHANGE = 3

#: operator name -> (mode, sign of the statistics)
TEMPORAL_MODES = {"Form": (_FORM, 1.0), "Persist": (_PERSIST, 1.0), "Diss": (_PERSIST, -1.0),
                  "Cross": (_CROSS, 1.0), "Change": (_CHANGE, 1.0)}


cdef class TemporalKernel(CompoundKernel):
    """The inner ``kernels`` on the derived network of ``operator`` (see the module
    docstring) given the previous network's ties ``previous`` ((m, 2) node indices of the
    model's network of ``n`` nodes).  ``empty``: the inner terms' values on the empty graph
    (for the exact mode of nonlinear inner kernels, as :class:`LinearKernel`)."""
    cdef int mode
    cdef double sign
    cdef int n
    cdef bint directed
    cdef NetworkState prev
    cdef NetworkState aux
    cdef object previous

    def __init__(self, kernels, str operator, int n, bint directed, previous, empty=None):
        self._args = (kernels, operator, n, directed, previous, empty)
        if operator not in TEMPORAL_MODES:
            raise ValueError(f"unknown temporal operator {operator!r}")
        self._set_inner(list(kernels))
        if empty is not None and self.exact_idx.shape[0]:
            self._track(empty)
        self.mode, self.sign = TEMPORAL_MODES[operator]
        self.n = n
        self.directed = directed
        self.previous = np.ascontiguousarray(previous, dtype=np.int64).reshape(-1, 2)
        self.prev = NetworkState(n, directed, self.previous)
        self.n_stats = self.n_in
        self.caches, self.counts_on_demand = inner_cache_flags(kernels)
        self.aux = None

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int t
        cdef bint was = self.prev.has_tie(i, j)
        if (self.mode == _FORM and was) or (self.mode == _PERSIST and not was):
            for t in range(self.n_stats):
                out[t] = 0.0
            return
        self.inner_change(self.aux, i, j, out)
        if self.mode == _CHANGE and was:        # adding (i, j) to y removes it from y⁻ △ y
            for t in range(self.n_stats):
                out[t] = -out[t]
        if self.sign != 1.0:
            for t in range(self.n_stats):
                out[t] = self.sign * out[t]

    cdef void toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        cdef bint was = self.prev.has_tie(i, j)
        if (self.mode == _FORM and was) or (self.mode == _PERSIST and not was):
            return
        if self.mode == _CHANGE and was:
            added = not added
        if added:
            self.aux.add_tie(i, j)
        else:
            self.aux.remove_tie(i, j)
        if self.exact_total:
            self.track(self.aux, i, j, added)
        else:
            self.inner_toggled(self.aux, i, j, added)

    cdef void exact_values(self, double* out) noexcept nogil:
        cdef int t
        for t in range(self.n_stats):
            out[t] = self.sign * self.run[t]

    def bind(self, NetworkState state):
        cdef TemporalKernel new = TemporalKernel(*self._args)
        cdef NetworkState aux = self.bind_inner_on_aux(new, self.n, self.directed)
        cdef int i, j
        new.aux = aux
        if new.mode == _FORM or new.mode == _CHANGE:        # the derived network of y = ∅
            for i, j in new.previous.tolist():
                if not aux.has_tie(i, j):
                    aux.add_tie(i, j)
                    new.inner_toggled(aux, i, j, True)
        for i, j in state.ties().tolist():
            if (new.mode == _FORM and new.prev.has_tie(i, j)) or \
                    (new.mode == _PERSIST and not new.prev.has_tie(i, j)):
                continue
            if new.mode == _CHANGE and new.prev.has_tie(i, j):
                aux.remove_tie(i, j)
                new.inner_toggled(aux, i, j, False)
            else:
                aux.add_tie(i, j)
                new.inner_toggled(aux, i, j, True)
        if new.exact_total:
            new._bind_run(aux)
        return new
