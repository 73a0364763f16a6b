"""The MPLE's simulation-based covariances (Godambe, bootstrap) of a model with offsets, and
the case-control note's weight after an infinite offset drops sampled non-ties.

Before session 24 the binary MPLE (which folds offset columns into its design) handed its
free coefficients to the sampler of the full model: ``cov='godambe'`` / ``'bootstrap'``
with an offset raised ``params must have 2 value(s) ... got 1``.  And the case-control note
divided the non-ties left after an infinite offset by the whole sample size (weight 3.85
where every sampled non-tie weighs 407 / 60 = 6.78)."""
import re

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import SettingsError
from ergmfit.estimation import make_estimator
from ergmfit.model import _fit_with_offsets

SIM = dict(burnin=3000, interval=300)


def _graph(n=30, p=0.12, seed=4):
    g = nx.gnp_random_graph(n, p, seed=seed)
    for i in g.nodes:
        g.nodes[i]["a"] = i % 2
    return g


@pytest.mark.parametrize("cov", ["godambe", "bootstrap"])
def test_simulated_cov_of_a_dyad_independent_model_with_an_offset(cov):
    m = ef.ERGM(_graph(), "edges + offset(nodematch('a'))")
    naive = m.fit("mple", offset_coef=[0.5])
    ses = []
    for seed in (1, 2, 3):
        r = m.fit("mple", offset_coef=[0.5], cov=cov, n_sim=150, random_state=seed, **SIM)
        assert r.se_kind == cov
        np.testing.assert_array_equal(r.params, naive.params)
        # the offset's row and column: as the default covariance reports them (zeros)
        np.testing.assert_array_equal(r.cov[1], naive.cov[1])
        np.testing.assert_array_equal(r.cov[:, 1], naive.cov[:, 1])
        assert np.isfinite(r.bse[0]) and r.bse[0] > 0
        ses.append(r.bse[0])
    # dyad independent: the pseudo-likelihood is the likelihood, Godambe = bootstrap =
    # inverse Fisher information (= the naive s.e.) up to Monte-Carlo error (150 draws a
    # seed: about 6 % on a s.e.; the mean of three seeds about 3.5 %)
    assert np.mean(ses) == pytest.approx(naive.bse[0], rel=0.12)


@pytest.mark.parametrize("cov", ["godambe", "bootstrap"])
def test_folded_offsets_give_the_free_views_simulated_cov(cov):
    # the binary MPLE folds the offset columns itself; every other estimator fits the free
    # view (OffsetParameterisation).  Simulating the full θ, the two paths are one chain.
    m = ef.ERGM(_graph(seed=5), "edges + triangle + offset(nodematch('a'))")
    kw = dict(cov=cov, n_sim=40, random_state=11, **SIM)
    folded = m.fit("mple", offset_coef=[0.3], **kw)
    view = _fit_with_offsets(m.configured(offset_coef=[0.3]), make_estimator("mple", **kw))
    np.testing.assert_allclose(folded.params, view.params, rtol=1e-12)
    np.testing.assert_allclose(folded.cov, view.cov, rtol=1e-10, atol=1e-14)
    assert np.all(np.isfinite(folded.bse[:2])) and np.all(folded.bse[:2] > 0)
    assert folded.bse[2] == 0 and not folded.cov[2].any()


def test_simulated_cov_with_a_case_control_sample_and_an_offset():
    m = ef.ERGM(_graph(), "edges + offset(nodematch('a'))")
    r = m.fit("mple", offset_coef=[0.5], sample_size=80, cov="godambe", n_sim=40,
              random_state=2, **SIM)
    assert r.info["design"]["sampled"] and np.isfinite(r.bse[0]) and r.bse[1] == 0


def test_simulated_cov_refuses_a_curved_model_with_a_free_decay():
    # its simulated designs' scores and refits would be the linear pseudo-likelihood's
    m = ef.ERGM(_graph(), "edges + gwesp(0.5, fixed=FALSE)")
    for cov in ("godambe", "bootstrap"):
        with pytest.raises(SettingsError, match="curved model whose decay is estimated"):
            m.fit("mple", cov=cov, n_sim=5, random_state=1, **SIM)


def test_case_control_note_weighs_the_non_ties_an_infinite_offset_leaves():
    n, size = 30, 60
    g = nx.Graph()
    g.add_nodes_from(range(n))
    rng = np.random.default_rng(3)
    g.add_edges_from((i, j) for i in range(n) for j in range(i + 1, n)
                     if i % 2 != j % 2 and rng.random() < 0.15)
    for i in g.nodes:
        g.nodes[i]["a"] = i % 2
    m = ef.ERGM(g, "edges + offset(nodematch('a'))")
    weight = (n * (n - 1) // 2 - g.number_of_edges()) / size   # every sampled non-tie's
    for seed in (2, 3, 4):
        r = m.fit("mple", offset_coef=[-np.inf], sample_size=size, random_state=seed)
        d = r.info["design"]
        assert d["sampled"] and d["n_sampled"] == size          # the simulated designs' size
        note = next(w for w in r.warnings if "case-control" in w)
        kept, non_ties, w = re.search(r"all \d+ ties and (\d+) of the (\d+) non-ties "
                                      r"\(weight ([\d.]+) each\)", note).groups()
        assert float(w) == pytest.approx(weight, rel=1e-5)
        # the sampled non-ties left stand for the non-ties left (n_vars - n_on, rounded)
        assert 0 < int(kept) < size
        assert abs(int(kept) * weight - int(non_ties)) < 0.5 + 1e-9
        assert int(non_ties) == d["n_vars"] - d["n_on"]
