"""Figures and command-line outputs never write into a FIFO or a device (#38 item 6): a
figure went through ``savefig(path)``, which opened a FIFO and blocked for ever without a
reader (or wrote into a device); the command line's --save and --plot paths are refused
before the fit or the gof simulation runs (the saves of results and checkpoints are
covered in test_faults_disk_regex_size.py)."""
import os
import stat
import threading

import numpy as np
import pytest

from ergmfit.exceptions import SaveError

pytest.importorskip("matplotlib")


def _in_thread(call, seconds=30):
    """(finished, exception) of ``call()`` run in a thread for at most ``seconds``
    (a write into a FIFO without a reader blocks: the test must not hang)."""
    out = {}

    def run():
        try:
            call()
        except BaseException as exc:     # noqa: BLE001 - handed to the test
            out["exc"] = exc
    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(seconds)
    return not th.is_alive(), out.get("exc")


def test_a_figure_is_not_written_into_a_fifo(tmp_path):
    from ergmfit.plotting import trace_plot
    fifo = tmp_path / "trace.png"
    os.mkfifo(fifo)
    finished, exc = _in_thread(lambda: trace_plot(np.zeros((5, 1)), path=fifo))
    assert finished, "the figure blocked on the FIFO"
    assert isinstance(exc, SaveError) and "FIFO" in str(exc) and str(fifo) in str(exc)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["trace.png"]          # no temporary file left


def test_a_figure_is_not_written_through_a_link_to_a_device(tmp_path):
    from ergmfit.plotting import trace_plot
    link = tmp_path / "dev.png"
    os.symlink("/dev/full", link)
    with pytest.raises(SaveError, match="character device"):
        trace_plot(np.zeros((5, 1)), path=link)
    assert os.path.islink(link)


def test_a_figure_still_replaces_a_regular_file(tmp_path):
    from ergmfit.plotting import trace_plot
    path = tmp_path / "trace.pdf"
    path.write_bytes(b"old")
    trace_plot(np.zeros((5, 1)), path=path)
    assert path.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("command", [
    ["fit", "flomarriage", "edges", "--method", "mple", "--save", "{target}.json"],
    ["gof", "flomarriage", "edges", "--coef", "-1.6", "--plot", "{target}.png"]])
def test_the_command_line_refuses_a_fifo_output_up_front(tmp_path, capsys, monkeypatch, command):
    from ergmfit import cli
    target = str(tmp_path / "out")
    argv = [a.format(target=target) for a in command]
    os.mkfifo(argv[-1])
    ran = []
    monkeypatch.setattr(cli, "_fit", lambda *a: ran.append("fit"))
    import ergmfit.gof
    monkeypatch.setattr(ergmfit.gof, "gof", lambda *a, **k: ran.append("gof"))
    finished, exc = _in_thread(lambda: ran.append(cli.main(argv)))
    assert finished and exc is None
    assert ran == [cli.EXIT_ERROR], "the fit or the simulation ran before the refusal"
    err = capsys.readouterr().err
    assert "FIFO" in err and argv[-1] in err
    assert stat.S_ISFIFO(os.lstat(argv[-1]).st_mode)


def test_a_figure_into_a_missing_folder_names_the_folder_not_the_temporary_file(tmp_path):
    # the error named the hidden temporary file ('.g.png.0kxeepkq.tmp') of the atomic write
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from ergmfit.exceptions import SaveError
    from ergmfit.plotting import _finish
    target = tmp_path / "no-such-dir" / "g.png"
    with pytest.raises(SaveError, match=f"cannot write the figure to {target}: its folder "
                       f"{target.parent} does not exist$"):
        _finish(Figure(), str(target), 72)


def test_gof_refuses_a_plot_into_a_missing_folder_before_simulating(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    from ergmfit import cli
    import ergmfit.gof
    ran = []
    monkeypatch.setattr(ergmfit.gof, "gof", lambda *a, **k: ran.append("gof"))
    target = str(tmp_path / "no-such-dir" / "g.png")
    assert cli.main(["gof", "flomarriage", "edges", "--coef", "-1.6", "--plot", target]) == \
        cli.EXIT_ERROR
    assert ran == [], "the simulation ran before the refusal"
    assert f"its folder {tmp_path / 'no-such-dir'} does not exist" in capsys.readouterr().err
