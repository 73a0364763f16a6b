"""``statistics_vector(dyads, values)`` and ``compiled``/``sampler(start=)`` of a count-valued
model check their rows: the count set the dyads one after another, so a dyad given twice let
the last value win silently (sum 11 for the values 2, 3, 1 and a repeated 7), a node outside
the network or a negative index crashed the process, a loop, a negative value under Poisson, a
fractional value and a values array of the wrong length gave a number."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import NetworkError


def model(directed=True):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_edge(0, 1, weight=2); g.add_edge(1, 0 if directed else 2, weight=3)
    g.add_edge(2, 3, weight=1)
    return ef.ERGM(g, "sum + nonzero", response="weight", reference="Poisson")


def test_a_repeated_dyad_is_named_with_both_rows_and_values():
    m = model()
    d, y = m.chain_end(m.compiled())
    assert m.statistics_vector(d, y).tolist() == [6.0, 3.0]
    with pytest.raises(ValueError, match=r"duplicate dyad \(0, 1\) in dyads: rows 0 and 3 are "
                       r"the same dyad \(directed\), with values 2 and 7"):
        m.statistics_vector(np.vstack([d, d[:1]]), np.r_[y, 7])
    with pytest.raises(ValueError, match=r"rows 0 and 3 .* values 2 and 7"):
        m.statistics_vector((np.vstack([d, d[:1]]), np.r_[y, 7]))      # the pair form
    with pytest.raises(ValueError, match=r"duplicate dyad \(0, 1\) in dyads: rows 0 and 1"):
        m.sampler([0.0, 0.0], start=([[0, 1], [0, 1]], [1, 2]))
    # directed: (1, 0) is another dyad than (0, 1)
    assert m.statistics_vector([[0, 1], [1, 0]], [2, 3]).tolist() == [5.0, 2.0]


def test_undirected_the_same_dyad_in_either_order():
    m = model(directed=False)
    with pytest.raises(ValueError, match=r"duplicate dyad \(1, 0\) in dyads: rows 0 and 2 are the "
                       r"same dyad \(undirected, in either order\), with values 2 and 5"):
        m.statistics_vector([[0, 1], [2, 3], [1, 0]], [2, 1, 5])


@pytest.mark.parametrize("dyads,values,error,message", [
    ([[0, 9]], [1], ValueError, r"dyads row 0 is \(0, 9\): not a dyad of a 4-node network"),
    ([[-1, 1]], [1], ValueError, r"dyads row 0 is \(-1, 1\)"),
    ([[0, 1], [2, 2]], [1, 1], ValueError, r"dyads row 1 is \(2, 2\): .*no loops"),
    ([[0, 1]], [-2], NetworkError, r"values row 0 \(dyad \(0, 1\)\) is negative: -2; the "
                                   r"reference Poisson"),
    ([[0, 1]], [1.5], NetworkError, r"the values has the value 1.5: .*integer"),
    ([[0, 1], [1, 2]], [1], ValueError, r"2 dyads but values of shape \(1,\)"),
    ([[0, 1]], None, ValueError, "without values"),
    ([[0, 1, 2]], [1], ValueError, r"\(m, 2\) array"),
])
def test_bad_rows_are_named(dyads, values, error, message):
    m = model()
    with pytest.raises(error, match=message):
        m.statistics_vector(dyads, values)
    with pytest.raises(error, match=message):
        m.compiled(dyads, values)
    assert m.statistics_vector([], []).tolist() == [0.0, 0.0]
    assert m.statistics_vector([[0, 1]], [4.0]).tolist() == [4.0, 1.0]   # whole floats
