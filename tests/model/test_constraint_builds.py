"""The free dyads of ``blockdiag``, ``blocks`` and stacked networks, built group by group:
the same sets as the definition over every pair of nodes, without the n² pairs; and the
sort-based set operations that replaced numpy's hash-based ``np.unique`` on dyad arrays."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ergmfit as ef
from ergmfit.sampling.space import dyad_vars, group_pairs, same_group_vars
from ergmfit.utils.setops import (has_duplicates, intersect_sorted, setdiff_sorted,
                                   unique_rows_inverse, unique_sorted)
from support.memory import traced_peak


def _every_pair(n, directed):
    i, j = np.nonzero(~np.eye(n, dtype=bool))
    keep = (i != j) if directed else (i < j)
    return np.stack([i[keep], j[keep]], axis=1)


def _network(n, directed, groups, seed):
    rng = np.random.default_rng(seed)
    pairs = _every_pair(n, directed)
    ties = pairs[rng.random(len(pairs)) < 0.3]
    return ef.Network(n, ties, directed, node_attrs={"g": list(groups)})


@settings(max_examples=60, deadline=None)
@given(groups=st.lists(st.sampled_from(["a", "b", "c", "7"]), min_size=1, max_size=9),
       directed=st.booleans())
def test_same_group_vars_is_the_definition_over_every_pair(groups, directed):
    n = len(groups)
    g = np.asarray(groups)
    pairs = _every_pair(n, directed)
    want = np.sort(dyad_vars(n, directed, pairs[g[pairs[:, 0]] == g[pairs[:, 1]]])) \
        if len(pairs) else np.zeros(0, np.int64)
    assert same_group_vars(n, directed, groups).tolist() == want.tolist()


@pytest.mark.parametrize("directed", [True, False])
def test_blockdiag_space_equals_the_pairs_definition(directed):
    groups = ["x", "y", "x", "z", "y", "x", "x", "z"]
    net = _network(len(groups), directed, groups, seed=3)
    free = ef.ERGM(net, "edges", constraints="~ blockdiag('g')").sample_space.free_vars()
    g = np.asarray(groups)
    pairs = _every_pair(net.n, directed)
    want = np.sort(dyad_vars(net.n, directed, pairs[g[pairs[:, 0]] == g[pairs[:, 1]]]))
    assert free.tolist() == want.tolist()


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("levels2", [True, 1, [1, 2]])
def test_blocks_space_equals_the_pairs_definition(directed, levels2):
    groups = ["x", "y", "x", "z", "y", "x", "x", "z"]
    net = _network(len(groups), directed, groups, seed=4)
    m = ef.ERGM(net, "edges", constraints=f"~ blocks('g', levels2={levels2!r})")
    levels = ["x", "y", "z"]
    types = [(levels[r], levels[c]) for c in range(3) for r in range(3) if directed or r <= c]
    fixed_types = types if levels2 is True else \
        [types[k - 1] for k in ([levels2] if np.isscalar(levels2) else levels2)]
    g = np.asarray(groups)
    pairs = _every_pair(net.n, directed)
    gi, gj = g[pairs[:, 0]], g[pairs[:, 1]]
    fixed = np.zeros(len(pairs), bool)
    for r, c in fixed_types:
        fixed |= (gi == r) & (gj == c)
        if not directed:
            fixed |= (gi == c) & (gj == r)
    want = np.sort(dyad_vars(net.n, directed, pairs[~fixed]))
    assert m.sample_space.free_vars().tolist() == want.tolist()


def test_blockdiag_build_memory_grows_with_the_free_dyads_not_n_squared():
    # 5,000 nodes in blocks of 10: 45,000 free dyads. The definition over every pair held
    # 25 million pairs (about 0.8 GB at its peak); the group-wise build a few MB
    n, size = 5000, 10
    groups = np.repeat(np.arange(n // size), size)
    rng = np.random.default_rng(1)
    ties = np.unique(np.stack([np.arange(n), (np.arange(n) // size) * size
                               + rng.integers(0, size, n)], axis=1), axis=0)
    ties = ties[ties[:, 0] != ties[:, 1]]
    net = ef.Network(n, ties, True, node_attrs={"g": groups.tolist()})
    free, peak = traced_peak(
        lambda: ef.ERGM(net, "edges", constraints="~ blockdiag('g')").sample_space.free_vars())
    assert len(free) == (n // size) * size * (size - 1)
    assert peak < 40 * 2 ** 20, f"peak {peak / 2**20:.0f} MB"


def test_group_pairs_rejects_a_bad_within():
    with pytest.raises(ValueError, match="within"):
        group_pairs([1, 1], within="both")


@settings(max_examples=80, deadline=None)
@given(a=st.lists(st.integers(-50, 50), max_size=40), b=st.lists(st.integers(-50, 50), max_size=40))
def test_sorted_set_operations_equal_numpys(a, b):
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    assert unique_sorted(a).tolist() == np.unique(a).tolist()
    assert intersect_sorted(a, b).tolist() == np.intersect1d(a, b).tolist()
    assert setdiff_sorted(a, b).tolist() == np.setdiff1d(a, b).tolist()
    assert has_duplicates(a) == (len(np.unique(a)) != a.size)


@pytest.mark.parametrize("directed", [True, False])
def test_dyads_constraint_in_chunks_equals_one_pass(monkeypatch, directed):
    import ergmfit.constraints as constraints
    groups = ["x", "y", "x", "z", "y", "x", "x", "z", "y"]
    net = _network(len(groups), directed, groups, seed=5)
    spec = "~ dyads(vary=~nodematch('g'), fix=~nodemix('g', levels2=[1]))"
    whole = ef.ERGM(net, "edges", constraints=spec).sample_space.free_vars()
    monkeypatch.setattr(constraints, "CHANGE_CHUNK", 7)
    chunked = ef.ERGM(net, "edges", constraints=spec).sample_space.free_vars()
    assert 0 < len(whole) < net.n_dyads
    assert chunked.tolist() == whole.tolist()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), n_rows=st.integers(0, 60), n_cols=st.integers(1, 30),
       n_values=st.sampled_from([1, 2, 3, 1000]))
def test_unique_rows_inverse_equals_numpys_unique_rows(seed, n_rows, n_cols, n_values):
    # many columns of many values force the key to be re-ranked before it overflows
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n_values, (n_rows, n_cols)) * 0.5 - 3.0
    if n_rows > 2:
        rows[1] = rows[0]                       # a repeated row
    inverse, counts = unique_rows_inverse(rows)
    _, want_inverse, want_counts = np.unique(rows, axis=0, return_inverse=True,
                                             return_counts=True)
    assert inverse.tolist() == np.ravel(want_inverse).tolist()
    assert counts.tolist() == want_counts.tolist()


def _random_directed(n, m, seed):
    rng = np.random.default_rng(seed)
    k = unique_sorted(rng.integers(0, n * n, size=m))
    i, j = k // n, k % n
    return ef.Network(n, np.column_stack([i, j])[i != j], True)


def test_constrained_space_checks_the_observed_ties_as_sorted_arrays():
    # ConstrainedSpace.check and fixedas(present=, absent=) on 10^6 ties: Python sets of every
    # tie were 171 MB traced and 3 CPU s (10^7 ties: 9.4 CPU s, 1.4 GB more resident for
    # bd(maxout=1000)), sorted arrays 55 MB
    net = _random_directed(200_000, 1_000_000, 3)
    ties = net.ties
    absent = np.array([[0, 1], [2, 5]])
    absent = absent[~np.isin(dyad_vars(net.n, True, absent), dyad_vars(net.n, True, ties))]
    free = np.concatenate([ties[:40], absent])
    cons = ("~ fixallbut(fr) + fixedas(present=pr, absent=ab)",
            {"fr": free, "pr": ties[:10], "ab": absent})
    m, peak = traced_peak(lambda: ef.ERGM(net, "edges", constraints=cons))
    assert m.sample_space.n_free == 40 + len(absent) - 10 - len(absent)
    assert peak < 100 * 2 ** 20, f"peak {peak / 2**20:.0f} MB"
    with pytest.raises(ef.NetworkError, match=f"{len(absent)} dyad"):
        ef.ERGM(net, "edges", constraints=("~ fixallbut(fr) + fixedas(present=pr)",
                                           {"fr": free, "pr": np.concatenate([ties[:3], absent])}))
    space = m.sample_space
    space.check(ties)
    with pytest.raises(ef.NetworkError, match="is fixed by the constraints"):
        space.check(ties[1:])                     # a fixed tie removed
    with pytest.raises(ef.NetworkError, match="is fixed by the constraints"):
        space.check(np.concatenate([ties, [[7, 3]]]) if not np.isin(
            dyad_vars(net.n, True, [[7, 3]]), dyad_vars(net.n, True, ties)).any()
            else ties[:-1])


def _label_pairs_definition(net, pairs):
    index = {lab: k for k, lab in enumerate(net.labels)}
    return np.array([(index[u], index[v]) for u, v in pairs], dtype=np.int64).reshape(-1, 2)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 30), st.integers(0, 2), st.data())
def test_label_pairs_of_an_integer_array_is_the_dictionary_lookup(n, kind, data):
    from ergmfit.constraints import label_pairs
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    labels = [None, rng.choice(1000, n, replace=False).tolist(), rng.choice(n // 2 + 1, n)][kind]
    net = ef.Network(n, np.zeros((0, 2), np.int64), data.draw(st.booleans()), labels=labels)
    pool = np.arange(n) if labels is None else np.asarray(labels)
    pairs = rng.choice(pool, size=(data.draw(st.integers(1, 20)), 2))
    assert np.array_equal(label_pairs(net, pairs, "x"), _label_pairs_definition(net, pairs))
    pairs[-1, 1] = 5000
    with pytest.raises(ef.NetworkError, match="x: the node np.int64\\(5000\\) is not in the network"):
        label_pairs(net, pairs, "x")


def test_a_million_missing_pairs_are_looked_up_without_a_python_loop():
    # missing= (and fixallbut, fixedas) as a (k, 2) integer array: 10^6 pairs were 2.4-3.7 CPU s
    # and a list of a million tuples (309 MB traced; by sorting 144 MB)
    net = _random_directed(100_000, 1_000_000, 4)
    rng = np.random.default_rng(4)
    miss = rng.integers(0, net.n, size=(1_000_000, 2))
    miss = miss[miss[:, 0] != miss[:, 1]]
    m, peak = traced_peak(lambda: ef.ERGM(net, "edges", missing=miss))
    assert np.array_equal(m.sample_space.missing,
                          unique_sorted(dyad_vars(net.n, True, miss)))
    assert peak < 200 * 2 ** 20, f"peak {peak / 2**20:.0f} MB"
