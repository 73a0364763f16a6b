"""Count-valued statistics and simulations against ergm.count 4.1.1
(tests/reference/statnet_valued.json: section 1_valued of the shared reference file).

samptot is the sum of the bundled samplk1..3 (the number of waves in which i named j),
as the reference file says it was built; lazega.layercount (the number of the layers advice,
coworker, friendship in which i names j) is read from tests/reference/ext, a copy of the
shared data file.
"""
import numpy as np
import pytest

import ergmfit as ef
from support.valued_networks import samptot
from conftest import load_reference
from ergmfit.network import read_network
from support.paths import REFERENCE

CASES = load_reference("statnet_valued.json")["cases"]


def layercount():
    ext = REFERENCE / "ext"
    net = read_network(ext / "lazega.layercount.edges.csv", directed=True,
                       nodes=ext / "lazega.layercount.nodes.csv")
    return net


NETWORKS = {"samptot": (samptot, "nominations"), "lazega.layercount": (layercount, "value")}


def _formula(case):
    return case["formula"].split("~", 1)[1].strip()


SUMMARIES = [c for c in CASES if c["kind"] == "summary"]


def test_every_reference_summary_applies():
    assert len(SUMMARIES) == 36
    assert {c["dataset"] for c in SUMMARIES} == set(NETWORKS)


@pytest.mark.parametrize("case", SUMMARIES, ids=[c["id"] for c in SUMMARIES])
def test_statistics_equal_ergm_count(case):
    make, response = NETWORKS[case["dataset"]]
    m = ef.ERGM(make(), _formula(case).replace("1/2", "0.5"), response=response,
                reference="Poisson")
    got = m.statistics()
    assert list(got) == list(case["stats"])
    for lab, want in case["stats"].items():
        assert abs(got[lab] - want) <= 1e-12 * max(1.0, abs(want))


SIMS = [c for c in CASES if c["kind"] == "simulate" and c["dataset"] == "samptot"]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("case", SIMS, ids=[c["id"] for c in SIMS])
def test_simulated_means_match(case, seed):
    m = ef.ERGM(samptot(), _formula(case), response="nominations", reference="Poisson")
    assert m.labels == list(case["mean"])
    n, batches = 4000, 40
    S = m.simulate(case["coef_fixed"], n=n, burnin=50000, interval=200, output="stats",
                   random_state=seed)
    bm = S.reshape(batches, -1, S.shape[1]).mean(1)
    se = bm.std(0, ddof=1) / np.sqrt(batches)
    mean = S.mean(0)
    if "exact_mean" in case:            # dyad-independent: the exact expectation
        want = np.array([case["exact_mean"][k] for k in m.labels])
        z = (mean - want) / se
    else:                               # statnet's 200 draws and their (naive) MC error
        want = np.array([case["mean"][k] for k in m.labels])
        se_ref = np.array([case["mcse_naive"][k] for k in m.labels])
        # statnet's error is naive (its draws taken as independent): doubled for their
        # autocorrelation
        z = (mean - want) / np.sqrt(se ** 2 + (2 * se_ref) ** 2)
    assert np.all(np.abs(z) < 4.5), (z, mean, want)
