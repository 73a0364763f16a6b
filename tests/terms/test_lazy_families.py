"""The term families are imported when a model needs them (issue #35: Epinions' peak memory).

A model imports only the families that register its terms (``ergmfit.terms.registry`` looks
a name up in the generated index ``ergmfit/terms/_index.py``); the whole table is still what
``all_terms()``, ``ergmfit terms``, the docs and the "did you mean" error see.
"""
import json
import os
import subprocess
import sys

import ergmfit
from ergmfit.terms import registry
from ergmfit.terms._index import INDEX

# families the model below has no term of (its terms are dyadic's Arc and degree's
# AltInStars), and the package's names that an EE fit of a network does not need
UNRELATED = ["ergmfit.terms.bipartite", "ergmfit.terms.valued", "ergmfit.terms.multinet",
             "ergmfit.terms.triad", "ergmfit.terms.dtriad", "ergmfit.terms.census",
             "ergmfit.terms.projection", "ergmfit.terms.diversity", "ergmfit.ego",
             "ergmfit.snowball", "ergmfit.comparison"]

_SCRIPT = """
import json, sys
import numpy as np
import ergmfit as ef
net = ef.Network(6, np.array([[0, 1], [1, 2], [2, 0], [3, 4], [4, 3], [5, 0]]), True)
m = ef.ERGM(net, "Arc + AltInStars")
vals = m.statistics_vector().tolist()
print(json.dumps({"loaded": sorted(k for k in sys.modules if k.startswith("ergmfit")),
                  "stats": vals}))
"""


def _fresh(script, tmp_path):
    # the package this process imported (an installed one in CI), not the checkout in the
    # working directory, which ``python -c`` would put first on sys.path
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ergmfit.__file__)))
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env=env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_a_model_imports_only_the_families_of_its_terms(tmp_path):
    out = _fresh(_SCRIPT, tmp_path)
    assert out["stats"][0] == 6.0
    loaded = set(out["loaded"])
    assert {"ergmfit.terms.dyadic", "ergmfit.terms.degree"} <= loaded
    assert [m for m in UNRELATED if m in loaded] == []


def test_the_index_matches_the_registrations():
    # regenerate with registry.index_source() (see ergmfit/terms/_index.py) when this fails
    assert registry.family_index() == INDEX


def test_the_whole_table_and_unknown_names_load_every_family(tmp_path):
    out = _fresh("import json, sys\nfrom ergmfit.terms.registry import get_term\n"
                 "from ergmfit.exceptions import TermError\n"
                 "try:\n    get_term('gwespp')\nexcept TermError as e:\n    msg = str(e)\n"
                 "print(json.dumps({'loaded': sorted(sys.modules), 'msg': msg}))", tmp_path)
    assert "'gwesp'" in out["msg"]                   # "did you mean" sees triad's terms
    assert "ergmfit.terms.bipartite" in out["loaded"]
    names = {s.name for s in registry.all_terms()}
    assert {"b1factor", "gwesp", "N", "Taper", "Form", "AltKTrianglesT"} <= names


def test_entries_of_a_name_keep_the_families_order(tmp_path):
    # triangle: triad's undirected entry first, then dtriad's directed one, whichever family
    # a session imported first
    out = _fresh("import json\nfrom ergmfit.terms import registry\n"
                 "registry.get_term('ttriple', directed=True)\n"      # dtriad only
                 "first = registry.get_term('triangle').kinds\n"       # then triad
                 "specs = registry._LOOKUP['triangle']\n"
                 "print(json.dumps([first] + [s.kinds for s in specs]))", tmp_path)
    assert out == ["undirected", "undirected", "directed"]
    assert [s.kinds for s in registry._LOOKUP["triangle"]] == ["undirected", "directed"]


def test_families_and_lazy_names_are_attributes():
    import ergmfit.terms as terms
    assert terms.bipartite.__name__ == "ergmfit.terms.bipartite"
    assert ergmfit.compare.__module__ == "ergmfit.comparison"
    assert ergmfit.EgoData.__name__ == "EgoData"
    assert {"compare", "EgoData", "fit_snowball"} <= set(dir(ergmfit))
