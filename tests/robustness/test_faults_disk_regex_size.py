"""Fault injection, issue 38 (session 7): a full disk under the checkpoint lock,
regular-expression blow-up in labels, saves onto FIFOs and devices, short inputs
that would build huge objects, and tampered checkpoint metadata."""
import errno
import os
import socket
import time
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import CheckpointError, CheckpointWarning


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + kstar(2)")


# ---------------------------------------------------------------------------
# item 2: checkpoint= on a full disk
# ---------------------------------------------------------------------------
@pytest.fixture
def full_disk(tmp_path, monkeypatch):
    """``tmp_path`` behaves as a full disk: files can be created there (the
    directory has inodes left) but every byte written to them fails with
    ENOSPC -- the opened descriptor is one of /dev/full."""
    real_open = os.open
    root = str(tmp_path)

    def open_(path, flags, mode=0o777, *args, **kwargs):
        fd = real_open(path, flags, mode, *args, **kwargs)
        if (flags & (os.O_WRONLY | os.O_RDWR)
                and os.path.abspath(os.fspath(path)).startswith(root)):
            os.close(fd)
            return real_open("/dev/full", os.O_WRONLY)
        return fd
    monkeypatch.setattr(os, "open", open_)
    return tmp_path


def test_the_full_disk_fixture_is_a_full_disk(full_disk):
    fd = os.open(full_disk / "x", os.O_CREAT | os.O_WRONLY)
    with pytest.raises(OSError) as info:
        os.write(fd, b"x")
    os.close(fd)
    assert info.value.errno == errno.ENOSPC


@pytest.mark.parametrize("directory", [False, True])
def test_a_lock_on_a_full_disk_warns_and_leaves_nothing(full_disk, directory):
    from ergmfit.runtime.checkpoint import Checkpoint
    path = full_disk / ("ck" if directory else "ck.json")
    with pytest.warns(CheckpointWarning, match="No space left"):
        with Checkpoint(path, directory=directory) as ck:
            assert not ck.locked and ck.failed
            assert not ck.save_json({"a": 1}, name="x.json" if directory else None)
    left = os.listdir(path) if directory else os.listdir(full_disk)
    assert left == []                     # no empty lock file, no temporary file


def test_mcmle_checkpoint_on_a_full_disk_goes_on(full_disk, flo):
    ck = full_disk / "ck.json"
    with pytest.warns(CheckpointWarning, match="No space left"):
        fit = flo.fit(method="mcmle", random_state=1, checkpoint=str(ck), samplesize=256)
    assert np.all(np.isfinite(fit.params))
    assert os.listdir(full_disk) == []


# EE's 10 short steps do not converge: its ConvergenceWarning is expected, not the point here
@pytest.mark.filterwarnings("ignore:Equilibrium Expectation did not meet its convergence")
@pytest.mark.parametrize("method, name, settings", [
    ("bayes", "ck.npz", {"main_iters": 40, "burnin": 10, "aux_iters": 200}),
    ("ee", "ee_ck", {"ee_steps": 10, "ee_inner_steps": 20, "sampler_steps": 300, "s_steps": 20,
                     "se_samplesize": 100, "n_chains": 1})])
def test_bayes_and_ee_checkpoints_on_a_full_disk_go_on(full_disk, flo, method, name, settings):
    # the same promise for the other checkpointing estimators: a warning, a result, and
    # no lock or temporary file left (an EE checkpoint directory is the user's path)
    ck = full_disk / name
    with pytest.warns(CheckpointWarning, match="No space left"):
        fit = flo.fit(method=method, random_state=1, checkpoint=str(ck), **settings)
    assert np.all(np.isfinite(np.asarray(fit.params)))
    left = os.listdir(full_disk)
    assert left in ([], [name]) and (not left or os.listdir(ck) == [])


def test_a_lock_file_that_names_no_process_is_stale_once_old(tmp_path):
    # an empty lock file (left by a full disk or a kill before its write) blocked
    # its checkpoint path for ever; it is taken over once LOCK_GRACE_SECONDS old,
    # and refused while younger (another run may be writing it right now)
    from ergmfit.runtime import checkpoint as runtime_checkpoint
    path = tmp_path / "fit.json"
    lock = tmp_path / "fit.json.lock"
    for content in ["", "garbage\n", "0 host\n", "99999999999999999999 x\n"]:
        lock.write_text(content)
        with pytest.raises(CheckpointError, match="another run"):
            runtime_checkpoint.Checkpoint(path).acquire()
        old = time.time() - 2 * getattr(runtime_checkpoint, "LOCK_GRACE_SECONDS", 10.0)
        os.utime(lock, (old, old))
        with runtime_checkpoint.Checkpoint(path) as ck:
            assert ck.locked
            pid, host = lock.read_text().split()
            assert int(pid) == os.getpid() and host == socket.gethostname()
        assert not lock.exists()


def test_a_live_lock_of_this_host_is_still_refused(tmp_path):
    from ergmfit.runtime import checkpoint as runtime_checkpoint
    lock = tmp_path / "fit.json.lock"
    lock.write_text(f"{os.getppid()} {socket.gethostname()}\n")
    old = time.time() - 3600
    os.utime(lock, (old, old))
    with pytest.raises(CheckpointError, match=f"process {os.getppid()}"):
        runtime_checkpoint.Checkpoint(tmp_path / "fit.json").acquire()
    lock.write_text("1234 some-other-host\n")      # another host's: cannot be checked
    os.utime(lock, (old, old))
    with pytest.raises(CheckpointError, match="some-other-host"):
        runtime_checkpoint.Checkpoint(tmp_path / "fit.json").acquire()


# ---------------------------------------------------------------------------
# item 3: regular expressions in Label(~gsub(...)) cannot blow up
# ---------------------------------------------------------------------------
def _labels(g, formula):
    return list(ef.ERGM(g, formula).statistics())


def test_a_backtracking_pattern_runs_in_linear_steps():
    # (a+)+$ on "a"*n + "!" took 4x longer per 2 more characters with Python's re
    # (1.3 s at n = 22, hours at n = 40); the engine enters each (instruction,
    # position) pair at most once per search
    from ergmfit.terms.labelregex import Budget, Pattern
    for pattern in ["(a+)+$", "(a|aa)+$", "(a|a)*b", r"(\w+\s?)+$"]:
        rx = Pattern(pattern)
        for n in (40, 400):
            text = "a" * n + "!"
            budget = Budget()
            out = rx.sub(["<", 0, ">"], text, 0, budget)
            assert out == text                   # no match
            searches = n + 2
            assert Budget().steps - budget.steps <= searches * (len(rx.prog) * (n + 2) + 8)


def test_a_backtracking_pattern_on_a_data_label():
    g = ef.datasets.load("flomarriage")
    for i, v in enumerate(g.nodes):
        g.nodes[v]["lab"] = "a" * 60 + "!" if i == 0 else "b"
    got = _labels(g, 'Label(~nodefactor("lab", levels=TRUE), ~gsub("(a+)+$", "x", .))')
    assert got == ["nodefactor.lab." + "a" * 60 + "!", "nodefactor.lab.b"]
    got = _labels(g, 'Label(~nodefactor("lab", levels=TRUE), ~gsub("(a+)+!$", "x", .))')
    assert got == ["nodefactor.lab.x", "nodefactor.lab.b"]


@pytest.mark.parametrize("fixed", ["", ", fixed=TRUE"])
def test_nested_empty_gsub_is_refused(fixed):
    # seven nested gsub("", ...) built a label of 117 million characters
    from ergmfit.exceptions import TermError
    g = ef.datasets.load("flomarriage")
    f = "Label(~edges, ~" + f'gsub("", "xyzwvu", ' * 7 + "." + f"{fixed})" * 7 + ")"
    with pytest.raises(TermError, match="refused: the (labels would grow|substitutions need)"):
        ef.ERGM(g, f)


@pytest.mark.parametrize("pattern,msg", [("(a*)*", "empty text"), ("(a?)+x", "empty text"),
                                         (r"(a)\\1", "back-references"),
                                         ("(?=a)", "look-arounds"), ("a**", "multiple repeat"),
                                         ("(a{1000}){1000}", "too large"),
                                         ("[[:foo:]]", "POSIX class")])
def test_unsupported_patterns_are_refused_by_name(pattern, msg):
    from ergmfit.exceptions import TermError
    g = ef.datasets.load("flomarriage")
    with pytest.raises(TermError, match=msg):
        ef.ERGM(g, f'Label(~edges, ~gsub("{pattern}", "x", .))')


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_engine_finds_what_python_re_finds(seed):
    # random patterns of the supported subset and random texts: the same substitutions,
    # groups included, as Python's re (patterns it refuses are skipped)
    import random
    import re
    from ergmfit.terms.labelregex import Budget, Pattern, RegexError
    rng = random.Random(seed)
    atoms = ["a", "b", ".", "[ab]", "[^a]", r"\w", "x", "[a-c]", r"\d", "1", r"\b", "[[:digit:]]"]

    def gen(depth=0):
        r = rng.random()
        if depth > 3 or r < 0.35:
            a = rng.choice(atoms)
        elif r < 0.55:
            a = "(" + gen(depth + 1) + ")"
        elif r < 0.65:
            a = "(?:" + gen(depth + 1) + "|" + gen(depth + 1) + ")"
        elif r < 0.8:
            a = gen(depth + 1) + gen(depth + 1)
        else:
            a = "(" + gen(depth + 1) + "|" + gen(depth + 1) + ")"
        return a + rng.choice(["", "", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{1,2}",
                               "{0,2}?", "{2,}"])
    compared = 0
    for _ in range(400):
        pattern = ("^" if rng.random() < 0.2 else "") + gen() + ("$" if rng.random() < 0.2
                                                                 else "")
        try:
            rx = Pattern(pattern)
            py = re.compile(pattern.replace("[[:digit:]]", "[0-9]"))
        except (RegexError, re.error):
            continue
        template = ["<"] + [p for g in range(py.groups + 1) for p in (g, "|")] + [">"]
        for _ in range(4):
            text = "".join(rng.choice("ab1x ") for _ in range(rng.randint(0, 9)))
            count = rng.choice([0, 0, 1])
            want = py.sub(lambda m: "".join(m.group(p) or "" if isinstance(p, int) else p
                                            for p in template), text, count=count)
            assert rx.sub(template, text, count, Budget()) == want, (pattern, text)
            compared += 1
    assert compared > 500


# ---------------------------------------------------------------------------
# item 6: the atomic save never replaces a FIFO, a device or a link
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mple_fit(flo):
    return flo.fit(method="mple")


@pytest.mark.parametrize("ext", ["json", "npz"])
def test_save_refuses_a_fifo_and_leaves_it(tmp_path, mple_fit, ext):
    import stat
    from ergmfit.exceptions import SaveError
    fifo = tmp_path / f"fit.{ext}"
    os.mkfifo(fifo)
    with pytest.raises(SaveError, match="FIFO"):
        mple_fit.save(fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.listdir(tmp_path) == [fifo.name]           # no temporary file left


def test_save_refuses_a_socket_and_a_link_to_a_device(tmp_path, mple_fit):
    # (never /dev/... itself: a regression run as root would replace the device node)
    import socket as socket_
    import stat
    from ergmfit.exceptions import SaveError
    from ergmfit.utils.fileio import NotRegularFileError, atomic_write
    sock_path = tmp_path / "fit.sock"
    with socket_.socket(socket_.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        with pytest.raises(NotRegularFileError, match="socket"):
            with atomic_write(sock_path) as fh:
                fh.write("x")
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    link = tmp_path / "fit.json"
    link.symlink_to("/dev/full")
    with pytest.raises(SaveError, match="link to /dev/full.*character device"):
        mple_fit.save(link)
    assert os.path.islink(link) and sorted(os.listdir(tmp_path)) == ["fit.json", "fit.sock"]


def test_save_through_a_link_replaces_the_file_it_points_to(tmp_path, mple_fit):
    real = tmp_path / "real" / "fit.json"
    real.parent.mkdir()
    real.write_text("old")
    os.chmod(real, 0o640)
    link = tmp_path / "fit.json"
    link.symlink_to(real)
    mple_fit.save(link)
    assert os.path.islink(link) and os.readlink(link) == str(real)
    from ergmfit.results import ERGMResults
    assert ERGMResults.load(real).params.tolist() == mple_fit.params.tolist()
    assert os.stat(real).st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["fit.json", "real"]
    assert os.listdir(real.parent) == ["fit.json"]


def test_a_checkpoint_on_a_fifo_or_device_is_refused_up_front(tmp_path, flo):
    import stat
    fifo = tmp_path / "ck.json"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match="FIFO"):
        flo.fit(method="mcmle", random_state=1, checkpoint=str(fifo), samplesize=256)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["ck.json"]
    link = tmp_path / "dev.json"
    link.symlink_to("/dev/full")
    with pytest.raises(CheckpointError, match="character device"):
        flo.fit(method="mcmle", random_state=1, checkpoint=str(link), samplesize=256)
    assert sorted(os.listdir(tmp_path)) == ["ck.json", "dev.json"]


# ---------------------------------------------------------------------------
# item 7: short inputs that built huge objects or raised raw errors
# ---------------------------------------------------------------------------
def test_nodemix_on_ten_thousand_levels_is_refused_up_front():
    # was: a bare MemoryError after half a minute (50 million cells)
    import networkx as nx
    from ergmfit.exceptions import TermError
    g = nx.empty_graph(10000)
    for v in g:
        g.nodes[v]["a"] = str(v)
    g.add_edges_from((i, i + 1) for i in range(0, 9999, 7))
    with pytest.raises(TermError, match=r"10,000 levels.*50,005,000 cells.*GiB.*levels="):
        ef.ERGM(g, 'nodemix("a")')
    with pytest.raises(TermError, match=r"10,000 levels.*100,000,000 cells"):
        ef.ERGM(nx.DiGraph(g), 'nodemix("a")')
    small = ef.ERGM(g, 'nodemix("a", levels=c("1", "2", "8"))')     # a selection is fine
    assert len(small.labels) == 5                                    # 6 cells, the first out


def test_operator_terms_nested_300_deep_are_refused():
    from ergmfit.exceptions import ErgmfitError
    g = ef.datasets.load("flomarriage")
    f = "Sum(~" * 300 + "edges" + ", 1)" * 300
    with pytest.raises(ErgmfitError, match="more than 50 levels deep"):
        ef.ERGM(g, f)
    f = "Sum(~" * 40 + "edges" + ', "x")' * 40       # 40 levels build (each level built
    assert ef.ERGM(g, f).statistics_vector().tolist() == [20.0]   # its formula twice: 2^40)


@pytest.mark.parametrize("expr,msg", [("Grade[1e20] > 1", "whole number from 1 to 205"),
                                      ("Grade[-3] > 1", "whole number from 1 to 205"),
                                      ("Grade[2.5] > 1", "whole number"),
                                      ("Grade" + " + 1" * 3000 + " > 9", "nested too deeply")])
def test_bad_node_expressions_are_term_errors(expr, msg):
    from ergmfit.exceptions import TermError
    g = ef.datasets.load_network("faux.mesa.high")
    with pytest.raises(TermError, match=msg):
        ef.ERGM(g, f"S(~edges, ~{expr})")
    assert ef.ERGM(g, "S(~edges, ~Grade > Grade[3])").statistics_vector().size == 1


@pytest.mark.parametrize("bound", ["1e308", "Inf", "c(" + ",".join(["1e300"] * 16) + ")"])
def test_huge_degree_bounds_are_no_bounds(flo, bound):
    # bd(maxout=1e308) raised OverflowError; a bound beyond any degree bounds nothing
    a = flo.simulate([-1.0, 0.0], n=3, constraints=f"~bd(maxout={bound})", random_state=4,
                     output="stats")
    b = flo.simulate([-1.0, 0.0], n=3, constraints="~bd(maxout=1000)", random_state=4,
                     output="stats")
    np.testing.assert_array_equal(a, b)


def test_bad_degree_bounds_are_formula_errors(flo):
    from ergmfit.exceptions import FormulaError
    for bound in ['"a"', "c(1, 2)"]:
        with pytest.raises(FormulaError, match="bd\\(maxout=\\)"):
            flo.simulate([-1.0, 0.0], n=1, constraints=f"~bd(maxout={bound})", random_state=1)


def test_constraints_as_a_list_of_strings(flo):
    from ergmfit.exceptions import FormulaError
    from ergmfit.constraints import constraint_formula
    assert constraint_formula(["~bd(maxout=5)", "edges"]) == "~ bd(maxout=5) + edges"
    assert constraint_formula(["~ ."]) == "~ ."
    a = flo.simulate([-1.0, 0.0], n=2, constraints=["~bd(maxout=9)", "~edges"],
                     random_state=2, output="stats")
    b = flo.simulate([-1.0, 0.0], n=2, constraints="~bd(maxout=9) + edges",
                     random_state=2, output="stats")
    np.testing.assert_array_equal(a, b)
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges", constraints=["edges"])
    assert m.constraints == "~ edges"
    for bad in [[], [1], {"bd": 5}, 5]:
        with pytest.raises(FormulaError, match="constraints must be"):
            flo.fit(method="mple", constraints=bad)


@pytest.mark.parametrize("settings", [dict(n=10 ** 12), dict(n=2, interval=10 ** 15),
                                      dict(n=2, burnin=10 ** 20)])
def test_simulations_that_cannot_finish_are_refused_up_front(flo, settings):
    from ergmfit.exceptions import SettingsError
    with pytest.raises(SettingsError, match="proposals, more than"):
        flo.simulate([-1.0, 0.0], output="stats", random_state=1, **settings)
    gof = {("n_sim" if k == "n" else k): v for k, v in settings.items()}
    with pytest.raises(SettingsError, match="gof: burnin"):
        flo.gof([-1.0, 0.0], random_state=1, **gof)


def test_simulation_output_beyond_memory_is_refused_up_front(flo, monkeypatch):
    from ergmfit.utils import validation
    from ergmfit.exceptions import SettingsError
    monkeypatch.setattr(validation, "machine_memory", lambda: 2 ** 20)   # 1 MiB
    with pytest.raises(SettingsError, match=r"n = 100,000 draws.*more than this machine"):
        flo.simulate([-1.0, 0.0], n=10 ** 5, interval=1, output="stats", random_state=1)
    with pytest.raises(SettingsError, match="more than this machine"):
        flo.simulate([-1.0, 0.0], n=10 ** 4, interval=1, output="networks", random_state=1)
    assert flo.simulate([-1.0, 0.0], n=10, output="stats", random_state=1).shape == (10, 2)
    for bad in [dict(n=-1), dict(n=2.5), dict(interval=0), dict(n="x")]:
        with pytest.raises(SettingsError):
            flo.simulate([-1.0, 0.0], output="stats", random_state=1, **bad)


def test_cli_refuses_a_simulation_that_cannot_finish(capsys):
    from ergmfit import cli
    assert cli.main(["simulate", "flomarriage", "edges", "--coef", "-1",
                     "--n", str(10 ** 12)]) == 2
    err = capsys.readouterr().err
    assert "proposals, more than" in err and "Traceback" not in err
    assert cli.main(["simulate", "flomarriage", "edges", "--coef", "-1",
                     "--interval", str(10 ** 15)]) == 2


@pytest.mark.parametrize("method", ["mcmle", "cd", "mcle", "ee"])
def test_a_model_of_offsets_only_returns_the_offsets(method):
    # MCMC-MLE raised ZeroDivisionError, CD IndexError, MCLE ValueError; as statnet
    # ("No optimization is performed") the fit holds the offset coefficients
    m = ef.ERGM(ef.datasets.load("flomarriage"), "offset(edges) + offset(kstar(2))")
    with pytest.warns(UserWarning, match="nothing to estimate"):
        fit = m.fit(method=method, offset_coef=[-1.5, 0.01], random_state=1)
    assert fit.params.tolist() == [-1.5, 0.01] and fit.bse.tolist() == [0.0, 0.0]
    assert fit.info["nothing_estimated"]


# ---------------------------------------------------------------------------
# item 5 (the shared reader): tampered checkpoint files give CheckpointError
# ---------------------------------------------------------------------------
def test_a_deeply_nested_json_checkpoint_is_a_checkpoint_error(tmp_path, flo):
    # was: a raw RecursionError from the JSON parser
    from ergmfit.runtime.checkpoint import read_json
    path = tmp_path / "ck.json"
    path.write_text("[" * 200000 + "]" * 200000)
    with pytest.raises(CheckpointError, match="ck.json"):
        read_json(path, what="MCMC-MLE checkpoint")
    with pytest.raises(CheckpointError, match="ck.json"):
        flo.fit(method="mcmle", random_state=1, resume=str(path))


def test_an_oversized_checkpoint_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from ergmfit.runtime import checkpoint as runtime_checkpoint
    path = tmp_path / "ck.npz"
    runtime_checkpoint.write_npz(path, {"x": np.zeros(10 ** 5)}, {"kind": "test"})
    assert runtime_checkpoint.read_npz(path)[1]["x"].shape == (10 ** 5,)
    monkeypatch.setattr(runtime_checkpoint, "MAX_NPZ_BYTES", 10 ** 5)
    with pytest.raises(CheckpointError, match="unpack to 800,"):
        runtime_checkpoint.read_npz(path)
    js = tmp_path / "ck.json"
    js.write_text('{"kind": "x", "pad": "' + "a" * 2000 + '"}')
    monkeypatch.setattr(runtime_checkpoint, "MAX_JSON_BYTES", 1000)
    with pytest.raises(CheckpointError, match="larger than 1000 bytes"):
        runtime_checkpoint.read_json(js)


def test_check_fields_names_the_bad_field():
    from ergmfit.runtime.checkpoint import check_fields
    spec = {"it": ("int", 0, 100), "rate": ("float", 0, None), "seeds": ("list", 1, 64),
            "name": ("str", 1, 20), "done": ("bool", None, None), "aux?": ("int", 1, 2 ** 20)}
    good = {"it": 3, "rate": 0.5, "seeds": [1], "name": "x", "done": False}
    assert check_fields(good, spec, "ck") == {**good, "aux": None}
    for field, value, msg in [("it", 2 ** 40, "outside 0..100"), ("it", True, "not an int"),
                              ("it", 2.0, "not an int"), ("rate", float("nan"), "not a float"),
                              ("seeds", list(range(10 ** 6)), "of length 1000000"),
                              ("seeds", {}, "not a list"), ("name", "", "of length 0"),
                              ("done", 1, "not a bool"), ("aux", 2 ** 40, "outside 1..")]:
        with pytest.raises(CheckpointError, match=f"field '{field}' is .*{msg}"):
            check_fields({**good, field: value}, spec, "ck")
    with pytest.raises(CheckpointError, match="'it' is missing"):
        check_fields({k: v for k, v in good.items() if k != "it"}, spec, "ck")
    with pytest.raises(CheckpointError, match="not a mapping"):
        check_fields([1], spec, "ck")


def test_a_label_function_over_many_labels_still_runs():
    # the bounds grow with the labels mapped: 7,260 nodemix labels (some 4 million
    # steps of matching, beyond the fixed MAX_STEPS) are relabelled
    import networkx as nx
    g = nx.empty_graph(120)
    nx.set_node_attributes(g, {v: f"level{v:03d}" for v in g}, "a")
    g.add_edge(0, 1)
    labels = ef.ERGM(g, 'Label(~nodemix("a"), ~gsub("level([0-9]+)", "L\\\\1", .))').labels
    assert len(labels) == 7259 and labels[:2] == ["mix.a.L000.L001", "mix.a.L001.L001"]
