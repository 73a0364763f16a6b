"""Set operations on 1-D arrays of integers (dyad variables, node indices), by sorting.

numpy 2.3 and later find the distinct values of ``np.unique`` without ``return_*`` flags with
a hash table, and so do ``np.intersect1d``, ``np.setdiff1d`` and ``np.union1d`` without
``assume_unique``. On millions of distinct integers, such as a constraint's free dyads, that
is about a hundred times slower than sorting: 4.1 CPU s for 4 x 10^6 distinct int64 values
against 0.03 s (numpy 2.4.6). A ``blockdiag`` space of 4 x 10^6 free dyads spent 4.7 of its
5.5 s there; ``np.isin`` (its sort kind) finds the distinct values of its second array
the same way. These functions give numpy's results (sorted, distinct) by sorting.

Examples
--------
>>> import numpy as np
>>> unique_sorted(np.array([5, 1, 5, 3])).tolist()
[1, 3, 5]
>>> intersect_sorted([4, 2, 2, 9], [9, 4, 7]).tolist()
[4, 9]
>>> setdiff_sorted([4, 2, 2, 9], [9]).tolist()
[2, 4]
>>> has_duplicates([3, 1, 3]), has_duplicates([3, 1])
(True, False)
>>> in_sorted([4, 5, 9], np.array([2, 4, 9])).tolist()
[True, False, True]
>>> inverse, counts = unique_rows_inverse(np.array([[1.0, 2.0], [0.5, 9.0], [1.0, 2.0]]))
>>> inverse.tolist(), counts.tolist()
([1, 0, 1], [1, 2])
"""
import numpy as np

__all__ = ["unique_sorted", "intersect_sorted", "setdiff_sorted", "has_duplicates", "in_sorted",
           "unique_rows_inverse"]


def unique_sorted(values) -> np.ndarray:
    """The distinct values of ``values`` (flattened), ascending: ``np.unique(values)``.

    Parameters
    ----------
    values : array-like
        Integers (or any values numpy sorts; NaNs are not merged).

    Returns
    -------
    ndarray
        A new array, sorted, each value once.
    """
    s = np.sort(np.asarray(values).ravel())
    if len(s) < 2:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def intersect_sorted(a, b) -> np.ndarray:
    """The values in both ``a`` and ``b``, sorted, each once: ``np.intersect1d(a, b)``."""
    return np.intersect1d(unique_sorted(a), unique_sorted(b), assume_unique=True)


def setdiff_sorted(a, b) -> np.ndarray:
    """The values of ``a`` not in ``b``, sorted, each once: ``np.setdiff1d(a, b)``."""
    return np.setdiff1d(unique_sorted(a), unique_sorted(b), assume_unique=True)


def has_duplicates(values) -> bool:
    """True if some value occurs twice in ``values``: ``len(np.unique(v)) != v.size``."""
    s = np.sort(np.asarray(values).ravel())
    return bool(len(s) > 1 and (s[1:] == s[:-1]).any())


def in_sorted(values, sorted_set) -> np.ndarray:
    """For each of ``values``, whether it is in ``sorted_set`` (ascending, distinct):
    ``np.isin(values, sorted_set)`` by binary search, without numpy's distinct-value pass
    over ``sorted_set`` or a table over its range.

    A binary search costs about 0.1 microseconds a value even in a set of a few thousand
    (1.6 s for 1.6 x 10^7 values): integer values are first screened by their low bits
    against a bit table of the set's (a gather from at most 4 MB), and only those that pass
    are searched (0.5 s for the same).
    """
    values = np.asarray(values)
    sorted_set = np.asarray(sorted_set)
    if len(sorted_set) == 0:
        return np.zeros(values.shape, dtype=bool)
    if values.dtype.kind not in "iu" or sorted_set.dtype.kind not in "iu" or values.size < 4096:
        idx = np.searchsorted(sorted_set, values)
        idx[idx == len(sorted_set)] = 0
        return sorted_set[idx] == values
    bits = 1 << max(10, min(22, int(len(sorted_set)).bit_length() + 4))
    screen = np.zeros(bits, dtype=bool)
    screen[sorted_set & (bits - 1)] = True
    flat = values.ravel()
    cand = np.flatnonzero(screen[flat & (bits - 1)])
    v = flat[cand]
    idx = np.searchsorted(sorted_set, v)
    idx[idx == len(sorted_set)] = 0
    out = np.zeros(values.shape, dtype=bool)
    out.ravel()[cand[sorted_set[idx] == v]] = True
    return out


def unique_rows_inverse(rows):
    """``(inverse, counts)`` of the distinct rows of a 2-D array, the distinct rows numbered
    in lexicographic order: ``np.unique(rows, axis=0, return_inverse=True,
    return_counts=True)[1:]``, found one column at a time (each column's values ranked, the
    ranks combined into one integer key per row) instead of numpy's sort of the rows as
    records (7.5 CPU s for 2 x 10^6 rows of 12 floats).

    Parameters
    ----------
    rows : array-like
        A 2-D array of numbers (without NaN).

    Returns
    -------
    inverse : ndarray
        For each row, the number of its distinct row.
    counts : ndarray
        How many rows each distinct row stands for.
    """
    rows = np.asarray(rows)
    if rows.ndim != 2:
        raise ValueError("unique_rows_inverse needs a 2-D array")
    key = np.zeros(rows.shape[0], dtype=np.int64)
    card = 1
    for c in range(rows.shape[1]):
        col = rows[:, c]
        if len(col) == 0 or col.min() == col.max():
            continue                           # one value: no order between the rows
        values, code = np.unique(col, return_inverse=True)
        if card * len(values) >= 2 ** 62:
            # rank the key so far (its order kept) before it overflows
            _, key = np.unique(key, return_inverse=True)
            card = int(key.max()) + 1
        key = key * len(values) + code.ravel()
        card *= len(values)
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return inverse.ravel(), counts
