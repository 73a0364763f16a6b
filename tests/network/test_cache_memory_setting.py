"""The public two-path count budget: ``ergmfit.network.set_cache_memory`` and the
``cache_memory`` context manager (restores the setting, also after an error)."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import SettingsError
from ergmfit.network import cache_budget, cache_memory, set_cache_memory


def test_context_manager_sets_and_restores():
    before = set_cache_memory("auto")
    try:
        with cache_memory(12345):
            assert cache_budget(10**6, 10**7, True) == 12345
        assert cache_budget(1000, 5000, True) == 2 ** 30          # "auto" again
        with pytest.raises(RuntimeError):
            with cache_memory(0):
                assert cache_budget(1000, 5000, True) == 0
                raise RuntimeError("inside")
        assert cache_budget(1000, 5000, True) == 2 ** 30
    finally:
        set_cache_memory(before)


def test_on_demand_counts_give_the_same_statistics():
    net = ef.datasets.load("flomarriage")
    formula = "edges + gwesp(0.5, fixed=TRUE) + gwdsp(0.5, fixed=TRUE)"
    with cache_memory(0):
        low = ef.ERGM(net, formula).statistics_vector()
    np.testing.assert_array_equal(low, ef.ERGM(net, formula).statistics_vector())


@pytest.mark.parametrize("bad", [-1, 1.5, "lots", True, None])
def test_bad_budget_is_refused_and_the_setting_kept(bad):
    with pytest.raises(SettingsError, match="cache memory"):
        with cache_memory(bad):
            pass
    assert cache_budget(1000, 5000, True) == 2 ** 30
