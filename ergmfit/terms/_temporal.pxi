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

``advance(state)`` starts the next time step of a dynamic simulation in place: the current
network becomes the previous one (y⁻ := y) and the derived network follows (y⁻ ∪ y and
y⁻ ∩ y both become y, y⁻ △ y empty), in O(ties of y⁻ and y) compiled work, so that one bound
model runs a whole simulation (:mod:`ergmfit.temporal.chain`).
"""
import numpy as np
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free

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
        self._derived(i, j, added, NULL)

    cdef void exact_values(self, double* out) noexcept nogil:
        cdef int t
        for t in range(self.n_stats):
            out[t] = self.sign * self.run[t]

    cdef void _derived(self, int i, int j, bint added, double* acc) noexcept nogil:
        # (i, j) enters (added) or leaves the derived network; acc (when not NULL) gains
        # the change of the operator's statistics (linear mode; acc[n_stats:] is scratch)
        cdef int t
        cdef double* row = acc + self.n_stats
        if acc != NULL and not self.exact_total:
            self.inner_change(self.aux, i, j, row)
            for t in range(self.n_stats):
                acc[t] += self.sign * row[t] if added else -self.sign * row[t]
        if added:
            self.aux.add_tie(i, j)
        else:
            self.aux.remove_tie(i, j)
        if self.exact_total:
            self.track(self.aux, i, j, added)
        else:
            self.inner_toggled(self.aux, i, j, added)

    def advance(self, NetworkState state, changed=None):
        """Make ``state`` (the network this bound kernel follows) the previous network of
        the next transition: y⁻ := y, the derived network updated in place.  Returns the
        change of the operator's statistics (those of y⁻ → y before, of y → y after).

        ``changed``: an (r, 2) array of dyads holding every dyad where y and y⁻ differ
        (the caller's flips since the last advance, each once): O(r) instead of the
        O(ties) comparison of the two networks."""
        cdef int64_t m_prev = self.prev.n_ties, m_cur = state.n_ties, e, k = 0, n_gone = 0
        cdef const int64_t[:, ::1] ch = np.zeros((1, 2), dtype=np.int64)
        cdef int64_t n_ch = 0
        cdef bint by_list = changed is not None
        if by_list:
            ch = np.ascontiguousarray(changed, dtype=np.int64).reshape(-1, 2)
            n_ch = ch.shape[0]
            m_prev = m_cur = n_ch       # the gone/came buffers' sizes
        cdef int* gone
        cdef int* came
        cdef int i, j, t
        cdef double[::1] acc = np.zeros(2 * max(1, self.n_stats))
        cdef double[::1] before = np.zeros(max(1, self.n_stats))
        if self.aux is None:
            raise ValueError("advance() needs a bound kernel (ERGMModel(...).kernels)")
        if self.exact_total:
            self.exact_values(&before[0])
        gone = <int*>malloc(max(1, 2 * m_prev) * sizeof(int))
        came = <int*>malloc(max(1, 2 * m_cur) * sizeof(int))
        if gone == NULL or came == NULL:
            free(gone)
            free(came)
            raise MemoryError()
        with nogil:
            if by_list:
                m_prev = 0
                m_cur = 0
            for e in range(n_ch):
                i = <int>ch[e, 0]
                j = <int>ch[e, 1]
                if self.prev.has_tie(i, j) and not state.has_tie(i, j):
                    gone[2 * n_gone] = i
                    gone[2 * n_gone + 1] = j
                    n_gone += 1
                elif state.has_tie(i, j) and not self.prev.has_tie(i, j):
                    came[2 * k] = i
                    came[2 * k + 1] = j
                    k += 1
            for e in range(m_prev):                 # ties of y⁻ that y has not
                i = self.prev.ends[2 * e]
                j = self.prev.ends[2 * e + 1]
                if not state.has_tie(i, j):
                    gone[2 * n_gone] = i
                    gone[2 * n_gone + 1] = j
                    n_gone += 1
            for e in range(m_cur):                  # ties of y that y⁻ has not
                i = state.ends[2 * e]
                j = state.ends[2 * e + 1]
                if not self.prev.has_tie(i, j):
                    came[2 * k] = i
                    came[2 * k + 1] = j
                    k += 1
            for e in range(n_gone):
                i = gone[2 * e]
                j = gone[2 * e + 1]
                self.prev.remove_tie(i, j)
                if self.mode == _FORM or self.mode == _CHANGE:   # it leaves y⁻ ∪ y, y⁻ △ y
                    self._derived(i, j, False, &acc[0])
            for e in range(k):
                i = came[2 * e]
                j = came[2 * e + 1]
                self.prev.add_tie(i, j)
                if self.mode == _PERSIST:                        # it enters y⁻ ∩ y
                    self._derived(i, j, True, &acc[0])
                elif self.mode == _CHANGE:                       # it leaves y⁻ △ y
                    self._derived(i, j, False, &acc[0])
        free(gone)
        free(came)
        out = np.asarray(acc)[:self.n_stats].copy()
        if self.exact_total:
            self.exact_values(&acc[0])
            for t in range(self.n_stats):
                out[t] = acc[t] - before[t]
        return out

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
