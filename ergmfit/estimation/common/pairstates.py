"""The exact likelihood of a binary ERGM that factorises over node pairs.

When the change statistic of every dyad reads no dyad outside its node pair (every term
dyad-independent or declaring ``reads``, :attr:`ergmfit.terms.registry.Term.locality`:
``edges``, ``mutual``, dyadic covariates, ``L()`` of them across layers, ``N()`` of them
across networks) and the sample space is a set of free dyads, the model is a product over
the node pairs {i, j} of a categorical model of the pair's joint state -- its dyads i -> j
and j -> i (one dyad when undirected) in every layer of a multilayer network:

    log p(x) = Σ_pairs [η·D(x_pair) − log Σ_s exp(η·D(s))],

with D(s) = g(s) − g(0) the statistics of the pair in joint state s less those of its
empty state (the rest of the network does not matter).  :func:`pair_states` builds the
table of D over the 2^K joint states of every pair (K dyads; dyads the space fixes keep
their observed values) by a Gray-code walk: at each step one dyad position of every pair
is toggled at once through the compiled model (``change_matrix``, then
``change_and_flip``), which is exact because no pair's change statistics read another
pair.  Pairs with the same table are counted once.  The MLE is then a
smooth convex problem (the log-likelihood is concave in η, and η is affine in θ), solved by
Newton's method to machine precision, with the exact Fisher information for the standard
errors (:func:`pair_state_mle`).

References
----------
Holland, P. W. and Leinhardt, S. (1981). An exponential family of probability
distributions for directed graphs. JASA 76(373), 33-50 (the p1 model: dyads independent).

Krivitsky, P. N., Koehly, L. M. and Marcum, C. S. (2020). Exponential-family random graph
models for multi-layer networks. Psychometrika 85, 630-659.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...terms.registry import within_node_pair
from ...utils.setops import unique_rows_inverse

#: the most dyads of one node pair the table enumerates (2^K joint states)
MAX_PAIR_DYADS = 12
#: the largest table (pairs x states x statistics) built before the distinct rows are kept
MAX_TABLE_ENTRIES = 2 * 10**7


@dataclass
class PairStates:
    """The distinct node-pair tables of a model (pairs with the same table counted once).

    Attributes
    ----------
    D : ndarray (C, S, q)
        The statistics of each joint state less those of the empty state, per class of
        pairs with the same table.
    allowed : bool ndarray (C, S)
        The joint states the sample space allows (dyads it fixes keep their values).
    count : int ndarray (C,)
        The pairs of each class.
    total : ndarray (q,)
        The observed statistics (the model's target statistics where it has them) less
        those of the network with every pair empty: Σ_pairs D(x_pair) when observed.
    n_pairs, n_dyads : int
        The node pairs and free dyads.
    """

    D: np.ndarray
    allowed: np.ndarray
    count: np.ndarray
    total: np.ndarray
    n_pairs: int
    n_dyads: int

    def evaluate(self, eta, need=2):
        """(log-likelihood, score, information) in η: total·η − Σ count·log Σ_s e^{D_s·η},
        its gradient total − Σ count·E D and Σ count·Cov D (need < 2: without it)."""
        a = self.D @ eta                                         # (C, S)
        a = np.where(self.allowed, a, -np.inf)
        top = a.max(axis=1, keepdims=True)
        w = np.exp(a - top)
        z = w.sum(axis=1, keepdims=True)
        logz = (top + np.log(z))[:, 0]
        ll = float(self.total @ eta - self.count @ logz)
        if need < 1:
            return ll, None, None
        p = w / z
        mean = np.einsum("cs,csq->cq", p, self.D)
        score = self.total - self.count @ mean
        if need < 2:
            return ll, score, None
        second = np.einsum("c,cs,csq,csr->qr", self.count, p, self.D, self.D)
        info = second - np.einsum("c,cq,cr->qr", self.count, mean, mean)
        return ll, score, info


def node_pair_positions(net, pairs):
    """(pair key, position) of each dyad ``pairs`` (node indices of ``net``) in its node pair:
    the pair of the two nodes in the layer's node set (a :class:`~ergmfit.network.Layers`'
    layers share one) and the dyad's place among the pair's K dyads (layer-major; the
    direction from the smaller node first when directed), and K."""
    from ...network.networks import stacked_view
    stacked = stacked_view(net) if net.node_attrs.get(".NetworkID") is not None else None
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if stacked is not None and hasattr(stacked, "layer_names"):
        L = len(stacked.blocks)
        starts = np.array([b.start for b in stacked.blocks], dtype=np.int64)
        layer = np.asarray(stacked.block_of, dtype=np.int64)[pairs[:, 0]]
        base = pairs - starts[layer][:, None]
        m = int(stacked.blocks[0].n)
    else:
        L, layer, base, m = 1, np.zeros(len(pairs), np.int64), pairs, int(net.n)
    lo, hi = base.min(axis=1), base.max(axis=1)
    per = 2 if net.directed else 1
    direction = (base[:, 0] > base[:, 1]).astype(np.int64) if net.directed else 0
    return lo * m + hi, layer * per + direction, L * per


def pair_states(model):
    """The node-pair tables (:class:`PairStates`) of ``model``, or None where its likelihood
    does not factorise over node pairs or the table would be too large: a term reading
    other dyads (``triangle``, ``gwesp``, degree terms), a sample space that is not a set
    of free dyads (degree bounds, preserved statistics) or has missing dyads, a model of
    counts, or more than :data:`MAX_PAIR_DYADS` free dyads in one pair.

    Examples
    --------
    >>> import ergmfit as ef
    >>> t = pair_states(ef.ERGM(ef.datasets.load("samplk1"), "edges + mutual"))
    >>> t.n_pairs, t.n_dyads, t.D.shape[1:]          # 153 pairs of 2 dyads: 4 states
    (153, 306, (4, 2))
    >>> t.D[0].tolist()                              # none, i -> j, j -> i, both
    [[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [2.0, 1.0]]
    >>> pair_states(ef.ERGM(ef.datasets.load("samplk1"), "edges + triangle")) is None
    True
    """
    from ...sampling.space import dyad_vars, var_pairs
    if model.family.name != "binary" or not getattr(model, "terms", None):
        return None
    space = getattr(model, "sample_space", None)
    if space is None or space.conditional() is not None or not space.dyad_independent:
        return None
    if not within_node_pair(model.terms):
        return None
    net = model.network
    n, directed = net.n, net.directed
    free = space.design_vars()
    free = (np.arange(net.n_dyads, dtype=np.int64) if free is None
            else np.asarray(free, dtype=np.int64))
    if not len(free):
        return None
    key, pos, K = node_pair_positions(net, var_pairs(n, directed, free))
    keys, group = np.unique(key, return_inverse=True)
    G, S, q = len(keys), 1 << K, len(model.stat_labels)
    at = np.full((G, K), -1, dtype=np.int64)
    at[group, pos] = free
    used = np.flatnonzero((at >= 0).any(axis=0))
    if len(used) > MAX_PAIR_DYADS or G * (1 << len(used)) * q > MAX_TABLE_ENTRIES:
        return None
    at = at[:, used]                    # positions no pair has free are left out
    K = len(used)
    S = 1 << K
    tie_vars = (np.sort(dyad_vars(n, directed, net.ties)) if net.n_ties
                else np.zeros(0, np.int64))
    bits = 1 << np.arange(K, dtype=np.int64)
    free_bits = (at >= 0).astype(np.int64) @ bits
    # the pairs' free dyads emptied, the other ties as observed; then a Gray-code walk
    others = np.setdiff1d(tie_vars, free, assume_unique=True)
    empty = var_pairs(n, directed, others)
    cm = model.compiled(empty)
    total = model.statistics_vector() - model.statistics_vector(empty)
    D = np.zeros((G, S, q))
    state = 0
    for step in range(1, S):
        p = (step & -step).bit_length() - 1            # the bit the Gray code flips
        new = state ^ (1 << p)
        rows = np.flatnonzero(at[:, p] >= 0)
        D[:, new] = D[:, state]
        if len(rows):
            vars_ = np.ascontiguousarray(at[rows, p])
            change = cm.change_matrix(vars_)
            cm.change_and_flip(vars_, flip_back=False)
            D[rows, new] += change if new & (1 << p) else -change
        state = new
    codes = np.arange(S, dtype=np.int64)
    allowed = (codes[None, :] & ~free_bits[:, None]) == 0
    flat = np.concatenate([D.reshape(G, S * q), allowed], axis=1)
    inverse, count = unique_rows_inverse(flat)
    first = np.zeros(len(count), dtype=np.int64)
    first[inverse[::-1]] = np.arange(G)[::-1]
    return PairStates(D=D[first], allowed=allowed[first],
                      count=count.astype(float), total=total, n_pairs=G, n_dyads=len(free))


def pair_state_loglik(model, theta, table=None):
    """The exact log-likelihood of ``model`` at ``theta`` where it factorises over node
    pairs (:func:`pair_states`), else None; also None at a non-finite η (an infinite
    offset)."""
    table = pair_states(model) if table is None else table
    if table is None:
        return None
    eta = np.asarray(model.parameterisation.eta(np.asarray(theta, dtype=float)), dtype=float)
    if not np.all(np.isfinite(eta)):
        return None
    return table.evaluate(eta, need=0)[0]


@dataclass
class PairStateFit:
    """The exact MLE of a model independent across node pairs: ``theta``, its covariance
    (the inverse Fisher information), the log-likelihood, Newton's iterations and the
    table."""

    theta: np.ndarray
    cov: np.ndarray
    loglik: float
    iterations: int
    table: PairStates


def pair_state_mle(model, start=None, tol=1e-10, maxit=100):
    """The MLE of ``model`` by Newton's method on its node-pair tables, exactly (to ``tol``
    in the step), or None: no table (:func:`pair_states`), a curved model, offsets not
    folded into the parameterisation (``ERGM.fit`` folds them), a singular information (a statistic constant over
    the sample space) or no convergence (the MLE does not exist: the observed statistics
    on the boundary of their hull).

    Examples
    --------
    >>> import ergmfit as ef
    >>> fit = pair_state_mle(ef.ERGM(ef.datasets.load("samplk1"), "edges + mutual"))
    >>> [round(float(x), 4) for x in fit.theta]     # the p1 closed form: 27 asymmetric,
    [-2.1158, 2.1522]
    >>> round(float(np.exp(fit.theta[0])), 4) == round(27 / 2 / 112, 4)   # 14 mutual, 112 null
    True
    """
    par = model.parameterisation
    if not par.affine:
        return None
    table = pair_states(model)
    if table is None:
        return None
    theta = np.zeros(par.n_params) if start is None else np.asarray(start, dtype=float).copy()
    J = np.asarray(par.jacobian(theta), dtype=float)

    def at(th, need):
        eta = np.asarray(par.eta(th), dtype=float)
        if not np.all(np.isfinite(eta)):
            return -np.inf, None, None
        return table.evaluate(eta, need)

    ll, score, info = at(theta, 2)
    if not np.isfinite(ll):
        return None
    for it in range(1, maxit + 1):
        g, H = J.T @ score, J.T @ info @ J
        try:
            step = np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(step)):
            return None
        a = 1.0
        while True:
            new = theta + a * step
            ll_new = at(new, 0)[0]
            if ll_new >= ll - 1e-12 * max(1.0, abs(ll)) or a < 1e-8:
                break
            a /= 2
        theta = new
        ll, score, info = at(theta, 2)
        if np.max(np.abs(a * step)) < tol:
            H = J.T @ info @ J
            w = np.linalg.eigvalsh(H)
            if w.min() <= 1e-10 * max(w.max(), 1e-300):
                return None
            return PairStateFit(theta=theta, cov=np.linalg.inv(H), loglik=float(ll),
                                iterations=it, table=table)
        if np.max(np.abs(theta)) > 1e3:
            return None
    return None
