# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact block conditionals for categorical variables coded one-hot.

A categorical variable s_i in {0 .. L-1} (a Potts spin) is held by the
binary engine as a *group* of indicator variables x_{i,0} .. x_{i,L-1} with
exactly one equal to 1 (one-hot).  Single-variable flips cannot respect the
sum-to-one constraint, so samplers and composite likelihoods must move whole
groups.  :class:`OneHotEnumeration` is the
:class:`~ergmfit.sampling._blocks.BlockKernel` that does: for a block made
of m whole groups (the variables of m categorical variables, in any order)
it visits only the valid configurations -- the prod_u L_u joint levels --
and for each computes

    D_c = g(x with the block's units at levels c) - g(x)

from the model's change statistics, then

    p(c | x_-A, theta) = exp(theta . D_c) / sum_c' exp(theta . D_c'),

log p of the current levels (c = 0, D_0 = 0), E[g | x_-A] - g(x) =
sum_c p_c D_c, and (with an RNG) an exact draw that leaves the model at the
drawn levels.  The configurations are visited in the reflected mixed-radix
Gray code (unit 0 fastest), so consecutive configurations differ in the
level of ONE unit; moving a unit from level a to level b is "switch the
indicator of a off, switch the indicator of b on": two ``change`` calls and
two ``flip`` calls, each change taken just before its flip, so D is exact
for any BinaryModel, including one whose monomials join indicators of the
same group.

A group may also allow "no indicator on" as an extra level 0
(``allow_none``): a group of q-1 dummies then codes a q-level variable with
level 0 = all off (reference coding), and a single variable with
``allow_none`` is an ordinary binary variable (levels 0/1).  Every variable
that is in no given group is such a singleton, so with no groups at all the
kernel reproduces :class:`~ergmfit.sampling._blocks.Enumeration`.

:class:`UniformGroupBlocks` is the matching
:class:`~ergmfit.sampling._blocks.BlockChooser`: k distinct groups drawn
uniformly (independently of the state), their variables concatenated.  With
it, :class:`~ergmfit.sampling._blocks.BlockGibbsSampler` is a random-scan
(blocked) Gibbs sampler of a Potts model that never leaves the one-hot
states.

Return codes of ``update`` beyond the base class's: -5 the block is not a
union of whole groups; -6 the current state of a block group is not valid
(not exactly one indicator on, or more than one with ``allow_none``).
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy

from ergmfit.core._model cimport BinaryModel
from ergmfit.sampling._blocks import _as_block, _as_theta
from ergmfit.utils.validation import check_index_set
from ergmfit.mrf._blockspec import _groups_csr, gray_levels  # noqa: F401 (re-exported)
from ergmfit.core._random cimport RNG, rng_seed, rng_below
from ergmfit.sampling._blocks cimport BlockKernel, conditional_draw
from ergmfit.sampling._blocks cimport BlockChooser

cnp.import_array()

cdef enum:
    NOT_WHOLE_GROUPS = -5
    INVALID_STATE = -6

cdef int64_t MAX_CELLS = 1 << 25     # configurations x statistics held at once (256 MiB)
DEFAULT_MAX_CONFIGS = 1 << 20
NOT_WHOLE_GROUPS_CODE = NOT_WHOLE_GROUPS
INVALID_STATE_CODE = INVALID_STATE


cdef class OneHotEnumeration(BlockKernel):
    """Exact conditionals of blocks of one-hot groups (see the module docstring).

    Parameters
    ----------
    n_vars : int
        The number of variables of the models the kernel is used on.
    groups : list of sequences of variable indices
        The one-hot groups (disjoint).  Variables in no group are free binary
        variables.
    allow_none : bool or sequence of bool
        Whether "all indicators off" is a valid level (level 0) of each group.
    max_size : int, optional
        Largest block in variables (default: n_vars).
    max_configs : int
        Largest number of joint configurations of a block (default 2^20).

    Examples
    --------
    >>> import numpy as np
    >>> from ergmfit.mrf._models import MonomialModel
    >>> from ergmfit.mrf._models import OneHotEnumeration
    >>> # two 3-level variables, coupling [s_0 = s_1] = sum_s x_{0,s} x_{1,s}
    >>> bm = MonomialModel(6, 1, [[0, 3], [1, 4], [2, 5]], [0, 0, 0], [1, 1, 1], False)
    >>> bm.set_state([1, 0, 0, 0, 1, 0])                 # s = (0, 1)
    >>> kern = OneHotEnumeration(6, [[0, 1, 2], [3, 4, 5]])
    >>> lp, e = kern.conditional(bm, [0, 1, 2], [1.0])   # p(s_0 = 0 | s_1 = 1)
    >>> round(float(np.exp(lp)), 4)                       # 1 / (2 + e)
    0.2119
    """
    cdef readonly int64_t n_vars
    cdef readonly int64_t n_groups
    cdef readonly int64_t max_configs
    cdef readonly cnp.ndarray group_of_arr
    cdef readonly cnp.ndarray offsets_arr
    cdef readonly cnp.ndarray members_arr
    cdef readonly cnp.ndarray none_arr
    cdef int64_t* gof
    cdef int64_t* goff
    cdef int64_t* gmem
    cdef unsigned char* gnone
    cdef int64_t* mark            # per group: stamp of the last block that used it
    cdef int64_t* upos            # per group: its unit index in that block
    cdef int64_t stamp
    # per-unit work arrays (capacity cap_m)
    cdef int64_t* unit
    cdef int64_t* cnt
    cdef int64_t* L
    cdef int64_t* lv0
    cdef int64_t* lvc
    cdef int64_t* P
    cdef int cap_m
    # configurations (capacity cap_n x cap_p)
    cdef double* D
    cdef double* w
    cdef double* buf
    cdef int64_t cap_n
    cdef int cap_p
    cdef int m_units
    cdef int64_t n_conf

    def __cinit__(self, int64_t n_vars, groups=(), allow_none=False, max_size=None,
                  int64_t max_configs=DEFAULT_MAX_CONFIGS):
        self.gof = self.goff = self.gmem = NULL
        self.gnone = NULL
        self.mark = self.upos = NULL
        self.unit = self.cnt = self.L = self.lv0 = self.lvc = self.P = NULL
        self.D = self.w = self.buf = NULL
        self.cap_m = -1
        self.cap_n = -1
        self.cap_p = -1
        self.stamp = 0
        if max_configs < 1:
            raise ValueError(f"max_configs must be positive, got {max_configs}")
        gof, off, mem, none = _groups_csr(n_vars, list(groups), allow_none)
        self.n_vars = n_vars
        self.n_groups = off.shape[0] - 1
        self.max_configs = max_configs
        self.group_of_arr = gof
        self.offsets_arr = off
        self.members_arr = mem
        self.none_arr = none
        self.gof = <int64_t*>cnp.PyArray_DATA(self.group_of_arr)
        self.goff = <int64_t*>cnp.PyArray_DATA(self.offsets_arr)
        self.gmem = <int64_t*>cnp.PyArray_DATA(self.members_arr)
        self.gnone = <unsigned char*>cnp.PyArray_DATA(self.none_arr)
        ms = n_vars if max_size is None else int(max_size)
        if ms < 0:
            raise ValueError("max_size must be non-negative")
        self.max_size = <int>min(ms, n_vars, 2**31 - 1)
        self.mark = <int64_t*>malloc(self.n_groups * sizeof(int64_t))
        self.upos = <int64_t*>malloc(self.n_groups * sizeof(int64_t))
        if self.mark == NULL or self.upos == NULL:
            raise MemoryError()
        for g in range(self.n_groups):
            self.mark[g] = -1
            self.upos[g] = -1

    def __dealloc__(self):
        free(self.mark); free(self.upos)
        free(self.unit); free(self.cnt); free(self.L); free(self.lv0); free(self.lvc); free(self.P)
        free(self.D); free(self.w); free(self.buf)

    @staticmethod
    def potts(int n_nodes, int q, max_size=None, int64_t max_configs=DEFAULT_MAX_CONFIGS):
        """The kernel of a Potts model coded one-hot with variable i*q + s = [s_i = s]."""
        groups = [np.arange(i * q, (i + 1) * q, dtype=np.int64) for i in range(n_nodes)]
        return OneHotEnumeration(<int64_t>n_nodes * q, groups, False, max_size, max_configs)

    # -- groups ----------------------------------------------------------------
    def groups(self):
        """All groups (given ones first, then the free singletons), as int64 arrays."""
        return [self.members_arr[self.offsets_arr[g]:self.offsets_arr[g + 1]].copy()
                for g in range(self.n_groups)]

    def n_levels(self):
        """The number of levels of every group."""
        return (np.diff(self.offsets_arr) + self.none_arr).astype(np.int64)

    # -- buffers ---------------------------------------------------------------
    cdef int _ensure_units(self, int m) noexcept nogil:
        cdef void* t
        if m <= self.cap_m:
            return 0
        if m < 1:
            m = 1
        t = realloc(self.unit, m * sizeof(int64_t))
        if t == NULL: return -1
        self.unit = <int64_t*>t
        t = realloc(self.cnt, m * sizeof(int64_t))
        if t == NULL: return -1
        self.cnt = <int64_t*>t
        t = realloc(self.L, m * sizeof(int64_t))
        if t == NULL: return -1
        self.L = <int64_t*>t
        t = realloc(self.lv0, m * sizeof(int64_t))
        if t == NULL: return -1
        self.lv0 = <int64_t*>t
        t = realloc(self.lvc, m * sizeof(int64_t))
        if t == NULL: return -1
        self.lvc = <int64_t*>t
        t = realloc(self.P, (m + 1) * sizeof(int64_t))
        if t == NULL: return -1
        self.P = <int64_t*>t
        self.cap_m = m
        return 0

    cdef int _ensure_confs(self, int64_t n, int p) noexcept nogil:
        cdef void* t
        if p < 1:
            p = 1
        if n <= self.cap_n and p <= self.cap_p:
            return 0
        if n < self.cap_n:
            n = self.cap_n
        if p < self.cap_p:
            p = self.cap_p
        t = realloc(self.D, n * p * sizeof(double))
        if t == NULL: return -1
        self.D = <double*>t
        t = realloc(self.w, n * sizeof(double))
        if t == NULL: return -1
        self.w = <double*>t
        t = realloc(self.buf, p * sizeof(double))
        if t == NULL: return -1
        self.buf = <double*>t
        self.cap_n = n
        self.cap_p = p
        return 0

    # -- the walk --------------------------------------------------------------
    cdef int _parse(self, BinaryModel m, const int64_t* block, int k) noexcept nogil:
        """Units of the block, their levels now and the number of joint
        configurations (self.m_units, unit, L, lv0, n_conf)."""
        cdef int r, mu = 0, u
        cdef int64_t v, g, j, on, lev, size, n = 1
        if k < 0 or k > self.max_size:
            return -2
        if self._ensure_units(k) != 0:
            return -1
        self.stamp += 1
        for r in range(k):
            v = block[r]
            if v < 0 or v >= self.n_vars:
                return -2
            g = self.gof[v]
            if self.mark[g] != self.stamp:
                self.mark[g] = self.stamp
                self.upos[g] = mu
                self.unit[mu] = g
                self.cnt[mu] = 0
                mu += 1
            self.cnt[self.upos[g]] += 1
        for u in range(mu):
            g = self.unit[u]
            size = self.goff[g + 1] - self.goff[g]
            if self.cnt[u] != size:
                return NOT_WHOLE_GROUPS
            on = 0
            lev = -1
            for j in range(self.goff[g], self.goff[g + 1]):
                if m.get(self.gmem[j]):
                    on += 1
                    lev = j - self.goff[g]
            if self.gnone[g]:
                if on > 1:
                    return INVALID_STATE
                self.lv0[u] = lev + 1
                self.L[u] = size + 1
            else:
                if on != 1:
                    return INVALID_STATE
                self.lv0[u] = lev
                self.L[u] = size
            self.lvc[u] = self.lv0[u]
            if n > self.max_configs / self.L[u]:
                return -2
            n *= self.L[u]
        self.P[0] = 1
        for u in range(mu):
            self.P[u + 1] = self.P[u] * self.L[u]
        self.m_units = mu
        self.n_conf = n
        return 0

    cdef inline int64_t _level(self, int64_t t, int u) noexcept nogil:
        """Level of unit u in configuration t (reflected mixed-radix Gray code,
        relative to the levels at the start)."""
        cdef int64_t r = t // self.P[u]
        cdef int64_t Lu = self.L[u]
        cdef int64_t d = r % Lu
        if (r // Lu) & 1:
            d = Lu - 1 - d
        return (self.lv0[u] + d) % Lu

    cdef inline int64_t _var(self, int64_t g, int64_t level) noexcept nogil:
        """The indicator that is on at this level of group g, or -1 (none)."""
        if self.gnone[g]:
            if level == 0:
                return -1
            return self.gmem[self.goff[g] + level - 1]
        return self.gmem[self.goff[g] + level]

    cdef int _set(self, BinaryModel m, int u, int64_t level, double* row, int p) noexcept nogil:
        """Move unit u to ``level``; if row != NULL add g(new) - g(old) to it."""
        cdef int64_t g = self.unit[u], a, b
        cdef int q
        if level == self.lvc[u]:
            return 0
        a = self._var(g, self.lvc[u])
        b = self._var(g, level)
        if a >= 0:
            if row != NULL:
                m.change(a, self.buf)
                for q in range(p):
                    row[q] -= self.buf[q]
            if m.flip(a) != 0:
                return -1
        if b >= 0:
            if row != NULL:
                m.change(b, self.buf)
                for q in range(p):
                    row[q] += self.buf[q]
            if m.flip(b) != 0:
                return -1
        self.lvc[u] = level
        return 0

    cdef int _walk(self, BinaryModel m, int p) noexcept nogil:
        """Fill D (n_conf x p) by the Gray-code walk; the model is left in the
        last configuration (n_conf - 1)."""
        cdef int64_t t, n = self.n_conf
        cdef int j, q
        cdef double* row
        for q in range(p):
            self.D[q] = 0.0
        for t in range(1, n):
            j = 0
            while t % self.P[j + 1] == 0:
                j += 1
            row = self.D + t * p
            memcpy(row, self.D + (t - 1) * p, p * sizeof(double))
            if self._set(m, j, self._level(t, j), row, p) != 0:
                return -1
        return 0

    cdef int _move_to(self, BinaryModel m, int64_t t) noexcept nogil:
        cdef int u
        for u in range(self.m_units):
            if self._set(m, u, self._level(t, u), NULL, 0) != 0:
                return -1
        return 0

    cdef int update(self, BinaryModel m, const int64_t* block, int k, const double* theta,
                    RNG* rng, double* delta, double* expect, double* logp) noexcept nogil:
        cdef int p = m.n_stats, rc
        cdef int64_t n, target
        rc = self._parse(m, block, k)
        if rc != 0:
            return rc
        n = self.n_conf
        if n * (p if p > 0 else 1) > MAX_CELLS:
            return -2
        if self._ensure_confs(n, p) != 0:
            return -1
        if self._walk(m, p) != 0:
            self._move_to(m, 0)
            return -1
        target = conditional_draw(self.D, self.w, n, p, theta, rng, delta, expect, logp)
        if self._move_to(m, target) != 0:
            return -1
        return 0

    # -- Python level ----------------------------------------------------------
    def _block(self, BinaryModel model, block):
        if model.n_vars != self.n_vars:
            raise ValueError(f"the kernel was built for {self.n_vars} variables, the model has "
                             f"{model.n_vars}")
        return _as_block(model, block, self.max_size)

    def _theta(self, BinaryModel model, theta):
        return _as_theta(model, theta)

    def conditional(self, BinaryModel model, block, theta):
        """log p(current levels of the block | rest) and E[g | rest] - g(x); the
        state is not changed."""
        cdef cnp.ndarray[cnp.int64_t, ndim=1] b = self._block(model, block)
        cdef cnp.ndarray[double, ndim=1] th = self._theta(model, theta)
        cdef cnp.ndarray[double, ndim=1] e = np.zeros(max(1, model.n_stats))
        cdef double lp = 0.0
        cdef int rc = self.update(model, <int64_t*>&b[0] if b.shape[0] else NULL,
                                  <int>b.shape[0], &th[0], NULL, NULL, &e[0], &lp)
        _check(rc, b, self.max_configs)
        return lp, e[:model.n_stats].copy()

    def draw(self, BinaryModel model, block, theta, random_state=None):
        """One exact draw of the block given the rest (the model moves there);
        returns g(x') - g(x)."""
        from ergmfit.utils.validation import seed_words
        cdef cnp.ndarray[cnp.int64_t, ndim=1] b = self._block(model, block)
        cdef cnp.ndarray[double, ndim=1] th = self._theta(model, theta)
        cdef cnp.ndarray[double, ndim=1] dl = np.zeros(max(1, model.n_stats))
        cdef cnp.uint64_t[:] sw = seed_words(random_state)
        cdef RNG rng
        rng_seed(&rng, sw[0], sw[1], sw[2], sw[3])
        cdef int rc = self.update(model, <int64_t*>&b[0] if b.shape[0] else NULL,
                                  <int>b.shape[0], &th[0], &rng, &dl[0], NULL, NULL)
        _check(rc, b, self.max_configs)
        return dl[:model.n_stats].copy()

    def differences(self, BinaryModel model, block):
        """The valid configurations of a block and their statistic differences.

        Returns (D, levels, units): D (N, p) with row c = g(x with the block's
        units at the levels of configuration c) - g(x) (row 0 = the current
        levels, D_0 = 0); levels (N, m) the level of each unit in each
        configuration; units (m,) the group of each unit, in order of first
        appearance in the block.  The state is not changed.
        """
        cdef cnp.ndarray[cnp.int64_t, ndim=1] b = self._block(model, block)
        cdef int p = model.n_stats, rc
        cdef int64_t n
        rc = self._parse(model, <int64_t*>&b[0] if b.shape[0] else NULL, <int>b.shape[0])
        _check(rc, b, self.max_configs)
        n = self.n_conf
        if n * max(p, 1) > MAX_CELLS:
            raise ValueError(f"{n:,} configurations x {p} statistics is too large to hold")
        if self._ensure_confs(n, p) != 0:
            raise MemoryError()
        rc = self._walk(model, p)
        if self._move_to(model, 0) != 0 or rc != 0:
            raise MemoryError("out of memory while flipping variables")
        D = np.empty((n, p))
        if p:
            memcpy(<void*>cnp.PyArray_DATA(D), self.D, n * p * sizeof(double))
        mu = self.m_units
        L = np.array([self.L[u] for u in range(mu)], dtype=np.int64)
        lv0 = np.array([self.lv0[u] for u in range(mu)], dtype=np.int64)
        units = np.array([self.unit[u] for u in range(mu)], dtype=np.int64)
        return D, gray_levels(L, lv0), units

    def block_differences(self, BinaryModel model, blocks):
        """D for each of C blocks with the same number N of configurations: an
        array (C, N, p) (see :meth:`differences`), from one compiled loop; the
        state is restored.  Independent of theta: a composite likelihood over
        these blocks is a function of this array alone."""
        cdef cnp.ndarray[cnp.int64_t, ndim=2] bl = np.ascontiguousarray(
            np.atleast_2d(np.asarray(blocks, dtype=np.int64)))
        cdef Py_ssize_t C = bl.shape[0], c
        cdef int k = <int>bl.shape[1], p = model.n_stats, rc = 0
        cdef int64_t n
        if model.n_vars != self.n_vars:
            raise ValueError("the kernel was built for a different number of variables")
        if C == 0:
            return np.zeros((0, 1, p))
        if k > self.max_size:
            raise ValueError(f"blocks of {k} variables exceed max_size={self.max_size}")
        if bl.min() < 0 or bl.max() >= self.n_vars:
            raise IndexError(f"block variables must lie in 0..{self.n_vars - 1}")
        if k > 1:
            srt = np.sort(bl, axis=1)
            if np.any(srt[:, 1:] == srt[:, :-1]):
                raise ValueError("the variables of each block must be distinct")
        rc = self._parse(model, <const int64_t*>&bl[0, 0], k)
        _check(rc, bl[0], self.max_configs)
        n = self.n_conf
        if n * max(p, 1) > MAX_CELLS:
            raise ValueError(f"{n:,} configurations x {p} statistics is too large to hold")
        if self._ensure_confs(n, p) != 0:
            raise MemoryError()
        cdef cnp.ndarray[double, ndim=3] out = np.zeros((C, n, max(p, 1)))
        with nogil:
            for c in range(C):
                rc = self._parse(model, <const int64_t*>&bl[c, 0], k)
                if rc != 0:
                    break
                if self.n_conf != n:
                    rc = -7
                    break
                rc = self._walk(model, p)
                if self._move_to(model, 0) != 0 or rc != 0:
                    rc = -1
                    break
                if p:
                    memcpy(&out[c, 0, 0], self.D, n * p * sizeof(double))
        if rc == -7:
            raise ValueError(f"block {c} has a different number of configurations than block 0; "
                             "give blocks of equal shape")
        _check(rc, bl[c] if C else bl[0], self.max_configs)
        return out[:, :, :p]


def _check(int rc, b, max_configs):
    if rc == 0:
        return
    if rc == -1:
        raise MemoryError("out of memory while flipping variables")
    if rc == -2:
        raise ValueError(f"the block {np.asarray(b).tolist()} is too large (more than "
                         f"max_size variables or {max_configs:,} configurations)")
    if rc == NOT_WHOLE_GROUPS:
        raise ValueError(f"the block {np.asarray(b).tolist()} is not a union of whole one-hot "
                         "groups: give every indicator of each categorical variable")
    if rc == INVALID_STATE:
        raise ValueError("the current state violates the one-hot constraint in a group of the "
                         "block (not exactly one indicator on)")
    raise RuntimeError(f"block kernel failed (code {rc})")


cdef class UniformGroupBlocks(BlockChooser):
    """k distinct groups drawn uniformly at random (every k-subset of groups
    equally likely, independently of the state); the block is their
    variables, concatenated.

    Parameters
    ----------
    groups : list of sequences of variable indices (disjoint)
    k : int -- groups per block
    n_vars : int, optional -- variables of the model (default: 1 + the largest index)
    """
    cdef readonly cnp.ndarray offsets_arr
    cdef readonly cnp.ndarray members_arr
    cdef int64_t* goff
    cdef int64_t* gmem
    cdef int64_t* pick
    cdef readonly int64_t n_groups
    cdef readonly int k

    def __cinit__(self, groups, int k, n_vars=None):
        self.pick = NULL
        groups = [np.asarray(g, dtype=np.int64).ravel() for g in groups]
        if not groups:
            raise ValueError("the list of groups is empty")
        if any(g.size == 0 for g in groups):
            raise ValueError("a group is empty")
        allv = np.concatenate(groups)
        nv = int(allv.max()) + 1 if n_vars is None else int(n_vars)
        if allv.min() < 0 or allv.max() >= nv:
            raise IndexError(f"group variables must lie in 0..{nv - 1}")
        if len(np.unique(allv)) != allv.size:
            raise ValueError("the groups must be disjoint (and their variables distinct)")
        if k < 1 or k > len(groups):
            raise ValueError(f"k must lie in 1..{len(groups)} (the number of groups), got {k}")
        sizes = np.array([g.size for g in groups], dtype=np.int64)
        self.offsets_arr = np.zeros(len(groups) + 1, dtype=np.int64)
        self.offsets_arr[1:] = np.cumsum(sizes)
        self.members_arr = np.ascontiguousarray(allv, dtype=np.int64)
        self.goff = <int64_t*>cnp.PyArray_DATA(self.offsets_arr)
        self.gmem = <int64_t*>cnp.PyArray_DATA(self.members_arr)
        self.n_groups = len(groups)
        self.k = k
        self.n_vars = nv
        self.max_size = int(np.sort(sizes)[::-1][:k].sum())
        self.pick = <int64_t*>malloc(k * sizeof(int64_t))
        if self.pick == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.pick)

    cdef int choose(self, RNG* rng, int64_t* out) noexcept nogil:
        cdef int r = 0, s, n = 0
        cdef int64_t g, j
        cdef bint seen
        while r < self.k:
            g = rng_below(rng, self.n_groups)
            seen = 0
            for s in range(r):
                if self.pick[s] == g:
                    seen = 1
                    break
            if seen:
                continue
            self.pick[r] = g
            r += 1
            for j in range(self.goff[g], self.goff[g + 1]):
                out[n] = self.gmem[j]
                n += 1
        return n
