"""offset() inside the formula of an operator that wraps its formula's model one statistic
for one (B, F, S, Symmetrize, Label, Passthrough, NodematchFilter): the coefficient is fixed,
as statnet's operators built on ``wrap.ergm_model`` ("wraps ... offset indicators";
statnet/ergm issue 320: ``Passthrough(~edges + offset(triangle))`` gives
``offset(Passthrough~triangle)``).  Before, these operators warned and estimated the
coefficient freely (a wrong number where the user fixed it).  Each case is checked against
the same model written with ``offset()`` around the operator."""
import warnings

import numpy as np
import pytest

import ergmfit as ef

CASES = [
    ("flomarriage", "Passthrough(~{t}, label=TRUE)", "triangle", "offset(Passthrough~triangle)"),
    ("flomarriage", 'Label(~{t}, "x")', "triangle", "offset(x(triangle))"),
    ("flomarriage", 'B(~{t}, form="nonzero")', "triangle", "offset(B(nonzero)~triangle)"),
    ("flomarriage", 'F(~{t}, ~absdiff("wealth") > 20)', "kstar(2)",
     'offset(F(absdiff("wealth")>20)~kstar2)'),
    ("samplike", 'S(~{t}, ~group == "Turks")', "mutual", 'offset(S(group=="Turks")~mutual)'),
    ("samplike", "Symmetrize(~{t})", "triangle", "offset(Symmetrize(weak)~triangle)"),
    ("samplike", 'NodematchFilter(~{t}, "group")', "mutual",
     "offset(NodematchFilter(group)~mutual)"),
]


@pytest.mark.parametrize("data, op, inner, label", CASES, ids=[c[1].split("(")[0] for c in CASES])
def test_offset_inside_an_operator_is_fixed(data, op, inner, label):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # main: "is not propagated" (and a free fit)
        m = ef.ERGM(data, "edges + " + op.format(t=f"offset({inner})"))
    assert m.labels == ["edges", label] and m.offset.tolist() == [False, True]
    _same_model_with_the_offset_fixed(m, ef.ERGM(data, f"edges + offset({op.format(t=inner)})"),
                                      "mple", 0.2)


def _same_model_with_the_offset_fixed(m, ref, method, coef):
    # m (offset() inside the operator) and ref (offset() around it): the same statistics, and
    # the same fit with the offset held at coef
    assert np.allclose(m.statistics_vector(), ref.statistics_vector())
    fit = m.fit(method, offset_coef=[coef])
    want = ref.fit(method, offset_coef=[coef])
    assert fit.params[1] == coef
    assert np.allclose(fit.params, want.params, atol=1e-10)


def test_offset_inside_n_is_refused_as_ergm_multi_does():
    # ergm.multi: "The ERGM 'formula=' argument of an 'N()' operator may not have offsets"
    # (main: a warning, and the coefficient estimated)
    import networkx as nx
    nets = ef.Networks([nx.path_graph(5), nx.cycle_graph(6)])
    with pytest.raises(ef.TermError, match=r"offset\(N\(~term\)\)"):
        ef.ERGM(nets, "N(~edges + offset(triangle))")
    m = ef.ERGM(nets, "N(~edges) + offset(N(~triangle))")
    assert m.labels == ["N(1)~edges", "offset(N(1)~triangle)"]


# -- tergm's temporal operators: the same propagation (wrapped_offsets) ------------------
def _series(directed, n=14, seed=0):
    import networkx as nx
    rng = np.random.default_rng(seed)
    waves = []
    for _ in range(3):
        g = nx.DiGraph() if directed else nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from((i, j) for i in range(n) for j in range(n)
                         if i != j and (directed or i < j) and rng.random() < 0.2)
        waves.append(g)
    return ef.NetSeries(waves)


TEMPORAL = [("Form", True, "mutual"), ("Persist", True, "mutual"), ("Diss", False, "triangle"),
            ("Cross", True, "mutual"), ("Change", False, "triangle")]


@pytest.mark.parametrize("op, directed, inner", TEMPORAL, ids=[c[0] for c in TEMPORAL])
def test_offset_inside_a_temporal_operator_is_fixed(op, directed, inner):
    # tergm: Persist(~offset(edges)) is offset(Persist~edges); the same model as offset()
    # around the operator, in labels, statistics and the conditional MPLE
    s = _series(directed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = ef.ERGM(s, f"{op}(~edges + offset({inner}))")
    assert m.labels == [f"{op}~edges", f"offset({op}~{inner})"]
    assert m.offset.tolist() == [False, True]
    _same_model_with_the_offset_fixed(m, ef.ERGM(s, f"{op}(~edges) + offset({op}(~{inner}))"),
                                      "cmple", 0.3)


def test_offset_of_a_curved_term_inside_a_temporal_operator():
    # offset(gwesp(fixed=FALSE)) fixes both parameters; offset(..., 2) the decay only
    s = _series(False)
    m = ef.ERGM(s, "Form(~edges + offset(gwesp(0.5, fixed=FALSE)))")
    assert m.labels == ["Form~edges", "offset(Form~gwesp)", "offset(Form~gwesp.decay)"]
    assert m.offset.tolist() == [False, True, True]
    m = ef.ERGM(s, "Form(~edges + offset(gwesp(0.5, fixed=FALSE), 2))")
    assert m.labels == ["Form~edges", "Form~gwesp", "offset(Form~gwesp.decay)"]
    assert m.offset.tolist() == [False, False, True]
    m = ef.ERGM(s, "Persist(~edges + offset(gwesp(0.5, fixed=TRUE)))")
    assert m.labels == ["Persist~edges", "offset(Persist~gwesp.fixed.0.5)"]
    assert m.offset.tolist() == [False, True]
