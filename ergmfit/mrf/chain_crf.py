"""Linear-chain CRFs with q label states and their stochastic composite likelihood.

A document is a sequence of T items (sentences) with feature rows f_1 .. f_T
(d features each, dense or scipy sparse) and labels y_1 .. y_T in
{0, .., q-1}.  The linear-chain conditional random field is

    p(y | f, theta) ∝ exp( sum_t w_{y_t} . f_t + sum_{t>1} tau[y_{t-1}, y_t] ),

theta = (W, tau): a weight row w_s (d values) per state s and a q x q
transition matrix tau; ``theta`` is W flattened row by row, then tau row by
row (:meth:`ChainCRF.unpack`).

Likelihood objects (Dillon & Lebanon 2009, Sec. 5 and 7.2) are *windows*:
contiguous runs A = {s, .., e-1} of labels of one document, with the
conditional log p(y_A | y_-A, f) -- by the Markov property it depends on
the rest only through y_{s-1} and y_e, which enter as boundary potentials.
Every window's log-partition, marginals and score come from one
forward-backward pass over the window (windows of the same kind are
batched, padded to the longest, so the loops run over positions, vectorised
over windows).  Components:

* ``("pl", 1, lam, beta)``: one window per label, p(y_t | y_-t) (Besag's
  pseudo-likelihood, the paper's PL_1);
* ``("window", k, lam, beta)``: every run of k adjacent labels (k = 2: the
  paper's 2nd-order pseudo-likelihood over adjacent sentences, PL_2); a
  document shorter than k gives its whole chain;
* ``("full", lam, beta)``: the whole document (the full conditional
  likelihood, by forward-backward).

``lam`` (selection probability, in (0, 1]) and ``beta`` (weight > 0) default
to 1.  The regularised stochastic composite log-likelihood maximised by
:class:`ChainStochasticCompositeLikelihood` (``method="scl"``) is

    sum_i sum_j beta_j Z_ij log p(y^(i)_{A_j} | y^(i)_{-A_j}, f^(i)) - |theta|^2 / (2 sigma2),

Z_ij ~ Bernoulli(lam_j) drawn once per fit, independently per document and
object (``selection="object"``, the paper's Definition 2) or per document
and component (``"component"``).  Only selected windows are computed; the
work is counted as ``cost`` -- potential-table entries visited by
forward-backward, L q + (L - 1) q^2 for a window of L labels, per document.
``method="exact"`` is the (regularised) maximum conditional likelihood,
``method="pl"`` the maximum pseudo-likelihood.

References
----------
Dillon, J. V. & Lebanon, G. (2009). Statistical and computational tradeoffs in
stochastic composite likelihood. AISTATS.
Lafferty, J., McCallum, A. & Pereira, F. (2001). Conditional random fields. ICML.

Examples
--------
>>> import numpy as np
>>> from ergmfit.mrf.chain_crf import ChainCRF
>>> rng = np.random.default_rng(0)
>>> F = [rng.random((n, 3)) for n in (4, 6, 5)]
>>> Y = [rng.integers(0, 2, len(f)) for f in F]
>>> crf = ChainCRF(n_states=2, n_features=3)
>>> crf.fit(F, Y, method="scl", components=[("pl", 1), ("full", 0.5)], random_state=0).coef_.shape
(10,)
>>> crf.score_samples(F, Y).shape
(3,)
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy import optimize, sparse, special

from ..estimation.base import Setting, boolean, choice, integer, number
from ..exceptions import ConvergenceWarning, SettingsError
from ..utils.validation import check_random_state
from ._base import MRFEstimator, row_weights
from .fitting import MRFMethod, MRFResults, ProposalFreeFamily, make_estimator
from .scl import component_lam_beta, component_tuples

__all__ = ["ChainCRF", "ChainFamily", "CHAIN", "ChainData", "ChainComponent", "chain_components",
           "window_cost",
           "ChainStochasticCompositeLikelihood", "ChainLikelihood", "ChainPseudoLikelihood"]


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------
class ChainData:
    """Validated documents, stacked: ``features`` (CSR, one row per item of
    every document), ``labels`` (int64), ``starts`` (document i is rows
    starts[i]:starts[i+1]), ``weights`` (one per document), ``n_states``,
    ``n_features``.  Built by :meth:`ChainCRF.observations`."""

    #: what its variables are (:data:`CHAIN`, a chain CRF's label sequences)
    @property
    def family(self):
        return CHAIN

    def __init__(self, features, labels, starts, weights, n_states, n_features):
        self.features = features
        self.labels = labels
        self.starts = starts
        self.weights = weights
        self.n_states = n_states
        self.n_features = n_features

    @property
    def n_docs(self):
        return len(self.starts) - 1

    @property
    def lengths(self):
        return np.diff(self.starts)

    def subset(self, docs):
        """The documents ``docs`` (indices) as a new ChainData."""
        docs = np.asarray(docs, dtype=np.int64)
        rows = np.concatenate([np.arange(self.starts[i], self.starts[i + 1]) for i in docs]) \
            if len(docs) else np.zeros(0, np.int64)
        starts = np.concatenate([[0], np.cumsum(self.lengths[docs])]).astype(np.int64)
        return ChainData(self.features[rows], self.labels[rows], starts, self.weights[docs],
                         self.n_states, self.n_features)


def _as_features(f, d, i):
    if sparse.issparse(f):
        f = sparse.csr_matrix(f, dtype=float)
        if f.ndim != 2 or f.shape[1] != d:
            raise ValueError(f"document {i}: features must have {d} columns, got shape {f.shape}")
        if f.nnz and not np.all(np.isfinite(f.data)):
            raise ValueError(f"document {i}: the features must be finite")
        return f
    a = np.asarray(f, dtype=float)
    if a.ndim != 2 or a.shape[1] != d:
        raise ValueError(f"document {i}: features must be a 2-D array with {d} columns (one row "
                         f"per item), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"document {i}: the features must be finite")
    return sparse.csr_matrix(a)


def check_documents(F, Y, n_states, n_features, sample_weight=None):
    """``F`` (a list of (T_i, d) feature arrays or sparse matrices, or one
    stacked sparse matrix with ``Y`` a list of label arrays) and ``Y`` (a list
    of label sequences, ints 0..q-1) as a :class:`ChainData`.  Nothing passed
    in is modified."""
    if isinstance(Y, np.ndarray) and Y.ndim == 1 and Y.dtype != object:
        raise ValueError("Y must be a list of label sequences, one per document (got one "
                         "flat array; wrap a single document as [y])")
    Y = list(Y)
    if sparse.issparse(F):
        lengths = [len(np.atleast_1d(y)) for y in Y]
        if sum(lengths) != F.shape[0]:
            raise ValueError(f"the stacked feature matrix has {F.shape[0]} rows but the label "
                             f"sequences hold {sum(lengths)} labels")
        cuts = np.concatenate([[0], np.cumsum(lengths)])
        F = [F[cuts[i]:cuts[i + 1]] for i in range(len(Y))]
    F = list(F)
    if len(F) != len(Y):
        raise ValueError(f"got {len(F)} feature matrices but {len(Y)} label sequences (one "
                         "of each per document)")
    if not F:
        raise ValueError("no documents")
    mats, labs = [], []
    for i, (f, y) in enumerate(zip(F, Y)):
        y = np.asarray(y)
        if y.ndim != 1 or len(y) == 0:
            raise ValueError(f"document {i}: labels must be a non-empty 1-D sequence, got "
                             f"shape {y.shape}")
        if y.dtype.kind == "f":
            if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
                raise ValueError(f"document {i}: labels must be integers 0..{n_states - 1}")
        elif y.dtype.kind not in "iub":
            raise ValueError(f"document {i}: labels must be integers 0..{n_states - 1}, got "
                             f"dtype {y.dtype}")
        y = y.astype(np.int64)
        if y.min() < 0 or y.max() >= n_states:
            bad = y[(y < 0) | (y >= n_states)][0]
            raise ValueError(f"document {i}: labels must lie in 0..{n_states - 1}, got {bad}")
        m = _as_features(f, n_features, i)
        if m.shape[0] != len(y):
            raise ValueError(f"document {i}: {m.shape[0]} feature rows but {len(y)} labels")
        mats.append(m)
        labs.append(y)
    starts = np.concatenate([[0], np.cumsum([len(y) for y in labs])]).astype(np.int64)
    w = row_weights(sample_weight, len(labs))
    return ChainData(sparse.vstack(mats, format="csr"), np.concatenate(labs), starts, w,
                     int(n_states), int(n_features))


# ---------------------------------------------------------------------------
# Components and windows
# ---------------------------------------------------------------------------
class ChainComponent:
    """A family of windows with one selection probability ``lam`` and weight
    ``beta``: ``kind`` "window" (``length`` labels; PL_1 is length 1) or
    "full"."""

    __slots__ = ("kind", "length", "lam", "beta")

    def __init__(self, kind, length, lam, beta):
        self.kind, self.length, self.lam, self.beta = kind, length, lam, beta

    def label(self):
        return "FL" if self.kind == "full" else f"PL{self.length}"

    def as_tuple(self):
        if self.kind == "full":
            return ("full", self.lam, self.beta)
        return ("window", self.length, self.lam, self.beta)

    def __repr__(self):
        return f"ChainComponent{self.as_tuple()!r}"


def chain_components(components):
    """Validate ``components`` (see the module docstring): a list of
    :class:`ChainComponent`.

    >>> chain_components([("pl", 1), ("window", 2, 0.5, 2.0)])
    [ChainComponent('window', 1, 1.0, 1.0), ChainComponent('window', 2, 0.5, 2.0)]
    """
    out = []
    for what, kind, c in component_tuples(
            components, ChainComponent, "('pl', 1, lam, beta), ('window', k, lam, beta) or "
            "('full', lam, beta)", "[('pl', 1)]"):
        if kind in ("pl", "window"):
            if len(c) < 2 or len(c) > 4:
                raise ValueError(f"{what}: expected ({kind!r}, k[, lam[, beta]])")
            k = c[1]
            if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
                raise ValueError(f"{what}: the window length must be a positive integer, got "
                                 f"{k!r}")
            if kind == "pl" and k != 1:
                raise ValueError(f"{what}: on a chain, ('pl', k) is defined for k = 1 only; use "
                                 f"('window', {k}) for runs of {k} adjacent labels")
            lam, beta = component_lam_beta(c, 2, what)
            out.append(ChainComponent("window", int(k), lam, beta))
        elif kind in ("full", "fl"):
            if len(c) > 3:
                raise ValueError(f"{what}: expected ('full'[, lam[, beta]])")
            lam, beta = component_lam_beta(c, 1, what)
            out.append(ChainComponent("full", None, lam, beta))
        else:
            raise ValueError(f"{what}: unknown component kind {c[0]!r}; use 'pl', 'window' or "
                             "'full'")
    return out


def window_cost(length, n_states):
    """Potential-table entries visited by forward-backward on a window of
    ``length`` labels: L q + (L - 1) q^2 (the cost unit of ``info['cost']``).

    >>> int(window_cost(1, 5)), int(window_cost(2, 5))
    (5, 35)
    """
    L = np.asarray(length, dtype=float)
    return L * n_states + np.maximum(L - 1, 0) * n_states ** 2


def _component_windows(comp, data):
    """(doc, start, length) arrays of every window of the component."""
    lengths = data.lengths
    docs = np.arange(data.n_docs)
    if comp.kind == "full":
        return docs, np.zeros(data.n_docs, np.int64), lengths.astype(np.int64)
    k = comp.length
    n_win = np.maximum(lengths - k + 1, 1)
    doc = np.repeat(docs, n_win)
    first = np.concatenate([[0], np.cumsum(n_win)[:-1]])
    start = np.arange(len(doc)) - np.repeat(first, n_win)
    length = np.minimum(k, lengths[doc])
    return doc, start.astype(np.int64), length.astype(np.int64)


class _WindowBatch:
    """Index arrays of a batch of windows, padded to the longest: ``rows``
    (B, L) global item rows, ``mask``, ``left``/``right`` (global row of the
    label before / after, -1 at a document end), ``last`` (index of the last
    label), ``weight`` (B,)."""

    def __init__(self, data, doc, start, length, weight):
        L = int(length.max())
        off = data.starts[doc] + start
        pos = np.arange(L)[None, :]
        self.mask = pos < length[:, None]
        self.rows = np.where(self.mask, off[:, None] + pos, 0)
        self.left = np.where(start > 0, off - 1, -1)
        end = off + length
        self.right = np.where(end < data.starts[doc + 1], end, -1)
        self.last = length - 1
        self.weight = weight
        self.length = length


def _lse(a, axis):
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    return np.squeeze(m, axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def _forward_backward(U, mask, tau):
    """Log-partition (B,), node marginals (B, L, q) and pair marginals
    (B, L-1, q, q) of chains with unary log-potentials U (zero where not
    ``mask``) and transition log-potentials tau: scaled forward-backward in
    probability space (each step normalised), or in log space when a
    scaled step underflows."""
    B, L, q = U.shape
    m = np.max(U, axis=2)
    psi = np.exp(U - m[:, :, None])
    ct = float(np.max(tau))
    expT = np.exp(tau - ct)
    alpha = np.empty_like(U)
    c = np.ones((B, L))
    alpha[:, 0] = psi[:, 0]
    c[:, 0] = alpha[:, 0].sum(axis=1)
    alpha[:, 0] /= c[:, 0, None]
    for t in range(1, L):
        a = (alpha[:, t - 1] @ expT) * psi[:, t]
        s = a.sum(axis=1)
        on = mask[:, t]
        c[:, t] = np.where(on, s, 1.0)
        alpha[:, t] = np.where(on[:, None], a / np.where(on, s, 1.0)[:, None], alpha[:, t - 1])
    if not np.all(c > 0) or not np.all(np.isfinite(c)):
        return _forward_backward_log(U, mask, tau)
    n_pairs = np.maximum(mask.sum(axis=1) - 1, 0)
    logZ = np.sum(np.log(c) + m * mask, axis=1) + ct * n_pairs
    beta = np.ones_like(U)
    for t in range(L - 2, -1, -1):
        bnew = ((psi[:, t + 1] * beta[:, t + 1]) @ expT.T) / c[:, t + 1, None]
        beta[:, t] = np.where(mask[:, t + 1, None], bnew, beta[:, t + 1])
    P = alpha * beta * mask[:, :, None]
    if L > 1:
        PP = (alpha[:, :-1, :, None] * expT[None, None]
              * (psi[:, 1:] * beta[:, 1:] / c[:, 1:, None])[:, :, None, :]) \
            * mask[:, 1:, None, None]
    else:
        PP = np.zeros((B, 0, q, q))
    return logZ, P, PP


def _forward_backward_log(U, mask, tau):
    """:func:`_forward_backward` in log space (slower, never underflows)."""
    B, L, q = U.shape
    a = np.empty_like(U)
    a[:, 0] = U[:, 0]
    for t in range(1, L):
        new = _lse(a[:, t - 1, :, None] + tau[None], axis=1) + U[:, t]
        a[:, t] = np.where(mask[:, t, None], new, a[:, t - 1])
    logZ = _lse(a[:, L - 1], axis=1)
    b = np.zeros_like(U)
    for t in range(L - 2, -1, -1):
        new = _lse(tau[None] + (U[:, t + 1] + b[:, t + 1])[:, None, :], axis=2)
        b[:, t] = np.where(mask[:, t + 1, None], new, b[:, t + 1])
    # exp of -inf (0) off the mask: its entries carry copies that may overflow
    P = np.exp(np.where(mask[:, :, None], a + b - logZ[:, None, None], -np.inf))
    if L > 1:
        PP = np.exp(np.where(mask[:, 1:, None, None],
                             a[:, :-1, :, None] + tau[None, None]
                             + (U[:, 1:] + b[:, 1:])[:, :, None, :] - logZ[:, None, None, None],
                             -np.inf))
    else:
        PP = np.zeros((B, 0, q, q))
    return logZ, P, PP


def _window_terms(batch, E, tau, y, want_grad=True):
    """sum_b weight_b log p(y_A_b | y_-A_b); with ``want_grad`` also the
    residuals R (added per global row: weight (onehot(y) - P), for the W
    gradient via R' F) and the tau gradient."""
    q = tau.shape[0]
    B = len(batch.weight)
    rows, mask = batch.rows, batch.mask
    U = E[rows] * mask[:, :, None]
    hl = batch.left >= 0
    hr = batch.right >= 0
    bi = np.arange(B)
    U[hl, 0, :] += tau[y[batch.left[hl]], :]
    U[bi[hr], batch.last[hr], :] += tau[:, y[batch.right[hr]]].T
    logZ, P, PP = _forward_backward(U, mask, tau)
    Y = y[rows]
    obs = np.sum(np.take_along_axis(U, Y[:, :, None], axis=2)[:, :, 0] * mask, axis=1)
    if Y.shape[1] > 1:
        obs += np.sum(tau[Y[:, :-1], Y[:, 1:]] * mask[:, 1:], axis=1)
    ll = obs - logZ
    value = float(batch.weight @ ll)
    if not want_grad:
        return value, ll, None, None
    onehot = np.zeros_like(P)
    np.put_along_axis(onehot, Y[:, :, None], 1.0, axis=2)
    G = (onehot * mask[:, :, None] - P) * batch.weight[:, None, None]
    gtau = np.zeros((q, q))
    if PP.shape[1]:
        w2 = batch.weight[:, None] * mask[:, 1:]
        np.add.at(gtau, (Y[:, :-1].ravel(), Y[:, 1:].ravel()), w2.ravel())
        gtau -= np.einsum("b,btij->ij", batch.weight, PP)
    if np.any(hl):
        np.add.at(gtau, y[batch.left[hl]], G[hl, 0, :])
    if np.any(hr):
        np.add.at(gtau.T, y[batch.right[hr]], G[bi[hr], batch.last[hr], :])
    return value, ll, (rows[mask], G[mask]), gtau


class ChainObjective:
    """The weighted sum of window log-conditionals of a ChainData, minus the
    L2 penalty |theta|^2 / (2 sigma2) (``sigma2=None``: none).

    ``windows``: a list of (doc, start, length, weight) arrays; windows of one
    entry are batched together.  :meth:`value_grad` returns the objective and
    its gradient at theta (W row-major, then tau)."""

    def __init__(self, data, windows, sigma2=None):
        self.data = data
        self.q, self.d = data.n_states, data.n_features
        self.sigma2 = sigma2
        self.batches = [_WindowBatch(data, doc, start, length, w)
                        for doc, start, length, w in windows if len(doc)]
        self.FT = data.features.T.tocsr()

    def unpack(self, theta):
        q, d = self.q, self.d
        return theta[:q * d].reshape(q, d), theta[q * d:].reshape(q, q)

    def value_grad(self, theta, want_grad=True):
        W, tau = self.unpack(np.asarray(theta, dtype=float))
        E = np.asarray(self.data.features @ W.T)
        y = self.data.labels
        total = 0.0
        R = np.zeros_like(E)
        gtau = np.zeros_like(tau)
        for b in self.batches:
            v, _, res, gt = _window_terms(b, E, tau, y, want_grad)
            total += v
            if want_grad:
                np.add.at(R, res[0], res[1])
                gtau += gt
        if self.sigma2 is not None:
            total -= float(theta @ theta) / (2 * self.sigma2)
        if not want_grad:
            return total, None
        g = np.concatenate([np.asarray(self.FT @ R).T.ravel(), gtau.ravel()])
        if self.sigma2 is not None:
            g -= theta / self.sigma2
        return total, g


def _selected_windows(data, comps, selection, rng):
    """Per component: (doc, start, length, weight) of the selected windows, the
    selection Z (documents x objects of the component, boolean) and the cost
    per document."""
    out, Zs = [], []
    n = data.n_docs
    cost = np.zeros(n)
    for c in comps:
        doc, start, length = _component_windows(c, data)
        if selection == "object":
            z = rng.random(len(doc)) < c.lam if c.lam < 1 else np.ones(len(doc), bool)
        else:
            zd = rng.random(n) < c.lam if c.lam < 1 else np.ones(n, bool)
            z = zd[doc]
        w = c.beta * data.weights[doc]
        keep = z & (w > 0)
        out.append((doc[keep], start[keep], length[keep], w[keep]))
        Zs.append(z)
        np.add.at(cost, doc[z], window_cost(length[z], data.n_states))
    return out, Zs, cost


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------
class ChainFamily(ProposalFreeFamily):
    """The family of a :class:`ChainCRF`'s state: documents' label sequences, each label
    one of q categorical states.

    Not binary variables: the chain CRF is not compiled on the binary engine, and is
    fitted by forward-backward over its windows (:attr:`ChainCRF.METHODS`); the MRF
    estimators for binary variables refuse it (:meth:`~ergmfit.mrf.fitting.MRFMethod.fit`),
    and its own estimators refuse other models.  It has no proposal.

    >>> ChainCRF(n_states=3, n_features=2).family.name
    'chain'
    """

    name = "chain"
    state = "label sequences of categorical states (a linear-chain CRF)"
    no_proposal = ("a chain CRF is not sampled by proposals; it is fitted by forward-backward "
                   "(ChainCRF.fit, methods 'exact', 'pl', 'scl')")
    handled_by = "fitted by forward-backward"


#: the family of every chain CRF
CHAIN = ChainFamily()


class ChainCRF(MRFEstimator):
    """Linear-chain CRF over documents of items with ``n_features`` features
    and ``n_states`` label states (see the module docstring).

    Parameters
    ----------
    n_states : int
        q, the number of label states (>= 2).
    n_features : int
        d, the number of features of an item.
    random_state : int, Generator or None
        Default seed of the stochastic composite likelihood's selection.
    verbose : bool

    Attributes
    ----------
    labels : list of str -- "w[s,j]" (state s, feature j), then "tau[r,s]".
    coef_, loglik_, converged_, n_iter_, method_, results_, and the
    estimator's ``info`` entries (e.g. ``cost_``) after :meth:`fit`.

    Examples
    --------
    >>> crf = ChainCRF(n_states=3, n_features=2)
    >>> crf.n_params, crf.labels[:2], crf.labels[-1]
    (15, ['w[0,0]', 'w[0,1]'], 'tau[2,2]')
    """

    #: categorical label sequences (:class:`ChainFamily`), not binary variables
    family = CHAIN

    def __init__(self, n_states, n_features, random_state=None, verbose=False):
        self.n_states = n_states
        self.n_features = n_features
        self.random_state = random_state
        self.verbose = verbose
        self._build()

    def _build(self):
        for name, v, lo in (("n_states", self.n_states, 2), ("n_features", self.n_features, 1)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) or v < lo:
                raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
        q, d = int(self.n_states), int(self.n_features)
        self.labels = ([f"w[{s},{j}]" for s in range(q) for j in range(d)]
                       + [f"tau[{r},{s}]" for r in range(q) for s in range(q)])

    @property
    def n_params(self):
        return int(self.n_states) * (int(self.n_features) + int(self.n_states))

    def unpack(self, theta=None):
        """(W (q, d), tau (q, q)) of theta (default: the fitted ``coef_``)."""
        theta = self._params(theta)
        q, d = int(self.n_states), int(self.n_features)
        return theta[:q * d].reshape(q, d).copy(), theta[q * d:].reshape(q, q).copy()

    def pack(self, W, tau):
        """theta from W (q, d) and tau (q, q)."""
        q, d = int(self.n_states), int(self.n_features)
        W, tau = np.asarray(W, dtype=float), np.asarray(tau, dtype=float)
        if W.shape != (q, d) or tau.shape != (q, q):
            raise ValueError(f"W must be ({q}, {d}) and tau ({q}, {q}), got {W.shape}, "
                             f"{tau.shape}")
        return np.concatenate([W.ravel(), tau.ravel()])

    def _params(self, theta=None):
        if theta is None:
            if not hasattr(self, "coef_"):
                raise ValueError("the model is not fitted: pass theta or call fit() first")
            theta = self.coef_
        theta = np.asarray(theta, dtype=float).ravel()
        if theta.shape[0] != self.n_params:
            raise ValueError(f"theta needs {self.n_params} values (q d + q^2), got "
                             f"{theta.shape[0]}")
        if not np.all(np.isfinite(theta)):
            raise ValueError("theta must be finite")
        return theta

    def observations(self, F, Y=None, sample_weight=None):
        """The documents as a :class:`ChainData` (what the estimators fit)."""
        if isinstance(F, ChainData):
            if Y is not None or sample_weight is not None:
                raise ValueError("a ChainData already holds the labels and weights: pass "
                                 "Y=None")
            return F
        if Y is None:
            raise ValueError("the labels Y are missing: fit(F, Y) takes the documents' "
                             "features F and label sequences Y (or a ChainData as F)")
        return check_documents(F, Y, int(self.n_states), int(self.n_features), sample_weight)

    METHODS = {}

    def fit(self, F, Y=None, method="exact", sample_weight=None, **settings):
        """Fit from documents: ``F`` a list of (T_i, d) feature arrays (or sparse
        matrices), ``Y`` a list of label sequences (or ``F`` a ChainData and
        ``Y=None``).  ``method``: "scl"
        (:class:`ChainStochasticCompositeLikelihood`: ``components``,
        ``sigma2``, ``selection``), "exact" (:class:`ChainLikelihood`) or "pl"
        (:class:`ChainPseudoLikelihood`)."""
        settings.setdefault("random_state", self.random_state)
        est = make_estimator(type(self).METHODS, method, **settings)
        res = est.fit(self, F, Y, sample_weight=sample_weight)
        self.coef_ = np.asarray(res.params, dtype=float)
        self.loglik_, self.converged_, self.n_iter_ = res.loglik, res.converged, res.n_iter
        self.method_ = res.method
        for key, val in res.info.items():
            setattr(self, key + "_", val)
        self.results_ = res
        return self

    def score_samples(self, F, Y=None, theta=None):
        """Exact log p(y_i | f_i, theta) of each document (forward-backward)."""
        data = self.observations(F, Y)
        obj = ChainObjective(data, [(np.arange(data.n_docs), np.zeros(data.n_docs, np.int64),
                                     data.lengths.astype(np.int64), np.ones(data.n_docs))])
        W, tau = self.unpack(theta)
        E = np.asarray(data.features @ W.T)
        _, ll, _, _ = _window_terms(obj.batches[0], E, tau, data.labels, want_grad=False)
        return ll

    def score(self, F, Y=None, theta=None):
        """Mean log-likelihood per label: sum_i log p(y_i | f_i) / (number of labels)."""
        data = self.observations(F, Y)
        return float(np.sum(self.score_samples(data, theta=theta)) / len(data.labels))

    def predict(self, F, theta=None):
        """The most probable label sequence of each document (Viterbi): a list of
        int64 arrays."""
        if isinstance(F, ChainData):
            data = F
        else:
            F = list(F)
            data = check_documents(F, [np.zeros(np.shape(f)[0], np.int64) for f in F],
                                   int(self.n_states), int(self.n_features))
        W, tau = self.unpack(theta)
        E = np.asarray(data.features @ W.T)
        lengths = data.lengths
        L = int(lengths.max())
        mask = np.arange(L)[None, :] < lengths[:, None]
        rows = np.where(mask, data.starts[:-1, None] + np.arange(L)[None, :], 0)
        U = E[rows]
        B, q = len(lengths), int(self.n_states)
        delta = U[:, 0].copy()
        back = np.zeros((B, L, q), dtype=np.int64)
        for t in range(1, L):
            s = delta[:, :, None] + tau[None]
            back[:, t] = np.argmax(s, axis=1)
            new = np.max(s, axis=1) + U[:, t]
            delta = np.where(mask[:, t, None], new, delta)
        out = []
        for b in range(B):
            n = lengths[b]
            path = np.empty(n, dtype=np.int64)
            path[-1] = int(np.argmax(delta[b]))
            for t in range(n - 1, 0, -1):
                path[t - 1] = back[b, t, path[t]]
            out.append(path)
        return out


# ---------------------------------------------------------------------------
# Estimators
# ---------------------------------------------------------------------------
class ChainStochasticCompositeLikelihood(MRFMethod):
    """Maximum regularised stochastic composite likelihood of a :class:`ChainCRF`
    (Dillon & Lebanon 2009), ``method="scl"``.

    Draws Z_ij ~ Bernoulli(lam_j) for every window j of the ``components`` of
    every document i (see :func:`chain_components`), then maximises
    sum_ij beta_j Z_ij log p(y_A_j | y_-A_j, f) - |theta|^2 / (2 sigma2) by
    scipy's L-BFGS-B from ``theta0`` (default zeros).  ``loglik`` is the
    objective at the maximum; ``info``: ``components``, ``cost`` (mean over
    documents of the potential-table entries of the selected windows, see
    :func:`window_cost`), ``n_selected`` (selected windows per component),
    ``objective_calls`` and ``selection`` (with ``store_selection``).

    References
    ----------
    Dillon, J. V. & Lebanon, G. (2009). Statistical and computational
    tradeoffs in stochastic composite likelihood. AISTATS.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> F = [rng.random((5, 2)) for _ in range(4)]
    >>> Y = [rng.integers(0, 3, 5) for _ in range(4)]
    >>> est = ChainStochasticCompositeLikelihood(components=[("pl", 1), ("window", 2, 0.5)],
    ...                                          sigma2=1.0, random_state=0)
    >>> est.fit(ChainCRF(3, 2), F, Y).params.shape
    (15,)
    """

    variable_families = frozenset({"chain"})    # a ChainCRF's (categorical label sequences)

    method = "scl"
    supports = dict(MRFMethod.supports, families=frozenset({"chain_crf"}))
    #: the settings of every chain-CRF estimator (exact and pl fix their components)
    COMMON = (
        Setting("sigma2", 1.0, number(0, lo_open=True, allow_none=True),
                "Variance of the Gaussian prior (L2 penalty |theta|^2 / (2 sigma2)); None: none."),
        Setting("theta0", None, None, "Starting values (default zeros)."),
        Setting("maxiter", 1000, integer(1), "L-BFGS-B iterations."),
        Setting("gtol", 1e-5, number(0, lo_open=True),
                "Stop when the largest gradient component, per document, is below this."),
    )
    SETTINGS = (
        Setting("components", (("pl", 1, 1.0, 1.0),), None,
                "Windows: ('pl', 1, lam, beta), ('window', k, lam, beta), ('full', lam, beta)."),
        Setting("selection", "object", choice("object", "component"),
                "One Bernoulli per document and window, or per document and component."),
        Setting("store_selection", False, boolean, "Keep Z in info['selection']."),
    ) + COMMON

    def _components(self):
        try:
            return chain_components(self.components)
        except ValueError as e:
            raise SettingsError(f"setting 'components': {e}") from None

    def _finish_settings(self):
        self._components()

    def _fit_instances(self, insts, labels, model=None):
        data = insts
        if not isinstance(data, ChainData):
            raise ValueError("a chain CRF estimator fits a ChainData (ChainCRF.observations)")
        comps = self._components()
        rng = check_random_state(self.random_state)
        windows, Z, cost = _selected_windows(data, comps, self.selection, rng)
        if not any(len(w[0]) for w in windows) and self.sigma2 is None:
            raise ValueError("no window was selected for any document: raise lambda or give "
                             "more documents")
        obj = ChainObjective(data, windows, self.sigma2)
        p = data.n_states * (data.n_features + data.n_states)
        theta0 = np.zeros(p) if self.theta0 is None else np.asarray(self.theta0, dtype=float)
        if theta0.shape != (p,) or not np.all(np.isfinite(theta0)):
            raise ValueError(f"theta0 must hold {p} finite values")
        scale = max(1.0, float(np.sum(data.weights)))
        calls = [0]

        def f(th):
            calls[0] += 1
            v, g = obj.value_grad(th)
            return -v / scale, -g / scale

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = optimize.minimize(f, theta0, jac=True, method="L-BFGS-B",
                                    options={"maxiter": int(self.maxiter), "gtol": self.gtol,
                                             "ftol": 1e-14, "maxcor": 20})
        theta = res.x
        value, g = obj.value_grad(theta)
        gmax = float(np.max(np.abs(g)) / scale)
        converged = gmax <= 10 * self.gtol or (bool(res.success) and gmax <= 1e-3)
        unbounded = False
        if self.sigma2 is None and np.max(np.abs(theta)) > 1:
            # concave objective: past a finite maximum, doubling theta loses; along a
            # direction of separation (no finite maximum) it still gains
            unbounded = obj.value_grad(2 * theta, want_grad=False)[0] >= value - 1e-9 * abs(value)
            converged = converged and not unbounded
        if not converged:
            warnings.warn(f"the chain CRF's {self.method!r} fit stopped after {res.nit} "
                          f"iterations with largest gradient {gmax:.3g} per document and largest "
                          f"|coefficient| {np.max(np.abs(theta)):.3g} (" + str(res.message) + ")" +
                          ("; the objective still increases along theta: without "
                           "regularisation (sigma2=None) it has no finite maximum here (the "
                           "labels are separable by the features); give sigma2"
                           if unbounded else ""),
                          ConvergenceWarning, stacklevel=4)
        info = {"components": [c.as_tuple() for c in comps],
                "cost": float(np.sum(cost * data.weights) / scale),
                "n_selected": [int(np.sum(z)) for z in Z],
                "objective_calls": calls[0]}
        if self.store_selection:
            info["selection"] = Z
        return MRFResults(theta, labels, method=self.method, loglik=float(value),
                          converged=converged, n_iter=int(res.nit), info=info)


class ChainLikelihood(ChainStochasticCompositeLikelihood):
    """Maximum (regularised) conditional likelihood of a :class:`ChainCRF`,
    ``method="exact"``: the stochastic composite likelihood with the single
    component ("full", 1, 1), computed by forward-backward."""

    method = "exact"
    SETTINGS = ChainStochasticCompositeLikelihood.COMMON
    selection = "object"
    store_selection = False

    def _components(self):
        return [ChainComponent("full", None, 1.0, 1.0)]


class ChainPseudoLikelihood(ChainLikelihood):
    """Maximum (regularised) pseudo-likelihood of a :class:`ChainCRF`,
    ``method="pl"``: one window per label, p(y_t | y_t-1, y_t+1, f_t)."""

    method = "pl"

    def _components(self):
        return [ChainComponent("window", 1, 1.0, 1.0)]


ChainCRF.METHODS = {"scl": ChainStochasticCompositeLikelihood, "exact": ChainLikelihood,
                    "pl": ChainPseudoLikelihood}
