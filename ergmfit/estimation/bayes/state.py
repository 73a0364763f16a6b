"""Parts of the exchange algorithm (:mod:`ergmfit.estimation.bayes.exchange`): the first stages of
delayed acceptance, the completed networks of missing dyads and the
checkpoint reader."""
from __future__ import annotations


import numpy as np

from ...exceptions import CheckpointError
from ...runtime.checkpoint import array, generator, integer
from ..common.checkpoint import ModelState

#: delayed='auto' uses the Gaussian first stage only when the pilot's whitened
#: statistics are this close to Gaussian (largest |skewness|, |excess kurtosis|):
#: its error at r posterior sds is about skewness x r^3 / 6 (the next cumulant);
#: the values measured on example models, and why 0.5, are in bayes_algorithm.md,
#: "Tuning notes".
GAUSS_MAX_SKEW, GAUSS_MAX_KURT = 0.5, 1.0


class _GaussStage:
    """The first stage of delayed acceptance (``delayed='auto'``/``'pilot'``):
    the prior times the Gaussian approximation of the likelihood at θ0 from a
    pilot chain there, log L(θ) − log L(θ0) ≈ −(θ−θ0)·m − (θ−θ0)'S(θ−θ0)/2
    (m, S: the mean and covariance of g(x) − g(y) at θ0; the cumulant
    expansion of log Z): a Gaussian N(mu, prec^-1).  The second stage divides
    by its ratio, so the posterior is exact whatever its accuracy; the closer
    it is, the fewer auxiliary networks are drawn for proposals the exchange
    test would reject."""

    def __init__(self, prec, mu):
        self.prec = np.ascontiguousarray(prec, dtype=float)
        self.mu = np.ascontiguousarray(mu, dtype=float)

    @classmethod
    def fit(cls, prior, moments, mode="auto"):
        """The stage from a pilot's moments (``bayes._moments``), or None when
        ``mode`` is 'auto' and they are too far from Gaussian."""
        theta0, mean, cov, skew, kurt = moments
        if mode == "auto" and not (skew <= GAUSS_MAX_SKEW and kurt <= GAUSS_MAX_KURT):
            return None
        P = prior.precision
        prec = P + cov
        return cls(prec, np.linalg.solve(prec, P @ prior.mean + cov @ theta0 - mean))

    def logpdf(self, theta) -> float:
        d = np.asarray(theta, dtype=float) - self.mu
        return -0.5 * float(d @ self.prec @ d)


class _Surrogate:
    """The adjusted pseudo-likelihood of a model (:mod:`ergmfit.estimation.bayes.adjustment`) as the
    first stage of delayed acceptance."""

    def __init__(self, model, rng, verbose=False, saved=None):
        if saved is not None:           # a checkpoint's (the adjustment is random)
            self.XW, self.c, self.s, self.n = (np.ascontiguousarray(a, dtype=float)
                                               for a in saved)
            return
        from .adjustment import adjusted_design, adjustment
        from ..mple.pseudolikelihood import pseudo_design
        from ...sampling.space import sample_space_of
        # over the space's dyads (a two-mode network's between the modes, the free ones
        # under constraints), not every node pair
        design = pseudo_design(model.compiled(), random_state=rng,
                               vars_=sample_space_of(model).design_set())
        adj = adjustment(model, design, None, rng, verbose)
        self.XW, self.c = adjusted_design(design, adj)
        self.s = np.ascontiguousarray(design.s, dtype=float)
        self.n = np.ascontiguousarray(design.n, dtype=float)

    def arrays(self):
        """The first stage for a checkpoint."""
        return {"surrogate_XW": self.XW, "surrogate_c": self.c, "surrogate_s": self.s,
                "surrogate_n": self.n}

    def loglik(self, theta) -> float:
        e = self.XW @ theta + self.c
        return float(self.s @ e - self.n @ np.logaddexp(0.0, e))


class _Imputer:
    """The completed networks of the chains when dyads are missing: one
    sampler per chain on the space of the missing dyads given the observed
    ones (:func:`~ergmfit.estimation.mcmle.missing.conditional_model`), each with
    its own network; ``gx[h]`` is g(x_h) − g(y0), y0 the network as given.
    ``starts`` (a checkpoint's completions: one tie array per chain, with
    ``gx``) starts every chain's network where it was saved."""

    def __init__(self, model, H, steps, rng, starts=None, gx=None):
        from ..mcmle.missing import conditional_model
        self.cond = cond = conditional_model(model)
        self.zero = zero = np.zeros(model.n_params)
        made = [cond.sampler(zero, "auto", rng, start=None if starts is None else starts[h])
                for h in range(H)]
        self.samplers = [smp for smp, _ in made]
        self.states = [cm.state for _, cm in made]
        self.steps = int(model.sample_space.n_missing if steps is None else steps)
        self.gx = np.zeros((H, len(model.stat_labels))) if gx is None else np.array(gx)
        self.base = self.gx.copy()      # g(x_h) - g(y0) when the chain's sampler started
        self.commit()

    def commit(self):
        """The completions as they stand: where :meth:`restart` starts the samplers and
        what a checkpoint saves (a block's end)."""
        self.starts = [np.array(st.ties(), dtype=np.int64).reshape(-1, 2) for st in self.states]
        self.base = self.gx.copy()

    def restart(self, rng):
        """Every chain's sampler made afresh at its committed completion, seeded from
        ``rng`` (the run's generator: a sampler's own cannot be saved), so that a resumed
        run continues draw for draw."""
        made = [self.cond.sampler(self.zero, "auto", rng, start=start) for start in self.starts]
        self.samplers = [smp for smp, _ in made]
        self.states = [cm.state for _, cm in made]
        self.gx[:] = self.base

    def rollback(self):
        """Back to the committed completions (a Ctrl-C in a block: the block is lost)."""
        self.gx[:] = self.base

    def update(self, theta, eta=None):
        """One imputation step of every chain's network at its θ_h."""
        for h, smp in enumerate(self.samplers):
            smp.run(theta[h] if eta is None else eta(theta[h]), self.steps)
            self.gx[h] = self.base[h] + smp.delta

    def arrays(self):
        """The completions for a checkpoint: every chain's ties, stacked, and counts."""
        ties = self.starts
        return {"completion_ties": np.concatenate(ties), "completion_counts":
                np.array([len(t) for t in ties], dtype=np.int64), "completion_gx": self.base}


def _max_aux_iters(model) -> int:
    """The longest auxiliary chain a checkpoint may ask for: a thousand
    proposals per dyad, and at least 10^6 (the automatic rule measures a few
    per dyad; Bergm's default is 1000 in all)."""
    dyads = getattr(getattr(model, "network", None), "n_dyads", None)
    return max(10 ** 6, 1000 * int(dyads or 0))


class BayesState(ModelState):
    """Where a Bayes (exchange algorithm) run stands after ``it`` of its
    ``n_total`` iterations: the chains' current θ, the draws so far, the
    acceptance counts, the random generator and the auxiliary chains'
    length; with delayed acceptance the Gaussian first stage, with missing
    dyads every chain's completed network (its ties, stacked, their counts
    and statistics), with one auxiliary network per chain (``aux_start=
    'chain'``) every chain's auxiliary network (its nonzero dyads, stacked,
    their counts, their values in a count family, and g(x_h) - g(y0)), with
    ``aux_start='last'`` the one shared auxiliary network in the same fields.

    Version 2 added the auxiliary networks (version 1 files are refused: a
    resumed run would restart them from the observed network)."""

    kind = "ergmfit-bayes-checkpoint"
    what = "Bayes checkpoint"
    version = 2
    storage = "npz"
    fields = {"n_total": integer(1, 2 ** 40),
              "it": integer(0, "n_total"),
              "rng": generator(),
              "aux_iters": integer(1, "max_aux_iters"),
              "theta": array("float64", (None, "p")),
              "out": array("float64", ("it", None, "p")),
              "accepted": array("int64", (None,), low=0, high="it"),
              "stage_prec": array("float64", ("p", "p"), optional=True),
              "stage_mu": array("float64", ("p",), optional=True),
              "proposal_cov": array("float64", ("p", "p"), optional=True),
              "surrogate_XW": array("float64", (None, "p"), optional=True),
              "surrogate_c": array("float64", (None,), optional=True),
              "surrogate_s": array("float64", (None,), optional=True),
              "surrogate_n": array("float64", (None,), optional=True),
              "completion_ties": array("int64", (None, 2), low=0, high="last_node",
                                       optional=True),
              "completion_counts": array("int64", (None,), low=0, optional=True),
              "completion_gx": array("float64", (None, "q"), optional=True),
              "aux_ties": array("int64", (None, 2), low=0, high="last_node", optional=True),
              "aux_counts": array("int64", (None,), low=0, optional=True),
              "aux_values": array("int64", (None,), optional=True),
              "aux_g": array("float64", (None, "q"), optional=True)}

    @classmethod
    def dims(cls, model, context):
        n = getattr(getattr(model, "network", None), "n", 1)
        return {**super().dims(model, context), "q": len(model.stat_labels),
                "last_node": int(n) - 1, "max_aux_iters": _max_aux_iters(model)}

    def validate(self, path, model, dims):
        H, n_total = dims["H"], dims["run_iterations"]
        if self.n_total != n_total or self.theta.shape[0] != H:
            raise CheckpointError(
                f"cannot resume: the checkpoint {path} has {self.theta.shape[0]} chains and "
                f"{self.n_total} iterations; the settings ask for {H} and {n_total}")
        if self.out.shape[1] != H or self.accepted.shape != (H,):
            raise ValueError("its draws or acceptance counts are not of its chains")
        parts = (self.completion_ties, self.completion_counts, self.completion_gx)
        if any(x is not None for x in parts):
            if any(x is None for x in parts) or len(self.completion_counts) != H or \
                    len(self.completion_gx) != H or \
                    int(self.completion_counts.sum()) != len(self.completion_ties):
                raise ValueError("its completions of the missing dyads do not fit together")
        sur = (self.surrogate_XW, self.surrogate_c, self.surrogate_s, self.surrogate_n)
        if any(x is not None for x in sur) and (
                any(x is None for x in sur)
                or not len(self.surrogate_XW) == len(self.surrogate_c) == len(self.surrogate_s)
                == len(self.surrogate_n)):
            raise ValueError("its pseudo-likelihood first stage does not fit together")
        if (self.stage_prec is None) != (self.stage_mu is None):
            raise ValueError("its first stage has a precision without a mean or the reverse")
        if self.aux_ties is not None or self.aux_counts is not None or self.aux_g is not None \
                or self.aux_values is not None:
            self._check_auxiliary(model, H)

    def aux_starts(self, model):
        """Every chain's auxiliary network as ``model.sampler(start=)`` takes it."""
        from ...families import family_of
        family = family_of(model)
        cuts = np.cumsum(self.aux_counts)[:-1]
        values = (np.split(self.aux_values, cuts) if self.aux_values is not None
                  else [None] * len(self.aux_counts))
        return [family.chain_start(t, v)
                for t, v in zip(np.split(self.aux_ties, cuts), values)]

    def _check_auxiliary(self, model, H):
        ties, counts, values, g = self.aux_ties, self.aux_counts, self.aux_values, self.aux_g
        if ties is None or counts is None or g is None or len(counts) not in (1, H) \
                or len(g) != len(counts) \
                or int(counts.sum()) != len(ties) \
                or (values is not None and len(values) != len(ties)):
            raise ValueError("its chains' auxiliary networks do not fit together")
        # each network is a valid state (no duplicate dyad or self-loop, values in the
        # reference's support: the state's own checks) whose statistics are the carried ones
        y0 = model.statistics_vector(model.chain_end(model.compiled()))   # (not targets)
        for h, start in enumerate(self.aux_starts(model)):
            model.compiled(start)
            found = model.statistics_vector(start) - y0
            if not np.allclose(found, g[h], rtol=1e-9, atol=1e-9 * (1 + np.abs(y0).max())):
                raise ValueError(f"the statistics of its chain {h}'s auxiliary network are "
                                 f"not the ones it carries")


def _read_checkpoint(path, model, H, n_total):
    st = BayesState.read(path, model, H=H, run_iterations=n_total)
    out = np.empty((n_total, H, model.n_params))
    out[:st.it] = st.out
    state = {"theta": st.theta, "out": out, "accepted": st.accepted, "it": st.it,
             "rng": st.rng.bit_generator.state, "aux_iters": st.aux_iters}
    if st.proposal_cov is not None:      # the random walk's covariance (gamma None)
        state["proposal_cov"] = st.proposal_cov
    if st.surrogate_XW is not None:      # delayed=True: the adjusted pseudo-likelihood
        state["surrogate"] = (st.surrogate_XW, st.surrogate_c, st.surrogate_s, st.surrogate_n)
    if st.stage_prec is not None:        # the first stage of delayed acceptance
        state["stage_prec"], state["stage_mu"] = st.stage_prec, st.stage_mu
    if st.completion_ties is not None:   # missing dyads: every chain's completed network
        state["completions"] = np.split(st.completion_ties,
                                        np.cumsum(st.completion_counts)[:-1])
        state["completion_gx"] = st.completion_gx
    if st.aux_ties is not None:          # every chain's auxiliary network, or the shared one
        state["aux_starts"], state["aux_g"] = st.aux_starts(model), st.aux_g
    return state
