"""Where the tests find the repository's folders and their reference data."""
import json
import pathlib

TESTS = pathlib.Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
#: statnet's values and fits the tests compare with (``tests/reference``)
REFERENCE = TESTS / "reference"
VIGNETTES = ROOT / "vignettes"
BENCHMARKS = ROOT / "benchmarks"
DOCS = ROOT / "docs"


def load_reference(name):
    """The JSON file ``name`` of ``tests/reference``."""
    with open(REFERENCE / name, encoding="utf-8") as fh:
        return json.load(fh)


def load_script(path, name=None):
    """Import the script at ``path`` (a vignette, a benchmark) as a module, without
    putting its folder on ``sys.path``."""
    import importlib.util
    import sys
    path = pathlib.Path(path)
    name = name or f"_script_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module        # dataclasses and pickling look the module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
