"""Equilibrium Expectation for Markov random fields, on the ERGM's EE engine.

EE (Byshkin et al. 2018; Borisenko, Byshkin & Lomi 2019) is written ONCE,
in :mod:`ergmfit.estimation.ee.estimator` (driver) and :mod:`ergmfit.estimation.ee._ee`
(the compiled loop): a Metropolis-Hastings chain started at the observed
state, and after every m proposals every parameter moves against the sign
of dzA = g(x_t) - g(x_obs),

    theta_k <- theta_k - a * max(|theta_k|, c) * sign(dzA_k)       (eq. 14)

(or the adaptive update of Byshkin et al. 2018), started from the CD-1
estimate of Algorithm S.  That engine needs only a model spec with
``labels``, ``family``, ``compiled()`` (a BinaryModel at the observed state) and
``statistics_vector()``.  This module supplies that spec for MRFs; it has no
EE loop of its own.

**The product model.**  N i.i.d. observations x_1 .. x_N of an MRF with n
variables are ONE state of the product model of N * n variables whose
monomials are those of the MRF replicated on every copy, each on the same
statistic, so that

    G(x_1, ..., x_N) = sum_i g(x_i),    p(x_1..x_N | theta) = prod_i p(x_i | theta).

Its log-likelihood is the sum of the per-observation log-likelihoods, its
MLE is the MLE of the N observations (E_theta G = sum_i g(x_i) <=>
E_theta g = mean g(x_i), eq. 5 of Borisenko et al.), and a
Metropolis-Hastings chain on it is N independent chains, one started at each
data point, advanced by proposals at uniformly chosen variables: the
"ensemble of Markov chains" of the paper's VBM experiment (Sec. 3.1).  For a
CRF each instance (input y_m, label image x_m) is a conditional model of its
own; the product of the instances' compiled models has G = sum_m g(x_m; y_m)
and p = prod_m p(x_m | y_m), so the same construction gives the conditional
MLE.  Integer sample weights replicate rows.

**Defaults for MRFs** (differences from the ERGM defaults, and why):

* ``proposal="random"``: a uniformly chosen variable is flipped (the paper's
  proposal for all its MRF experiments); no IFD (an MRF has no density term
  whose parameter an auxiliary parameter could replace).
* ``sampler_steps`` (m): max(N, ceil(n_vars / 100)) proposals of the product
  between parameter updates (:func:`default_sampler_steps`): one proposal
  per observation on average -- the paper's m = 1 for each chain of its
  ensemble -- but at least 1% of a sweep when the observations are large
  (images).  Measured on small models, updating this often costs fewer
  proposals for the same accuracy than a full sweep between updates (a
  15-spin VBM with 105 parameters and N = 1000: 60,000 updates with m = N,
  6e7 proposals, reach the MLE to 0.1 s.e.; 10,000 updates after full
  sweeps, 1.5e8 proposals, are still 1 s.e. away); on the 40x40 CRF m from
  1% to 100% of a sweep give the same estimate.
* ``ee_steps`` x ``ee_inner_steps`` = 200 x 100 iterations (the ERGM
  defaults); ``learning_rate`` (a): (0.01, 0.001) in two equal stages (the
  paper's CRF schedule); ``min_theta`` (c) 0.01.
* ``init="pl"``: the CD-1 estimator, i.e. the solution of
  E[Delta g(x_obs, theta)] = 0 (the paper's start), for the single-site Gibbs
  kernel with a uniformly chosen variable: summed over the observations and
  variables that equation is the pseudo-likelihood score, so the CD-1
  estimator of that kernel IS the MPLE, solved exactly by Newton
  (:class:`ergmfit.mrf.estimation.PseudoLikelihood`); when the MPLE does not exist
  (separation, e.g. noise-free training images of a CRF) a warning says so
  and the start is ``"cd"``: CD-1 by stochastic gradient (:func:`cd1_start`:
  one Metropolis sweep of every observation per step, ``cd_iter`` steps of
  ``cd_learning_rate`` on the gradient per variable).  ``"S"``: EstimNet's
  Algorithm S (see the note below); or parameter values.
* ``polish=False``: the estimate is the EE trajectory average (the paper's
  estimator).  ``se="simulate"`` (default): a chain at the estimate gives the
  Fisher information of all N observations; ``cov`` = its inverse + the
  Monte-Carlo covariance of the average (:func:`_covariances`).

Algorithm S (``init="S"``) normalises its step by sumC = add + del, the sum
of the accepted change statistics.  For ERGM statistics (non-negative change
statistics) |dzA| <= sumC, but +-1-coded MRF statistics have change
statistics of both signs, sumC can be ~0 while dzA is not, and the step
dzA^2 / sumC^2 explodes (a 6-unit Boltzmann machine: |theta| ~ 10^5 after
100 steps).  Hence the default ``"pl"``.

**Convergence**: the t-ratio mean/sd of dzA over the kept iterations must be
below ``t_tol`` (0.1, eq. 16) for every statistic, and the estimate must not
drift (the ERGM EE's criteria).
"""
from __future__ import annotations

import numpy as np

from ..estimation.base import Setting, integer, number
from ..estimation.ee import estimator as _ee
from ..exceptions import SettingsError
from ..utils.validation import check_params, check_random_state
from ._base import row_weights
from ._models import MonomialModel
from .fitting import MRFMethod, MRFResults, compiled_family, shared_setting, shared_settings

__all__ = ["ProductModel", "EquilibriumExpectation", "default_sampler_steps", "cd1_start"]


def _rows01(X, n, what):
    X = np.asarray(X)
    if X.ndim == 1:
        X = X[None, :]
    if X.ndim != 2 or X.shape[1] != n:
        raise ValueError(f"{what}: the observations must be a 2-D array with {n} columns, got "
                         f"shape {np.shape(X)}")
    if X.size == 0:
        return X.astype(np.uint8)
    if not np.all(np.isfinite(X.astype(float))):
        raise ValueError(f"{what}: non-finite values in the observations")
    if X.min() < 0:
        if not np.all(np.isin(X, (-1, 1))):
            raise ValueError(f"{what}: observations must hold 0/1 values or -1/+1 spins")
        return (X > 0).astype(np.uint8)
    if not np.all(np.isin(X, (0, 1))):
        raise ValueError(f"{what}: observations must hold 0/1 values or -1/+1 spins")
    return X.astype(np.uint8)


def _int_weights(w, n_rows, what):
    if w is None:
        return np.ones(n_rows, dtype=np.int64)
    w = row_weights(w, n_rows, f"{what}: sample_weight", positive_total=False)
    if np.any(w != np.round(w)):
        raise ValueError(f"{what}: EE needs non-negative integer sample weights (a weight "
                         "replicates its observation in the product model)")
    return w.astype(np.int64)


class ProductModel:
    """N observations of one or more compiled MRFs as ONE state of a product model.

    ``insts`` is a list of (compiled model, 0/1 rows, integer weights or None),
    as :meth:`ergmfit.mrf.models.LinearMRF._instances` and ``GridCRF.fit``
    build them.  Every compiled model must be a
    :class:`~ergmfit.mrf._models.MonomialModel` with ``n_stats == len(labels)``
    and the same coding.  Row r of instance i becomes a copy of that
    instance's monomials on its own block of variables; the statistics of
    the product are the sums over the copies.

    The spec the EE engine needs: ``labels``, ``family`` (its factors' family,
    :func:`~ergmfit.mrf.fitting.compiled_family`: binary variables,
    :data:`~ergmfit.families.BINARY`, or a Potts model's one-hot ones; factors of
    different families are refused), ``compiled()`` (a fresh compiled model of the
    factors' class, of all copies, at the observed state),
    ``statistics_vector()`` (= sum of the rows' statistics).

    Examples
    --------
    >>> import numpy as np, networkx as nx
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel(nx.cycle_graph(4))
    >>> X = np.array([[1, 0, 1, 1], [0, 0, 1, 0]])
    >>> P = ProductModel(m._instances(X), m.labels)
    >>> P.n_copies, P.n_vars
    (2, 8)
    >>> np.allclose(P.compiled().statistics(), m.statistics(X).sum(axis=0))
    True
    """

    def __init__(self, insts, labels):
        self.labels = [str(lab) for lab in labels]
        p = len(self.labels)
        if p == 0:
            raise ValueError("the model has no statistics")
        if not isinstance(insts, (list, tuple)) or len(insts) == 0:
            raise ValueError("insts must be a non-empty list of (compiled model, X, weights)")
        parts = []          # (mons, stat, coef, n, rows (copies, n))
        pm1 = None
        for i, inst in enumerate(insts):
            if not isinstance(inst, (list, tuple)) or len(inst) not in (2, 3):
                raise ValueError(f"instance {i} must be a tuple (compiled model, X[, weights])")
            bm, X = inst[0], inst[1]
            w = inst[2] if len(inst) == 3 else None
            if not isinstance(bm, MonomialModel):
                raise ValueError(f"instance {i}: EE for MRFs needs a compiled MonomialModel, "
                                 f"got {type(bm).__name__}")
            if int(bm.n_stats) != p:
                raise ValueError(f"instance {i}: the compiled model has {bm.n_stats} statistics, "
                                 f"the labels name {p}")
            if pm1 is None:
                kind, pm1 = type(bm), bool(bm.pm1)
            elif type(bm) is not kind:
                raise ValueError(
                    f"instance {i}: a compiled {type(bm).__name__} of {compiled_family(bm).name} "
                    f"variables, instance 0 a {kind.__name__} of {compiled_family(kind).name} "
                    "ones: the factors of a product model must be of one kind")
            elif bool(bm.pm1) != pm1:
                raise ValueError("all instances must use the same coding (+-1 or 0/1)")
            n = int(bm.n_vars)
            rows = _rows01(X, n, f"instance {i}")
            reps = _int_weights(w, len(rows), f"instance {i}")
            rows = np.repeat(rows, reps, axis=0)
            if len(rows) == 0:
                continue
            mons, stat, coef = bm.monomials()
            parts.append((mons, np.asarray(stat, dtype=np.int64), np.asarray(coef, dtype=float),
                          n, rows))
        if not parts:
            raise ValueError("no observations (every weight is 0 or X has no rows)")
        self.pm1 = pm1
        self._kind = kind
        self._parts = parts
        self.n_copies = int(sum(len(r) for *_, r in parts))
        self.n_vars = int(sum(n * len(r) for _, _, _, n, r in parts))
        self.copy_size = int(max(n for _, _, _, n, _ in parts))
        self.x_obs = np.concatenate([r.ravel() for *_, r in parts]).astype(np.uint8)
        self._cache = None

    @property
    def family(self):
        """The family of the product's variables: its factors' (all of one class)."""
        return compiled_family(self._kind)

    # pickling (joblib workers): compiled models are rebuilt there
    def __getstate__(self):
        d = dict(self.__dict__)
        d["_cache"] = None
        return d

    def _build(self):
        mons_all, stats, coefs = [], [], []
        off = 0
        for mons, stat, coef, n, rows in self._parts:
            for _ in range(len(rows)):
                mons_all.extend(mm + off for mm in mons)
                off += n
            stats.append(np.tile(stat, len(rows)))
            coefs.append(np.tile(coef, len(rows)))
        return self._kind(self.n_vars, len(self.labels), mons_all, np.concatenate(stats),
                          np.concatenate(coefs), self.pm1)

    def compiled(self):
        """The compiled product model (a :class:`MonomialModel`) at the observed state.

        Built once per object; every call resets the state to the observed one,
        so the returned model is the one of the previous call (chains run one
        after the other share it; joblib workers get their own copy)."""
        if self._cache is None:
            self._cache = self._build()
        self._cache.set_state(self.x_obs)
        return self._cache

    def row_statistics(self):
        """g(x_r) of every copy (row), from the instances' own monomials (numpy)."""
        out = []
        for mons, stat, coef, n, rows in self._parts:
            S = 2.0 * rows - 1.0 if self.pm1 else rows.astype(float)
            G = np.zeros((len(rows), len(self.labels)))
            for mm, k, c in zip(mons, stat, coef):
                G[:, k] += c * np.prod(S[:, mm], axis=1)
            out.append(G)
        return np.concatenate(out)

    def statistics_vector(self):
        """G(x_obs) = the sum of the observations' statistics."""
        return self.row_statistics().sum(axis=0)


def default_sampler_steps(product):
    """m = max(N, ceil(n_vars / 100)): one proposal per observation (the
    paper's m = 1 for each chain of its ensemble), but at least 1% of a sweep
    of the product between parameter updates (large observations, e.g.
    images)."""
    return int(max(product.n_copies, -(-product.n_vars // 100)))


def cd1_start(product, n_iter=200, learning_rate=0.1, random_state=None, callback=None):
    """CD-1 on all observations at once: :class:`ergmfit.mrf.estimation.ContrastiveDivergence`
    on the product model with ``n_steps`` = its number of variables, i.e. per
    iteration one Metropolis sweep (random toggles) of every copy started at
    its observation and undone afterwards (one compiled ``cd_sample`` call).

    The step is ``learning_rate`` times the gradient per variable,
    (G(x_0) - G(x_1)) / n_vars of the product, so that one rate suits small
    and large observations (per observation: ``learning_rate`` / n, n the
    variables of an observation).  Returns the average of the second half of
    the iterates; ``callback(t, theta)`` sees every iterate.
    """
    from .estimation import ContrastiveDivergence
    bm = product.compiled()
    cd = ContrastiveDivergence(n_steps=int(product.n_vars), sampler="mh", n_iter=int(n_iter),
                               learning_rate=float(learning_rate) / product.n_vars,
                               average_from=0.5, random_state=random_state, callback=callback)
    res = cd.fit_instances([(bm, product.x_obs[None, :], None)], product.labels)
    return np.asarray(res.params, dtype=float)


def _init_theta(init, insts, labels, product, random_state, cd_iter, cd_learning_rate):
    """Starting values other than Algorithm S's (``"pl"``, ``"cd"``, values)."""
    import warnings
    if isinstance(init, str):
        if init == "pl":
            from .estimation import PseudoLikelihood
            try:
                th = np.asarray(PseudoLikelihood().fit_instances(insts, labels).params,
                                dtype=float)
                if np.all(np.isfinite(th)):
                    return th
                why = "not finite"
            except Exception as exc:   # noqa: BLE001 - e.g. separation: no finite MPLE
                why = str(exc).split(";")[0].split(":")[0]
            warnings.warn(f"init='pl': no pseudo-likelihood estimate ({why}); EE starts from "
                          "the CD-1 stochastic-gradient estimate instead (init='cd')",
                          UserWarning, stacklevel=3)
            init = "cd"
        if init == "cd":
            return cd1_start(product, cd_iter, cd_learning_rate, random_state)
        raise ValueError(f"init must be 'pl', 'cd', 'S' or parameter values, got {init!r}")
    return check_params(init, list(labels), "init")


def _init(name, value):
    if isinstance(value, str):
        if value in ("pl", "cd", "S"):
            return value
        raise SettingsError(f"setting {name!r} must be 'pl', 'cd', 'S' or parameter values, "
                            f"got {value!r}")
    if isinstance(value, dict):
        return value
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.ndim != 1 or not np.all(np.isfinite(arr)):
        raise SettingsError(f"setting {name!r} must be 'pl', 'cd', 'S' or a sequence of "
                            f"finite parameter values, got {value!r}")
    return value


#: the settings that go to the shared EE engine (ergmfit.estimation.ee): the ERGM
#: EE's Setting objects, with the defaults (and named choices) for MRFs (module
#: docstring); ``init`` is this estimator's own ('pl', 'cd': MRF starts).
_ENGINE_SETTINGS = (
    shared_setting(_ee.EE, "proposal", "random", choices=("random", "tnt"),
                   doc="'random' (flip a uniformly chosen variable) or 'tnt'."),
    shared_setting(_ee.EE, "sampler_steps", None, choices=(None,),
                   doc="m, proposals of the product model per EE iteration "
                       "(None: default_sampler_steps)."),
) + shared_settings(_ee.EE, "s_steps", "ee_steps", "ee_inner_steps", "aca_s", "aca_ee",
                    "comp_c") + (
    shared_setting(_ee.EE, "learning_rate", (0.01, 0.001), choices=(),
                   doc="a of the update: a number in (0, 1) or equal stages of them."),
) + shared_settings(_ee.EE, "min_theta") + (
    Setting("init", "pl", _init, "'pl' (the MPLE = CD-1), 'cd', 'S' or parameter values."),
    shared_setting(_ee.EE, "burnin", 0.2, choices=(),
                   doc="Fraction of the last stage (or number of iterations) dropped."),
    shared_setting(_ee.EE, "se", "simulate", choices=("simulate", "none"),
                   doc="'simulate' (a chain at the estimate) or 'none'."),
    shared_setting(_ee.EE, "polish", False, choices=(),
                   doc="A final MCMC-MLE step from the EE estimate."),
) + shared_settings(_ee.EE, "se_samplesize", "se_interval", "se_burnin", "t_tol", "drift_tol",
                    "drift_z_tol", "drift_se_tol", "stop_when_converged", "min_ee_steps",
                    "thin", "checkpoint", "checkpoint_every")


class EquilibriumExpectation(MRFMethod):
    """Equilibrium Expectation for the observations of an MRF or CRF (``method="ee"``).

    One EE run of the shared engine (:meth:`ergmfit.estimation.ee.estimator.EE.run`)
    on the :class:`ProductModel` of all observations (module docstring);
    sample weights must be non-negative integers (a weight replicates its
    observation).

    ``params`` is the mean of theta over the kept iterations; ``cov`` (None
    with ``se="none"``) the inverse Fisher information of the simulation at
    the estimate plus the Monte-Carlo covariance of the average.  ``info``:
    ``trace`` (theta every ``ee_inner_steps`` iterations, chain 1),
    ``t_ratios`` (mean/sd of dzA = G(x_t) - G(x_obs) over the kept
    iterations, labels order), ``t_ratios_sim`` (from the simulation at the
    estimate), ``theta_rows`` and ``dz_rows`` (every ``store_every``-th
    iteration of chain 1), ``init_theta`` (EE's start), ``algorithm_s``
    (with ``init="S"``), ``cov_model``, ``cov_mc``, ``burnin_iterations``,
    ``acceptance``, ``n_copies``, ``sampler_steps``, ``seconds``,
    ``ee_warnings`` and ``ee_results`` (the engine's
    :class:`~ergmfit.results.ERGMResults`, with ``summary()``).

    References
    ----------
    Borisenko, A., Byshkin, M. & Lomi, A. (2019). A simple algorithm for
    scalable Monte Carlo inference. arXiv:1901.00533.

    Examples
    --------
    >>> import networkx as nx
    >>> from ergmfit.mrf import IsingModel
    >>> m = IsingModel(nx.cycle_graph(5))
    >>> X = m.sample(300, theta=[0.2, 0.5], random_state=0)
    >>> r = EquilibriumExpectation(random_state=1, ee_steps=20, ee_inner_steps=50,
    ...                            se="none").fit(m, X)
    >>> r.params.shape, len(r.info["t_ratios"])
    ((2,), 2)
    """

    method = "ee"
    SETTINGS = (
        shared_setting(_ee.EE, "update", "borisenko", choices=("borisenko", "adaptive", "newton"),
                       doc="Borisenko et al.'s eq. 14, Byshkin et al.'s adaptive update or "
                           "'newton'."),
    ) + _ENGINE_SETTINGS + shared_settings(_ee.EE, "n_chains", "n_jobs", "callback") + (
        Setting("cd_iter", 200, integer(1), "Steps of the CD-1 start (init='cd')."),
        Setting("cd_learning_rate", 0.1, number(0, lo_open=True),
                "Learning rate of the CD-1 start, on the gradient per variable."),
    )

    def _fit_instances(self, insts, labels, model=None):
        import warnings

        from ..exceptions import ConvergenceWarning
        labels = list(labels)
        cfg = {s.name: getattr(self, s.name) for s in _ENGINE_SETTINGS}
        product = ProductModel(insts, labels)
        self.check_family(product.family, "the product model's factors")
        if cfg["sampler_steps"] is None:
            cfg["sampler_steps"] = default_sampler_steps(product)
        rng = check_random_state(self.random_state)
        init = cfg["init"]
        if isinstance(init, str) and init == "S":
            init_theta = None
        else:
            init_theta = _init_theta(init, insts, labels, product, rng, self.cd_iter,
                                     self.cd_learning_rate)
            cfg["init"] = init_theta
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)   # reported by "converged" below
            out = _ee.EE(random_state=rng, verbose=self.verbose, n_chains=self.n_chains,
                         n_jobs=self.n_jobs, callback=self.callback, update=self.update,
                         **cfg).run(product)
            res = _ee.build_results(product, out)
        ch = out["chains"][0]
        info = res.info
        traj = info["trajectory"][0]
        t = np.array([info["t_ratios"][lab] for lab in labels])
        t_sim = None if info["t_ratios_sim"] is None else \
            np.array([info["t_ratios_sim"][lab] for lab in labels])
        cov, cov_model, cov_mc = _covariances(out, res, len(labels))
        s_theta = ch["s_theta"]
        extra = {
            "trace": np.asarray(traj["theta"], dtype=float),
            "t_ratios": t,
            "t_ratios_sim": t_sim,
            "theta_rows": ch["theta_rows"],
            "dz_rows": ch["dz_rows"],
            "store_every": ch["store_every"],
            "algorithm_s": None if s_theta is None else np.asarray(s_theta, dtype=float),
            "init_theta": (np.asarray(s_theta, dtype=float) if init_theta is None and s_theta is
                           not None else init_theta),
            "burnin_iterations": info["burnin_iterations"],
            "acceptance": info["acceptance"],
            "cov_model": cov_model,
            "cov_mc": cov_mc,
            "n_copies": product.n_copies,
            "sampler_steps": int(cfg["sampler_steps"]),
            "seconds": out["seconds"],
            "ee_warnings": list(res.warnings),
            "ee_results": res,
        }
        return MRFResults(np.asarray(res.params, dtype=float), labels, method=self.method,
                          cov=cov, converged=bool(res.converged), n_iter=int(res.n_iter),
                          info=extra)


_N_BATCHES = 20


def _covariances(out, res, p):
    """(cov, cov_model, cov_mc) of the EE estimate.

    cov_model: the inverse Fisher information of all observations, from the
    simulation at the estimate (None without ``se="simulate"``).  cov_mc:
    the Monte-Carlo covariance of the trajectory average.  Along the run
    dzA_t ~ I (theta_t - theta_hat) + e_t with e_t the chain's own
    fluctuation of G, and the update keeps the mean of dzA at 0, so
    theta_bar - theta_hat ~ -I^-1 mean(e): cov_mc = I^-1 V I^-1 with V the
    covariance of the mean of the K kept dzA rows, by batch means over 20
    batches (a batch of sqrt(K) rows is shorter than the autocorrelation
    of slowly mixing statistics, e.g. the magnetisation of a strongly coupled
    image CRF); chains are pooled by inverse covariance.  (The batch-means
    covariance of the theta rows, the ERGM EE's cov_mc, measures how much
    theta wanders, not this error, and is many times smaller for MRF
    product models.)
    """
    from ..estimation.ee.chain import burnin_iters
    from ..estimation.ee.pool import robust_inv
    from ..sampling.chains import batch_means_cov
    cfg = out["cfg"]
    fishers, Ss = [], []
    for ch in out["chains"]:
        if ch["sims"] is not None and len(ch["sims"]) > p:
            fishers.append(np.cov(ch["sims"], rowvar=False).reshape(p, p))
        it = np.arange(len(ch["dz_rows"])) * ch["store_every"]
        keep = it >= burnin_iters(cfg["burnin"], ch["n_done"], ch["stage_start"])
        dz = ch["dz_rows"][keep]
        if len(dz) >= 2 * _N_BATCHES:
            Ss.append(batch_means_cov([dz], n_batches=_N_BATCHES))
    if not fishers:
        return None, None, None
    Iinv = robust_inv(np.mean(fishers, axis=0))
    if not Ss:
        return Iinv, Iinv, None
    Vs = [Iinv @ S @ Iinv for S in Ss]
    cov_mc = Vs[0] if len(Vs) == 1 else robust_inv(sum(robust_inv(V) for V in Vs))
    return Iinv + cov_mc, Iinv, cov_mc
