"""Contrastive divergence (CD-n), the MH engine's CD and batch modes, and the
MCMC-MLE fallback to CD when the MPLE does not exist."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.contrastive.cd import CD, density_index, density_start, hotelling_iid
from ergmfit.exceptions import DegenerateModelError
from ergmfit.sampling._mh import MHSampler
from ergmfit.sampling._proposals import RandomToggle, TieNoTie
from ergmfit.utils.validation import seed_words


@pytest.fixture(scope="module")
def samplike():
    return ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual")


# ---------------------------------------------------------------------------
# the sampler's CD and batch modes
# ---------------------------------------------------------------------------
def test_cd_sample_rows_are_one_step_changes_and_state_is_restored():
    m = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + triangle + kstar(2)")
    cm = m.compiled()
    before = np.sort(cm.on_vars())
    allowed = {tuple(np.zeros(3))}
    for v in range(cm.n_vars):
        d = cm.change_stats(v)
        allowed.add(tuple(np.round(-d if cm.value(v) else d, 9)))
    s = MHSampler(cm, RandomToggle(), seed_words(3))
    Z = s.cd_sample([-1.0, 0.2, -0.1], 400, 1)
    assert np.array_equal(np.sort(cm.on_vars()), before)            # every run was undone
    assert np.all(s.delta == 0)
    rows = {tuple(np.round(z, 9)) for z in Z}
    assert rows <= allowed
    assert len(rows) > 3                                    # several different moves


def test_cd_sample_many_steps_matches_recomputed_statistics():
    # a draw of nsteps proposals, replayed with the same seed through run(),
    # must give the same change of the statistics as recomputing them
    m = ef.ERGM(ef.datasets.load_network("lazega"), "edges + triangle + nodematch('practice')")
    th = [-2.0, 0.3, 0.5]
    cm = m.compiled()
    s = MHSampler(cm, TieNoTie(), seed_words(5))
    Z = s.cd_sample(th, 1, 50)
    cm2 = m.compiled()
    s2 = MHSampler(cm2, TieNoTie(), seed_words(5))
    s2.run(th, 50)
    g0 = m.statistics_vector()
    assert np.allclose(Z[0], m.statistics_vector(cm2.state.ties()) - g0)
    assert np.allclose(Z[0], s2.delta)


def test_run_batch_sums_and_score_mode():
    m = ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual")
    cm = m.compiled()
    before = np.sort(cm.on_vars())
    s = MHSampler(cm, TieNoTie(), seed_words(1))
    add, dele = s.run_batch([-1.7, 2.3], 500, apply=False)
    assert np.array_equal(np.sort(cm.on_vars()), before) and np.all(s.delta == 0)
    assert add[0] > 0 and dele[0] > 0          # edges change is 1 per accepted move
    add, dele = s.run_batch([-1.7, 2.3], 500, apply=True)
    assert np.allclose(add - dele, s.delta)
    assert np.allclose(m.statistics_vector(cm.state.ties()) - m.statistics_vector(), s.delta)


# ---------------------------------------------------------------------------
# CD estimator
# ---------------------------------------------------------------------------
def test_hotelling_iid():
    # p-values of centred samples are uniform; a shifted one is rejected
    ps = [hotelling_iid(np.random.default_rng(s).normal(size=(300, 3)))[0] for s in range(200)]
    assert 0.02 < np.mean(np.array(ps) < 0.1) < 0.2
    Z = np.random.default_rng(1).normal(size=(500, 3))
    p0, _ = hotelling_iid(Z)
    p1, _ = hotelling_iid(Z + np.array([0.3, 0.0, 0.0]))
    assert p0 > 0.01 and p1 < 1e-6
    # a statistic that never varies and is 0 does not block the test
    Z[:, 2] = 0.0
    assert hotelling_iid(Z)[0] > 0.01
    Z[:, 2] = 1.0
    assert hotelling_iid(Z)[0] == 0.0


def test_density_helpers(samplike):
    assert density_index(samplike) == 0
    th = density_start(samplike)
    L, D = 88, 18 * 17
    assert th[0] == pytest.approx(np.log(L / (D - L))) and th[1] == 0
    m = ef.ERGM(ef.datasets.load_network("samplike"), "mutual")
    assert density_index(m) is None and np.all(density_start(m) == 0)


def _free_view(model, coef):
    """The model of the free coefficients that a fit with offsets hands an estimator."""
    import copy
    from ergmfit.terms.offsets import OffsetParameterisation
    free = copy.copy(model)
    free.parameterisation = OffsetParameterisation(model.parameterisation, model.offset, coef)
    free.labels = [lab for lab, o in zip(model.labels, model.offset) if not o]
    free.offset = np.zeros(len(free.labels), dtype=bool)
    return free


@pytest.mark.parametrize("formula, density_at", [
    ("offset(mutual) + edges", 0),            # edges after an offset: first free coefficient
    ("edges + offset(mutual) + istar(2)", 0),
    ("offset(mutual) + istar(2) + edges", 1),
    ("offset(edges) + mutual", None),         # the density coefficient is fixed
    ("offset(mutual) + edges + gwesp(0.3, fixed=FALSE)", 0)])
def test_density_start_of_a_model_with_offsets(formula, density_at):
    net = ef.datasets.load_network("samplike")
    m = ef.ERGM(net, formula)
    free = _free_view(m, [0.5])
    th = density_start(free)
    assert th.shape == (len(free.labels),)
    L, D = 88, 18 * 17
    logit = np.log(L / (D - L))
    expected = np.zeros(len(free.labels))
    if density_at is not None:
        expected[density_at] = logit
    if "gwesp" in formula:
        expected[free.labels.index("gwesp.decay")] = 0.3
    assert th == pytest.approx(expected)


def test_cd_fits_a_model_with_an_offset_before_edges():
    m = ef.ERGM(ef.datasets.load_network("samplike"), "offset(mutual) + edges")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method="cd", offset_coef=[0.5], random_state=1, maxit=2)
    assert fit.params[0] == 0.5 and np.isfinite(fit.params[1]) and fit.params[1] < 0


def test_cd_edges_only_is_logit_density():
    m = ef.ERGM(ef.datasets.load_network("lazega"), "edges")
    out = CD(init=[0.0], random_state=1).run(m)
    L, D = 115, 36 * 35 // 2
    assert out["converged"]
    assert out["params"][0] == pytest.approx(np.log(L / (D - L)), abs=0.06)


def test_cd_samplike_statnet_like_and_reproducible(samplike):
    a = samplike.fit(method="cd", random_state=4)
    b = samplike.fit(method="cd", random_state=4)
    c = samplike.fit(method="cd", random_state=5)
    assert np.array_equal(np.asarray(a.params), np.asarray(b.params))
    assert not np.array_equal(np.asarray(a.params), np.asarray(c.params))
    # CD-8 is an approximation of the MLE (statnet MCMC-MLE: -1.762 (0.205), 2.323 (0.416))
    assert abs(a.params["edges"] - (-1.762)) < 0.205
    assert abs(a.params["mutual"] - 2.323) < 0.416
    assert a.converged and a.method == "cd"
    text = str(a.summary())
    assert "Contrastive Divergence Results:" in text and " NA " in text
    assert np.all(np.isnan(np.asarray(a.bse)))
    assert a.info["nsteps"] == 8 and a.info["samplesize"] == 256


def test_cd1_and_bad_arguments(samplike):
    out = CD(nsteps=1, random_state=2, maxit=30).run(samplike)
    assert np.all(np.isfinite(out["params"])) and out["nsteps"] == 1
    with pytest.raises(ValueError, match="nsteps"):
        CD(nsteps=0)
    with pytest.raises(ValueError, match="2 value"):
        CD(init=[1.0]).run(samplike)


def test_mcmle_starts_from_cd_when_mple_does_not_exist(monkeypatch):
    from ergmfit.estimation.mcmle import estimator as mcmle
    from ergmfit.estimation.mcmle import start
    from ergmfit.estimation.mple import pseudolikelihood as mple

    def broken(*args, **kwargs):
        raise DegenerateModelError("the MPLE does not exist (separation)")

    m = ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual")
    monkeypatch.setattr(mple.MPLE, "fit", broken)
    theta, how = start.initial_estimate(m, random_state=np.random.default_rng(1))
    assert how == "CD"
    assert abs(theta[0] + 1.76) < 0.3 and abs(theta[1] - 2.3) < 0.6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = mcmle.MCMLE(random_state=1, verbose=False, eval_loglik=False, maxit=4).fit(m)
    assert fit.info["init_method"] == "CD"


def test_density_start_counts_the_dyads_of_the_sample_space():
    # a two-mode network of 3 + 4 nodes has 12 dyads (between the modes), not 21: the
    # density start is logit(3 / 12) (main: log(3 / 18), from every node pair)
    import networkx as nx
    g = nx.Graph()
    g.add_nodes_from(range(3), bipartite=0)
    g.add_nodes_from(range(3, 7), bipartite=1)
    g.add_edges_from([(0, 3), (1, 4), (2, 6)])
    m = ef.ERGM(g, "edges")
    assert density_start(m)[0] == pytest.approx(np.log(3 / 9), abs=1e-12)
    fit = m.fit("cd", random_state=1)
    assert fit.nobs == 12 and fit.null_loglik == pytest.approx(-12 * np.log(2))
