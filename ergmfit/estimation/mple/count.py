"""Maximum pseudo-likelihood for count-valued ERGMs (ergm.count's models).

The pseudo-likelihood is the product over the dyads v of the full conditional
of the dyad's value given the rest of the network,

    p(y_v = k | y_-v) = h(k) exp(θ·Δ_v(k)) / Σ_{j in S} h(j) exp(θ·Δ_v(j)),

with h the reference measure, S its support and Δ_v(k) = g(y, y_v = k) −
g(y, y_v = lo) (lo the smallest value of S).  Huang & Butts compare it with
the other count-ERGM estimators; statnet has none ("when such graphs are at
all large, you really need MPLE", ergm issue 411).  For a dyad-independent
model it is the likelihood, so its maximiser is the MLE (a Poisson or
binomial regression with an offset log h).

How it is computed
------------------
* The change statistics Δ_v(k) for every k of the (truncated) support are
  computed in C (:func:`._mple.count_design`) from the compiled model's
  ``change``; each dyad's rows and observed value go into a hash table of
  distinct rows with their weights, so that a sparse network's many zero
  dyads with equal neighbourhoods are one row.  Nothing per dyad runs in Python.
* Networks with more than ``max_dyads`` dyads (default 2**26), or whenever
  ``sample_size`` is given, use a case-control sample as the binary MPLE does:
  every nonzero dyad (weight 1) and ``sample_size`` distinct zero dyads drawn
  uniformly (each weighted #zeros / sample_size; default max(100,000, 8 x
  nonzero dyads)), so that the weighted pseudo-likelihood, its score and
  Hessian are unbiased for the full ones.  The simulated networks of the
  Godambe and bootstrap standard errors are sampled alike.
* Bounded references (``Binomial(t)``, ``DiscUnif(a, b)``) sum over the whole
  support.  Unbounded ones (``Poisson``, ``Geometric``) are truncated at a
  value K (at first max(2 y_max, y_max + 10)); after the fit the mass beyond K
  of every distinct row's conditional is bounded by p_K r / (1 − r), with
  r = p_K / p_{K−1} (the tail is geometric or thinner when the ratio of
  successive terms does not increase beyond K, which holds for the linear
  terms ``sum``, ``nonzero`` and for a Poisson reference); while the bound is
  above ``TAIL_TOL`` (1e-12) K is doubled and the fit redone.  The bound
  reached is ``info["truncation"]["tail_bound"]``.
* The log pseudo-likelihood is concave in θ (a sum of log-sum-exps of linear
  functions); it is maximised by Newton–Raphson with step halving, stopped
  when the Newton decrement falls below ``tol`` (1 + |ℓ|).

Standard errors (``cov=``)
--------------------------
* ``"naive"``: the inverse of the negative pseudo-Hessian (exact for
  dyad-independent models, suspect otherwise);
* ``"godambe"``: H⁻¹ J H⁻¹ with J the mean outer product of the
  pseudo-score at θ̂ on ``n_sim`` networks simulated from θ̂ (the same
  sandwich as the binary MPLE);
* ``"bootstrap"``: the covariance of the MPLEs refitted on ``bootstrap``
  (else ``n_sim``) networks simulated from θ̂.

The simulations use the count family's Metropolis-Hastings sampler started at
the observed network (``burnin``, then one network every ``interval``
proposals).

Examples
--------
>>> import networkx as nx, ergmfit as ef
>>> g = nx.DiGraph()
>>> g.add_nodes_from(range(4))
>>> for (i, j), y in {(0, 1): 2, (1, 0): 1, (1, 2): 3, (2, 3): 1}.items():
...     g.add_edge(i, j, weight=y)
>>> m = ef.ERGM(g, "sum + nonzero", response="weight", reference="Poisson")
>>> fit = m.fit("mple")           # dyad-independent: the MLE, exactly
>>> fit.info["truncation"]["tail_bound"] < 1e-12
True

References
----------
Krivitsky, P. N. (2012). Exponential-family random graph models for valued
networks. Electronic Journal of Statistics 6, 1100-1128.
Besag, J. (1974). Spatial interaction and the statistical analysis of lattice
systems. JRSS B 36, 192-236.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy.special import logsumexp

from ...exceptions import ConvergenceWarning, DegenerateModelError, SettingsError
from ...terms.offsets import BIG
from ...utils.setops import unique_sorted
from ...utils.validation import check_random_state
from ..common.nobs import fit_nobs
from ..common.restricted import case_control_vars
from ._mple import count_design, nonzero_variables
from .bootstrap import refit_params
from .simulated import bootstrap, godambe
from .separation import _names, _separation_direction, _term_map, separation_error, \
    separation_message

#: the largest mass the truncation of an unbounded support may leave out, per dyad
TAIL_TOL = 1e-12
#: the largest truncation point tried for an unbounded support
MAX_TRUNCATION = 1 << 16

NAIVE_SE_WARNING = ("Note: the standard errors are the inverse pseudo-Hessian's; for a "
                    "dyad-dependent model they are suspect (cov='godambe' or 'bootstrap' "
                    "simulate them)")


@dataclass
class CountDesign:
    """The distinct rows of a count pseudo-likelihood: ``D`` (U, K, p) the change
    statistics of the values lo+1 .. lo+K from lo, ``y`` (U,) the observed
    values, ``w`` (U,) the weights, ``log_h`` (K + 1,) log h(lo .. lo+K)."""

    D: np.ndarray
    y: np.ndarray
    w: np.ndarray
    log_h: np.ndarray
    lo: int
    n_vars: int
    n_sampled: int = None       # zero dyads of a case-control sample (None: every dyad)
    offset: np.ndarray = None   # (U, K) fixed part of θ·Δ(k) (offset terms; None: 0)

    @property
    def hi(self) -> int:
        return self.lo + self.D.shape[1]

    def free(self, par):
        """The design of the coefficients of ``par`` (a model's parameterisation): itself
        for the identity; for an affine map η = A θ + c (offset terms,
        :class:`~ergmfit.terms.offsets.OffsetParameterisation`) the columns D A and the
        fixed part D c."""
        if par is None or getattr(par, "linear", True):
            return self
        import dataclasses              # (count models have no curved terms: η is affine)
        A, c = par.affine_parts()
        off = self.D @ c
        return dataclasses.replace(self, D=np.ascontiguousarray(self.D @ A),
                                   offset=off if self.offset is None else self.offset + off)

    def _eta(self, theta):
        # (U, K+1): log h(k) + θ·Δ(k), the value lo first (Δ = 0)
        U = self.D.shape[0]
        eta = np.empty((U, self.D.shape[1] + 1))
        eta[:, 0] = 0.0
        eta[:, 1:] = self.D @ theta
        if self.offset is not None:
            eta[:, 1:] += self.offset
        return eta + self.log_h

    def _full(self):
        # (U, K+1, p): Δ with the zero row of lo
        U, K, p = self.D.shape
        full = np.zeros((U, K + 1, p))
        full[:, 1:, :] = self.D
        return full

    def evaluate(self, theta, hessian=True):
        """(log pseudo-likelihood, score, Hessian) at θ."""
        eta = self._eta(theta)
        lse = logsumexp(eta, axis=1)
        obs = self.y - self.lo
        rows = np.arange(len(obs))
        ll = float(self.w @ (eta[rows, obs] - lse))
        prob = np.exp(eta - lse[:, None])
        full = self._full()
        mean = np.einsum("uk,ukp->up", prob, full)
        score = self.w @ (full[rows, obs, :] - mean)
        if not hessian:
            return ll, score, None
        second = np.einsum("uk,ukp,ukq->upq", prob, full, full)
        cov = second - mean[:, :, None] * mean[:, None, :]
        return ll, score, -np.einsum("u,upq->pq", self.w, cov)

    def score(self, theta):
        return self.evaluate(theta, hessian=False)[1]

    def tail_bound(self, theta) -> float:
        """The largest (over the distinct rows) bound on the conditional mass beyond
        the truncation point hi (see the module docstring); inf when the last ratio
        of successive terms is not below 1."""
        eta = self._eta(theta)
        lse = logsumexp(eta, axis=1)
        log_r = eta[:, -1] - eta[:, -2]
        if np.any(log_r >= 0):
            return float("inf")
        log_pk = eta[:, -1] - lse
        r = np.exp(log_r)
        return float(np.max(np.exp(log_pk) * r / (1.0 - r)))


class ZeroCells:
    """The zero dyads of a dyad-independent count model whose terms depend on node
    attributes only (``cell_attrs``, as the binary attribute-cell design of
    :mod:`.cells`), counted by cell: every zero dyad of a cell has the same full
    conditional, so the design has one row per cell with the cell's zero dyads as its
    weight, and one row per nonzero dyad -- O(nonzero dyads + cells), never O(dyads).

    ``ZeroCells.of(model)`` is None when this does not apply (dyad-dependent terms,
    terms without cell attributes, a reference without 0, constraints)."""

    def __init__(self, layout, empty):
        self.layout, self.empty = layout, empty

    @classmethod
    def of(cls, model):
        from .cells import cell_layout
        if model.reference.lo != 0 or not getattr(model, "dyad_independent", False):
            return None
        layout = cell_layout(model)
        if layout is None:
            return None
        return cls(layout, model.compiled(np.zeros((0, 2), dtype=np.int64),
                                          np.zeros(0, dtype=np.int64)))

    def design(self, cm, lo, hi):
        """count_design's dict for ``cm``'s values: the nonzero dyads one by one, then
        one row per cell with zero dyads (the change statistics of a representative
        dyad on the empty network: dyad-independent, they are any state's)."""
        from ...sampling.space import dyad_vars
        dyads, _ = cm.state.nonzero()
        layout = self.layout
        on = dyad_vars(cm.state.n, cm.state.directed, dyads) if len(dyads) else \
            np.zeros(0, dtype=np.int64)
        zeros = layout.count - np.bincount(layout.cell_of(dyads), minlength=len(layout.count))
        keep = zeros > 0
        parts = [count_design(cm, lo, hi, np.ascontiguousarray(on, dtype=np.int64),
                              np.ones(len(on)))] if len(on) else []
        if keep.any():
            parts.append(count_design(self.empty, lo, hi,
                                      np.ascontiguousarray(layout.rep[keep], dtype=np.int64),
                                      zeros[keep].astype(float)))
        return {"D": np.concatenate([d["D"] for d in parts]),
                "y": np.concatenate([d["y"] for d in parts]),
                "w": np.concatenate([d["w"] for d in parts]), "n_vars": int(cm.n_free_vars())}


class RemoteZeros:
    """The zero dyads of a dyad-dependent count model grouped by what their change
    statistics read, when every term declares it (a dyad-independent term by its
    ``cell_attrs``, a dyad-dependent one by its ``zero_locality``,
    :class:`~ergmfit.terms.valued.ZeroDyadLocality`).

    A zero dyad (i, j) is *near* when a term's change there reads the dyad's surroundings:
    y_ji != 0 (``near="reverse"``, e.g. ``mutual``) or, for ``near="twopath"`` terms
    (``transitiveweights``), also when i and j share a nonzero neighbour.  Every other
    zero dyad is *remote*: its change statistic of every value is a function of the
    classes of i and j (nodes with equal attributes the terms name and equal
    ``node_features``, e.g. ``nodecovar``'s row sums), so the design takes one remote
    representative per pair of classes, weighted by the pair's remote zero dyads (its
    node pairs, counted from the class sizes, minus its nonzero and near dyads).  The
    design has O(nonzero + near dyads + class pairs) rows, computed by the model's own
    kernels; its pseudo-likelihood is the dyad-by-dyad one exactly.  Near dyads are
    enumerated through the common neighbours: O(Σ_k deg(k)²).

    ``RemoteZeros.of(model)`` is None when a term declares nothing, for a reference
    without 0, or a constrained space; :meth:`design` returns None (and the caller goes
    dyad by dyad) when the near dyads or the class pairs would be too many to pay.
    """

    #: give up (dyad by dyad) when the node pairs sharing a neighbour or the class pairs
    #: exceed this fraction of the dyads
    MAX_FRACTION = 0.25

    def __init__(self, model, names, localities):
        self.model, self.names, self.localities = model, names, localities
        near = {loc.near for loc in localities}
        self.near = "twopath" if "twopath" in near else ("reverse" if "reverse" in near
                                                         else None)
        # the terms whose change at a near dyad needs the dyad (the others: its class pair)
        reads_near = [getattr(t.zero_locality, "near", None) is not None for t in model.terms]
        width = np.array([t.kernel.n_stats for t in model.terms], dtype=np.int64)
        first = np.concatenate([[0], np.cumsum(width)[:-1]]).astype(np.int64)
        self.near_terms = [k for k, r in enumerate(reads_near) if r]
        self.class_terms = [k for k, r in enumerate(reads_near) if not r]
        self.near_columns, self.class_columns = (
            np.concatenate([np.arange(first[k], first[k] + width[k]) for k in ks] or
                           [np.zeros(0, dtype=np.int64)]).astype(np.int64)
            for ks in (self.near_terms, self.class_terms))

    @classmethod
    def of(cls, model):
        net = model.network
        space = getattr(model, "sample_space", None)
        if (model.reference.lo != 0 or space is None or not space.moves_one_dyad
                or space.design_vars() is not None or net.is_bipartite or net.n < 3):
            return None
        names, localities = [], []
        attrs = net.node_attrs
        for t in model.terms:
            loc = getattr(t, "zero_locality", None)
            vals = getattr(t, "cell_attrs", None)
            if loc is not None:
                localities.append(loc)
            elif t.dyad_independent and vals is not None and all(v in attrs for v in vals):
                names.extend(v for v in vals if v not in names)
            else:
                return None
        if not localities:
            return None                 # dyad-independent: ZeroCells counts it
        return cls(model, names, localities)

    def _classes(self, n, directed, dyads, values):
        from .cells import node_classes
        attr_cls, _ = node_classes(self.model.network, self.names)
        cols = [attr_cls[:, None].astype(float)] + [
            np.asarray(loc.features(n, directed, dyads, values), dtype=float).reshape(n, -1)
            for loc in self.localities]
        _, cls = np.unique(np.concatenate(cols, axis=1), axis=0, return_inverse=True)
        cls = cls.reshape(-1).astype(np.int64)
        return cls, int(cls.max()) + 1

    def _near_keys(self, n, directed, dyads):
        """The increasing keys (i * n + j; undirected i < j) of the near node pairs (zero
        or not), or None when there are too many."""
        from ._mple import near_pairs
        if self.near is None or (self.near == "reverse" and not directed):
            return np.zeros(0, dtype=np.int64)
        i, j = dyads[:, 0].astype(np.int64), dyads[:, 1].astype(np.int64)
        # the skeleton (nonzero either way), each neighbour list once, in CSR form
        ab = unique_sorted(np.concatenate([i * n + j, j * n + i]))
        deg = np.bincount(ab // n, minlength=n).astype(np.int64)
        two_hop = self.near == "twopath"
        if two_hop and float(np.sum(deg.astype(float) ** 2)) > \
                self.MAX_FRACTION * self.model.network.n_dyads * (1 + directed):
            return None
        indptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
        return near_pairs(indptr, ab % n, n, two_hop, directed, directed)

    def design(self, cm, lo, hi):
        """count_design's dict for ``cm``'s values (every dyad; the remote zero dyads one
        row per class pair), or None when it would not pay."""
        from ...sampling.space import dyad_vars
        from ._mple import plain_representatives
        n, directed = int(cm.state.n), bool(cm.state.directed)
        dyads, values = cm.state.nonzero()
        dyads = np.asarray(dyads, dtype=np.int64).reshape(-1, 2)
        near = self._near_keys(n, directed, dyads)
        if near is None:
            return None
        on_keys = dyads[:, 0] * n + dyads[:, 1] if directed else \
            np.minimum(dyads[:, 0], dyads[:, 1]) * n + np.maximum(dyads[:, 0], dyads[:, 1])
        on_keys = np.sort(on_keys)
        at = np.minimum(np.searchsorted(on_keys, near), max(len(on_keys) - 1, 0))
        if len(on_keys):
            near = near[on_keys[at] != near]                 # the near *zero* dyads
        cls, K = self._classes(n, directed, dyads, values)
        if K * K > self.MAX_FRACTION * cm.n_vars:
            return None
        size = np.bincount(cls, minlength=K).astype(np.int64)
        a, b = np.meshgrid(np.arange(K), np.arange(K), indexing="ij")
        a, b = a.ravel(), b.ravel()
        if not directed:
            keep = a <= b
            a, b = a[keep], b[keep]
        same = a == b
        count = np.where(same, size[a] * (size[a] - 1), size[a] * size[b])
        if not directed:
            count = np.where(same, count // 2, count)
        excluded = np.concatenate([on_keys, near])
        ex_a, ex_b = cls[excluded // n], cls[excluded % n]
        if not directed:
            ex_a, ex_b = np.minimum(ex_a, ex_b), np.maximum(ex_a, ex_b)
        pair_of = np.searchsorted(a * K + b, ex_a * K + ex_b)
        count = count - np.bincount(pair_of, minlength=len(a))
        keep = count > 0
        order = np.argsort(cls, kind="stable")
        starts = np.concatenate([[0], np.cumsum(size)])
        reps = plain_representatives(order, starts, a[keep], b[keep],
                                     np.sort(excluded, kind="stable"), n, directed)
        near_vars = dyad_vars(n, directed, np.stack([near // n, near % n], axis=1))
        parts = [count_design(cm, lo, hi, np.concatenate([
            dyad_vars(n, directed, np.stack([on_keys // n, on_keys % n], axis=1)),
            dyad_vars(n, directed, reps).reshape(-1)]),
            np.concatenate([np.ones(len(dyads)), count[keep].astype(float)]))]
        if len(near):
            parts.append(self._near_design(cm, lo, hi, near_vars, pair_of[len(on_keys):],
                                           dyads, values))
        return {"D": np.concatenate([d["D"] for d in parts]),
                "y": np.concatenate([d["y"] for d in parts]),
                "w": np.concatenate([d["w"] for d in parts]), "n_vars": int(cm.n_free_vars())}

    def _near_design(self, cm, lo, hi, near_vars, near_pair, dyads, values):
        """The rows of the near zero dyads: the near-reading terms' changes dyad by dyad,
        the other terms' once per class pair (any zero dyad of the pair gives them)."""
        from ._mple import change_rows
        ones = np.ones(len(near_vars))
        pairs, first, inverse = np.unique(near_pair, return_index=True, return_inverse=True)
        if not self.class_terms or not self.near_terms or len(pairs) == len(near_vars):
            return count_design(cm, lo, hi, near_vars, ones)     # splitting would not pay
        compiled = [self.model.submodel(ks).compiled(dyads, values)
                    for ks in (self.near_terms, self.class_terms)]
        fixed = change_rows(compiled[1], lo, hi, near_vars[first])
        return count_design(compiled[0], lo, hi, near_vars, ones, columns=self.near_columns,
                            fixed=fixed, fixed_columns=self.class_columns,
                            fixed_index=inverse.reshape(-1))


def design_of(cm, reference, hi, sample=None, cells=None) -> CountDesign:
    """The count pseudo-likelihood design of the compiled count model ``cm``
    (its present values) over ``reference.lo .. hi``; ``sample`` = (number of zero
    dyads, random generator) for a case-control sample (every nonzero dyad, and
    that many zero dyads drawn uniformly, each weighted #zeros / number); ``cells``
    (a :class:`ZeroCells` or :class:`RemoteZeros`, :func:`zero_groups`; without
    ``sample``): every dyad, the zero ones counted by attribute cell or by class pair."""
    lo = int(reference.lo)
    d = cells.design(cm, lo, int(hi)) if sample is None and cells is not None else None
    if d is None and sample is None:
        d = count_design(cm, lo, int(hi))
    elif d is None:
        variables, weights = case_control(cm, *sample)
        d = count_design(cm, lo, int(hi), variables, weights)
        d["n_vars"] = int(cm.n_free_vars())
    return CountDesign(d["D"], d["y"], d["w"], reference.log_h(np.arange(lo, hi + 1)), lo,
                       int(d["n_vars"]), None if sample is None else int(sample[0]))


def zero_groups(model):
    """How the zero dyads of ``model`` are grouped in an every-dyad design:
    :class:`ZeroCells` (dyad-independent attribute models), else :class:`RemoteZeros`,
    else None (dyad by dyad)."""
    cells = ZeroCells.of(model)
    return cells if cells is not None else RemoteZeros.of(model)


def case_control(cm, size, rng):
    """Every nonzero variable (weight 1) and ``size`` distinct zero variables drawn
    uniformly from the sample space's (weight #zeros / size), as int64 / float64 arrays
    (:func:`~ergmfit.estimation.common.restricted.case_control_vars`)."""
    return case_control_vars(np.sort(nonzero_variables(cm)), int(cm.n_free_vars()),
                             cm.free_variables(), size, rng)


def sample_setting(cm, sample_size, max_dyads):
    """None for every dyad, else the number of zero dyads of a case-control sample
    (default max(100,000, 8 x nonzero dyads) above ``max_dyads`` dyads)."""
    n_vars, n_on = int(cm.n_free_vars()), int(len(nonzero_variables(cm)))
    if sample_size is None:
        if n_vars <= max_dyads:
            return None
        sample_size = max(100_000, 8 * n_on)
    if 2 * int(sample_size) >= n_vars - n_on:
        return None            # more than half of the zeros: take them all
    return int(sample_size)


def first_truncation(reference, values) -> int:
    """Where the support is cut first: its end if bounded, else max(2 y_max, y_max + 10)
    (raised by :func:`fit_count` while the tail bound is too large)."""
    if reference.hi is not None:
        return int(reference.hi)
    ymax = int(np.max(values)) if len(values) else 0
    return max(2 * ymax, ymax + 10, reference.lo + 1)


@dataclass
class CountFit:
    params: np.ndarray
    cov: np.ndarray
    loglik: float
    converged: bool
    n_iter: int
    design: CountDesign
    tail_bound: float


def newton(design: CountDesign, labels, maxiter=100, tol=1e-14, start=None, term_of=None):
    """Maximise the (concave) log pseudo-likelihood by Newton-Raphson with step
    halving; returns (θ, inverse negative Hessian, log PL, converged, iterations).
    A pseudo-likelihood without a maximum (:func:`separation_direction`) is a
    DegenerateModelError naming the statistics (``term_of``: label -> term name), in the
    binary MPLE's words."""
    p = design.D.shape[2]
    _check_columns(design, labels)
    theta = np.zeros(p) if start is None else np.array(start, dtype=float)
    ll, g, H = design.evaluate(theta)
    if p == 0:          # every coefficient an offset: the pseudo-likelihood at them
        return theta, np.zeros((0, 0)), ll, True, 0
    converged = False
    it = 0
    for it in range(1, maxiter + 1):
        try:
            step = np.linalg.solve(-H, g)
        except np.linalg.LinAlgError:
            break               # separated (below) or collinear (the covariance's error)
        dec = float(g @ step)
        if not np.isfinite(dec):
            break
        if dec < tol * (1.0 + abs(ll)):
            # the last (tiny) Newton step too: quadratic convergence makes it exact
            new = theta + step
            ll_new, g_new, H_new = design.evaluate(new)
            if np.isfinite(ll_new) and ll_new >= ll - 1e-12 * (1.0 + abs(ll)):
                theta, ll, g, H = new, ll_new, g_new, H_new
            converged = True
            break
        t = 1.0
        while True:
            new = theta + t * step
            ll_new, g_new, H_new = design.evaluate(new)
            if np.isfinite(ll_new) and ll_new >= ll - 1e-12 * (1.0 + abs(ll)):
                break
            t *= 0.5
            if t < 1e-10:
                ll_new = None
                break
        if ll_new is None:
            break
        theta, ll, g, H = new, ll_new, g_new, H_new
        if np.max(np.abs(theta)) > 1e6:
            break
    d = separation_direction(design)
    if d is not None:
        name = _names(labels, term_of)
        raise separation_error(separation_message(
            d, labels, name_of=name, separated="each dyad's observed value from its other "
            "values"), single=np.count_nonzero(d) == 1, warn_option=False)
    try:
        cov = np.linalg.inv(-H)
    except np.linalg.LinAlgError:
        raise DegenerateModelError(_collinear_text(design, labels)) from None
    return theta, 0.5 * (cov + cov.T), ll, converged, it


def difference_rows(design):
    """The rows a = Δ_v(y_v) − Δ_v(k) of every distinct dyad row v and value k of the support
    (U (K + 1), p): the log pseudo-likelihood keeps increasing along d exactly when
    d . a >= 0 for every row a, > 0 for some (the observed values are then each dyad's
    most likely along d: the count twin of a separation of ties from non-ties)."""
    U, K, p = design.D.shape
    full = design._full()
    obs = full[np.arange(U), design.y - design.lo, :]
    return (obs[:, None, :] - full).reshape(-1, p)


def separation_direction(design):
    """A direction (in columns scaled to max |a| = 1) along which the count log
    pseudo-likelihood increases without bound, or None when its maximum exists: the binary
    MPLE's separation linear program
    (:func:`~ergmfit.estimation.mple.separation._separation_direction`) on the
    distinct rows of :func:`difference_rows`, each a row whose observed side is d . a >= 0
    (a "tie" row of the binary program)."""
    A = difference_rows(design)
    A = A[np.any(A != 0, axis=1)]
    if not len(A):
        return None
    scale = np.abs(A).max(axis=0)
    scale[scale == 0] = 1.0
    Z = np.unique(A / scale, axis=0)
    ones = np.ones(len(Z))
    return _separation_direction(Z, ones, ones)


def _check_columns(design, labels):
    huge = [labels[k] for k in range(design.D.shape[2])
            if not np.all(np.isfinite(design.D[:, :, k]))]
    if huge:
        raise DegenerateModelError(f"the change statistics of {huge} are not finite for the "
                                   f"values {design.lo}..{design.hi} (e.g. a power too large for "
                                   "floating point): the model cannot be fitted")
    flat = [labels[k] for k in range(design.D.shape[2])
            if not np.any(design.D[:, :, k] != 0)]
    if flat:
        raise DegenerateModelError(f"the change statistics of {flat} are 0 for every dyad and "
                                   "value: the statistic(s) carry no information; remove them")


def _collinear_text(design, labels):
    return ("the pseudo-Hessian is singular: the change statistics of the terms "
            f"{list(labels)} are linearly dependent over the dyads' values; remove a "
            "redundant term")


def fit_count(model, labels, maxiter=100, tol=1e-14, cm=None, hi=None,
              sample=None) -> CountFit:
    """The count MPLE of ``model`` (a CountERGM) at its observed values, or at the
    compiled model ``cm``'s values; the truncation of an unbounded support is
    raised until its tail bound is below TAIL_TOL.  ``sample``: (zero dyads,
    generator) of a case-control sample (:func:`design_of`)."""
    ref = model.reference
    if cm is None:
        cm = model.compiled()
        values = model._values
    else:
        values = cm.state.nonzero()[1]
    hi = first_truncation(ref, values) if hi is None else int(hi)
    if hi - ref.lo > MAX_TRUNCATION:        # the design holds hi - lo values per dyad
        why = f"the reference {ref.label}" if ref.hi is not None else "the largest count"
        raise SettingsError(f"the count MPLE sums each dyad's full conditional over the values "
                            f"{ref.lo}..{hi} (from {why}), more than its limit of "
                            f"{MAX_TRUNCATION:,} values: rescale the counts or use a "
                            f"smaller reference")
    start = None
    cells = zero_groups(model) if sample is None else None
    term_of = _term_map(model)
    par = getattr(model, "parameterisation", None)
    while True:
        design = design_of(cm, ref, hi, sample, cells).free(par)
        if ref.hi is None and design.offset is not None and \
                np.any(np.abs(design.offset) >= 0.5 * BIG):
            # an infinite offset (a structural zero, ±BIG in the sampler) makes whole runs of
            # values impossible: the truncation's tail bound (the ratio of the last two
            # values' weights) cannot be read there
            raise SettingsError(f"the count MPLE (also MCMC-MLE's start) of an unbounded "
                                f"reference ({ref.label}) does not take an infinite offset "
                                "coefficient: use a finite one, a bounded reference "
                                "(Binomial(t), DiscUnif(a, b)) or method='cd' (which does)")
        theta, cov, ll, conv, it = newton(design, labels, maxiter, tol, start, term_of)
        bound = 0.0 if ref.hi is not None else design.tail_bound(theta)
        if bound <= TAIL_TOL:
            return CountFit(theta, cov, ll, conv, it, design, bound)
        if 2 * hi > MAX_TRUNCATION:
            raise DegenerateModelError(
                f"the count MPLE's full conditionals do not vanish beyond {hi} (reference "
                f"{ref.label}, tail bound {bound:.3g}): the model is not normalisable at the "
                "pseudo-likelihood's maximum (e.g. a Geometric reference with a positive sum "
                "coefficient)")
        hi, start = 2 * hi, theta


def fit_count_mple(est, model):
    """``MPLE(...).fit(model)`` for a count-valued model (the hook in
    :class:`~ergmfit.estimation.mple.pseudolikelihood.MPLE`)."""
    from ...results import ERGMResults
    t0 = time.perf_counter()
    if est.init is not None:
        raise SettingsError("setting 'init' applies to curved binary models only")
    if est.separation != "error":
        raise SettingsError("setting 'separation' applies to binary models only (a count "
                            "MPLE that does not exist is always an error)")
    rng = check_random_state(est.random_state)
    labels = list(model.labels)
    cm = model.compiled()
    size = sample_setting(cm, est.sample_size, est.max_dyads)
    est_sample = None if size is None else (size, rng)
    lf = fit_count(model, labels, est.maxiter, est.tol, cm=cm, sample=est_sample)
    warn = []
    if not lf.converged:
        warn.append(f"the count MPLE's Newton iterations did not converge in {est.maxiter}")
        warnings.warn(warn[-1], ConvergenceWarning, stacklevel=4)
    dyad_indep = bool(model.dyad_independent)
    info = {"design": {"n_vars": lf.design.n_vars, "n_rows": int(lf.design.D.shape[0]),
                       "n_sampled_zeros": lf.design.n_sampled},
            "truncation": {"support": f"{lf.design.lo}..{lf.design.hi}",
                           "tail_bound": lf.tail_bound,
                           "truncated": model.reference.hi is None}}
    cov, se_kind = lf.cov, "naive"
    if est.cov in ("godambe", "bootstrap"):
        if est.cov == "godambe":
            # each simulated network's design is built as the observed one was
            cells = zero_groups(model) if lf.design.n_sampled is None else None

            def score(cm):
                return design_of(cm, model.reference, lf.design.hi, sample_of(lf, rng),
                                 cells).free(model.parameterisation).score(lf.params)
            cov, info["godambe"] = godambe(model, lf.params, lf.cov, score, est, rng)
        else:
            # a refit takes the simulated values and a seed for its case-control sample,
            # drawn here in the networks' order: the refits may run in parallel (n_jobs)

            def replicate(cm):
                return model.chain_end(cm), int(rng.integers(0, 2 ** 63))
            cov, info["bootstrap"] = bootstrap(
                model, lf.params, replicate,
                partial(_bootstrap_refit, model, labels, est.maxiter, est.tol, lf.design.hi,
                        lf.design.n_sampled), est, rng, what="count MPLE")
        se_kind = est.cov
    if not dyad_indep and se_kind == "naive":
        warn.append(NAIVE_SE_WARNING)
    if size is not None:
        warn.append(f"Note: the pseudo-likelihood was computed from a case-control sample of "
                    f"dyads: every nonzero dyad and {size} of the zero dyads (sample_size); "
                    "the estimates carry that sampling error too.")
    return ERGMResults(
        lf.params, cov, labels, method="mple", loglik=lf.loglik,
        loglik_kind="exact" if dyad_indep else "pseudo", **fit_nobs(model),
        converged=lf.converged, n_iter=lf.n_iter, seconds=time.perf_counter() - t0,
        se_kind=se_kind, warnings=warn, info=info, formula=model.formula,
        network=model.network, model=model, dyad_independent=dyad_indep)


def sample_of(lf, rng):
    """The case-control setting of a simulated network's design: as the observed one's."""
    return None if lf.design.n_sampled is None else (lf.design.n_sampled, rng)


def _bootstrap_refit(model, labels, maxiter, tol, hi, n_sampled, state, seed):
    """One bootstrap refit: the count MPLE's parameters at the simulated values ``state``
    ((dyads, values)) over the support up to ``hi``, its case-control sample of
    ``n_sampled`` zero dyads (if any) drawn with ``seed``; None when it does not exist or
    does not converge."""
    sample = None if n_sampled is None else (n_sampled, np.random.default_rng(seed))
    return refit_params(lambda: fit_count(model, labels, maxiter, tol, cm=model.compiled(*state),
                                          hi=hi, sample=sample))
