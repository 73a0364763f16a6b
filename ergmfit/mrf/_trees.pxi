# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Forward-backward block kernel for chain- and tree-shaped blocks, and
grid-shaped block choosers (Asuncion et al. 2010, Sec. 4.2 and Fig. 4).

:class:`ForwardBackward` is a :class:`~ergmfit.sampling._blocks.BlockKernel`
for any BinaryModel whose log-density, restricted to a block A with the
rest x_-A fixed, is *pairwise along a forest*: the kernel is given an
interaction graph on the variables (``edges``; for a MonomialModel, two
variables are adjacent when they share a monomial), and the subgraph that
graph induces on A must be a forest (chains and trees; several components
are fine).  Then, with x_A = 0 as the reference,

    g(x_A, x_-A) = g(0_A, x_-A) + sum_{v in A} x_v d_v + sum_{(u,v) in F} x_u x_v D_uv,

    d_v  = Delta_v at x_A = 0,
    D_uv = Delta_v at (x_u = 1, rest of A = 0) - d_v,

all computed from the model's change statistics: k change calls for the d_v
and one (plus two flips) for each of the k - c forest edges.  Sum-product
(forward-backward) on the forest with unary log-potentials theta . d_v and
pairwise theta . D_uv x_u x_v then gives, in O(k p + sum of degrees),

* log Z_A and log p(x_A | x_-A) of the current block values;
* node marginals P(x_v = 1) and edge marginals P(x_u = x_v = 1), hence
  E[g | x_-A] - g(x) = sum_v (P_v - x_v) d_v + sum_uv (P_uv - x_u x_v) D_uv;
* an exact draw of x_A by forward filtering (leaves to roots) and backward
  sampling (roots to leaves).

If the induced subgraph has a cycle ``update`` returns -4 (the Python
wrappers raise ``ValueError``).  The kernel does not check that the model
really is pairwise on the block: an interaction graph that misses an
interaction gives wrong conditionals (use ``ForwardBackward.for_model``,
which derives the graph from the monomials, and see ``check_block``).

:class:`GridShapeBlocks` chooses tree-shaped blocks on an image grid:
shapes "L", "-" (3 pixels), "T" (4), "+" (5) and "H" (7), at uniformly
random placements and orientations that fit in the grid (all placements of
all the requested shapes equally likely; the choice does not depend on the
state, so blocked Gibbs with it leaves p(x | theta) invariant).
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log, log1p, fabs, INFINITY
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, realloc, free

from ergmfit.core._model cimport BinaryModel
from ergmfit.core._random cimport RNG, rng_uniform, rng_below, rng_seed
from ergmfit.sampling._blocks cimport BlockKernel
from ergmfit.sampling._blocks cimport BlockChooser, ListBlocks

cnp.import_array()
from ergmfit.mrf._blockspec import _csr, interaction_edges, shape_orientations, grid_placements  # noqa: F401 (re-exported)

NOT_A_FOREST_CODE = -4
cdef enum:
    NOT_A_FOREST = -4


cdef inline double _lae(double x, double y) noexcept nogil:
    """log(exp(x) + exp(y))."""
    if x == -INFINITY:
        return y
    if y == -INFINITY:
        return x
    if x > y:
        return x + log1p(exp(y - x))
    return y + log1p(exp(x - y))


cdef inline double _sigmoid(double z) noexcept nogil:
    if z >= 0:
        return 1.0 / (1.0 + exp(-z))
    return exp(z) / (1.0 + exp(z))


cdef class ForwardBackward(BlockKernel):
    """Exact block conditionals on forest-shaped blocks by forward-backward.

    Parameters
    ----------
    n_vars : int -- the number of variables of the models it will be used on
    edges : (E, 2) array -- the interaction graph (pairs of variables whose
        joint term in the log-density may be non-zero)
    max_size : int -- largest block (default n_vars)
    """
    cdef readonly int64_t n_vars
    cdef readonly cnp.ndarray nb_off_arr
    cdef readonly cnp.ndarray nb_arr
    cdef int64_t* nb_off
    cdef int64_t* nb
    cdef int64_t* pos
    cdef int cap_k
    cdef int cap_p
    cdef int* order
    cdef int* parent
    cdef unsigned char* old
    cdef unsigned char* new
    cdef double* a
    cdef double* J
    cdef double* d
    cdef double* D
    cdef double* lu
    cdef double* lm
    cdef double* bel

    def __cinit__(self, int64_t n_vars, edges, max_size=None):
        cdef int64_t v
        self.pos = NULL
        self.order = self.parent = NULL
        self.old = self.new = NULL
        self.a = self.J = self.d = self.D = self.lu = self.lm = self.bel = NULL
        self.cap_k = -1
        self.cap_p = -1
        if n_vars < 1:
            raise ValueError("need at least one variable")
        self.n_vars = n_vars
        off, nb = _csr(n_vars, edges)
        self.nb_off_arr = off
        self.nb_arr = nb if nb.size else np.zeros(1, np.int64)
        self.nb_off = <int64_t*>cnp.PyArray_DATA(self.nb_off_arr)
        self.nb = <int64_t*>cnp.PyArray_DATA(self.nb_arr)
        ms = n_vars if max_size is None else int(max_size)
        if ms < 0:
            raise ValueError("max_size must be non-negative")
        self.max_size = <int>min(ms, n_vars, 2**31 - 1)
        self.pos = <int64_t*>malloc(n_vars * sizeof(int64_t))
        if self.pos == NULL:
            raise MemoryError()
        for v in range(n_vars):
            self.pos[v] = -1

    def __dealloc__(self):
        free(self.pos); free(self.order); free(self.parent); free(self.old); free(self.new)
        free(self.a); free(self.J); free(self.d); free(self.D)
        free(self.lu); free(self.lm); free(self.bel)

    @staticmethod
    def for_model(model, max_size=None):
        """A kernel whose interaction graph is the model's (pairs sharing a monomial)."""
        return ForwardBackward(int(model.n_vars), interaction_edges(model), max_size)

    cdef int _ensure(self, int p, int k) noexcept nogil:
        cdef void* t
        if k <= self.cap_k and p <= self.cap_p:
            return 0
        if k < self.cap_k:
            k = self.cap_k
        if p < self.cap_p:
            p = self.cap_p
        if k < 1:
            k = 1
        if p < 1:
            p = 1
        t = realloc(self.order, k * sizeof(int))
        if t == NULL: return -1
        self.order = <int*>t
        t = realloc(self.parent, k * sizeof(int))
        if t == NULL: return -1
        self.parent = <int*>t
        t = realloc(self.old, k)
        if t == NULL: return -1
        self.old = <unsigned char*>t
        t = realloc(self.new, k)
        if t == NULL: return -1
        self.new = <unsigned char*>t
        t = realloc(self.a, k * sizeof(double))
        if t == NULL: return -1
        self.a = <double*>t
        t = realloc(self.J, k * sizeof(double))
        if t == NULL: return -1
        self.J = <double*>t
        t = realloc(self.d, <int64_t>k * p * sizeof(double))
        if t == NULL: return -1
        self.d = <double*>t
        t = realloc(self.D, <int64_t>k * p * sizeof(double))
        if t == NULL: return -1
        self.D = <double*>t
        t = realloc(self.lu, 2 * k * sizeof(double))
        if t == NULL: return -1
        self.lu = <double*>t
        t = realloc(self.lm, 2 * k * sizeof(double))
        if t == NULL: return -1
        self.lm = <double*>t
        t = realloc(self.bel, 2 * k * sizeof(double))
        if t == NULL: return -1
        self.bel = <double*>t
        self.cap_k = k
        self.cap_p = p
        return 0

    cdef int _forest(self, const int64_t* block, int k) noexcept nogil:
        """BFS order and parents of the forest induced on the block (pos must
        be set); -4 if the induced subgraph has a cycle."""
        cdef int head = 0, tail = 0, r, i, root
        cdef int64_t e, w, j
        for r in range(k):
            self.parent[r] = -2              # unvisited
        for root in range(k):
            if self.parent[root] != -2:
                continue
            self.parent[root] = -1
            self.order[tail] = root
            tail += 1
            while head < tail:
                i = self.order[head]
                head += 1
                for e in range(self.nb_off[block[i]], self.nb_off[block[i] + 1]):
                    w = self.nb[e]
                    j = self.pos[w]
                    if j < 0 or j == self.parent[i]:
                        continue
                    if self.parent[j] != -2:
                        return NOT_A_FOREST
                    self.parent[j] = i
                    self.order[tail] = <int>j
                    tail += 1
        return 0

    cdef int update(self, BinaryModel m, const int64_t* block, int k, const double* theta,
                    RNG* rng, double* delta, double* expect, double* logp) noexcept nogil:
        cdef int p = m.n_stats, q, r, idx, par, s, t, rc = 0
        cdef double logZ = 0.0, z, c0, c1, w00, w01, w10, w11, lse, P1, P11, u, acc
        cdef double* dr
        cdef double* Dr
        if k < 0 or k > self.max_size:
            return -2
        if self._ensure(p, k) != 0:
            return -1
        for r in range(k):
            if block[r] < 0 or block[r] >= self.n_vars:
                return -2
            self.pos[block[r]] = r
            self.old[r] = m.get(block[r])
        rc = self._forest(block, k)
        if rc != 0:
            for r in range(k):
                self.pos[block[r]] = -1
            return rc
        # reference configuration x_A = 0
        for r in range(k):
            if self.old[r]:
                if m.flip(block[r]) != 0:
                    rc = -1
        if rc == 0:
            for r in range(k):
                dr = self.d + <int64_t>r * p
                m.change(block[r], dr)
                acc = 0.0
                for q in range(p):
                    acc += theta[q] * dr[q]
                self.a[r] = acc
            for r in range(k):
                par = self.parent[r]
                self.J[r] = 0.0
                if par < 0:
                    continue
                Dr = self.D + <int64_t>r * p
                dr = self.d + <int64_t>r * p
                if m.flip(block[par]) != 0:
                    rc = -1
                    break
                m.change(block[r], Dr)
                if m.flip(block[par]) != 0:
                    rc = -1
                    break
                acc = 0.0
                for q in range(p):
                    Dr[q] -= dr[q]
                    acc += theta[q] * Dr[q]
                self.J[r] = acc
        if rc == 0:
            # upward (leaves to roots) messages
            for r in range(k):
                self.lu[2 * r] = 0.0
                self.lu[2 * r + 1] = self.a[r]
            idx = k - 1
            while idx >= 0:
                r = self.order[idx]
                par = self.parent[r]
                if par >= 0:
                    for t in range(2):
                        z = _lae(self.lu[2 * r], self.lu[2 * r + 1] + self.J[r] * t)
                        self.lm[2 * r + t] = z
                        self.lu[2 * par + t] += z
                else:
                    logZ += _lae(self.lu[2 * r], self.lu[2 * r + 1])
                idx -= 1
            if logp != NULL:
                acc = 0.0
                for r in range(k):
                    if self.old[r]:
                        acc += self.a[r]
                        par = self.parent[r]
                        if par >= 0 and self.old[par]:
                            acc += self.J[r]
                logp[0] = acc - logZ
            if expect != NULL:
                for q in range(p):
                    expect[q] = 0.0
                for idx in range(k):
                    r = self.order[idx]
                    par = self.parent[r]
                    dr = self.d + <int64_t>r * p
                    if par < 0:
                        self.bel[2 * r] = self.lu[2 * r]
                        self.bel[2 * r + 1] = self.lu[2 * r + 1]
                    else:
                        c0 = self.bel[2 * par] - self.lm[2 * r]
                        c1 = self.bel[2 * par + 1] - self.lm[2 * r + 1]
                        self.bel[2 * r] = self.lu[2 * r] + _lae(c0, c1)
                        self.bel[2 * r + 1] = self.lu[2 * r + 1] + _lae(c0, c1 + self.J[r])
                        w00 = self.lu[2 * r] + c0
                        w01 = self.lu[2 * r] + c1
                        w10 = self.lu[2 * r + 1] + c0
                        w11 = self.lu[2 * r + 1] + c1 + self.J[r]
                        lse = _lae(_lae(w00, w01), _lae(w10, w11))
                        P11 = exp(w11 - lse) - (1.0 if (self.old[r] and self.old[par]) else 0.0)
                        Dr = self.D + <int64_t>r * p
                        for q in range(p):
                            expect[q] += P11 * Dr[q]
                    P1 = _sigmoid(self.bel[2 * r + 1] - self.bel[2 * r]) - self.old[r]
                    for q in range(p):
                        expect[q] += P1 * dr[q]
            if rng != NULL:
                for idx in range(k):
                    r = self.order[idx]
                    par = self.parent[r]
                    z = self.lu[2 * r + 1] - self.lu[2 * r]
                    if par >= 0 and self.new[par]:
                        z += self.J[r]
                    u = rng_uniform(rng)
                    self.new[r] = 1 if u < _sigmoid(z) else 0
                if delta != NULL:
                    for q in range(p):
                        delta[q] = 0.0
                    for r in range(k):
                        s = <int>self.new[r] - <int>self.old[r]
                        if s != 0:
                            dr = self.d + <int64_t>r * p
                            for q in range(p):
                                delta[q] += s * dr[q]
                        par = self.parent[r]
                        if par >= 0:
                            s = <int>(self.new[r] & self.new[par]) - <int>(self.old[r] & self.old[par])
                            if s != 0:
                                Dr = self.D + <int64_t>r * p
                                for q in range(p):
                                    delta[q] += s * Dr[q]
            else:
                for r in range(k):
                    self.new[r] = self.old[r]
                if delta != NULL:
                    for q in range(p):
                        delta[q] = 0.0
        else:
            for r in range(k):
                self.new[r] = self.old[r]
        # leave the block at its new values (all are 0 now)
        for r in range(k):
            if self.new[r]:
                if m.flip(block[r]) != 0:
                    rc = -1
            self.pos[block[r]] = -1
        return rc

    def forest(self, block):
        """(order, parent) of the forest the kernel builds on ``block``
        (indices into the block; parent -1 for roots); ValueError on a cycle."""
        b = np.ascontiguousarray(block, dtype=np.int64).ravel()
        cdef cnp.int64_t[:] bv = b
        cdef int k = <int>b.shape[0], r, rc
        if self._ensure(1, k) != 0:
            raise MemoryError()
        for r in range(k):
            if bv[r] < 0 or bv[r] >= self.n_vars:
                raise IndexError("block variable out of range")
            self.pos[bv[r]] = r
        rc = self._forest(<int64_t*>&bv[0] if k else NULL, k) if k else 0
        for r in range(k):
            self.pos[bv[r]] = -1
        if rc != 0:
            raise ValueError(f"the block {b.tolist()} induces a cycle in the interaction graph")
        return (np.array([self.order[r] for r in range(k)], dtype=np.int64),
                np.array([self.parent[r] for r in range(k)], dtype=np.int64))

    def conditional(self, BinaryModel model, block, theta):
        """log p(x_A | x_-A) of the current block values and E[g | x_-A] - g(x)
        (the state is not changed); ValueError if the block is not a forest."""
        cdef cnp.ndarray[cnp.int64_t, ndim=1] b = np.ascontiguousarray(block, dtype=np.int64).ravel()
        cdef cnp.ndarray[double, ndim=1] th = np.ascontiguousarray(theta, dtype=float).ravel()
        cdef cnp.ndarray[double, ndim=1] e = np.zeros(max(1, model.n_stats))
        cdef double lp = 0.0
        cdef int rc
        if th.shape[0] != model.n_stats:
            raise ValueError(f"theta must have {model.n_stats} values")
        if len(np.unique(b)) != b.shape[0]:
            raise ValueError("the variables of a block must be distinct")
        if b.shape[0] > self.max_size:
            raise ValueError(f"a block of {b.shape[0]} variables exceeds max_size={self.max_size}")
        if model.n_vars != self.n_vars:
            raise ValueError("the kernel was built for a different number of variables")
        if th.shape[0] == 0:
            th = np.zeros(1)
        rc = self.update(model, <int64_t*>&b[0] if b.shape[0] else NULL, <int>b.shape[0],
                         &th[0], NULL, NULL, &e[0], &lp)
        _check_forest(rc, b)
        return lp, e[:model.n_stats].copy()

    def draw(self, BinaryModel model, block, theta, seed=None):
        """One exact draw of the block given the rest (the model moves there);
        returns g(x') - g(x)."""
        from ergmfit.utils.validation import seed_words
        cdef cnp.ndarray[cnp.int64_t, ndim=1] b = np.ascontiguousarray(block, dtype=np.int64).ravel()
        cdef cnp.ndarray[double, ndim=1] th = np.ascontiguousarray(theta, dtype=float).ravel()
        cdef cnp.ndarray[double, ndim=1] dl = np.zeros(max(1, model.n_stats))
        cdef cnp.uint64_t[:] sw = seed_words(seed)
        cdef RNG rng
        rng_seed(&rng, sw[0], sw[1], sw[2], sw[3])
        if th.shape[0] != model.n_stats:
            raise ValueError(f"theta must have {model.n_stats} values")
        if len(np.unique(b)) != b.shape[0] or b.shape[0] > self.max_size:
            raise ValueError("bad block")
        if th.shape[0] == 0:
            th = np.zeros(1)
        rc = self.update(model, <int64_t*>&b[0] if b.shape[0] else NULL, <int>b.shape[0],
                         &th[0], &rng, &dl[0], NULL, NULL)
        _check_forest(rc, b)
        return dl[:model.n_stats].copy()


def _check_forest(int rc, b):
    if rc == NOT_A_FOREST:
        raise ValueError(f"the block {np.asarray(b).tolist()} induces a cycle in the "
                         "interaction graph: forward-backward needs a chain or tree")
    if rc == -1:
        raise MemoryError("out of memory while flipping variables")
    if rc == -2:
        raise ValueError("block too large or variable out of range")
    if rc != 0:
        raise RuntimeError(f"block kernel failed (code {rc})")


cdef class GridShapeBlocks(ListBlocks):
    """Tree-shaped blocks of an image grid: a uniformly random placement
    (shape, orientation, position) of one of ``shapes`` ("L", "-", "T", "+",
    "H", or lists of (row, col) offsets).  Asuncion et al.: B3 = {"L", "-"},
    B4 = {"T"}, B5 = {"+"}, B7 = {"H"}."""
    cdef readonly tuple shape

    def __init__(self, int height, int width, shapes=("L", "-")):
        if isinstance(shapes, str):
            shapes = (shapes,)
        blocks = grid_placements(height, width, shapes)
        if not blocks:
            raise ValueError(f"none of the shapes {list(shapes)} fits in a {height}x{width} grid")
        self._set_blocks(blocks, <int64_t>height * width)
        self.shape = (height, width)
