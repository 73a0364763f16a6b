"""Arrays labelled by the model's statistics: :class:`LabeledArray`.

>>> a = LabeledArray([1.5, -0.25], ["edges", "triangle"])
>>> a["triangle"]
np.float64(-0.25)
>>> a.to_dict()
{'edges': 1.5, 'triangle': -0.25}
"""
from __future__ import annotations

import numpy as np


def make_unique(labels) -> list:
    """``labels`` with repeats made unique in R's ``make.unique`` scheme: the second and
    later copies of a label get ``.1``, ``.2``, ... (skipping names already in ``labels``).
    statnet allows a label to repeat (``summary()`` prints it twice); a dict cannot hold
    both."""
    labels = [str(lab) for lab in labels]
    taken, out, count = set(labels), [], {}
    for lab in labels:
        if lab not in count:
            count[lab] = 0
            out.append(lab)
            continue
        while True:
            count[lab] += 1
            cand = f"{lab}.{count[lab]}"
            if cand not in taken:
                break
        taken.add(cand)
        out.append(cand)
    return out


class LabeledArray(np.ndarray):
    """A float array whose first axis is labelled by the statistics.

    Behaves as a NumPy array; in addition ``a["edges"]`` selects by label,
    ``a.labels`` lists them and ``a.to_dict()`` gives ``{label: value}``.
    A two-dimensional one (``conf_int()``) also names its columns
    (``a.columns``); a one-dimensional one may have a :attr:`name` (``fit.params``:
    ``"coef"``, ``fit.bse``: ``"stderr"``), the name of its pandas Series or column.
    ``a.to_series()`` and ``a.to_frame()`` give the labelled pandas objects (so does
    ``pd.Series(a.to_dict())``); ``pd.Series(a)`` numbers its rows, as pandas reads
    any NumPy array (this is one) by position.

    Attributes
    ----------
    labels : list of str or None
        The labels of the first axis (None once an operation changed that axis).
    columns : list of str or None
        The column names of a two-dimensional array.
    name : str or None
        The name of a one-dimensional array (its pandas Series' name); None for
        an array derived from it by arithmetic.
    """

    def __new__(cls, values, labels, columns=None, name=None):
        obj = np.asarray(values, dtype=float).view(cls)
        labels = [str(lab) for lab in labels]
        if obj.ndim == 0 or obj.shape[0] != len(labels):
            raise ValueError(f"{len(labels)} labels for an array of shape {obj.shape}")
        obj.labels = labels
        if columns is not None:
            columns = [str(c) for c in columns]
            if obj.ndim != 2 or obj.shape[1] != len(columns):
                raise ValueError(f"{len(columns)} column names for an array of shape {obj.shape}")
        obj.columns = columns
        obj.name = None if name is None else str(name)
        return obj

    def __array_finalize__(self, obj):
        # a derived array (arithmetic, a copy) is no longer what the name says
        self.name = None
        labels = getattr(obj, "labels", None)
        if labels is not None and self.ndim >= 1 and self.shape[0] == len(labels):
            self.labels = labels
        else:
            self.labels = None
        columns = getattr(obj, "columns", None)
        if columns is not None and self.ndim == 2 and self.shape[1] == len(columns):
            self.columns = columns
        else:
            self.columns = None

    def __array_wrap__(self, arr, *args, **kwargs):
        out = super().__array_wrap__(arr, *args, **kwargs)
        if isinstance(out, np.ndarray) and out.ndim == 0:
            return out[()]
        return out

    def _index(self, key):
        if self.labels is None:
            raise KeyError(key)
        try:
            k = self.labels.index(key)
        except ValueError:
            raise KeyError(f"{key!r} is not a label; labels are {self.labels}") from None
        if key in self.labels[k + 1:]:
            raise KeyError(f"the label {key!r} repeats (positions "
                           f"{[i for i, lab in enumerate(self.labels) if lab == key]}); "
                           f"select by position")
        return k

    def __getitem__(self, key):
        if isinstance(key, str):
            return np.asarray(self)[self._index(key)]
        if isinstance(key, list) and key and all(isinstance(k, str) for k in key):
            return np.asarray(self)[[self._index(k) for k in key]]
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        if isinstance(key, str):
            key = self._index(key)
        super().__setitem__(key, value)

    def to_dict(self) -> dict:
        if self.labels is None:
            raise ValueError("this array has no labels")
        arr = np.asarray(self)
        keys = make_unique(self.labels)        # a repeated label: .1, .2 (R's make.unique)
        if arr.ndim == 1:
            return {lab: float(v) for lab, v in zip(keys, arr)}
        return {lab: arr[k].tolist() for k, lab in enumerate(keys)}

    def to_series(self, name=None):
        """A pandas Series indexed by the labels, named ``name`` (default: the
        array's :attr:`name`, e.g. ``"coef"`` for ``fit.params``); pandas must be
        installed.

        >>> LabeledArray([1.5, -0.25], ["edges", "triangle"], name="coef").to_series()
        edges       1.50
        triangle   -0.25
        Name: coef, dtype: float64
        """
        pd = require_pandas("LabeledArray.to_series()")
        if self.ndim != 1 or self.labels is None:
            raise ValueError("to_series() needs a labelled one-dimensional array")
        return pd.Series(np.asarray(self), index=list(self.labels),
                         name=self.name if name is None else name)

    def to_frame(self, name=None):
        """A pandas DataFrame indexed by the labels: the column names of a table
        (``conf_int()``), or for a one-dimensional array one column named ``name``
        (default: the array's :attr:`name`, e.g. ``"coef"``; else ``"value"``).

        >>> LabeledArray([1.5, -0.25], ["edges", "triangle"], name="coef").to_frame()
                  coef
        edges     1.50
        triangle -0.25
        """
        pd = require_pandas("LabeledArray.to_frame()")
        if self.labels is None:
            raise ValueError("to_frame() needs a labelled array")
        arr = np.asarray(self)
        columns = self.columns
        if self.ndim == 1:
            columns = [name if name is not None else self.name if self.name else "value"]
        return pd.DataFrame(arr.reshape(len(self.labels), -1), index=list(self.labels),
                            columns=columns)

    def _rows(self):
        arr = np.asarray(self)
        w = max((len(lab) for lab in self.labels), default=0)
        if self.ndim == 1:
            return [f"{lab:<{w}}  {v: .6g}" for lab, v in zip(self.labels, arr)]
        cells = [[f"{v: .6g}" for v in row] for row in arr]
        heads = self.columns or [str(k) for k in range(arr.shape[1])]
        cw = [max([len(h)] + [len(r[k]) for r in cells]) for k, h in enumerate(heads)]
        out = [" " * w + "".join("  " + h.rjust(c) for h, c in zip(heads, cw))]
        out += [lab.ljust(w) + "".join("  " + v.rjust(c) for v, c in zip(r, cw))
                for lab, r in zip(self.labels, cells)]
        return out

    def __repr__(self):
        if self.labels is None or self.ndim not in (1, 2):
            return np.asarray(self).__repr__()
        return "\n".join(self._rows())

    def __str__(self):
        if self.labels is None or self.ndim not in (1, 2):
            return np.asarray(self).__str__()
        return "\n".join(self._rows())

    def _repr_html_(self):
        if self.labels is None or self.ndim not in (1, 2):
            return None
        import html
        return f"<pre>{html.escape(repr(self))}</pre>"


def require_pandas(what):
    """The ``pandas`` module, or an ImportError saying that ``what`` needs it."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(f"{what} needs pandas (pip install pandas, or "
                          f"pip install 'ergmfit[pandas]')") from None
    return pd


class LazyPandas:
    """``pandas`` for a module that needs it only when used: pandas is an optional dependency,
    so ``import ergmfit`` must not import it. Attribute access imports pandas, or raises the
    ImportError of :func:`require_pandas` naming ``what``.

    Examples
    --------
    >>> pd = LazyPandas("this example")
    >>> pd.Series([1, 2]).sum()
    np.int64(3)
    """

    def __init__(self, what):
        self._what = what

    def __getattr__(self, name):
        return getattr(require_pandas(self._what), name)
