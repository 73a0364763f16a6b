"""The exact MLE of a count ERGM whose every statistic is a sum over unordered node pairs
{i, j} of a function of (y_ij, y_ji) (sum, nonzero, atleast, mutual, nodefactor and
nodematch with ``form="sum"``): the pairs are independent, so log Z(θ) is a sum over the
pairs of a log-sum-exp over the pair's values, and Newton's method finds the MLE to machine
precision.  The pair statistics are written out here from statnet's definitions (not taken
from ergmfit's terms): :func:`exact_mle` checks that they add up to the model's observed
statistics, which the summary tests check against statnet's to 1e-12.

Used to tell an estimator's error from statnet's own Monte Carlo error: statnet's two
seeds of a fit differ by up to 0.2 of its standard error, so its averaged estimate is not
the MLE to 0.1 of a standard error."""
import numpy as np
from scipy.special import gammaln, logsumexp


def _log_h(reference, y):
    """log of the reference measure of a value."""
    if reference == "Poisson":
        return -gammaln(y + 1)
    if reference == "Geometric":
        return np.zeros(y.shape)
    if reference.startswith("Binomial(") and reference.endswith(")"):
        n = int(reference[len("Binomial("):-1])
        return gammaln(n + 1) - gammaln(y + 1) - gammaln(n - y + 1)
    raise ValueError(f"no pair-separable form for the reference {reference!r}")


def _pair_statistic(label, a, b, ai, aj):
    """The statistic ``label`` of the pair with y_ij = a, y_ji = b (arrays) and node
    attributes ai, aj; KeyError when the term is not pair-separable here."""
    if label == "sum":
        return (a + b) * 1.0
    if label == "nonzero":
        return (a > 0) * 1.0 + (b > 0)
    if label.startswith("atleast."):
        k = float(label.split(".", 1)[1])
        return (a >= k) * 1.0 + (b >= k)
    if label == "mutual.min":
        return np.minimum(a, b) * 1.0
    if label == "mutual.nabsdiff":
        return -np.abs(a - b) * 1.0
    if label.startswith("nodefactor.sum."):
        attr, level = label[len("nodefactor.sum."):].split(".", 1)
        return (a + b) * ((str(ai[attr]) == level) + (str(aj[attr]) == level)) * 1.0
    if label.startswith("nodematch.sum."):
        attr = label[len("nodematch.sum."):]
        return (a + b) * (ai[attr] == aj[attr]) * 1.0
    raise KeyError(label)


def is_pair_separable(labels):
    try:
        z = np.zeros(1)
        for lab in labels:
            if not lab.startswith(("nodefactor.", "nodematch.")):
                _pair_statistic(lab, z, z, {}, {})
            elif not lab.startswith(("nodefactor.sum.", "nodematch.sum.")):
                return False
    except KeyError:
        return False
    return True


def exact_mle(model, graph, response, reference, start, top=None):
    """(θ̂, s.e.) of a pair-separable count model on the networkx DiGraph ``graph``
    (values in the edge attribute ``response``), by Newton's method from ``start``.
    ``top``: the largest value a dyad may take (default the Binomial's n, else 20 for
    Poisson, 80 for Geometric: the mass above is far below double precision at the
    reference fits' estimates)."""
    labels = model.labels
    if top is None:
        top = (int(reference[len("Binomial("):-1]) if reference.startswith("Binomial")
               else 20 if reference == "Poisson" else 80)
    vals = np.arange(top + 1)
    a, b = (x.ravel() for x in np.meshgrid(vals, vals, indexing="ij"))
    nodes = list(graph.nodes())
    attrs = dict(graph.nodes(data=True))

    def value(u, v):
        return graph.edges[u, v][response] if graph.has_edge(u, v) else 0

    G, obs = [], np.zeros(len(labels))
    for x, i in enumerate(nodes):
        for j in nodes[x + 1:]:
            G.append(np.stack([_pair_statistic(lab, a, b, attrs[i], attrs[j])
                               for lab in labels], -1))
            ya, yb = np.array([value(i, j)]), np.array([value(j, i)])
            obs += [_pair_statistic(lab, ya, yb, attrs[i], attrs[j])[0] for lab in labels]
    G = np.array(G)                                     # pairs x values x statistics
    got = model.statistics()
    assert np.allclose([got[lab] for lab in labels], obs, rtol=1e-12, atol=1e-12), (got, obs)
    log_h = _log_h(reference, a) + _log_h(reference, b)

    def moments(theta):
        e = log_h + G @ theta
        w = np.exp(e - logsumexp(e, axis=1)[:, None])
        mean = np.einsum("ps,psk->pk", w, G)
        d = G - mean[:, None, :]
        return mean.sum(0), np.einsum("ps,psk,psl->kl", w, d, d)

    theta = np.asarray(start, dtype=float)
    for _ in range(50):
        mean, cov = moments(theta)
        step = np.linalg.solve(cov, obs - mean)
        theta = theta + step
        if np.max(np.abs(step)) < 1e-12:
            break
    else:
        raise RuntimeError("Newton's method did not converge")
    _, cov = moments(theta)
    return theta, np.sqrt(np.diag(np.linalg.inv(cov)))
