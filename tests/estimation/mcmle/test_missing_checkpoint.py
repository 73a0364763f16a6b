"""Checkpoint and resume of the missing-data MCMC-MLE (#18): the checkpoint
holds both chains' states (the conditional one: the completion of the
missing dyads) and the random stream, so a resumed fit equals the
uninterrupted one; a checkpoint of another sample space is refused."""
import json
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import CheckpointError

from support import constraints_reference as cr

FAST = {"samplesize": 256, "interval": 256, "eval_loglik": False}


def _model():
    e = next(x for x in cr.entries() if x["id"] == "s3.na.samplike_mutual_gwesp.MLE.s101")
    return cr.model(e)


def _fit(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(method="mcmle", **FAST, **kw)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    m = _model()
    ck = tmp_path_factory.mktemp("ck") / "fit.json"
    whole = _fit(m, random_state=5)
    part = _fit(m, random_state=5, maxit=2, checkpoint=ck)
    return m, ck, whole, part


def test_resumed_fit_equals_the_uninterrupted_one(written):
    m, ck, whole, part = written
    assert whole.converged and whole.n_iter > 2 and not part.converged
    data = json.loads(ck.read_text())
    # both chains' last states (the loop's in chains_state, the conditional one here);
    # the conditional one keeps every observed dyad
    assert len(data["chains_state"]["starts"]) == 1
    st = data["missing_data_state"]
    assert len(st["starts_c"]) == 1
    m.sample_space.conditional().check(np.asarray(st["starts_c"][0]["ties"]))
    assert len(data["history"]) == 2
    res = _fit(m, random_state=99, resume=ck)      # the checkpoint's stream, not 99
    assert res.info["init_method"].startswith("checkpoint")
    np.testing.assert_array_equal(np.asarray(res.params), np.asarray(whole.params))
    np.testing.assert_array_equal(res.cov, whole.cov)
    assert [h["iteration"] for h in res.info["history"]] == \
        [h["iteration"] for h in whole.info["history"]]
    assert res.n_iter == whole.n_iter               # (the fit's iterations, session 23)
    # resume= alone restores the checkpoint's missing dyads
    plain = ef.ERGM(m.network, m.formula)
    res2 = _fit(plain, resume=ck)
    assert res2.info["n_missing"] == m.sample_space.n_missing
    np.testing.assert_array_equal(np.asarray(res2.params), np.asarray(whole.params))


def test_resume_refuses_another_sample_space(written, tmp_path):
    m, ck, _, _ = written
    fewer = ef.ERGM(m.network, m.formula, missing=[tuple(p) for p in m.missing_dyads[:-1]])
    with pytest.raises(CheckpointError, match="missing dyads 31 dyad"):
        _fit(fewer, resume=ck)
    # a complete-data checkpoint is not a missing-data one
    ck2 = tmp_path / "plain.json"
    _fit(ef.ERGM(m.network, m.formula), random_state=1, maxit=1, checkpoint=ck2)
    with pytest.raises(CheckpointError, match="missing dyads none"):
        _fit(m, resume=ck2)


def test_damaged_chain_state_is_refused(written, tmp_path):
    m, ck, _, _ = written
    data = json.loads(ck.read_text())
    # a conditional state that changes an observed dyad leaves the chain's space
    i, j = (int(x) for x in m.network.ties[0])
    c = data["missing_data_state"]["starts_c"][0]
    bad = dict(data, missing_data_state=dict(data["missing_data_state"], starts_c=[
        dict(c, ties=[p for p in c["ties"] if p != [i, j]])]))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(CheckpointError, match="conditional chain's state is outside"):
        _fit(m, resume=path)
    del bad["missing_data_state"]
    path.write_text(json.dumps(bad))
    with pytest.raises(CheckpointError, match="missing_data_state"):
        _fit(m, resume=path)


def test_ctrl_c_returns_the_last_sample_and_resume_goes_on(written, tmp_path, monkeypatch):
    import ergmfit.estimation.mcmle.estimator as mc
    m, _, whole, _ = written
    real = mc.MCMLE._iterate
    calls = {"n": 0}

    def interrupted_second(self, *a, **k):     # in iteration 2 (the one loop's)
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(self, *a, **k)
    monkeypatch.setattr(mc.MCMLE, "_iterate", interrupted_second)
    ck = tmp_path / "fit.json"
    with pytest.warns(ef.ConvergenceWarning, match="interrupted after 1 "):
        cut = m.fit(method="mcmle", random_state=5, checkpoint=ck, **FAST)
    assert cut.info["interrupted"] and not cut.converged and cut.n_iter == 1
    # the last finished iteration's estimate: where iteration 2 was to sample
    np.testing.assert_array_equal(np.asarray(cut.params), whole.info["history"][1]["theta"])
    assert np.all(np.isfinite(cut.cov))
    monkeypatch.setattr(mc.MCMLE, "_iterate", real)
    res = _fit(m, resume=ck)                 # from the last finished iteration
    np.testing.assert_array_equal(np.asarray(res.params), np.asarray(whole.params))


def test_an_older_checkpoint_resumes_as_before(written, tmp_path):
    # a checkpoint written before chains_state kept the loop's state in
    # missing_data_state (tie lists, the stream, the streak, ...): it still resumes
    # exactly (binary ties, one sample per step: nothing else was lost)
    m, ck, whole, _ = written
    data = json.loads(ck.read_text())
    new = data.pop("chains_state")
    st = data["missing_data_state"]
    data["missing_data_state"] = {
        "obs_interval": st["obs_interval"], "starts_u": [c["ties"] for c in new["starts"]],
        "starts_c": [c["ties"] for c in st["starts_c"]], "rng": new["rng"],
        "streak": new["streak"], "final": new["final"], "burnin": new["burnin"],
        "backtracks": new["backtracks"], "guard_theta": new["guard_theta"],
        "guard_t": new["guard_t"]}
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = m.fit(method="mcmle", resume=old, **FAST)
    assert "resume" not in res.info and not any("restart" in str(w.message) for w in caught)
    np.testing.assert_array_equal(np.asarray(res.params), np.asarray(whole.params))
