"""The one checkpoint mechanism (ergmfit.runtime.checkpoint.CheckpointState):
a state declared once is written atomically (JSON, or .npz with JSON metadata;
never pickle) and read back with every field checked; whatever does not fit is
one CheckpointError naming the file and the field."""
import json

import numpy as np
import pytest

from ergmfit.exceptions import CheckpointError
from ergmfit.runtime.checkpoint import (Checkpoint, CheckpointState, array, flag, generator,
                                        group, integer, real, record, text)


class Model:
    labels = ["edges", "triangle"]
    formula = "edges + triangle"


class Other(Model):
    labels = ["edges", "mutual"]


def _positive_list(value, dims):
    if not isinstance(value, list) or not all(isinstance(x, int) and x > 0 for x in value):
        raise ValueError("not a list of positive whole numbers")
    return value


class JsonState(CheckpointState):
    kind, what = "test-state", "test checkpoint"
    fields = {"it": integer(0, 1000),
              "rate": real(0.0, 1.0),
              "done": flag(),
              "rule": text({"fast", "slow"}),
              "n": integer(1, 8),
              "theta": array("float64", ("p",)),
              "counts": array("int64", ("n",), low=0, high="it"),
              "extra": record(_positive_list, optional=True),
              "inner": group({"k": integer(1, 5), "rng": generator()})}


class NpzState(JsonState):
    kind, storage = "test-state-npz", "npz"


GOOD = dict(it=7, rate=0.25, done=False, rule="fast", n=3, theta=[0.5, -1.0],
            counts=[0, 7, 2], extra=None)


def _good():
    return dict(GOOD, inner={"k": 2, "rng": np.random.default_rng(3)})


def _write(cls, path, **values):
    with Checkpoint(path) as store:
        assert cls(**values).write(store, Model())


@pytest.mark.parametrize("cls, name", [(JsonState, "ck.json"), (NpzState, "ck.npz")])
def test_round_trip(tmp_path, cls, name):
    path = tmp_path / name
    _write(cls, path, **_good())
    st = cls.read(path, Model())
    assert (st.it, st.rate, st.done, st.rule, st.n, st.extra) == (7, 0.25, False, "fast", 3, None)
    np.testing.assert_array_equal(st.theta, [0.5, -1.0])
    assert st.counts.dtype == np.int64 and list(st.counts) == [0, 7, 2]
    assert st.inner["k"] == 2
    # the generator comes back in its state: the same stream
    assert st.inner["rng"].random() == np.random.default_rng(3).random()
    if cls.storage == "npz":
        with np.load(path, allow_pickle=False) as z:
            assert {"theta", "counts"} <= set(z.files)
    else:
        assert json.loads(path.read_text())["state_version"] == 1


BAD = [
    ("it", 2 ** 40, "field 'it' is 1099511627776, outside 0..1000"),
    ("it", True, "field 'it' is True, not a whole number"),
    ("it", "3", "field 'it' is '3', not a whole number"),
    ("rate", float("nan"), "field 'rate' is nan, not a finite number"),
    ("rate", 1.5, "field 'rate' is 1.5, outside 0.0..1.0"),
    ("done", 1, "field 'done' is 1, not true or false"),
    ("rule", "fastest", "field 'rule' is 'fastest', not one of"),
    ("n", None, "field 'n' is missing"),
    ("theta", [1.0], r"field 'theta' is an array of shape \(1,\), not \(2,\)"),
    ("theta", [1.0, float("inf")], "field 'theta' is an array with values that are not finite"),
    ("theta", [[1.0, 2.0]], "field 'theta' is an array of shape"),
    ("theta", ["a", "b"], "field 'theta' is an array of <U1"),
    ("counts", [0, 1], r"field 'counts' is an array of shape \(2,\), not \(3,\)"),
    ("counts", [0, 1, 8], "field 'counts' is an array with values outside 0..7"),
    ("counts", [0.5, 1, 2], "field 'counts' is an array of float64, not of whole"),
    ("extra", [1, -1], "field 'extra' is not a list of positive whole numbers"),
    ("inner", {"k": 9}, r"field 'inner.k' is 9, outside 1..5"),
    ("inner", {"k": 2, "rng": {"bit_generator": "os.system"}},
     "field 'inner.rng' is .*not the state of a numpy random generator"),
    ("inner", {"k": 2, "rng": {"bit_generator": "PCG64", "state": "x"}},
     "field 'inner.rng' is not the state of a PCG64 generator"),
    ("inner", [], "field 'inner' is .*not a record"),
]


@pytest.mark.parametrize("field, value, message", BAD)
def test_each_field_kind_refused_when_wrong(tmp_path, field, value, message):
    path = tmp_path / "ck.json"
    _write(JsonState, path, **_good())
    data = json.loads(path.read_text())
    if field == "inner" and isinstance(value, dict) and "rng" not in value:
        value = dict(data["inner"], **value)
    data[field] = value
    path.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match=message) as err:
        JsonState.read(path, Model())
    assert str(path) in str(err.value)


def test_npz_array_of_wrong_shape_is_refused(tmp_path):
    path = tmp_path / "ck.npz"
    _write(NpzState, path, **dict(_good(), counts=[0, 1, 2, 3]))   # n says 3
    with pytest.raises(CheckpointError, match=r"ck.npz.*field 'counts'.*shape \(4,\)"):
        NpzState.read(path, Model())


@pytest.mark.parametrize("cls, name", [(JsonState, "ck.json"), (NpzState, "ck.npz")])
def test_truncated_file_is_refused(tmp_path, cls, name):
    path = tmp_path / name
    _write(cls, path, **_good())
    raw = path.read_bytes()
    path.write_bytes(raw[:len(raw) // 2])
    with pytest.raises(CheckpointError, match=name):
        cls.read(path, Model())


def test_wrong_kind_and_version_are_refused(tmp_path):
    path = tmp_path / "ck.json"
    _write(JsonState, path, **_good())
    with pytest.raises(CheckpointError, match="not an? test checkpoint"):
        class Another(JsonState):
            kind = "another-state"
        Another.read(path, Model())
    data = json.loads(path.read_text())
    path.write_text(json.dumps(dict(data, state_version=99)))
    with pytest.raises(CheckpointError, match="format version 99.*reads version 1"):
        JsonState.read(path, Model())
    del data["state_version"]           # the format before CheckpointState
    path.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="older ergmfit.*without resume"):
        JsonState.read(path, Model())


def test_another_model_is_refused(tmp_path):
    path = tmp_path / "ck.json"
    _write(JsonState, path, **_good())
    with pytest.raises(CheckpointError, match="is for the statistics.*'triangle'.*'mutual'"):
        JsonState.read(path, Other())


def test_validate_checks_across_fields(tmp_path):
    class Checked(JsonState):
        def validate(self, path, model, dims):
            if self.done and self.it == 0:
                raise ValueError("a finished run with no iterations")
    path = tmp_path / "ck.json"
    _write(Checked, path, **dict(_good(), it=0, done=True, counts=[0, 0, 0]))
    with pytest.raises(CheckpointError, match="ck.json: a finished run with no iterations"):
        Checked.read(path, Model())


def test_unknown_fields_are_a_programming_error():
    with pytest.raises(TypeError, match="no fields"):
        JsonState(nonsense=1)
