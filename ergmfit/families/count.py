"""The count family: ERGMs of integer-valued dyads (ergm.count)."""
from __future__ import annotations

import numpy as np

from ..sampling._proposals import (CountGibbs, CountRandom, CountRowResample, CountStrength,
                                   CountTNT, CountZeroInflated)
from ..sampling._mh import CountMHSampler
from ..sampling.space import AllDyads
from ..terms._valued import CountKernel, ValueKernel
from .base import ModelFamily, ValueSupport, constant_value
from .reference import Reference, parse_reference


class CountFamily(ModelFamily):
    """Count-valued dyads with reference measure ``reference``.

    The state is a sparse map dyad -> nonnegative integer
    (:class:`~ergmfit.network._countstate.CountState`), the terms' kernels are
    ``CountKernel`` s (the change of the statistics when a dyad's value moves
    from one count to another), the Metropolis-Hastings ratio adds
    log h(y') - log h(y), and the proposals are

    * ``"tnt"`` (default): half the time a nonzero dyad, else any dyad, then a
      jump of its value -- for sparse, zero-inflated counts;
    * ``"random"``: any dyad, then a jump of its value (ergm.count's "random");
    * ``"0inflated"``: as "random", but from a nonzero value a jump to 0 with
      probability p0, the starting network's surplus of zeros over a Poisson law
      of its mean (ergm.count's "0inflated");
    * ``"gibbs"``: any dyad, then a value from its full conditional (a heat-bath step);
    * ``"strength"``: tie/no-tie mixed with moves of +1 or -1 on several dyads of one
      node's row or column at once
      (:class:`~ergmfit.sampling._proposals.CountStrength`);
    * ``"row"``: tie/no-tie mixed with a whole row or column redrawn from its dyads'
      tilted full conditionals (:class:`~ergmfit.sampling._proposals.CountRowResample`).
      Neither mixed the issue-554 model's bistable node strengths faster per CPU
      second than tie/no-tie (docs/valued_terms.md, "node-level bistability").

    The jump (see ``ergmfit/sampling/_countproposals.pxi``): Poisson(y + 1/2)
    without y on an unbounded support, uniform on the rest of a bounded one.

    Parameters
    ----------
    reference : Reference or str
        ``"Poisson"``, ``"Binomial(3)"``, ``"~Geometric"``, ``"DiscUnif(0, 4)"``, ...
    """

    name = "count"
    kernel_contract = CountKernel
    proposals = {"tnt": CountTNT, "random": CountRandom, "0inflated": CountZeroInflated,
                 "gibbs": CountGibbs, "strength": CountStrength, "row": CountRowResample}
    default_proposal = "tnt"
    #: MCMC-MLE draws its first sample as a pilot at the smallest interval, kept when it
    #: has the target effective size (as for curved models; see
    #: ``estimation.common.curved.first_sample_ok``): from the count MPLE start, count
    #: chains mix within a quarter of the default interval
    pilot_first_sample = True
    #: MCMC-MLE redraws a sample with fewer than a quarter of its target effective draws
    #: or still drifting (:mod:`ergmfit.estimation.mcmle.burnin`): a count chain from its
    #: MPLE can drift for millions of proposals (the issue-554 model: ``sum`` 14,179 to
    #: ~17,600 over 3 M), and an importance-sampling step on such a sample diverges
    min_step_ess_share = 0.25
    #: MCMC-MLE's step samples aim at ``target_ess`` multivariate effective draws only,
    #: statnet's ``MCMLE.effectiveSize`` rule, without the binary family's floor of 0.5 x
    #: ``target_ess`` of every statistic: the Sampson count reference fits are as close to
    #: statnet's without it, the 80-node issue-554-shaped model fits in a quarter less CPU,
    #: and on the issue-554 model the floor cost 430-640 CPU s per step sample at the SA
    #: start (40-135 near the data); docs/valued_terms.md, session 20
    min_ess_share = 0.0
    #: a chain that still drifts from the MPLE start moves the start by stochastic
    #: approximation (Robbins-Monro steps follow the chain, instead of Hummel steps of a
    #: few % from a sample settled far from the data: docs/valued_terms.md; the
    #: setting's "newton", Newton steps on equilibrium samples, is not the default: it
    #: was slower on the 80-node model and did not finish on the 554 model)
    drift_start = "sa"
    #: MCMC-MLE's steps are taken on the pooled draws of the last 4 settled samples
    #: (mixture importance sampling): on the issue-554 model the unpooled fits' samples
    #: swung |t| 1-7 near the data and never kept a gamma = 1 streak (sessions 20-22:
    #: seed 2 not converged at 842 CPU s); pooled, seeds 1 and 2 converged in 580 and 514
    #: CPU s (docs/valued_terms.md, session 22)
    pool_samples = 4

    def __init__(self, reference="Poisson"):
        self.reference: Reference = parse_reference(reference)
        self.state = (f"count-valued dyads {self.reference.support}, reference "
                      f"{self.reference.label}")

    def make_sampler(self, compiled, proposal, seed):
        return CountMHSampler(compiled, proposal, seed)

    def density_start(self, model, bm, theta):
        """``theta`` with the coefficient of ``sum`` (when the model has it free) at the
        value b whose i.i.d. law h(y) e^(b y) has the observed mean value: the count
        analogue of the binary density start (log of the mean under Poisson, log of
        mean/(1 + mean) under Geometric, logit of mean/trials under Binomial).  A
        start of 0 is improper under Geometric (a chain from it runs away)."""
        labels = list(model.labels)
        if "sum" not in labels:
            return theta
        bm = model.compiled() if bm is None else bm
        n_vars = float(bm.n_free_vars())         # the dyads that may vary
        total = sum(bm.value(int(v)) for v in bm.on_vars())
        mean = float(total) / n_vars if n_vars > 0 else 0.0
        theta = np.array(theta, dtype=float)
        theta[labels.index("sum")] = self.reference.mean_coefficient(mean)
        return theta

    def check_kernel(self, term) -> None:
        """Besides the kernel contract: a term defined for values up to ``term.max_value``
        only (``CMB(trials)``) needs a reference that allows no more (a TermError)."""
        super().check_kernel(term)
        top = getattr(term, "max_value", None)
        if top is not None and (self.reference.hi is None or self.reference.hi > top):
            from ..exceptions import TermError
            raise TermError(f"term {term.name} is defined for values up to {top}, but the "
                            f"reference {self.reference.label} allows values "
                            f"{self.reference.support}: use Binomial(t) or DiscUnif(a, b) "
                            f"with t, b <= {top}")

    def value_statistics(self, term):
        """Besides the declared ones (:meth:`ModelFamily.value_statistics`): the statistics
        of a valued term of the value alone (``atleast``, ``nonzero``, ``CMP``, ...), on
        the values the reference allows (``atleast(-1)`` under Poisson: every dyad, the
        same on every network; :meth:`ModelFamily.check_fit` refuses it before a fit)."""
        out = super().value_statistics(term)
        if isinstance(term.kernel, ValueKernel):
            ref = self.reference
            support = ValueSupport(ref.lo, ref.hi, f"dyad value the reference {ref.label} "
                                                   f"allows ({ref.support})")
            out += [(k, label, kind, params, support) for k, (label, (kind, params))
                    in enumerate(zip(term.labels, term.kernel.items))]
        return out

    def _constant_statistics(self, term):
        """Besides :meth:`ModelFamily._constant_statistics`: every statistic of a term whose
        terms read the values only through a 0/1 criterion (``B(~f, form=~atleast(3))``:
        ``Term.value_view``) that is the same for every value the reference allows (under
        ``Binomial(2)`` no dyad passes ``atleast(3)``: the binary network is always empty),
        as an operator's combination (value None: the caller shows its observed total)."""
        view = getattr(term, "value_view", None)
        if view is not None:
            ref = self.reference
            if constant_value(view[0], view[1], ref.lo, ref.hi) is not None:
                text = f"dyad value the reference {ref.label} allows ({ref.support})"
                return [(k, label, None, text) for k, label in enumerate(term.labels)]
        return super()._constant_statistics(term)

    def state_arrays(self, compiled) -> dict:
        """``x_on``: the nonzero dyads (variables); ``x_values``: their values."""
        on = np.asarray(compiled.on_vars(), dtype=np.int64)
        return {"x_on": on,
                "x_values": np.array([compiled.value(int(v)) for v in on], dtype=np.int64)}

    def restore_state(self, compiled, arrays) -> None:
        """Set the values to the saved ones (``x_on``, ``x_values``), the rest to 0."""
        on = np.asarray(arrays["x_on"], dtype=np.int64)
        values = arrays.get("x_values")
        if values is None or len(values) != len(on):
            raise ValueError("a count-valued state needs the values of its nonzero dyads")
        for v in np.setdiff1d(compiled.on_vars(), on):
            compiled.set_value(int(v), 0)
        for v, y in zip(on.tolist(), np.asarray(values, dtype=np.int64).tolist()):
            compiled.set_value(v, y)

    def chain_arrays(self, end):
        """``(dyads, values)``: the nonzero dyads and their counts."""
        dyads, values = end
        return (np.asarray(dyads, dtype=np.int64).reshape(-1, 2),
                np.asarray(values, dtype=np.int64).reshape(-1))

    def chain_start(self, ties, values):
        """The pair (dyads, values) that ``CountERGM.sampler(start=)`` takes."""
        if values is None or len(values) != len(ties):
            raise ValueError("a count-valued state needs the values of its nonzero dyads")
        return (np.ascontiguousarray(ties, dtype=np.int64),
                np.ascontiguousarray(values, dtype=np.int64))

    def sample_space(self, network):
        """The unconstrained sample space of ``network``'s dyad values (:class:`CountDyads`):
        the dyads the binary family's unconstrained space of ``network`` lets vary
        (:func:`~ergmfit.constraints.parse_constraints`: a two-mode network's dyads
        between its modes, a stacked network's within its networks), walked by the
        count family's proposals."""
        from ..constraints import parse_constraints
        return CountDyads(network, self, base=parse_constraints(None, network))

    def __eq__(self, other):
        return isinstance(other, CountFamily) and other.reference == self.reference

    def __hash__(self):
        return hash(("count", self.reference))


class CountDyads(AllDyads):
    """The dyads whose values may vary, walked by the count family's proposals: the sample
    space of an unconstrained count-valued model, so that an estimator that asks the
    space for its proposal and sampler (CD) runs the family's.  Which dyads vary is the
    ``base`` space's description (the binary family's unconstrained space of the same
    network: every dyad of a one-mode network, the dyads between the modes of a two-mode
    one); the model's compiled state is restricted to them (``CountModel.restrict``:
    every count proposal draws its dyads there, the count MPLE's design enumerates them).

    Parameters
    ----------
    network : Network
        The network of the model (its nodes; its ties the nonzero dyads).
    family : CountFamily
        Its proposal table and sampler.
    base : SampleSpace, optional
        The space whose free dyads these are (None: every dyad); it must be a set of free
        dyads (no degree bounds or preserved statistics).

    Examples
    --------
    >>> import networkx as nx, ergmfit as ef
    >>> g = nx.DiGraph(); g.add_edge(0, 1, w=2); g.add_node(2)
    >>> m = ef.ERGM(g, "sum", response="w", reference="Poisson")
    >>> m.sample_space.resolve_proposal("auto", m), m.sample_space.proposals()
    ('tnt', ('tnt', 'random', '0inflated', 'gibbs', 'strength', 'row'))
    >>> b = nx.Graph(); b.add_nodes_from([0, 1], bipartite=0); b.add_nodes_from([2, 3, 4], bipartite=1)
    >>> b.add_edge(0, 2, w=1)
    >>> ef.ERGM(b, "sum", response="w").sample_space     # 2 x 3 dyads between the modes
    CountDyads(n=5, directed=False, n_free=6)
    """

    def __init__(self, network, family, missing=None, base=None):
        super().__init__(network, missing)
        self.family = family
        if base is not None and not base.dyad_independent:
            raise ValueError(f"a count sample space takes a set of free dyads, not {base!r}")
        self.base = base

    def free_vars(self):
        """The variables whose values may vary (the base space's), sorted; None: all."""
        return None if self.base is None else self.base.free_vars()

    @property
    def n_free(self) -> int:
        free = self.free_vars()
        return (int(self.network.n_dyads) if free is None else len(free)) - self.n_missing

    def describe(self) -> str:
        return "all dyads" if self.base is None else self.base.describe()

    def proposals(self) -> tuple:
        return tuple(self.family.proposals)

    def default_proposal(self, model) -> str:
        return self.family.default_proposal

    def resolve_proposal(self, name, model=None) -> str:
        return self.family.resolve_proposal(name)

    def proposal(self, name="auto", bm=None, model=None):
        return self.family.make_proposal(name)

    def contrastive_proposal(self, name="auto", bm=None, model=None):
        """"auto": a Gibbs step (:class:`~ergmfit.sampling._proposals.CountGibbs`,
        a dyad's value drawn from its full conditional at the parameter), under which
        contrastive divergence's estimating equation is the pseudo-likelihood's (on a
        dyad-independent model the likelihood's) whatever the reference; one-dyad
        Metropolis-Hastings jumps give another fixed point (biased by up to 1.35 s.e.
        under the Geometric reference on samptot)."""
        return self.proposal("gibbs" if name in (None, "auto") else name, bm, model)

    def make_sampler(self, cm, proposal, seed):
        return self.family.make_sampler(cm, proposal, seed)
