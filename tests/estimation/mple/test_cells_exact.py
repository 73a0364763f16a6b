"""Dyad-independent attribute models fitted by attribute cells equal their closed form
(#35 item 4): saturated models (``edges + nodemix``, ``edges + nodematch(diff=TRUE)``) against
logits of tie densities counted here with numpy, the others (``nodefactor``, ``absdiff``,
``nodeofactor``/``nodeifactor``, mixed) against their moment equations (expected = observed
statistics, the expectation summed here over attribute pairs), undirected and directed.
The 10^6-node case is ``long`` (``pytest -m long -s`` prints its CPU seconds)."""
import time

import numpy as np
import pytest
from scipy.special import expit, logit

import ergmfit as ef
from ergmfit.estimation.mple.cells import cell_design
from ergmfit.network import Network

K_G, K_AGE = 4, 7


def _network(n, directed, seed):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, K_G, n)
    age = rng.integers(0, K_AGE, n)
    m = 3 * n
    i, j = rng.integers(0, n, m), rng.integers(0, n, m)
    # homophily on g, so the estimates are not all alike
    keep = (i != j) & ((g[i] == g[j]) | (rng.random(m) < 0.6))
    i, j = i[keep], j[keep]
    if not directed:
        i, j = np.minimum(i, j), np.maximum(i, j)
    key = np.unique(i * n + j)
    ties = np.column_stack([key // n, key % n])
    net = Network(n, ties, directed, node_attrs={"g": [str(x) for x in g], "age": age.tolist()})
    return net, g, age, ties


def _pair_counts(classes, k, ties, directed):
    """(dyads, ties) between each ordered pair of classes; undirected: a <= b only."""
    size = np.bincount(classes, minlength=k).astype(float)
    dyads = np.outer(size, size) - np.diag(size)
    a, b = classes[ties[:, 0]], classes[ties[:, 1]]
    if not directed:
        a, b = np.minimum(a, b), np.maximum(a, b)
        dyads = np.triu(dyads) - np.diag(np.diag(dyads)) / 2
    s = np.bincount(a * k + b, minlength=k * k).reshape(k, k).astype(float)
    return dyads, s


def _saturated_closed_form(net, g, ties, directed):
    """{formula: {label: closed-form value}}."""
    n_ab, s_ab = _pair_counts(g, K_G, ties, directed)
    out = {}
    # edges + nodemix: edges is the first cell (0, 0), each other cell its logit less that
    base = logit(s_ab[0, 0] / n_ab[0, 0])
    mix = {"edges": base}
    for a in range(K_G):
        for b in range(K_G):
            if (a, b) == (0, 0) or (not directed and a > b):
                continue
            mix[f"mix.g.{a}.{b}"] = logit(s_ab[a, b] / n_ab[a, b]) - base
    out["edges + nodemix('g')"] = mix
    off = ~np.eye(K_G, dtype=bool)
    if not directed:
        off &= np.triu(np.ones((K_G, K_G), dtype=bool))
    base = logit(s_ab[off].sum() / n_ab[off].sum())
    match = {"edges": base}
    for a in range(K_G):
        match[f"nodematch.g.{a}"] = logit(s_ab[a, a] / n_ab[a, a]) - base
    out["edges + nodematch('g', diff=TRUE)"] = match
    return out


def _row(formula, ga, gb, aa, ab, directed):
    """The change-statistic row of a dyad from (g, age) of its two nodes, by the terms'
    definitions (nodefactor / nodeofactor / nodeifactor drop the first level)."""
    row = [1.0]
    if "nodefactor" in formula:
        row += [float(ga == lev) + float(gb == lev) for lev in range(1, K_G)]
    if "nodeofactor" in formula:
        row += [float(ga == lev) for lev in range(1, K_G)]
    if "nodeifactor" in formula:
        row += [float(gb == lev) for lev in range(1, K_G)]
    if "nodematch" in formula:
        row.append(float(ga == gb))
    if "absdiff" in formula:
        row.append(float(abs(aa - ab)))
    return row


MOMENT_FORMULAS = {
    False: ["edges + nodefactor('g')", "edges + absdiff('age')",
            "edges + nodefactor('g') + nodematch('g') + absdiff('age')"],
    True: ["edges + nodeofactor('g') + nodeifactor('g')", "edges + absdiff('age')",
           "edges + nodefactor('g') + nodematch('g') + absdiff('age')"],
}


def _moment_gap(fit, formula, g, age, ties, directed):
    """max |expected - observed| / max(1, observed) over the statistics at the fit."""
    cls = g * K_AGE + age
    k = K_G * K_AGE
    n_ab, s_ab = _pair_counts(cls, k, ties, directed)
    theta = np.asarray(fit.params, dtype=float)
    expected = np.zeros(len(theta))
    observed = np.zeros(len(theta))
    for a in range(k):
        for b in range(k):
            if n_ab[a, b] == 0:
                continue
            x = np.array(_row(formula, a // K_AGE, b // K_AGE, a % K_AGE, b % K_AGE, directed))
            expected += n_ab[a, b] * expit(x @ theta) * x
            observed += s_ab[a, b] * x
    return float(np.max(np.abs(expected - observed) / np.maximum(1.0, observed)))


def _check(n, directed, seed):
    net, g, age, ties = _network(n, directed, seed)
    cpu = {}
    for formula, want in _saturated_closed_form(net, g, ties, directed).items():
        m = ef.ERGM(net, formula)
        assert cell_design(m) is not None, formula
        t = time.process_time()
        fit = m.fit(method="mple", max_dyads=1000)   # cells at any size
        cpu[formula] = time.process_time() - t
        got = dict(zip(fit.params.labels, np.asarray(fit.params, dtype=float)))
        assert set(got) == set(want), formula
        for lab, v in want.items():
            assert got[lab] == pytest.approx(v, abs=1e-9), (formula, lab)
    for formula in MOMENT_FORMULAS[directed]:
        m = ef.ERGM(net, formula)
        assert cell_design(m) is not None, formula
        t = time.process_time()
        fit = m.fit(method="mple", max_dyads=1000)   # cells at any size
        cpu[formula] = time.process_time() - t
        assert _moment_gap(fit, formula, g, age, ties, directed) < 1e-9, formula
    return cpu


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_cell_fits_equal_the_closed_form(directed, seed):
    _check(3_000, directed, seed)


@pytest.mark.long
@pytest.mark.parametrize("directed", [False, True])
def test_cell_fits_at_a_million_nodes_equal_the_closed_form(directed):
    cpu = _check(10**6, directed, 3)
    for formula, s in cpu.items():
        print(f"\n10^6 nodes, directed={directed}: {formula}: {s:.2f} CPU s")
