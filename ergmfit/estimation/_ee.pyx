# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The inner loop of Equilibrium Expectation, compiled (no Python per iteration).

One call runs ``n_iter`` EE iterations on an :class:`~ergmfit.sampling._mh.MHSampler`:
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
cimport numpy as cnp
from libc.math cimport fabs, fmax
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free
from ergmfit.sampling._mh cimport MHSampler
from ergmfit.sampling._proposals cimport IFD

cnp.import_array()


def ee_iterations(MHSampler s, double[::1] theta, double[::1] dzA, int64_t n_iter, int64_t m,
                  int update, double a, double c, double aca, double[::1] D,
                  int dens, double arc_corr,
                  double[:, ::1] theta_out, double[:, ::1] dz_out, double[::1] acc_out,
                  double[::1] v_out, double[:, ::1] P=None):
    """Run ``n_iter`` EE iterations; θ and dzA are updated in place.

    Returns the number of iterations done (``n_iter``), or raises MemoryError.
    """
    cdef int p = s.model.n_stats
    cdef int rc = 0
    cdef IFD ifd = s.proposal if isinstance(s.proposal, IFD) else None
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


cdef int _loop(MHSampler s, double[::1] theta, double[::1] dzA, int64_t n_iter, int64_t m,
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
