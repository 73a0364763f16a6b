"""MCMC-MLE checkpoints carry the sample space (#18 item 4): constraints and
offsets are written into the checkpoint, a resume under other ones is refused
with a message naming them, and a resume that gives none restores them."""
import json
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import CheckpointError

FAST = {"maxit": 2, "samplesize": 200, "interval": 200}


def _fit(model, **kw):
    # a resume runs 2 more iterations (maxit counts the fit's, the checkpoint's 2 included)
    settings = {**FAST, "maxit": FAST["maxit"] + (2 if "resume" in kw else 0), **kw}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(method="mcmle", random_state=1, **settings)


def test_checkpoint_records_and_restores_constraints(tmp_path):
    g = ef.datasets.load("flomarriage")
    ck = tmp_path / "ck.json"
    m = ef.ERGM(g, "edges + triangle")
    _fit(m, constraints="~ bd(maxout=6)", checkpoint=ck)
    saved = json.loads(ck.read_text())["sample_space"]
    assert saved["constraints"] == "~ bd(maxout=6)"
    with pytest.raises(CheckpointError, match="constraints '~ bd\\(maxout=6\\)'.*'~ degrees'"):
        _fit(m, constraints="~ degrees", resume=ck)
    with pytest.raises(CheckpointError, match="constraints"):
        _fit(m, constraints="~ bd(maxout=7)", resume=ck)
    res = _fit(m, resume=ck)                       # no constraints given: the checkpoint's
    assert res.info["sample_space"]["constraints"] == "~ bd(maxout=6)"
    res = _fit(m, constraints="~ bd(maxout=6)", resume=ck)      # the same: fine
    assert res.info["sample_space"]["constraints"] == "~ bd(maxout=6)"


def test_checkpoint_records_and_restores_offsets(tmp_path):
    g = ef.datasets.load("flomarriage")
    ck = tmp_path / "ck.json"
    m = ef.ERGM(g, "offset(edges) + triangle")
    _fit(m, offset_coef=[-1.7], checkpoint=ck)
    assert json.loads(ck.read_text())["sample_space"]["offset_coef"] == [-1.7]
    with pytest.raises(CheckpointError, match="offset coefficients"):
        _fit(m, offset_coef=[-1.2], resume=ck)
    res = _fit(m, resume=ck)
    assert res.params["offset(edges)"] == -1.7
    # an unconstrained checkpoint refuses a constrained resume
    ck2 = tmp_path / "plain.json"
    _fit(ef.ERGM(g, "edges + triangle"), checkpoint=ck2)
    with pytest.raises(CheckpointError, match="constraints none"):
        _fit(ef.ERGM(g, "edges + triangle"), constraints="~ edges", resume=ck2)


def test_checkpoint_without_space_entry_is_refused(tmp_path):
    # every checkpoint of the current format records the sample space: one without it
    # is damaged (a file of the format before it, which has no state_version, is
    # refused as written by an older ergmfit)
    g = ef.datasets.load("flomarriage")
    ck = tmp_path / "old.json"
    m = ef.ERGM(g, "edges + triangle")
    _fit(m, checkpoint=ck)
    data = json.loads(ck.read_text())
    del data["sample_space"]
    ck.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="field 'sample_space'"):
        _fit(m, resume=ck)
    del data["state_version"]
    ck.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="older ergmfit.*without resume"):
        _fit(m, resume=ck)
