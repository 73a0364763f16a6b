"""Notebook display (#37 item 3): rich HTML for gof and MCMC diagnostics, one figure per
``plot()`` in a notebook, progress bars without ipywidgets and without a warning.

No Jupyter here (IPython, nbclient and ipykernel are not test dependencies): the repr
methods are called as Jupyter calls them, and a notebook cell's figure count is computed as
the inline backend shows figures -- every pyplot figure open at the end of the cell, plus
the cell's value (its ``_ipython_display_`` if it has one, else a Figure's PNG)."""
import sys
import types
import warnings
from unittest import mock

import pytest

import ergmfit as ef

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


@pytest.fixture(scope="module")
def fit():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    return m.fit(method="mcmle", random_state=1, samplesize=1000)


@pytest.fixture(scope="module")
def gof(fit):
    return fit.gof(n_sim=20, random_state=1)


class Published(list):
    """What a stand-in ``IPython.display.display`` published, while :meth:`displaying`."""

    def displaying(self, value):
        """``value._ipython_display_()`` as IPython calls it (the stand-in in sys.modules
        only meanwhile: matplotlib looks for IPython when pyplot starts)."""
        ipython = types.ModuleType("IPython")
        display = types.ModuleType("IPython.display")
        display.display = lambda obj, raw=False: self.append(obj)
        ipython.display = display
        with mock.patch.dict(sys.modules, {"IPython": ipython, "IPython.display": display}):
            value._ipython_display_()


@pytest.fixture
def ipython_display():
    return Published()


def figures_a_cell_shows(cell, published):
    """How many figures a Jupyter cell whose last expression is ``cell()`` shows."""
    before = set(plt.get_fignums())
    value = cell()
    if hasattr(value, "_ipython_display_"):
        n = len(published)
        published.displaying(value)
        from_value = len(published) - n
    else:
        from_value = int(isinstance(value, Figure))     # matplotlib-inline's Figure formatter
    at_the_end = set(plt.get_fignums()) - before
    for num in at_the_end:
        plt.close(num)
    return len(at_the_end) + from_value


def test_gof_shows_a_table_per_block_in_a_notebook(gof):
    page = gof._repr_html_()
    assert page.count("<table") == len(gof.blocks) == 4
    for b in gof.blocks.values():
        assert f"Goodness-of-fit for {b.title}" in page
        for lab in b.labels:
            assert f"<th>{lab}</th>" in page
    assert "MC p-value" in page and "20 simulated networks" in page


def test_mcmc_diagnostics_show_their_tables_in_a_notebook(fit):
    diag = fit.mcmc_diagnostics()
    page = diag._repr_html_()
    assert page.count("<table") == 2
    assert "<th>edges</th>" in page and "<th>triangle</th>" in page
    assert "Geweke" in page and "ESS" in page and "Lag 0" in page
    assert f"{diag.geweke_joint_p:.4g}" in page


@pytest.mark.parametrize("what", ["gof", "mcmc_diagnostics"])
def test_plot_draws_one_figure_in_a_notebook(fit, gof, ipython_display, what):
    obj = gof if what == "gof" else fit.mcmc_diagnostics()
    assert figures_a_cell_shows(obj.plot, ipython_display) == 1
    assert ipython_display == []                       # pyplot shows it, the value does not

    def assigned():                                    # fig = gof.plot(): still shown once
        obj.plot()
    assert figures_a_cell_shows(assigned, ipython_display) == 1


def test_a_figure_closed_from_pyplot_shows_when_displayed(gof, ipython_display):
    fig = gof.plot()
    plt.close(fig)
    assert isinstance(fig, Figure)
    assert figures_a_cell_shows(lambda: fig, ipython_display) == 1
    assert ipython_display[0]["image/png"][:8] == b"\x89PNG\r\n\x1a\n"


def test_a_plot_written_to_a_file_is_not_left_in_pyplot(gof, tmp_path):
    before = set(plt.get_fignums())
    gof.plot(path=tmp_path / "gof.png")
    assert set(plt.get_fignums()) == before and (tmp_path / "gof.png").stat().st_size > 0


def test_progress_in_a_notebook_without_ipywidgets_is_a_text_bar_with_no_warning(monkeypatch,
                                                                                  capsys):
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: types.SimpleNamespace(config={"IPKernelApp": {}})
    ipython.version_info = (9, 0, 0)
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("ipykernel.zmqshell"))
    monkeypatch.setitem(sys.modules, "ipywidgets", None)         # not installed
    for name in [m for m in sys.modules if m.startswith("tqdm.auto")]:
        monkeypatch.delitem(sys.modules, name)                   # tqdm.auto looks again
    from ergmfit.runtime.progress import Progress
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Progress(10, "fitting") as bar:
            bar.update(4)
    assert [str(w.message) for w in caught] == []
    assert "fitting" in capsys.readouterr().err


def test_a_verbose_fit_in_a_notebook_without_ipywidgets_does_not_warn(monkeypatch):
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: types.SimpleNamespace(config={"IPKernelApp": {}})
    ipython.version_info = (9, 0, 0)
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("ipykernel.zmqshell"))
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    for name in [m for m in sys.modules if m.startswith("tqdm.auto")]:
        monkeypatch.delitem(sys.modules, name)
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m.fit(method="ee", random_state=1, verbose=True, ee_steps=20, se="none")
    assert not [w for w in caught if "ipywidgets" in str(w.message)]
