"""benchmarks/bench_quoted_fields.py times only a csv splitter that gives the grammar's fields (issue 45): its
agreement check accepts the candidate it measures and refuses the plausible wrong one, the bare csv.reader."""
import csv
import importlib.util
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_quoted_fields.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_quoted_fields", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_candidate_agrees_with_the_splitter_and_the_bare_reader_does_not(bench, monkeypatch):
    assert all(bench.same(line, d) for line in bench.AWKWARD for d in (",", "\t"))
    # the wrong candidate: csv.reader as it is keeps whitespace around fields and quotes inside unquoted ones
    monkeypatch.setattr(bench, "csv_split", lambda body, d, path, lineno: next(csv.reader((body,), delimiter=d)))
    assert not bench.same('"a, b", c', ",") and not bench.same('a"b,c', ",")


FIELD = st.text(alphabet='ab ,"\t', max_size=6)


@given(st.lists(FIELD, min_size=1, max_size=4), st.sampled_from([",", "\t"]))
def test_the_candidate_agrees_on_any_line(bench, fields, delimiter):
    line = delimiter.join(fields).strip(" \t")   # the careful reader strips a line before splitting it
    if '"' in line:
        assert bench.same(line, delimiter)
