"""EE's ``sweep_step`` (issue #35): the ``"auto"`` learning rate of the Borisenko update
keeps a L / m, θ's relative move while the chain proposes as many changes as there are
ties, at most ``sweep_step``; EstimNetDirected's 0.001 up to 10^6 ties (Epinions)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.ee.estimator import EE
from ergmfit.exceptions import SettingsError


def _reciprocal(n, ties, seed=1):
    """A sparse directed network of ``ties`` arcs on ``n`` nodes, about half of them in
    mutual pairs."""
    rng = np.random.default_rng(seed)
    arcs = set()
    while len(arcs) < ties:
        i, j = (int(v) for v in rng.integers(n, size=2))
        if i != j:
            arcs.add((i, j))
            if rng.random() < 0.5 and len(arcs) < ties:
                arcs.add((j, i))
    return ef.Network(n, np.array(sorted(arcs)), True)


@pytest.fixture(scope="module")
def dense_large():
    # 1,100 nodes: 1.2 million ordered dyads, beyond EE's 10^6 ("large": Borisenko update)
    return ef.ERGM(_reciprocal(1100, 20_000), "Arc + Reciprocity + AltInStars + AltOutStars")


def test_auto_learning_rate_follows_the_ties(dense_large):
    from ergmfit.estimation.ee.estimator import sweep_learning_rate
    cfg = EE(sampler_steps=10).resolved_settings(dense_large)
    assert cfg["update"] == "borisenko"
    assert cfg["learning_rate"] == pytest.approx(1.0 * 10 / 20_000)
    cfg = EE(sampler_steps=10, sweep_step=0.25).resolved_settings(dense_large)
    assert cfg["learning_rate"] == pytest.approx(0.25 * 10 / 20_000)
    # EstimNet's 0.001 where a L / m is at most sweep_step (m = 1,000: up to 10^6 ties)
    assert EE().resolved_settings(dense_large)["learning_rate"] == 0.001
    assert sweep_learning_rate(1000, 508_837, 1.0) == 0.001            # Epinions
    # an explicit rate, another update or a small network: as before
    assert EE(sampler_steps=10, learning_rate=0.002).resolved_settings(
        dense_large)["learning_rate"] == 0.002
    assert EE(sampler_steps=10, update="adaptive").resolved_settings(
        dense_large)["learning_rate"] == 0.001
    small = ef.ERGM(_reciprocal(60, 300), "Arc + Reciprocity")
    assert EE(sampler_steps=1).resolved_settings(small)["learning_rate"] == (0.01, 0.001)
    for bad in (0, -1.0, "auto", None):
        with pytest.raises(SettingsError, match="sweep_step"):
            EE(sweep_step=bad)


def _star_extremes(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = EE(random_state=1, update="borisenko", sampler_steps=1, ee_steps=100,
                 ee_inner_steps=1000, se="none", verbose=False, **kw).fit(model)
    th = np.array(fit.info["trajectory"][0]["theta"])
    return np.abs(th[:, 1:]).max(), fit


def test_auto_learning_rate_keeps_theta_where_the_chain_can_follow(dense_large):
    # 10^5 proposals of one each (m = 1) on 20,000 arcs: at EstimNet's a = 0.001, a L / m
    # = 20 and θ grows geometrically before the chain answers (Pokec's runaway, small);
    # the auto rate, 1 / L, keeps every parameter bounded
    top, fit = _star_extremes(dense_large)
    assert fit.info["settings"]["learning_rate"] == pytest.approx(1 / 20_000)
    assert top < 20 and np.all(np.isfinite(fit.params))
    top_estimnet, _ = _star_extremes(dense_large, learning_rate=0.001)
    assert top_estimnet > 1000
