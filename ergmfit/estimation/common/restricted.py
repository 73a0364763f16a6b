"""What a constrained, partly observed or offset model changes in the MPLE.

* :func:`compressed_rows` -- the design rows of the free, observed dyads
  only (:meth:`~ergmfit.sampling.space.SampleSpace.design_vars`), optionally weighted;
* :func:`case_control_vars` -- a case-control sample of such variables: every one
  equal to 1 (nonzero) and a uniform sample of the others, weighted to stand for
  all of them (the binary and the count MPLE draw it alike);
* :func:`offset_design` -- offset terms (fixed coefficients) leave the
  columns for a fixed part of each row's linear predictor; dyads an
  infinite offset decides leave the design;
* :func:`target_design` / :func:`target_network` -- statnet's
  ``target.stats``: the score equation at the targets (dyad-independent
  models) or a network with the target statistics (statnet's ``san``).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...exceptions import DegenerateModelError
from ...terms.offsets import model_offsets
from ...terms.targets import target_of
from ...utils.setops import in_sorted, unique_sorted


def conditional_model(model):
    """``model`` on the space of its missing dyads given the observed ones
    (the conditional chain of the missing-data MCMC-MLE and EE)."""
    import copy
    cond = copy.copy(model)
    cond.sample_space = model.sample_space.conditional()
    return cond


def compressed_rows(bm, vars_, weights=None):
    """(X, n, s, n_vars, n_on): the distinct change-statistic rows of the
    variables ``vars_`` only (the free, observed dyads of a constrained or
    partly observed network), their counts and tie counts; with ``weights``
    (one per variable: a case-control sample) the counts are sums of weights.

    Each row goes into a table of distinct rows as it is computed
    (:func:`~ergmfit.estimation.mple._mple.restricted_rows`): the (len(vars_), p) matrix
    of rows is never stored, and the distinct rows come out in the lexicographic order
    ``np.unique(X, axis=0)`` gives, with the same sums.

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.Network(4, [(0, 1)], directed=False), "edges")
    >>> X, n, s, n_vars, n_on = compressed_rows(m.compiled(), np.array([0, 1, 5]))
    >>> X.tolist(), n.tolist(), s.tolist(), n_vars, n_on
    ([[1.0]], [3.0], [1.0], 3, 1)
    """
    from ..mple._mple import restricted_rows
    vars_ = np.asarray(vars_, dtype=np.int64)
    if len(vars_) == 0:
        raise DegenerateModelError("no dyad is free and observed: there is nothing to fit")
    X, n, s, n_on = restricted_rows(bm, vars_, weights)
    return X, n, s, len(vars_), n_on


def _new_zeros(values, nonzero):
    """Mask of the entries of ``values`` that are not in ``nonzero`` and whose value did
    not occur earlier in ``values``: ``values[mask]`` is ``values`` without the nonzero
    variables and the repeats, in order.

    The values to drop (those in ``nonzero``, those repeated) are found on a sorted copy
    and are few in a case-control draw (a sparse network: 2 x 10^7 draws, some 10^4 of
    them); only these are located in ``values``, where ``np.isin`` and ``np.unique(...,
    return_index=True)`` sort every entry with its index (8.8 of 10.7 CPU s of a
    10^5-node MPLE with missing dyads)."""
    values = np.asarray(values, dtype=np.int64)
    s = np.sort(values)
    repeated = s[1:][s[1:] == s[:-1]]
    distinct = s[np.concatenate([[True], s[1:] != s[:-1]])] if len(s) else s
    hit = distinct[in_sorted(distinct, unique_sorted(nonzero))]
    drop = unique_sorted(np.concatenate([hit, repeated]))
    keep = np.ones(len(values), dtype=bool)
    if len(drop) == 0:
        return keep
    idx = np.flatnonzero(in_sorted(values, drop))     # the entries with a value to drop
    keep[idx] = False
    # of a repeated value not in nonzero, the first entry stays
    sub = values[idx]
    again = ~in_sorted(sub, hit)
    _, first = np.unique(sub[again], return_index=True)
    keep[idx[np.flatnonzero(again)[first]]] = True
    return keep


def case_control_vars(nonzero, n_free, free, size, rng):
    """A case-control sample of the variables of a sample space: every nonzero variable
    (weight 1) and ``size`` distinct zero variables drawn uniformly without replacement
    (weight #zeros / size), as int64 / float64 arrays.

    Parameters
    ----------
    nonzero : int array
        The nonzero variables (ties), sorted; all of them in the space.
    n_free : int
        Number of variables of the space.
    free : sorted int array or None
        The space's variables (None: 0 .. n_free - 1).
    size : int
        Zero variables to draw (at most their number).
    rng : numpy Generator

    Examples
    --------
    >>> v, w = case_control_vars(np.array([3]), 4, np.array([1, 3, 5, 7]), 2,
    ...                          np.random.default_rng(0))
    >>> int(v[0]), set(v[1:].tolist()) <= {1, 5, 7}, w.tolist()   # the tie, 2 of the 3 zeros
    (3, True, [1.0, 1.5, 1.5])
    """
    nonzero = np.asarray(nonzero, dtype=np.int64)
    n_zero = int(n_free) - len(nonzero)
    size = int(min(size, n_zero))
    picked = np.zeros(0, dtype=np.int64)
    while len(picked) < size:
        draw = rng.integers(0, int(n_free), size=2 * (size - len(picked)) + 64)
        if free is not None:
            draw = free[draw]
        both = np.concatenate([picked, draw])
        picked = both[_new_zeros(both, nonzero)][:size]      # distinct, in the order drawn
    variables = np.concatenate([nonzero, picked])
    weights = np.concatenate([np.ones(len(nonzero)), np.full(size, n_zero / max(size, 1))])
    return variables, weights


def offset_design(model, design, labels):
    """Fold offset terms (fixed coefficients) into the design: their
    statistics leave the columns and enter each row's fixed part; dyads a
    -Inf (or +Inf) offset decides leave the design.  Returns (design,
    labels of the full model, restore) where restore(lf, cov) puts the
    offsets back (or None without offsets)."""
    par = getattr(model, "parameterisation", None)
    # the free-coefficient view ERGM.fit makes holds the offsets in its map
    fixed = None if par is None else par.fixed_coefficients()
    view = fixed is not None
    if view:
        mask, coef = fixed
    else:
        mask, coef = model_offsets(model)
        if not mask.any():
            return design, labels, None
        if coef is None:
            raise DegenerateModelError("the model has offset terms: give their coefficients, "
                                       "fit(..., offset_coef=[...])")
    Xo = design.X[:, mask]
    inf = ~np.isfinite(coef)
    decided = (Xo[:, inf] != 0).any(axis=1) if inf.any() else np.zeros(len(Xo), bool)
    if inf.any():
        forced = design.s[decided]
        sign = np.sign(Xo[decided][:, inf] @ np.sign(coef[inf]))
        bad = ((sign < 0) & (forced > 0)) | ((sign > 0) & (forced < design.n[decided]))
        # (with target statistics the network is not what is fitted: the target is)
        if bad.any() and target_of(model).checks_observed_network:
            raise DegenerateModelError("the observed network has a tie (or non-tie) that an "
                                       "infinite offset forbids: its likelihood is 0")
    fixed_eta = Xo[:, ~inf] @ coef[~inf]
    keep = ~decided
    free_labels = list(labels) if view else [lab for lab, o in zip(labels, mask) if not o]
    # the dyads an infinite offset makes ties: their statistics are part of every network
    # of the face (a target for the free statistics is taken net of them)
    forced = np.zeros(len(design.n), bool)
    if inf.any():
        forced[decided] = sign > 0
    n_vars, n_on = design.n_vars, design.n_on
    kept = getattr(design, "n_sampled_kept", None)
    if decided.any():
        # the decided dyads leave the count: ties (weight 1) exactly, a case-control
        # sample's non-ties by their weights (an estimate, to the nearest dyad)
        n_vars -= _dyad_count(design.n[decided], exact=not design.sampled)
        n_on -= _dyad_count(design.s[decided], exact=True)
        if design.sampled:
            # the sampled non-ties left (each of weight #non-ties / n_sampled): the sample
            # size n_sampled stays what a simulated design draws
            w = (design.n_vars - design.n_on) / max(design.n_sampled, 1)
            gone = np.sum(design.n[decided] - design.s[decided]) / w if w > 0 else 0.0
            kept = (design.n_sampled if kept is None else kept) - int(round(gone))
    d = replace(design, X=design.X[keep][:, ~mask], n=design.n[keep], s=design.s[keep],
                n_vars=n_vars, n_on=n_on, n_sampled_kept=kept,
                offset=fixed_eta[keep], forced=design.n[forced] @ design.X[forced][:, ~mask])

    def restore(lf, cov):
        p = len(labels)
        params = np.zeros(p)
        params[mask] = coef
        params[~mask] = lf.params
        full = np.zeros((p, p))
        full[np.ix_(~mask, ~mask)] = cov
        lf.params = params
        return lf, full, list(labels)
    return d, free_labels, (None if view else restore)


def _dyad_count(weights, exact):
    """The number of dyads that design rows of ``weights`` stand for, as an int: their sum
    rounded (a float sum of case-control weights is not an integer: 999.9999... for
    1000 dyads, which ``int`` made 999).  ``exact``: the weights are whole counts (every
    dyad visited, or a sample's ties), and a sum off an integer is refused."""
    total = float(np.sum(weights))
    count = int(round(total))
    if exact and abs(total - count) > 1e-6 * max(1.0, total):
        raise RuntimeError(f"design rows that count dyads sum to {total!r}, not an integer")
    return count


def target_design(model, design, target, restore):
    """The design with the observed statistics replaced by ``target``
    (statnet's ``target.stats``).  The pseudo-likelihood depends on the
    observed network through X's = sum over tie dyads of the change
    statistics, which for dyad-independent terms is g(x) - g(empty): so the
    MPLE (= the MLE) at target statistics t solves the score equation with
    t - g(empty) in its place."""
    t = np.asarray(target, dtype=float) - model.statistics_vector(np.zeros((0, 2)))
    par = getattr(model, "parameterisation", None)
    fixed = None if par is None else par.fixed_coefficients()
    mask = fixed[0] if fixed is not None else model_offsets(model)[0]
    design.target = t[~mask]
    if design.forced is not None:
        design.target = design.target - design.forced
    return design


def target_network(model, target, rng, max_rounds=20000, steps=16, theta=None):
    """A network of ``model``'s sample space whose statistics equal
    ``target`` (statnet's ``san``), by a Metropolis-Hastings chain whose
    parameters are pushed towards the target after every ``steps``
    proposals (a Robbins-Monro walk), starting at ``theta`` (default 0: a
    start near the model's estimate keeps a large sparse network's chain
    from drifting to density 1/2); (m, 2) tie array."""
    t = np.asarray(target, dtype=float)
    theta = np.zeros(len(t)) if theta is None else np.array(theta, dtype=float)
    sampler, cm = model.sampler(theta, random_state=rng)
    g0 = model.statistics_vector(model.network.ties)
    scale = np.maximum(np.abs(t), 1.0)
    best, best_ties = np.inf, None
    for r in range(max_rounds):
        g = g0 + np.asarray(sampler.delta)
        dist = float(np.abs((g - t) / scale).max())
        if dist < best:
            best, best_ties = dist, cm.state.ties()
            if dist < 1e-9:
                break
        theta += (0.5 / np.sqrt(1.0 + r / 50.0)) * (t - g) / scale
        sampler.run(theta, steps)
    if best > 0.05:
        raise DegenerateModelError(f"no network with statistics near the targets {t.tolist()} "
                                   "was found; are they attainable?")
    return best_ties
