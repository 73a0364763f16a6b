"""Exact inference for thin binary MRFs: variable elimination / junction tree.

For a model whose statistics are weighted monomials of the variables (a
compiled :class:`~ergmfit.mrf._models.MonomialModel` or a
:class:`~ergmfit.mrf.models.LinearMRF`: ``monomials``, ``stat``, ``coef``,
``coding``),

    theta . g(x) = sum_t theta[stat_t] c_t prod_{v in S_t} s(x_v),
    s(x) = x (0/1 coding) or 2x - 1 (+-1 coding),

the log-density is a sum of log-factors over the monomials' variable sets
S_t, so log Z(theta), the clique marginals and E[g] are computed exactly by
sum-product on a junction tree, at a cost exponential only in the treewidth:
chains and trees of any length, thin grids (4 x 40, 6 x 30), Boltzmann
machines with higher-order potentials on few variables.

Construction (:class:`JunctionTree`, once per model; the numbers depend on
theta only through the factor tables):

1. interaction graph: the variables of each monomial form a clique;
2. elimination order: greedy min-fill (ties: min degree, then index) or
   min-degree, or one given; eliminating v_i with its current neighbours
   N_i makes the clique C_i = {v_i} ∪ N_i (one per variable), whose axes are
   ordered by elimination position (v_i first);
3. the clique tree: the parent of C_i is C_j, v_j the first-eliminated
   variable of N_i (roots: N_i empty; a forest when the graph is not
   connected); monomial t sits in the clique of its first-eliminated
   variable (S_t ⊆ that clique);
4. guard: a clique of more than ``max_clique_log2`` variables (2^20 table
   entries by default) raises ValueError before any table is built.

Sum-product in log space (no overflow at any theta): upward, alpha_i =
psi_i + sum of the children's messages, message m_i = logsumexp of alpha_i
over v_i (the one variable of C_i not in its separator); log Z = sum over
roots of logsumexp(alpha_root).  Downward, the normalised log clique
marginal b_i = alpha_i + [logsumexp_{C_p \\ S_i} b_p - m_i] (Hugin-style
division in log space), so P(C_i) = exp(b_i), node marginals are read off
b_i's first axis and E[prod_{S_t} s] from the marginal of the clique holding
monomial t; E[g] = sum_t c_t E[monomial t] per statistic.

The covariance Cov(g) = d E[g] / d theta (the exact Fisher information per
observation) is obtained by forward-mode differentiation of the same two
passes: tangent tables d alpha_i, d m_i, d b_i with one trailing axis per
parameter (in blocks of parameters to bound memory), using
d logsumexp(a) = sum softmax(a) da.  It is exact (no finite differences).
:class:`~ergmfit.mrf.exact.ExactLikelihood` (``algorithm="junction"``, the
default for models beyond 20 variables) runs Newton's method with the exact score
sum_m g(x_m) - N E[g] and information N Cov(g).

Layout and cost: all clique tables live in one flat array (clique i at
``_off[i]:_off[i+1]``, C order); the monomials are grouped by (clique,
variable set) and the log-factors of every clique come from one sparse
product psi = B (C^T theta), B holding each group's product table expanded
over its clique (cliques with many groups broadcast instead); E[group] =
B^T P.  log Z costs O(sum_i 2^|C_i|) plus a few numpy calls per clique;
Cov(g) costs about n_stats times that (in blocks).  A 4 x 40 Ising grid:
cliques of 5, milliseconds; a 10,000-node chain: about 0.1 s for log Z.

Examples
--------
>>> import networkx as nx
>>> from ergmfit.mrf import IsingModel
>>> from ergmfit.mrf import junction
>>> m = IsingModel(nx.grid_2d_graph(4, 40))          # 160 spins: no enumeration
>>> jt = junction.JunctionTree(m)
>>> jt.max_clique_size
5
>>> bool(np.isclose(jt.log_partition([0.0, 0.0]), 160 * np.log(2)))   # independent spins
True
>>> E = jt.mean_statistics([0.1, 0.3])        # exact E[g] on 160 spins
>>> E.shape
(2,)
"""
from __future__ import annotations

import heapq

import numpy as np

__all__ = ["JunctionTree", "elimination_order", "log_partition", "marginals",
           "mean_statistics", "covariance", "loglik", "MAX_CLIQUE_LOG2"]

#: default limit on the largest clique: 2^20 table entries (8 MiB of doubles)
MAX_CLIQUE_LOG2 = 20
#: limit on all clique tables together (entries; tangents count per parameter)
_MAX_TOTAL = 2 ** 24
#: a clique whose (number of monomial groups) x (table entries) exceeds this
#: gets its log-factors by broadcasting instead of rows of the sparse matrix B
_SPARSE_LIMIT = 2 ** 16


# ---------------------------------------------------------------------------
# the model's monomial specification
# ---------------------------------------------------------------------------
def _spec(model):
    """(n_vars, n_stats, monomials, stat, coef, pm1) of a MonomialModel or LinearMRF."""
    mons = getattr(model, "monomials", None)
    if callable(mons) and hasattr(model, "pm1"):               # compiled MonomialModel
        mons, stat, coef = model.monomials()
        n, p, pm1 = int(model.n_vars), int(model.n_stats), bool(model.pm1)
    elif mons is not None and hasattr(model, "coding"):        # LinearMRF
        stat, coef = model.stat, model.coef
        n, p, pm1 = int(model.n_vars), int(model.n_stats), model.coding == "pm1"
    elif hasattr(model, "conditional"):
        raise ValueError("a CRF has one model per input: pass model.conditional(y)")
    else:
        raise ValueError("junction tree inference needs a MonomialModel or a LinearMRF "
                         f"(monomials, stat, coef, coding), got {type(model).__name__}")
    mons = [np.asarray(m, dtype=np.int64).ravel() for m in mons]
    stat = np.asarray(stat, dtype=np.int64).ravel()
    coef = np.asarray(coef, dtype=float).ravel()
    if n < 1:
        raise ValueError("the model has no variables")
    if len(stat) != len(mons) or len(coef) != len(mons):
        raise ValueError("stat and coef need one entry per monomial")
    if len(stat) and (stat.min() < 0 or stat.max() >= p):
        raise ValueError(f"monomial statistics must lie in 0..{p - 1}")
    if mons:
        lens = np.array([m.size for m in mons])
        allv = np.concatenate(mons)
        ids = np.repeat(np.arange(len(mons)), lens)
        o = np.lexsort((allv, ids))
        dup = (np.diff(ids[o]) == 0) & (np.diff(allv[o]) == 0)
        bad = lens == 0
        if allv.size:
            bad |= np.bincount(ids, weights=((allv < 0) | (allv >= n)).astype(float),
                               minlength=len(mons)) > 0
        if dup.any():
            bad[ids[o][1:][dup]] = True
        if bad.any():
            t = int(np.nonzero(bad)[0][0])
            raise ValueError(f"a monomial needs distinct variables in 0..{n - 1}, got "
                             f"{mons[t].tolist()}")
    return n, p, mons, stat, coef, pm1


# ---------------------------------------------------------------------------
# elimination order
# ---------------------------------------------------------------------------
def elimination_order(n_vars, scopes, method="min_fill", max_clique_log2=None):
    """A greedy elimination order of the graph in which each scope is a clique.

    Parameters
    ----------
    n_vars : int
    scopes : iterable of sequences of variables (e.g. the monomials)
    method : "min_fill" (fewest fill-in edges; ties by degree, then index),
        "min_degree", or a permutation of 0..n_vars-1 (checked)
    max_clique_log2 : int, optional
        Raise ValueError as soon as a clique of more variables appears.

    Returns
    -------
    order : int array (the variables in elimination order)
    neighbours : list (per elimination step) of the eliminated variable's
        neighbours at that time

    Examples
    --------
    >>> order, nb = elimination_order(4, [[0, 1], [1, 2], [2, 3]])
    >>> max(len(s) for s in nb) + 1        # a chain: cliques of 2
    2
    """
    n = int(n_vars)
    adj = [set() for _ in range(n)]
    for S in scopes:
        S = [int(v) for v in S]
        for a in S:
            adj[a].update(S)
    for v in range(n):
        adj[v].discard(v)
    limit = None if max_clique_log2 is None else int(max_clique_log2)

    def too_big(k, v):
        if limit is not None and k > limit:
            raise ValueError(
                f"the elimination order needs a clique of {k} variables (eliminating variable "
                f"{v}): 2^{k} table entries exceed the limit 2^{limit}; the model's treewidth is "
                f"too large for exact junction-tree inference (thin grids, chains and trees "
                f"are fine)")

    def eliminate(v, order, nbs):
        # connect v's neighbours into a clique, record it, remove v
        nb = adj[v]
        too_big(len(nb) + 1, v)
        for a in nb:
            adj[a].discard(v)
            adj[a].update(nb)
            adj[a].discard(a)
        order.append(v)
        nbs.append(set(nb))
        adj[v] = set()
        return nb

    if not isinstance(method, str):
        order = np.asarray(method, dtype=np.int64).ravel()
        if order.shape[0] != n or not np.array_equal(np.sort(order), np.arange(n)):
            raise ValueError(f"an elimination order must be a permutation of 0..{n - 1}")
        nbs = []
        for v in order:
            eliminate(int(v), [], nbs)
        return order, nbs
    if method not in ("min_fill", "min_degree"):
        raise ValueError(f"method must be 'min_fill', 'min_degree' or an order, got {method!r}")
    fill_in = method == "min_fill"

    def score(v):
        nb = adj[v]
        if not fill_in:
            return (len(nb), v)
        nbl = list(nb)
        f = 0
        for i, a in enumerate(nbl):
            aa = adj[a]
            for b in nbl[i + 1:]:
                if b not in aa:
                    f += 1
        return (f, len(nb), v)

    cur = [score(v) for v in range(n)]
    heap = [(cur[v], v) for v in range(n)]
    heapq.heapify(heap)
    done = np.zeros(n, dtype=bool)
    order, nbs = [], []
    while heap:
        s, v = heapq.heappop(heap)
        if done[v] or s != cur[v]:
            continue
        nb = eliminate(v, order, nbs)
        done[v] = True
        touched = set(nb)
        if fill_in:
            for a in nb:
                touched |= adj[a]
        for u in touched:
            if not done[u]:
                su = score(u)
                if su != cur[u]:
                    cur[u] = su
                    heapq.heappush(heap, (su, u))
    return np.asarray(order, dtype=np.int64), nbs


def _lse(a, axis):
    """log-sum-exp over ``axis`` (int or tuple) of a finite array."""
    m = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def _states(k):
    """All 2^k configurations of k binary axes in C order: (2^k, k), axis 0 slowest."""
    s = np.arange(2 ** k, dtype=np.int64)
    return ((s[:, None] >> np.arange(k - 1, -1, -1)) & 1).astype(float)


_PROD_CACHE = {}


def _product_table(k, pm1):
    """prod_{j<k} s(x_j) over the 2^k configurations (C order), read-only."""
    key = (int(k), bool(pm1))
    if key not in _PROD_CACHE:
        S = _states(k)
        A = np.prod(2.0 * S - 1.0 if pm1 else S, axis=1)
        A.setflags(write=False)
        _PROD_CACHE[key] = A
    return _PROD_CACHE[key]


# ---------------------------------------------------------------------------
# the junction tree
# ---------------------------------------------------------------------------
class JunctionTree:
    """Exact sum-product on a junction tree of a monomial MRF.

    Parameters
    ----------
    model : MonomialModel or LinearMRF (or anything with ``monomials``,
        ``stat``, ``coef``, ``coding``, ``n_vars``, ``n_stats``)
    order : "min_fill" (default), "min_degree" or a permutation of the variables
    max_clique_log2 : int
        Refuse (ValueError) when a clique has more variables than this
        (default 20: 2^20 = 1,048,576 entries per table).

    Attributes
    ----------
    order : the elimination order; ``cliques[i]`` : the variables of the
        clique of ``order[i]`` (axes of its tables, ``order[i]`` first);
    parent : int array (-1 for roots); max_clique_size : int (treewidth + 1
        of the order found).

    Examples
    --------
    >>> import networkx as nx
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel(nx.path_graph(500), coding="01")
    >>> jt = JunctionTree(m)
    >>> p = jt.marginals([-1.0, 2.0])
    >>> p.shape, bool(p[0] < p[250])      # an end node has one neighbour fewer
    ((500,), True)
    """

    def __init__(self, model, order="min_fill", max_clique_log2=MAX_CLIQUE_LOG2):
        from scipy import sparse
        n, p, mons, stat, coef, pm1 = _spec(model)
        self.n_vars, self.n_stats, self.pm1 = n, p, pm1
        self.monomials, self.stat, self.coef = mons, stat, coef
        self.max_clique_log2 = int(max_clique_log2)
        elim, nbs = elimination_order(n, mons, order, self.max_clique_log2)
        pos = np.empty(n, dtype=np.int64)
        pos[elim] = np.arange(n)
        posl = pos.tolist()
        self.order, self.position = elim, pos
        cliques, parent = [], np.full(n, -1, dtype=np.int64)
        for i, v in enumerate(elim.tolist()):
            rest = sorted(nbs[i], key=posl.__getitem__)
            cliques.append([v] + rest)
            if rest:
                parent[i] = posl[rest[0]]
        self.cliques = [np.asarray(c, dtype=np.int64) for c in cliques]
        self.parent = parent
        self.sizes = np.array([len(c) for c in cliques], dtype=np.int64)
        self.max_clique_size = int(self.sizes.max())
        self._shape = [(2,) * int(k) for k in self.sizes]
        ent = 2 ** self.sizes
        self._off = np.concatenate([[0], np.cumsum(ent)]).astype(np.int64)
        self.total_entries = int(self._off[-1])
        if self.total_entries > _MAX_TOTAL:
            raise ValueError(f"the junction tree's tables hold {self.total_entries} entries in "
                             f"all, more than the limit {_MAX_TOTAL}")
        # messages: the child's separator (its axes 1..) embedded in the parent's axes
        self._up_shape, self._down_axes = [None] * n, [None] * n
        for i in range(n):
            q = parent[i]
            if q < 0:
                continue
            sep = set(cliques[i][1:])
            self._up_shape[i] = tuple(2 if u in sep else 1 for u in cliques[q])
            self._down_axes[i] = tuple(a for a, u in enumerate(cliques[q]) if u not in sep)
        # monomials grouped by (clique, scope); a group's table prod_{v in S} s(x_v)
        # expanded over its clique is a column of the sparse matrix B (rows: all
        # clique entries), except in cliques too big for that (broadcast instead)
        axis_of = [{u: a for a, u in enumerate(c)} for c in cliques]
        by = {}
        for t, m in enumerate(mons):
            ml = m.tolist()
            i = min(posl[u] for u in ml)
            ax = tuple(sorted(axis_of[i][u] for u in ml))
            by.setdefault((i, ax), []).append(t)
        keys = sorted(by)
        self.n_groups = len(keys)
        self._group_of = np.empty(len(mons), dtype=np.int64)
        per_clique = np.zeros(n, dtype=np.int64)
        for g, key in enumerate(keys):
            self._group_of[by[key]] = g
            per_clique[key[0]] += 1
        self._group_clique = np.array([k[0] for k in keys], dtype=np.int64)
        self._bcast = {}                              # clique -> [(g, axes, shape, A)]
        rows, cols, vals = [], [], []
        for g, (i, ax) in enumerate(keys):
            k = int(self.sizes[i])
            A = _product_table(len(ax), pm1)
            shape = tuple(2 if a in ax else 1 for a in range(k))
            if per_clique[i] * 2 ** k <= _SPARSE_LIMIT:
                full = np.broadcast_to(A.reshape(shape), self._shape[i]).ravel()
                nz = np.nonzero(full)[0]
                rows.append(self._off[i] + nz)
                cols.append(np.full(len(nz), g, dtype=np.int64))
                vals.append(full[nz])
            else:
                self._bcast.setdefault(i, []).append((g, ax, shape, A))
        cat = (lambda L, dt: np.concatenate(L) if L else np.zeros(0, dtype=dt))
        self._B = sparse.csr_matrix((cat(vals, float), (cat(rows, np.int64), cat(cols, np.int64))),
                                    shape=(self.total_entries, self.n_groups))
        self._BT = self._B.T.tocsr()
        # statistics from group means: g_k = sum_t c_t [stat_t = k] monomial_{group(t)}
        self._C = sparse.csr_matrix((coef, (stat, self._group_of)), shape=(p, self.n_groups))

    # ---- helpers -------------------------------------------------------------
    def _theta(self, theta):
        theta = np.asarray(theta, dtype=float).ravel()
        if theta.shape[0] != self.n_stats:
            raise ValueError(f"theta needs {self.n_stats} values, got {theta.shape[0]}")
        if not np.all(np.isfinite(theta)):
            raise ValueError("theta must be finite")
        return theta

    def _view(self, flat, i, q=None):
        a = flat[self._off[i]:self._off[i + 1]]
        return a.reshape(self._shape[i] if q is None else self._shape[i] + (q,))

    def _psi(self, theta):
        """All log-factor tables, flat (clique i at _off[i]:_off[i+1])."""
        gw = self._C.T @ theta                         # group weights sum_t theta_stat c_t
        flat = self._B @ gw
        for i, lst in self._bcast.items():
            v = self._view(flat, i)
            for g, ax, shape, A in lst:
                v += (gw[g] * A).reshape(shape)
        return flat

    def _dpsi(self, Wg):
        """d psi / d theta[block] (flat, one column per parameter of the block);
        Wg[g, j] = d (group g's weight) / d theta_j."""
        q = Wg.shape[1]
        flat = np.asarray(self._B @ Wg)
        for i, lst in self._bcast.items():
            v = self._view(flat, i, q)
            for g, ax, shape, A in lst:
                v += np.multiply.outer(A, Wg[g]).reshape(shape + (q,))
        return flat

    def _group_means(self, P):
        """E[prod_{v in S} s(x_v)] per group from the flat clique marginals P
        (any trailing axes are carried along)."""
        E = np.asarray(self._BT @ P)
        for i, lst in self._bcast.items():
            v = self._view(P, i, None if P.ndim == 1 else P.shape[1])
            for g, ax, shape, A in lst:
                other = tuple(a for a in range(len(self._shape[i])) if a not in ax)
                M = v.sum(axis=other) if other else v
                E[g] = A @ M.reshape((len(A),) + P.shape[1:])
        return E

    # ---- the two passes --------------------------------------------------------
    def _upward(self, theta, keep=True):
        alpha = self._psi(theta)
        n = self.n_vars
        msg = [None] * n if keep else None
        logz, root_lz = 0.0, {}
        off, parent = self._off, self.parent
        for i in range(n):
            a = alpha[off[i]:off[i + 1]]
            q = parent[i]
            if q >= 0:
                h = len(a) // 2
                m = np.logaddexp(a[:h], a[h:])
                if keep:
                    msg[i] = m
                pv = self._view(alpha, q)
                pv += m.reshape(self._up_shape[i])
            else:
                z = float(_lse(a, 0))
                root_lz[i] = z
                logz += z
        return logz, alpha, msg, root_lz

    def calibrate(self, theta):
        """Both passes.  Returns (log Z, beliefs, alpha, messages): ``beliefs``
        is flat; ``beliefs[_off[i]:_off[i+1]]`` reshaped to (2,)*len(cliques[i])
        is the normalised log marginal of clique i (axes in ``cliques[i]`` order)."""
        theta = self._theta(theta)
        logz, alpha, msg, root_lz = self._upward(theta)
        bel = np.empty_like(alpha)
        off = self._off
        for i in range(self.n_vars - 1, -1, -1):
            q = self.parent[i]
            a = alpha[off[i]:off[i + 1]]
            if q < 0:
                bel[off[i]:off[i + 1]] = a - root_lz[i]
                continue
            bp = self._view(bel, q)
            ax = self._down_axes[i]
            if not ax:
                mu = bp.ravel()
            elif len(ax) == 1:
                mu = np.logaddexp.reduce(bp, axis=ax[0]).ravel()
            else:
                mu = _lse(bp, ax).ravel()
            h = len(a) // 2
            b = bel[off[i]:off[i + 1]]
            b[:h] = a[:h] + (mu - msg[i])
            b[h:] = a[h:] + (mu - msg[i])
        return logz, bel, alpha, msg

    def max_state(self, theta):
        """(x, max): a state x (0/1 per variable, 1 = spin +1) maximising
        theta . g(x), by max-product: the upward pass with max in place of
        log-sum-exp, then each eliminated variable set to its best value given
        its clique's later variables (already set)."""
        alpha = self._psi(self._theta(theta))
        off, best = self._off, 0.0
        for i in range(self.n_vars):
            a = alpha[off[i]:off[i + 1]]
            q = self.parent[i]
            if q >= 0:
                h = len(a) // 2
                pv = self._view(alpha, q)
                pv += np.maximum(a[:h], a[h:]).reshape(self._up_shape[i])
            else:
                best += float(a.max())
        x = np.zeros(self.n_vars, dtype=np.int64)
        for i in range(self.n_vars - 1, -1, -1):
            c = self.cliques[i]
            x[c[0]] = int(np.argmax(self._view(alpha, i)[(slice(None),) + tuple(x[c[1:]])]))
        return x.astype(np.uint8), best

    def log_partition(self, theta):
        """log Z(theta) (upward pass only)."""
        return self._upward(self._theta(theta), keep=False)[0]

    def marginals(self, theta):
        """P(x_v = 1) for every variable v."""
        _, bel, _, _ = self.calibrate(theta)
        P = np.exp(bel)
        out = np.empty(self.n_vars)
        off = self._off
        for i, v in enumerate(self.order.tolist()):
            h = (off[i] + off[i + 1]) // 2
            out[v] = P[h:off[i + 1]].sum()
        return out

    def monomial_expectations(self, theta):
        """E_theta[prod_{v in S_t} s(x_v)] for every monomial t."""
        _, bel, _, _ = self.calibrate(theta)
        return self._group_means(np.exp(bel))[self._group_of]

    def log_partition_and_mean(self, theta):
        """(log Z, E[g]) from one calibration."""
        logz, bel, _, _ = self.calibrate(theta)
        return logz, self._C @ self._group_means(np.exp(bel))

    def mean_statistics(self, theta):
        """E_theta[g(X)]."""
        return self.log_partition_and_mean(theta)[1]

    def covariance(self, theta, block=None):
        """Cov_theta(g(X)) (= the Hessian of log Z), exact, by forward-mode
        differentiation of both passes, ``block`` parameters at a time (default:
        as many as fit in the memory limit).  Returns (log Z, E[g], Cov)."""
        theta = self._theta(theta)
        logz, bel, alpha, msg = self.calibrate(theta)
        P = np.exp(bel)
        mean = self._C @ self._group_means(P)
        p, n, off = self.n_stats, self.n_vars, self._off
        if block is None:
            block = max(1, min(p, _MAX_TOTAL // (2 * self.total_entries)))
        cov = np.zeros((p, p))
        CT = self._C.T.tocsc()
        for b0 in range(0, p, int(block)):
            cols = np.arange(b0, min(p, b0 + int(block)))
            q = len(cols)
            Wg = CT[:, cols].toarray()                      # (n_groups, q)
            D = self._dpsi(Wg)                              # d alpha, then d belief (in place)
            dmsg = [None] * n
            droot = {}
            for i in range(n):                              # upward tangents
                da = D[off[i]:off[i + 1]]
                par = self.parent[i]
                if par >= 0:
                    h = len(da) // 2
                    a = alpha[off[i]:off[i + 1]]
                    s0 = np.exp(a[:h] - msg[i])[:, None]
                    dm = s0 * da[:h] + (1.0 - s0) * da[h:]
                    dmsg[i] = dm
                    pv = self._view(D, par, q)
                    pv += dm.reshape(self._up_shape[i] + (q,))
                else:
                    droot[i] = P[off[i]:off[i + 1]] @ da
            for i in range(n - 1, -1, -1):                  # downward tangents
                da = D[off[i]:off[i + 1]]
                par = self.parent[i]
                if par < 0:
                    da -= droot[i]
                    continue
                ax = self._down_axes[i]
                dbp = self._view(D, par, q)
                if ax:
                    bp = self._view(bel, par)
                    cond = np.exp(bp - np.expand_dims(_lse(bp, ax), ax))
                    dmu = np.sum(cond[..., None] * dbp, axis=ax).reshape(-1, q)
                else:
                    dmu = dbp.reshape(-1, q)
                dmu = dmu - dmsg[i]
                h = len(da) // 2
                da[:h] += dmu
                da[h:] += dmu
            dE = self._group_means(P[:, None] * D)          # (n_groups, q)
            cov[:, cols] = self._C @ dE
        cov = 0.5 * (cov + cov.T)
        return logz, mean, cov

    # ---- data ----------------------------------------------------------------
    def statistics(self, X):
        """g(x) of each row of X (0/1 or +-1 values)."""
        X = np.atleast_2d(np.asarray(X))
        if X.shape[1] != self.n_vars:
            raise ValueError(f"X must have {self.n_vars} columns, got {X.shape[1]}")
        if X.size and X.min() < 0:
            if not np.all(np.isin(X, (-1, 1))):
                raise ValueError("X must hold 0/1 values or -1/+1 spins")
            X = X > 0
        elif not np.all(np.isin(X, (0, 1))):
            raise ValueError("X must hold 0/1 values or -1/+1 spins")
        S = X.astype(float)
        if self.pm1:
            S = 2.0 * S - 1.0
        out = np.zeros((len(S), self.n_stats))
        for m, k, c in zip(self.monomials, self.stat, self.coef):
            out[:, k] += c * np.prod(S[:, m], axis=1)
        return out

    def loglik(self, theta, X, weights=None):
        """sum_m w_m log p(x_m | theta)."""
        theta = self._theta(theta)
        G = self.statistics(X)
        w = np.ones(len(G)) if weights is None else np.asarray(weights, dtype=float).ravel()
        return float(w @ (G @ theta) - w.sum() * self.log_partition(theta))


# ---------------------------------------------------------------------------
# functional interface
# ---------------------------------------------------------------------------
def _jt(model, **kwargs):
    return model if isinstance(model, JunctionTree) else JunctionTree(model, **kwargs)


def log_partition(model, theta, **kwargs):
    """Exact log Z(theta) of a MonomialModel / LinearMRF (or a JunctionTree).

    ``kwargs`` go to :class:`JunctionTree` (``order``, ``max_clique_log2``).

    Examples
    --------
    >>> import networkx as nx
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel(nx.path_graph(2000), coding="pm1", fields=False)
    >>> # a +-1 chain without fields: Z = 2 (2 cosh J)^(n-1)
    >>> bool(np.isclose(log_partition(m, [0.5]), np.log(2) + 1999 * np.log(2 * np.cosh(0.5))))
    True
    """
    return _jt(model, **kwargs).log_partition(theta)


def marginals(model, theta, **kwargs):
    """Exact node marginals P(x_v = 1)."""
    return _jt(model, **kwargs).marginals(theta)


def mean_statistics(model, theta, **kwargs):
    """Exact E_theta[g(X)]."""
    return _jt(model, **kwargs).mean_statistics(theta)


def covariance(model, theta, **kwargs):
    """Exact Cov_theta(g(X)) (the Fisher information per observation)."""
    return _jt(model, **kwargs).covariance(theta)[2]


def loglik(model, theta, X, weights=None, **kwargs):
    """Exact sum_m w_m log p(x_m | theta)."""
    return _jt(model, **kwargs).loglik(theta, X, weights)
