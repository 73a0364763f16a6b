"""The attribute-cell design (#32 item 7): equal to the dyad-by-dyad design, and
the EpiModel-style target fit exact with its zero cell at -Inf."""
import math
import warnings

import numpy as np
import pytest
from scipy import special

import ergmfit as ef
from ergmfit.estimation.mple.cells import cell_design
from ergmfit.exceptions import ConvergenceWarning
from ergmfit.estimation.mple.pseudolikelihood import Design, pseudo_design
from ergmfit.network import Network
from support.paths import load_reference


def _aggregate(X, n, s):
    u, inv = np.unique(X, axis=0, return_inverse=True)
    inv = inv.ravel()
    return u, np.bincount(inv, n, len(u)), np.bincount(inv, s, len(u))


@pytest.mark.parametrize("data, formula", [
    ("faux.mesa.high", "edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE) "
                       "+ nodemix('Race') + absdiff('Grade') + nodecov('Grade')"),
    ("faux.mesa.high", "edges"),
    ("samplk1", "edges + nodematch('group', diff=TRUE) + nodeifactor('group') "
                "+ nodeofactor('cloisterville') + nodemix('group')"),
])
def test_cell_design_equals_the_dyad_design(data, formula):
    m = ef.ERGM(ef.datasets.load(data), formula)
    cells = Design(*cell_design(m))
    dyads = pseudo_design(m.compiled())
    assert cells.n_vars == dyads.n_vars and cells.n_on == dyads.n_on
    for a, b in zip(_aggregate(cells.X, cells.n, cells.s),
                    _aggregate(dyads.X, dyads.n, dyads.s)):
        np.testing.assert_array_equal(a, b)


def test_terms_without_a_cell_structure_are_not_counted_by_cells():
    g = ef.datasets.load("faux.mesa.high")
    assert cell_design(ef.ERGM(g, "edges + triangle")) is None
    assert cell_design(ef.ERGM(g, "edges + nodematch('Grade')",
                               constraints="~ bd(maxout=60)")) is None


def test_the_term_table_declares_the_cell_attributes():
    # estimation asks each bound term (its registration's cell_attrs), not its name
    g = ef.datasets.load("faux.mesa.high")
    m = ef.ERGM(g, "edges + nodematch('Grade') + nodemix(c('Race', 'Sex')) + absdiffcat('Grade')"
                   " + triangle")
    assert [t.cell_attrs for t in m.terms] == [[], ["Grade"], ["Race", "Sex"], ["Grade"], None]
    assert cell_design(m) is None                        # triangle: no cell structure


def _epi(sizes):
    grp = np.repeat(np.arange(1, 5), sizes)
    return Network(int(sum(sizes)), [], directed=False, node_attrs={"grp": grp.tolist()})


def _epi_targets(N):
    E = 0.6 * N
    ts = np.concatenate([[E], E * np.array([.10, .20, .08, .10, .15, .05, .07, .05, 0.0])])
    ts = ts + 0.37
    ts[-1] = 0.0
    return ts


@pytest.mark.parametrize("method", ["mple", "mcmle"])
def test_epi20000_target_fit_equals_the_closed_form(method):
    ref = load_reference("statnet_dyadindep_targets.json")["entries"][0]
    m = ef.ERGM(_epi(ref["group_sizes"]), "edges + nodemix('grp', levels2=-1)")
    with pytest.warns(ConvergenceWarning, match="'mix.grp.4.4' is at its smallest"):
        fit = m.fit(method=method, target_stats=ref["target_stats"])
    assert list(fit.labels) == ref["coef_names"]
    exact = ref["exact_coef"]
    # exact s.e.: a cell's log-odds has variance 1 / (t (1 - t / dyads)); mix.grp.a.b is
    # cell a.b minus cell 1.1
    ts = np.asarray(ref["target_stats"], dtype=float)
    cell_t = np.concatenate([[ts[0] - ts[1:].sum()], ts[1:]])
    dyads = np.array(list(ref["cell_dyads"].values()), dtype=float)
    var = 1.0 / (cell_t[:9] * (1.0 - cell_t[:9] / dyads[:9]))
    se = np.sqrt(np.concatenate([[var[0]], var[1:9] + var[0]]))
    for k, lab in enumerate(ref["coef_names"][:-1]):
        assert fit.params[lab] == pytest.approx(exact[lab], abs=1e-9)
        assert fit.bse[lab] == pytest.approx(se[k], rel=1e-6)
        # statnet's MCMC-MLE is within its own s.e. of the exact value, and its s.e.
        # (estimated from its MCMC sample) within 10 % of the exact one
        assert abs(fit.params[lab] - ref["coef"][lab]) < 0.25 * ref["se"][lab]
        assert fit.bse[lab] == pytest.approx(ref["se"][lab], rel=0.10)
    assert fit.params["mix.grp.4.4"] == -math.inf and fit.bse["mix.grp.4.4"] == 0.0
    assert "mix.grp.4.4" in str(fit.summary()).split("infinite coefficient estimates:")[1]


def test_large_target_fit_is_exact_without_sampling():
    # 40,000 nodes: 8e8 dyads, beyond the dyad-by-dyad design (2**26): by cells, exact
    rng = np.random.default_rng(3)
    sizes = rng.multinomial(40_000, [.3, .3, .25, .15])
    m = ef.ERGM(_epi(sizes), "edges + nodemix('grp', levels2=-1)")
    ts = _epi_targets(40_000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = m.fit(method="mple", target_stats=ts)
    # no case-control note; the one warning names the zero cell
    assert [str(w.message).split(" is at")[0][-13:] for w in caught] == ["'mix.grp.4.4'"]
    assert not fit.info["design"]["sampled"]
    assert not any("case-control" in w for w in fit.warnings)
    sz = sizes.astype(float)
    cells = [(0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2), (0, 3), (1, 3), (2, 3)]
    dyads = np.array([sz[a] * (sz[a] - 1) / 2 if a == b else sz[a] * sz[b] for a, b in cells])
    cell_t = np.concatenate([[ts[0] - ts[1:].sum()], ts[1:9]])
    lo = special.logit(cell_t / dyads)
    want = np.concatenate([[lo[0]], lo[1:] - lo[0]])
    np.testing.assert_allclose(np.asarray(fit.params)[:9], want, rtol=0, atol=1e-9)
    assert fit.params["mix.grp.4.4"] == -math.inf


@pytest.mark.parametrize("sizes", [(8, 6, 10), (9000, 7000, 8000)])
def test_a_full_cell_target_gets_plus_inf_and_leaves_the_rest_exact(sizes):
    # group 2's within-group dyads all ties (target = their number): mix.grp.2.2 = +Inf;
    # the small network takes the dyad-by-dyad design, the large one the cells
    grp = np.repeat(np.arange(1, 4), sizes)
    net = Network(int(sum(sizes)), [], directed=False, node_attrs={"grp": grp.tolist()})
    m = ef.ERGM(net, "edges + nodemix('grp', levels2=-1)")
    sz = np.asarray(sizes, dtype=float)
    cells = [(0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)]
    dyads = np.array([sz[a] * (sz[a] - 1) / 2 if a == b else sz[a] * sz[b] for a, b in cells])
    cell_t = np.array([0.2, 0.1, 1.0, 0.05, 0.15, 0.3]) * dyads
    cell_t[[0, 1, 3, 4, 5]] = np.round(cell_t[[0, 1, 3, 4, 5]]) + 0.25
    ts = np.concatenate([[cell_t.sum()], cell_t[1:]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method="mple", target_stats=ts)
    assert fit.params["mix.grp.2.2"] == math.inf and fit.bse["mix.grp.2.2"] == 0.0
    lo = special.logit(cell_t / dyads)
    want = np.concatenate([[lo[0]], lo[1:] - lo[0]])
    keep = [0, 1, 3, 4, 5]
    np.testing.assert_allclose(np.asarray(fit.params)[keep], want[keep], rtol=0, atol=1e-9)


def test_a_zero_target_beside_a_user_offset_at_minus_inf():
    # EpiModel writes structural zeros as offset(...) = -Inf; a zero target elsewhere is a
    # face: -Inf too, the user's offset stays an offset, and the fit equals the one with
    # both written as offsets
    grp = np.repeat(np.arange(1, 5), [6037, 5981, 4897, 3085])
    net = Network(20000, [], directed=False, node_attrs={"grp": grp.tolist()})
    formula = ("edges + nodefactor('grp') + {}nodematch('grp', diff=TRUE, levels=I([3])){} "
               "+ offset(nodematch('grp', diff=TRUE, levels=I([4])))")
    ts = [12000.3, 7000.2, 6000.1, 2000.5, 0.0, 0.0]
    m = ef.ERGM(net, formula.format("", ""))
    with pytest.warns(ConvergenceWarning, match="'nodematch.grp.3' is at its smallest"):
        fit = m.fit(method="mple", target_stats=ts, offset_coef=[-math.inf])
    ref = ef.ERGM(net, formula.format("offset(", ")")).fit(
        method="mple", target_stats=ts, offset_coef=[-math.inf, -math.inf])
    np.testing.assert_array_equal(np.asarray(fit.params), np.asarray(ref.params))
    assert fit.labels[4:] == ["nodematch.grp.3", "offset(nodematch.grp.4)"]
    assert fit.info["infinite"] == {"nodematch.grp.3": "-Inf"}


def test_beyond_max_dyads_an_observed_network_is_fitted_exactly_by_cells():
    # before: a case-control sample of the non-ties (estimates changing with the seed)
    m = ef.ERGM(ef.datasets.load("faux.mesa.high"),
                "edges + nodematch('Grade', diff=TRUE) + nodefactor('Race') + absdiff('Grade')")
    full = m.fit(method="mple")
    cells = m.fit(method="mple", max_dyads=1000)
    assert not cells.info["design"]["sampled"]
    np.testing.assert_allclose(np.asarray(cells.params), np.asarray(full.params),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(cells.bse), np.asarray(full.bse), rtol=1e-9)
    assert cells.loglik == pytest.approx(full.loglik, rel=1e-12)
