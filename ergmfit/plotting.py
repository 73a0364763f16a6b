"""Figures: goodness of fit, trace plots and small network drawings.

matplotlib is an optional dependency (``pip install 'ergmfit[plot]'``); it is
imported only when a figure is drawn, and its absence is an ImportError
saying so.

Every function returns the matplotlib ``Figure``.  With ``path`` the figure
is written there (format from the extension: .png, .pdf, .svg, ...) and is
not registered with pyplot, so scripts and the command line can draw any
number of figures without a display or leaking memory; without ``path`` it is
a pyplot figure, shown inline in a notebook or by ``plt.show()``.

In a notebook the figure is drawn once: Jupyter shows a cell's pyplot figures when the cell
ends, and the Figure returned as the cell's value does not show a second copy (its
``_ipython_display_`` leaves it to pyplot; once ``plt.close(fig)`` took it from pyplot,
displaying it shows it).  See docs/guide/python.md.
"""
from __future__ import annotations

import math

import numpy as np

MISSING_MATPLOTLIB = "plotting needs matplotlib: pip install 'ergmfit[plot]'"

__all__ = ["plot_gof", "trace_plot", "posterior_trace_plot", "posterior_density_plot",
           "draw_network", "require_matplotlib", "MISSING_MATPLOTLIB"]

#: axis labels of the gof panels (statnet's)
_GOF_AXES = {
    "degree": ("degree", "proportion of nodes"),
    "idegree": ("in degree", "proportion of nodes"),
    "odegree": ("out degree", "proportion of nodes"),
    "b1degree": ("mode-1 degree", "proportion of mode-1 nodes"),
    "b2degree": ("mode-2 degree", "proportion of mode-2 nodes"),
    "espartners": ("edge-wise shared partners", "proportion of edges"),
    "dspartners": ("dyad-wise shared partners", "proportion of dyads"),
    "distance": ("minimum geodesic distance", "proportion of dyads"),
    "model": ("model statistics", "simulated quantiles"),
}


def require_matplotlib():
    """The ``matplotlib`` module, or an ImportError with the install hint."""
    try:
        import matplotlib
        import matplotlib.figure  # noqa: F401
    except ImportError as exc:
        raise ImportError(MISSING_MATPLOTLIB) from exc
    return matplotlib


def _figure(path, figsize):
    require_matplotlib()
    if path is not None:
        from matplotlib.figure import Figure
        return Figure(figsize=figsize)
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(MISSING_MATPLOTLIB) from exc
    return plt.figure(figsize=figsize, FigureClass=_pyplot_figure_class())


_PYPLOT_FIGURE = []


def _pyplot_figure_class():
    """A matplotlib ``Figure`` that a notebook shows once (made when first needed, as
    matplotlib is imported only then)."""
    if not _PYPLOT_FIGURE:
        from matplotlib.figure import Figure

        class PyplotFigure(Figure):
            """A pyplot ``Figure`` returned by an ergmfit plot: while pyplot holds it, the
            notebook shows it when the cell ends, so displaying it as the cell's value shows
            nothing more (matplotlib's own Figure would be drawn a second time); a figure
            closed from pyplot (``plt.close(fig)``) is shown as a PNG when displayed."""

            def _ipython_display_(self):
                from matplotlib._pylab_helpers import Gcf     # pyplot's figure registry
                if any(m.canvas.figure is self for m in Gcf.get_all_fig_managers()):
                    return
                import io

                from IPython.display import display
                buf = io.BytesIO()
                self.savefig(buf, format="png", bbox_inches="tight")
                display({"image/png": buf.getvalue(), "text/plain": repr(self)}, raw=True)

        PyplotFigure.__module__, PyplotFigure.__qualname__ = __name__, "PyplotFigure"
        _PYPLOT_FIGURE.append(PyplotFigure)
    return _PYPLOT_FIGURE[0]


def __getattr__(name):
    # ergmfit.plotting.PyplotFigure (for pickle) without importing matplotlib up front
    if name == "PyplotFigure":
        return _pyplot_figure_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _finish(fig, path, dpi):
    """Write ``fig`` to ``path`` (if given) as a complete file or not at all:
    through :func:`~ergmfit.utils.fileio.atomic_write`, so that a failed
    write leaves an existing file as it was and a FIFO or a device at
    ``path`` is refused (:class:`~ergmfit.exceptions.SaveError`) instead of
    being written to (a FIFO without a reader would block for ever)."""
    if path is not None:
        import os

        from .exceptions import SaveError
        from .utils.fileio import atomic_write
        fmt = os.path.splitext(os.fspath(path))[1].lstrip(".").lower() or None
        try:
            with atomic_write(path, "wb") as fh:
                fig.savefig(fh, format=fmt, dpi=dpi, bbox_inches="tight")
        except OSError as exc:
            folder = os.path.dirname(os.path.abspath(os.fspath(path)))
            why = (f"its folder {folder} does not exist" if not os.path.isdir(folder) else
                   exc.strerror or str(exc))      # not the temporary file's name
            raise SaveError(f"cannot write the figure to {os.fspath(path)}: {why}") from None
    return fig


def _grid(k, ncols=None):
    ncols = ncols or max(1, math.ceil(math.sqrt(k)))
    return math.ceil(k / ncols), ncols


# ---------------------------------------------------------------------------
# goodness of fit
# ---------------------------------------------------------------------------
def gof_proportions(block):
    """What a gof panel shows: (simulated, observed, 2.5% and 97.5% bounds).

    Distribution blocks: each network's counts divided by its total (nodes,
    ties or dyads).  The model block: statnet's quantiles -- each simulated
    value's rank among the simulations divided by their number, and for the
    observed value the fraction of simulations at or above it.
    """
    sim = np.asarray(block.sim, dtype=float)
    obs = np.asarray(block.obs, dtype=float)
    if block.name == "model":
        from scipy.stats import rankdata
        n = sim.shape[0]
        psim = rankdata(sim, axis=0) / n if n else sim
        pobs = np.mean(sim >= obs, axis=0) if n else obs * np.nan
    else:
        tot = sim.sum(axis=1, keepdims=True)
        psim = np.divide(sim, tot, out=np.zeros_like(sim), where=tot > 0)
        s = obs.sum()
        pobs = obs / s if s > 0 else np.zeros_like(obs)
    if psim.shape[0]:
        lo, hi = np.quantile(psim, [0.025, 0.975], axis=0)
    else:
        lo = hi = np.full(obs.shape, np.nan)
    return psim, pobs, lo, hi


def _gof_panel(ax, block):
    psim, pobs, lo, hi = gof_proportions(block)
    k = len(block.labels)
    x = np.arange(1, k + 1)
    if psim.shape[0]:
        ax.boxplot(psim, positions=x, widths=0.6, manage_ticks=False,
                   boxprops={"color": "black", "linewidth": 0.8},
                   medianprops={"color": "black", "linewidth": 1.4},
                   whiskerprops={"color": "black", "linewidth": 0.8, "linestyle": "--"},
                   capprops={"color": "black", "linewidth": 0.8},
                   flierprops={"marker": "o", "markersize": 3, "markerfacecolor": "none",
                               "markeredgecolor": "black", "markeredgewidth": 0.6})
        ax.plot(x, lo, color="0.55", linewidth=1.0, label="95% range")
        ax.plot(x, hi, color="0.55", linewidth=1.0)
    ax.plot(x, pobs, color="black", linewidth=2.6, marker="o", markersize=3.5,
            label="observed", zorder=5)
    xlabel, ylabel = _GOF_AXES.get(block.name, (block.title, "proportion"))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if block.name == "model":
        ticks = block.labels
        ax.set_ylim(-0.02, 1.02)
    elif block.name == "distance":
        ticks = block.labels[:-1] + ["NR"]
    else:
        ticks = [lab[len(_prefix(block)):] for lab in block.labels]
    ax.set_xticks(x)
    step = max(1, math.ceil(k / 25))           # at most ~25 tick labels
    ax.set_xticklabels([t if i % step == 0 else "" for i, t in enumerate(ticks)],
                       rotation=45 if block.name == "model" else 0,
                       ha="right" if block.name == "model" else "center", fontsize=8)
    ax.set_xlim(0.4, k + 0.6)
    ax.tick_params(axis="y", labelsize=8)


def _prefix(block):
    lab = block.labels[0] if block.labels else ""
    return lab.rstrip("0123456789")


def plot_gof(result, path=None, blocks=None, ncols=None, figsize=None, dpi=100,
             main="Goodness-of-fit diagnostics"):
    """statnet's goodness-of-fit figure: one panel per block.

    Each panel shows boxplots of the simulated proportions (of nodes by
    degree, of ties by edgewise shared partners, of dyads by geodesic
    distance, with ``NR`` for unreachable pairs), the observed network as a
    bold black line, and the pointwise 2.5% and 97.5% quantiles of the
    simulations as grey lines.  The model-statistics panel shows each
    statistic as a quantile of its simulations (the observed network should
    sit near 0.5).

    Parameters
    ----------
    result : GofResult
    path : str or path-like, optional
        Write the figure here.
    blocks : list of str, optional
        Which blocks (default: all, in order).
    ncols : int, optional
        Panels per row.
    figsize : (width, height) in inches, optional
    dpi : int
    main : str
        The overall title.
    """
    names = list(result.blocks) if blocks is None else [result[b].name for b in blocks]
    nrows, ncols = _grid(len(names), ncols)
    fig = _figure(path, figsize or (4.6 * ncols, 3.7 * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for k, name in enumerate(names):
        _gof_panel(axes.flat[k], result.blocks[name])
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    if names:
        axes.flat[0].legend(loc="upper right", fontsize=7, frameon=False)
    if main:
        fig.suptitle(main)
    fig.tight_layout()
    return _finish(fig, path, dpi)


# ---------------------------------------------------------------------------
# trace plots
# ---------------------------------------------------------------------------
def trace_plot(trajectory, labels=None, targets=None, path=None, xlabel="iteration",
               title=None, figsize=None, dpi=100, x=None, start=None, burnin=None,
               final=None, target_label="target", final_label="final estimate"):
    """Lines of parameters or statistics over iterations, one panel per column.

    Parameters
    ----------
    trajectory : array (T, p) or (T,)
        Row t is the value at iteration t (e.g. theta of an estimator, or the
        statistics of an MCMC sample).
    labels : list of str, optional
        Panel titles (default ``x0, x1, ...``).
    targets : float or sequence of p values (None to skip a panel), optional
        Horizontal dashed reference lines (observed statistics, an
        estimate), called ``target_label`` in the legend.
    path : optional
        Write the figure here.
    x : array (T,), optional
        The iteration number of each row (default 0, 1, ..., T-1), e.g.
        ``0, 50, 100, ...`` for a trajectory kept every 50 iterations.  The
        axis ticks are whole numbers.
    start : number, optional
        Leave out the rows with ``x < start`` (a burn-in whose first values,
        far from the rest, would flatten the panel).
    burnin : number, optional
        Mark the end of a burn-in with a dotted vertical line; the vertical
        range of each panel is that of the rows from ``burnin`` on (and the
        reference lines), so a wild start does not flatten the kept part.
    final : sequence of p values, optional
        A final estimate that is not a row of the trajectory (e.g. after a
        polishing step), drawn as a separate point right of the last row and
        called ``final_label`` in the legend.
    """
    y = np.asarray(trajectory, dtype=float)
    if y.ndim == 1:
        y = y[:, None]
    if y.ndim != 2:
        raise ValueError(f"trajectory must be (T,) or (T, p), got shape {y.shape}")
    p = y.shape[1]
    labels = [f"x{k}" for k in range(p)] if labels is None else [str(s) for s in labels]
    if len(labels) != p:
        raise ValueError(f"{len(labels)} labels for {p} columns")
    targets = _per_panel(targets, p, "targets")
    final = _per_panel(final, p, "final")
    t = np.arange(y.shape[0], dtype=float) if x is None else np.asarray(x, dtype=float).ravel()
    if t.shape[0] != y.shape[0]:
        raise ValueError(f"x has {t.shape[0]} values for {y.shape[0]} rows")
    if start is not None:
        keep = t >= start
        t, y = t[keep], y[keep]
    require_matplotlib()
    from matplotlib.ticker import MaxNLocator
    fig = _figure(path, figsize or (7.0, max(1.7 * p, 2.6)))
    axes = fig.subplots(p, 1, squeeze=False, sharex=True)[:, 0]
    step = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
    x_final = (t[-1] if len(t) else 0.0) + max(step, 1.0) * max(1.0, 0.02 * len(t))
    for k, ax in enumerate(axes):
        ax.plot(t, y[:, k], color="C0", linewidth=0.9)
        refs = []
        if targets[k] is not None and np.isfinite(targets[k]):
            ax.axhline(float(targets[k]), color="C3", linestyle="--", linewidth=1.2,
                       label=target_label)
            refs.append(float(targets[k]))
        if final[k] is not None and np.isfinite(final[k]):
            ax.plot([x_final], [float(final[k])], linestyle="", marker="D", markersize=5,
                    color="black", label=final_label, zorder=5)
            refs.append(float(final[k]))
        if burnin is not None:
            ax.axvline(float(burnin), color="0.5", linestyle=":", linewidth=1.0,
                       label="end of burn-in")
            kept = y[t >= burnin, k]
            kept = np.concatenate([kept[np.isfinite(kept)], refs])
            if kept.size:
                lo, hi = float(kept.min()), float(kept.max())
                pad = 0.08 * (hi - lo) if hi > lo else max(abs(hi), 1.0) * 0.05
                ax.set_ylim(lo - pad, hi + pad)
        ax.set_ylabel(labels[k], fontsize=9)
        ax.tick_params(labelsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[-1].set_xlabel(xlabel)
    if any(v is not None for v in targets + final) or burnin is not None:
        axes[0].legend(loc="best", fontsize=7, framealpha=0.85)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return _finish(fig, path, dpi)


def _per_panel(values, p, what):
    """None, one number for every panel, or p values (None to skip a panel)."""
    if values is None:
        return [None] * p
    if np.ndim(values) == 0:
        return [values] * p
    values = list(values)
    if len(values) != p:
        raise ValueError(f"{len(values)} {what} for {p} columns")
    return values


def posterior_trace_plot(chains, labels, path=None, figsize=None, dpi=100):
    """Posterior draws over iterations: one panel per parameter, one line per
    chain (``chains``: an ``(n_chains, n_iter, p)`` array, as ``BayesResults.chains``)."""
    c = np.asarray(chains, dtype=float)
    p = c.shape[2]
    fig = _figure(path, figsize or (7.0, max(1.7 * p, 2.6)))
    axes = fig.subplots(p, 1, squeeze=False, sharex=True)[:, 0]
    for k, ax in enumerate(axes):
        for h in range(c.shape[0]):
            ax.plot(c[h, :, k], linewidth=0.5, alpha=0.7)
        ax.set_ylabel(str(labels[k]), fontsize=9)
        ax.tick_params(labelsize=8)
    axes[-1].set_xlabel("iteration (after burn-in and thinning)")
    fig.tight_layout()
    return _finish(fig, path, dpi)


def posterior_density_plot(draws, labels, path=None, ncols=None, figsize=None, dpi=100):
    """Kernel density estimate of every parameter's posterior (``draws``:
    ``(n_draws, p)``), with the posterior mean and the 95 % interval marked."""
    from scipy.stats import gaussian_kde
    x = np.asarray(draws, dtype=float)
    p = x.shape[1]
    nr, nc = _grid(p, ncols)
    fig = _figure(path, figsize or (3.4 * nc, 2.6 * nr))
    axes = fig.subplots(nr, nc, squeeze=False).ravel()
    for k in range(p):
        ax, col = axes[k], x[:, k]
        lo, hi = np.quantile(col, [0.025, 0.975])
        if col.std() > 0:
            grid = np.linspace(col.min(), col.max(), 256)
            ax.plot(grid, gaussian_kde(col)(grid), color="C0")
        ax.axvline(col.mean(), color="C3", linewidth=1.0)
        ax.axvspan(lo, hi, color="C0", alpha=0.12)
        ax.set_title(str(labels[k]), fontsize=9)
        ax.tick_params(labelsize=8)
    for ax in axes[p:]:
        ax.set_visible(False)
    fig.tight_layout()
    return _finish(fig, path, dpi)


def mcmc_diagnostics_plot(chains, labels, path=None, figsize=None, dpi=100):
    """statnet's ``mcmc.diagnostics`` plots: for every statistic, its trace
    (left, one line per chain) and density (right) of the sampled statistics
    minus the observed ones (``chains``: list of ``(n_c, p)`` arrays, already
    centred), with the observed value 0 marked.  A well-mixed sample at the
    MLE wanders around 0 without trend, its density centred on 0."""
    from scipy.stats import gaussian_kde
    chains = [np.asarray(c, dtype=float) for c in chains]
    p = chains[0].shape[1]
    require_matplotlib()
    fig = _figure(path, figsize or (8.0, max(1.6 * p, 2.6)))
    axes = fig.subplots(p, 2, squeeze=False, gridspec_kw={"width_ratios": [2.2, 1.0]})
    allz = np.concatenate(chains)
    for k in range(p):
        tr, de = axes[k]
        for h, c in enumerate(chains):
            tr.plot(c[:, k], linewidth=0.5, alpha=0.8, color=f"C{h % 10}")
        tr.axhline(0.0, color="C3", linestyle="--", linewidth=1.0)
        tr.set_ylabel(str(labels[k]), fontsize=9)
        tr.tick_params(labelsize=8)
        col = allz[:, k]
        if col.std() > 0:
            grid = np.linspace(min(col.min(), 0.0), max(col.max(), 0.0), 256)
            de.plot(grid, gaussian_kde(col)(grid), color="C0")
        de.axvline(0.0, color="C3", linestyle="--", linewidth=1.0)
        de.tick_params(labelsize=8)
        de.set_yticks([])
    axes[0, 0].set_title("trace (sampled minus observed)", fontsize=9)
    axes[0, 1].set_title("density", fontsize=9)
    axes[-1, 0].set_xlabel("draw")
    fig.tight_layout()
    return _finish(fig, path, dpi)


# ---------------------------------------------------------------------------
# network drawings
# ---------------------------------------------------------------------------
def draw_network(graph_or_network, path=None, color_by=None, labels=True, seed=1,
                 figsize=(6.0, 6.0), dpi=100, title=None, node_size=None):
    """Draw a small network with a spring layout.

    Parameters
    ----------
    graph_or_network : networkx graph, Network, or dataset name / file
    path : optional
        Write the figure here.
    color_by : str, optional
        A node attribute: numbers are coloured on a scale (with a colour bar),
        other values by category (with a legend).
    labels : bool
        Show node labels.
    seed : int
        Seed of the layout (the same seed gives the same picture).
    """
    require_matplotlib()
    import networkx as nx
    if isinstance(graph_or_network, nx.Graph):
        g = graph_or_network
    else:
        from .network import as_network
        g = as_network(graph_or_network).to_networkx()
    fig = _figure(path, figsize)
    ax = fig.add_subplot(1, 1, 1)
    pos = nx.spring_layout(g, seed=seed)
    nodes = list(g.nodes)
    size = node_size or (300 if len(nodes) <= 50 else max(20, 15000 // max(len(nodes), 1)))
    colors = "C0"
    cmap = None
    if color_by is not None:
        values = [g.nodes[v].get(color_by) for v in nodes]
        if all(v is None for v in values):
            from .exceptions import TermError
            have = sorted({a for v in nodes for a in g.nodes[v]})
            raise TermError(f"the network has no node attribute {color_by!r}; its node "
                            f"attributes are: {', '.join(map(repr, have)) or 'none'}")
        numeric = all(isinstance(v, (int, float, np.integer, np.floating))
                      and not isinstance(v, bool) for v in values if v is not None)
        if numeric and len({v for v in values if v is not None}) > 10:
            import matplotlib as mpl
            cmap = mpl.colormaps["viridis"]
            colors = [np.nan if v is None else float(v) for v in values]
        else:
            import matplotlib.lines as mlines
            cats = sorted({str(v) for v in values}, key=_natural)
            idx = {c: k for k, c in enumerate(cats)}
            colors = [f"C{idx[str(v)] % 10}" for v in values]
            handles = [mlines.Line2D([], [], marker="o", linestyle="", color=f"C{k % 10}",
                                     label=c) for k, c in enumerate(cats)]
            ax.legend(handles=handles, title=color_by, fontsize=8, title_fontsize=8,
                      loc="best", frameon=False)
    if g.is_directed():
        nx.draw_networkx_edges(g, pos, ax=ax, alpha=0.5, width=0.8, arrows=True, arrowsize=8,
                               node_size=size)
    else:
        nx.draw_networkx_edges(g, pos, ax=ax, alpha=0.5, width=0.8)
    coll = nx.draw_networkx_nodes(g, pos, ax=ax, nodelist=nodes, node_color=colors,
                                  cmap=cmap, node_size=size, edgecolors="black",
                                  linewidths=0.5)
    if cmap is not None:
        fig.colorbar(coll, ax=ax, label=color_by, shrink=0.7)
    if labels:
        nx.draw_networkx_labels(g, pos, ax=ax, font_size=7)
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return _finish(fig, path, dpi)


def _natural(s):
    try:
        return (0, float(s), s)
    except ValueError:
        return (1, 0.0, s)
