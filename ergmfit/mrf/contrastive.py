"""Non-local contrastive objectives (Vickrey, Lin & Koller, ICML 2010).

A contrastive objective is a weighted sum of sub-objectives, each the log
conditional probability of an observed instantiation x^m within a set S of
instantiations that contains it:

    C(theta) = sum_j w_j [ theta . g(x^{m_j}) - log sum_{x' in S_j} exp(theta . g(x')) ].

Only the differences g(x') - g(x^m) matter, so a sub-objective is stored as
the matrix of those differences (its first row, x^m itself, is 0).  The
pseudo-likelihood is the special case S_{m,i} = {x^m, x^m with x_i flipped}
(one sub-objective per example and variable, w = 1); composite likelihood
takes S = all values of a block.  C is concave in theta; it is maximised
with L-BFGS (scipy).

Contrastive Constraint Generation (:func:`ccg`, Sec. 5.2 of the paper):
start from the PL sub-objectives (or none); repeat -- maximise C, then for
each example find an "interesting" instantiation by MAP inference under the
current theta (:func:`icm`, randomly initialised iterated conditional modes,
or :func:`max_product` on chain/tree-shaped pairwise models), and add it to
that example's own sub-objective S_m = {x^m, y_1, y_2, ...} (a set, w = 1)
-- until no example gets a new instantiation.

Models: any :class:`~ergmfit.mrf.models.LinearMRF` (statistics of
instantiations by ``model.statistics``; change statistics from its compiled
BinaryModel for PL and ICM).  :class:`ContrastiveConstraintGeneration`
(``method="ccg"`` of every LinearMRF, the GridCRF included) runs CCG on the
compiled instances of the estimators' protocol, one per CRF input, so that
each example's instantiations come from its own conditional model
p(y | x^m), with ICM or Gibbs-n instantiations (CCG(ICM+PL),
CCG(Gibbs-n+PL) of the paper's Sec. 6).
"""
import warnings
from types import SimpleNamespace

import numpy as np
from scipy.optimize import minimize

from ..estimation.base import Setting, choice, integer
from ..exceptions import ConvergenceWarning, DegenerateModelError
from ..utils.validation import check_params, check_random_state, seed_words
from ._base import _to01, row_weights
from .estimation import THETA0, _make_sampler
from .fitting import MRFMethod, MRFResults

SEPARATION = ("error", "warn", "ignore")


def _segment_lse(z, starts):
    """log-sum-exp of z over the segments starting at ``starts`` (sorted)."""
    m = np.maximum.reduceat(z, starts)
    lens = np.diff(np.append(starts, len(z)))
    mm = np.repeat(m, lens)
    e = np.exp(z - mm)
    return m + np.log(np.add.reduceat(e, starts)), e / np.repeat(np.add.reduceat(e, starts), lens)


class ContrastiveObjective:
    """A weighted sum of contrastive sub-objectives over ``p`` statistics."""

    def __init__(self, p):
        self.p = int(p)
        self._groups = {}            # key -> (D, weight)
        self._cache = None

    def __len__(self):
        return len(self._groups)

    def set_group(self, key, D, weight=1.0):
        """Set (add or replace) the sub-objective ``key``: D holds g(x') - g(x)
        for the instantiations x' of S other than x (x's own zero row is added)."""
        D = np.asarray(D, dtype=float).reshape(-1, self.p)
        self._groups[key] = (np.vstack([np.zeros((1, self.p)), D]), float(weight))
        self._cache = None

    def add(self, D, weight=1.0):
        self.set_group(("anon", len(self._groups)), D, weight)

    def add_instantiations(self, model, x, S, weight=1.0, key=None):
        """Sub-objective log P(x | {x} ∪ S) for a LinearMRF ``model``."""
        x = _to01(x, model.n_vars)
        S = _to01(np.atleast_2d(S), model.n_vars) if len(S) else np.zeros((0, model.n_vars))
        S = np.unique(S, axis=0) if len(S) else S
        S = S[~np.all(S == x, axis=1)] if len(S) else S
        g = model.statistics(x)[0]
        D = model.statistics(S) - g if len(S) else np.zeros((0, self.p))
        self.set_group(("inst", len(self._groups)) if key is None else key, D, weight)

    def _stack(self):
        if self._cache is None:
            Ds = [d for d, _ in self._groups.values()]
            w = np.array([w for _, w in self._groups.values()])
            lens = np.array([len(d) for d in Ds])
            D = np.vstack(Ds) if Ds else np.zeros((0, self.p))
            starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
            self._cache = (D, w, lens, starts)
        return self._cache

    def value_and_grad(self, theta):
        """C(theta) and its gradient."""
        theta = np.asarray(theta, dtype=float)
        D, w, lens, starts = self._stack()
        if len(w) == 0:
            return 0.0, np.zeros(self.p)
        lse, P = _segment_lse(D @ theta, starts)
        val = -float(w @ lse)
        grad = -(np.repeat(w, lens) * P) @ D
        return val, grad

    def separation_direction(self):
        """A direction d along which C(theta + t d) increases for ever as t grows
        (so C has no finite maximiser), or None.  That happens exactly when
        d . (g(x') - g(x)) <= 0 for every alternative x' of every sub-objective,
        with some < 0: each observed instantiation is, along d, at least as
        likely as all of its alternatives (separation).  The linear program of
        :func:`ergmfit.estimation.contrastive.mcle.separation_direction`."""
        from ..estimation.contrastive.mcle import separation_direction
        groups = [(D[None, :, :], np.array([w])) for D, w in self._groups.values()
                  if len(D) > 1 and w > 0]
        if not groups:
            return None
        rows = np.concatenate([D[0, 1:] for D, _ in groups])
        tol = 1e-9 * max(1.0, float(np.abs(rows).max()))
        for k in range(self.p):            # a single coefficient first: the clearest message
            for sign in (1.0, -1.0):
                v = sign * rows[:, k]
                if np.all(v <= tol) and np.any(v < -tol):
                    d = np.zeros(self.p)
                    d[k] = sign
                    return d
        return separation_direction(SimpleNamespace(groups=groups, p=self.p))

    def _optimize(self, th0, maxiter, gtol, free=None):
        free = np.ones(self.p, dtype=bool) if free is None else free
        th = th0.copy()

        def f(t):
            th[free] = t
            v, g = self.value_and_grad(th)
            return -v, -g[free]
        r = minimize(f, th0[free], jac=True, method="L-BFGS-B",
                     options={"maxiter": maxiter, "gtol": gtol, "ftol": 1e-15})
        th[free] = r.x
        r.x = th
        return r

    def maximize(self, theta0=None, maxiter=500, gtol=1e-9, separation="error", labels=None):
        """L-BFGS; returns (theta, value, scipy result).

        First a linear program checks that a finite maximiser exists
        (:meth:`separation_direction`).  When none does, ``separation``:

        * ``"error"`` (default): DegenerateModelError naming the direction;
        * ``"warn"``: a ConvergenceWarning, and the estimate at the limit --
          the coefficient of that direction at +/-Inf (as statnet's MPLE
          does) and the others maximising what remains of the objective
          (the alternatives whose probability goes to 0 dropped), NaN for a
          coefficient that nothing left depends on (not identified at the
          limit); for a direction that combines several coefficients,
          DegenerateModelError;
        * ``"ignore"``: L-BFGS from ``theta0`` as it stops (finite, arbitrary).

        The result's ``separation`` entry is the direction (or None).
        ``labels`` name the coefficients in the messages.
        """
        if separation not in SEPARATION:
            raise ValueError(f"separation must be one of {SEPARATION}, got {separation!r}")
        th0 = np.zeros(self.p) if theta0 is None else np.asarray(theta0, dtype=float).copy()
        th0[~np.isfinite(th0)] = 0.0
        d = None if separation == "ignore" else self.separation_direction()
        if d is None:
            r = self._optimize(th0, maxiter, gtol)
            r["separation"] = None
            return r.x, -r.fun, r
        names = [f"x{k}" for k in range(self.p)] if labels is None else list(labels)
        msg = _no_maximiser_message(d, names)
        if separation == "error" or np.count_nonzero(d) != 1:
            raise DegenerateModelError(msg + (" Pass separation='warn' for the estimate at the "
                                              "limit." if np.count_nonzero(d) == 1 else ""))
        warnings.warn(msg, ConvergenceWarning, stacklevel=2)
        theta, inf = th0, np.zeros(self.p, dtype=bool)
        sub = self
        while d is not None:
            if np.count_nonzero(d) != 1:
                raise DegenerateModelError(_no_maximiser_message(d, names))
            k = int(np.flatnonzero(d)[0])
            inf[k] = True
            theta[k] = np.inf if d[k] > 0 else -np.inf
            sub = sub._limit(d)
            d = sub.separation_direction()
            if d is not None:
                warnings.warn(_no_maximiser_message(d, names), ConvergenceWarning, stacklevel=2)
        th = np.where(inf, 0.0, theta)
        D, _, _, _ = sub._stack()
        lost = ~inf & ~np.any(np.abs(D) > 0, axis=0)         # nothing left depends on it
        r = sub._optimize(th, maxiter, gtol, free=~inf & ~lost)
        r.x = np.where(inf, theta, np.where(lost, np.nan, r.x))
        r["separation"] = np.where(inf, np.sign(theta), 0.0)
        return r.x, -r.fun, r

    def _limit(self, d, tol=1e-9):
        """The objective as t -> inf along d: in every sub-objective the
        alternatives with d . (g(x') - g(x)) < 0 dropped (their probability -> 0)."""
        out = ContrastiveObjective(self.p)
        for key, (D, w) in self._groups.items():
            keep = D @ d >= -tol * max(1.0, float(np.abs(D).max()))
            out._groups[key] = (D[keep], w)
        return out


def _no_maximiser_message(d, names):
    from .estimation import direction_text
    what = direction_text(d, names)
    return ("the contrastive objective (pseudo-/composite likelihood) has no finite maximiser: "
            f"it keeps increasing as {what}, i.e. along that direction every observed "
            "instantiation is at least as likely as each alternative of its set (separation; "
            "e.g. only the constant states observed in a chain, or clean labels that every "
            "pixel shares with most of its neighbours).")


def pseudo_likelihood_objective(model, X, obj=None, weights=None):
    """PL as a contrastive objective: S_{m,i} = {x^m, x^m with x_i flipped}
    (example m weighted by ``weights[m]``, e.g. the counts of distinct rows)."""
    X = _to01(X, model.n_vars)
    w = _weights(weights, len(X))
    obj = ContrastiveObjective(model.n_stats) if obj is None else obj
    add_pseudo_likelihood_groups(obj, model.compiled(), X, w, ("pl",))
    return obj


def add_pseudo_likelihood_groups(obj, bm, X, weights, key):
    """Add to ``obj`` the PL sub-objectives of the 0/1 rows X observed under the
    compiled model ``bm`` (row m weighted by ``weights[m]``), keyed
    ``key + (m, i)``.  Leaves bm in the state of the last row."""
    for m, x in enumerate(X):
        bm.set_state(x)
        for i in range(bm.n_vars):
            d = bm.change_stats(i)
            obj.set_group(key + (m, i), (d if not x[i] else -d)[None, :], weight=weights[m])


def _weights(weights, n):
    return row_weights(weights, n, "weights", positive_total=False)


def icm(model, theta, x0=None, random_state=None, max_sweeps=100):
    """Iterated conditional modes: greedy single-variable ascent in random
    order from x0 (random if None) to a local maximum of theta . g(x)."""
    rng = np.random.default_rng(random_state)
    return icm_state(model.compiled(), np.asarray(theta, dtype=float),
                     None if x0 is None else _to01(x0, model.n_vars), rng, max_sweeps)


def icm_state(bm, theta, x0, rng, max_sweeps=100):
    """:func:`icm` on a compiled model ``bm`` (e.g. one CRF instance): from the
    0/1 state x0 (uniformly random if None, drawn from the Generator ``rng``),
    at most ``max_sweeps`` sweeps in random order; returns the local maximum
    (bm is left in it)."""
    x = rng.integers(0, 2, bm.n_vars) if x0 is None else x0
    bm.set_state(x)
    for _ in range(max_sweeps):
        moved = False
        for v in rng.permutation(bm.n_vars):
            z = bm.change_stats(int(v)) @ theta
            want = z > 0
            if bool(bm.value(int(v))) != want and z != 0:
                bm.flip_var(int(v))
                moved = True
        if not moved:
            break
    return bm.state()


def max_product(model, theta):
    """Exact MAP of a model that is pairwise on a forest (chains, trees):
    max-product (Viterbi) with the unary and pairwise log-potentials read off
    the change statistics at x = 0 (as in ``ForwardBackward``)."""
    from ._models import interaction_edges
    import networkx as nx
    theta = np.asarray(theta, dtype=float)
    n = model.n_vars
    if any(len(m) > 2 for m in model.monomials):
        raise ValueError("max_product needs a pairwise model (monomials of at most 2 variables)")
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(map(tuple, interaction_edges(model)))
    if not nx.is_forest(G):
        raise ValueError("max_product needs a forest-shaped interaction graph; use icm")
    bm = model.compiled()
    a = np.array([bm.change_stats(v) @ theta for v in range(n)])
    x = np.zeros(n, dtype=np.uint8)
    for comp in nx.connected_components(G):
        root = min(comp)
        order = list(nx.bfs_tree(G, root))
        parent = {root: None}
        for u, v in nx.bfs_edges(G, root):
            parent[v] = u
        J = {}
        for v in order[1:]:
            bm.flip_var(parent[v])
            J[v] = bm.change_stats(v) @ theta - a[v]
            bm.flip_var(parent[v])
        up = {v: np.array([0.0, a[v]]) for v in order}
        arg = {}
        for v in reversed(order[1:]):
            # message to the parent: max over x_v of up[v](x_v) + J x_v x_parent
            cand = up[v][:, None] + J[v] * np.outer([0, 1], [0, 1])   # [x_v, x_par]
            arg[v] = np.argmax(cand, axis=0)
            up[parent[v]] = up[parent[v]] + cand.max(axis=0)
        x[root] = int(np.argmax(up[root]))
        for v in order[1:]:
            x[v] = arg[v][x[parent[v]]]
    return x


def ccg(model, X, map_method="icm", init="pl", theta0=None, max_rounds=50, random_state=None,
        verbose=False, weights=None):
    """Contrastive Constraint Generation; returns a dict with ``theta``,
    ``objective``, ``n_rounds``, ``converged`` and the per-example
    instantiation sets ``sets`` (lists of 0/1 arrays).  ``weights`` weight
    the examples (pass distinct rows and their counts to save work)."""
    rng = np.random.default_rng(random_state)
    X = _to01(X, model.n_vars)
    w = _weights(weights, len(X))
    obj = pseudo_likelihood_objective(model, X, weights=w) if init == "pl" else \
        ContrastiveObjective(model.n_stats)
    GX = model.statistics(X)
    stats_of = {}                  # instantiation (bytes) -> g(y), computed once

    def statistics_of(m, key, y):
        if key not in stats_of:
            stats_of[key] = model.statistics(y[None, :])[0]
        return stats_of[key]

    def new_round(theta):
        if map_method == "max_product":
            mp = max_product(model, theta)
            return lambda m: mp
        return lambda m: icm(model, theta, None, rng)

    theta = np.zeros(model.n_stats) if theta0 is None else np.asarray(theta0, dtype=float)
    if len(obj):
        theta, val, _ = obj.maximize(theta, separation="ignore")
    theta, rounds, converged, sets = generate_constraints(
        obj, [(x, GX[m], w[m]) for m, x in enumerate(X)], new_round, statistics_of, theta,
        max_rounds, verbose)
    val, _ = obj.value_and_grad(theta)
    d = _warn_if_separated(obj, getattr(model, "labels", None))
    return {"theta": theta, "objective": val, "n_rounds": rounds, "converged": converged,
            "sets": [list(s.values()) for s in sets], "objective_obj": obj, "separation": d}


def _warn_if_separated(obj, labels):
    d = obj.separation_direction()
    if d is not None:
        warnings.warn("CCG: " + _no_maximiser_message(d, labels or
                                                      [f"x{k}" for k in range(len(d))])
                      + " theta is where the optimiser stopped.", ConvergenceWarning,
                      stacklevel=3)
    return d


def generate_constraints(obj, examples, new_round, statistics_of, theta, max_rounds,
                         verbose=False):
    """The rounds of CCG (Vickrey et al. 2010, Sec. 5.2) on the objective ``obj``.

    ``examples`` are (x, g(x), weight) with x 0/1; each round calls
    ``pick = new_round(theta)`` and, for every example m, ``y = pick(m)``:
    a y not equal to x and not yet in example m's set joins it (the
    sub-objective ``("ccg", m)``: log P(x | {x} ∪ set), with g(y) from
    ``statistics_of(m, y.tobytes(), y)``); then ``obj`` is maximised again.
    Stops when no example gets a new instantiation (converged) or after
    ``max_rounds``.  Returns (theta, rounds, converged, sets), sets[m] a dict
    bytes -> y."""
    sets = [dict() for _ in examples]
    converged = False
    rounds = 0
    for rounds in range(1, max_rounds + 1):
        new = 0
        pick = new_round(theta)
        for m, (x, gx, w) in enumerate(examples):
            y = pick(m)
            key = y.tobytes()
            if np.array_equal(y, x) or key in sets[m]:
                continue
            sets[m][key] = y.copy()
            new += 1
            D = np.array([statistics_of(m, k, s) for k, s in sets[m].items()]) - gx
            obj.set_group(("ccg", m), D, weight=w)
        if verbose:
            print(f"CCG round {rounds}: {new} new instantiations")
        if new == 0:
            converged = True
            break
        theta, _, _ = obj.maximize(theta, separation="ignore")
    return theta, rounds, converged, sets


class ContrastiveConstraintGeneration(MRFMethod):
    """Contrastive Constraint Generation (``method="ccg"``; Vickrey, Lin &
    Koller 2010, Sec. 5.2) on the compiled instances of the data: for a CRF
    one conditional model per input, so every example's instantiations come
    from its own p(y | x^m).

    Start from the pseudo-likelihood sub-objectives (``init="pl"``) or none
    (``"empty"``); repeat: maximise the contrastive objective (L-BFGS), then
    for every example m draw one instantiation y -- ``instantiation="icm"``:
    iterated conditional modes from a uniformly random state (the paper's
    ICM, a non-local local maximum of the current model); ``"gibbs"``:
    ``n_sweeps`` rounds of single-site Gibbs (``n_sweeps`` times the number
    of variables random-scan updates) started at the observation, as CD-n
    draws its negative sample (the paper's CCG(Gibbs-n)) -- and add it to
    the example's own sub-objective log P(y^m | {y^m} ∪ S_m) (a set; w = 1,
    or the row's sample weight) -- until no example gets a new
    instantiation (``converged``) or ``max_rounds`` rounds.

    ``loglik`` is the contrastive objective at the estimate; ``info``:
    ``n_rounds``, ``n_instantiations`` (the size of all the sets together)
    and ``separation`` (a direction along which the final objective has no
    finite maximiser, with a ConvergenceWarning, or None).

    References
    ----------
    Vickrey, D., Lin, C. C. & Koller, D. (2010). Non-local contrastive
    objectives. ICML.

    Examples
    --------
    >>> import networkx as nx
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel(nx.path_graph(6))
    >>> X = m.sample(100, theta=[0.2, 0.6], random_state=0)
    >>> res = ContrastiveConstraintGeneration(random_state=1).fit(m, X)
    >>> res.method, res.params.shape, res.converged
    ('ccg', (2,), True)
    """

    method = "ccg"
    SETTINGS = (
        Setting("instantiation", "icm", choice("icm", "gibbs"),
                "'icm' (randomly initialised iterated conditional modes) or 'gibbs' "
                "(n_sweeps Gibbs sweeps from the observation)."),
        Setting("n_sweeps", 1, integer(1),
                "Gibbs instantiations: sweeps (n_vars single-site updates each)."),
        Setting("init", "pl", choice("pl", "empty"),
                "Initial objective: the PL sub-objectives or none."),
        Setting("max_rounds", 50, integer(1), "Rounds of constraint generation at most."),
        Setting("max_sweeps", 100, integer(1), "ICM: sweeps at most per instantiation."),
        THETA0,
    )

    def _fit_instances(self, insts, labels, model=None):
        labels = list(labels)
        p = len(labels)
        rng = check_random_state(self.random_state)
        obj = ContrastiveObjective(p)
        examples, where = [], []
        saved = [bm.state() for bm, *_ in insts]
        try:
            for i, (bm, X, *rest) in enumerate(insts):
                X = _to01(X, bm.n_vars)
                w = _weights(rest[0] if rest else None, len(X))
                if self.init == "pl":
                    add_pseudo_likelihood_groups(obj, bm, X, w, ("pl", i))
                for r, x in enumerate(X):
                    bm.set_state(x)
                    examples.append((x, np.asarray(bm.statistics(), dtype=float), w[r]))
                    where.append(i)
            theta = np.zeros(p) if self.theta0 is None else \
                np.asarray(check_params(self.theta0, labels, "theta0"), dtype=float)
            if len(obj):
                theta, _, _ = obj.maximize(theta, separation="ignore")
            theta, rounds, converged, sets = generate_constraints(
                obj, examples, self._instantiator(insts, examples, where, rng),
                lambda m, key, y: _statistics_at(insts[where[m]][0], y), theta,
                self.max_rounds, self.verbose)
        finally:
            for (bm, *_), s0 in zip(insts, saved):
                bm.set_state(s0)
        val, _ = obj.value_and_grad(theta)
        d = _warn_if_separated(obj, labels)
        return MRFResults(theta, labels, method=self.method, loglik=val, converged=converged,
                          n_iter=rounds,
                          info={"n_rounds": rounds,
                                "n_instantiations": int(sum(len(s) for s in sets)),
                                "separation": d})

    def _instantiator(self, insts, examples, where, rng):
        """new_round(theta) -> pick(m) for :func:`generate_constraints`."""
        if self.instantiation == "icm":
            max_sweeps = self.max_sweeps
            return lambda theta: (lambda m: icm_state(insts[where[m]][0], theta, None, rng,
                                                      max_sweeps))
        samplers = [_make_sampler(bm, "gibbs", 1, seed_words(rng)) for bm, *_ in insts]
        n_sweeps = self.n_sweeps

        def new_round(theta):
            def pick(m):
                bm, s = insts[where[m]][0], samplers[where[m]]
                bm.set_state(examples[m][0])
                s.run(theta, n_sweeps * bm.n_vars)
                return bm.state()
            return pick
        return new_round


def _statistics_at(bm, y):
    bm.set_state(y)
    return np.asarray(bm.statistics(), dtype=float)
