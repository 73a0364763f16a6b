"""Kernels of the attribute forms of dyad and triad terms: ``mutual(same=, by=)``,
``asymmetric(attr)``, ``triangle(attr=, diff=)``, ``ttriple(attr=)``, ``ctriple(attr=)``.

``code[v]`` is node v's level (< 0: not counted).  A dyad or triad counts only when all its
nodes share the level; with ``diff`` in the statistic of that level, else in statistic 0.
The triad kernels walk the neighbours of the dyad's ends: O(degree), as statnet's.
"""
import numpy as np

from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel

cdef enum:
    _MUTUAL_SAME = 0     # mutual dyads whose ends share the level
    _MUTUAL_BY = 1       # mutual dyads, once for each end's level
    _ASYM = 2            # asymmetric dyads whose ends share the level (code < 0: any)
    _TRI_UND = 3         # undirected triangles
    _TRI_DIR = 4         # directed: transitive + cyclic triples
    _TTRIPLE = 5
    _CTRIPLE = 6
    _INTRANS = 7         # two-paths a->b->c without a->c

KINDS = {"mutual_same": _MUTUAL_SAME, "mutual_by": _MUTUAL_BY, "asym": _ASYM,
         "triangle": _TRI_UND, "dtriangle": _TRI_DIR, "ttriple": _TTRIPLE, "ctriple": _CTRIPLE,
         "intransitive": _INTRANS}


cdef class AttrDyadTriadKernel(TermKernel):
    cdef int kind
    cdef bint diff
    cdef bint anyone
    cdef int[::1] code

    def __cinit__(self, code, int n_stats, str kind, bint diff=False, bint anyone=False):
        self.code = np.ascontiguousarray(code, dtype=np.intc)
        self.n_stats = n_stats
        self.kind = KINDS[kind]
        self.diff = diff
        self.anyone = anyone

    cdef inline int stat(self, int c) noexcept nogil:
        return c if self.diff else 0

    cdef int count_same(self, NetworkState s, int i, int j, int c) noexcept nogil:
        """Triads through the dyad (i, j) whose third node w has level c."""
        cdef int k, w, cnt = 0
        if self.kind == _TRI_UND:
            for k in range(s.out_deg[i]):
                w = s.out_nb[i][k]
                if w != j and self.code[w] == c and s.has_tie(j, w):
                    cnt += 1
            return cnt
        # directed: i -> j is one arc of a triple {i, j, w}
        for k in range(s.out_deg[i]):           # i -> w
            w = s.out_nb[i][k]
            if w == j or self.code[w] != c:
                continue
            if self.kind != _CTRIPLE:
                cnt += s.has_tie(w, j) + s.has_tie(j, w)     # i->w->j, i->w<-j (transitive)
        for k in range(s.in_deg[i]):            # w -> i
            w = s.in_nb[i][k]
            if w == j or self.code[w] != c:
                continue
            if self.kind != _CTRIPLE:
                cnt += s.has_tie(w, j)                       # w->i, w->j (transitive)
            if self.kind != _TTRIPLE:
                cnt += s.has_tie(j, w)                       # j->w->i->j (cyclic)
        return cnt

    cdef double intransitive(self, NetworkState s, int i, int j) noexcept nogil:
        """Change of #{a->b->c, not a->c} for i->j: it closes the two-paths i->w->j and
        opens i->j->w (w not reached by i) and w->i->j (w not reaching j)."""
        cdef int k, w
        cdef double v = 0.0
        for k in range(s.out_deg[j]):
            w = s.out_nb[j][k]
            if w != i and not s.has_tie(i, w):
                v += 1.0
        for k in range(s.in_deg[i]):
            w = s.in_nb[i][k]
            if w != j and not s.has_tie(w, j):
                v += 1.0
        for k in range(s.out_deg[i]):
            w = s.out_nb[i][k]
            if w != j and s.has_tie(w, j):
                v -= 1.0
        return v

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int t, ci = self.code[i], cj = self.code[j]
        cdef bint xji
        for t in range(self.n_stats):
            out[t] = 0.0
        if self.kind == _INTRANS:
            out[0] = self.intransitive(s, i, j)
            return
        if self.kind == _MUTUAL_BY:
            if s.has_tie(j, i):
                if ci >= 0:
                    out[ci] += 1.0
                if cj >= 0:
                    out[cj] += 1.0
            return
        if self.anyone:
            ci = cj = 0
        if ci < 0 or ci != cj:
            return
        if self.kind == _MUTUAL_SAME:
            if s.has_tie(j, i):
                out[self.stat(ci)] = 1.0
            return
        if self.kind == _ASYM:
            out[self.stat(ci)] = -1.0 if s.has_tie(j, i) else 1.0
            return
        out[self.stat(ci)] = self.count_same(s, i, j, ci)


cdef class ThreeTrailKernel(TermKernel):
    """threetrail: 3-trails (walks of three distinct ties, vertices may repeat) counted by
    their middle tie.  Undirected: Σ_{ties j–k} (d_j − 1)(d_k − 1).  Directed, one statistic
    per kept type (middle arc b→c): RRR in(b)·out(c) − x_cb, RRL in(b)(in(c) − 1),
    LRR (out(b) − 1) out(c), LRL (out(b) − 1)(in(c) − 1).  O(degree) per change."""
    cdef int[::1] types

    def __cinit__(self, types):
        self.types = np.ascontiguousarray(types, dtype=np.intc)
        self.n_stats = <int>self.types.shape[0]

    cdef double und(self, NetworkState s, int i, int j) noexcept nogil:
        cdef int x = 1 if s.has_tie(i, j) else 0
        cdef int k, w
        cdef double v = (s.out_deg[i] - x) * <double>(s.out_deg[j] - x)
        for k in range(s.out_deg[i]):
            w = s.out_nb[i][k]
            if w != j:
                v += s.out_deg[w] - 1
        for k in range(s.out_deg[j]):
            w = s.out_nb[j][k]
            if w != i:
                v += s.out_deg[w] - 1
        return v

    cdef double directed(self, NetworkState s, int i, int j, int t) noexcept nogil:
        cdef int x = 1 if s.has_tie(i, j) else 0
        cdef bint xji = s.has_tie(j, i)
        cdef double Ii = s.in_deg[i], Oj = s.out_deg[j]
        cdef double Oi = s.out_deg[i] - x, Ij = s.in_deg[j] - x
        cdef double v
        cdef int k, w
        if t == 0:                                   # RRR
            v = Ii * Oj - xji + (Ij + Oi if xji else 0.0)
            for k in range(s.in_deg[i]):
                w = s.in_nb[i][k]
                if w != j:
                    v += s.in_deg[w]
            for k in range(s.out_deg[j]):
                w = s.out_nb[j][k]
                if w != i:
                    v += s.out_deg[w]
        elif t == 1:                                 # RRL
            v = Ii * Ij
            for k in range(s.in_deg[j]):
                w = s.in_nb[j][k]
                if w != i:
                    v += s.in_deg[w]
            for k in range(s.out_deg[j]):
                v += s.in_deg[s.out_nb[j][k]] - 1
        elif t == 2:                                 # LRR
            v = Oi * Oj
            for k in range(s.out_deg[i]):
                w = s.out_nb[i][k]
                if w != j:
                    v += s.out_deg[w]
            for k in range(s.in_deg[i]):
                v += s.out_deg[s.in_nb[i][k]] - 1
        else:                                        # LRL
            v = Oi * Ij
            for k in range(s.out_deg[i]):
                w = s.out_nb[i][k]
                if w != j:
                    v += s.in_deg[w] - 1
            for k in range(s.in_deg[j]):
                w = s.in_nb[j][k]
                if w != i:
                    v += s.out_deg[w] - 1
        return v

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int t
        for t in range(self.n_stats):
            out[t] = self.directed(s, i, j, self.types[t]) if s.directed else self.und(s, i, j)


cdef class IsolatedEdgesKernel(TermKernel):
    """isolatededges (undirected): ties whose two ends have degree 1.  O(1) per change."""

    def __cinit__(self):
        self.n_stats = 1

    cdef int other_isolated(self, NetworkState s, int v, int other, int x) noexcept nogil:
        """1 if v has (without the tie to ``other``) exactly one neighbour, itself of degree 1."""
        cdef int k, w
        if s.out_deg[v] - x != 1:
            return 0
        for k in range(s.out_deg[v]):
            w = s.out_nb[v][k]
            if w != other:
                return 1 if s.out_deg[w] == 1 else 0
        return 0

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int x = 1 if s.has_tie(i, j) else 0
        cdef double v = 1.0 if (s.out_deg[i] - x == 0 and s.out_deg[j] - x == 0) else 0.0
        v -= self.other_isolated(s, i, j, x) + self.other_isolated(s, j, i, x)
        out[0] = v


cdef class TransitiveTiesKernel(TermKernel):
    """transitiveties on an undirected network: ties i–j with at least one common neighbour
    k (with ``code``: i, j and k of one level).  Adding i–j may count the tie itself and
    the ties i–k, j–k of each matching common neighbour k that had none before: O(degree²)
    per change, as statnet's."""
    cdef int[::1] code

    def __cinit__(self, code):
        self.code = np.ascontiguousarray(code, dtype=np.intc)
        self.n_stats = 1

    cdef int matching(self, NetworkState s, int u, int v, int skip) noexcept nogil:
        """Common neighbours w of u and v (w != skip) of their level (u, v of one level)."""
        cdef int k, w, c = self.code[u], cnt = 0
        for k in range(s.out_deg[u]):
            w = s.out_nb[u][k]
            if w != skip and w != v and self.code[w] == c and s.has_tie(v, w):
                cnt += 1
        return cnt

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int k, w, c = self.code[i]
        cdef double v = 0.0
        out[0] = 0.0
        if c < 0 or self.code[j] != c:
            return
        for k in range(s.out_deg[i]):
            w = s.out_nb[i][k]
            if w == j or self.code[w] != c or not s.has_tie(j, w):
                continue
            v += 1.0 if v == 0 else 0.0                 # the tie i–j itself, once
            if self.matching(s, i, w, j) == 0:
                out[0] += 1.0
            if self.matching(s, j, w, i) == 0:
                out[0] += 1.0
        out[0] += v


cdef class DirectedDyadCovKernel(TermKernel):
    """dyadcov on a directed network: with c the covariate of the pair {a < b} (upper
    triangle), Σ c [mutual], Σ c [b→a only] (utri), Σ c [a→b only] (ltri), as statnet 4.4
    computes them.  O(1)."""
    cdef double[:, ::1] c

    def __cinit__(self, c):
        self.c = np.ascontiguousarray(c, dtype=np.float64)
        self.n_stats = 3

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef double v = self.c[i, j] if i < j else self.c[j, i]
        out[0] = 0.0
        out[1] = 0.0
        out[2] = 0.0
        if s.has_tie(j, i):
            out[0] = v                       # the dyad becomes mutual ...
            out[1 if i < j else 2] = -v      # ... and stops being one-sided
        else:
            out[2 if i < j else 1] = v
