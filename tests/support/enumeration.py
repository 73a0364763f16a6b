"""Exact log-likelihoods of small binary models by enumeration: every network of the
model's dyads (a 4-node directed network: 2^12), for checking exact computations."""
import itertools

import numpy as np
from scipy.special import logsumexp


def all_statistics(model):
    """The statistics of every network on the dyads of ``model``'s network (rows)."""
    n = model.network.n
    dyads = [(i, j) for i in range(n) for j in range(n) if i != j]
    return np.array([model.statistics_vector(np.array([d for d, b in zip(dyads, bits) if b],
                                                      dtype=np.int64).reshape(-1, 2))
                     for bits in itertools.product((0, 1), repeat=len(dyads))])


def enumerated_loglik(model, theta, statistics=None):
    """log p(observed) at ``theta`` (linear model) over the enumerated networks."""
    g = all_statistics(model) if statistics is None else statistics
    theta = np.asarray(theta, dtype=float)
    return float(theta @ model.statistics_vector() - logsumexp(g @ theta))


def count_moments(model, theta, dyads, top):
    """E[g] and E[g g^T] of a count model (linear) at ``theta`` by enumerating every
    value 0..``top`` of every dyad in ``dyads`` (the others 0), each state weighted by
    h(y) exp(θ·g(y)); g from the model's own ``statistics_vector``."""
    dyads = np.asarray(dyads, dtype=np.int64).reshape(-1, 2)
    theta = np.asarray(theta, dtype=float)
    G, logh = [], []
    for vals in itertools.product(range(top + 1), repeat=len(dyads)):
        y = np.array(vals, dtype=np.int64)
        on = y != 0
        G.append(model.statistics_vector(dyads[on], y[on]))
        logh.append(float(model.reference.log_h(y).sum()))
    G, logh = np.array(G), np.array(logh)
    lw = G @ theta + logh
    w = np.exp(lw - lw.max())
    w /= w.sum()
    return w @ G, (G * w[:, None]).T @ G
