"""The design of a dyad-independent attribute model by attribute cells, in
O(nodes + ties + cells) instead of O(dyads).

For the terms whose registration declares it (``register(cell_attrs=)`` in
:mod:`ergmfit.terms.registry`; a bound term's ``cell_attrs``) the change
statistic of a dyad (i, j) is a function of the two nodes' values of the
attributes the term names (``attr``).  Nodes with the same values of every attribute the model
names form a *class*; every dyad between class a and class b (a cell) has the
same change-statistic row, so the compressed pseudo-likelihood design --
which for a dyad-independent model is its exact likelihood -- has one row
per cell, with

* n (dyads of the cell) = n_a n_b between two classes, n_a (n_a - 1) / 2 within
  one (n_a (n_a - 1) ordered pairs in a directed network), counted from the
  class sizes, never dyad by dyad;
* s (ties of the cell) counted over the ties;
* the row: the change statistic of one representative dyad of the cell,
  computed by the model's own compiled kernels (so the cell design and the
  dyad-by-dyad design cannot disagree).

This is how EpiModel-scale models (a few attribute levels, 10^5 nodes) are
fitted exactly: the MLE at target statistics is the Newton solve of the cell
design's score equation (:class:`~ergmfit.estimation.mple.pseudolikelihood.MPLE`
with ``target_stats``), and a cell whose target is 0 is a face of the hull
(:mod:`.boundary`: its coefficient is -Inf).

Only the whole sample space is counted this way: every dyad of a one-mode network, or
every dyad between the modes of a two-mode one (its node classes then split by mode, and
its cells join a class of the first mode to one of the second); anything else --
constraints, missing dyads, a term that declares no cell attributes, more than
``max_cells`` cells -- returns None and the caller builds the design dyad by dyad.

Examples
--------
>>> import ergmfit as ef
>>> m = ef.ERGM(ef.datasets.load("faux.mesa.high"), "edges + nodematch('Grade')")
>>> X, n, s, n_vars, n_on = cell_design(m)
>>> int(n.sum()), int(s.sum()), X.shape[1]
(20910, 203, 2)
"""
from __future__ import annotations

import numpy as np

from ...terms.parameterisation import model_parameterisation

__all__ = ["CellLayout", "cell_design", "cell_layout", "node_classes"]

#: at most this many cells (beyond it the dyad-by-dyad design is built)
MAX_CELLS = 2_000_000


def _attributes(model):
    """The node attributes the model's terms name, or None when a term declares no
    cell attributes (its ``cell_attrs``, from the term table) or names one the network
    does not have."""
    names = []
    attrs = model.network.node_attrs
    for t in model.terms:
        vals = getattr(t, "cell_attrs", None)
        if vals is None or not t.dyad_independent or not all(v in attrs for v in vals):
            return None
        names.extend(v for v in vals if v not in names)
    return names


def node_classes(network, names):
    """(class of each node, number of classes): nodes with equal values of
    every attribute in ``names``."""
    n = network.n
    if not names:
        return np.zeros(n, dtype=np.int64), 1
    codes = []
    for name in names:
        # (the terms checked the values when they were built: present, none missing)
        vals = network.node_attrs[name]
        arr = np.asarray(vals) if len({type(v) for v in vals}) == 1 else None
        if arr is None or arr.ndim != 1 or arr.dtype.kind not in "biufU":
            arr = np.asarray([repr(v) for v in vals])      # mixed or unusual values
        u, inv = np.unique(arr, return_inverse=True)
        codes.append((inv.reshape(-1).astype(np.int64), len(u)))
    key, radix = codes[0]
    for code, k in codes[1:]:
        if radix * k >= 2 ** 62:            # (astronomically many combinations)
            return _classes_by_rows(codes)
        key, radix = key * k + code, radix * k
    if len(codes) == 1:
        return key, radix
    _, cls = np.unique(key, return_inverse=True)
    cls = cls.reshape(-1).astype(np.int64)
    return cls, int(cls.max()) + 1


def _classes_by_rows(codes):
    _, cls = np.unique(np.stack([c for c, _ in codes], axis=1), axis=0, return_inverse=True)
    cls = cls.reshape(-1).astype(np.int64)
    return cls, int(cls.max()) + 1


def _representatives(cls, K):
    """The first and (where there is one) second node of each class, in O(n)."""
    n = len(cls)
    idx = np.arange(n, dtype=np.int64)
    rep1 = np.full(K, n, dtype=np.int64)
    np.minimum.at(rep1, cls, idx)
    rest = idx[idx != rep1[cls]]
    rep2 = np.full(K, n, dtype=np.int64)
    np.minimum.at(rep2, cls[rest], rest)
    rep2 = np.where(rep2 == n, rep1, rep2)          # a one-node class: no within dyad
    return rep1, rep2


class CellLayout:
    """The attribute cells of a cell model (:func:`cell_layout`): ``cls`` the class of
    every node and ``K`` the number of classes; per cell ``a``, ``b`` its classes
    (increasing a * K + b; undirected a <= b), ``count`` its dyads and ``rep`` the
    variable (dyad index) of one representative dyad."""

    def __init__(self, cls, K, a, b, count, rep, directed):
        self.cls, self.K, self.a, self.b = cls, K, a, b
        self.count, self.rep, self.directed = count, rep, directed

    def cell_of(self, pairs):
        """The cell (index into ``a``, ``b``) of every node pair (an (m, 2) array)."""
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        ca, cb = self.cls[pairs[:, 0]], self.cls[pairs[:, 1]]
        if not self.directed:
            ca, cb = np.minimum(ca, cb), np.maximum(ca, cb)
        return np.searchsorted(self.a * self.K + self.b, ca * self.K + cb)


def _whole_space(model):
    """"one-mode" when ``model``'s sample space is every dyad of a one-mode network,
    "two-mode" when it is every dyad between the modes of an undirected two-mode network
    (no constraint, no missing dyad), else None."""
    net = model.network
    space = getattr(model, "sample_space", None)
    if space is None or net.n < 2:
        return None
    dvars = space.design_set()
    if dvars is None:
        return "one-mode" if space.moves_one_dyad and not net.is_bipartite else None
    if not net.is_bipartite or net.directed or not space.dyad_independent:
        return None
    # the design dyads are a subset of those between the modes: all of them?
    n1 = int(net.bipartite)
    return "two-mode" if len(dvars) == n1 * (net.n - n1) else None


def cell_layout(model, max_cells=MAX_CELLS):
    """The :class:`CellLayout` of ``model``, or None when it is not a cell model (a
    term without cell attributes, a constrained space, missing dyads, curved terms,
    more than ``max_cells`` cells)."""
    from ...sampling.space import dyad_vars
    net = model.network
    # every dyad free and observed (no constraint, no missing dyad), η affine in θ
    whole = _whole_space(model)
    if whole is None or not model_parameterisation(model).affine:
        return None
    names = _attributes(model)
    if names is None:
        return None
    cls, K = node_classes(net, names)
    if whole == "two-mode":
        # classes within a mode; cells only between the modes
        mode = (np.arange(net.n) >= int(net.bipartite)).astype(np.int64)
        _, cls = np.unique(cls * 2 + mode, return_inverse=True)
        cls = cls.reshape(-1).astype(np.int64)
        K = int(cls.max()) + 1
        class_mode = np.zeros(K, dtype=np.int64)
        class_mode[cls] = mode
    size = np.bincount(cls, minlength=K).astype(np.int64)
    a, b = (np.meshgrid(np.arange(K), np.arange(K), indexing="ij"))
    a, b = a.ravel(), b.ravel()
    if not net.directed:
        keep = a <= b
        a, b = a[keep], b[keep]
    if whole == "two-mode":
        keep = class_mode[a] != class_mode[b]
        a, b = a[keep], b[keep]
    same = a == b
    count = np.where(same, size[a] * (size[a] - 1), size[a] * size[b])
    if not net.directed:
        count = np.where(same, count // 2, count)
    keep = count > 0
    a, b, count, same = a[keep], b[keep], count[keep], same[keep]
    if len(a) > max_cells:
        return None
    # two representatives per class (the first two nodes of it)
    rep1, rep2 = _representatives(cls, K)
    i = rep1[a]
    j = np.where(same, rep2[b], rep1[b])
    rep = dyad_vars(net.n, net.directed, np.stack([i, j], axis=1))
    return CellLayout(cls, K, a, b, count, rep, net.directed)


def cell_design(model, max_cells=MAX_CELLS):
    """The exact compressed design of ``model`` by attribute cells (module
    docstring): (X, n, s, n_vars, n_on) -- one change-statistic row per cell,
    its dyads, its ties, and the totals -- the fields of a
    :class:`~ergmfit.estimation.mple.pseudolikelihood.Design`; None when the
    model is not a cell model."""
    from ...sampling._constrained import change_rows
    cells = cell_layout(model, max_cells)
    if cells is None:
        return None
    bm = model.compiled(np.zeros((0, 2), dtype=np.int64))
    X, _ = change_rows(bm, cells.rep)
    X = np.asarray(X, dtype=float)
    # ties per cell (the cells are in increasing order of a * K + b)
    ties = np.asarray(model.network.ties, dtype=np.int64).reshape(-1, 2)
    s = np.zeros(len(cells.a))
    if len(ties):
        np.add.at(s, cells.cell_of(ties), 1.0)
    n = cells.count.astype(float)
    return X, n, s, int(cells.count.sum()), int(len(ties))
