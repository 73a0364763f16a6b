"""The blocks of the blocked estimators (blocked CD, MCLE): block choosers and
families of blocks, restricted to the free dyads of a constrained sample space.

:func:`make_chooser` builds a compiled chooser (uniform k-subsets, the dyads
of a node triple or of a node's star, or a list of blocks);
:func:`make_blocks` the family of a composite likelihood (every k-subset,
a random sample, or chooser draws).  Under dyad-set constraints
(:func:`free_variables`) every block holds free dyads only: the fixed ones
keep their observed values and belong to every block's "rest".
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...exceptions import SettingsError
from ...sampling.space import sample_space_of
from ...terms.parameter_steps import maximize_curved_pseudolikelihood
from ...utils.validation import check_index_set, check_random_state

__all__ = ["free_variables", "make_chooser", "blocks_to_vars", "make_blocks",
           "bounded_kernel", "degree_feasibility", "feasible_toggles", "bounded_pseudo_fit",
           "curved_design_fit", "DEFAULT_MAX_BLOCKS"]

DEFAULT_MAX_BLOCKS = 2_000_000
_CHUNK = 20_000


def free_variables(model, method):
    """The free variables (sorted dyad indices) of the model's sample space
    for a blocked estimator, None when every variable is free; an error for
    a space of degree constraints, which the block conditionals cannot use.

    Under dyad-set constraints (``blockdiag``, ``blocks``, ``fixallbut``,
    ``fixedas``, ``dyads``) the blocks hold free dyads only: the fixed ones
    keep their observed values and are part of every block's "rest"."""
    space = sample_space_of(model)
    if not space.dyad_independent and not (method in ("mcle", "bcd") and bounded_only(space)):
        from ...exceptions import FormulaError
        preserve = getattr(space, "preserve", None)
        if preserve == "edges":
            why = ("with the number of ties fixed, each block's conditional distribution would "
                   "have to keep the block's own number of ties (and the edges coefficient is "
                   "not identifiable), which the block kernels do not do")
        elif preserve:
            why = ("with the degrees preserved, a block of a few dyads can almost never change "
                   "given the rest of the network (any change alters a degree unless the block "
                   "holds an alternating cycle), so its conditional distribution is a point "
                   "mass and the blocks carry no information")
        else:
            why = ("only method='mcle' and 'bcd' restrict a block's conditional to the "
                   "configurations that keep every degree within its bounds")
        raise FormulaError(f"method={method!r} under the degree constraint(s) "
                           f"'{getattr(space, 'spec', '')}' is not available: {why}. Use "
                           "method='mcmle' or 'cd' (their proposals keep the degrees), or a "
                           "dyad-set constraint (blockdiag, blocks, fixallbut, fixedas, dyads)")
    free = space.free_vars()
    if free is None:
        return None
    free = np.sort(np.asarray(free, dtype=np.int64))
    if len(free) == 0:
        raise SettingsError(f"method={method!r}: the constraints leave no dyad free to estimate "
                            "from")
    return free


def bounded_only(space) -> bool:
    """A space of degree bounds (``bd``, also ``bd(attribs=)``), maybe with a dyad
    set, nothing else."""
    return ((getattr(space, "bounds", None) is not None
             or getattr(space, "attr_bounds", None) is not None)
            and getattr(space, "preserve", None) is None)


def bounded_kernel(model, max_size):
    """For a model under degree bounds (``bd``, ``bd(attribs=)``): the compiled block kernel
    (:class:`~ergmfit.sampling._bounded.DegreeBounded`, blocks of up to
    ``max_size`` variables) whose conditionals leave out the configurations
    that break a bound; None without bounds."""
    space = getattr(model, "sample_space", None)
    if space is None or not bounded_only(space):
        return None
    from ...sampling._bounded import DegreeBounded
    net = space.network
    if getattr(space, "attr_either", False):
        raise SettingsError("block samplers do not implement the snowball constraint of a "
                            "directed network; use method='ee' or 'mcmle'")
    n = net.n
    lo_o, hi_o, lo_i, hi_i = (space.bounds if space.bounds is not None else
                              (np.zeros(n), np.full(n, n), np.zeros(n), np.full(n, n)))
    att = space.attr_bounds or (None,) * 5
    return DegreeBounded(int(max_size), lo_o, hi_o, lo_i, hi_i, bool(net.directed), *att)


def degree_feasibility(model):
    """For a model under degree bounds (``bd``): a function f(bm, blocks) ->
    (C, 2^k) bool, whether each configuration of each block (bit b of the
    configuration: the block's b-th variable flipped, as
    :func:`~ergmfit.sampling._blocks.block_differences` counts them) keeps
    every degree within its bounds at ``bm``'s current state; None without
    bounds.  The block conditionals of the constrained model are the
    unconstrained ones restricted to these configurations.  The check is
    the compiled kernel's (:func:`bounded_kernel`), the one blocked CD
    samples with; ``f.state_ok(bm)``: whether ``bm``'s state keeps them."""
    from ...sampling._blocks import MAX_ENUMERATION
    kern = bounded_kernel(model, MAX_ENUMERATION)
    if kern is None:
        return None

    def feasible(bm, arr):
        return kern.feasible(bm, np.asarray(arr, dtype=np.int64))
    feasible.state_ok = kern.state_ok
    return feasible


def feasible_toggles(feasible, bm, free=None):
    """Under degree bounds (``feasible`` from :func:`degree_feasibility`): the
    variables (of ``free``, else every one) whose toggle at ``bm``'s current
    state keeps every bound, sorted."""
    vars_ = (np.arange(bm.n_vars, dtype=np.int64) if free is None else
             np.asarray(free, dtype=np.int64))
    return vars_[np.asarray(feasible(bm, vars_.reshape(-1, 1)), dtype=bool)[:, 1]]


def bounded_pseudo_fit(design_fit, bm, labels, feasible, free=None, start=None):
    """The maximum pseudo-likelihood of the model restricted to its degree
    bounds (a :class:`~ergmfit.estimation.mple.pseudolikelihood.LogitFit`): each dyad's
    conditional given the rest, restricted to the space, is the logistic one
    when the dyad's toggle keeps every bound and a point mass (no
    information) when it breaks one, so the pseudo-likelihood is a logistic
    regression over the dyads whose toggle is feasible -- the composite
    likelihood of one-dyad blocks under the bounds (MCLE with
    ``block_size=1``).  statnet's MPLE, like ``method="mple"``, ignores
    ``bd`` and uses every free dyad.  ``design_fit(design, labels, start)``
    maximises it for the model's parameterisation (the logistic regression when
    θ = η; :func:`curved_design_fit` from ``start``, the unconstrained curved
    MPLE, otherwise).  Raises :class:`DegenerateModelError` when the restricted
    design has no maximum (e.g. a statistic that no feasible toggle changes)."""
    from ..mple.pseudolikelihood import restricted_design
    design = restricted_design(bm, feasible_toggles(feasible, bm, free))
    return design_fit(design, labels, start)


def curved_design_fit(design, par, start):
    """The pseudo-likelihood of ``design`` maximised in θ through the curved map
    ``par`` from ``start``: a LogitFit whose ``cov`` is (J'HJ)^-1;
    DegenerateModelError when the maximisation does not converge."""
    from ..mple.pseudolikelihood import LogitFit, inv_psd
    theta, ll, H, n_iter, converged = maximize_curved_pseudolikelihood(
        design, par, np.asarray(start, dtype=float))
    if not (converged and np.all(np.isfinite(theta)) and np.all(np.isfinite(H))):
        from ...exceptions import DegenerateModelError
        raise DegenerateModelError("the curved pseudo-likelihood under the degree bounds did "
                                   "not converge")
    return LogitFit(theta, inv_psd(H), H, ll, n_iter, converged,
                    np.zeros(len(theta), dtype=bool))


#: the largest count a compiled loop takes as a C int
C_INT_MAX = 2 ** 31 - 1


def block_kernel(name, value):
    """The check of a ``kernel`` setting: None or a compiled block kernel."""
    from ...sampling._blocks import BlockKernel
    if value is None or isinstance(value, BlockKernel):
        return value
    raise SettingsError(f"setting {name!r} must be a block kernel (e.g. "
                        f"ergmfit.sampling._blocks.Enumeration(4)) or None, got {value!r}")


def make_chooser(bm, kind, block_size, free=None):
    """A compiled block chooser: ``"uniform"``, ``"triple"``, ``"star"`` or a list
    of blocks; with ``free`` (sorted variables) its blocks hold free variables only."""
    from ...sampling._blocks import (FreeOnly, ListBlocks, NodeTripleBlocks, StarBlocks,
                                    UniformBlocks)
    from ...terms._ergm import ERGMModel
    if isinstance(kind, str):
        kind = kind.lower()
        if kind in ("uniform", "random", "all"):
            return UniformBlocks(bm.n_vars, int(block_size), free)
        if kind in ("triple", "triples", "node_triple"):
            if not isinstance(bm, ERGMModel):
                raise SettingsError("blocks='triple' needs an ERGM (blocks of dyads of a node "
                                    "triple)")
            ch = NodeTripleBlocks(bm, int(block_size))
        elif kind in ("star", "node"):
            if not isinstance(bm, ERGMModel):
                raise SettingsError("blocks='star' needs an ERGM (blocks of dyads sharing a node)")
            ch = StarBlocks(bm, int(block_size))
        else:
            raise SettingsError(f"blocks must be 'uniform', 'triple', 'star' or a list of blocks, "
                                f"got {kind!r}")
        return ch if free is None else FreeOnly(ch, free)
    return ListBlocks(blocks_to_vars(bm, kind, free), bm.n_vars)


def blocks_to_vars(bm, blocks, free=None):
    """A list of blocks as int64 arrays of variables; dyads (i, j) of an ERGM are
    converted.  With ``free`` (sorted variables) the others are left out of
    every block, and blocks left empty are dropped."""
    out = []
    for b in blocks:
        items = list(b) if not np.isscalar(b) else [b]
        if items and all(isinstance(x, (tuple, list, np.ndarray)) and len(x) == 2 for x in items):
            if not hasattr(bm, "var_of"):
                raise SettingsError("blocks of (i, j) pairs need an ERGM; give variable indices")
            items = [bm.var_of(int(i), int(j)) for i, j in items]
        arr = check_index_set(items, bm.n_vars, "block")
        if free is not None:
            arr = arr[np.isin(arr, free)]
            if len(arr) == 0:
                continue
        out.append(arr)
    if not out:
        raise SettingsError("the list of blocks is empty"
                            + (" (no block has a free dyad)" if free is not None else ""))
    return out


def _all_subsets(M, k):
    """Every k-subset of range(M), in chunks of rows."""
    it = itertools.combinations(range(M), k)
    while True:
        chunk = list(itertools.islice(it, _CHUNK))
        if not chunk:
            return
        yield np.asarray(chunk, dtype=np.int64).reshape(-1, k)


def _sample_subsets(M, k, n, rng):
    """n uniform k-subsets of range(M) (with replacement between blocks)."""
    out = np.empty((n, k), dtype=np.int64)
    for r in range(n):
        out[r] = np.sort(rng.choice(M, size=k, replace=False))
    return out


def make_blocks(bm, blocks="all", block_size=1, n_blocks=None, max_blocks=DEFAULT_MAX_BLOCKS,
                random_state=None, free=None):
    """The blocks of a composite likelihood as a list of (C_k, k) int64 arrays,
    one per block size, plus a description.  Large families are returned lazily
    (a generator of chunks) for ``"all"``.  With ``free`` (sorted variables of a
    constrained space) the blocks hold free variables only."""
    if free is not None:
        fam, desc = _make_blocks(bm, blocks, block_size, n_blocks, max_blocks, random_state,
                                 free)
        if isinstance(blocks, str) and blocks.lower() in ("all", "uniform", "random"):
            # positions among the free variables -> the variables
            fam = {k: (free[arr] for arr in chunks) for k, chunks in fam.items()}
        return fam, desc
    return _make_blocks(bm, blocks, block_size, n_blocks, max_blocks, random_state, None)


def _by_size(lst):
    by = {}
    for b in lst:
        by.setdefault(len(b), []).append(b)
    return {k: iter([np.asarray(v, dtype=np.int64).reshape(-1, k)]) for k, v in by.items()}


def _make_blocks(bm, blocks, block_size, n_blocks, max_blocks, random_state, free):
    M = int(bm.n_vars) if free is None else len(free)
    if isinstance(blocks, str):
        kind = blocks.lower()
        k = int(block_size)
        if k < 1 or k > M:
            raise SettingsError(f"block_size must lie in 1..{M} (the number of variables), got {k}")
        if kind == "all" and n_blocks is None:
            C = math.comb(M, k)
            if C > max_blocks:
                raise SettingsError(
                    f"the composite likelihood of order {k} over all {M} variables has "
                    f"C({M}, {k}) = {C:,} blocks, more than max_blocks={max_blocks:,}; give "
                    "n_blocks= to use a random sample of blocks, or fit by blocked contrastive "
                    "divergence (method='bcd'), its stochastic version")
            return {k: _all_subsets(M, k)}, {"blocks": "all", "block_size": k, "n_blocks": C}
        n = int(n_blocks)
        if n < 1:
            raise SettingsError(f"n_blocks must be positive, got {n_blocks}")
        rng = check_random_state(random_state)
        if kind == "all" or kind in ("uniform", "random"):
            arr = _sample_subsets(M, k, n, rng)
            return {k: iter([arr])}, {"blocks": "uniform", "block_size": k, "n_blocks": n}
        chooser = make_chooser(bm, kind, k, free)
        drawn = chooser.draw(n, rng)
        if free is None:
            arr = np.asarray(drawn, dtype=np.int64).reshape(n, -1)
            return {k: iter([arr])}, {"blocks": kind, "block_size": k, "n_blocks": n}
        drawn = [b for b in drawn if len(b)]      # fixed dyads left out: sizes vary
        if not drawn:
            raise SettingsError(f"none of the {n} '{kind}' blocks holds a free dyad; use "
                                "blocks='uniform'")
        return _by_size(drawn), {"blocks": kind, "block_size": k, "n_blocks": len(drawn)}
    lst = blocks_to_vars(bm, blocks, free)
    out = _by_size(lst)
    sizes = sorted(out)
    return out, {"blocks": "list", "block_size": sizes[0] if len(sizes) == 1 else sizes,
                 "n_blocks": len(lst)}
