"""Kernels of the two-mode terms that look past the dyad's degrees: shared partners of
same-mode pairs (``b1dsp``, ``gwb1dsp``), homophilous two-paths (``b1nodematch``), two-star
and k-star mixing (``b1twostar``, ``b1starmix``) and their mode-2 twins.

On a two-mode network nodes 0..n1-1 are mode 1 and a dyad is (i, j) with i < n1 <= j, so i
is the mode-1 end.  ``side`` 1 makes a kernel look at mode-1 pairs or stars centred on mode
1 (through the neighbours of j), ``side`` 2 the mirror image.  Every change is
O(degree) (the shared-partner kernels O(degree) two-path counts, as in statnet).
"""
from libc.math cimport pow

import numpy as np

from ergmfit.network._state cimport NetworkState, CACHE_SP
from ergmfit.terms._kernel cimport TermKernel
from ergmfit.terms._combin cimport choose




cdef class BipartiteSPKernel(TermKernel):
    """b1dsp / b2dsp (counts of same-mode pairs with exactly d shared partners, one statistic
    per d) and gwb1dsp / gwb2dsp (Σ_pairs e^α (1 − r^sp), r = 1 − e^−α: ``gw``).  With
    ``cut`` > 0 the gw sum runs over the pairs with 1 ≤ sp ≤ cut only (statnet 4.4's fixed
    gwb*dsp: weights on b*dsp(1:cutoff)); pairs with more shared partners add nothing."""
    cdef int side
    cdef bint gw
    cdef double r
    cdef int cut
    cdef double top
    cdef int[::1] ds

    def __cinit__(self, int side, ds=None, double r=0.0, bint gw=False, int cut=0):
        self.side = side
        self.gw = gw
        self.r = r
        self.cut = cut
        # the weight of a pair at the cut-off, e^α (1 − r^cut) = (1 − r^cut) / (1 − r)
        self.top = (1.0 - r ** cut) / (1.0 - r) if (gw and cut > 0 and r < 1.0) else float(cut)
        self.ds = np.ascontiguousarray(ds if ds is not None else [0], dtype=np.intc)
        self.n_stats = 1 if gw else <int>self.ds.shape[0]
        self.caches = CACHE_SP
        self.counts_on_demand = False

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int x = 1 if s.has_tie(i, j) else 0
        cdef int own = i if self.side == 1 else j        # the node whose pairs change
        cdef int mid = j if self.side == 1 else i        # their new shared partner
        cdef int k, w, sp, t, d
        for t in range(self.n_stats):
            out[t] = 0.0
        for k in range(s.out_deg[mid]):
            w = s.out_nb[mid][k]
            if w == own:
                continue
            sp = s.n_sp(own, w) - x
            if self.gw:
                # the pair goes from sp to sp + 1 shared partners; its weight from
                # w(sp) to w(sp + 1), with w(k + 1) − w(k) = r^k below the cut-off
                if self.cut == 0 or sp < self.cut:
                    out[0] += pow(self.r, sp)
                elif sp == self.cut:
                    out[0] -= self.top
            else:
                for t in range(self.n_stats):
                    d = self.ds[t]
                    if sp == d:
                        out[t] -= 1.0
                    elif sp + 1 == d:
                        out[t] += 1.0


cdef inline double _pw(double x, double p) noexcept nogil:
    """x^p with 0^p = 0 also for p = 0, as statnet's b1nodematch counts (a pair without
    shared partners, a tie without matching two-paths, adds nothing)."""
    return 0.0 if x == 0.0 else pow(x, p)


cdef class BipartiteMatchKernel(TermKernel):
    """b1nodematch / b2nodematch: two-paths u–v–w between same-mode nodes of one level.

    ``mode`` 0: the number of such two-paths (statistic of u's level with ``diff``, of v's
    level ``mid[v]`` with byb*attr); ``mode`` 1 (alpha): Σ_{matching pairs} sp^α (with
    byb*attr: per middle level L, sp counting the shared partners of level L); ``mode`` 2
    (beta): ½ Σ_{ties (u, v)} m(u, v)^β, m(u, v) = #{w ≠ u : w ~ v, a_w = a_u}; 0^p = 0.
    ``code[u]`` is u's statistic (< 0: not counted), ``mid`` (optional) the middle node's;
    with ``mid`` and ``stride`` > 0 (diff=TRUE with byb*attr) the statistic is
    ``code[u] * stride + mid[v]``.
    """
    cdef int side
    cdef int mode
    cdef double p
    cdef int[::1] code
    cdef int[::1] mid
    cdef bint has_mid
    cdef int stride

    def __cinit__(self, int side, code, int n_stats, int mode=0, double p=1.0, mid=None,
                  int stride=0):
        self.side = side
        self.mode = mode
        self.p = p
        self.stride = stride
        self.code = np.ascontiguousarray(code, dtype=np.intc)
        self.mid = np.ascontiguousarray(mid if mid is not None else code, dtype=np.intc)
        self.n_stats = n_stats
        self.has_mid = mid is not None
        if mode == 1:
            self.caches = CACHE_SP
            self.counts_on_demand = False

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int x = 1 if s.has_tie(i, j) else 0
        cdef int own = i if self.side == 1 else j
        cdef int v = j if self.side == 1 else i
        cdef int c = self.code[own]
        cdef int k, q, w, z, t, m = 0, sp
        cdef double tot = 0.0
        for t in range(self.n_stats):
            out[t] = 0.0
        if c < 0:
            return
        for k in range(s.out_deg[v]):
            w = s.out_nb[v][k]
            if w == own or self.code[w] != c:
                continue
            m += 1
            if self.mode == 1:
                if self.has_mid:
                    # byb*attr: shared partners of own and w at middle nodes of v's level
                    sp = 0
                    for q in range(s.out_deg[own]):
                        z = s.out_nb[own][q]
                        if z != v and self.mid[z] == self.mid[v] and \
                                (s.has_tie(w, z) if self.side == 1 else s.has_tie(z, w)):
                            sp += 1
                else:
                    sp = s.n_sp(own, w) - x
                tot += _pw(sp + 1.0, self.p) - _pw(<double>sp, self.p)
        if self.mode == 0:
            tot = m
        elif self.mode == 2:
            tot = 0.0
            if m > 0:
                tot = 0.5 * _pw(<double>m, self.p) + \
                    0.5 * m * (_pw(<double>m, self.p) - _pw(m - 1.0, self.p))
        if self.has_mid:
            t = self.mid[v]
            if t >= 0:
                out[t + c * self.stride] = tot
        else:
            out[c if self.n_stats > 1 else 0] = tot


cdef class BipartiteStarMixKernel(TermKernel):
    """Stars centred on one mode by the levels of centre and leaves.

    ``k`` == 0 (b1twostar / b2twostar): two-stars, statistic ``cell[centre, leaf1, leaf2]``
    (a table of nc x nl x nl, symmetric in the leaves, < 0: not counted); ``k`` >= 1
    (b1starmix / b2starmix): k-stars whose leaves all have one level, statistic
    ``cell[centre, leaf, leaf]``.
    """
    cdef int side
    cdef int k
    cdef int nl
    cdef int[::1] ccode
    cdef int[::1] lcode
    cdef int[::1] cell

    def __cinit__(self, int side, int k, ccode, lcode, cell, int nl, int n_stats):
        self.side = side
        self.k = k
        self.nl = nl
        self.ccode = np.ascontiguousarray(ccode, dtype=np.intc)
        self.lcode = np.ascontiguousarray(lcode, dtype=np.intc)
        self.cell = np.ascontiguousarray(np.asarray(cell).ravel(), dtype=np.intc)
        self.n_stats = n_stats

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int centre = i if self.side == 1 else j
        cdef int leaf = j if self.side == 1 else i
        cdef int cc = self.ccode[centre], lc = self.lcode[leaf]
        cdef int q, w, t, same = 0, nl = self.nl
        for t in range(self.n_stats):
            out[t] = 0.0
        if cc < 0 or lc < 0:
            return
        for q in range(s.out_deg[centre]):
            w = s.out_nb[centre][q]
            if w == leaf or self.lcode[w] < 0:
                continue
            if self.k == 0:
                t = self.cell[(cc * nl + lc) * nl + self.lcode[w]]
                if t >= 0:
                    out[t] += 1.0
            elif self.lcode[w] == lc:
                same += 1
        if self.k > 0:
            t = self.cell[(cc * nl + lc) * nl + lc]
            if t >= 0:
                out[t] += choose(same, self.k - 1)
