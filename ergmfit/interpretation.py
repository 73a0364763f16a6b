"""Interpreting a fitted ERGM: odds ratios, tie probabilities, marginal effects.

Conditional on the rest of the network, a tie of an ERGM is a logistic
regression on its change statistics:

    P(Y_ij = 1 | Y_-ij) = logistic(eta(theta) . Delta_ij),
    Delta_ij = g(y with (i, j) a tie) - g(y with (i, j) no tie),

(Strauss & Ikeda 1990; Hunter, Goodreau & Handcock 2008).  Everything here
follows from that one formula; the change statistics come from the compiled
model (one compiled pass over the dyads, no Python loop per dyad).

* :func:`odds_ratios` -- exp(theta) with Wald intervals: the factor by which
  the conditional odds of a tie change per unit change statistic.
* :func:`predict` -- P(Y_ij = 1 | rest of the network) for any dyads.
* :func:`marginal_effects` -- average marginal effects (Duxbury 2021).

See ``docs/interpretation.md`` for the definitions and worked examples.

References
----------
Duxbury, S. W. (2021). The problem of scaling in exponential random graph
models. *Sociological Methods & Research* 50(2), 764-799.
doi:10.1177/0049124120986178

Hunter, D. R., Goodreau, S. M. & Handcock, M. S. (2008). Goodness of fit of
social network models. *JASA* 103, 248-258.

Strauss, D. & Ikeda, M. (1990). Pseudolikelihood estimation for social
networks. *JASA* 85, 204-212.
"""
from __future__ import annotations

import numpy as np
from scipy import special

from .exceptions import ErgmfitError, NetworkError
from .labeled import LabeledArray, require_pandas
from .rformat import percent_label
from .utils.validation import warn

#: predict(dyads=None) gives one row per dyad up to this many dyads; above it, pass
#: ``dyads=`` or ``compressed=True``
MAX_PREDICT_DYADS = 2_000_000


# ---------------------------------------------------------------------------
# which coefficients have a per-unit interpretation
# ---------------------------------------------------------------------------
def _decay_positions(model) -> set:
    par = getattr(model, "parameterisation", None)
    decays = getattr(par, "decay_indices", None)
    return set(decays()) if callable(decays) else set()


def model_of(results):
    try:
        return results.model if results.model is not None else results.rebuild_model()
    except ErgmfitError:
        return None


def _kinds(results, model=None) -> list:
    """For each coefficient: "linear", "offset" or "decay"."""
    model = model_of(results) if model is None else model
    decays = _decay_positions(model) if model is not None else \
        {k for k, lab in enumerate(results.labels) if lab.endswith(".decay")}
    return ["offset" if lab.startswith("offset(") else "decay" if k in decays else "linear"
            for k, lab in enumerate(results.labels)]


# ---------------------------------------------------------------------------
# odds ratios
# ---------------------------------------------------------------------------
def odds_ratios(results, alpha: float = 0.05) -> LabeledArray:
    """exp(theta) with the Wald interval exp(theta -/+ z_{1-alpha/2} s.e.).

    exp(theta_k) is the factor by which the conditional odds of a tie
    change when the change statistic of coefficient k grows by one, the other
    change statistics held fixed.

    Parameters
    ----------
    results : ERGMResults
    alpha : float
        1 - the coverage of the intervals (0.05: 95 % intervals).

    Returns
    -------
    LabeledArray of shape (p, 3)
        Rows labelled as ``results.params``; columns ``"odds ratio"`` and
        R's interval names (``"2.5 %"``, ``"97.5 %"``).  ``.to_frame()``
        gives a pandas DataFrame.  The decay parameter of a curved term
        (``gwesp.decay``) is not a log-odds and its row is NaN; an offset
        (fixed) coefficient gets exp(value) and no interval (NaN).

    Examples
    --------
    >>> import ergmfit as ef
    >>> fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit(method="mple")
    >>> ors = fit.odds_ratios()
    >>> round(float(ors["edges"][0]), 4)       # 20 ties in 120 dyads: odds 20/100
    0.2
    >>> ors.columns
    ['odds ratio', '2.5 %', '97.5 %']
    """
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    ci = np.asarray(results.conf_int(alpha), dtype=float)
    b = np.asarray(results.params, dtype=float)
    with np.errstate(over="ignore"):
        out = np.exp(np.column_stack([b, ci]))
    for k, kind in enumerate(_kinds(results)):
        if kind == "decay":
            out[k] = np.nan
        elif kind == "offset":
            out[k, 1:] = np.nan
    return LabeledArray(out, results.labels,
                        columns=["odds ratio", percent_label(alpha / 2.0), percent_label(1.0 - alpha / 2.0)])


# ---------------------------------------------------------------------------
# tie probabilities
# ---------------------------------------------------------------------------
class TieProbabilities:
    """Predicted tie probabilities P(Y_ij = 1 | rest of the network).

    Attributes
    ----------
    probability : ndarray (m,)
        One per row (NaN for a dyad the sample space fixes).
    change_stats : ndarray (m, q)
        Delta g of each row, columns ``stat_labels``.
    pairs : ndarray (m, 2) of node indices, or None
        The dyad of each row; None in the compressed form.
    count : ndarray (m,)
        Dyads each row stands for (1 per dyad; the compressed form: the
        number of dyads with this row of change statistics).
    ties : ndarray (m,)
        Ties among them (0/1 per dyad).
    free : ndarray of bool (m,)
        Whether the sample space lets the dyad vary.
    missing : ndarray of bool (m,)
        Whether the dyad is unobserved (its ``ties`` entry is then 0, not an
        observation).
    node_labels : list
        The network's node labels (``dyads`` translates :attr:`pairs`).
    """

    def __init__(self, probability, change_stats, stat_labels, count, ties, pairs=None,
                 free=None, node_labels=None, n_nodes=None, directed=False, missing=None):
        self.probability = np.asarray(probability, dtype=float)
        self.change_stats = np.asarray(change_stats, dtype=float)
        self.stat_labels = list(stat_labels)
        self.count = np.asarray(count, dtype=float)
        self.ties = np.asarray(ties, dtype=float)
        self.pairs = pairs
        self.free = np.ones(len(self.probability), bool) if free is None else np.asarray(free)
        self.missing = (np.zeros(len(self.probability), bool) if missing is None
                        else np.asarray(missing, dtype=bool))
        self.node_labels = node_labels
        self.n_nodes = n_nodes
        self.directed = directed

    @property
    def compressed(self) -> bool:
        return self.pairs is None

    @property
    def dyads(self) -> list:
        """The dyads as (node label, node label) pairs."""
        if self.pairs is None:
            raise ValueError("the compressed form has no dyads (one row per distinct row of "
                             "change statistics); call predict(dyads=...) for named dyads")
        lab = self.node_labels
        return [(lab[int(i)], lab[int(j)]) for i, j in self.pairs]

    def __len__(self):
        return len(self.probability)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.probability, dtype=dtype)

    def mean(self) -> float:
        """Mean probability over the dyads (weighted by :attr:`count`), NaN rows left out."""
        ok = np.isfinite(self.probability)
        w = self.count[ok]
        return float(np.sum(w * self.probability[ok]) / np.sum(w)) if w.sum() else float("nan")

    def to_matrix(self) -> np.ndarray:
        """An n x n matrix of the probabilities (NaN where not predicted; an
        undirected network's matrix is symmetric)."""
        if self.pairs is None:
            raise ValueError("the compressed form has no dyads; use predict(dyads=None, "
                             "compressed=False) on a network small enough for a matrix")
        M = np.full((self.n_nodes, self.n_nodes), np.nan)
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        M[i, j] = self.probability
        if not self.directed:
            M[j, i] = self.probability
        return M

    def to_frame(self):
        """A pandas DataFrame: ``i``, ``j`` (node labels; absent in the compressed
        form), the change statistics, ``count``, ``ties``, ``probability``."""
        pd = require_pandas("TieProbabilities.to_frame()")
        cols = {}
        if self.pairs is not None:
            d = self.dyads
            cols["i"] = [u for u, _ in d]
            cols["j"] = [v for _, v in d]
        for k, lab in enumerate(self.stat_labels):
            cols[f"Delta {lab}"] = self.change_stats[:, k]
        cols["count"] = self.count
        cols["ties"] = self.ties
        if self.missing.any():
            cols["missing"] = self.missing
        cols["probability"] = self.probability
        return pd.DataFrame(cols)

    def __repr__(self):
        form = "compressed rows" if self.pairs is None else "dyads"
        return (f"<TieProbabilities: {len(self)} {form}, mean probability "
                f"{self.mean():.4g}>")


class _VarChunks:
    """The variables ``vars_`` (None: all ``n_vars`` of the compiled model) in
    chunks of at most ``size``, without holding all indices at once."""

    def __init__(self, vars_, n_vars, size=1 << 20):
        self.vars, self.n_vars, self.size = vars_, int(n_vars), int(size)

    def __len__(self):
        return self.n_vars if self.vars is None else len(self.vars)

    def __iter__(self):
        for start in range(0, len(self), self.size):
            stop = min(start + self.size, len(self))
            yield (np.arange(start, stop, dtype=np.int64) if self.vars is None
                   else np.asarray(self.vars[start:stop], dtype=np.int64))

    def array(self):
        return np.concatenate(list(self)) if len(self) else np.zeros(0, np.int64)


def _all_free_vars(model, bm):
    free = model.sample_space.free_vars()
    return _VarChunks(None if free is None else np.asarray(free, np.int64), bm.n_vars)


def _space_warning(model):
    space = model.sample_space
    if not getattr(space, "dyad_independent", True):
        warn("the sample space has degree bounds or a preserved statistic "
             f"({space.describe()}): the predicted probabilities are the model's conditional "
             "logits on the free dyads and do not apply those constraints")


def _eta(model, params):
    return np.asarray(model.eta(params), dtype=float)


def _probability(X, eta):
    with np.errstate(over="ignore", invalid="ignore"):
        return special.expit(X @ eta)


def predict(model, params, dyads=None, compressed=False, max_dyads=MAX_PREDICT_DYADS):
    """P(Y_ij = 1 | the rest of the network) = logistic(eta(theta) . Delta g_ij).

    Parameters
    ----------
    model : ERGM
    params : array or dict
        theta, in ``model.labels`` order (offsets included) or as {label: value}.
    dyads : list of (u, v) node-label pairs, optional
        The dyads to predict (directed: u -> v), in this order.  A dyad the
        sample space fixes (constraints; two nodes of the same mode of a
        two-mode network) gets NaN.  Default: every dyad that may vary --
        all dyads, the between-mode dyads of a two-mode network, the free
        dyads under constraints, missing dyads included (their probability
        given the observed ties, the other missing dyads taken as no tie).
    compressed : bool
        With ``dyads=None``: one row per distinct row of change statistics,
        with the number of dyads it stands for (``count``) -- the MPLE design
        -- instead of one row per dyad.  Use it for large networks.
    max_dyads : int
        ``dyads=None`` without ``compressed`` refuses networks with more
        free dyads than this (the rows would not fit in memory).

    Returns
    -------
    TieProbabilities

    Notes
    -----
    The probability conditions on every other dyad at its observed value.
    Degree bounds and preserved statistics (``bd``, ``edges``, ``degrees``)
    make that conditional degenerate; the probabilities here are the model's
    logits without them (a warning says so).

    Examples
    --------
    >>> import networkx as nx, ergmfit as ef
    >>> m = ef.ERGM(nx.path_graph(4), "edges + triangle")
    >>> tp = m.predict([-1.0, 0.5], dyads=[(0, 2), (0, 3)])
    >>> [round(float(p), 4) for p in tp.probability]   # (0, 2) closes a triangle
    [0.3775, 0.2689]
    """
    bm = model.compiled()
    eta = _eta(model, params)
    net = model.network
    from .sampling._constrained import change_rows
    if dyads is None:
        _space_warning(model)
        vars_ = _all_free_vars(model, bm)
        if compressed:
            X, n, s = _compressed(bm, vars_)
            return TieProbabilities(_probability(X, eta), X, model.stat_labels, n, s,
                                    node_labels=list(net.labels), n_nodes=net.n,
                                    directed=net.directed)
        if len(vars_) > max_dyads:
            raise ErgmfitError(
                f"the network has {len(vars_)} free dyads, more than max_dyads={max_dyads} rows "
                "of change statistics: pass dyads=[(u, v), ...] for the dyads you want, or "
                "compressed=True for one row per distinct row of change statistics")
        vars_ = vars_.array()
        free = np.ones(len(vars_), dtype=bool)
    else:
        if compressed:
            raise ValueError("compressed=True is for dyads=None (all free dyads)")
        from .constraints import label_pairs
        from .sampling.space import dyad_vars
        pairs = label_pairs(net, dyads, "dyads")
        try:
            vars_ = dyad_vars(net.n, net.directed, pairs)
        except NetworkError as exc:
            raise NetworkError(f"dyads: {exc}") from None
        allowed = model.sample_space.free_vars()
        free = np.ones(len(vars_), bool) if allowed is None else np.isin(vars_, allowed)
        _space_warning(model)
    X, y = change_rows(bm, np.asarray(vars_, dtype=np.int64))
    from .sampling.space import var_pairs
    pairs = var_pairs(net.n, net.directed, vars_) if dyads is None else pairs
    prob = _probability(X, eta)
    prob[~free] = np.nan
    unobserved = model.sample_space.missing
    missing = None if unobserved is None else np.isin(vars_, unobserved)
    return TieProbabilities(prob, X, model.stat_labels, np.ones(len(prob)), y.astype(float),
                            pairs=pairs, free=free, node_labels=list(net.labels),
                            n_nodes=net.n, directed=net.directed, missing=missing)


def _compressed(bm, chunks):
    """(X, count, ties): the distinct change-statistic rows of the variables of
    ``chunks`` (a :class:`_VarChunks`), their counts and tie counts; built chunk
    by chunk from the compiled change statistics."""
    from .sampling._constrained import change_rows
    parts = []
    for vars_ in chunks:
        X, y = change_rows(bm, vars_)
        parts.append(_unique_rows(X, np.ones(len(X)), y.astype(float)))
    if not parts:
        return np.zeros((0, bm.n_stats)), np.zeros(0), np.zeros(0)
    if len(parts) == 1:
        return parts[0]
    return _unique_rows(*(np.concatenate(c) for c in zip(*parts)))


def _unique_rows(X, n, s):
    """The distinct rows of X with the summed weights n and s of each."""
    # rows compared as raw bytes (+ 0.0 makes -0.0 equal 0.0): 4-5x faster than axis=0
    Xc = np.ascontiguousarray(np.asarray(X, dtype=float) + 0.0)
    if Xc.shape[1] == 0:
        return Xc[:1], np.array([np.sum(n)]), np.array([np.sum(s)])
    rows = Xc.view(np.dtype((np.void, Xc.dtype.itemsize * Xc.shape[1]))).ravel()
    _, first, inv = np.unique(rows, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    return (Xc[first], np.bincount(inv, weights=n, minlength=len(first)),
            np.bincount(inv, weights=s, minlength=len(first)))


# ---------------------------------------------------------------------------
# marginal effects
# ---------------------------------------------------------------------------
def _design_rows(model, dyads, theta):
    """(X, weights): change statistics of the dyads averaged over."""
    bm = model.compiled()
    if dyads is not None:
        tp = predict(model, theta, dyads=dyads)
        if not tp.free.all():
            bad = [d for d, f in zip(tp.dyads, tp.free) if not f]
            raise NetworkError(f"dyads: {bad[:3]} are fixed by the sample space")
        return tp.change_stats, np.ones(len(tp))
    vars_ = model.sample_space.design_vars()    # the free, observed dyads: those the fit used
    X, n, _ = _compressed(bm, _VarChunks(vars_, bm.n_vars))
    return X, n


def ame_values(model, theta, X, w):
    """(AME, gradient): AME_l(theta) = theta_l * mean_w p(1 - p) and its
    derivative d AME_l / d theta_j (for the delta method)."""
    theta = np.asarray(theta, dtype=float)
    eta = _eta(model, theta)
    J = np.asarray(model.parameterisation.jacobian(theta), dtype=float)
    p = _probability(X, eta)
    v = p * (1.0 - p)
    W = float(np.sum(w))
    mbar = float(np.sum(w * v) / W)
    dm = ((w * v * (1.0 - 2.0 * p)) @ (X @ J)) / W        # d mean p(1-p) / d theta
    ame = theta * mbar
    grad = np.eye(len(theta)) * mbar + np.outer(theta, dm)
    return ame, grad


def marginal_effects(results, dyads=None) -> LabeledArray:
    """Average marginal effects of the coefficients on the tie probability.

    For a dyad d with conditional tie probability p_d =
    logistic(eta(theta) . Delta_d), the marginal effect of coefficient k is
    the derivative of p_d with respect to that coefficient's change
    statistic x_dk, dp_d / dx_dk = theta_k p_d (1 - p_d); the average
    marginal effect (Duxbury 2021, as ``ergMargins::ergm.AME``)

        AME_k = (1 / D) sum_d theta_k p_d (1 - p_d)

    is its mean over the D free, observed dyads (those the fit used), or
    over ``dyads``.  It reads on the probability scale, which -- unlike
    theta_k -- is comparable across models.  Standard errors by the delta
    method, Var(AME) = G Cov(theta) G', G = d AME / d theta.

    For a curved term, x_dk is the change statistic at the estimated decay
    (sum_j d eta_j / d theta_k Delta_dj) and the weight gets its AME; the
    decay parameter and offset (fixed) coefficients get NaN.

    Parameters
    ----------
    results : ERGMResults
    dyads : list of (u, v) node-label pairs, optional

    Returns
    -------
    LabeledArray (p, 4)
        Columns ``"AME"``, ``"Std. Error"``, ``"z value"``, ``"Pr(>|z|)"``.

    References
    ----------
    Duxbury, S. W. (2021). The problem of scaling in exponential random
    graph models. *Sociological Methods & Research* 50(2), 764-799.

    Examples
    --------
    >>> import ergmfit as ef
    >>> fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit(method="mple")
    >>> ame = fit.marginal_effects()
    >>> round(float(ame["edges"][0]), 4)        # -1.609 * (1/6)(5/6)
    -0.2235
    """
    model = model_of(results)
    if model is None:
        raise ErgmfitError("marginal effects need the model: these results hold no network and "
                           "formula (saved with include_network=False?)")
    theta = np.asarray(results.params, dtype=float)
    X, w = _design_rows(model, dyads, theta)
    ame, G = ame_values(model, theta, X, w)
    cov = np.nan_to_num(np.asarray(results.cov, dtype=float))
    with np.errstate(invalid="ignore"):
        se = np.sqrt(np.clip(np.einsum("ij,jk,ik->i", G, cov, G), 0.0, None))
    if not np.isfinite(np.diag(results.cov)).all():
        se[:] = np.nan
    kinds = _kinds(results, model)
    bad = np.array([k != "linear" for k in kinds])
    ame[bad] = np.nan
    se[bad] = np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        z = ame / se
    pv = 2.0 * special.ndtr(-np.abs(z))
    return LabeledArray(np.column_stack([ame, se, z, pv]), results.labels,
                        columns=["AME", "Std. Error", "z value", "Pr(>|z|)"])
