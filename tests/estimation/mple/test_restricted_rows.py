"""The restricted-space design grouped in a table of distinct rows (``restricted_rows``,
``group_rows``) against the grouping it replaced: the rows of every variable stored
(``change_rows``), then ``np.unique(X, axis=0, return_inverse=True)`` and ``np.bincount``.

Before session 25 a restricted space's design (missing dyads, constraints, two-mode
networks) was grouped that way: 28 CPU s of 5 M dyads' 28.5 went to sorting the rows.
The grouping must give the same rows in the same order with the same sums, bit for bit."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ergmfit as ef
from ergmfit.estimation.common.restricted import compressed_rows
from ergmfit.estimation.mple._mple import group_rows, restricted_rows
from ergmfit.exceptions import DegenerateModelError
from ergmfit.sampling._constrained import change_rows


def _unique_grouping(X, y, w=None):
    """The grouping compressed_rows did before session 25."""
    Xu, inv = np.unique(X, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    w = np.ones(len(inv)) if w is None else np.asarray(w, dtype=float)
    n = np.bincount(inv, weights=w, minlength=len(Xu))
    s = np.bincount(inv, weights=w * np.asarray(y).astype(float), minlength=len(Xu))
    return Xu, n, s


def _same_bits(a, b):
    for u, v in zip(a, b):
        u, v = np.asarray(u), np.asarray(v)
        assert u.dtype == v.dtype and u.shape == v.shape
        assert u.tobytes() == v.tobytes(), (u, v)


@settings(max_examples=150, deadline=None)
@given(m=st.integers(1, 300), p=st.integers(1, 5), levels=st.integers(1, 6),
       weighted=st.booleans(), seed=st.integers(0, 2 ** 31))
def test_group_rows_is_the_np_unique_grouping(m, p, levels, weighted, seed):
    rng = np.random.default_rng(seed)
    # few distinct values per column (many repeated rows), negative, fractional and large ones
    values = rng.choice([-3.5, -1.0, 0.0, 0.25, 1.0, 2.0, 7.0, 1e9], size=levels, replace=False)
    X = rng.choice(values, size=(m, p))
    y = rng.integers(0, 2, m)
    w = rng.exponential(3.0, m) if weighted else None
    _same_bits(group_rows(X, y, w), _unique_grouping(X, y, w))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 14), directed=st.booleans(), density=st.floats(0.0, 0.8),
       frac=st.floats(0.05, 1.0), weighted=st.booleans(), seed=st.integers(0, 2 ** 31))
def test_restricted_rows_of_a_model_is_the_np_unique_grouping(n, directed, density, frac,
                                                               weighted, seed):
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(n) for j in range(n)
             if i != j and (directed or i < j) and rng.random() < density]
    net = ef.Network(n, pairs, directed=directed,
                     node_attrs={"a": rng.integers(0, 3, n).tolist()})
    terms = "edges + nodematch('a') + triangle + " + ("mutual" if directed else "kstar(2)")
    bm = ef.ERGM(net, terms).compiled()
    d = net.n_dyads
    vars_ = np.sort(rng.choice(d, max(1, int(frac * d)), replace=False)).astype(np.int64)
    w = rng.exponential(2.0, len(vars_)) if weighted else None
    X, y = change_rows(bm, vars_)
    Xu, nu, su, n_on = restricted_rows(bm, vars_, w)
    _same_bits((Xu, nu, su), _unique_grouping(X, y, w))
    assert n_on == int(y.sum())


def test_compressed_rows_on_a_two_mode_network_and_missing_dyads():
    rng = np.random.default_rng(5)
    n1, n2 = 12, 20
    ties = sorted({(int(i), int(n1 + j)) for i, j in zip(rng.integers(0, n1, 40),
                                                            rng.integers(0, n2, 40))})
    net = ef.Network(n1 + n2, ties, directed=False, bipartite=n1,
                     node_attrs={"a": (np.arange(n1 + n2) % 3).tolist()})
    for m in (ef.ERGM(net, "edges + b1factor('a') + gwb1degree(0.5, fixed=TRUE)"),
              ef.ERGM(net, "edges + b2star(2)", missing=[(0, n1), (1, n1 + 3)])):
        bm, v = m.compiled(), m.sample_space.design_vars()
        X, y = change_rows(bm, v)
        got = compressed_rows(bm, v)
        _same_bits(got[:3], _unique_grouping(X, y))
        assert got[3:] == (len(v), int(y.sum()))


def test_restricted_rows_refuses_bad_input():
    bm = ef.ERGM(ef.Network(4, [(0, 1)], directed=False), "edges").compiled()
    with pytest.raises(ValueError, match="out of range"):
        restricted_rows(bm, np.array([0, 6]))
    with pytest.raises(ValueError, match="weights"):
        restricted_rows(bm, np.array([0, 1]), np.ones(3))
    with pytest.raises(DegenerateModelError, match="no dyad is free"):
        compressed_rows(bm, np.zeros(0, dtype=np.int64))
    v = np.array([5, 0, 1])
    restricted_rows(bm, v, np.ones(3))
    assert v.tolist() == [5, 0, 1]                      # the input is not modified


@settings(max_examples=100, deadline=None)
@given(v=st.lists(st.integers(0, 50), max_size=40), presorted=st.booleans())
def test_space_variables_are_np_unique_of_the_input(v, presorted):
    from ergmfit.sampling.space import _vars_or_none
    v = sorted(set(v)) if presorted else v
    given_ = np.array(v, dtype=np.int64)
    got = _vars_or_none(given_)
    want = np.unique(np.asarray(v, dtype=np.int64))
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert got is not given_ and np.array_equal(given_, np.array(v, dtype=np.int64))
    assert _vars_or_none(None) is None


@pytest.mark.parametrize("n1, n2", [(1, 1), (1, 5), (4, 1), (3, 7), (30, 45)])
def test_between_modes_variables_are_the_sorted_dyad_indices(n1, n2):
    from ergmfit.constraints import _between_modes
    from ergmfit.sampling.space import dyad_vars
    net = ef.Network(n1 + n2, [(0, n1)], directed=False, bipartite=n1)
    i, j = np.meshgrid(np.arange(n1), np.arange(n1, n1 + n2), indexing="ij")
    want = np.sort(dyad_vars(n1 + n2, False, np.column_stack([i.ravel(), j.ravel()])))
    got = _between_modes(net)
    assert got.dtype == np.int64 and np.array_equal(got, want)
