"""Snowball samples of a large network, estimated conditionally and combined.

A network too large to fit whole (in memory or in time) is fitted from many
small snowball samples (Stivala et al. 2016):

1. :func:`snowball_samples` draws samples: each starts from ``n_seeds`` nodes
   drawn uniformly at random (wave 0), and wave w holds the nodes tied (in
   either direction) to wave w - 1 and not in an earlier wave, up to
   ``waves``.  A sample is the induced subnetwork of its nodes, with each
   node's wave in a node attribute (``"zone"``).
2. Each sample is estimated *conditionally* on its outermost wave (Pattison
   et al. 2013): the constraint ``snowball("zone")`` (see
   :mod:`ergmfit.constraints`) leaves free only the dyads between nodes of
   the same or adjacent waves, neither in the last wave, and keeps every node
   of wave w >= 1 tied to wave w - 1 (how it was reached).  The last wave's
   ties (among itself and to the wave before) are conditioned on: a node of
   the last wave has ties to unsampled nodes, so a dyad touching it has change
   statistics the sample cannot compute, while every neighbour of an earlier
   wave's node is in the sample, so the free dyads' change statistics are
   those of the full network (EstimNetDirected's conditional samplers fix the
   same dyads).  Ties two or more waves apart cannot exist in a snowball
   sample.  A sample needs at least 2 waves to have ties that vary beyond its
   seeds.  Any estimator that supports constraints (``"ee"``, ``"mcmle"``,
   ``"mple"``) fits it unchanged.
3. :func:`meta_analysis` combines the samples' estimates by their inverse
   variances: for each parameter, theta = sum(theta_i / s_i^2) /
   sum(1 / s_i^2) with standard error (sum(1 / s_i^2))^(-1/2); samples whose
   fit did not converge or has no finite positive standard error are left
   out (and listed).  Cochran's Q = sum((theta_i - theta)^2 / s_i^2) with its
   chi-square p-value (N - 1 degrees of freedom) tells whether the samples
   disagree by more than their standard errors.

:func:`fit_snowball` does 2 and 3, the samples in parallel through joblib
(``n_jobs``; ``backend="dask"`` runs them on the workers of the current
``dask.distributed.Client``, one machine's ``LocalCluster`` or a cluster of
many, each sample sent when a worker frees up, largest first).  The derivations and the checks against full-network fits are in
``docs/guide/snowball.md``.

References
----------
Pattison, P. E., Robins, G. L., Snijders, T. A. B. & Wang, P. (2013).
Conditional estimation of exponential random graph models from snowball
sampling designs. *Journal of Mathematical Psychology* 57, 284-296.

Stivala, A. D., Koskinen, J. H., Rolls, D. A., Wang, P. & Robins, G. L.
(2016). Snowball sampling for estimating exponential random graph models for
large networks. *Social Networks* 47, 167-188.

Examples
--------
>>> import networkx as nx
>>> import ergmfit as ef
>>> g = nx.gnm_random_graph(400, 800, seed=1)
>>> samples = ef.snowball_samples(g, n_samples=3, n_seeds=5, waves=2, random_state=1)
>>> [s.n_waves for s in samples]
[3, 3, 3]
>>> fit = ef.fit_snowball(samples, "edges", method="mple", random_state=2)
>>> fit.n_used
3
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np

from .exceptions import DegenerateModelError, NetworkError, SettingsError
from .labeled import LabeledArray
from .network import Network, as_network
from .network.rows import neighbour_rows
from .utils.setops import unique_sorted
from .utils.validation import check_random_state

__all__ = ["SnowballSample", "snowball_sample", "snowball_samples", "meta_analysis",
           "MetaAnalysis", "fit_snowball"]


# ---------------------------------------------------------------------------
# sampling
# ---------------------------------------------------------------------------
def _neighbours(net):
    """CSR of the ties ignoring direction: (starts, neighbours)."""
    t = np.asarray(net.ties, dtype=np.int64).reshape(-1, 2)
    return neighbour_rows(net.n, np.concatenate([t[:, 0], t[:, 1]]),
                          np.concatenate([t[:, 1], t[:, 0]]))


@dataclass
class SnowballSample:
    """One snowball sample: the induced subnetwork of its nodes and their waves.

    Attributes
    ----------
    network : Network
        The induced subnetwork (node labels and attributes of the full
        network), its nodes in wave order, each node's wave in the node
        attribute ``zone_attr``.
    nodes : ndarray
        The sampled nodes as indices of the full network, in wave order.
    zones : ndarray
        Each sampled node's wave (0: the seeds).
    zone_attr : str
        The node attribute holding the waves.
    """

    network: Network
    nodes: np.ndarray
    zones: np.ndarray
    zone_attr: str = "zone"

    @property
    def n_waves(self) -> int:
        """The number of waves with nodes, the seeds' included."""
        return int(self.zones.max()) + 1 if len(self.zones) else 0

    @property
    def wave_sizes(self) -> list:
        return np.bincount(self.zones).tolist()

    @property
    def constraints(self) -> str:
        """The constraint formula of the conditional estimation of this sample."""
        return f'~ snowball("{self.zone_attr}")'

    def model(self, formula, **kwargs):
        """The ERGM of this sample, conditional on its outermost wave."""
        from .model import ERGM
        return ERGM(self.network, formula, constraints=self.constraints, **kwargs)

    def __repr__(self):
        return (f"SnowballSample(n={len(self.nodes)}, ties={self.network.n_ties}, "
                f"waves={self.wave_sizes})")


def _check_count(value, name, lo):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise SettingsError(f"{name} must be a whole number >= {lo}, got {value!r}")
    return int(value)


def _draw(net, csr, seeds, waves, zone_attr):
    starts, nb = csr
    zone = np.full(net.n, -1, dtype=np.int64)
    zone[seeds] = 0
    frontier = np.asarray(seeds, dtype=np.int64)
    order = [frontier]
    for w in range(1, waves + 1):
        if not len(frontier):
            break
        lens = starts[frontier + 1] - starts[frontier]
        idx = np.repeat(starts[frontier], lens) + (np.arange(lens.sum())
                                                   - np.repeat(np.cumsum(lens) - lens, lens))
        cand = unique_sorted(nb[idx])
        frontier = cand[zone[cand] < 0]
        zone[frontier] = w
        order.append(frontier)
    nodes = np.concatenate(order)
    zones = zone[nodes]
    pos = np.full(net.n, -1, dtype=np.int64)
    pos[nodes] = np.arange(len(nodes))
    t = np.asarray(net.ties, dtype=np.int64).reshape(-1, 2)
    keep = (pos[t[:, 0]] >= 0) & (pos[t[:, 1]] >= 0)
    sub_ties = pos[t[keep]]
    attrs = {a: [vals[k] for k in nodes.tolist()] for a, vals in net.node_attrs.items()}
    attrs[zone_attr] = zones.tolist()
    sub = Network(len(nodes), sub_ties, net.directed, labels=[net.labels[k] for k in nodes],
                  node_attrs=attrs)
    return SnowballSample(sub, nodes, zones, zone_attr)


def _prepare(network, zone_attr):
    net = as_network(network)
    if getattr(net, "bipartite", None) is not None:
        raise NetworkError("snowball sampling of a two-mode network is not implemented")
    if not isinstance(zone_attr, str) or not zone_attr:
        raise SettingsError(f"zone_attr must be a node attribute name, got {zone_attr!r}")
    if zone_attr in net.node_attrs:
        raise SettingsError(f"the network already has a node attribute {zone_attr!r}; pass "
                            "another zone_attr= for the waves")
    return net


def snowball_sample(network, n_seeds, waves, random_state=None, zone_attr="zone"):
    """One snowball sample of ``network`` (see :func:`snowball_samples`).

    Parameters
    ----------
    network : networkx graph, Network, or anything :func:`ergmfit.network.as_network` reads
    n_seeds : int
        Seeds (wave 0), drawn uniformly at random without replacement.
    waves : int
        Waves traced from the seeds (ties followed in either direction).
    random_state : None, int or numpy Generator
    zone_attr : str
        The node attribute of the sample that holds each node's wave.

    Returns
    -------
    SnowballSample

    Examples
    --------
    >>> import networkx as nx
    >>> s = snowball_sample(nx.path_graph(10), n_seeds=1, waves=2, random_state=0)
    >>> s.wave_sizes[0]
    1
    """
    return snowball_samples(network, 1, n_seeds, waves, random_state, zone_attr)[0]


def snowball_samples(network, n_samples, n_seeds, waves, random_state=None, zone_attr="zone",
                     seeds_outside_samples=False):
    """``n_samples`` snowball samples of ``network`` (Stivala et al. 2016).

    The design of Stivala et al. (2016) and of EstimNetDirected's sampling
    scripts: ``n_samples * n_seeds`` distinct seeds are drawn uniformly at
    random among all the nodes and split into the samples' seed sets, so every
    sample is a snowball sample of the same design from the whole network
    (and no node is a seed twice).  The waves of different samples may overlap
    (then the samples are not quite independent: keep ``n_samples * n_seeds``
    small against the network's size, as the papers do).

    ``seeds_outside_samples=True`` draws each sample's seeds among the nodes of
    no earlier sample instead (disjoint seeds and no seed inside another
    sample).  On a network with hubs this is another design: the first
    samples take the hubs' neighbourhoods, and later samples' seeds are left
    with the periphery (on Epinions, 10 samples of 10 seeds and 2 waves: the
    first sample held 282 nodes in its inner waves, the nine others 26-76).

    Parameters
    ----------
    network : networkx graph, Network, or anything :func:`ergmfit.network.as_network` reads
    n_samples : int
    n_seeds : int
        Seeds of each sample (wave 0).
    waves : int
        Waves traced from the seeds; ties are followed in either direction
        (directed networks as EstimNetDirected's snowball samples).
    random_state : None, int or numpy Generator
    zone_attr : str
        The node attribute of each sample holding the waves (``"zone"``).
    seeds_outside_samples : bool
        Draw each sample's seeds among the nodes of no earlier sample (see
        above) instead of all seeds at once among all the nodes.

    Returns
    -------
    list of SnowballSample

    Examples
    --------
    >>> import networkx as nx
    >>> samples = snowball_samples(nx.florentine_families_graph(), 2, n_seeds=2, waves=1,
    ...                            random_state=3)
    >>> len(samples), samples[0].n_waves
    (2, 2)
    """
    n_samples = _check_count(n_samples, "n_samples", 1)
    n_seeds = _check_count(n_seeds, "n_seeds", 1)
    waves = _check_count(waves, "waves", 1)
    net = _prepare(network, zone_attr)
    if not isinstance(seeds_outside_samples, (bool, np.bool_)):
        raise SettingsError(f"seeds_outside_samples must be True or False, got "
                            f"{seeds_outside_samples!r}")
    rng = check_random_state(random_state)
    csr = _neighbours(net)
    if not seeds_outside_samples:
        if n_samples * n_seeds > net.n:
            raise SettingsError(f"{n_samples} samples of {n_seeds} distinct seeds need "
                                f"{n_samples * n_seeds} nodes, but the network has {net.n}: "
                                "take fewer or smaller samples")
        seeds = rng.choice(net.n, size=n_samples * n_seeds, replace=False)
        return [_draw(net, csr, np.sort(seeds[k * n_seeds:(k + 1) * n_seeds]), waves,
                      zone_attr) for k in range(n_samples)]
    used = np.zeros(net.n, dtype=bool)
    out = []
    for k in range(n_samples):
        pool = np.flatnonzero(~used)
        if len(pool) < n_seeds:
            raise SettingsError(f"sample {k + 1} needs {n_seeds} seeds outside the earlier "
                                f"samples, but only {len(pool)} nodes are left: take fewer or "
                                "smaller samples")
        seeds = np.sort(rng.choice(pool, size=n_seeds, replace=False))
        s = _draw(net, csr, seeds, waves, zone_attr)
        used[s.nodes] = True
        out.append(s)
    return out


# ---------------------------------------------------------------------------
# meta-analysis
# ---------------------------------------------------------------------------
@dataclass
class MetaAnalysis:
    """Estimates combined across samples by inverse-variance weighting.

    Attributes
    ----------
    params, bse : LabeledArray
        The combined estimate of each parameter and its standard error.
    estimates, std_errors : ndarray (N, p)
        Every sample's estimates and standard errors.
    used : bool ndarray (N,)
        The samples that entered the combination.
    q, q_pvalue : ndarray (p,)
        Cochran's Q of each parameter and its chi-square(n_used - 1) p-value
        (small: the samples disagree by more than their standard errors).
    tau2, re_params, re_bse : ndarray (p,)
        The random-effects combination (DerSimonian & Laird 1986), for samples
        that disagree by more than their standard errors: the between-sample
        variance tau^2 = max(0, (Q - (N - 1)) / (S1 - S2 / S1)) (S1, S2: sums
        of the weights 1 / s_i^2 and of their squares), the estimate weighted
        by 1 / (s_i^2 + tau^2) and its standard error (sum of those weights)^(-1/2).
        Equal to ``params`` and ``bse`` when tau^2 = 0.
    samples : list of dict
        What :func:`fit_snowball` recorded of each sample's fit (nodes, ties,
        waves, converged, seconds...).
    seconds, cpu_seconds : float
        Wall and CPU (summed over the samples' fits) time.
    """

    params: LabeledArray
    bse: LabeledArray
    estimates: np.ndarray
    std_errors: np.ndarray
    used: np.ndarray
    q: np.ndarray
    q_pvalue: np.ndarray
    tau2: np.ndarray = None
    re_params: LabeledArray = None
    re_bse: LabeledArray = None
    samples: list = field(default_factory=list)
    seconds: float = float("nan")
    cpu_seconds: float = float("nan")

    @property
    def labels(self) -> list:
        return list(self.params.labels)

    @property
    def n_used(self) -> int:
        return int(self.used.sum())

    def conf_int(self, alpha=0.05):
        """(p, 2) normal confidence intervals of the combined estimates."""
        from scipy.stats import norm
        z = norm.ppf(1 - alpha / 2)
        return LabeledArray(np.column_stack([self.params - z * self.bse,
                                             self.params + z * self.bse]),
                            self.labels, columns=[f"{alpha / 2:g}", f"{1 - alpha / 2:g}"])

    def summary(self) -> str:
        """A table: combined estimate, standard error, z, and Cochran's Q."""
        lines = [f"Snowball meta-analysis: {self.n_used} of {len(self.used)} samples combined "
                 "(inverse-variance weights)"]
        w = max(12, max(len(lab) for lab in self.labels))
        lines.append(f"{'':<{w}} {'Estimate':>10} {'Std.Err':>10} {'z':>8} {'Q':>9} "
                     f"{'Pr(>Q)':>8} | {'RE est.':>9} {'RE s.e.':>9}")
        for k, lab in enumerate(self.labels):
            b, s = float(self.params[k]), float(self.bse[k])
            lines.append(f"{lab:<{w}} {b:>10.4f} {s:>10.4f} {b / s:>8.2f} "
                         f"{float(self.q[k]):>9.2f} {float(self.q_pvalue[k]):>8.3f} | "
                         f"{float(self.re_params[k]):>9.4f} {float(self.re_bse[k]):>9.4f}")
        lines.append("RE: random effects (DerSimonian-Laird), for samples that disagree "
                     "(small Pr(>Q))")
        for reason, which in self.left_out().items():
            lines.append(f"left out, {reason}: {len(which)} (samples {which})")
        return "\n".join(lines)

    def left_out(self) -> dict:
        """``{reason: [sample numbers (from 1)]}`` of the samples not combined.

        The reasons: the fit raised an error (a statistic that cannot vary in
        the sample), has no finite estimate or standard error, or did not
        converge by its estimator's criterion (``converged=False``).
        """
        out = {}
        finite = (np.isfinite(self.estimates).all(axis=1) & np.isfinite(self.std_errors).all(axis=1)
                  & (self.std_errors > 0).all(axis=1))
        for k in np.flatnonzero(~self.used):
            rec = self.samples[k] if k < len(self.samples) else {}
            if rec.get("error"):
                reason = "no information (the fit raised an error)"
            elif not finite[k]:
                reason = "no finite estimate or standard error"
            elif rec and not rec.get("converged", True):
                reason = "not converged"
            else:
                reason = "excluded by the caller"
            out.setdefault(reason, []).append(int(k) + 1)
        return out

    def __str__(self):
        return self.summary()


def meta_analysis(estimates, std_errors, labels=None, usable=None) -> MetaAnalysis:
    """Combine independent estimates of the same parameters by their inverse variances.

    Parameters
    ----------
    estimates, std_errors : array_like (N, p)
        One row per sample.
    labels : list of str, optional
        The parameters' labels (default ``theta1`` ...).
    usable : bool array_like (N,), optional
        Samples allowed in (default all); a sample whose standard errors are
        not all finite and positive, or whose estimates are not finite, is
        left out either way.

    Returns
    -------
    MetaAnalysis

    Examples
    --------
    >>> m = meta_analysis([[1.0], [3.0]], [[1.0], [1.0]], labels=["edges"])
    >>> float(m.params["edges"]), round(float(m.bse["edges"]), 4)
    (2.0, 0.7071)
    >>> m = meta_analysis([[0.0], [2.0], [4.0]], [[1.0], [1.0], [1.0]])
    >>> float(m.q[0]), float(m.tau2[0]), round(float(m.re_bse[0]), 4)   # Q 8 on 2 d.f.
    (8.0, 3.0, 1.1547)

    References
    ----------
    DerSimonian, R. & Laird, N. (1986). Meta-analysis in clinical trials.
    *Controlled Clinical Trials* 7, 177-188.
    """
    from scipy.stats import chi2
    est = np.atleast_2d(np.asarray(estimates, dtype=float))
    se = np.atleast_2d(np.asarray(std_errors, dtype=float))
    if est.shape != se.shape:
        raise SettingsError(f"estimates {est.shape} and std_errors {se.shape} differ in shape")
    n, p = est.shape
    labels = [f"theta{k + 1}" for k in range(p)] if labels is None else list(labels)
    if len(labels) != p:
        raise SettingsError(f"{len(labels)} labels for {p} parameters")
    ok = np.isfinite(est).all(axis=1) & np.isfinite(se).all(axis=1) & (se > 0).all(axis=1)
    if usable is not None:
        ok &= np.asarray(usable, dtype=bool)
    if not ok.any():
        raise SettingsError("no sample has finite estimates with finite positive standard "
                            "errors: nothing to combine")
    w = 1.0 / se[ok] ** 2
    total = w.sum(axis=0)
    theta = (w * est[ok]).sum(axis=0) / total
    q = (w * (est[ok] - theta) ** 2).sum(axis=0)
    dof = int(ok.sum()) - 1
    qp = chi2.sf(q, dof) if dof > 0 else np.full(p, np.nan)
    # DerSimonian-Laird between-sample variance and the random-effects combination
    scale = total - (w ** 2).sum(axis=0) / total
    tau2 = np.where(scale > 0, np.maximum(0.0, (q - dof) / np.where(scale > 0, scale, 1.0)), 0.0)
    w_re = 1.0 / (se[ok] ** 2 + tau2)
    re_theta = (w_re * est[ok]).sum(axis=0) / w_re.sum(axis=0)
    return MetaAnalysis(LabeledArray(theta, labels, name="coef"),
                        LabeledArray(np.sqrt(1.0 / total), labels, name="stderr"),
                        est, se, ok, q, np.asarray(qp, dtype=float), tau2,
                        LabeledArray(re_theta, labels, name="coef"),
                        LabeledArray(np.sqrt(1.0 / w_re.sum(axis=0)), labels, name="stderr"))


# ---------------------------------------------------------------------------
# conditional estimation of many samples
# ---------------------------------------------------------------------------
def _fit_one(sample, formula, method, seed, settings):
    """Fit one sample conditionally on its outermost wave; a small picklable record."""
    wall, cpu = time.perf_counter(), time.process_time()
    model = sample.model(formula)
    record = {"labels": list(model.labels), "n_nodes": int(sample.network.n),
              "n_ties": int(sample.network.n_ties), "wave_sizes": sample.wave_sizes,
              "error": None}
    try:
        fit = model.fit(method=method, random_state=seed, **settings)
        record.update(params=np.asarray(fit.params, dtype=float),
                      bse=np.asarray(fit.bse, dtype=float),
                      converged=bool(getattr(fit, "converged", True)))
    except DegenerateModelError as err:
        # a sample whose statistics cannot vary carries no information: left out, said why
        nan = np.full(len(record["labels"]), np.nan)
        record.update(params=nan, bse=nan.copy(), converged=False, error=str(err))
    record.update(seconds=time.perf_counter() - wall, cpu_seconds=time.process_time() - cpu,
                  pid=os.getpid())
    return record


def _cost(sample):
    """A sample's fit's relative cost: its free dyads (about the inner waves' nodes
    squared) and its ties (the network state, the statistics)."""
    inner = int(np.count_nonzero(sample.zones < sample.zones.max())) if len(sample.zones) else 0
    return inner * inner + int(sample.network.n_ties)


def fit_snowball(samples, formula, method="ee", random_state=None, n_jobs=1, backend=None,
                 require_converged=True, **settings) -> MetaAnalysis:
    """Fit every snowball sample conditionally and combine the fits (meta-analysis).

    Parameters
    ----------
    samples : list of SnowballSample
        From :func:`snowball_samples`.
    formula : str
        The model, as for :class:`ergmfit.ERGM`.
    method : str
        An estimator that supports constraints: ``"ee"`` (the default, as
        Stivala et al.), ``"mcmle"``, or ``"mple"`` (dyad-independent models).
    random_state : None, int or numpy Generator
        Each sample's fit gets its own seed drawn from it.
    n_jobs : int
        Samples fitted at once (joblib; -1: every CPU, or with dask every worker
        thread).  They are sent out largest first (by their inner waves' size), so
        that parallel workers finish together.
    backend : None, "loky", "threading" or "dask"
        joblib's backend, or ``"dask"``: the samples go to the workers of the
        current ``dask.distributed.Client`` (create one first, e.g.
        ``Client(LocalCluster(n_workers=2, threads_per_worker=1))`` or one
        connected to a cluster's scheduler), one per free worker thread, the next
        largest as soon as a worker frees up; with ``n_jobs != 1`` they run on the
        workers even when the cluster has a single one.
    require_converged : bool
        Leave out samples whose fit reports ``converged=False``.  A sample
        whose fit raises :class:`~ergmfit.DegenerateModelError` (a statistic
        that cannot vary in it) is always left out; its record's ``error``
        says why.
    **settings
        The estimator's settings (``ERGM.fit(method, **settings)``).

    Returns
    -------
    MetaAnalysis
        ``samples`` holds each sample's fit record.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.gnm_random_graph(300, 600, seed=4)
    >>> samples = snowball_samples(g, 2, n_seeds=4, waves=2, random_state=5)
    >>> fit_snowball(samples, "edges", method="mple", random_state=6).labels
    ['edges']
    """
    if not samples or not all(isinstance(s, SnowballSample) for s in samples):
        raise SettingsError("samples must be a non-empty list of SnowballSample "
                            "(from ergmfit.snowball_samples)")
    if not isinstance(formula, str):
        raise SettingsError(f"formula must be a string, got {type(formula).__name__}")
    from .runtime.parallel import parallel_map
    rng = check_random_state(random_state)
    seeds = rng.integers(0, 2**31 - 1, size=len(samples)).tolist()
    wall = time.perf_counter()
    # the largest samples first (longest-processing-time order): a worker that frees up
    # takes the next largest, so the last fits to finish are short ones and the workers
    # end together; the records come back in the samples' order, each with its own seed
    order = sorted(range(len(samples)), key=lambda k: -_cost(samples[k]))
    done = parallel_map(_fit_one, [(samples[k], formula, method, seeds[k], settings)
                                   for k in order], n_jobs=n_jobs, backend=backend)
    records = [None] * len(samples)
    for k, rec in zip(order, done):
        records[k] = rec
    labels = records[0]["labels"]
    usable = [r["converged"] or not require_converged for r in records]
    out = meta_analysis(np.array([r["params"] for r in records]),
                        np.array([r["bse"] for r in records]), labels, usable)
    out.samples = records
    out.seconds = time.perf_counter() - wall
    out.cpu_seconds = float(sum(r["cpu_seconds"] for r in records))
    return out
