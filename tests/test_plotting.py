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
