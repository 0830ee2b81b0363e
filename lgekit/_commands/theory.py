"""``lgekit theory``: check the paper's theory by computation.

::

    lgekit theory rademacher|bound|shattering|capacity [--quick] [--out DIR] [--seed N]

Runs the same code as ``theory/verify_*.py`` (:func:`lgekit.theory.run_verifier`):
prints the tables, writes ``DIR/<check>.txt`` and ``DIR/<check>.png`` and
ends with one ``PASS|FAIL <claim>: <numbers>`` line per claim.  Exit status 0
when every claim passes, 1 otherwise.
"""
__all__ = ["register", "run"]

CHECKS = ("rademacher", "bound", "shattering", "capacity")


def register(subparsers):
    parser = subparsers.add_parser(
        "theory",
        help="check Theorem 1, the spectral-norm estimate, Claim 1 and the capacity argument by computation",
        description=(
            "rademacher: E||A_sigma|| for Erdos-Renyi pairs vs the paper's, Bandeira-van Handel's and "
            "Benaych-Georges-Bordenave-Knowles' predictions, and the footnote's conjecture; bound: Theorem 1 "
            "on trained embeddings across lam_r vs the measured gap; shattering: Claim 1's construction on "
            "random d-regular graphs and the norm any shattering embedding needs; capacity: random labels "
            "fitted with a dimension constraint vs a norm penalty."
        ),
    )
    parser.add_argument("check", choices=CHECKS, metavar="CHECK", help="one of: " + ", ".join(CHECKS))
    parser.add_argument("--quick", action="store_true", help="the under-a-minute version")
    parser.add_argument("--out", default="theory-out", metavar="DIR",
                        help="folder for CHECK.txt and CHECK.png (default: ./theory-out)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: 0)")
    parser.set_defaults(func=run)
    return parser


def run(args):
    from ..theory import run_verifier

    if args.seed < 0:
        raise ValueError(f"--seed must be a non-negative int, got {args.seed}")
    return run_verifier(args.check, quick=args.quick, seed=args.seed, out=args.out)
