"""statnet's words: ``estimate=`` values and ``control.ergm()`` setting names.

A statnet user writes ``method="MLE"`` (statnet's ``estimate = "MLE"``) or
passes ``control.ergm`` names (``MCMC.samplesize``, ``MCMLE.maxit``,
``seed``) as settings -- as ``fit(**{"MCMC.samplesize": 4096})``, as
``MCMC_samplesize=4096``, as ``control={"MCMC.samplesize": 4096}`` or on the
command line (``--set MCMC.samplesize=4096``).  :data:`CONTROL` says what
each name is in ergmfit: a setting with the same meaning is accepted under
its ergmfit name; one without an exact counterpart is answered with an error
naming the ergmfit setting to use.  ``docs/statnet_mapping.md``'s settings
table is checked against :data:`CONTROL` by ``tests/test_statnet_words.py``.

Examples
--------
>>> resolve_method("MLE"), resolve_method("MPLE")
('mcmle', 'mple')
>>> translate_settings("mcmle", {"MCMC.samplesize": 4096, "seed": 1},
...                    ["samplesize", "random_state"])
{'samplesize': 4096, 'random_state': 1}
"""
from __future__ import annotations

from .exceptions import SettingsError


class StatnetName:
    """One ``control.ergm`` name: the ergmfit keyword(s) and methods it maps to.

    ``accept`` is True when the ergmfit keyword means the same thing (the
    name is translated); False when there is no exact counterpart (the name
    is answered with an error naming the ergmfit setting and ``note``).
    ``values`` translates statnet's values of the setting (compared
    case-insensitively) to ergmfit's.
    """

    __slots__ = ("name", "keywords", "methods", "accept", "note", "values")

    def __init__(self, name, keywords, methods, accept=True, note="", values=None):
        self.name, self.keywords, self.methods = name, tuple(keywords), tuple(methods)
        self.accept, self.note, self.values = accept, note, dict(values or {})

    def __repr__(self):
        return f"StatnetName({self.name!r}, {self.keywords!r}, {self.methods!r})"


_MCMC = ("mcmle", "mple")
#: statnet's ``control.ergm()`` names (docs/statnet_mapping.md's settings table)
CONTROL = {s.name: s for s in (
    StatnetName("main.method", ["method"], ["mple", "mcmle", "cd", "ee", "sa"], accept=False,
                note='the estimator is fit(method=...): "mcmle" (statnet\'s MCMLE), "mple", '
                     '"cd", "sa" (statnet\'s Robbins-Monro / Stochastic-Approximation), "ee"'),
    StatnetName("seed", ["random_state"], ["mple", "mcmle", "cd", "ee"]),
    StatnetName("init", ["init"], ["mcmle", "cd", "ee"]),
    StatnetName("MCMC.burnin", ["burnin"], _MCMC),
    StatnetName("MCMC.interval", ["interval"], _MCMC),
    StatnetName("MCMC.samplesize", ["samplesize"], ["mcmle"]),
    StatnetName("MCMC.prop", ["proposal"], ["mcmle", "mple", "cd"], accept=False,
                note='proposals are named: proposal="tnt", "triadic", "random", "lifted-tnt", '
                     '"lifted-triadic" or "auto"; constraints go to constraints='),
    StatnetName("MCMC.prop.weights", ["proposal"], ["mcmle", "mple", "cd"], accept=False,
                note='proposals are named: proposal="tnt" (statnet\'s TNT), "random", ...'),
    StatnetName("MCMLE.maxit", ["maxit"], ["mcmle"]),
    StatnetName("force.main", ["force_main"], ["mcmle"]),
    StatnetName("MCMLE.termination", ["termination"], ["mcmle"]),
    StatnetName("MCMLE.conv.min.pval", ["conv_pval"], ["mcmle"]),
    StatnetName("MCMLE.effectiveSize", ["target_ess"], ["mcmle"]),
    StatnetName("MCMLE.steplength.margin", ["steplength_margin"], ["mcmle"]),
    StatnetName("MCMLE.last.boost", ["last_boost"], ["mcmle"]),
    StatnetName("MCMLE.samplesize.min", ["samplesize"], ["mcmle"], accept=False,
                note="ergmfit's sample size is fixed per iteration"),
    StatnetName("parallel", ["n_jobs", "n_chains"], ["mcmle"], accept=False,
                note="n_jobs processes run n_chains chains"),
    StatnetName("parallel.type", ["backend"], ["mcmle"], accept=False,
                note='a joblib backend: "loky", "threading", "multiprocessing" or "dask"'),
    StatnetName("MPLE.covariance.method", ["cov"], ["mple"],
                values={"invhess": "naive", "godambe": "godambe", "bootstrap": "bootstrap"}),
    StatnetName("MPLE.covariance.samplesize", ["n_sim"], ["mple"]),
    StatnetName("MPLE.covariance.sim.burnin", ["burnin"], ["mple"]),
    StatnetName("MPLE.covariance.sim.interval", ["interval"], ["mple"]),
    StatnetName("MPLE.samplesize", ["sample_size", "max_dyads"], ["mple"], accept=False,
                note="a case-control sample of sample_size non-ties for networks beyond "
                     "max_dyads dyads"),
    StatnetName("init.MPLE.samplesize", ["sample_size", "max_dyads"], ["mple"], accept=False,
                note="a case-control sample of sample_size non-ties for networks beyond "
                     "max_dyads dyads"),
    StatnetName("MPLE.maxit", ["maxiter"], ["mple"]),
    StatnetName("CD.nsteps", ["nsteps"], ["cd"]),
    StatnetName("CD.samplesize.per_theta", ["samplesize_per_theta"], ["cd"]),
    StatnetName("CD.maxit", ["maxit"], ["cd"]),
    StatnetName("CD.conv.min.pval", ["conv_pval"], ["cd"]),
    StatnetName("CD.steplength.margin", ["steplength_margin"], ["cd"]),
    StatnetName("SA.nsubphases", ["n_subphases"], ["sa"]),
    StatnetName("SA.niterations", ["phase2_min"], ["sa"], accept=False,
                note="the first subphase's draws (each later one 2^(4/3) times more, as "
                     "Snijders 2002)"),
    StatnetName("SA.interval", ["interval"], ["sa"]),
)}

#: statnet's ``ergm()`` arguments (not ``control.ergm`` settings) that ``fit`` takes under
#: ergmfit's names
ERGM_ARGUMENTS = {"offset.coef": "offset_coef", "target.stats": "target_stats",
                  "eval.loglik": "eval_loglik"}

_BY_KEY = {name.lower(): s for name, s in CONTROL.items()}
_BY_KEY.update({name.lower().replace(".", "_"): s for name, s in CONTROL.items()})

#: statnet's ``estimate=`` / ``main.method`` values and ergmfit's method names for them
METHOD_ALIASES = {"mle": "mcmle", "mcmle": "mcmle", "mple": "mple", "cd": "cd",
                  "robbins-monro": "sa", "stochastic-approximation": "sa"}
_NOT_HERE = {}


def resolve_method(method) -> str:
    """ergmfit's name of ``method``: lower case; statnet's ``"MLE"`` (``estimate="MLE"``,
    its default) is ``"mcmle"``.  Other names pass unchanged (lower-cased) for the
    estimator table to check."""
    if not isinstance(method, str):
        raise SettingsError(f"method must be a string such as 'mcmle' or 'mple', got {method!r}")
    key = method.strip().lower()
    if key in _NOT_HERE:
        raise SettingsError(f"method {method!r}: statnet's {method} is not implemented here; "
                            f"method={_NOT_HERE[key]!r} (Equilibrium Expectation) fits large "
                            "networks by stochastic approximation")
    return METHOD_ALIASES.get(key, key)


def fit_call(method, random_state, settings, setting_names):
    """(method, random_state, settings) of ``ERGM.fit`` with statnet's words
    understood: ``estimate=`` (statnet's name of ``method``), ``"MLE"``, ``ergm()``'s
    ``offset.coef``, ``target.stats`` and ``eval.loglik`` (:data:`ERGM_ARGUMENTS`), and
    ``control.ergm`` names among the settings (see :func:`translate_settings`).
    ``setting_names(method)`` gives the settings the method takes (None: the
    method has no settings table; nothing is translated)."""
    settings = dict(settings)
    if "estimate" in settings:
        estimate = settings.pop("estimate")
        if method is not None and resolve_method(method) != resolve_method(estimate):
            raise SettingsError(f"estimate={estimate!r} (statnet's name of method=) contradicts "
                                f"method={method!r}: give one of them")
        method = estimate
    method = resolve_method("mcmle" if method is None else method)
    for statnet, ours in ERGM_ARGUMENTS.items():
        if statnet in settings:
            if ours in settings:
                raise SettingsError(f"{ours} given twice: {ours}= and statnet's {statnet}=")
            settings[ours] = settings.pop(statnet)
    names = setting_names(method)               # an unknown method: the list of methods
    if names is not None:
        settings = translate_settings(method, settings, set(names)
                                      | {"constraints", "offset_coef", "target_stats",
                                         "tempering"})
        if "random_state" in settings:          # statnet's seed=
            seed = settings.pop("random_state")
            if random_state is not None:
                raise SettingsError("the seed given twice: random_state= and statnet's seed=")
            random_state = seed
    return method, random_state, settings


def statnet_name(key):
    """The :class:`StatnetName` ``key`` stands for (statnet's spelling, or with
    underscores for the dots; case-insensitive), or None."""
    return _BY_KEY.get(str(key).lower()) if isinstance(key, str) else None


def translate_settings(method, settings, accepted) -> dict:
    """``settings`` with statnet's ``control.ergm`` names translated to ergmfit's.

    Parameters
    ----------
    method : str
        ergmfit's method name.
    settings : dict
        As passed; a ``control`` entry (a dict of statnet names, statnet's
        ``control = control.ergm(...)``) is merged in.
    accepted : collection of str
        The setting names ``method`` takes (names in it are never translated).

    Raises
    ------
    SettingsError
        For a statnet name without an exact ergmfit counterpart, or one that
        ``method`` does not take, naming the ergmfit setting (and method); for a
        setting given under both names.
    """
    accepted = set(accepted)
    out = dict(settings)
    control = out.pop("control", None) if "control" not in accepted else None
    if control is not None:
        if not isinstance(control, dict):
            raise SettingsError("control= takes a dict of statnet's control.ergm settings, e.g. "
                                "control={'MCMC.samplesize': 4096}; ergmfit's own settings are "
                                "keyword arguments of fit()")
        for k, v in control.items():
            if k in out:
                raise SettingsError(f"setting {k!r} given both in control= and as a keyword")
            out[k] = v
    result = {}
    for key, value in out.items():
        if key in accepted:
            result[key] = value
            continue
        spec = statnet_name(key)
        if spec is None:
            result[key] = value           # the estimator names the unknown setting
            continue
        kws = " and ".join(repr(k) for k in spec.keywords)
        meths = ", ".join(repr(m) for m in spec.methods)
        where = f"statnet's {spec.name} is ergmfit's setting {kws} (method {meths})"
        if not spec.accept:
            raise SettingsError(f"{where}: {spec.note}" if spec.note else where)
        kw = spec.keywords[0]
        if method not in spec.methods or kw not in accepted:
            raise SettingsError(f"{where}; method {method!r} does not take it")
        if kw in out or kw in result:
            raise SettingsError(f"setting {kw!r} given twice: as {kw!r} and as statnet's "
                                f"{spec.name}")
        if spec.values and isinstance(value, str):
            if value.lower() not in spec.values:
                raise SettingsError(f"statnet's {spec.name}={value!r}: ergmfit's {kw} takes "
                                    + ", ".join(repr(v) for v in sorted(set(spec.values.values()))))
            value = spec.values[value.lower()]
        result[kw] = value
    return result
