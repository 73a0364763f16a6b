"""transitiveweights / cyclicalweights from the level two-path counts a count state keeps under
a bounded reference (docs/valued_terms.md, "Level two-path counts"): the counts kept through
random moves equal a recount, and every change statistic equals the difference of the
statistic written in numpy (Krivitsky 2012, eq. 13) before and after the move: all eight
(twopath, combine, affect) rules, transitive and cyclical, directed and undirected, several
seeds."""
import itertools

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from support.valued_networks import random_count_graph as support_random_count_graph

RULES = list(itertools.product(("min", "geomean"), ("max", "sum"), ("min", "geomean")))


def random_count_graph(n, directed, seed, top, density):
    return support_random_count_graph(n, directed, seed, density, top)


def weights(Y, directed, twopath, combine, affect, cyclical):
    """Σ_{a != b} affect(y_ab or y_ba, combine_{k != a, b} twopath(y_ak, y_kb)); over a < b
    when undirected (the definition, vectorised)."""
    n = len(Y)
    Y = Y.astype(float)
    pair = (lambda a, b: np.minimum(a, b)) if twopath == "min" else (lambda a, b: np.sqrt(a * b))
    legs = pair(Y[:, :, None], Y[None, :, :])          # legs[a, k, b]: a -> k -> b
    idx = np.arange(n)
    legs[idx, idx, :] = 0.0                             # k == a
    legs[:, idx, idx] = 0.0                             # k == b
    C = legs.max(1) if combine == "max" else legs.sum(1)
    focus = Y.T if cyclical else Y
    A = np.minimum(focus, C) if affect == "min" else np.sqrt(focus * C)
    np.fill_diagonal(A, 0.0)
    return A.sum() if directed else A.sum() / 2


def test_vectorised_definition_is_the_loop_definition():
    from families.test_count_terms import weights as loop_weights
    for directed in (True, False):
        Y = nx.to_numpy_array(random_count_graph(6, directed, 5, 3, 0.6), weight="w")
        for (tp, cb, af), cyc in itertools.product(RULES, (False, True)):
            assert np.isclose(weights(Y, directed, tp, cb, af, cyc),
                              loop_weights(Y, directed, tp, cb, af, cyc), rtol=1e-12)


def level_counts(Y, top):
    """N[a, b, v - 1] = #{k not in (a, b): min(y_ak, y_kb) >= v}."""
    n = len(Y)
    N = np.zeros((n, n, top), dtype=np.int64)
    for a, b in itertools.permutations(range(n), 2):
        for k in range(n):
            if k not in (a, b):
                N[a, b, :min(Y[a, k], Y[k, b])] += 1
    return N


def test_level_counts_follow_random_moves():
    for directed, seed in itertools.product((True, False), (1, 2, 3)):
        top = 3
        g = random_count_graph(9, directed, seed, top, 0.5)
        m = ef.ERGM(g, "transitiveweights", response="w", reference=f"Binomial({top})")
        cm = m.compiled()
        assert cm.state.levels == top
        rng = np.random.default_rng(seed)
        for _ in range(60):
            cm.set_value(int(rng.integers(cm.n_vars)), int(rng.integers(top + 1)))
        Y = cm.state.to_dense()
        assert np.array_equal(cm.state.level_twopath_counts(), level_counts(Y, top))
        assert np.array_equal(cm.state.copy().level_twopath_counts(), level_counts(Y, top))


def test_no_level_counts_without_bounded_values():
    g = random_count_graph(6, True, 1, 3, 0.5)
    for formula, reference in (("transitiveweights", "Poisson"),
                               ("transitiveweights('geomean')", "Binomial(3)"),
                               ("sum", "Binomial(3)")):
        cm = ef.ERGM(g, formula, response="w", reference=reference).compiled()
        assert cm.state.levels == 0 and cm.state.level_twopath_counts() is None


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed, density", [(11, 0.3), (12, 0.6), (13, 0.85)])
def test_change_statistics_are_differences_of_the_definition(directed, seed, density):
    top = 3
    n = 8
    g = random_count_graph(n, directed, seed, top, density)
    terms = [f"{name}('{tp}', '{cb}', '{af}')" for tp, cb, af in RULES
             for name in ("transitiveweights", "cyclicalweights")]
    m = ef.ERGM(g, " + ".join(terms), response="w", reference=f"Binomial({top})")
    cm = m.compiled()
    assert cm.state.levels == top

    def definition():
        Y = cm.state.to_dense()
        return np.array([weights(Y, directed, tp, cb, af, cyc) for tp, cb, af in RULES
                         for cyc in (False, True)])

    rng = np.random.default_rng(seed)
    before = definition()
    for _ in range(40):
        v = int(rng.integers(cm.n_vars))
        y = int(rng.integers(top + 1))
        change = cm.change_stats(v, y)
        cm.set_value(v, y)
        after = definition()
        assert np.allclose(change, after - before, rtol=1e-12, atol=1e-9), \
            (cm.dyad_of(v), y, change - (after - before))
        before = after
