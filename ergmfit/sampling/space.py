"""The sample space of a model: which dyads may vary, and which compiled
proposal walks them.

Every estimator, ``simulate`` and ``gof`` ask the model's
:class:`SampleSpace` for these two things instead of building them:

* ``free_dyads()`` -- the dyads whose pseudo-likelihood rows enter an MPLE
  design (``None``: every dyad of the network);
* ``proposal(name, bm)`` -- a fresh compiled Metropolis-Hastings proposal
  that never leaves the space, by name ("auto" picks the model's default);
* ``n_free`` -- the number of free dyads (the "degrees of freedom" of the
  null deviance).

Today's space is every dyad of a one-mode network (:class:`AllDyads`).
Constraints (``bd``, ``degrees``, ``blockdiag``, ...), missing dyads and
two-mode networks are further subclasses: each supplies its dyad set and
its compiled proposal, and no estimator changes.

Examples
--------
>>> import networkx as nx
>>> import ergmfit as ef
>>> m = ef.ERGM(nx.path_graph(4), "edges + triangle")
>>> m.sample_space
AllDyads(n=4, directed=False, n_free=6)
>>> m.sample_space.resolve_proposal("auto", m)
'lifted-triadic'
"""
from __future__ import annotations

from ..exceptions import SettingsError

# Proposals by name (see :func:`ergmfit.sampling.make_proposal`).
PROPOSALS = ("tnt", "triadic", "random", "lifted-tnt", "lifted-triadic")

# Terms that count closed two-paths: the triadic proposals mix much faster for them.
_TRIADIC_TERMS = frozenset({"triangle", "ttriple", "ctriple", "transitive", "cycle"})


class SampleSpace:
    """Base class: the set of networks a model's variables range over."""

    kind = "abstract"

    def __init__(self, network):
        self.network = network

    @property
    def n_free(self) -> int:
        """Number of dyads that may vary."""
        raise NotImplementedError

    def free_dyads(self):
        """The free dyads as an (m, 2) array of node indices, or ``None`` for all."""
        raise NotImplementedError

    def proposals(self) -> tuple:
        """Names of the proposals that walk this space."""
        return PROPOSALS

    def default_proposal(self, model) -> str:
        """"lifted-triadic" when a term counts closed two-paths (triangles,
        shared partners, alternating triangles), else "lifted-tnt".  The
        triadic moves play the part of statnet's ``sparse + .triadic``; the
        lifting (see :class:`~ergmfit.sampling.LiftedTriadicTNT`) gives more
        effective draws per CPU second than the reversible proposals: 1.7x
        on faux.magnolia.high, 1.1x on faux.mesa.high, 1.3x on samplike
        (``python benchmarks/bench_mcmle.py --mixing``)."""
        triadic = any(getattr(t.kernel, "caches", 0) or t.name in _TRIADIC_TERMS
                      for t in getattr(model, "terms", ()))
        return "lifted-triadic" if triadic else "lifted-tnt"

    def resolve_proposal(self, name, model=None) -> str:
        """The proposal name ``name`` stands for ("auto": the default), checked."""
        if name is None or name == "auto":
            return self.default_proposal(model)
        if name not in self.proposals():
            raise SettingsError(f"proposal must be one of {self.proposals()} or 'auto', "
                                f"got {name!r}")
        return name

    def proposal(self, name="auto", bm=None, model=None):
        """A fresh compiled proposal called ``name`` that walks this space."""
        from . import make_proposal
        return make_proposal(self.resolve_proposal(name, model), bm)

    def describe(self) -> str:
        raise NotImplementedError

    def __repr__(self):
        net = self.network
        return (f"{type(self).__name__}(n={net.n}, directed={net.directed}, "
                f"n_free={self.n_free})")


class AllDyads(SampleSpace):
    """Every dyad of a one-mode network may vary (statnet's default, no constraints)."""

    kind = "all"

    @property
    def n_free(self) -> int:
        return int(self.network.n_dyads)

    def free_dyads(self):
        return None

    def describe(self) -> str:
        return "all dyads"
