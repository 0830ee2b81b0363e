"""Write copies of the tutorials without their solution cells, for handing out.

Usage::

    python tutorials/strip_solutions.py OUT_DIR [TUTORIAL.py ...]

Cells tagged ``solution`` are removed; everything else is kept: the
``exercise`` skeletons (which raise ``NotImplementedError("exercise N.M")``)
and the ``check`` cells after them, which verify the student's answer, so a
copy runs to its first unsolved exercise and stops there.  With no tutorial named, every ``NN_*.py`` beside this
script is processed.  The copies stay in jupytext's percent format, so they
open as notebooks (``jupytext --to ipynb``) or run as scripts.
"""
import argparse
import sys
from pathlib import Path

import jupytext


def strip(path, out_dir):
    notebook = jupytext.read(path)
    kept = [c for c in notebook.cells if "solution" not in c.metadata.get("tags", [])]
    removed = len(notebook.cells) - len(kept)
    notebook.cells = kept
    target = Path(out_dir) / Path(path).name
    jupytext.write(notebook, target, fmt="py:percent")
    return target, removed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path, help="folder for the stripped copies (created if missing)")
    parser.add_argument("tutorials", nargs="*", type=Path, help="tutorial files (default: all)")
    args = parser.parse_args(argv)
    paths = args.tutorials or sorted(Path(__file__).resolve().parent.glob("[0-9][0-9]_*.py"))
    if not paths:
        parser.error("no tutorials found")
    if args.out_dir.resolve() == Path(__file__).resolve().parent:
        parser.error("out_dir must differ from the tutorials folder (the originals would be overwritten)")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for path in paths:
        if not path.is_file():
            parser.error(f"no such tutorial: {path}")
        target, removed = strip(path, args.out_dir)
        print(f"{path.name}: removed {removed} solution cell(s) -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
