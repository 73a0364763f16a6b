# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Block conditionals under degree bounds (``bd``): :class:`DegreeBounded`.

Given the rest of the network a block's configurations that put some degree
outside its bounds have probability 0 under the constrained ERGM; the others
keep their unconstrained weights.  The kernel marks the feasible ones while it
walks the 2^k configurations (Gray-code order, as :class:`Enumeration`) from
the degrees of the block's end nodes, and hands the mask to
:func:`conditional_draw_masked`: blocked CD and blocked Gibbs sample with it,
MCLE (:func:`ergmfit.estimation.contrastive.blocks.degree_feasibility`) reads the masks.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy

from ergmfit.core._model cimport BinaryModel
from ergmfit.core._random cimport RNG
from ergmfit.terms._ergm cimport ERGMModel
from ergmfit.sampling._blocks cimport Enumeration

cnp.import_array()

cdef extern from *:
    """
    static inline int ergmfit_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int ergmfit_ctz64(unsigned long long x) noexcept nogil


cdef class DegreeBounded(Enumeration):
    """Exact block conditionals under degree bounds (``bd``): the 2^k
    configurations of :class:`Enumeration`, of which those that put a node's
    degree, or its number of ties to (out) / from (in) the alters of a class
    (``bd(attribs=)``), outside its bounds given the rest of the network get
    probability 0.  For an ERGMModel on ``n`` nodes.

    Parameters
    ----------
    max_size : int
    lo_out, hi_out, lo_in, hi_in : int arrays of n values (undirected: the
        degree bounds are lo_out/hi_out, the in-bounds are not used)
    directed : bool
    attribs : (n, K) bool or None, the alters' classes of ``bd(attribs=)``
    alo_out, ahi_out, alo_in, ahi_in : (n, K) int bounds per node and class

    Feasibility is tracked along the Gray-code order with the degrees (and
    class counts) of the block's end nodes: one piece of code for blocked CD
    (``update``) and MCLE (:meth:`feasible`).
    """

    def __cinit__(self, int max_size=12, lo_out=None, hi_out=None, lo_in=None, hi_in=None,
                  bint directed=False, attribs=None, alo_out=None, ahi_out=None, alo_in=None,
                  ahi_in=None):
        cdef Py_ssize_t n, v, K = 0
        arrs = [np.ascontiguousarray(a, dtype=np.intc).ravel() for a in
                (lo_out, hi_out, lo_in if directed else lo_out, hi_in if directed else hi_out)]
        n = arrs[0].shape[0]
        if any(a.shape[0] != n for a in arrs):
            raise ValueError("the degree bounds need one value per node")
        if attribs is not None:
            att = np.ascontiguousarray(attribs, dtype=np.uint8)
            if att.ndim != 2 or att.shape[0] != n:
                raise ValueError("attribs must be an (n, K) matrix")
            K = att.shape[1]
            cls = [np.ascontiguousarray(b, dtype=np.intc).reshape(n, K).ravel() for b in
                   (alo_out, ahi_out, alo_in if directed else alo_out,
                    ahi_in if directed else ahi_out)]
        self.n_nodes = <int>n
        self.K = <int>K
        self.directed = directed
        self.lo = <int*>malloc(max(1, 2 * n * (1 + K)) * sizeof(int))
        self.hi = <int*>malloc(max(1, 2 * n * (1 + K)) * sizeof(int))
        self.att = <unsigned char*>malloc(max(1, n * K))
        self.scratch = <int*>malloc(max(1, (9 + 4 * K) * max_size) * sizeof(int))
        self.ok = NULL
        self.cap_ok = -1
        if self.lo == NULL or self.hi == NULL or self.att == NULL or self.scratch == NULL:
            raise MemoryError()
        for v in range(n):
            self.lo[v] = arrs[0][v]
            self.hi[v] = arrs[1][v]
            self.lo[n + v] = arrs[2][v]
            self.hi[n + v] = arrs[3][v]
        # class bounds after the degree bounds: out (n x K), then in (n x K)
        for v in range(n * K):
            self.att[v] = att.ravel()[v]
            self.lo[2 * n + v] = cls[0][v]
            self.hi[2 * n + v] = cls[1][v]
            self.lo[2 * n + n * K + v] = cls[2][v]
            self.hi[2 * n + n * K + v] = cls[3][v]

    def __dealloc__(self):
        free(self.lo); free(self.hi); free(self.ok); free(self.scratch); free(self.att)

    cdef int count(self, ERGMModel m, int a, int c, bint inward) noexcept nogil:
        """The number of a's out- (``inward``: in-) neighbours of class c."""
        cdef int t, cnt = 0, d = m.state.ideg(a) if inward else m.state.odeg(a)
        cdef int* nb = m.state.inb(a) if inward else m.state.onb(a)
        for t in range(d):
            cnt += self.att[nb[t] * self.K + c]
        return cnt

    cdef int mask(self, ERGMModel m, const int64_t* block, int k) noexcept nogil:
        """ok[s] for the 2^k configurations s of the block at m's state (bit b:
        block[b] flipped).  Returns 0 or -1 (out of memory)."""
        cdef int64_t n = (<int64_t>1) << k, t, cur = 0, bit
        cdef int b, u, nu = 0, a, c, d, e, nbad = 0, K = self.K
        cdef int i, j
        cdef void* ptr
        # scratch ((9 + 4K) k ints): node[2k], dout[2k], din[2k], tail[k], sgn[k],
        # head[k], cout[2k K], cin[2k K] (class counts of the end nodes)
        cdef int* node = self.scratch
        cdef int* dout = node + 2 * k
        cdef int* din = dout + 2 * k
        cdef int* tail = din + 2 * k
        cdef int* sgn = tail + k
        cdef int* ends = sgn + k
        cdef int* cout = ends + k
        cdef int* cin = cout + 2 * k * K
        if k > self.cap_ok:
            ptr = realloc(self.ok, n * sizeof(unsigned char))
            if ptr == NULL:
                return -1
            self.ok = <unsigned char*>ptr
            self.cap_ok = k
        for b in range(k):
            m.dyad(block[b], &i, &j)
            sgn[b] = -1 if m.get(block[b]) else 1
            for e in range(2):
                a = i if e == 0 else j
                u = 0
                while u < nu and node[u] != a:
                    u += 1
                if u == nu:
                    node[u] = a
                    dout[u] = m.state.odeg(a)
                    din[u] = m.state.ideg(a) if self.directed else dout[u]
                    for c in range(K):
                        cout[u * K + c] = self.count(m, a, c, False)
                        cin[u * K + c] = (self.count(m, a, c, True) if self.directed
                                          else cout[u * K + c])
                    nu += 1
                if e == 0:
                    tail[b] = u
                else:
                    ends[b] = u
        for u in range(nu):
            nbad += self._bad(node[u], dout[u], din[u], cout + u * K, cin + u * K)
        self.ok[0] = nbad == 0
        for t in range(1, n):
            b = ergmfit_ctz64(<unsigned long long>t)
            bit = (<int64_t>1) << b
            d = sgn[b] if (cur & bit) == 0 else -sgn[b]
            a = tail[b]
            e = ends[b]
            nbad -= (self._bad(node[a], dout[a], din[a], cout + a * K, cin + a * K)
                     + self._bad(node[e], dout[e], din[e], cout + e * K, cin + e * K))
            dout[a] += d
            din[e] += d
            if not self.directed:
                din[a] += d
                dout[e] += d
            for c in range(K):
                if self.att[node[e] * K + c]:         # the head is an alter of class c
                    cout[a * K + c] += d
                    if not self.directed:
                        cin[a * K + c] += d
                if self.att[node[a] * K + c]:         # the tail is an alter of class c
                    cin[e * K + c] += d
                    if not self.directed:
                        cout[e * K + c] += d
            nbad += (self._bad(node[a], dout[a], din[a], cout + a * K, cin + a * K)
                     + self._bad(node[e], dout[e], din[e], cout + e * K, cin + e * K))
            cur ^= bit
            self.ok[cur] = nbad == 0
        return 0

    cdef int _bad(self, int v, int dout, int din, const int* co, const int* ci) noexcept nogil:
        cdef int N = self.n_nodes, K = self.K, c, o = 2 * N + v * K, o2 = 2 * N + N * K + v * K
        if dout < self.lo[v] or dout > self.hi[v] or din < self.lo[N + v] or din > self.hi[N + v]:
            return 1
        for c in range(K):
            if (co[c] < self.lo[o + c] or co[c] > self.hi[o + c] or ci[c] < self.lo[o2 + c]
                    or ci[c] > self.hi[o2 + c]):
                return 1
        return 0

    cdef int update(self, BinaryModel m, const int64_t* block, int k, const double* theta,
                    RNG* rng, double* delta, double* expect, double* logp) noexcept nogil:
        if k < 0 or k > self.max_size:
            return -2
        if self.mask(<ERGMModel>m, block, k) != 0:
            return -1
        return self.update_with(m, block, k, theta, self.ok, rng, delta, expect, logp)

    def check_model(self, BinaryModel model):
        """An error unless ``model`` is an ERGMModel on the kernel's nodes."""
        if not isinstance(model, ERGMModel) or (<ERGMModel>model).state.n != self.n_nodes \
                or (<ERGMModel>model).state.directed != self.directed:
            raise ValueError(f"DegreeBounded kernel: the model must be an ERGM on "
                             f"{self.n_nodes} nodes "
                             f"({'directed' if self.directed else 'undirected'})")

    def feasible(self, BinaryModel model, blocks):
        """(C, 2^k) bool: whether each configuration of each row of ``blocks``
        (bit b: the row's b-th variable flipped) keeps every degree within its
        bounds, at the model's current state (which is not changed)."""
        self.check_model(model)
        arr = np.ascontiguousarray(blocks, dtype=np.int64)
        if arr.ndim != 2:
            arr = arr.reshape(1, -1)
        cdef Py_ssize_t C = arr.shape[0], c
        cdef int k = <int>arr.shape[1]
        if k > self.max_size:
            raise ValueError(f"blocks of {k} variables exceed max_size={self.max_size}")
        if C and k and (arr.min() < 0 or arr.max() >= model.n_vars):
            raise IndexError(f"block variables must lie in 0..{model.n_vars - 1}")
        cdef int64_t n = (<int64_t>1) << k
        cdef cnp.ndarray[cnp.uint8_t, ndim=2] out = np.zeros((C, n), dtype=np.uint8)
        cdef cnp.ndarray[cnp.int64_t, ndim=2] bl = arr
        cdef int rc = 0
        with nogil:
            for c in range(C):
                rc = self.mask(<ERGMModel>model, <int64_t*>&bl[c, 0] if k else NULL, k)
                if rc != 0:
                    break
                memcpy(&out[c, 0], self.ok, n)
        if rc != 0:
            raise MemoryError()
        return out.astype(bool)

    def state_ok(self, BinaryModel model):
        """Whether every degree (and class count) of the model's current state
        lies within its bounds."""
        self.check_model(model)
        cdef ERGMModel m = <ERGMModel>model
        cdef int v, c, K = self.K
        co = np.zeros(max(1, K), dtype=np.intc)
        ci = np.zeros(max(1, K), dtype=np.intc)
        cdef int[:] cov = co, civ = ci
        for v in range(self.n_nodes):
            for c in range(K):
                cov[c] = self.count(m, v, c, False)
                civ[c] = self.count(m, v, c, True) if self.directed else cov[c]
            if self._bad(v, m.state.odeg(v), m.state.ideg(v) if self.directed
                         else m.state.odeg(v), &cov[0], &civ[0]):
                return False
        return True
