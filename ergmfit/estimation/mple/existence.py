"""Does an estimate exist?  Checks shared by the sampling estimators (CD, BCD, MCLE).

The maximum likelihood estimate of an ERGM exists exactly when the observed
statistics lie in the relative interior of the convex hull of the statistics
of every network in the sample space.  The single-toggle neighbours of the
observed network are networks of that space, so:

* a statistic whose change statistic is 0 for every free dyad is *dead*
  (at the observed network it carries no information), and statistics
  whose change statistics are linearly dependent over every free dyad are
  *not identifiable* -- the pseudo-likelihood design says both
  (:func:`ergmfit.estimation.mple.pseudolikelihood._check_variation`, the MPLE's own check
  and message);
* if the MLE does not exist, a direction d exists with d . (g(y) - g(x_obs))
  <= 0 for every network y, in particular for every single toggle: the
  MPLE's separation linear program (:func:`ergmfit.estimation.mple.separation._separation_direction`)
  finds such a d.  That is necessary, not sufficient (the MPLE may fail to
  exist where the MLE exists), so an estimator confirms it with its own
  sample: :func:`on_boundary` asks whether every simulated network also lies
  on the observed side of d (the observed statistics on the boundary of the
  convex hull of the sample, the test MCMC-MLE's step length uses).

Only for linear (not curved) models without offsets or target statistics,
on dyad-independent sample spaces (single toggles are moves there) and, for
dyad-dependent models, on spaces whose design dyads' toggles are moves from the
observed network (a snowball sample's: the ties a node needs to keep its bound are
pinned out of the design; ``SampleSpace.toggles_design``).
"""
from __future__ import annotations

import numpy as np

from ...exceptions import DegenerateModelError
from ...terms.offsets import model_offsets
from ...terms.targets import target_of

__all__ = ["ObservedDesign", "observed_design", "on_boundary", "nonexistence_error"]


class ObservedDesign:
    """The pseudo-likelihood design at the observed network, scaled, with
    the separation direction d (original units; None when there is none)."""

    def __init__(self, Z, n, s, scale, labels):
        self.Z, self.n, self.s, self.scale, self.labels = Z, n, s, scale, list(labels)
        self._d = False

    @property
    def direction(self):
        if self._d is False:
            from .pseudolikelihood import _separation_direction
            d = _separation_direction(self.Z, self.n, self.s)
            self._d = None if d is None else d / self.scale
        return self._d


def _applies(model):
    if model.family.reference is not None:
        return False            # valued dyads: the count MPLE checks its own design (.count)
    if not getattr(getattr(model, "parameterisation", None), "linear", True):
        return False            # curved, or a fit's free-coefficient view of offsets
    if target_of(model).given:
        return False            # the response is the targets, not the observed network
    if np.any(model_offsets(model)[0]):
        return False
    space = getattr(model, "sample_space", None)
    if space is None:
        return False
    if space.dyad_independent:
        return True
    # a space with degree bounds whose design dyads' toggles are still its moves from the
    # observed network (a snowball sample's: `toggles_design`): the observed network's
    # neighbours there are the design's rows, so a statistic dead or collinear over them
    # and a separation direction mean what they mean on free dyads -- for a dyad-dependent
    # model, whose separation the caller confirms by simulation.  A dyad-independent
    # model's MLE on such a space is not its MPLE, so the callers' shortcut (separated
    # MPLE: no MLE, at once) would not hold: not checked here (its MPLE checks its design)
    return bool(getattr(space, "toggles_design", False)) \
        and not bool(getattr(model, "dyad_independent", False))


def observed_design(model, bm, unit="dyad"):
    """Check the observed network's design for dead and collinear statistics
    (DegenerateModelError, the MPLE's message) and return an
    :class:`ObservedDesign`, or None where the checks do not apply (curved
    models, offsets, target statistics, degree constraints, MRF specs)."""
    if not _applies(model):
        return None
    from .pseudolikelihood import DEFAULT_MAX_DYADS, _check_variation, _term_map, pseudo_design
    dvars = model.sample_space.design_set()
    n_design = bm.n_vars if dvars is None else len(dvars)
    # over the space's free, observed dyads; many of them: every tie and 100,000 sampled
    # non-ties suffice for these checks (an on_boundary sample confirms a separation
    # direction found on a sample)
    design = pseudo_design(bm, sample_size=None if n_design <= DEFAULT_MAX_DYADS else 100_000,
                           random_state=0, vars_=dvars)
    keep = design.n > 0
    X, n, s = design.X[keep], design.n[keep], design.s[keep]
    scale = np.abs(X).max(axis=0) if len(X) else np.ones(X.shape[1])
    scale[scale == 0] = 1.0
    Z = X / scale
    labels = list(model.labels)
    where = f"sampled {unit}" if design.sampled else f"free {unit}"
    _check_variation(Z, n, labels, _term_map(model), where)
    return ObservedDesign(Z, n, s, scale, labels)


def on_boundary(Z, d, tol=1e-9):
    """True when every row of Z (statistics minus the observed ones) lies on
    the observed side of the direction d: d . z <= 0 (to ``tol``)."""
    Z = np.asarray(Z, dtype=float)
    if d is None or len(Z) == 0:
        return False
    v = Z @ d
    return bool(np.all(v <= tol * (1.0 + np.abs(Z).max())))


def nonexistence_error(labels, d, method, params=None):
    """The DegenerateModelError of an estimate that does not exist along d."""
    sup = np.flatnonzero(d)
    big = np.abs(d[sup]).max()
    if len(sup) == 1:
        k = sup[0]
        what = f"{labels[k]!r} -> {'+' if d[k] > 0 else '-'}Inf"
        why = (f"no simulated network and no single toggle of the observed one has "
               f"{'more' if d[k] > 0 else 'fewer'} {labels[k]!r} than the observed network")
    else:
        parts = " + ".join(f"{d[k] / big:.3g}*{labels[k]}" for k in sup)
        what = f"the combination {parts} -> +Inf"
        why = ("no simulated network and no single toggle of the observed one is larger in "
               "that combination")
    now = ""
    if params is not None:
        now = (" (it stopped at " + ", ".join(f"{labels[k]} = {params[k]:.3g}" for k in sup)
               + ", where the sample no longer moves in that direction, not at an estimate)")
    return DegenerateModelError(
        f"the maximum likelihood estimate does not exist, so {method} has nothing to converge "
        f"to{now}: the likelihood keeps increasing as {what}; {why} (the observed statistics "
        "lie on the boundary of the convex hull of the attainable ones). Remove the term(s) from "
        "the formula (or, for a statistic at its extreme, fix its coefficient with offset())")

