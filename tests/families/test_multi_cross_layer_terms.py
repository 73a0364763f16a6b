"""``mutualL`` and ``CMBL`` are not dyad-independent: the change statistic of a layer's dyad
reads the node pair's dyads in the other layers.  They declared ``dyad_independent=True``, so
the bridge-sampled log-likelihood took a model with them as its exact reference (the MPLE's
pseudo-log-likelihood instead of the likelihood), interactions accepted them and the
node-pair moves never moved a mutualL pair's two directions together.  They read nothing
outside the node pair, so the exact node-pair MLE (session 16) still applies."""
import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.common.pairstates import pair_state_mle
from ergmfit.estimation.mcmle.loglik import dyad_independent_loglik
from ergmfit.sampling.space import pair_directions

EDGES3 = "L(~edges, ~a) + L(~edges, ~b) + L(~edges, ~c)"


def _layers(directed=True):
    return ef.Layer({k: nx.gnp_random_graph(9, 0.35, seed=s, directed=directed)
                     for k, s in (("a", 1), ("b", 2), ("c", 3))})


@pytest.mark.parametrize("term", ["CMBL", "mutualL(Ls=c(~a, ~b))"])
def test_declared_node_pair_not_dyad_independent(term):
    m = ef.ERGM(_layers(), f"{EDGES3} + {term}")
    t = m.terms[-1]
    assert not t.dyad_independent and t.locality == "node pair"
    assert not m.dyad_independent and m.pair_independent
    assert m.exact_loglik(np.zeros(4)) is not None


def test_the_log_likelihood_reference_is_exact():
    # the bridge's reference is the dyad-independent submodel at its MLE, whose
    # log-likelihood must be the model's exact one there (CMBL's coefficient at 0)
    m = ef.ERGM(_layers(), f"{EDGES3} + CMBL")
    ll0, theta0 = dyad_independent_loglik(m, np.array([-0.5, -0.5, -0.5, 1.0]))
    assert theta0[3] == 0.0
    assert ll0 == pytest.approx(m.exact_loglik(theta0), abs=1e-8)


def test_interactions_refuse_them():
    with pytest.raises(ef.exceptions.TermError, match="need dyad-independent terms; CMBL"):
        ef.ERGM(_layers(), "CMBL:L(~edges, ~a)")


def test_node_pair_moves_couple_mutual_directions_only():
    lay = _layers()
    assert pair_directions(ef.ERGM(lay, f"{EDGES3} + CMBL")) == (1.0, 0.0, 0.0)
    assert pair_directions(ef.ERGM(lay, f"{EDGES3} + mutualL(Ls=c(~a, ~b))")) is None


@pytest.mark.parametrize("term", ["CMBL", "mutualL(Ls=c(~a, ~b))"])
def test_the_exact_node_pair_mle_still_applies(term):
    m = ef.ERGM(_layers(), f"{EDGES3} + {term}")
    fit = m.fit(method="mcmle", random_state=1)
    assert fit.info["exact_mle"] and fit.loglik_kind == "exact"
    np.testing.assert_allclose(np.asarray(fit.params, float), pair_state_mle(m).theta, atol=1e-8)
