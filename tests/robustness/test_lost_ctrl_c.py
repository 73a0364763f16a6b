"""A Ctrl-C whose KeyboardInterrupt is raised inside a finalizer (the garbage collector
runs ``__del__`` methods and weakref callbacks at any allocation) is dropped by CPython;
the long loops raise it again at their next step instead of running to the end (#38,
the real-Ctrl-C tests that were ignored in full test runs)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.runtime import catch_interrupt, lost_interrupts, run_jobs
from support.interrupts import CtrlCInAFinalizer


def test_the_finalizer_really_drops_the_interrupt(default_sigint, monkeypatch):
    # the premise: without the context, the Ctrl-C goes to sys.unraisablehook and the
    # code after the collection goes on
    import sys
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_type))
    CtrlCInAFinalizer.collect()
    assert seen == [KeyboardInterrupt]


def test_a_lost_ctrl_c_is_raised_again_by_check(default_sigint):
    with catch_interrupt() as stop:
        CtrlCInAFinalizer.collect()
        stop.check()
        raise AssertionError("check() did not raise the lost Ctrl-C")
    assert stop.interrupted
    with lost_interrupts() as ctrl_c:       # nothing lost afterwards
        ctrl_c.check()
    assert not ctrl_c.lost


def test_a_lost_ctrl_c_marks_the_block_interrupted_at_its_end(default_sigint):
    with catch_interrupt() as stop:
        CtrlCInAFinalizer.collect()
    assert stop.interrupted


def test_other_unraisable_exceptions_still_reach_the_previous_hook(default_sigint, monkeypatch):
    import sys
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_type))

    class Bad:
        def __init__(self):
            self.cycle = self

        def __del__(self):
            raise ValueError("in a finalizer")
    with catch_interrupt() as stop:
        import gc
        Bad()
        gc.collect()
    assert seen == [ValueError] and not stop.interrupted
    assert sys.unraisablehook is not lost_interrupts._hook


def test_bayes_stops_on_a_ctrl_c_lost_in_a_finalizer(default_sigint, monkeypatch):
    from ergmfit.estimation.bayes import exchange
    compiled_block, calls = exchange.exchange_block, []

    def block(*args):
        calls.append(1)
        if len(calls) == 3:
            CtrlCInAFinalizer.collect()
        return compiled_block(*args)
    monkeypatch.setattr(exchange, "exchange_block", block)
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with pytest.warns(RuntimeWarning, match="interrupted"):
        fit = m.fit(method="bayes", random_state=1, burnin=0, main_iters=2000,
                    aux_iters=200, delayed=False)
    assert fit.interrupted and fit.chains.shape[1] == 30     # three blocks of 10
    assert np.all(np.isfinite(fit.params))


def test_jobs_in_this_process_stop_after_a_ctrl_c_lost_in_a_finalizer(default_sigint):
    started = []

    def job(c, control):
        started.append(c)
        if c == 1:
            CtrlCInAFinalizer.collect()
        return c
    out, interrupted = run_jobs(job, [(c,) for c in range(4)])
    assert interrupted and started == [0, 1] and out == [0, 1]


def test_a_ctrl_c_lost_before_the_loop_is_raised_when_the_loop_starts(default_sigint):
    with lost_interrupts():
        CtrlCInAFinalizer.collect()
        with pytest.raises(KeyboardInterrupt):
            with catch_interrupt():
                raise AssertionError("the block ran although a Ctrl-C was lost before it")


def test_a_ctrl_c_lost_in_the_set_up_of_a_fit_stops_it(default_sigint, monkeypatch):
    # #38 item 9: a Ctrl-C in the first seconds of a fit (here while the start values
    # are computed) raises KeyboardInterrupt as one outside a finalizer does, instead of
    # the whole fit running
    from ergmfit.estimation.bayes import exchange
    real = exchange.start_centre

    def start_centre(*args, **kwargs):
        CtrlCInAFinalizer.collect()
        return real(*args, **kwargs)
    monkeypatch.setattr(exchange, "start_centre", start_centre)
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with pytest.raises(KeyboardInterrupt):
        m.fit(method="bayes", random_state=1, burnin=0, main_iters=2000, aux_iters=200,
              delayed=False)


def test_the_command_line_stops_on_a_ctrl_c_lost_while_it_reads_the_data(default_sigint,
                                                                            monkeypatch, capsys):
    # #38 item 9: one Ctrl-C of 18 in the first 2 s of `ergmfit fit` was lost; a loss before
    # the fit (here while the network is read) ends the command as Ctrl-C does there
    from ergmfit import cli
    real = cli.load_network

    def load_network(args):
        CtrlCInAFinalizer.collect()
        return real(args)
    monkeypatch.setattr(cli, "load_network", load_network)
    status = cli.main(["fit", "flomarriage", "edges + triangle", "--method", "bayes", "--seed",
                       "1", "--quiet", "--set", "main_iters=2000", "--set", "aux_iters=200"])
    assert status == 130 and "interrupted" in capsys.readouterr().err


def test_the_command_line_says_interrupted_for_a_ctrl_c_while_it_reads_its_arguments(
        monkeypatch, capsys):
    # the first moments of `ergmfit fit` (the trials of #38 item 9): exit 130, no traceback
    from ergmfit import cli

    def build_parser():
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "build_parser", build_parser)
    try:
        status = cli.main(["fit", "flomarriage", "edges"])
    except KeyboardInterrupt:           # (uncaught, it would end the whole test session)
        pytest.fail("KeyboardInterrupt escaped the command line's main()")
    assert status == 130
    assert "interrupted" in capsys.readouterr().err


def test_a_ctrl_c_after_the_last_check_is_not_dropped(default_sigint):
    # #38: a Ctrl-C that sets the flag after the loop's last check() (while its last
    # compiled call runs) was dropped with the flag when the block ended: the run went on
    import signal
    from ergmfit.runtime import ctrl_c_flag
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_flag() as flag:
            flag.check()
            signal.raise_signal(signal.SIGINT)      # handled by the flag: sets hit
            for _ in range(1000):                   # bytecodes: the handler runs
                pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
