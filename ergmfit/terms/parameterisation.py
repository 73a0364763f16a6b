"""The parameterisation of a model: θ -> η(θ) and ∂η/∂θ.

A model's compiled kernels compute its *canonical* statistics g (one per
statistic label); the probability of a network is exp(η·g(x)) / Z(η).
Estimators work in the model's *parameters* θ (one per coefficient label)
through one map η(θ): the identity for linear terms, a curved map for
statnet's ``gwesp(fixed=FALSE)`` and its kin (Hunter & Handcock 2006), where
the decay is a parameter and g are the shared-partner or degree counts.

Every estimator asks the model's :class:`Parameterisation` for

* ``eta(theta)`` -- the natural parameters handed to the samplers;
* ``jacobian(theta)`` -- ∂η/∂θ, a (q, p) array, for the score
  J' (g_obs - E g) and the information J' Cov(g) J (and the delta method);
* ``param_labels`` / ``stat_labels`` -- the coefficient and statistic labels;
* ``lower_bounds()`` / ``upper_bounds()`` -- the box the parameters live in (a curved
  term's decay >= 0, statnet's ``Curve(minpar=, maxpar=)``), and :meth:`~Parameterisation.project`,
  the one function every estimator uses to put θ back into it;
* ``is_step(Z, target, theta)`` -- the importance-sampling step of a sample drawn at
  θ (one step, curved or linear, for every likelihood estimator), with
  ``eta_change``, ``projector`` and ``times_jacobian``, the sample and the step in the
  parameters' directions (the maths: :mod:`ergmfit.terms.parameter_steps`).

Examples
--------
>>> import numpy as np
>>> from ergmfit.terms.parameterisation import Identity
>>> par = Identity(["edges", "triangle"])
>>> par.eta(np.array([-1.0, 0.2]))
array([-1. ,  0.2])
>>> par.jacobian(np.zeros(2)).shape
(2, 2)
"""
from __future__ import annotations

import numpy as np

from . import parameter_steps as steps


class Parameterisation:
    """Base class of the maps θ -> η(θ)."""

    #: η(θ) = θ: one coefficient per statistic
    linear = False
    #: η(θ) = A θ + c (no free decay): the pseudo-likelihood is a logistic regression on
    #: X A and the importance-sampling step the linear one, in effect; a model whose map
    #: is not affine is *curved* (``ERGM.curved``)
    affine = False
    #: (parameter slice, statistic slice, curve) of each curved term with a free decay
    curved_terms = ()
    #: how a pseudo-likelihood design meets the coefficients held fixed (offsets): True
    #: when they are statistics' own coefficients, so that their design columns move into
    #: each row's fixed part (θ is the full parameter vector, or a free view of a linear
    #: map); False when the design goes through the map (a free view of a curved map,
    #: ``Curve()``: :meth:`~ergmfit.terms.offsets.OffsetParameterisation.affine_parts`)
    fixed_by_columns = True

    def __init__(self, param_labels, stat_labels):
        self.param_labels = list(param_labels)
        self.stat_labels = list(stat_labels)

    @property
    def n_params(self) -> int:
        return len(self.param_labels)

    @property
    def n_stats(self) -> int:
        return len(self.stat_labels)

    def eta(self, theta) -> np.ndarray:
        raise NotImplementedError

    def jacobian(self, theta) -> np.ndarray:
        raise NotImplementedError

    def lower_bounds(self) -> np.ndarray:
        """Smallest allowed value of each parameter (-inf: none)."""
        return np.full(self.n_params, -np.inf)

    def decay_indices(self) -> list:
        """Positions (in θ) of the decay parameters of the curved terms (none here)."""
        return [ps.start + 1 for ps, _, _ in self.curved_terms]

    def upper_bounds(self) -> np.ndarray:
        """Largest allowed value of each parameter (+inf: none)."""
        return np.full(self.n_params, np.inf)

    def free_position(self, i):
        """Position in θ of the model's ``i``-th coefficient (in the terms' order), or
        None when the map holds it fixed (an offset); every coefficient is free here."""
        return int(i)

    def fixed_coefficients(self):
        """The coefficients this map holds fixed outside θ (offsets): (mask over the
        full parameter vector, their values as given, possibly ±Inf), or None when θ
        is the full parameter vector (Identity, Curved: the model's own ``offset()``
        terms, if any, are then folded by the caller from ``model.offset``).

        >>> Identity(["edges"]).fixed_coefficients() is None
        True
        """
        return None

    def project(self, theta) -> np.ndarray:
        """θ (or rows of θ) clipped onto the box lower_bounds() <= θ <= upper_bounds():
        the one projection every estimator applies after a step."""
        return np.clip(np.asarray(theta, dtype=float), self.lower_bounds(), self.upper_bounds())

    def at_bound(self, theta) -> np.ndarray:
        """Mask of the parameters sitting exactly on a finite bound (where a bounded
        maximisation held them: see :func:`ergmfit.terms.parameter_steps.bounded_ascent`)."""
        theta = np.asarray(theta, dtype=float)
        lo, hi = self.lower_bounds(), self.upper_bounds()
        return (np.isfinite(lo) & (theta <= lo)) | (np.isfinite(hi) & (theta >= hi))

    def score(self, theta, centred_stats) -> np.ndarray:
        """J(θ)' z: the log-likelihood gradient in θ from g_obs - E g (or a sample's rows)."""
        return np.asarray(centred_stats, dtype=float) @ self.jacobian(theta)

    def information(self, theta, cov_stats) -> np.ndarray:
        """J(θ)' Cov(g) J(θ): the Fisher information in θ."""
        J = self.jacobian(theta)
        return J.T @ np.asarray(cov_stats, dtype=float) @ J

    # -- the steps of the likelihood estimators -------------------------------------------
    def start_values(self, fit_linear, init_decays=None, init=None) -> np.ndarray:
        """Start θ of a fit: the decays given or the best of a grid by the fixed-decay
        fit ``fit_linear(A, c, cols=cols)`` -> (params, loglik); see
        :func:`~ergmfit.terms.parameter_steps.start_values`."""
        return steps.start_values(self, fit_linear, init_decays, init)

    def maximize_pseudolikelihood(self, design, theta0, maxiter=200, tol=1e-12):
        """Maximise the pseudo-likelihood of ``design`` (rows X, weights n, s) in θ
        from ``theta0``: (θ, loglik, information, n_iter, converged); see
        :func:`~ergmfit.terms.parameter_steps.maximize_curved_pseudolikelihood`."""
        return steps.maximize_curved_pseudolikelihood(design, self, theta0, maxiter, tol)

    def decay_messages(self, theta, what="pseudo-likelihood") -> list:
        """Plain-words notes on decays that ran off or parameters held at a bound
        (none for a map without them); see
        :func:`~ergmfit.terms.parameter_steps.decay_messages`."""
        return steps.decay_messages(self, theta, what)

    def is_step(self, Z, target, theta, decay_box=False):
        """The importance-sampling step from ``theta``: the θ maximising the estimated
        log-likelihood ratio of the sample ``Z`` (canonical statistics drawn at
        ``theta``, centred at the observed ones) towards the pseudo-observation
        ``target``, minus ``theta``; no decay moves more than MAX_DECAY_STEP (the step
        is scaled, or with ``decay_box`` the decays are boxed).  Returns (step,
        whether it was capped); see :func:`~ergmfit.terms.parameter_steps.curved_step`."""
        return steps.curved_step(Z, target, self, theta, decay_box)

    def eta_change(self, theta, step) -> np.ndarray:
        """η(θ + step) − η(θ): the move of the natural parameters a step makes."""
        return self.eta(theta + step) - self.eta(theta)

    def projector(self, theta):
        """z -> the statistics ``z`` in the parameters' directions at ``theta`` (z J,
        see :func:`~ergmfit.terms.parameter_steps.projector`)."""
        return steps.projector(self, theta)

    def times_jacobian(self, Z, theta) -> np.ndarray:
        """Z J(θ): the rows of ``Z`` (canonical statistics) in the parameters' directions."""
        return steps.times_jacobian(Z, self.jacobian(theta))


class Identity(Parameterisation):
    """η = θ: every term linear (one coefficient per statistic)."""

    linear = True
    affine = True

    def __init__(self, labels):
        super().__init__(labels, labels)

    def eta(self, theta) -> np.ndarray:
        theta = np.asarray(theta, dtype=float)
        if theta.shape[-1:] != (self.n_params,):
            raise ValueError(f"theta must have {self.n_params} value(s), got shape {theta.shape}")
        return theta

    def jacobian(self, theta) -> np.ndarray:
        return np.eye(self.n_params)

    def score(self, theta, centred_stats) -> np.ndarray:
        return np.asarray(centred_stats, dtype=float)

    def information(self, theta, cov_stats) -> np.ndarray:
        return np.asarray(cov_stats, dtype=float)

    def is_step(self, Z, target, theta, decay_box=False):
        """The maximiser of the importance-sampling log-likelihood ratio (Newton's
        method, concave), never capped: see
        :func:`~ergmfit.terms.parameter_steps.maximize_is_loglik`."""
        return steps.maximize_is_loglik(Z, target), False

    def eta_change(self, theta, step) -> np.ndarray:
        return step

    def projector(self, theta):
        return lambda A: A

    def times_jacobian(self, Z, theta) -> np.ndarray:
        return Z


class Curved(Parameterisation):
    """η(θ) of a model with curved terms: linear terms map their coefficient to
    their statistic (η = θ); each curved term maps its (weight, decay) to its K
    natural parameters (see :mod:`ergmfit.terms.curved`)."""

    linear = False

    def __init__(self, terms):
        param_labels, stat_labels, self._blocks = [], [], []
        for t in terms:
            p0, s0 = len(param_labels), len(stat_labels)
            param_labels += list(t.param_labels)
            stat_labels += list(t.labels)
            self._blocks.append((slice(p0, len(param_labels)), slice(s0, len(stat_labels)),
                                 getattr(t, "curve", None)))
        super().__init__(param_labels, stat_labels)
        self.curved_terms = [(ps, ss, c) for ps, ss, c in self._blocks if c is not None]

    def _theta(self, theta):
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta must have {self.n_params} value(s), got shape {theta.shape}")
        return theta

    def eta(self, theta) -> np.ndarray:
        theta = self._theta(theta)
        out = np.empty(self.n_stats)
        for ps, ss, curve in self._blocks:
            out[ss] = theta[ps] if curve is None else curve.eta(theta[ps])
        return out

    def jacobian(self, theta) -> np.ndarray:
        theta = self._theta(theta)
        J = np.zeros((self.n_stats, self.n_params))
        for ps, ss, curve in self._blocks:
            if curve is None:
                J[ss, ps] = np.eye(ss.stop - ss.start)
            else:
                J[ss, ps] = curve.jacobian(theta[ps])
        return J

    def lower_bounds(self) -> np.ndarray:
        """Smallest allowed value of each parameter (-inf but for the decays)."""
        lo = np.full(self.n_params, -np.inf)
        for ps, _, curve in self.curved_terms:
            lo[ps.start + 1] = curve.decay_lower
        return lo

    def decay_indices(self) -> list:
        """Positions (in θ) of the decay parameters of the curved terms."""
        return [ps.start + 1 for ps, _, _ in self.curved_terms]


# maps of operator terms (statnet's Offset() and Curve()): (applies(terms), build(terms)),
# registered by .curvemap (which imports this module, never the reverse)
OPERATOR_MAPS = []


def parameterisation_of(terms) -> Parameterisation:
    """The map of a model with these terms: Identity unless a term is curved, or the map
    an operator term asks for (:data:`OPERATOR_MAPS`)."""
    for applies, build in OPERATOR_MAPS:
        if applies(terms):
            return build(terms)
    if any(getattr(t, "curve", None) is not None for t in terms):
        return Curved(terms)
    return Identity([lab for t in terms for lab in t.labels])


def model_parameterisation(model) -> Parameterisation:
    """The map an estimator asks: ``model.parameterisation``, or the identity on
    ``model.labels`` for a model without one (an MRF).

    >>> class Field:
    ...     labels = ["h", "J"]
    >>> model_parameterisation(Field()).affine
    True
    """
    par = getattr(model, "parameterisation", None)
    return Identity(list(model.labels)) if par is None else par


def declared_decays(par, curved) -> list:
    """(position in θ, declared start or None) of each free decay of ``par`` (a model's
    map); ``curved``: the model's curved terms in parameter order, those inside operators
    included (:func:`.registry.curved_terms`), their ``init_decay`` the start a user gave
    (``gwesp(0.7, fixed=FALSE)``).  A map fixing some curved terms (offsets) says which it
    kept free in ``kept_curved``."""
    decays = [t.init_decay for t in curved]
    kept = getattr(par, "kept_curved", None)
    if kept is not None:
        decays = [decays[j] for j in kept]
    return list(zip(par.decay_indices(), decays))
