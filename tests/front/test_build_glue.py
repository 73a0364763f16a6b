"""setup.py's ``mark_glue``: which C functions of a Cython module gcc compiles at -O1.

The Python-level glue (argument parsing, loop-free def bodies, type slots, Cython's
Python-object helpers) is bracketed with ``#pragma GCC optimize ("O1")``; the cdef functions,
the inline helpers a nogil loop calls and the defs that loop keep the command line's level
(docs/build.md, session 15). A function it cannot delimit is left alone.
"""
import runpy
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[2] / "setup.py"

C_MODULE = """\
#include "Python.h"

static PyObject *__pyx_pw_3mod_1f(PyObject *self, PyObject *args) {
  return __pyx_pf_3mod_f(self, args);
}

static PyObject *__pyx_pf_3mod_f(PyObject *self, PyObject *args) {
  Py_RETURN_NONE;
}

static PyObject *__pyx_pf_3mod_2loop(PyObject *self, long n) {
  long i;
  for (i = 0; i < n; i++) {
    work(i);
  }
  Py_RETURN_NONE;
}

static void __pyx_f_3mod_6Kernel_change(struct Kernel *self, int i, int j, double *out) {
  out[0] = 1.0;
}

static CYTHON_INLINE int __Pyx_PyObject_IsTrue(PyObject *x) {
  return PyObject_IsTrue(x);
}

static CYTHON_INLINE void __Pyx_INC_MEMVIEW(__Pyx_memviewslice *s, int have_gil, int lineno) {
  add(s);
}

#if X
static int __pyx_tp_clear_3mod_A(PyObject *o) {
#else
static int __pyx_tp_clear_3mod_A(PyObject *o, int flag) {
#endif
  return 0;
}

static int __pyx_tp_traverse_3mod_B(PyObject *o, visitproc v, void *a) {
#if CYTHON_USE_TYPE_SLOTS
  v(o, a);
#endif
  return 0;
}
"""

O1 = '#pragma GCC optimize ("O1")'


@pytest.fixture(scope="module")
def build():
    if not SETUP.exists():
        pytest.skip("setup.py is not beside the tests (an installed run without the sources)")
    import setuptools
    real = setuptools.setup
    setuptools.setup = lambda **kw: None
    try:
        return runpy.run_path(str(SETUP))
    finally:
        setuptools.setup = real


def marked(text, name):
    """Whether the function ``name`` in ``text`` is preceded by the -O1 pragma."""
    lines = text.split("\n")
    i = next(k for k, line in enumerate(lines) if name + "(" in line and line.endswith("{"))
    return lines[i - 1] == O1


def test_glue_is_marked_and_loops_are_not(build):
    out = build["mark_glue"](C_MODULE)
    assert marked(out, "__pyx_pw_3mod_1f")          # argument-parsing wrapper
    assert marked(out, "__pyx_pf_3mod_f")           # a def body without a loop
    assert marked(out, "__Pyx_PyObject_IsTrue")     # an inline Python-object helper
    assert marked(out, "__pyx_tp_traverse_3mod_B")  # a slot, balanced #if inside
    assert not marked(out, "__pyx_pf_3mod_2loop")   # a def that loops
    assert not marked(out, "__pyx_f_3mod_6Kernel_change")  # a cdef function
    assert not marked(out, "__Pyx_INC_MEMVIEW")     # a helper nogil loops call
    assert not marked(out, "__pyx_tp_clear_3mod_A")  # its header inside #if/#else: left alone
    assert out.count("#pragma GCC push_options") == out.count("#pragma GCC pop_options") == 4


def test_marking_twice_changes_nothing(build):
    once = build["mark_glue"](C_MODULE)
    assert build["mark_glue"](once) == once
    # the code itself is untouched: removing the pragma lines gives the module back
    stripped = [line for line in once.split("\n")[1:] if not line.startswith("#pragma GCC")]
    assert "\n".join(stripped) == C_MODULE
