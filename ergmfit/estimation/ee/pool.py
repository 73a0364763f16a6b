"""Equilibrium Expectation: summaries of chains, their pooling, and the results
object (see :mod:`ergmfit.estimation.ee.estimator` for the method)."""
from __future__ import annotations

import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError
from ...terms.parameter_steps import projector
from ...terms.parameterisation import Identity
from ..common.nobs import fit_nobs
from .missing import conditional_chain_kind
from .chain import (burnin_iters, _drift, _make_pd, _planned_outer, batch_means_sigma, ee_update_for,
                    t_ratios)

# ---------------------------------------------------------------------------
# summaries of chains
# ---------------------------------------------------------------------------
def _chain_summary(ch, burnin, inner, polish=False, par=None, resim=None, memory=0.0):
    """Estimate, covariances and t-ratios of one chain (``par``: a curved
    model's map; its simulated statistics are the canonical ones).  After a
    final MCMC-MLE step (``polish``), ``resim(θ)`` -> (draws centred at the
    observed or conditional statistics, conditional covariance or None)
    simulates at the estimate reported, whose information then gives the
    standard errors (:func:`_at_final_estimate`).  ``memory``: the per-iteration
    autocorrelation of θ the update implies at least (Newton: 1 - the last learning
    rate), for the drift test (:func:`half_means_drift`)."""
    par = Identity(ch["labels"]) if par is None else par
    p = len(ch["labels"])
    th, dz = ch["theta_rows"], ch["dz_rows"]
    it_idx = np.arange(len(th)) * ch["store_every"]
    b = burnin_iters(burnin, ch["n_done"], ch["stage_start"])
    keep = it_idx >= b
    thk, dzk = th[keep], dz[keep]
    N = len(thk)
    res = {"burnin_iterations": b, "kept_rows": N}
    if N == 0:
        res.update(estimate=np.full(p, np.nan), cov_mc=np.full((p, p), np.nan),
                   t=np.full(p, np.nan), dz=dzk, sd_theta=np.full(p, np.nan),
                   drift=np.full(p, np.inf), drift_z=np.full(p, np.inf),
                   drift_abs=np.full(p, np.inf))
        return res
    est = thk.mean(axis=0)
    sig = batch_means_sigma(thk)
    res["estimate"] = est
    res["cov_mc"] = sig / N if np.all(np.isfinite(sig)) else np.diag(thk.var(axis=0) / N)
    res["t"] = t_ratios(dzk)
    res["dz"] = dzk
    res["sd_theta"] = thk.std(axis=0, ddof=1) if N > 1 else np.zeros(p)
    res["drift"] = _drift(thk)
    if N >= 8:
        # the AR(1) s.e. under the Newton update, whose memory is known (and derived and
        # checked: test_ee_drift.py); batch means alone under the others, as before
        res["drift_z"], res["drift_abs"] = half_means_drift(
            thk, float(memory) ** int(ch["store_every"]) if memory > 0 else None)
    else:
        res["drift_z"] = np.full(p, np.inf)
        res["drift_abs"] = np.full(p, np.inf)
    # model covariance from the simulation at the estimate
    if ch["sims"] is not None and len(ch["sims"]) > p:
        _sim_summary(res, ch["sims"], est, par, polish, ch.get("cond_cov"))
    if resim is not None and res.get("polish") and not res["polish"]["skipped"]:
        _at_final_estimate(res, par, resim)
    # EstimNetDirected's R formula on the rows EstimNet logs: the first inner
    # iteration of each outer one (t = 0, inner, 2 inner, ...), after the burn-in
    thr, dzr = estimnet_rows(th, dz, it_idx, keep, inner, ch["store_every"])
    en = {"rows": len(thr)}
    if len(thr) >= 4:
        st = batch_means_sigma(thr) / len(thr)
        sd_ = batch_means_sigma(dzr) / len(dzr)
        try:
            tot = _make_pd(st) + np.linalg.inv(_make_pd(sd_))
            se = np.sqrt(np.clip(np.diag(tot), 0, None))
        except np.linalg.LinAlgError:
            se = np.full(p, np.nan)
        en.update(estimate=thr.mean(axis=0).tolist(), sd_theta=thr.std(axis=0, ddof=1).tolist(),
                  se=se.tolist(), t_ratio=t_ratios(dzr).tolist(),
                  se_mc=np.sqrt(np.clip(np.diag(_make_pd(st)), 0, None)).tolist())
    res["estimnet"] = en
    return res


def half_means_drift(rows, rho_floor=0.0):
    """Drift of a kept θ trajectory: (z, d) per parameter, d = |mean of the first half -
    mean of the second half| and z = d over the Monte-Carlo s.e. of that difference
    (Geweke's diagnostic with halves).

    The s.e. of each half's mean is the larger of its batch-means one and its AR(1)
    spectral one, σ² (1 + ρ) / ((1 - ρ) m) for its m rows, with σ² and the lag-1
    autocorrelation ρ (at least ``rho_floor``, at most 1 - 2 / m) of the rows about
    a straight line through their half, pooled over both halves (Geweke's spectral s.e.
    with an AR(1) fit; about a line, so that a trend shows as drift, not as memory).
    An EE trajectory is an autoregression of θ whose memory is at least 1 / (learning
    rate) iterations -- 1,000 at the last rate 0.001, and longer along poorly identified
    directions -- while batch means take ⌊√m⌋ rows per batch (63 iterations of a
    4,000-iteration half): batches shorter than the memory understate the s.e.
    several-fold, and a stationary trajectory of a
    small model (a snowball sample's conditional fit, every |t| < 0.02 after 20,000
    iterations, lag-1 autocorrelation of its rows 0.95) scored z = 10-12.  A trend
    within the window still shows: the halves' means differ by more than the slow
    fluctuation explains (and under the Newton update the t-ratio over the window is
    the net displacement of θ, so a relaxation that has not finished fails that test).

    ``rho_floor``: the least lag-1 autocorrelation of the rows that the update implies
    (None: batch means alone, the s.e. of the updates whose memory is not derived here);
    under the Newton update θ relaxes at most at the learning rate a per iteration, so
    rows ``s`` iterations apart have ρ ≥ (1 - a)^s (:func:`_chain_summary`'s
    ``memory``).  40 rows cannot estimate a memory of 10-30 rows (the estimate is
    biased low), so the floor keeps the s.e. from the known dynamics.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = np.zeros(80)
    >>> for k in range(1, 80):
    ...     x[k] = 0.9 * x[k - 1] + rng.normal()
    >>> z, d = half_means_drift(x[:, None], rho_floor=0.9)
    >>> bool(z[0] < 3), bool(half_means_drift((x + 0.5 * np.arange(80))[:, None])[0][0] > 3)
    (True, True)
    """
    X = np.asarray(rows, dtype=float)
    h = len(X) // 2
    a, b = X[:h], X[h:]
    d = np.abs(a.mean(axis=0) - b.mean(axis=0))
    if rho_floor is None:
        va = np.diag(batch_means_sigma(a)) / len(a)
        vb = np.diag(batch_means_sigma(b)) / len(b)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(va + vb > 0, d / np.sqrt(va + vb), np.where(d == 0, 0.0, np.inf))
        return z, d
    ra, rb = _detrended(a), _detrended(b)
    den = (ra * ra).sum(axis=0) + (rb * rb).sum(axis=0)
    num = (ra[1:] * ra[:-1]).sum(axis=0) + (rb[1:] * rb[:-1]).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(den > 0, num / den, 0.0)
    # (a memory as long as the half itself is past telling from its rows: capped there)
    rho = np.clip(np.maximum(rho, rho_floor), 0.0, 1.0 - 2.0 / max(len(a), 4))
    va, vb = _mean_variance(a, ra, rho), _mean_variance(b, rb, rho)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(va + vb > 0, d / np.sqrt(va + vb), np.where(d == 0, 0.0, np.inf))
    return z, d


def _detrended(X):
    """X minus its least-squares straight line (per column)."""
    t = np.arange(len(X), dtype=float)
    t -= t.mean()
    X = X - X.mean(axis=0)
    tt = float(t @ t)
    return X - np.outer(t, (t @ X) / tt) if tt > 0 else X


def _mean_variance(X, resid, rho):
    """Monte-Carlo variance of the column means of autocorrelated rows X: the larger of
    the batch-means and the AR(1) estimate from the residuals ``resid`` about a line and
    their lag-1 autocorrelation ``rho`` (see :func:`half_means_drift`)."""
    m = len(X)
    ar = (resid * resid).mean(axis=0) * (1 + rho) / (1 - rho)
    return np.maximum(np.diag(batch_means_sigma(X)), ar) / m


def estimnet_rows(th, dz, it_idx, keep, inner, store_every):
    """The θ and dzA rows EstimNetDirected writes and its R script averages: those
    of the iterations t = 0, ``inner``, 2 ``inner``, ... (the first inner iteration
    of each outer one) among the kept ones ``keep`` (iteration ``it_idx`` of each
    stored row; with the burn-in b = 10,001 the R script's t > 10,000).  When the
    stored rows are thinned so that they miss those iterations (``store_every``
    not dividing ``inner``), every ``inner // store_every``-th kept row instead.

    >>> import numpy as np
    >>> t = np.arange(50)
    >>> th, _ = estimnet_rows(t[:, None], t[:, None], t, t >= 21, 10, 1)
    >>> th.ravel().tolist()
    [30, 40]
    """
    if inner % store_every == 0:
        logged = keep & (it_idx % inner == 0)
        return th[logged], dz[logged]
    step = max(1, inner // store_every)
    return th[keep][::step], dz[keep][::step]


def _at_final_estimate(res, par, resim):
    """The information, simulated t-ratios and mean at the estimate after the final
    MCMC-MLE step, from a new simulation there (``resim``): the sample of the EE
    estimate is another θ's (``docs/guide/estimators/ee_algorithm.md``, "Notes
    from runs").  The Monte Carlo covariance stays the step's."""
    est = res["estimate"]
    Z, cond_cov = resim(est)
    C = np.cov(Z, rowvar=False).reshape(Z.shape[1], Z.shape[1])
    if cond_cov is not None:
        C = C - cond_cov
    C, Zp = par.information(est, C), projector(par, est)(Z)     # the map's directions
    res.update(fisher=C, sim_t=t_ratios(Zp), sim_mean=Zp.mean(axis=0), final_sims=Z)


def final_simulation(model, n, interval, seed):
    """``resim`` of :func:`_chain_summary` for an ERGM (None for other models): ``n``
    draws at θ every ``interval`` proposals after 16 intervals of burn-in, from
    the observed network, minus the observed statistics -- with missing dyads minus
    the mean of a conditional chain, whose covariance is returned too (as
    :meth:`ergmfit.estimation.ee.missing.ConditionalChain.adjust` does).  Seeded by ``seed``."""
    if getattr(model, "sample_space", None) is None or not hasattr(model, "statistics_vector"):
        return None
    conditional = conditional_chain_kind(model)

    def resim(theta):
        from ...sampling.chains import run_chains
        rng = np.random.default_rng([int(seed), 1])
        g = run_chains(model, theta, n, 16 * interval, interval, None, n_chains=1,
                       random_state=rng)[0][0]
        return conditional.centred(model, g, theta, n, interval, rng)
    return resim


def _sim_summary(res, Z, est, par, polish, cond_cov=None):
    """The simulation at the estimate: the Fisher information J'Cov(g)J, t-ratios in
    the parameters' directions, and (``polish``) a final MCMC-MLE step through the
    map (decays capped and bounded as in MCMC-MLE; θ = η: the plain step) with its
    Monte-Carlo covariance I⁻¹ Var(mean score) I⁻¹ -- only a full step is trusted:
    the observed statistics must lie well inside the sample's convex hull (else the
    sample is far from the observed network: EE not converged or a near-degenerate
    model)."""
    q = Z.shape[1]
    C = np.cov(Z, rowvar=False).reshape(q, q)
    if cond_cov is not None:        # missing dyads: the observed-data information
        C = C - cond_cov
    S = par.information(est, C)
    Zp = par.projector(est)(Z)
    res["fisher"] = S
    res["sim_t"] = t_ratios(Zp)
    res["sim_mean"] = Zp.mean(axis=0)
    res["ee_estimate"] = est.copy()
    if not polish:
        return
    from ..common.stepping import hummel_step
    gamma = hummel_step(Zp, 0.05)
    step = par.is_step(Z, (1.0 - gamma) * Z.mean(axis=0), est)[0]
    res["polish"] = {"step": None, "gamma": float(gamma), "skipped": True}
    if gamma >= 1.0 and np.all(np.isfinite(step)):
        res["estimate"] = par.project(est + step)
        res["polish"] = {"step": step.tolist(), "gamma": float(gamma), "skipped": False}
        Iinv = robust_inv(S)
        U = par.score(est, Z)                   # the scores J'z of the draws
        V = batch_means_sigma(U) / len(U)
        if np.all(np.isfinite(V)):
            res["cov_mc"] = Iinv @ _make_pd(V) @ Iinv


def check_identifiable(chains, labels, cfg, statistics_are_parameters=True):
    """Dead statistics and collinear terms, from the chains themselves (as
    MCMC-MLE checks its sample): DegenerateModelError when a free statistic
    never changed along any EE chain nor in the simulation at the estimate,
    or when the simulated statistics satisfy an exact linear relation (the
    Fisher information is singular although every statistic varied).  Done only
    when the statistics are one per parameter (``statistics_are_parameters``:
    :attr:`ergmfit.estimation.ee.chain._LinearEE.statistics_are_parameters`); a
    curved model's canonical statistics may legitimately never move."""
    p = len(labels)
    dens = cfg["dens"] if cfg["proposal"] in ("ifd", "ifd-tnt") else None
    dz = [ph["dz_rows"] for ch in chains for ph in ch["phases"] if len(ph["dz_rows"])]
    sims = [ch["sims"] for ch in chains if ch.get("sims") is not None and len(ch["sims"]) > 1]
    if dz and statistics_are_parameters:
        D = np.concatenate(dz)
        moved = np.any(D != D[:1], axis=0) | np.any(D != 0, axis=0)
        if sims:
            S = np.concatenate(sims)
            moved |= np.any(S != S[:1], axis=0)
        dead = [labels[k] for k in range(p) if k != dens and not moved[k]]
        if dead:
            n = sum(ph["n_done"] for ch in chains for ph in ch["phases"])
            raise DegenerateModelError(
                f"the statistic(s) {dead} never changed in {n} EE iterations of "
                f"{cfg['sampler_steps']} proposals"
                + (" nor in the simulation at the estimate" if sims else "")
                + ": they cannot vary (or the chain does not mix), carry no information and "
                "their coefficients cannot be estimated (EE would report the start value). "
                "Remove the term(s)")
    if sims and statistics_are_parameters:
        S = np.concatenate(sims)
        S = S - S.mean(axis=0)
        sd = S.std(axis=0)
        # a relation among a handful of distinct states (a chain stuck near the
        # empty or complete graph toggling a few dyads) proves nothing
        distinct = len(np.unique(S, axis=0)) if len(S) else 0
        if np.all(sd > 0) and p > 1 and distinct >= 3 * p + 2:
            Zs = S / sd
            w, V = np.linalg.eigh(Zs.T @ Zs / len(Zs))
            v = V[:, 0]
            if w[0] <= 1e-10 * w[-1] and np.max(np.abs(Zs @ v)) <= 1e-8:
                involved = [labels[k] for k in range(p) if abs(v[k]) > 1e-3 * np.abs(v).max()]
                raise DegenerateModelError(
                    f"the statistics {involved} are linearly dependent in every network simulated "
                    "at the estimate (collinear: one is a combination of the others), so the "
                    "Fisher information is singular and their coefficients are not identifiable; "
                    "remove a redundant term")


def _check_existence(chains, labels, cfg, est):
    """A separation direction d of the observed design (``cfg["separation"]``)
    confirmed by the simulation at the estimate -- every simulated network on
    the observed side of d, the observed statistics on the boundary of the
    convex hull of the sample, as CD checks it -- means no MLE:
    DegenerateModelError (:func:`ergmfit.estimation.mple.existence.nonexistence_error`)."""
    d = cfg.get("separation")
    sims = [ch["sims"] for ch in chains if ch.get("sims") is not None and len(ch["sims"])]
    if d is None or not sims:
        return
    from ..mple.existence import nonexistence_error, on_boundary
    d = np.asarray(d, dtype=float)
    if len(d) == len(labels) and on_boundary(np.concatenate(sims), d):
        raise nonexistence_error(labels, d, "Equilibrium Expectation", est)


def singular_information(F, rtol=1e-12):
    """True if the covariance F of simulated statistics is singular: a
    statistic did not vary, or one is a linear combination of others."""
    F = np.asarray(F, dtype=float)
    if F.size == 0 or not np.all(np.isfinite(F)):
        return True
    w = np.linalg.eigvalsh(0.5 * (F + F.T))
    return not (w.max() > 0 and w.min() > rtol * w.max())


def robust_inv(S):
    try:
        return np.linalg.inv(_make_pd(S))
    except np.linalg.LinAlgError:
        return np.linalg.pinv(S)


def pool_chains(summaries):
    """Pool chain summaries: inverse-variance weighted estimate (EstimNet's R
    script), pooled MC covariance 1/Σ(1/V_c), model covariance from the mean
    Fisher information.  Returns (estimate, cov, cov_mc, cov_model, details)."""
    ok = [s for s in summaries if s["kept_rows"] > 0 and np.all(np.isfinite(s["estimate"]))]
    if not ok:
        raise DegenerateModelError("no EE chain produced an estimate (the runs were too short)")
    fisher = [s["fisher"] for s in ok if "fisher" in s]
    cov_model = None
    if fisher:
        F = np.mean(fisher, axis=0)
        # a statistic that never varied in the simulation at the estimate (stuck
        # at the empty or complete graph) leaves no information: NA, not 1/0
        cov_model = (np.full(F.shape, np.nan) if singular_information(F) else robust_inv(F))
    # per-chain total variance (R script: MC + model) for the weights
    var_c = []
    for s in ok:
        v = np.diag(s["cov_mc"]).copy()
        if cov_model is not None:
            v = v + np.diag(cov_model)
        var_c.append(np.where(v > 0, v, np.nan))
    var_c = np.array(var_c)
    est_c = np.array([s["estimate"] for s in ok])
    if len(ok) == 1:
        est = est_c[0]
    else:
        w = 1.0 / var_c
        w = np.where(np.isfinite(w), w, 0.0)
        wsum = w.sum(axis=0)
        est = np.where(wsum > 0, (w * est_c).sum(axis=0) / np.where(wsum > 0, wsum, 1),
                       est_c.mean(axis=0))
    # pooled MC covariance
    if len(ok) == 1:
        cov_mc = _make_pd(ok[0]["cov_mc"])
    else:
        prec = sum(robust_inv(s["cov_mc"]) for s in ok)
        cov_mc = robust_inv(prec)
    cov = cov_mc + cov_model if cov_model is not None else None
    # R-script pooled s.e. (total variances pooled)
    with np.errstate(divide="ignore", invalid="ignore"):
        se_r = np.sqrt(1.0 / np.nansum(1.0 / var_c, axis=0))
    return est, cov, cov_mc, cov_model, {"estimnet_pooled_se": se_r.tolist(),
                                          "chain_estimates": est_c.tolist()}



def _theta_memory(cfg):
    """The least per-iteration autocorrelation of θ that the update implies in the last
    learning-rate stage: 1 - a under the Newton update (θ moves by a M^-1 dzA per
    iteration, M the covariance of the statistics, so it relaxes at most at rate a);
    0 (none assumed) under the other updates."""
    if cfg.get("update") != "newton":
        return 0.0
    try:
        a = float(np.atleast_1d(np.asarray(cfg["learning_rate"], dtype=float))[-1])
    except (TypeError, ValueError):
        return 0.0
    return 1.0 - a if 0.0 < a < 1.0 else 0.0


def build_results(model, out):
    """Turn :meth:`EE.run <ergmfit.estimation.ee.estimator.EE.run>`'s output into an ERGMResults."""
    from ...results import ERGMResults
    cfg, chains = out["cfg"], out["chains"]
    labels = list(model.labels)
    p = len(labels)
    inner = cfg["ee_inner_steps"]
    par = getattr(model, "parameterisation", None)
    memory = _theta_memory(cfg)
    sums = [_chain_summary(ch, cfg["burnin"], inner, cfg["polish"], par,
                           None if out["interrupted"] or ch["sims"] is None else
                           final_simulation(model, len(ch["sims"]), ch["sim_interval"], seed),
                           memory)
            for ch, seed in zip(chains, out["seeds"])]
    if not out["interrupted"]:
        check_identifiable(chains, labels, cfg,
                           ee_update_for(par).statistics_are_parameters)
    # stopped (Ctrl-C, a stop request) before any outer iteration finished: no trajectory to
    # average, so θ where the chains stand (their start), no standard errors, and the same
    # "Interrupted" result as later (pool_chains would call the runs too short)
    nothing = out["interrupted"] and not any(s["kept_rows"] > 0 for s in sums)
    if nothing:
        est = np.mean([np.asarray(ch["final_theta"], dtype=float) for ch in chains], axis=0)
        cov, cov_mc, cov_model = np.full((p, p), np.nan), None, None
        pool = {"estimnet_pooled_se": [float("nan")] * p,
                "chain_estimates": [np.asarray(ch["final_theta"], dtype=float).tolist()
                                    for ch in chains]}
    else:
        est, cov, cov_mc, cov_model, pool = pool_chains(sums)
    if not out["interrupted"]:
        _check_existence(chains, labels, cfg, est)
    warn = [out["fallback"]] if out.get("fallback") else []    # a curved IFD run ran off
    se_kind = "EE"
    if cov is None:
        # no simulation (interrupted, or se="estimnet"/"none"): EstimNet's formula
        ens = [s["estimnet"] for s in sums if "se" in s["estimnet"]]
        if cfg["se"] == "none" or not ens:
            cov = np.full((p, p), np.nan)
            cov_mc = None
        else:
            se = np.sqrt(1.0 / np.nansum([1.0 / np.square(e["se"]) for e in ens], axis=0))
            cov = np.diag(se ** 2)
            # the Monte-Carlo part of the formula (batch-means variance of the mean θ)
            # pooled alike, for the summary's "MCMC %" column
            with np.errstate(divide="ignore"):
                mc = 1.0 / np.nansum([1.0 / np.square(e["se_mc"]) for e in ens], axis=0)
            cov_mc = np.diag(np.where(np.isfinite(mc), mc, np.nan))
            se_kind = "estimnet"
    dz_all = [s["dz"] for s in sums if len(s["dz"])]
    tr = t_ratios(np.concatenate(dz_all)) if dz_all else np.full(p, np.nan)
    sim_t = [s["sim_t"] for s in sums if "sim_t" in s]
    sim_t = np.mean(sim_t, axis=0) if sim_t else None
    # drift of the estimate within the kept trajectory: a Geweke-type z-score
    # that is significant (> drift_z_tol) *and* a difference that matters
    # (> drift_se_tol standard errors of the estimate)
    drift = np.max([s["drift_z"] for s in sums], axis=0)
    se_now = np.sqrt(np.clip(np.diag(cov), 0, None))
    drift_se = np.max([s["drift_abs"] for s in sums], axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        drift_se = np.where(se_now > 0, drift_se / se_now, np.inf)
    drift_se = np.where(np.isfinite(se_now), drift_se, np.inf)
    bad_t = [] if nothing else [labels[k] for k in range(p) if not (abs(tr[k]) < cfg["t_tol"])]
    bad_d = [] if nothing else [labels[k] for k in range(p) if not (
        drift[k] < cfg["drift_z_tol"] or drift_se[k] < cfg["drift_se_tol"])]
    converged = not out["interrupted"] and not bad_t and not bad_d
    if out["interrupted"]:
        n_done = sum(ph["n_done"] for ch in chains for ph in ch["phases"])
        planned = _planned_outer(cfg) * cfg["ee_inner_steps"] * len(out["seeds"])
        warn.append((f"Interrupted: the EE run was stopped after {n_done} iterations "
                     f"(of {planned} planned); "
                     "the estimates are those of the trajectory so far and are not converged."
                     if not nothing else
                     f"Interrupted: the EE run was stopped before its first outer iteration "
                     f"finished (0 of {planned} iterations recorded); the parameters are "
                     "where EE started, not estimates, and have no standard errors.")
                    + (f" It was saved: continue with resume={cfg['checkpoint']!r} "
                       f"(ergmfit fit ... --set resume={cfg['checkpoint']})."
                       if cfg.get("checkpoint") else ""))
    if bad_t:
        warn.append("Warning: |t-ratio| >= " + f"{cfg['t_tol']:g} for " + ", ".join(
            f"{labels[k]} ({tr[k]:.3f})" for k in range(p) if labels[k] in bad_t)
            + ": EE has not converged; increase ee_steps (or run more chains).")
    if bad_d:
        warn.append("Warning: the estimate still drifts for " + ", ".join(bad_d)
                    + " (the means of the two halves of the kept trajectory differ by more than "
                    f"{cfg['drift_z_tol']:g} of their Monte-Carlo standard errors and by more "
                    f"than {cfg['drift_se_tol']:g} standard errors of the estimate); increase "
                    "ee_steps or burnin.")
    if sim_t is not None and cfg["polish"]:
        off = [labels[k] for k in range(p) if abs(sim_t[k]) > 0.3]
        if off:
            warn.append("Warning: simulating at the estimate does not reproduce the observed "
                        "statistic(s) " + ", ".join(off) + " (|t| > 0.3); the model may be "
                        "near-degenerate or EE has not converged.")
    elif sim_t is not None:
        off = [labels[k] for k in range(p) if abs(sim_t[k]) > 0.3]
        if off:
            # without the final step the standard errors come straight from this
            # simulation: a sample still drifting away from the observed network
            # gives a covariance of the drift, not of the model
            warn.append("Warning: the simulation at the estimate for the standard errors "
                        f"({cfg['se_samplesize']} draws) drifted away from the observed "
                        "statistic(s) " + ", ".join(off) + " (|t| > 0.3): the chain had not "
                        "reached equilibrium or the estimate is off, so the standard errors "
                        "are unreliable; increase se_interval / se_samplesize or ee_steps.")
    if cov_model is not None and not np.all(np.isfinite(cov_model)):
        const = sorted({labels[k] for sm in sums if "fisher" in sm
                        for k in range(p) if not sm["fisher"][k, k] > 0})
        warn.append("Warning: no standard errors (NA): the networks simulated at the estimate "
                    + (f"did not vary in {', '.join(const)}" if const else
                       "gave a singular covariance of the statistics")
                    + " (stuck at the empty or complete graph, or a near-degenerate model), so "
                    "the Fisher information cannot be inverted.")
    skipped = [s["polish"]["gamma"] for s in sums if s.get("polish") and s["polish"]["skipped"]]
    if skipped:
        warn.append("Warning: the final MCMC-MLE step was skipped (step length "
                    f"{min(skipped):.2f} < 1: the simulation at the EE estimate is far from the "
                    "observed statistics); the estimate is the plain EE average.")
    unb = sum(ch["ifd_unbalanced"] for ch in chains)
    if unb:
        warn.append(f"Warning: in {unb} IFD batches the add and delete proposals were very "
                    "unbalanced (|Ndel - Nadd| > 0.8 (Ndel + Nadd)); increase ifd_k.")
    if not converged and cfg.get("separation") is not None:
        d = np.asarray(cfg["separation"])
        warn.append("Warning: the MLE may not exist: the maximum pseudo-likelihood estimate does "
                    "not exist (its pseudo-likelihood keeps increasing along "
                    + " + ".join(f"{d[k]:.3g}*{labels[k]}" for k in np.flatnonzero(d))
                    + "), and EE did not converge; remove or change the term(s).")
    if not converged and not out["interrupted"]:
        warnings.warn("Equilibrium Expectation did not meet its convergence criteria; "
                      "see the warnings of the summary", ConvergenceWarning, stacklevel=3)
    thin = cfg["thin"] or inner
    traj = []
    for ch in chains:
        phases = []
        for ph in ch["phases"]:
            step = max(1, thin // ph["store_every"])
            phases.append({"proposal": ph["proposal"],
                           "iteration": (np.arange(len(ph["theta_rows"]))[::step]
                                         * ph["store_every"]).tolist(),
                           "theta": ph["theta_rows"][::step].tolist(),
                           "dzA": ph["dz_rows"][::step].tolist(),
                           "acceptance": ph["acc_rows"][::step].tolist(),
                           "seconds_per_outer": [round(t, 3) for t in ph["times"]],
                           "cpu_seconds_per_outer": [round(t, 3) for t in ph["cpu_times"]]})
        traj.append(phases[-1] if len(phases) == 1 else {**phases[-1], "phases": phases})
    ifd = None
    if cfg["proposal"] in ("ifd", "ifd-tnt"):
        ifd = {"arc_correction": chains[0]["arc_correction"], "L": chains[0]["L_obs"],
               "D": chains[0]["n_vars"], "reciprocation": float(cfg.get("reciprocation") or 0.0),
               "V": [ch["phases"][0]["v_rows"][::max(1, thin // ch["phases"][0]["store_every"])]
                     .tolist() for ch in chains]}
    prop_ee = sum(ch["proposals_ee"] for ch in chains)
    prop_total = sum(ch["proposals_ee"] + ch["proposals_s"] for ch in chains)
    sec_total = sum(ch["seconds_ee"] for ch in chains)
    cpu_total = sum(ch["cpu_ee"] for ch in chains)
    n_iter = sum(ph["n_done"] for ch in chains for ph in ch["phases"])
    info = {
        "t_ratios": dict(zip(labels, [float(v) for v in tr])),
        "t_ratios_sim": None if sim_t is None else dict(zip(labels, sim_t.tolist())),
        "drift": dict(zip(labels, [float(v) for v in drift])),
        "drift_se": dict(zip(labels, [float(v) for v in drift_se])),
        "observed": dict(zip(par.stat_labels if par is not None else labels,
                             out["g_obs"].tolist())),
        "chain_estimates": pool["chain_estimates"],
        "ee_estimates": [np.asarray(s.get("ee_estimate", s["estimate"])).tolist() for s in sums],
        "polish": [s.get("polish") for s in sums],
        "fallback": out.get("fallback"),
        "chain_t_ratios": [s["t"].tolist() for s in sums],
        "trajectory": traj,
        "ifd": ifd,
        "algorithm_s": [None if ch["s_theta"] is None else list(map(float, ch["s_theta"]))
                        for ch in chains],
        "Dmean": [None if ch["Dmean"] is None else [float(v) for v in ch["Dmean"]]
                  for ch in chains],
        "estimnet": {"chains": [s.get("estimnet", {"rows": 0}) for s in sums],
                     "pooled_se": pool["estimnet_pooled_se"]},
        "burnin_iterations": [s["burnin_iterations"] for s in sums],
        "iterations": [ch["n_done"] for ch in chains],
        "interrupted": bool(out["interrupted"]),
        "proposals": int(prop_total),
        "proposals_per_second": prop_ee / max(sec_total, 1e-12),
        "proposals_per_cpu_second": prop_ee / max(cpu_total, 1e-12),
        "cpu_seconds_ee": [ch["cpu_ee"] for ch in chains],
        "acceptance": float(np.mean(np.concatenate([ch["acc_rows"] for ch in chains])))
        if n_iter else None,
        "seconds_chains": [ch["seconds"] for ch in chains],
        "seconds_ee": [ch["seconds_ee"] for ch in chains],
        "maxrss_mb_chains": [ch["maxrss_mb"] for ch in chains],
        "settings": {k: (v if not isinstance(v, np.ndarray) else v.tolist())
                     for k, v in cfg.items()},
        "seeds": out["seeds"],
        "mcmc": {"interval": cfg["se_interval"] or int(max(1024, min(chains[0]["L_obs"], 10000))),
                 "burnin": 16 * (cfg["se_interval"] or int(max(1024, min(chains[0]["L_obs"],
                                                                            10000))))},
    }
    net = getattr(model, "network", None)
    res = ERGMResults(est, cov, labels, method="ee", **fit_nobs(model),
                      converged=converged, n_iter=n_iter, seconds=out["seconds"], cov_mc=cov_mc,
                      se_kind=se_kind, warnings=warn, info=info,
                      formula=getattr(model, "formula", None), network=net, model=model,
                      dyad_independent=getattr(model, "dyad_independent", None))
    res.mcmc_sample = _final_sample(model, out, par, sums)
    return res


def _final_sample(model, out, par, sums):
    """EE's final sample for ``fit.mcmc_diagnostics()``: the simulation at
    the estimate of every chain (the draws that give the standard errors: after
    a final step, those at the estimate reported), as statistics (observed +
    g(x) − g(x_obs)); None without a simulation."""
    sims = [s.get("final_sims", ch["sims"]) for ch, s in zip(out["chains"], sums)
            if ch.get("sims") is not None and len(ch["sims"])]
    if not sims:
        return None
    g_obs = np.asarray(out["g_obs"], dtype=float)
    labels = list(par.stat_labels) if par is not None else list(model.labels)
    return {"chains": [g_obs + np.asarray(s, dtype=float) for s in sims], "observed": g_obs,
            "labels": labels, "interval": out["chains"][0].get("sim_interval")}

