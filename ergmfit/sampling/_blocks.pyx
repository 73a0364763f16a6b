# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Blocked Gibbs updates with exact block conditionals, on any BinaryModel.

For a block A of variables (dyads of an ERGM, units of an MRF) and the rest
x_-A held fixed,

    p(x_A | x_-A, theta) = exp(theta . g(x_A, x_-A)) / sum_a exp(theta . g(a, x_-A)).

:class:`Enumeration` visits the 2^|A| configurations of the block in
Gray-code order, so that consecutive configurations differ in one variable:
each configuration costs one ``change`` call and one ``flip`` of the model,
and the statistics of configuration s (the set of block variables flipped
relative to the current state, as a bit mask) are accumulated as

    D_s = g(x with x_A = x_A XOR s) - g(x)

from the change statistics (adding Delta_v for a 0 -> 1 flip, subtracting
it for 1 -> 0).  The conditional is then softmax(theta . D_s); a draw
moves the state to the chosen configuration with at most |A| further
flips, and the conditional expectation E[g | x_-A] - g(x) = sum_s p_s D_s
comes for free (the Rao-Blackwellised negative phase of blocked CD).

The kernel interface (:class:`BlockKernel`, see ``_blocks.pxd``) is what a
forward-backward sampler over chain- or tree-shaped blocks of a pairwise
MRF implements too; every sampler and estimator here only calls
``update``.  Block choosers (:class:`BlockChooser`): uniform random blocks
of k variables, a user's list of blocks, and, for ERGMs, blocks sharing
nodes (the dyads of a random node triple, or k dyads of a random node's
star).

:class:`BlockGibbsSampler` is the random-scan blocked Gibbs sampler; it
leaves p(x | theta) invariant for any chooser whose choice does not depend
on the state.  :func:`bcd_loop` runs blocked contrastive divergence
(Asuncion et al. 2010) in compiled code.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log, INFINITY, isfinite, fabs
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset, memcpy
from cpython.exc cimport PyErr_CheckSignals

from ergmfit.core._model cimport BinaryModel
from ergmfit.core._random cimport RNG, rng_seed, rng_uniform, rng_below
from ergmfit.terms._ergm cimport ERGMModel

cnp.import_array()

# the block choosers and the random-scan blocked Gibbs sampler share this extension module (each
# compiled module costs about 1 CPU s of build before its own code, docs/build.md); their source
# stays in its own file
include "_choosers.pxi"

cdef extern from *:
    """
    static inline int ergmfit_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int ergmfit_ctz64(unsigned long long x) noexcept nogil

MAX_ENUMERATION = 20      # hard limit of Enumeration (2^20 configurations)

# Ctrl-C: the compiled loops look for a pending signal after about this many
# flips (as the Metropolis-Hastings loop after 2^16 proposals)
cdef enum:
    CHECK_EVERY = 65536


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------
cdef int64_t conditional_draw(const double* D, double* w, int64_t n, int p,
                              const double* theta, RNG* rng, double* delta, double* expect,
                              double* logp) noexcept nogil:
    """The exact conditional over n configurations of a block, given D (n x p:
    g(configuration s) - g(x), row 0 the current one).  Writes log p of row 0
    to ``logp``, E[g | rest] - g(x) to ``expect`` and, with ``rng``, draws a
    configuration and writes its row of D to ``delta`` (zeros without rng);
    each pointer may be NULL.  Returns the drawn configuration (0 without
    rng).  ``w`` is scratch space for n weights.  Every block kernel's
    ``update`` ends here, whatever way it enumerated D."""
    return conditional_draw_masked(D, w, n, p, theta, NULL, rng, delta, expect, logp)


cdef int64_t conditional_draw_masked(const double* D, double* w, int64_t n, int p,
                                     const double* theta, const unsigned char* ok, RNG* rng,
                                     double* delta, double* expect, double* logp) noexcept nogil:
    """:func:`conditional_draw` over the configurations s with ok[s] != 0 only
    (``ok`` NULL: all of them; the same arithmetic and random numbers then).
    The others have probability 0 (log p of row 0 is -inf if ok[0] == 0).
    Returns -1, changing nothing, if no configuration is allowed."""
    cdef int64_t s, target = 0
    cdef int q
    cdef double wmax = -INFINITY, total = 0.0, dot, u, acc
    for s in range(n):
        if ok != NULL and ok[s] == 0:
            w[s] = -INFINITY
            continue
        dot = 0.0
        for q in range(p):
            dot += theta[q] * D[s * p + q]
        w[s] = dot
        if dot > wmax:
            wmax = dot
    if wmax == -INFINITY and ok != NULL:
        for s in range(n):
            if ok[s] != 0:
                break
        else:
            return -1                            # nothing allowed
    for s in range(n):
        w[s] = exp(w[s] - wmax)
        total += w[s]
    if logp != NULL:
        logp[0] = -(wmax + log(total))           # w_0 = theta . D_0 = 0
        if ok != NULL and ok[0] == 0:
            logp[0] = -INFINITY
    if expect != NULL:
        for q in range(p):
            expect[q] = 0.0
        for s in range(n):
            acc = w[s] / total
            if acc != 0.0:
                for q in range(p):
                    expect[q] += acc * D[s * p + q]
    if rng != NULL:
        u = rng_uniform(rng) * total
        acc = 0.0
        target = n - 1
        for s in range(n):
            acc += w[s]
            if u < acc:
                target = s
                break
        while target > 0 and w[target] == 0.0:   # never pick an impossible configuration
            target -= 1
        if delta != NULL:
            for q in range(p):
                delta[q] = D[target * p + q]
    elif delta != NULL:
        for q in range(p):
            delta[q] = 0.0
    return target


cdef class BlockKernel:
    """Base class: exact draws and expectations of a block (see ``_blocks.pxd``)."""

    cdef int update(self, BinaryModel m, const int64_t* block, int k, const double* theta,
                    RNG* rng, double* delta, double* expect, double* logp) noexcept nogil:
        return -2

    def conditional(self, BinaryModel model, block, theta):
        """log p(x_A | x_-A) of the current block values and E[g | x_-A] - g(x),
        for tests and Python-level estimators (the state is not changed)."""
        cdef cnp.ndarray[cnp.int64_t, ndim=1] b = _as_block(model, block, self.max_size)
        cdef cnp.ndarray[double, ndim=1] th = _as_theta(model, theta)
        cdef cnp.ndarray[double, ndim=1] e = np.zeros(max(1, model.n_stats))
        cdef double lp = 0.0
        cdef int rc
        rc = self.update(model, <int64_t*>&b[0] if b.shape[0] else NULL, <int>b.shape[0],
                         &th[0], NULL, NULL, &e[0], &lp)
        _check_rc(rc, b.shape[0], self.max_size)
        return lp, e[:model.n_stats].copy()


cdef class Enumeration(BlockKernel):
    """Exact block conditionals by enumerating the 2^k configurations.

    Parameters
    ----------
    max_size : int
        Largest block (default 12: 4,096 configurations; at most 20).
    """

    def __cinit__(self, int max_size=12, *args, **kwargs):
        if max_size < 0 or max_size > MAX_ENUMERATION:
            raise ValueError(f"max_size must lie in 0..{MAX_ENUMERATION}, got {max_size}")
        self.max_size = max_size
        self.D = NULL
        self.w = NULL
        self.buf = NULL
        self.cap_k = -1
        self.cap_p = -1

    def __dealloc__(self):
        free(self.D); free(self.w); free(self.buf)

    cdef int _ensure(self, int p, int k) noexcept nogil:
        cdef int64_t n
        cdef void* a
        if k <= self.cap_k and p <= self.cap_p:
            return 0
        if k < self.cap_k:
            k = self.cap_k
        if p < self.cap_p:
            p = self.cap_p
        n = (<int64_t>1) << k
        a = realloc(self.D, n * max(1, p) * sizeof(double))
        if a == NULL:
            return -1
        self.D = <double*>a
        a = realloc(self.w, n * sizeof(double))
        if a == NULL:
            return -1
        self.w = <double*>a
        a = realloc(self.buf, max(1, p) * sizeof(double))
        if a == NULL:
            return -1
        self.buf = <double*>a
        self.cap_k = k
        self.cap_p = p
        return 0

    cdef int64_t walk(self, BinaryModel m, const int64_t* block, int k, int p) noexcept nogil:
        """Fill D (2^k x p) by a Gray-code walk; returns the configuration the
        state is left in (a bit mask relative to the start), or -1 if a flip
        failed (the state is then restored as far as possible)."""
        cdef int64_t n = (<int64_t>1) << k, t, cur = 0, new, bit
        cdef int b, q
        cdef int64_t v
        cdef bint on
        cdef double* D = self.D
        cdef double* buf = self.buf
        cdef double* rc
        cdef double* rn
        for q in range(p):
            D[q] = 0.0
        for t in range(1, n):
            b = ergmfit_ctz64(<unsigned long long>t)
            v = block[b]
            m.change(v, buf)
            on = m.get(v)
            if m.flip(v) != 0:
                _move(m, block, cur, 0)
                return -1
            bit = (<int64_t>1) << b
            new = cur ^ bit
            rc = D + cur * p
            rn = D + new * p
            if on:
                for q in range(p):
                    rn[q] = rc[q] - buf[q]
            else:
                for q in range(p):
                    rn[q] = rc[q] + buf[q]
            cur = new
        return cur

    cdef int update(self, BinaryModel m, const int64_t* block, int k, const double* theta,
                    RNG* rng, double* delta, double* expect, double* logp) noexcept nogil:
        return self.update_with(m, block, k, theta, NULL, rng, delta, expect, logp)

    cdef int update_with(self, BinaryModel m, const int64_t* block, int k, const double* theta,
                         const unsigned char* ok, RNG* rng, double* delta, double* expect,
                         double* logp) noexcept nogil:
        """``update`` over the configurations s with ok[s] != 0 only (``ok`` NULL:
        all; see :func:`conditional_draw_masked`).  Returns -7 if none is allowed."""
        cdef int p = m.n_stats
        cdef int64_t n, cur, target
        if k < 0 or k > self.max_size:
            return -2
        if self._ensure(p, k) != 0:
            return -1
        cur = self.walk(m, block, k, p)
        if cur < 0:
            return -1
        n = (<int64_t>1) << k
        target = conditional_draw_masked(self.D, self.w, n, p, theta, ok, rng, delta, expect,
                                         logp)
        if target < 0:
            _move(m, block, cur, 0)
            return -7
        if _move(m, block, cur, target) != 0:
            return -1
        return 0

    def differences(self, BinaryModel model, block):
        """The (2^k, p) matrix D: row s = g(x with the block variables in the
        bit mask s flipped) - g(x).  The state is not changed."""
        cdef cnp.ndarray[cnp.int64_t, ndim=1] b = _as_block(model, block, self.max_size)
        cdef int k = <int>b.shape[0], p = model.n_stats
        cdef int64_t cur
        if self._ensure(p, k) != 0:
            raise MemoryError()
        cur = self.walk(model, <int64_t*>&b[0] if k else NULL, k, p)
        if cur < 0 or _move(model, <int64_t*>&b[0] if k else NULL, cur, 0) != 0:
            raise MemoryError("out of memory while flipping variables")
        out = np.empty(((<int64_t>1) << k, p))
        if p:
            memcpy(<void*>cnp.PyArray_DATA(out), self.D, out.size * sizeof(double))
        return out


cdef int _move(BinaryModel m, const int64_t* block, int64_t cur, int64_t target) noexcept nogil:
    """Flip the block variables whose bits differ between the masks cur and target."""
    cdef int64_t diff = cur ^ target
    cdef int b
    while diff:
        b = ergmfit_ctz64(<unsigned long long>diff)
        if m.flip(block[b]) != 0:
            return -1
        diff &= diff - 1
    return 0


def _as_theta(BinaryModel model, theta):
    th = np.ascontiguousarray(theta, dtype=float).ravel()
    if th.shape[0] != model.n_stats:
        raise ValueError(f"theta must have {model.n_stats} values, got {th.shape[0]}")
    if th.shape[0] == 0:
        th = np.zeros(1)
    return th


def _as_block(BinaryModel model, block, int max_size):
    b = np.ascontiguousarray(block, dtype=np.int64).ravel()
    if b.shape[0] > max_size:
        raise ValueError(f"a block of {b.shape[0]} variables is larger than the kernel's "
                         f"max_size={max_size}")
    if b.shape[0] and (b.min() < 0 or b.max() >= model.n_vars):
        raise IndexError(f"block variables must lie in 0..{model.n_vars - 1}")
    if len(np.unique(b)) != b.shape[0]:
        raise ValueError(f"the variables of a block must be distinct, got {b.tolist()}")
    return b


def _check_rc(int rc, k, max_size):
    if rc == -1:
        raise MemoryError("out of memory while flipping variables")
    if rc == -2:
        raise ValueError(f"a block of {k} variables is larger than the kernel's max_size={max_size}")
    if rc == -4:
        raise ValueError("the block is not a forest of the model's interaction graph: "
                         "forward-backward needs chain- or tree-shaped blocks")
    if rc == -5:
        raise ValueError("the block is not a union of whole one-hot groups (a Potts node's "
                         "indicators move together)")
    if rc == -6:
        raise ValueError("the state violates the one-hot constraint (each Potts node must have "
                         "exactly one indicator on)")
    if rc == -7:
        raise ValueError("no configuration of the block keeps every degree within its "
                         "bounds: the state lies outside the degree bounds")
    if rc != 0:
        raise RuntimeError(f"block kernel failed (code {rc})")


def block_differences(BinaryModel model, cnp.int64_t[:, :] blocks, Enumeration kernel=None):
    """D for each row of ``blocks`` (equal-sized blocks): an array (C, 2^k, p).

    Row s of block c is g(x with the variables of c in bit mask s flipped) - g(x),
    at the model's current state (restored afterwards).  Independent of theta,
    so a composite likelihood is a function of these arrays alone.
    """
    cdef Py_ssize_t C = blocks.shape[0], c
    cdef int k = <int>blocks.shape[1], p = model.n_stats
    cdef int64_t n = (<int64_t>1) << k, cur
    cdef int bad = 0
    if kernel is None:
        kernel = Enumeration(max(k, 1))
    if k > kernel.max_size:
        raise ValueError(f"blocks of {k} variables exceed max_size={kernel.max_size}")
    arr = np.asarray(blocks)
    if C and (arr.min() < 0 or arr.max() >= model.n_vars):
        raise IndexError(f"block variables must lie in 0..{model.n_vars - 1}")
    if C and k > 1:
        srt = np.sort(arr, axis=1)
        if np.any(srt[:, 1:] == srt[:, :-1]):
            raise ValueError("the variables of each block must be distinct")
    cdef cnp.ndarray[double, ndim=3] out = np.zeros((C, n, max(p, 1)))
    if kernel._ensure(p, k) != 0:
        raise MemoryError()
    cdef cnp.ndarray[cnp.int64_t, ndim=2] bl = np.ascontiguousarray(arr, dtype=np.int64)
    cdef int64_t since = 0
    with nogil:
        for c in range(C):
            cur = kernel.walk(model, <int64_t*>&bl[c, 0] if k else NULL, k, p)
            if cur < 0 or _move(model, <int64_t*>&bl[c, 0] if k else NULL, cur, 0) != 0:
                bad = 1
                break
            if p:
                memcpy(&out[c, 0, 0], kernel.D, n * p * sizeof(double))
            since += n
            if since >= CHECK_EVERY:          # Ctrl-C (the state is restored here)
                since = 0
                with gil:
                    PyErr_CheckSignals()
    if bad:
        raise MemoryError("out of memory while flipping variables")
    return out[:, :, :p]


def kernel_composite(BinaryModel model, BlockKernel kernel, cnp.int64_t[:] flat,
                     cnp.int64_t[:] offsets, theta):
    """Sum over the blocks (flat[offsets[c]:offsets[c+1]]) of log p(x_A | x_-A) and of
    g(x) - E[g | x_-A]: the composite log-likelihood and its gradient with any kernel."""
    cdef cnp.ndarray[double, ndim=1] th = _as_theta(model, theta)
    cdef int p = model.n_stats, q, rc = 0
    cdef Py_ssize_t c, C = offsets.shape[0] - 1
    cdef cnp.ndarray[double, ndim=1] grad = np.zeros(max(p, 1))
    cdef cnp.ndarray[double, ndim=1] e = np.zeros(max(p, 1))
    cdef double total = 0.0, lp = 0.0
    with nogil:
        for c in range(C):
            rc = kernel.update(model, <const int64_t*>&flat[offsets[c]], <int>(offsets[c + 1] - offsets[c]),
                               &th[0], NULL, NULL, &e[0], &lp)
            if rc != 0:
                break
            total += lp
            for q in range(p):
                grad[q] -= e[q]
    _check_rc(rc, -1, kernel.max_size)
    return total, grad[:p].copy()


cdef class BlockGibbsSampler:
    """Random-scan blocked Gibbs sampling on a BinaryModel.

    Each step draws a block with ``chooser`` and replaces x_A by a draw from
    p(x_A | x_-A, theta) with ``kernel``.  ``delta`` tracks g(x_t) - g(x_0).
    With blocks of size 1 this is random-scan single-site Gibbs sampling.

    Parameters
    ----------
    model : BinaryModel (its state is advanced in place)
    chooser : BlockChooser
    kernel : BlockKernel (default: Enumeration(chooser.max_size))
    seed : 4 uint64 words (``ergmfit.utils.validation.seed_words``)
    """
    cdef readonly BinaryModel model
    cdef readonly BlockChooser chooser
    cdef readonly BlockKernel kernel
    cdef RNG rng
    cdef int64_t* block
    cdef double* buf
    cdef readonly int64_t n_steps
    cdef readonly int64_t n_moved
    cdef public cnp.ndarray delta

    def __cinit__(self, BinaryModel model, BlockChooser chooser, BlockKernel kernel=None,
                  cnp.uint64_t[:] seed=None):
        if kernel is None:
            kernel = Enumeration(max(1, chooser.max_size))
        if chooser.max_size > kernel.max_size:
            raise ValueError(f"the chooser's blocks (up to {chooser.max_size} variables) exceed "
                             f"the kernel's max_size={kernel.max_size}")
        if chooser.n_vars != model.n_vars:
            raise ValueError("the chooser was built for a model with a different number of "
                             "variables")
        self.model = model
        self.chooser = chooser
        self.kernel = kernel
        if seed is None:
            from ergmfit.utils.validation import seed_words
            seed = seed_words(None)
        rng_seed(&self.rng, seed[0], seed[1], seed[2], seed[3])
        self.block = <int64_t*>malloc(max(1, chooser.max_size) * sizeof(int64_t))
        self.buf = <double*>malloc(max(1, model.n_stats) * sizeof(double))
        if self.block == NULL or self.buf == NULL:
            raise MemoryError()
        self.delta = np.zeros(model.n_stats)

    def __dealloc__(self):
        free(self.block)
        free(self.buf)

    cdef int _steps(self, const double* theta, int64_t steps, double* delta) noexcept nogil:
        cdef int64_t t
        cdef int k, q, rc, p = self.model.n_stats
        cdef bint moved
        for t in range(steps):
            k = self.chooser.choose(&self.rng, self.block)
            if k < 0:
                return -3
            rc = self.kernel.update(self.model, self.block, k, theta, &self.rng, self.buf,
                                    NULL, NULL)
            if rc != 0:
                return rc
            self.n_steps += 1
            moved = 0
            for q in range(p):
                if self.buf[q] != 0.0:
                    moved = 1
                delta[q] += self.buf[q]
            if moved:
                self.n_moved += 1
        return 0

    cdef int _checked(self, const double* theta, int64_t steps, double* delta) except -100 nogil:
        # _steps in chunks of about CHECK_EVERY flips, with a look for a pending
        # signal (Ctrl-C raises KeyboardInterrupt here) after each
        cdef int64_t chunk, per = max(1, CHECK_EVERY >> min(self.chooser.max_size, 16))
        cdef int rc = 0
        while steps > 0 and rc == 0:
            chunk = per if per < steps else steps
            rc = self._steps(theta, chunk, delta)
            steps -= chunk
            with gil:
                PyErr_CheckSignals()
        return rc

    def run(self, theta, int64_t steps):
        """Advance the chain by ``steps`` block updates."""
        cdef cnp.ndarray[double, ndim=1] th = _as_theta(self.model, theta)
        cdef cnp.ndarray[double, ndim=1] d = self.delta
        cdef double dummy = 0.0
        cdef int rc
        with nogil:
            rc = self._checked(&th[0], steps, &d[0] if d.shape[0] else &dummy)
        _check_rc(rc, self.chooser.max_size, self.kernel.max_size)

    def sample(self, theta, int64_t n, int64_t burnin, int64_t interval):
        """g(x_t) - g(x_0) after ``burnin`` updates, then every ``interval`` updates:
        an (n, p) array."""
        cdef cnp.ndarray[double, ndim=1] th = _as_theta(self.model, theta)
        cdef cnp.ndarray[double, ndim=1] d = self.delta
        cdef int p = self.model.n_stats, q
        cdef cnp.ndarray[double, ndim=2] out = np.zeros((n, max(p, 1)))
        cdef int64_t s
        cdef int rc = 0
        cdef double dummy = 0.0
        if n < 0 or burnin < 0 or interval < 1:
            raise ValueError("need n >= 0, burnin >= 0 and interval >= 1")
        with nogil:
            rc = self._checked(&th[0], burnin, &d[0] if p else &dummy)
            s = 0
            while rc == 0 and s < n:
                rc = self._checked(&th[0], interval, &d[0] if p else &dummy)
                for q in range(p):
                    out[s, q] = d[q]
                s += 1
        _check_rc(rc, self.chooser.max_size, self.kernel.max_size)
        return out[:, :p]


# ---------------------------------------------------------------------------
# Blocked contrastive divergence
# ---------------------------------------------------------------------------
def bcd_loop(BinaryModel model, BlockChooser chooser, BlockKernel kernel, theta0,
             cnp.ndarray[double, ndim=1] rates, int steps=1, int batch=1,
             bint rao_blackwell=False, precond=None, int64_t trace_every=0,
             int64_t average_from=-1, double max_abs=1e6, seed=None):
    """Bn-CDm in compiled code.

    Iteration t: for each of ``batch`` chains, start at the data (the
    model's current state), run ``steps`` random-scan blocked Gibbs updates
    (the last one replaced by its exact conditional expectation when
    ``rao_blackwell``), and take the negative phase g(x_m) - g(x_0); the
    gradient is minus their mean, and theta <- theta + rates[t] * P @ grad
    (P = ``precond``, identity if None).  The state is restored to the data
    after every chain.

    Returns a dict: ``theta`` (last iterate), ``average`` (mean of the
    iterates from ``average_from`` on, or None), ``trace`` (theta after every
    ``trace_every`` iterations, an array), ``n_iter`` (iterations done),
    ``diverged`` (True if |theta| exceeded ``max_abs``), ``grad_mean``
    (mean gradient over the averaging window), ``interrupted`` (True if
    Ctrl-C ended the loop: the iterations before it are complete, and the
    state is the data again).  The loop looks for a pending signal after
    about every 2^16 flips.
    """
    from ergmfit.utils.validation import seed_words
    cdef int p = model.n_stats
    cdef cnp.ndarray[double, ndim=1] th = np.array(_as_theta(model, theta0), dtype=float)
    cdef int64_t n_iter = rates.shape[0]
    cdef cnp.ndarray[double, ndim=2] P
    cdef bint use_p = precond is not None
    if use_p:
        P = np.ascontiguousarray(precond, dtype=float).reshape(p, p)
    else:
        P = np.zeros((1, 1))
    if steps < 1 or batch < 1:
        raise ValueError("steps and batch must be at least 1")
    if chooser.max_size > kernel.max_size:
        raise ValueError(f"the chooser's blocks (up to {chooser.max_size} variables) exceed "
                         f"the kernel's max_size={kernel.max_size}")
    if chooser.n_vars != model.n_vars:
        raise ValueError("the chooser was built for a model with a different number of variables")
    cdef cnp.uint64_t[:] sw = seed_words(seed) if not hasattr(seed, "shape") else seed
    cdef RNG rng
    rng_seed(&rng, sw[0], sw[1], sw[2], sw[3])
    cdef int K = max(1, chooser.max_size)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] block = np.zeros(K, dtype=np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] journal = np.zeros(steps * K, dtype=np.int64)
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] before = np.zeros(K, dtype=np.uint8)
    cdef cnp.ndarray[double, ndim=1] d = np.zeros(max(p, 1))
    cdef cnp.ndarray[double, ndim=1] neg = np.zeros(max(p, 1))
    cdef cnp.ndarray[double, ndim=1] grad = np.zeros(max(p, 1))
    cdef cnp.ndarray[double, ndim=1] step = np.zeros(max(p, 1))
    cdef cnp.ndarray[double, ndim=1] avg = np.zeros(max(p, 1))
    cdef cnp.ndarray[double, ndim=1] gavg = np.zeros(max(p, 1))
    cdef int64_t n_trace = n_iter // trace_every if trace_every > 0 else 0
    cdef cnp.ndarray[double, ndim=2] trace = np.zeros((n_trace, max(p, 1)))
    cdef int64_t t, n_avg = 0, nj, r, tr = 0
    cdef int b, s, k, q, q2, rc = 0
    cdef bint diverged = 0, last, interrupted = 0
    cdef double a, x
    # flips of one iteration, at most (the signal check counts them)
    cdef int64_t per_iter = <int64_t>batch * steps * (((<int64_t>1) << min(K, 30)) + K)
    cdef int64_t since = 0
    with nogil:
        for t in range(n_iter):
            for q in range(p):
                grad[q] = 0.0
            for b in range(batch):
                for q in range(p):
                    neg[q] = 0.0
                nj = 0
                for s in range(steps):
                    k = chooser.choose(&rng, &block[0])
                    if k < 0:
                        rc = -3
                        break
                    last = s == steps - 1
                    if last and rao_blackwell:
                        rc = kernel.update(model, <const int64_t*>&block[0], k, &th[0], NULL, NULL, &d[0], NULL)
                        if rc != 0:
                            break
                    else:
                        for r in range(k):
                            before[r] = model.get(block[r])
                        rc = kernel.update(model, <const int64_t*>&block[0], k, &th[0], &rng, &d[0], NULL, NULL)
                        if rc != 0:
                            break
                        if not last:
                            for r in range(k):
                                if model.get(block[r]) != before[r]:
                                    journal[nj] = block[r]
                                    nj += 1
                        else:
                            # the last draw is undone right away (same flips, known block)
                            for r in range(k):
                                if model.get(block[r]) != before[r]:
                                    if model.flip(block[r]) != 0:
                                        rc = -1
                    for q in range(p):
                        neg[q] += d[q]
                    if rc != 0:
                        break
                # back to the data
                r = nj - 1
                while r >= 0:
                    if model.flip(journal[r]) != 0:
                        rc = -1
                    r -= 1
                if rc != 0:
                    break
                for q in range(p):
                    grad[q] -= neg[q]
            if rc != 0:
                break
            a = rates[t] / batch
            if use_p:
                for q in range(p):
                    x = 0.0
                    for q2 in range(p):
                        x += P[q, q2] * grad[q2]
                    step[q] = a * x
            else:
                for q in range(p):
                    step[q] = a * grad[q]
            for q in range(p):
                th[q] += step[q]
                if not isfinite(th[q]) or fabs(th[q]) > max_abs:
                    diverged = 1
            if average_from >= 0 and t >= average_from:
                n_avg += 1
                for q in range(p):
                    avg[q] += (th[q] - avg[q]) / n_avg
                    gavg[q] += (grad[q] / batch - gavg[q]) / n_avg
            if trace_every > 0 and (t + 1) % trace_every == 0 and tr < n_trace:
                for q in range(p):
                    trace[tr, q] = th[q]
                tr += 1
            if diverged:
                t += 1
                break
            since += per_iter
            if since >= CHECK_EVERY:
                since = 0
                with gil:
                    try:
                        PyErr_CheckSignals()
                    except KeyboardInterrupt:
                        interrupted = 1
                if interrupted:
                    t += 1
                    break
        else:
            t = n_iter
    _check_rc(rc, chooser.max_size, kernel.max_size)
    return {"theta": th[:p].copy(), "average": avg[:p].copy() if n_avg else None,
            "n_average": n_avg, "grad_mean": gavg[:p].copy() if n_avg else None,
            "trace": trace[:tr, :p].copy(), "n_iter": int(t), "diverged": bool(diverged),
            "interrupted": bool(interrupted)}
