"""Reading and writing results files: JSON-safe encodings, networks as
dictionaries, and the checks that turn any damage to a results file into one
:class:`~ergmfit.exceptions.ResultsFileError` naming what is wrong.

Used by :class:`~ergmfit.results.ERGMResults` (``save``/``load``) and
:class:`~ergmfit.results.BayesResults`.
"""
from __future__ import annotations

import json
import math
import os

import numpy as np

from ..exceptions import ErgmfitError, ResultsFileError

MAX_RESULTS_BYTES = 2 ** 30          # a results file (or its unpacked archive) beyond this is refused


# ---------------------------------------------------------------------------
# JSON helpers
# ---------------------------------------------------------------------------
def _enc(x):
    """A JSON-safe copy of x: arrays to lists, NaN to None, +-inf to strings."""
    if isinstance(x, dict):
        return {str(k): _enc(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_enc(v) for v in x]
    if isinstance(x, np.ndarray):
        return _enc(x.tolist())
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    return x


def _dec_float(x):
    if x is None:
        return float("nan")
    if isinstance(x, str):
        return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}[x]
    return float(x)


def _dec_array(x):
    if x is None:
        return None
    if isinstance(x, list):
        return np.array([_dec_array(v) if isinstance(v, list) else _dec_float(v) for v in x],
                        dtype=float)
    return _dec_float(x)


def _jsonable(v) -> bool:
    try:
        json.dumps(_enc(v), allow_nan=False)
        return True
    except (TypeError, ValueError):
        return False


def network_to_dict(net) -> dict:
    """The parts of a :class:`~ergmfit.network.Network` that JSON can hold."""
    d = {"n": int(net.n), "directed": bool(net.directed),
         "ties": np.asarray(net.ties, dtype=np.int64).tolist()}
    dropped = []
    labels = [v.item() if isinstance(v, np.generic) else v for v in net.labels]
    if _jsonable(labels) and labels != list(range(net.n)):
        d["labels"] = labels
    for key, attrs in (("node_attrs", getattr(net, "node_attrs", {})),
                       ("edge_attrs", getattr(net, "edge_attrs", {})),
                       ("graph_attrs", getattr(net, "graph_attrs", {}))):
        keep = {}
        for name, vals in attrs.items():
            if isinstance(vals, np.ndarray):
                vals = vals.tolist()
            elif isinstance(vals, (list, tuple)):
                vals = [v.item() if isinstance(v, np.generic) else v for v in vals]
            if _jsonable(vals):
                keep[name] = vals
            else:
                dropped.append(f"{key[:-6]}:{name}")
        if keep:
            d[key] = keep
    if dropped:
        d["dropped_attributes"] = dropped
    return d


def network_from_dict(d):
    from ..network import Network

    def dec_vals(vals):
        return [None if v is None else v for v in vals]

    return Network(d["n"], np.asarray(d["ties"], dtype=np.int64).reshape(-1, 2), d["directed"],
                   labels=d.get("labels"),
                   node_attrs={k: dec_vals(v) for k, v in d.get("node_attrs", {}).items()},
                   edge_attrs={k: dec_vals(v) for k, v in d.get("edge_attrs", {}).items()},
                   graph_attrs=d.get("graph_attrs", {}))


def results_file_extension(path) -> str:
    """``.json`` or ``.npz``, the extension of a results file path (else a
    :class:`~ergmfit.exceptions.ResultsFileError`).

    >>> results_file_extension("fit.NPZ")
    '.npz'
    """
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in (".json", ".npz"):
        raise ResultsFileError(f"unknown results file type {ext!r}: use a .json or .npz path")
    return ext


class _Damage(Exception):
    """What is wrong with a results file, in words."""


def _read_results_file(path, ext):
    if ext == ".json":
        with open(path, "rb") as fh:
            raw = fh.read(MAX_RESULTS_BYTES + 1)
        if len(raw) > MAX_RESULTS_BYTES:
            raise _Damage(f"it is larger than {MAX_RESULTS_BYTES // 2**20} MiB")
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    import zipfile
    with zipfile.ZipFile(path) as zf:            # members checked before numpy reads them
        members = {i.filename: i.file_size for i in zf.infolist()}
    total = sum(members.values())
    if total > MAX_RESULTS_BYTES:
        raise _Damage(f"its archive expands to {total:,} bytes (more than "
                      f"{MAX_RESULTS_BYTES // 2**20} MiB)")
    for need in ("meta.npy", "params.npy", "cov.npy"):
        if need not in members:
            raise _Damage(f"the archive has no {need[:-4]!r} array")
    with np.load(path, allow_pickle=False) as z:
        meta = z["meta"]
        if meta.shape != () or meta.dtype.kind != "U":
            raise _Damage("its 'meta' entry is not one JSON string")
        d = json.loads(str(meta[()]), parse_constant=_no_constant)
        if not isinstance(d, dict):
            raise _Damage("its 'meta' entry is not a JSON object")
        ms = d.get("mcmc_sample")
        if isinstance(ms, dict):
            n_ch = ms.pop("n_chains", 0)
            if not isinstance(n_ch, int) or any(f"mcmc_chain_{k}" not in z.files
                                                for k in range(n_ch)):
                raise _Damage("its MCMC sample's chains are missing from the archive")
            ms["chains"] = [_float_array(z[f"mcmc_chain_{k}"], "mcmc_chain") for k in range(n_ch)]
        d["params"] = _float_array(z["params"], "params").tolist()
        d["cov"] = _enc(_float_array(z["cov"], "cov"))
        if "cov_mc" in z.files:
            d["cov_mc"] = _enc(_float_array(z["cov_mc"], "cov_mc"))
        if "network" in d:
            if "ties" not in z.files:
                raise _Damage("the archive has a network but no 'ties' array")
            if not isinstance(d["network"], dict):
                raise _Damage("its 'network' entry is not an object")
            ties = z["ties"]
            if ties.dtype.kind not in "iu":
                raise _Damage("its 'ties' array is not whole numbers")
            d["network"]["ties"] = ties.tolist()
    return d


def _sample_parts(sample):
    """(chains as float arrays, the other entries) of a kept MCMC sample, or None."""
    if not sample or sample.get("chains") is None:
        return None
    chains = [np.asarray(c, dtype=float) for c in sample["chains"]]
    rest = {k: v for k, v in sample.items() if k != "chains"}
    if rest.get("observed") is not None:
        rest["observed"] = np.asarray(rest["observed"], dtype=float)
    return chains, rest


def _loaded_sample(ms):
    """The MCMC sample of a results file (``{"chains", "observed", "labels", ...}``), or None."""
    if ms is None:
        return None
    if not isinstance(ms, dict) or not isinstance(ms.get("chains"), list):
        raise _Damage("its MCMC sample is not an object with chains")
    chains = [c if isinstance(c, np.ndarray) else _dec_array(c) for c in ms["chains"]]
    labels = ms.get("labels")
    observed = _dec_array(ms.get("observed"))
    q = len(labels) if isinstance(labels, list) else -1
    if (not chains or observed is None or np.shape(observed) != (q,)
            or any(np.ndim(c) != 2 or np.shape(c)[1] != q for c in chains)):
        raise _Damage("its MCMC sample's chains, observed statistics and labels do not match")
    out = dict(ms)
    out.update(chains=[np.asarray(c, dtype=float) for c in chains], observed=observed)
    return out


def _no_constant(name):
    raise _Damage(f"it holds {name}, which is not JSON")


def _float_array(a, name):
    if a.dtype.kind not in "fiu":
        raise _Damage(f"its {name!r} array holds {a.dtype} values, not numbers")
    return a.astype(float)


def _check_loaded(res):
    """Everything a loaded result is used for works: the table prints, the dict is rebuilt."""
    p = res.n_params
    if res.cov.shape != (p, p):
        raise _Damage(f"its covariance is {res.cov.shape}, not {p} x {p}")
    if res.formula is not None and not isinstance(res.formula, str):
        raise _Damage("its formula is not text")
    net = res.network
    if net is not None:
        if not isinstance(net, dict):
            raise _Damage("its 'network' entry is not an object")
        network_from_dict(net)                     # raises what is wrong with it
    str(res.summary())
    res.to_json()


def _describe_damage(exc) -> str:
    """What is wrong with a results file, in words, from the exception reading it raised."""
    import zipfile
    import zlib
    if isinstance(exc, _Damage):
        return str(exc)
    if isinstance(exc, json.JSONDecodeError):
        return (f"it is not valid JSON ({exc.msg}: line {exc.lineno}, column {exc.colno}); "
                "it may be truncated")
    if isinstance(exc, UnicodeDecodeError):
        return f"it is not UTF-8 text (byte {exc.start})"
    if isinstance(exc, (zipfile.BadZipFile, EOFError, zlib.error)):
        return f"it is not a readable .npz archive ({exc or type(exc).__name__}); it may be truncated"
    if isinstance(exc, RecursionError):
        return "it nests values too deeply"
    if isinstance(exc, MemoryError):
        return "it is too large to read"
    if isinstance(exc, KeyError):
        return f"the field {exc.args[0]!r} is missing"
    if isinstance(exc, OSError):
        return (f"its content cannot be read ({exc.strerror or exc}); it may be truncated "
                "or damaged")
    if isinstance(exc, ErgmfitError):
        return f"its network is not valid ({exc})"
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"a field has a value of the wrong kind or shape ({type(exc).__name__}: {text})"
