"""EE's set-up on large networks (issue #35 item 2): the observed statistics are counted once
per model (at Pokec's size, with two-paths counted on demand, one count costs as much as
millions of EE proposals, and a fit with a checkpoint asked for them three times), and the
Pokec benchmark's reader and saved statistics (``benchmarks/pokec_run.py``).  Small networks
with a zero two-path count budget take the same on-demand path as Pokec."""
import gzip

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.model import ERGM
from ergmfit.network._state import set_cache_memory
from support.paths import BENCHMARKS, load_script

FORMULA = "Arc + Reciprocity + AltInStars + AltOutStars + AltKTrianglesT + AltTwoPathsT"


@pytest.fixture
def on_demand():
    """Two-path counts counted on demand in the states built meanwhile (as above 2^20 nodes)."""
    old = set_cache_memory(0)
    yield
    set_cache_memory(old)


def _arcs(n=60, m=300, seed=1):
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, n * n, 3 * m))
    keys = keys[keys // n != keys % n]
    keys = rng.permutation(keys)[:m]
    return np.stack([keys // n, keys % n], axis=1)


@pytest.fixture
def counted(monkeypatch):
    """How many times the observed statistics of a network were counted."""
    calls = []
    original = ERGM._accumulated

    def counting(self, ties):
        if ties is None:
            calls.append(1)
        return original(self, ties)
    monkeypatch.setattr(ERGM, "_accumulated", counting)
    return calls


@pytest.mark.filterwarnings("ignore::ergmfit.exceptions.ConvergenceWarning")
def test_observed_statistics_counted_once_through_a_checkpointed_fit_and_its_resume(
        on_demand, counted, tmp_path):
    model = ef.ERGM(ef.Network(60, _arcs(), True), FORMULA)
    g = model.statistics_vector()
    kw = dict(method="ee", ee_steps=2, ee_inner_steps=3, sampler_steps=20, s_steps=2,
              se="none", random_state=1, checkpoint=str(tmp_path / "ck"))
    model.fit(**kw)
    assert len(counted) == 1            # the fit and its checkpoint reuse the count
    model.fit(method="ee", resume=str(tmp_path / "ck"))
    assert len(counted) == 1
    # a new model object on the same network counts once more, then resumes from it
    again = ef.ERGM(model.network, FORMULA)
    again.fit(method="ee", resume=str(tmp_path / "ck"))
    assert len(counted) == 2
    np.testing.assert_array_equal(again.statistics_vector(), g)


def test_observed_statistics_memo_is_a_copy_and_follows_the_network(on_demand):
    net = ef.Network(60, _arcs(), True)
    model = ef.ERGM(net, FORMULA)
    g = model.statistics_vector()
    g[:] = -1.0                         # the caller's array, not the memo
    first = model.statistics_vector()
    assert np.all(first >= 0)
    other = net.with_ties(_arcs(seed=2))
    import copy
    moved = copy.copy(model)
    moved.network = other               # what a target-statistics fit does to its copy
    np.testing.assert_array_equal(moved.statistics_vector(),
                                  ef.ERGM(other, FORMULA).statistics_vector())
    assert not np.array_equal(moved.statistics_vector(), first)
    np.testing.assert_array_equal(model.statistics_vector(), first)
    # and the memo gives what counting from scratch gives
    np.testing.assert_array_equal(first, ef.ERGM(net, FORMULA).statistics_vector())


def test_pokec_reader_relabels_and_saved_statistics_need_the_same_ties(tmp_path):
    run = load_script(BENCHMARKS / "pokec_run.py")
    path = tmp_path / "net.txt.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("# a SNAP file\n# FromNodeId\tToNodeId\n10\t3\n3\t7\n7\t10\n10\t7\n")
    n, arcs, ids = run.read_snap(str(path))
    assert n == 3 and ids == [3, 7, 10]
    np.testing.assert_array_equal(arcs, [[2, 0], [0, 1], [1, 2], [2, 1]])
    assert arcs.dtype == np.int64 and arcs.flags.c_contiguous
    model = ef.ERGM(ef.Network(n, arcs, True), "edges + mutual")
    g = model.statistics_vector()
    digest = run.tie_digest(model.network.ties)
    run.save_observed(str(tmp_path / "ck"), model, digest, g)
    np.testing.assert_array_equal(run.saved_observed(str(tmp_path / "ck"), model, digest), g)
    other = run.tie_digest(model.network.ties[:3])
    assert run.saved_observed(str(tmp_path / "ck"), model, other) is None
    assert run.saved_observed(str(tmp_path / "ck"),
                              ef.ERGM(model.network, "edges + mutual + istar(2)"), digest) is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pokec_sparse_statistics_equal_the_kernels(on_demand, seed):
    run = load_script(BENCHMARKS / "pokec_run.py")
    gen = load_script(BENCHMARKS / "pokec_synthetic.py")
    arcs = gen.pokec_like(400, 4000, max_degree=60, random_state=seed).astype(np.int64)
    model = ef.ERGM(ef.Network(400, arcs, True), run.FORMULA)
    np.testing.assert_allclose(run.pokec_statistics(400, model.network.ties, block_paths=500),
                               model.statistics_vector(), rtol=1e-12)


def test_pokec_sparse_statistics_go_on_from_their_saved_sums(tmp_path, monkeypatch):
    import json
    import os
    run = load_script(BENCHMARKS / "pokec_run.py")
    gen = load_script(BENCHMARKS / "pokec_synthetic.py")
    arcs = gen.pokec_like(300, 3000, max_degree=50, random_state=4).astype(np.int64)
    whole = run.pokec_statistics(300, arcs, block_paths=400)
    progress = str(tmp_path / "partial.json")
    replace, calls = os.replace, []

    def stop_at_the_third_save(a, b):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        replace(a, b)
    monkeypatch.setattr(os, "replace", stop_at_the_third_save)
    with pytest.raises(KeyboardInterrupt):
        run.pokec_statistics(300, arcs, block_paths=400, progress=progress)
    monkeypatch.setattr(os, "replace", replace)
    with open(progress) as fh:
        saved = json.load(fh)
    assert 0 < saved["start"] < 300 and saved["two_paths"] > 0
    np.testing.assert_allclose(run.pokec_statistics(300, arcs, block_paths=400,
                                                    progress=progress), whole, rtol=1e-12)
    # sums saved for another tie array are not used
    with open(progress, "w") as fh:
        json.dump(dict(saved, ties_sha256="0" * 64, two_paths=1e9), fh)
    np.testing.assert_allclose(run.pokec_statistics(300, arcs, block_paths=400,
                                                    progress=progress), whole, rtol=1e-12)


def test_observed_statistics_memo_sees_ties_changed_in_place():
    # the memo is keyed on the ties' values too: an edit of the tie array in place is
    # counted again, never answered from the memo
    net = ef.Network(60, _arcs(), True)
    model = ef.ERGM(net, FORMULA)
    first = model.statistics_vector()
    ties = model.network.ties
    present = {tuple(t) for t in ties.tolist()}
    a = int(ties[0, 0])
    ties[0, 1] = next(c for c in range(60) if c != a and (a, c) not in present)
    changed = ef.ERGM(ef.Network(60, ties.copy(), True), FORMULA).statistics_vector()
    assert not np.array_equal(changed, first)
    np.testing.assert_array_equal(model.statistics_vector(), changed)


def test_pokec_reader_keeps_the_isolates_its_header_declares(tmp_path):
    # SNAP numbers Pokec's nodes 1..N; "# Nodes: 6" with arcs naming 1, 3, 4, 6: nodes 2 and 5
    # are isolates (the old reader made a 4-node network of the arcs' ids)
    run = load_script(BENCHMARKS / "pokec_run.py")
    path = tmp_path / "net.txt"
    path.write_text("# Directed graph\n# Nodes: 6 Edges: 4\n# FromNodeId\tToNodeId\n"
                    "1\t3\n3\t6\n6\t1\n4\t3\n")
    n, arcs, ids = run.read_snap(str(path))
    assert n == 6 and ids == [1, 2, 3, 4, 5, 6]
    np.testing.assert_array_equal(arcs, [[0, 2], [2, 5], [5, 0], [3, 2]])
    assert arcs.dtype == np.int64 and arcs.flags.c_contiguous
    model = ef.ERGM(ef.Network(n, arcs, True), "edges + isolates")
    np.testing.assert_array_equal(model.statistics_vector(), [4, 2])
    # 0-based ids (id 0 present), gzip
    gz = tmp_path / "net0.txt.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write("# Nodes: 5 Edges: 2\n0\t2\n2\t3\n")
    n, arcs, ids = run.read_snap(str(gz))
    assert n == 5 and ids == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(arcs, [[0, 2], [2, 3]])
    # a header equal to the ids named: the arcs' ids relabelled, as without a header
    (tmp_path / "same.txt").write_text("# Nodes: 3 Edges: 2\n10\t30\n30\t20\n")
    assert run.read_snap(str(tmp_path / "same.txt"))[0] == 3
    # a header that cannot be right is a clear error
    (tmp_path / "small.txt").write_text("# Nodes: 2 Edges: 2\n1\t2\n2\t3\n")
    with pytest.raises(ValueError, match="Nodes: 2.*3 distinct"):
        run.read_snap(str(tmp_path / "small.txt"))
    (tmp_path / "far.txt").write_text("# Nodes: 4 Edges: 2\n1\t2\n2\t9\n")
    with pytest.raises(ValueError, match="names id 9"):
        run.read_snap(str(tmp_path / "far.txt"))


# -- a resume's memory (the full-size Pokec run peaked ~1 GB higher after a --resume) --------

def test_resume_restores_the_saved_ties_holding_them_about_once(monkeypatch):
    """The binary state is moved to a chain checkpoint's ties (``restore_state``) exactly, and
    with one array of the current ties beside the saved one: ``np.setxor1d`` of the two (a
    sorted concatenation and its masks) had peaked near 31 bytes a tie, about 0.7 GB more at
    the full size."""
    import tracemalloc
    n, m = 1000, 50_000
    arcs = _arcs(n, m + m // 5, seed=1)
    observed = ERGM(ef.Network(n, arcs[:m], True), "edges")
    drawn = ERGM(ef.Network(n, arcs[-m:], True), "edges")      # a fifth of the ties differ
    family = observed.family
    cm = observed.compiled()
    target = family.state_arrays(drawn.compiled())
    want = np.sort(target["x_on"])
    assert len(np.intersect1d(cm.on_vars(), want)) < m      # some ties go, some come
    # blocks as small beside this network's ties as 2^16 is beside Pokec's
    monkeypatch.setattr("ergmfit.families.binary.RESTORE_BLOCK", 1024, raising=False)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        family.restore_state(cm, target)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(np.sort(cm.on_vars()), want)
    # the same flips in the same (ascending) order as before: the state's tie list, which
    # IFD draws from, is as it was, so a resumed chain's draws are unchanged
    ref = ERGM(ef.Network(n, arcs[:m], True), "edges").compiled()
    for v in np.setxor1d(ref.on_vars(), want, assume_unique=True):
        ref.flip_var(int(v))
    np.testing.assert_array_equal(cm.on_vars(), ref.on_vars())
    # measured: 9.2 bytes a tie (the current ties' array, 8); np.setxor1d's way 31.2
    assert peak < 12 * m, f"{peak / m:.1f} bytes a tie"


def test_checkpoint_arrays_are_read_without_a_second_copy(tmp_path):
    """A checked array of the file's own dtype is the one read, not a copy held beside it
    (x_on of a Pokec-size chain is 245 MB)."""
    import tracemalloc
    from ergmfit.runtime.checkpoint import Checkpoint, CheckpointState, array

    class Model:
        labels = ["edges"]
        formula = "edges"

    class Big(CheckpointState):
        kind, what, storage = "test-big", "test checkpoint", "npz"
        fields = {"x_on": array("int64", (None,), low=0, high=10**9)}

    values = np.arange(0, 4_000_000, 4, dtype=np.int64)     # 8 MB
    with Checkpoint(tmp_path / "big.npz") as store:
        assert Big(x_on=values).write(store, Model())
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        st = Big.read(tmp_path / "big.npz", Model())
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(st.x_on, values)
    # measured: 1.07 x the array (2.01 with the copy)
    assert peak < 1.5 * values.nbytes, f"{peak / values.nbytes:.2f} x the array"
