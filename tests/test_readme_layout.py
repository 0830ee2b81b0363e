"""The README's "Layout" names every kernel source there is, and only those (issue 45).

The kernel list there went stale once (four of seven model kernels, none of the foundation's); this check
compares the ``.pyx`` names the block holds with the sources under ``lgekit/`` (the generated ``*_avx2.pyx``
copies excluded), and is shown failing on a block that misses one and on one that names a removed file.
"""
import re
from pathlib import Path

import pytest

import lgekit

ROOT = Path(lgekit.__file__).resolve().parent.parent
README = ROOT / "README.md"

pytestmark = pytest.mark.skipif(not README.is_file(), reason="needs a source checkout (README.md)")


def layout_block(text):
    """The fenced block under the README's ``## Layout`` heading."""
    section = text.split("\n## Layout\n", 1)[1]
    return section.split("```", 2)[1]


def kernel_sources(root=ROOT):
    """The file names of the Cython sources under ``root/lgekit`` (not the generated AVX2 copies)."""
    return {path.name for path in (root / "lgekit").rglob("*.pyx") if not path.stem.endswith("_avx2")}


def layout_mismatches(block, sources):
    """``(kernels the block leaves out, names it gives that are no kernel)``."""
    named = set(re.findall(r"([A-Za-z0-9_]+\.pyx)\b", block))
    return sorted(sources - named), sorted(named - sources)


def test_the_layout_names_every_kernel_source_and_no_other():
    sources = kernel_sources()
    assert {"_sgd.pyx", "_dcd.pyx", "_sampling.pyx"} <= sources, sources
    assert layout_mismatches(layout_block(README.read_text()), sources) == ([], [])


def test_a_stale_layout_is_caught():
    sources = {"_sgd.pyx", "_dcd.pyx", "_dcd_diagnostics.pyx"}
    assert layout_mismatches("kernels (_sgd.pyx, _dcd.pyx)", sources) == (["_dcd_diagnostics.pyx"], [])
    assert layout_mismatches("kernels (_sgd.pyx, _dcd.pyx, _dcd_diagnostics.pyx, _old_epoch.pyx)", sources) == (
        [], ["_old_epoch.pyx"])
    assert layout_block("x\n## Layout\n\n```\nlgekit/_sgd.pyx\n```\nmore ```a```") == "\nlgekit/_sgd.pyx\n"
