#!/usr/bin/env python
"""Check Theorem 1 (Section 3.1) on trained embeddings and a planted model: table, figure, one PASS/FAIL line per claim.

Usage: python theory/verify_bound.py [--quick] [--out DIR] [--seed N] [--convention C]

The same as ``lgekit theory bound``; the logic is
``lgekit.theory.verify_bound`` (see its docstring for every claim and threshold).
``--convention`` (symmetric, random, sorted or source) chooses the A_sigma put into
Theorem 1; the sensitivity table reports every one.  Exit status 0 when every
claim passes, 1 otherwise.
"""
import argparse
import sys

from lgekit.theory import CONVENTIONS, run_verifier


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the under-a-minute version")
    parser.add_argument("--out", default="lgekit-results/theory", metavar="DIR",
                        help="folder for bound.txt and bound.png (default: ./lgekit-results/theory, beside the figures of lgekit reproduce)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: 0)")
    parser.add_argument("--convention", choices=CONVENTIONS, default="symmetric",
                        help="the A_sigma put into Theorem 1 (default: symmetric)")
    args = parser.parse_args(argv)
    return run_verifier("bound", quick=args.quick, seed=args.seed, out=args.out, convention=args.convention)


if __name__ == "__main__":
    sys.exit(main())
