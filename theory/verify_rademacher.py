#!/usr/bin/env python
"""Check the appendix's estimate of E||A_sigma||_2 and footnote 5: table, figure, one PASS/FAIL line per claim.

Usage: python theory/verify_rademacher.py [--quick] [--out DIR] [--seed N]

The same as ``lgekit theory rademacher``; the logic is
``lgekit.theory.verify_rademacher`` (see its docstring for every claim and threshold).
Exit status 0 when every claim passes, 1 otherwise.
"""
import argparse
import sys

from lgekit.theory import run_verifier


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the under-a-minute version")
    parser.add_argument("--out", default="lgekit-results/theory", metavar="DIR",
                        help="folder for rademacher.txt and rademacher.png (default: ./lgekit-results/theory, beside the figures of lgekit reproduce)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: 0)")
    args = parser.parse_args(argv)
    return run_verifier("rademacher", quick=args.quick, seed=args.seed, out=args.out)


if __name__ == "__main__":
    sys.exit(main())
