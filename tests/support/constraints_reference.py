"""Build the models of statnet's constraint / missing / offset / target fits
(tests/reference/statnet_constraints.json) and fit them with ergmfit."""
import csv
import json
import os
import re

import numpy as np

import ergmfit as ef
from ergmfit.network.io import read_network

from .paths import REFERENCE

REF = os.path.join(REFERENCE, "statnet_constraints.json")
EXT = os.path.join(REFERENCE, "ext")


def entries():
    with open(REF) as fh:
        return json.load(fh)["entries"]


def network(entry):
    name = entry["dataset"]
    path = os.path.join(EXT, name + ".edges.csv")
    if os.path.exists(path):
        return read_network(path, directed=entry["directed"],
                            nodes=os.path.join(EXT, name + ".nodes.csv"))
    return ef.datasets.load(name)


def missing(entry):
    path = os.path.join(EXT, entry["dataset"] + ".na_dyads.csv")
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        return [(int(r["source"]), int(r["target"])) for r in csv.DictReader(fh)]


def _r_vector(call, name):
    m = re.search(name + r"\s*=\s*(c\(([^)]*)\)|[-0-9.eE]+)", call)
    if not m:
        return None
    txt = m.group(2) if m.group(2) is not None else m.group(1)
    return [float(v) for v in txt.split(",")]


def model(entry):
    formula = entry["formula"].split("~", 1)[1].strip()
    cons = entry.get("constraints")
    if cons and entry.get("dyad_lists"):
        cons = (cons, {k: [tuple(p) for p in v["one_based_pairs"]]
                       for k, v in entry["dyad_lists"].items()})
    return ef.ERGM(network(entry), formula, constraints=cons, missing=missing(entry))


def fit(entry, **kw):
    m = model(entry)
    call = entry["call"]
    extra = {}
    off = _r_vector(call, r"offset\.coef")
    if off is not None:
        extra["offset_coef"] = off
    tgt = _r_vector(call, r"target\.stats")
    if tgt is not None:
        extra["target_stats"] = tgt
    method = "mple" if entry["estimate"] == "MPLE" else "mcmle"
    return m.fit(method=method, **extra, **kw)


def compare(entry, res):
    """[(label, ours, statnet, |diff| / statnet se, our se / statnet se)]"""
    out = []
    for k, lab in enumerate(entry["coef_names"] if isinstance(entry["coef_names"], list)
                            else [entry["coef_names"]]):
        b, se = entry["coef"][lab], entry["se"][lab]
        ours = float(res.params.iloc[k] if hasattr(res.params, "iloc") else res.params[k])
        our_se = float(np.sqrt(res.cov[k, k])) if np.ndim(res.cov) == 2 else float("nan")
        z = abs(ours - b) / se if se else (0.0 if abs(ours - b) < 1e-8 else np.inf)
        out.append((lab, ours, b, z, our_se / se if se else float("nan")))
    return out
