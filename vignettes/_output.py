"""Where a vignette writes its figures and tables.

In this order:

1. ``--out DIR`` (or ``--out=DIR``) on the vignette's command line;
2. the environment variable ``ERGMFIT_FIGURES``;
3. a fresh temporary directory ``ergmfit-<vignette>-XXXXXXXX`` (in the system's
   temporary directory), printed by the vignette.

So a run never overwrites the figures committed in ``vignettes/figures/``
unless asked to: ``python vignettes/NAME.py --out vignettes/figures``.
"""
from __future__ import annotations

import os
import pathlib
import sys
import tempfile

__all__ = ["figures_dir", "out_argument"]


def out_argument(argv=None):
    """The directory given by ``--out DIR`` / ``--out=DIR`` in ``argv``
    (default ``sys.argv[1:]``), or None."""
    argv = sys.argv[1:] if argv is None else list(argv)
    for k, arg in enumerate(argv):
        if arg == "--out":
            if k + 1 >= len(argv) or argv[k + 1].startswith("--"):
                raise SystemExit("--out needs a directory: --out DIR")
            return argv[k + 1]
        if arg.startswith("--out="):
            return arg[len("--out="):]
    return None


def figures_dir(name=None, argv=None, environ=None):
    """The output directory of vignette ``name`` (default: the running
    script's name), created if needed: ``--out``, else ``$ERGMFIT_FIGURES``,
    else a new temporary directory."""
    environ = os.environ if environ is None else environ
    chosen = out_argument(argv) or environ.get("ERGMFIT_FIGURES")
    if chosen:
        path = pathlib.Path(chosen).expanduser()
        path.mkdir(parents=True, exist_ok=True)
        return path
    name = name or pathlib.Path(sys.argv[0] or "vignette").stem or "vignette"
    return pathlib.Path(tempfile.mkdtemp(prefix=f"ergmfit-{name}-"))
