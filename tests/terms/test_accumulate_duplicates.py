"""``ERGMModel.add_ties_accumulate`` refuses a tie given twice (or present already), naming it.

It adds each row as a new tie; a repeated row was added again: its change statistic counted
twice (21 edges for 20) and the state held the tie twice.  Its callers (``ERGM.statistics_vector``,
the temporal ``Form``/``Change`` start, the operator terms' running statistics, the tapering
term's observed statistics) all get the check; the state is left as it was.
"""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.network import NetworkState
from ergmfit.terms._ergm import ERGMModel


def _flomarriage(formula):
    net = ef.datasets.load_network("flomarriage")
    return net, ef.ERGM(net, formula)


def test_a_repeated_row_is_refused_and_named():
    net, model = _flomarriage("edges + triangle")
    ties = np.asarray(net.ties, dtype=np.int64)
    empty = ERGMModel(NetworkState(net.n, False), model.kernels)
    assert empty.add_ties_accumulate(ties).tolist() == [20.0, 3.0]
    for extra, row in ((ties[:1], 0), (ties[5:6, ::-1], 5)):      # undirected: either order
        empty = ERGMModel(NetworkState(net.n, False), model.kernels)
        with pytest.raises(ValueError, match=rf"duplicate tie \({extra[0, 0]}, {extra[0, 1]}\) "
                                             rf"in ties: rows {row} and 20"):
            empty.add_ties_accumulate(np.ascontiguousarray(np.vstack([ties, extra])))
        assert len(empty.state.ties()) == 0             # nothing left behind
        assert empty.add_ties_accumulate(ties).tolist() == [20.0, 3.0]


def test_directed_reverse_arc_is_another_tie():
    net = ef.Network(4, np.array([[0, 1], [1, 0], [2, 3]]), directed=True)
    model = ef.ERGM(net, "edges + mutual")
    arcs = np.array([[0, 1], [1, 0], [2, 3]], dtype=np.int64)
    assert ERGMModel(NetworkState(4, True), model.kernels).add_ties_accumulate(arcs).tolist() \
        == [3.0, 1.0]
    with pytest.raises(ValueError, match=r"rows 1 and 3 are the same tie \(directed\)"):
        ERGMModel(NetworkState(4, True), model.kernels).add_ties_accumulate(
            np.vstack([arcs, [[1, 0]]]))


def test_a_stateful_kernel_is_rolled_back():
    # an operator term keeps running statistics of its state: after the refusal they are
    # those of the state as it was, so the next count is right
    net, model = _flomarriage("edges + Prod(~edges + triangle)")
    ties = np.asarray(net.ties, dtype=np.int64)
    want = ERGMModel(NetworkState(net.n, False), model.kernels).add_ties_accumulate(ties)
    empty = ERGMModel(NetworkState(net.n, False), model.kernels)
    with pytest.raises(ValueError, match="duplicate tie"):
        empty.add_ties_accumulate(np.ascontiguousarray(np.vstack([ties[:10], ties[3:4]])))
    np.testing.assert_allclose(empty.add_ties_accumulate(ties), want)


def test_a_tie_of_the_state_is_refused():
    net, model = _flomarriage("edges")
    ties = np.asarray(net.ties, dtype=np.int64)
    started = ERGMModel(NetworkState(net.n, False, ties[:1]), model.kernels)
    with pytest.raises(ValueError, match=r"row 0 is a tie of the network already"):
        started.add_ties_accumulate(ties)
    assert len(started.state.ties()) == 1
    assert started.add_ties_accumulate(np.ascontiguousarray(ties[1:])).tolist() == [19.0]


def test_a_tie_array_of_another_shape_is_refused():
    net, model = _flomarriage("edges")
    with pytest.raises(ValueError, match=r"\(m, 2\) array .*shape \(2, 3\)"):
        ERGMModel(NetworkState(net.n, False), model.kernels).add_ties_accumulate(
            np.array([[0, 1, 2], [3, 4, 5]], dtype=np.int64))
