"""parallel_map on a dask.distributed cluster: every job on a worker, sent as workers free up."""
import threading
import time

import pytest

from ergmfit.runtime.parallel import parallel_map

_started = []


def _where(k, pause):
    _started.append((k, time.perf_counter()))
    time.sleep(pause)
    return k, threading.current_thread().name


@pytest.mark.slow
def test_dask_jobs_run_on_the_workers_in_the_given_order_as_workers_free_up():
    # before session 18, a one-thread cluster ran every job in the caller's thread (joblib's
    # sequential path), so one and two dask workers were not measured alike
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        _started.clear()
        out = parallel_map(_where, [(k, 0.0) for k in range(4)], n_jobs=-1, backend="dask")
        assert [k for k, _ in out] == [0, 1, 2, 3]
        assert all(name != threading.current_thread().name for _, name in out)
        assert [k for k, _ in _started] == [0, 1, 2, 3]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        # a long job and short ones on two threads: the short ones follow one another on the
        # free thread, in their order, while the long one runs (never more than 2 out)
        _started.clear()
        jobs = [(0, 0.6)] + [(k, 0.02) for k in range(1, 7)]
        out = parallel_map(_where, jobs, n_jobs=-1, backend="dask")
        assert [k for k, _ in out] == list(range(7))
        assert [k for k, _ in _started] == list(range(7))
        t0 = _started[0][1]
        assert all(t - t0 < 0.5 for _, t in _started[1:])      # not queued behind the long one
        assert len({name for k, name in out if k}) == 1         # the other thread took them all
