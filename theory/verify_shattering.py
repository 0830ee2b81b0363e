#!/usr/bin/env python
"""Check Claim 1 (Section 3.1) on random and adversarial regular graphs: table, figure, one PASS/FAIL line per claim.

Usage: python theory/verify_shattering.py [--quick] [--out DIR] [--seed N]

The same as ``lgekit theory shattering``; the logic is
``lgekit.theory.verify_shattering`` (see its docstring for every claim and threshold).
Exit status 0 when every claim passes, 1 otherwise.
"""
import argparse
import sys

from lgekit.theory import run_verifier


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the under-a-minute version")
    parser.add_argument("--out", default="lgekit-results/theory", metavar="DIR",
                        help="folder for shattering.txt and shattering.png (default: ./lgekit-results/theory, beside the figures of lgekit reproduce)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: 0)")
    args = parser.parse_args(argv)
    return run_verifier("shattering", quick=args.quick, seed=args.seed, out=args.out)


if __name__ == "__main__":
    sys.exit(main())
