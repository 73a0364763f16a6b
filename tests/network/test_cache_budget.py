"""Held or on-demand two-path counts by what they cost (issue #35 item 1): the default
``cache_memory`` is relative to the network state's own size ("auto": 4 times it, at least
1 GiB), the choice it makes is the same for the observed statistics and for the compiled
state, and counting on demand gives bit-identical statistics and EE chains."""
import warnings

import numpy as np
import pytest

import ergmfit.network._state as _state
from ergmfit import ERGM
from ergmfit.exceptions import SettingsError
from ergmfit.network import Network
from ergmfit.network._state import cache_budget, set_cache_memory, state_bytes

from support.clustered_arcs import clustered_arcs

FORMULA = "Arc + AltInStars + AltOutStars + AltKTrianglesT"


@pytest.fixture
def setting():
    old = set_cache_memory("auto")
    yield
    set_cache_memory(old)


def test_default_is_relative_to_the_state_and_floored(setting):
    assert _state.DEFAULT_CACHE_MEMORY == "auto"
    assert set_cache_memory("auto") == "auto"
    # Epinions: the state about 26 MiB (8-byte tie-map slots; 34 with 16-byte ones); the
    # 1 GiB floor holds its 256 MiB of counts
    own = state_bytes(75879, 508837, True)
    assert 24 * 2**20 < own < 30 * 2**20
    assert cache_budget(75879, 508837, True) == _state.CACHE_MEMORY_FLOOR == 2**30
    # small networks: the floor, which holds every dense count array (n <= 4096, 3 of them)
    assert cache_budget(300, 3000, True) == _state.CACHE_MEMORY_FLOOR >= 3 * 2 * 4096**2
    # larger networks (Pokec's size and above): the factor times the state, growing with the ties
    assert cache_budget(1632803, 30622564, True) == _state.CACHE_MEMORY_FACTOR * state_bytes(
        1632803, 30622564, True) > 2**30
    assert cache_budget(10**6, 4 * 10**7, True) > 1.4 * cache_budget(10**6, 2 * 10**7, True)
    # an explicit setting is taken as it is
    set_cache_memory(12345)
    assert cache_budget(75879, 508837, True) == 12345
    for bad in (-1, "big", None, 2.0):
        with pytest.raises(SettingsError, match="'auto'"):
            set_cache_memory(bad)


@pytest.mark.parametrize("factor, held", [(0.5, False), (4, True)])
def test_budget_chooses_held_or_on_demand_for_statistics_and_state(setting, monkeypatch,
                                                                    factor, held):
    # 300 nodes, 3,061 arcs: the state about 0.23 MB, the dense two-path counts 0.18 MB
    monkeypatch.setattr(_state, "CACHE_MEMORY_FLOOR", 0)
    monkeypatch.setattr(_state, "CACHE_MEMORY_FACTOR", factor)
    arcs = clustered_arcs(1)
    model = ERGM(Network(300, arcs, directed=True), FORMULA)
    state = model.compiled().state
    assert state.cache_memory == int(factor * state_bytes(300, len(arcs), True))
    assert state.caches
    assert (state.cached == state.caches) is held
    # every pair's counts (dense, 0.18 MB) held or not; AltKTrianglesT's arcs' counts are
    # served either way (by those, or by per-arc counts: 12 kB, within both budgets)
    otp, aotp = _state.CACHE_FLAGS["otp"], _state.CACHE_FLAGS["aotp"]
    assert bool(state.cached & otp) is held and state.cached & aotp
    assert (state.two_path_bytes[0] > 100_000) is held
    # the observed statistics' state makes the same choice (never holds then drops)
    monkeypatch.setattr(_state, "CACHE_MEMORY_FACTOR", 4)
    set_cache_memory(0)
    expected = ERGM(Network(300, arcs, directed=True), FORMULA).statistics_vector()
    set_cache_memory("auto")
    monkeypatch.setattr(_state, "CACHE_MEMORY_FACTOR", factor)
    np.testing.assert_array_equal(model.statistics_vector(), expected)


def test_statistics_state_over_budget_counts_on_demand_from_the_start(setting):
    from ergmfit.network import NetworkState
    from ergmfit.network._state import CACHE_FLAGS
    arcs = clustered_arcs(2)
    flags = CACHE_FLAGS["otp"] | CACHE_FLAGS["osp"] | CACHE_FLAGS["isp"]
    for budget, held in ((10**9, True), (1000, False)):
        empty = NetworkState(300, True, dense=False, cache_degree=0.0, cache_memory=budget)
        empty.enable_caches(flags)
        assert empty.cached == flags                 # an empty network's counts fit
        empty.reserve_two_paths(arcs)
        assert (empty.cached == flags) is held
        assert empty.two_path_bytes[0] == (0 if not held else empty.two_path_bytes[0])


@pytest.mark.parametrize("seed", [1, 2])
def test_on_demand_counts_give_bit_identical_ee_chains(setting, seed):
    arcs = clustered_arcs(seed)
    net = Network(300, arcs, directed=True)
    fits = []
    for budget in (2**40, 0):
        set_cache_memory(budget)
        model = ERGM(net, FORMULA)
        state = model.compiled().state
        assert (state.cached != 0) is (budget > 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits.append(model.fit(method="ee", random_state=seed, n_chains=1, n_jobs=1,
                                  ee_steps=2, update="borisenko", proposal="ifd",
                                  sampler_steps=200, se_samplesize=20, se_interval=100))
    held, on_demand = fits
    np.testing.assert_array_equal(held.params, on_demand.params)
    np.testing.assert_array_equal(held.bse, on_demand.bse)
    np.testing.assert_array_equal(np.asarray(held.info["trajectory"][0]["dzA"]),
                                  np.asarray(on_demand.info["trajectory"][0]["dzA"]))


@pytest.mark.slow
def test_epinions_holds_per_arc_counts_by_default_and_counts_on_demand_under_a_smaller_budget(
        setting):
    # Epinions' four-term model reads the two-path counts of arcs only (AltKTrianglesT):
    # the default holds one count per arc (about 2 MiB), not every pair's (256 MiB)
    from ergmfit.datasets import load_network
    from ergmfit.network._state import CACHE_FLAGS
    net = load_network("epinions")
    model = ERGM(net, FORMULA)
    state = model.compiled().state
    assert state.caches == state.cached == CACHE_FLAGS["aotp"]
    assert 4 * 508837 <= state.two_path_bytes[0] <= 2**22
    np.testing.assert_allclose(model.statistics_vector()[:2], [508837.0, 868986.66483683])
    set_cache_memory(2**20)                 # 1 MiB: below Epinions' 2 MiB of arc counts
    small = ERGM(net, FORMULA)
    state = small.compiled().state
    assert state.caches and state.cached == 0 and state.two_path_bytes[0] == 0
    np.testing.assert_allclose(small.statistics_vector()[:2], [508837.0, 868986.66483683])
