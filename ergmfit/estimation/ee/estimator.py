"""Equilibrium Expectation (EE), the estimator class :class:`EE`.

Its settings, defaults and checks are declared once, in ``EE.SETTINGS``; the
algorithm is described in ``docs/guide/estimators/ee_algorithm.md``.

Examples
--------
>>> from ergmfit.estimation.ee.estimator import EE
>>> EE(ee_steps=50).ee_steps
50
"""
from __future__ import annotations

import numbers
import os
import shutil
import time

import numpy as np

from ...exceptions import CheckpointError, SettingsError
from ...families import family_of
from ...runtime import Checkpoint, Progress, run_jobs
from ...utils.setops import in_sorted
from ...utils.validation import check_params
from ..base import (BACKENDS, Estimator, Setting, auto_or, boolean, choice, integer,
                    n_jobs_setting, number)
from ...runtime.interrupts import second_ctrl_c_waits
from ...sampling.space import sample_space_of
from ..common.density import density_index, statistic_parameter
from .chain import _planned_outer, _stages, ee_chain, ee_update_for
from .checkpoint import EEMetaState
from .missing import conditional_chain_kind
from .proposals import _free_density, _reciprocation_setting, reciprocation_probability
from .simulation import sim_plan
from .start import mple_start, refit_unconditional
from .pool import build_results


def _write_meta(store, model, cfg, seeds, g_obs):
    conf = {}
    for k in _saved_names() + ("dens", "dens_theta", "init_theta"):
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


#: iterations EstimNetDirected's R script drops (it keeps t > 10,000, t counted from 0)
ESTIMNET_BURNIN = 10_001
#: EstimNetDirected's learningRate, a of the Borisenko update
ESTIMNET_LEARNING_RATE = 0.001


def sweep_learning_rate(sampler_steps, ties, sweep_step):
    """The ``"auto"`` learning rate of the Borisenko update on a large network:
    EstimNetDirected's 0.001, or less where θ would otherwise move by more than
    ``sweep_step`` of itself while the chain proposes as many changes as there are
    ``ties``: a = min(0.001, ``sweep_step`` m / L), m = ``sampler_steps``.

    Each iteration (m proposals) moves θ_k by a |θ_k|; a chain that starts at the
    observed network needs of the order of L proposals to answer a change of θ
    (every tie is a candidate to go), so a L / m is the relative move of θ in the
    time the chain takes to follow it.  Where it is large, θ grows geometrically
    before dzA can turn (``docs/guide/large_networks.md``, "Pokec's size").  At the
    default sweep_step 1 nothing changes up to 10^6 ties at m = 1,000 (Epinions,
    508,837 arcs, keeps 0.001).

    >>> sweep_learning_rate(1000, 508_837, 1.0)
    0.001
    >>> round(sweep_learning_rate(1000, 30_587_028, 1.0), 9)
    3.2694e-05
    """
    if ties <= 0:
        return ESTIMNET_LEARNING_RATE
    return min(ESTIMNET_LEARNING_RATE, float(sweep_step) * float(sampler_steps) / float(ties))


def _free_ties(model, space):
    """The ties among the dyads EE's chains may toggle (every tie without a
    dyad-set constraint)."""
    free = space.free_vars()
    if free is None:
        return int(model.network.n_ties)
    return int(in_sorted(model.compiled().on_vars(), free).sum())


def _is_s(init) -> bool:
    """``init`` is Algorithm S (not parameter values, which compare elementwise)."""
    return isinstance(init, str) and init == "S"


#: beyond this many variables (the dyads EE's chains may toggle) the ``"auto"`` settings
#: are the large-network ones: the Borisenko update, EstimNet's burn-in, its s.e., no polish
LARGE_VARIABLES = 10**6


def _n_variables(model, space):
    """The size of ``model``'s sample space: the dyads its chains may toggle (a
    constrained model's free dyads, e.g. the inner waves of a snowball sample;
    every dyad of an unconstrained network); None for a model without a network.

    >>> import networkx as nx, ergmfit as ef
    >>> from ergmfit.sampling.space import sample_space_of
    >>> m = ef.ERGM(nx.path_graph(5), "edges",
    ...             constraints=("~ fixallbut(free)", {"free": [(0, 1), (1, 2)]}))
    >>> m.network.n_dyads, _n_variables(m, sample_space_of(m))
    (10, 2)
    """
    net = getattr(model, "network", None)
    dyads = getattr(net, "n_dyads", None)
    if dyads is None:
        return None
    free = space.free_vars()
    return int(dyads) if free is None else int(len(free))


def _resolve_cfg(model, cfg):
    """The chains' settings ``cfg`` (checked by the ``SETTINGS`` table) with the
    model-dependent choices made: the ``"auto"`` values, the proposal, the density
    parameter of IFD, the start; SettingsError where the model rules a setting out."""
    cfg = dict(cfg)
    labels = list(model.labels)
    update = ee_update_for(getattr(model, "parameterisation", None))
    if _is_s(cfg["init"]) and not update.starts_by_algorithm_s:
        cfg["init"] = "mple"        # Algorithm S estimates η, not θ: start at the MPLE
    space = sample_space_of(model)
    n_vars = _n_variables(model, space)
    large = n_vars is not None and n_vars > LARGE_VARIABLES
    if cfg["update"] == "auto":
        cfg["update"] = "borisenko" if large else "newton"
    dens = _free_density(model, density_index(model), cfg["proposal"])
    conditional_chain_kind(model).check_cfg(cfg)    # the chain over missing dyads, if any
    # a space of degree bounds or a preserved statistic is walked by its own proposal only;
    # IFD (EE's own) walks every dyad, or the free dyads of a dyad-set constraint
    degree_space = not space.dyad_independent
    if cfg["proposal"] is None:
        cfg["proposal"] = "ifd" if dens is not None and not degree_space else "tnt"
    walks = (cfg["proposal"] in space.proposals()
             or cfg["proposal"] in ("ifd", "ifd-tnt") and not degree_space)
    if not walks:
        raise SettingsError(
            f"under the constraints {space.describe()!r} EE samples with "
            + ("the constrained proposal: use proposal='tnt' (the default)" if degree_space else
               "IFD or tie/no-tie restricted to the free dyads: use proposal='ifd', 'ifd-tnt' "
               "or 'tnt'") + f", not {cfg['proposal']!r}")
    family = family_of(model)
    if cfg["proposal"] in ("ifd", "ifd-tnt") and not family.fixed_density:
        raise SettingsError(f"proposal={cfg['proposal']!r} holds the number of ties fixed, "
                            f"which needs binary ties; the {family.name} family's states are "
                            f"{family.state}: use proposal='tnt' (the default) or 'random'")
    if cfg["proposal"] in ("ifd", "ifd-tnt") and dens is None:
        raise SettingsError("proposal='ifd' needs a density term (edges / Arc) in the model, "
                            "whose parameter it recovers from the auxiliary parameter; add "
                            "'edges' or use proposal='tnt'")
    cfg["dens"] = dens
    cfg["dens_theta"] = statistic_parameter(model, dens)
    cfg["reciprocation"] = reciprocation_probability(model, cfg["reciprocation"],
                                                     cfg["proposal"], space)
    if cfg["se"] == "auto":
        # beyond 10^6 variables the IFD estimate is conditional on the density
        # (ee_algorithm.md, "Standard errors")
        cfg["se"] = "estimnet" if large and cfg["proposal"] in ("ifd", "ifd-tnt") else "simulate"
    if isinstance(cfg["burnin"], str) and cfg["burnin"] == "auto":
        # EstimNetDirected's R script drops t <= 10,000, i.e. 10,001 iterations
        # (ee_algorithm.md, "Estimate")
        cfg["burnin"] = (max(ESTIMNET_BURNIN,
                             int(0.2 * int(cfg["ee_steps"]) * int(cfg["ee_inner_steps"])))
                         if large else 0.2)
    if cfg["polish"] == "auto":
        cfg["polish"] = bool(cfg["se"] == "simulate" and not large)
    cfg["polish"] = bool(cfg["polish"])
    if isinstance(cfg["learning_rate"], str):       # "auto"
        cfg["learning_rate"] = (0.01, 0.001)
        if large:
            cfg["learning_rate"] = ESTIMNET_LEARNING_RATE
            if cfg["update"] == "borisenko":
                cfg["learning_rate"] = sweep_learning_rate(
                    cfg["sampler_steps"], _free_ties(model, space), cfg["sweep_step"])
    _stages(cfg["learning_rate"], 1)
    init = cfg["init"]
    if isinstance(init, str):
        cfg["init_theta"] = None
    else:
        n = np.size(init) if not isinstance(init, dict) else len(labels)
        if n != len(labels) and not update.statistics_are_parameters:
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
    if not isinstance(conf, dict) or set(conf) - set(_saved_names()) - {"dens", "dens_theta",
                                                                       "init_theta"}:
        raise bad("its settings ('cfg') are not EE's")
    out = {}
    for k, v in conf.items():
        if k in ("dens", "dens_theta", "init_theta", "init"):
            continue
        check = _checks().get(k)
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
    cfg = EE.chain_defaults()
    cfg.update(_check_saved_cfg(model, meta.cfg, os.path.join(directory, "meta.json")))
    if isinstance(cfg["learning_rate"], list):
        cfg["learning_rate"] = tuple(cfg["learning_rate"])
    if cfg.get("init_theta") is not None:
        cfg["init_theta"] = np.asarray(cfg["init_theta"], dtype=float)
    cfg["checkpoint"] = kwargs.get("checkpoint", directory)
    cfg["checkpoint_every"] = kwargs.get("checkpoint_every", EE.chain_defaults()["checkpoint_every"])
    if cfg["checkpoint"] is not None and os.path.abspath(cfg["checkpoint"]) != \
            os.path.abspath(directory):
        shutil.copytree(directory, cfg["checkpoint"], dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".lock", ".*.tmp"))
    cfg["resume"] = directory
    return cfg, [int(x) for x in meta.seeds]


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
    estimate on the observed side of d).  Sample spaces of more than 10^6
    free dyads (the model's, as the ``"auto"`` settings count them: a
    network of 10^8 dyads with 10^3 free is checked), curved models, offsets
    and degree constraints skip this (the chains' own checks remain)."""
    n_vars = _n_variables(model, sample_space_of(model))
    if n_vars is None or n_vars > _EXISTENCE_CHECK_MAX_DYADS:
        return None
    from ..mple.existence import nonexistence_error, observed_design
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


_min_ee_steps = auto_or(integer(0), "a number of outer iterations")


_polish = auto_or(boolean, "True, False")


def _init(name, value):
    if isinstance(value, str):
        if value not in ("S", "cd", "mple"):
            raise SettingsError(f"setting 'init' must be 'S', 'cd', 'mple' or parameter values, "
                                f"got {value!r}")
        return value
    # parameter values: a sequence or {label: value} of finite numbers (their number and
    # labels are checked against the model's when the fit starts)
    values = list(value.values()) if isinstance(value, dict) else value
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError, OverflowError):
        arr = None
    if arr is None or arr.ndim > 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise SettingsError(f"setting 'init' must be 'S', 'cd', 'mple' or parameter values "
                            f"(finite numbers, a sequence or a dict by label), got {value!r}")
    return value


def _callback(name, value):
    if value is not None and not callable(value):
        raise SettingsError(f"setting 'callback' must be callable or None, got {value!r}")
    return value


class EE(Estimator):
    """Equilibrium Expectation: maximum likelihood for large networks.

    One Metropolis-Hastings chain starts at the observed network and θ moves
    after every ``sampler_steps`` proposals so that the chain's statistics
    stay at the observed ones; the mean of θ once it settles is the MLE
    (Byshkin et al. 2018; Borisenko et al. 2019).  Algorithm S gives the start
    and the scales, then the EE updates run with IFD, tie/no-tie or
    random-toggle proposals.  Curved terms, offsets, constraints and missing
    dyads come from the model (:attr:`supports`).  The algorithm and the
    choices behind the defaults are in the user guide
    (``docs/guide/estimators/ee_algorithm.md``).

    ``EE(**settings).fit(model)`` returns an :class:`~ergmfit.results.ERGMResults`
    with method ``"ee"``; ``ERGM.fit(method="ee", **settings)`` builds it.
    Model-dependent defaults (``"auto"`` values, the proposal) are chosen when
    it fits.  ``info`` holds ``t_ratios``, ``t_ratios_sim``, ``trajectory``
    (θ every ``thin`` iterations of each chain), ``ifd``, ``chain_estimates``,
    ``algorithm_s``, ``estimnet``, ``proposals_per_second`` and
    ``proposals_per_cpu_second`` and the settings.

    References
    ----------
    Byshkin, M., Stivala, A., Mira, A., Robins, G. & Lomi, A. (2018). Fast
    maximum likelihood estimation via equilibrium expectation for large network
    data. *Scientific Reports* 8, 11509.

    Borisenko, A., Byshkin, M. & Lomi, A. (2019). A simple algorithm for
    scalable Monte Carlo inference. arXiv:1901.00533.

    Examples
    --------
    >>> import ergmfit as ef
    >>> from ergmfit.estimation import EE
    >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    >>> fit = EE(random_state=1).fit(m)
    >>> fit.method
    'ee'
    """

    method = "ee"
    supports = {"curved": True, "constraints": True, "missing": True, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary", "count"})}
    SETTINGS = (
        Setting("update", "auto", choice("auto", "borisenko", "adaptive", "newton", lower=False),
                "The parameter update: 'newton', 'borisenko' or 'adaptive'; 'auto': 'newton' "
                "for at most 10^6 variables (the free dyads of a constrained model's sample space, "
                "e.g. a snowball sample's inner waves), else 'borisenko'."),
        Setting("proposal", None,
                choice("ifd", "ifd-tnt", "tnt", "triadic", "random", allow_none=True,
                       lower=False),
                "'ifd', 'ifd-tnt', 'tnt', 'triadic' (tie/no-tie with triadic closure) or "
                "'random'; None: 'ifd' if the model has an edges term (and no degree "
                "constraint), else 'tnt'."),
        Setting("sampler_steps", 1000, integer(1),
                "m, proposals per EE iteration (EstimNet's samplerSteps)."),
        Setting("s_steps", 100, integer(0), "Algorithm S iterations (EstimNet's Ssteps)."),
        Setting("ee_steps", 200, integer(1),
                "EE outer iterations (EstimNet's EEsteps, whose default is 500)."),
        Setting("ee_inner_steps", 100, integer(1),
                "EE inner iterations per outer one (EstimNet's EEinnerSteps)."),
        Setting("aca_s", 0.1, number(0), "EstimNet's ACA_S."),
        Setting("aca_ee", 1e-9, number(0), "EstimNet's ACA_EE."),
        Setting("comp_c", 0.01, number(0), "EstimNet's compC."),
        Setting("ifd_k", 0.1, number(0, lo_open=True), "EstimNet's ifd_K."),
        Setting("reciprocation", "auto", _reciprocation_setting,
                "IFD on a directed network: the probability that an add reverses a uniformly "
                "chosen asymmetric arc (ReciprocalIFD), a number in [0, 1), True (the observed "
                "share of mutual arcs 2M/L, at most 0.9) or False; 'auto': that share when it "
                "is at least 10 times the chance that a uniform add reverses an arc, else 0."),
        Setting("learning_rate", "auto", _learning_rate,
                "a of the Borisenko / Newton update: a number in (0, 1), equal stages of "
                "them, or 'auto': (0.01, 0.001) for at most 10^6 variables, else 0.001 "
                "(EstimNet's learningRate), with the Borisenko update at most sweep_step x "
                "sampler_steps / ties."),
        Setting("sweep_step", 1.0, number(0, lo_open=True),
                "'auto' learning_rate of the Borisenko update beyond 10^6 variables: at most "
                "sweep_step x sampler_steps / ties, so that θ moves by at most this share of "
                "itself while the chain proposes as many changes as there are ties (EstimNet's "
                "0.001 up to 10^6 ties at the defaults)."),
        Setting("min_theta", 0.01, number(0), "c of the Borisenko update (EstimNet's minTheta)."),
        Setting("tnt_steps", None, integer(1, allow_none=True),
                "Outer iterations of the unconditional phase of 'ifd-tnt' (default ee_steps)."),
        Setting("init", "S", _init,
                "EE's start: 'S' (Algorithm S), 'cd', 'mple' or parameter values."),
        Setting("burnin", "auto", _burnin,
                "Fraction of the last learning-rate stage or number of EE iterations dropped; "
                "'auto': 0.2, beyond 10^6 variables 10,001 (EstimNet's t > 10,000) or 0.2 "
                "of the run."),
        Setting("se", "auto", choice("auto", "simulate", "estimnet", "none", lower=False),
                "How the covariance is estimated; 'auto': 'simulate', beyond 10^6 variables "
                "with IFD 'estimnet'."),
        Setting("polish", "auto", _polish,
                "A final MCMC-MLE step from the EE estimate (needs se='simulate'); 'auto': "
                "for models of at most 10^6 variables."),
        Setting("se_samplesize", 1000, integer(1), "Draws of the simulation at the estimate."),
        Setting("se_interval", None, integer(1, allow_none=True),
                "Proposals between those draws (default max(1024, min(L, 10000)))."),
        Setting("se_burnin", None, integer(0, allow_none=True),
                "Burn-in of that simulation (default 16 intervals)."),
        Setting("t_tol", 0.1, number(0, lo_open=True), "Convergence: every |t-ratio| < t_tol."),
        Setting("drift_tol", 1.0, number(0, lo_open=True),
                "Early stop (stop_when_converged): drift below this many sd(θ)."),
        Setting("drift_z_tol", 3.0, number(0, lo_open=True),
                "Convergence: the two halves' means differ by less than this many Monte-Carlo "
                "standard errors ..."),
        Setting("drift_se_tol", 0.2, number(0, lo_open=True),
                "... or by less than this many standard errors of the estimate."),
        Setting("stop_when_converged", False, boolean,
                "Stop as soon as the criteria hold (after min_ee_steps)."),
        Setting("min_ee_steps", "auto", _min_ee_steps,
                "Outer iterations before stop_when_converged may stop; 'auto': until the "
                "iterations kept after the burn-in span ceil(1 / t_tol²) outer iterations "
                "(100 at t_tol = 0.1), enough for the t-ratios' own noise (about 1/√n) to be "
                "below t_tol."),
        Setting("thin", None, integer(1, allow_none=True),
                "Keep every thin-th iteration in info['trajectory'] (default ee_inner_steps)."),
        Setting("checkpoint", None, None,
                "Directory where the run is saved (meta.json and each chain's state)."),
        Setting("checkpoint_every", 60.0, number(0), "Seconds between saves."),
        Setting("n_chains", 1, integer(1), "Independent chains, pooled."),
        Setting("n_jobs", 1, n_jobs_setting, "Parallel processes (joblib; -1: every CPU)."),
        Setting("backend", None, choice(*BACKENDS, allow_none=True),
                "joblib backend of parallel chains ('loky' default, 'dask')."),
        Setting("callback", None, _callback,
                "Called after every outer iteration with a dict (chain, outer, n_outer, "
                "iterations, theta, dzA, acceptance); raising KeyboardInterrupt stops the run."),
        Setting("resume", None, None,
                "Continue the run saved in this checkpoint directory with its settings "
                "(only checkpoint and checkpoint_every may be given with it)."),
    )
    #: the settings of the run, not of the chains
    RUN_SETTINGS = ("n_chains", "n_jobs", "backend", "callback", "resume")

    @classmethod
    def chain_defaults(cls) -> dict:
        """``{name: default}`` of the chains' settings (the table less :attr:`RUN_SETTINGS`)."""
        return {s.name: s.default for s in cls.SETTINGS if s.name not in cls.RUN_SETTINGS}

    def fit(self, model):
        with second_ctrl_c_waits():
            return build_results(model, self.run(model))

    def chain_settings(self) -> dict:
        """The chains' settings of this estimator; with ``resume`` only those
        set to something else than their default (a resumed run keeps the
        checkpoint's and refuses others)."""
        defaults = self.chain_defaults()
        settings = {k: getattr(self, k) for k in defaults}
        if self.resume is not None:
            settings = {k: v for k, v in settings.items() if _differs(v, defaults[k])}
        return settings

    def resolved_settings(self, model) -> dict:
        """The chains' settings for ``model``: the ``"auto"`` values, the proposal,
        IFD's density parameter and the start chosen for it (SettingsError where
        the model rules a setting out)."""
        return _resolve_cfg(model, self.chain_settings())

    def run(self, model) -> dict:
        """Run the chains on ``model`` (an ERGM, or a spec with ``labels``,
        ``statistics_vector()`` and ``compiled()``, as the MRF product model);
        returns the dict :func:`~ergmfit.estimation.ee.pool.build_results` turns
        into results (``cfg``, ``chains``, ``interrupted``, ``g_obs``,
        ``seconds``, ``seeds``, ``fallback``)."""
        from ...sampling.chains import chain_seeds
        t0 = time.perf_counter()
        kwargs = self.chain_settings()
        g_obs = np.asarray(model.statistics_vector(), dtype=float)
        n_jobs, backend, callback, verbose = self.n_jobs, self.backend, self.callback, self.verbose
        if self.resume is not None:
            cfg, seeds = _resume_cfg(model, self.resume, g_obs, kwargs)
        else:
            cfg = self.resolved_settings(model)
            rng = np.random.default_rng(self.random_state) \
                if not isinstance(self.random_state, np.random.Generator) else self.random_state
            seeds = chain_seeds(rng, self.n_chains)
            if cfg["init"] in ("cd", "mple"):
                if cfg["init"] == "cd":
                    from ..contrastive.cd import CD
                    cfg["init_theta"] = np.asarray(CD(random_state=rng).start(model))
                else:       # a curved MPLE that ran off: the fixed-decay one
                    from ..mcmle.start import initial_estimate
                    cfg["init_theta"] = mple_start(model, rng, initial_estimate)
                cfg["init"] = "user"
            cfg["separation"] = _existence_check(model)
        store = None
        if cfg["checkpoint"] is not None:
            store = Checkpoint(cfg["checkpoint"], directory=True, what="EE checkpoint").acquire()
        try:
            if store is not None and self.resume is None:
                _write_meta(store, model, cfg, seeds, g_obs)
            chains, interrupted = _run_chains(model, cfg, seeds, n_jobs, backend, callback,
                                              verbose)
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


def _checks() -> dict:
    """``{name: check}`` of the chains' settings, from the table (a resumed
    run's saved settings go through them)."""
    return {s.name: s.check for s in EE.SETTINGS if s.name not in EE.RUN_SETTINGS}


def _saved_names() -> tuple:
    """The settings a checkpoint's meta.json keeps (the chains' less where it is saved)."""
    return tuple(k for k in EE.chain_defaults() if k not in ("checkpoint", "checkpoint_every"))


def _differs(value, default):
    if value is default:
        return False
    try:
        return not bool(np.all(np.asarray(value, dtype=object) == default)) \
            or np.shape(value) != np.shape(default)
    except Exception:        # noqa: BLE001 - incomparable: different
        return True
