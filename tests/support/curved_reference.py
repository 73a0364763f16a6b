"""statnet 4.4's summaries and fits of curved models (``tests/reference/statnet_ext_curved.json``)."""
import re

import numpy as np

from .paths import load_reference


def entries():
    """Every entry of the file: summaries, fits and the fits statnet could not do."""
    return load_reference("statnet_ext_curved.json")


def formula(entry):
    """The right-hand side of the entry's R formula."""
    return entry["formula"].split("~", 1)[1].strip()


def init(entry):
    """The ``init=c(...)`` of the entry's R call (NA as nan), or None."""
    m = re.search(r"init=c\(([^)]*)\)", entry["call"])
    if not m:
        return None
    return [np.nan if v.strip() == "NA" else float(v) for v in m.group(1).split(",")]
