"""Model files (issue #13, items 6 and 10): ``load`` never imports or unpickles anything a file names,
checks every array and metadata field, answers any damaged file with a ValueError naming it, and
keeps node ids with their types."""
import io
import json
import sys
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lgekit
from lgekit import HingeEmbedding, LogisticEmbedding
from lgekit.cli import main
from lgekit.models import BaseEmbedding


@pytest.fixture(scope="module")
def graph():
    return lgekit.Graph.from_edges([(i, (i + 1) % 12) for i in range(12)] + [(0, 6), (3, 9)])


@pytest.fixture(scope="module")
def saved(graph, tmp_path_factory):
    """The bytes of a valid LogisticEmbedding file and the model it holds."""
    model = LogisticEmbedding(dim=3, epochs=2, random_state=0).fit(graph)
    path = model.save(tmp_path_factory.mktemp("model") / "m.npz")
    return path.read_bytes(), model


def arrays_of(data):
    with np.load(io.BytesIO(data), allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def write(path, arrays, **meta_changes):
    """A model file made from ``arrays`` with its metadata changed (value None: the field removed)."""
    arrays = dict(arrays)
    meta = json.loads(str(arrays["meta"]))
    for key, value in meta_changes.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)
    return path


# ----------------------------------------------------------------- no import, no pickle
def test_load_never_imports_a_module_named_in_the_file(saved, tmp_path, monkeypatch):
    # a module whose import leaves a trace: load must never run its top-level code
    marker = tmp_path / "imported"
    (tmp_path / "lgekit_probe_module.py").write_text(f"open({str(marker)!r}, 'w').close()\nclass Foo: pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    arrays = arrays_of(saved[0])
    for name in ("lgekit_probe_module:Foo", "lgekit_probe_module", "this:Foo", "os:system"):
        for version in (1, 2):
            path = write(tmp_path / "evil.npz", arrays, format_version=version, **{"class": name})
            with pytest.raises(ValueError, match=r"evil\.npz: unknown model class"):
                BaseEmbedding.load(path)
    assert not marker.exists()
    assert "lgekit_probe_module" not in sys.modules


def test_a_file_may_name_only_an_estimator_that_trains(saved, tmp_path, monkeypatch):
    """The registry load builds from (NodeVectors') holds lgekit's estimators with a solver, not the bases."""
    assert sorted(BaseEmbedding._registry) == ["HingeEmbedding", "HingeEmbeddingCV", "LogisticEmbedding",
                                               "LogisticEmbeddingCV"]
    arrays = arrays_of(saved[0])
    for name in ("BaseEmbedding", "NodeVectors"):
        path = write(tmp_path / "base.npz", arrays, format_version=2, **{"class": name})
        with pytest.raises(ValueError, match=r"base\.npz: unknown model class"):
            LogisticEmbedding.load(path)
    # the wrong registry, every lgekit subclass of NodeVectors: the base is found, and only refused later
    monkeypatch.setitem(BaseEmbedding._registry, "BaseEmbedding", BaseEmbedding)
    with pytest.raises(TypeError, match="holds a BaseEmbedding"):
        LogisticEmbedding.load(write(tmp_path / "base.npz", arrays, format_version=2, **{"class": "BaseEmbedding"}))


def test_legacy_class_names_of_lgekit_estimators_still_load(saved, tmp_path):
    arrays = arrays_of(saved[0])
    path = write(tmp_path / "old.npz", arrays, format_version=1,
                 **{"class": "lgekit.models.logistic:LogisticEmbedding"})
    loaded = BaseEmbedding.load(path)
    assert type(loaded) is LogisticEmbedding
    np.testing.assert_array_equal(loaded.embedding_, saved[1].embedding_)
    # the stored name of a registered class that is not the requested one is a TypeError, as before
    with pytest.raises(TypeError, match="holds a LogisticEmbedding, not a HingeEmbedding"):
        HingeEmbedding.load(path)


def test_pickled_member_is_refused_not_unpickled(saved, tmp_path):
    arrays = arrays_of(saved[0])
    arrays["node_ids"] = np.array([object()] * len(arrays["node_ids"]), dtype=object)
    path = tmp_path / "pickle.npz"
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match=r"pickle\.npz.*not a plain number or string type"):
        BaseEmbedding.load(path)


# ----------------------------------------------------------------- crafted metadata and arrays
@pytest.mark.parametrize("change, match", [
    (dict(n_iter=-1), r"'n_iter' must be an int >= 0, got '-1'"),
    (dict(n_iter=True), r"'n_iter' must be an int >= 0"),
    (dict(n_iter="2"), r"'n_iter' must be an int >= 0"),
    (dict(n_iter=None), r"'n_iter' is missing"),
    (dict(n_iter=1), r"2 history records for n_iter=1"),
    (dict(format_version=99), r"'format_version' must be an int in \[1, 3\]"),
    (dict(history="x"), r"'history' must be a list of objects"),
    (dict(history=[{"epoch": 5}]), r"epoch '5' is not an int in \[0, 2\)"),
    (dict(kernel_seed=-3), r"'kernel_seed' must be an int in \[0, 2\*\*64\)"),
    (dict(params={"dim": [3]}), r"'params' must be an object"),
    (dict(params={"dim": 3, "lam_r": -1.0}), r"invalid stored parameter: .*lam_r must be"),
    (dict(params={"dim": 3, "n_threads": 10**9}), r"invalid stored parameter: .*n_threads"),
    (dict(params={"dim": 4}), r"'embedding' must have shape \(n_nodes >= 1, dim=4\), got \(12, 3\)"),
    (dict(params={"dim": 3, "dtype": "float64"}), r"'embedding' must have the stored dtype float64"),
    (dict(node_ids_kind="pickle"), r"'node_ids_kind' must be 'native' or 'json'"),
    (dict(node_ids_kind="json"), r"no 'node_ids_json' array"),
    ({"class": 7}, r"'class' must be a string"),
    (dict(lgekit_version=1), r"'lgekit_version' must be a string"),
    (dict(pickle="x"), r"unknown metadata fields \['pickle'\]"),
])
def test_crafted_metadata_is_refused_naming_the_file(saved, tmp_path, change, match):
    path = write(tmp_path / "crafted.npz", arrays_of(saved[0]), **change)
    with pytest.raises(ValueError, match=r"crafted\.npz") as info:
        BaseEmbedding.load(path)
    assert info.match(match)


@pytest.mark.parametrize("name, value, match", [
    ("embedding", np.zeros(36, np.float32), r"'embedding' must have shape"),
    ("embedding", np.zeros((12, 3), np.int64), r"must have the stored dtype float32"),
    ("embedding", np.zeros((0, 3), np.float32), r"'embedding' must have shape"),
    ("node_ids", np.arange(11), r"11 node ids for 12 embedding rows"),
    ("node_ids", np.arange(24).reshape(12, 2), r"node ids for 12 embedding rows"),
    ("node_ids", np.zeros(12, np.int64), r"node ids are not unique"),
    ("node_ids", np.linspace(0, 1, 12), r"'node_ids' must hold integers or strings"),
    ("meta", np.array([1, 2]), r"'meta' must be a 0-d string array"),
    ("meta", np.array("{not json"), r"'meta' is not valid JSON"),
    ("meta", np.array("[1, 2]"), r"'meta' must hold a JSON object"),
    ("meta", np.array("[" * 100000 + "]" * 100000), r"'meta' is nested more than 64 levels deep"),
    ("extra", np.zeros(2), r"unexpected arrays \['extra'\]"),
    ("solver__alpha", np.zeros(3), r"unexpected solver arrays \['alpha'\]: a SGDSolver keeps no state arrays"),
])
def test_crafted_arrays_are_refused_naming_the_file(saved, tmp_path, name, value, match):
    arrays = arrays_of(saved[0])
    arrays[name] = value
    path = tmp_path / "crafted.npz"
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match=r"crafted\.npz") as info:
        BaseEmbedding.load(path)
    assert info.match(match)


def test_hinge_duals_are_checked(graph, tmp_path):
    model = HingeEmbedding(dim=3, epochs=1, random_state=0).fit(graph)
    arrays = arrays_of(model.save(tmp_path / "h.npz").read_bytes())
    for alpha, match in ((-np.ones_like(arrays["solver__alpha"]), "finite and >= 0"),
                         (np.full(3, np.nan), "finite and >= 0"),
                         (arrays["solver__alpha"].astype(np.float32), "1-D float64"),
                         (arrays["solver__alpha"].reshape(1, -1), "1-D float64")):
        arrays["solver__alpha"] = alpha
        np.savez(tmp_path / "bad.npz", **arrays)
        with pytest.raises(ValueError, match=rf"bad\.npz: the duals 'alpha' must be .*{match}"):
            HingeEmbedding.load(tmp_path / "bad.npz")


def test_header_declaring_a_huge_array_allocates_nothing(saved, tmp_path):
    # the .npy header claims 10**12 float64 (8 TB) over a few bytes: refused from the zip directory's sizes,
    # before numpy would allocate anything
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
    member = buf.getvalue() + b"\0" * 64
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(io.BytesIO(saved[0])) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            dst.writestr(info.filename, member if info.filename == "embedding.npy" else src.read(info))
    with pytest.raises(ValueError, match=r"huge\.npz.*declares shape \(1000000000000,\)"):
        BaseEmbedding.load(path)


# ----------------------------------------------------------------- damaged files
def test_truncated_files_raise_value_error_naming_the_file(saved, tmp_path):
    data = saved[0]
    path = tmp_path / "cut.npz"
    for size in sorted({0, 1, 2, 4, 22, 100, len(data) // 2, len(data) - 23, len(data) - 1}
                       | set(range(0, len(data), max(1, len(data) // 40)))):
        path.write_bytes(data[:size])
        with pytest.raises(ValueError, match=r"cut\.npz"):
            BaseEmbedding.load(path)


@pytest.mark.parametrize("content", [b"", b"hello world\n", b"PK\x03\x04garbage", b"\x93NUMPY\x01\x00garbage",
                                     b"\x80\x04\x95 pickle", bytes(range(256)) * 4])
def test_garbage_files_raise_value_error_naming_the_file(tmp_path, content):
    path = tmp_path / "garbage.npz"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=r"garbage\.npz"):
        BaseEmbedding.load(path)


def test_a_plain_npy_array_is_not_a_model_file(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"a\.npy is not a readable \.npz model file"):
        BaseEmbedding.load(tmp_path / "a.npy")


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        BaseEmbedding.load(tmp_path / "nope.npz")


@settings(max_examples=150)
@given(data=st.data())
def test_corrupted_bytes_of_a_valid_file_only_ever_raise_value_error(saved, tmp_path_factory, data):
    good, model = saved
    raw = bytearray(good)
    n_changes = data.draw(st.integers(1, 8), label="n_changes")
    for _ in range(n_changes):
        pos = data.draw(st.integers(0, len(raw) - 1), label="position")
        raw[pos] = data.draw(st.integers(0, 255), label="byte")
    if data.draw(st.booleans(), label="truncate"):
        raw = raw[:data.draw(st.integers(0, len(raw)), label="length")]
    path = tmp_path_factory.mktemp("corrupt") / "c.npz"
    path.write_bytes(bytes(raw))
    try:
        loaded = BaseEmbedding.load(path)
    except ValueError as exc:
        assert "c.npz" in str(exc)
        return
    # a change the checks cannot see (a timestamp, a history number): still a consistent model
    assert type(loaded) is LogisticEmbedding
    assert loaded.embedding_.shape == model.embedding_.shape and loaded.embedding_.dtype == np.float32
    assert len(loaded.node_ids_) == len(model.node_ids_) and len(loaded.history_) <= loaded.n_iter_


# ----------------------------------------------------------------- node ids keep their types (item 10)
def typed(values):
    """A comparison key that tells 1, 1.0, True and "1" apart, also inside tuples."""
    return [(type(v).__name__, typed(v) if isinstance(v, tuple) else v) for v in values]


def fitted_on_ids(ids):
    """A model fitted on a ring over ``ids`` (object array kept as is)."""
    import scipy.sparse as sp

    n = len(ids)
    rows = np.arange(n)
    adj = sp.coo_matrix((np.ones(n), (rows, (rows + 1) % n)), shape=(n, n))
    adj = ((adj + adj.T) > 0).astype(np.float64).tocsr()
    node_ids = np.empty(n, dtype=object)
    for i, v in enumerate(ids):
        node_ids[i] = v
    graph = lgekit.Graph(adj, node_ids=node_ids)
    return LogisticEmbedding(dim=2, epochs=1, random_state=0).fit(graph)


def test_mixed_int_and_str_ids_stay_distinct(tmp_path):
    model = fitted_on_ids([1, "1", 2, "x"])
    loaded = LogisticEmbedding.load(model.save(tmp_path / "mixed.npz"))
    assert typed(loaded.node_ids_.tolist()) == typed([1, "1", 2, "x"])
    np.testing.assert_array_equal(loaded.transform([1]), model.transform([1]))
    np.testing.assert_array_equal(loaded.transform(["1"]), model.transform(["1"]))
    assert not np.array_equal(loaded.transform([1]), loaded.transform(["1"]))


def test_tuple_ids_round_trip(tmp_path):
    ids = [(0, "a"), (1, "b"), (2, ("c", 3)), (3, "d")]
    model = fitted_on_ids(ids)
    loaded = LogisticEmbedding.load(model.save(tmp_path / "tuples.npz"))
    assert typed(loaded.node_ids_.tolist()) == typed(ids)
    np.testing.assert_array_equal(loaded.transform([(2, ("c", 3))]), model.transform([(2, ("c", 3))]))
    np.testing.assert_allclose(loaded.score_pairs([[(0, "a"), (1, "b")]]), model.score_pairs([[(0, "a"), (1, "b")]]))


def test_unsupported_id_type_is_refused_at_save(tmp_path):
    model = fitted_on_ids([frozenset({1}), 2, 3, 4])
    with pytest.raises(ValueError, match=r"node id frozenset\(\{1\}\) of type frozenset cannot be saved"):
        model.save(tmp_path / "f.npz")
    assert list(tmp_path.iterdir()) == []


scalar_ids = st.one_of(st.integers(-2**80, 2**80), st.text(max_size=4), st.booleans(), st.none(),
                       st.floats(allow_nan=False, allow_infinity=True))
ids_strategy = st.lists(st.one_of(scalar_ids, st.tuples(scalar_ids, scalar_ids)), min_size=4, max_size=12,
                        unique=True)


@settings(max_examples=40)
@given(ids=ids_strategy)
def test_any_mixed_id_list_round_trips_with_types(tmp_path_factory, ids):
    model = fitted_on_ids(ids)
    path = model.save(tmp_path_factory.mktemp("ids") / "m.npz")
    loaded = LogisticEmbedding.load(path)
    assert typed(loaded.node_ids_.tolist()) == typed(ids)
    k = len(ids) // 2
    np.testing.assert_array_equal(loaded.transform([ids[k]]), model.embedding_[[k]])


def test_native_int_and_str_ids_stay_native_arrays(tmp_path):
    g = lgekit.Graph.from_edges([["x", "y"], ["y", "z"]])
    loaded = LogisticEmbedding.load(LogisticEmbedding(dim=2, epochs=1, random_state=0).fit(g).save(tmp_path / "s.npz"))
    assert loaded.node_ids_.dtype.kind == "U" and loaded.node_ids_.tolist() == ["x", "y", "z"]
    g = lgekit.Graph.from_edges([[10, 20], [20, 30]])
    loaded = LogisticEmbedding.load(LogisticEmbedding(dim=2, epochs=1, random_state=0).fit(g).save(tmp_path / "i.npz"))
    assert loaded.node_ids_.dtype.kind == "i" and loaded.node_ids_.tolist() == [10, 20, 30]


def test_format_1_string_ids_load_as_strings(saved, tmp_path):
    arrays = arrays_of(saved[0])
    arrays["node_ids"] = np.array([str(i) for i in range(12)])
    path = write(tmp_path / "v1.npz", arrays, format_version=1, node_ids_kind="str",
                 **{"class": "lgekit.models.logistic:LogisticEmbedding"})
    loaded = LogisticEmbedding.load(path)
    assert typed(loaded.node_ids_.tolist()) == typed([str(i) for i in range(12)])


# ----------------------------------------------------------------- the CLI
def test_evaluate_answers_a_damaged_model_file_in_one_line(saved, tmp_path, capsys):
    graph_file = tmp_path / "ring.edgelist"
    graph_file.write_text("".join(f"{i} {(i + 1) % 12}\n" for i in range(12)))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(saved[0][: len(saved[0]) // 2])
    assert main(["evaluate", str(bad), str(graph_file)]) == 2
    err = capsys.readouterr().err
    assert "bad.npz" in err and "Traceback" not in err
    evil = write(tmp_path / "evil.npz", arrays_of(saved[0]), **{"class": "this:Foo"})
    assert main(["evaluate", str(evil), str(graph_file)]) == 2
    assert "unknown model class 'this:Foo'" in capsys.readouterr().err


@pytest.mark.parametrize("stride", [7, pytest.param(1, marks=pytest.mark.slow)])
def test_single_byte_corruptions_are_a_value_error_or_a_consistent_model(saved, tmp_path, stride):
    # every byte (slow run), or every 7th plus the whole central directory at the end (fast run)
    good, model = saved
    path = tmp_path / "flip.npz"
    outcomes = {"ValueError": 0, "loaded": 0}
    positions = sorted(set(range(0, len(good), stride)) | set(range(len(good) - 400, len(good))))
    for pos in positions:
        raw = bytearray(good)
        raw[pos] ^= 0xFF
        path.write_bytes(bytes(raw))
        try:
            loaded = BaseEmbedding.load(path)
        except ValueError as exc:
            assert "flip.npz" in str(exc)
            outcomes["ValueError"] += 1
            continue
        outcomes["loaded"] += 1
        assert loaded.embedding_.shape == model.embedding_.shape and len(loaded.node_ids_) == 12
    # most bytes are covered by a CRC, a header or a checked field
    assert outcomes["ValueError"] > 0.9 * len(positions)


# ----------------------------------------------------------------- word2vec binary (issue #16, item 8)
def read_word2vec_binary(path):
    """An independent reader of word2vec's binary format (as word2vec.c writes it): a text header
    "<count> <dim>\\n", then per word its bytes up to a space, dim float32 little-endian numbers
    and a newline."""
    data = path.read_bytes()
    header, rest = data.split(b"\n", 1)
    count, dim = map(int, header.split())
    words, vectors, pos = [], [], 0
    for _ in range(count):
        space = rest.index(b" ", pos)
        words.append(rest[pos:space].decode("utf-8"))
        start = space + 1
        vectors.append(np.frombuffer(rest[start:start + 4 * dim], dtype="<f4"))
        assert rest[start + 4 * dim:start + 4 * dim + 1] == b"\n"
        pos = start + 4 * dim + 1
    assert pos == len(rest), "bytes after the last vector"
    return words, np.array(vectors).reshape(count, dim)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_to_word2vec_binary_is_the_word2vec_format(tmp_path, dtype):
    # string ids with non-ASCII characters, and a vector whose bytes include b" " and b"\n"
    g = lgekit.Graph.from_edges([["Valjean", "Javert"], ["Javert", "Fantine"], ["Fantine", "Éponine"],
                                 ["Éponine", "Valjean"], ["Cosette", "Valjean"]])
    model = LogisticEmbedding(dim=6, epochs=2, dtype=dtype, random_state=0).fit(g)
    model.embedding_[0, :2] = np.frombuffer(b"  \n\n\n\n  ", dtype="<f4")
    path = model.to_word2vec(tmp_path / "emb.bin", binary=True)
    words, vectors = read_word2vec_binary(path)
    assert words == [str(i) for i in model.node_ids_]
    np.testing.assert_array_equal(vectors, model.embedding_.astype(np.float32))
    assert vectors.dtype == np.dtype("<f4")
    # the text format holds the same numbers (float32 round trip exact at "%.9g")
    text = model.to_word2vec(tmp_path / "emb.txt")
    rows = [line.split() for line in text.read_text().splitlines()[1:]]
    np.testing.assert_array_equal(np.array([[float(x) for x in r[1:]] for r in rows], dtype=np.float32),
                                  vectors if dtype == "float32" else model.embedding_.astype(np.float32))


def test_to_word2vec_binary_rejects_what_the_format_cannot_hold(tmp_path):
    g = lgekit.Graph.from_edges([["a b", "c"], ["c", "d"]])
    model = LogisticEmbedding(dim=3, epochs=1, random_state=0).fit(g)
    with pytest.raises(ValueError, match="'a b' is empty or contains whitespace"):
        model.to_word2vec(tmp_path / "e.bin", binary=True)
    assert not (tmp_path / "e.bin").exists()


@pytest.mark.parametrize("binary", [False, True])
def test_gensim_reads_the_word2vec_files(tmp_path, binary):
    gensim_models = pytest.importorskip("gensim.models")
    g = lgekit.Graph.from_edges([["Valjean", "Javert"], ["Javert", "Fantine"], ["Fantine", "Éponine"],
                                 [7, "Valjean"]])
    model = LogisticEmbedding(dim=5, epochs=2, random_state=0).fit(g)
    path = model.to_word2vec(tmp_path / ("emb.bin" if binary else "emb.txt"), binary=binary)
    kv = gensim_models.KeyedVectors.load_word2vec_format(str(path), binary=binary)
    assert list(kv.index_to_key) == [str(i) for i in model.node_ids_]
    np.testing.assert_array_equal(kv.vectors, model.embedding_)
