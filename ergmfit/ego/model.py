"""ergm.ego's fit: an ERGM for the population an egocentric sample was drawn from.

The egocentric estimate of the per-capita statistics m (the weighted mean of the egos'
contributions, :mod:`ergmfit.ego.statistics`) fixes the target statistics of a
*pseudo-population* network: each ego stands for round(N' w_i / Σw) nodes carrying its
attributes, and an ERGM on those N' nodes is fitted to the targets N' m (statnet's
``target.stats``).  The size offset ``netsize.adj`` (an edges term with coefficient
-log(N'/N)) carries the estimate from N' nodes to the population size N, so the coefficients
refer to a network of N nodes with the sample's per-capita mean degree (Krivitsky, Handcock
& Morris 2011).  The covariance of the estimate is the survey variance of m carried through
the inverse per-capita information, I₁⁻¹ V(m) I₁⁻¹ with I₁ = I(θ)/N' (Krivitsky & Morris
2017, section 4).

References
----------
Krivitsky, P. N. and Morris, M. (2017). Inference for social network models from
egocentrically sampled data. *Annals of Applied Statistics* 11(1), 427-455.
Krivitsky, P. N., Handcock, M. S. and Morris, M. (2011). Adjusting for network size and
composition effects in exponential-family random graph models. *Statistical Methodology*
8(4), 319-339.
"""
from __future__ import annotations

import math

import numpy as np

from ..exceptions import DataFormatError, SettingsError
from ..model import DATA_MODELS, ERGM
from .data import EgoData
from .statistics import ego_contributions, survey_vcov

__all__ = ["EgoERGM", "pseudo_population_counts"]

#: statnet's label of the size offset
NETSIZE_LABEL = "offset(netsize.adj)"


def pseudo_population_counts(weights, ppopsize):
    """How many pseudo-population nodes each ego stands for (ergm.ego's ``ppop.wt="round"``):
    round(N' w_i / Σw), rounding halves to even as R does."""
    w = np.asarray(weights, dtype=float)
    return np.round(ppopsize * w / w.sum()).astype(np.int64)


class EgoERGM:
    """An ERGM fitted to an egocentric sample, as ergm.ego does (``ef.ERGM(ego_data, ...)``).

    Parameters
    ----------
    ego : EgoData
    formula : str
        Ego terms (see :data:`ergmfit.ego.EGO_TERMS`), statnet's syntax.
    popsize : float
        Size N of the population network (ergm.ego's ``popsize``, default 1: the
        coefficients then refer to a network of one node, i.e. the edges coefficient carries
        the -log N' offset).
    ppopsize : "auto", "samp", "pop" or int
        Size N' of the pseudo-population (ergm.ego's ``ppopsize``): "auto" is "pop" when
        ``popsize`` is not 1 and "samp" otherwise; "samp" is the number of egos and "pop" is
        N, each times ``ppopsize_mul``; a number sets N' directly.
    ppopsize_mul : float
        Multiplier of the "samp"/"pop" size.

    Notes
    -----
    Sampling weights enter both the target statistics and the pseudo-population (each ego's
    share of its nodes), and the survey variance; see docs/egocentric.md for where this
    differs from ergm.ego 1.0.1.

    Examples
    --------
    >>> import ergmfit as ef
    >>> ego = ef.EgoData.from_network(ef.datasets.load("faux.mesa.high"))
    >>> m = ef.ERGM(ego, "edges + nodematch('Sex')", popsize=205)
    >>> m.ppopsize, m.netsize_offset
    (205, 0.0)
    >>> fit = m.fit()
    >>> [round(float(v), 3) for v in fit.params]
    [0.0, -4.801, 0.524]
    """

    def __init__(self, ego, formula, popsize=1, ppopsize="auto", ppopsize_mul=1.0,
                 response=None, reference=None):
        if response is not None or reference is not None:
            raise SettingsError("egocentric ERGMs are binary: response= and reference= do "
                                "not apply")
        if not isinstance(ego, EgoData):
            raise DataFormatError(f"an egocentric ERGM needs an EgoData, not "
                                  f"{type(ego).__name__}")
        if isinstance(popsize, bool) or not isinstance(popsize, (int, float, np.integer,
                                                                 np.floating)) \
                or not math.isfinite(popsize) or popsize <= 0:
            raise SettingsError(f"popsize must be a positive number (the population size), "
                                f"not {popsize!r}")
        self.ego = ego
        self.formula = formula
        self.popsize = float(popsize)
        self.stat_labels, self.contributions = ego_contributions(ego, formula)
        w = ego.weights
        #: per-capita statistics (the weighted mean contribution) and their survey variance
        self.per_capita = (w[:, None] * self.contributions).sum(axis=0) / w.sum()
        self.per_capita_vcov = survey_vcov(self.contributions, w, ego.strata)
        target = self._ppopsize(ppopsize, ppopsize_mul)
        self.ego_copies = pseudo_population_counts(w, target)
        self.ppopsize = int(self.ego_copies.sum())
        if self.ppopsize < 2:
            raise SettingsError(f"the pseudo-population has {self.ppopsize} node(s); raise "
                                f"ppopsize or ppopsize_mul")
        #: coefficient of the size offset: -log(N'/N)
        self.netsize_offset = -math.log(self.ppopsize / self.popsize) + 0.0
        self.labels = [NETSIZE_LABEL] + list(self.stat_labels)
        self.target_stats = self.per_capita * self.ppopsize

    def _ppopsize(self, ppopsize, mul):
        if isinstance(ppopsize, str):
            kind = ppopsize.lower()
            if kind == "auto":
                kind = "pop" if self.popsize != 1 else "samp"
            if kind == "pop":
                return self.popsize * float(mul)
            if kind == "samp":
                return self.ego.n_egos * float(mul)
            raise SettingsError(f"ppopsize must be 'auto', 'samp', 'pop' or a number, "
                                f"not {ppopsize!r}")
        if isinstance(ppopsize, bool) or not isinstance(ppopsize, (int, float, np.integer)) \
                or not ppopsize >= 2:
            raise SettingsError(f"ppopsize must be a number >= 2, not {ppopsize!r}")
        return float(ppopsize)

    # ------------------------------------------------------------------ pseudo-population
    def pseudo_population(self):
        """The pseudo-population network without ties: N' nodes, ego i copied
        ``ego_copies[i]`` times with its attributes."""
        from ..network import Network
        rows = np.repeat(np.arange(self.ego.n_egos), self.ego_copies)
        attrs = {str(c): list(self.ego.egos[c].to_numpy()[rows])
                 for c in self.ego.egos.columns if c != self.ego.ego_id}
        return Network(self.ppopsize, np.zeros((0, 2), dtype=np.int64), directed=False,
                       node_attrs=attrs)

    def network_model(self):
        """The ERGM on the pseudo-population: ``offset(edges) + formula`` (the offset is
        ergm.ego's netsize.adj)."""
        return ERGM(self.pseudo_population(), f"offset(edges) + {self.formula}")

    @property
    def dyad_independent(self) -> bool:
        return self.network_model().dyad_independent

    # ------------------------------------------------------------------ fit
    def fit(self, method=None, random_state=None, verbose=False, **kwargs):
        """Fit as ergm.ego: the pseudo-population ERGM at the target statistics, with the
        size offset fixed, and the survey covariance of the estimate.

        Parameters
        ----------
        method : {"mple", "mcmle"} or None
            None: the exact MLE ("mple" at the targets, which is the MLE) for
            dyad-independent models, MCMC-MLE otherwise.
        random_state : int, Generator or None
        **kwargs
            Settings of the estimator.

        Returns
        -------
        ERGMResults
            With statnet's labels (``offset(netsize.adj)`` first); ``cov`` is ergm.ego's
            covariance; ``ego_info`` holds ``popsize``, ``ppopsize``, the per-capita
            statistics ``m`` and their survey variance ``v``, and the network model's own
            covariance ``ergm_cov``.
        """
        model = self.network_model()
        if method is None:
            method = "mple" if model.dyad_independent else "mcmle"
        target = np.concatenate([[self.target_stats[self.stat_labels.index("edges")]
                                  if "edges" in self.stat_labels else 0.0],
                                 self.target_stats])
        res = model.fit(method=method, random_state=random_state, verbose=verbose,
                        target_stats=target, offset_coef=[self.netsize_offset], **kwargs)
        free = ~np.asarray(model.offset, dtype=bool)
        ergm_cov = np.array(res.cov, dtype=float)
        info = _information(ergm_cov[np.ix_(free, free)])
        cov = np.zeros_like(ergm_cov)
        if info is not None:
            inv_pc = np.linalg.inv(info / self.ppopsize)
            cov[np.ix_(free, free)] = inv_pc @ self.per_capita_vcov @ inv_pc
        else:
            cov[np.ix_(free, free)] = np.nan
        res.labels = list(self.labels)
        res.params = np.asarray(res.params, dtype=float)
        res.cov = cov
        res.se_kind = "ergm.ego: survey variance of the targets through the inverse information"
        res.ego_info = {"popsize": self.popsize, "ppopsize": self.ppopsize,
                        "m": dict(zip(self.stat_labels, self.per_capita)),
                        "v": self.per_capita_vcov, "ergm_cov": ergm_cov,
                        "netsize_offset": self.netsize_offset}
        return res

    def statistics(self, scaleto=None, se=False):
        """ergm.ego's ``summary(egor ~ formula, scaleto=, se=)`` (default scale: popsize)."""
        from .statistics import ego_statistics
        return ego_statistics(self.ego, self.formula,
                              scaleto=self.popsize if scaleto is None else scaleto, se=se)


def _information(cov):
    """The information matrix from the network model's covariance (its inverse), or None
    if that is not invertible."""
    if not np.all(np.isfinite(cov)):
        return None
    try:
        return np.linalg.inv(cov)
    except np.linalg.LinAlgError:
        return None


DATA_MODELS[EgoData] = EgoERGM
