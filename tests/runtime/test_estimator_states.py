"""Each estimator's checkpoint state (issue #38 item 5): a field of a tampered or
damaged checkpoint that asks for unbounded work or does not fit is one
CheckpointError naming the file and the field -- never a hang, a raw
exception or a silent acceptance."""
import json
import os
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import CheckpointError

MCMLE = dict(maxit=1, samplesize=256, interval=256, burnin=2048, eval_loglik=False)
EE = dict(ee_steps=10, ee_inner_steps=20, sampler_steps=300, s_steps=20, se_samplesize=100)
BAYES = dict(burnin=5, main_iters=20, aux_iters=300, n_chains=2)


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")


def _fit(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(random_state=3, **kw)


def _tamper_json(path, **fields):
    data = json.loads(path.read_text())
    data.update(fields)
    path.write_text(json.dumps(data))


def _tamper_npz(path, **fields):
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    for k, v in fields.items():
        if k in arrays:
            arrays[k] = np.asarray(v)
        else:
            meta[k] = v
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **arrays)


def test_mcmle_huge_interval_is_refused(flo, tmp_path):
    ck = tmp_path / "fit.json"
    _fit(flo, method="mcmle", checkpoint=str(ck), **MCMLE)
    _tamper_json(ck, interval=2 ** 40)
    with pytest.raises(CheckpointError, match=r"fit.json: its field 'interval' is 1099511627776"):
        _fit(flo, method="mcmle", resume=str(ck), **MCMLE)


def test_missing_data_mcmle_huge_backtracks_and_foreign_generator_are_refused(tmp_path):
    # (the old missing-data loop's 'retreats' went with it: the one MCMC-MLE loop counts
    # backtracks)
    g = ef.datasets.load("flomarriage")
    lab = list(g.nodes)
    m = ef.ERGM(g, "edges + triangle", missing=[(lab[0], lab[1]), (lab[2], lab[3])])
    ck = tmp_path / "fit.json"
    _fit(m, method="mcmle", checkpoint=str(ck), **MCMLE)
    data = json.loads(ck.read_text())
    st = data["missing_data_state"]
    _tamper_json(ck, missing_data_state=dict(st, backtracks=2 ** 40))
    with pytest.raises(CheckpointError, match="field 'missing_data_state.backtracks'"):
        _fit(m, method="mcmle", resume=str(ck), **MCMLE)
    _tamper_json(ck, missing_data_state=dict(st, rng={"bit_generator": "os.system"}))
    with pytest.raises(CheckpointError, match="field 'missing_data_state.rng'"):
        _fit(m, method="mcmle", resume=str(ck), **MCMLE)


def test_bayes_huge_aux_iters_is_refused_not_run(flo, tmp_path):
    # was: a resume that ran 2^40 proposals per auxiliary network (a hang)
    ck = tmp_path / "state.npz"
    _fit(flo, method="bayes", checkpoint=str(ck), **BAYES)
    _tamper_npz(ck, aux_iters=2 ** 40)
    resume = {k: v for k, v in BAYES.items() if k != "aux_iters"}
    with pytest.raises(CheckpointError, match=r"state.npz: its field 'aux_iters' is "
                                              r"1099511627776, outside 1\.\.1000000"):
        _fit(flo, method="bayes", resume=str(ck), **resume)


@pytest.mark.parametrize("field, value", [("accepted", [-1, 0]), ("it", 10 ** 9),
                                          ("theta", [[np.nan, 0.0], [0.0, 0.0]])])
def test_bayes_other_tampered_fields_are_refused(flo, tmp_path, field, value):
    ck = tmp_path / "state.npz"
    _fit(flo, method="bayes", checkpoint=str(ck), **BAYES)
    _tamper_npz(ck, **{field: value})
    with pytest.raises(CheckpointError, match=f"state.npz: its field '{field}'"):
        _fit(flo, method="bayes", resume=str(ck), **BAYES)


@pytest.fixture
def ee_checkpoint(flo, tmp_path):
    ck = tmp_path / "ee"
    _fit(flo, method="ee", checkpoint=str(ck), **EE)
    return ck


def test_ee_a_million_seeds_are_refused(flo, ee_checkpoint):
    # was: a resume that started 10^6 chains
    _tamper_json(ee_checkpoint / "meta.json", seeds=list(range(10 ** 6)))
    with pytest.raises(CheckpointError, match="meta.json: its field 'seeds' has 1000000 seeds"):
        _fit(flo, method="ee", resume=str(ee_checkpoint))


@pytest.mark.parametrize("field, value, message", [
    ("runs", [{}] * 3, "field 'runs' is not a list of at most 2"),
    ("outer_done", 1e308, "field 'outer_done' is 1e\\+308, not a whole number"),
    ("phase", 7, "field 'phase' is 7, outside 0..1"),
    ("x_on", [10 ** 9], "field 'x_on' is an array with values outside"),
])
def test_ee_tampered_chain_state_is_refused(flo, ee_checkpoint, field, value, message):
    _tamper_npz(ee_checkpoint / "chain_0.npz", **{field: value})
    with pytest.raises(CheckpointError, match=f"chain_0.npz: its {message}"):
        _fit(flo, method="ee", resume=str(ee_checkpoint))


@pytest.mark.parametrize("field, value", [("interval", 1e308), ("proposals", -1)])
def test_ee_tampered_simulation_is_refused(flo, ee_checkpoint, field, value):
    sims = ee_checkpoint / "chain_0_sims.npz"
    assert os.path.exists(sims)
    _tamper_npz(sims, **{field: value})
    with pytest.raises(CheckpointError, match=f"chain_0_sims.npz: its field '{field}'"):
        _fit(flo, method="ee", resume=str(ee_checkpoint))
