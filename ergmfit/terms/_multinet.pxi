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


cdef inline unsigned int layer_bits(NetworkState s, int n, int n_layers, int a,
                                    int b) noexcept nogil:
    """Bit m set when layer m of the stacked network (n nodes per layer) has the tie a -> b."""
    cdef unsigned int m, out = 0
    for m in range(<unsigned int>n_layers):
        if s.has_tie(m * n + a, m * n + b):
            out |= 1u << m
    return out

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
    cdef readonly bint tie_free

    def __init__(self, kernels, int base_n, int n_layers, table, bint aux_directed,
                 bint tie_free=False):
        self._args = (kernels, base_n, n_layers, table, aux_directed, tie_free)
        self._set_inner(list(kernels))
        self.base_n = base_n
        self.n_layers = n_layers
        self.table = np.ascontiguousarray(table, dtype=np.uint8)
        if self.table.shape[0] != (1 << n_layers):
            raise ValueError("the truth table needs 2**n_layers entries")
        self.aux_directed = aux_directed
        self.n_stats = self.n_in
        self.aux = None
        # inner kernels that read no tie (edges, node and dyadic covariates): no logical
        # layer to keep, so no copy per model and nothing to follow on a toggle (their
        # changes are taken on the model's own state, which they do not read)
        self.tie_free = tie_free
        if tie_free:
            self.stateful = False

    cdef inline unsigned int bits(self, NetworkState s, int a, int b) noexcept nogil:
        return layer_bits(s, self.base_n, self.n_layers, a, b)

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int t, a = i % self.base_n, b = j % self.base_n
        cdef unsigned int layer = i // self.base_n
        cdef unsigned int x = self.bits(s, a, b)
        cdef int on = self.table[x | (1u << layer)], off = self.table[x & ~(1u << layer)]
        if on == off:
            for t in range(self.n_stats):
                out[t] = 0.0
            return
        if self.tie_free:
            self.inner_change(s, a, b, out)
        else:
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
        return layer_bits(s, self.base_n, self.n_layers, a, b)

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


# the shared-partner types of SharedPartnerLayerKernel and its pair kinds
cdef enum:
    SP_UTP = 0
    SP_OTP = 1
    SP_ITP = 2
    SP_OSP = 3
    SP_ISP = 4
LAYER_SP_TYPES = {"UTP": SP_UTP, "OTP": SP_OTP, "ITP": SP_ITP, "OSP": SP_OSP, "ISP": SP_ISP}
LAYER_SP_KINDS = {"edge": 0, "dyad": 1, "nonedge": 2}


cdef class SharedPartnerLayerKernel(TermKernel):
    """ergm.multi's shared partners on layers (``despL``, ``ddspL``, ``dnspL`` and their
    geometrically weighted forms): sum over the pairs (i, j) -- ordered when directed --
    of w(base(i, j)) H[sp(i, j), :], where base is the logical layer ``tb`` at (i, j), w
    selects ties (kind 0), every pair (1) or non-ties (2), and sp(i, j) counts the nodes k
    whose two ties with i and j (t1, t2 by the type: OTP i->k, k->j; ITP j->k, k->i; OSP
    i->k, j->k; ISP k->i, k->j; UTP i-k, k-j) are in the path logics: t1 in ``t1`` and t2
    in ``t2`` (``in_order``), or either way round.  The logics are truth tables over the
    layer bits of a tie.  The kernel keeps sp of every pair (an n x n table) and updates
    the O(n) pairs a toggle touches."""
    cdef int n, n_layers, sptype, kind
    cdef bint directed, in_order
    cdef unsigned char[::1] tb, t1, t2
    cdef double[:, ::1] H
    cdef int[:, ::1] sp
    cdef int[::1] mark
    cdef int stamp
    cdef object _args

    def __init__(self, int n, int n_layers, int sptype, int kind, tb, t1, t2, bint in_order,
                 H, bint directed):
        self._args = (n, n_layers, sptype, kind, tb, t1, t2, in_order, H, directed)
        self.n, self.n_layers, self.sptype, self.kind = n, n_layers, sptype, kind
        self.tb = np.ascontiguousarray(tb, dtype=np.uint8)
        self.t1 = np.ascontiguousarray(t1, dtype=np.uint8)
        self.t2 = np.ascontiguousarray(t2, dtype=np.uint8)
        self.in_order, self.directed = in_order, directed
        self.H = np.ascontiguousarray(H, dtype=np.float64)
        if self.H.shape[0] < max(n - 1, 1):
            raise ValueError("H needs a row for every partner count 0 .. n-2")
        self.n_stats = <int>self.H.shape[1]
        self.stateful = True
        self.sp = np.zeros((n, n), dtype=np.int32)
        self.mark = np.zeros(n, dtype=np.int32)
        self.stamp = 0

    cdef inline unsigned int bits(self, NetworkState s, int a, int b) noexcept nogil:
        if not self.directed and a > b:
            return layer_bits(s, self.n, self.n_layers, b, a)
        return layer_bits(s, self.n, self.n_layers, a, b)

    cdef void visit(self, NetworkState s, int x, bint out_ties, int role, int u, int v,
                    unsigned int xb, unsigned int xa, bint present, double* out,
                    bint update) noexcept nogil:
        """The pairs of ``walk`` through the nodes w tied to x (x->w when ``out_ties``,
        else w->x) in some layer: the other tie of a two-path must be in a layer for the
        toggled tie to change the pair's partners (a logic never holds where no layer has
        a tie).  ``role`` says which pairs (see ``walk``)."""
        cdef int m, t, w, deg, node
        cdef int* nb
        cdef unsigned int o
        self.stamp += 1
        if self.stamp == 2147483647:
            self.mark[:] = 0
            self.stamp = 1
        for m in range(self.n_layers):
            node = m * self.n + x
            deg = s.odeg(node) if out_ties else s.ideg(node)
            nb = s.onb(node) if out_ties else s.inb(node)
            for t in range(deg):
                w = nb[t] - m * self.n
                if w == u or w == v or self.mark[w] == self.stamp:
                    continue
                self.mark[w] = self.stamp
                if role == 0:            # OTP: pair (u, w) via u->v->w
                    o = self.bits(s, v, w)
                    self.pair(s, u, w, self.partner(xa, o) - self.partner(xb, o), present, out, update)
                elif role == 1:          # OTP: pair (w, v) via w->u->v
                    o = self.bits(s, w, u)
                    self.pair(s, w, v, self.partner(o, xa) - self.partner(o, xb), present, out, update)
                elif role == 2:          # ITP: pair (w, u) via u->v->w
                    o = self.bits(s, v, w)
                    self.pair(s, w, u, self.partner(xa, o) - self.partner(xb, o), present, out, update)
                elif role == 3:          # ITP: pair (v, w) via w->u->v
                    o = self.bits(s, w, u)
                    self.pair(s, v, w, self.partner(o, xa) - self.partner(o, xb), present, out, update)
                elif role == 4:          # OSP: pairs (u, w), (w, u) via u->v, w->v
                    o = self.bits(s, w, v)
                    self.pair(s, u, w, self.partner(xa, o) - self.partner(xb, o), present, out, update)
                    self.pair(s, w, u, self.partner(o, xa) - self.partner(o, xb), present, out, update)
                else:                    # ISP: pairs (v, w), (w, v) via u->v, u->w
                    o = self.bits(s, u, w)
                    self.pair(s, v, w, self.partner(xa, o) - self.partner(xb, o), present, out, update)
                    self.pair(s, w, v, self.partner(o, xa) - self.partner(o, xb), present, out, update)

    cdef inline int partner(self, unsigned int a, unsigned int b) noexcept nogil:
        """Whether the ties of bits a (the pair's first two-path tie) and b (the second)
        make a partner."""
        if self.in_order:
            return self.t1[a] & self.t2[b]
        return (self.t1[a] & self.t2[b]) | (self.t2[a] & self.t1[b])

    cdef inline double weight(self, int base) noexcept nogil:
        if self.kind == 0:
            return <double>base
        if self.kind == 1:
            return 1.0
        return <double>(1 - base)

    cdef inline void pair(self, NetworkState s, int i, int j, int d, bint present,
                          double* out, bint update) noexcept nogil:
        """The pair (i, j) gains d partners by the toggle: its contribution's change into
        out (from the state without the tie; ``present``: the state has it now), or its
        count updated."""
        cdef int a = i, b = j, c, t
        cdef double w
        if d == 0:
            return
        if not self.directed and a > b:
            a, b = j, i
        if update:
            self.sp[a, b] += d
            return
        c = self.sp[a, b] - (d if present else 0)
        w = self.weight(self.tb[self.bits(s, a, b)])
        if w == 0.0:
            return
        for t in range(self.n_stats):
            out[t] += w * (self.H[c + d, t] - self.H[c, t])

    cdef void walk(self, NetworkState s, int u, int v, unsigned int xb, unsigned int xa,
                   bint present, double* out, bint update) noexcept nogil:
        """Every pair whose partner count the tie u->v changes (bits xb -> xa)."""
        cdef int w
        cdef unsigned int o
        if self.directed:
            if self.sptype == SP_OTP:
                self.visit(s, v, True, 0, u, v, xb, xa, present, out, update)
                self.visit(s, u, False, 1, u, v, xb, xa, present, out, update)
            elif self.sptype == SP_ITP:
                self.visit(s, v, True, 2, u, v, xb, xa, present, out, update)
                self.visit(s, u, False, 3, u, v, xb, xa, present, out, update)
            elif self.sptype == SP_OSP:
                self.visit(s, v, False, 4, u, v, xb, xa, present, out, update)
            else:
                self.visit(s, u, True, 5, u, v, xb, xa, present, out, update)
            return
        for w in range(self.n):
            if w == u or w == v:
                continue
            if self.sptype == SP_OTP:        # pair (u, w) via u->v->w; pair (w, v) via w->u->v
                o = self.bits(s, v, w)
                self.pair(s, u, w, self.partner(xa, o) - self.partner(xb, o), present, out, update)
                o = self.bits(s, w, u)
                self.pair(s, w, v, self.partner(o, xa) - self.partner(o, xb), present, out, update)
            elif self.sptype == SP_ITP:      # pair (w, u): u->v->w; pair (v, w): w->u->v
                o = self.bits(s, v, w)
                self.pair(s, w, u, self.partner(xa, o) - self.partner(xb, o), present, out, update)
                o = self.bits(s, w, u)
                self.pair(s, v, w, self.partner(o, xa) - self.partner(o, xb), present, out, update)
            elif self.sptype == SP_OSP:      # pairs (u, w) and (w, u): u->v, w->v
                o = self.bits(s, w, v)
                self.pair(s, u, w, self.partner(xa, o) - self.partner(xb, o), present, out, update)
                self.pair(s, w, u, self.partner(o, xa) - self.partner(o, xb), present, out, update)
            elif self.sptype == SP_ISP:      # pairs (v, w) and (w, v): u->v, u->w
                o = self.bits(s, u, w)
                self.pair(s, v, w, self.partner(xa, o) - self.partner(xb, o), present, out, update)
                self.pair(s, w, v, self.partner(o, xa) - self.partner(o, xb), present, out, update)
            else:                            # UTP: pair {u, w} via v, pair {v, w} via u
                o = self.bits(s, v, w)
                self.pair(s, u, w, self.partner(xa, o) - self.partner(xb, o), present, out, update)
                o = self.bits(s, u, w)
                self.pair(s, v, w, self.partner(xa, o) - self.partner(xb, o), present, out, update)

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int u = i % self.n, v = j % self.n, t, c
        cdef unsigned int flip = 1u << (i // self.n)
        cdef unsigned int x = self.bits(s, u, v)
        cdef unsigned int xb = x & ~flip, xa = x | flip
        cdef bint present = (x & flip) != 0
        cdef double dw
        for t in range(self.n_stats):
            out[t] = 0.0
        dw = self.weight(self.tb[xa]) - self.weight(self.tb[xb])
        if dw != 0.0:                        # the pair's own base tie
            c = self.sp[u, v] if (self.directed or u < v) else self.sp[v, u]
            for t in range(self.n_stats):
                out[t] += dw * self.H[c, t]
        if self.t1[xa] != self.t1[xb] or self.t2[xa] != self.t2[xb]:
            self.walk(s, u, v, xb, xa, present, out, False)

    cdef void toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil:
        cdef int u = i % self.n, v = j % self.n
        cdef unsigned int flip = 1u << (i // self.n)
        cdef unsigned int xa = self.bits(s, u, v)
        cdef unsigned int xb = (xa & ~flip) if added else (xa | flip)
        if self.t1[xa] != self.t1[xb] or self.t2[xa] != self.t2[xb]:
            self.walk(s, u, v, xb, xa, False, NULL, True)

    cdef void count_all(self, NetworkState s) noexcept nogil:
        cdef int a, b, k
        cdef unsigned int p, q
        for a in range(self.n):
            for b in range(self.n):
                if a == b or (not self.directed and b < a):
                    continue
                self.sp[a, b] = 0
                for k in range(self.n):
                    if k == a or k == b:
                        continue
                    if self.sptype == SP_OTP:
                        p, q = self.bits(s, a, k), self.bits(s, k, b)
                    elif self.sptype == SP_ITP:
                        p, q = self.bits(s, b, k), self.bits(s, k, a)
                    elif self.sptype == SP_OSP:
                        p, q = self.bits(s, a, k), self.bits(s, b, k)
                    elif self.sptype == SP_ISP:
                        p, q = self.bits(s, k, a), self.bits(s, k, b)
                    else:
                        p, q = self.bits(s, a, k), self.bits(s, k, b)
                    self.sp[a, b] += self.partner(p, q)

    def bind(self, NetworkState state):
        cdef SharedPartnerLayerKernel new = SharedPartnerLayerKernel(*self._args)
        with nogil:
            new.count_all(state)
        return new


cdef enum:
    STAR_OUT = 0
    STAR_IN = 1
    STAR_PATH = 2
    STAR_ANY = 3
LAYER_STAR_TYPES = {"out": STAR_OUT, "in": STAR_IN, "path": STAR_PATH, "any": STAR_ANY}


cdef class TwoStarLayerKernel(TermKernel):
    """ergm.multi's ``twostarL(Ls, type, distinct)``: the configurations of two ties at a
    node i, the first in logical layer ``t1`` and the second in ``t2`` -- out: i->j, i->k;
    in: j->i, k->i; path: j->i, i->k; any (undirected): i-j, i-k -- with j != k when
    ``distinct``.  As sums over nodes: sum_i A_i B_i minus the coincident pairs (j = k), A
    and B the degrees of the two logical layers that the type names; the degrees are
    counted from the layers' ties at each change (O(n L))."""
    cdef int n, n_layers, mode
    cdef bint distinct, directed
    cdef unsigned char[::1] t1, t2
    cdef int[::1] mark
    cdef int stamp

    def __cinit__(self, int n, int n_layers, int mode, t1, t2, bint distinct, bint directed):
        self.n, self.n_layers, self.mode = n, n_layers, mode
        self.mark = np.zeros(n, dtype=np.int32)
        self.stamp = 0
        self.t1 = np.ascontiguousarray(t1, dtype=np.uint8)
        self.t2 = np.ascontiguousarray(t2, dtype=np.uint8)
        self.distinct, self.directed = distinct, directed
        self.n_stats = 1

    cdef inline unsigned int bits(self, NetworkState s, int a, int b) noexcept nogil:
        if not self.directed and a > b:
            return layer_bits(s, self.n, self.n_layers, b, a)
        return layer_bits(s, self.n, self.n_layers, a, b)

    cdef inline double degree(self, NetworkState s, int u, bint out_ties,
                              unsigned char[::1] table) noexcept nogil:
        cdef int w, m, t, deg, node
        cdef int* nb
        cdef double d = 0.0
        if not self.directed:
            for w in range(self.n):
                if w != u:
                    d += table[self.bits(s, u, w)]
            return d
        # directed: only the nodes tied to u in some layer (a logic is false without a tie)
        self.stamp += 1
        if self.stamp == 2147483647:
            self.mark[:] = 0
            self.stamp = 1
        for m in range(self.n_layers):
            node = m * self.n + u
            deg = s.odeg(node) if out_ties else s.ideg(node)
            nb = s.onb(node) if out_ties else s.inb(node)
            for t in range(deg):
                w = nb[t] - m * self.n
                if self.mark[w] == self.stamp:
                    continue
                self.mark[w] = self.stamp
                d += table[self.bits(s, u, w) if out_ties else self.bits(s, w, u)]
        return d

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int u = i % self.n, v = j % self.n
        cdef unsigned int flip = 1u << (i // self.n)
        cdef unsigned int x = self.bits(s, u, v)
        cdef unsigned int xb = x & ~flip, xa = x | flip
        cdef double d1 = <double>self.t1[xa] - self.t1[xb]
        cdef double d2 = <double>self.t2[xa] - self.t2[xb]
        cdef double A, B, total = 0.0
        cdef unsigned int back
        cdef int c
        if d1 == 0.0 and d2 == 0.0:
            out[0] = 0.0
            return
        if self.mode == STAR_PATH:
            # j->i in t1 (in-degree of the head), i->k in t2 (out-degree of the tail): the
            # tie u->v is the first tie at v and the second tie at u
            total = d1 * self.degree(s, v, True, self.t2) + d2 * self.degree(s, u, False, self.t1)
            if self.distinct:
                back = self.bits(s, v, u)
                total -= d1 * self.t2[back] + d2 * self.t1[back]
            out[0] = total
            return
        for c in range(1 if self.directed else 2):
            if self.mode == STAR_IN:
                A = self.degree(s, v, False, self.t1) - self.t1[x] + self.t1[xb]
                B = self.degree(s, v, False, self.t2) - self.t2[x] + self.t2[xb]
            else:                          # out, or node u / v of an undirected tie
                A = self.degree(s, u if c == 0 else v, True, self.t1) - self.t1[x] + self.t1[xb]
                B = self.degree(s, u if c == 0 else v, True, self.t2) - self.t2[x] + self.t2[xb]
            total += (A + d1) * (B + d2) - A * B
            if self.distinct:
                total -= <double>(self.t1[xa] & self.t2[xa]) - (self.t1[xb] & self.t2[xb])
        out[0] = total
