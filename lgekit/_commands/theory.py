"""``lgekit theory``: check the paper's theory by computation.

::

    lgekit theory rademacher|bound|directed|shattering|capacity [--quick] [--out DIR] [--seed N] [--force]
    lgekit theory bound [--convention symmetric|random|sorted|source] ...

Runs the same code as ``theory/verify_*.py`` (:func:`lgekit.experiments.checks.run_verifier`):
prints the tables, writes ``DIR/<check>.txt`` and ``DIR/<check>.png`` and
ends with one ``PASS|FAIL|INCONCLUSIVE <claim>: <numbers>`` line per claim
(INCONCLUSIVE: the cells measured cannot decide it).  Exit status 0 when no
claim FAILs, 1 otherwise.  ``--out`` must be new, empty or a folder
lgekit wrote (``--force`` writes into any folder, overwriting only CHECK.txt
and CHECK.png).  ``--convention`` (``bound`` only)
chooses the :math:`A_\\sigma` put into Theorem 1
(:func:`lgekit.theory.theorem1_spectral_norm`); the report's sensitivity
table shows all of them whatever the choice.
"""
from .._output_folder import FolderLockedError, FolderNotOursError
from ._common import CommandError, output_folder

__all__ = ["register", "run"]

CHECKS = ("rademacher", "bound", "directed", "shattering", "capacity")
# lgekit.theory.CONVENTIONS, spelled out so that building the parser does not import the theory package
CONVENTIONS = ("symmetric", "random", "sorted", "source")


def register(subparsers):
    parser = subparsers.add_parser(
        "theory",
        help="check Theorem 1, the spectral-norm estimate, Claim 1 and the capacity argument by computation",
        description=(
            "rademacher: E||A_sigma|| for Erdos-Renyi pairs vs the paper's, Bandeira-van Handel's and "
            "Benaych-Georges-Bordenave-Knowles' predictions, and footnote 5's conjecture; bound: Theorem 1 "
            "(Section 3.1) on trained embeddings across lam_r vs the measured gap, the sensitivity of "
            "E||A_sigma|| to the pair convention, and the sample size at which the bound becomes non-vacuous; "
            "directed: Theorem 1 in its own two-table setting (footnote 1) on email-Eu-core (directed) and "
            "BlogCatalog's users x groups (bipartite), A_sigma the sources-by-targets matrix, C_U and C_V from the two "
            "tables; "
            "shattering: Claim 1's construction on random and adversarial d-regular graphs and the norm any "
            "shattering embedding needs; capacity: random labels fitted with a dimension constraint vs a norm "
            "penalty."
        ),
    )
    parser.add_argument("check", choices=CHECKS, metavar="CHECK", help="one of: " + ", ".join(CHECKS))
    parser.add_argument("--quick", action="store_true", help="the under-a-minute version")
    parser.add_argument("--out", default="lgekit-results/theory", metavar="DIR", type=output_folder,
                        help="folder for CHECK.txt and CHECK.png (default: ./lgekit-results/theory, beside the figures "
                             "of lgekit reproduce)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: 0)")
    parser.add_argument("--force", action="store_true",
                        help="write into an output folder that holds files lgekit did not write (it overwrites "
                             "CHECK.txt and CHECK.png; it never removes a file)")
    parser.add_argument("--convention", choices=CONVENTIONS, default=None,
                        help="bound only: the A_sigma put into Theorem 1 (default: symmetric, the one the theorem "
                             "needs for one vector per vertex; see lgekit.theory.theorem1_spectral_norm)")
    parser.set_defaults(func=run)
    return parser


def run(args):
    from ..experiments.checks import run_verifier  # lazy: `lgekit --help` must not import NumPy

    if args.seed < 0:
        raise CommandError(f"--seed must be a non-negative int, got {args.seed}")
    kwargs = {}
    if args.convention is not None:
        if args.check != "bound":
            raise CommandError(f"--convention applies to the bound check only, got it with {args.check!r}")
        kwargs["convention"] = args.convention
    try:
        return run_verifier(args.check, quick=args.quick, seed=args.seed, out=args.out, force=args.force, **kwargs)
    except (FolderNotOursError, FolderLockedError) as exc:  # --out not ours, or written by another run: before the check
        raise CommandError(str(exc)) from None
