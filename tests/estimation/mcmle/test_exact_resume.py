"""A resumed MCMC-MLE fit goes on as if it had never stopped (session 23): the checkpoint
keeps the chains' last states (as the model's family describes them), the random stream,
the step's bookkeeping (the Hummel streak, the overshoot guard, ...) and the pooled
samples, so a fit stopped after k iterations (``maxit=k``) and resumed with the same
settings returns the uninterrupted fit's coefficients, covariance, iterations and history,
bit for bit; ``maxit`` counts the fit's iterations, the resumed fit's earlier ones too.  A
checkpoint without them (written before) still resumes, its chains restarting."""
import json
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import CheckpointError, SettingsError

from support.valued_networks import samptot


def _fit(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit("mcmle", eval_loglik=False, **kw)


def _same(a, b):
    """The two fits are the same computation's."""
    np.testing.assert_array_equal(np.asarray(a.params), np.asarray(b.params))
    np.testing.assert_array_equal(a.cov, b.cov)
    assert a.n_iter == b.n_iter and a.converged == b.converged
    assert json.dumps(a.info["history"]) == json.dumps(b.info["history"])
    assert a.info["final_interval"] == b.info["final_interval"]


def _stopped_and_resumed(model, k, tmp_path, **kw):
    whole = _fit(model, random_state=3, **kw)
    ck = tmp_path / "fit.json"
    part = _fit(model, random_state=3, maxit=k, checkpoint=ck, **kw)
    assert part.n_iter == k and not part.converged and whole.n_iter > k
    data = json.loads(ck.read_text())
    # the stream is the checkpoint's: another random_state does not change the result
    res = _fit(model, random_state=99, resume=ck, **kw)
    return whole, res, data


def test_binary_resume_equals_the_uninterrupted_fit(tmp_path):
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + gwesp(0.5, fixed=True)")
    whole, res, data = _stopped_and_resumed(m, 2, tmp_path, samplesize=256)
    _same(whole, res)
    st = data["chains_state"]
    assert len(st["starts"]) == 1 and st["starts"][0]["values"] is None
    assert st["pool"] == []                    # binary ties step on one sample
    assert res.info["init_method"].startswith("checkpoint") and "resume" not in res.info


def test_count_resume_keeps_the_pooled_samples(tmp_path):
    # Binomial(3) counts: the step is taken on the last 4 samples' pooled draws; the first
    # sample still drifts and is redrawn (the start moved by stochastic approximation), the
    # checkpoint after iteration 2 holds the second sample, which iteration 3 pools with
    # its own, and the chain's dyad values
    m = ef.ERGM(samptot(), "sum + nonzero + mutual('min') + nodeicovar(center=True) + "
                "nodeocovar(center=True)", response="nominations", reference="Binomial(3)")
    whole, res, data = _stopped_and_resumed(m, 2, tmp_path, samplesize=256)
    assert "redraw" in whole.info["history"][0] and whole.info["history"][2]["pooled"] == 2
    _same(whole, res)
    st = data["chains_state"]
    assert len(st["pool"]) == 1 and st["approached"]
    assert len(st["starts"][0]["values"]) == len(st["starts"][0]["ties"]) > 0
    # the fit's own start is kept (a resume of a resumed fit's checkpoint keeps it too)
    assert "moved by" in whole.info["init_method"]
    assert st["init_method"] == whole.info["init_method"]
    assert res.info["init_method"].endswith(f"(the fit's start: {st['init_method']})")


def test_an_older_checkpoint_resumes_with_restarted_chains(tmp_path):
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + gwesp(0.5, fixed=True)")
    ck = tmp_path / "fit.json"
    _fit(m, random_state=3, maxit=2, samplesize=256, checkpoint=ck)
    data = json.loads(ck.read_text())
    data.pop("chains_state", None)             # as written before session 23
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    with pytest.warns(ef.ConvergenceWarning, match="chains restart from the observed"):
        res = m.fit("mcmle", resume=old, samplesize=256, eval_loglik=False, random_state=1)
    assert "predates" in res.info["resume"] and any("predates" in w for w in res.warnings)
    assert res.n_iter > 2 and res.info["history"][2]["iteration"] == 3


def test_maxit_counts_the_fit_iterations(tmp_path):
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + gwesp(0.5, fixed=True)")
    ck = tmp_path / "fit.json"
    _fit(m, random_state=3, maxit=2, samplesize=256, checkpoint=ck)
    with pytest.raises(SettingsError, match="holds 2 iterations and maxit=2"):
        _fit(m, resume=ck, maxit=2, samplesize=256)
    res = _fit(m, resume=ck, maxit=3, samplesize=256)
    assert res.n_iter == 3 and len(res.info["history"]) == 3


@pytest.mark.parametrize("damage, match", [
    (lambda st: st["starts"][0].update(values=[-1] * len(st["starts"][0]["ties"])),
     "positive whole number"),
    (lambda st: st["pool"][0].update(draws=[[1.0]]), "pooled sample"),
    (lambda st: st.update(rng={"bit_generator": "nonsense"}), "random generator"),
])
def test_a_damaged_chains_state_is_refused(tmp_path, damage, match):
    m = ef.ERGM(samptot(), "sum + nonzero", response="nominations", reference="Binomial(3)")
    ck = tmp_path / "fit.json"
    _fit(m, random_state=3, maxit=2, checkpoint=ck, force_main=True)
    data = json.loads(ck.read_text())
    assert data["chains_state"]["pool"]
    damage(data["chains_state"])
    ck.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match=match):
        _fit(m, resume=ck, force_main=True)
