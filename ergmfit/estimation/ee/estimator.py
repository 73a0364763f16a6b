"""Equilibrium Expectation (EE): maximum likelihood for large networks.

EE runs one Metropolis-Hastings chain from the observed network and moves θ
after every ``sampler_steps`` proposals so that the chain's statistics stay
at the observed ones; the average θ once it settles is the MLE.  Algorithm S
gives the start and the scales, then the EE updates (``update="borisenko"``,
``"adaptive"`` or ``"newton"``) run with IFD, tie/no-tie or random-toggle
proposals; constraints, missing dyads, offsets and curved terms are
supported.  The algorithm, its settings' choices and what was checked are in
``docs/guide/estimators/ee_algorithm.md``.

References
----------
Byshkin, M., Stivala, A., Mira, A., Robins, G. & Lomi, A. (2018). Fast maximum
likelihood estimation via equilibrium expectation for large network data.
*Scientific Reports* 8, 11509.

Borisenko, A., Byshkin, M. & Lomi, A. (2019). A simple algorithm for scalable
Monte Carlo inference. arXiv:1901.00533.

Examples
--------
>>> import ergmfit as ef
>>> from ergmfit.estimation import EE
>>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
>>> fit = EE(random_state=1).fit(m)
>>> fit.method
'ee'
"""
from __future__ import annotations

import numbers
import os
import shutil
import time

import numpy as np

from ...exceptions import CheckpointError, SettingsError
from ...runtime import Checkpoint, Progress, run_jobs
from ...utils.validation import check_params
from ..base import BACKENDS, Estimator, Setting, boolean, choice, integer, n_jobs_setting, number
from ...runtime.interrupts import second_ctrl_c_waits
from ..contrastive.cd import density_index
from ..mcmle.start import initial_estimate
from .chain import _planned_outer, _stages, ee_chain
from .checkpoint import EEMetaState
from .proposals import _density_param, _free_density
from .simulation import sim_plan
from .start import mple_start, refit_unconditional
from .pool import build_results

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
    "burnin": "auto",            # 0.2 of the last stage; beyond 10^6 variables EstimNet's R
                                 # script's 10,000 iterations (or 0.2 of the run if more)
    "se": "auto",                # "simulate"; beyond 10^6 variables with IFD "estimnet"
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



_CFG_SAVED = tuple(k for k in EE_DEFAULTS if k not in ("checkpoint", "checkpoint_every"))


def _write_meta(store, model, cfg, seeds, g_obs):
    conf = {}
    for k in _CFG_SAVED + ("dens", "dens_theta", "init_theta"):
        v = cfg.get(k)
        conf[k] = v.tolist() if isinstance(v, np.ndarray) else (list(v) if isinstance(v, tuple)
                                                               else v)
    EEMetaState(g_obs=g_obs, seeds=seeds, cfg=conf).write(store, model, "meta.json")


def _run_chains(model, cfg, seeds, n_jobs, backend, callback, verbose):
    """The chains, here or in parallel, through the long-run service
    (progress bar, Ctrl-C: each chain stops after its current outer
    iteration and returns its trajectory so far)."""
    # the bar counts outer iterations, then the simulation at the estimate in
    # pieces of one outer iteration's proposals
    ties = getattr(getattr(model, "network", None), "n_ties", None)
    total = len(seeds) * (_planned_outer(cfg) + sim_plan(cfg, ties)[4])
    desc = "EE" if n_jobs == 1 or len(seeds) == 1 else f"EE x{len(seeds)}"
    with Progress(total, desc, unit="outer", enabled=verbose) as bar:
        return run_jobs(ee_chain, [(model, cfg, s, c, callback) for c, s in enumerate(seeds)],
                        n_jobs=n_jobs, backend=backend, progress=bar,
                        is_interrupted=lambda res: res["interrupted"])


def _is_s(init) -> bool:
    """``init`` is Algorithm S (not parameter values, which compare elementwise)."""
    return isinstance(init, str) and init == "S"


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
    par = getattr(model, "parameterisation", None)
    curved = par is not None and not par.linear
    if curved:
        # θ and the statistics differ: the update goes through the map's
        # Jacobian, which the per-parameter sign updates have no use for
        if _is_s(cfg["init"]):      # Algorithm S estimates η, not θ: start at the curved MPLE
            cfg["init"] = "mple"
    if cfg["update"] == "auto":
        n_vars = getattr(getattr(model, "network", None), "n_dyads", None)
        cfg["update"] = "newton" if n_vars is None or n_vars <= 10**6 else "borisenko"
    dens = _free_density(model, density_index(model), cfg["proposal"], curved)
    space = getattr(model, "sample_space", None)
    if space is not None and space.n_missing:       # a conditional chain beside EE's
        from .missing import check_missing_cfg
        check_missing_cfg(model, cfg, space)
    degree_space = space is not None and space.constrained and not space.dyad_independent
    if cfg["proposal"] is None:
        cfg["proposal"] = "ifd" if dens is not None and not degree_space else "tnt"
    if space is not None and space.constrained and (
            cfg["proposal"] == "random" or degree_space and cfg["proposal"] != "tnt"):
        raise SettingsError(
            f"under the constraints {space.describe()!r} EE samples with "
            + ("the constrained proposal: use proposal='tnt' (the default)" if degree_space else
               "IFD or tie/no-tie restricted to the free dyads: use proposal='ifd', 'ifd-tnt' "
               "or 'tnt'") + f", not {cfg['proposal']!r}")
    if cfg["proposal"] not in ("ifd", "ifd-tnt", "tnt", "random"):
        raise ValueError("proposal must be 'ifd', 'ifd-tnt', 'tnt' or 'random', got "
                         f"{cfg['proposal']!r}")
    if cfg["proposal"] in ("ifd", "ifd-tnt") and dens is None:
        raise ValueError("proposal='ifd' needs a density term (edges / Arc) in the model, whose "
                         "parameter it recovers from the auxiliary parameter; add 'edges' or use "
                         "proposal='tnt'")
    cfg["dens"] = dens
    cfg["dens_theta"] = _density_param(model, dens) if curved else dens
    n_vars = getattr(getattr(model, "network", None), "n_dyads", None)
    large = n_vars is not None and n_vars > 10**6
    if cfg["se"] == "auto":
        # beyond 10^6 variables the IFD estimate is conditional on the density and an
        # unconditional chain at it does not settle in affordable time (Epinions: the
        # simulated tie count keeps growing), so its covariance is no Fisher information:
        # EstimNetDirected's formula from the trajectory, as its R script
        cfg["se"] = "estimnet" if large and cfg["proposal"] in ("ifd", "ifd-tnt") else "simulate"
    if isinstance(cfg["burnin"], str) and cfg["burnin"] == "auto":
        # EstimNetDirected's R script drops t <= 10,000 (Epinions settles by t = 8,000:
        # estimnet.md section 8.3); small networks settle within the first stage
        cfg["burnin"] = (max(10_000, int(0.2 * int(cfg["ee_steps"]) * int(cfg["ee_inner_steps"])))
                         if large else 0.2)
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
        n = np.size(init) if not isinstance(init, dict) else len(labels)
        if curved and n != len(labels):
            raise SettingsError(
                f"init must have {len(labels)} value(s), one per parameter {labels} (a curved "
                f"term has a weight and a decay), not one per canonical statistic "
                f"({len(model.stat_labels)}); got {n}")
        cfg["init_theta"] = check_params(init, labels, "init")
        cfg["init"] = "user"
    return cfg


# bounds of a resumed run's simulation settings (a tampered 10^12 would run for
# ever or exhaust memory; no fit asks for more)
_SAVED_LIMITS = {"se_samplesize": 10**7, "se_interval": 2**30, "se_burnin": 2**34,
                 "thin": 2**40, "sampler_steps": 2**40, "ee_steps": 2**32,
                 "ee_inner_steps": 2**32, "s_steps": 2**32, "tnt_steps": 2**32}


def _check_saved_cfg(model, conf, path):
    """The settings saved in meta.json (``path``) through EE's own setting
    checks, with bounds; CheckpointError naming the file if one is bad."""
    def bad(what):
        return CheckpointError(f"cannot resume: {path} is damaged: {what}")
    if not isinstance(conf, dict) or set(conf) - set(_CFG_SAVED) - {"dens", "dens_theta",
                                                                       "init_theta"}:
        raise bad("its settings ('cfg') are not EE's")
    out = {}
    for k, v in conf.items():
        if k in ("dens", "dens_theta", "init_theta", "init"):
            continue
        check = _EE_CHECKS.get(k)
        try:
            out[k] = v if check is None else check(k, v)
        except SettingsError as exc:
            raise bad(str(exc)) from None
        lim = _SAVED_LIMITS.get(k)
        if lim is not None and out[k] is not None and out[k] > lim:
            raise bad(f"setting {k!r} = {out[k]} is beyond {lim}")
        if k == "burnin" and isinstance(out[k], int) and out[k] > 2**40:
            raise bad(f"setting 'burnin' = {out[k]} is beyond {2**40}")
    q, p = len(model.statistics_vector()), len(model.labels)
    for k, n in (("dens", q), ("dens_theta", p)):
        v = conf.get(k)
        if v is not None and not (isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n):
            raise bad(f"{k!r} must be None or a position in 0..{n - 1}, got {v!r}")
        out[k] = v
    init, theta = conf.get("init", "S"), conf.get("init_theta")
    if init not in ("S", "user"):
        raise bad(f"'init' must be 'S' or 'user', got {init!r}")
    if theta is not None or init == "user":
        try:
            theta = check_params(theta, list(model.labels), "init")
        except Exception:       # noqa: BLE001 - any malformed list is damage
            raise bad(f"'init_theta' must be {p} finite numbers, got {theta!r}") from None
        if not np.all(np.isfinite(theta)):
            raise bad(f"'init_theta' must be {p} finite numbers, got {conf.get('init_theta')!r}")
        theta = [float(x) for x in theta]
    out["init"], out["init_theta"] = init, theta
    return out


def _resume_cfg(model, directory, g_obs, kwargs):
    """The settings and chain seeds saved in the checkpoint ``directory``."""
    meta = EEMetaState.read(os.path.join(directory, "meta.json"), model)
    if not np.allclose(meta.g_obs, g_obs, rtol=1e-12, atol=0):
        raise ValueError(f"cannot resume: the checkpoint {directory} was written for a network "
                         "with other observed statistics")
    given = sorted(k for k in kwargs if k not in ("checkpoint", "checkpoint_every"))
    if given:
        raise ValueError(f"resume continues with the checkpoint's settings; do not pass {given}")
    cfg = dict(EE_DEFAULTS)
    cfg.update(_check_saved_cfg(model, meta.cfg, os.path.join(directory, "meta.json")))
    if isinstance(cfg["learning_rate"], list):
        cfg["learning_rate"] = tuple(cfg["learning_rate"])
    if cfg.get("init_theta") is not None:
        cfg["init_theta"] = np.asarray(cfg["init_theta"], dtype=float)
    cfg["checkpoint"] = kwargs.get("checkpoint", directory)
    cfg["checkpoint_every"] = kwargs.get("checkpoint_every", EE_DEFAULTS["checkpoint_every"])
    if cfg["checkpoint"] is not None and os.path.abspath(cfg["checkpoint"]) != \
            os.path.abspath(directory):
        shutil.copytree(directory, cfg["checkpoint"], dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".lock", ".*.tmp"))
    cfg["resume"] = directory
    return cfg, [int(x) for x in meta.seeds]


def ee_core(model, random_state=None, verbose=False, n_chains=1, n_jobs=1, backend=None,
            callback=None, resume=None, **kwargs):
    """Run EE; returns a dict with everything :func:`fit_ee` puts in the results.

    See the module docstring for the algorithm and :data:`EE_DEFAULTS` for
    the settings (EstimNetDirected's names in lower case: ``sampler_steps``,
    ``s_steps``, ``ee_steps``, ``ee_inner_steps``, ``aca_s``, ``aca_ee``,
    ``comp_c``, ``ifd_k``, ``learning_rate``, ``min_theta``).
    """
    from ...sampling.chains import chain_seeds
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
                from ..contrastive.cd import cd_core
                cfg["init_theta"] = np.asarray(cd_core(model, random_state=rng)["params"])
            else:       # a curved MPLE that ran off: the fixed-decay one (_ee_parts)
                cfg["init_theta"] = mple_start(model, rng, initial_estimate)
            cfg["init"] = "user"
        cfg["separation"] = _existence_check(model)
    store = None
    if cfg["checkpoint"] is not None:
        store = Checkpoint(cfg["checkpoint"], directory=True, what="EE checkpoint").acquire()
    try:
        if store is not None and resume is None:
            _write_meta(store, model, cfg, seeds, g_obs)
        chains, interrupted = _run_chains(model, cfg, seeds, n_jobs, backend, callback, verbose)
        cfg, chains, interrupted, note = refit_unconditional(      # a curved IFD run ran off
            model, cfg, chains, interrupted,
            lambda c: _run_chains(model, c, seeds, n_jobs, backend, callback, verbose))
    finally:
        if store is not None:
            store.release()
    if not chains:
        raise KeyboardInterrupt
    return {"cfg": cfg, "chains": chains, "interrupted": interrupted, "g_obs": g_obs,
            "seconds": time.perf_counter() - t0, "seeds": seeds, "fallback": note}


# at most this many dyads: EE first checks the observed network's design
_EXISTENCE_CHECK_MAX_DYADS = 10**6


def _existence_check(model):
    """Dead statistics, collinear terms and a missing MLE, before EE runs, with
    the checks CD, BCD and MCLE share (:mod:`ergmfit.estimation.mple.existence`): dead or collinear
    statistics raise DegenerateModelError (the MPLE's message); a separation
    direction d of the observed design is returned (None if there is none).
    A dyad-independent model separated along d has no MLE (it is the MPLE):
    DegenerateModelError at once.  For a dyad-dependent one the chains
    confirm it (:func:`ergmfit.estimation.ee.pool.check_identifiable`: the simulation at the
    estimate on the observed side of d).  Networks of more than 10^6 dyads,
    curved models, offsets and degree constraints skip this (the chains'
    own checks remain)."""
    from ..mple.existence import nonexistence_error, observed_design
    n_dyads = getattr(getattr(model, "network", None), "n_dyads", None)
    if n_dyads is None or n_dyads > _EXISTENCE_CHECK_MAX_DYADS:
        return None
    od = observed_design(model, model.compiled())
    d = None if od is None else od.direction
    if d is not None and bool(getattr(model, "dyad_independent", False)):
        raise nonexistence_error(list(model.labels), d, "Equilibrium Expectation")
    return None if d is None else [float(x) for x in d]


def _learning_rate(name, value):
    if isinstance(value, str):
        if value.lower() != "auto":
            raise SettingsError(f"setting 'learning_rate' must be a number, a sequence or "
                                f"'auto', got {value!r}")
        return "auto"
    # each rate a in (0, 1): a step moves theta_k by a * max(|theta_k|, c), so a >= 1
    # (True, [1], inf) throws the estimate about without bound
    rates = list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
    if not rates or not all(isinstance(a, numbers.Real) and not isinstance(a, (bool, np.bool_))
                            and 0.0 < float(a) < 1.0 for a in rates):
        raise SettingsError(f"setting 'learning_rate' must be a number in (0, 1), a sequence "
                            f"of them or 'auto', got {value!r}")
    return value


def _burnin(name, value):
    if isinstance(value, str) and value == "auto":
        return value
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
    "se": choice("auto", "simulate", "estimnet", "none", lower=False), "polish": _polish,
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
    "burnin": "Fraction of the last stage (or iterations) dropped, or 'auto'.",
    "se": "'auto', 'simulate', 'estimnet' or 'none'.", "polish": "Final MCMC-MLE step (True/False/'auto').",
    "checkpoint": "Directory where the run is saved.",
    "checkpoint_every": "Seconds between saves.",
}


class EE(Estimator):
    """Equilibrium Expectation (see :mod:`ergmfit.estimation.ee.estimator`).

    ``EE(**settings).fit(model)`` returns an :class:`~ergmfit.results.ERGMResults`
    with method ``"ee"``; ``ERGM.fit(method="ee", **settings)`` builds it.
    Model-dependent defaults (``"auto"`` values, the proposal) are resolved
    when it fits.

    Fit ``model`` by Equilibrium Expectation (see the module docstring).

    Parameters
    ----------
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
    burnin : float, int or "auto"
        Fraction of the last learning-rate stage or number of EE iterations
        dropped; "auto": 0.2, and beyond 10^6 variables EstimNetDirected's
        10,000 iterations (0.2 of the run when that is more).
    se : {"auto", "simulate", "estimnet", "none"}
        How the model part of the covariance is estimated (module docstring);
        "auto": "simulate", and "estimnet" beyond 10^6 variables with IFD.
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
    supports = {"curved": True, "constraints": True, "missing": True, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary"})}
    SETTINGS = tuple(Setting(k, v, _EE_CHECKS[k], _EE_DOCS.get(k, "")) for k, v in
                     EE_DEFAULTS.items()) + (
        Setting("n_chains", 1, integer(1), "Independent chains, pooled."),
        Setting("n_jobs", 1, n_jobs_setting, "Parallel processes (joblib; -1: every CPU)."),
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
        with second_ctrl_c_waits():
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


