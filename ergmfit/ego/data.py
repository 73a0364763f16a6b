"""Egocentric data in egor's layout: egos, their alters, and the ties among the alters.

An egocentric sample records, for each sampled person (the *ego*), the ego's own attributes,
one row per tie to a named contact (the *alter*) with the alter's attributes, and optionally
which of an ego's alters are tied to each other.  This is the layout of R's egor package
(``egor(alters, egos, aaties)``), which ergm.ego reads.
"""
from __future__ import annotations


import numpy as np

from ..exceptions import DataFormatError
from ..labeled import LazyPandas
from ..network.tables import read_table
from ..utils.validation import checks_arguments

pd = LazyPandas("egocentric data (EgoData)")

__all__ = ["EgoData"]


def _node_indices(egos, n):
    """``egos`` as distinct 0-based node indices below ``n`` (a DataFormatError otherwise)."""
    values = list(np.ravel(np.asarray(egos, dtype=object)))
    bad = [v for v in values if isinstance(v, (bool, np.bool_))
           or not isinstance(v, (int, np.integer)) or not 0 <= v < n]
    if bad:
        raise DataFormatError(f"egos: {bad[0]!r:.40} is not a node index (0-based, below {n})")
    chosen = np.asarray(values, dtype=np.int64)
    if len(np.unique(chosen)) != len(chosen):
        raise DataFormatError("egos: a node is listed twice")
    return chosen


def _need(frame, column, what, hint="; name the id column with ego_id= / alter_id="):
    if column not in frame.columns:
        raise DataFormatError(f"{what} has no column {column!r} (its columns: "
                              f"{', '.join(map(str, frame.columns))}){hint}")


def _unknown_ids(unknown, ids):
    """`` (ids 9, 12)``: the first five ids of ``unknown`` (a column) as Python values, and,
    where the two columns hold ids of different types (text '1' against the number 1), that."""
    bad = ", ".join(map(repr, pd.unique(unknown)[:5].tolist()))
    a, b = unknown.iloc[0], ids.iloc[0]
    if isinstance(a, str) != isinstance(b, str):
        return (f" (ids {bad}; they are {'text' if isinstance(a, str) else 'numbers'}, the egos' "
                f"ids {'text' if isinstance(b, str) else 'numbers'}, e.g. {b!r}: use one type)")
    return f" (ids {bad})"


class EgoData:
    """An egocentric sample (egor's layout).

    Parameters
    ----------
    egos : pandas.DataFrame or path of a CSV file
        One row per ego: its id (column ``ego_id``), its attributes and optionally its
        sampling weight (column ``weights``) and stratum (column ``strata``).
    alters : pandas.DataFrame or path of a CSV file
        One row per ego–alter tie: the ego's id (column ``ego_id``), optionally the alter's
        id (column ``alter_id``) and the alter's attributes.
    alter_ties : pandas.DataFrame or path of a CSV file, optional
        Ties among the alters of one ego: the ego's id and the two alters' ids (columns
        ``ego_id``, ``source``, ``target``; undirected, listed once or both ways).  Needed by the
        shared-partner terms (``esp``, ``gwesp``).
    ego_id : str
        Name of the ego id column in all three tables (egor's ``.egoID``; default
        ``"egoID"``).
    alter_id : str
        Name of the alter id column of ``alters`` (default ``"alterID"``).
    source, target : str
        The two alter id columns of ``alter_ties`` (default ``"srcID"``, ``"tgtID"``).
    weights : str, array-like or None
        Sampling weights: a column of ``egos`` or one number per ego (non-negative, finite,
        not all zero).  None: every ego weighs 1.
    strata : str, array-like or None
        Sampling strata (a column of ``egos`` or one label per ego) for the survey variance.

    Examples
    --------
    >>> import pandas as pd, ergmfit as ef
    >>> egos = pd.DataFrame({"egoID": [1, 2, 3], "sex": ["F", "M", "F"]})
    >>> alters = pd.DataFrame({"egoID": [1, 1, 2], "sex": ["M", "F", "F"]})
    >>> ego = ef.EgoData(egos, alters)
    >>> ego.n_egos, ego.degrees.tolist()
    (3, [2, 1, 0])
    """

    @checks_arguments
    def __init__(self, egos, alters, alter_ties=None, ego_id="egoID", alter_id="alterID",
                 source="srcID", target="tgtID", weights=None, strata=None):
        self.egos = read_table(egos, "egos")
        if len(self.egos) == 0:
            raise DataFormatError("egos: the table has no rows (no egos to describe)")
        self.alters = read_table(alters, "alters")
        self.alter_ties = None if alter_ties is None else read_table(alter_ties, "alter_ties")
        self.ego_id = ego_id
        _need(self.egos, ego_id, "egos")
        _need(self.alters, ego_id, "alters")
        ids = self.egos[ego_id]
        if ids.isna().any():
            raise DataFormatError(f"egos: {int(ids.isna().sum())} egos have no id "
                                  f"(column {ego_id!r})")
        if ids.duplicated().any():
            dup = ids[ids.duplicated()].iloc[0]
            raise DataFormatError(f"egos: ego id {dup!r} appears more than once "
                                  f"(column {ego_id!r})")
        position = pd.Series(np.arange(len(ids)), index=pd.Index(ids))
        unknown = ~self.alters[ego_id].isin(ids)
        if unknown.any():
            raise DataFormatError(f"alters: {int(unknown.sum())} rows name egos that are not "
                                  f"in egos" + _unknown_ids(self.alters[ego_id][unknown], ids))
        #: for each alter row, the position of its ego in ``egos``
        self.alter_ego = position.loc[self.alters[ego_id].values].to_numpy(np.int64)
        self.n_egos = len(ids)
        #: each ego's number of alters (its degree)
        self.degrees = np.bincount(self.alter_ego, minlength=self.n_egos).astype(np.int64)
        self.weights = self._weights(weights)
        self.strata = self._strata(strata)
        self.alter_id = alter_id
        self.shared_partners = None   # per alter row: alters of the same ego tied to it
        if self.alter_ties is not None:
            self.shared_partners = self._shared_partners(source, target)

    # ------------------------------------------------------------------ design
    def _per_ego(self, value, what):
        if isinstance(value, str):
            _need(self.egos, value, "egos", f"; {what}= names a column of egos or gives one "
                                            "value per ego")
            return self.egos[value].to_numpy()
        arr = np.asarray(value)
        if arr.shape != (self.n_egos,):
            raise DataFormatError(f"{what} must be a column name of egos or one value per "
                                  f"ego ({self.n_egos}), not shape {arr.shape}")
        return arr

    def _weights(self, weights):
        if weights is None:
            return np.ones(self.n_egos)
        w = self._per_ego(weights, "weights")
        try:
            w = w.astype(float)
        except (TypeError, ValueError):
            raise DataFormatError("weights must be numbers") from None
        if not np.all(np.isfinite(w)):
            raise DataFormatError(f"weights: {int((~np.isfinite(w)).sum())} are missing or "
                                  f"infinite (NaN/Inf); every ego needs a finite weight")
        if np.any(w < 0):
            raise DataFormatError(f"weights: {int((w < 0).sum())} are negative; sampling "
                                  f"weights are >= 0")
        if not np.any(w > 0):
            raise DataFormatError("weights are all zero: no ego counts")
        with np.errstate(over="ignore"):
            if not np.isfinite(w.sum()):
                raise DataFormatError("weights: their sum overflows floating point; rescale "
                                      "them (only their ratios matter)")
        return w

    def _strata(self, strata):
        if strata is None:
            return None
        s = pd.Series(self._per_ego(strata, "strata"))
        if s.isna().any():
            raise DataFormatError(f"strata: {int(s.isna().sum())} egos have no stratum")
        return pd.factorize(s)[0]

    def _shared_partners(self, source, target):
        at = self.alter_ties
        for col in (self.ego_id, source, target):
            _need(at, col, "alter_ties")
        _need(self.alters, self.alter_id, "alters (alter_ties name alters by id)")
        unknown = ~at[self.ego_id].isin(self.egos[self.ego_id])
        if unknown.any():
            raise DataFormatError(f"alter_ties: {int(unknown.sum())} rows name egos that are "
                                  f"not in egos" + _unknown_ids(at[self.ego_id][unknown],
                                                                self.egos[self.ego_id]))
        key = pd.MultiIndex.from_arrays([self.alters[self.ego_id], self.alters[self.alter_id]])
        if key.duplicated().any():
            raise DataFormatError("alters: an alter id appears twice for the same ego")
        rows = pd.Series(np.arange(len(key)), index=key)
        # undirected: a tie listed both ways (as egor does) counts once
        try:
            first = at[source].values <= at[target].values
        except TypeError:
            raise DataFormatError(f"alter_ties: the alter ids in columns {source!r} and "
                                  f"{target!r} mix types (e.g. text and numbers); use one type, "
                                  f"that of the alters' {self.alter_id!r}") from None
        lo = np.where(first, at[source].values, at[target].values)
        hi = np.where(first, at[target].values, at[source].values)
        at = pd.DataFrame({self.ego_id: at[self.ego_id].values, source: lo, target: hi})
        if (at[source] == at[target]).any():
            raise DataFormatError("alter_ties: a tie joins an alter to itself")
        at = at.drop_duplicates()
        sp = np.zeros(len(key), dtype=np.int64)
        for end in (source, target):
            k = pd.MultiIndex.from_arrays([at[self.ego_id], at[end]])
            missing = ~k.isin(key)
            if missing.any():
                bad = list(k[missing][:3])
                raise DataFormatError(f"alter_ties: {int(missing.sum())} ties name an alter "
                                      f"that is not among that ego's alters (ego, alter): "
                                      f"{bad}")
            sp += np.bincount(rows.loc[k].to_numpy(), minlength=len(key))
        return sp

    # ------------------------------------------------------------------ attributes
    def ego_attribute(self, name):
        """The egos' values of attribute ``name`` (one per ego)."""
        if name not in self.egos.columns:
            raise DataFormatError(f"egos have no attribute {name!r} (columns: "
                                  f"{', '.join(map(str, self.egos.columns))})")
        return self.egos[name].to_numpy()

    def alter_attribute(self, name):
        """The alters' values of attribute ``name`` (one per alter row)."""
        if name not in self.alters.columns:
            raise DataFormatError(f"alters have no attribute {name!r}, which the formula "
                                  f"uses (alter columns: "
                                  f"{', '.join(map(str, self.alters.columns))})")
        return self.alters[name].to_numpy()

    @classmethod
    @checks_arguments
    def from_network(cls, network, egos=None):
        """The egocentric view of a whole undirected network (egor's ``as.egor(network)``).

        Every node is an ego (or those in ``egos``, 0-based node indices: a sample); its
        alters are its neighbours, with their attributes, and the alter–alter ties are the
        network's ties among them.  Node ids are 1-based, as in statnet.

        Examples
        --------
        >>> import ergmfit as ef
        >>> ego = ef.EgoData.from_network(ef.datasets.load("faux.mesa.high"))
        >>> ego.n_egos, int(ego.degrees.sum())
        (205, 406)
        """
        from ..network import as_network
        net = as_network(network)
        if net.directed:
            raise DataFormatError("EgoData.from_network: the network is directed, and "
                                  "directed egocentric data are not supported (ergm.ego's "
                                  "documentation describes none: its pseudo-population and "
                                  "ego statistics are undirected); symmetrise it first, "
                                  "e.g. with networkx's to_undirected()")
        n = net.n
        ties = np.asarray(net.ties, dtype=np.int64).reshape(-1, 2)
        attrs = {k: np.asarray(v) for k, v in net.node_attrs.items()}
        chosen = np.arange(n) if egos is None else _node_indices(egos, n)
        nbrs = [[] for _ in range(n)]
        for i, j in ties:
            nbrs[i].append(j)
            nbrs[j].append(i)
        adj = set(map(tuple, ties)) | {(j, i) for i, j in ties}
        ego_rows = {"egoID": chosen + 1}
        ego_rows.update({k: v[chosen] for k, v in attrs.items()})
        a_ego, a_alter, aa = [], [], []
        for e in chosen:
            nb = sorted(nbrs[e])
            a_ego += [e + 1] * len(nb)
            a_alter += [j + 1 for j in nb]
            aa += [(e + 1, x + 1, y + 1) for k, x in enumerate(nb) for y in nb[k + 1:]
                   if (x, y) in adj]
        alter_alters = np.asarray(a_alter, dtype=np.int64) - 1
        alters = {"egoID": a_ego, "alterID": a_alter}
        alters.update({k: v[alter_alters] for k, v in attrs.items()})
        aat = pd.DataFrame(aa, columns=["egoID", "srcID", "tgtID"])
        return cls(pd.DataFrame(ego_rows), pd.DataFrame(alters), aat)

    def __repr__(self):
        return (f"EgoData({self.n_egos} egos, {len(self.alters)} ego-alter ties"
                + ("" if self.alter_ties is None else f", {len(self.alter_ties)} alter-alter ties")
                + ")")
