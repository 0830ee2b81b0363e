"""Run one theory check: print its report, save its table and figure, return the exit status.

Each check (:data:`VERIFIERS`) is one module named as the command line names
it: :mod:`~lgekit.experiments.check_rademacher`,
:mod:`~lgekit.experiments.check_bound` and
:mod:`~lgekit.experiments.check_directed` (Theorem 1; the last two share the
λr sweep of :mod:`~lgekit.experiments.theorem1`),
:mod:`~lgekit.experiments.check_shattering` (Claim 1) and
:mod:`~lgekit.experiments.check_capacity`; the mathematics they compute with
is :mod:`lgekit.theory`.  :func:`run_verifier` is everything
``lgekit theory NAME`` and the ``theory/verify_*.py`` scripts do after
parsing their arguments, and :func:`main` is the scripts' whole body.
"""
import argparse
import sys
from pathlib import Path

from .._output_folder import OutputFolder
from ..theory import CONVENTIONS
from .check_bound import verify_bound
from .check_capacity import verify_capacity
from .check_directed import verify_directed
from .check_rademacher import verify_rademacher
from .check_shattering import verify_shattering

__all__ = ["VERIFIERS", "DEFAULT_OUT", "FORCE_HELP", "run_verifier", "main"]

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
#: the help of ``--force`` (``lgekit theory`` and the scripts)
FORCE_HELP = ("write into an output folder that holds files lgekit did not write (it overwrites CHECK.txt and "
              "CHECK.png; it never removes a file)")


def run_verifier(name, quick=False, seed=0, out=None, stream=None, force=False, **kwargs):
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
    force : bool, default False
        Write into a folder that holds files lgekit did not write
        (``--force``); without it such a folder is refused before the check
        runs (:class:`lgekit._output_folder.FolderNotOursError`).
    **kwargs
        Passed to the ``verify_*`` function.

    Returns
    -------
    int
        0 when no claim FAILed (INCONCLUSIVE ones are printed, not failures), 1 otherwise.

    Raises
    ------
    ValueError
        For an unknown ``name``.
    FolderNotOursError
        When ``out`` holds files lgekit did not write and ``force`` is false
        (raised before the check runs).
    """
    if name not in VERIFIERS:
        raise ValueError(f"unknown theory check {name!r}; choose from {sorted(VERIFIERS)}")
    stream = stream or sys.stdout
    # claimed before the check runs: a folder of the user's is refused now, not after minutes of work
    output = OutputFolder(out if out is not None else DEFAULT_OUT, force=force, command="lgekit theory")
    with output.lock():   # one writer at a time: a second check into the folder is refused, not interleaved
        output.check_writable([f"{name}.txt", f"{name}.png"])
        report = VERIFIERS[name](quick=quick, seed=seed, **kwargs)
        written = report.save(output)
    text = report.text()
    body, _, claims = text.rstrip("\n").rpartition("\n\n")
    print(body, file=stream)
    print("\nwrote " + ", ".join(str(p) for p in written), file=stream)
    print("\n" + claims, file=stream)
    return report.exit_status


def main(check, argv=None, description=None):
    """The body of ``theory/verify_<check>.py``: parse ``argv`` and run :func:`run_verifier`.

    Options: ``--quick``, ``--out DIR``, ``--seed N``, ``--force``, and for ``bound``
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
        The exit status: 0 when no claim FAILed (INCONCLUSIVE ones are printed, not failures), 1 otherwise.

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
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
    kwargs = {}
    if check == "bound":
        parser.add_argument("--convention", choices=CONVENTIONS, default="symmetric",
                            help="the A_sigma put into Theorem 1 (default: symmetric)")
    args = parser.parse_args(argv)
    if check == "bound":
        kwargs["convention"] = args.convention
    return run_verifier(check, quick=args.quick, seed=args.seed, out=args.out, force=args.force, **kwargs)
