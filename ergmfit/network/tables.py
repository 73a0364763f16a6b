"""Tables a user gives as a pandas DataFrame or the path of a CSV file (egocentric samples,
panels of edge lists), read with one clear error for every way a file can fail."""
from __future__ import annotations

import os

from ..exceptions import DataFormatError
from ..labeled import LazyPandas

pd = LazyPandas("reading a table (an edge list, node or egocentric file)")


def read_table(table, what) -> pd.DataFrame:
    """``table`` as a pandas frame: a copy of a DataFrame (the caller's is never changed),
    or a CSV file read with pandas; a :class:`DataFormatError` naming ``what`` and the
    file when it is missing, a directory, unreadable, empty or not CSV.

    Examples
    --------
    >>> import pandas as pd
    >>> read_table(pd.DataFrame({"a": [1]}), "egos").shape
    (1, 1)
    >>> read_table("/no/such.csv", "egos")
    Traceback (most recent call last):
    ...
    ergmfit.exceptions.DataFormatError: egos: no such file '/no/such.csv'
    """
    if isinstance(table, pd.DataFrame):
        return table.copy()
    if not isinstance(table, (str, os.PathLike)):
        raise DataFormatError(f"{what} must be a pandas DataFrame or the path of a CSV file, "
                              f"not {type(table).__name__}")
    path = os.fspath(table)
    try:
        return pd.read_csv(path)
    except FileNotFoundError:
        raise DataFormatError(f"{what}: no such file {path!r}") from None
    except IsADirectoryError:
        raise DataFormatError(f"{what}: {path!r} is a directory, not a CSV file") from None
    except OSError as err:
        raise DataFormatError(f"{what}: cannot read {path!r} ({err.strerror or err})") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise DataFormatError(f"{what}: {path!r} does not parse as CSV ({err})") from None
