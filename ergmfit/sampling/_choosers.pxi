# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Block choosers of the blocked Gibbs sampler (see :mod:`._blocks`).

``choose(rng, out)`` writes a block of distinct variables and returns its
size; the choice never depends on the state, so every blocked Gibbs step
leaves p(x | theta) invariant.  Uniform random blocks of k variables, a
user's list of blocks, and, for ERGMs, blocks sharing nodes (the dyads of a
random node triple, or k dyads of a random node's star).
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset, memcpy

from ergmfit.core._random cimport RNG, rng_seed, rng_uniform, rng_below
from ergmfit.terms._ergm cimport ERGMModel

cnp.import_array()


# ---------------------------------------------------------------------------
# Block choosers
# ---------------------------------------------------------------------------
cdef class BlockChooser:
    """Base class (see ``_blocks.pxd``)."""

    cdef int choose(self, RNG* rng, int64_t* out) noexcept nogil:
        return -1

    def draw(self, int n, random_state=None):
        """``n`` blocks as a list of int64 arrays (for inspection and tests)."""
        from ergmfit.utils.validation import seed_words
        cdef RNG rng
        cdef cnp.uint64_t[:] s = seed_words(random_state)
        rng_seed(&rng, s[0], s[1], s[2], s[3])
        cdef cnp.ndarray[cnp.int64_t, ndim=1] buf = np.zeros(max(1, self.max_size), dtype=np.int64)
        out = []
        cdef int k
        for _ in range(n):
            k = self.choose(&rng, &buf[0])
            if k < 0:
                raise RuntimeError("the block chooser failed")
            out.append(buf[:k].copy())
        return out


cdef inline bint _in(const int64_t* a, int n, int64_t v) noexcept nogil:
    cdef int r
    for r in range(n):
        if a[r] == v:
            return 1
    return 0


cdef class UniformBlocks(BlockChooser):
    """k distinct variables drawn uniformly (every k-subset equally likely);
    with ``free`` (sorted variable indices) k-subsets of those only, as a
    constrained sample space needs (the other variables are never in a block)."""
    cdef int k
    cdef int64_t* perm
    cdef bint use_perm
    cdef int64_t pool                 # variables to draw from
    cdef readonly object free         # the free variables (int64 array), or None
    cdef const int64_t* _free

    def __cinit__(self, int64_t n_vars, int k, free=None):
        cdef int64_t i
        self.perm = NULL
        self._free = NULL
        self.free = None
        self.pool = n_vars
        if free is not None:
            from ergmfit.utils.validation import check_index_set
            self.free = np.ascontiguousarray(
                np.sort(check_index_set(free, n_vars, "free variables")), dtype=np.int64)
            self._free = <const int64_t*>cnp.PyArray_DATA(self.free)
            self.pool = self.free.shape[0]
        if k < 1 or k > self.pool:
            raise ValueError(f"block size must lie in 1..{self.pool} (the number of "
                             f"{'free ' if free is not None else ''}variables), got {k}")
        self.k = k
        self.max_size = k
        self.n_vars = n_vars
        # a partial Fisher-Yates shuffle when k is a sizeable share of the variables
        self.use_perm = self.pool <= (1 << 22) and <int64_t>k * 64 > self.pool
        if self.use_perm:
            self.perm = <int64_t*>malloc(self.pool * sizeof(int64_t))
            if self.perm == NULL:
                raise MemoryError()
            for i in range(self.pool):
                self.perm[i] = i

    def __dealloc__(self):
        free(self.perm)

    cdef int choose(self, RNG* rng, int64_t* out) noexcept nogil:
        cdef int r
        cdef int64_t j, t, v
        if self.use_perm:
            for r in range(self.k):
                j = r + rng_below(rng, self.pool - r)
                t = self.perm[r]; self.perm[r] = self.perm[j]; self.perm[j] = t
                out[r] = self.perm[r]
        else:
            r = 0
            while r < self.k:
                v = rng_below(rng, self.pool)
                if not _in(out, r, v):
                    out[r] = v
                    r += 1
        if self._free != NULL:            # pool positions -> free variables
            for r in range(self.k):
                out[r] = self._free[out[r]]
        return self.k


cdef class ListBlocks(BlockChooser):
    """One of the given blocks, uniformly at random (subclasses that make their
    blocks themselves call ``_set_blocks`` from their ``__init__``)."""

    def __init__(self, blocks, int64_t n_vars):
        self._set_blocks(blocks, n_vars)

    def blocks(self):
        """All the blocks, a list of int64 arrays."""
        return [self.flat[self.offsets[c]:self.offsets[c + 1]].copy()
                for c in range(self.n_blocks)]

    def _set_blocks(self, blocks, int64_t n_vars):
        from ergmfit.utils.validation import check_index_set
        blocks = [check_index_set(b, n_vars, "block") for b in blocks]
        if not blocks:
            raise ValueError("the list of blocks is empty")
        self.flat = np.ascontiguousarray(np.concatenate(blocks), dtype=np.int64)
        self.offsets = np.ascontiguousarray(np.cumsum([0] + [b.size for b in blocks]),
                                            dtype=np.int64)
        self._flat = <int64_t*>cnp.PyArray_DATA(self.flat)
        self._off = <int64_t*>cnp.PyArray_DATA(self.offsets)
        self.n_blocks = len(blocks)
        self.max_size = max(b.size for b in blocks)
        self.n_vars = n_vars

    cdef int choose(self, RNG* rng, int64_t* out) noexcept nogil:
        cdef int64_t c = rng_below(rng, self.n_blocks), r
        cdef int k = <int>(self._off[c + 1] - self._off[c])
        for r in range(k):
            out[r] = self._flat[self._off[c] + r]
        return k


cdef class NodeTripleBlocks(BlockChooser):
    """Blocks of k dyads sharing nodes, built on a random node triple.

    Nodes i, j, l are drawn uniformly (distinct, in random order); the block
    starts with the dyads of the triple, undirected (i,j), (j,l), (i,l) or
    directed (i,j), (j,i), (j,l), (l,j), (i,l), (l,i), cut to the first k;
    for larger k it continues with dyads (i, r) (directed: random direction)
    to further distinct nodes r.  k = 3 (undirected) is exactly the dyads of
    a random triple; k = 1 a uniform random dyad; k = 2 a random 2-path.
    """
    cdef ERGMModel em
    cdef int k
    cdef int n
    cdef bint directed

    def __cinit__(self, ERGMModel model, int k):
        cdef int n = model.state.n
        cdef bint directed = model.state.directed
        cdef int base = 6 if directed else 3
        if n < 3:
            raise ValueError("node-triple blocks need at least 3 nodes")
        if k < 1:
            raise ValueError(f"block size must be at least 1, got {k}")
        extra_cap = (2 if directed else 1) * (n - 3)
        if k > base + extra_cap:
            raise ValueError(f"node-triple blocks of {k} dyads need more nodes than {n}")
        self.em = model
        self.k = k
        self.n = n
        self.directed = directed
        self.max_size = k
        self.n_vars = model.n_vars

    cdef int choose(self, RNG* rng, int64_t* out) noexcept nogil:
        cdef int i, j, l, r, m = 0, base
        cdef int64_t v
        cdef int64_t tri[6]
        i = <int>rng_below(rng, self.n)
        j = <int>rng_below(rng, self.n - 1)
        if j >= i:
            j += 1
        l = <int>rng_below(rng, self.n)
        while l == i or l == j:
            l = <int>rng_below(rng, self.n)
        if self.directed:
            tri[0] = self.em.var(i, j); tri[1] = self.em.var(j, i); tri[2] = self.em.var(j, l)
            tri[3] = self.em.var(l, j); tri[4] = self.em.var(i, l); tri[5] = self.em.var(l, i)
            base = 6
        else:
            tri[0] = self.em.var(i, j); tri[1] = self.em.var(j, l); tri[2] = self.em.var(i, l)
            base = 3
        while m < self.k and m < base:
            out[m] = tri[m]
            m += 1
        while m < self.k:
            r = <int>rng_below(rng, self.n)
            if r == i or r == j or r == l:
                continue
            if self.directed and rng_uniform(rng) < 0.5:
                v = self.em.var(r, i)
            else:
                v = self.em.var(i, r)
            if not _in(out, m, v):
                out[m] = v
                m += 1
        return m


cdef class StarBlocks(BlockChooser):
    """k dyads sharing a random node i: (i, r_1) .. (i, r_k), the r distinct
    and uniform (directed: each dyad in a random direction)."""
    cdef ERGMModel em
    cdef int k
    cdef int n
    cdef bint directed

    def __cinit__(self, ERGMModel model, int k):
        cdef int n = model.state.n
        if k < 1 or k > (2 if model.state.directed else 1) * (n - 1):
            raise ValueError(f"star blocks of {k} dyads need 1 <= k <= "
                             f"{(2 if model.state.directed else 1) * (n - 1)}")
        self.em = model
        self.k = k
        self.n = n
        self.directed = model.state.directed
        self.max_size = k
        self.n_vars = model.n_vars

    cdef int choose(self, RNG* rng, int64_t* out) noexcept nogil:
        cdef int i, r, m = 0
        cdef int64_t v
        i = <int>rng_below(rng, self.n)
        while m < self.k:
            r = <int>rng_below(rng, self.n - 1)
            if r >= i:
                r += 1
            if self.directed and rng_uniform(rng) < 0.5:
                v = self.em.var(r, i)
            else:
                v = self.em.var(i, r)
            if not _in(out, m, v):
                out[m] = v
                m += 1
        return m


cdef class FreeOnly(BlockChooser):
    """The blocks of another chooser without the variables that are not free
    (fixed dyads of a constrained sample space): a block may come out
    smaller, or empty (a step that changes nothing).  The choice still does
    not depend on the state, so blocked Gibbs steps keep p(x | theta)
    invariant on the constrained space.

    Parameters
    ----------
    inner : BlockChooser
    free : sorted int64 array of the free variables
    """
    cdef readonly BlockChooser inner
    cdef readonly object free
    cdef const int64_t* _free
    cdef int64_t n_free

    def __cinit__(self, BlockChooser inner, free):
        from ergmfit.utils.validation import check_index_set
        self.inner = inner
        self.free = np.ascontiguousarray(
            np.sort(check_index_set(free, inner.n_vars, "free variables")), dtype=np.int64)
        self._free = <const int64_t*>cnp.PyArray_DATA(self.free)
        self.n_free = self.free.shape[0]
        self.max_size = inner.max_size
        self.n_vars = inner.n_vars

    cdef int choose(self, RNG* rng, int64_t* out) noexcept nogil:
        cdef int k = self.inner.choose(rng, out), r, m = 0
        cdef int64_t lo, hi, mid, v
        if k < 0:
            return k
        for r in range(k):
            v = out[r]
            lo = 0
            hi = self.n_free
            while lo < hi:                      # binary search in the free variables
                mid = (lo + hi) >> 1
                if self._free[mid] < v:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < self.n_free and self._free[lo] == v:
                out[m] = v
                m += 1
        return m


# ---------------------------------------------------------------------------
# Random-scan blocked Gibbs sampler
# ---------------------------------------------------------------------------
