"""Fixtures shared by every test folder (plain helpers live in ``support/``)."""
import signal

import pytest

from support.paths import REFERENCE, load_reference


@pytest.fixture(scope="session")
def reference_dir():
    """The folder of statnet's reference values and fits (``tests/reference``)."""
    return REFERENCE


@pytest.fixture(scope="session")
def statnet_stats():
    return load_reference("statnet_stats.json")["evaluations"]


@pytest.fixture(scope="session")
def statnet_fits():
    return load_reference("statnet_fits.json")["fits"]


@pytest.fixture
def default_sigint():
    """Python's default SIGINT handler (KeyboardInterrupt) for the test, restored after it;
    deliver the signal with :func:`support.interrupts.sigint_soon`."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)
