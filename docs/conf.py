"""Sphinx configuration of the ergmfit documentation site.

Build from the repository root (the one command; warnings are errors)::

    python -m sphinx -W --keep-going -n -b html docs docs/_build/html

The API reference, the term reference and the vignette gallery are generated
here, before the sources are read, by ``docs/docgen.py`` (into ``docs/api/``
and ``docs/gallery/``, git-ignored): they always match the code.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
# The installed package, else the source tree (built in place).  ``python -m sphinx`` puts the
# working directory -- the repository root, whose ergmfit/ has no compiled modules after a
# plain ``pip install .`` -- first on sys.path: look past it for an installed ergmfit first.
_saved_path = list(sys.path)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != ROOT]
try:
    import ergmfit  # noqa: F401
except ImportError:
    for _name in [n for n in sys.modules if n == "ergmfit" or n.startswith("ergmfit.")]:
        del sys.modules[_name]
    sys.path[:] = [ROOT] + _saved_path
    import ergmfit  # noqa: F401
else:
    sys.path[:] = _saved_path

import docgen  # noqa: E402

docgen.generate(HERE)

project = "ergmfit"
author = "the ergmfit authors"
copyright = "the ergmfit authors, BSD-3-Clause"
release = version = ergmfit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
html_theme = "alabaster"
html_theme_options = {"description": "ERGMs and Markov random fields in Python",
                      "fixed_sidebar": True}

# MyST: heading anchors so that [text](page.md#section) links resolve and are checked
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# numpydoc-style docstrings
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_param = False      # types as text: "int array", "networkx graph" are not names
napoleon_use_ivar = False
# the estimators' settings tables (ergmfit.estimation.base.Estimator) read as parameters
napoleon_custom_sections = [("Settings", "params_style")]

autodoc_member_order = "bysource"
autodoc_typehints = "none"          # the docstrings give the types, statnet-style
autodoc_default_options = {}

# Python references are checked (-n): a reference that does not resolve is a warning, so an
# error of the build.  Third-party and builtin types named in docstrings cannot resolve
# without intersphinx (no network here): they are ignored by name pattern below.
nitpicky = True
nitpick_ignore_regex = [
    ("py:class", r"(numpy|np|scipy|networkx|nx|pandas|pd|matplotlib|arviz|dask|distributed|joblib|sklearn)\..*"),
    ("py:class", r"(array|array-like|array_like|ndarray|callable|optional|iterable|sequence|mapping|path-like|file-like|int|float|str|bool|dict|list|tuple|set|None|object|bytes|complex|type)"),
    # napoleon reads "name : description" lines of Returns/Attributes as a type: prose, not names
    ("py:class", r".*[^\w.].*"),
    ("py:class", r"[a-zA-Z]"),
    ("py:class", r"[0-9]+"),           # the sizes in "ndarray (m, 2)"
    ("py:.*", r"(numpy|np|scipy|networkx|nx|pandas|pd|matplotlib|arviz|dask|distributed|joblib|sklearn)(\..*)?"),
]


def setup(app):
    app.connect("missing-reference", docgen.missing_reference)
    app.connect("autodoc-process-docstring", docgen.process_docstring, priority=400)
