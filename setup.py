"""Build script: compiles every ``ergmfit/**/*.pyx`` and installs ``data/`` as ``ergmfit.data``."""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def extensions():
    exts = []
    for pyx in sorted(glob.glob(os.path.join("ergmfit", "**", "*.pyx"), recursive=True)):
        name = os.path.splitext(pyx)[0].replace(os.sep, ".")
        exts.append(Extension(name, [pyx], include_dirs=[np.get_include()],
                              define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                              extra_compile_args=["-O3"]))
    return cythonize(exts, language_level=3, nthreads=int(os.environ.get("ERGMFIT_BUILD_JOBS", "2")),
                     compiler_directives={"boundscheck": False, "wraparound": False,
                                          "cdivision": True, "initializedcheck": False})


packages = find_packages(include=["ergmfit", "ergmfit.*"]) + ["ergmfit.data"]

setup(
    packages=packages,
    package_dir={"ergmfit.data": "data"},
    package_data={"ergmfit.data": ["*.csv", "*.gz", "*.md", "*.txt"],
                  "ergmfit": ["**/*.pxd"]},
    ext_modules=extensions(),
    zip_safe=False,
)
