"""kstar/istar/ostar(k, attr=, levels=) (statnet documents levels for them): the selected
levels keep their classes and every other level is pooled into one class, as statnet 4
recodes the attribute (one code for no match); a single selected level is allowed (statnet
4 dropped 3.x's "only one value" refusal).  Checked by brute force over the stars of
faux.mesa.high."""
from math import comb

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError

MESA = "faux.mesa.high"



def test_kstar_levels_pools_the_unselected_levels():
    m = ef.ERGM(MESA, "kstar(2:3, 'Grade', levels=I(c(7, 8)))")
    net = m.network
    grade = np.asarray(net.node_attribute("Grade"))
    # classes: grade 7 -> 0, grade 8 -> 1, every other grade -> one pooled class 2
    cls = np.where(grade == 7, 0, np.where(grade == 8, 1, 2))
    A = np.zeros((net.n, net.n), dtype=int)
    for i, j in np.asarray(net.ties):
        A[i, j] = A[j, i] = 1
    want = [sum(comb(int(np.sum(A[v] * (cls == cls[v]))), k) for v in range(net.n))
            for k in (2, 3)]
    got = m.statistics()
    assert list(got) == ["kstar2.Grade", "kstar3.Grade"]
    assert [got["kstar2.Grade"], got["kstar3.Grade"]] == want
    # the pooled class counts stars among different unselected grades: more than the
    # stars within grade 7 and within grade 8 alone
    within = sum(comb(int(np.sum(A[v] * (cls == cls[v]))), 2) for v in range(net.n)
                 if cls[v] < 2)
    assert want[0] > within
    # every level selected = no selection
    assert ef.ERGM(MESA, "kstar(2, 'Grade', levels=TRUE)").statistics() == \
        ef.ERGM(MESA, "kstar(2, 'Grade')").statistics()


def test_istar_ostar_levels_and_refusals():
    net = ef.ERGM(MESA, "edges").network
    rng = np.random.default_rng(5)
    el = sorted({(int(a), int(b)) for a, b in rng.integers(0, net.n, size=(400, 2)) if a != b})
    D = ef.Network(net.n, el, directed=True,
                   node_attrs={"Grade": list(net.node_attribute("Grade"))})
    grade = np.asarray(net.node_attribute("Grade"))
    cls = np.where(grade == 9, 0, np.where(grade == 10, 1, 2))
    A = np.zeros((net.n, net.n), dtype=int)
    for i, j in set(el):
        A[i, j] = 1
    same = cls[:, None] == cls[None, :]
    got = ef.ERGM(D, "istar(2, 'Grade', levels=c('9', '10')) + "
                     "ostar(2, 'Grade', levels=c('9', '10'))").statistics()
    assert got["istar2.Grade"] == sum(comb(int(np.sum(A[:, v] * same[v])), 2) for v in range(net.n))
    assert got["ostar2.Grade"] == sum(comb(int(np.sum(A[v] * same[v])), 2) for v in range(net.n))
    # one selected level: grade 7 and the pooled rest, two classes (statnet 4 takes it)
    cls1 = np.where(grade == 7, 0, 1)
    A = np.zeros((net.n, net.n), dtype=int)
    for i, j in np.asarray(net.ties):
        A[i, j] = A[j, i] = 1
    got1 = ef.ERGM(MESA, "kstar(2, 'Grade', levels=I(7))").statistics()["kstar2.Grade"]
    assert got1 == sum(comb(int(np.sum(A[v] * (cls1 == cls1[v]))), 2) for v in range(net.n))
    with pytest.raises(ErgmfitError, match="levels selects levels of attr=; give attr="):
        ef.ERGM(MESA, "kstar(2, levels=I(7))").statistics()
