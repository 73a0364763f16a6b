"""Case-control MPLE designs on large sparse networks (issue #21)."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mple._mple import build_design
from ergmfit.utils.validation import seed_words


def test_prefetching_case_control_draws_the_same_sample_as_the_generic_loop():
    # the ERGM path draws its candidates ahead of use; the sample, its order and so
    # the design must be those of the generic BinaryModel loop, bit for bit
    rng = np.random.default_rng(8)
    n = 6000
    ties = np.unique(np.sort(rng.integers(0, n, (30_000, 2)), axis=1), axis=0)
    ties = ties[ties[:, 0] != ties[:, 1]]
    for directed, formula in ((False, "edges + gwesp(0.5, fixed=TRUE) + kstar(2)"),
                              (True, "edges + mutual + gwesp(0.5, fixed=TRUE)")):
        cm = ef.ERGM(ef.Network(n, ties, directed=directed), formula).compiled()
        fast = build_design(cm, 40_000, seed_words(3), fast=True)
        slow = build_design(cm, 40_000, seed_words(3), fast=False)
        assert fast["sampled"] and fast["n_sampled"] == 40_000
        for k in ("X", "n", "s"):
            assert np.array_equal(fast[k], slow[k]), k
        assert len(fast["X"]) > 5


@pytest.mark.parametrize("n_vars", [2**28 + 5, 4_999_995_000, 499_999_500_000])
def test_compact_sampled_zero_set_is_exact(n_vars):
    # the case-control sample's set of drawn zeros keeps 4 bytes a key above 2^20
    # expected keys (#21: 537 -> 268 MB at 10^6 nodes); it must answer exactly as a set
    from ergmfit.estimation.mple._mple import _seen_flags
    rng = np.random.default_rng(n_vars % 1000)
    expected = 1 << 20
    base = rng.integers(0, n_vars, 600_000)
    # repeats, neighbours of present keys and the extremes of the range
    keys = np.concatenate([base, base[:50_000], base[:20_000] + 1, [0, n_vars - 1, 0, n_vars - 1]])
    keys = np.minimum(keys, n_vars - 1)
    rng.shuffle(keys)
    compact, flags = _seen_flags(np.ascontiguousarray(keys, dtype=np.int64), n_vars, expected)
    assert compact
    seen = set()
    want = np.zeros(len(keys), dtype=np.int8)
    for k, v in enumerate(keys.tolist()):
        want[k] = v in seen
        seen.add(v)
    assert np.array_equal(flags, want)
    assert not _seen_flags(np.arange(10, dtype=np.int64), n_vars, 1000)[0]   # small: a plain set
