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


@pytest.fixture(autouse=True)
def _sigint_handler_is_isolated():
    """Every test starts with the SIGINT handler the test session had, and a test that
    changes it (a fit interrupted at the wrong moment, a library installing its own)
    cannot leave the change to the tests after it: in a full run the dask Ctrl-C test
    once saw a handler that ignored its Ctrl-C and ran its 10^5 EE steps to the end."""
    before = signal.getsignal(signal.SIGINT)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    yield
    if signal.getsignal(signal.SIGINT) is not before:
        signal.signal(signal.SIGINT, before)
    if signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []) and \
            signal.SIGINT not in blocked:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


def pytest_collection_modifyitems(session, config, items):
    """Run the test files that hold a ``slow`` test first, each file's tests in their order.

    ``pytest -n auto`` hands the tests to its workers in this order: a minute-long test
    collected near the end (the docs site build, a vignette run) used to start when the other
    worker had nothing left to do and set the suite's wall time alone.  Whole files move, so
    a module-scoped fixture still serves its file's tests where it did before; the order
    within the two groups is the collection order, so no test depends on it more than before.
    """
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)
