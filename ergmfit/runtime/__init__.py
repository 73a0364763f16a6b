"""The runtime: what every computation that runs for minutes needs.

Every estimator (and any later sampler) uses one service, the same way, for

* **progress** -- :class:`~ergmfit.runtime.progress.Progress`;
* **Ctrl-C** -- :mod:`ergmfit.runtime.interrupts` (:class:`catch_interrupt`,
  :class:`ctrl_c_flag`, :class:`lost_interrupts`, :func:`deaf_to_sigint`,
  :func:`second_ctrl_c_waits`, :class:`GuardedPhases`): an interrupt returns the finished
  work, marked as interrupted, even when its KeyboardInterrupt was raised inside a finalizer
  (or, inside :func:`stop_on_interrupt`, raises it in a ``FitInterrupted`` to stop the script);
* **checkpoints** -- :mod:`ergmfit.runtime.checkpoint`: a
  :class:`Checkpoint` (atomic JSON and ``.npz`` files, never pickle, with a
  lock) and :class:`CheckpointState`, the one way an estimator declares
  what it saves and has it checked field by field when read back;
* **parallel jobs** -- :mod:`ergmfit.runtime.parallel` (:func:`parallel_map`,
  :func:`run_jobs` with a :class:`JobControl`; joblib or dask).

The runtime sits below sampling and estimation and imports neither.
"""
from .checkpoint import (Checkpoint, CheckpointState, check_fields, read_json, read_npz,
                         write_json, write_npz)
from .interrupts import (GuardedPhases, catch_interrupt, ctrl_c_flag, deaf_to_sigint,
                         lost_interrupts, second_ctrl_c_waits, stop_on_interrupt,
                         stops_when_interrupted)
from .parallel import JobControl, inherit_in_workers, parallel_map, run_jobs
from .progress import Progress

__all__ = ["Progress", "GuardedPhases", "catch_interrupt", "ctrl_c_flag", "deaf_to_sigint",
           "lost_interrupts", "second_ctrl_c_waits", "stop_on_interrupt", "stops_when_interrupted",
           "Checkpoint", "CheckpointState", "write_json", "read_json", "write_npz", "read_npz", "check_fields",
           "parallel_map", "run_jobs", "JobControl", "inherit_in_workers"]
