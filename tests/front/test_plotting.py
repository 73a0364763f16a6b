"""Figures (ergmfit.plotting): gof panels, trace plots, network drawings."""
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import ergmfit as ef                                     # noqa: E402
from ergmfit import plotting                             # noqa: E402
from ergmfit.gof import GofBlock, gof                    # noqa: E402
from ergmfit.plotting import (MISSING_MATPLOTLIB, draw_network, gof_proportions,  # noqa: E402
                              plot_gof, trace_plot)

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def flo_gof():
    return gof(ef.ERGM("flomarriage", "edges + triangle"), [-1.6766, 0.1609], n_sim=30,
               random_state=1)


@pytest.fixture(scope="module")
def samp_gof():
    return gof(ef.ERGM("samplike", "edges + mutual"), [-1.0, 1.0], n_sim=20, burnin=2000,
               interval=200, random_state=1)


def visible_axes(fig):
    return [ax for ax in fig.axes if ax.get_visible()]


def test_gof_plot_written_undirected(flo_gof, tmp_path):
    path = tmp_path / "gof.png"
    fig = flo_gof.plot(path)
    assert path.read_bytes()[:8] == PNG and path.stat().st_size > 10_000
    axes = visible_axes(fig)
    assert len(axes) == 4
    assert [ax.get_xlabel() for ax in axes] == ["degree", "edge-wise shared partners",
                                                "minimum geodesic distance", "model statistics"]
    assert [ax.get_ylabel() for ax in axes] == ["proportion of nodes", "proportion of edges",
                                                "proportion of dyads", "simulated quantiles"]
    assert fig._suptitle.get_text() == "Goodness-of-fit diagnostics"
    # the distance panel ends with NR (unreachable), the model panel names the statistics
    assert axes[2].get_xticklabels()[-1].get_text() == "NR"
    assert [t.get_text() for t in axes[3].get_xticklabels()] == ["edges", "triangle"]
    # the observed line is the bold black one, through the observed proportions
    deg = flo_gof["degree"]
    bold = [ln for ln in axes[0].get_lines() if ln.get_linewidth() > 2]
    assert len(bold) == 1 and bold[0].get_color() == "black"
    np.testing.assert_allclose(bold[0].get_ydata(), deg.obs / deg.obs.sum())
    # a figure written to a file is not kept by pyplot
    assert fig.canvas.manager is None


def test_gof_plot_directed_and_formats(samp_gof, tmp_path):
    fig = plot_gof(samp_gof, tmp_path / "gof.pdf", main="samplike")
    assert (tmp_path / "gof.pdf").read_bytes()[:4] == b"%PDF"
    axes = visible_axes(fig)
    assert [ax.get_xlabel() for ax in axes][:2] == ["in degree", "out degree"]
    assert len(axes) == 5 and fig._suptitle.get_text() == "samplike"
    fig = plot_gof(samp_gof, tmp_path / "two.svg", blocks=["idegree", "model"], ncols=2)
    assert len(visible_axes(fig)) == 2
    assert (tmp_path / "two.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")


def test_gof_plot_without_path_is_a_pyplot_figure(flo_gof):
    import matplotlib.pyplot as plt
    fig = flo_gof.plot()
    try:
        assert fig.canvas.manager is not None and fig.number in plt.get_fignums()
    finally:
        plt.close(fig)


def test_gof_proportions(flo_gof):
    psim, pobs, lo, hi = gof_proportions(flo_gof["distance"])
    np.testing.assert_allclose(psim.sum(axis=1), 1.0)
    assert abs(pobs.sum() - 1.0) < 1e-12
    assert np.all(lo <= hi)
    psim, pobs, lo, hi = gof_proportions(flo_gof["model"])
    assert np.all((psim > 0) & (psim <= 1))
    np.testing.assert_allclose(pobs, np.mean(flo_gof["model"].sim >= flo_gof["model"].obs, 0))
    # ties-less simulations give zero proportions, not NaN
    b = GofBlock("espartners", ["esp0", "esp1"], [2, 1], [[0, 0], [3, 1]])
    psim, _, _, _ = gof_proportions(b)
    np.testing.assert_allclose(psim, [[0, 0], [0.75, 0.25]])


def test_gof_png_looks_right(flo_gof, tmp_path):
    """The image itself: mostly white, with dark (black) pixels for the boxes and lines."""
    path = tmp_path / "gof.png"
    flo_gof.plot(path, dpi=60)
    img = matplotlib.image.imread(path)
    rgb = img[..., :3]
    white = np.mean(np.all(rgb > 0.95, axis=-1))
    dark = np.mean(np.all(rgb < 0.2, axis=-1))
    assert white > 0.6 and 0.01 < dark < 0.3


def test_trace_plot(tmp_path):
    rng = np.random.default_rng(0)
    traj = np.cumsum(rng.normal(size=(150, 3)), axis=0)
    fig = trace_plot(traj, ["edges", "kstar2", "triangle"], targets=[0.0, None, 2.0],
                     path=tmp_path / "trace.png")
    assert (tmp_path / "trace.png").read_bytes()[:8] == PNG
    assert [ax.get_ylabel() for ax in fig.axes] == ["edges", "kstar2", "triangle"]
    dashed = [[ln for ln in ax.get_lines() if ln.get_linestyle() == "--"] for ax in fig.axes]
    assert [len(d) for d in dashed] == [1, 0, 1]
    assert dashed[2][0].get_ydata()[0] == 2.0
    np.testing.assert_allclose(fig.axes[1].get_lines()[0].get_ydata(), traj[:, 1])
    # a single series, a scalar target
    fig = trace_plot(traj[:, 0], targets=1.5, path=tmp_path / "one.png")
    assert len(fig.axes) == 1 and fig.axes[0].get_ylabel() == "x0"
    with pytest.raises(ValueError, match="labels"):
        trace_plot(traj, ["a", "b"])
    with pytest.raises(ValueError, match="targets"):
        trace_plot(traj, targets=[1, 2])


def test_draw_network(tmp_path):
    fig = draw_network("flomarriage", path=tmp_path / "flo.png", color_by="wealth")
    assert (tmp_path / "flo.png").read_bytes()[:8] == PNG
    assert len(fig.axes) == 2                               # the drawing and a colour bar
    fig = draw_network(ef.datasets.load("samplike"), path=tmp_path / "samp.png",
                       color_by="group")
    legend = fig.axes[0].get_legend()
    assert sorted(t.get_text() for t in legend.get_texts()) == ["Loyal", "Outcasts", "Turks"]
    net = ef.datasets.load_network("lazega")
    fig = draw_network(net, path=tmp_path / "laz.png", labels=False)
    assert (tmp_path / "laz.png").stat().st_size > 5000
    with pytest.raises(ef.TermError, match="no node attribute 'nosuch'"):
        draw_network("flomarriage", path=tmp_path / "x.png", color_by="nosuch")


@pytest.mark.parametrize("call", ["plot_gof", "gof_method", "trace_plot", "draw_network"])
def test_missing_matplotlib_message(monkeypatch, flo_gof, tmp_path, call):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError) as exc:
        if call == "plot_gof":
            plot_gof(flo_gof, tmp_path / "x.png")
        elif call == "gof_method":
            flo_gof.plot()
        elif call == "trace_plot":
            trace_plot(np.zeros((3, 1)))
        else:
            draw_network("flomarriage")
    assert str(exc.value) == MISSING_MATPLOTLIB == \
        "plotting needs matplotlib: pip install 'ergmfit[plot]'"
    assert plotting.MISSING_MATPLOTLIB in str(exc.value)


def test_trace_plot_integer_ticks_on_iteration_numbers(tmp_path):
    """A trajectory kept every 50 iterations: the axis shows the iteration
    numbers, with whole-number ticks (no 'iteration / 50' and no 2.5 ticks)."""
    y = np.linspace(0.0, 1.0, 7)
    fig = trace_plot(y, x=np.arange(7) * 50, xlabel="EE iteration")
    ax = fig.axes[0]
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), np.arange(7) * 50)
    ticks = ax.get_xticks()
    assert np.all(ticks == np.round(ticks))
    fig = trace_plot(np.arange(4.0))                  # 4 rows: 0, 1, 2, 3 and not 0.5 steps
    ticks = fig.axes[0].get_xticks()
    assert len(ticks) > 1 and np.all(ticks == np.round(ticks))
    with pytest.raises(ValueError, match="x has 3 values for 7 rows"):
        trace_plot(y, x=[0, 1, 2])


def test_trace_plot_start_leaves_out_the_burn_in():
    """The EE statistics: a first point of 51,472 would flatten the panel;
    ``start`` plots the kept window only."""
    rng = np.random.default_rng(1)
    dz = rng.normal(size=(40, 2))
    dz[0] = [51472.0, -3000.0]
    x = np.arange(40) * 10
    fig = trace_plot(dz, ["edges", "gwesp"], targets=0.0, target_label="observed (0)",
                     x=x, start=100)
    for k, ax in enumerate(fig.axes):
        line = ax.get_lines()[0]
        assert line.get_xdata()[0] == 100 and len(line.get_xdata()) == 30
        lo, hi = ax.get_ylim()
        assert hi < 10 and lo > -10                 # the panel shows the kept values
    # without start the first point sets the scale (what the issue complained of)
    fig = trace_plot(dz, x=x)
    assert fig.axes[0].get_ylim()[1] > 50000


def test_trace_plot_burnin_marks_and_scales_on_the_kept_part():
    y = np.concatenate([[80.0], np.full(29, 1.0) + 0.01 * np.arange(29)])
    fig = trace_plot(y, x=np.arange(30) * 5, burnin=50, targets=1.1)
    ax = fig.axes[0]
    dotted = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
    assert len(dotted) == 1 and dotted[0].get_xdata()[0] == 50
    lo, hi = ax.get_ylim()
    assert lo > 0.9 and hi < 1.5                      # the wild start is out of view
    assert len(ax.get_lines()[0].get_xdata()) == 30  # but still drawn


def test_trace_plot_final_estimate_is_its_own_point():
    """EE: the trajectory average (dashed) and the polished final estimate (a
    separate point right of the run) are both shown and named in the legend."""
    theta = np.cumsum(np.full((20, 2), 0.1), axis=0)
    fig = trace_plot(theta, ["a", "b"], x=np.arange(20) * 100, targets=[1.5, 1.6],
                     target_label="EE average of the kept iterations", final=[2.5, 2.7],
                     final_label="final estimate (polished)")
    for ax, fin in zip(fig.axes, [2.5, 2.7]):
        pts = [ln for ln in ax.get_lines() if ln.get_marker() == "D"]
        assert len(pts) == 1 and pts[0].get_ydata()[0] == fin
        assert pts[0].get_xdata()[0] > 1900                       # right of the last row
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert texts == ["EE average of the kept iterations", "final estimate (polished)"]
    with pytest.raises(ValueError, match="final"):
        trace_plot(theta, final=[1.0])


def test_trace_plot_legend_wording_follows_the_caller():
    S = np.random.default_rng(2).normal(size=(50, 1))
    fig = trace_plot(S, ["edges"], targets=[0.0], target_label="observed",
                     title="Statistics along the chain (dashed: observed)")
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["observed"]
