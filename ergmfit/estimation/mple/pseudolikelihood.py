"""Maximum pseudo-likelihood estimation (MPLE).

The pseudo-likelihood (Besag 1974; Strauss & Ikeda 1990 for ERGMs) is the
product over the binary variables x_v (dyads of an ERGM) of
P(x_v | the rest) = logit^{-1}(theta . Delta_v)^{x_v} (1 - ...)^{1 - x_v},
with Delta_v the change statistics g(x, x_v = 1) - g(x, x_v = 0) at the
observed state.  Maximising it is a logistic regression of x_v on Delta_v
without intercept.  For a dyad-independent ERGM it is the likelihood, and
the MPLE is the MLE.

How it is computed
------------------
* The design is never stored: each row goes into a hash table of distinct
  rows with its weight and its number of ties (``_mple.build_design``), as
  statnet compresses it.  1,066,530 dyads of faux.magnolia.high make 75
  distinct rows for ``edges + nodematch('Grade') + gwesp(0.25, fixed=TRUE)``.
* A dyad-independent model of attribute terms with more than ``max_dyads``
  dyads is counted by attribute cells, exactly, in O(nodes + ties + cells)
  (:mod:`ergmfit.estimation.mple.cells`).
* Other networks with more than ``max_dyads`` dyads (default 2**26), or whenever
  ``sample_size`` is given, use a case-control sample: every tie (weight 1)
  plus ``sample_size`` distinct non-ties drawn uniformly (each with weight
  #non-ties / sample_size), so the weighted pseudo-likelihood, its score and
  Hessian are unbiased for the full ones.  The default sample size is
  max(100,000, 8 x #ties) non-ties (statnet's ``init.MPLE.samplesize`` is
  max(sqrt(D), #ties, 40) x 8 dyads).  Asking for more than half of the
  non-ties computes all dyads instead.
* The logistic regression is Newton-Raphson with step halving on the
  weighted distinct rows (columns scaled to max |x| = 1), started as R's
  ``glm`` starts (mu = (y + 0.5) / (n + 1)), and stopped when the Newton
  decrement g' H^-1 g falls below ``tol`` (1 + |loglik|).

Degenerate designs (decided here, documented for users)
-------------------------------------------------------
* A statistic whose change statistic is 0 for every dyad (e.g. a
  ``nodefactor`` level no node has) carries no information: a
  :class:`~ergmfit.exceptions.DegenerateModelError` names it.  Linearly
  dependent statistics (collinear columns) are an error naming them too.
* A statistic of the dyad-independent part at its smallest or largest
  attainable value (an observed or target statistic on a face of the convex
  hull) is not a separation to refuse: ``ERGM.fit`` fits the model on that face
  and reports the coefficient as -Inf or +Inf, as statnet does
  (:mod:`ergmfit.estimation.mple.boundary`).  What reaches the design below is
  the rest.
* Perfect or quasi-complete separation -- the MPLE does not exist, e.g.
  ``triangle`` on a network without triangles -- is detected exactly by a
  linear program (does a direction d != 0 exist with d . Delta_v >= 0 for
  every tie and <= 0 for every non-tie?), run when Newton fails to converge
  or drives a fitted probability to within e^-30 of 0 or 1.  By default
  (``separation="error"``) a DegenerateModelError names the statistic(s) and
  the direction (+Inf / -Inf).  With ``separation="warn"`` and a single
  statistic involved, the fit does what statnet does for statistics at their
  extremes: that coefficient is fixed at +/-Inf (its standard error is NaN),
  the dyads it determines are dropped, the other coefficients are estimated
  from the rest, and a ConvergenceWarning names the term.

Standard errors (``cov=``)
--------------------------
* ``"naive"`` (default): the inverse of the pseudo-Hessian
  H = sum_v w_v p_v (1 - p_v) Delta_v Delta_v' -- the logistic-regression
  standard errors statnet prints, with its warning that they are suspect for
  dyad-dependent models (for dyad-independent models they are exact).
* ``"godambe"``: the sandwich H^-1 J H^-1 (Schmid & Hunter 2023, JDS 21:295;
  statnet's ``MPLE.covariance.method = "Godambe"``), where J = (1/R) sum_r
  u(theta_hat; y_r) u(theta_hat; y_r)' is the variability matrix of the
  pseudo-score u(theta; y) = sum_v (y_v - p_v(theta; y)) Delta_v(y) over R
  networks y_r simulated from the MPLE (E u = 0 under the model, so the
  outer products are not centred), and H is the pseudo-Hessian at the
  observed network.
* ``"bootstrap"`` (or ``bootstrap=B``): the parametric bootstrap of Schmid &
  Desmarais (2017): B networks simulated from the MPLE, the MPLE refitted on
  each, cov = sample covariance of the refits (refits that do not exist are
  skipped and counted in ``info["bootstrap"]["n_failed"]``); ``n_jobs`` runs the refits
  in parallel, with the same numbers.

Both (for the binary and the count family alike:
:mod:`ergmfit.estimation.mple.simulated`) simulate with the model's
Metropolis-Hastings sampler (tie/no-tie proposals) started at the observed
network: ``burnin`` = 16,384 proposals,
then one network every ``interval`` = 1,024 proposals (statnet's default
MCMC.burnin = 16 x MCMC.interval), ``n_sim`` = 500 networks (statnet's
``MPLE.covariance.samplesize``).  Raise ``interval`` for large networks.
``random_state`` makes the result reproducible.  With offset terms the
chain runs at every coefficient (the offsets' values put back) and each
simulated network's design loses its offset columns as the observed one did;
both are refused for a curved model whose decay is estimated (``fixed=FALSE``).
"""
from __future__ import annotations

import copy
import math
import time
import warnings
from dataclasses import dataclass, field, replace
from functools import partial, singledispatch

import sys

import numpy as np
from scipy import linalg, special

from ...exceptions import ConvergenceWarning, DegenerateModelError, SettingsError
from ...families import BinaryFamily, CountFamily
from ...results import NAIVE_SE_WARNING, ERGMResults
from ...sampling.space import AllVarsExcept, design_members, sample_space_of
from ...terms.parameterisation import model_parameterisation
from ...terms.targets import target_of
from ...utils.setops import intersect_sorted
from ...utils.validation import check_random_state, seed_words
from ..base import Estimator, Setting, choice, integer, n_jobs_setting, number
from ._mple import build_design, count_on
from .bootstrap import refit_params
from .simulated import bootstrap, godambe
from .count import fit_count_mple
from .separation import (_names, _separation_direction, _term_map, separation_error,
                         separation_message)
from ..common.nobs import fit_nobs
from ..common.restricted import (case_control_vars, compressed_rows, offset_design,
                                 target_design, target_network)

__all__ = ["MPLE", "fit_pseudolikelihood", "pseudo_design", "Design", "LogitFit",
           "DEFAULT_MAX_DYADS"]

DEFAULT_MAX_DYADS = 2 ** 26
DEFAULT_N_SIM = 500
DEFAULT_BURNIN = 16384
DEFAULT_INTERVAL = 1024
ETA_EXTREME = 30.0
_COV_KINDS = ("naive", "invhess", "godambe", "bootstrap")


# ---------------------------------------------------------------------------
# Design
# ---------------------------------------------------------------------------
@dataclass
class Design:
    """The compressed (possibly sampled) design of a pseudo-likelihood.

    ``X[r]`` is a distinct row of change statistics, ``n[r]`` its weight
    (number of variables it stands for) and ``s[r]`` the weight of those
    equal to 1.
    """
    X: np.ndarray
    n: np.ndarray
    s: np.ndarray
    n_vars: int
    n_on: int
    sampled: bool = False
    n_sampled: int = 0
    sample_size: int = None   # the setting that produced it (None: every variable)
    offset: np.ndarray = None  # fixed part of each row's linear predictor (offset terms)
    target: np.ndarray = None  # X's replaced by these (target statistics), or None
    forced: np.ndarray = None  # statistics of the variables an infinite offset sets to 1
    vars: np.ndarray = None    # the variables it ranges over (a sample space's; None: all)
    # the sampled non-ties still in the design when an infinite offset decided some of them
    # (None: all n_sampled); n_sampled stays the sample size a simulated design draws
    n_sampled_kept: int = None

    @property
    def n_rows(self) -> int:
        return len(self.n)

    def _eta(self, theta):
        eta = self.X @ np.asarray(theta, dtype=float)
        return eta if self.offset is None else eta + self.offset

    def loglik(self, theta) -> float:
        eta = self._eta(theta)
        lin = self.s @ eta if self.target is None else self.target @ np.asarray(theta, float)
        return float(lin - self.n @ np.logaddexp(0.0, eta))

    def score(self, theta) -> np.ndarray:
        mu = special.expit(self._eta(theta))
        if self.target is not None:
            return self.target - self.X.T @ (self.n * mu)
        return self.X.T @ (self.s - self.n * mu)

    def hessian(self, theta) -> np.ndarray:
        """Minus the second derivative of the log-pseudo-likelihood."""
        mu = special.expit(self._eta(theta))
        w = self.n * mu * (1.0 - mu)
        return self.X.T @ (w[:, None] * self.X)


def _sample_setting(n_vars, n_on, sample_size, max_vars):
    """-1 for every variable, else the number of zeros to sample."""
    n_zero = n_vars - n_on
    if sample_size is None:
        if n_vars <= max_vars:
            return -1
        sample_size = max(100_000, 8 * n_on)
    sample_size = int(sample_size)
    if sample_size < 1:
        raise ValueError(f"sample_size must be a positive number of non-tie dyads, got {sample_size}")
    if 2 * sample_size >= n_zero:
        return -1            # more than half of the zeros: take them all
    return sample_size


def pseudo_design(bm, sample_size=None, max_vars=DEFAULT_MAX_DYADS, random_state=None,
                  vars_=None) -> Design:
    """The pseudo-likelihood design of a compiled model at its current state.

    Parameters
    ----------
    bm : BinaryModel
        e.g. ``ERGM(...).compiled()``.
    sample_size : int, optional
        Number of variables equal to 0 (non-ties) in a case-control sample;
        all variables equal to 1 are always used.  Default: every variable
        if there are at most ``max_vars``, otherwise max(100,000, 8 x #ones).
    random_state : int, Generator or None
        Used only when sampling. None: a fixed sample (seed 0), so that a pseudo-likelihood
        fit without one -- e.g. another estimator's start -- gives the same result every run.
    vars_ : sorted int array, optional
        The variables of the design (a sample space's free, observed dyads:
        :meth:`~ergmfit.sampling.space.SampleSpace.design_vars`, e.g. the dyads between
        the modes of a two-mode network); None: every variable.  A case-control
        sample then draws its zeros from these only.

    Examples
    --------
    >>> import networkx as nx
    >>> import ergmfit as ef
    >>> g = nx.Graph(); g.add_nodes_from(range(3), bipartite=0)
    >>> g.add_nodes_from(range(3, 8), bipartite=1); g.add_edges_from([(0, 3), (1, 4)])
    >>> m = ef.ERGM(g, "edges")
    >>> d = pseudo_design(m.compiled(), vars_=m.sample_space.design_vars())
    >>> d.n_vars, d.n_on, d.n.tolist()              # the 15 dyads between the modes
    (15, 2, [15.0])
    """
    if vars_ is not None:
        return _space_design(bm, vars_, sample_size, max_vars, random_state)
    n_vars, n_on = int(bm.n_vars), count_on(bm)
    size = _sample_setting(n_vars, n_on, sample_size, max_vars)
    if size < 0:
        d = build_design(bm, -1)
    else:
        d = build_design(bm, size, seed_words(0 if random_state is None else random_state))
    return Design(d["X"], d["n"], d["s"], d["n_vars"], d["n_on"], d["sampled"], d["n_sampled"],
                  sample_size)


def _space_design(bm, vars_, sample_size, max_vars, random_state):
    """:func:`pseudo_design` over the variables ``vars_`` (sorted): every one of them, or
    (sample_size, or more than max_vars of them) every tie among them and a uniform
    sample of their non-ties, weighted #non-ties / sample size."""
    if not isinstance(vars_, AllVarsExcept):    # (every dyad but a few: never listed)
        vars_ = np.asarray(vars_, dtype=np.int64)
    on = np.asarray(bm.on_vars(), dtype=np.int64)
    ones = np.sort(on[design_members(on, vars_)])
    size = _sample_setting(len(vars_), len(ones), sample_size, max_vars)
    if size < 0:
        return replace(restricted_design(bm, np.asarray(vars_, dtype=np.int64)),
                       sample_size=sample_size)
    rng = check_random_state(0 if random_state is None else random_state)
    picked, weights = case_control_vars(ones, len(vars_), vars_, size, rng)
    X, n, s, _, n_on = compressed_rows(bm, picked, weights)
    return Design(X, n, s, len(vars_), n_on, True, size, sample_size, vars=vars_)


# ---------------------------------------------------------------------------
# Weighted logistic regression
# ---------------------------------------------------------------------------
@dataclass
class LogitFit:
    """A pseudo-likelihood fit on a design (all on the original scale)."""
    params: np.ndarray
    cov: np.ndarray            # inverse pseudo-Hessian (NaN rows for fixed +-Inf)
    hessian: np.ndarray
    loglik: float
    n_iter: int
    converged: bool
    fixed: np.ndarray = field(default=None)   # True where the coefficient is +-Inf
    messages: list = field(default_factory=list)


def _solve_psd(A, b):
    try:
        c = linalg.cho_factor(A, check_finite=False)
        return linalg.cho_solve(c, b, check_finite=False)
    except (linalg.LinAlgError, ValueError):
        return np.linalg.lstsq(A, b, rcond=None)[0]


def inv_psd(A):
    try:
        c = linalg.cho_factor(A, check_finite=False)
        return linalg.cho_solve(c, np.eye(len(A)), check_finite=False)
    except (linalg.LinAlgError, ValueError):
        return np.linalg.pinv(A, hermitian=True)


def _check_variation(Z, n, labels, term_of, where):
    name = _names(labels, term_of)
    p = Z.shape[1]
    zero = [k for k in range(p) if not np.any(Z[:, k] != 0)]
    if zero:
        names = ", ".join(name(k) for k in zero)
        raise DegenerateModelError(
            f"the change statistic of {names} is 0 for every {where}: the statistic has no "
            "variation, carries no information and its coefficient cannot be estimated "
            "(statnet: 'MPLE covariate(s) have no variation'). Remove it from the formula"
            + (" or enlarge sample_size." if "sampled" in where else "."))
    if p == 0:
        return
    G = Z.T @ (n[:, None] * Z)
    d = np.sqrt(np.diag(G))
    C = G / np.outer(d, d)
    ev, V = np.linalg.eigh(C)
    if ev[0] < 1e-10 * max(ev[-1], 1e-300):
        v = V[:, 0]
        involved = [k for k in range(p) if abs(v[k]) > 1e-3 * np.abs(v).max()]
        names = ", ".join(name(k) for k in involved)
        raise DegenerateModelError(
            f"the change statistics of {names} are linearly dependent over every {where} "
            "(collinear: one is a combination of the others), so their coefficients are not "
            "identifiable; remove one of them from the formula.")


def _newton(Z, n, s, maxiter, tol, off=None, tz=None):
    """Newton-Raphson with step halving on scaled columns; returns
    (beta, H, loglik, eta, n_iter, converged).  ``off``: a fixed part of
    each row's linear predictor (offsets); ``tz``: Z's replaced by this
    (target statistics: the loglik is then up to a constant)."""
    p = Z.shape[1]
    off = 0.0 if off is None else off

    def ll_of(beta, eta):
        lin = float(s @ (eta + off)) if tz is None else float(tz @ beta)
        return lin - float(n @ np.logaddexp(0.0, eta + off))

    def score(mu):
        return Z.T @ (s - n * mu) if tz is None else tz - Z.T @ (n * mu)

    beta = np.zeros(p)
    if tz is None:
        # start as glm does: one weighted least-squares step from mu = (y + 0.5) / (n + 1)
        mu = (s + 0.5) / (n + 1.0)
        eta0 = np.log(mu) - np.log1p(-mu)
        w = n * mu * (1.0 - mu)
        zres = eta0 + (s - n * mu) / w - off
        beta = _solve_psd(Z.T @ (w[:, None] * Z), Z.T @ (w * zres))
        if not np.all(np.isfinite(beta)):
            beta = np.zeros(p)
    eta = Z @ beta
    ll = ll_of(beta, eta)
    if not math.isfinite(ll):
        beta = np.zeros(p)
        eta = Z @ beta
        ll = ll_of(beta, eta)
    converged = False
    it = 0
    for it in range(1, maxiter + 1):
        mu = special.expit(eta + off)
        g = score(mu)
        H = Z.T @ ((n * mu * (1.0 - mu))[:, None] * Z)
        step = _solve_psd(H, g)
        dec = float(g @ step)
        t = 1.0
        while True:
            nb = beta + t * step
            ne = Z @ nb
            nl = ll_of(nb, ne)
            if math.isfinite(nl) and nl >= ll - 1e-13 * (1.0 + abs(ll)):
                break
            t *= 0.5
            if t < 1e-12:
                nb, ne, nl = beta, eta, ll
                break
        beta, eta, ll = nb, ne, nl
        if not (dec > tol * (1.0 + abs(ll))):
            converged = True
            break
    mu = special.expit(eta + off)
    H = Z.T @ ((n * mu * (1.0 - mu))[:, None] * Z)
    return beta, H, ll, eta + off, it, converged


def fit_design(design: Design, labels, term_of=None, separation="error", maxiter=100,
               tol=1e-14, unit="dyad") -> LogitFit:
    """Maximise the (weighted) pseudo-likelihood of a design.

    Raises DegenerateModelError for a statistic without variation, collinear
    statistics, and (with ``separation="error"``) a pseudo-likelihood
    without a maximum, naming the statistics involved.
    """
    if separation not in ("error", "warn"):
        raise ValueError(f"separation must be 'error' or 'warn', got {separation!r}")
    labels = list(labels)
    p = len(labels)
    keep_rows = design.n > 0
    X, n, s = design.X[keep_rows], design.n[keep_rows], design.s[keep_rows]
    off = None if design.offset is None else design.offset[keep_rows]
    target = design.target
    where = f"sampled {unit}" if design.sampled else unit
    name = _names(labels, term_of)
    params = np.zeros(p)
    fixed = np.zeros(p, dtype=bool)
    active = np.arange(p)
    messages = []
    total_iter = 0
    while True:
        Xa = X[:, active]
        scale = np.abs(Xa).max(axis=0) if len(Xa) else np.ones(len(active))
        scale[scale == 0] = 1.0
        Z = Xa / scale
        _check_variation(Z, n, [labels[k] for k in active],
                         {labels[k]: (term_of or {}).get(labels[k]) for k in active}, where)
        tz = None if target is None else target[active] / scale
        beta, H, ll, eta, n_iter, converged = _newton(Z, n, s, maxiter, tol, off, tz)
        total_iter += n_iter
        extreme = bool(np.any(np.abs(eta) > ETA_EXTREME))
        d = (_separation_direction(Z, n, s) if (extreme or not converged) and tz is None
             else None)
        if d is None:
            break
        sup = np.flatnonzero(d)
        glob = active[sup]
        msg = separation_message(d, [labels[k] for k in active], name_of=lambda k: name(active[k]))
        if separation == "error" or len(sup) != 1:
            raise separation_error(msg, single=len(sup) == 1)
        k = glob[0]
        params[k] = math.inf if d[sup[0]] > 0 else -math.inf
        fixed[k] = True
        messages.append(f"Coefficient of {name(k)} fixed at {'+' if params[k] > 0 else '-'}Inf: "
                        f"{msg}")
        warnings.warn(messages[-1], ConvergenceWarning, stacklevel=3)
        rest = np.abs(Z @ d) <= 1e-9
        X, n, s = X[rest], n[rest], s[rest]
        off = None if off is None else off[rest]
        active = np.delete(active, sup)
        if len(active) == 0 or len(n) == 0:
            raise DegenerateModelError(msg + " No dyads are left to estimate the other "
                                       "coefficients from.")
    b = beta / scale
    params[active] = b
    cov = np.full((p, p), np.nan)
    Hinv_z = inv_psd(H)
    cov[np.ix_(active, active)] = Hinv_z / np.outer(scale, scale)
    Hfull = np.full((p, p), np.nan)
    Hfull[np.ix_(active, active)] = H * np.outer(scale, scale)
    if not converged:
        messages.append(f"the pseudo-likelihood maximisation did not converge in {maxiter} "
                        "Newton iterations")
        warnings.warn(messages[-1], ConvergenceWarning, stacklevel=3)
    return LogitFit(params, cov, Hfull, ll, total_iter, converged, fixed, messages)


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------
def _dyad_independent(model) -> bool:
    return bool(getattr(model, "dyad_independent", False))


class MPLE(Estimator):
    """Maximum pseudo-likelihood estimator (see the module docstring).

    ``MPLE(**settings).fit(model)``; ``ERGM.fit(method="mple", **settings)``
    builds it.  ``bootstrap=B`` implies ``cov="bootstrap"``; ``cov="invhess"``
    is statnet's name for ``"naive"``.  ``sample_size`` is the number of
    non-tie dyads in a case-control sample (all ties are always used);
    default: all dyads up to ``max_dyads``, else max(100,000, 8 x ties).
    """

    method = "mple"
    SETTINGS = (
        Setting("cov", "naive", choice(*_COV_KINDS),
                "How the covariance is computed: 'naive', 'godambe' or 'bootstrap'."),
        Setting("bootstrap", None, integer(2, allow_none=True),
                "Number of parametric-bootstrap networks; implies cov='bootstrap'."),
        Setting("n_sim", DEFAULT_N_SIM, integer(2),
                "Networks simulated for cov='godambe' (and the bootstrap without 'bootstrap')."),
        Setting("burnin", DEFAULT_BURNIN, integer(0),
                "Metropolis-Hastings proposals before the first simulated network."),
        Setting("interval", DEFAULT_INTERVAL, integer(1),
                "Proposals between simulated networks."),
        Setting("sample_size", None, integer(1, allow_none=True),
                "Non-ties in a case-control sample (default: all dyads up to max_dyads)."),
        Setting("max_dyads", DEFAULT_MAX_DYADS, integer(1),
                "Largest number of dyads fitted without sampling."),
        Setting("separation", "error", choice("error", "warn"),
                "What a non-existent MPLE does (module docstring)."),
        Setting("n_jobs", 1, n_jobs_setting, "Parallel processes of the bootstrap refits "
                "(joblib; -1: every CPU)."),
        Setting("maxiter", 100, integer(1), "Newton iterations."),
        Setting("tol", 1e-14, number(0, lo_open=True), "Newton decrement tolerance."),
        Setting("proposal", "auto", None, "Proposal of the simulations ('auto', 'tnt', ...)."),
        Setting("init", None, None, "Curved models: starting θ (NaN for 'choose'; statnet's "
                "control.ergm(init=) with NA), or a dict {label: value}."),
    )
    supports = {"curved": True, "constraints": True, "missing": True, "target_stats": True,
                "missing+target_stats": True, "families": frozenset({"binary", "count"}),
                "infinite_estimates": True}
    #: the binary MPLE folds offset columns into its design (offset_design)
    folds_offsets = True

    def _finish_settings(self):
        if self.bootstrap is not None:
            self.cov = "bootstrap"
        if self.cov == "invhess":
            self.cov = "naive"

    # -- helpers -----------------------------------------------------------
    def _design(self, bm, rng, vars_=None):
        # without a random_state the case-control sample is pseudo_design's fixed one
        return pseudo_design(bm, self.sample_size, self.max_dyads,
                             None if self.random_state is None else rng, vars_)

    def fit(self, model) -> ERGMResults:
        """Fit ``model`` (an :class:`~ergmfit.ERGM`, or anything with
        ``labels``, ``family`` and ``compiled()``; simulation-based covariances also need
        ``sampler(params, proposal=, random_state=)``).  The pseudo-likelihood is
        the model family's (:func:`family_pseudo_likelihood`)."""
        return family_pseudo_likelihood(model.family, self, model)

    def _fit_binary(self, model) -> ERGMResults:
        """The MPLE of a binary ERGM: the logistic regression of each free dyad's tie on
        its change statistics (curved maps, offsets, targets and missing dyads included)."""
        t0 = time.perf_counter()
        rng = check_random_state(self.random_state)
        labels = list(model.labels)
        term_of = _term_map(model)
        target = target_of(model)
        if target.needs_network_search(_dyad_independent(model)):
            bm = model.compiled(target_network(model, target.statistics, rng))
        elif (sample_space_of(model).conditional() is not None
              and not _dyad_independent(model)):
            # the completion is random: random_state drives it (default a fixed one, so
            # that an MPLE without random_state -- e.g. another estimator's start -- is
            # reproducible)
            bm = model.compiled(impute_missing(
                model, rng if self.random_state is not None else 0))
        else:
            bm = model.compiled()
        space = getattr(model, "sample_space", None)
        dvars = space.design_set() if space is not None else None
        # the free, observed dyads only (statnet, too, ignores dyad-dependent
        # constraints -- bd, degrees, edges -- in the MPLE)
        design = None
        n_design = bm.n_vars if dvars is None else len(dvars)
        if self.sample_size is None and n_design > self.max_dyads and _dyad_independent(model):
            # too many dyads to visit: exact by attribute cells where the terms and the
            # space allow it (every dyad, or every dyad between the modes)
            from .cells import cell_design
            cells = cell_design(model)
            design = None if cells is None else Design(*cells, vars=dvars)
        if design is None:
            design = self._design(bm, rng, dvars)
        labels_model = list(labels)
        if not model_parameterisation(model).fixed_by_columns:
            def fold(d):
                return _curved_offset_design(model.parameterisation, d), labels_model, None
        else:
            def fold(d):
                return offset_design(model, d, labels_model)
        # (a simulated network's design is folded as the observed one: fold)
        design, labels_all, restore = fold(design)
        if restore is not None:
            labels = labels_all
        if self.verbose:
            print(f"MPLE: {design.n_vars:,} dyads -> {design.n_rows:,} distinct rows"
                  + (f" (case-control sample of {design.n_sampled:,} non-ties)"
                     if design.sampled else ""), file=sys.stderr)
        if target.solves_at_targets(_dyad_independent(model)):
            design = target_design(model, design, target.statistics, restore)
        if not model_parameterisation(model).affine:
            lf = _fit_curved(model, design, labels, term_of, self)
        else:
            lf = fit_design(design, labels, term_of, self.separation, self.maxiter, self.tol)
        dyad_indep = _dyad_independent(model)
        warn = list(lf.messages)
        info = {"design": _design_info(design)}
        if getattr(lf, "start", None) is not None:
            info["curved_start"] = [float(v) for v in lf.start]
        cov = lf.cov
        se_kind = "naive"
        if self.cov in ("godambe", "bootstrap"):
            if not model_parameterisation(model).affine:
                # (the simulated designs' scores and refits would be the linear ones)
                raise SettingsError(f"cov={self.cov!r} is not implemented for a curved model "
                                    "whose decay is estimated (fixed=FALSE); use cov='naive' "
                                    "or fix the decay")
            if lf.fixed.any():
                raise DegenerateModelError(
                    "simulation-based standard errors need finite estimates, but "
                    + ", ".join(repr(labels[k]) for k in np.flatnonzero(lf.fixed))
                    + " were fixed at +/-Inf; remove those terms")
            # the model's θ (the offsets this fit folded into the design put back) is what
            # its sampler takes; the simulated designs are folded as the observed one
            theta = lf.params if restore is None else \
                restore(copy.copy(lf), lf.cov)[0].params
            def sim_design(bm):
                return fold(_sim_design(bm, design, self, rng))[0]

            if self.cov == "godambe":
                # (the compressed design is quicker than a per-dyad score: one exp per row)
                cov, info["godambe"] = godambe(model, theta, lf.cov,
                                               lambda bm: sim_design(bm).score(lf.params),
                                               self, rng)
            else:
                cov, info["bootstrap"] = bootstrap(
                    model, theta, lambda bm: (sim_design(bm),),
                    partial(_refit_design, labels, term_of, self.maxiter, self.tol), self, rng)
            se_kind = self.cov
        if not dyad_indep and se_kind == "naive":
            warn.append(NAIVE_SE_WARNING)
        if design.sampled:
            kept = design.n_sampled if design.n_sampled_kept is None else design.n_sampled_kept
            # (the rows' non-tie weight over the sampled non-ties they hold: the sample's
            # weight, where n_vars - n_on is rounded to the nearest dyad after an offset)
            w0 = float(np.sum(design.n - design.s)) / max(kept, 1)
            warn.append(f"Note: the pseudo-likelihood was computed from a case-control sample of "
                        f"dyads: all {design.n_on} ties and {kept} of the "
                        f"{design.n_vars - design.n_on} non-ties (weight {w0:.6g} each); "
                        "the deviances are estimates.")
        net = getattr(model, "network", None)
        if restore is not None:
            lf, cov, labels = restore(lf, cov)
        return ERGMResults(
            lf.params, cov, labels, method="mple", loglik=lf.loglik,
            loglik_kind="exact" if dyad_indep else "pseudo", **fit_nobs(model),
            converged=lf.converged, n_iter=lf.n_iter, seconds=time.perf_counter() - t0,
            se_kind=se_kind, warnings=warn, info=info,
            formula=getattr(model, "formula", None),
            network=net,
            model=model, dyad_independent=dyad_indep)


@singledispatch
def family_pseudo_likelihood(family, estimator, model) -> ERGMResults:
    """``estimator.fit(model)`` (an :class:`MPLE`) with the pseudo-likelihood of the model's
    family: each family registers its own (``family_pseudo_likelihood.register``), the
    estimator has one call.  Binary ties: the logistic regression of a tie on its change
    statistics; count-valued dyads (:mod:`.count`): the full conditional of a dyad's count
    over the reference measure's support."""
    raise SettingsError(f"the MPLE has no pseudo-likelihood for the {family.name!r} family")


@family_pseudo_likelihood.register(BinaryFamily)
def _binary_pseudo_likelihood(family, estimator, model):
    return estimator._fit_binary(model)


@family_pseudo_likelihood.register(CountFamily)
def _count_pseudo_likelihood(family, estimator, model):
    return fit_count_mple(estimator, model)


def impute_missing(model, random_state=None):
    """The observed ties plus a random completion of the missing dyads, as
    statnet completes them before its MPLE (and its MCMC-MLE chains): of the
    free missing dyads, round(d × their number) chosen uniformly at random
    become ties, d being the density of the free, observed dyads.  Returns
    the (m, 2) tie array.

    The MPLE of a dyad-dependent model uses the completed network for the
    change statistics of the observed dyads (the missing dyads themselves
    stay out of the design); a dyad-independent model's MPLE does not
    depend on it.  statnet's completion uses R's random numbers, so its MPLE
    differs from ours by the spread of this imputation (see the tests)."""
    from ...sampling.space import dyad_vars, var_pairs
    space = model.sample_space
    net = model.network
    rng = check_random_state(random_state)
    informative = space.design_set()
    free = space.free_vars()
    missing = space.missing if free is None else intersect_sorted(free, space.missing)
    ties = np.asarray(net.ties, dtype=np.int64).reshape(-1, 2)
    n_inf = net.n_dyads if informative is None else len(informative)   # (None: none missing)
    tie_vars = dyad_vars(net.n, net.directed, ties) if len(ties) else np.zeros(0, np.int64)
    on = int(np.count_nonzero(design_members(tie_vars, informative)))
    d = on / n_inf if n_inf else 0.0
    k = int(np.round(d * len(missing)))            # round half to even, as R's round()
    if k == 0 or len(missing) == 0:
        return ties
    chosen = rng.choice(np.asarray(missing, dtype=np.int64), size=k, replace=False)
    return np.concatenate([ties, var_pairs(net.n, net.directed, np.sort(chosen))])


def _curved_offset_design(par, design: Design) -> Design:
    """The design of the free coefficients of a curved model with offsets.
    With every decay fixed, η(θ) = A θ + c (:meth:`OffsetParameterisation.affine_parts`):
    a logistic regression on the columns X A with the fixed part X c -- the
    same fit as the fixed-decay model's.  With a decay free, the design keeps
    the canonical statistics (the curved pseudo-likelihood applies η(θ),
    offsets included)."""
    if not np.all(np.isfinite(par.fixed_coefficients()[1])):
        from ...exceptions import FormulaError
        raise FormulaError("an infinite offset in a curved model is not implemented")
    if not par.affine:
        return design
    A, c = par.affine_parts()
    return replace(design, X=design.X @ A, offset=design.X @ c)


def _fit_curved(model, design: Design, labels, term_of, est) -> LogitFit:
    """The curved pseudo-likelihood, maximised in θ through the model's parameterisation
    (see :mod:`ergmfit.terms.parameter_steps`)."""
    par = model.parameterisation
    init = curved_init(est.init, labels)

    def fit_linear(A, c=None, cols=None):
        sub = Design(design.X @ A, design.n, design.s, design.n_vars, design.n_on,
                     offset=None if c is None else design.X @ c)
        names = [labels[k] for k in cols]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            f = fit_design(sub, names, term_of, "error", est.maxiter, est.tol)
        return f.params, f.loglik

    from ...terms.parameterisation import declared_decays
    from ...terms.registry import curved_terms
    decays = [d for _, d in declared_decays(par, curved_terms(model.terms))]
    theta0 = par.start_values(fit_linear, decays, init)
    theta, ll, H, n_iter, converged = par.maximize_pseudolikelihood(design, theta0,
                                                                    maxiter=est.maxiter)
    cov = inv_psd(H) if np.all(np.isfinite(H)) else np.full_like(H, np.nan)
    messages = par.decay_messages(theta)
    for msg in messages:
        if not msg.startswith("Note"):
            warnings.warn(msg, ConvergenceWarning, stacklevel=4)
    if not converged and not any(not m.startswith("Note") for m in messages):
        messages.append(f"the curved pseudo-likelihood maximisation did not converge in "
                        f"{est.maxiter} iterations")
        warnings.warn(messages[-1], ConvergenceWarning, stacklevel=4)
    lf = LogitFit(theta, cov, H, ll, n_iter, converged, np.zeros(len(theta), dtype=bool),
                  messages)
    lf.start = theta0          # the fixed-decay start (MCMC-MLE falls back on it)
    return lf


def curved_init(init, labels):
    """``init`` as a full θ with NaN where the estimator chooses (or None)."""
    if init is None:
        return None
    if isinstance(init, dict):
        unknown = [k for k in init if k not in labels]
        if unknown:
            raise SettingsError(f"init: unknown label(s) {unknown}; the labels are {labels}")
        return np.array([float(init.get(lab, np.nan)) for lab in labels])
    arr = np.asarray(init, dtype=float).ravel()
    if arr.size != len(labels):
        raise SettingsError(f"init must have {len(labels)} value(s) ({', '.join(labels)}), "
                            f"got {arr.size}")
    return arr


def restricted_design(bm, vars_) -> Design:
    """The design of the variables ``vars_`` only (the free, observed dyads of
    a constrained or partly observed network), rows compressed."""
    vars_ = np.asarray(vars_, dtype=np.int64)
    return Design(*compressed_rows(bm, vars_), vars=vars_)


def _design_info(design: Design) -> dict:
    return {"n_vars": design.n_vars, "n_on": design.n_on, "unique_rows": design.n_rows,
            "sampled": design.sampled, "n_sampled": design.n_sampled}


def _sim_design(bm, design: Design, est: MPLE, rng) -> Design:
    """The design of a simulated state, built as the observed one was (over the same
    variables: a sample space's design dyads stay its design dyads)."""
    if design.vars is not None:
        return pseudo_design(bm, design.n_sampled if design.sampled else None,
                             math.inf, rng, design.vars)
    if design.sampled:
        d = build_design(bm, design.n_sampled, seed_words(rng))
        return Design(d["X"], d["n"], d["s"], d["n_vars"], d["n_on"], True, d["n_sampled"])
    d = build_design(bm, -1)
    return Design(d["X"], d["n"], d["s"], d["n_vars"], d["n_on"])


def _refit_design(labels, term_of, maxiter, tol, design: Design):
    """One bootstrap refit: the MPLE's parameters on a simulated network's ``design`` (None
    when it does not exist or does not converge)."""
    return refit_params(lambda d: fit_design(d, labels, term_of, "error", maxiter, tol), design)


def fit_pseudolikelihood(bm, labels=None, sample_size=None, max_vars=DEFAULT_MAX_DYADS,
                         random_state=None, separation="error", maxiter=100,
                         tol=1e-14) -> LogitFit:
    """Maximum pseudo-likelihood on any compiled BinaryModel (e.g. an MRF).

    Returns a :class:`LogitFit` (params, inverse pseudo-Hessian, loglik, ...).
    """
    labels = list(labels) if labels is not None else [f"theta{k}" for k in range(bm.n_stats)]
    design = pseudo_design(bm, sample_size, max_vars, random_state)
    return fit_design(design, labels, None, separation, maxiter, tol, unit="variable")
