"""Tie lists as compressed rows: each node's neighbours in one array, found by offsets."""
import numpy as np


def neighbour_rows(n, tails, heads, dtype=np.int64):
    """The heads of each tail as compressed rows: ``(indptr, indices)``, ``indptr`` int64 of
    ``n + 1`` offsets and ``indices[indptr[v]:indptr[v + 1]]`` the heads of the ties with tail
    ``v``, in the order of the input (a stable sort by tail).

    Parameters
    ----------
    n : int
        Number of nodes; every tail lies in ``0..n-1``.
    tails, heads : array_like of int
        The ties' two ends, equally long.
    dtype : numpy dtype
        Of ``indices`` (int32 halves the memory of a large network's rows).

    Examples
    --------
    >>> indptr, indices = neighbour_rows(3, [2, 0, 2], [0, 1, 1])
    >>> indptr.tolist(), indices.tolist()
    ([0, 1, 1, 3], [1, 0, 1])
    """
    tails = np.asarray(tails)
    order = np.argsort(tails, kind="stable")
    indices = np.asarray(heads)[order].astype(dtype)
    del order
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(tails, minlength=n), out=indptr[1:])
    return indptr, indices
