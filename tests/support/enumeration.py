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
