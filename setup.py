"""Build script: compiles every ``ergmfit/**/*.pyx`` and installs ``data/`` as ``ergmfit.data``.

Nothing is generated when this file is imported (pip's "Getting requirements to build
wheel" and ``egg_info`` only list the extensions); the build step (``build_ext``)

1. renders the Tempita templates ``ergmfit/**/*.pyx.tp`` to ``.pyx`` (:func:`render_templates`),
2. translates the ``.pyx`` files to C with Cython (:func:`cythonize_extensions`), the utility code
   Cython would copy into every module (memoryviews, argument parsing, ...) generated once, as the
   module ``ergmfit._cyutility`` (Cython's shared utility module),
3. compiles the modules in parallel (``ERGMFIT_BUILD_JOBS`` processes, default: the number of
   CPUs), without debug symbols (``-g0``, stripped at link time), printing one line per module.

Related kernels share extensions (``ergmfit/terms/_coreterms.pyx`` includes the ``.pxi`` sources
of twelve term kernels, ``ergmfit/mrf/_models.pyx`` the MRF block kernels,
``ergmfit/sampling/_blocks.pyx`` the block choosers, ``ergmfit/sampling/_constrained.pyx`` the
constrained sampler and its helpers): each extension module costs about 1 CPU s of build before
its own code (``docs/build.md``).

The wheel holds the compiled modules only: neither the generated ``.c`` files nor the ``.pyx``
and ``.pxi`` sources, nor the ``.pxd`` headers (ergmfit has no public Cython API to ``cimport``;
the headers are only needed to build ergmfit itself, from the source tree or the sdist).
"""
import glob
import os
import re
import time

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

PYX_GLOB = os.path.join("ergmfit", "**", "*.pyx")
TEMPLATE_SUFFIX = ".tp"
SHARED_UTILITY_MODULE = "ergmfit._cyutility"

# no debug information in the objects and stripped modules: 2 MB instead of 24 MB installed;
# -O2 (Python's own flags say -O3): 11-23 % less gcc time per module and 10 % smaller modules;
# the estimators' own loops stay at -O3, where -O2 measured slower (A/B figures: docs/build.md)
# gcc flags of every module: no code generated for symbol interposition or lazy PLT binding (a
# module exports only PyInit_*, which Python marks visible itself), no temporary assembler files;
# 0-6 % less gcc time on the largest modules, the same code speed (docs/build.md, session 14)
# no unwind tables (.eh_frame): C modules are never unwound by C++ exceptions; 210 kB less installed,
# the same instructions (docs/build.md, session 22); native profilers lose the C call stacks
GCC_FLAGS = ["-fno-semantic-interposition", "-fvisibility=hidden", "-fno-plt", "-pipe",
             "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"]
COMPILE_ARGS = ["-O2", "-g0"] + GCC_FLAGS
# Cython's Python-level call paths without their inline fast paths: method calls go through
# Python's own vectorcall instead of being unpacked at every call site, module globals are looked
# up without a per-site dict-version cache. Only Python-level code (argument checks, numpy calls)
# takes these paths, never a nogil loop; 9 % less C for gcc to optimise (docs/build.md)
# CYTHON_USE_PYLONG_INTERNALS=0: Python ints are converted to C integers through the C API
# (PyLong_AsLong, ...) instead of inline code reading the digits of the int object: that code is
# repeated in every module for every C integer type (5-7 % of gcc's time on the largest modules);
# conversions happen only where Python code calls into Cython, never inside a nogil loop
CYTHON_MACROS = [("CYTHON_UNPACK_METHODS", "0"), ("CYTHON_USE_DICT_VERSIONS", "0"),
                 ("CYTHON_USE_PYLONG_INTERNALS", "0")]
FAST_LOOP_COMPILE_ARGS = ["-O3", "-g0"] + GCC_FLAGS
FAST_LOOP_MODULES = {"ergmfit.estimation.bayes._bayes", "ergmfit.estimation.ee._ee",
                     "ergmfit.estimation.mple._mple"}
# modules with no loop of their own, only Python-level glue: Cython's shared utility code
# (memoryview objects, argument parsing) and the kernels' empty base class, at -O1 (a third less
# gcc time; docs/build.md)
GLUE_COMPILE_ARGS = ["-O1", "-g0"] + GCC_FLAGS
GLUE_MODULES = {"ergmfit._cyutility", "ergmfit.terms._kernel"}
LINK_ARGS = ["-s"]
# emit_code_comments=False: no copy of each .pyx line in the C (a fifth of its size, same code);
# auto_pickle=False: no generated __reduce_cython__/__setstate_cython__ for every extension type
# (6 % of the C, 7 % of gcc's time); nothing pickles a compiled object (a model pickles its
# Python description and compiles again), see docs/build.md
# optimize.unpack_method_calls=False: Cython writes a plain call for `obj.method(...)` instead of
# a call that first tries to unpack the bound method (which CYTHON_UNPACK_METHODS=0 above switches
# off at compile time anyway, after gcc has parsed it): 5 % less gcc time, the same calls at run time
CYTHON_DIRECTIVES = {"boundscheck": False, "wraparound": False, "cdivision": True,
                     "initializedcheck": False, "emit_code_comments": False,
                     "auto_pickle": False, "optimize.unpack_method_calls": False}
# The Python-level glue of every module compiled at -O1, its loops at the module's level.
# Most of a module's C is glue: the wrappers that parse a def's arguments, the bodies of defs
# without a loop (argument checks, numpy calls), the extension types' slots, the module's
# initialisation and Cython's Python-object helpers. It runs once per call from Python, never
# inside a sampler's loop, and -O1 compiles it a third faster. After Cython has written a
# module's C, `mark_glue` brackets each such function with `#pragma GCC optimize ("O1")`; cdef
# functions, inline functions (the state's accessors, memoryview reference counting) and defs
# whose body loops or releases the GIL keep the command line's level (their code may still differ
# a little: gcc's inlining budget is per module, and the glue now uses less of it). A function it
# cannot delimit safely is left alone. gcc CPU s of the 18 modules 60.1 -> 46.4, hot loops as
# fast (A/B and figures: docs/build.md, session 15).
# -Os measured in session 16: the installed package 436 kB smaller, the hot loops level, the
# clean wheel 3.6 % slower to build (two side-by-side pairs); the size margin under the 10 MB
# limit was 111 kB at -O1, so the glue is at -Os (docs/build.md, session 16); a .c marked at
# another level is re-levelled
GLUE_LEVEL = "Os"
GLUE_MARK = f"/* ergmfit: Python-level glue at -{GLUE_LEVEL} (setup.py, mark_glue) */"
# a mark of any level: a .c file Cython did not regenerate may carry an older build's level
_ANY_GLUE_MARK = re.compile(
    r"^/\* ergmfit: Python-level glue at -(\w+) \(setup\.py, mark_glue\) \*/$", re.M)
_FUNC_START = re.compile(r"^(?:static |CYTHON_UNUSED |PyMODINIT_FUNC |__PYX_EXTERN_C )"
                         r"[^=;{}()]*?\b(\w+)\([^;{}]*\)\s*\{$")
_TOP_LEVEL_END = re.compile(r"^$|^#.*|.*[;}]\s*$|.*\*/\s*$")
_LOOP_TOKENS = ("for (", "while (", "do {", "PyEval_SaveThread", "Py_UNBLOCK_THREADS")
# inline helpers a nogil loop may call (memoryview reference counts and element access)
_NOGIL_HELPERS = ("memview", "MEMVIEW", "acquisition_count", "complex", "Little_Endian")
_GLUE_ON = f'#pragma GCC push_options\n#pragma GCC optimize ("{GLUE_LEVEL}")'
_GLUE_OFF = "#pragma GCC pop_options"


def is_glue(name, header, body):
    """Whether the C function ``name`` (its first line ``header``, its ``body`` lines) is
    Python-level glue that -O1 may compile."""
    if name.startswith("__pyx_f_"):  # cdef functions: the kernels, samplers and their helpers
        return False
    if "inline" in header.split(name)[0].lower():
        return not any(h in name for h in _NOGIL_HELPERS)
    if name.startswith(("__pyx_pf_", "__pyx_ff_")):  # a def's body: hot if it loops
        return not any(t in line for line in body for t in _LOOP_TOKENS)
    return True


def _balanced(lines):
    depth = 0
    for line in lines:
        if line.startswith("#"):
            word = line[1:].split(None, 1)[0] if line[1:].strip() else ""
            if word.startswith("if"):
                depth += 1
            elif word == "endif":
                depth -= 1
                if depth < 0:
                    return False
            elif word in ("else", "elif") and depth == 0:
                return False
    return depth == 0


def mark_glue(text):
    """``text`` (a module's C) with its glue functions compiled at -O1 (see above)."""
    if GLUE_MARK in text:
        return text
    previous = _ANY_GLUE_MARK.search(text)
    if previous:  # marked by a build with another glue level: the same functions, this level
        level = previous.group(1)
        return (text.replace(f'#pragma GCC optimize ("{level}")', _GLUE_ON.split("\n")[1])
                .replace(previous.group(0), GLUE_MARK))
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = _FUNC_START.match(lines[i])
        if m and (not out or _TOP_LEVEL_END.match(out[-1])):
            j = i + 1
            while j < len(lines) and lines[j] != "}":
                j += 1
            if j < len(lines) and _balanced(lines[i + 1:j]):
                glue = is_glue(m.group(1), lines[i], lines[i + 1:j])
                if glue:
                    out.append(_GLUE_ON)
                out.extend(lines[i:j + 1])
                if glue:
                    out.append(_GLUE_OFF)
                i = j + 1
                continue
        out.append(lines[i])
        i += 1
    # the mark goes last: Cython regenerates a .c file only when its first line is its own
    # "Generated by Cython" header (else: "does not look like it was generated by Cython")
    return "\n".join(out) + "\n" + GLUE_MARK + "\n"


def mark_glue_file(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    marked = mark_glue(text)
    if marked is not text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(marked)


def build_jobs():
    """Parallel jobs for cythonize and the C compiler: ``ERGMFIT_BUILD_JOBS`` or the CPU count."""
    jobs = os.environ.get("ERGMFIT_BUILD_JOBS")
    if jobs:
        return max(1, int(jobs))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def template_paths(suffixes=(".pyx", ".pxd")):
    """The Tempita templates ``ergmfit/**/*.pyx.tp`` and ``*.pxd.tp`` (those of ``suffixes``)."""
    return sorted(t for suffix in suffixes
                  for t in glob.glob(os.path.join("ergmfit", "**", "*" + suffix + TEMPLATE_SUFFIX),
                                     recursive=True))


def render_templates():
    """Render each ``ergmfit/**/*.pyx.tp`` / ``*.pxd.tp`` to the file beside it without ``.tp``
    (when the template is newer)."""
    from Cython import Tempita
    for template in template_paths():
        target = template[:-len(TEMPLATE_SUFFIX)]
        if os.path.exists(target) and os.path.getmtime(target) >= os.path.getmtime(template):
            continue
        with open(template, encoding="utf-8") as f:
            text = Tempita.Template(f.read(), name=template).substitute()
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"rendered {template} -> {target}")


def module_name(pyx):
    return os.path.splitext(pyx)[0].replace(os.sep, ".")


def compile_args(module):
    """The optimisation and debug flags of one module (``FAST_LOOP_MODULES`` at -O3,
    ``GLUE_MODULES`` at -O1, the others at -O2)."""
    if module in FAST_LOOP_MODULES:
        return list(FAST_LOOP_COMPILE_ARGS)
    if module in GLUE_MODULES:
        return list(GLUE_COMPILE_ARGS)
    return list(COMPILE_ARGS)


def extensions():
    """One extension per ``.pyx`` (and per template that renders to one), plus the shared
    utility module; sources are the ``.pyx`` files, translated to C only in the build step."""
    pyx_files = set(glob.glob(PYX_GLOB, recursive=True))
    pyx_files.update(t[:-len(TEMPLATE_SUFFIX)] for t in template_paths((".pyx",)))
    exts = [Extension(module_name(pyx), [pyx],
                      define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")] + CYTHON_MACROS,
                      extra_compile_args=compile_args(module_name(pyx)),
                      extra_link_args=LINK_ARGS)
            for pyx in sorted(pyx_files)]
    exts.append(Extension(SHARED_UTILITY_MODULE,
                          [SHARED_UTILITY_MODULE.replace(".", os.sep) + ".c"],
                          define_macros=list(CYTHON_MACROS),
                          extra_compile_args=compile_args(SHARED_UTILITY_MODULE),
                          extra_link_args=LINK_ARGS))
    return exts


def cythonize_extensions(exts):
    """Translate the ``.pyx`` sources of ``exts`` to C (only those that changed)."""
    import numpy as np
    from Cython.Build import cythonize
    for ext in exts:
        if np.get_include() not in ext.include_dirs:
            ext.include_dirs.append(np.get_include())
    return cythonize(exts, language_level=3, nthreads=build_jobs(), quiet=True,
                     shared_utility_qualified_name=SHARED_UTILITY_MODULE,
                     compiler_directives=CYTHON_DIRECTIVES)


def tool_versions():
    """The versions of the build tools in use (pip builds in an isolated environment)."""
    import Cython
    import numpy
    import setuptools
    return (f"Cython {Cython.__version__}, numpy {numpy.__version__} (headers), "
            f"setuptools {setuptools.__version__}")


class BuildExt(build_ext):
    """``build_ext`` that renders the templates and runs Cython first, then compiles the modules
    in parallel also under ``pip install`` (pip runs ``build_ext`` without ``-j``; ``-j N`` on
    the command line still wins), one progress line per module."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = build_jobs()

    def run(self):
        start = time.perf_counter()
        print(f"ergmfit: building with {tool_versions()}", flush=True)
        render_templates()
        translated = {ext.name: ext for ext in cythonize_extensions(self.extensions)}
        for ext in self.extensions:  # keep the objects build_ext has finalized; compile the C
            ext.sources = translated[ext.name].sources
            for source in ext.sources:
                if source.endswith(".c"):
                    mark_glue_file(source)
        self._done = 0
        super().run()
        print(f"ergmfit: {len(self.extensions)} extension modules built in "
              f"{time.perf_counter() - start:.0f} s")

    def build_extension(self, ext):
        super().build_extension(ext)
        self._done += 1
        print(f"[{self._done}/{len(self.extensions)}] {ext.name}", flush=True)


packages = find_packages(include=["ergmfit", "ergmfit.*"]) + ["ergmfit.data"]

setup(
    packages=packages,
    package_dir={"ergmfit.data": "data"},
    package_data={"ergmfit.data": ["*.csv", "*.md", "*.txt", "*.xz"]},
    # the generated C (and the .pyx/.pxd it came from) stay out of the wheel
    exclude_package_data={"": ["*.c", "*.cpp", "*.pyx", "*.pxd", "*.pxi", "*.tp", "*.html"]},
    ext_modules=extensions(),
    cmdclass={"build_ext": BuildExt},
    zip_safe=False,
)
