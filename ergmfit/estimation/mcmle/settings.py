"""The settings of MCMC-MLE: one table for complete and missing data (the
missing-data fit has its own defaults for a few of them)."""
from __future__ import annotations

from ..base import BACKENDS, Setting, auto_or, boolean, choice, integer, n_jobs_setting, number

#: 'auto' (the model family's declaration) or a share in [0, 1]
_min_ess_share = auto_or(number(0, 1), "a number in [0, 1]")


SETTINGS = (
    Setting("init", None, None, "Starting parameters (array or dict); default the MPLE "
            "(contrastive divergence when the MPLE does not exist)."),
    Setting("force_main", False, boolean, "Run the MCMC-MLE even where the MLE is exact "
            "(dyad-independent models; models independent across node pairs on stacked "
            "networks), as statnet's force.main."),
    Setting("maxit", 60, integer(1), "At most this many iterations (statnet's MCMLE.maxit)."),
    Setting("samplesize", 1024, integer(2), "MCMC draws per iteration."),
    Setting("interval", 1024, integer(1), "Proposals between draws (adapted, see above)."),
    Setting("burnin", None, integer(0, allow_none=True),
            "Proposals before the first draw (default 16 x interval)."),
    Setting("n_chains", None, integer(1, allow_none=True), "Chains (default n_jobs)."),
    Setting("n_jobs", 1, n_jobs_setting, "Parallel processes (joblib; -1: every CPU)."),
    Setting("proposal", "auto", None, "MH proposal ('auto', 'tnt', 'triadic', ...)."),
    Setting("steplength_margin", 0.05, number(0), "Margin of the Hummel step length."),
    Setting("termination", "hummel", choice("hummel", "hotelling"), "Stopping rule."),
    Setting("last_boost", 4, integer(1), "Sample-size multiplier of the last iteration."),
    Setting("conv_pval", 0.5, number(0, 1), "Hotelling p-value of convergence."),
    Setting("target_ess", 64, number(0, lo_open=True), "Effective draws per sample."),
    Setting("min_interval", None, integer(1, allow_none=True),
            "Smallest interval (default interval / 4)."),
    Setting("max_interval", 2**20, integer(1), "Largest interval."),
    Setting("eval_loglik", True, boolean, "Bridge-sample the log-likelihood."),
    Setting("bridges", 16, integer(1), "Bridge points (statnet's bridge.nsteps)."),
    Setting("bridge_samplesize", None, integer(8, allow_none=True),
            "Draws per bridge point (default samplesize / 8, at least 64)."),
    Setting("backend", None, choice(*BACKENDS, allow_none=True),
            "joblib backend of parallel chains ('loky' default, 'dask')."),
    Setting("checkpoint", None, None, "JSON file written after every iteration: the "
            "estimate, interval and history, and what the next iteration goes on from (the "
            "chains' last states, the random stream, the Hummel streak and the pooled "
            "samples)."),
    Setting("resume", None, None, "Continue from this checkpoint file: with the same "
            "settings the fit returns what the uninterrupted one would have (its "
            "random_state is not used; maxit counts the checkpoint's iterations too)."),
    Setting("obs_interval", None, integer(1, allow_none=True),
            "Missing dyads only: proposals between draws of the chains conditional on the "
            "observed dyads (default a quarter of the adapted interval)."),
    Setting("min_step_ess", None, number(0, allow_none=True),
            "Effective draws a sample needs to be stepped on; fewer, or chains still "
            "drifting, and it is redrawn at the same parameters (default: the model "
            "family's share of target_ess, 0 for binary ties)."),
    Setting("drift_start", "auto", choice("auto", "newton", "sa", allow_none=True),
            "When a sample from the default start (the MPLE) still drifts: 'newton' moves "
            "the start once by Newton steps on equilibrium samples, 'sa' by stochastic "
            "approximation, None only redraws ('auto': the model family's declaration, "
            "'sa' for counts, None for binary ties)."),
    Setting("min_ess_share", "auto", _min_ess_share,
            "Share of target_ess every single statistic must reach in a step's sample "
            "(besides target_ess multivariate effective draws); 0: the multivariate target "
            "alone, statnet's MCMLE.effectiveSize ('auto': the model family's "
            "declaration, 0.5 for binary ties)."),
    Setting("pool_samples", "auto", auto_or(integer(1), "an integer >= 1"),
            "Steps on the draws of the last this many settled samples, pooled by mixture "
            "importance sampling (Geyer's reverse logistic regression); 1: the last sample "
            "alone, as statnet ('auto': the model family's declaration, 1 for binary ties, "
            "4 for counts)."),
    Setting("min_is_ess", 0.05, number(0, 1), "Trust region: smallest importance-sampling "
            "effective size share of a step."),
)

#: the missing-data fit's own defaults
MISSING_DATA_DEFAULTS = {"maxit": 30, "n_chains": 1}


def missing_data_settings() -> tuple:
    """The settings table of the observed-data (missing dyads) MCMC-MLE."""
    return tuple(Setting(s.name, MISSING_DATA_DEFAULTS.get(s.name, s.default), s.check, s.doc)
                 for s in SETTINGS)
