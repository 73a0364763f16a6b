# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled loop of the approximate exchange algorithm (see ``bayes.py``).

``exchange_block`` runs ``n`` iterations of population MCMC with ADS moves
for every chain, each with its auxiliary network: ``aux_iters`` proposals of
the sampler.  With ``gaux=None`` they start from the observed network and
are undone afterwards (the sampler's journal), so every auxiliary chain
starts at the observed network (Bergm); with ``gaux`` (g(current) − g(y0),
updated in place) every auxiliary chain continues from the last auxiliary
network, and nothing is undone.  ``gx`` (one row per chain) holds
g(x_h) − g(y0) of each chain's completed network when dyads are missing
(the exchange ratio then compares the auxiliary network with x_h).  The
random numbers of the θ moves are drawn by the caller (numpy), so the loop
needs no Python; the MH proposals use the sampler's own generator.  Ctrl-C:
the sampler's ``_tick`` looks for a signal every 2^16 proposals, and a
``KeyboardInterrupt`` leaves the call (the caller keeps the finished iterations).
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log1p
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free
from ergmfit.sampling._mh cimport CountMHSampler, MHSampler

cnp.import_array()

# the samplers the loop runs on (both families' samplers have the same batch interface)
ctypedef fused AnySampler:
    MHSampler
    CountMHSampler


cdef inline double _quad(const double* x, const double* mu, const double* prec, int p) noexcept nogil:
    cdef int i, j
    cdef double s = 0.0, di
    for i in range(p):
        di = x[i] - mu[i]
        for j in range(p):
            s += di * prec[i * p + j] * (x[j] - mu[j])
    return -0.5 * s


cdef double _surrogate(const double[:, ::1] XW, const double[::1] c, const double[::1] s,
                       const double[::1] nw, const double* th, int p) noexcept nogil:
    # the adjusted log-pseudo-likelihood: sum_r s_r e_r - n_r log(1 + e^e_r), e = XW th + c
    cdef int r, k
    cdef double e, total = 0.0
    for r in range(XW.shape[0]):
        e = c[r]
        for k in range(p):
            e += XW[r, k] * th[k]
        total += s[r] * e - nw[r] * ((e + log1p(exp(-e))) if e > 0 else log1p(exp(e)))
    return total


def exchange_block(AnySampler sampler, double[:, ::1] theta, double[::1] lp,
                   double[:, :, ::1] out, int64_t[::1] accepted,
                   const double[:, :, ::1] eps, const double[:, ::1] logu,
                   const int64_t[:, ::1] r1, const int64_t[:, ::1] r2,
                   double gamma, int64_t aux_iters, const double[:, ::1] prec,
                   const double[::1] mu, object surrogate=None,
                   double[::1] gaux=None, const double[:, ::1] gx=None):
    """``len(out)`` iterations; theta, lp and accepted are updated in place and
    out[t] receives the population after iteration t.

    ``surrogate``: delayed acceptance, a tuple (XW, c, s, n, ls, logu1, passed):
    a proposal first passes a Metropolis test on the adjusted pseudo-posterior
    (log-pseudo-likelihood of the design rows XW θ + c, weights s and n; ls
    holds each chain's current value, logu1 the first-stage uniforms), and
    only then is its auxiliary network drawn; the exchange test divides by the
    first stage's ratio (Christen & Fox 2005), so the target is unchanged.
    ``passed`` counts the first-stage passes of every chain.  A Gaussian first
    stage is the tuple (prec2, mu2, ls, logu1, passed): the log density
    -(θ - mu2)' prec2 (θ - mu2) / 2 (the prior included), ls holding each
    chain's current value."""
    cdef int64_t n = out.shape[0], t, nj, left, chunk
    cdef int H = theta.shape[0], p = theta.shape[1], h, k, a, b, lo, hi
    cdef bint ads = H >= 3
    cdef int rc = 0
    cdef double lp_new, logr, ls_new = 0.0, r1v = 0.0
    cdef bint da = surrogate is not None
    cdef bint gauss = da and len(surrogate) == 5
    cdef const double[:, ::1] prec2
    cdef const double[::1] mu2
    cdef bint persist = gaux is not None
    cdef bint has_gx = gx is not None
    cdef double* dg
    cdef const double[:, ::1] XW
    cdef const double[::1] cc, ss, nn
    cdef double[::1] ls
    cdef const double[:, ::1] logu1
    cdef int64_t[::1] passed
    if gauss:
        prec2, mu2, ls, logu1, passed = surrogate
        if prec2.shape[0] != p or prec2.shape[1] != p or mu2.shape[0] != p:
            raise ValueError("the Gaussian first stage must be (p, p) and (p,)")
    elif da:
        XW, cc, ss, nn, ls, logu1, passed = surrogate
    cdef double* prop = <double*>malloc(max(1, p) * sizeof(double))
    cdef double* delta = <double*>malloc(max(1, p) * sizeof(double))
    cdef int64_t* journal = NULL
    if not persist:
        # room for two entries per proposal: a count sampler records (variable, old value)
        journal = <int64_t*>malloc(max(1, 2 * aux_iters) * sizeof(int64_t))
    if prop == NULL or delta == NULL or (journal == NULL and not persist):
        free(prop); free(delta); free(journal)
        raise MemoryError()
    if persist and gaux.shape[0] < p:
        free(prop); free(delta); free(journal)
        raise ValueError("gaux must hold one value per statistic")
    if has_gx and (gx.shape[0] != H or gx.shape[1] != p):
        free(prop); free(delta); free(journal)
        raise ValueError("gx must be (chains, statistics)")
    dg = &gaux[0] if persist and p > 0 else delta
    try:
        with nogil:
            for t in range(n):
                for h in range(H):
                    if ads:
                        a = <int>r1[t, h]
                        if a >= h:
                            a += 1
                        lo = h if h < a else a
                        hi = a if h < a else h
                        b = <int>r2[t, h]
                        if b >= lo:
                            b += 1
                        if b >= hi:
                            b += 1
                        for k in range(p):
                            prop[k] = theta[h, k] + gamma * (theta[a, k] - theta[b, k]) + eps[t, h, k]
                    else:
                        for k in range(p):
                            prop[k] = theta[h, k] + eps[t, h, k]
                    lp_new = _quad(prop, &mu[0], &prec[0, 0], p)
                    if gauss:
                        ls_new = _quad(prop, &mu2[0], &prec2[0, 0], p)
                        r1v = ls_new - ls[h]
                        if not logu1[t, h] < r1v:
                            continue            # rejected by the first stage: no network
                        passed[h] += 1
                    elif da:
                        ls_new = _surrogate(XW, cc, ss, nn, prop, p)
                        r1v = ls_new + lp_new - ls[h] - lp[h]
                        if not logu1[t, h] < r1v:
                            continue            # rejected by the first stage: no network
                        passed[h] += 1
                    if not persist:
                        for k in range(p):
                            delta[k] = 0.0
                    nj = 0
                    left = aux_iters
                    while rc == 0 and left > 0:     # chunks: Ctrl-C is seen within ms
                        chunk = left if left < 65536 else 65536
                        rc = sampler._batch(prop, chunk, dg, NULL, NULL, 1,
                                            NULL if persist else journal, &nj)
                        left -= chunk
                        sampler._tick(chunk)
                    if rc == 0 and not persist:
                        rc = sampler._revert(journal, nj)
                    if rc != 0:
                        break
                    # log ratio: (θ' - θ)·(g(x) - g(y')) + log prior ratio, with
                    # dg = g(y') - g(y0) and x = y0 or the chain's completed network
                    logr = lp_new - lp[h]
                    for k in range(p):
                        logr -= (prop[k] - theta[h, k]) * (dg[k] - (gx[h, k] if has_gx else 0.0))
                    if da:
                        logr -= r1v
                    if logu[t, h] < logr:
                        for k in range(p):
                            theta[h, k] = prop[k]
                        lp[h] = lp_new
                        if da:
                            ls[h] = ls_new
                        accepted[h] += 1
                if rc != 0:
                    break
                for h in range(H):
                    for k in range(p):
                        out[t, h, k] = theta[h, k]
    finally:
        free(prop); free(delta); free(journal)
    if rc != 0:
        raise MemoryError("out of memory during sampling")
