"""Blocked contrastive divergence Bn-CDm (``method="bcd"``): the estimator class
:class:`BCD`, its learning-rate schedule and the checks shared with MCLE.

The algorithm (blocks, step sizes, curved terms, constraints, standard errors)
is described in ``docs/guide/estimators/cd.md``.

References
----------
Asuncion, A., Liu, Q., Ihler, A. & Smyth, P. (2010). Learning with blocks:
composite likelihood and contrastive divergence. *AISTATS*, JMLR W&CP 9, 33-40.

Examples
--------
>>> from ergmfit.estimation.contrastive.bcd import learning_rates
>>> learning_rates(4, 0.1, decay=1.0).tolist()
[0.1, 0.05, 0.03333333333333333, 0.025]
"""
from __future__ import annotations

import math
import time
import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError, NetworkError, SettingsError
from ...results import ERGMResults
from ...runtime import Progress, catch_interrupt
from ...utils.validation import check_params, check_random_state, seed_words
from ...terms.parameterisation import Identity
from ...terms.parameter_steps import MAX_DECAY_STEP, held_run
from ..base import Estimator, Setting, boolean, choice, integer, number
from ..common.nobs import fit_nobs
from .blocks import (C_INT_MAX, block_kernel, bounded_kernel, bounded_pseudo_fit,
                     curved_design_fit, degree_feasibility)
from ..mple.existence import nonexistence_error, observed_design

__all__ = ["BCD", "learning_rates", "rate_schedule"]


def learning_rates(n_iter, learning_rate=0.001, decay=None, t0=None):
    """The step sizes a_0 .. a_{n_iter-1} as an array.

    ``learning_rate`` may be a float (a_t = lr / (1 + t / decay), or
    lr / (t0 + t) when ``t0`` is given), a callable t -> a_t, or a sequence
    of n_iter values.
    """
    return rate_schedule(n_iter, learning_rate, decay, t0)(0, int(n_iter))


def rate_schedule(n_iter, learning_rate=0.001, decay=None, t0=None):
    """The step sizes of :func:`learning_rates` as a function ``(a, b) -> a_a .. a_{b-1}``:
    a number's schedule is computed chunk by chunk (its n_iter values are not held: 200
    sweeps of 4 million free dyads in blocks of 4 are 2 x 10^8 iterations, 1.6 GB of
    doubles); a callable's or a sequence's values are computed and checked at once.

    >>> rate_schedule(4, 0.1, decay=1.0)(2, 4).tolist()
    [0.03333333333333333, 0.025]
    """
    n_iter = int(n_iter)
    if callable(learning_rate):
        rates = np.array([float(learning_rate(int(k))) for k in range(n_iter)])
    elif isinstance(learning_rate, (str, bytes)):
        raise SettingsError(f"learning_rate must be a number, a sequence of n_iter numbers or a "
                            f"function of the iteration, got {learning_rate!r}")
    elif np.ndim(learning_rate) == 0:
        a0 = float(learning_rate)
        tau = max(1.0, n_iter / 4.0) if decay is None else float(decay)
        if not (math.isfinite(a0) and a0 >= 0) or (t0 is not None and not float(t0) > 0):
            raise SettingsError("learning rates must be finite and non-negative")

        def chunk(a, b):
            t = np.arange(a, b, dtype=float)
            if t0 is not None:
                return a0 / (float(t0) + t)
            if math.isfinite(tau) and tau > 0:
                return a0 / (1.0 + t / tau)
            return np.full(len(t), a0)
        return chunk
    else:
        rates = np.asarray(learning_rate, dtype=float).ravel()
        if rates.shape != (n_iter,):
            raise SettingsError(f"learning_rate as a sequence needs n_iter={n_iter} values, "
                                f"got {rates.size}")
    if not np.all(np.isfinite(rates)) or np.any(rates < 0):
        raise SettingsError("learning rates must be finite and non-negative")
    rates = np.ascontiguousarray(rates)
    return lambda a, b: rates[a:b]


class BCD(Estimator):
    """Blocked contrastive divergence estimator, Bn-CDm (Asuncion et al. 2010).

    Each iteration moves θ along g(x_0) − g(x_m), x_m being m = ``steps``
    updates of a random-scan blocked Gibbs sampler started at the data, each
    block of n = ``block_size`` dyads drawn exactly from its conditional; with
    ``precondition="mple"`` the steps are Newton-preconditioned Robbins-Monro
    steps from the MPLE.  Curved terms and constraints (dyad sets, degree
    bounds) come from the model.  The algorithm is described in
    ``docs/guide/estimators/cd.md``.

    ``BCD(**settings).fit(model)``; ``ERGM.fit(method="bcd", **settings)``
    builds it.  Without preconditioning the learning rate decays as
    a_t = learning_rate / (1 + t / decay) (default decay n_iter / 4;
    ``float("inf")`` keeps it constant); ``n_iter`` defaults to 20,000
    without preconditioning (the paper's), with it max(20,000,
    200 M / (n * batch_size)).

    References
    ----------
    Asuncion, A., Liu, Q., Ihler, A. & Smyth, P. (2010). Learning with blocks:
    composite likelihood and contrastive divergence. *AISTATS*, JMLR W&CP 9, 33-40.

    Examples
    --------
    >>> import ergmfit as ef
    >>> from ergmfit.estimation import BCD
    >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    >>> fit = BCD(block_size=2, random_state=1).fit(m)
    >>> fit.method, fit.info["precondition"]
    ('bcd', 'mple')
    """

    method = "bcd"
    supports = {"curved": True, "constraints": True, "missing": False, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary"})}
    SETTINGS = (
        Setting("block_size", 4, integer(1), "n, variables (dyads) per block; 1 is single-site Gibbs."),
        Setting("steps", 1, integer(1, C_INT_MAX),
                "m, blocked Gibbs updates per negative phase."),
        Setting("blocks", "uniform", None, "'uniform', 'triple', 'star' or a list of blocks."),
        Setting("rao_blackwell", False, boolean, "Use E[g | x_-A] for the last update."),
        Setting("n_iter", None, integer(1, allow_none=True), "Iterations (see above)."),
        Setting("learning_rate", None, None,
                "Float, callable or sequence; default 0.001 without preconditioning, 1 with it."),
        Setting("decay", None, number(0, lo_open=True, allow_none=True, allow_inf=True),
                "Decay of the learning rate without preconditioning (see above)."),
        Setting("precondition", "mple", None, "'mple', None or a (p, p) matrix."),
        Setting("init", None, None, "'mple', 'zero', or parameters (default 'mple' with "
                "preconditioning, 'zero' without)."),
        Setting("batch_size", 1, integer(1, C_INT_MAX),
                "Independent negative phases per iteration."),
        Setting("average", 0.0, number(0, 1, hi_open=True),
                "Share of the last iterations averaged into the estimate (0: last iterate)."),
        Setting("trace", 200, integer(0), "Points of the parameter trace kept in info['trace']."),
        Setting("cov", "none", choice("none", "godambe"), "Covariance: 'none' or 'godambe'."),
        Setting("cov_blocks", None, None, "Blocks of the Godambe covariance."),
        Setting("n_sim", 100, integer(2), "Simulated networks for cov='godambe'."),
        Setting("burnin", 16384, integer(0), "Proposals before the first simulated network."),
        Setting("interval", 1024, integer(1), "Proposals between simulated networks."),
        Setting("kernel", None, block_kernel, "Block sampler (default: exact enumeration)."),
    )

    _free = None            # the free variables of a constrained space (set by fit)
    _feasible = None        # degree bounds: blocks.degree_feasibility (set by fit)
    _steps = None           # the model's steps: _LinearSteps or _CurvedSteps (set by fit)

    def _finish_settings(self):
        precondition = self.precondition
        if isinstance(precondition, str):
            precondition = precondition.lower()
            if precondition in ("none", "identity"):
                precondition = None
            elif precondition != "mple":
                raise SettingsError(f"setting 'precondition' must be 'mple', None or a matrix, "
                                    f"got {precondition!r}")
        self.precondition = precondition

    # ------------------------------------------------------------------
    def _start(self, model, bm, labels):
        init = self.init
        if init is None:
            init = "mple" if self.precondition is not None else "zero"
        steps = self._steps
        if isinstance(init, str):
            if init.lower() in ("zero", "zeros"):
                return steps.par.project(np.zeros(len(labels))), "zero", None
            if init.lower() != "mple":
                raise SettingsError(f"init must be 'mple', 'zero' or parameters, got {init!r}")
            if self._feasible is not None:       # bd: the MPLE under the bounds
                bounded = self._bounded_pseudo_fit(model, bm, labels,
                                                   steps.bounded_start(self, model, bm, labels))
                if bounded is not None:
                    return np.asarray(bounded.params, dtype=float), "mple_bounded", bounded
            lf = steps.pseudo_fit(self, model, bm, labels)
            return np.asarray(lf.params, dtype=float), "mple", lf
        return check_params(init, labels, "init"), "user", None

    def _bounded_pseudo_fit(self, model, bm, labels, start_fit=None):
        """Under degree bounds: the MPLE restricted to them
        (:func:`ergmfit.estimation.contrastive.blocks.bounded_pseudo_fit`), started from
        ``start_fit``'s parameters when given (a curved model's curved MPLE), or None where
        it has no finite maximum (the start is then the unconstrained MPLE, as statnet's)."""
        start = None
        if start_fit is not None:
            start = np.asarray(start_fit.params, dtype=float)
            if not np.all(np.isfinite(start)):
                return None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lf = bounded_pseudo_fit(self._steps.design_fit, bm, labels, self._feasible,
                                        self._free, start)
        except DegenerateModelError:
            return None
        ok = np.all(np.isfinite(lf.params)) and np.all(np.isfinite(lf.cov))
        return lf if ok else None

    def _pseudo_fit(self, bm, labels):
        """The MPLE over the free variables (``params``, ``cov``)."""
        from .mcle import pseudo_fit
        return pseudo_fit(bm, labels, self._free)

    def _bounded_design(self, bm, chooser, rng):
        """Under degree bounds: the constrained composite design of C blocks
        drawn by the chooser (the feasible configurations only)."""
        from .mcle import composite_design
        nb = int(max(20, min(2000, (1 << 18) >> min(self.block_size, 18))))
        blocks = [b for b in chooser.draw(nb, rng) if len(b)]
        return composite_design(bm, blocks, feasible=self._feasible)

    def _bounded_preconditioner(self, des, theta0):
        """Under degree bounds: P = C H_C(theta0)^-1, with H_C the information of
        the constrained composite likelihood over the C blocks of ``des``
        (:meth:`_bounded_design`; the inverse mean per-block information, what
        (M / n) H^-1 approximates without bounds; the unconstrained MPLE's
        information overstates it and the steps would be too short); for a
        curved model in θ, H_C = J' H_C(η(theta0)) J.  None if H_C is
        singular."""
        H = self._steps.information(des, theta0)
        if not np.all(np.isfinite(H)) or np.linalg.matrix_rank(H) < len(H):
            return None
        P = des.n_blocks * np.linalg.inv(H)
        return 0.5 * (P + P.T)

    def _preconditioner(self, bm, labels, theta0, lf, model=None):
        if self.precondition is None:
            return None
        M = float(bm.n_vars if self._free is None else len(self._free))
        n = float(self.block_size)
        if isinstance(self.precondition, str):          # "mple"
            if lf is None:
                lf = self._steps.pseudo_fit(self, model, bm, labels)
            Hinv = np.asarray(lf.cov, dtype=float)
            if not np.all(np.isfinite(Hinv)):
                raise DegenerateModelError(
                    "precondition='mple' needs a finite pseudo-likelihood information at the "
                    "MPLE; use precondition=None with a small learning_rate")
            return (M / n) * Hinv
        P = np.asarray(self.precondition, dtype=float)
        if P.shape != (len(labels), len(labels)):
            raise SettingsError(f"precondition must be a ({len(labels)}, {len(labels)}) matrix")
        return P

    def fit(self, model) -> ERGMResults:
        from ...sampling._blocks import Enumeration
        from ...sampling._bounded import DegreeBounded
        from .mcle import free_variables, make_chooser
        t_start = time.perf_counter()
        rng = check_random_state(self.random_state)
        labels = list(model.labels)
        p = len(labels)
        # constraints: blocks of free dyads only (None: every dyad)
        self._free = free = free_variables(model, "bcd")
        bm = model.compiled()
        M = int(bm.n_vars) if free is None else len(free)
        if self.block_size > M:
            raise SettingsError(f"block_size={self.block_size} exceeds the number of "
                                f"{'free ' if free is not None else ''}variables {M}")
        chooser = make_chooser(bm, self.blocks, self.block_size, free)
        # degree bounds (bd): the kernel leaves out the configurations breaking a bound
        kernel = bounded_kernel(model, max(1, chooser.max_size))
        if kernel is not None:
            if self.kernel is not None:
                raise SettingsError("blocked CD under degree bounds samples its blocks with "
                                    "the bounded enumeration (the feasible configurations "
                                    "only): kernel= cannot be used")
            if not kernel.state_ok(bm):
                raise NetworkError("the observed network lies outside the degree bounds of "
                                   f"the constraints ({model.sample_space.spec})")
        elif self.kernel is not None:
            kernel = self.kernel
        else:
            kernel = Enumeration(max(1, chooser.max_size))
        if isinstance(kernel, DegreeBounded):
            try:
                kernel.check_model(bm)
            except ValueError as exc:
                raise SettingsError(str(exc)) from None
        self._feasible = degree_feasibility(model) if isinstance(kernel, DegreeBounded) else None
        # dead or collinear statistics, and no estimate along a direction the
        # blocks cannot leave: errors before the run (as MPLE and MCLE)
        check_blocks(observed_design(model, bm), bm, chooser, labels, "blocked CD",
                     random_state=rng)
        # the steps in θ, chosen once: the compiled loop when θ = η, else through the map
        par = getattr(model, "parameterisation", None) or Identity(labels)
        self._steps = steps = (_LinearSteps if par.linear else _CurvedSteps)(par)
        theta0, init_kind, lf = self._start(model, bm, labels)
        bd_design = None
        if self._feasible is not None:
            # under the bounds: the constrained composite likelihood of the chooser's
            # blocks (its step matrix below), and an error if it has no maximum
            bd_design = self._bounded_design(bm, chooser, rng)
            steps.check_bounded_existence(bd_design, labels)
        theta = theta0.copy()
        trace_rows, trace_iters = [theta0.copy()], [0]
        avg_sum = np.zeros(p)
        n_avg = 0
        grad_sum = np.zeros(p)
        done = n_chunks = 0
        diverged = False
        stop = catch_interrupt()
        P, schedule, n_iter = None, None, self.n_iter or 0
        bounded_P = False
        with stop:      # Ctrl-C while the schedule is set up (a callable's 10^7 rates: seconds)
            P = None
            if bd_design is not None and isinstance(self.precondition, str):
                P = self._bounded_preconditioner(bd_design, theta0)
            bounded_P = P is not None
            if P is None:
                P = self._preconditioner(bm, labels, theta0, lf, model)
            per_iter = self.block_size * self.batch_size
            if self.n_iter is None:
                n_iter = 20000 if P is None else max(20000, int(math.ceil(200.0 * M / per_iter)))
            else:
                n_iter = self.n_iter
            if P is None:
                lr = 0.001 if self.learning_rate is None else self.learning_rate
                rates = rate_schedule(n_iter, lr, self.decay)
                tau = n_iter / 4.0 if self.decay is None else self.decay
                schedule = ("callable/array" if callable(lr) or np.ndim(lr) else
                            f"{lr} / (1 + t / {tau:g})")
            else:
                lr = 1.0 if self.learning_rate is None else self.learning_rate
                t0 = max(1.0, M / per_iter)
                rates = rate_schedule(n_iter, lr, t0=t0)
                schedule = (f"{lr} / ({t0:g} + t), preconditioned" if np.ndim(lr) == 0
                            and not callable(lr) else "callable/array, preconditioned")
            avg_from = int(n_iter * (1.0 - self.average)) if self.average > 0 else -1
            n_chunks = steps.n_chunks(n_iter)
            bounds = np.linspace(0, n_iter, n_chunks + 1).astype(np.int64)
            seeds = [seed_words(rng) for _ in range(n_chunks)]
            trace_every = max(1, n_iter // self.trace) if self.trace > 0 else 0
        bar = Progress(n_iter, f"B{self.block_size}-CD{self.steps}", unit="it",
                       enabled=self.verbose)
        with stop:          # Ctrl-C: keep the iterations finished so far
            try:
                for c in range(0 if stop.interrupted else n_chunks):
                    a, b = int(bounds[c]), int(bounds[c + 1])
                    if b <= a:
                        continue
                    # trace points falling in this chunk, relative to its start
                    out = steps.run(bm, chooser, kernel, theta, rates(a, b), self.steps,
                                    self.batch_size, self.rao_blackwell, P,
                                    1 if trace_every else 0,
                                    max(0, avg_from - a) if avg_from >= 0 and b > avg_from
                                    else -1, 1e6, seeds[c])
                    theta = out["theta"]
                    if trace_every:
                        tr = out["trace"]
                        for r in range(len(tr)):
                            it = a + r + 1
                            if it % trace_every == 0 or it == n_iter:
                                trace_rows.append(tr[r].copy())
                                trace_iters.append(it)
                    if out["average"] is not None:
                        k = out["n_average"]
                        avg_sum += out["average"] * k
                        grad_sum += out["grad_mean"] * k
                        n_avg += k
                    done = a + out["n_iter"]
                    bar.update(out["n_iter"], **{labels[q]: f"{theta[q]:.3g}"
                                                 for q in range(min(p, 3))})
                    if out["diverged"]:
                        diverged = True
                        break
                    if out.get("interrupted"):
                        stop.interrupted = True
                        break
            finally:
                bar.close()
        estimate = avg_sum / n_avg if n_avg else theta
        warn = []
        if stop.interrupted:
            msg = (f"interrupted by the user after {done} of {n_iter} iterations: not "
                   "converged (the estimate is the " +
                   ("average of the iterates so far" if n_avg else "last iterate") + ")")
            warnings.warn(msg, ConvergenceWarning, stacklevel=3)
            warn.append(msg)
        if diverged or not np.all(np.isfinite(estimate)):
            msg = (f"blocked CD diverged after {done} iterations (|theta| > 1e6): lower "
                   "learning_rate, or use precondition='mple'")
            warnings.warn(msg, ConvergenceWarning, stacklevel=3)
            warn.append(msg)
        info = {
            "block_size": self.block_size, "steps": self.steps,
            "blocks": self.blocks if isinstance(self.blocks, str) else "list",
            "rao_blackwell": self.rao_blackwell, "n_iter": done, "batch_size": self.batch_size,
            "learning_rate": schedule, "precondition": None if P is None else
            ("user" if not isinstance(self.precondition, str) else
             "mple_bounded" if bounded_P else "mple"),
            "init": init_kind, "init_params": theta0.tolist(), "last_iterate": theta.tolist(),
            "averaged_iterations": n_avg, "interrupted": stop.interrupted,
            "trace_iterations": trace_iters,
            "trace": np.array(trace_rows).tolist(),
        }
        if n_avg:
            info["mean_gradient"] = (grad_sum / n_avg).tolist()
        cov = np.full((p, p), np.nan)
        se_kind = None
        if self.cov == "godambe" and not diverged and not stop.interrupted:
            cov, info["godambe"] = self._godambe(model, bm, estimate, rng)
            if info["godambe"].get("interrupted"):
                info["interrupted"] = True
                warn.append(f"interrupted by the user while simulating the Godambe "
                            f"variability: the standard errors use {info['godambe']['n_sim']} "
                            f"of {self.n_sim} simulated networks")
            se_kind = "godambe"
        if self.cov == "none":
            warn.append("Note: blocked contrastive divergence gives no standard errors by "
                        "default; use cov=\"godambe\" for the sandwich estimate.")
        return ERGMResults(
            estimate, cov, labels, method="bcd", loglik=None, loglik_kind=None,
            **fit_nobs(model), converged=not diverged and not stop.interrupted, n_iter=done,
            seconds=time.perf_counter() - t_start,
            se_kind=se_kind, warnings=warn, info=info,
            formula=getattr(model, "formula", None), network=getattr(model, "network", None),
            model=model, dyad_independent=getattr(model, "dyad_independent", None))

    def _godambe(self, model, bm, theta, rng):
        """Sandwich covariance of the composite likelihood over blocks from the chooser."""
        from .mcle import _inv, _simulated_scores, composite_design
        M = int(bm.n_vars) if self._free is None else len(self._free)
        n_blocks = self.cov_blocks
        if n_blocks is None:
            n_blocks = int(min(200_000, max(2_000, 5 * M // self.block_size)))
        kind = self.blocks if isinstance(self.blocks, str) else self.blocks
        des = composite_design(bm, kind, self.block_size,
                               n_blocks if isinstance(kind, str) else None,
                               random_state=rng, free=self._free, feasible=self._feasible)
        # through the map: H -> J'HJ, scores u -> u J, simulated at η(θ)
        par = getattr(model, "parameterisation", None) or Identity(list(model.labels))
        eta = par.eta(theta)
        _, _, H = des.loglik_score_hessian(eta)
        H = par.information(theta, H)
        U, sampler, cut = _simulated_scores(model, bm, des, theta, self.n_sim, self.burnin,
                                            self.interval, "tnt", rng, self.verbose, eta=eta)
        U = par.score(theta, U)
        p = len(theta)
        J = U.T @ U / len(U) if len(U) >= 2 else np.full((p, p), np.nan)
        Hinv = _inv(H)
        cov = Hinv @ J @ Hinv
        out = {"n_blocks": des.n_blocks, "n_sim": len(U), "burnin": self.burnin,
               "interval": self.interval, "sampler": sampler}
        if cut:
            out["interrupted"] = True
            warnings.warn(f"interrupted by the user while simulating the Godambe variability: "
                          f"the standard errors use {len(U)} of {self.n_sim} simulated networks",
                          ConvergenceWarning, stacklevel=4)
        return 0.5 * (cov + cov.T), out


def _curved_information(des, par, theta):
    """J' H(η(θ)) J, the composite information of ``des`` (canonical statistic
    differences, feasibility masks) in θ: the conditional covariance of the
    projected differences D J (a curved term has tens of canonical statistics
    and a few parameters; projecting first is 50x quicker than J' H J)."""
    from .mcle import _parts
    eta, J = par.eta(theta), par.jacobian(theta)
    H = np.zeros((len(theta), len(theta)))
    for D, w, M in _parts(des):
        _, Pr = des._probs(D, eta, M)
        DJ = D @ J
        E = np.einsum("us,usq->uq", Pr, DJ)
        H += np.einsum("u,us,usq,usr->qr", w, Pr, DJ, DJ) - E.T @ (w[:, None] * E)
    return H


def _bounded_existence(des, labels):
    """Under degree bounds: a DegenerateModelError if the constrained composite
    likelihood of the blocks of ``des`` increases for ever along some direction
    (no feasible configuration of any block moves the other way), e.g. edges
    when every node is at its maximum degree."""
    from .mcle import separation_direction
    d = separation_direction(des)
    if d is None:
        return
    sup = np.flatnonzero(d)
    parts = " + ".join(f"{d[q] / np.abs(d[sup]).max():.3g}*{labels[q]}" for q in sup)
    raise DegenerateModelError(
        f"blocked CD has no estimate under the degree bounds: the composite likelihood of its "
        f"blocks keeps increasing along {parts}, because no configuration of the "
        f"{des.n_blocks} blocks drawn that keeps every bound moves the statistic(s) "
        f"{', '.join(repr(labels[q]) for q in sup)} the other way (e.g. every node at its "
        "maximum degree). Remove the term(s), loosen the bounds, or use method='mcmle', whose "
        "proposals move several ties at once")


def check_blocks(od, bm, chooser, labels, method, n_blocks=2000, random_state=None):
    """Blocked estimators: when the observed design has a separation
    direction, look for one of the composite likelihood over ``n_blocks``
    blocks drawn by ``chooser`` (:func:`ergmfit.estimation.contrastive.mcle.separation_direction`,
    the MCLE's check); raise :func:`nonexistence_error` if there is one."""
    if od is None or od.direction is None:
        return
    from .mcle import composite_design, separation_direction
    blocks = [b for b in chooser.draw(n_blocks, random_state) if len(b)]
    if not blocks:
        return
    d = separation_direction(composite_design(bm, blocks))
    if d is not None:
        raise nonexistence_error(labels, d, method)


# iterations over which a curved model's map is linearised (one compiled call)
CURVED_CHUNK = 20


class _LinearSteps:
    """BCD's steps when θ = η (every term linear): the compiled loop itself, the
    composite information as it is, the MPLE over the free variables."""

    def __init__(self, par):
        self.par = par

    @staticmethod
    def n_chunks(n_iter):
        """Compiled calls the run is cut into (progress, Ctrl-C, trace)."""
        return min(100, n_iter)

    @staticmethod
    def run(*args):
        """One chunk of iterations: :func:`ergmfit.sampling._blocks.bcd_loop`."""
        from ...sampling._blocks import bcd_loop
        return bcd_loop(*args)

    @staticmethod
    def information(des, theta):
        """The composite information of ``des`` at ``theta``."""
        return des.hessian(theta)

    @staticmethod
    def pseudo_fit(est, model, bm, labels):
        """The MPLE (``params``, ``cov``) over the free variables."""
        return est._pseudo_fit(bm, labels)

    @staticmethod
    def bounded_start(est, model, bm, labels):
        """Where the MPLE under degree bounds starts (None: its own default)."""
        return None

    @staticmethod
    def design_fit(design, labels, start):
        """The pseudo-likelihood fit of ``design`` (a logistic regression in η)."""
        from ..mple.pseudolikelihood import fit_design
        return fit_design(design, labels, unit="variable")

    @staticmethod
    def check_bounded_existence(des, labels):
        """Raise if the bounded composite likelihood has no maximum (:func:`_bounded_existence`)."""
        _bounded_existence(des, labels)


class _CurvedSteps(_LinearSteps):
    """BCD's steps through a curved map η(θ): the loop linearised over short chunks
    (:func:`_curved_chunk`), the information J'HJ (:func:`_curved_information`), the
    curved MPLE in θ (its cov is (J'HJ)^-1), which also starts the bounded MPLE."""

    def __init__(self, par):
        super().__init__(par)
        self._mple = None

    @staticmethod
    def n_chunks(n_iter):
        # the map is linearised over each chunk: keep chunks short
        return min(n_iter, max(min(100, n_iter), -(-n_iter // CURVED_CHUNK)))

    def run(self, *args):
        return _curved_chunk(*args, self.par)

    def information(self, des, theta):
        return _curved_information(des, self.par, theta)

    def pseudo_fit(self, est, model, bm, labels):
        if self._mple is None:
            from ..mple.pseudolikelihood import MPLE
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._mple = MPLE(verbose=False).fit(model)
        return self._mple

    def bounded_start(self, est, model, bm, labels):
        return self.pseudo_fit(est, model, bm, labels)

    def design_fit(self, design, labels, start):
        return curved_design_fit(design, self.par, start)

    @staticmethod
    def check_bounded_existence(des, labels):
        """Not checked: a separation direction in η says nothing of θ."""


def _curved_chunk(bm, chooser, kernel, theta, rates, steps, batch, rao_blackwell, P, trace,
                  avg_from, max_abs, seed, par):
    """:func:`bcd_loop` for a curved model over a few iterations: the
    compiled loop runs in the natural parameters η with the map linearised at
    the chunk's start θ₀ (η ≈ η(θ₀) + J Δθ), preconditioner J P J' (J J'
    without one), so that every step is θ ← θ + a P J'(g(x₀) − g(x_m)), the
    stochastic gradient in θ; iterates go back to θ by J's left inverse
    (exact: the steps lie in J's range).  Parameters stay in their box
    (:func:`ergmfit.terms.parameter_steps.held_run`) and decays move at most ``MAX_DECAY_STEP`` per chunk."""
    from ...sampling._blocks import bcd_loop
    eta0 = par.eta(theta)
    J = par.jacobian(theta)
    Pt = np.eye(par.n_params) if P is None else P
    K = np.linalg.pinv(J)

    def back(rows):
        return theta + (np.asarray(rows) - eta0) @ K.T

    def run(Ph):
        out = bcd_loop(bm, chooser, kernel, eta0, rates, steps, batch, rao_blackwell,
                       J @ Ph @ J.T, trace, avg_from, max_abs, seed)
        new = back(out["theta"])
        for k in par.decay_indices():
            new[k] = min(max(new[k], theta[k] - MAX_DECAY_STEP), theta[k] + MAX_DECAY_STEP)
        return out, new

    out, new = held_run(par, run, Pt)
    out["theta"] = par.project(new)
    if len(out["trace"]):
        out["trace"] = par.project(back(out["trace"]))
    if out["average"] is not None:
        out["average"] = par.project(back(out["average"]))
        out["grad_mean"] = np.asarray(out["grad_mean"]) @ J
    return out
