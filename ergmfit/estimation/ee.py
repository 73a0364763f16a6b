"""Equilibrium Expectation (EE): maximum likelihood for large networks.

EE (Byshkin et al. 2018; Borisenko, Byshkin & Lomi 2019) runs *one*
Metropolis-Hastings chain from the observed state and moves θ after every
``sampler_steps`` (m) proposals so that the chain's statistics stay at the
observed ones: with dzA = g(x_t) − g(x_obs) accumulated along the chain, a
statistic that drifts up pushes its parameter down and vice versa.  When
θ_t settles, x_t is (nearly) a sample of π(·|θ̄) with E[g] = g(x_obs): the
average θ̄ is the MLE.

The run, as EstimNetDirected does it (``../shared/reference/estimnet.md``):

1. **Algorithm S** (``s_steps`` iterations, moves scored against the observed
   state and never applied): a CD-1 estimate θ_S (EE's start, ``init="S"``)
   and the scale D_k = m / Σ_S dzA_k² of each parameter.  dzA = del − add and
   θ_k += sign(dzA_k) · aca_s / sumC_k² · dzA_k² (sumC = add + del).
2. **Algorithm EE** (``ee_steps`` outer × ``ee_inner_steps`` inner iterations),
   either
   * ``update="borisenko"`` (Borisenko et al. 2019, eq. 14; the default beyond 10^6 variables):
     θ_k ← θ_k − a · max(|θ_k|, c) · sign(dzA_k), ``a = learning_rate``,
     ``c = min_theta``.  ``learning_rate`` may be a sequence: the outer
     iterations are split into equal stages with those rates (the paper's
     CRF example: 0.01 then 0.001).  Default ``"auto"``: (0.01, 0.001) for
     models of at most 10^6 variables, EstimNet's constant 0.001 beyond
     (on Epinions a = 0.01 lets AltKTrianglesT run away multiplicatively
     before its slowly responding statistic catches up); or
   * ``update="adaptive"`` (Byshkin et al. 2018, EstimNetDirected's default):
     θ_k ← θ_k − sign(dzA_k) · aca_ee · D_k · dzA_k², and after every outer
     iteration D_k ← D_k · sqrt(comp_c / (sd(θ_k) / |mean θ_k|)) over its inner
     iterations (|mean| floored at 0.1), so that sd(θ)/|θ| ≈ comp_c; or
   * ``update="newton"``: θ ← θ − a · Σ⁻¹ · dzA, Σ the covariance of the
     statistics (estimated from max(200, 20 p) states of the chain at the
     start, m proposals apart, and again at each new learning-rate stage
     from the previous stage's dzA rows): the Robbins-Monro step of
     stochastic approximation (Snijders 2002) inside EE's single chain.
     The sign updates above move each parameter by its own rule, so along a
     ridge of nearly collinear statistics (faux.mesa.high: edges against the
     Grade nodefactors) they wander and drift -- the trajectory there ended
     1.3 s.e. from the MLE with |t| up to 0.17 -- while the preconditioned
     step moves along the ridge as far as the statistics ask (0.15 s.e.,
     |t| < 0.07 on the same model and seeds).  ``update="auto"`` (default)
     picks it for models of at most 10^6 variables and EstimNet's Borisenko
     update beyond (the Epinions runs were tuned and checked with it).
3. **Proposals**: ``proposal="ifd"`` (default when the model has an ``edges``
   term) is the Improved Fixed Density sampler
   (:class:`~ergmfit.sampling._proposals.IFD`): adds and deletes alternate so
   the tie count stays at L or L + 1, the auxiliary V balances them, and the
   edges parameter is recovered as θ_edges = V − log((D − L)/(L + 1)).
   ``"tnt"`` and ``"random"`` estimate every parameter by the EE update;
   ``"ifd-tnt"`` runs ``tnt_steps`` more outer iterations with tie/no-tie
   proposals after the IFD phase, started at its estimate, and estimates
   from that unconditional phase.

**IFD estimates are conditional on the tie count.**  The IFD chain samples
the model restricted to L and L + 1 ties, so EE with IFD solves
E_θ[g | L] = g(x_obs): the conditional MLE given the density, not the MLE.
For large networks the two coincide; for small ones they differ by a
noticeable part of a standard error (Lazega, 115 ties: 0.3–0.46 s.e. for
edges and nodecov.practice -- checked by simulation at statnet's MLE).
Hence the final step below.

**Estimate.**  Per chain the first ``burnin`` of the last learning-rate
stage is dropped (a fraction, default 0.2 -- EstimNet's R script drops t ≤
10,000 of its default 50,000 -- or a number of iterations); the EE estimate
is the mean of θ over the rest.  With ``polish`` (default ``"auto"``: on for
models of at most 10^6 variables, when ``se="simulate"``) one MCMC-MLE
iteration follows, with the same sample that gives the standard errors:
the Hummel step length and the importance-sampling maximiser of
:mod:`ergmfit.estimation.mcmle`.  It removes the conditioning bias above and
most of the Monte-Carlo error of the trajectory average along ridges of
correlated parameters (Lazega: from up to 0.4 to about 0.1 statnet s.e.).
The step is taken only when its Hummel step length is 1 (the observed
statistics lie inside the simulated ones); otherwise -- EE far from the MLE,
or a near-degenerate model whose simulation collapses -- it is skipped with
a warning.  The pure EE averages stay in ``info["ee_estimates"]``.

**Standard errors.**  The model part, the inverse Fisher information, is
estimated by ``se="simulate"`` (default): a tie/no-tie chain at the EE
estimate, continued from the last EE state (``se_samplesize`` draws every
``se_interval`` proposals after 16 intervals), whose statistic covariance
is the Fisher information (the quantity statnet inverts) and whose mean
checks that the estimate reproduces the observed statistics
(``info["t_ratios_sim"]``).  The Monte-Carlo part (``cov_mc``, the
"MCMC %" column) is the batch-means covariance of the trajectory average,
or -- after the final step -- I⁻¹ Var(z̄) I⁻¹ as in MCMC-MLE.  For networks
as large as Epinions a simulation of affordable length does not mix enough
for a reliable Fisher information: read those s.e. as rough.
``se="estimnet"`` uses EstimNetDirected's R formula instead (below); it is
always reported in ``info["estimnet"]``.

**Convergence t-ratio** of statistic k: mean/sd of dzA_k over the kept
iterations (for the IFD edges column: of Ndel − Nadd per iteration, as
EstimNet); the summary shows them and warns if any |t| > 0.1 (the papers'
criterion).  ``converged`` also requires the estimate not to drift: a
Geweke-type z-score, the difference of the means of θ over the first and
the second half of the kept iterations divided by its batch-means standard
error, must stay below ``drift_z_tol`` (3), or the difference itself below
``drift_se_tol`` (0.2) standard errors of the estimate, for every parameter.

**Several chains** (``n_chains``, run by joblib with ``n_jobs`` processes
and any joblib ``backend``, e.g. ``"dask"``) are pooled as EstimNet's R
script does: the inverse-variance weighted mean of the chain estimates.
The Monte-Carlo covariance pools as 1/Σ(1/V_c); the model covariance (the
sampling variance of the MLE, which more chains do not reduce) is the
inverse of the chains' mean Fisher information.  (EstimNet's script pools
the *total* variance as 1/Σ(1/se_c²), shrinking the MLE's sampling variance
with the number of chains; that figure is in ``info["estimnet"]``.)

**EstimNetDirected's R formula** (``info["estimnet"]``): rows thinned to every
``ee_inner_steps``-th iteration after the burn-in; s.e. = sqrt(diag(
Σ_bm(θ)/N + (Σ_bm(dzA)/N)⁻¹)) with Σ_bm the batch-means (b = ⌊√N⌋)
covariance.

**Where this differs from EstimNetDirected**, and why:

* sign(0) = 0 in the Borisenko update (EstimNet takes +1, which lowers θ
  whenever dzA is exactly 0 -- often, for small networks with integer
  statistics -- a bias).
* The V learned by Algorithm S is kept as EE's starting V (EstimNet restarts
  V at 0, which costs a visible EE burn-in of the density parameter).
* The IFD add/delete flag lives in the proposal object, not in a C
  ``static``: chains and estimations in one process do not share it.
* Seeds come from ``random_state`` (EstimNet: the wall-clock second).
* Learning-rate stages, the final MCMC-MLE step, the simulated Fisher
  information and the pooled covariance are additions (see above); with
  ``learning_rate=0.001, polish=False, se="estimnet"`` the estimate is
  EstimNet's trajectory average.

Stopping: ``KeyboardInterrupt`` (Ctrl-C) -- or an exception of that type
raised by ``callback`` -- ends the run after the current outer iteration;
the results then hold the trajectory so far, ``converged=False`` and a
warning saying the run was interrupted.  With ``checkpoint=DIR`` every
chain's state is saved there every ``checkpoint_every`` seconds and on
Ctrl-C; ``resume=DIR`` continues the run (also after a crash or a killed
job, from the last save).

The chain (:func:`ee_chain`) needs only a model spec with ``labels`` and
``compiled()`` (a BinaryModel at the observed state), ``statistics_vector()``
for the driver, and -- for IFD -- a density statistic (:func:`.cd.density_index`),
so the MRF models reuse it.
"""
from __future__ import annotations

import json
import math
import os
import resource
import shutil
import tempfile
import threading
import time
import warnings

import numpy as np

from ..exceptions import ConvergenceWarning, DegenerateModelError, SettingsError
from ..utils.validation import check_params, seed_words
from .base import Estimator, Setting, boolean, choice, integer, number
from .cd import density_index
from .mcmle import BACKENDS, _n_jobs
from ..sampling import make_proposal

_MAX_ROWS = 200_000          # stored trajectory rows per chain (thinned beyond)

EE_DEFAULTS = {
    "update": "auto",            # "newton" for at most 10^6 variables, else "borisenko"
    "proposal": None,            # "ifd" if the model has an edges term, else "tnt"
    "sampler_steps": 1000,       # m (EstimNet samplerSteps)
    "s_steps": 100,              # Ssteps
    "ee_steps": 200,             # EEsteps (outer); EstimNet: 500
    "ee_inner_steps": 100,       # EEinnerSteps
    "aca_s": 0.1,                # ACA_S
    "aca_ee": 1e-9,              # ACA_EE
    "comp_c": 0.01,              # compC
    "ifd_k": 0.1,                # ifd_K
    "learning_rate": "auto",     # a: (0.01, 0.001) in two stages for at most 10^6 variables,
                                 # else 0.001 (EstimNet's) throughout
    "min_theta": 0.01,           # minTheta (c)
    "tnt_steps": None,           # outer iterations of the unconditional phase of "ifd-tnt"
    "init": "S",
    "burnin": 0.2,
    "se": "simulate",
    "polish": "auto",            # a final MCMC-MLE step from the EE estimate (se="simulate");
                                 # "auto": for models of at most 10^6 variables
    "se_samplesize": 1000,
    "se_interval": None,
    "se_burnin": None,
    "t_tol": 0.1,
    "drift_tol": 1.0,            # early stop: drift < 1 sd(θ)
    "drift_z_tol": 3.0,          # convergence: |Geweke-type z| of the two halves < 3
    "drift_se_tol": 0.2,         #   or their difference < 0.2 standard errors
    "stop_when_converged": False,
    "min_ee_steps": 10,
    "thin": None,                # info trajectory: every ee_inner_steps-th iteration
    "checkpoint": None,          # directory: each chain's state is saved there ...
    "checkpoint_every": 60.0,    # ... every this many seconds, at phase ends and on Ctrl-C
}


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


def _burnin_iters(burnin, n_done, stage_start=0):
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
def _write_progress(control_dir, chain, done, total):
    if control_dir is None:
        return
    try:
        path = os.path.join(control_dir, f"progress_{chain}.txt")
        with open(path + ".tmp", "w") as fh:
            fh.write(f"{done} {total}\n")
        os.replace(path + ".tmp", path)
    except OSError:
        pass


def _stop_requested(control_dir):
    return control_dir is not None and os.path.exists(os.path.join(control_dir, "stop"))


# ---------------------------------------------------------------------------
# checkpoints: a directory with meta.json (model and settings) and one
# chain_<c>.npz per chain (no pickle: arrays plus a JSON string)
# ---------------------------------------------------------------------------
_CKPT_KIND = "ergmfit-ee-checkpoint"
_RUN_ARRAYS = ("theta_rows", "dz_rows", "acc_rows", "v_rows", "iters", "final_theta",
               "final_dzA", "D_final", "times", "cpu_times")
_RUN_SCALARS = ("proposal", "n_done", "store_every", "stage_start", "stopped_early")


def _save_npz(path, arrays, meta):
    tmp = path + ".tmp.npz"
    np.savez(tmp, __meta__=np.array(json.dumps(meta)), **arrays)
    os.replace(tmp, path)      # atomic: a crash leaves the previous checkpoint


def _load_npz(path):
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["__meta__"]))
            arrays = {k: z[k] for k in z.files if k != "__meta__"}
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{path} is not a readable EE checkpoint of ergmfit ({exc})") from None
    return meta, arrays


class _ChainCheckpoint:
    """Saves one chain's state (network, θ, dzA, D, IFD's V, trajectory so
    far) when it is due (every ``every`` seconds) and at phase ends and Ctrl-C."""

    def __init__(self, directory, chain, every, bm, ifd, fixed, runs, state):
        self.path = os.path.join(directory, f"chain_{chain}.npz")
        self.chain, self.every, self.bm, self.ifd = chain, every, bm, ifd
        self.fixed, self.runs, self.state = fixed, runs, state
        self.phase = 0
        self.last = time.perf_counter()

    def due(self):
        return time.perf_counter() - self.last >= self.every

    def __call__(self, partial):
        arrays = dict(self.fixed)
        for i, run in enumerate(self.runs):
            arrays.update({f"run{i}.{k}": np.asarray(run[k]) for k in _RUN_ARRAYS})
        arrays.update({f"cur.{k}": np.asarray(v) for k, v in partial.items() if k != "final"})
        arrays["x_on"] = self.bm.on_vars()
        meta = {"kind": _CKPT_KIND, "chain": self.chain, "phase": self.phase,
                "final": bool(partial["final"]), "outer_done": int(self.state["outer_done"]),
                "V": None if self.ifd is None else float(self.ifd.V),
                "is_delete": None if self.ifd is None else bool(self.ifd.is_delete),
                "runs": [{k: (run[k].item() if hasattr(run[k], "item") else run[k])
                          for k in _RUN_SCALARS} for run in self.runs]}
        _save_npz(self.path, arrays, meta)
        self.last = time.perf_counter()


def _read_chain_checkpoint(path, chain):
    meta, arrays = _load_npz(path)
    if meta.get("kind") != _CKPT_KIND or meta.get("chain") != chain:
        raise ValueError(f"{path} is not the EE checkpoint of chain {chain}")
    runs = []
    for i, sc in enumerate(meta["runs"]):
        run = {k: arrays[f"run{i}.{k}"] for k in _RUN_ARRAYS}
        run.update(sc)
        runs.append(run)
    current = {k[4:]: v for k, v in arrays.items() if k.startswith("cur.")}
    return {"meta": meta, "arrays": arrays, "runs": runs, "current": current}


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


_CFG_SAVED = tuple(k for k in EE_DEFAULTS if k not in ("checkpoint", "checkpoint_every"))


def _write_meta(directory, model, cfg, seeds, g_obs):
    os.makedirs(directory, exist_ok=True)
    conf = {}
    for k in _CFG_SAVED + ("dens", "init_theta"):
        v = cfg.get(k)
        conf[k] = v.tolist() if isinstance(v, np.ndarray) else (list(v) if isinstance(v, tuple)
                                                               else v)
    meta = {"kind": _CKPT_KIND, "formula": getattr(model, "formula", None),
            "labels": list(model.labels), "g_obs": [float(x) for x in g_obs],
            "seeds": [int(x) for x in seeds], "cfg": conf}
    path = os.path.join(directory, "meta.json")
    with open(path + ".tmp", "w") as fh:
        json.dump(meta, fh, indent=1)
    os.replace(path + ".tmp", path)


def _read_meta(directory, model):
    path = os.path.join(directory, "meta.json")
    try:
        with open(path) as fh:
            meta = json.load(fh)
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot resume: {path} is not an EE checkpoint of ergmfit "
                         f"({exc})") from None
    if meta.get("kind") != _CKPT_KIND:
        raise ValueError(f"cannot resume: {path} is not an EE checkpoint of ergmfit")
    if list(meta["labels"]) != list(model.labels):
        raise ValueError(f"cannot resume: the checkpoint {directory} is for the statistics "
                         f"{meta['labels']}, this model has {list(model.labels)}")
    return meta


def _inverse_cov(S, free):
    """Cov(g)⁻¹ over the free parameters (zero rows/columns elsewhere), from
    rows of statistics ``S``; a small ridge keeps it finite."""
    p = S.shape[1]
    idx = np.flatnonzero(free)
    C = np.atleast_2d(np.cov(S[:, idx], rowvar=False))
    d = np.diag(C)
    C = C + np.diag(np.maximum(1e-3 * d, 1e-9 * max(float(d.max(initial=0.0)), 1.0)))
    P = np.zeros((p, p))
    P[np.ix_(idx, idx)] = np.linalg.pinv(C)
    return P


def _preconditioner(sampler, theta, dzA, dens, free, m, n):
    """P for ``update="newton"``: Cov(g)⁻¹ from ``n`` states ``m`` proposals
    apart, continuing the chain at θ (dzA follows it, in place)."""
    th = np.array(theta, dtype=float)
    if dens is not None:
        th[dens] = 0.0          # IFD: V stands for the density parameter
    d0 = np.array(sampler.delta, dtype=float)
    S = sampler.sample(th, int(n), 0, int(m))
    dzA += np.asarray(sampler.delta, dtype=float) - d0
    return _inverse_cov(S, free)


def _ee_phase(sampler, theta, dzA, outer, inner, m, upd, cfg, Dvec, dens, arc_corr, free, chain,
              control_dir, callback, progress, state, n_planned, start=None):
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
    P = stage_dz = None
    try:
        if upd == 2:
            P = _preconditioner(sampler, theta, dzA, dens, free, m,
                                max(200, 20 * len(theta)))
            stage_dz = []
        for o in range(o_start, outer):
            if upd == 2 and o > o_start and rates[o] != rates[o - 1] and stage_dz:
                # a new learning-rate stage: Cov(g) again, nearer the estimate
                P = _inverse_cov(np.concatenate(stage_dz), free)
                stage_dz = []
            ee_iterations(sampler, theta, dzA, inner, m, upd, float(rates[o]),
                          float(cfg["min_theta"]), float(cfg["aca_ee"]), Dvec,
                          -1 if dens is None else int(dens), float(arc_corr),
                          th_c, dz_c, acc_c, v_c, P)
            if stage_dz is not None:
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
            if progress is not None:
                progress(state["outer_done"], n_planned)
            _write_progress(control_dir, chain, state["outer_done"], n_planned)
            if callback is not None:
                callback({"chain": chain, "outer": state["outer_done"], "n_outer": n_planned,
                          "iterations": done, "theta": theta.copy(), "dzA": dzA.copy(),
                          "acceptance": float(acc_c.mean())})
            if checkpoint is not None and checkpoint.due():
                checkpoint(partial())
            if _stop_requested(control_dir):
                state["interrupted"] = True
                break
            if cfg["stop_when_converged"] and o + 1 >= cfg["min_ee_steps"]:
                it_idx = np.arange(n_rows) * store_every
                keep = it_idx >= _burnin_iters(cfg["burnin"], done, stage_start)
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


def ee_chain(model, cfg, seed, chain=0, control_dir=None, callback=None, progress=None):
    """One EE chain: Algorithm S, Algorithm EE, then (``se="simulate"``) a
    tie/no-tie sample at the chain's estimate.  Returns a dict of arrays.

    ``model`` needs ``labels`` and ``compiled()``; ``cfg`` is a dict of the
    settings in :data:`EE_DEFAULTS` (plus ``init_theta``).
    """
    from ..sampling._mh import MHSampler
    from ..sampling._proposals import IFD, TieNoTie, ifd_correction
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    labels = list(model.labels)
    p = len(labels)
    bm = model.compiled()
    n_vars = int(bm.n_vars)
    L0 = int(len(bm.on_vars()))
    use_ifd = cfg["proposal"] in ("ifd", "ifd-tnt")
    two_phase = cfg["proposal"] == "ifd-tnt"
    dens = cfg["dens"] if use_ifd else None
    free = np.ones(p, dtype=bool)
    if dens is not None:
        free[dens] = False
    arc_corr = ifd_correction(n_vars, L0) if use_ifd else 0.0
    prop = IFD(K=cfg["ifd_k"]) if use_ifd else make_proposal(cfg["proposal"], bm)
    sampler = MHSampler(bm, prop, seed_words(rng))
    m = int(cfg["sampler_steps"])
    inner = int(cfg["ee_inner_steps"])
    outer = int(cfg["ee_steps"])
    adaptive = cfg["update"] == "adaptive"

    saved = None
    if cfg.get("resume") is not None:
        path = os.path.join(cfg["resume"], f"chain_{chain}.npz")
        if os.path.exists(path):     # else this chain had not started: run it afresh
            saved = _read_chain_checkpoint(path, chain)
    if saved is not None:
        # a resumed chain continues with a stream of its own (the MH
        # sampler's generator state is not saved): reproducible, not the
        # same draws as an uninterrupted run
        rng = np.random.default_rng([seed, saved["meta"]["outer_done"], 1])
        _restore_state(bm, saved["arrays"]["x_on"])
        if use_ifd:
            prop.V = saved["meta"]["V"]
            prop.is_delete = saved["meta"]["is_delete"]
        sampler = MHSampler(bm, prop, seed_words(rng))

    # --- Algorithm S --------------------------------------------------------
    s_theta = Dmean = s_rows = None
    need_s = cfg["init"] == "S" or adaptive
    if saved is not None:
        s_theta, Dmean, s_rows = (saved["arrays"].get(k) for k in ("s_theta", "Dmean", "s_rows"))
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
            prop.V = theta[dens] + arc_corr
    if Dmean is None:
        Dmean = np.ones(p)
    Dvec = np.where(np.isfinite(Dmean), Dmean, 0.0).astype(float) if adaptive else np.ones(p)
    if use_ifd:
        theta[dens] = prop.V - arc_corr

    # --- Algorithm EE -------------------------------------------------------
    upd = {"borisenko": 0, "adaptive": 1, "newton": 2}[cfg["update"]]
    t_ee = time.perf_counter()
    c_ee = time.process_time()
    phases = [("ifd" if use_ifd else cfg["proposal"], outer)]
    if two_phase:
        phases.append(("tnt", int(cfg["tnt_steps"]) if cfg["tnt_steps"] is not None else outer))
    n_planned = sum(n for _, n in phases)
    state = {"outer_done": 0, "interrupted": False}
    runs = []
    dzA = np.zeros(p)
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
        ckpt = _ChainCheckpoint(cfg["checkpoint"], chain, float(cfg["checkpoint_every"]), bm,
                                prop if use_ifd else None, fixed, runs, state)
        state["checkpoint"] = ckpt
    for ph in range(ph0, len(phases)):
        kind, n_outer = phases[ph]
        if ckpt is not None:
            ckpt.phase = ph
        if ph == 1:
            if start is None:
                # unconditional phase: start at the IFD phase's estimate, same state
                prev = runs[-1]
                keep = prev["iters"] >= _burnin_iters(cfg["burnin"], prev["n_done"],
                                                      prev["stage_start"])
                if keep.any():
                    theta = prev["theta_rows"][keep].mean(axis=0)
                dzA = runs[-1]["final_dzA"].copy()     # g(x_t) - g(x_obs), edges included
                Dvec = np.where(np.isfinite(Dmean), Dmean, 0.0).astype(float) if adaptive \
                    else np.ones(p)
                if adaptive and dens is not None and not Dvec[dens] > 0:
                    Dvec[dens] = np.median(Dvec[free]) if free.any() else 1.0
            sampler = MHSampler(bm, TieNoTie(), seed_words(rng))
            dens_ph = None
            free_ph = np.ones(p, dtype=bool)
        else:
            dens_ph = dens
            free_ph = free
        run = _ee_phase(sampler, theta, dzA, n_outer, inner, m, upd, cfg, Dvec, dens_ph,
                        arc_corr, free_ph, chain, control_dir, callback, progress, state,
                        n_planned, start=start)
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
    if cfg["se"] == "simulate" and not interrupted and n_rows >= 4:
        it_idx = np.arange(n_rows) * store_every
        keep = it_idx >= _burnin_iters(cfg["burnin"], done, out["stage_start"])
        est = out["theta_rows"][keep].mean(axis=0)
        t_sim = time.perf_counter()
        try:
            interval = cfg["se_interval"] or int(max(1024, min(L0, 10000)))
            burn = cfg["se_burnin"] if cfg["se_burnin"] is not None else 16 * interval
            # the model's own MCMC proposal (triadic moves for triangle terms mix
            # far better on clustered networks), as MCMC-MLE samples
            s2 = MHSampler(bm, make_proposal(getattr(model, "default_proposal", "tnt"), bm),
                           seed_words(rng))
            draws = s2.sample(est, int(cfg["se_samplesize"]), int(burn), int(interval))
            out["sims"] = out["final_dzA"] + draws
            out["proposals_sim"] = int(burn) + int(cfg["se_samplesize"]) * int(interval)
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


# ---------------------------------------------------------------------------
# summaries of chains
# ---------------------------------------------------------------------------
def _chain_summary(ch, burnin, inner, polish=False):
    """Estimate, covariances and t-ratios of one chain."""
    p = len(ch["labels"])
    th, dz = ch["theta_rows"], ch["dz_rows"]
    it_idx = np.arange(len(th)) * ch["store_every"]
    b = _burnin_iters(burnin, ch["n_done"], ch["stage_start"])
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
    h = N // 2
    if N >= 8:
        a, b2 = thk[:h], thk[h:]
        va = np.diag(batch_means_sigma(a)) / len(a)
        vb = np.diag(batch_means_sigma(b2)) / len(b2)
        d = np.abs(a.mean(axis=0) - b2.mean(axis=0))
        with np.errstate(divide="ignore", invalid="ignore"):
            res["drift_z"] = np.where(va + vb > 0, d / np.sqrt(va + vb), np.where(d == 0, 0.0, np.inf))
        res["drift_abs"] = d
    else:
        res["drift_z"] = np.full(p, np.inf)
        res["drift_abs"] = np.full(p, np.inf)
    # model covariance from the simulation at the estimate
    if ch["sims"] is not None and len(ch["sims"]) > p:
        S = np.cov(ch["sims"], rowvar=False).reshape(p, p)
        res["fisher"] = S
        res["sim_t"] = t_ratios(ch["sims"])
        res["sim_mean"] = ch["sims"].mean(axis=0)
        res["ee_estimate"] = est.copy()
        if polish:
            # one MCMC-MLE iteration from the EE estimate with the same sample:
            # Hummel step length and the importance-sampling maximiser
            from .mcmle import hummel_step, maximize_is_loglik
            Z = ch["sims"]
            gamma = hummel_step(Z, 0.05)
            eta = maximize_is_loglik(Z, (1.0 - gamma) * Z.mean(axis=0))
            res["polish"] = {"step": None, "gamma": float(gamma), "skipped": True}
            # only a full step is trusted: the observed statistics must lie well
            # inside the sample's convex hull (else the sample is far from the
            # observed network -- EE not converged or a near-degenerate model)
            if gamma >= 1.0 and np.all(np.isfinite(eta)):
                res["estimate"] = est + eta
                res["polish"] = {"step": eta.tolist(), "gamma": float(gamma), "skipped": False}
                # its Monte-Carlo covariance, as MCMC-MLE: I^-1 Var(z bar) I^-1
                Iinv = _inv(S)
                V = batch_means_sigma(Z) / len(Z)
                if np.all(np.isfinite(V)):
                    res["cov_mc"] = Iinv @ _make_pd(V) @ Iinv
    # EstimNetDirected's R formula on rows thinned to every `inner` iterations
    step = max(1, inner // ch["store_every"])
    thr, dzr = thk[::step], dzk[::step]
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
                  se=se.tolist(), t_ratio=t_ratios(dzr).tolist())
    res["estimnet"] = en
    return res


def singular_information(F, rtol=1e-12):
    """True if the covariance F of simulated statistics is singular: a
    statistic did not vary, or one is a linear combination of others."""
    F = np.asarray(F, dtype=float)
    if F.size == 0 or not np.all(np.isfinite(F)):
        return True
    w = np.linalg.eigvalsh(0.5 * (F + F.T))
    return not (w.max() > 0 and w.min() > rtol * w.max())


def _inv(S):
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
        cov_model = (np.full(F.shape, np.nan) if singular_information(F) else _inv(F))
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
        prec = sum(_inv(s["cov_mc"]) for s in ok)
        cov_mc = _inv(prec)
    cov = cov_mc + cov_model if cov_model is not None else None
    # R-script pooled s.e. (total variances pooled)
    with np.errstate(divide="ignore", invalid="ignore"):
        se_r = np.sqrt(1.0 / np.nansum(1.0 / var_c, axis=0))
    return est, cov, cov_mc, cov_model, {"estimnet_pooled_se": se_r.tolist(),
                                          "chain_estimates": est_c.tolist()}


# ---------------------------------------------------------------------------
# running the chains
# ---------------------------------------------------------------------------
def _planned_outer(cfg):
    n = cfg["ee_steps"]
    if cfg["proposal"] == "ifd-tnt":
        n += cfg["tnt_steps"] if cfg["tnt_steps"] is not None else cfg["ee_steps"]
    return n


def _run_sequential(model, cfg, seeds, callback, verbose):
    bar = None
    if verbose:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(seeds) * _planned_outer(cfg), desc="EE", unit="outer", leave=False)
    out = []
    interrupted = False
    try:
        for c, seed in enumerate(seeds):
            last = [0]

            def progress(done, total, last=last):
                if bar is not None:
                    bar.update(done - last[0])
                    last[0] = done
            res = ee_chain(model, cfg, seed, c, None, callback, progress)
            out.append(res)
            if res["interrupted"]:
                interrupted = True
                break
    except KeyboardInterrupt:      # during Algorithm S or setup of a chain
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    return out, interrupted


def _run_parallel(model, cfg, seeds, n_jobs, backend, callback, verbose):
    import joblib
    from joblib import Parallel, delayed
    from joblib.parallel import get_active_backend
    control_dir = tempfile.mkdtemp(prefix="ergmfit_ee_")
    active = None
    if backend is None:
        active, _ = get_active_backend()   # a joblib context of the caller's thread
    result = {}
    done = threading.Event()

    def target():
        try:
            jobs = (delayed(ee_chain)(model, cfg, s, c, control_dir, callback)
                    for c, s in enumerate(seeds))
            # max_nbytes=None: no read-only memory maps of the network's arrays
            # (NetworkState needs a writable tie buffer)
            # (parallel_config also registers the lazily loaded "dask" backend)
            with joblib.parallel_config(backend=active if active is not None else backend):
                result["out"] = Parallel(n_jobs=n_jobs, max_nbytes=None)(jobs)
        except BaseException as exc:   # noqa: BLE001 - re-raised in the caller's thread
            result["err"] = exc
        finally:
            done.set()

    bar = None
    if verbose:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(seeds) * _planned_outer(cfg), desc=f"EE x{len(seeds)}", unit="outer",
                   leave=False)
    th = threading.Thread(target=target, daemon=True)
    th.start()
    interrupted = False
    shown = 0
    # wait on an Event, not Thread.join: a join interrupted by Ctrl-C can
    # return early afterwards (CPython), before the chains have stopped
    try:
        while not done.wait(0.5):
            if bar is not None:
                total = 0
                for c in range(len(seeds)):
                    try:
                        with open(os.path.join(control_dir, f"progress_{c}.txt")) as fh:
                            total += int(fh.read().split()[0])
                    except (OSError, ValueError, IndexError):
                        pass
                if total > shown:
                    bar.update(total - shown)
                    shown = total
    except KeyboardInterrupt:
        interrupted = True
        try:
            open(os.path.join(control_dir, "stop"), "w").close()
        except OSError:
            pass
        while not done.wait(0.5):    # the chains stop after their current outer iteration
            pass
    finally:
        if bar is not None:
            bar.close()
        shutil.rmtree(control_dir, ignore_errors=True)
    if "err" in result:
        err = result["err"]
        if isinstance(err, KeyboardInterrupt):
            raise RuntimeError("the parallel EE chains were aborted; no results") from err
        raise err
    out = result.get("out", [])
    interrupted = interrupted or any(o["interrupted"] for o in out)
    return out, interrupted


# ---------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------
def _resolve_cfg(model, kwargs):
    cfg = dict(EE_DEFAULTS)
    unknown = [k for k in kwargs if k not in cfg]
    if unknown:
        raise TypeError(f"unknown EE setting(s) {unknown}; the settings are {sorted(cfg)}")
    cfg.update(kwargs)
    labels = list(model.labels)
    if cfg["update"] not in ("auto", "borisenko", "adaptive", "newton"):
        raise ValueError("update must be 'auto', 'borisenko', 'adaptive' or 'newton', got "
                         f"{cfg['update']!r}")
    if cfg["update"] == "auto":
        n_vars = getattr(getattr(model, "network", None), "n_dyads", None)
        cfg["update"] = "newton" if n_vars is None or n_vars <= 10**6 else "borisenko"
    dens = density_index(model)
    if cfg["proposal"] is None:
        cfg["proposal"] = "ifd" if dens is not None else "tnt"
    if cfg["proposal"] not in ("ifd", "ifd-tnt", "tnt", "random"):
        raise ValueError("proposal must be 'ifd', 'ifd-tnt', 'tnt' or 'random', got "
                         f"{cfg['proposal']!r}")
    if cfg["proposal"] in ("ifd", "ifd-tnt") and dens is None:
        raise ValueError("proposal='ifd' needs a density term (edges / Arc) in the model, whose "
                         "parameter it recovers from the auxiliary parameter; add 'edges' or use "
                         "proposal='tnt'")
    cfg["dens"] = dens
    if cfg["polish"] == "auto":
        n_vars = getattr(getattr(model, "network", None), "n_dyads", None)
        cfg["polish"] = bool(cfg["se"] == "simulate" and (n_vars is None or n_vars <= 10**6))
    cfg["polish"] = bool(cfg["polish"])
    if isinstance(cfg["learning_rate"], str):
        if cfg["learning_rate"] != "auto":
            raise ValueError(f"learning_rate must be a number, a sequence or 'auto', got "
                             f"{cfg['learning_rate']!r}")
        n_vars = getattr(getattr(model, "network", None), "n_dyads", None)
        small = n_vars is None or n_vars <= 10**6
        cfg["learning_rate"] = (0.01, 0.001) if small else 0.001
    for key in ("sampler_steps", "ee_steps", "ee_inner_steps"):
        if int(cfg[key]) < 1:
            raise ValueError(f"{key} must be at least 1, got {cfg[key]}")
        cfg[key] = int(cfg[key])
    if int(cfg["s_steps"]) < 0:
        raise ValueError(f"s_steps must be >= 0, got {cfg['s_steps']}")
    cfg["s_steps"] = int(cfg["s_steps"])
    if cfg["se"] not in ("simulate", "estimnet", "none"):
        raise ValueError(f"se must be 'simulate', 'estimnet' or 'none', got {cfg['se']!r}")
    _stages(cfg["learning_rate"], 1)
    b = cfg["burnin"]
    if isinstance(b, float) and not (0.0 <= b < 1.0):
        raise ValueError(f"burnin must be a fraction in [0, 1) or a number of iterations, got {b}")
    init = cfg["init"]
    if isinstance(init, str):
        if init not in ("S", "cd", "mple"):
            raise ValueError(f"init must be 'S', 'cd', 'mple' or parameter values, got {init!r}")
        cfg["init_theta"] = None
    else:
        cfg["init_theta"] = check_params(init, labels, "init")
        cfg["init"] = "user"
    return cfg


def _resume_cfg(model, directory, g_obs, kwargs):
    """The settings and chain seeds saved in the checkpoint ``directory``."""
    meta = _read_meta(directory, model)
    if not np.allclose(meta.get("g_obs", []), g_obs, rtol=1e-12, atol=0):
        raise ValueError(f"cannot resume: the checkpoint {directory} was written for a network "
                         "with other observed statistics")
    given = sorted(k for k in kwargs if k not in ("checkpoint", "checkpoint_every"))
    if given:
        raise ValueError(f"resume continues with the checkpoint's settings; do not pass {given}")
    cfg = dict(EE_DEFAULTS)
    cfg.update(meta["cfg"])
    if isinstance(cfg["learning_rate"], list):
        cfg["learning_rate"] = tuple(cfg["learning_rate"])
    if cfg.get("init_theta") is not None:
        cfg["init_theta"] = np.asarray(cfg["init_theta"], dtype=float)
    cfg["checkpoint"] = kwargs.get("checkpoint", directory)
    cfg["checkpoint_every"] = kwargs.get("checkpoint_every", EE_DEFAULTS["checkpoint_every"])
    if cfg["checkpoint"] is not None and os.path.abspath(cfg["checkpoint"]) != \
            os.path.abspath(directory):
        shutil.copytree(directory, cfg["checkpoint"], dirs_exist_ok=True)
    cfg["resume"] = directory
    return cfg, list(meta["seeds"])


def ee_core(model, random_state=None, verbose=False, n_chains=1, n_jobs=1, backend=None,
            callback=None, resume=None, **kwargs):
    """Run EE; returns a dict with everything :func:`fit_ee` puts in the results.

    See the module docstring for the algorithm and :data:`EE_DEFAULTS` for
    the settings (EstimNetDirected's names in lower case: ``sampler_steps``,
    ``s_steps``, ``ee_steps``, ``ee_inner_steps``, ``aca_s``, ``aca_ee``,
    ``comp_c``, ``ifd_k``, ``learning_rate``, ``min_theta``).
    """
    from ..sampling.chains import chain_seeds
    t0 = time.perf_counter()
    g_obs = np.asarray(model.statistics_vector(), dtype=float)
    if resume is not None:
        cfg, seeds = _resume_cfg(model, resume, g_obs, kwargs)
        n_chains = len(seeds)
    else:
        cfg = _resolve_cfg(model, kwargs)
        n_chains = int(n_chains)
        if n_chains < 1:
            raise ValueError(f"n_chains must be at least 1, got {n_chains}")
        rng = np.random.default_rng(random_state) \
            if not isinstance(random_state, np.random.Generator) else random_state
        seeds = chain_seeds(rng, n_chains)
        if cfg["init"] in ("cd", "mple"):
            if cfg["init"] == "cd":
                from .cd import cd_core
                cfg["init_theta"] = np.asarray(cd_core(model, random_state=rng)["params"])
            else:
                from .mple import fit_mple
                cfg["init_theta"] = np.asarray(fit_mple(model, verbose=False).params,
                                               dtype=float)
            cfg["init"] = "user"
        if cfg["checkpoint"] is not None:
            _write_meta(cfg["checkpoint"], model, cfg, seeds, g_obs)
    if n_jobs == 1 or n_chains == 1:
        chains, interrupted = _run_sequential(model, cfg, seeds, callback, verbose)
    else:
        chains, interrupted = _run_parallel(model, cfg, seeds, n_jobs, backend, callback, verbose)
    if not chains:
        raise KeyboardInterrupt
    return {"cfg": cfg, "chains": chains, "interrupted": interrupted, "g_obs": g_obs,
            "seconds": time.perf_counter() - t0, "seeds": seeds}


def _learning_rate(name, value):
    if isinstance(value, str):
        if value.lower() != "auto":
            raise SettingsError(f"setting 'learning_rate' must be a number, a sequence or "
                                f"'auto', got {value!r}")
        return "auto"
    try:
        _stages(value, 1)
    except (TypeError, ValueError):
        raise SettingsError(f"setting 'learning_rate' must be a positive number or a sequence "
                            f"of them, got {value!r}") from None
    return value


def _burnin(name, value):
    if isinstance(value, float) and 0.0 <= value < 1.0:
        return value
    if isinstance(value, float) and not (np.isfinite(value) and value == int(value)):
        raise SettingsError(f"setting 'burnin' must be a fraction in [0, 1) or a number of "
                            f"iterations, got {value}")
    try:
        return integer(0)(name, value)
    except SettingsError:
        raise SettingsError(f"setting 'burnin' must be a fraction in [0, 1) or a number of "
                            f"iterations, got {value!r}") from None


def _polish(name, value):
    if isinstance(value, str) and value.lower() == "auto":
        return "auto"
    try:
        return boolean(name, value)
    except SettingsError:
        raise SettingsError(f"setting 'polish' must be True, False or 'auto', got {value!r}") \
            from None


def _init(name, value):
    if isinstance(value, str) and value not in ("S", "cd", "mple"):
        raise SettingsError(f"setting 'init' must be 'S', 'cd', 'mple' or parameter values, "
                            f"got {value!r}")
    return value


def _callback(name, value):
    if value is not None and not callable(value):
        raise SettingsError(f"setting 'callback' must be callable or None, got {value!r}")
    return value


_EE_CHECKS = {
    "update": choice("auto", "borisenko", "adaptive", "newton", lower=False),
    "proposal": choice("ifd", "ifd-tnt", "tnt", "random", allow_none=True, lower=False),
    "sampler_steps": integer(1), "s_steps": integer(0), "ee_steps": integer(1),
    "ee_inner_steps": integer(1), "aca_s": number(0), "aca_ee": number(0), "comp_c": number(0),
    "ifd_k": number(0, lo_open=True), "learning_rate": _learning_rate, "min_theta": number(0),
    "tnt_steps": integer(1, allow_none=True), "init": _init, "burnin": _burnin,
    "se": choice("simulate", "estimnet", "none", lower=False), "polish": _polish,
    "se_samplesize": integer(1), "se_interval": integer(1, allow_none=True),
    "se_burnin": integer(0, allow_none=True), "t_tol": number(0, lo_open=True),
    "drift_tol": number(0, lo_open=True), "drift_z_tol": number(0, lo_open=True),
    "drift_se_tol": number(0, lo_open=True), "stop_when_converged": boolean,
    "min_ee_steps": integer(0), "thin": integer(1, allow_none=True), "checkpoint": None,
    "checkpoint_every": number(0),
}
_EE_DOCS = {
    "update": "'auto', 'newton', 'borisenko' or 'adaptive' (see above).",
    "proposal": "'ifd' (default with an edges term), 'ifd-tnt', 'tnt' or 'random'.",
    "sampler_steps": "m, proposals per EE iteration (EstimNet samplerSteps).",
    "s_steps": "Algorithm S iterations (Ssteps).", "ee_steps": "EE outer iterations (EEsteps).",
    "ee_inner_steps": "EE inner iterations per outer one (EEinnerSteps).",
    "learning_rate": "a of the Borisenko / Newton update: a number, stages or 'auto'.",
    "init": "'S', 'cd', 'mple' or parameter values.",
    "burnin": "Fraction of the last stage (or iterations) dropped.",
    "se": "'simulate', 'estimnet' or 'none'.", "polish": "Final MCMC-MLE step (True/False/'auto').",
    "checkpoint": "Directory where the run is saved.",
    "checkpoint_every": "Seconds between saves.",
}


class EE(Estimator):
    """Equilibrium Expectation (see :mod:`ergmfit.estimation.ee`).

    ``EE(**settings).fit(model)`` returns an :class:`~ergmfit.results.ERGMResults`
    with method ``"ee"``; ``ERGM.fit(method="ee", **settings)`` builds it.
    Model-dependent defaults (``"auto"`` values, the proposal) are resolved
    when it fits.

Fit ``model`` by Equilibrium Expectation (see the module docstring).

    Settings in detail
    ------------------
    model : ERGM (or a spec with ``labels``, ``statistics_vector()``, ``compiled()``)
    random_state : int, Generator or None
        Same seed, same result (whatever ``n_jobs``).
    verbose : bool
        A tqdm progress bar (outer iterations of all chains).
    n_chains, n_jobs, backend
        Independent chains, pooled; run by joblib with ``n_jobs`` workers and
        the joblib ``backend`` (``"loky"`` processes by default, ``"dask"`` for
        a dask.distributed cluster; a ``joblib.parallel_config`` context is
        honoured too).
    callback : callable, optional
        Called after every outer iteration with a dict (chain, outer,
        n_outer, iterations, theta, dzA, acceptance).  Raising
        KeyboardInterrupt there stops the run like Ctrl-C.
    update : {"auto", "newton", "borisenko", "adaptive"}
        The parameter update (module docstring); "auto": "newton" for at
        most 10^6 variables, else "borisenko".
    proposal : {"ifd", "ifd-tnt", "tnt", "random"}
        Default "ifd" with an edges term, else "tnt".
    sampler_steps, s_steps, ee_steps, ee_inner_steps : int
        m proposals per iteration, Algorithm S iterations, EE outer × inner
        iterations (1000, 100, 200 × 100; EstimNet: 1000, 100, 500 × 100).
    tnt_steps : int
        Outer iterations of the unconditional phase of "ifd-tnt" (default ee_steps).
    learning_rate : float, sequence of floats or "auto"
        a of the Borisenko update, constant or in equal stages (module docstring).
    min_theta : float
        c of the Borisenko update (0.01).
    aca_s, aca_ee, comp_c, ifd_k : float
        EstimNet's ACA_S (0.1), ACA_EE (1e-9), compC (0.01), ifd_K (0.1).
    init : "S", "cd", "mple" or parameter values
        EE's start: Algorithm S's CD-1 estimate (default), statnet-style CD,
        the MPLE, or given values.
    burnin : float or int
        Fraction of the last learning-rate stage (default 0.2) or number of
        EE iterations dropped.
    se : {"simulate", "estimnet", "none"}
        How the model part of the covariance is estimated (module docstring).
    polish : bool or "auto"
        The final MCMC-MLE step from the EE estimate (needs se="simulate").
    se_samplesize, se_interval, se_burnin : int
        The simulation at the estimate for ``se="simulate"`` (1000 draws,
        interval max(1024, min(L, 10000)) proposals, burn-in 16 intervals).
    t_tol, drift_z_tol, drift_se_tol, drift_tol : float
        Convergence criteria: all |t-ratio| < t_tol (0.1), and the means of
        the two halves of the kept trajectory differ by less than drift_z_tol
        (3) Monte-Carlo standard errors or drift_se_tol (0.2) standard errors
        of the estimate; ``stop_when_converged`` uses drift_tol (1) sd of θ.
    stop_when_converged : bool
        Stop as soon as the criteria hold (checked every outer iteration of
        the last learning-rate stage after ``min_ee_steps``) instead of
        running all ``ee_steps``.
    thin : int
        Keep every ``thin``-th iteration in ``info["trajectory"]`` (default
        ``ee_inner_steps``, as EstimNet's output files).
    checkpoint : path, optional
        A directory where the run is saved: ``meta.json`` (model, settings,
        seeds) and each chain's state (network, θ, dzA, D, IFD's V and the
        trajectory so far) every ``checkpoint_every`` seconds (60), at the
        end of each phase and on Ctrl-C.
    resume : path, optional
        Continue the run saved in this checkpoint directory with its
        settings and chains (other settings may not be passed; ``n_chains``
        and ``random_state`` are ignored).  It goes on saving there unless
        ``checkpoint`` names another directory.  A resumed chain continues
        with its own random stream, so its draws differ from those of an
        uninterrupted run (reproducibly); its estimate is of the same quality.

    Returns
    -------
    ERGMResults
        method ``"ee"``; ``info`` holds ``t_ratios``, ``t_ratios_sim``,
        ``trajectory`` (θ every ``thin`` iterations of each chain),
        ``ifd`` (auxiliary parameter history and the arc correction),
        ``chain_estimates``, ``algorithm_s``, ``estimnet`` (the R script's
        figures), ``proposals_per_second`` (wall) and ``proposals_per_cpu_second``
        of the EE loop, and the settings.
    
    """

    method = "ee"
    SETTINGS = tuple(Setting(k, v, _EE_CHECKS[k], _EE_DOCS.get(k, "")) for k, v in
                     EE_DEFAULTS.items()) + (
        Setting("n_chains", 1, integer(1), "Independent chains, pooled."),
        Setting("n_jobs", 1, _n_jobs, "Parallel processes (joblib; -1: every CPU)."),
        Setting("backend", None, choice(*BACKENDS, allow_none=True),
                "joblib backend of parallel chains ('loky' default, 'dask')."),
        Setting("callback", None, _callback, "Called after every outer iteration."),
        Setting("resume", None, None, "Continue the run saved in this checkpoint directory."),
    )

    def fit(self, model):
        params = self.get_params()
        settings = {k: params[k] for k in EE_DEFAULTS}
        if params["resume"] is not None:
            # a resumed run goes on with the checkpoint's settings: pass on
            # only those set to something else (ee_core refuses them)
            settings = {k: v for k, v in settings.items() if _differs(v, EE_DEFAULTS[k])}
        out = ee_core(model, random_state=params["random_state"], verbose=params["verbose"],
                      n_chains=params["n_chains"], n_jobs=params["n_jobs"],
                      backend=params["backend"], callback=params["callback"],
                      resume=params["resume"], **settings)
        return build_results(model, out)


def _differs(value, default):
    if value is default:
        return False
    try:
        return not bool(np.all(np.asarray(value, dtype=object) == default)) \
            or np.shape(value) != np.shape(default)
    except Exception:        # noqa: BLE001 - incomparable: different
        return True


def fit_ee(model, random_state=None, verbose=False, n_chains=1, n_jobs=1, backend=None,
           callback=None, resume=None, **kwargs):
    """Fit ``model`` by Equilibrium Expectation: ``EE(**settings).fit(model)``
    (see :class:`EE` for the settings)."""
    unknown = [k for k in kwargs if k not in EE_DEFAULTS]
    if unknown:
        raise SettingsError(f"unknown EE setting(s) {unknown}; the settings are: "
                            + ", ".join(EE.setting_names()))
    return EE(random_state=random_state, verbose=verbose, n_chains=n_chains, n_jobs=n_jobs,
              backend=backend, callback=callback, resume=resume, **kwargs).fit(model)


def build_results(model, out):
    """Turn :func:`ee_core`'s output into an ERGMResults."""
    from ..results import ERGMResults
    cfg, chains = out["cfg"], out["chains"]
    labels = list(model.labels)
    p = len(labels)
    inner = cfg["ee_inner_steps"]
    sums = [_chain_summary(ch, cfg["burnin"], inner, cfg["polish"]) for ch in chains]
    est, cov, cov_mc, cov_model, pool = pool_chains(sums)
    warn = []
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
            cov_mc = None
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
    bad_t = [labels[k] for k in range(p) if not (abs(tr[k]) < cfg["t_tol"])]
    bad_d = [labels[k] for k in range(p)
             if not (drift[k] < cfg["drift_z_tol"] or drift_se[k] < cfg["drift_se_tol"])]
    converged = not out["interrupted"] and not bad_t and not bad_d
    if out["interrupted"]:
        n_done = sum(ph["n_done"] for ch in chains for ph in ch["phases"])
        planned = _planned_outer(cfg) * cfg["ee_inner_steps"] * len(out["seeds"])
        warn.append(f"Interrupted: the EE run was stopped after {n_done} iterations "
                    f"(of {planned} planned); "
                    "the estimates are those of the trajectory so far and are not converged."
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
               "D": chains[0]["n_vars"],
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
        "observed": dict(zip(labels, out["g_obs"].tolist())),
        "chain_estimates": pool["chain_estimates"],
        "ee_estimates": [np.asarray(s.get("ee_estimate", s["estimate"])).tolist() for s in sums],
        "polish": [s.get("polish") for s in sums],
        "chain_t_ratios": [s["t"].tolist() for s in sums],
        "trajectory": traj,
        "ifd": ifd,
        "algorithm_s": [None if ch["s_theta"] is None else list(map(float, ch["s_theta"]))
                        for ch in chains],
        "Dmean": [None if ch["Dmean"] is None else [float(v) for v in ch["Dmean"]]
                  for ch in chains],
        "estimnet": {"chains": [s["estimnet"] for s in sums],
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
    return ERGMResults(est, cov, labels, method="ee", nobs=getattr(net, "n_dyads", None),
                       converged=converged, n_iter=n_iter, seconds=out["seconds"], cov_mc=cov_mc,
                       se_kind=se_kind, warnings=warn, info=info,
                       formula=getattr(model, "formula", None), network=net, model=model,
                       dyad_independent=getattr(model, "dyad_independent", None))
