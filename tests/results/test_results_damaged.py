"""Damaged or tampered results files raise one ergmfit error, never a raw Python one (#24)."""
import io
import json
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ergmfit as ef
from ergmfit.exceptions import ResultsFileError
from ergmfit.results import ERGMResults

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    fit = ef.ERGM(ef.datasets.load_network("flomarriage"), "edges + triangle").fit(method="mple")
    d = tmp_path_factory.mktemp("saved")
    fit.save(d / "fit.json")
    fit.save(d / "fit.npz")
    return {ext: (d / f"fit{ext}").read_bytes() for ext in (".json", ".npz")}


def _load_bytes(tmp_path, ext, data):
    path = tmp_path / f"damaged{ext}"
    path.write_bytes(data)
    try:
        return ERGMResults.load(path)
    except ResultsFileError as exc:
        msg = str(exc)
        assert str(path) in msg and "\n" not in msg, msg
        assert "damaged results file" in msg or "newer ergmfit" in msg, msg
        return None


def test_intact_files_load(tmp_path, saved):
    for ext, data in saved.items():
        assert _load_bytes(tmp_path, ext, data).labels == ["edges", "triangle"]


@SETTINGS
@given(ext=st.sampled_from([".json", ".npz"]), frac=st.floats(0, 1, exclude_max=True))
def test_truncated(tmp_path, saved, ext, frac):
    data = saved[ext]
    assert _load_bytes(tmp_path, ext, data[:int(frac * len(data))]) is None


@SETTINGS
@given(ext=st.sampled_from([".json", ".npz"]), frac=st.floats(0, 1, exclude_max=True),
       byte=st.integers(0, 255))
def test_flipped_byte(tmp_path, saved, ext, frac, byte):
    data = bytearray(saved[ext])
    data[int(frac * len(data))] = byte
    _load_bytes(tmp_path, ext, bytes(data))          # loads (a harmless change) or one error


_json = st.recursive(st.none() | st.booleans() | st.integers(-10 ** 20, 10 ** 20)
                     | st.floats(allow_nan=False) | st.text(max_size=5),
                     lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=4), c,
                                                                         max_size=4),
                     max_leaves=10)
_KEYS = ["labels", "params", "cov", "cov_mc", "method", "loglik", "nobs", "null_loglik",
         "converged", "n_iter", "seconds", "se_kind", "warnings", "info", "formula",
         "network", "format_version", "loglik_mcse", "loglik_kind"]
_NET_KEYS = ["n", "directed", "ties", "labels", "node_attrs", "edge_attrs", "graph_attrs"]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(_KEYS + [f"network.{k}" for k in _NET_KEYS]), value=_json,
       delete=st.booleans())
def test_tampered_fields(tmp_path, saved, key, value, delete):
    d = json.loads(saved[".json"])
    target = d
    if key.startswith("network."):
        target, key = d["network"], key.split(".", 1)[1]
    if delete:
        target.pop(key, None)
    else:
        target[key] = value
    res = _load_bytes(tmp_path, ".json", json.dumps(d).encode())
    if res is not None:                               # what loads, works
        str(res.summary())
        try:
            res.rebuild_model()
        except ef.ErgmfitError:                       # e.g. an empty formula: still ours
            pass


@pytest.mark.parametrize("data, what", [
    (b"[" * 100_000, "nests values too deeply"),
    (b"", "not valid JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b"[1, 2]", "not a results object"),
    (b'{"labels": ["a"], "params": [NaN], "method": "mple"}', "NaN, which is not JSON"),
    (b'{"params": [1]}', "'labels' is missing"),
    (b'{"labels": ["a"], "params": [1, 2], "method": "mple"}', "wrong kind or shape"),
    (b'{"labels": ["a"], "params": [1], "method": "mple", "format_version": "x"}',
     "format_version"),
])
def test_damaged_json_messages(tmp_path, data, what):
    path = tmp_path / "r.json"
    path.write_bytes(data)
    with pytest.raises(ResultsFileError, match=what):
        ERGMResults.load(path)


def _npz(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


@pytest.mark.parametrize("arrays, what", [
    ({"params": np.zeros(1), "cov": np.zeros((1, 1))}, "no 'meta' array"),
    ({"meta": np.array([object()], dtype=object), "params": np.zeros(1), "cov": np.eye(1)},
     "not a readable|not one JSON string|pickle|Object arrays"),
    ({"meta": np.array('{"labels": ["a"], "method": "mple", "network": {"n": 2}}'),
      "params": np.zeros(1), "cov": np.eye(1)}, "no 'ties' array"),
    ({"meta": np.array('{"labels": ["a"], "method": "mple"}'),
      "params": np.array(["x"]), "cov": np.eye(1)}, "not numbers"),
])
def test_damaged_npz_messages(tmp_path, arrays, what):
    path = tmp_path / "r.npz"
    path.write_bytes(_npz(**arrays))
    with pytest.raises(ResultsFileError, match=what):
        ERGMResults.load(path)


def test_npz_bomb_is_refused_before_unpacking(tmp_path, monkeypatch):
    import ergmfit.results.io as resultsio
    monkeypatch.setattr(resultsio, "MAX_RESULTS_BYTES", 10_000)
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("meta.npy", b"\0" * 50_000)
    with pytest.raises(ResultsFileError, match="expands to 50,000 bytes"):
        ERGMResults.load(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(ResultsFileError, match="no such file"):
        ERGMResults.load(tmp_path / "nope.json")
    (tmp_path / "d.npz").mkdir()
    with pytest.raises(ResultsFileError, match="directory"):
        ERGMResults.load(tmp_path / "d.npz")
    assert issubclass(ResultsFileError, ef.ErgmfitError)


def test_unreadable_file_says_so(tmp_path, saved, monkeypatch):
    import builtins
    path = tmp_path / "fit.json"
    path.write_bytes(saved[".json"])
    real_open = builtins.open

    def no_permission(file, *a, **k):
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *a, **k)
    monkeypatch.setattr(builtins, "open", no_permission)
    with pytest.raises(ResultsFileError, match="cannot read results file .*Permission denied"):
        ERGMResults.load(path)
