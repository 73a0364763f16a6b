# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled binary Markov random fields behind the BinaryModel interface.

:class:`MonomialModel` is one class for every model of ``ergmfit.mrf`` whose
log-density is linear in the parameters and polynomial in the variables:

    g_k(x) = sum_{t : stat(t) = k}  c_t  prod_{v in S_t} s(x_v),

with s(x) = x (0/1 coding) or s(x) = 2x - 1 (+-1 coding, x = 1 <-> spin +1).
Ising fields (S = {i}) and couplings (S = {i, j}), tied (all monomials on
one statistic) or free (one statistic each), the higher-order potentials of
a visible Boltzmann machine (|S| >= 3, Asuncion et al. 2010 sec. 4.1) and the
feature-weighted node/edge potentials of a CRF (c_t = h_j(y)_r, h_ij(y)_r)
are all of this form.  The change statistic of variable v is

    Delta_v[k] = sum_{t ∋ v, stat(t) = k} c_t (s(1) - s(0)) prod_{u in S_t \ v} s(x_u),

with s(1) - s(0) = 1 (0/1) or 2 (+-1): O(sum of the sizes of v's monomials).
The state is kept as a byte per variable plus the list of variables equal to
1 (O(1) flips), so MHSampler, BlockGibbsSampler, the PL design builder and
the block enumerator all run on it unchanged.
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, calloc, free
from libc.stdint cimport int64_t
from ergmfit.utils.validation import check_index_set
from ergmfit.families.binary import BINARY

cnp.import_array()


cdef class MonomialModel(BinaryModel):
    """A binary MRF with statistics made of weighted monomials.

    Parameters
    ----------
    n_vars : int
    n_stats : int
    monomials : list of sequences of variable indices (each non-empty, distinct)
    stat : int array (one per monomial) -- the statistic it adds to
    coef : float array (one per monomial)
    pm1 : bool -- +-1 spins (True) or 0/1 variables (False)

    ``family``: what its variables are, binary (:data:`~ergmfit.families.BINARY`); a
    subclass coding other variables on the binary engine declares theirs (a Potts model's
    :class:`~ergmfit.mrf.potts.OneHotMonomialModel`: one-hot).
    """

    family = BINARY

    def __cinit__(self, int64_t n_vars, int n_stats, monomials, stat, coef, bint pm1=True):
        cdef int64_t t, r, v, T = len(monomials), total = 0
        self.m_off = self.m_var = self.v_off = self.v_mono = NULL
        self.m_stat = NULL
        self.m_coef = NULL
        self.x = NULL
        self.on_list = self.on_pos = NULL
        if n_vars < 1:
            raise ValueError("an MRF needs at least one variable")
        stat = np.asarray(stat, dtype=np.int64).ravel()
        coef = np.asarray(coef, dtype=float).ravel()
        if stat.shape[0] != T or coef.shape[0] != T:
            raise ValueError("stat and coef need one entry per monomial")
        if T and (stat.min() < 0 or stat.max() >= n_stats):
            raise ValueError(f"monomial statistics must lie in 0..{n_stats - 1}")
        mons = [check_index_set(m, n_vars, "monomial") for m in monomials]
        for m in mons:
            total += m.size
        self.n_vars = n_vars
        self.n_stats = n_stats
        self.pm1 = pm1
        self.n_mono = T
        self.m_off = <int64_t*>malloc((T + 1) * sizeof(int64_t))
        self.m_var = <int64_t*>malloc(max(1, total) * sizeof(int64_t))
        self.m_stat = <int*>malloc(max(1, T) * sizeof(int))
        self.m_coef = <double*>malloc(max(1, T) * sizeof(double))
        self.v_off = <int64_t*>calloc(n_vars + 1, sizeof(int64_t))
        self.v_mono = <int64_t*>malloc(max(1, total) * sizeof(int64_t))
        self.x = <unsigned char*>calloc(n_vars, 1)
        self.on_list = <int64_t*>malloc(n_vars * sizeof(int64_t))
        self.on_pos = <int64_t*>malloc(n_vars * sizeof(int64_t))
        if (self.m_off == NULL or self.m_var == NULL or self.m_stat == NULL or self.m_coef == NULL
                or self.v_off == NULL or self.v_mono == NULL or self.x == NULL
                or self.on_list == NULL or self.on_pos == NULL):
            raise MemoryError()
        self.m_off[0] = 0
        for t in range(T):
            m = mons[t]
            for r in range(m.shape[0]):
                self.m_var[self.m_off[t] + r] = m[r]
                self.v_off[m[r] + 1] += 1
            self.m_off[t + 1] = self.m_off[t] + m.shape[0]
            self.m_stat[t] = <int>stat[t]
            self.m_coef[t] = coef[t]
        for v in range(n_vars):
            self.v_off[v + 1] += self.v_off[v]
        fill = np.zeros(n_vars, dtype=np.int64)
        for t in range(T):
            for r in range(self.m_off[t], self.m_off[t + 1]):
                v = self.m_var[r]
                self.v_mono[self.v_off[v] + fill[v]] = t
                fill[v] += 1
        for v in range(n_vars):
            self.on_pos[v] = -1
        self.n_on_ = 0

    def __dealloc__(self):
        free(self.m_off); free(self.m_var); free(self.m_stat); free(self.m_coef)
        free(self.v_off); free(self.v_mono); free(self.x); free(self.on_list); free(self.on_pos)

    cdef void change(self, int64_t v, double* out) noexcept nogil:
        cdef int64_t a, r, t, u
        cdef double prod
        cdef int k
        for k in range(self.n_stats):
            out[k] = 0.0
        for a in range(self.v_off[v], self.v_off[v + 1]):
            t = self.v_mono[a]
            prod = self.m_coef[t]
            if self.pm1:
                prod *= 2.0
                for r in range(self.m_off[t], self.m_off[t + 1]):
                    u = self.m_var[r]
                    if u != v and not self.x[u]:
                        prod = -prod
            else:
                for r in range(self.m_off[t], self.m_off[t + 1]):
                    u = self.m_var[r]
                    if u != v and not self.x[u]:
                        prod = 0.0
                        break
            out[self.m_stat[t]] += prod

    cdef bint get(self, int64_t v) noexcept nogil:
        return self.x[v]

    cdef int flip(self, int64_t v) noexcept nogil:
        cdef int64_t p, last
        if self.x[v]:
            self.x[v] = 0
            p = self.on_pos[v]
            last = self.on_list[self.n_on_ - 1]
            self.on_list[p] = last
            self.on_pos[last] = p
            self.on_pos[v] = -1
            self.n_on_ -= 1
        else:
            self.x[v] = 1
            self.on_list[self.n_on_] = v
            self.on_pos[v] = self.n_on_
            self.n_on_ += 1
        return 0

    cdef int64_t n_on(self) noexcept nogil:
        return self.n_on_

    cdef int64_t on_var(self, int64_t k) noexcept nogil:
        return self.on_list[k]

    # Python-level ------------------------------------------------------------
    def set_state(self, x):
        """Set the state to the 0/1 vector ``x`` (booleans, 0/1, or +-1 spins)."""
        cdef cnp.ndarray[cnp.uint8_t, ndim=1] a = _as01(x, self.n_vars)
        cdef int64_t v
        for v in range(self.n_vars):
            if self.x[v] != a[v]:
                self.flip(v)

    def state(self):
        """The current state as a 0/1 uint8 array."""
        cdef int64_t v
        out = np.empty(self.n_vars, dtype=np.uint8)
        cdef cnp.uint8_t[:] o = out
        for v in range(self.n_vars):
            o[v] = self.x[v]
        return out

    def statistics(self):
        """g(x) at the current state, computed directly from the monomials."""
        cdef int64_t t, r
        cdef double prod
        out = np.zeros(self.n_stats)
        cdef double[:] o = out
        for t in range(self.n_mono):
            prod = self.m_coef[t]
            for r in range(self.m_off[t], self.m_off[t + 1]):
                if self.pm1:
                    if not self.x[self.m_var[r]]:
                        prod = -prod
                elif not self.x[self.m_var[r]]:
                    prod = 0.0
                    break
            o[self.m_stat[t]] += prod
        return out

    def monomials(self):
        """(list of variable arrays, stat, coef) as given to the constructor."""
        cdef int64_t t
        mons = [np.array([self.m_var[r] for r in range(self.m_off[t], self.m_off[t + 1])],
                         dtype=np.int64) for t in range(self.n_mono)]
        return (mons, np.array([self.m_stat[t] for t in range(self.n_mono)], dtype=np.int64),
                np.array([self.m_coef[t] for t in range(self.n_mono)]))


def _as01(x, int64_t n):
    a = np.asarray(x).ravel()
    if a.shape[0] != n:
        raise ValueError(f"a state needs {n} values, got {a.shape[0]}")
    if a.dtype == bool:
        return a.astype(np.uint8)
    if a.dtype == np.uint8 and a.flags.writeable and (n == 0 or a.max() <= 1):
        return a                 # the samplers' and estimators' own states: no sorting
    vals = np.unique(a)
    if np.all(np.isin(vals, (0, 1))):
        return a.astype(np.uint8)
    if np.all(np.isin(vals, (-1, 1))):
        return (a > 0).astype(np.uint8)
    raise ValueError("a state must hold 0/1 values, booleans, or -1/+1 spins")


# The block kernels of the MRF models share this extension module (each compiled module costs
# about 1 CPU s of build before its own code, docs/build.md); their sources stay in their own files:
# - _potts.pxi: the one-hot (Potts) block kernel and node-group block choosers;
# - _trees.pxi: forward-backward over chain/tree blocks and grid-shaped block choosers.
include "_potts.pxi"
include "_trees.pxi"
