"""Run one theory check: print its report, save its table and figure, return the exit status.

The five checks (:data:`VERIFIERS`) live in
:mod:`lgekit.experiments.theory_bound` (Theorem 1: ``rademacher``,
``bound``), :mod:`lgekit.experiments.theory_directed` (Theorem 1 with two
tables on directed and bipartite graphs: ``directed``) and
:mod:`lgekit.experiments.theory_capacity` (Claim 1 and
capacity: ``shattering``, ``capacity``); the mathematics they compute with
is :mod:`lgekit.theory`.  :func:`run_verifier` is everything
``lgekit theory NAME`` and the ``theory/verify_*.py`` scripts do after
parsing their arguments, and :func:`main` is the scripts' whole body.
"""
import argparse
import sys
from pathlib import Path

from .theory_bound import verify_bound, verify_rademacher
from .theory_capacity import verify_capacity, verify_shattering
from .theory_directed import verify_directed

__all__ = ["VERIFIERS", "run_verifier", "main"]

#: check name -> the function that runs it and returns a TheoryReport
VERIFIERS = {
    "rademacher": verify_rademacher,
    "bound": verify_bound,
    "directed": verify_directed,
    "shattering": verify_shattering,
    "capacity": verify_capacity,
}

#: where the reports go unless ``out`` says otherwise: beside the figures of ``lgekit reproduce``
DEFAULT_OUT = Path("lgekit-results") / "theory"


def run_verifier(name, quick=False, seed=0, out=None, stream=None, **kwargs):
    """Run one check, print its report, save ``<name>.txt`` and ``<name>.png``, return the exit status.

    Parameters
    ----------
    name : {"rademacher", "bound", "directed", "shattering", "capacity"}
    quick : bool
        The under-a-minute version.
    seed : int
    out : path, optional
        Output folder, created if needed (default ``./lgekit-results/theory``).
    stream : file, optional
        Where to print (default sys.stdout).
    **kwargs
        Passed to the ``verify_*`` function.

    Returns
    -------
    int
        0 when every claim passed, 1 otherwise.

    Raises
    ------
    ValueError
        For an unknown ``name``.
    """
    if name not in VERIFIERS:
        raise ValueError(f"unknown theory check {name!r}; choose from {sorted(VERIFIERS)}")
    stream = stream or sys.stdout
    out = Path(out) if out is not None else DEFAULT_OUT
    report = VERIFIERS[name](quick=quick, seed=seed, **kwargs)
    written = report.save(out)
    text = report.text()
    body, _, claims = text.rstrip("\n").rpartition("\n\n")
    print(body, file=stream)
    print("\nwrote " + ", ".join(str(p) for p in written), file=stream)
    print("\n" + claims, file=stream)
    return report.exit_status


def main(check, argv=None, description=None):
    """The body of ``theory/verify_<check>.py``: parse ``argv`` and run :func:`run_verifier`.

    Options: ``--quick``, ``--out DIR``, ``--seed N``, and for ``bound``
    ``--convention`` (:data:`lgekit.theory.CONVENTIONS`).

    Parameters
    ----------
    check : {"rademacher", "bound", "directed", "shattering", "capacity"}
    argv : list of str, optional
        Default ``sys.argv[1:]``.
    description : str, optional
        The script's docstring; its first line heads ``--help``.

    Returns
    -------
    int
        The exit status: 0 when every claim passed, 1 otherwise.

    Raises
    ------
    ValueError
        For an unknown ``check``.
    """
    if check not in VERIFIERS:
        raise ValueError(f"unknown theory check {check!r}; choose from {sorted(VERIFIERS)}")
    parser = argparse.ArgumentParser(description=(description or f"the {check} check").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the under-a-minute version")
    parser.add_argument("--out", default=str(DEFAULT_OUT), metavar="DIR",
                        help=f"folder for {check}.txt and {check}.png (default: ./{DEFAULT_OUT.as_posix()}, beside "
                             "the figures of lgekit reproduce)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: 0)")
    kwargs = {}
    if check == "bound":
        from ..theory import CONVENTIONS

        parser.add_argument("--convention", choices=CONVENTIONS, default="symmetric",
                            help="the A_sigma put into Theorem 1 (default: symmetric)")
    args = parser.parse_args(argv)
    if check == "bound":
        kwargs["convention"] = args.convention
    return run_verifier(check, quick=args.quick, seed=args.seed, out=args.out, **kwargs)
