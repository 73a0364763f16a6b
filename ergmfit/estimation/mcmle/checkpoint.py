"""The MCMC-MLE checkpoint: a JSON file of the fields of the loop's state
(:class:`~ergmfit.estimation.mcmle.state.MCMLEState`) declared ``saved`` --
the iteration's parameters, interval and history -- of what the next iteration
goes on from (``chains_state``: the chains' last states, the random stream, the
step's bookkeeping and the pooled samples, :func:`chains_record`), and of the
model and sample space it is for.

A resume from it continues the same computation: the resumed fit returns the
uninterrupted fit's coefficients, iterations and history, bit for bit
(tests/estimation/mcmle/test_exact_resume.py).  A chain's state is saved as the
model's family describes it (``ModelFamily.chain_arrays``: the ties of a binary
network, the nonzero dyads and their values of a count one) and read back
through ``ModelFamily.chain_start``, so the loop saves every family's chains
alike.  A checkpoint without ``chains_state`` (written before session 23)
still resumes, its chains restarting from the observed network (the result's
``info["resume"]`` and a warning say so)."""
from __future__ import annotations

import numpy as np

from ...exceptions import CheckpointError, NetworkError
from ...runtime.checkpoint import flag, generator, group, integer, record, text
from ...sampling.space import dyad_vars
from ...utils.setops import has_duplicates
from ..common.checkpoint import ModelState
from .state import MAX_HISTORY, MCMLEState, saved_fields  # noqa: F401 (MAX_HISTORY: its home)

__all__ = ["MCMLECheckpoint", "MissingMCMLECheckpoint", "chains_record", "restore_chains"]


def _chain_states(value, dims):
    """The saved last states of the chains: a list of tie lists, or of records
    ``{"ties": ..., "values": ...}`` (checked against the network and the sample
    space by :func:`read_chains`)."""
    if not isinstance(value, list) or len(value) > 2 ** 16:
        raise ValueError("not a list of the chains' states")
    return value


def _floats(value, dims):
    if not isinstance(value, list) or not all(isinstance(x, (int, float))
                                              and not isinstance(x, bool) for x in value):
        raise ValueError("not a list of numbers")
    return value


def _pool(value, dims):
    """The pooled samples (``[{"eta": [...], "draws": [[...], ...]}, ...]``): their
    shapes are checked by :func:`restore_chains`, which knows the model."""
    if not isinstance(value, list) or len(value) > 2 ** 10 or not all(
            isinstance(x, dict) and isinstance(x.get("eta"), list)
            and isinstance(x.get("draws"), list) for x in value):
        raise ValueError("not a list of samples (records of 'eta' and 'draws')")
    return value


#: what a resume goes on from, beyond the parameters, interval and history (optional: a
#: checkpoint written before session 23 has none, and its chains restart)
CHAINS_STATE = group({
    "starts": record(_chain_states, optional=True),
    "rng": generator(),
    "burnin": integer(0, 2 ** 40),
    "streak": integer(0, 2 ** 20),
    "final": flag(),
    "backtracks": integer(0, 2 ** 20),
    "redraws": integer(0, 2 ** 20),
    "approached": flag(),
    "capped_warned": flag(),
    "guard_theta": record(_floats, optional=True),
    "guard_t": record(_floats, optional=True),
    "pool": record(_pool, optional=True),
    "init_method": text(max_len=4096, optional=True)}, optional=True)


class MCMLECheckpoint(ModelState):
    """Where an MCMC-MLE fit stands after an iteration: the saved fields of
    :class:`~ergmfit.estimation.mcmle.state.MCMLEState` (the estimate ``theta``,
    the sampling ``interval``, at most the run's ``max_interval``, and the
    iterations' ``history``)."""

    kind = "ergmfit-mcmle-checkpoint"
    what = "MCMC-MLE checkpoint"
    fields = {**saved_fields(MCMLEState), "chains_state": CHAINS_STATE}

    @classmethod
    def of(cls, state, extra=None):
        """The checkpoint of a loop state (its saved fields and ``extra``: the
        target's, see :mod:`.target`)."""
        return cls(**{name: getattr(state, name) for name in saved_fields(MCMLEState)},
                   **(extra or {}))

    @classmethod
    def dims(cls, model, context):
        return {"max_interval": 2 ** 20, **super().dims(model, context)}


class MissingMCMLECheckpoint(MCMLECheckpoint):
    """The checkpoint of an MCMC-MLE fit with missing dyads: the MCMC-MLE fields and
    ``missing_data_state``, what an exact resume needs (both chains' last states,
    the loop's step bookkeeping and the random generator), so that a resumed fit
    returns what the uninterrupted one would have."""

    what = "missing-data MCMC-MLE checkpoint"
    # the conditional chains' states; the rest (optional) is what a checkpoint written
    # before ``chains_state`` kept of the loop and is read only from those
    fields = {**MCMLECheckpoint.fields,
              "missing_data_state": group({
                  "obs_interval": integer(1, 2 ** 20, optional=True),
                  "starts_c": record(_chain_states, optional=True),
                  "streak": integer(0, 2 ** 20, optional=True),
                  "final": flag(optional=True),
                  "burnin": integer(0, 2 ** 40, optional=True),
                  "backtracks": integer(0, 2 ** 20, optional=True),
                  "guard_theta": record(_floats, optional=True),
                  "guard_t": record(_floats, optional=True),
                  "starts_u": record(_chain_states, optional=True),
                  "rng": generator(optional=True)})}


def chains_record(state, model, rng) -> dict:
    """The checkpoint's ``chains_state`` of a loop state: what the next iteration goes on
    from (the chains' last states as the model's family describes them, the random
    generator ``rng``, the step's bookkeeping and the pooled samples)."""
    guard = state.guard
    return {
        "starts": chain_list(state.starts, model),
        "rng": rng.bit_generator.state, "burnin": int(state.burnin),
        "streak": int(state.streak), "final": bool(state.final),
        "backtracks": int(state.backtracks), "redraws": int(state.redraws),
        "approached": bool(state.approached), "capped_warned": bool(state.capped_warned),
        "guard_theta": None if guard is None else [float(x) for x in guard[0]],
        "guard_t": None if guard is None else [float(x) for x in guard[1]],
        "pool": [{"eta": [float(x) for x in eta], "draws": np.asarray(g, float).tolist()}
                 for eta, g in state.pool],
        "init_method": state.init_method}


def restore_chains(saved, state, model, space, n_chains, path) -> bool:
    """Set ``state`` to go on from a checkpoint's ``chains_state`` (``saved``): the chains'
    starts (``space``: their sample space), the bookkeeping, the pooled samples and the
    random generator (``state.rng``).  False (nothing set) for a checkpoint without it."""
    st = saved
    if st is None:
        return False
    try:
        starts = read_chains(st["starts"], model, space, n_chains, "")
        q = len(model.parameterisation.eta(state.theta))
        pool = []
        for rec in st["pool"] or []:
            eta = np.asarray(rec["eta"], dtype=float)
            g = np.asarray(rec["draws"], dtype=float)
            if eta.shape != (q,) or g.ndim != 2 or g.shape[1] != q or not len(g) or \
                    not (np.all(np.isfinite(eta)) and np.all(np.isfinite(g))):
                raise ValueError(f"a pooled sample is not draws of {q} finite statistics "
                                 f"with their {q} natural parameters")
            pool.append((eta, g))
        guard = None
        if st["guard_theta"] is not None:
            guard = (np.asarray(st["guard_theta"], float), np.asarray(st["guard_t"], float))
            if guard[0].shape != state.theta.shape or guard[1].ndim != 1:
                raise ValueError("its overshoot guard does not fit the coefficients")
    except (TypeError, ValueError, OverflowError, AttributeError, KeyError) as exc:
        raise CheckpointError(f"cannot resume from {path}: its chains' state is damaged "
                              f"({type(exc).__name__}: {exc})") from None
    state.starts = starts if starts is not None else [None] * n_chains
    state.rng = st["rng"]
    state.burnin, state.streak, state.final = st["burnin"], st["streak"], st["final"]
    state.backtracks, state.redraws = st["backtracks"], st["redraws"]
    state.approached, state.capped_warned = st["approached"], st["capped_warned"]
    state.guard, state.pool = guard, pool
    if st["init_method"]:       # the fit's own start (info["init_method"] names the file)
        state.init_method, state.resumed_from = st["init_method"], path
    return True


def chain_list(starts, model):
    """The chains' last states as JSON (``ModelFamily.chain_arrays``: ``{"ties": [[i, j],
    ...], "values": [...] or None}`` each); None before the chains have run."""
    if starts is None or any(s is None for s in starts):
        return None
    from ...families import family_of
    family = family_of(model)
    out = []
    for end in starts:
        ties, values = family.chain_arrays(end)
        out.append({"ties": np.asarray(ties, dtype=np.int64).reshape(-1, 2).tolist(),
                    "values": None if values is None
                    else np.asarray(values, dtype=np.int64).tolist()})
    return out


def read_chains(value, model, space, n_chains, what):
    """The saved last states of ``n_chains`` chains of ``model`` as ``model.sampler(start=)``
    takes them (``ModelFamily.chain_start``), from :func:`chain_list`'s records or an older
    checkpoint's tie lists (None: start afresh); ``space``: the sample space their ties
    must lie in."""
    if not isinstance(value, list) or len(value) != n_chains:
        # (read_ties: None, or a value that is not a list, or another number of chains)
        return read_ties(value, model, space, n_chains, what)
    label = f"{what} " if what else ""
    from ...families import family_of
    family = family_of(model)
    records = [v if isinstance(v, dict) else {"ties": v, "values": None} for v in value]
    ties = read_ties([r.get("ties") for r in records], model, space, n_chains, what)
    out = []
    for t, r in zip(ties, records):
        values = r.get("values")
        if values is not None:
            v = np.asarray(values, dtype=float)
            if v.shape != (len(t),) or not np.all(np.isfinite(v)) or \
                    np.any(v != np.round(v)) or np.any(v <= 0) or np.any(v > 2 ** 62):
                raise ValueError(f"a {label}chain's state has values that are not one "
                                 "positive whole number per nonzero dyad")
            values = v.astype(np.int64)
        out.append(family.chain_start(t, values))
    return out


def read_ties(value, model, space, n_chains, what):
    """The saved last states of ``n_chains`` chains of ``model`` (None: start
    afresh); ``space``: the sample space they must lie in (None: the model's, whose
    missing dyads a state may fill)."""
    if value is None:
        return None
    what = f"{what} " if what else ""
    if not isinstance(value, list):
        raise ValueError(f"the {what}chains' states are not a list")
    if len(value) != n_chains:
        return None         # another number of chains: they start from the data
    net = model.network
    out = []
    for ties in value:
        t = np.asarray(ties if len(ties) else np.zeros((0, 2)), dtype=float)
        if t.ndim != 2 or t.shape[1] != 2 or not np.all(np.isfinite(t)) or \
                np.any(t != np.round(t)) or np.any((t < 0) | (t >= net.n)) or \
                np.any(t[:, 0] == t[:, 1]):
            raise ValueError(f"a {what}chain's state is not a list of ties between "
                             f"{net.n} nodes")
        t = t.astype(np.int64)
        if has_duplicates(dyad_vars(net.n, net.directed, t)):
            raise ValueError(f"a {what}chain's state lists a tie twice")
        try:
            space.check(t)
        except NetworkError as exc:
            raise ValueError(f"a {what}chain's state is outside its sample space "
                             f"({exc})") from None
        out.append(t)
    return out
