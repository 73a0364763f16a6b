"""Binary Markov random fields in scikit-learn style, on the shared engine.

:class:`IsingModel`, :class:`BoltzmannMachine` (visible, with higher-order
potentials) and :class:`GridCRF` are linear exponential families
p(x | theta) ∝ exp(theta . g(x)) whose statistics are weighted monomials of
the variables; each compiles to one
:class:`ergmfit.mrf._models.MonomialModel` (a BinaryModel), so every
sampler and estimator of the package runs on it:

==========  ===========================================================
method      what runs (the estimator class of ``LinearMRF.METHODS``)
==========  ===========================================================
"exact"     Newton on the exact log-likelihood (enumeration, n <= 20;
            junction tree for larger thin models): ``ExactLikelihood``
"pl"        pseudo-likelihood: the MPLE design builder + logistic fit:
            ``PseudoLikelihood``
"cl"        composite likelihood of order ``block_size`` (all k-subsets
            by default: Yasuda et al.'s F_k), the MCLE block enumerator:
            ``CompositeLikelihood``
"scl"       stochastic composite likelihood (Dillon & Lebanon): the same
            block designs, objects selected with probabilities lambda:
            ``StochasticCompositeLikelihood``
"cd"        CD-n: ``n_steps`` random-scan Gibbs updates on blocks of
            ``block_size`` variables (Bn-CDm), or ``sampler="mh"``:
            ``ContrastiveDivergence``
"pcd"       persistent CD with the same samplers:
            ``PersistentContrastiveDivergence``
"ee"        Equilibrium Expectation on the product model of the rows:
            ``EquilibriumExpectation``
"ccg"       Contrastive Constraint Generation (Vickrey et al.): PL plus
            ICM or Gibbs-n instantiations of each example's own model:
            ``ContrastiveConstraintGeneration``
==========  ===========================================================

The estimators share the ERGM estimators' protocol
(:mod:`ergmfit.mrf.fitting`): ``model.fit(X, method=..., **settings)`` builds
``METHODS[method](**settings)`` (settings validated by its ``SETTINGS``
table), fits and copies the results to the fitted attributes; the same
estimator object fits without changing the model:
``PseudoLikelihood(maxiter=50).fit(model, X)`` returns the results.

:class:`RBM` (visible likelihood, hidden units summed out) is NOT linear in
its parameters -- log p*(v) = alpha.v + sum_j log 2cosh(beta_j + W_j.v) --
so it has no change-statistic form theta . Delta; its exact likelihood,
PL / CL of order k (Yasuda et al.) and CD-k are written directly in numpy.

Potts models (q states) are in :mod:`ergmfit.mrf.potts`
(:class:`~ergmfit.mrf.potts.PottsModel`): one-hot indicators in a
MonomialModel, moved a whole node at a time by the block kernel
:class:`~ergmfit.mrf._models.OneHotEnumeration`, so the sum-to-one constraint
always holds (exact sampling and Gibbs, PL/CL over node blocks, CD/PCD,
exact ML).
"""
from __future__ import annotations

import itertools

import numpy as np
from scipy import optimize, special

from ..estimation.base import Setting, integer, number
from ..exceptions import SettingsError
from ..families import BINARY
from ..utils.validation import check_random_state
from . import exact as _exact
from ._base import MRFEstimator, _to01, whole_count
from ._models import MonomialModel
from .contrastive import ContrastiveConstraintGeneration
from .ee import EquilibriumExpectation
from .estimation import (CompositeLikelihood, ContrastiveDivergence,
                         PersistentContrastiveDivergence, PseudoLikelihood)
from .fitting import MRFMethod, MRFResults, ProposalFreeFamily, make_estimator
from .scl import StochasticCompositeLikelihood

__all__ = ["LinearMRF", "IsingModel", "BoltzmannMachine", "GridCRF", "RBM", "graph_edges",
           "RBMLikelihood", "RBMPseudoLikelihood", "RBMCompositeLikelihood",
           "RBMContrastiveDivergence"]


def data_coding(X):
    """"pm1" if the rows hold -1/+1 spins (a negative value), else "01"."""
    X = np.asarray(X)
    return "pm1" if X.size and X.min() < 0 else "01"


def in_coding(X01, coding):
    """0/1 rows in the given coding: unchanged ("01") or as -1/+1 spins ("pm1")."""
    X01 = np.asarray(X01)
    return 2 * X01.astype(np.int8) - 1 if coding == "pm1" else X01


def graph_edges(graph):
    """(n, edges) from a networkx graph (nodes in sorted order), an
    adjacency matrix, or a pair (n, list of (i, j))."""
    if isinstance(graph, tuple) and len(graph) == 2 and np.isscalar(graph[0]):
        n = int(graph[0])
        edges = sorted({(min(int(i), int(j)), max(int(i), int(j))) for i, j in graph[1]})
    elif hasattr(graph, "nodes") and hasattr(graph, "edges"):
        nodes = sorted(graph.nodes())
        pos = {v: k for k, v in enumerate(nodes)}
        n = len(nodes)
        edges = sorted({(min(pos[a], pos[b]), max(pos[a], pos[b])) for a, b in graph.edges()})
    else:
        A = np.asarray(graph)
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError("graph must be a networkx graph, a square adjacency matrix or "
                             "(n, edges)")
        n = A.shape[0]
        edges = [(i, j) for i in range(n) for j in range(i + 1, n) if A[i, j] or A[j, i]]
    if any(i == j for i, j in edges):
        raise ValueError("self-loops are not allowed")
    if any(i < 0 or j >= n for i, j in edges):
        raise ValueError(f"edge endpoints must lie in 0..{n - 1}")
    return n, edges


class LinearMRF(MRFEstimator):
    """Base class: p(x | theta) ∝ exp(theta . g(x)), g_k(x) = sum of c_t prod_{v in S_t} s(x_v).

    Subclasses keep their constructor arguments unchanged (scikit-learn's
    estimator protocol: ``get_params``, ``set_params``, ``sklearn.base.clone``)
    and derive ``n_vars``, ``labels``, ``monomials``, ``stat``, ``coef`` in
    ``_build`` (via ``_init_spec``).
    Fitted attributes: ``coef_`` (theta, in ``labels`` order), ``method_``,
    ``n_iter_``, ``converged_``, ``cov_`` where the estimator gives one, and
    ``data_coding_`` ("01" or "pm1": the coding of the rows it was fit on;
    :meth:`sample` answers in it).
    """

    coding = "pm1"
    #: the engine's family of the compiled model's state: binary variables (0/1 or +-1)
    family = BINARY
    #: the class of :meth:`compiled`'s model (its ``family``, if it declares one, is the
    #: family of the instances an estimator sees: :func:`~ergmfit.mrf.fitting.compiled_family`)
    compiled_class = MonomialModel

    def _init_spec(self, n_vars, labels, monomials, stat, coef, coding):
        if coding not in ("pm1", "01"):
            raise ValueError(f"coding must be 'pm1' (+-1 spins) or '01', got {coding!r}")
        self.n_vars = int(n_vars)
        self.labels = list(labels)
        self.monomials = [np.asarray(m, dtype=np.int64) for m in monomials]
        self.stat = np.asarray(stat, dtype=np.int64)
        self.coef = np.asarray(coef, dtype=float)
        self.coding = coding           # the same object where ``coding`` is a parameter
        self._bm = None
        self._jt = None
        self._G_cache = None

    @property
    def n_stats(self):
        return len(self.labels)

    # the engine --------------------------------------------------------------
    def compiled(self):
        """A fresh compiled model (``compiled_class``, a :class:`MonomialModel`), state all 0."""
        return self.compiled_class(self.n_vars, self.n_stats, self.monomials, self.stat,
                                   self.coef, self.coding == "pm1")

    def _shared(self):
        if self._bm is None:
            self._bm = self.compiled()
        return self._bm

    def statistics(self, X):
        """g(x) for each row of X (0/1 or +-1), computed in numpy from the monomials."""
        X = _to01(X, self.n_vars).astype(float)
        S = 2.0 * X - 1.0 if self.coding == "pm1" else X
        out = np.zeros((len(X), self.n_stats))
        for m, k, c in zip(self.monomials, self.stat, self.coef):
            out[:, k] += c * np.prod(S[:, m], axis=1)
        return out

    def _instances(self, X, weights=None):
        return [(self._shared(), _to01(X, self.n_vars), weights)]

    # exact (small models) ----------------------------------------------------
    def _params(self, theta=None):
        if theta is None:
            if not hasattr(self, "coef_"):
                raise ValueError("the model is not fitted: call fit or pass theta")
            theta = self.coef_
        theta = np.asarray(theta, dtype=float).ravel()
        if theta.shape[0] != self.n_stats:
            raise ValueError(f"theta needs {self.n_stats} values ({self.labels}), got "
                             f"{theta.shape[0]}")
        if not np.all(np.isfinite(theta)):
            bad = [lab for lab, v in zip(self.labels, theta) if not np.isfinite(v)]
            raise ValueError(f"theta must be finite; not {bad}")
        return theta

    def _G(self):
        if getattr(self, "_G_cache", None) is None:
            self._G_cache = _exact.all_statistics(self._shared())
        return self._G_cache

    def _junction(self):
        if getattr(self, "_jt", None) is None:
            from .junction import JunctionTree
            self._jt = JunctionTree(self)
        return self._jt

    def log_partition(self, theta=None):
        """Exact log Z(theta): enumeration (at most 20 variables), else the
        junction tree (thin models: chains, trees, narrow grids)."""
        if self.n_vars > _exact.MAX_EXACT_VARS:
            return self._junction().log_partition(self._params(theta))
        return _exact.log_partition(self._G(), self._params(theta))

    def marginals(self, theta=None):
        """Exact P(x_v = 1) for every variable (enumeration or junction tree)."""
        if self.n_vars > _exact.MAX_EXACT_VARS:
            return self._junction().marginals(self._params(theta))
        return _exact.marginals(self._G(), self._params(theta), self.n_vars)

    def score_samples(self, X, theta=None):
        """Exact log p(x | theta) of each row (at most 20 variables)."""
        theta = self._params(theta)
        return self.statistics(X) @ theta - self.log_partition(theta)

    def score(self, X, y=None, theta=None):
        """Mean exact log-likelihood per observation."""
        return float(np.mean(self.score_samples(X, theta)))

    def sample(self, n_samples, theta=None, random_state=None, burnin=None, thin=None,
               coding=None):
        """Draws from p(x | theta) as an (n_samples, n_vars) array: exact by
        enumeration up to 20 variables, else random-scan Gibbs (``burnin`` and
        ``thin`` sweeps).  ``coding``: "01" or "pm1" (-1/+1); default the
        coding of the data the model was fit on (``data_coding_``), 0/1 for
        an unfitted model."""
        from . import data
        theta = self._params(theta)
        if self.n_vars <= _exact.MAX_EXACT_VARS:
            X = data.exact_sample(self._G(), theta, n_samples, self.n_vars, random_state)
        else:
            X = data.gibbs_sample(self._shared(), theta, n_samples, random_state,
                                  burnin=100 if burnin is None else burnin,
                                  thin=1 if thin is None else thin)
        return in_coding(X, self._sample_coding(coding))

    def _sample_coding(self, coding):
        coding = getattr(self, "data_coding_", "01") if coding is None else coding
        if coding not in ("01", "pm1"):
            raise ValueError(f"coding must be '01' or 'pm1' (-1/+1), got {coding!r}")
        return coding

    # estimation --------------------------------------------------------------
    #: the estimators ``fit(method=...)`` knows, by name (the MRF side's table)
    METHODS = {"exact": _exact.ExactLikelihood, "pl": PseudoLikelihood,
               "cl": CompositeLikelihood, "scl": StochasticCompositeLikelihood,
               "cd": ContrastiveDivergence, "pcd": PersistentContrastiveDivergence,
               "ee": EquilibriumExpectation, "ccg": ContrastiveConstraintGeneration}

    def fit(self, X, y=None, method="pl", sample_weight=None, **settings):
        """Estimate theta from the rows of X (i.i.d. observations).

        ``method`` names an estimator of :attr:`METHODS` and ``settings`` are
        its settings (see its class): "exact"
        (:class:`~ergmfit.mrf.exact.ExactLikelihood`), "pl"
        (:class:`~ergmfit.mrf.estimation.PseudoLikelihood`), "cl"
        (:class:`~ergmfit.mrf.estimation.CompositeLikelihood`: ``block_size=k``,
        ``blocks=``, ``n_blocks=``), "scl"
        (:class:`~ergmfit.mrf.scl.StochasticCompositeLikelihood`:
        ``components=``, ``selection=``), "cd" / "pcd"
        (:class:`~ergmfit.mrf.estimation.ContrastiveDivergence`: ``n_steps``,
        ``sampler``, ``block_size``, ``n_iter``, ``learning_rate``,
        ``batch_size``, ...), "ee"
        (:class:`~ergmfit.mrf.ee.EquilibriumExpectation`), "ccg"
        (:class:`~ergmfit.mrf.contrastive.ContrastiveConstraintGeneration`:
        ``instantiation``, ``n_sweeps``, ``init``, ``max_rounds``).  ``random_state``
        defaults to the model's.  The results object is kept as ``results_``.
        """
        self.data_coding_ = data_coding(X)
        return self._fit_with(method, settings, X, sample_weight=sample_weight)

    def _fit_with(self, method, settings, *data, sample_weight=None):
        settings.setdefault("random_state", getattr(self, "random_state", None))
        est = make_estimator(type(self).METHODS, method, **settings)
        self._set_fitted(est.fit(self, *data, sample_weight=sample_weight))
        return self

    def observations(self, X, sample_weight=None):
        """The compiled instances of the data: [(compiled model, 0/1 rows,
        weights or None)] (one instance: the observations are i.i.d. draws of
        this model)."""
        return self._instances(X, sample_weight)

    def cd_sampler(self, sampler, block_size, n_steps, sampler_given):
        """(sampler, n_steps) of contrastive divergence on this model: the
        estimator's own (``n_steps`` None: 1)."""
        return sampler, (1 if n_steps is None else n_steps)

    def _set_fitted(self, res):
        """Fitted attributes from an estimator's :class:`~ergmfit.mrf.fitting.MRFResults`:
        ``coef_``, ``loglik_``, ``converged_``, ``n_iter_``, ``cov_``,
        ``method_``, ``results_``, and ``<key>_`` for every entry of ``res.info``."""
        self.coef_ = np.asarray(res.params, dtype=float)
        self.loglik_, self.converged_, self.n_iter_, self.cov_ = \
            res.loglik, res.converged, res.n_iter, res.cov
        self.method_ = res.method
        for key, val in res.info.items():
            setattr(self, key + "_", val)
        self.results_ = res

    def partial_fit(self, X, y=None, n_iter=1, **settings):
        """A few CD iterations from the current estimate (``method_`` "cd" or
        "pcd"; default "cd")."""
        method = getattr(self, "method_", "cd")
        if method not in ("cd", "pcd"):
            method = "cd"
        settings.setdefault("average_from", 1.0)
        return self._fit_with(method, dict(settings, n_iter=n_iter, warm_start=True), X)

    def coef_dict(self):
        return dict(zip(self.labels, self._params()))


class IsingModel(LinearMRF):
    """Pairwise binary MRF (Ising model) on any graph.

    g = [sum_i s_i, sum_{ij in E} s_i s_j] (tied) or one field per node and one
    coupling per edge (free), s = 2x - 1 (``coding="pm1"``) or s = x ("01").

    Parameters
    ----------
    graph : networkx graph, adjacency matrix, or (n, edges)
    coding : "pm1" or "01"
    tied : bool, or (tied_fields, tied_couplings)
    fields : bool -- include the field statistics
    """

    def __init__(self, graph, coding="pm1", tied=True, fields=True, random_state=None,
                 verbose=False):
        self.graph = graph
        self.coding = coding
        self.tied = tied
        self.fields = fields
        self.random_state = random_state
        self.verbose = verbose
        self._build()

    def _build(self):
        n, edges = graph_edges(self.graph)
        tf, tc = tied_pair(self.tied)
        labels, mons, stat = [], [], []
        if self.fields:
            if tf:
                labels.append("field")
                mons += [[i] for i in range(n)]
                stat += [0] * n
            else:
                labels += [f"field{i}" for i in range(n)]
                mons += [[i] for i in range(n)]
                stat += list(range(n))
        base = len(labels)
        if edges:
            if tc:
                labels.append("coupling")
                mons += [list(e) for e in edges]
                stat += [base] * len(edges)
            else:
                labels += [f"coupling{i}.{j}" for i, j in edges]
                mons += [list(e) for e in edges]
                stat += list(range(base, base + len(edges)))
        if not labels:
            raise ValueError("the model has no statistics (no fields and no edges)")
        self.edges = edges
        self._init_spec(n, labels, mons, stat, np.ones(len(mons)), self.coding)


def tied_pair(tied):
    """(tied fields, tied couplings) from a bool or a pair of bools."""
    if isinstance(tied, (bool, np.bool_)):
        return bool(tied), bool(tied)
    try:
        tf, tc = tied
    except (TypeError, ValueError):
        raise ValueError(f"tied must be a bool or a pair (tied_fields, tied_couplings), "
                         f"got {tied!r}") from None
    return bool(tf), bool(tc)


class BoltzmannMachine(LinearMRF):
    """Visible Boltzmann machine: a bias per unit, a weight per pair (all pairs,
    or the given ``edges``), and one parameter per higher-order potential
    prod_{v in S} s(x_v) for each subset S in ``higher_order`` (Asuncion et al.
    2010, sec. 4.1).  ``coding="01"`` (default) or ``"pm1"``."""

    def __init__(self, n_visible, higher_order=(), edges=None, coding="01", random_state=None,
                 verbose=False):
        self.n_visible = n_visible
        self.higher_order = higher_order
        self.edges = edges
        self.coding = coding
        self.random_state = random_state
        self.verbose = verbose
        self._build()

    def _build(self):
        n = check_count(self.n_visible, "n_visible")
        higher_order = self.higher_order
        pairs = list(itertools.combinations(range(n), 2)) if self.edges is None else \
            graph_edges((n, self.edges))[1]
        labels = [f"bias{i}" for i in range(n)] + [f"w{i}.{j}" for i, j in pairs]
        mons = [[i] for i in range(n)] + [list(e) for e in pairs]
        for S in higher_order:
            S = sorted(int(v) for v in S)
            if len(S) < 1 or len(set(S)) != len(S) or S[0] < 0 or S[-1] >= n:
                raise ValueError(f"a higher-order potential needs distinct units in 0..{n - 1}, "
                                 f"got {S}")
            labels.append("h" + ".".join(map(str, S)))
            mons.append(S)
        self.pairs = pairs
        self._init_spec(n, labels, mons, np.arange(len(mons)), np.ones(len(mons)), self.coding)


def check_count(k, what, minimum=1):
    """An integral parameter (int or integral numpy scalar) >= minimum, as int."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < minimum:
        raise ValueError(f"{what} must be an integer >= {minimum}, got {k!r}")
    return int(k)


def _grid_edges(shape):
    h, w = shape
    idx = np.arange(h * w).reshape(h, w)
    e = [(int(idx[r, c]), int(idx[r, c + 1])) for r in range(h) for c in range(w - 1)]
    e += [(int(idx[r, c]), int(idx[r + 1, c])) for r in range(h - 1) for c in range(w)]
    return sorted(e)


def default_edge_features(y, shape, threshold=None):
    """c_ij = 1 if no edge between pixels i and j in the noisy image y, else 0.

    Asuncion et al. run a Canny detector on y; here (documented simplification)
    an "edge" is |y_i - y_j| > ``threshold`` (default: the median absolute
    difference over all adjacent pairs times 2)."""
    y = np.asarray(y, dtype=float).ravel()
    E = np.asarray(_grid_edges(shape))
    d = np.abs(y[E[:, 0]] - y[E[:, 1]])
    thr = 2.0 * np.median(d) if threshold is None else threshold
    return (d <= thr).astype(float)


class GridCRF(LinearMRF):
    """CRF on an image grid (Asuncion et al. 2010, eq. 11), +-1 labels:

    p(x | y, theta) ∝ exp( sum_j w.h_j(y) x_j + sum_{i~j} v.h_ij(y) x_i x_j ),
    h_j(y) = [1, y_j], h_ij(y) = [1, c_ij];  theta = (w_1, w_2, v_1, v_2).

    A CRF instance for one input y is a compiled model of its own
    (:meth:`conditional`); ``fit(Y, X)`` adds the objectives of the pairs
    (y_m, x_m).  ``edge_features(y)`` gives c (default
    :func:`default_edge_features`).
    """

    labels = ["node", "node_y", "edge", "edge_c"]

    coding = "pm1"

    def __init__(self, shape, edge_features=None, random_state=None, verbose=False):
        self.shape = shape
        self.edge_features = edge_features
        self.random_state = random_state
        self.verbose = verbose
        self._build()

    def _build(self):
        try:
            h, w = (check_count(k, "a grid dimension") for k in self.shape)
        except (TypeError, ValueError) as e:
            raise ValueError(f"shape must be (rows, columns) of positive integers, got "
                             f"{self.shape!r}") from e
        if h * w < 2:
            raise ValueError(f"shape {self.shape!r} has a single pixel and no neighbouring pair: "
                             f"a GridCRF's edge parameters need at least two pixels")
        self.grid_shape = (h, w)
        self.n_vars = h * w
        self.edges = _grid_edges(self.grid_shape)
        self._bm = None
        self._G_cache = None
        self._jt = None

    def edge_features_of(self, y):
        """c(y): ``edge_features(y)``, default :func:`default_edge_features`."""
        if self.edge_features is None:
            return default_edge_features(y, self.grid_shape)
        return self.edge_features(y)

    def spec(self, y):
        y = np.asarray(y, dtype=float).ravel()
        if y.shape[0] != self.n_vars:
            raise ValueError(f"an input needs {self.n_vars} values, got {y.shape[0]}")
        c = np.asarray(self.edge_features_of(y), dtype=float).ravel()
        n = self.n_vars
        mons = [[j] for j in range(n)] * 2 + [list(e) for e in self.edges] * 2
        stat = [0] * n + [1] * n + [2] * len(self.edges) + [3] * len(self.edges)
        coef = np.concatenate([np.ones(n), y, np.ones(len(self.edges)), c])
        return mons, stat, coef

    def conditional(self, y):
        """The compiled conditional model p(x | y) (a MonomialModel)."""
        mons, stat, coef = self.spec(y)
        return MonomialModel(self.n_vars, 4, mons, stat, coef, True)

    def statistics(self, X, Y):
        """g(x_m; y_m) for the pairs (rows of X, rows of Y)."""
        X = _to01(X, self.n_vars)
        return np.array([_stats_of(self.conditional(y), x) for x, y in zip(X, np.atleast_2d(Y))])

    def fit(self, Y, X, method="pl", **settings):
        """Fit from inputs Y (M, n_pixels) and labels X (M, n_pixels), 0/1 or +-1
        (``method`` and ``settings`` as for :meth:`LinearMRF.fit`)."""
        self.data_coding_ = data_coding(X)
        return self._fit_with(method, settings, Y, X)

    def observations(self, Y, X, sample_weight=None):
        """One compiled conditional model per input: [(p(x | y_m), x_m, None)]."""
        if sample_weight is not None:
            raise ValueError("a GridCRF takes no sample_weight (repeat an input-label pair "
                             "instead)")
        Y = np.atleast_2d(np.asarray(Y, dtype=float))
        X = _to01(X, self.n_vars)
        return [(self.conditional(y), x[None, :], None) for y, x in zip(Y, X)]

    def score(self, Y, X, theta=None):
        """Pixel accuracy of :meth:`predict` on inputs Y against labels X (0/1 or
        -1/+1), as a scikit-learn classifier scores."""
        X = _to01(X, self.n_vars)
        return float(np.mean(self.predict(Y, theta, coding="01") == X))

    def predict(self, Y, theta=None, n_sweeps=10, coding=None):
        """Labels by iterated conditional modes from the node potentials, in
        ``coding`` ("01" or "pm1"; default that of the labels of the fit)."""
        theta = self._params(theta)
        out = []
        for y in np.atleast_2d(np.asarray(Y, dtype=float)):
            bm = self.conditional(y)
            x = (theta[0] + theta[1] * y > 0).astype(np.uint8)
            bm.set_state(x)
            for _ in range(n_sweeps):
                moved = False
                for v in range(self.n_vars):
                    want = bool(bm.change_stats(v) @ theta > 0)
                    if bm.value(v) != want:
                        bm.flip_var(v)
                        moved = True
                if not moved:
                    break
            out.append(bm.state())
        return in_coding(np.array(out), self._sample_coding(coding))


def _stats_of(bm, x):
    bm.set_state(x)
    return bm.statistics()


# ---------------------------------------------------------------------------
# Restricted Boltzmann machine (numpy; not a change-statistic model)
# ---------------------------------------------------------------------------
class RBMFamily(ProposalFreeFamily):
    """The family of an :class:`RBM`'s data: its visible units (+-1), the hidden ones summed
    out, so that the likelihood is not linear in the parameters and there is no compiled
    model: fitted by the RBM's own numpy estimators (:attr:`RBM.METHODS`), which refuse
    other models, as the binary-variable MRF estimators refuse an RBM.

    >>> RBM(3, 2).family.name
    'rbm'
    """

    name = "rbm"
    state = "visible units of a restricted Boltzmann machine (hidden units summed out)"
    no_proposal = ("an RBM is not sampled by proposals of its visible units; RBM.sample "
                   "draws them exactly, its 'cd' method by alternating Gibbs")
    handled_by = "fitted by the RBM's own estimators"


#: the family of every RBM
RBM_FAMILY = RBMFamily()


class RBM(MRFEstimator):
    """Restricted Boltzmann machine with +-1 units (Yasuda et al.):

    E(v, h) = -(sum_i alpha_i v_i + sum_j beta_j h_j + sum_ij w_ij v_i h_j),
    visible likelihood p(v) ∝ exp(alpha.v) prod_j 2 cosh(beta_j + sum_i w_ij v_i).

    Parameters are flattened as theta = [alpha (n_v), beta (n_h), W (n_v*n_h, row-major)].
    Methods (:attr:`METHODS`, estimators on the ERGM protocol): "exact"
    (enumeration of the 2^n_v visible states), "pl", "cl" (order
    ``block_size``, all k-subsets; order 1 is PL), "cd" (CD-k with
    alternating Gibbs).  Implemented in numpy (see module docstring).

    The data may be 0/1 or -1/+1 (a 0 is the spin -1); :meth:`sample` answers
    in the coding of the data of the fit (``data_coding_``).  A scikit-learn
    estimator: ``get_params`` / ``set_params`` / ``clone``, :meth:`score` (mean
    exact log-likelihood) and :meth:`transform` (the hidden units'
    probabilities P(h_j = +1 | v)).

    >>> V = np.array([[0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 1, 1]])
    >>> rbm = RBM(3, 2, random_state=0).fit(V, method="cd", n_iter=50)
    >>> rbm.transform(V).shape, bool(rbm.sample(2, random_state=0).min() >= 0)
    ((4, 2), True)
    """

    #: its visible units, the hidden ones summed out (:class:`RBMFamily`)
    family = RBM_FAMILY

    def __init__(self, n_visible, n_hidden, random_state=None, verbose=False):
        self.n_visible = n_visible
        self.n_hidden = n_hidden
        self.random_state = random_state
        self.verbose = verbose
        self._build()

    def _build(self):
        check_count(self.n_visible, "n_visible")
        check_count(self.n_hidden, "n_hidden")

    @property
    def n_params(self):
        return self.n_visible + self.n_hidden + self.n_visible * self.n_hidden

    def unpack(self, theta):
        nv, nh = self.n_visible, self.n_hidden
        theta = np.asarray(theta, dtype=float)
        return theta[:nv], theta[nv:nv + nh], theta[nv + nh:].reshape(nv, nh)

    def pack(self, alpha, beta, W):
        return np.concatenate([np.ravel(alpha), np.ravel(beta), np.ravel(W)])

    @staticmethod
    def _pm(V):
        V = np.asarray(V, dtype=float)
        return V if V.size == 0 or V.min() < 0 else 2.0 * V - 1.0

    def log_unnorm(self, V, theta):
        """log p*(v) = alpha.v + sum_j log 2cosh(beta_j + W_j.v) (last axis of V = units)."""
        a, b, W = self.unpack(theta)
        A = V @ W + b
        return V @ a + np.sum(np.logaddexp(A, -A), axis=-1)

    def grad_log_unnorm(self, V, theta):
        a, b, W = self.unpack(theta)
        T = np.tanh(V @ W + b)
        return np.concatenate([V, T, (V[..., :, None] * T[..., None, :]).reshape(
            V.shape[:-1] + (-1,))], axis=-1)

    def _all_v(self):
        return 2.0 * _exact.state_matrix(self.n_visible).astype(float) - 1.0

    def log_partition(self, theta):
        return float(special.logsumexp(self.log_unnorm(self._all_v(), theta)))

    def loglik(self, V, theta=None):
        """Mean exact log-likelihood of the rows of V (0/1 or +-1)."""
        theta = self._theta(theta)
        V = self._check_V(V)
        return float(np.mean(self.log_unnorm(V, theta)) - self.log_partition(theta))

    def _theta(self, theta):
        if theta is None:
            if not hasattr(self, "coef_"):
                raise ValueError("the RBM is not fitted: call fit or pass theta")
            theta = self.coef_
        theta = np.asarray(theta, dtype=float).ravel()
        if theta.shape[0] != self.n_params:
            raise ValueError(f"theta needs {self.n_params} values (alpha, beta, W), got "
                             f"{theta.shape[0]}")
        return theta

    def _check_V(self, V):
        V = np.atleast_2d(np.asarray(V))
        if V.shape[-1] != self.n_visible:
            raise ValueError(f"V must have {self.n_visible} columns (one per visible unit), "
                             f"got {V.shape[-1]}")
        if not np.all(np.isin(V, (-1, 1) if V.size and V.min() < 0 else (0, 1))):
            raise ValueError("V must hold 0/1 values or -1/+1 spins")
        return self._pm(V)

    def score_samples(self, V, theta=None):
        """Exact log p(v) of each row (enumeration of the 2^n_visible states)."""
        theta = self._theta(theta)
        V = self._check_V(V)
        return self.log_unnorm(V, theta) - self.log_partition(theta)

    def score(self, V, y=None, theta=None):
        """Mean exact log-likelihood of the rows of V (0/1 or -1/+1)."""
        return float(np.mean(self.score_samples(V, theta)))

    def transform(self, V, theta=None):
        """The hidden units' probabilities P(h_j = +1 | v) = sigmoid(2 (beta_j + W_j.v)),
        an (N, n_hidden) array (scikit-learn's ``BernoulliRBM.transform``)."""
        a, b, W = self.unpack(self._theta(theta))
        return special.expit(2.0 * (self._check_V(V) @ W + b))

    def composite_loglik(self, V, theta, k, grad=False, weights=None):
        """Yasuda et al.'s L_{F_k}: the (``weights``-weighted) mean over rows and
        the mean over all k-subsets c of log p(v_c | v_-c); with ``grad`` also
        its gradient."""
        V = self._pm(V)
        N, n = V.shape
        w = np.full(N, 1.0 / N) if weights is None else \
            np.asarray(weights, dtype=float) / np.sum(weights)
        C = 2.0 * _exact.state_matrix(k).astype(float) - 1.0         # (2^k, k)
        total, g = 0.0, np.zeros(self.n_params)
        subsets = list(itertools.combinations(range(n), k))
        L0 = self.log_unnorm(V, theta)
        G0 = self.grad_log_unnorm(V, theta) if grad else None
        for c in subsets:
            Vr = np.repeat(V[:, None, :], len(C), axis=1)              # (N, 2^k, n)
            Vr[:, :, list(c)] = C[None, :, :]
            L = self.log_unnorm(Vr, theta)                             # (N, 2^k)
            lse = special.logsumexp(L, axis=1)
            total += float(w @ (L0 - lse))
            if grad:
                P = np.exp(L - lse[:, None])
                g += w @ G0 - np.einsum("n,ns,nsq->q", w, P, self.grad_log_unnorm(Vr, theta))
        m = len(subsets)
        return (total / m, g / m) if grad else total / m

    @property
    def labels(self):
        """The parameters' names alpha<i>, beta<j> and w<i>.<j>, in theta's order."""
        nv, nh = check_count(self.n_visible, "n_visible"), check_count(self.n_hidden, "n_hidden")
        return ([f"alpha{i}" for i in range(nv)] + [f"beta{j}" for j in range(nh)]
                + [f"w{i}.{j}" for i in range(nv) for j in range(nh)])

    def fit(self, V, y=None, method="cl", **settings):
        """Fit by "exact" ML, "pl", "cl" (order ``block_size``) or "cd"
        (CD-``n_steps``): the estimators of :attr:`METHODS`
        (:class:`RBMLikelihood`, :class:`RBMPseudoLikelihood`,
        :class:`RBMCompositeLikelihood`, :class:`RBMContrastiveDivergence`)
        with their settings; ``random_state`` defaults to the model's.
        """
        self.data_coding_ = data_coding(V)
        settings.setdefault("random_state", self.random_state)
        res = make_estimator(type(self).METHODS, method, **settings).fit(self, V)
        self.coef_ = np.asarray(res.params, dtype=float)
        self.n_iter_, self.converged_, self.method_ = res.n_iter, res.converged, res.method
        self.results_ = res
        return self

    def sample(self, n_samples, theta=None, random_state=None, coding=None):
        """Exact draws of the visible units by enumeration, in ``coding`` ("01"
        or "pm1"): default the coding of the data of the fit, -1/+1 for an
        unfitted model (theta given)."""
        theta = self._theta(theta)
        coding = getattr(self, "data_coding_", "pm1") if coding is None else coding
        if coding not in ("01", "pm1"):
            raise ValueError(f"coding must be '01' or 'pm1' (-1/+1), got {coding!r}")
        rng = check_random_state(random_state)
        n_samples = whole_count(n_samples, "n_samples")
        Vall = self._all_v()
        L = self.log_unnorm(Vall, theta)
        P = np.exp(L - special.logsumexp(L))
        V = Vall[rng.choice(len(P), size=n_samples, p=P / P.sum())]
        return V if coding == "pm1" else (V > 0).astype(np.uint8)


# ---------------------------------------------------------------------------
# the RBM's estimators (numpy: the visible likelihood is not linear in theta)
# ---------------------------------------------------------------------------
def _rbm_optimizer(name, value):
    if isinstance(value, str) and value in ("lbfgs", "gd"):
        return value
    raise SettingsError(f"setting {name!r} must be 'lbfgs' or 'gd', got {value!r}")


def _rbm_alpha_rule(name, value):
    if isinstance(value, str) and value in ("exact", "eq10"):
        return value
    raise SettingsError(f"setting {name!r} must be 'exact' or 'eq10', got {value!r}")


_RBM_START = Setting("theta0", None, None, "Starting values (default 0.01 N(0, 1) draws).")
_RBM_ASCENT = (
    Setting("maxiter", 1000, integer(1), "L-BFGS iterations (optimizer='lbfgs')."),
    Setting("optimizer", "lbfgs", _rbm_optimizer,
            "'lbfgs' (to convergence) or 'gd' (n_iter plain gradient steps)."),
    Setting("n_iter", 2000, integer(1), "Gradient steps of optimizer='gd'."),
    Setting("learning_rate", 0.05, number(0, lo_open=True), "Step of optimizer='gd'."),
    Setting("alpha_rule", "exact", _rbm_alpha_rule,
            "'eq10': scale the visible biases' steps by n/k (Yasuda et al.'s eq. 10)."),
)


class RBMCompositeLikelihood(MRFMethod):
    """Composite likelihood of order ``block_size`` of an :class:`RBM`
    (``method="cl"``; Yasuda et al.'s L_{F_k}, :meth:`RBM.composite_loglik`).

    ``optimizer="lbfgs"`` maximises to convergence; ``"gd"`` runs ``n_iter``
    plain gradient-ascent steps of ``learning_rate`` (Yasuda et al.'s
    procedure: with few distinct rows the ML and CL optima can lie at
    infinity, and the estimates are those of a fixed schedule).
    ``alpha_rule="eq10"`` scales the visible biases' steps by n/k as their
    eq. 10 is written.  The start is ``theta0`` or small random values
    (``random_state``).

    Examples
    --------
    >>> V = np.array([[0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 1, 1]])
    >>> RBMCompositeLikelihood(block_size=2, random_state=0).fit(RBM(3, 2), V).params.shape
    (11,)
    """

    variable_families = frozenset({"rbm"})
    method = "cl"
    SETTINGS = (Setting("block_size", 1, integer(1), "The order k (1: pseudo-likelihood)."),
                _RBM_START) + _RBM_ASCENT

    def _order(self, nv):
        return int(self.block_size)

    def fit(self, model, V, sample_weight=None):
        self.check_model(model)
        if sample_weight is not None:
            raise ValueError("an RBM takes no sample_weight (repeat a row instead)")
        V = model._check_V(V)
        rng = check_random_state(self.random_state)
        theta = (0.01 * rng.standard_normal(model.n_params) if self.theta0 is None
                 else np.asarray(self.theta0, dtype=float).copy())
        nv = model.n_visible
        k = self._order(nv)
        if not 1 <= k <= nv:
            raise ValueError(f"block_size must be in 1..{nv}, got {k}")
        U, cnt = np.unique(V, axis=0, return_counts=True)     # distinct rows, weights
        w = cnt / cnt.sum()

        def value_grad(th):
            if k == nv:
                Vall = model._all_v()
                L = model.log_unnorm(Vall, th)
                lz = special.logsumexp(L)
                P = np.exp(L - lz)
                ll = float(w @ model.log_unnorm(U, th)) - lz
                g = w @ model.grad_log_unnorm(U, th) - P @ model.grad_log_unnorm(Vall, th)
                return ll, g
            return model.composite_loglik(U, th, k, grad=True, weights=w)

        if self.optimizer == "gd":
            scale = np.ones(model.n_params)
            if self.alpha_rule == "eq10":
                scale[:nv] = nv / k
            for _ in range(int(self.n_iter)):
                theta = theta + self.learning_rate * scale * value_grad(theta)[1]
            n_iter, converged = int(self.n_iter), None
        else:
            def f(th):
                ll, g = value_grad(th)
                return -ll, -g

            res = optimize.minimize(f, theta, jac=True, method="L-BFGS-B",
                                    options={"maxiter": self.maxiter, "gtol": 1e-9,
                                             "ftol": 1e-15})
            theta, n_iter, converged = res.x, int(res.nit), bool(res.success)
        return MRFResults(theta, model.labels, method=self.method, converged=converged,
                          n_iter=n_iter)


class RBMPseudoLikelihood(RBMCompositeLikelihood):
    """Pseudo-likelihood of an :class:`RBM` (``method="pl"``): the composite
    likelihood of order 1 (see :class:`RBMCompositeLikelihood`)."""

    method = "pl"
    SETTINGS = (_RBM_START,) + _RBM_ASCENT

    def _order(self, nv):
        return 1


class RBMLikelihood(RBMCompositeLikelihood):
    """Exact maximum likelihood of an :class:`RBM` (``method="exact"``):
    enumeration of the 2^n_visible visible states (the composite likelihood
    of order n_visible; see :class:`RBMCompositeLikelihood`)."""

    method = "exact"
    SETTINGS = (_RBM_START,) + _RBM_ASCENT

    def _order(self, nv):
        return nv


class RBMContrastiveDivergence(MRFMethod):
    """CD-``n_steps`` of an :class:`RBM` with alternating Gibbs sampling of
    the hidden and visible units (``method="cd"``): ``n_iter`` steps of
    ``learning_rate`` on the full-batch gradient."""

    variable_families = frozenset({"rbm"})
    method = "cd"
    SETTINGS = (
        _RBM_START,
        Setting("n_steps", 1, integer(1), "Alternating Gibbs steps per gradient."),
        Setting("n_iter", 2000, integer(1), "Gradient steps."),
        Setting("learning_rate", 0.05, number(0, lo_open=True), "Step size."),
    )

    def fit(self, model, V, sample_weight=None):
        self.check_model(model)
        if sample_weight is not None:
            raise ValueError("an RBM takes no sample_weight (repeat a row instead)")
        V = model._check_V(V)
        rng = check_random_state(self.random_state)
        theta = (0.01 * rng.standard_normal(model.n_params) if self.theta0 is None
                 else np.asarray(self.theta0, dtype=float).copy())
        for t in range(self.n_iter):
            a, b, W = model.unpack(theta)
            Vm = V.copy()
            for _ in range(self.n_steps):
                ph = 0.5 * (1 + np.tanh(Vm @ W + b))
                H = np.where(rng.random(ph.shape) < ph, 1.0, -1.0)
                pv = 0.5 * (1 + np.tanh(H @ W.T + a))
                Vm = np.where(rng.random(pv.shape) < pv, 1.0, -1.0)
            g = model.grad_log_unnorm(V, theta).mean(0) - model.grad_log_unnorm(Vm, theta).mean(0)
            theta = theta + self.learning_rate * g
        return MRFResults(theta, model.labels, method=self.method, converged=None,
                          n_iter=self.n_iter)


RBM.METHODS = {"exact": RBMLikelihood, "pl": RBMPseudoLikelihood, "cl": RBMCompositeLikelihood,
               "cd": RBMContrastiveDivergence}
