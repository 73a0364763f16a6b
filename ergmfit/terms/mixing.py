"""Mixing matrices: ``nodemix`` (one-mode and two-mode networks) and statnet's newer
``mm`` (one attribute, or ``mm("a" ~ "b")`` rows by one attribute and columns by another).
Labels and cell order follow statnet ``ergm`` 4.4; level selection as in :mod:`.dyadic`.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import TermError
from ..formula import RCode
from ._coreterms import DenseEdgeCovKernel, MixKernel
from .curvemap import r_value
from .dyadic import _COV, _base_drop, _levels, _nonempty, _norm, _r_text, select_levels
from .registry import BOTH, Param, Term, register


_LOGICAL = {"TRUE": np.True_, "FALSE": np.False_, "T": np.True_, "F": np.False_}


def select_cells(term, levels2, cells, rlabels, clabels, cell_labels, symmetric, listing):
    """0-based indices into ``cells`` (pairs (r, c) of indices into the selected row and
    column levels, in statnet's column-major order) chosen by a ``levels2`` selection.

    Beyond the level selections of :func:`.dyadic.select_levels` (indices into the cell
    list, cell labels, TRUE/FALSE, NULL), statnet's ``levels2`` takes

    * a logical matrix with one entry per (row level, column level): the cells where it is
      TRUE, in the cell order (undirected one-mode: only cells on or above the diagonal
      exist, so TRUE below it selects nothing, as statnet's ``M[upper.tri(M, TRUE)]``);
    * a numeric matrix of two columns, ``cbind(2, 3)``: one cell per row, (row level index,
      column level index), 1-based, in the given order (undirected: the row index must not
      exceed the column index);
    * a list of ``list(row=, col=)``: cells by their levels' values, in the given order.

    A character matrix grouping cells into one statistic is not supported."""
    where = f"term {term}: levels2"
    if isinstance(levels2, RCode):
        try:
            M = np.asarray(r_value(levels2.text, dict(_LOGICAL)))
        except (ValueError, SyntaxError, TypeError):
            raise TermError(f"{where}={levels2.text}: give a logical matrix, a two-column "
                            f"matrix of (row, column) level indices, cell indices or cell "
                            f"names (a character matrix grouping cells is not supported)") \
                from None
        M = np.atleast_2d(M)
        if M.dtype == bool:
            shape = (len(rlabels), len(clabels))
            if M.shape != shape:
                raise TermError(f"{where}={levels2.text} is a {M.shape[0]} x {M.shape[1]} "
                                f"logical matrix, but the mixing matrix is {shape[0]} x "
                                f"{shape[1]} ({listing})")
            chosen = [k for k, (r, c) in enumerate(cells) if M[r, c]]
        elif M.ndim == 2 and M.shape[1] == 2 and np.all(np.isfinite(M)) \
                and np.all(M == np.round(M)):
            pairs = [(int(a) - 1, int(b) - 1) for a, b in M]
            chosen = [_cell_index(where, cells, r, c, symmetric, rlabels, clabels, listing)
                      for r, c in pairs]
        else:
            raise TermError(f"{where}={levels2.text}: a numeric matrix must have two columns "
                            f"of whole (row, column) level indices")
    elif isinstance(levels2, list) and levels2 and all(isinstance(v, dict) for v in levels2):
        chosen = []
        for cell in levels2:
            if set(cell) != {"row", "col"}:
                raise TermError(f"{where}: each cell is list(row=<level>, col=<level>), got "
                                f"the names {sorted(cell)}")
            r, c = (_level_index(where, k, cell[k], labs, listing)
                    for k, labs in (("row", rlabels), ("col", clabels)))
            chosen.append(_cell_index(where, cells, r, c, symmetric, rlabels, clabels, listing))
    else:
        return select_levels(term, "levels2", cell_labels, levels2,
                             f"it has {len(cells)} cells")
    if len(set(chosen)) != len(chosen):
        raise TermError(f"{where} selects a cell twice")
    return chosen


def _level_index(where, side, value, labels, listing):
    text = value if isinstance(value, str) else _r_text(_norm(value))
    if text not in labels:
        raise TermError(f"{where}: no {side} level {text!r} ({listing})")
    return labels.index(text)


def _cell_index(where, cells, r, c, symmetric, rlabels, clabels, listing):
    if not (0 <= r < len(rlabels) and 0 <= c < len(clabels)):
        raise TermError(f"{where}: the cell ({r + 1}, {c + 1}) is outside the "
                        f"{len(rlabels)} x {len(clabels)} mixing matrix ({listing})")
    if symmetric and r > c:
        raise TermError(f"{where}: the cell ({rlabels[r]}, {clabels[c]}) lies below the "
                        f"diagonal; an undirected mixing matrix has only the cells with row "
                        f"<= column: give ({clabels[c]}, {rlabels[r]})")
    return cells.index((r, c))


@register("nodemix", kinds=BOTH, family=_COV,
          params=[Param("attr"), Param("base", None), Param("b1levels", None),
                  Param("b2levels", None), Param("levels", None), Param("levels2", -1)],
          cell_attrs="attr")
def nodemix(net, attr, base=None, b1levels=None, b2levels=None, levels=None, levels2=-1):
    """Mixing matrix: one statistic per cell (ℓ, m) of the selected levels,
    the number of ties from a node of level ℓ to one of level m.

    Directed: every ordered cell, in R's column-major order (ℓ varies
    fastest: ``mix.group.Loyal.Loyal``, ``mix.group.Outcasts.Loyal``, ...),
    ℓ the tail's level.  Undirected: the cells ℓ ≤ m (in the order of the
    selected levels), column-major (``mix.Grade.7.7``, ``mix.Grade.7.8``,
    ``mix.Grade.8.8``, ``mix.Grade.7.9``, ...).  ``levels`` selects the
    levels (rows/columns), ``levels2`` the cells among those (indices into
    the cell list above; default ``-1`` drops the first cell; ``TRUE`` or
    ``NULL`` keeps all; also a logical matrix, a two-column matrix of
    (row, column) level indices or a list of ``list(row=, col=)``, see
    :func:`select_cells`).  statnet ``nodemix``; labels
    ``mix.<attr>.<level>.<level>``.  A character ``levels2`` matrix
    (grouping cells into one statistic) is not supported; the deprecated
    ``base`` drops cells like ``levels2=-base``.

    Example: ``edges + nodemix('Sex')`` gives ``mix.Sex.F.M``, ``mix.Sex.M.M``.
    """
    if net.bipartite is None and (b1levels is not None or b2levels is not None):
        raise TermError("term nodemix: b1levels and b2levels apply to two-mode networks "
                        "(use levels on one-mode networks)")
    return _mix(net, attr, base, levels, levels2, "nodemix",
                lambda a, r, c: f"mix.{a}.{r}.{c}", b1levels, b2levels)


# the most cells (statistics) a mixing matrix may have before levels2 selects among them:
# each cell is a statistic with its label, and a fit holds p x p matrices
MAX_MIX_CELLS = 100_000


def check_mix_cells(term, attr, n_levels, n_cells):
    """A TermError up front when a mixing matrix of ``n_levels`` levels would have more
    than :data:`MAX_MIX_CELLS` cells, naming the sizes and the memory they would take."""
    if n_cells <= MAX_MIX_CELLS:
        return
    labels = n_cells * 100.0                        # a label string and its list slot
    cov = float(n_cells) ** 2 * 8                   # one p x p matrix of a fit
    raise TermError(
        f"term {term}: the attribute {attr!r} has {n_levels:,} levels, so its mixing matrix "
        f"has {n_cells:,} cells, one statistic each: about {_gib(labels)} for their labels "
        f"alone and {_gib(cov)} for one p x p matrix of a fit; at most {MAX_MIX_CELLS:,} "
        "cells are supported: select levels with levels= (b1levels=/b2levels= on two-mode "
        "networks) or merge levels of the attribute")


def _gib(nbytes):
    return f"{nbytes / 2 ** 30:,.1f} GiB" if nbytes >= 2 ** 28 else f"{nbytes / 2 ** 20:,.0f} MiB"


def _mix(net, attr, base, levels, levels2, term, fmt, b1levels=None, b2levels=None):
    """nodemix's cells and kernel; ``fmt(attr, row level, column level)`` makes a label."""
    if net.bipartite is not None:
        return _nodemix_bipartite(net, attr, base, levels, levels2, term, fmt,
                                  b1levels, b2levels)
    lv = _levels(net, attr, term)
    sel = _nonempty(term, "levels", levels,
                    lv.select(term, "levels", levels),
                    lv.listing())
    k = len(sel)
    check_mix_cells(term, lv.name, k, k * k if net.directed else k * (k + 1) // 2)
    if net.directed:
        cells = [(r, c) for c in range(k) for r in range(k)]
    else:
        cells = [(r, c) for c in range(k) for r in range(c + 1)]
    cell_labels = [fmt(lv.name, lv.labels[sel[r]], lv.labels[sel[c]]) for r, c in cells]
    if base is not None and type(levels2) is int and levels2 == -1:
        levels2 = _base_drop(term, base, "levels2")
    rlabels = [lv.labels[v] for v in sel]
    chosen = _nonempty(term, "levels2", levels2,
                       select_cells(term, levels2, cells, rlabels, rlabels, cell_labels,
                                    not net.directed, lv.listing()), lv.listing())
    table = np.full((k, k), -1, dtype=np.intc)
    for s, c in enumerate(chosen):
        table[cells[c]] = s
    code = np.full(len(lv), -1, dtype=np.intc)
    code[sel] = np.arange(k, dtype=np.intc)
    labels = [cell_labels[c] for c in chosen]
    return Term(term, labels, MixKernel(code[lv.code], table, k, len(labels)),
                dyad_independent=True)


def _nodemix_bipartite(net, attr, base, levels, levels2, term="nodemix",
                       fmt=lambda a, r, c: f"mix.{a}.{r}.{c}", b1levels=None, b2levels=None):
    """nodemix on a two-mode network: cells (mode-1 level, mode-2 level), column-major
    (the mode-1 level varies fastest), as statnet; ``b1levels``/``b2levels`` select (and
    order) the levels of each mode, ``levels2`` the cells among those."""
    if levels is not None:
        raise TermError(f"term {term}: on two-mode networks statnet selects levels with "
                        "b1levels and b2levels (levels applies to one-mode networks)")
    lv1, lv2 = _levels(net._mode_view(1), attr, term), _levels(net._mode_view(2), attr, term)
    sel1 = _nonempty(term, "b1levels", b1levels,
                     lv1.select(term, "b1levels", b1levels),
                     lv1.listing())
    sel2 = _nonempty(term, "b2levels", b2levels,
                     lv2.select(term, "b2levels", b2levels),
                     lv2.listing())
    k1, k2 = len(sel1), len(sel2)
    check_mix_cells(term, lv1.name, max(k1, k2), k1 * k2)
    cells = [(r, c) for c in range(k2) for r in range(k1)]
    cell_labels = [fmt(lv1.name, lv1.labels[sel1[r]], lv2.labels[sel2[c]]) for r, c in cells]
    if base is not None and type(levels2) is int and levels2 == -1:
        levels2 = _base_drop("nodemix", base, "levels2")
    chosen = _nonempty(term, "levels2", levels2,
                       select_cells(term, levels2, cells, [lv1.labels[v] for v in sel1],
                                    [lv2.labels[v] for v in sel2], cell_labels, False,
                                    lv1.listing()), lv1.listing())
    table = np.full((k1 + k2, k1 + k2), -1, dtype=np.intc)
    for s, c in enumerate(chosen):
        r, col = cells[c]
        table[r, k1 + col] = s
    code1 = np.full(len(lv1), -1, dtype=np.intc)
    code1[sel1] = np.arange(k1, dtype=np.intc)
    code2 = np.full(len(lv2), -1, dtype=np.intc)
    code2[sel2] = k1 + np.arange(k2, dtype=np.intc)
    code = np.concatenate([code1[lv1.code], code2[lv2.code]]).astype(np.intc)
    return Term(term, [cell_labels[c] for c in chosen],
                MixKernel(code, table, k1 + k2, len(chosen)), dyad_independent=True)


@register("mm", kinds=BOTH, family=_COV,
          params=[Param("attrs"), Param("levels", None), Param("levels2", -1)])
def mm(net, attrs, levels=None, levels2=-1):
    """Mixing matrix, statnet's newer spelling: ``mm("a")`` is nodemix("a") with labels
    ``mm[a=<row>,a=<col>]``; ``mm("a" ~ "b")``: rows the tail's level of a, columns the
    head's level of b (undirected: both orientations of each tie), every cell column-major
    but the first (``levels2=-1``).  Margins: ``mm(a ~ .)`` the row (sender, mode-1)
    margins, ``mm(. ~ a)`` the column (receiver, mode-2) ones, as nodeofactor/nodeifactor
    (undirected: nodefactor; two-mode: b1factor/b2factor); labels ``mm[a=<level>,.]`` and
    ``mm[.,a=<level>]``."""
    from ..formula import FormulaArg
    if isinstance(attrs, FormulaArg):
        rhs = attrs.text.strip().strip("'\"")
        row, col = (attrs.lhs if attrs.lhs is not None else rhs), rhs
    else:
        row = col = attrs
    if "." in (row, col):
        if row == col:
            raise TermError("term mm: attrs .~. names no attribute")
        return _mm_margin(net, row if col == "." else col, col == ".", levels, levels2)
    if row == col:
        # the attribute as statnet names it (c("Sex", "Race") -> Sex.Race)
        return _mix(net, row, None, levels, levels2, "mm",
                    lambda a, r, c: f"mm[{a}={r},{a}={c}]")
    if levels is not None or net.bipartite is not None:
        raise TermError("term mm: levels and two-mode networks are supported for one "
                        "attribute only")
    la, lb = _levels(net, row, "mm"), _levels(net, col, "mm")
    ka, kb = len(la), len(lb)
    check_mix_cells("mm", f"{la.name}, {lb.name}", max(ka, kb), ka * kb)
    if net.n * net.n * (ka * kb) > 200_000_000:
        raise TermError("term mm: two attributes on a network this large are not supported "
                        "yet (the cells are held as dense matrices)")
    cells = [(r, c) for c in range(kb) for r in range(ka)]
    cell_labels = [f"mm[{la.name}={la.labels[r]},{lb.name}={lb.labels[c]}]" for r, c in cells]
    chosen = _nonempty("mm", "levels2", levels2,
                       select_cells("mm", levels2, cells, la.labels, lb.labels, cell_labels,
                                    False, la.listing()), la.listing())
    M = [np.zeros((net.n, net.n)) for _ in chosen]
    for s, c in enumerate(chosen):
        r, col_ = cells[c]
        M[s] = np.outer(la.code == r, lb.code == col_).astype(float)
        if not net.directed:
            M[s] = M[s] + M[s].T
    from ._operators import LinearKernel
    return Term("mm", [cell_labels[c] for c in chosen],
                LinearKernel([DenseEdgeCovKernel(m) for m in M]), dyad_independent=True)


def _mm_margin(net, attr, rows, levels, levels2):
    """mm(a ~ .) (``rows``) or mm(. ~ a): tie ends of each level on that side, counted as
    statnet's mixing-matrix margins (undirected: both orientations of each tie, so both
    ends; directed: tails for rows, heads for columns; two-mode: mode-1 / mode-2 nodes)."""
    from ._coreterms import FactorKernel
    if net.bipartite is not None:
        mode = 1 if rows else 2
        lv = _levels(net._mode_view(mode), attr, "mm")
        n1 = net.bipartite
        span = slice(0, n1) if mode == 1 else slice(n1, net.n)
        end = 2 if mode == 1 else 1                 # FactorKernel: tail (2) / head (1) end
    else:
        lv = _levels(net, attr, "mm")
        span, end = slice(0, net.n), (0 if not net.directed else 2 if rows else 1)
    sel = _nonempty("mm", "levels", levels,
                    lv.select("mm", "levels", levels), lv.listing())
    cell_labels = [f"mm[{lv.name}={lv.labels[k]},.]" if rows else f"mm[.,{lv.name}={lv.labels[k]}]"
                   for k in sel]
    chosen = _nonempty("mm", "levels2", levels2,
                       select_levels("mm", "levels2", cell_labels, levels2,
                                     f"it has {len(cell_labels)} margins"), lv.listing())
    stat = np.full(len(lv), -1, dtype=np.intc)
    for s_, c in enumerate(chosen):
        stat[sel[c]] = s_
    code = np.full(net.n, -1, dtype=np.intc)
    code[span] = stat[np.asarray(lv.code)]
    return Term("mm", [cell_labels[c] for c in chosen], FactorKernel(code, len(chosen), end),
                dyad_independent=True)
