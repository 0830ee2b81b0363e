"""The per-mutant command: the verdicts of ``lgekit theory CHECK --quick`` for each CHECK named, in the order given.

Exit status 1 at the first check that FAILs a claim or stops with an error (the mutant is killed by the
verdicts), 0 when every check passes (it survived them).  The last line of output says which: the claims
that FAILed, or the error's type and message.  Each check runs in-process, as ``lgekit theory`` runs it but
without drawing its figure (the verdicts do not read it); ``--cli`` runs the command's whole path
(:func:`lgekit.experiments.checks.run_verifier`: the report and the figure written to a temporary folder).

Usage::

    python3 .ci/mutation/verdicts.py [--cli] capacity shattering directed bound rademacher
"""
import io
import sys
import tempfile
import traceback


def _claims(name, cli):
    """(exit status, the FAILed claims) of one quick check."""
    from lgekit.experiments.checks import VERIFIERS, run_verifier

    if not cli:
        report = VERIFIERS[name](quick=True, seed=0)
        return report.exit_status, [c.claim for c in report.failed]
    stream = io.StringIO()
    with tempfile.TemporaryDirectory() as out:
        status = run_verifier(name, quick=True, seed=0, out=out, stream=stream)
    return status, [line.split(":")[0][len("FAIL "):] for line in stream.getvalue().splitlines()
                    if line.startswith("FAIL ")]


def main(argv):
    cli = "--cli" in argv
    names = [a for a in argv if a != "--cli"]
    for name in names:
        try:
            status, failed = _claims(name, cli)
        except BaseException as exc:  # a mutant may raise anything, SystemExit and RecursionError included
            where = traceback.extract_tb(exc.__traceback__)[-1]
            print(f"killed by {name}: error {type(exc).__name__}: {str(exc)[:200]} "
                  f"({where.filename.rsplit('/', 1)[-1]}:{where.lineno})")
            return 1
        if status:
            print(f"killed by {name}: FAIL {', '.join(failed)}")
            return 1
    print("survived " + " ".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
