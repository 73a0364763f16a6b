"""``ERGM.statistics_vector(ties)`` refuses a tie given twice, as ``compiled(ties)`` does: the
count adds each row as a new tie, so a repeated one was counted twice (21 edges for 20)."""
import numpy as np
import pytest

import ergmfit as ef


def test_a_repeated_tie_is_named():
    net = ef.datasets.load_network("flomarriage")
    model = ef.ERGM(net, "edges + triangle")
    ties = np.asarray(net.ties)
    assert model.statistics_vector(ties).tolist() == [20.0, 3.0]
    with pytest.raises(ValueError, match=r"duplicate tie \(0, 8\) in ties: rows 0 and 20"):
        model.statistics_vector(np.vstack([ties, ties[:1]]))
    # undirected: the same tie in the other order, named as given in its later row
    with pytest.raises(ValueError, match=r"duplicate tie \(8, 1\) in ties: rows 3 and 20 .*either order"):
        model.statistics_vector(np.vstack([ties, ties[3:4, ::-1]]).tolist())
    with pytest.raises(ValueError, match="duplicate tie"):
        model.compiled(np.vstack([ties, ties[:1]]))         # as the compiled model refuses it
    # out of range: still the count's own message
    with pytest.raises(IndexError, match="outside"):
        model.statistics_vector(np.vstack([ties, [[0, 16]], [[0, 16]]]))
    assert model.statistics_vector(np.zeros((0, 2))).tolist() == [0.0, 0.0]


def test_directed_ties_are_ordered_pairs():
    net = ef.Network(4, np.array([[0, 1], [1, 0], [2, 3]]), directed=True)
    model = ef.ERGM(net, "edges + mutual")
    assert model.statistics_vector(net.ties).tolist() == [3.0, 1.0]
    with pytest.raises(ValueError, match=r"duplicate tie \(1, 0\) in ties: rows 1 and 3 .*directed"):
        model.statistics_vector(np.array([[0, 1], [1, 0], [2, 3], [1, 0]]))


def test_a_tie_array_of_another_shape_or_fractional_nodes_is_refused():
    # read two numbers at a time, a (2, 3) array was three ties, and 0.5 was node 0
    net = ef.datasets.load_network("flomarriage")
    model = ef.ERGM(net, "edges + triangle")
    for bad, message in ((np.array([[0, 1, 2], [3, 4, 5]]), r"\(m, 2\) array .*shape \(2, 3\)"),
                         ([0, 1, 2, 3], r"shape \(4,\)"),
                         ([[0, 1], [0.5, 1.7]], r"whole numbers\): row 1 is \(0.5, 1.7\)"),
                         ([["0", "1"]], "dtype <U1")):
        with pytest.raises(ValueError, match=message):
            model.statistics_vector(bad)
        with pytest.raises(ValueError, match=message):
            model.compiled(bad)
    assert model.statistics_vector([[0.0, 8.0], [1.0, 8.0]]).tolist() == [2.0, 0.0]
    assert model.statistics_vector([]).tolist() == [0.0, 0.0]
