"""parallel_map on a dask.distributed cluster: every job on a worker, sent as workers free up."""
import threading

import pytest

from ergmfit.runtime.parallel import parallel_map

_started = []
_released = threading.Event()


def _where(k, wait):
    """Job k: note that it started; a waiting job waits (up to 60 s) until the last job runs."""
    _started.append(k)
    if k == 6:
        _released.set()
    freed = _released.wait(60) if wait else None
    return k, threading.current_thread().name, freed


@pytest.mark.slow
def test_dask_jobs_run_on_the_workers_in_the_given_order_as_workers_free_up():
    # before session 18, a one-thread cluster ran every job in the caller's thread (joblib's
    # sequential path), so one and two dask workers were not measured alike
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        _started.clear()
        out = parallel_map(_where, [(k, False) for k in range(4)], n_jobs=-1, backend="dask")
        assert [k for k, _, _ in out] == [0, 1, 2, 3]
        assert all(name != threading.current_thread().name for _, name, _ in out)
        assert _started == [0, 1, 2, 3]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        # a long job (it waits until the last job has started) and short ones on two threads:
        # the short ones follow one another on the free thread, in their order, while the
        # long one runs; none is queued behind it (it would wait its 60 s out)
        _started.clear()
        _released.clear()
        jobs = [(0, True)] + [(k, False) for k in range(1, 7)]
        out = parallel_map(_where, jobs, n_jobs=-1, backend="dask")
        assert [k for k, _, _ in out] == list(range(7))
        assert _started == list(range(7))
        assert out[0][2] is True                                # freed by job 6, not timed out
        assert len({name for k, name, _ in out if k}) == 1      # the other thread took them all
