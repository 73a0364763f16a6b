"""Adjacency matrices, dense (NumPy) and sparse (SciPy), as networks."""
from __future__ import annotations

import decimal
import math
import numbers

import numpy as np

from ..exceptions import NetworkError
from .network import Network
from ._common import _check_choice, _is_sparse, _need_directed, _scalar, _weights_problem



def _refuse_loops(rows, cols):
    """A clear error for a nonzero diagonal entry (ERGMs here have no self-loops)."""
    loops = np.flatnonzero(rows == cols)
    if len(loops):
        k = int(rows[loops[0]])
        raise NetworkError(f"the adjacency matrix has a nonzero diagonal entry [{k}, {k}] (a "
                           "self-loop); ERGMs here have no loops: set the diagonal to 0")

def _refuse_masked(a, valued=False):
    """A NetworkError for a numpy masked array with masked entries: ``np.asarray`` reads the
    values under the mask, so a masked (unknown) entry would silently become a tie."""
    if not isinstance(a, np.ma.MaskedArray):
        return
    mask = np.ma.getmaskarray(a)
    if mask.ndim != 2 or not mask.any():
        return
    i, j = np.argwhere(mask)[0]
    hint = ("count-valued models take no missing dyads yet: fill them (np.ma.filled(a, 0))"
            if valued else "fill them (np.ma.filled(a, 0)) and pass the unobserved dyads as "
            "missing=np.ma.getmaskarray(a)")
    raise NetworkError(f"the adjacency matrix is a masked array with {int(mask.sum())} masked "
                       f"entr{'y' if mask.sum() == 1 else 'ies'} (the first at [{i}, {j}]); "
                       f"ergmfit does not read masks (the values under them would be read as "
                       f"ties): {hint}")


def from_adjacency(a, directed=None, weights="error") -> Network:
    """A network from a square 0/1 adjacency matrix (numpy or scipy sparse).

    ``a[i, j]`` nonzero means a tie i -> j; nodes are 0..n-1.  Entries must
    be 0/1 (or bool); with ``weights="ignore"`` any finite nonzero entry
    is a tie (with a warning).  The diagonal must be zero.  ``directed``
    is required: an asymmetric matrix with ``directed=False`` is an error,
    a symmetric one with ``directed=True`` is a directed network with
    mutual ties.  The matrix is never modified.
    """
    _check_choice(weights, "weights", ("error", "ignore"))
    directed = _need_directed(directed, "an adjacency matrix")
    _refuse_masked(a)
    if _is_sparse(a):
        return _from_sparse(a, directed, weights)
    arr = np.asarray(a)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise NetworkError(f"an adjacency matrix must be square (n x n), got shape {arr.shape}")
    n = arr.shape[0]
    if n == 0:
        raise NetworkError("the adjacency matrix is empty: the network has no nodes")
    if arr.dtype == bool:
        nz = arr.copy()
    else:
        vals = _numeric_matrix(arr)
        bad = ~np.isfinite(vals)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise NetworkError(f"the adjacency matrix has the non-binary value "
                               f"{_scalar(arr[i, j])!r} at [{i}, {j}]; entries must be 0 or 1")
        nz = vals != 0
        nonbinary = nz & (vals != 1)
        if nonbinary.any():
            i, j = np.argwhere(nonbinary)[0]
            _weights_problem(weights, f"the adjacency matrix has the non-binary value "
                                      f"{_scalar(arr[i, j])!r} at [{i}, {j}]", matrix=True)
    diag = np.flatnonzero(np.diagonal(nz))
    if len(diag):
        k = int(diag[0])
        raise NetworkError(f"the adjacency matrix has a nonzero diagonal entry [{k}, {k}] (a "
                           "self-loop); ERGMs here have no loops: set the diagonal to 0")
    if not directed:
        asym = nz != nz.T
        if asym.any():
            i, j = np.argwhere(asym)[0]
            raise NetworkError(f"the adjacency matrix is not symmetric ([{i}, {j}] is "
                               f"{int(nz[i, j])} but [{j}, {i}] is {int(nz[j, i])}), so it cannot "
                               "be undirected: pass directed=True, or symmetrise it first")
        ties = np.argwhere(np.triu(nz, 1))
    else:
        ties = np.argwhere(nz)
    return Network(n, ties, directed)


def _numeric_matrix(arr):
    kind = arr.dtype.kind
    if kind in "iu":
        return arr
    if kind == "f":
        return arr
    if kind == "O":
        out = np.empty(arr.shape, dtype=float)
        for idx, v in np.ndenumerate(arr):
            if isinstance(v, (bool, np.bool_)):
                out[idx] = float(v)
                continue
            if not isinstance(v, numbers.Real):
                raise NetworkError(f"the adjacency matrix has the non-numeric value {v!r} at "
                                   f"[{idx[0]}, {idx[1]}]; entries must be 0 or 1")
            try:
                out[idx] = float(v)
            except OverflowError:
                raise NetworkError(f"the adjacency matrix has the non-binary value {v!r} at "
                                   f"[{idx[0]}, {idx[1]}]; entries must be 0 or 1") from None
        return out
    raise NetworkError(f"an adjacency matrix must hold numbers (0/1) or booleans, got dtype "
                       f"{arr.dtype}")


def _from_sparse(a, directed, weights):
    shape = a.shape
    if len(shape) != 2 or shape[0] != shape[1]:
        raise NetworkError(f"an adjacency matrix must be square (n x n), got shape {shape}")
    n = int(shape[0])
    if n == 0:
        raise NetworkError("the adjacency matrix is empty: the network has no nodes")
    coo = a.tocoo(copy=True)
    coo.sum_duplicates()
    data = np.asarray(coo.data)
    rows = np.asarray(coo.row, dtype=np.int64)
    cols = np.asarray(coo.col, dtype=np.int64)
    if data.dtype != bool:
        vals = _numeric_matrix(data.reshape(1, -1)).ravel() if data.size else data.astype(float)
        bad = ~np.isfinite(vals)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise NetworkError(f"the adjacency matrix has the non-binary value "
                               f"{_scalar(data[k])!r} at [{rows[k]}, {cols[k]}]; entries must "
                               "be 0 or 1")
        nonbinary = (vals != 0) & (vals != 1)
        if nonbinary.any():
            k = int(np.flatnonzero(nonbinary)[0])
            _weights_problem(weights, f"the adjacency matrix has the non-binary value "
                                      f"{_scalar(data[k])!r} at [{rows[k]}, {cols[k]}]",
                             matrix=True)
        keep = vals != 0
    else:
        keep = data
    rows, cols = rows[keep], cols[keep]
    _refuse_loops(rows, cols)
    if not directed:
        fwd = rows * n + cols
        rev = cols * n + rows
        missing = ~np.isin(rev, fwd)
        if missing.any():
            k = int(np.flatnonzero(missing)[0])
            i, j = int(rows[k]), int(cols[k])
            raise NetworkError(f"the adjacency matrix is not symmetric ([{i}, {j}] is 1 but "
                               f"[{j}, {i}] is 0), so it cannot be undirected: pass "
                               "directed=True, or symmetrise it first")
        up = rows < cols
        rows, cols = rows[up], cols[up]
    order = np.lexsort((cols, rows))
    ties = np.stack([rows[order], cols[order]], axis=1)
    return Network(n, ties, directed)


def is_matrix(data) -> bool:
    """Is ``data`` an adjacency matrix (a numpy array, a nested list of rows, or scipy
    sparse) rather than another network input?"""
    if hasattr(data, "tocoo") and hasattr(data, "shape"):
        return True
    return isinstance(data, np.ndarray)


def valued_adjacency(a, directed, response):
    """A :class:`~ergmfit.network.Network` from a weighted adjacency matrix (numpy or scipy
    sparse): a tie for each nonzero entry a[i, j] (i -> j), its value the edge attribute
    ``response``.  ``directed`` is required; an undirected network needs a symmetric
    matrix.  A NetworkError names a non-numeric or infinite/NaN entry, a nonzero diagonal
    or an asymmetric entry; the count checks (integers, support) are the reference's.  The
    matrix is not modified.

    >>> net = valued_adjacency(np.array([[0, 2], [0, 0]]), True, "w")
    >>> net.ties.tolist(), net.edge_attrs["w"]
    ([[0, 1]], [2])
    """
    directed = _need_directed(directed, "an adjacency matrix")
    _refuse_masked(a, valued=True)
    if hasattr(a, "tocoo"):
        coo = a.tocoo(copy=True)
        coo.sum_duplicates()
        rows, cols, data = (np.asarray(coo.row, np.int64), np.asarray(coo.col, np.int64),
                            np.asarray(coo.data))
        shape = a.shape
    else:
        arr = np.asarray(a)
        shape = arr.shape
        if arr.ndim != 2:
            raise NetworkError(f"an adjacency matrix must be square (n x n), got shape {shape}")
        rows, cols = np.nonzero(arr)
        data = arr[rows, cols]
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] == 0:
        raise NetworkError(f"an adjacency matrix must be square (n x n) with at least one "
                           f"node, got shape {tuple(shape)}")
    n = int(shape[0])
    values = []
    for k, v in enumerate(data.tolist()):
        if isinstance(v, decimal.Decimal) and v.is_finite() and v == v.to_integral_value():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise NetworkError(f"the adjacency matrix has the value {v!r} ({type(v).__name__}) "
                               f"at [{rows[k]}, {cols[k]}]: a valued network needs int or float "
                               "values; convert the matrix first (e.g. .astype(float))")
        if not (isinstance(v, numbers.Integral) or math.isfinite(v)):
            raise NetworkError(f"the adjacency matrix has the value {v!r} at [{rows[k]}, "
                               f"{cols[k]}]: a valued network needs finite numbers")
        values.append(v)
    keep = np.array([v != 0 for v in values], dtype=bool)
    rows, cols = rows[keep], cols[keep]
    values = [v for v, kp in zip(values, keep) if kp]
    _refuse_loops(rows, cols)
    if not directed:
        at = {(int(i), int(j)): v for i, j, v in zip(rows, cols, values)}
        for (i, j), v in at.items():
            if at.get((j, i), 0) != v:
                raise NetworkError(f"the adjacency matrix is not symmetric ([{i}, {j}] is {v!r} "
                                   f"but [{j}, {i}] is {at.get((j, i), 0)!r}), so it cannot be "
                                   "undirected: pass directed=True, or symmetrise it first")
        up = rows < cols
        rows, cols = rows[up], cols[up]
        values = [v for v, u in zip(values, up) if u]
    ties = np.stack([rows, cols], axis=1).astype(np.int64).reshape(-1, 2)
    return Network(n, ties, directed, edge_attrs={response: [_plain(v) for v in values]})


def _plain(v):
    if isinstance(v, numbers.Integral):
        return int(v)
    return float(v)
