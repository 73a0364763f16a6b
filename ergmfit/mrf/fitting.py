"""The MRF estimators: the ERGM estimators' protocol with i.i.d. data.

Every MRF estimator is an :class:`~ergmfit.estimation.base.Estimator` (the
ERGM estimators' base class): its settings are declared once, in its
``SETTINGS`` table, which gives the constructor's signature, validation
(a bad value or an unknown setting is a :class:`~ergmfit.exceptions.SettingsError`
naming it), ``get_params`` / ``set_params`` and the docstring's "Settings"
section.  What differs from an ERGM estimator is the data: an ERGM is fitted
to the one network it holds, an MRF to observations passed beside it, so

* ``Estimator(**settings).fit(model, X, sample_weight=None)`` (a
  :class:`~ergmfit.mrf.models.GridCRF`: ``fit(crf, Y, X)``, inputs and label
  images) returns an :class:`MRFResults`;
* ``fit_instances(instances, labels)`` fits compiled model instances
  directly: a list of (compiled model, 0/1 rows, weights or None), one for an
  MRF, one per input for a CRF (``model.observations(...)`` builds them);
* ``model.fit(X, method=..., **settings)`` builds the estimator from the
  model's method table (``type(model).METHODS``, see :func:`make_estimator`),
  fits, and copies the results to the model's fitted attributes
  (``coef_``, ``loglik_``, ``converged_``, ``n_iter_``, ``cov_``, and one
  ``<key>_`` per entry of ``results.info``).

Examples
--------
>>> import networkx as nx
>>> from ergmfit.mrf import IsingModel
>>> from ergmfit.mrf.estimation import PseudoLikelihood
>>> m = IsingModel(nx.cycle_graph(4))
>>> X = m.sample(300, theta=[0.1, 0.4], random_state=0)
>>> res = PseudoLikelihood(maxiter=50).fit(m, X)
>>> res.method, res.params.labels
('pl', ['field', 'coupling'])
>>> bool(np.allclose(res.params, m.fit(X, method="pl").coef_))
True
"""
from __future__ import annotations

import numpy as np

from ..estimation.base import Estimator, Setting
from ..exceptions import SettingsError
from ..families.base import ModelFamily
from ..labeled import LabeledArray

__all__ = ["MRFMethod", "MRFResults", "make_estimator", "shared_settings", "compiled_family",
           "instances_family", "ProposalFreeFamily"]


class ProposalFreeFamily(ModelFamily):
    """The family of MRF states that no single-variable proposal walks (a Potts model's
    one-hot states, a chain CRF's label sequences): ``resolve_proposal`` and
    ``make_sampler`` refuse every proposal, saying ``no_proposal`` (why, and how the model
    is sampled or fitted instead); ``describe`` ends with ``handled_by``."""

    no_proposal = ""
    handled_by = ""

    def resolve_proposal(self, name) -> str:
        raise SettingsError(f"proposal {name!r}: {self.no_proposal}")

    def make_sampler(self, compiled, proposal, seed):
        self.resolve_proposal(proposal)

    def describe(self) -> str:
        return f"{self.state}, {self.handled_by}"


def compiled_family(bm):
    """The family of a compiled MRF's variables (``bm``: a compiled
    :class:`~ergmfit.mrf._models.MonomialModel` or its class), as its class declares it:
    binary, or a Potts model's one-hot (:class:`~ergmfit.mrf.potts.OneHotMonomialModel`).

    >>> import networkx as nx
    >>> from ergmfit.mrf import IsingModel
    >>> compiled_family(IsingModel(nx.path_graph(3)).compiled()).name
    'binary'
    """
    return bm.family


class MRFResults:
    """What an MRF estimator returns, with statsmodels-like attributes.

    Attributes
    ----------
    params : LabeledArray
        The estimate, labelled by the model's statistics.
    cov : ndarray or None
        Its covariance where the estimator gives one (``bse``: the standard errors).
    loglik : float or None
        The objective at the estimate (the log-likelihood for ``"exact"``,
        the log pseudo- or composite likelihood for ``"pl"``/``"cl"``).
    converged : bool or None
        None for the estimators without a convergence criterion (CD, PCD).
    n_iter : int or None
    method : str
    labels : list of str
    info : dict
        What the method reports beside the estimate (e.g. ``trace``,
        ``t_ratios``); ``model.fit`` sets one ``<key>_`` attribute per entry.
    """

    def __init__(self, params, labels, *, method, cov=None, loglik=None, converged=None,
                 n_iter=None, info=None):
        self.labels = [str(lab) for lab in labels]
        self.params = LabeledArray(np.asarray(params, dtype=float), self.labels, name="coef")
        self.cov = cov
        self.loglik = loglik
        self.converged = converged
        self.n_iter = n_iter
        self.method = str(method)
        self.info = dict(info or {})

    @property
    def bse(self) -> LabeledArray:
        """Standard errors sqrt(diag(cov)) (NaN where there is no covariance)."""
        p = len(self.labels)
        var = np.full(p, np.nan) if self.cov is None else \
            np.diag(np.asarray(self.cov, dtype=float)).copy()
        with np.errstate(invalid="ignore"):
            return LabeledArray(np.sqrt(var), self.labels, name="stderr")

    def summary(self) -> str:
        """The estimates and standard errors as a text table."""
        width = max([len(lab) for lab in self.labels] + [9])
        lines = [f"MRF fit, method {self.method!r}",
                 f"{'':{width}s} {'Estimate':>12s} {'Std. Error':>12s}"]
        for lab, b, s in zip(self.labels, np.asarray(self.params), np.asarray(self.bse)):
            lines.append(f"{lab:{width}s} {b:12.5g} {s:12.5g}")
        if self.loglik is not None:
            lines.append(f"objective at the estimate: {self.loglik:.6g}")
        if self.converged is not None:
            lines.append("converged" if self.converged else "did not converge")
        return "\n".join(lines)

    def __repr__(self):
        vals = dict(zip(self.labels, np.round(np.asarray(self.params), 4).tolist()))
        return f"<MRFResults method={self.method!r} params={vals}>"


class MRFMethod(Estimator):
    """Base of the MRF estimators: ``fit(model, *data, sample_weight=None)``
    builds the model's compiled instances of the data
    (``model.observations``) and calls :meth:`fit_instances`, which
    subclasses implement."""

    supports = {"curved": False, "constraints": False, "missing": False, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"mrf"})}

    #: the families of the models it fits (``model.family.name``): binary variables,
    #: unless an estimator says more (a Potts model's are one-hot, a ChainCRF's "chain");
    #: None: no check
    variable_families = frozenset({"binary"})
    #: the families it fits from instances without their model (``fit_instances(insts,
    #: labels)``); None: ``variable_families``.  Contrastive divergence samples a Potts
    #: model's one-hot states only through the model's hook, so it takes binary ones only
    instance_families = None

    def fit(self, model, *data, sample_weight=None):
        """Fit ``model`` (an MRF of :mod:`ergmfit.mrf`) to the observations
        ``data`` (the rows X; for a GridCRF the inputs Y and labels X);
        returns an :class:`MRFResults`.  The model is not changed."""
        self.check_model(model)
        insts = model.observations(*data, sample_weight=sample_weight)
        return self.fit_instances(insts, model.labels, model=model)

    def check_model(self, model):
        """A SettingsError unless this estimator fits ``model``'s family of variables
        (naming the model's own methods)."""
        name = type(model).__name__
        self.check_family(model.family, f"{'an' if name[0] in 'AEIOU' else 'a'} {name}'s",
                          sorted(getattr(type(model), "METHODS", {})))

    def check_family(self, family, whose, methods=None):
        """A SettingsError unless this estimator fits variables of ``family`` (``whose``:
        "a PottsModel's", "these instances'"; ``methods``: the model's own, to name)."""
        if self.variable_families is None or family.name in self.variable_families:
            return
        kinds = " or ".join(sorted(self.variable_families))
        hint = f": use its own methods, {methods}" if methods is not None else ""
        raise SettingsError(f"{type(self).__name__} fits models of {kinds} variables; {whose} "
                            f"are {family.state} (family {family.name!r}){hint}")

    def fit_instances(self, insts, labels, model=None):
        """Fit compiled instances [(compiled model, 0/1 rows, weights or None), ...]
        whose statistics are named ``labels``; ``model`` (optional) is the
        MRF they come from (for its hooks, e.g. a Potts model's sampler).

        Without ``model``, the instances' family (:func:`instances_family`) must be one
        this estimator fits without a model's hooks (``instance_families``): else a
        SettingsError naming it (a Potts model's one-hot instances are not binary
        variables).  Subclasses implement ``_fit_instances``."""
        if model is None:
            families = self.variable_families if self.instance_families is None else \
                self.instance_families
            for family in instances_family(insts):
                if families is not None and family.name not in families:
                    kinds = " or ".join(sorted(families))
                    raise SettingsError(
                        f"{type(self).__name__} fits instances of {kinds} variables without "
                        f"their model; these are {family.state} (family {family.name!r}): "
                        "fit the model, est.fit(model, X)")
        return self._fit_instances(insts, labels, model)

    def _fit_instances(self, insts, labels, model=None):  # pragma: no cover - abstract
        raise NotImplementedError


def instances_family(insts):
    """The families of the variables of ``insts`` (what ``fit_instances`` takes): a chain
    CRF's :class:`~ergmfit.mrf.chain_crf.ChainData`'s, or those of the instances' compiled
    :class:`~ergmfit.mrf._models.MonomialModel` (:func:`compiled_family`), distinct, in
    order (anything else is left to the estimator's own checks)."""
    from ._models import MonomialModel
    if not isinstance(insts, (list, tuple)):
        try:
            return [insts.family]          # a ChainData
        except AttributeError:
            return []
    out = []
    for inst in insts:
        if isinstance(inst, (list, tuple)) and inst and isinstance(inst[0], MonomialModel):
            f = compiled_family(inst[0])
            if all(f is not g for g in out):
                out.append(f)
    return out


def shared_settings(estimator_class, *names):
    """The :class:`~ergmfit.estimation.base.Setting` objects called ``names``
    of another estimator's table: where an MRF estimator runs the same
    algorithm as an ERGM one, the settings are declared once, there."""
    table = {s.name: s for s in estimator_class.settings_table()}
    return tuple(table[n] for n in names)


def shared_setting(estimator_class, name, default, choices=None, doc=None):
    """The :class:`~ergmfit.estimation.base.Setting` called ``name`` of another
    estimator's table (its check, and its documentation unless ``doc``) with an
    MRF's ``default``: one declaration of a setting whose default (or named
    choices) differ for MRFs.  ``choices`` narrows the names it takes: a string
    (or None) passes only when it is one of ``choices``; any other value goes to
    the shared check.

    >>> from ergmfit.estimation import EE
    >>> s = shared_setting(EE, "update", "borisenko", choices=("borisenko", "newton"))
    >>> s.default, s.validate("newton")
    ('borisenko', 'newton')
    """
    base = {s.name: s for s in estimator_class.settings_table()}[name]
    check = base.check
    if choices is not None:
        check = _narrowed(base.check, tuple(choices))
    return Setting(name, default, check, base.doc if doc is None else doc)


def _narrowed(check, choices):
    names = [repr(c) for c in choices]
    allowed = (", ".join(names[:-1]) + " or " + names[-1]) if len(names) > 1 else \
        (names[0] if names else "no named value")

    def narrowed(name, value):
        if value is None or isinstance(value, str):
            if value in choices:
                return value
            raise SettingsError(f"setting {name!r} of an MRF estimator takes {allowed} "
                                f"among the named values, got {value!r}")
        return check(name, value)
    return narrowed


def make_estimator(table, method, **settings):
    """The estimator called ``method`` in a model's method ``table``
    (``{name: class}``), built with ``settings`` (validated)."""
    key = str(method).lower()
    if key not in table:
        raise SettingsError(f"unknown method {method!r}; the methods are {list(table)}")
    return table[key](**settings)
