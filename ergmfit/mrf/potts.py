"""Potts models (q-state pairwise MRFs) on the shared binary engine.

A Potts model on a graph with nodes 0..n-1 and edges E has states
s_i in {0, .., q-1} and

    p(s | theta) ∝ exp( theta_J sum_{(i,j) in E} [s_i = s_j]
                        + sum_{s=1}^{q-1} h_s sum_i [s_i = s] ).

Coding (one-hot)
----------------
Node i is held by q binary indicators x_{i,s} = [s_i = s], variable
``i*q + s`` of one :class:`~ergmfit.mrf._models.MonomialModel` (0/1 coding).
Then

    [s_i = s_j] = sum_s x_{i,s} x_{j,s},       [s_i = s] = x_{i,s},

so the Potts statistics are weighted monomials: q pair monomials per edge
(on the coupling statistic, one per edge when untied) and one single
monomial per node and state s >= 1 (on the field of state s, one per node
and state when untied).  State 0 is the reference level of the fields (with
all q fields the statistics would sum to n: not identifiable).

Why one-hot rather than q-1 dummies with state 0 = all off: with dummies
[s_i = s_j] = sum_s d_is d_js + (1 - sum_s d_is)(1 - sum_t d_jt) needs a
constant and q^2 - 1 monomials of both signs per edge, and the coupling
statistic is no longer a plain sum of products; one-hot gives exactly q
monomials per edge, a symmetric treatment of the states, statistics that
equal the counts with no offset, and change statistics that are cheap and
exact.  The price -- q instead of q-1 variables per node and a sum-to-one
constraint -- is paid by the block kernel, which never flips single
indicators.  (The kernel supports reference coding too: ``allow_none``.)

The engine
----------
:class:`~ergmfit.mrf._models.OneHotEnumeration` is a
:class:`~ergmfit.sampling._blocks.BlockKernel` whose blocks are whole node
groups: it enumerates only the q^k one-hot configurations of k nodes and
gives the exact conditional from change statistics.  So

* sampling: exact by enumeration of the q^n states (the kernel's walk over
  all nodes) when q^n <= 2^20, else the shared
  :class:`~ergmfit.sampling._blocks.BlockGibbsSampler` with
  :class:`~ergmfit.mrf._models.UniformGroupBlocks` (random nodes) and this
  kernel;
* pseudo-likelihood = the composite likelihood with one block per node
  (multinomial conditionals p(s_i | s_-i)); composite likelihood of order k =
  blocks of k nodes (all k-subsets, the graph's edges, random k-subsets or
  a list).  The kernel's statistic differences (independent of theta) fill
  a :class:`~ergmfit.estimation.contrastive.mcle.CompositeDesign` with q^k
  configurations per block, maximised by the shared
  :func:`~ergmfit.estimation.contrastive.mcle.maximize_composite` (L-BFGS then Newton
  with the exact Hessian).  The same numbers come from
  :func:`~ergmfit.sampling._blocks.kernel_composite` /
  :class:`~ergmfit.estimation.contrastive.mcle.KernelComposite` with this kernel;
* CD-n / PCD: :class:`ergmfit.mrf.estimation.ContrastiveDivergence` with the
  blocked Gibbs sampler above (:meth:`PottsModel.cd_sampler`: ``n_steps``
  node-block updates per chain, default one sweep);
* exact: Newton (:func:`~ergmfit.utils.optimize.newton_ascent`) on the
  exact log-likelihood over the q^n states
  (:func:`~ergmfit.mrf.exact.loglik_score_fisher`).

Examples
--------
>>> import networkx as nx
>>> from ergmfit.mrf.potts import PottsModel
>>> m = PottsModel(nx.cycle_graph(5), q=3)
>>> m.labels
['field1', 'field2', 'coupling']
>>> X = m.sample(2000, theta=[0.3, -0.3, 0.8], random_state=0)
>>> X.shape, int(X.min()), int(X.max())
((2000, 5), 0, 2)
>>> m.fit(X, method="pl").coef_.round(1)
array([ 0.3, -0.3,  0.8])
"""
from __future__ import annotations

import itertools
import math
import numbers
import warnings

import numpy as np

from ..estimation.base import Setting, choice, integer, number
from ..estimation.contrastive.mcle import MCLE
from ..exceptions import ConvergenceWarning, SettingsError
from ..utils.validation import check_index_set, check_random_state, seed_words
from . import exact as _exact
from ._base import whole_count
from ._models import MonomialModel, OneHotEnumeration, UniformGroupBlocks
from .estimation import ContrastiveDivergence, PersistentContrastiveDivergence
from .fitting import MRFMethod, MRFResults, ProposalFreeFamily, shared_settings
from .models import LinearMRF, graph_edges, tied_pair

__all__ = ["PottsModel", "MAX_EXACT_STATES", "PottsPseudoLikelihood", "PottsCompositeLikelihood",
           "PottsExactLikelihood"]

#: largest q^n handled by enumeration (exact sampling, log Z, score_samples, fit "exact")
MAX_EXACT_STATES = 1 << 20
_MAX_EXACT_CELLS = 1 << 25          # q^n x n_stats doubles held by the exact methods


def _check_q(q):
    if isinstance(q, (bool, np.bool_)) or not isinstance(q, numbers.Integral):
        raise ValueError(f"q (the number of states) must be an integer >= 2, got {q!r}")
    if q < 2:
        raise ValueError(f"q (the number of states) must be at least 2, got {q}")
    return int(q)


def check_states(X, n, q):
    """X as an (N, n) int64 array of states in 0..q-1 (a 1-D X is one observation).

    Raises ValueError for a wrong shape, non-integer values or states out of range.
    """
    A = np.asarray(X)
    if A.ndim == 1:
        A = A[None, :]
    if A.ndim != 2:
        raise ValueError(f"X must be a 2-D array (observations x nodes), got {A.ndim} dimensions")
    if A.shape[1] != n:
        raise ValueError(f"X must have {n} columns (one per node), got {A.shape[1]}")
    if A.dtype == bool:
        A = A.astype(np.int64)
    elif np.issubdtype(A.dtype, np.integer):
        A = A.astype(np.int64)
    elif np.issubdtype(A.dtype, np.floating):
        if not np.all(np.isfinite(A)) or np.any(A != np.round(A)):
            bad = A[~np.isfinite(A) | (A != np.round(A))].ravel()[0]
            raise ValueError(f"the states must be integers 0..{q - 1}, got the non-integer "
                             f"value {bad!r}")
        A = A.astype(np.int64)
    else:
        raise ValueError(f"X must hold integer states 0..{q - 1}, got dtype {A.dtype}")
    out = (A < 0) | (A >= q)
    if np.any(out):
        r, c = np.argwhere(out)[0]
        raise ValueError(f"the states must lie in 0..{q - 1} (q={q}), got {A[r, c]} at row {r}, "
                         f"node {c}")
    return A


class OneHotFamily(ProposalFreeFamily):
    """The family of a Potts model's state: n categorical variables of q states, coded
    one-hot on n * q binary indicators of which exactly one per node is on.

    Not the binary family its base class :class:`~ergmfit.mrf.models.LinearMRF` declares:
    flipping one indicator (the binary family's proposals, the binary pseudo-likelihood of
    one variable given the rest, EE's single-variable moves) leaves the one-hot states, so
    the family offers no single-variable proposal, and the MRF estimators for binary
    variables refuse it (:meth:`~ergmfit.mrf.fitting.MRFMethod.fit`).  A Potts model is
    sampled by blocked Gibbs over whole nodes (:class:`~ergmfit.mrf._models.OneHotEnumeration`)
    and fitted by the estimators of :attr:`PottsModel.METHODS`.

    >>> PottsModel((2, [(0, 1)]), q=3).family.name
    'one-hot'
    """

    name = "one-hot"
    state = "categorical variables coded one-hot (one indicator on per node)"
    no_proposal = ("a Potts model's states are one-hot (one indicator on per node), which no "
                   "single-variable proposal keeps; it is sampled by blocked Gibbs over whole "
                   "nodes (PottsModel.sample, and cd_sampler for contrastive divergence)")
    handled_by = "sampled by blocked Gibbs over nodes"


#: the family of every Potts model
ONE_HOT = OneHotFamily()


class OneHotMonomialModel(MonomialModel):
    """A Potts model's compiled model: the binary engine's
    :class:`~ergmfit.mrf._models.MonomialModel` over the one-hot indicators, declaring their
    family (:data:`ONE_HOT`), so that an estimator given its instances without the model
    (``fit_instances``, EE's product model) sees that they are not binary variables.

    >>> bm = PottsModel((2, [(0, 1)]), q=3).compiled()
    >>> type(bm).__name__, bm.family.name
    ('OneHotMonomialModel', 'one-hot')
    """

    family = ONE_HOT


class PottsModel(LinearMRF):
    """Potts model on a graph, coded one-hot on the binary engine.

    g(s) = [#{i : s_i = 1}, .., #{i : s_i = q-1}, #{(i,j) in E : s_i = s_j}]
    (tied), or one field per node and state s >= 1 and/or one coupling per
    edge (untied).  See the module docstring for the coding and the methods.

    Parameters
    ----------
    graph : networkx graph, adjacency matrix, or (n, edges)
        Nodes in sorted order are 0..n-1.
    q : int
        Number of states (>= 2).
    fields : bool
        Include the field statistics (state 0 is the reference).
    tied : bool or (tied_fields, tied_couplings)
        Shared fields across nodes and a single coupling (True), or one
        parameter per node and state / per edge.
    random_state : int, Generator or None
        Default seed of the random methods (sampling, CD).
    verbose : bool

    Attributes
    ----------
    n_nodes, q, edges, labels, n_vars (= n_nodes * q indicators)
    coef_, method_, loglik_, converged_, n_iter_, cov_ (exact fits), hessian_
    (minus the Hessian of the pseudo-/composite likelihood), trace_ (CD).

    Examples
    --------
    >>> m = PottsModel((3, [(0, 1), (1, 2)]), q=3)
    >>> m.statistics([[0, 0, 2], [1, 2, 2]])
    array([[0., 1., 1.],
           [1., 2., 1.]])
    >>> bool(np.isclose(m.log_partition([0.0, 0.0, 0.0]), 3 * np.log(3)))   # 3^3 states
    True
    """

    coding = "01"
    #: not the binary family of LinearMRF: one-hot states (:class:`OneHotFamily`)
    family = ONE_HOT
    compiled_class = OneHotMonomialModel

    def __init__(self, graph, q, fields=True, tied=True, random_state=None, verbose=False):
        self.graph = graph
        self.q = q
        self.fields = fields
        self.tied = tied
        self.random_state = random_state
        self.verbose = verbose
        self._build()

    def _build(self):
        q = _check_q(self.q)
        n, edges = graph_edges(self.graph)
        tf, tc = tied_pair(self.tied)
        labels, mons, stat = [], [], []
        if self.fields:
            for s in range(1, q):
                if tf:
                    k = len(labels)
                    labels.append(f"field{s}")
                    mons += [[i * q + s] for i in range(n)]
                    stat += [k] * n
                else:
                    for i in range(n):
                        stat.append(len(labels))
                        labels.append(f"field{s}[{i}]")
                        mons.append([i * q + s])
        if edges:
            if tc:
                k = len(labels)
                labels.append("coupling")
                for i, j in edges:
                    mons += [[i * q + s, j * q + s] for s in range(q)]
                    stat += [k] * q
            else:
                for i, j in edges:
                    k = len(labels)
                    labels.append(f"coupling{i}.{j}")
                    mons += [[i * q + s, j * q + s] for s in range(q)]
                    stat += [k] * q
        if not labels:
            raise ValueError("the model has no statistics (no fields and no edges)")
        self.n_nodes = n
        self.edges = edges
        self._enum_cache = None
        self._init_spec(n * q, labels, mons, stat, np.ones(len(mons)), "01")

    # -- coding ----------------------------------------------------------------
    def var(self, i, s):
        """The indicator variable [s_i = s]."""
        return int(i) * self.q + int(s)

    def node_groups(self):
        """The indicator variables of each node: a list of int64 arrays."""
        q = self.q
        return [np.arange(i * q, (i + 1) * q, dtype=np.int64) for i in range(self.n_nodes)]

    def check_states(self, X):
        """X validated as an (N, n_nodes) int64 array of states 0..q-1."""
        return check_states(X, self.n_nodes, self.q)

    def onehot(self, X):
        """The (N, n_nodes * q) 0/1 indicator rows of the states X."""
        S = self.check_states(X)
        Z = np.zeros((S.shape[0], self.n_vars), dtype=np.uint8)
        rows = np.repeat(np.arange(S.shape[0]), self.n_nodes)
        Z[rows, (np.arange(self.n_nodes) * self.q + S).ravel()] = 1
        return Z

    def states(self, Z):
        """The states of one-hot indicator rows (inverse of :meth:`onehot`)."""
        Z = np.atleast_2d(np.asarray(Z))
        if Z.shape[1] != self.n_vars:
            raise ValueError(f"one-hot rows need {self.n_vars} values, got {Z.shape[1]}")
        Z3 = (Z > 0).reshape(len(Z), self.n_nodes, self.q)
        if np.any(Z3.sum(axis=2) != 1):
            raise ValueError("not a one-hot state: every node needs exactly one indicator on")
        return np.argmax(Z3, axis=2).astype(np.int64)

    def kernel(self, max_size=None, max_configs=None):
        """A fresh :class:`~ergmfit.mrf._models.OneHotEnumeration` over the node groups."""
        mc = MAX_EXACT_STATES if max_configs is None else int(max_configs)
        return OneHotEnumeration.potts(self.n_nodes, self.q, max_size, mc)

    def statistics(self, X):
        """g(s) for each row of X (states 0..q-1), from the monomials."""
        return super().statistics(self.onehot(X))

    def _instances(self, X, weights=None):
        return [(self._shared(), self.onehot(X), weights)]

    # -- exact (q^n <= 2^20) ---------------------------------------------------
    @property
    def n_states(self):
        """q^n, the number of joint states."""
        return self.q ** self.n_nodes

    def _enum(self):
        """(G, S, pos): statistics and states of all q^n states in the kernel's
        Gray-code order, and pos[code] = row of the state with mixed-radix code
        sum_i s_i q^i."""
        if self._enum_cache is None:
            N = self.n_states
            if N > MAX_EXACT_STATES:
                raise ValueError(f"exact enumeration needs q^n <= {MAX_EXACT_STATES:,} states, "
                                 f"got {self.q}^{self.n_nodes} = {N:,}")
            if N * max(1, self.n_stats) > _MAX_EXACT_CELLS:
                raise ValueError(f"{N:,} states x {self.n_stats} statistics is too large to "
                                 "enumerate")
            bm = self.compiled()
            bm.set_state(self.onehot(np.zeros(self.n_nodes, dtype=np.int64))[0])
            g0 = bm.statistics()
            D, S, units = self.kernel().differences(bm, np.arange(self.n_vars))
            G = g0[None, :] + D
            pos = np.empty(N, dtype=np.int64)
            pos[self._codes(S)] = np.arange(N)
            self._enum_cache = (G, S, pos)
        return self._enum_cache

    def _codes(self, S):
        return S @ (self.q ** np.arange(self.n_nodes, dtype=np.int64))

    def _rows(self, X):
        return self._enum()[2][self._codes(self.check_states(X))]

    def log_partition(self, theta=None):
        """Exact log Z(theta) (q^n <= 2^20)."""
        return _exact.log_partition(self._enum()[0], self._params(theta))

    def probabilities(self, theta=None):
        """(P, S): p(s | theta) of every state and the states (rows of S)."""
        G, S, _ = self._enum()
        return _exact.probabilities(G, self._params(theta)), S

    def marginals(self, theta=None):
        """Exact P(s_i = s): an (n_nodes, q) array."""
        P, S = self.probabilities(theta)
        out = np.zeros((self.n_nodes, self.q))
        for s in range(self.q):
            out[:, s] = P @ (S == s)
        return out

    def score_samples(self, X, theta=None):
        """Exact log p(s | theta) of each row of X."""
        theta = self._params(theta)
        return self.statistics(X) @ theta - self.log_partition(theta)

    # -- sampling --------------------------------------------------------------
    def gibbs_sampler(self, block_size=1, random_state=None, start=None):
        """(sampler, bm): a :class:`~ergmfit.sampling._blocks.BlockGibbsSampler`
        on a fresh compiled model, updating ``block_size`` random nodes per step
        from their exact joint conditional; the chain starts at the states
        ``start`` (default: uniformly random states)."""
        from ..sampling._blocks import BlockGibbsSampler
        rng = check_random_state(random_state)
        k = int(block_size)
        if k < 1 or k > self.n_nodes:
            raise ValueError(f"block_size must lie in 1..{self.n_nodes} (nodes), got {block_size}")
        bm = self.compiled()
        s0 = rng.integers(0, self.q, self.n_nodes) if start is None else start
        bm.set_state(self.onehot(s0)[0])
        chooser = UniformGroupBlocks(self.node_groups(), k, self.n_vars)
        sampler = BlockGibbsSampler(bm, chooser, self.kernel(max_size=k * self.q),
                                    seed_words(rng))
        return sampler, bm

    def _sampler_factory(self, block_size):
        from ..sampling._blocks import BlockGibbsSampler
        k = int(block_size)
        if k < 1 or k > self.n_nodes:
            raise ValueError(f"block_size must lie in 1..{self.n_nodes} (nodes), got {block_size}")
        groups = self.node_groups()

        def factory(bm, seed):
            return BlockGibbsSampler(bm, UniformGroupBlocks(groups, k, self.n_vars),
                                     self.kernel(max_size=k * self.q), seed)
        return factory

    def sample(self, n_samples, theta=None, random_state=None, method="auto", burnin=100,
               thin=1, block_size=1):
        """Draws of the states, an (n_samples, n_nodes) int64 array.

        ``method="exact"`` (by enumeration; the default when q^n <= 2^20) or
        ``"gibbs"``: random-scan blocked Gibbs on ``block_size`` random nodes
        per update, from uniformly random states, ``burnin`` sweeps (n_nodes
        updates each) and then one draw every ``thin`` sweeps (one chain).
        """
        theta = self._params(theta)
        rng = check_random_state(self.random_state if random_state is None else random_state)
        n_samples = whole_count(n_samples, "n_samples")
        burnin, thin = whole_count(burnin, "burnin"), whole_count(thin, "thin", 1)
        method = str(method).lower()
        if method == "auto":
            method = "exact" if self.n_states <= MAX_EXACT_STATES else "gibbs"
        if method == "exact":
            P, S = self.probabilities(theta)
            idx = rng.choice(len(P), size=n_samples, p=P / P.sum())
            return S[idx].copy()
        if method != "gibbs":
            raise ValueError(f"method must be 'auto', 'exact' or 'gibbs', got {method!r}")
        sampler, bm = self.gibbs_sampler(block_size, rng)
        sweep = max(1, -(-self.n_nodes // int(block_size)))
        sampler.run(theta, burnin * sweep)
        out = np.empty((n_samples, self.n_nodes), dtype=np.int64)
        for r in range(n_samples):
            sampler.run(theta, thin * sweep)
            out[r] = self.states(bm.state())[0]
        return out

    # -- composite likelihood ----------------------------------------------------
    def node_blocks(self, block_size=1, blocks="all", n_blocks=None, random_state=None,
                    max_blocks=2_000_000):
        """The node blocks of a composite likelihood: a list of int64 arrays.

        ``blocks="all"``: every ``block_size``-subset of the nodes (order 1 =
        pseudo-likelihood); with ``n_blocks``, that many uniformly random
        subsets instead.  ``"edges"``: the graph's edges (order 2).  Or a list
        of node sequences.
        """
        n = self.n_nodes
        if isinstance(blocks, str):
            kind = blocks.lower()
            if kind == "edges":
                if not self.edges:
                    raise ValueError("blocks='edges' needs a graph with edges")
                return [np.array(e, dtype=np.int64) for e in self.edges]
            if kind not in ("all", "uniform", "random"):
                raise ValueError(f"blocks must be 'all', 'edges', 'uniform' or a list of node "
                                 f"blocks, got {blocks!r}")
            k = int(block_size)
            if k < 1 or k > n:
                raise ValueError(f"block_size must lie in 1..{n} (nodes), got {block_size}")
            if n_blocks is None:
                if kind != "all":
                    raise ValueError(f"blocks={blocks!r} draws random blocks: give n_blocks=")
                C = math.comb(n, k)
                if C > max_blocks:
                    raise ValueError(f"C({n}, {k}) = {C:,} blocks exceed max_blocks="
                                     f"{max_blocks:,}; give n_blocks= for random blocks")
                return [np.array(c, dtype=np.int64) for c in itertools.combinations(range(n), k)]
            rng = check_random_state(random_state)
            if int(n_blocks) < 1:
                raise ValueError(f"n_blocks must be positive, got {n_blocks}")
            return [np.sort(rng.choice(n, size=k, replace=False)) for _ in range(int(n_blocks))]
        out = []
        for b in blocks:
            out.append(check_index_set(list(b) if not np.isscalar(b) else [b], n, "block",
                                       "nodes"))
        if not out:
            raise ValueError("the list of blocks is empty")
        return out

    def _design(self, insts, node_blocks):
        """The merged :class:`~ergmfit.estimation.contrastive.mcle.CompositeDesign` of the
        node blocks over every (distinct, weighted) observation."""
        from ..estimation.contrastive.mcle import CompositeDesign, merge_blocks, merge_groups
        from .estimation import _instances
        q = self.q
        by_size = {}
        for b in node_blocks:
            by_size.setdefault(len(b), []).append((b[:, None] * q + np.arange(q)).ravel())
        kern = self.kernel(max_size=max(by_size) * q)
        parts = {k: [] for k in by_size}
        total = 0.0
        for bm, U, cw in _instances(insts):
            saved = bm.state()
            try:
                for z, c in zip(U, cw):
                    bm.set_state(z)
                    for k, vb in by_size.items():
                        D = kern.block_differences(bm, np.asarray(vb, dtype=np.int64))
                        parts[k].append(merge_blocks(D, np.full(len(D), float(c))))
                        total += c * len(vb)
            finally:
                bm.set_state(saved)
        sizes = sorted(by_size)
        return CompositeDesign(merge_groups(parts), self.n_stats, int(round(total)), self.n_vars,
                               {"blocks": "nodes", "block_size": sizes[0] if len(sizes) == 1
                                else sizes})

    def composite_design(self, X, block_size=1, blocks="all", n_blocks=None, sample_weight=None,
                         random_state=None):
        """The :class:`~ergmfit.estimation.contrastive.mcle.CompositeDesign` of the data X
        over node blocks (see :meth:`node_blocks`); its ``loglik``, ``score``
        and ``loglik_score_hessian`` are the composite likelihood summed over
        observations and blocks."""
        nb = self.node_blocks(block_size, blocks, n_blocks, random_state)
        return self._design(self._instances(X, sample_weight), nb)

    def composite_loglik(self, X, theta=None, block_size=1, blocks="all", n_blocks=None,
                         sample_weight=None, grad=False, random_state=None):
        """sum over the rows of X and the node blocks A of log p(s_A | s_-A, theta)
        (``block_size=1``: the log pseudo-likelihood); with ``grad`` also its
        gradient sum (g(s) - E[g | s_-A])."""
        theta = self._params(theta)
        des = self.composite_design(X, block_size, blocks, n_blocks, sample_weight,
                                    random_state)
        if grad:
            ll, sc = des.loglik_score(theta)
            return float(ll), sc
        return des.loglik(theta)

    # -- estimation ------------------------------------------------------------
    def observations(self, X, sample_weight=None):
        """The compiled instance of the data: [(compiled model, one-hot rows, weights)]."""
        insts = self._instances(X, sample_weight)
        if len(insts[0][1]) == 0:
            raise ValueError("X has no observations")
        return insts

    def cd_sampler(self, sampler, block_size, n_steps, sampler_given):
        """Contrastive divergence on a Potts model: blocked Gibbs over
        ``block_size`` random nodes (a factory of
        :class:`~ergmfit.sampling._blocks.BlockGibbsSampler` with this model's
        one-hot kernel), ``n_steps`` block updates per chain (None: one sweep,
        n_nodes / block_size)."""
        if sampler_given:
            raise ValueError("a Potts model is sampled by blocked Gibbs on node groups; "
                             "'sampler' cannot be chosen")
        k = int(block_size)
        steps = max(1, -(-self.n_nodes // max(k, 1))) if n_steps is None else int(n_steps)
        return self._sampler_factory(k), steps


class PottsCompositeLikelihood(MRFMethod):
    """Maximum composite likelihood of a Potts model over node blocks
    (``method="cl"``): blocks of ``block_size`` nodes (default 2;
    ``blocks="all"|"edges"|list``, ``n_blocks``: see
    :meth:`PottsModel.node_blocks`), the q^k configurations of each from the
    one-hot kernel, maximised by the MCLE's
    :func:`~ergmfit.estimation.contrastive.mcle.maximize_composite`.  A
    ConvergenceWarning names the direction when there is no finite maximum.
    ``loglik`` is the composite likelihood at the maximum; ``info`` holds
    ``hessian`` and ``design``.

    Examples
    --------
    >>> import networkx as nx
    >>> m = PottsModel(nx.cycle_graph(5), q=3)
    >>> X = m.sample(500, theta=[0.3, -0.3, 0.8], random_state=0)
    >>> PottsCompositeLikelihood(block_size=2).fit(m, X).params.shape
    (3,)
    """

    variable_families = frozenset({"one-hot"})

    method = "cl"
    #: the block size of ``block_size=None``
    default_block_size = 2
    SETTINGS = (
        Setting("block_size", None, integer(1, allow_none=True),
                "Nodes per block (None: 2; pseudo-likelihood: 1)."),
        Setting("blocks", "all", None, "'all', 'edges', 'uniform' or a list of node blocks."),
    ) + shared_settings(MCLE, "n_blocks") + (
        Setting("theta0", None, None, "Starting values (default zeros)."),
    ) + shared_settings(MCLE, "maxiter", "tol")

    def _fit_instances(self, insts, labels, model=None):
        from ..estimation.contrastive.mcle import (check_design, maximize_composite,
                                                   separation_direction)
        if model is None:
            raise ValueError(f"method={self.method!r} of a Potts model needs the model "
                             "(fit(model, X))")
        block_size = self.default_block_size if self.block_size is None else self.block_size
        des = model._design(insts, model.node_blocks(block_size, self.blocks, self.n_blocks,
                                                     self.random_state))
        check_design(des, model.labels)
        th0 = np.zeros(model.n_stats) if self.theta0 is None else model._params(self.theta0)
        theta, ll, H, n_iter, conv = maximize_composite(des, th0, self.maxiter, self.tol)
        d = separation_direction(des) if (not conv or np.max(np.abs(theta)) > 20) else None
        if d is not None or not conv or np.max(np.abs(theta)) > 1e3:
            where = ""
            if d is not None:
                where = (" (it keeps increasing along "
                         + ", ".join(f"{model.labels[k]}: {d[k]:+.3g}" for k in np.flatnonzero(d))
                         + ", e.g. a state that no node takes in the data)")
            warnings.warn(f"the {'pseudo' if self.method == 'pl' else 'composite'} likelihood "
                          f"has no finite maximum or did not converge{where}", ConvergenceWarning,
                          stacklevel=4)
            conv = False
        return MRFResults(theta, labels, method=self.method, loglik=ll, converged=conv,
                          n_iter=n_iter, info={"hessian": H, "design": des})


class PottsPseudoLikelihood(PottsCompositeLikelihood):
    """Maximum pseudo-likelihood of a Potts model (``method="pl"``): the
    composite likelihood with one block per node (multinomial conditionals
    p(s_i | s_-i)); see :class:`PottsCompositeLikelihood`."""

    method = "pl"
    default_block_size = 1

    def _finish_settings(self):
        if self.block_size not in (None, 1) or not (isinstance(self.blocks, str)
                                                    and self.blocks == "all"):
            raise SettingsError("method='pl' uses one block per node; use method='cl' for "
                                "other blocks")


class PottsExactLikelihood(MRFMethod):
    """Maximum likelihood of a Potts model by Newton's method
    (:func:`~ergmfit.utils.optimize.newton_ascent`) on the exact
    log-likelihood over the q^n states (q^n <= 2^20), ``method="exact"``.
    First the MLE's existence is checked as in
    :class:`ergmfit.mrf.exact.ExactLikelihood` (``nonexistent="raise"``:
    DegenerateModelError naming the direction; ``"ignore"``: where Newton
    stops, with a ConvergenceWarning)."""

    variable_families = frozenset({"one-hot"})

    method = "exact"
    SETTINGS = (
        Setting("theta0", None, None, "Starting values (default zeros)."),
        Setting("maxiter", 200, integer(1), "Newton iterations."),
        Setting("tol", 1e-12, number(0, lo_open=True), "Newton-decrement tolerance."),
        Setting("nonexistent", "raise", choice("raise", "ignore"),
                "When the MLE does not exist: 'raise' (DegenerateModelError) or 'ignore'."),
    )

    def _fit_instances(self, insts, labels, model=None):
        from ..utils.optimize import newton_ascent
        from .estimation import distinct_rows
        if model is None:
            raise ValueError("method='exact' of a Potts model needs the model (fit(model, X))")
        G, _, pos = model._enum()
        counts = np.zeros(len(G))
        for inst in insts:
            U, cw = distinct_rows(inst[1], inst[2] if len(inst) > 2 else None)
            np.add.at(counts, pos[model._codes(model.states(U))], cw)
        if self.nonexistent == "raise":
            _exact.require_mle(_exact.mle_direction(G, counts), model.labels, model.n_stats)
        th0 = np.zeros(model.n_stats) if self.theta0 is None else model._params(self.theta0)
        theta, ll, _, H, n_iter, conv = newton_ascent(
            lambda th: _exact.loglik_score_fisher(G, th, counts), th0, maxiter=self.maxiter,
            tol=self.tol, ridge=1e-12, min_step=1e-12)
        if not conv or np.max(np.abs(theta)) > 1e3:
            warnings.warn("the likelihood did not converge to a finite maximum (e.g. a state "
                          "that no node takes in the data)", ConvergenceWarning, stacklevel=4)
            conv = False
        return MRFResults(theta, labels, method=self.method, cov=np.linalg.pinv(H), loglik=ll,
                          converged=conv, n_iter=n_iter, info={"hessian": None})


PottsModel.METHODS = {"pl": PottsPseudoLikelihood, "cl": PottsCompositeLikelihood,
                      "exact": PottsExactLikelihood, "cd": ContrastiveDivergence,
                      "pcd": PersistentContrastiveDivergence}


def cd_hook_available():
    """Whether :class:`ergmfit.mrf.estimation.ContrastiveDivergence` accepts a
    sampler factory (the hook :meth:`PottsModel.cd_sampler` relies on)."""
    from . import estimation as _est
    probe = object()
    try:
        return _est._make_sampler(None, lambda bm, seed: probe, 1, None) is probe
    except (ValueError, TypeError, AttributeError):
        return False
