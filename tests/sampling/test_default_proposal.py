"""The proposal "auto" stands for (``SampleSpace.default_proposal``): lifted-triadic
when a term counts closed two-paths, lifted-tie/no-tie otherwise, at every network
size; tie/no-tie on a constrained space.  Why no size rule: the effective sample
size per CPU second of each proposal across sizes, docs/guide/large_networks.md
("Which proposal", ``benchmarks/bench_proposals.py``)."""
import numpy as np
import pytest

import ergmfit as ef


def _empty(n, directed=False):
    return ef.Network(n, np.zeros((0, 2), dtype=np.int64), directed=directed)


@pytest.mark.parametrize("n", [30, 1_000, 100_000])
@pytest.mark.parametrize("formula, default", [
    ("edges + gwesp(0.5, fixed=TRUE)", "lifted-triadic"),
    ("edges + triangle", "lifted-triadic"),
    ("edges + gwesp(0.5, fixed=TRUE) + gwdegree(0.5, fixed=TRUE)", "lifted-triadic"),
    ("edges + kstar(2)", "lifted-tnt"),
    ("edges + gwdegree(0.5, fixed=TRUE)", "lifted-tnt"),
])
def test_the_default_follows_the_terms_not_the_size(n, formula, default):
    m = ef.ERGM(_empty(n), formula)
    assert m.default_proposal == default
    assert m.sample_space.resolve_proposal("auto", m) == default


@pytest.mark.parametrize("formula, default", [("edges + ttriple", "lifted-triadic"),
                                              ("edges + mutual", "lifted-tnt")])
def test_directed_networks_follow_the_same_rule(formula, default):
    assert ef.ERGM(_empty(50, directed=True), formula).default_proposal == default


def test_a_constrained_space_is_walked_by_its_own_moves():
    g = ef.datasets.load("flomarriage")
    m = ef.ERGM(g, "edges + triangle", constraints="~ degrees")
    assert m.default_proposal == "tnt"
    sampler, _ = m.sampler([-1.0, 0.1], random_state=1)
    assert type(sampler.proposal).__name__ == "ConstrainedProposal"
