"""Arrays labelled by the model's statistics: :class:`LabeledArray`.

>>> a = LabeledArray([1.5, -0.25], ["edges", "triangle"])
>>> a["triangle"]
np.float64(-0.25)
>>> a.to_dict()
{'edges': 1.5, 'triangle': -0.25}
"""
from __future__ import annotations

from collections.abc import Mapping

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


class LabeledArray(np.lib.mixins.NDArrayOperatorsMixin):
    """A float array whose first axis is labelled by the statistics.

    Behaves as a NumPy array (arithmetic, ufuncs such as ``np.exp``, NumPy functions,
    positional indexing and slicing, ``.shape``, ``.sum()``, ...; ``np.asarray(a)`` is the
    plain array, without a copy); in addition ``a["edges"]`` selects by label,
    ``a.labels`` lists them and ``a.to_dict()`` gives ``{label: value}``.
    A two-dimensional one (``conf_int()``) also names its columns
    (``a.columns``); a one-dimensional one may have a :attr:`name` (``fit.params``:
    ``"coef"``, ``fit.bse``: ``"stderr"``), the name of its pandas Series or column.

    pandas reads the labels without help: ``pd.Series(fit.params)`` is indexed by them.
    pandas' constructors read any ``numpy.ndarray`` (subclasses included) by position and
    look for labels only in a Series, an Index or a mapping, so a LabeledArray is not an
    ``ndarray`` subclass but wraps one, and is registered as a
    :class:`collections.abc.Mapping` (``keys()``, ``values()``, ``items()``, ``get()``; its
    iteration and ``in`` stay NumPy's: values) -- the design and its alternatives are in
    docs/guide/python.md.  ``a.to_series()`` and ``a.to_frame()`` give the named pandas
    objects.

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

    __hash__ = None                   # as an ndarray: mutable, compared element-wise
    __array_priority__ = 20

    def __init__(self, values, labels, columns=None, name=None):
        arr = np.asarray(values, dtype=float)
        labels = [str(lab) for lab in labels]
        if arr.ndim == 0 or arr.shape[0] != len(labels):
            raise ValueError(f"{len(labels)} labels for an array of shape {arr.shape}")
        if columns is not None:
            columns = [str(c) for c in columns]
            if arr.ndim != 2 or arr.shape[1] != len(columns):
                raise ValueError(f"{len(columns)} column names for an array of shape {arr.shape}")
        self._array, self.labels, self.columns = arr, labels, columns
        self.name = None if name is None else str(name)

    # -- NumPy's protocols ------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        if copy:
            return np.array(self._array, dtype=dtype, copy=True)
        return self._array if dtype is None else self._array.astype(dtype, copy=False)

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        inputs = tuple(_plain(x) for x in inputs)
        if out is not None:
            kwargs["out"] = tuple(_plain(x) for x in out)
        result = getattr(ufunc, method)(*inputs, **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        if isinstance(result, tuple):
            return tuple(self._derived(r) for r in result)
        return self._derived(result)

    def __array_function__(self, func, types, args, kwargs):
        return self._derived(func(*_plain_tree(args), **_plain_tree(kwargs)))

    def _derived(self, result, labels=None):
        """``result`` of an operation on this array: labelled as this one while its first axis
        is this one's (a derived array has no :attr:`name`), a plain array otherwise, a
        scalar for a 0-d result."""
        if not isinstance(result, np.ndarray):
            return result
        if result.ndim == 0:
            return result[()]
        labels = self.labels if labels is None else labels
        if labels is None or result.shape[0] != len(labels) or result.dtype.kind not in "fc":
            return result
        columns = self.columns if (self.columns is not None and result.ndim == 2
                                   and result.shape[1] == len(self.columns)) else None
        return LabeledArray(result, labels, columns=columns) if result.dtype.kind == "f" \
            else result

    def __getattr__(self, name):
        # the ndarray's attributes and methods (shape, dtype, T, sum, round, copy, tolist, ...)
        if name.startswith("__") or name in ("_array", "labels", "columns", "name"):
            raise AttributeError(name)
        attr = getattr(self._array, name)
        if name == "view":               # a.view(np.ndarray): the plain array, as NumPy's
            return attr
        if callable(attr):
            def method(*args, **kwargs):
                return self._derived(attr(*_plain_tree(args), **_plain_tree(kwargs)))
            method.__name__ = name
            method.__doc__ = attr.__doc__
            return method
        return self._derived(attr) if isinstance(attr, np.ndarray) else attr

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(dir(self._array)))

    def __len__(self):
        return len(self._array)

    def __iter__(self):
        return iter(self._array)

    def __contains__(self, value):
        return value in self._array

    def __bool__(self):
        # a mapping's truth (pandas' Series(mapping) asks it): not empty
        return len(self._array) > 0

    def __copy__(self):
        return LabeledArray(self._array.copy(), self.labels, self.columns, self.name)

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __getstate__(self):
        return {"array": self._array, "labels": self.labels, "columns": self.columns,
                "name": self.name}

    def __setstate__(self, state):
        self._array, self.labels = state["array"], state["labels"]
        self.columns, self.name = state["columns"], state["name"]

    # -- the mapping pandas reads -------------------------------------------------
    def keys(self) -> list:
        """The labels (a mapping's keys)."""
        if self.labels is None:
            raise ValueError("this array has no labels")
        return list(self.labels)

    def values(self) -> list:
        """The values in label order (a mapping's values): floats, or a 2-D array's rows."""
        return [v.item() if np.ndim(v) == 0 else v for v in self._array]

    def items(self) -> list:
        return list(zip(self.keys(), self.values()))

    def get(self, key, default=None):
        try:
            return self[key]
        except (KeyError, IndexError):
            return default

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
            return self._array[self._index(key)]
        if isinstance(key, list) and key and all(isinstance(k, str) for k in key):
            return self._array[[self._index(k) for k in key]]
        key = _plain_tree(key)
        result = self._array[key]
        if self.labels is not None and isinstance(result, np.ndarray) and result.ndim >= 1 \
                and not isinstance(key, tuple):
            try:
                labels = np.asarray(self.labels, dtype=object)[key]
            except (IndexError, TypeError, ValueError):
                return result
            if np.ndim(labels) == 1 and len(labels) == result.shape[0]:
                return self._derived(result, labels=[str(lab) for lab in labels])
        return result

    def __setitem__(self, key, value):
        if isinstance(key, str):
            key = self._index(key)
        self._array[_plain_tree(key)] = _plain_tree(value)

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


Mapping.register(LabeledArray)


def _plain(x):
    return x._array if isinstance(x, LabeledArray) else x


def _plain_tree(x):
    """``x`` with every LabeledArray in it (in lists, tuples, dicts) replaced by its array."""
    if isinstance(x, LabeledArray):
        return x._array
    if type(x) in (list, tuple):
        return type(x)(_plain_tree(v) for v in x)
    if isinstance(x, dict):
        return {k: _plain_tree(v) for k, v in x.items()}
    return x


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
