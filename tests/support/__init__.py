"""Helpers shared by the test modules (plain functions and data, imported as ``support.<module>``).

Test modules never import each other: what several of them use lives here, and the
fixtures built on it live in the ``conftest.py`` files.  ``tests/`` is on ``sys.path``
under pytest's default ("prepend") import mode because ``tests/conftest.py`` sits in a
folder without ``__init__.py``; the test folders themselves are packages, so that files
of the same name in two folders do not collide.
"""
