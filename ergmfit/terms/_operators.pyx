# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernels of the operator terms: they hold the kernels of an inner formula.

* :class:`LinearKernel` -- W times the inner changes (``Sum``, ``Label``, ``Offset``,
  ``Passthrough``, ``Curve``, ``For``: W = identity or a weight matrix);
* :class:`ProductKernel` -- products of two dyad-independent terms' changes (``a:b``);
* :class:`SubnetKernel` -- the inner terms evaluated on a derived network kept beside the
  model's: the ties passing a dyadic filter (``F``, ``NodematchFilter``), the subgraph
  induced by some nodes (``S``), the two-mode network of the ties from one node set to
  another (``S(f, tails ~ heads)``), or the symmetrised network (``Symmetrize``).

Every one of them is ``stateful``: the model binds a copy to its state (so buffers and
derived networks are never shared between models or threads) and tells it of every toggle;
a derived network is updated in O(1) per toggle (plus whatever its inner kernels do).
"""
from cpython.ref cimport PyObject
from libc.stdlib cimport malloc, free

import numpy as np

from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel

cdef enum:
    _FILTER = 0
    _SUB = 1
    _SYM = 2
    _BIP = 3

cdef enum:
    _WEAK = 0
    _STRONG = 1
    _UPPER = 2
    _LOWER = 3

SUBNET_MODES = {"filter": _FILTER, "sub": _SUB, "sym": _SYM, "bip": _BIP}
SYM_RULES = {"weak": _WEAK, "strong": _STRONG, "upper": _UPPER, "lower": _LOWER}


cdef class CompoundKernel(TermKernel):
    """Base: the inner kernels, their offsets and a change buffer (see _operators.pxd)."""

    def __cinit__(self, *args, **kwargs):
        self.k = NULL
        self.off = NULL
        self.buf = NULL
        self.stateful = True

    def __dealloc__(self):
        free(self.k)
        free(self.off)
        free(self.buf)

    cdef _set_inner(self, list kernels):
        cdef int t, o = 0
        free(self.k); free(self.off); free(self.buf)
        self.inner = list(kernels)
        self.n_k = len(kernels)
        self.k = <PyObject**>malloc(max(1, self.n_k) * sizeof(PyObject*))
        self.off = <int*>malloc(max(1, self.n_k) * sizeof(int))
        for t in range(self.n_k):
            kk = self.inner[t]
            if not isinstance(kk, TermKernel):
                raise TypeError("inner kernels must be TermKernel instances")
            self.k[t] = <PyObject*>kk
            self.off[t] = o
            o += (<TermKernel>kk).n_stats
        self.n_in = o
        self.buf = <double*>malloc(max(1, o) * sizeof(double))
        if self.k == NULL or self.off == NULL or self.buf == NULL:
            raise MemoryError()
        self.exact_idx = np.array([t for t in range(self.n_k)
                                   if getattr(self.inner[t], "exact_total", False)], dtype=np.intc)

    cdef NetworkState bind_inner_on_aux(self, CompoundKernel new, int n, bint directed):
        """A new auxiliary network of ``n`` nodes with the caches this kernel's inner kernels
        need; ``new``'s inner kernels become them bound to it (an operator's ``bind``)."""
        cdef NetworkState aux = NetworkState(n, directed)
        caches, on_demand = inner_cache_flags(self.inner)
        if caches:
            if not on_demand:
                aux.cache_degree = 0.0
            aux.enable_caches(caches)
        new._set_inner([k.bind(aux) for k in self.inner])
        return aux

    cdef _track(self, empty):
        """Exact mode: keep the running inner statistics, starting from ``empty``."""
        self.exact_total = True
        self.run_empty = np.array(empty, dtype=np.float64).reshape(-1)
        if self.run_empty.shape[0] != self.n_in:
            raise ValueError("empty must hold one value per inner statistic")
        self.run = np.array(self.run_empty, dtype=np.float64)

    cdef void track(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        """Exact mode, after the toggle of (i, j) in ``s``: the inner kernels follow first,
        so that their changes are taken in a consistent state; then the running totals."""
        cdef int t, q
        self.inner_toggled(s, i, j, added)
        self.inner_change(s, i, j, self.buf)
        for t in range(self.n_in):
            self.run[t] += self.buf[t] if added else -self.buf[t]
        for q in range(self.exact_idx.shape[0]):
            t = self.exact_idx[q]
            (<CompoundKernel>self.k[t]).exact_values(&self.run[self.off[t]])

    cdef void exact_values(self, double* out) noexcept nogil:
        """The exact statistics (exact mode): here the inner ones."""
        cdef int t
        for t in range(self.n_stats):
            out[t] = self.run[t]

    def _bind_run(self, NetworkState state):
        # the running inner statistics of ``state``'s ties: an exact inner kernel's segment
        # is its absolute value (add_ties_accumulate from the empty graph gives it)
        from ergmfit.terms._ergm import ERGMModel
        cdef int q, t
        fresh = ERGMModel(NetworkState(state.n, state.directed), list(self.inner))
        ties = np.ascontiguousarray(state.ties(), dtype=np.int64).reshape(-1, 2)
        acc = fresh.add_ties_accumulate(ties)
        run = np.asarray(self.run_empty) + acc
        for q in range(self.exact_idx.shape[0]):
            t = self.exact_idx[q]
            run[self.off[t]:self.off[t] + self.inner[t].n_stats] = \
                acc[self.off[t]:self.off[t] + self.inner[t].n_stats]
        self.run = np.ascontiguousarray(run, dtype=np.float64)

    def values(self):
        """The exact statistics of the bound state (exact mode)."""
        out = np.zeros(self.n_stats)
        cdef double[::1] o = out
        if self.n_stats:
            self.exact_values(&o[0])
        return out

    cdef void inner_change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int t
        for t in range(self.n_k):
            (<TermKernel>self.k[t]).change(s, i, j, out + self.off[t])

    cdef void inner_toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        cdef int t
        for t in range(self.n_k):
            if (<TermKernel>self.k[t]).stateful:
                (<TermKernel>self.k[t]).toggled(s, i, j, added)

    cdef void toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        if self.exact_total:
            self.track(s, i, j, added)
        else:
            self.inner_toggled(s, i, j, added)

    def bind(self, state):
        new = type(self)(*self._args)
        (<CompoundKernel>new)._set_inner([k.bind(state) for k in self.inner])
        if self.exact_total:
            (<CompoundKernel>new)._track(self.run_empty)
            new._bind_run(state)
        return new


def inner_cache_flags(kernels):
    """(caches, counts_on_demand) that a compound kernel over ``kernels`` needs."""
    caches, on_demand = 0, True
    for k in kernels:
        caches |= k.caches
        if k.caches and not k.counts_on_demand:
            on_demand = False
    return caches, on_demand


cdef class LinearKernel(CompoundKernel):
    """out = W · (inner changes); W is n_out x n_in (None: the identity).

    Over a nonlinear (exact) inner kernel, given the inner terms' ``empty`` values, it is
    exact too: its values() are W times the exact inner statistics (so Sum(2 ~ Log(~f)) is
    2 log f, not a sum of changes out of log0 = -2^26)."""
    cdef double[:, ::1] W
    cdef bint ident

    def __init__(self, kernels, W=None, empty=None):
        self._args = (kernels, W, empty)
        self._set_inner(list(kernels))
        self.ident = W is None
        if W is None:
            W = np.eye(self.n_in)
        self.W = np.ascontiguousarray(W, dtype=np.float64).reshape(-1, self.n_in)
        self.n_stats = <int>self.W.shape[0]
        self.caches, self.counts_on_demand = inner_cache_flags(kernels)
        if empty is not None and self.exact_idx.shape[0]:
            self._track(empty)

    cdef void exact_values(self, double* out) noexcept nogil:
        cdef int a, b
        cdef double v
        for a in range(self.n_stats):
            v = 0.0
            for b in range(self.n_in):
                if self.W[a, b] != 0:
                    v += self.W[a, b] * self.run[b]
            out[a] = v

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int a, b
        cdef double v
        if self.ident:
            self.inner_change(s, i, j, out)
            return
        self.inner_change(s, i, j, self.buf)
        for a in range(self.n_stats):
            v = 0.0
            for b in range(self.n_in):
                v += self.W[a, b] * self.buf[b]
            out[a] = v


cdef class ProductKernel(CompoundKernel):
    """Interaction a:b of dyad-independent terms: out[p + n_a q] = Δa_p Δb_q."""
    cdef int na

    def __init__(self, ka, kb):
        self._args = (ka, kb)
        self._set_inner([ka, kb])
        self.na = ka.n_stats
        self.n_stats = ka.n_stats * kb.n_stats

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int p, q, nb = self.n_in - self.na
        self.inner_change(s, i, j, self.buf)
        for q in range(nb):
            for p in range(self.na):
                out[p + self.na * q] = self.buf[p] * self.buf[self.na + q]


cdef class SubnetKernel(CompoundKernel):
    """The inner terms on a derived network ``aux`` (see the module docstring).

    ``mode`` "filter": the ties (i, j) with mask[i * n + j] != 0; "sub": the subgraph of
    the nodes with nmap[v] >= 0 (renumbered nmap[v]); "bip": the undirected two-mode
    network of the ties from a tail (nmap[v] >= 0, mode 1) to a head (hmap[v] >= 0, already
    numbered after the tails), in either orientation when the network is undirected (the
    two sets are disjoint); "sym": the undirected network of ``rule`` (weak: i->j or j->i;
    strong: both; upper/lower: the tie of the upper/lower triangle).
    """
    cdef int mode
    cdef int rule
    cdef int n
    cdef unsigned char[::1] mask
    cdef int[::1] nmap
    cdef int[::1] hmap
    cdef NetworkState aux
    cdef readonly int aux_n
    cdef readonly bint aux_directed

    def __init__(self, kernels, str mode, int n, mask=None, nmap=None, str rule="weak",
                 int aux_n=0, bint aux_directed=False, empty=None, hmap=None):
        self._args = (kernels, mode, n, mask, nmap, rule, aux_n, aux_directed, empty, hmap)
        self._set_inner(list(kernels))
        if empty is not None and self.exact_idx.shape[0]:
            self._track(empty)      # over a nonlinear kernel: exact values (see LinearKernel)
        self.mode = SUBNET_MODES[mode]
        self.rule = SYM_RULES[rule]
        self.n = n
        self.mask = np.ascontiguousarray(mask if mask is not None else np.zeros(1),
                                         dtype=np.uint8).reshape(-1)
        self.nmap = np.ascontiguousarray(nmap if nmap is not None else np.zeros(1),
                                         dtype=np.intc)
        self.hmap = np.ascontiguousarray(hmap if hmap is not None else np.zeros(1),
                                         dtype=np.intc)
        self.aux_n = aux_n
        self.aux_directed = aux_directed
        self.n_stats = self.n_in
        self.aux = None

    cdef inline bint map(self, NetworkState s, int i, int j, int* a, int* b) noexcept nogil:
        cdef bint xji
        if self.mode == _FILTER:
            if not self.mask[<Py_ssize_t>i * self.n + j]:
                return False
            a[0] = i; b[0] = j
            return True
        if self.mode == _SUB:
            a[0] = self.nmap[i]; b[0] = self.nmap[j]
            return a[0] >= 0 and b[0] >= 0
        if self.mode == _BIP:
            a[0] = self.nmap[i]; b[0] = self.hmap[j]
            if a[0] >= 0 and b[0] >= 0:
                return True
            if s.directed:
                return False
            a[0] = self.nmap[j]; b[0] = self.hmap[i]
            return a[0] >= 0 and b[0] >= 0
        # symmetrise: does x_ij change the undirected tie {i, j}?
        if i < j:
            a[0] = i; b[0] = j
        else:
            a[0] = j; b[0] = i
        if self.rule == _UPPER:
            return i < j
        if self.rule == _LOWER:
            return i > j
        xji = s.has_tie(j, i)
        return (not xji) if self.rule == _WEAK else xji

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int a, b, t
        if not self.map(s, i, j, &a, &b):
            for t in range(self.n_stats):
                out[t] = 0.0
            return
        self.inner_change(self.aux, a, b, out)

    cdef void toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        cdef int a, b
        if not self.map(s, i, j, &a, &b):
            return
        if added:
            self.aux.add_tie(a, b)
        else:
            self.aux.remove_tie(a, b)
        if self.exact_total:
            self.track(self.aux, a, b, added)
        else:
            self.inner_toggled(self.aux, a, b, added)

    def bind(self, NetworkState state):
        cdef SubnetKernel new = SubnetKernel(*self._args)
        cdef NetworkState aux = self.bind_inner_on_aux(new, self.aux_n, self.aux_directed)
        cdef int a, b
        new.aux = aux
        for i, j in state.ties().tolist():
            if new.mode == _SYM:
                if not new._sym_on(state, i, j):
                    continue
                a, b = min(i, j), max(i, j)
            elif not new.map(state, i, j, &a, &b):
                continue
            if not aux.has_tie(a, b):
                aux.add_tie(a, b)
                new.inner_toggled(aux, a, b, True)
        if new.exact_total:
            new._bind_run(aux)
        return new

    cdef bint _sym_on(self, NetworkState s, int i, int j):
        cdef int a = min(i, j), b = max(i, j)
        cdef bint up = s.has_tie(a, b), low = s.has_tie(b, a)
        if self.rule == _WEAK:
            return up or low
        if self.rule == _STRONG:
            return up and low
        if self.rule == _UPPER:
            return up
        return low
