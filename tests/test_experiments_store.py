"""The experiment specs (expansion, cell keys) and the crash-safe results store."""
import gzip
import json
import math
import os
import pathlib

import numpy as np
import pytest

from lgekit.experiments import spec as specs
from lgekit.experiments.plan import expand, resolve_figures
from lgekit.experiments.spec import cell_key
from lgekit._json import to_json_safe
from lgekit.experiments.store import ResultsStore, read_jsonl, strip_timings


# ---------------------------------------------------------------------------- specs
def test_resolve_figures_aliases_and_order():
    assert resolve_figures(None) == [f"fig{i}" for i in range(1, 7)]
    assert resolve_figures(["3", "fig1", "Figure-3"]) == ["fig1", "fig3"]
    assert resolve_figures(["all"]) == [f"fig{i}" for i in range(1, 7)]


@pytest.mark.parametrize("bad", ["7", "fig0", "norms", ""])
def test_resolve_figures_rejects_unknown(bad):
    with pytest.raises(ValueError, match="unknown figure .*accepted are 1-6"):
        resolve_figures([bad])


def test_cell_key_is_canonical_and_sensitive():
    a = {"x": 1, "y": [1.0, 2.5], "z": {"b": 2, "a": 1}}
    b = {"z": {"a": 1, "b": 2}, "y": [1.0, 2.5], "x": 1}
    assert cell_key(a) == cell_key(b)
    assert len(cell_key(a)) == 64
    c = json.loads(json.dumps(a))
    c["y"][1] = 2.5000000001
    assert cell_key(c) != cell_key(a)


def test_expand_matches_the_paper_grids():
    plan = expand(seeds=1)
    lam = sorted({e["lam_r"] for e in plan.figures["fig1"]})
    assert lam == [0.0, 0.2, 0.6, 1.0]
    assert sorted({e["dim"] for e in plan.figures["fig4"]}) == [5, 10, 30, 100, 300]
    assert len(plan.figures["fig4"]) == 20
    fig5 = sorted(e["lam_r"] for e in plan.figures["fig5"])
    assert fig5[0] == 0.01 and fig5[-1] == 100.0
    # a log grid: constant ratio between consecutive points (half-decades)
    ratios = np.diff(np.log10(fig5))
    assert np.allclose(ratios, 0.5, atol=0.03)
    assert sorted(e["dim"] for e in plan.figures["fig6"]) == [10, 30, 100, 300, 1000, 1600]
    for key in (e["key"] for e in plan.figures["fig1"]):
        p = plan.cells[key]["params"]
        assert (p["dim"], p["epochs"], plan.cells[key]["model"]) == (100, 50, "LogisticEmbedding")
    for e in plan.figures["fig5"] + plan.figures["fig6"]:
        cfg = plan.cells[e["key"]]
        assert cfg["model"] == "HingeEmbedding" and cfg["params"]["epochs"] == 20
    for e in plan.figures["fig6"]:
        assert plan.cells[e["key"]]["params"]["lam_r"] == 3.0


def test_expand_shares_cells_between_figures():
    plan = expand(seeds=2)
    k1 = {e["key"] for e in plan.figures["fig1"]}
    assert k1 == {e["key"] for e in plan.figures["fig2"]} == {e["key"] for e in plan.figures["fig3"]}
    d100 = {e["key"] for e in plan.figures["fig4"] if e["dim"] == 100}
    assert d100 == k1
    # Fig. 5 at lam_r = 3 is Fig. 6 at D = 100
    k5 = {e["key"] for e in plan.figures["fig5"] if e["lam_r"] == 3.0}
    assert k5 == {e["key"] for e in plan.figures["fig6"] if e["dim"] == 100}
    # per seed: 20 SGD cells (fig4 contains figs 1-3) + 9 + 6 - 1 shared DCD cells
    assert len(plan.cells) == 2 * (20 + 9 + 6 - 1)
    # seeds give different splits and initialisations
    s = {plan.cells[e["key"]]["split"]["seed"] for e in plan.figures["fig1"]}
    assert s == {0, 1}


def test_shared_runs_record_the_union_of_their_figures():
    for quick in (False, True):
        plan = expand(seeds=1, quick=quick)
        for e in plan.figures["fig4"]:  # F1 is for Fig. 3: only the runs Fig. 4 shares with it compute it
            assert bool(plan.cells[e["key"]]["record"]["f1_epochs"]) == (e["dim"] == 100)
    merged = specs.merge_records({"ap_every": 0, "train_ap": False, "f1_epochs": [1, 5], "final_train_ap": False},
                                 {"ap_every": 2, "train_ap": True, "f1_epochs": [5, 20], "final_train_ap": True})
    assert merged.to_dict() == {"ap_every": 2, "train_ap": True, "f1_epochs": [1, 5, 20], "final_train_ap": True}
    assert specs.merge_records({"ap_every": 3}, {"ap_every": 2}).ap_every == 2


def test_quick_is_smaller_and_uses_a_small_default_graph():
    full, quick = expand(seeds=1), expand(seeds=1, quick=True)
    assert len(quick.cells) < len(full.cells)
    assert quick.dataset == {"name": specs.DEFAULT_DATASET, "kwargs": specs.QUICK_DATASET_KWARGS}
    assert full.dataset == {"name": specs.DEFAULT_DATASET, "kwargs": {}}
    assert max(c["params"]["epochs"] for c in quick.cells.values()) < 50
    for fig in ("fig4", "fig5", "fig6"):
        assert len(quick.figures[fig]) < len(full.figures[fig])


def test_dataset_path_is_fingerprinted(tmp_path):
    f = tmp_path / "g.edgelist"
    f.write_text("0 1\n1 2\n")
    a = specs.dataset_spec(f)
    assert a["path"] == str(f.resolve()) and len(a["sha256"]) == 64
    f.write_text("0 1\n1 2\n2 3\n")
    assert specs.dataset_spec(f)["sha256"] != a["sha256"]


def _asu_folder(folder, edges="1,2\n2,3\n"):
    folder.mkdir()
    (folder / "nodes.csv").write_text("1\n2\n3\n")
    (folder / "edges.csv").write_text(edges)
    (folder / "groups.csv").write_text("1\n")
    (folder / "group-edges.csv").write_text("1,1\n")
    return folder


def test_dataset_folder_is_keyed_by_content(tmp_path):
    """Issue #13, item 12: editing a folder data set's files changes its cells' keys."""
    folder = _asu_folder(tmp_path / "asu")
    a = specs.dataset_spec(folder)
    assert a["path"] == str(folder.resolve()) and len(a["sha256"]) == 64
    keys = set(expand(["fig6"], dataset=folder, quick=True).cells)
    (folder / "edges.csv").write_text("1,2\n2,3\n1,3\n")
    b = specs.dataset_spec(folder)
    assert b["sha256"] != a["sha256"]
    assert not keys & set(expand(["fig6"], dataset=folder, quick=True).cells)
    # every file the loader reads counts, compressed or not; files it does not read do not
    (folder / "extra.csv").write_text("unrelated")
    (folder / ".DS_Store").write_bytes(b"\0")
    assert specs.dataset_spec(folder) == b
    (folder / "groups.csv").write_text("1\n2\n")
    c = specs.dataset_spec(folder)
    assert c["sha256"] != b["sha256"]
    data = (folder / "nodes.csv").read_bytes()
    (folder / "nodes.csv").unlink()
    with gzip.open(folder / "nodes.csv.gz", "wb") as fh:
        fh.write(data)
    assert specs.dataset_spec(folder)["sha256"] != c["sha256"]


def test_dataset_name_wins_over_a_local_file(tmp_path, monkeypatch):
    """Issue #13, item 11: a registered name means the data set, as in ``datasets.load``, not ./facebook."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "facebook").write_text("0 1\n1 2\n")
    (tmp_path / "BlogCatalog").mkdir()
    assert specs.dataset_spec("facebook") == {"name": "facebook", "kwargs": {}}
    assert specs.dataset_spec("BlogCatalog") == {"name": "blogcatalog", "kwargs": {}}  # case-insensitive
    # the explicit path forms still mean the file
    for path in ("./facebook", tmp_path / "facebook", pathlib.Path("facebook")):
        assert specs.dataset_spec(path)["path"] == str((tmp_path / "facebook").resolve())


def test_dataset_unknown_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="'no-such-graph' is neither a registered data set .*facebook"):
        specs.dataset_spec("no-such-graph")
    with pytest.raises(FileNotFoundError, match="nope"):
        expand(["fig6"], dataset=tmp_path / "nope")


def test_expand_rejects_bad_seeds():
    with pytest.raises(ValueError, match="seeds must be a positive int"):
        expand(seeds=0)


# ---------------------------------------------------------------------------- store
def _record(key, status="ok", **extra):
    rec = {"key": key, "status": status, "config": {"model": "M", "params": {}}, "history": [{"epoch": 0}],
           "metrics": {"test_ap": 0.5}, "timings": {"total": 1.0}}
    rec.update(extra)
    return rec


def test_store_put_get_and_index(tmp_path):
    store = ResultsStore(tmp_path / "out")
    keys = [cell_key({"i": i}) for i in range(5)]
    for i, k in enumerate(keys):
        store.put(_record(k, status="error" if i == 4 else "ok"))
    store.put(_record(keys[0], status="diverged"))  # a rewrite replaces, never duplicates
    assert store.keys() == sorted(keys)
    assert store.get(keys[0])["status"] == "diverged"
    assert store.finished_keys() == set(keys[:4])  # errors are not finished: a rerun retries them
    assert store.get(cell_key({"i": 99})) is None
    index = read_jsonl(store.write_index())
    assert [r["key"] for r in index] == sorted(keys)


def test_store_records_are_strict_json(tmp_path):
    store = ResultsStore(tmp_path)
    key = cell_key({"nan": 1})
    store.put(_record(key, history=[{"epoch": 0, "objective": float("nan"), "x": np.float32(1.5),
                                     "n": np.int64(3), "ok": np.bool_(True), "v": np.arange(2)}]))
    text = (tmp_path / "cells" / f"{key}.json").read_text()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    h = store.get(key)["history"][0]
    assert h == {"epoch": 0, "objective": None, "x": 1.5, "n": 3, "ok": True, "v": [0, 1]}


def test_to_json_safe_converts_non_finite():
    assert to_json_safe({"a": [math.inf, -math.inf, 1.0]}) == {"a": [None, None, 1.0]}


def test_strip_timings():
    rec = _record("ab")
    assert "timings" not in strip_timings(rec) and "timings" in rec


def test_store_ignores_temporaries_and_removes_none_by_its_name(tmp_path):
    """Issue 42, item 2: files shaped like temporaries (of this version or earlier ones) are ignored, and never
    removed: a name proves nothing, and the user's own dotfiles can look the same."""
    store = ResultsStore(tmp_path)
    key = cell_key({"a": 1})
    store.put(_record(key))
    looks = [tmp_path / "cells" / f".lgekit-tmp.{'0' * 31}a.{cell_key({'b': 2})}.json",
             tmp_path / f".lgekit-tmp.{'f' * 32}.fig3.pdf", tmp_path / ".records.jsonl.a1_b2c3d.jsonl",
             tmp_path / "cells" / f".{cell_key({'c': 3})}.json.x1y2z3w4.json", tmp_path / ".gitignore"]
    for path in looks:
        path.write_text("{")
    assert store.keys() == [key]
    assert not hasattr(store, "clean_temporary_files")
    with store.lock(), store.output.run():
        store.put(_record(cell_key({"d": 4})))
    assert all(p.exists() for p in looks)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".lgekit-run.")]


def test_read_jsonl_skips_torn_lines(tmp_path, caplog):
    p = tmp_path / "r.jsonl"
    p.write_text('{"key": "a"}\n\n{"key": "b"}\n{"key": "c", "trunc')
    assert [r["key"] for r in read_jsonl(p)] == ["a", "b"]
    assert "line 4 does not parse" in caplog.text


def test_store_damaged_cell_file_is_recomputed(tmp_path, caplog):
    store = ResultsStore(tmp_path)
    key = cell_key({"a": 1})
    (tmp_path / "cells" / f"{key}.json").write_text("{not json")
    assert store.get(key) is None and store.finished_keys() == set()
    assert "will be recomputed" in caplog.text


def test_store_rejects_bad_keys(tmp_path):
    with pytest.raises(ValueError, match="key must be a lowercase hex digest"):
        ResultsStore(tmp_path).put(_record("../evil"))


def test_unwritable_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(PermissionError, match="output folder .*file/sub.* is not writable"):
        ResultsStore(blocker / "sub")


@pytest.mark.skipif(os.name != "posix", reason="flock")
def test_lock_excludes_a_second_writer(tmp_path):
    a, b = ResultsStore(tmp_path), ResultsStore(tmp_path)
    with a.lock():
        with pytest.raises(RuntimeError, match="another lgekit process is writing"):
            with b.lock():
                pass
    with b.lock():  # released
        pass
