"""Fixtures of the Equilibrium Expectation tests."""
import pytest

import ergmfit as ef


@pytest.fixture(scope="module")
def samplike():
    """Sampson's monks (directed) with ``edges + mutual``."""
    return ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual")
