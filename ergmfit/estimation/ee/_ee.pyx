# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The inner loop of Equilibrium Expectation, compiled (no Python per iteration).

One call runs ``n_iter`` EE iterations on a Metropolis-Hastings sampler of either
family (:class:`~ergmfit.sampling._mh.MHSampler` or ``CountMHSampler``: the loop is
compiled once per sampler type, ``AnySampler``):
each makes ``m`` Metropolis-Hastings proposals at the current θ (moves
applied), accumulates dzA += add − del (so dzA = g(x_t) − g(x_obs) when the
chain started at the observed state with dzA = 0), calls the proposal's
``end_batch`` hook, and then updates every free parameter k:

* ``update == 0`` (Borisenko, Byshkin & Lomi 2019, eq. 14):
  θ_k ← θ_k − a · max(|θ_k|, c) · sign(dzA_k), with sign(0) = 0;
* ``update == 1`` (Byshkin et al. 2018, EstimNetDirected's default):
  θ_k ← θ_k − sign(dzA_k) · aca · D_k · dzA_k²;
* ``update == 2`` (stochastic approximation with a preconditioner, as the
  Robbins-Monro phase of Snijders 2002): θ ← θ − a · P · dzA, P ≈ Cov(g)⁻¹
  given in ``P`` (rows and columns of fixed parameters zero).

With an IFD proposal the density column ``dens`` is not a free parameter:
the sampler sees θ_dens = 0 (the auxiliary V replaces it) and the recorded
θ_dens is V − ``arc_corr``; its recorded dzA is Ndel − Nadd of the batch
(EstimNetDirected's convention).

The rows of θ, of dzA and the acceptance rate of every iteration are written
to ``theta_out``, ``dz_out``, ``acc_out`` (and V to ``v_out``).
"""
import numpy as np

from ergmfit.utils.setops import unique_sorted
cimport numpy as cnp
from libc.math cimport fabs, fmax
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free
from ergmfit.core._model cimport BinaryModel
from ergmfit.core._random cimport RNG, rng_below
from ergmfit.sampling._mh cimport CountMHSampler, MHSampler
from ergmfit.sampling._proposals cimport IFD

cnp.import_array()

# the samplers the loop runs on (both families' samplers have the same batch interface)
ctypedef fused AnySampler:
    MHSampler
    CountMHSampler


cdef class RestrictedIFD(IFD):
    """The IFD proposal on a set of free variables (a dyad-set constraint:
    ``blockdiag``, ``fixallbut``, ``blocks``, ``fixedas``, ``dyads``,
    ``observed``): a delete picks a uniformly chosen present tie among the
    free dyads, an add a uniformly chosen absent free dyad; the other dyads
    keep their observed values.  Add and delete alternate and V adapts as in
    :class:`~ergmfit.sampling._proposals.IFD`, so the free ties stay at L_f
    or L_f + 1 and the density parameter is V − log((D_f − L_f) / (L_f + 1))
    with D_f free dyads and L_f observed ties among them (the IFD formula on
    the free dyads: the chain is IFD on the constrained space)."""
    cdef int64_t[::1] free_v     # the free variables, ascending
    cdef int64_t[::1] on_list    # the free variables that are on, by their index in free_v
    cdef int64_t[::1] pos        # per free variable (index in free_v): its place in on_list,
                                 # -1 off (memory in the free variables, not in n_vars)
    cdef public int64_t n_on_free
    cdef int64_t _last_v, _last_k  # the variable last proposed and its index in free_v

    def __init__(self, free_vars, int64_t n_vars, double V=0.0, double K=0.1,
                 bint adapt=True, bint start_delete=False):
        IFD.__init__(self, V, K, adapt, start_delete)
        f = unique_sorted(np.asarray(free_vars, dtype=np.int64))
        if len(f) and (f.min() < 0 or f.max() >= n_vars):
            raise ValueError("free variables out of range")
        self.free_v = f
        self.on_list = np.zeros(max(1, len(f)), dtype=np.int64)
        self.pos = np.full(max(1, len(f)), -1, dtype=np.int64)
        self.n_on_free = 0
        self._last_v = -1
        self._last_k = -1

    @property
    def n_free(self):
        return int(self.free_v.shape[0])

    cdef int64_t _index(self, int64_t v) noexcept nogil:
        # v's index in free_v (binary search), -1 if v is not free
        cdef int64_t lo = 0, hi = self.free_v.shape[0], mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.free_v[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < self.free_v.shape[0] and self.free_v[lo] == v else -1

    cdef void start(self, BinaryModel m) noexcept nogil:
        cdef int64_t i, n = 0
        for i in range(self.free_v.shape[0]):
            if m.get(self.free_v[i]):
                self.pos[i] = n
                self.on_list[n] = i
                n += 1
            else:
                self.pos[i] = -1
        self.n_on_free = n

    cdef int64_t propose(self, BinaryModel m, RNG* rng, double* log_q_ratio) noexcept nogil:
        cdef int64_t nf = self.free_v.shape[0]
        cdef int64_t v, k, tries = 0
        log_q_ratio[0] = 0.0
        if nf <= 0:
            return -1
        if self.is_delete and self.n_on_free == 0:
            self.is_delete = 0
        elif not self.is_delete and self.n_on_free >= nf:
            self.is_delete = 1
        if self.is_delete:
            self.n_del += 1
            k = self.on_list[rng_below(rng, self.n_on_free)]
            self._last_k = k
            self._last_v = self.free_v[k]
            return self._last_v
        self.n_add += 1
        while True:
            k = rng_below(rng, nf)
            v = self.free_v[k]
            if not m.get(v):
                self._last_k = k
                self._last_v = v
                return v
            tries += 1
            if tries > 1000000:
                return -1

    cdef void accepted(self, BinaryModel m, int64_t v, bint now_on) noexcept nogil:
        cdef int64_t i, k, last
        self.is_delete = not self.is_delete
        if m.get(v) != now_on:
            return                   # scored, not applied (Algorithm S)
        # the proposal's own move: its index known; another toggle: searched
        k = self._last_k if v == self._last_v else self._index(v)
        if k < 0:
            return                   # not a free variable
        if now_on:
            self.pos[k] = self.n_on_free
            self.on_list[self.n_on_free] = k
            self.n_on_free += 1
        else:
            i = self.pos[k]
            last = self.on_list[self.n_on_free - 1]
            self.on_list[i] = last
            self.pos[last] = i
            self.pos[k] = -1
            self.n_on_free -= 1


def ifd_follow(MHSampler s, double d):
    """Missing dyads (:mod:`._ee_missing`): the IFD chain's tie count follows
    the completion's.  ``d`` = L(x) − L(y), the chain's tie count minus the
    completion's: the next accepted IFD move is made an add when d < 0 and a
    delete when d > 0 (so the band {L, L + 1} the chain alternates in moves
    by one towards the completion's count); d = 0 leaves it.  Returns
    (D, L): the free variables and the low point of the band after this, for
    θ_density = V − log((D − L) / (L + 1))."""
    cdef IFD ifd = s.proposal
    cdef int64_t L, D
    if d < 0:
        ifd.is_delete = 0
    elif d > 0:
        ifd.is_delete = 1
    if isinstance(ifd, RestrictedIFD):
        L = (<RestrictedIFD>ifd).n_on_free
        D = (<RestrictedIFD>ifd).free_v.shape[0]
    else:
        L = s.model.n_on()
        D = s.model.n_vars
    return D, L - (1 if ifd.is_delete and L > 0 else 0)


def ee_iterations(AnySampler s, double[::1] theta, double[::1] dzA, int64_t n_iter, int64_t m,
                  int update, double a, double c, double aca, double[::1] D,
                  int dens, double arc_corr,
                  double[:, ::1] theta_out, double[:, ::1] dz_out, double[::1] acc_out,
                  double[::1] v_out, double[:, ::1] P=None):
    """Run ``n_iter`` EE iterations; θ and dzA are updated in place.

    Returns the number of iterations done (``n_iter``), or raises MemoryError.
    """
    cdef int p = s.model.n_stats
    cdef int rc = 0
    cdef object proposal = s.proposal
    cdef IFD ifd = proposal if isinstance(proposal, IFD) else None
    cdef bint use_ifd = ifd is not None and dens >= 0
    cdef double* th_s
    cdef double* add
    cdef double* dele
    cdef double* delta = <double*>cnp.PyArray_DATA(s.delta) if p else NULL
    if theta.shape[0] != p or dzA.shape[0] != p or D.shape[0] != p:
        raise ValueError("theta, dzA and D need one value per statistic")
    if update == 2 and (P is None or P.shape[0] != p or P.shape[1] != p):
        raise ValueError("update 2 needs a (p, p) preconditioner P")
    if theta_out.shape[0] < n_iter or dz_out.shape[0] < n_iter or acc_out.shape[0] < n_iter \
            or v_out.shape[0] < n_iter:
        raise ValueError("output arrays too short")
    if p == 0:
        return 0
    th_s = <double*>malloc(3 * p * sizeof(double))
    if th_s == NULL:
        raise MemoryError()
    add = th_s + p
    dele = th_s + 2 * p
    try:
        rc = _loop(s, theta, dzA, n_iter, m, update, a, c, aca, D, dens, arc_corr, theta_out,
                   dz_out, acc_out, v_out, P, ifd, use_ifd, th_s, add, dele, delta)
    finally:
        free(th_s)
    if rc != 0:
        raise MemoryError("out of memory during sampling")
    return n_iter


cdef int _loop(AnySampler s, double[::1] theta, double[::1] dzA, int64_t n_iter, int64_t m,
               int update, double a, double c, double aca, double[::1] D, int dens,
               double arc_corr, double[:, ::1] theta_out, double[:, ::1] dz_out,
               double[::1] acc_out, double[::1] v_out, double[:, ::1] P, IFD ifd, bint use_ifd,
               double* th_s, double* add, double* dele, double* delta) except -2:
    # the iterations; after every 2^16 proposals the sampler looks for a
    # pending signal (Ctrl-C raises KeyboardInterrupt between iterations:
    # theta, dzA and the rows written so far agree with the chain's state)
    cdef int p = s.model.n_stats
    cdef int k, j, rc = 0
    cdef int64_t it, acc0
    cdef double sg, step
    with nogil:
        for it in range(n_iter):
            for k in range(p):
                th_s[k] = theta[k]
                add[k] = 0.0
                dele[k] = 0.0
            if use_ifd:
                th_s[dens] = 0.0
            acc0 = s.n_accepted
            rc = s._batch(th_s, m, delta, add, dele, 1, NULL, NULL)
            if rc != 0:
                break
            s.proposal.end_batch()
            for k in range(p):
                dzA[k] += add[k] - dele[k]
            if update == 2:
                for k in range(p):
                    step = 0.0
                    for j in range(p):
                        step = step + P[k, j] * dzA[j]
                    theta[k] -= a * step
            for k in range(p):
                if update == 2 or (use_ifd and k == dens):
                    continue
                sg = 1.0 if dzA[k] > 0 else (-1.0 if dzA[k] < 0 else 0.0)
                if update == 0:
                    step = a * fmax(fabs(theta[k]), c)
                else:
                    step = aca * D[k] * dzA[k] * dzA[k]
                theta[k] -= sg * step
            if use_ifd:
                theta[dens] = ifd.V - arc_corr
                v_out[it] = ifd.V
            else:
                v_out[it] = 0.0
            for k in range(p):
                theta_out[it, k] = theta[k]
                dz_out[it, k] = dzA[k]
            if use_ifd:
                dz_out[it, dens] = <double>(ifd.last_del - ifd.last_add)
            acc_out[it] = (<double>(s.n_accepted - acc0)) / m if m > 0 else 0.0
            s._tick(m)
    return rc
