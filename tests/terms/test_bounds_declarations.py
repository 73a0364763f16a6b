"""The term table's ``bounds`` declarations are true (#36: a statistic observed at a declared
bound gets an infinite estimate, so a wrong declaration would give a wrong -Inf): on random
networks every ``"count"`` statistic is >= 0, and adding any tie never decreases an
``"increasing"`` one (whose bounds are then its values on the empty and complete networks)."""
import itertools

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.network import Network
from ergmfit.terms.registry import BOUNDS, DIRECTED, UNDIRECTED, all_terms

#: a formula for every term that declares bounds, per network kind (the test fails when a
#: declared term is missing here)
FORMULAS = {
    UNDIRECTED: ["kstar(2:3)", "kstar(2, attr='g')", "triangle", "triangle(attr='g')",
                 "twopath", "concurrent", "concurrent(by='g')", "degree(0:3)", "isolates",
                 "esp(0:2)", "dsp(0:2)", "gwesp(0.5, fixed=TRUE)", "gwdsp(0.5, fixed=TRUE)",
                 "gwdegree(0.5, fixed=TRUE)", "cycle(4)"],
    DIRECTED: ["istar(2)", "ostar(2:3)", "triangle", "ttriple", "ctriple", "transitive",
               "twopath", "mutual", "mutual(same='g')", "idegree(0:2)", "odegree(1)",
               "isolates", "esp(0:1)", "dsp(1)", "gwesp(0.5, fixed=TRUE)",
               "gwdsp(0.5, fixed=TRUE)", "gwidegree(0.5, fixed=TRUE)",
               "gwodegree(0.5, fixed=TRUE)", "cycle(3)"],
}


def _term_name(formula):
    return formula.split("(")[0]


def test_every_declaring_term_is_checked():
    for spec in all_terms():
        if spec.bounds is None:
            continue
        assert spec.bounds in BOUNDS
        kinds = [UNDIRECTED, DIRECTED] if spec.kinds not in (UNDIRECTED, DIRECTED) \
            else [spec.kinds]
        for kind in kinds:
            names = {_term_name(f) for f in FORMULAS[kind]}
            assert spec.name in names, (spec.name, kind)


def _network(n, directed, p, rng):
    pairs = list(itertools.permutations(range(n), 2) if directed
                 else itertools.combinations(range(n), 2))
    on = rng.random(len(pairs)) < p
    ties = np.array(pairs, dtype=np.int64)[on].reshape(-1, 2)
    return Network(n, ties, directed=directed,
                   node_attrs={"g": [int(v) for v in rng.integers(0, 2, n)]}), pairs


@pytest.mark.parametrize("kind", [UNDIRECTED, DIRECTED])
def test_declared_bounds_hold(kind):
    rng = np.random.default_rng(36)
    directed = kind == DIRECTED
    for p in (0.15, 0.4, 0.7):
        net, pairs = _network(6, directed, p, rng)
        for formula in FORMULAS[kind]:
            m = ef.ERGM(net, formula)
            term = m.terms[0]
            ties = net.ties
            g = m.statistics_vector(ties)
            if term.bounds == "count":
                assert np.all(g >= 0), (formula, g)
                continue
            have = {tuple(t) for t in ties.tolist()}
            for pair in pairs:
                if pair in have:
                    continue
                g1 = m.statistics_vector(np.vstack([ties, [pair]]))
                assert np.all(g1 >= g - 1e-12), (formula, pair, g, g1)
