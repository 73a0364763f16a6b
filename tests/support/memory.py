"""The memory a call allocates, for tests that bound it (a bound the old code exceeds)."""
import tracemalloc


def traced_peak(f, *args, **kwargs):
    """``(f(*args, **kwargs), peak)``: the call's result and the peak of the memory Python
    and numpy allocated while it ran, in bytes (``tracemalloc``, started for the call)."""
    tracemalloc.start()
    try:
        out = f(*args, **kwargs)
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
