"""The house rules of the Cython kernels, read from their sources (CONTRIBUTING, "Rules of the house").

* no Cython file over 600 lines;
* no kernel (``def``, ``cdef`` or ``cpdef`` function) over 12 parameters: a group of inputs that travel
  together is one struct or bundle (``_incidence.pxd``'s ``PairSet`` / ``Incidence``, ``_dcd_block.pxd``'s
  ``PairCSR`` / ``Block``), as gensim passes one config struct;
* no directive in a kernel's source that turns the checks of an ``LGEKIT_DEBUG=1`` build back off
  (``boundscheck``, ``wraparound``, ``initializedcheck``, ``cdivision``: setup.py sets them once, for
  the release and the debug build alike).

Each rule's checker is shown failing on the wrong version it exists to catch.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 600
MAX_PARAMETERS = 12
DEBUG_DIRECTIVES = ("boundscheck", "wraparound", "initializedcheck", "cdivision")

_FUNCTION = re.compile(r"^[ \t]*(?:cpdef|cdef|def)[ \t]+(?:inline[ \t]+)?(?:[\w.*\[\]:, ]+?[ \t]+)?\**(\w+)[ \t]*\(",
                       re.M)
_DIRECTIVE = re.compile(r"(?:@cython\.|with[ \t]+cython\.|#[ \t]*cython:.*?)(" + "|".join(DEBUG_DIRECTIVES) + r")\b")


def kernel_sources():
    """The Cython sources of lgekit (``.pyx`` and ``.pxd``), without setup.py's generated AVX2 copies."""
    files = sorted((ROOT / "lgekit").rglob("*.pyx")) + sorted((ROOT / "lgekit").rglob("*.pxd"))
    return [path for path in files if not path.stem.endswith("_avx2")]


def _split_top_level(text):
    """``text`` split at the commas outside brackets (a default such as ``(1, 2)`` stays one piece)."""
    depth, piece, pieces = 0, [], []
    for char in text:
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            pieces.append("".join(piece))
            piece = []
        else:
            piece.append(char)
    pieces.append("".join(piece))
    return [p for p in pieces if p.strip()]


def function_parameters(text):
    """``{name: number of parameters}`` of every function defined in a Cython source ``text``."""
    found = {}
    for match in _FUNCTION.finditer(text):
        start = end = match.end() - 1                  # the opening parenthesis
        depth = 0
        while True:
            depth += text[end] in "([{"
            depth -= text[end] in ")]}"
            if depth == 0:
                break
            end += 1
        found[match.group(1)] = len(_split_top_level(text[start + 1:end]))
    return found


def too_many_parameters(text):
    return {name: n for name, n in function_parameters(text).items() if n > MAX_PARAMETERS}


def debug_overrides(text):
    """The lines of ``text`` that set a directive the debug build turns on."""
    return [line.strip() for line in text.splitlines() if _DIRECTIVE.search(line)]


def test_the_sources_are_found():
    names = {path.name for path in kernel_sources()}
    assert {"_sgd.pyx", "_dcd.pyx", "_schedules.pyx", "_incidence.pyx", "_common.pxd"} <= names
    assert not any(name.endswith("_avx2.pyx") for name in names)


@pytest.mark.parametrize("path", kernel_sources(), ids=lambda p: p.name)
def test_no_cython_file_over_600_lines(path):
    n_lines = len(path.read_text().splitlines())
    assert n_lines <= MAX_LINES, f"{path.name} has {n_lines} lines (at most {MAX_LINES}): cut it at a seam"


@pytest.mark.parametrize("path", kernel_sources(), ids=lambda p: p.name)
def test_no_kernel_over_12_parameters(path):
    assert too_many_parameters(path.read_text()) == {}, (
        f"{path.relative_to(ROOT)}: pass a group of inputs that travel together as one struct or bundle")


@pytest.mark.parametrize("path", kernel_sources(), ids=lambda p: p.name)
def test_no_directive_defeats_the_debug_build(path):
    assert debug_overrides(path.read_text()) == [], (
        f"{path.relative_to(ROOT)}: setup.py sets these directives for the release and the LGEKIT_DEBUG build")


def test_the_kernels_have_functions_to_count():
    counts = function_parameters((ROOT / "lgekit/models/_sgd.pyx").read_text())
    assert counts["edge_epoch"] == 12 and counts["vertex_epoch"] == 9 and counts["_vertex_step"] == 7
    counts = function_parameters((ROOT / "lgekit/models/_dcd.pyx").read_text())
    assert counts["dcd_epoch"] == 11 and counts["_visit"] == 8


# ------------------------------------------------------------------ the wrong versions
WRONG_KERNEL = '''
cdef inline int _visit(Py_ssize_t u, floating* w, Py_ssize_t* perm, floating* X, double* sqnorm,
                       Py_ssize_t D, const int64_t* indptr, const int32_t* nbr, const int8_t* sign,
                       const double* upper, double* alpha, int inner_passes, double tol) noexcept nogil:
    return 0


def edge_epoch(floating[:, ::1] emb, const PairRec[::1] records, const double[::1] pos_coef, double lam_pos,
               double lam_neg, Py_ssize_t n_pos, const double[::1] rfac, int32_t[::1] work, uint64_t seed,
               Py_ssize_t epoch, double lr, int n_threads=1, bint stratified=True, tuple shape=(1, 2)):
    pass


cdef Py_ssize_t group_count(Py_ssize_t n, Py_ssize_t P, Py_ssize_t D) noexcept nogil:
    return 1
'''


def test_the_parameter_count_catches_the_long_signatures_it_replaced():
    counts = function_parameters(WRONG_KERNEL)
    # a default holding a comma is one parameter; a three-parameter helper is not flagged
    assert counts == {"_visit": 13, "edge_epoch": 14, "group_count": 3}
    assert too_many_parameters(WRONG_KERNEL) == {"_visit": 13, "edge_epoch": 14}


def test_the_directive_check_catches_a_decorator_a_header_and_a_block():
    wrong = ("# cython: language_level=3, boundscheck=False\n"
             "@cython.boundscheck(False)\n@cython.wraparound(False)\ndef dcd_epoch(X):\n"
             "    with cython.cdivision(True):\n        pass\n")
    assert debug_overrides(wrong) == ["# cython: language_level=3, boundscheck=False", "@cython.boundscheck(False)",
                                      "@cython.wraparound(False)", "with cython.cdivision(True):"]
    assert debug_overrides("# cython: language_level=3\ndef f(boundscheck):\n    pass\n") == []


def test_the_line_count_catches_a_long_file(tmp_path):
    path = tmp_path / "_long.pyx"
    path.write_text("x = 1\n" * (MAX_LINES + 1))
    with pytest.raises(AssertionError, match="601 lines"):
        test_no_cython_file_over_600_lines(path)
    path.write_text("x = 1\n" * MAX_LINES)
    test_no_cython_file_over_600_lines(path)
