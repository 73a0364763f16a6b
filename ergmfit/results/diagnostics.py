"""Typed per-method diagnostics of a fit: ``fit.diagnostics``.

Every estimator reports what it did beyond the estimates (iterations, MCMC
settings, convergence figures, ...).  Each method family declares these
fields once, with their types and meaning, in one small dataclass below;
:class:`~ergmfit.results.ERGMResults` builds the one its ``method`` names
(:func:`diagnostics_class`) from the estimator's report with
:meth:`Diagnostics.from_info`.

``fit.info``, the dictionary fits carried before, is a read-only view of the
same object (:class:`InfoView`): ``fit.info["history"]`` is
``fit.diagnostics.history``, and results files keep storing the diagnostics
under ``"info"`` in that form, so files written before and after read alike.
What adds a field after the results are built (the model layer, an estimator's
wrapper) sets it on ``fit.diagnostics`` (:meth:`Diagnostics.set`,
:meth:`Diagnostics.update`, :meth:`Diagnostics.unset`); writing to
``fit.info`` raises :class:`~ergmfit.exceptions.ReadOnlyError`.
A key that no field declares (an estimator registered by a user, say) is kept
in :attr:`~ergmfit.results.Diagnostics.extra`; the contract tests check that no registered
estimator reports one.

>>> import ergmfit as ef
>>> fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit(method="mple")
>>> type(fit.diagnostics).__name__
'MPLEDiagnostics'
>>> fit.diagnostics.design["n_vars"], fit.info["design"]["n_on"]
(120, 20)
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, Optional

import numpy as np

from ..exceptions import ReadOnlyError

__all__ = ["Diagnostics", "MPLEDiagnostics", "MCMLEDiagnostics", "CDDiagnostics",
           "BCDDiagnostics", "MCLEDiagnostics", "EEDiagnostics", "SADiagnostics", "EGMMEDiagnostics",
           "PosteriorDiagnostics", "ExchangeDiagnostics", "PseudoPosteriorDiagnostics",
           "DIAGNOSTICS", "diagnostics_class", "InfoView"]


@dataclasses.dataclass(eq=False)
class Diagnostics:
    """What any fit may report; the base of every method's diagnostics.

    The model layer fills the first fields whatever the estimator; a field
    nobody set is ``None`` and is left out of :meth:`to_info` (and of
    ``fit.info``).

    Attributes
    ----------
    sample_space : dict or None
        Constraints, missing dyads, offset coefficients and target statistics
        of the fitted model (:meth:`ergmfit.ERGM.saved_spec`), so that
        :meth:`~ergmfit.results.ERGMResults.rebuild_model` rebuilds it.
    offset : dict or None
        ``{label: is an offset}`` of a model with offset terms.
    nothing_estimated : bool or None
        True when every coefficient was an offset (no estimator ran).
    interrupted : bool or None
        True when Ctrl-C ended the fit early (the results hold the work done).
    mcmc : dict or None
        ``{"interval", "burnin"}``: the MCMC settings that
        :meth:`~ergmfit.results.ERGMResults.simulate` and ``gof`` use by default.
    n_missing : int or None
        Number of missing (unobserved) dyads the fit integrated over.
    missing_data : str or None
        Which likelihood of the observed data was maximised, in words.
    extra : dict
        Reported keys that no field declares (kept, saved and shown in
        ``fit.info``; a registered estimator reports none).
    """

    #: the methods (``fit.method``) whose reports this class declares
    methods: ClassVar[tuple] = ()

    sample_space: Optional[dict] = None
    offset: Optional[dict] = None
    nothing_estimated: Optional[bool] = None
    interrupted: Optional[bool] = None
    mcmc: Optional[dict] = None
    n_missing: Optional[int] = None
    missing_data: Optional[str] = None
    extra: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        # the reported keys in the order they were reported (what to_info gives)
        object.__setattr__(self, "_reported", {f: None for f in self.field_names()
                                               if getattr(self, f) is not None})

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        reported = self.__dict__.get("_reported")
        if reported is not None and name in self.field_names():
            reported[name] = None

    @classmethod
    def field_names(cls) -> tuple:
        """The declared fields (``extra`` aside)."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.name != "extra")

    @classmethod
    def from_info(cls, info=None) -> "Diagnostics":
        """The diagnostics an estimator reported as a dict (or a saved ``"info"``).

        >>> from ergmfit.results import MCMLEDiagnostics
        >>> d = MCMLEDiagnostics.from_info({"final_interval": 64, "new_key": 1})
        >>> d.final_interval, d.extra
        (64, {'new_key': 1})
        """
        out = cls()
        for key, value in dict(info or {}).items():
            out.set(str(key), value)
        return out

    def set(self, key: str, value) -> None:
        """Set the field ``key`` (or ``extra[key]`` when no field declares it)."""
        if key in self.field_names():
            setattr(self, key, value)
        else:
            self.extra[key] = value

    def update(self, fields) -> None:
        """:meth:`set` each ``key: value`` of the mapping ``fields``, in order.

        >>> from ergmfit.results import MPLEDiagnostics
        >>> d = MPLEDiagnostics()
        >>> d.update({"exact_mle": True, "call_method": "mcmle"})
        >>> d.to_info()
        {'exact_mle': True, 'call_method': 'mcmle'}
        """
        for key, value in dict(fields).items():
            self.set(str(key), value)

    def unset(self, key: str) -> None:
        """Remove the reported field ``key`` (back to None, out of :meth:`to_info`)
        or ``extra[key]``; a KeyError if neither was reported."""
        reported = self.__dict__["_reported"]
        if key in reported:
            del reported[key]
            object.__setattr__(self, key, None)
        else:
            del self.extra[key]

    def to_info(self) -> dict:
        """The reported fields as a dict, in the order they were reported
        (what results files store under ``"info"``)."""
        out = {k: getattr(self, k) for k in self.__dict__["_reported"]}
        out.update(self.extra)
        return out

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return _same(self.to_info(), other.to_info())

    def __repr__(self):
        shown = ", ".join(f"{k}={_short(v)}" for k, v in self.to_info().items())
        return f"{type(self).__name__}({shown})"


@dataclasses.dataclass(eq=False, repr=False)
class MPLEDiagnostics(Diagnostics):
    """Maximum pseudo-likelihood (``"mple"``; ``"mle"`` when it is the exact MLE).

    Attributes
    ----------
    design : dict
        The logistic-regression design: ``n_vars`` (dyads), ``n_on`` (ties),
        ``unique_rows`` (distinct change-statistic rows), ``sampled`` (a
        case-control sample of non-ties) and ``n_sampled``.
    curved_start : list of float or None
        A curved model's start: the estimate with the decays fixed.
    godambe : dict or None
        The simulated Godambe (sandwich) variability: ``n_sim``, ``burnin``,
        ``interval``, ``proposal``, ``acceptance_rate``, ``mean_score``.
    bootstrap : dict or None
        The parametric bootstrap: ``B``, ``n_failed``, ``burnin``,
        ``interval``, ``proposal``, ``acceptance_rate``, ``estimates``.
    exact_mle : bool or None
        True when MCMC-MLE was asked for a dyad-independent model, whose MLE
        is the MPLE exactly (no MCMC run, as statnet does).
    call_method : str or None
        The method asked for (``"mcmle"``) when it differs from ``fit.method``.
    """

    methods: ClassVar[tuple] = ("mple", "mle")

    design: Optional[dict] = None
    curved_start: Optional[list] = None
    godambe: Optional[dict] = None
    bootstrap: Optional[dict] = None
    exact_mle: Optional[bool] = None
    call_method: Optional[str] = None


@dataclasses.dataclass(eq=False, repr=False)
class MCMLEDiagnostics(Diagnostics):
    """Monte Carlo maximum likelihood (``"mcmle"``, with or without missing dyads).

    Attributes
    ----------
    history : list of dict
        One dict per iteration: ``iteration``, ``theta``, ``gamma`` (the step
        length), ``pvalue`` (the Hotelling T² p-value of the observed
        statistics against the sample), ``min_ess`` and ``ess`` (effective
        sizes of the importance weights), ``interval``, ``samplesize``,
        ``acceptance``, ``t_mean``, ``bistable``.
    final_interval : int or None
        The MCMC interval of the last iteration (it adapts to the
        autocorrelation).
    init_method : str or None
        Where the iterations started (``"MPLE"``, ``"EE"``, ``"user"``,
        ``"checkpoint ..."``).
    loglik_mcse : float or None
        Monte Carlo standard error of the bridge-sampled log-likelihood.
    loglik_interrupted : bool or None
        True when Ctrl-C stopped the bridge sampling (log-likelihood NA).
    cov_model : list of list or None
        The model part of the covariance (``cov`` less its Monte Carlo part).
    cpu_seconds : dict or None
        CPU seconds of the ``start``, the ``iterations`` and the ``loglik``.
    fallback : str or None
        What the fit did when the first attempt made no headway, in words.
    """

    methods: ClassVar[tuple] = ("mcmle",)

    history: Optional[list] = None
    final_interval: Optional[int] = None
    init_method: Optional[str] = None
    loglik_mcse: Optional[float] = None
    loglik_interrupted: Optional[bool] = None
    cov_model: Optional[list] = None
    cpu_seconds: Optional[dict] = None
    fallback: Optional[str] = None


@dataclasses.dataclass(eq=False, repr=False)
class CDDiagnostics(Diagnostics):
    """Contrastive divergence (``"cd"``).

    Attributes
    ----------
    history : list of dict
        One dict per iteration: ``iteration``, ``theta``, ``gamma``,
        ``pvalue``, ``zbar``.
    nsteps : int or None
        Metropolis–Hastings steps of every short chain.
    samplesize : int or None
        Short chains per iteration.
    acceptance : float or None
        Acceptance rate of the short chains.
    """

    methods: ClassVar[tuple] = ("cd",)

    history: Optional[list] = None
    nsteps: Optional[int] = None
    samplesize: Optional[int] = None
    acceptance: Optional[float] = None


@dataclasses.dataclass(eq=False, repr=False)
class BCDDiagnostics(Diagnostics):
    """Blocked contrastive divergence (``"bcd"``), a stochastic-gradient method.

    Attributes
    ----------
    block_size, steps, batch_size : int or None
        Dyads per block, Gibbs sweeps per block, blocks per gradient.
    blocks : str or None
        How blocks are drawn (``"uniform"``, ..., ``"list"``).
    rao_blackwell : bool or None
    n_iter : int or None
        Iterations done.
    learning_rate : str or None
        The step-size schedule, in words.
    precondition, init : str or None
        The preconditioner and the start (``"mple"``, ``"mple_bounded"``,
        ``"user"``, ...).
    init_params, last_iterate : list of float or None
        The start and the last iterate (the estimate averages iterates).
    averaged_iterations : int or None
        Iterates averaged into the estimate.
    trace_iterations, trace : list or None
        Iteration numbers and parameter values of the kept trace.
    mean_gradient : list of float or None
        Mean gradient over the averaged iterations.
    godambe : dict or None
        The simulated Godambe variability (``n_sim``, ...), with ``cov="godambe"``.
    """

    methods: ClassVar[tuple] = ("bcd",)

    block_size: Optional[int] = None
    steps: Optional[int] = None
    blocks: Optional[str] = None
    rao_blackwell: Optional[bool] = None
    n_iter: Optional[int] = None
    batch_size: Optional[int] = None
    learning_rate: Optional[str] = None
    precondition: Optional[str] = None
    init: Optional[str] = None
    init_params: Optional[list] = None
    last_iterate: Optional[list] = None
    averaged_iterations: Optional[int] = None
    trace_iterations: Optional[list] = None
    trace: Optional[list] = None
    mean_gradient: Optional[list] = None
    godambe: Optional[dict] = None


@dataclasses.dataclass(eq=False, repr=False)
class MCLEDiagnostics(Diagnostics):
    """Maximum composite likelihood over blocks of dyads (``"mcle"``).

    Attributes
    ----------
    block_size : int or None
    blocks : str or None
        How the blocks were chosen.
    n_blocks, unique_blocks : int or None
        Blocks used, and distinct ones among them.
    composite_loglik : float or None
        The composite log-likelihood at the estimate.
    score_at_estimate : list of float or None
        Its gradient there (near 0 when converged).
    godambe : dict or None
        The Godambe variability: exact (``{"J": "exact", "mean_score"}``) or
        simulated (``n_sim``, ``burnin``, ``interval``, ``sampler``, ``mean_score``).
    """

    methods: ClassVar[tuple] = ("mcle",)

    block_size: Optional[int] = None
    blocks: Optional[str] = None
    n_blocks: Optional[int] = None
    unique_blocks: Optional[int] = None
    composite_loglik: Optional[float] = None
    score_at_estimate: Optional[list] = None
    godambe: Optional[dict] = None


@dataclasses.dataclass(eq=False, repr=False)
class EEDiagnostics(Diagnostics):
    """Equilibrium expectation (``"ee"``); per-chain entries are lists with one
    item per chain.

    Attributes
    ----------
    t_ratios, t_ratios_sim : dict or None
        Convergence t-ratios ``{label: t}`` of the EE chain and of the final
        simulation (printed in the summary's ``t ratio`` column).
    drift, drift_se : dict or None
        Drift of every parameter over the last phase and its standard error.
    observed : dict or None
        The observed statistics ``{label: value}``.
    chain_estimates, ee_estimates, chain_t_ratios : list or None
        Per chain: the estimate, the EE (unpolished) estimate, the t-ratios.
    polish : list or None
        Per chain: the final Newton polish (``gamma``, ``skipped``, ...).
    fallback : str or None
        What the fit did when a chain failed, in words.
    trajectory : list of dict or None
        Per chain: the kept iterations (``theta``, ...; every ``thin``-th).
    ifd : dict or None
        The improved fixed-density proposal: ``arc_correction``, ``L``, ``D``, ``V``.
    algorithm_s, Dmean : list or None
        Per chain: algorithm S's estimate and its mean step sizes.
    estimnet : dict or None
        EstimNetDirected's standard errors: per ``chains`` and ``pooled_se``.
    burnin_iterations, iterations : list of int or None
        Per chain: burn-in and EE iterations done.
    proposals : int or None
        Proposals made in all (algorithm S and EE).
    proposals_per_second, proposals_per_cpu_second : float or None
        EE proposals per wall-clock and per CPU second.
    cpu_seconds_ee, seconds_chains, seconds_ee, maxrss_mb_chains : list or None
        Per chain: CPU and wall-clock seconds, peak memory (MiB).
    acceptance : float or None
        Mean acceptance rate.
    settings : dict or None
        Every EE setting the fit ran with.
    seeds : list of int or None
        The seed of every chain.
    """

    methods: ClassVar[tuple] = ("ee",)

    t_ratios: Optional[dict] = None
    t_ratios_sim: Optional[dict] = None
    drift: Optional[dict] = None
    drift_se: Optional[dict] = None
    observed: Optional[dict] = None
    chain_estimates: Optional[list] = None
    ee_estimates: Optional[list] = None
    polish: Optional[list] = None
    fallback: Optional[str] = None
    chain_t_ratios: Optional[list] = None
    trajectory: Optional[list] = None
    ifd: Optional[dict] = None
    algorithm_s: Optional[list] = None
    Dmean: Optional[list] = None
    estimnet: Optional[dict] = None
    burnin_iterations: Optional[list] = None
    iterations: Optional[list] = None
    proposals: Optional[int] = None
    proposals_per_second: Optional[float] = None
    proposals_per_cpu_second: Optional[float] = None
    cpu_seconds_ee: Optional[list] = None
    acceptance: Optional[float] = None
    seconds_chains: Optional[list] = None
    seconds_ee: Optional[list] = None
    maxrss_mb_chains: Optional[list] = None
    settings: Optional[dict] = None
    seeds: Optional[list] = None


@dataclasses.dataclass(eq=False, repr=False)
class SADiagnostics(Diagnostics):
    """Robbins–Monro stochastic approximation (``"sa"``, statnet's ``estimate="SA"``).

    Attributes
    ----------
    start : str or None
        Where phase 1 started (``"MPLE"``, ``"user"``).
    history : list of dict
        One dict per phase-2 sub-phase: ``subphase``, ``gain``, ``draws``, ``theta``.
    t_ratios : dict or None
        Phase 3's convergence t-ratios ``{label: t}`` (the summary's ``t ratio`` column).
    acceptance : float or None
        Acceptance rate of the sampler.
    """

    methods: ClassVar[tuple] = ("sa",)

    start: Optional[str] = None
    history: Optional[list] = None
    t_ratios: Optional[dict] = None
    acceptance: Optional[float] = None


@dataclasses.dataclass(eq=False, repr=False)
class EGMMEDiagnostics(Diagnostics):
    """Equilibrium generalised method of moments (``"egmme"``, tergm's
    ``estimate="EGMME"``).

    Attributes
    ----------
    targets : dict or None
        The observed target statistics ``{label: value}``; with a free decay in the
        targets, their curved statistics at the estimate (``gwesp``: its value at the
        decay, ``gwesp.decay``: its derivative in the decay), what the fit matches.
    target_statistics : dict or None
        The observed statistics of the targets' formula (``edges``, ``esp#1``, ...).
    target_means : dict or None
        The equilibrium means of ``targets`` in the final run at the estimate.
    t_ratios : dict or None
        (mean - observed) / sd of each target in the final run.
    target_mc_se : dict or None
        Monte Carlo standard error (batch means) of each target's final mean.
    projected_t : dict or None
        With more targets than coefficients, or a coefficient held at its bound:
        the targets' deviation projected on each free coefficient's direction, in
        equilibrium sd (what convergence is judged by then; NaN for one held at its
        bound); None otherwise.
    held_at_bound : list of str
        Coefficients (a decay at 0) held at their bound at the estimate because the
        targets would move them out of it; their moment condition is not asked for.
    history : list of dict
        One dict per Newton iteration: ``theta`` (after the step), ``start`` (the θ
        the iteration ran at), ``gain`` (after Kesten's rule), ``deviation``,
        ``changes`` (the steps that turned back so far) and, for an iteration that
        took the last step back, ``rejected``.
    time_steps : int or None
        Time steps the main chain ran.
    proposals_per_step : int or None
        Metropolis-Hastings proposals per time step.
    bistable : list of str or None
        Targets whose final run switches between two phases, one at most half
        and one at least twice the observed value (each a two-peaked share of
        the time steps); ``[]`` if none, None without a final run.
    """

    methods: ClassVar[tuple] = ("egmme",)

    targets: Optional[dict] = None
    target_statistics: Optional[dict] = None
    target_means: Optional[dict] = None
    t_ratios: Optional[dict] = None
    target_mc_se: Optional[dict] = None
    projected_t: Optional[dict] = None
    held_at_bound: Optional[list] = None
    history: Optional[list] = None
    time_steps: Optional[int] = None
    proposals_per_step: Optional[int] = None
    bistable: Optional[list] = None


@dataclasses.dataclass(eq=False, repr=False)
class PosteriorDiagnostics(Diagnostics):
    """What every Bayesian fit reports (see the two methods below).

    Attributes
    ----------
    iterations : int or None
        Iterations done (burn-in included).
    burnin, main_iters, thin, n_chains : int or None
        The sampler's settings.
    cpu_seconds : float or None
        CPU seconds of the sampling.
    """

    iterations: Optional[int] = None
    burnin: Optional[int] = None
    main_iters: Optional[int] = None
    thin: Optional[int] = None
    n_chains: Optional[int] = None
    cpu_seconds: Optional[float] = None


@dataclasses.dataclass(eq=False, repr=False)
class ExchangeDiagnostics(PosteriorDiagnostics):
    """The approximate exchange algorithm (``"bayes"``, Bergm's ``bergm``).

    Attributes
    ----------
    aux_iters : int or None
        Proposals of every auxiliary network's chain.
    gamma : float or None
        The population move's scale.
    v_proposal : float or None
        The proposal's scale (None: adapted).
    proposal_cov : array or None
        The proposal covariance (a list once saved).
    delayed : bool or str or None
        Delayed acceptance: False, True or ``"pilot"``.
    aux_start : str or None
        Where the auxiliary chains start (``"observed"``, ...).
    storage : str or None
        How the auxiliary state is stored.
    aux_rule : dict or None
        How ``aux_iters`` was chosen (``rule``, ``pilot_lag``, ``capped_from``, ...).
    missing_update : int or None
        Steps of the missing-dyad imputation per iteration (None: no missing dyads).
    first_stage_rate : list of float or None
        Per chain: the delayed acceptance's first-stage pass rate.
    """

    methods: ClassVar[tuple] = ("bayes",)

    aux_iters: Optional[int] = None
    gamma: Optional[float] = None
    v_proposal: Optional[float] = None
    proposal_cov: Optional[Any] = None
    delayed: Optional[Any] = None
    aux_start: Optional[str] = None
    storage: Optional[str] = None
    aux_rule: Optional[dict] = None
    missing_update: Optional[int] = None
    first_stage_rate: Optional[list] = None


@dataclasses.dataclass(eq=False, repr=False)
class PseudoPosteriorDiagnostics(PosteriorDiagnostics):
    """The adjusted pseudo-posterior (``"bayes-pl"``, Bergm's ``bergmC``).

    Attributes
    ----------
    mple, mle : list of float or None
        The MPLE and the MCMC-MLE the adjustment maps between.
    W : list of list or None
        The adjustment matrix.
    mle_converged : bool or None
        Whether the MCMC-MLE of the adjustment converged.
    """

    methods: ClassVar[tuple] = ("bayes-pl",)

    mple: Optional[list] = None
    mle: Optional[list] = None
    W: Optional[list] = None
    mle_converged: Optional[bool] = None


#: ``fit.method`` -> the diagnostics class of its reports
DIAGNOSTICS = {m: cls for cls in (MPLEDiagnostics, MCMLEDiagnostics, CDDiagnostics,
                                  BCDDiagnostics, MCLEDiagnostics, EEDiagnostics,
                                  SADiagnostics, EGMMEDiagnostics, ExchangeDiagnostics, PseudoPosteriorDiagnostics)
               for m in cls.methods}


def diagnostics_class(method) -> type:
    """The diagnostics class of ``method`` (:class:`Diagnostics` for a method
    registered without one).

    >>> diagnostics_class("mcmle").__name__
    'MCMLEDiagnostics'
    """
    return DIAGNOSTICS.get(str(method).lower(), Diagnostics)


class InfoView(Mapping):
    """``fit.info``: the diagnostics as the dict fits carried before, read-only.

    Reading ``info[key]`` gives the field ``key`` (or ``extra[key]``);
    ``dict(fit.info)`` is a plain (writable) copy.  Writing raises
    :class:`~ergmfit.exceptions.ReadOnlyError`: the fields live on
    ``fit.diagnostics`` (:meth:`Diagnostics.set`), where a write is typed.

    >>> import ergmfit as ef
    >>> fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit(method="mple")
    >>> fit.info["design"]["n_on"]
    20
    >>> fit.info["exact_mle"] = True
    Traceback (most recent call last):
    ...
    ergmfit.exceptions.ReadOnlyError: fit.info is read-only (a view of fit.diagnostics, an MPLEDiagnostics); set a field with fit.diagnostics.set('exact_mle', value), or copy the view with dict(fit.info)
    """

    __slots__ = ("_diagnostics",)

    def __init__(self, diagnostics: Diagnostics):
        self._diagnostics = diagnostics

    def __getitem__(self, key):
        d = self._diagnostics
        if key in d.__dict__["_reported"]:
            return getattr(d, key)
        return d.extra[key]

    def __iter__(self):
        return iter(self._diagnostics.to_info())

    def __len__(self):
        return len(self._diagnostics.to_info())

    def __repr__(self):
        return repr(self._diagnostics.to_info())

    def _refuse(self, key=None):
        name = type(self._diagnostics).__name__
        article = "an" if name[0] in "AEIOUM" else "a"
        shown = "key" if key is None else repr(key)
        raise ReadOnlyError(f"fit.info is read-only (a view of fit.diagnostics, {article} "
                            f"{name}); set a field with fit.diagnostics.set({shown}, value), "
                            "or copy the view with dict(fit.info)")

    def __setitem__(self, key, value):
        self._refuse(key)

    def __delitem__(self, key):
        self._refuse(key)

    def update(self, *args, **kwargs):
        self._refuse()

    def setdefault(self, key, default=None):
        self._refuse(key)

    def pop(self, key, *default):
        self._refuse(key)

    def popitem(self):
        self._refuse()

    def clear(self):
        self._refuse()


def _same(a, b) -> bool:
    """Equal JSON-like values (arrays compared by value, NaN equal to NaN)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, np.ndarray)) and isinstance(b, (list, tuple, np.ndarray)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating)):
        return a == b or (a != a and b != b)
    return a == b


def _short(v) -> str:
    if isinstance(v, (list, tuple)) and len(v) > 3:
        return f"[{len(v)} items]"
    if isinstance(v, dict) and len(v) > 3:
        return f"{{{len(v)} keys}}"
    if isinstance(v, np.ndarray):
        return f"array{v.shape}"
    return repr(v)
