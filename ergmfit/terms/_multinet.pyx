# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernels of ergm.multi's operators on stacked networks (:mod:`ergmfit.terms.multinet`).

* :class:`NetworkDesignKernel` -- ``N(~f, lm=~x)``: the inner changes of a toggle in
  network b, times row b of the network-level design X: out[s K + k] = X[b, k] Δf_s;
* :class:`LayerLogicKernel` -- ``L(~f, ~logic)``: the inner terms on the *logical* network
  of stacked layers (a tie a->b where the layer logic of the layers' ties a->b is true),
  kept beside the model's network; the logic is a truth table over the layers' bits.

Both are ``stateful`` compound kernels (see ``_operators.pxd``): the inner kernels follow
every toggle.
"""
import numpy as np

from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms._operators cimport CompoundKernel
from ergmfit.terms._operators import inner_cache_flags


cdef class NetworkDesignKernel(CompoundKernel):
    """out[s * K + k] = X[block[i], k] * (inner change s) for a toggle of (i, j), whose
    nodes lie in one network ``block[i]`` (a block-diagonal sample space)."""
    cdef long[::1] block
    cdef double[:, ::1] X
    cdef int K

    def __init__(self, kernels, block, X):
        self._args = (kernels, block, X)
        self._set_inner(list(kernels))
        self.block = np.ascontiguousarray(block, dtype=np.int_)
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.K = <int>self.X.shape[1]
        self.n_stats = self.n_in * self.K
        self.caches, self.counts_on_demand = inner_cache_flags(kernels)

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int a, k
        cdef long b = self.block[i]
        cdef bint zero = True
        for k in range(self.K):
            if self.X[b, k] != 0.0:
                zero = False
                break
        if zero:                    # a network outside the design (subset=, one layer of L())
            for a in range(self.n_stats):
                out[a] = 0.0
            return
        self.inner_change(s, i, j, self.buf)
        for a in range(self.n_in):
            for k in range(self.K):
                out[a * self.K + k] = self.X[b, k] * self.buf[a]


cdef class LayerLogicKernel(CompoundKernel):
    """The inner terms on the logical network of ``n_layers`` stacked layers of ``base_n``
    nodes each (layer m holds nodes m*base_n .. (m+1)*base_n - 1): the tie a->b is present
    when ``table[bits]`` is nonzero, bit m of ``bits`` being the tie of layer m."""
    cdef int base_n
    cdef int n_layers
    cdef unsigned char[::1] table
    cdef NetworkState aux
    cdef readonly bint aux_directed

    def __init__(self, kernels, int base_n, int n_layers, table, bint aux_directed):
        self._args = (kernels, base_n, n_layers, table, aux_directed)
        self._set_inner(list(kernels))
        self.base_n = base_n
        self.n_layers = n_layers
        self.table = np.ascontiguousarray(table, dtype=np.uint8)
        if self.table.shape[0] != (1 << n_layers):
            raise ValueError("the truth table needs 2**n_layers entries")
        self.aux_directed = aux_directed
        self.n_stats = self.n_in
        self.aux = None

    cdef inline unsigned int bits(self, NetworkState s, int a, int b) noexcept nogil:
        cdef unsigned int m, out = 0
        for m in range(<unsigned int>self.n_layers):
            if s.has_tie(m * self.base_n + a, m * self.base_n + b):
                out |= 1u << m
        return out

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int t, a = i % self.base_n, b = j % self.base_n
        cdef unsigned int layer = i // self.base_n
        cdef unsigned int x = self.bits(s, a, b)
        cdef int on = self.table[x | (1u << layer)], off = self.table[x & ~(1u << layer)]
        if on == off:
            for t in range(self.n_stats):
                out[t] = 0.0
            return
        self.inner_change(self.aux, a, b, out)
        if off:
            for t in range(self.n_stats):
                out[t] = -out[t]

    cdef void toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        cdef int a = i % self.base_n, b = j % self.base_n
        cdef bint want = self.table[self.bits(s, a, b)] != 0
        if want == self.aux.has_tie(a, b):
            return
        if want:
            self.aux.add_tie(a, b)
        else:
            self.aux.remove_tie(a, b)
        self.inner_toggled(self.aux, a, b, want)

    def bind(self, NetworkState state):
        cdef LayerLogicKernel new = LayerLogicKernel(*self._args)
        cdef NetworkState aux = self.bind_inner_on_aux(new, self.base_n, self.aux_directed)
        cdef int a, b
        new.aux = aux
        for i, j in state.ties().tolist():
            a, b = i % self.base_n, j % self.base_n
            if new.table[new.bits(state, a, b)] and not aux.has_tie(a, b):
                aux.add_tie(a, b)
                new.inner_toggled(aux, a, b, True)
        return new


cdef class DyadLayerKernel(TermKernel):
    """A function of each dyad's ties across ``n_layers`` stacked layers of ``base_n`` nodes,
    summed over the dyads {a, b} (a < b) of the node set: the dyad adds ``table[x]``, where
    bit m of x is the tie a->b of layer m and, in a directed network, bit n_layers + m the
    tie b->a (ergm.multi's cross-layer dyad terms: ``mutualL``, ``CMBL``)."""
    cdef int base_n
    cdef int n_layers
    cdef bint directed
    cdef double[::1] table

    def __cinit__(self, int base_n, int n_layers, table, bint directed):
        self.base_n = base_n
        self.n_layers = n_layers
        self.directed = directed
        self.table = np.ascontiguousarray(table, dtype=np.float64)
        if self.table.shape[0] != (1 << (n_layers * (2 if directed else 1))):
            raise ValueError("the dyad table needs 2**n_layers entries (4**n_layers directed)")
        self.n_stats = 1

    cdef inline unsigned int bits(self, NetworkState s, int a, int b) noexcept nogil:
        cdef unsigned int m, out = 0
        for m in range(<unsigned int>self.n_layers):
            if s.has_tie(m * self.base_n + a, m * self.base_n + b):
                out |= 1u << m
        return out

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int a = i % self.base_n, b = j % self.base_n
        cdef unsigned int layer = i // self.base_n, x, flip
        if self.directed:
            if a < b:
                x = self.bits(s, a, b) | (self.bits(s, b, a) << self.n_layers)
                flip = 1u << layer
            else:
                x = self.bits(s, b, a) | (self.bits(s, a, b) << self.n_layers)
                flip = 1u << (layer + self.n_layers)
        else:
            x = self.bits(s, a, b)
            flip = 1u << layer
        out[0] = self.table[x | flip] - self.table[x & ~flip]
