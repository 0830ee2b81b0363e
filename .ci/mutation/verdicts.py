"""The per-mutant command: ``lgekit theory CHECK --quick`` for each CHECK named, in-process, in the order given.

Exit status 1 at the first check that FAILs a claim or stops with an error (the mutant is killed by the
verdicts), 0 when every check passes (it survived them).  The first line of output says which: the
claims that FAILed, or the error's type and message.

Usage::

    python3 .ci/mutation/verdicts.py capacity shattering directed bound rademacher
"""
import io
import sys
import tempfile
import traceback


def main(names):
    from lgekit.experiments.checks import run_verifier

    for name in names:
        stream = io.StringIO()
        with tempfile.TemporaryDirectory() as out:
            try:
                status = run_verifier(name, quick=True, seed=0, out=out, stream=stream)
            except BaseException as exc:  # a mutant may raise anything, SystemExit and RecursionError included
                where = traceback.extract_tb(exc.__traceback__)[-1]
                print(f"killed by {name}: error {type(exc).__name__}: {str(exc)[:200]} "
                      f"({where.filename.rsplit('/', 1)[-1]}:{where.lineno})")
                return 1
        if status:
            failed = [line.split(":")[0][len("FAIL "):] for line in stream.getvalue().splitlines()
                      if line.startswith("FAIL ")]
            print(f"killed by {name}: FAIL {', '.join(failed)}")
            return 1
    print("survived " + " ".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
