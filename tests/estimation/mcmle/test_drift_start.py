"""MCMC-MLE's start for a count model whose chains from the MPLE drift (#33, the
issue-554 fit): the count family declares ``drift_start = "sa"``, so the first drifting
sample moves the start once by stochastic approximation (the chains restarted at the
observed network) instead of leaving the Hummel steps to crawl back from a sample
settled far from the data (docs/valued_terms.md)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from support.paths import BENCHMARKS, load_script

#: eight of the issue-554 model's terms: on the 80-node network of the benchmark's shape
#: the chain from the count MPLE drifts (sum 1,168 observed -> ~1,380 after 10^5 proposals)
EIGHT = ('sum + mutual("min") + nodeicovar(center=True, transform="sqrt") '
         '+ nodeocovar(center=True, transform="sqrt") + transitiveweights("min", "max", "min") '
         '+ nodecov("gdp") + edgecov("distance") + edgecov("history")')


@pytest.fixture(scope="module")
def drifting():
    bench = load_script(BENCHMARKS / "bench_count_554.py")
    return ef.ERGM(bench.issue554_network(n=80), EIGHT, response="count",
                   reference="Binomial(4)")


def _fit(model, **settings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit("mcmle", eval_loglik=False, **settings)


def test_the_families_declare_the_start_move():
    from ergmfit.families import BINARY, CountFamily
    assert CountFamily("Poisson").drift_start == "sa" and BINARY.drift_start is None


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_a_drifting_first_sample_moves_the_start_by_sa(drifting, seed):
    mple = np.asarray(drifting.fit("mple").params, dtype=float)
    fit = _fit(drifting, random_state=seed, maxit=1)
    first = fit.info["history"][0]
    assert "drift" in first["redraw"] and "moved by sa" in first["moved_start"]
    assert "moved by sa" in fit.info["init_method"]
    assert first["theta"] == pytest.approx(mple.tolist())
    assert not np.allclose(np.asarray(fit.params, dtype=float), mple)
    # switched off: the start stays the MPLE; its sample burns in within the iteration
    # (MCMLE._settle: the drifting draws dropped, the chains run on) and is stepped on
    off = _fit(drifting, random_state=seed, maxit=1, drift_start=None)
    assert all("moved_start" not in h for h in off.info["history"])
    first = off.info["history"][0]
    assert first["theta"] == pytest.approx(mple.tolist())
    assert "redraw" not in first and first["burnin_parts"] >= 1


def test_a_given_init_is_not_moved(drifting):
    mple = np.asarray(drifting.fit("mple").params, dtype=float)
    fit = _fit(drifting, random_state=1, maxit=1, init=mple)
    assert all("moved_start" not in h for h in fit.info["history"])


def test_newton_steps_on_equilibrium_samples_bring_a_far_start_near_the_mle():
    # drift_start="newton" (burnin.newton_approach): from 0, 2.6 and 11.6 s.e. from the
    # exact MLE of a dyad-independent count model (its MPLE), Newton steps on equilibrium
    # samples hand over to the MCMC-MLE steps within a few s.e. (seeds 1-3: at most 3.1)
    from ergmfit.estimation.mcmle.burnin import approach
    from support.valued_networks import samptot
    m = ef.ERGM(samptot(), "sum + nonzero", response="nominations", reference="Binomial(3)")
    exact = m.fit("mple")
    se, mle = np.asarray(exact.bse), np.asarray(exact.params)
    for seed in (1, 2, 3):
        theta, interval = approach(m, "newton", np.zeros(2), np.random.default_rng(seed),
                                   interval=256)
        assert np.max(np.abs(theta - mle) / se) < 4.5, (seed, (theta - mle) / se)
        assert interval >= 1024          # its samples run at 4 x the interval given
    _fit(m, random_state=1, maxit=1, drift_start="newton")      # a valid setting
