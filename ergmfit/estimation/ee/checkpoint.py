"""The EE checkpoint: a directory with ``meta.json`` (:class:`EEMetaState`: the
model, the settings and the chains' seeds), one ``chain_<c>.npz`` per chain
(:class:`EEChainState`: its network, θ, dzA, D, IFD's V and the trajectory so
far) and, for a finished chain, ``chain_<c>_sims.npz`` (:class:`EESimsState`:
its standard-error simulation)."""
from __future__ import annotations

import os
import time

import numpy as np

from ...exceptions import CheckpointError
from ...families import family_of
from ...runtime.checkpoint import (Checkpoint, CheckpointState, array, flag, integer, real,
                                   record)
from ..common.checkpoint import ModelState

__all__ = ["EEMetaState", "EEChainState", "EESimsState", "ChainCheckpoint", "read_chain_state",
           "read_sims", "sims_name", "MAX_CHAINS"]

#: the most chains a checkpoint may name (one seed each)
MAX_CHAINS = 4096
#: the phases of a chain (IFD, then the unconditional one of "ifd-tnt")
MAX_PHASES = 2
_BIG = 2 ** 62

_RUN_ARRAYS = ("theta_rows", "dz_rows", "acc_rows", "v_rows", "iters", "final_theta",
               "final_dzA", "D_final", "times", "cpu_times")
_RUN_SCALARS = {"proposal": str, "n_done": int, "store_every": int, "stage_start": int,
                "stopped_early": bool}
_CUR_ARRAYS = ("theta_rows", "dz_rows", "acc_rows", "v_rows", "n_done", "times", "cpu_times",
               "theta", "dzA", "Dvec")


def _settings(value, dims):
    # checked setting by setting with EE's own checks when the run resumes
    # (estimator._check_saved_cfg); here: a mapping
    if not isinstance(value, dict):
        raise ValueError("not a mapping of EE's settings")
    return value


class EEMetaState(ModelState):
    """``meta.json`` of an EE checkpoint: the observed statistics, one seed per
    chain and the run's settings."""

    kind = "ergmfit-ee-checkpoint"
    what = "EE checkpoint"
    fields = {"g_obs": array("float64", ("q",)),
              "seeds": array("int64", (None,), low=0, high=2 ** 63 - 1),
              "cfg": record(_settings)}

    @classmethod
    def dims(cls, model, context):
        return {**super().dims(model, context), "q": len(model.statistics_vector())}

    def validate(self, path, model, dims):
        if not 1 <= len(self.seeds) <= MAX_CHAINS:
            raise ValueError(f"its field 'seeds' has {len(self.seeds)} seeds, outside "
                             f"1..{MAX_CHAINS} (one per chain)")


def _runs(value, dims):
    if not isinstance(value, list) or len(value) > MAX_PHASES:
        raise ValueError(f"not a list of at most {MAX_PHASES} finished phases")
    for run in value:
        if not isinstance(run, dict) or set(run) != set(_RUN_SCALARS):
            raise ValueError(f"not a list of records of {sorted(_RUN_SCALARS)}")
        for k, kind in _RUN_SCALARS.items():
            v = run[k]
            ok = isinstance(v, kind) and (kind is bool or not isinstance(v, bool))
            if ok and kind is int:
                ok = 0 <= v <= _BIG
            if ok and kind is str:
                ok = len(v) <= 32
            if not ok:
                raise ValueError(f"a list of phases one of whose {k!r} is {v!r}")
    return value


def _chain_fields():
    rows = {"theta_rows": 2, "dz_rows": 2, "acc_rows": 1, "v_rows": 1, "iters": 1,
            "final_theta": 1, "final_dzA": 1, "D_final": 1, "times": 1, "cpu_times": 1}
    fields = {"chain": integer(0, MAX_CHAINS - 1),
              "phase": integer(0, MAX_PHASES - 1),
              "final": flag(),
              "outer_done": integer(0, _BIG),
              "V": real(optional=True),
              "is_delete": flag(optional=True),
              "runs": record(_runs),
              "x_on": array("int64", (None,), low=0, high="last_var"),
              "x_values": array("int64", (None,), low=0, optional=True),
              "y_on": array("int64", (None,), low=0, high="last_var", optional=True),
              "s_theta": array("float64", ("p",), optional=True, finite=False),
              "Dmean": array("float64", ("p",), optional=True, finite=False),
              "s_rows": array("float64", (None, "p"), optional=True, finite=False)}
    for i in range(MAX_PHASES):
        for k in _RUN_ARRAYS:
            dtype = "int64" if k == "iters" else "float64"
            fields[f"run{i}.{k}"] = array(dtype, (None,) * rows[k], optional=True,
                                          finite=False)
    for k in _CUR_ARRAYS:
        if k == "n_done":
            fields["cur.n_done"] = array("int64", (), low=0, high=_BIG, optional=True)
        else:
            fields[f"cur.{k}"] = array("float64", (None,) * rows.get(k, 1), optional=True,
                                       finite=False)
    return fields


class EEChainState(CheckpointState):
    """``chain_<c>.npz`` of an EE checkpoint: one chain's state (the model is
    checked once, by :class:`EEMetaState`)."""

    kind = "ergmfit-ee-chain-checkpoint"
    what = "EE checkpoint"
    storage = "npz"
    fields = _chain_fields()

    @classmethod
    def dims(cls, model, context):
        # the chain passes its compiled model's n_vars: compiling again only to read it
        # built a second network state (at Pokec's size about 2 GB of a resume's peak)
        n_vars = context.get("n_vars")
        if n_vars is None:
            n_vars = model.compiled().n_vars
        return {**super().dims(model, context), "last_var": int(n_vars) - 1}

    def validate(self, path, model, dims):
        if self.chain != dims["chain"]:
            raise ValueError(f"it is the checkpoint of chain {self.chain}, not of chain "
                             f"{dims['chain']}")
        for i in range(MAX_PHASES):
            have = [getattr(self, f"run{i}.{k}") is not None for k in _RUN_ARRAYS]
            if any(have) != (i < len(self.runs)) or any(have) != all(have):
                raise ValueError(f"its arrays of phase {i} do not match its 'runs'")
        cur = [getattr(self, f"cur.{k}") is not None for k in _CUR_ARRAYS]
        if not all(cur) and (any(cur) or not self.runs):
            raise ValueError("its current phase's arrays are incomplete")
        if (self.V is None) != (self.is_delete is None):
            raise ValueError("its fields 'V' and 'is_delete' are not both set or both unset")


def read_chain_state(path, model, chain, n_vars=None):
    """The saved state of ``chain`` as the chain loop reads it: ``meta`` (the
    scalars), ``arrays``, ``runs`` (finished phases) and ``current``.  ``n_vars``:
    the variables of the chain's compiled model (None: ``model.compiled()``'s)."""
    st = EEChainState.read(path, model, chain=chain, n_vars=n_vars)
    meta = {k: getattr(st, k) for k in ("chain", "phase", "final", "outer_done", "V",
                                        "is_delete", "runs")}
    arrays = {k: getattr(st, k) for k in EEChainState.fields
              if k not in meta and getattr(st, k) is not None}
    runs = []
    for i, sc in enumerate(st.runs):
        run = {k: arrays[f"run{i}.{k}"] for k in _RUN_ARRAYS}
        run.update(sc)
        runs.append(run)
    current = {k[4:]: v for k, v in arrays.items() if k.startswith("cur.")}
    return {"meta": meta, "arrays": arrays, "runs": runs, "current": current}


class ChainCheckpoint:
    """Saves one chain's state (network, θ, dzA, D, IFD's V, trajectory so
    far) when it is due (every ``every`` seconds) and at phase ends and Ctrl-C;
    ``state`` is the chain (:class:`~ergmfit.estimation.ee.chain.EEChain`: its
    ``outer_done`` and ``cond``)."""

    def __init__(self, directory, chain, every, bm, ifd, fixed, runs, state, model):
        # the parent run holds the directory's lock; a failed write warns
        self.store = Checkpoint(directory, directory=True, what="EE checkpoint")
        self.name = f"chain_{chain}.npz"
        self.chain, self.every, self.bm, self.ifd = chain, every, bm, ifd
        self.fixed, self.runs, self.state, self.model = fixed, runs, state, model
        self.phase = 0
        self.last = time.perf_counter()

    def due(self):
        return time.perf_counter() - self.last >= self.every

    def __call__(self, partial):
        values = dict(self.fixed)
        for i, run in enumerate(self.runs):
            values.update({f"run{i}.{k}": np.asarray(run[k]) for k in _RUN_ARRAYS})
        values.update({f"cur.{k}": np.asarray(v) for k, v in partial.items() if k != "final"})
        values.update(family_of(self.model).state_arrays(self.bm))
        values.update(self.state.cond.saved_arrays())   # missing dyads: the completion
        EEChainState(chain=self.chain, phase=self.phase, final=bool(partial["final"]),
                     outer_done=int(self.state.outer_done),
                     V=None if self.ifd is None else float(self.ifd.V),
                     is_delete=None if self.ifd is None else bool(self.ifd.is_delete),
                     runs=[{k: (run[k].item() if hasattr(run[k], "item") else run[k])
                            for k in _RUN_SCALARS} for run in self.runs],
                     **values).write(self.store, self.model, self.name)
        self.last = time.perf_counter()


class EESimsState(CheckpointState):
    """``chain_<c>_sims.npz``: a finished chain's standard-error simulation."""

    kind = "ergmfit-ee-checkpoint-sims"
    what = "EE checkpoint"
    storage = "npz"
    fields = {"chain": integer(0, MAX_CHAINS - 1),
              "outer_done": integer(0, _BIG),
              "interval": integer(1, 2 ** 40),
              "proposals": integer(0, _BIG),
              "sims": array("float64", (None, None)),
              "cond_cov": array("float64", None, optional=True, finite=False)}


def sims_name(chain):
    return f"chain_{chain}_sims.npz"


def read_sims(directory, model, chain, outer_done):
    """(sims, interval, proposals, other arrays) a finished chain saved in
    ``directory``, or None (not saved)."""
    path = os.path.join(directory, sims_name(chain))
    if not os.path.exists(path):
        return None
    st = EESimsState.read(path, model)
    if st.chain != chain or st.outer_done != outer_done:
        raise CheckpointError(f"{path} is damaged: not the standard-error simulation of chain "
                              f"{chain} of this run")
    return (st.sims, st.interval, st.proposals,
            {} if st.cond_cov is None else {"cond_cov": st.cond_cov})
