"""The model-family seam: the interface every family implements."""
from __future__ import annotations

import numpy as np

from ..exceptions import SettingsError


class ValueSupport:
    """The values ``lo``, ``lo`` + 1, ..., ``hi`` (None: unbounded) a dyad's value can
    take, and ``text`` saying whose they are (ends "the same for every <text>")."""

    __slots__ = ("lo", "hi", "text")

    def __init__(self, lo, hi, text):
        self.lo, self.hi, self.text = lo, hi, text

    def __repr__(self):
        return f"ValueSupport({self.lo!r}, {self.hi!r}, {self.text!r})"


def constant_value(kind, params, lo, hi):
    """h(y) of one value statistic (``_coreterms.transform_value``) if it is the same for
    every integer y from ``lo`` to ``hi`` (None: no top), else None.  The statistics are
    steps at their thresholds (atleast, ininterval, ...), or vary from lo to lo + 2 (pow,
    nonzero, lfactorial): the values at the support's ends and around each threshold
    decide.

    >>> constant_value("atleast", [0.0], 0, None), constant_value("atmost", [4.0], 0, 5)
    (1.0, None)
    """
    import math
    from ..terms._coreterms import transform_value
    points = {lo, lo + 1, lo + 2}
    for p in params:
        if math.isfinite(p) and abs(p) < 2 ** 53:
            f = math.floor(p)
            points.update((f - 1, f, f + 1, f + 2))
    if hi is not None:
        points.add(hi)
    values = {transform_value(kind, list(params), float(y)) for y in points
              if y >= lo and (hi is None or y <= hi)}
    return values.pop() if len(values) == 1 else None


class ModelFamily:
    """What a model's state is and how the engine samples it.

    Attributes
    ----------
    name : str
        ``"binary"``, ``"count"``, ... (the state name the term registry files terms under).
    state : str
        What a state is, in words.
    kernel_contract : type
        The compiled class a term's kernel must be (``TermKernel``, ``CountKernel``).
    reference : Reference or None
        The reference measure h(y) of a dyad's value (None: the counting measure
        on {0, 1}, binary ties).
    proposals : dict
        Proposal name -> compiled proposal class (the family's proposal table).
    default_proposal : str
        What ``proposal="auto"`` means.
    pilot_first_sample : bool
        Whether MCMC-MLE draws the first sample as a pilot at the smallest interval
        even for a linear model (``ERGM.pilot_first_sample``; curved models always do).
    min_step_ess_share : float
        The share of MCMC-MLE's ``target_ess`` a sample needs to be stepped on: a sample
        with fewer effective draws, or whose chains still drift, is redrawn at the same
        parameters (:mod:`ergmfit.estimation.mcmle.burnin`); 0: every sample is used.
    min_ess_share : float
        MCMC-MLE's floor of effective draws of every single statistic in a step's
        sample, as a share of ``target_ess`` (besides ``target_ess`` multivariate
        effective draws, statnet's ``MCMLE.effectiveSize``): what the estimator's
        ``min_ess_share="auto"`` means.  0.5 here (faux.mesa.high's binary fits wandered
        without it); 0: the multivariate target alone, as statnet.
    drift_start : str or None
        What MCMC-MLE does when the chains of a sample from its default start (the MPLE)
        still drift (:mod:`ergmfit.estimation.mcmle.burnin`): ``"sa"``, move the start
        once by stochastic approximation from there (the chains restarted at the
        observed network); ``"newton"``, by Newton steps on equilibrium samples; None:
        redraw only.
    pool_samples : int
        What MCMC-MLE's ``pool_samples="auto"`` means: the number of last samples whose
        draws a step is taken on (:mod:`ergmfit.estimation.mcmle.pooling`); 1: the last
        sample alone, as statnet.
    fixed_density : bool
        Whether a state is binary ties whose number a fixed-density proposal holds
        (Equilibrium Expectation's IFD proposals need it).
    logistic_pseudo_likelihood : bool
        Whether the family's pseudo-likelihood is the logistic regression of the
        ties on their change statistics (the binary design that the exchange
        algorithm's ``delayed=True`` first stage evaluates).
    has_boundary_faces : bool
        Whether a dyad-independent model of the family has its attainable statistics'
        faces sought (:mod:`ergmfit.estimation.mple.boundary`: an MLE at ±Inf fitted as
        statnet does); binary ties only so far.

    A family makes the compiled proposal (:meth:`make_proposal`) and the
    Metropolis-Hastings sampler (:meth:`make_sampler`) for a compiled model of
    its kind.
    """

    name = ""
    state = ""
    kernel_contract = None
    reference = None
    proposals: dict = {}
    default_proposal = ""
    pilot_first_sample = False
    min_step_ess_share = 0.0
    min_ess_share = 0.5
    drift_start = None
    pool_samples = 1
    fixed_density = False
    logistic_pseudo_likelihood = False
    has_boundary_faces = False

    def resolve_proposal(self, name) -> str:
        """The proposal ``name`` stands for ("auto": the default); a clear error for others."""
        if name == "auto":
            return self.default_proposal
        if name not in self.proposals:
            raise SettingsError(f"proposal {name!r} is not one of the {self.name} family's "
                                f"proposals: {', '.join(['auto', *self.proposals])}")
        return name

    def density_start(self, model, bm, theta) -> np.ndarray:
        """``theta`` (contrastive divergence's start, all 0 but the binary density
        coefficient) with what the family sets besides: nothing here."""
        return theta

    def make_proposal(self, name="auto"):
        """A new compiled proposal of the family's table."""
        return self.proposals[self.resolve_proposal(name)]()

    def make_sampler(self, compiled, proposal, seed):
        """The Metropolis-Hastings sampler of a compiled model of this family."""
        raise NotImplementedError

    def state_arrays(self, compiled) -> dict:
        """The compiled model's current state as arrays (an estimator's checkpoint saves
        them): ``x_on``, the variables that are on (ties, nonzero values), and what
        the family needs besides (the state's names start with ``x_``: EE drops them once
        :meth:`restore_state` has used them)."""
        return {"x_on": compiled.on_vars()}

    def restore_state(self, compiled, arrays) -> None:
        """Move ``compiled`` to the state :meth:`state_arrays` gave as ``arrays``."""
        raise NotImplementedError

    def chain_arrays(self, end):
        """A chain's end (what ``model.chain_end`` gives) as ``(ties, values)``: the
        (m, 2) nonzero dyads and their values, None when the state is binary ties (an
        estimator's JSON checkpoint stores them)."""
        return np.asarray(end, dtype=np.int64).reshape(-1, 2), None

    def chain_start(self, ties, values):
        """What ``model.sampler(start=)`` takes for the state :meth:`chain_arrays` gave."""
        return ties

    def check_fit(self, model) -> None:
        """Raise an :class:`~ergmfit.exceptions.ErgmfitError` naming what no estimator can
        fit in ``model`` under this family (checked before every fit).  Here: a statistic
        of one dyad value alone (:meth:`value_statistics`: ``atleast``, ``nonzero``,
        ``CMP``, ...) that is the same for every value the dyad can take (``atleast(0)`` of
        counts, ``Proj1(~atmost(5))`` with 5 mode-2 nodes) is the same on every network,
        and its coefficient cannot be estimated: a DegenerateModelError naming it (an
        offset's fixed coefficient is not estimated and passes; ``statistics()`` and
        ``simulate()`` take them all, as statnet's ``summary``)."""
        offsets = [lab.startswith("offset(") for lab in model.stat_labels]
        if len(offsets) != sum(len(t.labels) for t in model.terms):
            offsets = []        # not one statistic label per term label: none read as offset
        constant, start, observed = {}, 0, None
        for term in model.terms:
            for k, label, value, text in self.constant_statistics(term):
                at = start + k
                if at < len(offsets) and offsets[at]:
                    continue
                if value is None:       # an operator's combination: its observed total
                    if observed is None:
                        observed = np.asarray(model.statistics_vector(), dtype=float)
                    value = observed[at] if at < len(observed) else float("nan")
                    shown = f"always {value:g} on this network's nodes"
                else:
                    shown = f"always {value:g}"
                constant.setdefault(text, []).append(f"{label} ({shown})")
            start += len(term.labels)
        if constant:
            from ..exceptions import DegenerateModelError
            raise DegenerateModelError("; ".join(
                f"{', '.join(labels)}: the same for every {text}, so the same on every "
                "network: its coefficient cannot be estimated; remove it or change its "
                "arguments" for text, labels in constant.items()))

    def constant_statistics(self, term):
        """The statistics of ``term`` that are the same on every network, as ``(index,
        label, value, text)`` (``value``: what each dyad adds, None for an operator's
        combination of such statistics; ``text`` names the values their dyads can take): its
        :meth:`value_statistics` constant on their support, and, through an operator whose
        statistics are W times those of inner terms (``Term.parts``: ``Sum``, ``Label``,
        ``Offset``, ``Passthrough``, ``I``, ``B``, ``For``; their ``Exp``, ``Log`` or
        ``Prod``), each statistic that reads constant inner statistics only
        (``Label(~Proj1(~atleast(0)))``, ``Log(~Proj1(~atleast(0)))``).  Not
        through ``Curve()``: a constant statistic there has a coefficient that is a
        function of parameters other statistics may still identify.

        Examples
        --------
        >>> import ergmfit as ef
        >>> g = ef.datasets.load("davis")
        >>> m = ef.ERGM(g, 'edges + Label(~Proj1(~atleast(0) + sum), "x")')
        >>> m.family.constant_statistics(m.terms[1])[0][:3]
        (0, 'x(Proj1~atleast.0)', 1.0)
        """
        out = self._constant_statistics(term)
        fixed = getattr(term, "fixed", None)       # Offset(): its fixed parameters
        if fixed is not None and out:
            mask = np.asarray(fixed[1], dtype=bool)
            # one parameter per statistic: the fixed ones are not estimated (else, a curved
            # inner term, none is read as free)
            out = [c for c in out if len(mask) == len(term.labels) and not mask[c[0]]]
        return out

    def _constant_statistics(self, term):
        parts = getattr(term, "parts", None)
        cmap = getattr(term, "curve_map", None)
        # Curve()'s own map, not the inner curved terms' map an operator keeps (``kept``)
        if parts is not None and (cmap is None or cmap.get("kept")):
            terms, W, how = parts
            inner, start = {}, 0
            for t in terms:
                for k, _, value, text in self.constant_statistics(t):
                    inner[start + k] = (value, text)
                start += len(t.labels)
            out = []
            for i in range(len(term.labels)):
                on = [i] if W is None else [int(j) for j in np.flatnonzero(W[i])]
                if on and all(j in inner for j in on):
                    # the value a dyad adds passes through as it is; a combination (of
                    # totals, possibly over different dyads) is left to the caller (None)
                    same = W is None and how is None
                    out.append((i, term.labels[i], inner[i][0] if same else None,
                                inner[on[0]][1]))
            return out
        out = []
        for k, label, kind, params, support in self.value_statistics(term):
            value = constant_value(kind, params, support.lo, support.hi)
            if value is not None:
                out.append((k, label, value, support.text))
        return out

    def value_statistics(self, term):
        """The statistics of ``term`` that are a function of one dyad's value summed over
        the dyads, as ``(index, label, kind, params, support)``: ``kind`` and ``params``
        as :func:`~ergmfit.terms._coreterms.transform_value` takes them, ``support`` a
        :class:`ValueSupport`, the values the dyad can take.  Here those the term declares
        with their own support (``Term.value_stats``: ``Project()``'s, the shared-partner
        counts of the projection)."""
        declared = getattr(term, "value_stats", None)
        if declared is None:
            return []
        items, support = declared
        return [(k, term.labels[k], kind, params, support) for k, kind, params in items]

    def check_kernel(self, term) -> None:
        """Raise TypeError unless ``term``'s kernel follows the family's kernel contract."""
        if self.kernel_contract is not None and not isinstance(term.kernel, self.kernel_contract):
            raise TypeError(f"term {term.name}: its kernel is a {type(term.kernel).__name__}, "
                            f"not a {self.kernel_contract.__name__} ({self.name} family)")

    def describe(self) -> str:
        return f"{self.state}, proposals: " + ", ".join(
            f"{p} (default)" if p == self.default_proposal else p for p in self.proposals)

    def __repr__(self):
        return f"<{type(self).__name__}: {self.describe()}>"
