"""Equilibrium Expectation, one chain: Algorithm S, Algorithm EE, the
simulation at the estimate (see :mod:`ergmfit.estimation.ee.estimator` for the method).

Runs in a worker process for parallel chains; needs only a model spec with
``labels`` and ``compiled()``.
"""
from __future__ import annotations

import math
import os
import resource
import time

import numpy as np

from ...exceptions import DegenerateModelError
from ...terms.parameterisation import Identity
from ...terms.parameter_steps import MAX_DECAY_STEP, projector
from ...utils.validation import seed_words
from .missing import conditional_chain
from .proposals import _constrained_space, _proposal
from .checkpoint import ChainCheckpoint, EESimsState, read_chain_state, read_sims, sims_name
from .simulation import _curved_scales, _sim_sampler, _simulate, sim_plan
from ...runtime.interrupts import deaf_to_sigint

_MAX_ROWS = 200_000          # stored trajectory rows per chain (thinned beyond)


# ---------------------------------------------------------------------------
# small statistics helpers
# ---------------------------------------------------------------------------
def batch_means_sigma(X):
    """mcmcse's ``mcse.multi(X, method="bm", r=1, size="sqroot")$cov``: the
    asymptotic covariance Σ (Var of the mean ≈ Σ / N) by batch means with
    b = ⌊√N⌋ rows per batch over the first a·b rows, a = ⌊N / b⌋, centred at
    the mean of all rows.  Returns a (p, p) array (NaN if N < 4)."""
    X = np.asarray(X, dtype=float)
    N, p = X.shape
    if N < 4:
        return np.full((p, p), np.nan)
    b = int(math.floor(math.sqrt(N)))
    a = N // b
    mean = X.mean(axis=0)
    bm = X[: a * b].reshape(a, b, p).mean(axis=1) - mean
    return b * (bm.T @ bm) / (a - 1)


def _make_pd(S, floor=1e-12):
    """S symmetrised, with eigenvalues floored at a small positive value."""
    S = 0.5 * (S + S.T)
    w, V = np.linalg.eigh(S)
    top = max(float(w.max()), floor) if w.size else floor
    w = np.maximum(w, top * 1e-10)
    return (V * w) @ V.T


def t_ratios(dz):
    """mean / sd of each column (sd with ddof=1); 0 where a column is constant 0."""
    dz = np.asarray(dz, dtype=float)
    if len(dz) < 2:
        return np.full(dz.shape[1], np.nan)
    m = dz.mean(axis=0)
    sd = dz.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd > 0, m / sd, np.where(m == 0, 0.0, np.sign(m) * np.inf))
    return t


def burnin_iters(burnin, n_done, stage_start=0):
    """First kept iteration: ``burnin`` (a fraction of the iterations of the last
    learning-rate stage, which starts at ``stage_start``, or a number of
    iterations); the last half when the run is too short for it."""
    if stage_start >= n_done:
        stage_start = 0
    if isinstance(burnin, float) and 0.0 <= burnin < 1.0:
        b = stage_start + int(math.floor(burnin * (n_done - stage_start)))
    else:
        b = max(int(burnin), stage_start)
    if b >= n_done - 1:          # too short a run: keep the last half
        b = n_done // 2
    return max(b, 0)


def _stages(rate, outer):
    """Learning rate of each outer iteration: a float, or a sequence of rates
    for equal consecutive stages.  Returns (array of rates, first outer
    iteration of the last stage)."""
    rates = np.atleast_1d(np.asarray(rate, dtype=float))
    if rates.ndim != 1 or rates.size == 0 or not np.all(rates > 0):
        raise ValueError(f"learning_rate must be a positive number or a sequence of them, got "
                         f"{rate!r}")
    k = len(rates)
    stage = np.minimum((np.arange(outer) * k) // max(outer, 1), k - 1)
    first_last = int(np.searchsorted(stage, k - 1)) if outer else 0
    return rates[stage], first_last


def _peak_rss_mb():
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / 1024.0            # Linux: kilobytes


# ---------------------------------------------------------------------------
# Algorithm S
# ---------------------------------------------------------------------------
def algorithm_s(sampler, p, free, steps, m, aca_s, ifd=None, arc_corr=0.0, dens=None):
    """EstimNetDirected's Algorithm S on ``sampler`` (moves scored, never applied).

    Returns (theta, Dmean, rows): the CD-1 estimate (θ_dens = V − arc_corr
    with IFD), D = m / Σ dzA², and the θ row of every iteration.
    """
    theta = np.zeros(p)
    D0 = np.zeros(p)
    rows = np.zeros((steps, p))
    for t in range(steps):
        th = theta.copy()
        if dens is not None:
            th[dens] = 0.0
        add, dele = sampler.run_batch(th, m, apply=False)
        dzA = dele - add
        sumC = add + dele
        D0 += dzA * dzA
        # sumC^2, unless change statistics of both signs (±1 MRF spins, negative
        # covariates) cancel in sumC: then the step would explode; cap it at aca_s
        denom = np.maximum(sumC * sumC, dzA * dzA)
        with np.errstate(divide="ignore", invalid="ignore"):
            da = np.where(denom > 0, aca_s / denom, 0.0)
        step = np.where(dzA < 0, -1.0, 1.0) * da * dzA * dzA
        theta[free] += step[free]
        if ifd is not None:
            theta[dens] = ifd.V - arc_corr
        rows[t] = theta
    with np.errstate(divide="ignore"):
        Dmean = np.where(D0 > 0, m / D0, np.inf)
    return theta, Dmean, rows


# ---------------------------------------------------------------------------
# one chain (runs in a worker process)
# ---------------------------------------------------------------------------
def _restore_state(bm, x_on):
    """Flip ``bm`` (at the observed state) to the saved state x_on."""
    have = bm.on_vars()
    for v in np.setxor1d(have, np.asarray(x_on, dtype=np.int64)):
        bm.flip_var(int(v))


def _finished_run(cur, phase, inner, cfg, adaptive):
    """The run dict of a phase that a checkpoint saved as finished."""
    kind, outer = phase
    total = outer * inner
    store_every = max(1, -(-total // _MAX_ROWS))
    _, last_stage = _stages(cfg["learning_rate"], outer)
    n_rows = len(cur["theta_rows"])
    return {"theta_rows": cur["theta_rows"], "dz_rows": cur["dz_rows"],
            "acc_rows": cur["acc_rows"], "v_rows": cur["v_rows"],
            "iters": np.arange(n_rows) * store_every, "n_done": int(cur["n_done"]),
            "store_every": store_every, "final_theta": cur["theta"],
            "final_dzA": cur["dzA"], "D_final": cur["Dvec"],
            "stage_start": last_stage * inner if not adaptive else 0,
            "times": list(cur["times"]), "cpu_times": list(cur["cpu_times"]),
            "stopped_early": int(cur["n_done"]) < total, "proposal": kind}



def _ridged_cov(S, idx):
    """Cov of the columns ``idx`` of the rows ``S``, with a small ridge."""
    C = np.atleast_2d(np.cov(S[:, idx], rowvar=False))
    d = np.diag(C)
    return C + np.diag(np.maximum(1e-3 * d, 1e-9 * max(float(d.max(initial=0.0)), 1.0)))


def _inverse_cov(S, free):
    """Cov(g)⁻¹ over the free parameters (zero rows/columns elsewhere), from
    rows of statistics ``S``; a small ridge keeps it finite."""
    p = S.shape[1]
    idx = np.flatnonzero(free)
    C = _ridged_cov(S, idx)
    P = np.zeros((p, p))
    P[np.ix_(idx, idx)] = np.linalg.pinv(C)
    return P


class _CurvedEE:
    """The "newton" update of a curved model through its map η(θ).

    The chain's statistics (and dzA = g(x_t) − g(x_obs)) are the q canonical
    ones; θ has p parameters.  Each outer iteration linearises the map at its
    start θ₀ (η ≈ η(θ₀) + J Δθ, J = ∂η/∂θ) and runs the compiled loop in η
    with the preconditioner J (J'CJ)⁻¹ J' (C = Cov(g) over the free
    statistics), so that every step is θ ← θ − a (J'CJ)⁻¹ J' dzA in the
    parameters; the rows are mapped back to θ by J's left inverse (exact: the
    steps lie in J's range).  After the outer iteration the sampler goes on
    at the exact η(θ); decays stay at or above their lower bounds and move
    at most ``MAX_DECAY_STEP`` per outer iteration, as in MCMC-MLE.  With
    IFD the density parameter (position ``dens_t`` in θ, ``dens_s`` in the
    statistics) is V − arc_corr, not a step of the update.  The stored dzA
    rows are the parameters' directions z J (:func:`ergmfit.terms.parameter_steps.projector`).
    """

    def __init__(self, par, dens_t, dens_s, cond=None):
        self.par, self.dens_t, self.dens_s = par, dens_t, dens_s
        self.cond = cond            # missing dyads: the conditional chain (ee.missing)

    def _iterate(self):
        from ._ee import ee_iterations
        return ee_iterations if self.cond is None else self.cond.iterations

    def masks(self, ifd):
        fp = np.ones(self.par.n_params, dtype=bool)
        fs = np.ones(self.par.n_stats, dtype=bool)
        if ifd:
            fp[self.dens_t] = False
            fs[self.dens_s] = False
        return fp, fs

    def cov(self, S, ifd):
        """The ridged Cov(g) of the free statistics (q × q, zeros elsewhere)."""
        _, fs = self.masks(ifd)
        q = self.par.n_stats
        idx = np.flatnonzero(fs)
        C = np.zeros((q, q))
        C[np.ix_(idx, idx)] = _ridged_cov(np.asarray(S, dtype=float), idx)
        return C

    def outer(self, sampler, theta, dzA, inner, m, rate, C, ifd, arc_corr, cfg,
              th_c, dz_c, acc_c, v_c):
        """One outer iteration; fills th_c (θ rows) and dz_c (projected dzA
        rows), updates dzA (canonical) in place; returns (θ, canonical dzA rows)."""
        ee_iterations = self._iterate()
        par = self.par
        p, q = par.n_params, par.n_stats
        fp, fs = self.masks(ifd)
        eta0 = par.eta(theta)
        J = par.jacobian(theta)
        Jf = J[np.ix_(fs, fp)]
        M = np.linalg.pinv(_make_pd(Jf.T @ C[np.ix_(fs, fs)] @ Jf))
        P = np.zeros((q, q))
        P[np.ix_(fs, fs)] = Jf @ M @ Jf.T
        K = np.zeros((p, q))
        K[np.ix_(fp, fs)] = np.linalg.pinv(Jf)
        if ifd:
            K[self.dens_t, self.dens_s] = 1.0
        eta = np.ascontiguousarray(eta0, dtype=float).copy()
        et_c = np.zeros((inner, q))
        dzq_c = np.zeros((inner, q))
        ee_iterations(sampler, eta, dzA, inner, m, 2, float(rate), float(cfg["min_theta"]),
                      float(cfg["aca_ee"]), np.ones(q), self.dens_s if ifd else -1,
                      float(arc_corr), et_c, dzq_c, acc_c, v_c, P)
        th_c[:] = theta + (et_c - eta0) @ K.T
        dz_c[:] = projector(par, theta)(dzq_c)
        new = th_c[-1].copy()
        for k in par.decay_indices():
            new[k] = min(max(new[k], theta[k] - MAX_DECAY_STEP), theta[k] + MAX_DECAY_STEP)
        return par.project(new), dzq_c

    def outer_borisenko(self, sampler, theta, dzA, inner, m, rate, ifd, arc_corr, cfg,
                        th_c, dz_c, acc_c, v_c, D=None):
        """One outer iteration of the Borisenko update in the parameters'
        directions: θ_k ← θ_k − a max(|θ_k|, c) sign((J' dzA)_k), J at the
        current θ, the sampler at the exact η(θ).  The compiled loop runs one
        iteration (m proposals) per call with a zero step; the update, a few
        numbers, is made here between calls.

        With scales ``D`` it is the adaptive update (Byshkin et al. 2018) in
        the same directions: θ_k ← θ_k − sign(u_k) aca D_k u_k², u = J' dzA;
        decays stay within ``MAX_DECAY_STEP`` of their value at the start of
        the outer iteration."""
        ee_iterations = self._iterate()
        par = self.par
        theta0 = np.array(theta, dtype=float)
        decays = par.decay_indices()
        aca = float(cfg["aca_ee"])
        q = par.n_stats
        fp, _ = self.masks(ifd)
        c = float(cfg["min_theta"])
        P0 = np.zeros((q, q))
        one = np.ones(q)
        row, dzr = np.zeros((1, q)), np.zeros((1, q))
        dzq_c = np.zeros((inner, q))
        theta = np.array(theta, dtype=float)
        for i in range(inner):
            eta = np.ascontiguousarray(par.eta(theta), dtype=float)
            ee_iterations(sampler, eta, dzA, 1, m, 2, 0.0, c, float(cfg["aca_ee"]), one,
                          self.dens_s if ifd else -1, float(arc_corr), row, dzr,
                          acc_c[i:i + 1], v_c[i:i + 1], P0)
            u = par.jacobian(theta).T @ dzA
            if D is None:
                step = rate * np.maximum(np.abs(theta), c) * np.sign(u)
            else:
                step = np.sign(u) * aca * D * u * u
            theta = np.where(fp, par.project(theta - step), theta)
            for k in decays:
                theta[k] = min(max(theta[k], theta0[k] - MAX_DECAY_STEP),
                               theta0[k] + MAX_DECAY_STEP)
            if ifd:
                theta[self.dens_t] = eta[self.dens_s]          # V − arc_corr
            th_c[i] = theta
            dzq_c[i] = dzr[0]
        dz_c[:] = projector(par, theta)(dzq_c)
        return theta


def _sample_at(sampler, theta, dzA, dens, m, n):
    """``n`` states ``m`` proposals apart, continuing the chain at θ (natural
    parameters; dzA follows it, in place).  Returns their statistics."""
    th = np.array(theta, dtype=float)
    if dens is not None:
        th[dens] = 0.0          # IFD: V stands for the density parameter
    d0 = np.array(sampler.delta, dtype=float)
    S = sampler.sample(th, int(n), 0, int(m))
    dzA += np.asarray(sampler.delta, dtype=float) - d0
    return S


def _preconditioner(sampler, theta, dzA, dens, free, m, n):
    """P for ``update="newton"``: Cov(g)⁻¹ from ``n`` states ``m`` proposals
    apart, continuing the chain at θ (dzA follows it, in place)."""
    return _inverse_cov(_sample_at(sampler, theta, dzA, dens, m, n), free)


def _ee_phase(sampler, theta, dzA, outer, inner, m, upd, cfg, Dvec, dens, arc_corr, free, chain,
              control, callback, state, n_planned, start=None):
    """``outer`` outer iterations of Algorithm EE on ``sampler`` (θ, dzA in place).

    Returns the stored rows (every ``store_every``-th iteration), the number
    of iterations done, and the final θ, dzA and D.  Sets
    ``state["interrupted"]`` on KeyboardInterrupt or a stop request.
    ``start`` (a partial phase read from a checkpoint) continues that phase;
    ``state["checkpoint"]``, if set, saves the partial phase after outer
    iterations when it is due, and at the end.
    """
    from ._ee import ee_iterations
    p = len(theta)
    adaptive = upd == 1
    curved = state.get("curved")
    total = outer * inner
    store_every = max(1, -(-total // _MAX_ROWS))
    n_store = -(-total // store_every)
    th_rows = np.zeros((n_store, p))
    dz_rows = np.zeros((n_store, p))
    acc_rows = np.zeros(n_store)
    v_rows = np.zeros(n_store)
    th_c = np.zeros((inner, p))
    dz_c = np.zeros((inner, p))
    acc_c = np.zeros(inner)
    v_c = np.zeros(inner)
    theta = np.ascontiguousarray(theta, dtype=float).copy()
    dzA = np.ascontiguousarray(dzA, dtype=float).copy()
    Dvec = np.ascontiguousarray(Dvec, dtype=float).copy()
    n_rows = 0
    done = 0
    o_start = 0
    stopped_early = False
    rates, last_stage = _stages(cfg["learning_rate"], outer)
    stage_start = last_stage * inner if not adaptive else 0
    times, cpu_times = [], []
    if start is not None:
        n_rows = len(start["theta_rows"])
        for name, arr in (("theta_rows", th_rows), ("dz_rows", dz_rows),
                          ("acc_rows", acc_rows), ("v_rows", v_rows)):
            arr[:n_rows] = start[name]
        done = int(start["n_done"])
        o_start = done // inner
        times, cpu_times = list(start["times"]), list(start["cpu_times"])
        if times:   # the clocks go on from the saved elapsed times
            state.setdefault("t_start", time.perf_counter() - times[-1])
            state.setdefault("c_start", time.process_time() - cpu_times[-1])
    t_start = state.setdefault("t_start", time.perf_counter())
    c_start = state.setdefault("c_start", time.process_time())

    def partial(final=False):
        return {"theta_rows": th_rows[:n_rows], "dz_rows": dz_rows[:n_rows],
                "acc_rows": acc_rows[:n_rows], "v_rows": v_rows[:n_rows], "n_done": done,
                "times": np.asarray(times, dtype=float),
                "cpu_times": np.asarray(cpu_times, dtype=float), "theta": theta, "dzA": dzA,
                "Dvec": Dvec, "final": final}

    checkpoint = state.get("checkpoint")
    iterate = ee_iterations if state.get("cond") is None else state["cond"].iterations
    P = stage_dz = None
    try:
        ifd = dens is not None
        if curved is not None and upd == 2:
            C = curved.cov(_sample_at(sampler, curved.par.eta(theta), dzA,
                                      curved.dens_s if ifd else None, m,
                                      max(200, 20 * len(theta))), ifd)
            stage_dz = []
        elif upd == 2:
            P = _preconditioner(sampler, theta, dzA, dens, free, m,
                                max(200, 20 * len(theta)))
            stage_dz = []
        for o in range(o_start, outer):
            if upd == 2 and o > o_start and rates[o] != rates[o - 1] and stage_dz:
                # a new learning-rate stage: Cov(g) again, nearer the estimate
                if curved is not None:
                    C = curved.cov(np.concatenate(stage_dz), ifd)
                else:
                    P = _inverse_cov(np.concatenate(stage_dz), free)
                stage_dz = []
            if curved is not None and upd in (0, 1):
                theta = curved.outer_borisenko(sampler, theta, dzA, inner, m, rates[o], ifd,
                                               arc_corr, cfg, th_c, dz_c, acc_c, v_c,
                                               D=Dvec if upd == 1 else None)
            elif curved is not None:
                theta, dzq = curved.outer(sampler, theta, dzA, inner, m, rates[o], C, ifd,
                                          arc_corr, cfg, th_c, dz_c, acc_c, v_c)
                stage_dz.append(dzq)
            else:
                iterate(sampler, theta, dzA, inner, m, upd, float(rates[o]),
                              float(cfg["min_theta"]), float(cfg["aca_ee"]), Dvec,
                              -1 if dens is None else int(dens), float(arc_corr),
                              th_c, dz_c, acc_c, v_c, P)
            if stage_dz is not None and curved is None:
                stage_dz.append(dz_c.copy())
            if adaptive:
                mu = th_c.mean(axis=0)
                sd = th_c.std(axis=0)
                amu = np.where(np.abs(mu) < 0.1, 0.1, np.abs(mu))
                with np.errstate(divide="ignore", invalid="ignore"):
                    fac = np.where(sd > 1e-10, np.sqrt(cfg["comp_c"] / (sd / amu)), 1.0)
                Dvec = np.where(free, Dvec * fac, Dvec)
            idx = np.arange(done, done + inner)
            sel = np.flatnonzero(idx % store_every == 0)
            k = len(sel)
            th_rows[n_rows:n_rows + k] = th_c[sel]
            dz_rows[n_rows:n_rows + k] = dz_c[sel]
            acc_rows[n_rows:n_rows + k] = acc_c[sel]
            v_rows[n_rows:n_rows + k] = v_c[sel]
            n_rows += k
            done += inner
            state["outer_done"] += 1
            times.append(time.perf_counter() - t_start)
            cpu_times.append(time.process_time() - c_start)
            if not np.all(np.isfinite(theta)):
                raise DegenerateModelError(
                    "Equilibrium Expectation diverged (non-finite parameters): the model may be "
                    "degenerate; try geometrically weighted terms, a smaller learning_rate / "
                    "aca_ee, or a different init")
            if control is not None:
                control.report(state["outer_done"], n_planned)
            if callback is not None:
                callback({"chain": chain, "outer": state["outer_done"], "n_outer": n_planned,
                          "iterations": done, "theta": theta.copy(), "dzA": dzA.copy(),
                          "acceptance": float(acc_c.mean())})
            if checkpoint is not None and checkpoint.due():
                checkpoint(partial())
            if control is not None and control.stop_requested():
                state["interrupted"] = True
                break
            if cfg["stop_when_converged"] and o + 1 >= cfg["min_ee_steps"]:
                it_idx = np.arange(n_rows) * store_every
                keep = it_idx >= burnin_iters(cfg["burnin"], done, stage_start)
                if o >= last_stage and keep.sum() >= 8:
                    tr = t_ratios(dz_rows[:n_rows][keep])
                    dr = _drift(th_rows[:n_rows][keep])
                    if np.all(np.abs(tr) < cfg["t_tol"]) and np.all(dr < cfg["drift_tol"]):
                        stopped_early = True
                        break
    except KeyboardInterrupt:
        state["interrupted"] = True
    if checkpoint is not None:
        # after Ctrl-C inside an outer iteration its rows are lost but θ, dzA
        # and x_t still agree with each other: a resumed run goes on from them
        checkpoint(partial(final=not state["interrupted"]))
    return {"theta_rows": th_rows[:n_rows].copy(), "dz_rows": dz_rows[:n_rows].copy(),
            "acc_rows": acc_rows[:n_rows].copy(), "v_rows": v_rows[:n_rows].copy(),
            "iters": np.arange(n_rows) * store_every, "n_done": done,
            "store_every": store_every, "final_theta": theta, "final_dzA": dzA.copy(),
            "D_final": Dvec, "stage_start": stage_start, "times": times,
            "cpu_times": cpu_times,
            "stopped_early": stopped_early}


def ee_chain(model, cfg, seed, chain=0, callback=None, control=None):
    """One EE chain: Algorithm S, Algorithm EE, then (``se="simulate"``) a
    tie/no-tie sample at the chain's estimate.  Returns a dict of arrays.

    ``model`` needs ``labels`` and ``compiled()``; ``cfg`` is a dict of the
    settings of the ``EE.SETTINGS`` table (plus ``init_theta``).  ``control``
    (a :class:`~ergmfit.runtime.parallel.JobControl`) receives the progress
    and asks the chain to stop after its current outer iteration.
    """
    with deaf_to_sigint(control is not None and getattr(control, "on_report", None) is None):
        return _ee_chain(model, cfg, seed, chain, callback, control)


def _ee_chain(model, cfg, seed, chain, callback, control):
    from ...sampling._mh import MHSampler
    from ...sampling._proposals import IFD, TieNoTie, ifd_correction
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    labels = list(model.labels)
    p = len(labels)
    bm = model.compiled()
    q = int(bm.n_stats)
    par = getattr(model, "parameterisation", None) or Identity(list(model.labels))
    curved = not par.linear
    n_vars = int(bm.n_vars)
    L0 = int(len(bm.on_vars()))
    use_ifd = cfg["proposal"] in ("ifd", "ifd-tnt")
    two_phase = cfg["proposal"] == "ifd-tnt"
    dens = cfg["dens"] if use_ifd else None      # in the statistics
    # the density parameter's position in θ (differs from ``dens`` when a
    # curved term precedes it)
    dens_t = cfg.get("dens_theta", dens) if use_ifd else None
    free = np.ones(p, dtype=bool)
    if dens is not None:
        free[dens_t] = False
    space = _constrained_space(model)
    free_vars = space.free_vars() if space is not None and space.dyad_independent else None
    if use_ifd and free_vars is not None:
        # IFD on the free dyads of a dyad-set constraint
        from ._ee import RestrictedIFD
        L_f = int(np.isin(bm.on_vars(), free_vars).sum())
        arc_corr = ifd_correction(len(free_vars), L_f)
        prop = RestrictedIFD(free_vars, n_vars, K=cfg["ifd_k"])
    else:
        arc_corr = ifd_correction(n_vars, L0) if use_ifd else 0.0
        prop = IFD(K=cfg["ifd_k"]) if use_ifd else _proposal(model, space, cfg["proposal"], bm)

    def new_sampler(prop):
        if space is not None and not use_ifd:
            return space.make_sampler(bm, prop, seed_words(rng))
        return MHSampler(bm, prop, seed_words(rng))
    sampler = new_sampler(prop)
    m = int(cfg["sampler_steps"])
    inner = int(cfg["ee_inner_steps"])
    outer = int(cfg["ee_steps"])
    adaptive = cfg["update"] == "adaptive"

    saved = None
    if cfg.get("resume") is not None:
        path = os.path.join(cfg["resume"], f"chain_{chain}.npz")
        if os.path.exists(path):     # else this chain had not started: run it afresh
            saved = read_chain_state(path, model, chain)
    if saved is not None:
        # a resumed chain continues with a stream of its own (the MH
        # sampler's generator state is not saved): reproducible, not the
        # same draws as an uninterrupted run
        rng = np.random.default_rng([seed, saved["meta"]["outer_done"], 1])
        _restore_state(bm, saved["arrays"]["x_on"])
        if use_ifd:
            prop.V = saved["meta"]["V"]
            prop.is_delete = saved["meta"]["is_delete"]
        sampler = new_sampler(prop)

    # --- Algorithm S --------------------------------------------------------
    s_theta = Dmean = s_rows = None
    need_s = cfg["init"] == "S" or adaptive
    if saved is not None:
        s_theta, Dmean, s_rows = (saved["arrays"].get(k) for k in ("s_theta", "Dmean", "s_rows"))
    elif need_s and cfg["s_steps"] > 0 and curved:
        # adaptive update of a curved model: only the scales, in the parameters'
        # directions at the start (Algorithm S itself estimates η)
        Dmean = _curved_scales(sampler, par, np.asarray(cfg["init_theta"], dtype=float),
                               int(cfg["s_steps"]), m, cfg["dens"] if use_ifd else None)
        if use_ifd:
            Dmean[dens_t] = np.inf
    elif need_s and cfg["s_steps"] > 0:
        s_theta, Dmean, s_rows = algorithm_s(sampler, p, free, int(cfg["s_steps"]), m,
                                             cfg["aca_s"], prop if use_ifd else None,
                                             arc_corr, dens)
        bad = [labels[k] for k in np.flatnonzero(~np.isfinite(Dmean) & free)]
        if bad and adaptive:
            raise DegenerateModelError(
                f"the statistic(s) {bad} never changed in Algorithm S ({cfg['s_steps']} x {m} "
                "proposals on the observed network): the model may be degenerate. Increase "
                "s_steps or sampler_steps, or remove the term(s)")
    if cfg["init"] == "S":
        if s_theta is None:
            raise ValueError("init='S' needs s_steps > 0")
        theta = s_theta.copy()
    else:
        theta = np.asarray(cfg["init_theta"], dtype=float).copy()
        if use_ifd and saved is None:
            prop.V = theta[dens_t] + arc_corr
    if Dmean is None:
        Dmean = np.ones(p)
    Dvec = np.where(np.isfinite(Dmean), Dmean, 0.0).astype(float) if adaptive else np.ones(p)
    if use_ifd:
        theta[dens_t] = prop.V - arc_corr

    # --- Algorithm EE -------------------------------------------------------
    upd = {"borisenko": 0, "adaptive": 1, "newton": 2}[cfg["update"]]
    t_ee = time.perf_counter()
    c_ee = time.process_time()
    phases = [("ifd" if use_ifd else cfg["proposal"], outer)]
    if two_phase:
        phases.append(("tnt", int(cfg["tnt_steps"]) if cfg["tnt_steps"] is not None else outer))
    n_planned = sum(n for _, n in phases)
    state = {"outer_done": 0, "interrupted": False,
             "cond": conditional_chain(model, rng, saved)}     # missing dyads (ee.missing)
    if curved:
        state["curved"] = _CurvedEE(par, cfg.get("dens_theta"), cfg["dens"], state["cond"])
    runs = []
    dzA = np.zeros(q)
    ph0, start = 0, None
    if saved is not None:
        runs = saved["runs"]
        state["outer_done"] = saved["meta"]["outer_done"]
        cur = saved["current"]
        ph0 = saved["meta"]["phase"]
        if saved["meta"]["final"]:
            runs.append(_finished_run(cur, phases[ph0], inner, cfg, adaptive))
            theta, dzA, Dvec = cur["theta"], cur["dzA"], cur["Dvec"]
            ph0 += 1
        else:
            start = cur
            theta, dzA, Dvec = cur["theta"], cur["dzA"], cur["Dvec"]
    ckpt = None
    if cfg.get("checkpoint") is not None:
        fixed = {k: v for k, v in (("s_theta", s_theta), ("Dmean", Dmean), ("s_rows", s_rows))
                 if v is not None}
        ckpt = ChainCheckpoint(cfg["checkpoint"], chain, float(cfg["checkpoint_every"]), bm,
                               prop if use_ifd else None, fixed, runs, state, model)
        state["checkpoint"] = ckpt
    for ph in range(ph0, len(phases)):
        kind, n_outer = phases[ph]
        if ckpt is not None:
            ckpt.phase = ph
        if ph == 1:
            if start is None:
                # unconditional phase: start at the IFD phase's estimate, same state
                prev = runs[-1]
                keep = prev["iters"] >= burnin_iters(cfg["burnin"], prev["n_done"],
                                                      prev["stage_start"])
                if keep.any():
                    theta = prev["theta_rows"][keep].mean(axis=0)
                dzA = runs[-1]["final_dzA"].copy()     # g(x_t) - g(x_obs), edges included
                Dvec = np.where(np.isfinite(Dmean), Dmean, 0.0).astype(float) if adaptive \
                    else np.ones(p)
                if adaptive and dens is not None and not Dvec[dens] > 0:
                    Dvec[dens] = np.median(Dvec[free]) if free.any() else 1.0
            if space is None:
                sampler = MHSampler(bm, TieNoTie(), seed_words(rng))
            else:
                sampler = space.make_sampler(bm, _proposal(model, space, "tnt", bm),
                                             seed_words(rng))
            dens_ph = None
            free_ph = np.ones(p, dtype=bool)
        else:
            dens_ph = dens
            free_ph = free
        run = _ee_phase(sampler, theta, dzA, n_outer, inner, m, upd, cfg, Dvec, dens_ph,
                        arc_corr, free_ph, chain, control, callback, state, n_planned,
                        start=start)
        start = None
        run["proposal"] = kind
        runs.append(run)
        theta = run["final_theta"]
        Dvec = run["D_final"]
        if state["interrupted"]:
            break
    if not runs:
        raise ValueError(f"the checkpoint of chain {chain} has no EE iterations")
    seconds_ee = time.perf_counter() - t_ee
    cpu_ee = time.process_time() - c_ee
    main = runs[-1]
    interrupted = state["interrupted"]
    out = {"chain": chain, "labels": labels, "n_done": main["n_done"],
           "store_every": main["store_every"], "stage_start": main["stage_start"],
           "theta_rows": main["theta_rows"], "dz_rows": main["dz_rows"],
           "acc_rows": main["acc_rows"], "v_rows": main["v_rows"],
           "phases": [{"proposal": r["proposal"], "n_done": r["n_done"],
                       "store_every": r["store_every"], "theta_rows": r["theta_rows"],
                       "times": r["times"], "cpu_times": r["cpu_times"],
                       "dz_rows": r["dz_rows"], "acc_rows": r["acc_rows"], "v_rows": r["v_rows"]}
                      for r in runs],
           "interrupted": interrupted, "s_theta": None if s_theta is None else s_theta,
           "s_rows": s_rows, "Dmean": Dmean, "D_final": main["D_final"],
           "arc_correction": arc_corr, "dens": dens, "L_obs": L0, "n_vars": n_vars,
           "final_theta": main["final_theta"], "final_dzA": main["final_dzA"],
           "seconds_ee": seconds_ee, "cpu_ee": cpu_ee,
           "proposals_ee": sum(r["n_done"] for r in runs) * m,
           "proposals_s": (int(cfg["s_steps"]) * m if need_s else 0),
           "ifd_unbalanced": int(prop.n_unbalanced) if use_ifd else 0, "sims": None,
           "seconds_sim": 0.0, "proposals_sim": 0}
    n_rows = len(main["theta_rows"])
    done = main["n_done"]
    store_every = main["store_every"]

    # --- Fisher information by simulation at the chain's estimate ------------
    sims_saved = None
    if saved is not None and ph0 >= len(phases):
        # a finished chain resumed: its own simulation, if it was saved, so the
        # run returns the estimate it gave (a new one would differ)
        sims_saved = read_sims(cfg["resume"], model, chain, state["outer_done"])
    if sims_saved is not None and cfg["se"] == "simulate":
        out["sims"], out["sim_interval"], out["proposals_sim"], extra = sims_saved
        out.update(extra)                   # cond_cov: missing dyads (ee.missing)
    elif cfg["se"] == "simulate" and not interrupted and n_rows >= 4:
        it_idx = np.arange(n_rows) * store_every
        keep = it_idx >= burnin_iters(cfg["burnin"], done, out["stage_start"])
        est = out["theta_rows"][keep].mean(axis=0)
        t_sim = time.perf_counter()
        interval, burn, n_sim, unit, _ = sim_plan(cfg, L0)
        try:
            # the model's own MCMC proposal (triadic moves for triangle terms mix
            # far better on clustered networks), as MCMC-MLE samples
            s2 = _sim_sampler(model, bm, rng)
            draws = _simulate(s2, par.eta(est), n_sim, burn, interval, unit,
                              control, n_planned)
            out["sims"] = out["final_dzA"] + draws
            if state["cond"] is not None:       # minus the conditional mean (ee.missing)
                state["cond"].adjust(out, par.eta(est), n_sim, interval)
            out["sim_interval"] = int(interval)
            out["proposals_sim"] = int(burn) + int(n_sim) * int(interval)
            if ckpt is not None:
                EESimsState(chain=chain, outer_done=int(state["outer_done"]),
                            interval=int(interval), proposals=out["proposals_sim"],
                            sims=out["sims"], cond_cov=out.get("cond_cov")).write(
                    ckpt.store, model, sims_name(chain))
        except KeyboardInterrupt:
            out["interrupted"] = True
        out["seconds_sim"] = time.perf_counter() - t_sim
    out["seconds"] = time.perf_counter() - t0
    out["maxrss_mb"] = _peak_rss_mb()
    return out


def _drift(theta_rows):
    """|mean(first half) − mean(second half)| / sd, per parameter (sd over both)."""
    n = len(theta_rows)
    if n < 4:
        return np.full(theta_rows.shape[1], np.inf)
    h = n // 2
    d = np.abs(theta_rows[:h].mean(axis=0) - theta_rows[h:].mean(axis=0))
    sd = theta_rows.std(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, d / sd, np.where(d == 0, 0.0, np.inf))



def _planned_outer(cfg):
    n = cfg["ee_steps"]
    if cfg["proposal"] == "ifd-tnt":
        n += cfg["tnt_steps"] if cfg["tnt_steps"] is not None else cfg["ee_steps"]
    return n

