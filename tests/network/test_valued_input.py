"""Inputs of count-valued models: integer edge attributes from networkx, edge-list files and
DataFrames with a value column (a ``weight`` column too), weighted adjacency matrices (numpy
and scipy sparse), and the clear errors for negative, non-integer, NaN, diagonal and
asymmetric values."""
import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import ergmfit as ef
from ergmfit.exceptions import NetworkError

A = np.array([[0, 3, 0], [1, 0, 2], [0, 0, 0]])
WANT = {"sum": 6.0, "nonzero": 3.0}


def _stats(src, **kw):
    return ef.ERGM(src, "sum + nonzero", reference="Poisson", **kw).statistics()


@pytest.mark.parametrize("column", ["weight", "value"])
def test_edge_list_file_with_a_value_column(tmp_path, column):
    f = tmp_path / "valued.csv"
    f.write_text(f"source,target,{column}\n1,2,3\n2,1,1\n2,3,2\n")
    assert _stats(str(f), response=column, directed=True) == WANT
    assert f.read_text().startswith("source")          # the file is only read


def test_edge_list_dataframe_with_a_weight_column():
    df = pd.DataFrame({"source": [1, 2, 2], "target": [2, 1, 3], "weight": [3, 1, 2]})
    before = df.copy()
    assert _stats(df, response="weight", directed=True) == WANT
    pd.testing.assert_frame_equal(df, before)


@pytest.mark.parametrize("make", [np.array, sp.csr_matrix, lambda a: a.astype(float)])
def test_weighted_adjacency_matrix(make):
    M = make(A.copy())
    assert _stats(M, response="weight", directed=True) == WANT
    sym = make((A + A.T).copy())
    assert _stats(sym, response="weight", directed=False) == {"sum": 6.0, "nonzero": 2.0}
    np.testing.assert_array_equal(np.asarray(M.todense() if sp.issparse(M) else M), A)


def test_networkx_integer_attribute():
    g = nx.DiGraph()
    g.add_edge(0, 1, n=3)
    g.add_edge(1, 0, n=1)
    g.add_edge(1, 2, n=2)
    assert _stats(g, response="n") == WANT


@pytest.mark.parametrize("matrix, directed, words", [
    ([[0, -1], [0, 0]], True, "negative value -1"),
    ([[0, 1.5], [0, 0]], True, "needs integer values"),
    ([[0, np.nan], [0, 0]], True, "finite numbers"),
    ([[2, 1], [0, 0]], True, "diagonal"),
    ([[0, 2], [1, 0]], False, "not symmetric"),
])
def test_matrix_errors(matrix, directed, words):
    with pytest.raises(NetworkError, match=words):
        _stats(np.array(matrix), response="weight", directed=directed)


def test_matrix_needs_directed():
    with pytest.raises(NetworkError, match="directed"):
        _stats(A, response="weight")


@pytest.mark.parametrize("value, words", [(-2, "negative value -2"),
                                          (2.5, "needs integer values")])
def test_file_errors(tmp_path, value, words):
    f = tmp_path / "bad.csv"
    f.write_text(f"source,target,weight\n1,2,{value}\n")
    with pytest.raises(NetworkError, match=words):
        _stats(str(f), response="weight", directed=True)


def test_binary_reading_still_refuses_weights(tmp_path):
    f = tmp_path / "w.csv"
    f.write_text("source,target,weight\n1,2,3\n")
    with pytest.raises(NetworkError, match="binary ties"):
        ef.ERGM(str(f), "edges", directed=True)


# session 21's sweep of bad input (issue #33 item 1): each of these failed on main

def test_an_object_matrix_with_a_huge_count_is_refused_clearly():
    # on main: TypeError from np.isfinite on a Python int beyond float's range
    M = np.array([[0, 2], [2 ** 70, 0]], dtype=object)
    with pytest.raises(NetworkError,
                       match=r"the value 1180591620717411303424 \(the edge \(1, 0\)\), too large"):
        _stats(M, response="weight", directed=True)
    assert M[1, 0] == 2 ** 70


@pytest.mark.parametrize("valued", [True, False])
def test_a_masked_matrix_is_refused_not_read_under_its_mask(valued):
    # on main the value under the mask was read: sum 3 (binary: edges 2), silently
    M = np.ma.masked_array([[0, 2], [1, 0]] if valued else [[0, 1], [1, 0]],
                           mask=[[0, 1], [0, 0]])
    with pytest.raises(NetworkError, match=r"masked array with 1 masked entry \(the first at "
                                           r"\[0, 1\]\)"):
        if valued:
            _stats(M, response="weight", directed=True)
        else:
            ef.ERGM(M, "edges", directed=True)
    assert M.mask[0, 1] and M.data[0, 1] in (1, 2)
    # a mask with nothing masked is the plain matrix
    plain = np.ma.masked_array([[0, 2], [1, 0]], mask=False)
    assert _stats(plain, response="weight", directed=True) == {"sum": 3.0, "nonzero": 2.0}


def test_value_errors_name_the_edge(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("source,target,weight\n1,2,3\n2,3,-1\n")
    with pytest.raises(NetworkError, match=r"the negative value -1 \(the edge \(2, 3\)\)"):
        _stats(str(f), response="weight", directed=True)
    f.write_text('source,target,weight\n1,2,3\n2,3,"2"\n')      # a quoted cell is text
    with pytest.raises(NetworkError, match=r"the text '2' \(the edge \(2, 3\)\)"):
        _stats(str(f), response="weight", directed=True)
    with pytest.raises(NetworkError, match=r"the value 3 \(the edge \('a', 'b'\)\), outside "
                                           r"the support: the reference Binomial\(2\)"):
        g = nx.DiGraph()
        g.add_edge("a", "b", w=3)
        ef.ERGM(g, "sum", response="w", reference="Binomial(2)")


def test_a_repeated_valued_tie_is_not_called_binary(tmp_path):
    f = tmp_path / "dup.csv"
    f.write_text("source,target,weight\n1,2,3\n1,2,2\n")
    with pytest.raises(NetworkError, match="repeats the tie") as err:
        _stats(str(f), response="weight", directed=True)
    assert "binary" not in str(err.value)


def test_an_object_matrix_of_decimals_is_read_or_refused_by_name():
    # on main (session 21) Decimal('2') was refused as "needs finite numbers", which it is
    from decimal import Decimal
    m = np.array([[0, Decimal("2")], [Decimal("1"), 0]], dtype=object)
    assert _stats(m, response="weight", directed=True) == {"sum": 3.0, "nonzero": 2.0}
    assert m[0, 1] == Decimal("2") and type(m[0, 1]) is Decimal
    m[0, 1] = Decimal("2.5")
    with pytest.raises(NetworkError, match=r"Decimal\('2.5'\) \(Decimal\).*int or float"):
        _stats(m, response="weight", directed=True)
    m[0, 1] = Decimal("NaN")
    with pytest.raises(NetworkError, match="int or float"):
        _stats(m, response="weight", directed=True)
    with pytest.raises(NetworkError, match="finite numbers"):
        _stats(np.array([[0, np.inf], [0, 0]]), response="weight", directed=True)
