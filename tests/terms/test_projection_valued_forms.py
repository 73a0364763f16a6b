"""Project()/Proj1()/Proj2() inner terms CMP, sociality(form=) and absdiffcat(form=): values
by statnet's definitions (Σ over projected dyads p < q of x_pq h(y_pq), y_pq the number of
shared partners in the other mode), change statistics equal to full differences."""
from math import lgamma

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import TermError
from ergmfit.network import as_network
from support.change_stats import check_formula, two_mode_graph


def projected(g, n1, mode):
    A = nx.to_numpy_array(g, nodelist=range(g.number_of_nodes()))
    B = A[:n1, n1:]
    Y = B @ B.T if mode == 1 else B.T @ B
    a = np.array([g.nodes[v]["a"] for v in g.nodes])
    a = a[:n1] if mode == 1 else a[n1:]
    return Y, a


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mode", [1, 2])
def test_values_by_definition(seed, mode):
    g, n1 = two_mode_graph(seed)
    Y, a = projected(g, n1, mode)
    m = len(a)
    pairs = [(p, q) for p in range(m) for q in range(p + 1, m)]
    f = (f'Proj{mode}(~CMP + sociality(form="sum") + sociality(form="nonzero") + '
         f'absdiffcat("a") + absdiffcat("a", form="nonzero"))')
    st = ef.ERGM(g, f).statistics()
    cmp_ = sum(lgamma(Y[p, q] + 1) for p, q in pairs)
    soc = [sum(Y[k, j] for j in range(m) if j != k) for k in range(1, m)]       # base=1
    socnz = [sum(Y[k, j] > 0 for j in range(m) if j != k) for k in range(1, m)]
    ds = sorted({abs(a[p] - a[q]) for p, q in pairs} - {0})
    adc = [sum(Y[p, q] for p, q in pairs if abs(a[p] - a[q]) == d) for d in ds]
    adcnz = [sum(Y[p, q] > 0 for p, q in pairs if abs(a[p] - a[q]) == d) for d in ds]
    expected = [cmp_] + soc + socnz + adc + adcnz
    labels = list(st)
    assert labels[0] == f"Proj{mode}~CMP"
    assert labels[1] == f"Proj{mode}~sociality2.sum"
    assert labels[-1] == f"Proj{mode}~absdiff.nonzero.a.{ds[-1]}"
    np.testing.assert_allclose(list(st.values()), expected, rtol=1e-12)


@pytest.mark.parametrize("seed", range(2))
def test_change_statistics_equal_full_differences(seed):
    g, _ = two_mode_graph(10 + seed)
    check_formula(as_network(g), 'Proj1(~CMP + sociality(form="nonzero") + absdiffcat("a")) '
                                 '+ Proj2(~CMP + sociality)', seed)


def test_an_inner_term_without_a_valued_form_is_refused_by_name():
    # nodecovar has its valued form since session 6b (tests/terms/test_for_macro.py)
    g, _ = two_mode_graph(0)
    with pytest.raises(TermError, match="triangle.*no valued form"):
        ef.ERGM(g, "Proj1(~triangle)")
