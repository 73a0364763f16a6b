"""btergm's estimator (btergm 1.10.12's meaning): the pooled maximum pseudo-likelihood
estimate over the modelled waves of a panel, with percentile bootstrap confidence intervals
from resampling the time steps.

1. The point estimate is the MPLE of the block-diagonal network of the waves (each wave's
   change statistics in its own block: the pooled logistic regression btergm fits).
2. Each of ``R`` replicates draws T time steps with replacement out of the T modelled
   ones and refits the pooled logistic regression on the chosen waves' rows (a wave drawn
   k times counts k times).  The per-wave designs (distinct rows of change statistics with
   their weights) are built once and pooled into one table of the rows distinct over all
   waves with a weight per wave (:class:`PooledRows`); a replicate only sums weights (two
   matrix-vector products) and runs Newton's method on those rows, once per distinct
   multiset of waves (a replicate depends on nothing else).
3. A replicate whose coefficients do not all exist (a statistic without variation in the
   drawn waves, e.g. a time covariate when one wave is drawn T times) is dropped, as btergm's
   ``glm`` gives NA there; ``n_boot_complete`` counts the others.
4. Offset terms (``offset(term)``, ``fit(..., offset_coef=[...])``: statnet's fixed
   coefficients) are held at their values in the pooled MPLE and in every replicate: their
   columns leave each wave's design for a fixed part of its rows' linear predictor (the
   MPLE's :func:`~ergmfit.estimation.common.restricted.offset_design`; an infinite offset's
   dyads leave the design), so each logistic regression has that part as its offset.  The
   results list them as ``offset(term)`` at the fixed value, standard error 0, interval
   the fixed value.  (btergm's own ``offset=TRUE`` argument is something else: structural
   zeros for the nodes absent from a time step.)
5. The interval is boot's percentile interval (``boot.ci(type="perc")``): the order
   statistic (R+1)·α of the complete replicates, interpolated on the normal quantile scale
   between neighbouring order statistics (boot's ``norm.inter``).

The replicates' time steps are all drawn first from ``random_state``, so the result does not
depend on ``n_jobs``; the distinct multisets are fitted in ``n_jobs`` joblib processes
(``backend="dask"`` for a dask cluster) in chunks of ``chunk``.

References
----------
Leifeld, P., Cranmer, S. J. and Desmarais, B. A. (2018). Temporal exponential random graph
models with btergm: estimation and bootstrap confidence intervals. *Journal of Statistical
Software* 83(6).
Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their Application*,
section 5.2 (the percentile interval and its interpolation).
"""
from __future__ import annotations

import time

import numpy as np
from scipy import special

from ...exceptions import DegenerateModelError, SettingsError
from ...labeled import LabeledArray, make_unique
from ...rformat import percent_label
from ...results import ERGMResults, Summary
from ...runtime import catch_interrupt
from ...runtime.parallel import run_jobs
from ...sampling.space import var_pairs
from ...terms.offsets import model_offsets
from ...utils.validation import check_random_state, format_bytes, machine_memory
from ..base import Estimator, Setting, choice, integer, number
from ..common.nobs import fit_nobs
from ..common.restricted import offset_design
from ..mple.pseudolikelihood import MPLE, Design, fit_design, restricted_design


def percentile_interval(draws, alpha):
    """boot's percentile limit at level ``alpha`` of the replicate values ``draws`` (one
    coefficient): the order statistic (R+1)·alpha, interpolated on the normal quantile scale
    when (R+1)·alpha is not a whole number (boot's ``norm.inter``); the extreme order
    statistic when it falls outside 1..R.

    >>> round(percentile_interval(np.arange(1.0, 200.0), 0.025), 6)
    5.0
    """
    t = np.sort(np.asarray(draws, dtype=float))
    r = len(t)
    if r == 0:
        return np.nan
    rk = (r + 1) * alpha
    k = int(np.floor(rk + 1e-10))
    if abs(rk - round(rk)) < 1e-10 and 1 <= round(rk) <= r:
        return float(t[int(round(rk)) - 1])
    if k <= 0:
        return float(t[0])
    if k >= r:
        return float(t[-1])
    q = special.ndtri([alpha, k / (r + 1), (k + 1) / (r + 1)])
    return float(t[k - 1] + (q[0] - q[1]) / (q[2] - q[1]) * (t[k] - t[k - 1]))


class PooledRows:
    """The per-wave designs of a panel as one table: the distinct rows ``X`` (U x p) of
    change statistics over all waves, and each row's weight ``n`` and weight of ties ``s``
    in each wave (U x T).  A replicate that drew wave t c_t times is the design with
    weights ``n @ c`` and ``s @ c`` on the same U rows: its set-up is two matrix-vector
    products, and its Newton iterations run over U rows (a wave's rows recur in the other
    waves: far fewer than the drawn waves' rows together).

    Examples
    --------
    >>> import numpy as np
    >>> from ergmfit.estimation.mple.pseudolikelihood import Design
    >>> w1 = Design(np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([3.0, 1.0]),
    ...             np.array([1.0, 1.0]), 4, 2)
    >>> w2 = Design(np.array([[1.0, 0.0]]), np.array([4.0]), np.array([2.0]), 4, 2)
    >>> rows = PooledRows([w1, w2])
    >>> d = rows.design([2, 1])                       # wave 1 drawn twice, wave 2 once
    >>> d.X.tolist(), d.n.tolist(), d.s.tolist(), d.n_vars, d.n_on
    ([[1.0, 0.0], [1.0, 1.0]], [10.0, 2.0], [4.0, 2.0], 12, 6)
    """

    def __init__(self, designs):
        T = len(designs)
        X = np.concatenate([d.X for d in designs])
        #: each row's fixed part of the linear predictor (offset terms folded into the
        #: designs by offset_design), or None: rows are distinct in (X, offset)
        self.offset = None
        if designs[0].offset is None:
            self.X, row = np.unique(X, axis=0, return_inverse=True)
        else:
            key = np.column_stack([X, np.concatenate([d.offset for d in designs])])
            key, row = np.unique(key, axis=0, return_inverse=True)
            self.X, self.offset = np.ascontiguousarray(key[:, :-1]), key[:, -1].copy()
        row = np.asarray(row).reshape(-1)
        wave = np.repeat(np.arange(T), [d.n_rows for d in designs])
        self.n = np.zeros((len(self.X), T))
        self.s = np.zeros((len(self.X), T))
        np.add.at(self.n, (row, wave), np.concatenate([d.n for d in designs]))
        np.add.at(self.s, (row, wave), np.concatenate([d.s for d in designs]))
        self.n_vars = np.array([d.n_vars for d in designs], dtype=np.int64)
        self.n_on = np.array([d.n_on for d in designs], dtype=np.int64)

    def design(self, counts) -> Design:
        """The pooled design of the waves drawn ``counts[t]`` times each."""
        c = np.asarray(counts, dtype=np.int64)
        return Design(self.X, self.n @ c, self.s @ c, int(self.n_vars @ c),
                      int(self.n_on @ c), offset=self.offset)


def _replicate_fits(rows, multiplicities, labels, control=None):
    """Coefficients of the pooled logistic regression of each row of ``multiplicities``
    (how often each wave of the :class:`PooledRows` ``rows`` was drawn), NaN rows where a
    coefficient does not exist; and how many rows were fitted (fewer after a Ctrl-C: the
    rows before it)."""
    out = np.full((len(multiplicities), len(labels)), np.nan)
    done = 0
    with catch_interrupt():                  # here (n_jobs=1): the rows fitted so far
        for r, counts in enumerate(multiplicities):
            if control is not None and control.stop_requested():     # Ctrl-C in the parent
                break
            try:
                lf = fit_design(rows.design(counts), labels, separation="warn")
            except DegenerateModelError:
                lf = None
            if lf is not None and np.all(np.isfinite(lf.params)) and not np.any(lf.fixed):
                out[r] = lf.params
            done = r + 1
    return out, done


def _distinct_multisets(picks, T):
    """The distinct rows of how often each of the T waves was drawn in each replicate (a
    row of ``picks``), in the order of their first draw; each one's first replicate; and
    each replicate's multiset (its row)."""
    if T <= 15:            # a multiset as one integer: sum of (T + 1)^wave over its draws
        powers = (T + 1) ** np.arange(T, dtype=np.int64)
        keys, first, which = np.unique(powers[picks].sum(axis=1), return_index=True,
                                       return_inverse=True)
        distinct = keys[:, None] // powers % (T + 1)
    else:
        counts = np.stack([(picks == t).sum(axis=1) for t in range(T)], axis=1)
        distinct, first, which = np.unique(counts, axis=0, return_index=True,
                                           return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return (distinct[order].astype(np.int64), first[order],
            rank[np.asarray(which).reshape(-1)])


def _with_offsets(fits, mask, coef):
    """The replicates' coefficients ``fits`` (over the free coefficients, NaN rows for the
    dropped ones) as rows over every coefficient: the offsets (``mask``) at their fixed
    values ``coef`` (NaN in a dropped row).

    >>> _with_offsets(np.array([[1.0], [np.nan]]), np.array([True, False]), np.array([0.5]))
    array([[0.5, 1. ],
           [nan, nan]])
    """
    if not mask.any():
        return fits
    full = np.full((len(fits), len(mask)), np.nan)
    full[:, ~mask] = fits
    kept = np.all(np.isfinite(fits), axis=1)
    full[np.ix_(kept, mask)] = coef
    return full


def btergm_label(label: str) -> str:
    """btergm's name of a coefficient: its formula turns every edgecov covariate into a
    list per wave (``edgecov.primary[[i]]``), inside ``offset(...)`` too.

    >>> btergm_label("edgecov.primary"), btergm_label("offset(edgecov.primary)")
    ('edgecov.primary[[i]]', 'offset(edgecov.primary[[i]])')
    """
    if label.startswith("offset(") and label.endswith(")"):
        return f"offset({btergm_label(label[len('offset('):-1])})"
    return f"{label}[[i]]" if label.startswith("edgecov.") and not label.endswith("[[i]]") \
        else label


#: the most bootstrap replicates (btergm's default is 500): their set-up stays well under
#: a second, so that a Ctrl-C is honoured at once
MAX_REPLICATES = 10 ** 6


class BTERGMSummary(Summary):
    """The pooled MPLE's table followed by btergm's bootstrap table."""

    def __str__(self) -> str:
        return super().__str__() + "\n" + self.results.btergm_table() + "\n"


class BTERGMResults(ERGMResults):
    """Results of :class:`BTERGM`: the pooled MPLE (``params``; ``bse`` its naive
    pseudo-likelihood standard errors, which btergm does not report) and the bootstrap:
    ``boot`` (R x p replicate coefficients, NaN rows for dropped replicates),
    ``n_boot_complete``, and :meth:`conf_int` giving btergm's percentile intervals."""

    def summary(self) -> BTERGMSummary:
        """The pooled MPLE's table and btergm's table of percentile intervals."""
        return BTERGMSummary(self)

    def conf_int(self, alpha: float = 0.05) -> LabeledArray:
        """btergm's percentile bootstrap intervals (``confint(fit)``) as a (p, 2) array;
        an offset's interval is its fixed value (every replicate holds it there)."""
        good = self.boot[self._complete()]
        fixed = self.offset_mask
        b = np.asarray(self.params, dtype=float)
        lo = [b[k] if fixed[k] else percentile_interval(good[:, k], alpha / 2.0)
              for k in range(good.shape[1])]
        hi = [b[k] if fixed[k] else percentile_interval(good[:, k], 1.0 - alpha / 2.0)
              for k in range(good.shape[1])]
        cols = [percent_label(alpha / 2.0), percent_label(1.0 - alpha / 2.0)]
        return LabeledArray(np.column_stack([lo, hi]), self.labels, columns=cols)

    def gof(self, n_sim=100, random_state=None, target=None, series=None, **kwargs):
        """btergm's ``gof(fit, target=..., nsim=...)``: per target wave (default every
        fitted one; a wave of ``series`` left out of the fit for an out-of-sample check),
        statnet's gof tables of the wave against networks simulated from the pooled
        coefficients given the wave before, and tie prediction (AUC-ROC, AUC-PR); see
        :func:`ergmfit.temporal.heldout_gof` (``statistics``, ``burnin``, ``interval``,
        ``proposal`` as there)."""
        return self.model.gof_on_waves(self, target=target, series=series, n_sim=n_sim,
                                       random_state=random_state, **kwargs)

    # -- serialisation (a results file keeps the replicates; ERGMResults.load finds the
    # class by its "results_class" field) ----------------------------------------------
    def to_dict(self, include_network: bool = False) -> dict:
        d = super().to_dict(include_network=include_network)
        d["results_class"] = BTERGMResults.saved_name()
        # a dropped replicate's NaN row as nulls (JSON has no NaN)
        d["boot"] = [[float(v) if np.isfinite(v) else None for v in row]
                     for row in np.asarray(self.boot, dtype=float)]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "BTERGMResults":
        res = super().from_dict(d)
        boot = d.get("boot")
        p = len(res.labels)
        res.boot = (np.zeros((0, p)) if boot is None or len(boot) == 0
                    else np.array(boot, dtype=float).reshape(-1, p))     # null -> NaN
        # an infinite offset's column (saved as nulls) back at its fixed value
        fixed = res.offset_mask
        done = res._complete()
        res.boot[np.ix_(done, fixed)] = np.asarray(res.params, dtype=float)[fixed]
        return res

    def _complete(self) -> np.ndarray:
        """Which replicates have every estimated coefficient (an offset may be ±Inf)."""
        free = ~self.offset_mask
        return np.all(np.isfinite(self.boot[:, free]), axis=1)

    @property
    def n_boot_complete(self) -> int:
        return int(self._complete().sum())

    def btergm_table(self, alpha: float = 0.05) -> str:
        """btergm's ``summary()`` table: estimate and percentile interval per coefficient."""
        ci = np.asarray(self.conf_int(alpha))
        w = max(len(lab) for lab in self.labels)
        lines = [f"Bootstrapped TERGM: MPLE with {100 * (1 - alpha):g}% bootstrapped "
                 "confidence intervals (percentile)", "",
                 f"Number of replications: {self.boot.shape[0]}"
                 + (f" ({self.n_boot_complete} complete)"
                    if self.n_boot_complete != self.boot.shape[0] else ""), "",
                 f"{'':{w}}   Estimate  {percent_label(alpha / 2):>9}  "
                 f"{percent_label(1 - alpha / 2):>9}"]
        for lab, b, (lo, hi) in zip(self.labels, self.params, ci):
            lines.append(f"{lab:{w}}  {b:9.6f}  {lo:9.6f}  {hi:9.6f}")
        return "\n".join(lines)


class BTERGM(Estimator):
    """btergm: pooled MPLE over the waves with bootstrap percentile intervals over time
    steps (see the module docstring).  Built by ``TemporalERGM.fit(method="btergm")``.

    Examples
    --------
    >>> import networkx as nx
    >>> import ergmfit as ef
    >>> waves = [nx.gnp_random_graph(12, 0.3, seed=s, directed=True) for s in range(4)]
    >>> fit = ef.ERGM(ef.NetSeries(waves), "edges + memory(type='stability')").fit(
    ...     method="btergm", R=50, random_state=1)
    >>> fit.conf_int().shape
    (2, 2)
    """

    method = "btergm"
    SETTINGS = (
        Setting("R", 1000, integer(1, MAX_REPLICATES), "Bootstrap replicates (btergm's R)."),
        Setting("n_jobs", 1, integer(-1), "joblib processes for the replicates (-1: all)."),
        Setting("backend", None, choice("loky", "threading", "multiprocessing", "dask", allow_none=True),
                "joblib backend (None: the caller's or loky; 'dask' needs a Client)."),
        Setting("chunk", 100, integer(1), "Replicates per parallel job."),
        Setting("level", 0.95, number(0, 1, lo_open=True, hi_open=True),
                "Confidence level of the printed intervals."),
        Setting("random_state", None, None, "Seed of the bootstrap draws."),
    )
    #: missing dyads: a wave's unobserved dyads leave the pooled MPLE's design and each
    #: wave's bootstrap rows (``sample_space.design_vars()``), as btergm drops NA dyads
    supports = {"curved": False, "constraints": True, "missing": True, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary"}),
                "temporal": True}
    #: offset terms: held fixed in the pooled MPLE and every replicate (offset_design)
    folds_offsets = True

    def fit(self, model) -> BTERGMResults:
        t0 = time.perf_counter()
        net = model.network
        if not hasattr(net, "previous_ties"):
            raise SettingsError("method='btergm' fits a panel: give the waves as "
                                "ef.NetSeries([...])")
        if model.parameterisation.fixed_coefficients() is not None:
            # (ERGM._fit hands btergm the model with its offset terms: folds_offsets)
            raise SettingsError("method='btergm' fits the offset() terms of a model itself "
                                "(fit(method='btergm', offset_coef=[...])), not a model whose "
                                "parameterisation holds coefficients fixed (a free-coefficient "
                                "view): its bootstrap replicates would lack those coefficients")
        # offset terms: the pooled MPLE and every replicate hold them at offset_coef, their
        # columns a fixed part of each row's linear predictor (offset_design, as the MPLE)
        point = MPLE(separation="error").fit(model)
        labels = list(model.labels)
        mask, coef = model_offsets(model)
        # the per-wave designs: the free dyads of each block, offset columns folded
        bm = model.compiled()
        dvars = model.sample_space.design_vars()
        if dvars is None:           # every dyad (a single transition: one block)
            dvars = np.arange(net.n_dyads, dtype=np.int64)
        block = var_pairs(net.n, net.directed, dvars)[:, 0] // net.block_size
        waves = [offset_design(model, restricted_design(bm, dvars[block == b]), labels)
                 for b in range(net.n_transitions)]
        free_labels = waves[0][1]
        rows = PooledRows([d for d, _, _ in waves])
        rng = check_random_state(self.random_state)
        T = net.n_transitions
        need = self.R * (24.0 * T + 8.0 * len(labels))   # draws, counts and coefficients
        if need > machine_memory():
            raise SettingsError(f"R = {self.R:,} bootstrap replicates would take "
                                f"{format_bytes(need)}, more than this machine's memory")
        picks = rng.integers(0, T, size=(self.R, T))
        # a replicate depends only on how often each wave was drawn: fit each distinct
        # multiset once (with few waves most replicates repeat one: T = 3 has 10), in the
        # order of their first draw, so that after a Ctrl-C the replicates up to the first
        # unfitted multiset are a bootstrap of their own (the first R' draws)
        distinct, first, which = _distinct_multisets(picks, T)
        jobs = [(rows, distinct[k:k + self.chunk], free_labels)
                for k in range(0, len(distinct), self.chunk)]
        results, interrupted = run_jobs(_replicate_fits, jobs, n_jobs=self.n_jobs,
                                        backend=self.backend,
                                        is_interrupted=lambda res: res[1] < len(res[0]))
        fits = np.vstack([out for out, _ in results]) if results else \
            np.zeros((0, len(free_labels)))
        fits = _with_offsets(fits, mask, coef)
        fitted = np.concatenate([np.arange(len(out)) < done for out, done in results]
                                + [np.zeros(len(distinct) - len(fits), dtype=bool)])
        n_kept = self.R if fitted.all() else int(first[np.argmin(fitted)])
        boot = fits[which[:n_kept]]
        info = dict(point.info)
        if n_kept < self.R:
            info["interrupted"] = True
        info["btergm"] = {"R": n_kept, "n_time_steps": T, "times": list(net.times),
                          "n_boot_complete": int(np.all(np.isfinite(boot[:, ~mask]),
                                                             axis=1).sum()),
                          "level": self.level}
        info["summary_header"] = "Bootstrapped TERGM (btergm) Results: pooled MPLE"
        info["call_method"] = "btergm"
        labels = [btergm_label(lab) for lab in point.labels]
        res = BTERGMResults(point.params, point.cov, labels, method="mple",
                            loglik=point.loglik, loglik_kind=point.loglik_kind, **fit_nobs(model),
                            converged=point.converged, n_iter=point.n_iter,
                            seconds=time.perf_counter() - t0, se_kind=point.se_kind,
                            warnings=point.warnings, info=info, formula=point.formula,
                            network=net, model=model, dyad_independent=point.dyad_independent)
        res.boot = boot
        if mask.any():          # as the free view's fits of other estimators record them
            res.diagnostics.offset = dict(zip(make_unique(labels), map(bool, mask)))
        if n_kept < self.R:
            res.warnings.append(f"Note: interrupted by the user: the bootstrap has the first "
                                f"{n_kept} of the R = {self.R} replicates")
        n_bad = n_kept - res.n_boot_complete
        if n_bad:
            res.warnings.append(f"Note: {n_bad} of {n_kept} bootstrap replicates were dropped: "
                                "some coefficient does not exist on the waves they drew "
                                "(btergm's glm gives NA there)")
        return res
