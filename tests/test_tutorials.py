"""Every tutorial in tutorials/ runs top to bottom as a notebook (jupytext -> nbclient).

The tutorials are jupytext percent-format ``.py`` files.  Each one is
converted to a notebook and executed in a fresh kernel with the working
directory set to a temporary folder (outputs go there, never into the
checkout).  The small-data default is what runs here; a tutorial's full-size
run is switched on by ``LGEKIT_TUTORIAL_FULL=1``, which these tests clear.

Structure is checked too: each tutorial has 2-3 exercises, every exercise
cell is followed by a solution cell tagged ``solution`` (a teacher strips
them with ``python tutorials/strip_solutions.py``), and only the public API
is used (no ``lgekit._private`` imports).
"""
import re
from pathlib import Path

import pytest

TUTORIALS = sorted((Path(__file__).resolve().parent.parent / "tutorials").glob("[0-9][0-9]_*.py"))

jupytext = pytest.importorskip("jupytext", reason="tutorial tests need the 'tutorials' extra (jupytext, nbclient)")
nbclient = pytest.importorskip("nbclient", reason="tutorial tests need the 'tutorials' extra (jupytext, nbclient)")


def _cells(path):
    return jupytext.read(path).cells


def test_tutorials_exist():
    assert len(TUTORIALS) >= 1, "no tutorials found in tutorials/"


@pytest.mark.parametrize("path", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_structure(path):
    cells = _cells(path)
    tags = [set(c.metadata.get("tags", [])) for c in cells]
    n_exercises = sum("exercise" in t for t in tags)
    assert 2 <= n_exercises <= 3, f"{path.name}: expected 2-3 cells tagged 'exercise', found {n_exercises}"
    for i, t in enumerate(tags):
        if "exercise" in t:
            assert i + 1 < len(cells) and "solution" in tags[i + 1], (
                f"{path.name}: exercise cell {i} must be followed by a cell tagged 'solution'")
    source = path.read_text()
    private = re.findall(r"^\s*(?:from|import)\s+lgekit(?:\.\w+)*\._\w+", source, flags=re.M)
    assert not private, f"{path.name} imports private modules: {private}"
    assert sum(c.cell_type == "markdown" for c in cells) >= 5, f"{path.name}: too little prose"


@pytest.mark.slow
@pytest.mark.parametrize("path", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_runs(path, tmp_path, monkeypatch):
    monkeypatch.delenv("LGEKIT_TUTORIAL_FULL", raising=False)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = jupytext.read(path)
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    errors = [o for c in notebook.cells if c.cell_type == "code"
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
