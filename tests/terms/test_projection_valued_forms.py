"""Project()/Proj1()/Proj2() inner terms CMP, sociality(form=), absdiffcat(form=) and nodecovar: values
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
    # nodecovar has its valued form since session 6b (tests/terms/test_projection_valued_forms.py)
    g, _ = two_mode_graph(0)
    with pytest.raises(TermError, match="triangle.*no valued form"):
        ef.ERGM(g, "Proj1(~triangle)")


# -- nodecovar inside Project() -------------------------------------------------------------
# ``nodecovar(center, transform)`` inside ``Project()``/``Proj1``/``Proj2``: statnet's valued
# term on the projection (help page: Σ_{i,j<k} y_ij y_ik / (n − 2); the expected values are
# the R expressions of statnet's test-valued-terms.R, written in numpy).  Before: refused.

def nodecovar_by_definition(Y, center, root):
    """statnet's test-valued-terms.R: sum(apply(m, 1, function(r) (sum(r %o% r) - sum(r^2))
    / 2 / (length(r) - 1))), r a row without its diagonal NA, m the (square-rooted)
    values, less their mean over the off-diagonal cells when centred."""
    n = len(Y)
    m = np.sqrt(Y) if root else Y.astype(float)
    off = ~np.eye(n, dtype=bool)
    if center:
        m = m - m[off].mean()
    rows = [m[i, off[i]] for i in range(n)]
    return sum((np.outer(r, r).sum() - (r ** 2).sum()) / 2 / (len(r) - 1) for r in rows)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mode", [1, 2])
def test_project_nodecovar_values_by_definition(seed, mode):
    g, n1 = two_mode_graph(seed)
    A = nx.to_numpy_array(g, nodelist=range(g.number_of_nodes()))
    B = A[:n1, n1:]
    Y = B @ B.T if mode == 1 else B.T @ B
    st = ef.ERGM(g, f'Proj{mode}(~nodecovar(FALSE) + nodecovar(TRUE) + sum + '
                    f'nodecovar(FALSE, "sqrt") + nodecovar(center=TRUE, transform="sqrt"))'
                 ).statistics()
    want = [nodecovar_by_definition(Y, c, r) for c, r in ((False, False), (True, False))] + \
        [Y[np.triu_indices(len(Y), 1)].sum()] + \
        [nodecovar_by_definition(Y, c, r) for c, r in ((False, True), (True, True))]
    labels = list(st)
    assert labels[0] == f"Proj{mode}~nodecovar" and labels[2] == f"Proj{mode}~sum"
    np.testing.assert_allclose(list(st.values()), want, rtol=1e-12, atol=1e-12)
    # Project(f, mode) is Proj<mode>(f)
    assert ef.ERGM(g, f"Project(~nodecovar(TRUE), {mode})").statistics() == \
        {f"Proj{mode}~nodecovar": st[labels[1]]}


@pytest.mark.parametrize("seed", range(2))
def test_project_nodecovar_change_statistics_equal_full_differences(seed):
    g, _ = two_mode_graph(20 + seed)
    check_formula(as_network(g), 'Proj1(~nodecovar(TRUE) + nodecovar(FALSE, "sqrt")) + '
                                 'Proj2(~sum + nodecovar(TRUE, "sqrt") + nodecovar(FALSE))', seed)


def test_project_nodecovar_follows_a_long_run_of_toggles():
    # the kernel keeps each projected node's sum of values: after many toggles the
    # accumulated changes still equal the statistics of the network reached
    g, n1 = two_mode_graph(5, n1=12, n2=15, p=0.3)
    m = ef.ERGM(g, 'Proj1(~nodecovar(TRUE, "sqrt")) + Proj2(~nodecovar(TRUE))')
    c = m.compiled()
    rng = np.random.default_rng(1)
    total = m.statistics_vector()
    for _ in range(400):
        i, j = int(rng.integers(n1)), int(rng.integers(n1, g.number_of_nodes()))
        d = np.asarray(c.dyad_change_stats(i, j))
        total = total + (-d if c.state.has(i, j) else d)
        c.toggle(i, j)
    np.testing.assert_allclose(total, m.statistics_vector(c.state.ties()), rtol=1e-10)


def test_project_nodecovar_arguments():
    g, _ = two_mode_graph(0)
    with pytest.raises(TermError, match="give center=TRUE or center=FALSE"):
        ef.ERGM(g, "Proj1(~nodecovar)")
    with pytest.raises(TermError, match="transform must be 'identity' or 'sqrt'"):
        ef.ERGM(g, 'Proj1(~nodecovar(TRUE, "log"))')
    tiny, _ = two_mode_graph(0, n1=2, n2=4, p=1.0)
    with pytest.raises(TermError, match="at least 3 nodes"):
        ef.ERGM(tiny, "Proj1(~nodecovar(FALSE))")
