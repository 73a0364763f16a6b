"""Case-control MPLE designs on large sparse networks (issue #21)."""
import numpy as np

import ergmfit as ef
from ergmfit.estimation._mple import build_design
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
