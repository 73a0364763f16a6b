"""Ctrl-C while the observed statistics of a large network are counted: the compiled count
(``ERGMModel.add_ties_accumulate``, tie by tie without the Python lock) runs Python's signal
handlers every 65,536 ties, so the KeyboardInterrupt is raised inside it, not after the
whole count (minutes at Pokec's size)."""
import traceback

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.network import NetworkState
from ergmfit.terms._ergm import ERGMModel
from support.interrupts import sigint_when


def _ties(n, m, seed=1):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, n, size=(2, m))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    code = np.sort((lo * n + hi)[lo != hi])
    code = code[np.r_[True, code[1:] != code[:-1]]]      # distinct dyads
    return np.column_stack([code // n, code % n])


def test_ctrl_c_ends_the_count_inside_it(default_sigint):
    n = 200_000
    ties = _ties(n, 3_000_000)
    kernels = ef.ERGM(ef.Network(n, ties[:10], directed=False),
                      "edges + gwesp(0.5, fixed=TRUE) + kstar(2)").kernels
    empty = ERGMModel(NetworkState(n, False), kernels)
    # the Ctrl-C once the count has added its first tie: after the ties' validation (numpy,
    # where a timer's signal once landed on a loaded machine), with ~3 million ties to go
    # (the count looks for it every 65,536)
    watcher = sigint_when(lambda: empty.state.num_ties > 0)
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            empty.add_ties_accumulate(ties)
            raise AssertionError("the count of 3 million ties finished before the Ctrl-C")
    finally:
        watcher.join()
    assert watcher.sent.is_set()
    # raised from within the compiled count (its own frame), not after it returned
    assert traceback.extract_tb(caught.tb)[-1].name.endswith("add_ties_accumulate")
    assert 0 < len(empty.state.ties()) < len(ties)


def test_bad_ties_are_named_before_any_is_added():
    kernels = ef.ERGM(ef.Network(10, np.array([[0, 1]]), directed=False), "edges").kernels
    cases = [([[0, 10]], IndexError, r"\(0, 10\) outside 0\.\.9"),
             ([[2, 3], [3, 3]], ValueError, "self-loops"),
             ([[-1, 2]], IndexError, r"\(-1, 2\) outside"),
             ([[2, 3], [0, 1]], ValueError, r"duplicate tie \(0, 1\)")]
    for ties, error, message in cases:
        model = ERGMModel(NetworkState(10, False, np.array([[0, 1]])), kernels)
        with pytest.raises(error, match=message):
            model.add_ties_accumulate(np.array(ties, dtype=np.int64))
        assert len(model.state.ties()) == 1
