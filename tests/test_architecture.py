"""The shape of the package (issues #16, #31), drawn from its imports.

The import graph counts every import: at the top of a module and inside
functions, ``importlib.import_module("...")`` calls, and ``"module:Name"``
strings (the estimator table, saved results classes).  Package
``__init__`` modules are rooms like any other: an import of a name a package
re-exports is an edge to that ``__init__``, and the ``__init__``'s own imports
are its edges.  (The implicit import of a parent package that Python performs
before any submodule is not an edge: it is not the submodule's choice.)

Rules:

* no import circle among ``ergmfit`` modules;
* no private name (one leading underscore) imported across sub-packages, a
  sub-package being a top-level folder or module of ``ergmfit`` and, inside
  ``ergmfit/estimation``, each method's folder (``mple/``, ``mcmle/``, ...,
  ``common/``; ``base``, ``registry`` and the ``__init__`` form the package's
  own room).  Compiled modules named ``_x`` may be imported *from* (their
  public names); importing the private module object itself counts;
* an ``importlib`` call whose module the graph cannot read must be one of the
  few listed below, each saying why the module it loads is not a circle.

There is no line cap: a file is as long as its concept (issue #31).
"""
import ast
import functools
import pathlib
import re

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "ergmfit"
TARGET = re.compile(r"^(ergmfit(?:\.\w+)+):\w+$")

# importlib calls with a computed module name; (module, why it is no circle)
DYNAMIC = {
    "ergmfit": "lazy ef.gof / ef.mrf / ... attribute access: loads a top-level "
               "sub-package only when a user asks for it; nothing imports ergmfit's __init__",
    "ergmfit.estimation.registry": "estimator_class loads the 'module:Class' strings of "
                                   "the estimator table, which the graph reads as edges",
    "ergmfit.terms.registry": "a term name's look-up imports the families that register it "
                              "(FAMILY_MODULES, the generated ergmfit/terms/_index.py); "
                              "the families import the registry, never the reverse",
    "ergmfit.terms": "ergmfit.terms.<family> attribute access: imports that family only "
                     "when asked (the package imports none of them)",
}


# No private name crosses a sub-package (issue #31: the last six, formula's parser helpers
# and three readers, got public names).  Keep the list empty: a crossing fails the test.
KNOWN_CROSSINGS = set()


def _module_name(path, root=ROOT):
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules(root=ROOT):
    return {_module_name(p, root): p for p in root.rglob("*.py")}


def _compiled(root=ROOT):
    return {_module_name(p, root) for p in root.rglob("*.pyx")}


def _resolve(name, is_pkg, level, module):
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    if level:
        pkg = base[:len(base) - level + 1]
        return ".".join(pkg + ([module] if module else []))
    return module or ""


def _imports(name, path, known):
    return _imports_cached(name, str(path), frozenset(known))


@functools.lru_cache(maxsize=None)
def _imports_cached(name, path, known):
    """(edges, private imports, unreadable importlib calls) of module ``name``.

    edges: modules of the package ``name`` imports, anywhere in the file;
    private imports: (module imported from, private name);
    unreadable: line numbers of importlib calls with a computed module name."""
    path = pathlib.Path(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    edges, private, dynamic = set(), [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in known:
                    edges.add(a.name)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(name, is_pkg, node.level, node.module)
            for a in node.names:
                sub = f"{target}.{a.name}"
                if sub in known:
                    edges.add(sub)
                elif target in known:
                    edges.add(target)
                if a.name.startswith("_") and not a.name.startswith("__") \
                        and target.startswith("ergmfit"):
                    private.append((target, a.name))
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if fname == "import_module" and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    lvl = len(arg.value) - len(arg.value.lstrip("."))
                    mod = _resolve(name, is_pkg, lvl, arg.value.lstrip(".")) if lvl \
                        else arg.value
                    if mod in known:
                        edges.add(mod)
                else:
                    dynamic.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            m = TARGET.match(node.value)
            if m and m.group(1) in known:
                edges.add(m.group(1))
    edges.discard(name)
    return edges, private, dynamic


def import_graph(root=ROOT):
    mods = _modules(root)
    known = set(mods) | _compiled(root)
    return {name: _imports(name, path, known)[0] for name, path in mods.items()}


def room(module):
    """The sub-package a module belongs to (see the module docstring)."""
    parts = module.split(".")
    if parts[:2] == ["ergmfit", "estimation"]:
        if len(parts) > 3 and (ROOT / "estimation" / parts[2]).is_dir():
            return ".".join(parts[:3])
        return "ergmfit.estimation"
    return ".".join(parts[:2])


def private_crossings(root=ROOT):
    mods = _modules(root)
    known = set(mods) | _compiled(root)
    out = []
    for name, path in mods.items():
        for target, pname in _imports(name, path, known)[1]:
            full = f"{target}.{pname}"
            src_room = room(full if full in known else target + "._")
            if room(name + ("._" if path.name == "__init__.py" else "")) != src_room:
                out.append(f"{name} imports {pname} from {target}")
    return sorted(out)


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_graph_sees_function_imports_importlib_and_tables(tmp_path):
    pkg = tmp_path / "ergmfit"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from .b import thing\n")
    (pkg / "a.py").write_text("def f():\n    from .sub import thing\n")
    (pkg / "sub" / "b.py").write_text(
        "import importlib\nT = {'x': 'ergmfit.c:C'}\n"
        "def g():\n    return importlib.import_module('ergmfit.a')\n")
    (pkg / "c.py").write_text("from .sub.b import _hidden\n")
    g = import_graph(pkg)
    assert g["ergmfit.a"] == {"ergmfit.sub"}              # inside a function, via __init__
    assert g["ergmfit.sub"] == {"ergmfit.sub.b"}
    assert g["ergmfit.sub.b"] == {"ergmfit.a", "ergmfit.c"}  # importlib string, table string
    assert _cycles(g) == [["ergmfit.a", "ergmfit.c", "ergmfit.sub", "ergmfit.sub.b"]]
    assert private_crossings(pkg) == ["ergmfit.c imports _hidden from ergmfit.sub.b"]


def test_no_import_circles():
    cycles = _cycles(import_graph())
    assert cycles == [], f"import circles: {cycles}"


def test_no_private_name_crosses_a_sub_package():
    crossings = set(private_crossings())
    new = sorted(crossings - KNOWN_CROSSINGS)
    assert new == [], f"{len(new)} private names cross a sub-package: {new}"
    assert not any("estimation" in c for c in crossings)


def test_known_crossings_only_shrink():
    gone = sorted(KNOWN_CROSSINGS - set(private_crossings()))
    assert gone == [], f"no longer crossing, remove from KNOWN_CROSSINGS: {gone}"


def test_every_computed_importlib_call_is_known():
    mods = _modules()
    known = set(mods) | _compiled()
    unread = {name: lines for name, path in mods.items()
              if (lines := _imports(name, path, known)[2])}
    assert set(unread) <= set(DYNAMIC), f"importlib calls the graph cannot read: {unread}"


def test_the_model_layer_imports_no_estimator():
    """The model layer (terms, sampling, the compiled core, networks) owns the
    parameterisation and the sample space; estimators import it, never the reverse
    (issue #31: terms/offsets.py used to import estimation.common.curved)."""
    lower = ("ergmfit.terms", "ergmfit.sampling", "ergmfit.core", "ergmfit.network")
    up = sorted(f"{m} imports {d}" for m, deps in import_graph().items()
                if m.startswith(lower) for d in deps if d.startswith("ergmfit.estimation"))
    assert up == [], up


def test_the_runtime_sits_below_sampling_and_estimation():
    # the runtime (progress, interrupts, checkpoints, parallel jobs) is the ground floor
    # of long runs: it reaches, directly or through what it imports, nothing of the
    # sampler, the estimators, the model or the results (the sampler registers what its
    # workers must inherit with ergmfit.runtime.parallel.inherit_in_workers)
    graph = import_graph()
    reached, todo = set(), [m for m in graph if room(m) == "ergmfit.runtime"]
    while todo:
        m = todo.pop()
        for t in graph.get(m, ()):
            if t not in reached:
                reached.add(t)
                todo.append(t)
    above = sorted(t for t in reached
                   if room(t) not in ("ergmfit.runtime", "ergmfit.exceptions", "ergmfit.utils",
                                      "ergmfit.version"))
    assert above == [], f"the runtime imports layers above it: {above}"


# Estimators ask the model's interfaces (issue #31, item 2): ``model.parameterisation``
# (``affine``, ``linear``, ``fixed_by_columns``, ``fixed_coefficients()``, ...),
# ``model.sample_space`` (``conditional()``, ``check()``, ``proposal()``,
# ``dyad_independent``, ...), the model's target (``ergmfit.terms.targets.target_of``:
# ``given``, ``needs_network_search``, ...) and offsets
# (``ergmfit.terms.offsets.model_offsets``), or objects chosen once from them; they do not
# read a model's feature flags.  Every read of these attribute names in
# ``ergmfit/estimation`` counts, whatever the receiver, and so does ``getattr``/``hasattr``
# with the name as a string (writes, e.g. of a submodel's ``offset_coef``, do not);
# MODEL_FLAGS count only when read from ``model``.
FEATURE_FLAGS = ("curved", "n_missing", "constrained", "target_stats", "offset_coef")
# names too common to count whatever the receiver (a design's ``offset``): counted when read
# from a variable named ``model``
MODEL_FLAGS = ("offset",)

# The reads left, with the reason each stays: (module, flag) -> count.  It may only shrink
# (test_feature_reads_only_shrink).
KNOWN_FEATURE_READS = {
    # the number of missing dyads as a number, not a branch: reported in fit.info
    # ("n_missing"), or the default length of an imputation / conditional chain
    ("ergmfit.estimation.bayes.exchange", "n_missing"): 1,
    ("ergmfit.estimation.bayes.state", "n_missing"): 1,
    ("ergmfit.estimation.contrastive.cd", "n_missing"): 1,
    ("ergmfit.estimation.mcmle.target", "n_missing"): 1,
}


def _is_flag(name, receiver):
    return name in FEATURE_FLAGS or (name in MODEL_FLAGS and isinstance(receiver, ast.Name)
                                     and receiver.id == "model")


def feature_reads(root=ROOT):
    """{(module, flag): count} of the reads of FEATURE_FLAGS in ``root``'s estimation."""
    out = {}
    for path in sorted((root / "estimation").rglob("*.py")):
        name = _module_name(path, root)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            flag = None
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) \
                    and _is_flag(node.attr, node.value):
                flag = node.attr
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2 \
                    and isinstance(node.args[1], ast.Constant) \
                    and _is_flag(node.args[1].value, node.args[0]):
                flag = node.args[1].value
            if flag is not None:
                out[(name, flag)] = out.get((name, flag), 0) + 1
    return out


def test_feature_read_finder_sees_attributes_and_getattr(tmp_path):
    pkg = tmp_path / "ergmfit"
    (pkg / "estimation" / "m").mkdir(parents=True)
    (pkg / "estimation" / "m" / "x.py").write_text(
        "def f(model, space, par):\n"
        "    a = model.curved or getattr(model, 'target_stats', None)\n"
        "    b = hasattr(space, 'constrained') and space.n_missing\n"
        "    model.curved = True          # a write is not a read\n"
        "    return par.curved_terms, model.sample_space.n_missing\n"
        "def g(model, design):\n"
        "    return model.offset, getattr(model, 'offset', None), design.offset\n")
    assert feature_reads(pkg) == {("ergmfit.estimation.m.x", "curved"): 1,
                                  ("ergmfit.estimation.m.x", "target_stats"): 1,
                                  ("ergmfit.estimation.m.x", "constrained"): 1,
                                  ("ergmfit.estimation.m.x", "n_missing"): 2,
                                  ("ergmfit.estimation.m.x", "offset"): 2}


def test_estimators_do_not_read_feature_flags():
    new = {k: v for k, v in feature_reads().items() if v > KNOWN_FEATURE_READS.get(k, 0)}
    assert new == {}, (f"estimators read a model's feature flags: {new}; ask "
                       "model.parameterisation / model.sample_space instead")


def test_feature_reads_only_shrink():
    found = feature_reads()
    gone = {k: v for k, v in KNOWN_FEATURE_READS.items() if found.get(k, 0) < v}
    assert gone == {}, f"fewer reads than KNOWN_FEATURE_READS lists, lower it: {gone}"


def family_guesses(root=ROOT):
    """[(module, line)] of every ``getattr``/``hasattr`` of ``"family"`` in ``root``: a
    read that guesses a family (binary) for a model that declares none."""
    out = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2 \
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value == "family":
                out.append((_module_name(path, root), node.lineno))
    return out


def test_every_model_declares_its_family():
    # the family is an interface of every model spec (ERGM.family; the MRF models, their
    # compiled models and the MRF product model declare theirs): no estimator guesses it for a
    # model without one
    import networkx as nx
    from ergmfit.families import BINARY, family_of
    from ergmfit.mrf import IsingModel
    from ergmfit.mrf.ee import ProductModel
    assert family_guesses() == []
    m = IsingModel(nx.cycle_graph(4))
    product = ProductModel(m._instances(np.array([[1, 0, 1, 1]])), m.labels)
    assert m.family is BINARY and product.family is BINARY and family_of(product) is BINARY
    # a product model has its factors' family, a compiled MRF its class's (chores17)
    from ergmfit.mrf.potts import PottsModel
    potts = PottsModel(nx.cycle_graph(3), q=3)
    assert ProductModel(potts._instances(np.array([[0, 1, 2]])), potts.labels).family \
        is potts.family is potts.compiled().family
    assert m.compiled().family is BINARY
    with pytest.raises(AttributeError, match="family"):
        family_of(object())
