"""A step of MCMC-MLE on the draws of its last few samples, not of the last alone.

Geyer's (1994) reverse logistic regression / mixture importance sampling: samples drawn at
η_1, ..., η_k (n_j draws each) are together a sample of the mixture Σ_j n_j p_{η_j} / N.
Its normalising constants' ratios c_j = Z(η_j)/Z(η_k) solve the self-consistent equations

    c_j = Σ_x exp(η_j·g(x)) / Σ_l n_l exp(η_l·g(x)) / c_l      (sum over every draw x)

(the maximum of Geyer's quasi-likelihood; the same equations as Meng & Wong's bridge
sampling and Shirts & Chodera's MBAR), and a draw x then weighs, at any η,

    w(x) ∝ exp(η·g(x)) / Σ_l n_l exp(η_l·g(x)) / c_l.

So the step at η_k uses every draw near it: where the iterations swing to and fro about the
MLE (the issue-554 count model's ``nodeicovar``/``nodeocovar``, 6-20 effective draws per
sample, docs/valued_terms.md) the pooled draws hold several samples' worth of them, and the
step chases less Monte Carlo noise.  Draws far from η_k weigh nothing, so pooling cannot do
worse than the last sample by much.  The pooled sample is handed to the step (Hummel's
length, the importance-sampling maximiser, its trust region) as an equally weighted
resample of the draws (systematic resampling, seeded), so the step's code is unchanged.
"""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

__all__ = ["mixture_weights", "pooled_sample"]


def mixture_weights(etas, samples, eta, tol=1e-10, maxit=500):
    """Importance weights at ``eta`` of the draws of ``samples`` (drawn at ``etas``),
    pooled as one sample of their mixture (the module docstring).

    Parameters
    ----------
    etas : sequence of (q,) arrays
        The natural parameters each sample was drawn at.
    samples : sequence of (n_j, q) arrays
        The samples' statistics (any common centring).
    eta : (q,) array
        Where the weights are wanted.

    Returns
    -------
    (N,) array of weights summing to 1 (the draws in the order of ``samples``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> # Poisson draws at log-means 0 and 0.5 (g(x) = x), weighed at log-mean 0.25
    >>> a, b = rng.poisson(1.0, (4000, 1)), rng.poisson(np.exp(0.5), (4000, 1))
    >>> w = mixture_weights([np.zeros(1), np.full(1, 0.5)], [a, b], np.full(1, 0.25))
    >>> round(float(w @ np.concatenate([a, b])[:, 0]), 1), round(float(np.exp(0.25)), 1)
    (1.3, 1.3)
    """
    G = np.concatenate([np.asarray(s, dtype=float) for s in samples])
    E = np.asarray(etas, dtype=float)
    A = G @ E.T                                   # (N, k): η_j·g(x)
    shift = A.mean(axis=0)                        # (numerical centring; cancels in c_j)
    A = A - shift
    log_n = np.log([len(s) for s in samples])
    f = np.zeros(len(E))                          # log c_j (up to a common constant)
    for _ in range(maxit):
        den = logsumexp(A - f + log_n, axis=1)
        f_new = logsumexp(A - den[:, None], axis=0)
        f_new -= f_new[-1]
        done = np.max(np.abs(f_new - f)) < tol
        f = f_new
        if done:
            break
    den = logsumexp(A - f + log_n, axis=1)
    logw = G @ np.asarray(eta, dtype=float) - den
    logw -= logw.max()
    w = np.exp(logw)
    return w / w.sum()


def pooled_sample(etas, samples, eta, rng, size=None):
    """An equally weighted resample (``size`` draws, default all) of the pooled draws of
    ``samples`` at ``eta`` (:func:`mixture_weights`; systematic resampling with ``rng``),
    and the pooled weights' effective size.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(0.0, 1.0, (2000, 1)); b = rng.normal(0.3, 1.0, (2000, 1))
    >>> Z, ess = pooled_sample([np.zeros(1), np.full(1, 0.3)], [a, b], np.zeros(1), rng)
    >>> Z.shape, bool(2000 < ess < 4000), bool(abs(Z.mean()) < 0.05)
    ((4000, 1), True, True)
    """
    w = mixture_weights(etas, samples, eta)
    G = np.concatenate([np.asarray(s, dtype=float) for s in samples])
    n = len(G) if size is None else int(size)
    u = (rng.random() + np.arange(n)) / n
    idx = np.minimum(np.searchsorted(np.cumsum(w), u), len(G) - 1)
    return G[idx], float(1.0 / (w @ w))
