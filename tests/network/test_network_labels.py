"""Integer node labels are kept as a range or an int64 array until ``Network.labels`` is
first read (issue #35: Epinions' 75,879 SNAP ids as a list of Python ints took 2.9 MB
through a whole EE run that never reads them); reading them gives the list as before."""
import copy
import pickle

import numpy as np
import pytest

from ergmfit.network import Network


@pytest.mark.parametrize("labels", [None, np.array([3, 7, 10, 12]), [3, 7, 10, 12],
                                    ["a", "b", "c", "d"]])
def test_labels_read_as_a_list_of_the_given_values(labels):
    net = Network(4, [(0, 1), (2, 3)], True, labels=labels)
    want = ([0, 1, 2, 3] if labels is None
            else labels.tolist() if isinstance(labels, np.ndarray) else list(labels))
    assert net.labels == want and type(net.labels) is list
    assert all(type(x) is type(w) for x, w in zip(net.labels, want))
    assert net.labels is net.labels                       # made once


@pytest.mark.parametrize("labels", [None, np.array([3, 7, 10, 12], dtype=np.int32)])
def test_integer_labels_are_not_listed_until_read(labels):
    net = Network(4, [(0, 1)], True, labels=labels)
    assert "labels" not in vars(net) and net._labels is None
    held = net._label_ids
    # 4 bytes a node where the ids fit in int32 (issue #35: Epinions' ids 0.6 -> 0.3 MiB)
    assert isinstance(held, range) or (held.dtype == np.int32 and held.nbytes == 16)
    assert [int(x) for x in held] == ([0, 1, 2, 3] if labels is None else [3, 7, 10, 12])
    for other in (copy.deepcopy(net), pickle.loads(pickle.dumps(net)), net.with_ties([(1, 2)])):
        assert other.labels == net.labels


def test_integer_labels_beyond_int32_keep_eight_bytes():
    ids = np.array([5, 2 ** 40, -(2 ** 33)], dtype=np.int64)
    net = Network(3, [(0, 1)], True, labels=ids)
    assert net._label_ids.dtype == np.int64
    assert net.labels == [5, 2 ** 40, -(2 ** 33)]


def test_label_array_is_a_copy_and_the_count_is_checked():
    ids = np.array([5, 6, 7])
    net = Network(3, [], True, labels=ids)
    ids[0] = 99                                   # the caller's array is not the network's
    assert net.labels == [5, 6, 7]
    with pytest.raises(Exception, match="one entry per node"):
        Network(3, [], True, labels=np.array([1, 2]))


def test_labels_can_be_replaced():
    net = Network(2, [(0, 1)], False, labels=np.array([10, 20]))
    net.labels = ["x", "y"]
    assert net.labels == ["x", "y"] and net._label_ids is None
