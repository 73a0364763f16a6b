"""Exact posteriors of tiny models and Bergm's reference posteriors, for the Bayesian ERGM tests."""
import networkx as nx
import numpy as np
from scipy.special import logsumexp

import ergmfit as ef

# Bergm 5.0.7, bergm() with its defaults, set.seed(101) and set.seed(202)
# (/work/shared/reference/statnet_ext.json, section 6_optional): posterior
# means and sds of the two runs, averaged.
BERGM = {
    "edges + kstar(2) + triangle": {
        "mean": [(-1.12270405511151 - 1.08455753003805) / 2,
                 (-0.122889890915496 - 0.132584031423878) / 2,
                 (-0.0429387672263865 + 0.00425741657901709) / 2],
        "sd": [(0.933430713220623 + 0.914421933821709) / 2,
               (0.217272676770659 + 0.225621637166505) / 2,
               (0.756267370159803 + 0.820551944372982) / 2]},
    "edges + gwesp(0.2, fixed=TRUE)": {
        "mean": [(-1.68786687518066 - 1.7034556051874) / 2,
                 (0.056357025393908 + 0.0658511505262979) / 2],
        "sd": [(0.388554624032373 + 0.37786190380445) / 2,
               (0.308674121867102 + 0.290786492736454) / 2]},
}


def log_sum_exp_stats(T, stats):
    """log sum over graphs of exp(θ·g) for every grid row θ of T, by distinct g."""
    u, c = np.unique(np.asarray(stats), axis=0, return_counts=True)
    return logsumexp(T @ u.T + np.log(c), axis=1)


def grid_moments(a, loglik, prior_var):
    """Posterior mean and sd on the square grid a x a of two coefficients:
    log-likelihood ``loglik(T)`` of the (m, 2) grid rows, N(0, prior_var I) prior."""
    T = np.stack(np.meshgrid(a, a, indexing="ij"), -1).reshape(-1, 2)
    lp = loglik(T) - 0.5 * (T ** 2).sum(axis=1) / prior_var
    w = np.exp(lp - lp.max())
    w /= w.sum()
    mean = w @ T
    return mean, np.sqrt(w @ (T - mean) ** 2)


#: the unobserved dyads of :func:`missing_five_node_model`
MISSING = [(0, 1), (1, 3), (2, 4)]


def missing_five_node_model():
    """``edges + triangle`` on a 5-node graph with the dyads of :data:`MISSING` unobserved."""
    g = nx.Graph()
    g.add_nodes_from(range(5))
    g.add_edges_from([(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (1, 4)])
    return ef.ERGM(g, "edges + triangle", missing=MISSING)
