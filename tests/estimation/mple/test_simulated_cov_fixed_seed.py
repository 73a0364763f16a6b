"""The MPLE's simulation-based standard errors at fixed seeds, binary and count family.

Session 25 put both families' Godambe and bootstrap loops into one module
(``ergmfit/estimation/mple/simulated.py``).  The values below were recorded with the code
before that (main at 962fb27): the same seed must give the same chain, the same
case-control samples and refit seeds, hence the same standard errors.  The tolerance only
allows a BLAS's last bits in the estimate the chain starts from; a changed draw order
moves a simulated s.e. by percent.  (``benchmarks/fixed_seed_hashes.py`` hashes no
simulated covariance.)"""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from estimation.mple.test_simulated_cov_offsets import _graph
from support.valued_networks import random_valued

SIM = dict(burnin=1000, interval=100)


def _count(g, formula):
    return ef.ERGM(g, formula, response="weight", reference="Poisson")


FLO, SAMP = "flomarriage", "samplike"
# (the count case-control cases have a dyad-dependent term: with "sum + nonzero" alone
# every zero dyad has the same row, and the sample drawn would not show; and fewer than
# half the zero dyads sampled, else the count MPLE takes them all)
CASES = {
    # name: (fit, recorded s.e., recorded acceptance rate)
    "binary godambe": (
        lambda: ef.ERGM(ef.datasets.load(FLO), "edges + triangle").fit(
            "mple", cov="godambe", n_sim=40, random_state=7, **SIM),
        [0.5158887194782386, 0.9509607435376561], 0.731),
    "binary bootstrap": (
        lambda: ef.ERGM(ef.datasets.load(FLO), "edges + kstar(2)").fit(
            "mple", bootstrap=15, random_state=5, **SIM),
        [1.1335410312402898, 0.47798868279582807], 0.8308),
    "binary godambe, case-control": (
        lambda: ef.ERGM(ef.datasets.load(SAMP), "edges + mutual").fit(
            "mple", cov="godambe", sample_size=60, n_sim=30, random_state=3, **SIM),
        [0.17038048794126934, 0.4516689416427477], 0.464),
    "binary bootstrap, case-control and offset": (
        lambda: ef.ERGM(_graph(), "edges + triangle + offset(nodematch('a'))").fit(
            "mple", offset_coef=[0.3], sample_size=80, bootstrap=10, random_state=2, **SIM),
        [0.22761822954489666, 0.4015256857275908, 0.0], 0.5645),
    "count godambe": (
        lambda: _count(random_valued(10, True, 0.4, 1.0, 5),
                       "sum + nonzero + mutual(form='min')").fit(
            "mple", cov="godambe", n_sim=30, interval=200, random_state=3),
        [0.1474213266462487, 0.3412660660527666, 0.3215474611997202], 0.49182451751250894),
    "count godambe, case-control": (
        lambda: _count(random_valued(20, True, 0.1, 1.0, 8),
                       "sum + nonzero + mutual(form='min')").fit(
            "mple", cov="godambe", sample_size=60, n_sim=20, interval=200, random_state=4),
        [0.2530672905718842, 0.5797350145605069, 1.2488479733247948], 0.40198194662480374),
    "count bootstrap, case-control": (
        lambda: _count(random_valued(20, True, 0.1, 1.0, 7),
                       "sum + nonzero + mutual(form='min')").fit(
            "mple", cov="bootstrap", bootstrap=6, interval=200, sample_size=60,
            random_state=3),
        [0.06855682164451067, 0.11875866504538807, 0.472971219740798], 0.4141264786169245),
    "count bootstrap": (
        lambda: _count(random_valued(8, True, 0.4, 1.0, 6),
                       "sum + nonzero + mutual(form='min')").fit(
            "mple", bootstrap=8, interval=200, random_state=2),
        [0.23339807419495376, 0.49482954178263033, 0.5063898180235205], 0.4979982206405694),
}


# bootstrap refits that did not exist (left out, with a warning), as recorded
N_FAILED = {"count bootstrap, case-control": 1}


@pytest.mark.parametrize("name", list(CASES))
def test_simulated_standard_errors_at_a_fixed_seed_are_the_recorded_ones(name):
    fit, se, acceptance = CASES[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = fit()
    kind = "godambe" if "godambe" in name else "bootstrap"
    failed = [w for w in caught if "bootstrap networks; they were left out" in str(w.message)]
    if kind == "bootstrap":
        assert r.info[kind]["n_failed"] == N_FAILED.get(name, 0)
        assert len(failed) == (1 if N_FAILED.get(name) else 0)
    assert r.se_kind == kind
    np.testing.assert_allclose(np.asarray(r.bse, dtype=float), se, rtol=1e-9, atol=0)
    design = r.info["design"]
    sampled = design["sampled"] if "sampled" in design else design["n_sampled_zeros"] is not None
    assert sampled == ("case-control" in name)        # the sample is drawn, not skipped
    info = r.info[kind]
    assert info["acceptance_rate"] == pytest.approx(acceptance, rel=1e-12)
    # both families report the same chain settings
    assert {"burnin", "interval", "proposal", "acceptance_rate"} <= set(info)
    assert info["proposal"] == "auto"


@pytest.mark.slow       # joblib's worker start: 1-30 s on a busy machine
def test_binary_bootstrap_refits_in_parallel_equal_the_serial_ones():
    # the simulated designs (case-control samples included) are drawn before the refits,
    # so n_jobs changes where the refits run, not their numbers
    m = ef.ERGM(_graph(), "edges + triangle + offset(nodematch('a'))")
    kw = dict(offset_coef=[0.3], sample_size=80, bootstrap=6, random_state=2, **SIM)
    serial = m.fit("mple", **kw)
    parallel = m.fit("mple", n_jobs=2, **kw)
    assert serial.info["bootstrap"]["estimates"] == parallel.info["bootstrap"]["estimates"]
    assert np.array_equal(np.asarray(serial.bse), np.asarray(parallel.bse))
