"""Build script: compiles every ``ergmfit/**/*.pyx`` and installs ``data/`` as ``ergmfit.data``.

Templates first: every ``ergmfit/**/*.pyx.tp`` / ``*.pxd.tp`` (Tempita, shipped with
Cython; the twin samplers of the model families, see ``ergmfit/sampling/_mh.pyx.tp``)
is rendered to the file without ``.tp`` before cythonize (the rendered files are
git-ignored; they are rewritten only when the template is newer).

``pip install .`` compiles the extensions in parallel (``ERGMFIT_BUILD_JOBS``
processes, default: the number of CPUs), without debug symbols (``-g0``,
stripped at link time), and installs neither the generated ``.c`` files nor
the ``.pyx`` sources: only the compiled modules and the ``.pxd`` headers.
"""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def build_jobs():
    """Parallel jobs for cythonize and the C compiler: ``ERGMFIT_BUILD_JOBS`` or the CPU count."""
    jobs = os.environ.get("ERGMFIT_BUILD_JOBS")
    if jobs:
        return max(1, int(jobs))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


class ParallelBuildExt(build_ext):
    """``build_ext`` compiling the extensions in parallel also under ``pip install``
    (pip runs ``build_ext`` without ``-j``; ``-j N`` on the command line still wins)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = build_jobs()


# no debug information in the objects and stripped modules: 2 MB instead of 24 MB installed
COMPILE_ARGS = ["-O3", "-g0"]
LINK_ARGS = ["-s"]


def render_templates(root="ergmfit"):
    """Render every ``*.pyx.tp`` / ``*.pxd.tp`` under ``root`` next to itself (without
    ``.tp``) when the rendered file is missing or older than its template."""
    from Cython import Tempita

    for tp in sorted(glob.glob(os.path.join(root, "**", "*.p[xy][xd].tp"), recursive=True)):
        out = tp[:-3]
        if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(tp):
            continue
        with open(tp, encoding="utf-8") as f:
            text = Tempita.sub(f.read())
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)


def extensions():
    render_templates()
    exts = []
    for pyx in sorted(glob.glob(os.path.join("ergmfit", "**", "*.pyx"), recursive=True)):
        name = os.path.splitext(pyx)[0].replace(os.sep, ".")
        exts.append(Extension(name, [pyx], include_dirs=[np.get_include()],
                              define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                              extra_compile_args=COMPILE_ARGS, extra_link_args=LINK_ARGS))
    return cythonize(exts, language_level=3, nthreads=build_jobs(),
                     compiler_directives={"boundscheck": False, "wraparound": False,
                                          "cdivision": True, "initializedcheck": False})


packages = find_packages(include=["ergmfit", "ergmfit.*"]) + ["ergmfit.data"]

setup(
    packages=packages,
    package_dir={"ergmfit.data": "data"},
    package_data={"ergmfit.data": ["*.csv", "*.gz", "*.md", "*.txt"],
                  "ergmfit": ["**/*.pxd"]},
    # the generated C (and the .pyx it came from, and its template) stay out of the wheel
    exclude_package_data={"": ["*.c", "*.cpp", "*.pyx", "*.html", "*.tp"]},
    ext_modules=extensions(),
    cmdclass={"build_ext": ParallelBuildExt},
    zip_safe=False,
)
