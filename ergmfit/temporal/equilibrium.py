"""A dynamic (separable temporal) model of ONE observed cross-section: tergm's data for
``estimate="EGMME"``.

``ef.ERGM(g, "Form(~edges + gwesp(0, fixed=TRUE)) + Persist(~offset(edges))")`` with one
network ``g`` builds a :class:`CrossSectionTERGM`: the dynamic model whose equilibrium is
assumed to have produced ``g``.  Its transitions are not observed, so the conditional
estimators (CMLE, CMPLE, btergm) do not apply; it is fitted by ``method="egmme"``
(:class:`ergmfit.estimation.egmme.EGMME`), and simulated forward with
:meth:`~ergmfit.temporal.model.TemporalERGM.simulate_dynamic` from ``g``.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import SettingsError
from ..model import ERGM, register_formula_model
from ..network import as_network
from ..network.series import NetSeries
from .formulas import OPERATORS
from .model import TemporalERGM

#: the estimators of transitions, which one cross-section cannot feed
TRANSITION_METHODS = ("cmle", "cmple", "btergm")


def _refuse_transitions(name):
    """A SettingsError for ``name`` among :data:`TRANSITION_METHODS` (a cross-section has
    no transitions to fit)."""
    if name in TRANSITION_METHODS:
        raise SettingsError(
            f"method={name!r} fits observed transitions, but this model has one "
            "cross-section (ERGM(network, 'Form(~...) + ...')): fit it with "
            "method='egmme', or give the waves as ef.NetSeries([g0, g1, ...])")


def is_dynamic_formula(formula) -> bool:
    """Whether ``formula`` (a string) has a temporal operator among its top-level terms."""
    from ..formula import parse_formula
    from ..terms.offsets import split_offsets
    if not isinstance(formula, str):
        return False
    try:
        text, _ = split_offsets(formula)
        return any(c.name in OPERATORS for c in parse_formula(text))
    except Exception:           # a bad formula: the ERGM constructor says what is wrong
        return False


def is_cross_section_model(data, args, kwargs) -> bool:
    """Whether ``ERGM(data, formula)`` is a dynamic formula on one network (the front
    door's dispatch to :class:`CrossSectionTERGM`, :func:`ergmfit.model.register_formula_model`)."""
    formula = args[1] if len(args) > 1 else kwargs.get("formula")
    return not isinstance(data, NetSeries) and is_dynamic_formula(formula)


class CrossSectionTERGM(TemporalERGM):
    """A separable temporal ERGM of one observed cross-section ``network`` (tergm's EGMME
    data): the one-transition model ``network → network`` whose dynamics are fitted to
    the cross-section's statistics by :class:`~ergmfit.estimation.egmme.EGMME`.

    Parameters
    ----------
    network : networkx graph, Network or a file path
    formula : str
        tergm's operators (``"Form(~edges + gwesp(0, fixed=TRUE)) +
        Persist(~offset(edges))"``); ``offset()`` inside an operator is an offset.
    constraints : str, optional
    directed : bool, optional

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("flobusiness"), "Form(~edges) + Persist(~offset(edges))")
    >>> type(m).__name__, m.labels
    ('CrossSectionTERGM', ['Form~edges', 'offset(Persist~edges)'])
    """

    def __init__(self, network, formula, constraints=None, directed=None, **kwargs):
        net = as_network(network, directed=directed)
        self.cross_section = net
        super().__init__(NetSeries([net, net]), formula, constraints=constraints, **kwargs)

    def fit(self, method=None, random_state=None, verbose=False, **kwargs):
        """Fit the dynamic model to the cross-section: ``method="egmme"`` (the default;
        settings of :class:`~ergmfit.estimation.egmme.EGMME`, e.g. ``targets=``,
        ``offset_coef=``).

        Examples
        --------
        >>> import numpy as np, ergmfit as ef
        >>> m = ef.ERGM(ef.datasets.load("flobusiness"), "Form(~edges) + Persist(~offset(edges))")
        >>> fit = m.fit(offset_coef=[np.log(9)], random_state=1, n_iter=3, steps=200)
        >>> fit.method
        'egmme'
        """
        name = method if method is not None else kwargs.pop("estimate", None)
        name = "egmme" if name is None else str(name).lower()
        _refuse_transitions(name)
        return ERGM.fit(self, name, random_state=random_state, verbose=verbose, **kwargs)

    def _estimate(self, estimator, **config):
        """:meth:`TemporalERGM._estimate` refusing the estimators of observed
        transitions (btergm's), as :meth:`fit` refuses their names."""
        _refuse_transitions(estimator.method)
        return super()._estimate(estimator, **config)

    def saved_spec(self) -> dict:
        """:meth:`TemporalERGM.saved_spec` with the panel's ``"cross_section"`` (the one
        observed network): a results file rebuilds this model, not a two-wave panel."""
        from ..results import network_to_dict
        out = super().saved_spec()
        out["series"]["cross_section"] = network_to_dict(self.cross_section)
        return out

    def with_constraints(self, constraints):
        return CrossSectionTERGM(self.cross_section, self.formula,
                                 constraints=constraints if constraints is not None
                                 else self.user_constraints)

    def __reduce__(self):
        return (CrossSectionTERGM, (self.cross_section, self.formula, self.user_constraints))

    def __repr__(self):
        return f"ERGM({self.cross_section!r}, {self.formula!r})"


register_formula_model(is_cross_section_model, CrossSectionTERGM)
