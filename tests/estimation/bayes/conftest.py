"""Fixtures of the Bayesian ERGM tests."""
import pytest

from ergmfit.estimation.bayes import exchange as bayes_mod


@pytest.fixture
def force_python_loop(monkeypatch):
    """A function that makes every later exchange run take its Python loop (as curved and
    constrained models do), for the rest of the test."""
    def force():
        orig = bayes_mod._ExchangeRun.__init__

        def init(self, *args, **kw):
            orig(self, *args, **kw)
            self.python_loop = True
        monkeypatch.setattr(bayes_mod._ExchangeRun, "__init__", init)
    return force
