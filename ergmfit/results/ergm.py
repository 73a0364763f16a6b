"""Fitted models: :class:`ERGMResults` and its statnet-style :class:`Summary`.

One results class serves every estimator (MPLE, MCMC-MLE, CD, EE, ...):
the estimator fills in what it knows and leaves the rest ``None``.

What an estimator provides
--------------------------
``params``, ``cov`` (total covariance of the estimates), ``labels``,
``method`` (``"mple"``, ``"mcmle"``, ...), optionally ``cov_mc`` (the
Monte Carlo / estimation part of ``cov``; statnet's ``MCMC %`` column is
``round(100 * (SE_total - SE_model) / SE_total)`` with
``SE_model = sqrt(diag(cov - cov_mc))``), ``loglik`` with ``loglik_kind``
(``"pseudo"``: a log-pseudo-likelihood; ``"exact"``: the exact
log-likelihood, e.g. a dyad-independent model; ``"bridge"``: estimated by
bridge sampling, with ``loglik_mcse``; ``None``: not computed), ``nobs``
(number of binary variables: dyads for an ERGM), ``converged``,
``n_iter``, ``seconds``, ``se_kind`` (``"naive"``, ``"godambe"``,
``"bootstrap"``, ``"fisher"``, ...), ``warnings`` (strings printed under the
table) and ``info``, a JSON-serialisable dict of the estimator's diagnostics,
which becomes the typed ``fit.diagnostics`` of the method (see
:mod:`ergmfit.results.diagnostics`; ``fit.info`` stays readable as a view).

Saving
------
:meth:`ERGMResults.save` writes JSON (``.json``) or a NumPy archive
(``.npz``, arrays plus one JSON metadata string; read back with
``allow_pickle=False``).  Pickle is never used.  What is stored: every
field above, the formula, the coefficient labels, and -- so that a later
``gof`` can rebuild the model with :meth:`ERGMResults.rebuild_model` -- the
network: number of nodes, directedness, ties, node labels and the node,
edge and graph attributes whose values are JSON-serialisable (others are
listed under ``network["dropped_attributes"]``).  Non-finite numbers are
written as ``null`` (NaN) and ``"inf"``/``"-inf"``.
"""
from __future__ import annotations

import errno
import json
import math
import os

import numpy as np

from ..exceptions import ReadOnlyError, ResultsFileError, SaveError
from ..labeled import LabeledArray, require_pandas, make_unique
from ..rformat import percent_label, format_pvalues, r_format, r_round, signif_stars
from ..utils.fileio import atomic_write
from ..utils.validation import warns_at_callers_line
from .diagnostics import InfoView, diagnostics_class
from .io import (_Damage, _check_loaded, _dec_array, _dec_float, _describe_damage, _enc,
                 _loaded_sample, _read_results_file, _sample_parts, network_from_dict,
                 network_to_dict, results_file_extension)

FORMAT_VERSION = 1
# OSErrors that mean the file cannot be read, not that its content is damaged
_ACCESS_ERRNOS = {errno.EACCES, errno.EPERM, errno.EIO, errno.ENOTDIR, errno.ELOOP,
                  errno.ENAMETOOLONG, errno.EMFILE, errno.ENFILE}

_HEADERS = {
    "mple": "Maximum Pseudolikelihood Results:",
    "mple_exact": "Maximum Likelihood Results:",
    "mle": "Maximum Likelihood Results:",
    "mcmle": "Monte Carlo Maximum Likelihood Results:",
    "cd": "Contrastive Divergence Results:",
    "sa": "Stochastic Approximation Maximum Likelihood Results:",
    "egmme": "Gradient Descent Equilibrium Generalized Method of Moments Results:",
    "ee": "Equilibrium Expectation Results:",
    "bcd": "Blocked Contrastive Divergence Results:",
    "mcle": "Maximum Composite Likelihood Results:",
}

NAIVE_SE_WARNING = ("Warning: The standard errors are based on naive pseudolikelihood and are "
                    "suspect. Use fit(method=\"mple\", cov=\"godambe\") or bootstrap=B for a "
                    "simulation-based approximation of the standard errors.")


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------
#: ``build(network, formula, info)``: the model a results file describes.  The
#: model layer (:func:`ergmfit.model.rebuild_from_info`) registers it: results sit
#: below the model and the estimators that make them, and import neither.
_MODEL_BUILDER = None


def register_model_builder(build):
    """Make :meth:`ERGMResults.rebuild_model` build models with ``build``."""
    global _MODEL_BUILDER
    _MODEL_BUILDER = build


#: modules that held results classes before (files name them): where they are now
_MOVED_MODULES = {"ergmfit.results_bayes": "ergmfit.results.bayes"}


class ERGMResults:
    """The outcome of fitting a model, whatever the estimator.

    Attributes
    ----------
    params, bse, tvalues, pvalues : LabeledArray
        Estimates, standard errors sqrt(diag(cov)), z = params / bse and
        two-sided p = 2 Phi(-|z|), labelled as the model's statistics.
    cov : ndarray (p, p)
        Covariance of the estimates (``se_kind`` says which estimate).
    loglik, loglik_kind : float or None, str or None
        The (pseudo-)log-likelihood at the estimate and what it is
        (``"pseudo"``, ``"exact"``, ``"bridge"`` or ``None``).
    null_loglik : float or None
        At theta = 0 (for binary variables: -nobs * log 2).
    aic, bic : float or None
        -2 loglik + 2p and -2 loglik + p log(nobs).
    deviance, null_deviance : float or None
        -2 loglik and -2 null_loglik.
    nobs : int or None
        Number of binary variables (dyads of an ERGM).
    converged, method, n_iter, seconds, se_kind, warnings
    diagnostics : Diagnostics
        What the estimator reported, typed by method (e.g.
        :class:`~ergmfit.results.MCMLEDiagnostics`); see
        :mod:`ergmfit.results.diagnostics`.  :attr:`info` is the same as the
        dict fits carried before (``fit.info["history"]`` is
        ``fit.diagnostics.history``).
    formula, network : str, dict
        What the fit was about (see the module docstring for what is saved).
    model : the fitted model object, when the fit was made in this session
        (or rebuilt by :meth:`rebuild_model`).
    """

    #: ``"module:Class"`` -> every results class (files name their class so)
    _classes: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        ERGMResults._classes[cls.saved_name()] = cls

    @classmethod
    def saved_name(cls) -> str:
        """How results files name this class (``"module:Class"``)."""
        return f"{cls.__module__}:{cls.__qualname__}"

    def __init__(self, params, cov, labels, *, method, loglik=None, loglik_kind=None,
                 nobs=None, null_loglik="auto", converged=True, n_iter=0, seconds=0.0,
                 cov_mc=None, se_kind=None, loglik_mcse=None, warnings=(), info=None,
                 formula=None, network=None, model=None, dyad_independent=None):
        labels = [str(lab) for lab in labels]
        p = len(labels)
        self.labels = labels
        self.params = np.asarray(params, dtype=float).reshape(p)
        cov = np.asarray(cov, dtype=float).reshape(p, p) if cov is not None \
            else np.full((p, p), np.nan)
        self.cov = cov
        self.cov_mc = None if cov_mc is None else np.asarray(cov_mc, dtype=float).reshape(p, p)
        self.method = str(method)
        self.loglik = None if loglik is None else float(loglik)
        self.loglik_kind = loglik_kind
        self.loglik_mcse = None if loglik_mcse is None else float(loglik_mcse)
        self.nobs = None if nobs is None else int(nobs)
        if null_loglik == "auto":
            null_loglik = -self.nobs * math.log(2.0) if self.nobs is not None else None
        self.null_loglik = None if null_loglik is None else float(null_loglik)
        self.converged = bool(converged)
        self.n_iter = int(n_iter)
        self.seconds = float(seconds)
        self.se_kind = se_kind
        self.warnings = [str(w) for w in warnings]
        self.diagnostics = diagnostics_class(self.method).from_info(info)
        self.formula = formula
        self._network = network         # a Network (converted on first use) or a dict
        self.model = model
        self.dyad_independent = dyad_independent

    def put_offsets_back(self, mask, coef, labels):
        """Turn this fit of a model's free coefficients (the view
        :func:`ergmfit.model._fit_with_offsets` fits) into a fit of every
        coefficient, in place: the offsets (``mask`` over ``labels``) at ``coef``,
        their variances 0 (as statnet prints them).  Subclasses that hold more
        per-parameter arrays (a posterior's draws) put the offsets into those too.

        Examples
        --------
        >>> import numpy as np
        >>> r = ERGMResults([-1.5], [[0.04]], ["edges"], method="mple")
        >>> r.put_offsets_back(np.array([False, True]), np.array([0.5]),
        ...                    ["edges", "offset(triangle)"])
        >>> r.params.tolist(), r.bse.tolist()
        ([-1.5, 0.5], [0.2, 0.0])
        """
        mask = np.asarray(mask, dtype=bool)
        p = len(mask)
        params = np.zeros(p)
        params[mask] = coef
        params[~mask] = np.asarray(self.params, dtype=float)
        self.labels = list(labels)
        self.params = LabeledArray(params, self.labels)
        self.cov = _with_zero_rows(self.cov, mask)
        if self.cov_mc is not None:
            self.cov_mc = _with_zero_rows(self.cov_mc, mask)

    @property
    def info(self) -> InfoView:
        """The diagnostics as a read-only dict-like view of :attr:`diagnostics`
        (a field is set there: ``fit.diagnostics.set(key, value)``)."""
        return InfoView(self.diagnostics)

    @info.setter
    def info(self, value):
        raise ReadOnlyError("fit.info is read-only (a view of fit.diagnostics); set fields "
                            "with fit.diagnostics.set(key, value) or .update(mapping)")

    @property
    def network(self):
        """The fitted network as a JSON-ready dict (see :func:`network_to_dict`), or None."""
        if self._network is not None and not isinstance(self._network, dict):
            self._network = network_to_dict(self._network)
        return self._network

    # -- derived quantities ----------------------------------------------
    @property
    def params(self) -> LabeledArray:
        """The estimates, labelled, named ``"coef"`` (``fit.params.to_series()``)."""
        return self._params

    @params.setter
    def params(self, values):
        labels = getattr(values, "labels", None) or self.labels
        self._params = LabeledArray(np.asarray(values, dtype=float), labels, name="coef")

    @property
    def n_params(self) -> int:
        return len(self.labels)

    @property
    def bse(self) -> LabeledArray:
        d = np.diag(self.cov).copy()
        with np.errstate(invalid="ignore"):
            se = np.where(d >= 0, np.sqrt(np.abs(d)), np.nan)
        return LabeledArray(se, self.labels, name="stderr")

    @property
    def tvalues(self) -> LabeledArray:
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.asarray(self.params) / np.asarray(self.bse)
        z[~np.isfinite(np.asarray(self.bse))] = np.nan
        return LabeledArray(z, self.labels, name="z")

    zvalues = tvalues

    @property
    def pvalues(self) -> LabeledArray:
        z = np.asarray(self.tvalues)
        from scipy import special
        return LabeledArray(2.0 * special.ndtr(-np.abs(z)), self.labels, name="p")

    @property
    def mcmc_pct(self) -> np.ndarray:
        """statnet's ``MCMC %`` column: round(100 (SE_total - SE_model) / SE_total), an int
        array (0 without Monte Carlo error)."""
        if self.cov_mc is None:
            return np.zeros(self.n_params, dtype=int)
        tot = np.sqrt(np.clip(np.diag(self.cov), 0, None))
        model = np.sqrt(np.clip(np.diag(self.cov - self.cov_mc), 0, None))
        with np.errstate(divide="ignore", invalid="ignore"):
            pct = np.where(tot > 0, 100.0 * (tot - model) / tot, 0.0)
        return np.rint(np.nan_to_num(pct)).astype(int)

    def conf_int(self, alpha: float = 0.05) -> LabeledArray:
        """Wald intervals params -/+ z_{1-alpha/2} bse as a (p, 2) array.

        Rows are labelled by the statistics and columns named as R's
        ``confint`` names them (``"2.5 %"``, ``"97.5 %"``); it prints as a
        labelled table and ``.to_frame()`` gives a pandas DataFrame.
        """
        from scipy import special
        q = special.ndtri(1.0 - alpha / 2.0)
        b, se = np.asarray(self.params), np.asarray(self.bse)
        cols = [percent_label(alpha / 2.0), percent_label(1.0 - alpha / 2.0)]
        return LabeledArray(np.column_stack([b - q * se, b + q * se]), self.labels, columns=cols)

    # -- interpretation (see ergmfit.interpretation) ------------------------
    def odds_ratios(self, alpha: float = 0.05) -> LabeledArray:
        """exp(params) with Wald intervals; see :func:`ergmfit.interpretation.odds_ratios`.

        >>> import ergmfit as ef
        >>> fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit(method="mple")
        >>> round(float(fit.odds_ratios()["edges"][0]), 4)
        0.2
        """
        from ..interpretation import odds_ratios
        return odds_ratios(self, alpha)

    def predict(self, dyads=None, compressed=False, **kwargs):
        """Tie probabilities given the rest of the network at the fitted
        params; see :func:`ergmfit.interpretation.predict`.

        >>> import ergmfit as ef
        >>> fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit(method="mple")
        >>> round(float(fit.predict(dyads=[(9, 15)]).probability[0]), 4)
        0.1667
        """
        from ..interpretation import model_of, predict
        model = model_of(self)
        if model is None:
            raise ResultsFileError("predict() needs the model: these results hold no network "
                                   "and formula (saved with include_network=False?)")
        return predict(model, np.asarray(self.params), dyads=dyads, compressed=compressed,
                       **kwargs)

    def marginal_effects(self, dyads=None) -> LabeledArray:
        """Average marginal effects with delta-method standard errors; see
        :func:`ergmfit.interpretation.marginal_effects`.

        >>> import ergmfit as ef
        >>> fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit(method="mple")
        >>> fit.marginal_effects().columns
        ['AME', 'Std. Error', 'z value', 'Pr(>|z|)']
        """
        from ..interpretation import marginal_effects
        return marginal_effects(self, dyads=dyads)

    @property
    def deviance(self):
        return None if self.loglik is None else -2.0 * self.loglik

    @property
    def null_deviance(self):
        return None if self.null_loglik is None else -2.0 * self.null_loglik

    @property
    def df_null(self):
        return self.nobs

    @property
    def df_resid(self):
        return None if self.nobs is None else self.nobs - self.n_params

    @property
    def offset_mask(self) -> np.ndarray:
        """Which coefficients are offsets (fixed, labelled ``offset(...)``).

        >>> r = ERGMResults([-1.5, 0.5], [[0.04, 0.0], [0.0, 0.0]],
        ...                 ["edges", "offset(triangle)"], method="mple")
        >>> r.offset_mask.tolist(), r.n_free
        ([False, True], 1)
        """
        return np.array([str(lab).startswith("offset(") for lab in self.labels], dtype=bool)

    @property
    def n_free(self) -> int:
        """Estimated coefficients: offsets (fixed, labelled offset(...)) left out,
        as statnet counts the degrees of freedom of AIC and BIC."""
        return int((~self.offset_mask).sum())

    @property
    def aic(self):
        return None if self.loglik is None else -2.0 * self.loglik + 2.0 * self.n_free

    @property
    def bic(self):
        if self.loglik is None or not self.nobs:
            return None
        return -2.0 * self.loglik + self.n_free * math.log(self.nobs)

    @property
    def coef(self) -> dict:
        return self.params.to_dict()

    # -- presentation ------------------------------------------------------
    def summary(self) -> "Summary":
        """statnet's summary table as an object that prints (see :class:`Summary`)."""
        return Summary(self)

    @property
    def convergence(self) -> str:
        """One sentence: converged or not, after how many iterations ("" if none were made)."""
        if self.n_iter <= 0:
            return ""
        it = f"{self.n_iter} iteration{'s' if self.n_iter != 1 else ''}"
        return f"Converged after {it}." if self.converged else f"Did not converge after {it}."

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C stopped the fit: the results are those of its last finished step
        (see docs/guide/python.md)."""
        return bool(self.diagnostics.interrupted)

    def raise_if_interrupted(self):
        """Raise :class:`~ergmfit.FitInterrupted` (a ``KeyboardInterrupt``
        holding this fit as ``.result``) if Ctrl-C stopped the fit; else do nothing.  In a
        loop of fits: keep or save the fit, then call this, and the first Ctrl-C stops the
        loop after its partial fit was kept (see also :func:`ergmfit.stop_on_interrupt`).

        Examples
        --------
        >>> import ergmfit as ef
        >>> fits = []
        >>> for seed in (1, 2):
        ...     fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit(
        ...         method="cd", random_state=seed)
        ...     fits.append(fit)
        ...     fit.raise_if_interrupted()          # a Ctrl-C stops the loop here
        >>> [f.interrupted for f in fits]
        [False, False]
        """
        if self.interrupted:
            from ..exceptions import FitInterrupted
            raise FitInterrupted(self)

    def __repr__(self):
        conv = (f"converged after {self.n_iter} iterations" if self.converged
                else f"not converged after {self.n_iter} iterations") if self.n_iter > 0 \
            else f"converged={self.converged}"
        return (f"<ERGMResults method={self.method!r} {conv} "
                f"params={dict(zip(make_unique(self.labels), np.round(np.asarray(self.params), 4).tolist()))}>")

    def __str__(self):
        return str(self.summary())

    def _repr_html_(self):
        return self.summary()._repr_html_()

    # -- model -------------------------------------------------------------
    @warns_at_callers_line
    def gof(self, n_sim=100, random_state=None, **kwargs):
        """Goodness of fit of this fit (see :func:`ergmfit.gof.gof`); a model with parts
        checked one by one (a temporal model's transitions) gives its own
        (:meth:`ergmfit.ERGM.gof_of_fit`)."""
        own = None if self.model is None else self.model.gof_of_fit(
            self, n_sim=n_sim, random_state=random_state, **kwargs)
        if own is not None:
            return own
        from ..gof import gof as _gof
        return _gof(self, n_sim=n_sim, random_state=random_state, **kwargs)

    #: the estimator's last MCMC sample, ``{"chains", "observed", "labels", "interval"}``
    #: (saved and loaded with the results; see :meth:`mcmc_diagnostics`)
    mcmc_sample = None

    def mcmc_diagnostics(self):
        """statnet's ``mcmc.diagnostics``: an :class:`ergmfit.diagnostics.MCMCDiagnostics`
        of the last MCMC sample of the fit (print it; ``.plot(path)`` for trace + density)."""
        from ..diagnostics import from_results
        return from_results(self)

    def simulate(self, n=1, random_state=None, **kwargs):
        """Networks drawn from the fitted model (see :meth:`ergmfit.ERGM.simulate`)."""
        model = self.model if self.model is not None else self.rebuild_model()
        mcmc = self.diagnostics.mcmc or {}
        kwargs.setdefault("interval", mcmc.get("interval", 1024))
        kwargs.setdefault("burnin", mcmc.get("burnin", 16 * kwargs["interval"]))
        return model.simulate(self.params, n=n, random_state=random_state, **kwargs)

    def rebuild_model(self):
        """The model (``ERGM(network, formula)``) from the stored network and formula."""
        if self.model is not None:
            return self.model
        if self.network is None or self.formula is None:
            raise ResultsFileError("these results hold no network and formula to rebuild the "
                                   "model from (saved with include_network=False?)")
        if _MODEL_BUILDER is None:          # pragma: no cover - ergmfit/__init__ sets it
            raise ResultsFileError("no model builder: import ergmfit first")
        self.model = _MODEL_BUILDER(network_from_dict(self.network), self.formula, self.info)
        return self.model

    # -- serialisation -----------------------------------------------------
    def to_dict(self, include_network: bool = False) -> dict:
        """A JSON-serialisable dict.  Its first keys are the ``fit --json``
        fields: model, method, n_nodes, n_edges, directed, coef, stderr,
        loglik, aic, bic, converged, seconds."""
        src = self._network
        if src is None:
            n_nodes = n_edges = directed = None
        elif isinstance(src, dict):
            n_nodes, n_edges, directed = src.get("n"), len(src.get("ties", ())), src.get("directed")
        else:
            n_nodes, n_edges, directed = int(src.n), int(len(src.ties)), bool(src.directed)
        d = {
            "model": self.formula,
            "method": self.method,
            "n_nodes": n_nodes,
            "n_edges": n_edges,
            "directed": directed,
            "coef": self.params.to_dict(),
            "stderr": self.bse.to_dict(),
            "loglik": self.loglik,
            "aic": self.aic,
            "bic": self.bic,
            "converged": self.converged,
            "seconds": self.seconds,
            # everything else needed to rebuild the object and print its summary
            "format_version": FORMAT_VERSION,
            "labels": list(self.labels),
            "params": np.asarray(self.params),
            "cov": self.cov,
            "cov_mc": self.cov_mc,
            "loglik_kind": self.loglik_kind,
            "loglik_mcse": self.loglik_mcse,
            "null_loglik": self.null_loglik,
            "nobs": self.nobs,
            "n_iter": self.n_iter,
            "se_kind": self.se_kind,
            "warnings": list(self.warnings),
            "info": self.diagnostics.to_info(),
            "formula": self.formula,
            "dyad_independent": self.dyad_independent,
        }
        if include_network:
            d["network"] = self.network
        return _enc(d)

    def to_json(self, include_network: bool = False, **kw) -> str:
        return json.dumps(self.to_dict(include_network=include_network), allow_nan=False, **kw)

    @classmethod
    def from_dict(cls, d: dict) -> "ERGMResults":
        target = d.get("results_class")    # a subclass that saved itself (e.g. a posterior)
        if cls is ERGMResults and isinstance(target, str) and target.startswith("ergmfit."):
            return _saved_class(target).from_dict(d)
        labels = d["labels"]
        cov = _dec_array(d.get("cov"))
        return cls(_dec_array(d["params"]), cov, labels, method=d["method"],
                   loglik=None if d.get("loglik") is None else _dec_float(d["loglik"]),
                   loglik_kind=d.get("loglik_kind"),
                   nobs=d.get("nobs"), null_loglik=None if d.get("null_loglik") is None
                   else _dec_float(d["null_loglik"]),
                   converged=d.get("converged", True), n_iter=d.get("n_iter", 0),
                   seconds=d.get("seconds", 0.0), cov_mc=_dec_array(d.get("cov_mc")),
                   se_kind=d.get("se_kind"),
                   loglik_mcse=None if d.get("loglik_mcse") is None
                   else _dec_float(d["loglik_mcse"]),
                   warnings=d.get("warnings", ()), info=d.get("info"),
                   formula=d.get("formula"), network=d.get("network"),
                   dyad_independent=d.get("dyad_independent"))

    def save(self, path, include_network: bool = True) -> None:
        """Write to ``path``: JSON if it ends in ``.json``, a NumPy ``.npz``
        archive if it ends in ``.npz`` (never pickle).

        The file is written whole to a temporary file beside ``path`` and
        then renamed over it, so a failure (disk full, no such directory,
        no permission) leaves any file already at ``path`` as it was and
        raises :class:`~ergmfit.exceptions.SaveError`.
        """
        path = os.fspath(path)
        ext = results_file_extension(path)
        d = self.to_dict(include_network=include_network)
        sample = _sample_parts(self.mcmc_sample)
        try:
            if ext == ".json":
                if sample is not None:
                    d["mcmc_sample"] = _enc(dict(sample[1], chains=sample[0]))
                with atomic_write(path, "w") as fh:
                    json.dump(d, fh, allow_nan=False)
            else:
                arrays = {"params": np.asarray(self.params, dtype=float), "cov": self.cov}
                if self.cov_mc is not None:
                    arrays["cov_mc"] = self.cov_mc
                meta = {k: v for k, v in d.items()
                        if k not in ("params", "cov", "cov_mc", "network")}
                if include_network and self.network is not None:
                    net = dict(self.network)
                    arrays["ties"] = np.asarray(net.pop("ties"), dtype=np.int64).reshape(-1, 2)
                    meta["network"] = _enc(net)
                if sample is not None:
                    for k, c in enumerate(sample[0]):
                        arrays[f"mcmc_chain_{k}"] = c
                    meta["mcmc_sample"] = _enc(dict(sample[1], n_chains=len(sample[0])))
                arrays["meta"] = np.array(json.dumps(meta, allow_nan=False))
                with atomic_write(path, "wb") as fh:
                    np.savez_compressed(fh, **arrays)
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            raise SaveError(f"cannot save the results to {path}: {reason}; nothing was "
                            "written there (a file already at that path is unchanged)") from None

    @classmethod
    def load(cls, path) -> "ERGMResults":
        """Read results written by :meth:`save` (``.json`` or ``.npz``).

        A file that cannot be read back -- missing, truncated, damaged,
        tampered with, or not a results file -- raises
        :class:`~ergmfit.exceptions.ResultsFileError` ("damaged results
        file PATH: what is wrong"), whatever the damage.
        """
        path = os.fspath(path)
        ext = results_file_extension(path)
        try:
            d = _read_results_file(path, ext)
            if not isinstance(d, dict):
                raise _Damage(f"it holds a JSON {type(d).__name__}, not a results object")
            version = d.get("format_version", 1)
            if not isinstance(version, int) or isinstance(version, bool):
                raise _Damage(f"its format_version is {version!r}")
            if version > FORMAT_VERSION:
                raise ResultsFileError(f"{path} was written by a newer ergmfit (format "
                                       f"{version}); upgrade to read it")
            res = cls.from_dict(d)
            res.mcmc_sample = _loaded_sample(d.get("mcmc_sample"))
            _check_loaded(res)
        except ResultsFileError:
            raise
        except FileNotFoundError:
            raise ResultsFileError(f"cannot read results file {path}: no such file") from None
        except IsADirectoryError:
            raise ResultsFileError(f"cannot read results file {path}: it is a directory") from None
        except OSError as exc:
            if exc.errno not in _ACCESS_ERRNOS:
                # e.g. EINVAL: a damaged archive directory makes zipfile seek before the start
                raise ResultsFileError(f"damaged results file {path}: "
                                       f"{_describe_damage(exc)}") from None
            raise ResultsFileError(f"cannot read results file {path}: "
                                   f"{exc.strerror or exc}") from None
        except Exception as exc:  # noqa: BLE001 - any damage is reported as one ergmfit error
            raise ResultsFileError(f"damaged results file {path}: {_describe_damage(exc)}") \
                from None
        return res


def _with_zero_rows(a, mask):
    """The (k, k) matrix ``a`` of the coefficients outside ``mask`` as a (p, p) one with
    zero rows and columns at ``mask``."""
    mask = np.asarray(mask, dtype=bool)
    full = np.zeros((len(mask), len(mask)))
    full[np.ix_(~mask, ~mask)] = a
    return full


def _saved_class(target: str) -> type:
    """The results class a file names (``"module:Class"``, old module names understood)."""
    mod, _, name = target.partition(":")
    cls = ERGMResults._classes.get(f"{_MOVED_MODULES.get(mod, mod)}:{name}")
    if cls is None:
        raise _Damage(f"it names results class {target!r}, which this ergmfit does not have")
    return cls


# ---------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------
class Summary:
    """statnet's ``summary(fit)`` table; ``print(summary)`` shows it.

    ``rows()`` gives the table as a list of dicts (label, estimate,
    std_error, mcmc_pct, z, p, stars); ``to_frame()`` a pandas DataFrame
    (pandas is optional).
    """

    COLUMNS = ("Estimate", "Std. Error", "MCMC %", "z value", "Pr(>|z|)")
    LEGEND = "Signif. codes:  0 \u2018***\u2019 0.001 \u2018**\u2019 0.01 \u2018*\u2019 0.05 \u2018.\u2019 0.1 \u2018 \u2019 1"

    def __init__(self, results: ERGMResults):
        self.results = results

    @property
    def header(self) -> str:
        r = self.results
        if r.info.get("summary_header"):        # a model family's own title (tergm's CMLE)
            return r.info["summary_header"]
        if r.method == "mple" and r.loglik_kind == "exact":
            return _HEADERS["mple_exact"]
        return _HEADERS.get(r.method, f"{r.method.upper()} Results:")

    @property
    def t_ratios(self):
        """Convergence t-ratios (EE: mean/sd of g(x_t) − g(x_obs)) when the
        estimator stored them in ``info["t_ratios"]`` ({label: t}), else None."""
        d = self.results.diagnostics
        t = getattr(d, "t_ratios", None) or d.extra.get("t_ratios")
        if not t:
            return None
        if isinstance(t, dict):
            return [float(t.get(lab, float("nan"))) if t.get(lab) is not None else float("nan")
                    for lab in self.results.labels]
        return [float("nan") if v is None else float(v) for v in t]

    def rows(self) -> list:
        r = self.results
        tr = self.t_ratios
        out = []
        for k, lab in enumerate(r.labels):
            p = float(r.pvalues[k])
            row = {"label": lab, "estimate": float(r.params[k]), "std_error": float(r.bse[k]),
                   "mcmc_pct": int(r.mcmc_pct[k]), "z": float(r.tvalues[k]), "p": p,
                   "stars": signif_stars(p).strip()}
            if tr is not None:
                row["t_ratio"] = tr[k]
            out.append(row)
        return out

    def to_frame(self):
        pd = require_pandas("Summary.to_frame() (Summary.rows() gives the same table as a list)")
        rows = self.rows()
        df = pd.DataFrame({c: [row[k] for row in rows] for c, k in
                           zip(self.COLUMNS + ("signif",), ("estimate", "std_error", "mcmc_pct",
                                                            "z", "p", "stars"))},
                          index=[row["label"] for row in rows])
        if self.t_ratios is not None:
            df["t ratio"] = [row["t_ratio"] for row in rows]
        return df

    # -- text ----------------------------------------------------------------
    def coef_table_lines(self) -> list:
        r = self.results
        est, se = np.asarray(r.params), np.asarray(r.bse)
        # Estimate and Std. Error: rounded together as R's printCoefmat does
        both = np.concatenate([est, se])
        acs = np.abs(both[np.isfinite(both) & (both != 0)])
        digmin = 1 + int(math.floor(math.log10(acs.max()))) if acs.size else 0
        nd = max(1, 5 - digmin)
        col_e = r_format([r_round(v, nd) for v in est] + [r_round(v, nd) for v in se], 5)
        col_est = [s.strip() for s in col_e[:len(est)]]
        col_se = [s.strip() for s in col_e[len(est):]]
        col_mc = [str(int(v)) for v in r.mcmc_pct]
        z = np.asarray(r.tvalues)
        col_z = [s.strip() for s in r_format([r_round(v, 3) for v in z], 4)]
        pv = np.asarray(r.pvalues)
        col_p = format_pvalues(pv, digits=3, eps=1e-4)
        col_s = [signif_stars(p) if math.isfinite(p) else "" for p in pv]
        cols = [col_est, col_se, col_mc, col_z, col_p, col_s]
        heads = list(self.COLUMNS) + [""]
        tr = self.t_ratios
        if tr is not None:
            # EE's convergence t-ratio, after the significance stars
            cols.append([s.strip() for s in r_format([r_round(v, 3) for v in tr], 3)])
            heads.append("t ratio")
        widths = [max([len(h)] + [len(c) for c in col]) for h, col in zip(heads, cols)]
        wl = max([len(lab) for lab in r.labels] + [0])
        lines = [" " * wl + "".join(" " + h.rjust(w) for h, w in zip(heads, widths))]
        for k, lab in enumerate(r.labels):
            cells = []
            for col, w, j in zip(cols, widths, range(len(cols))):
                cells.append(" " + (col[k].ljust(w) if j == 5 else col[k].rjust(w)))
            lines.append(lab.ljust(wl) + "".join(cells))
        return lines

    def deviance_lines(self) -> list:
        r = self.results
        if r.loglik is None:
            return ["Log-likelihood was not estimated for this fit. To get deviances, AIC, "
                    "and/or BIC, use a method that computes it."]
        kind = "Pseudo-deviance" if r.loglik_kind == "pseudo" else "Deviance"
        lines = []
        devs, dfs, names = [], [], []
        if r.null_deviance is not None:
            devs.append(r.null_deviance); dfs.append(r.df_null); names.append("Null")
        devs.append(r.deviance); dfs.append(r.df_resid); names.append("Residual")
        dv = r_format(devs, 4)
        df = r_format([float("nan") if d is None else d for d in dfs], 7)
        for nm, a, b in zip(names, dv, df):
            lines.append(f"{nm:>9} {kind}: {a}  on {b}  degrees of freedom")
        lines.append(" ")
        mcse = r.loglik_mcse if r.loglik_mcse is not None else 0.0
        aic = r_format([r.aic], 4)[0]
        bic = r_format([r.bic], 4)[0] if r.bic is not None else "NA"
        lines.append(f"AIC: {aic}  BIC: {bic}  (Smaller is better. MC Std. Err. = "
                     f"{r_format([mcse], 4)[0]})")
        return lines

    def __str__(self) -> str:
        r = self.results
        lines = []
        if r.formula is not None:
            called = getattr(r.diagnostics, "call_method", None) or r.method  # exact MLE: mcmle
            # a count-valued model: its response and reference, as statnet's call shows them
            spec = r.diagnostics.sample_space or {}     # a loaded fit: what was saved
            model = getattr(r, "model", None)
            response = getattr(model, "response", None) or spec.get("response")
            reference = (model.reference.label if getattr(model, "response", None)
                         else spec.get("reference"))
            valued = (f", response={response!r}, reference={reference!r}"
                      if response is not None else "")
            lines += ["Call:", f"ergmfit.ERGM(network, {r.formula!r}{valued})"
                               f".fit(method={called!r})", ""]
        lines += [self.header, ""]
        lines += self.coef_table_lines()
        lines += ["---", self.LEGEND, ""]
        lines += self.deviance_lines()
        space = r.diagnostics.sample_space or {}      # constraints, missing dyads (model.py)
        if space.get("constraints") is not None:
            c = space["constraints"]
            lines += ["", f"Constraints: {c[0] if isinstance(c, list) else c}"]
        if space.get("missing"):
            lines += ["", f"Missing dyads: {len(space['missing'])}"]
        if r.convergence:
            lines += ["", r.convergence]
        if r.warnings:
            lines.append("")
            lines += r.warnings
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return self.__str__()

    def _repr_html_(self):
        import html
        return f"<pre>{html.escape(str(self))}</pre>"

    def as_text(self) -> str:
        return str(self)
