"""An EE run stopped before its first outer iteration finished (Ctrl-C inside it: the compiled
loop raises KeyboardInterrupt; at Pokec's size an outer iteration takes minutes) returns the
interrupted result later stops give, not a DegenerateModelError ("no EE chain produced an
estimate (the runs were too short)"): θ where EE started, no standard errors, the
"Interrupted" warning, and a checkpoint the run resumes from.  The interrupt is raised by the
update's outer iteration (patched), not by a real signal."""
import os
import warnings

import numpy as np

from ergmfit.estimation.ee import chain as ee_chain_module
from ergmfit.estimation.ee.estimator import EE


def test_stopped_inside_the_first_outer_iteration(samplike, tmp_path, monkeypatch):
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        raise KeyboardInterrupt
    monkeypatch.setattr(ee_chain_module._LinearEE, "outer_iteration", interrupted)
    ck = str(tmp_path / "ck")
    settings = dict(ee_steps=10, ee_inner_steps=20, sampler_steps=100, n_chains=2, se="none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = EE(random_state=1, init=[-1.5, 1.0], checkpoint=ck, **settings).fit(samplike)
    assert calls == [1]                                     # the second chain never started
    assert fit.info["interrupted"] and not fit.converged and fit.n_iter == 0
    assert np.asarray(fit.params).tolist() == [-1.5, 1.0]  # where EE started
    assert np.all(np.isnan(fit.bse))
    assert len(fit.warnings) == 1 and fit.warnings[0].startswith(
        "Interrupted: the EE run was stopped before its first outer iteration finished "
        "(0 of 400 iterations recorded)")
    assert f"resume={ck!r}" in fit.warnings[0] and "Interrupted" in str(fit.summary())
    assert sorted(os.listdir(ck)) == ["chain_0.npz", "meta.json"]
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = EE(resume=ck).fit(samplike)
    assert not whole.info["interrupted"] and whole.n_iter == 2 * 10 * 20
    assert np.all(np.isfinite(np.asarray(whole.params)))
